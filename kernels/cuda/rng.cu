/* kernels/cuda/rng.cu: the counter-based generator (kernels/rng.h) on the device, for
 * the stochastic methods and for the test that the GPU draws the host's bits. */
#include "cu_common.cuh"
#include "kernels/rng.h"

static __global__ void unit24_kernel(unsigned long long key, unsigned long long first,
				      float *out, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		out[i] = gc_rng_unit24(key, first + i);
}

extern "C" gc_rc gc_cuda_rng_unit24(uint64_t key, uint64_t first, float *out, size_t n,
				    void *stream)
{
	cudaError_t err;

	if (!n)
		return GC_OK;
	unit24_kernel<<<gc_cu_grid(n, GC_CU_THREADS), GC_CU_THREADS, 0,
			(cudaStream_t)stream>>>(key, first, out, n);
	err = cudaGetLastError();
	if (err != cudaSuccess) {
		gc_error("cuda: cannot launch the generator kernel: %s", cudaGetErrorString(err));
		return GC_E_CUDA;
	}
	return GC_OK;
}

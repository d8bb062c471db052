/* kernels/cuda/randomk.cu: Random-K with a shared seed on the GPU, bit-identical to
 * the CPU: the same indices (kernels/randomk.h, computed per stratum on the device),
 * the same float additions. encode: e += g over the bucket (ef), then per stratum j
 * send[j] = c[idx_j] (and e[idx_j] = 0); decode: avg = 0, avg[idx_j] = sum_j / p. */
#include <stdlib.h>
#include <string.h>

#include "cu_common.cuh"
#include "kernels/randomk.h"

struct randomk_st {
	float *e;                      /* residual (ef), numel */
	float *send, *recv;            /* k values each */
	uint32_t *idx;                 /* the step's indices */
	size_t k;
};

__global__ void k_rk_add(float *e, const float *g, size_t n)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		e[i] += g[i];
}

__global__ void k_rk_take(float *send, uint32_t *idx, float *e, const float *g,
			  unsigned long long key, unsigned long long n, unsigned long long k)
{
	for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < k; j += (size_t)gridDim.x * blockDim.x) {
		uint32_t i = gc_randomk_index(key, j, n, k);
		idx[j] = i;
		if (e) {
			send[j] = e[i];
			e[i] = 0.0f;
		} else {
			send[j] = g[i];
		}
	}
}

__global__ void k_rk_put(float *avg, const uint32_t *idx, const float *sum, float p, size_t k)
{
	for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < k; j += (size_t)gridDim.x * blockDim.x)
		avg[idx[j]] = sum[j] / p;
}

static gc_rc randomk_init(gc_bucket *b, gc_err *e)
{
	struct randomk_st *s = (struct randomk_st *)calloc(1, sizeof(*s));
	gc_rc rc;
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the randomk state: out of memory");
	b->st = s;
	s->k = b->plan.k;
	rc = gc_cu_malloc((void **)&s->send, s->k * sizeof(float), "the randomk payload", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->recv, s->k * sizeof(float), "the randomk sum", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->idx, s->k * sizeof(uint32_t), "the randomk indices", e);
	if (!rc && b->p.ef) {
		rc = gc_cu_malloc((void **)&s->e, b->numel * sizeof(float), "the randomk residual", e);
		cudaError_t ce = rc ? cudaSuccess :
			cudaMemsetAsync(s->e, 0, b->numel * sizeof(float), gc_cu_stream(b));
		if (ce != cudaSuccess)
			rc = gc_fail(e, GC_E_CUDA, "cannot clear the randomk residual on the GPU: %s",
				     cudaGetErrorString(ce));
	}
	return rc;
}

static gc_rc randomk_encode(gc_bucket *b, const float *grad)
{
	struct randomk_st *s = (struct randomk_st *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	uint64_t key = gc_rng_key(b->p.seed, 0, b->step);
	gc_rc rc = GC_OK;
	if (s->e) {
		k_rk_add<<<gc_cu_grid(b->numel, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(s->e, grad,
											 b->numel);
		GC_CUDA_LAUNCHED();
	}
	k_rk_take<<<gc_cu_grid(s->k, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
		s->send, s->idx, s->e, grad, key, b->numel, s->k);
	GC_CUDA_LAUNCHED();
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
out:
	return rc;
}

static gc_rc randomk_round_done(gc_bucket *b)
{
	(void)b;
	return GC_OK;
}

static gc_rc randomk_decode(gc_bucket *b, float *avg)
{
	struct randomk_st *s = (struct randomk_st *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	gc_rc rc = GC_OK;
	GC_CUDA_CHECK(cudaMemsetAsync(avg, 0, b->numel * sizeof(float), st));
	k_rk_put<<<gc_cu_grid(s->k, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
		avg, s->idx, s->recv, (float)b->world, s->k);
	GC_CUDA_LAUNCHED();
out:
	return rc;
}

static gc_rc randomk_residual(const gc_bucket *b, float *host_out)
{
	const struct randomk_st *s = (const struct randomk_st *)b->st;
	gc_rc rc = GC_OK;
	if (!s->e) {
		memset(host_out, 0, b->numel * sizeof(float));
		return GC_OK;
	}
	GC_CUDA_CHECK(cudaMemcpyAsync(host_out, s->e, b->numel * sizeof(float), cudaMemcpyDeviceToHost,
				      gc_cu_stream(b)));
	GC_CUDA_CHECK(cudaStreamSynchronize(gc_cu_stream(b)));
out:
	return rc;
}

static void randomk_release(gc_bucket *b)
{
	struct randomk_st *s = (struct randomk_st *)b->st;
	if (!s)
		return;
	gc_cuda_free(s->e);
	gc_cuda_free(s->send);
	gc_cuda_free(s->recv);
	gc_cuda_free(s->idx);
	free(s);
	b->st = NULL;
}

const struct gc_method_ops gc_cu_randomk_ops = {
	randomk_init, randomk_encode, randomk_round_done, randomk_decode, randomk_residual,
	randomk_release,
};

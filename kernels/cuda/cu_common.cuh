/* kernels/cuda/cu_common.cuh: what the CUDA method files share (C++, nvcc only).
 *
 * Includes the C headers with C linkage, gives the stream of a bucket, grid sizing,
 * deterministic block reductions and scans, and the chunk table: the bucket cut into
 * chunks of at most GC_CU_CHUNK elements that never straddle a tensor, so that one
 * block per chunk knows its tensor and per-tensor sums come out in a fixed order
 * (bit-reproducible from run to run).
 */
#ifndef GC_CU_COMMON_CUH
#define GC_CU_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

extern "C" {
#include "kernels/compress.h"
#include "log.h"
}
#include "kernels/internal.h"
#include "cuda_util.h"

#define GC_CU_THREADS 256          /* threads per block of the streaming kernels */
#define GC_CU_CHUNK 8192           /* elements per chunk (32 per thread) */

static inline cudaStream_t gc_cu_stream(const gc_bucket *b)
{
	return (cudaStream_t)b->stream;
}

/* Blocks for a grid-stride loop over n items: enough to fill the device (a few waves
 * of resident blocks), never more than the items need, at least 1. */
unsigned gc_cu_grid(size_t n, unsigned threads);

/* One chunk: elements [begin, end) of the bucket, all in tensor `seg`. */
struct gc_cu_chunk {
	unsigned long long begin, end;
	unsigned seg;
};

/* The chunk table on the device; segment s owns chunks [first[s], first[s+1]). */
struct gc_cu_chunks {
	gc_cu_chunk *d;                /* n chunks (device) */
	unsigned *d_first;             /* nseg + 1 (device) */
	unsigned long long *d_off;     /* nseg + 1 segment offsets (device) */
	size_t n, nseg;
	double *d_psum;                /* per-chunk partial sums of |x| (device) */
	unsigned *d_pmax;              /* per-chunk largest key of |x| (device) */
};

/* Build the table: per_tensor = 1 gives one segment per tensor of b, 0 one segment for
 * the whole bucket. Errors go to e. Release with gc_cu_chunks_release (NULL-safe). */
gc_rc gc_cu_chunks_init(gc_cu_chunks *c, const gc_bucket *b, int per_tensor, gc_err *e);
void gc_cu_chunks_release(gc_cu_chunks *c);

/* Per segment s of c: mean_out[s] = (float)(sum |x| in double / count) and
 * max_out[s] = max |x| as the largest magnitude key (so a NaN wins, as on the CPU;
 * either output may be NULL); device pointers, queued on stream.
 * The double sums are added in a fixed order, so the result is the same every run. */
gc_rc gc_cu_absstats(const gc_cu_chunks *c, const float *x, float *mean_out, float *max_out,
		     cudaStream_t stream);

/* Elementwise helpers over n floats, queued on stream:
 * y = a + b (b may alias y), y = x / p (x may alias y). */
gc_rc gc_cu_add(float *y, const float *a, const float *b, size_t n, cudaStream_t stream);
gc_rc gc_cu_div(float *y, const float *x, float p, size_t n, cudaStream_t stream);

/* cudaMalloc for a method's init: on failure a message naming what (e.g. "topk
 * indices") and the size goes to e, and GC_E_CUDA is returned. bytes == 0 gives NULL. */
gc_rc gc_cu_malloc(void **p, size_t bytes, const char *what, gc_err *e);

/* The CUDA method tables (one per kernels/cuda/<method>.cu). */
extern const struct gc_method_ops gc_cu_syncsgd_ops, gc_cu_fp16_ops, gc_cu_signsgd_ops,
	gc_cu_topk_ops, gc_cu_mstopk_ops, gc_cu_powersgd_ops, gc_cu_bf16_ops, gc_cu_randomk_ops,
	gc_cu_terngrad_ops, gc_cu_qsgd_ops, gc_cu_efsign_ar_ops, gc_cu_dgc_ops,
	gc_cu_cgx_ops;

/* ---- device helpers ---------------------------------------------------- */

template <typename T>
__device__ __forceinline__ T gc_warp_sum(T v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	return v;
}

__device__ __forceinline__ unsigned gc_warp_umax(unsigned v)
{
	for (int o = 16; o > 0; o >>= 1)
		v = max(v, __shfl_down_sync(0xffffffffu, v, o));
	return v;
}

/* Sum over the block (blockDim.x a multiple of 32, at most 1024); the result is valid
 * in thread 0. Fixed reduction tree: deterministic. sh: 32 elements of shared memory. */
template <typename T>
__device__ __forceinline__ T gc_block_sum(T v, T *sh)
{
	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
	v = gc_warp_sum(v);
	__syncthreads();
	if (lane == 0)
		sh[wid] = v;
	__syncthreads();
	v = (threadIdx.x < (unsigned)nw) ? sh[lane] : (T)0;
	if (wid == 0)
		v = gc_warp_sum(v);
	return v;
}

__device__ __forceinline__ unsigned gc_block_umax(unsigned v, unsigned *sh)
{
	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
	v = gc_warp_umax(v);
	__syncthreads();
	if (lane == 0)
		sh[wid] = v;
	__syncthreads();
	v = (threadIdx.x < (unsigned)nw) ? sh[lane] : 0u;
	if (wid == 0)
		v = gc_warp_umax(v);
	return v;
}

/* Exclusive prefix sum over the block of one unsigned per thread, in thread order;
 * *total gets the block's sum in every thread. sh: 33 unsigneds of shared memory. */
__device__ __forceinline__ unsigned gc_block_exscan(unsigned v, unsigned *sh, unsigned *total)
{
	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
	unsigned x = v;
	for (int o = 1; o < 32; o <<= 1) {
		unsigned y = __shfl_up_sync(0xffffffffu, x, o);
		if (lane >= o)
			x += y;
	}
	__syncthreads();
	if (lane == 31)
		sh[wid] = x;
	__syncthreads();
	if (wid == 0) {
		unsigned s = lane < nw ? sh[lane] : 0u;
		for (int o = 1; o < 32; o <<= 1) {
			unsigned y = __shfl_up_sync(0xffffffffu, s, o);
			if (lane >= o)
				s += y;
		}
		sh[lane] = s;          /* inclusive sums of the warps */
	}
	__syncthreads();
	*total = sh[nw - 1];
	return x - v + (wid > 0 ? sh[wid - 1] : 0u);
}

/* The magnitude key of x: the bits of |x|, which order like |x| for non-NaN floats. */
__device__ __forceinline__ uint32_t gc_abs_key(float x)
{
	return __float_as_uint(x) & 0x7fffffffu;
}

#endif

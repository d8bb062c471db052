/* kernels/cuda/fp16.cu: half-precision all-reduce on the GPU.
 * encode: payload[i] = half(grad[i] / p) with __float2half_rn (round to nearest even,
 * overflow to inf); decode: avg[i] = float(sum[i]). Four elements per thread (float4
 * in, 8 bytes of halves out) where the gradient is 16-byte aligned. */
#include <cuda_fp16.h>
#include <stdlib.h>

#include "cu_common.cuh"

struct fp16_st {
	__half *buf;                   /* numel halves (device), send = recv */
};

__global__ void k_f16_enc4(__half2 *out, const float4 *g, float p, size_t n4)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
		float4 v = g[i];
		out[2 * i] = __halves2half2(__float2half_rn(v.x / p), __float2half_rn(v.y / p));
		out[2 * i + 1] = __halves2half2(__float2half_rn(v.z / p), __float2half_rn(v.w / p));
	}
}

__global__ void k_f16_enc(__half *out, const float *g, float p, size_t n)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		out[i] = __float2half_rn(g[i] / p);
}

__global__ void k_f16_dec(float *avg, const __half *in, size_t n)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		avg[i] = __half2float(in[i]);
}

static gc_rc fp16_init(gc_bucket *b, gc_err *e)
{
	struct fp16_st *s = (struct fp16_st *)calloc(1, sizeof(*s));
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the fp16 state: out of memory");
	b->st = s;
	return gc_cu_malloc((void **)&s->buf, b->numel * sizeof(__half), "the fp16 buffer", e);
}

static gc_rc fp16_encode(gc_bucket *b, const float *grad)
{
	struct fp16_st *s = (struct fp16_st *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	float p = (float)b->world;
	size_t n = b->numel, n4 = 0;
	gc_rc rc = GC_OK;
	if (((uintptr_t)grad & 15u) == 0 && n >= 4) {
		n4 = n / 4;
		k_f16_enc4<<<gc_cu_grid(n4, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
			(__half2 *)s->buf, (const float4 *)grad, p, n4);
		GC_CUDA_LAUNCHED();
	}
	if (n > 4 * n4) {
		k_f16_enc<<<gc_cu_grid(n - 4 * n4, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
			s->buf + 4 * n4, grad + 4 * n4, p, n - 4 * n4);
		GC_CUDA_LAUNCHED();
	}
	gc_round_bind(b, s->buf, s->buf, NULL, NULL);
out:
	return rc;
}

static gc_rc fp16_round_done(gc_bucket *b)
{
	(void)b;
	return GC_OK;
}

static gc_rc fp16_decode(gc_bucket *b, float *avg)
{
	struct fp16_st *s = (struct fp16_st *)b->st;
	gc_rc rc = GC_OK;
	if (b->numel) {
		k_f16_dec<<<gc_cu_grid(b->numel, GC_CU_THREADS), GC_CU_THREADS, 0, gc_cu_stream(b)>>>(
			avg, s->buf, b->numel);
		GC_CUDA_LAUNCHED();
	}
out:
	return rc;
}

static void fp16_release(gc_bucket *b)
{
	struct fp16_st *s = (struct fp16_st *)b->st;
	if (!s)
		return;
	gc_cuda_free(s->buf);
	free(s);
	b->st = NULL;
}

const struct gc_method_ops gc_cu_fp16_ops = {
	fp16_init, fp16_encode, fp16_round_done, fp16_decode, NULL, fp16_release,
};

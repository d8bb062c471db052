/* kernels/cuda/bf16.cu: bfloat16 all-reduce on the GPU, bit-identical to the CPU's
 * (the rounding of kernels/bf16.h in integer arithmetic, not __float2bfloat16_rn, so
 * NaN payloads match too). encode: payload[i] = bf16(grad[i] / p); decode:
 * avg[i] = float(sum[i]). Four elements per thread (float4 in, 8 bytes out) where the
 * gradient is 16-byte aligned; the all-reduce is NCCL's ncclBfloat16 sum. */
#include <stdlib.h>

#include "cu_common.cuh"
#include "kernels/bf16.h"

struct bf16_st {
	uint16_t *buf;                 /* numel bf16 (device), send = recv */
};

static __device__ __forceinline__ uint16_t enc1(float g, float p)
{
	return gc_bf16_from_bits(__float_as_uint(g / p));
}

__global__ void k_bf16_enc4(uint2 *out, const float4 *g, float p, size_t n4)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
		float4 v = g[i];
		out[i] = make_uint2((uint32_t)enc1(v.x, p) | ((uint32_t)enc1(v.y, p) << 16),
				    (uint32_t)enc1(v.z, p) | ((uint32_t)enc1(v.w, p) << 16));
	}
}

__global__ void k_bf16_enc(uint16_t *out, const float *g, float p, size_t n)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		out[i] = enc1(g[i], p);
}

__global__ void k_bf16_dec(float *avg, const uint16_t *in, size_t n)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		avg[i] = __uint_as_float(gc_bf16_to_bits(in[i]));
}

static gc_rc bf16_init(gc_bucket *b, gc_err *e)
{
	struct bf16_st *s = (struct bf16_st *)calloc(1, sizeof(*s));
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the bf16 state: out of memory");
	b->st = s;
	return gc_cu_malloc((void **)&s->buf, b->numel * sizeof(uint16_t), "the bf16 buffer", e);
}

static gc_rc bf16_encode(gc_bucket *b, const float *grad)
{
	struct bf16_st *s = (struct bf16_st *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	float p = (float)b->world;
	size_t n = b->numel, n4 = 0;
	gc_rc rc = GC_OK;
	if (((uintptr_t)grad & 15u) == 0 && ((uintptr_t)s->buf & 7u) == 0 && n >= 4) {
		n4 = n / 4;
		k_bf16_enc4<<<gc_cu_grid(n4, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
			(uint2 *)s->buf, (const float4 *)grad, p, n4);
		GC_CUDA_LAUNCHED();
	}
	if (n > 4 * n4) {
		k_bf16_enc<<<gc_cu_grid(n - 4 * n4, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
			s->buf + 4 * n4, grad + 4 * n4, p, n - 4 * n4);
		GC_CUDA_LAUNCHED();
	}
	gc_round_bind(b, s->buf, s->buf, NULL, NULL);
out:
	return rc;
}

static gc_rc bf16_round_done(gc_bucket *b)
{
	(void)b;
	return GC_OK;
}

static gc_rc bf16_decode(gc_bucket *b, float *avg)
{
	struct bf16_st *s = (struct bf16_st *)b->st;
	gc_rc rc = GC_OK;
	if (b->numel) {
		k_bf16_dec<<<gc_cu_grid(b->numel, GC_CU_THREADS), GC_CU_THREADS, 0, gc_cu_stream(b)>>>(
			avg, s->buf, b->numel);
		GC_CUDA_LAUNCHED();
	}
out:
	return rc;
}

static void bf16_release(gc_bucket *b)
{
	struct bf16_st *s = (struct bf16_st *)b->st;
	if (!s)
		return;
	gc_cuda_free(s->buf);
	free(s);
	b->st = NULL;
}

const struct gc_method_ops gc_cu_bf16_ops = {
	bf16_init, bf16_encode, bf16_round_done, bf16_decode, NULL, bf16_release,
};

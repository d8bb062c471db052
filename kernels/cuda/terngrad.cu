/* kernels/cuda/terngrad.cu: TernGrad on the GPU, bit-identical to the CPU: per tensor
 * the max |g| (one block per tensor; a max is exact in any order), then per byte four
 * 2-bit codes from kernels/terngrad.h with the same counter-based draws; decode per
 * element sums the workers' values in worker order in float and divides by p. */
#include <stdlib.h>
#include <string.h>

#include "cu_common.cuh"
#include "kernels/terngrad.h"

struct terngrad_st {
	uint8_t *send, *recv;          /* payload; world payloads */
	unsigned long long *off;       /* nt + 1 tensor offsets (device) */
	size_t bytes;
};

static __device__ unsigned tensor_at(const unsigned long long *off, unsigned nt,
				     unsigned long long i)
{
	unsigned lo = 0, hi = nt;
	while (hi - lo > 1) {
		unsigned mid = (lo + hi) / 2;
		if (off[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

__global__ void k_tg_max(float *scale, const float *g, const unsigned long long *off)
{
	__shared__ float m[256];
	unsigned t = blockIdx.x;
	float v = 0.0f;
	for (unsigned long long i = off[t] + threadIdx.x; i < off[t + 1]; i += blockDim.x)
		v = fmaxf(v, fabsf(g[i]));
	m[threadIdx.x] = v;
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
		if (threadIdx.x < s)
			m[threadIdx.x] = fmaxf(m[threadIdx.x], m[threadIdx.x + s]);
		__syncthreads();
	}
	if (threadIdx.x == 0)
		scale[t] = m[0];
}

__global__ void k_tg_code(uint8_t *code, const float *scale, const float *g,
			  const unsigned long long *off, unsigned nt, unsigned long long n,
			  unsigned long long seed, unsigned long long step, unsigned long long wk)
{
	size_t nbytes = (n + 3) / 4;
	for (size_t y = (size_t)blockIdx.x * blockDim.x + threadIdx.x; y < nbytes; y += (size_t)gridDim.x * blockDim.x) {
		unsigned v = 0;
		for (unsigned r = 0; r < 4; r++) {
			unsigned long long i = 4 * y + r;
			if (i >= n)
				break;
			unsigned t = tensor_at(off, nt, i);
			v |= gc_tern_code(g[i], scale[t], gc_rng_key(seed, t, step), wk | i) << (2 * r);
		}
		code[y] = (uint8_t)v;
	}
}

__global__ void k_tg_dec(float *avg, const uint8_t *recv, const unsigned long long *off,
			 unsigned nt, unsigned long long n, size_t bytes, int world)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		unsigned t = tensor_at(off, nt, i);
		float acc = 0.0f;
		for (int w = 0; w < world; w++) {
			const uint8_t *pw = recv + (size_t)w * bytes;
			float sc;
			memcpy(&sc, pw + 4 * (size_t)t, sizeof(sc));
			acc += gc_tern_value((pw[4 * (size_t)nt + i / 4] >> (2 * (i % 4))) & 3u, sc);
		}
		avg[i] = acc / (float)world;
	}
}

static gc_rc terngrad_init(gc_bucket *b, gc_err *e)
{
	struct terngrad_st *s = (struct terngrad_st *)calloc(1, sizeof(*s));
	unsigned long long *h;
	gc_rc rc;
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the terngrad state: out of memory");
	b->st = s;
	s->bytes = 4 * b->nt + (b->numel + 3) / 4;
	rc = gc_cu_malloc((void **)&s->send, s->bytes, "the terngrad payload", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->recv, s->bytes * (size_t)b->world,
				  "the terngrad payloads", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->off, (b->nt + 1) * sizeof(*s->off),
				  "the terngrad tensor offsets", e);
	if (rc)
		return rc;
	h = (unsigned long long *)malloc((b->nt + 1) * sizeof(*h));
	if (!h)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the terngrad offsets: out of memory");
	for (size_t t = 0; t <= b->nt; t++)
		h[t] = b->off[t];
	cudaError_t ce = cudaMemcpy(s->off, h, (b->nt + 1) * sizeof(*h), cudaMemcpyHostToDevice);
	free(h);
	if (ce != cudaSuccess)
		return gc_fail(e, GC_E_CUDA, "cannot copy the terngrad offsets to the GPU: %s",
			       cudaGetErrorString(ce));
	return GC_OK;
}

static gc_rc terngrad_encode(gc_bucket *b, const float *grad)
{
	struct terngrad_st *s = (struct terngrad_st *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	size_t nbytes = (b->numel + 3) / 4;
	gc_rc rc = GC_OK;
	k_tg_max<<<(unsigned)b->nt, 256, 0, st>>>((float *)(void *)s->send, grad, s->off);
	GC_CUDA_LAUNCHED();
	k_tg_code<<<gc_cu_grid(nbytes, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
		s->send + 4 * b->nt, (const float *)(const void *)s->send, grad, s->off,
		(unsigned)b->nt, b->numel, b->p.seed, b->step, (unsigned long long)b->worker << 32);
	GC_CUDA_LAUNCHED();
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
out:
	return rc;
}

static gc_rc terngrad_round_done(gc_bucket *b)
{
	(void)b;
	return GC_OK;
}

static gc_rc terngrad_decode(gc_bucket *b, float *avg)
{
	struct terngrad_st *s = (struct terngrad_st *)b->st;
	gc_rc rc = GC_OK;
	k_tg_dec<<<gc_cu_grid(b->numel, GC_CU_THREADS), GC_CU_THREADS, 0, gc_cu_stream(b)>>>(
		avg, s->recv, s->off, (unsigned)b->nt, b->numel, s->bytes, b->world);
	GC_CUDA_LAUNCHED();
out:
	return rc;
}

static void terngrad_release(gc_bucket *b)
{
	struct terngrad_st *s = (struct terngrad_st *)b->st;
	if (!s)
		return;
	gc_cuda_free(s->send);
	gc_cuda_free(s->recv);
	gc_cuda_free(s->off);
	free(s);
	b->st = NULL;
}

const struct gc_method_ops gc_cu_terngrad_ops = {
	terngrad_init, terngrad_encode, terngrad_round_done, terngrad_decode, NULL,
	terngrad_release,
};

/* kernels/cuda/efsign_ar.cu: scaled sign with error feedback through a bf16 all-reduce
 * on the GPU, bit-identical to the CPU: the residual becomes c = g + e in place; one
 * thread per tensor sums |c| in double in element order (as the CPU; slow for very
 * large tensors, exact), then per element the signed bf16 scale and the new residual;
 * decode widens the bf16 sum to float. */
#include <stdlib.h>
#include <string.h>

#include "cu_common.cuh"
#include "kernels/bf16.h"

struct efsign_ar_st {
	uint16_t *send, *recv;         /* n bf16 each */
	float *e;                      /* residual (ef), numel */
	uint16_t *h;                   /* nt bf16 scales */
	unsigned long long *off;       /* nt + 1 tensor offsets (device) */
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

__global__ void k_es_add(float *e, const float *g, size_t n)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		e[i] = g[i] + e[i];
}

__global__ void k_es_scale(uint16_t *h, const float *c, const unsigned long long *off,
			   unsigned nt, float p)
{
	for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < nt; t += (size_t)gridDim.x * blockDim.x) {
		double acc = 0;
		for (unsigned long long i = off[t]; i < off[t + 1]; i++)
			acc += c[i] < 0 ? -(double)c[i] : (double)c[i];
		h[t] = gc_bf16_from_bits(__float_as_uint((float)(acc / (double)(off[t + 1] - off[t])) / p));
	}
}

/* c is e when ef (then e is rewritten in place), else the gradient and e is NULL. */
__global__ void k_es_code(uint16_t *send, float *e, const float *c, const uint16_t *h,
			  const unsigned long long *off, unsigned nt, unsigned long long n, float p)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		uint16_t ht = h[tensor_at(off, nt, i)];
		float ci = c[i], v = p * __uint_as_float(gc_bf16_to_bits(ht));
		unsigned neg = ci < 0;
		send[i] = (uint16_t)(ht | (neg << 15));
		if (e)
			e[i] = ci - (neg ? -v : v);
	}
}

__global__ void k_es_dec(float *avg, const uint16_t *sum, size_t n)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		avg[i] = __uint_as_float(gc_bf16_to_bits(sum[i]));
}

static gc_rc efsign_ar_init(gc_bucket *b, gc_err *e)
{
	struct efsign_ar_st *s = (struct efsign_ar_st *)calloc(1, sizeof(*s));
	unsigned long long *h;
	cudaError_t ce;
	gc_rc rc;
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the efsign_ar state: out of memory");
	b->st = s;
	rc = gc_cu_malloc((void **)&s->send, b->numel * sizeof(uint16_t), "the efsign_ar payload", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->recv, b->numel * sizeof(uint16_t),
				  "the efsign_ar sum", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->h, b->nt * sizeof(uint16_t), "the efsign_ar scales", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->off, (b->nt + 1) * sizeof(*s->off),
				  "the efsign_ar tensor offsets", e);
	if (!rc && b->p.ef) {
		rc = gc_cu_malloc((void **)&s->e, b->numel * sizeof(float), "the efsign_ar residual", e);
		ce = rc ? cudaSuccess :
			cudaMemsetAsync(s->e, 0, b->numel * sizeof(float), gc_cu_stream(b));
		if (ce != cudaSuccess)
			rc = gc_fail(e, GC_E_CUDA, "cannot clear the efsign_ar residual on the GPU: %s",
				     cudaGetErrorString(ce));
	}
	if (rc)
		return rc;
	h = (unsigned long long *)malloc((b->nt + 1) * sizeof(*h));
	if (!h)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the efsign_ar offsets: out of memory");
	for (size_t t = 0; t <= b->nt; t++)
		h[t] = b->off[t];
	ce = cudaMemcpyAsync(s->off, h, (b->nt + 1) * sizeof(*h), cudaMemcpyHostToDevice,
			     gc_cu_stream(b));
	if (ce == cudaSuccess)
		ce = cudaStreamSynchronize(gc_cu_stream(b));
	free(h);
	if (ce != cudaSuccess)
		return gc_fail(e, GC_E_CUDA, "cannot copy the efsign_ar offsets to the GPU: %s",
			       cudaGetErrorString(ce));
	return GC_OK;
}

static gc_rc efsign_ar_encode(gc_bucket *b, const float *grad)
{
	struct efsign_ar_st *s = (struct efsign_ar_st *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	float p = (float)b->world;
	const float *c = grad;
	gc_rc rc = GC_OK;
	if (s->e) {
		k_es_add<<<gc_cu_grid(b->numel, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(s->e, grad,
										       b->numel);
		GC_CUDA_LAUNCHED();
		c = s->e;
	}
	k_es_scale<<<gc_cu_grid(b->nt, 64), 64, 0, st>>>(s->h, c, s->off, (unsigned)b->nt, p);
	GC_CUDA_LAUNCHED();
	k_es_code<<<gc_cu_grid(b->numel, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
		s->send, s->e, c, s->h, s->off, (unsigned)b->nt, b->numel, p);
	GC_CUDA_LAUNCHED();
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
out:
	return rc;
}

static gc_rc efsign_ar_round_done(gc_bucket *b)
{
	(void)b;
	return GC_OK;
}

static gc_rc efsign_ar_decode(gc_bucket *b, float *avg)
{
	struct efsign_ar_st *s = (struct efsign_ar_st *)b->st;
	gc_rc rc = GC_OK;
	k_es_dec<<<gc_cu_grid(b->numel, GC_CU_THREADS), GC_CU_THREADS, 0, gc_cu_stream(b)>>>(
		avg, s->recv, b->numel);
	GC_CUDA_LAUNCHED();
out:
	return rc;
}

static gc_rc efsign_ar_residual(const gc_bucket *b, float *host_out)
{
	const struct efsign_ar_st *s = (const struct efsign_ar_st *)b->st;
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

static void efsign_ar_release(gc_bucket *b)
{
	struct efsign_ar_st *s = (struct efsign_ar_st *)b->st;
	if (!s)
		return;
	gc_cuda_free(s->send);
	gc_cuda_free(s->recv);
	gc_cuda_free(s->e);
	gc_cuda_free(s->h);
	gc_cuda_free(s->off);
	free(s);
	b->st = NULL;
}

const struct gc_method_ops gc_cu_efsign_ar_ops = {
	efsign_ar_init, efsign_ar_encode, efsign_ar_round_done, efsign_ar_decode,
	efsign_ar_residual, efsign_ar_release,
};

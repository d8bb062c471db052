/* kernels/cuda/qsgd.cu: QSGD on the GPU, bit-identical to the CPU: per norm bucket
 * the norm (one thread per norm bucket summing its squares in double in element
 * order, as the CPU does), then per element (per byte for 4-bit codes) the code from
 * kernels/qsgd.h with the same counter-based draws; decode per element sums the
 * workers' values in worker order in float and divides by p. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cu_common.cuh"
#include "kernels/qsgd.h"

struct qsgd_st {
	uint8_t *send, *recv;          /* payload; world payloads */
	unsigned long long *off;       /* nt + 1 tensor offsets (device) */
	unsigned long long *start;     /* nqb + 1 norm bucket offsets (device) */
	size_t bytes, nqb;
	unsigned W;
};

static __device__ unsigned last_le(const unsigned long long *a, unsigned n,
				   unsigned long long i)
{
	unsigned lo = 0, hi = n;
	while (hi - lo > 1) {
		unsigned mid = (lo + hi) / 2;
		if (a[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

__global__ void k_qs_norm(float *nrm, const float *g, const unsigned long long *start,
			  unsigned long long nqb)
{
	for (size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x; j < nqb; j += (size_t)gridDim.x * blockDim.x) {
		double acc = 0;
		for (unsigned long long i = start[j]; i < start[j + 1]; i++)
			acc += (double)g[i] * (double)g[i];
		nrm[j] = (float)sqrt(acc);
	}
}

static __device__ unsigned qs_code_at(const float *nrm, const float *g,
				      const unsigned long long *off, unsigned nt,
				      const unsigned long long *start, unsigned nqb,
				      unsigned long long i, int lv, unsigned W,
				      unsigned long long seed, unsigned long long step,
				      unsigned long long wk)
{
	unsigned t = last_le(off, nt, i), j = last_le(start, nqb, i);
	return gc_qsgd_code(g[i], nrm[j], lv, W, gc_rng_key(seed, t, step), wk | i);
}

/* One thread per byte for 4-bit codes (two elements), per element otherwise. */
__global__ void k_qs_code(uint8_t *code, const float *nrm, const float *g,
			  const unsigned long long *off, unsigned nt,
			  const unsigned long long *start, unsigned nqb, unsigned long long n,
			  int lv, unsigned W, unsigned long long seed, unsigned long long step,
			  unsigned long long wk)
{
	size_t units = W == 4 ? (n + 1) / 2 : n;
	for (size_t y = (size_t)blockIdx.x * blockDim.x + threadIdx.x; y < units; y += (size_t)gridDim.x * blockDim.x) {
		if (W == 4) {
			unsigned v = qs_code_at(nrm, g, off, nt, start, nqb, 2 * y, lv, W, seed,
						step, wk);
			if (2 * y + 1 < n)
				v |= qs_code_at(nrm, g, off, nt, start, nqb, 2 * y + 1, lv, W, seed,
						step, wk) << 4;
			code[y] = (uint8_t)v;
		} else {
			unsigned v = qs_code_at(nrm, g, off, nt, start, nqb, y, lv, W, seed, step,
						wk);
			if (W == 8) {
				code[y] = (uint8_t)v;
			} else {
				code[2 * y] = (uint8_t)v;
				code[2 * y + 1] = (uint8_t)(v >> 8);
			}
		}
	}
}

__global__ void k_qs_dec(float *avg, const uint8_t *recv, const unsigned long long *start,
			 unsigned nqb, unsigned long long n, size_t bytes, int world, int lv,
			 unsigned W)
{
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
		unsigned j = last_le(start, nqb, i);
		float acc = 0.0f;
		for (int w = 0; w < world; w++) {
			const uint8_t *pw = recv + (size_t)w * bytes;
			const uint8_t *cw = pw + 4 * (size_t)nqb;
			unsigned c;
			float r;
			memcpy(&r, pw + 4 * (size_t)j, sizeof(r));
			if (W == 4)
				c = (cw[i / 2] >> (4 * (i % 2))) & 15u;
			else if (W == 8)
				c = cw[i];
			else
				c = cw[2 * i] | (unsigned)cw[2 * i + 1] << 8;
			acc += gc_qsgd_value(c, r, lv, W);
		}
		avg[i] = acc / (float)world;
	}
}

static gc_rc copy_offsets(unsigned long long *dst, const size_t *src, size_t n, gc_err *e)
{
	unsigned long long *h = (unsigned long long *)malloc(n * sizeof(*h));
	cudaError_t ce;
	if (!h)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the qsgd offsets: out of memory");
	for (size_t i = 0; i < n; i++)
		h[i] = src[i];
	ce = cudaMemcpy(dst, h, n * sizeof(*h), cudaMemcpyHostToDevice);
	free(h);
	if (ce != cudaSuccess)
		return gc_fail(e, GC_E_CUDA, "cannot copy the qsgd offsets to the GPU: %s",
			       cudaGetErrorString(ce));
	return GC_OK;
}

static gc_rc qsgd_init(gc_bucket *b, gc_err *e)
{
	struct qsgd_st *s = (struct qsgd_st *)calloc(1, sizeof(*s));
	size_t d = (size_t)b->p.bucket_size, j = 0, *start;
	gc_rc rc;
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the qsgd state: out of memory");
	b->st = s;
	s->nqb = b->plan.nqb;
	s->W = gc_qsgd_width(b->p.levels);
	s->bytes = gc_plan_payload_bytes(&b->plan);
	rc = gc_cu_malloc((void **)&s->send, s->bytes, "the qsgd payload", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->recv, s->bytes * (size_t)b->world,
				  "the qsgd payloads", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->off, (b->nt + 1) * sizeof(*s->off),
				  "the qsgd tensor offsets", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&s->start, (s->nqb + 1) * sizeof(*s->start),
				  "the qsgd norm bucket offsets", e);
	if (rc)
		return rc;
	rc = copy_offsets(s->off, b->off, b->nt + 1, e);
	if (rc)
		return rc;
	start = (size_t *)malloc((s->nqb + 1) * sizeof(*start));
	if (!start)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the qsgd offsets: out of memory");
	for (size_t t = 0; t < b->nt; t++)
		for (size_t i = b->off[t]; i < b->off[t + 1]; i += d)
			start[j++] = i;
	start[j] = b->numel;
	rc = copy_offsets(s->start, start, s->nqb + 1, e);
	free(start);
	return rc;
}

static gc_rc qsgd_encode(gc_bucket *b, const float *grad)
{
	struct qsgd_st *s = (struct qsgd_st *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	size_t units = s->W == 4 ? (b->numel + 1) / 2 : b->numel;
	gc_rc rc = GC_OK;
	k_qs_norm<<<gc_cu_grid(s->nqb, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
		(float *)(void *)s->send, grad, s->start, s->nqb);
	GC_CUDA_LAUNCHED();
	k_qs_code<<<gc_cu_grid(units, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
		s->send + 4 * s->nqb, (const float *)(const void *)s->send, grad, s->off,
		(unsigned)b->nt, s->start, (unsigned)s->nqb, b->numel, b->p.levels, s->W,
		b->p.seed, b->step, (unsigned long long)b->worker << 32);
	GC_CUDA_LAUNCHED();
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
out:
	return rc;
}

static gc_rc qsgd_round_done(gc_bucket *b)
{
	(void)b;
	return GC_OK;
}

static gc_rc qsgd_decode(gc_bucket *b, float *avg)
{
	struct qsgd_st *s = (struct qsgd_st *)b->st;
	gc_rc rc = GC_OK;
	k_qs_dec<<<gc_cu_grid(b->numel, GC_CU_THREADS), GC_CU_THREADS, 0, gc_cu_stream(b)>>>(
		avg, s->recv, s->start, (unsigned)s->nqb, b->numel, s->bytes, b->world,
		b->p.levels, s->W);
	GC_CUDA_LAUNCHED();
out:
	return rc;
}

static void qsgd_release(gc_bucket *b)
{
	struct qsgd_st *s = (struct qsgd_st *)b->st;
	if (!s)
		return;
	gc_cuda_free(s->send);
	gc_cuda_free(s->recv);
	gc_cuda_free(s->off);
	gc_cuda_free(s->start);
	free(s);
	b->st = NULL;
}

const struct gc_method_ops gc_cu_qsgd_ops = {
	qsgd_init, qsgd_encode, qsgd_round_done, qsgd_decode, NULL, qsgd_release,
};

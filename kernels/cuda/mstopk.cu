/* kernels/cuda/mstopk.cu: MSTop-K on the GPU, several bisection levels per data pass.
 *
 * Pass 0: mean |c| (double, fixed order) and max |c| (gc_cu_absstats), read back.
 * Then the host plans the candidate thresholds of the next levels (bisect.h: every
 * midpoint the sequential rule can reach, same float formula), and one pass counts
 * #(|c| >= x) for all of them: the up to 256 candidate keys sit sorted in shared
 * memory, each element finds its bin by binary search (bin = #candidates <= key),
 * bins are counted per block in shared memory (warp-aggregated; bin 0, below every
 * candidate, is not counted) and added to a global histogram. The host turns bins
 * into suffix counts and resolves the levels. 20 rounds: 7 + 8 + 5 levels, so one
 * statistics pass and three counting passes, then the compaction (sparse.cu).
 * Comparisons use magnitude keys (bits of |c|), like the CPU.
 */
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "sparse.cuh"

#define MS_BINS (GC_BISECT_MAXCAND + 1)

struct ms_host {                       /* pinned host memory */
	float stats[2];                /* mean, max */
	uint32_t cand[GC_BISECT_MAXCAND];
	unsigned long long hist[MS_BINS];
	gc_cu_rule rule;
};

struct ms_ext {
	gc_cu_chunks ch;               /* one segment: the whole bucket */
	float *stats;                  /* 2 (device) */
	uint32_t *cand;                /* GC_BISECT_MAXCAND (device) */
	unsigned long long *hist;      /* MS_BINS (device) */
	struct ms_host *h;
};

__global__ void k_ms_count(const float *__restrict__ c, size_t n, const uint32_t *cand, int ncand,
			   unsigned long long *hist)
{
	__shared__ uint32_t sk[GC_BISECT_MAXCAND];
	__shared__ unsigned sh[MS_BINS];
	size_t nw = (n + 31) / 32 * 32;
	for (int j = threadIdx.x; j < MS_BINS; j += blockDim.x) {
		sh[j] = 0;
		if (j < ncand)
			sk[j] = cand[j];
	}
	__syncthreads();
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nw; i += (size_t)gridDim.x * blockDim.x) {
		uint32_t key = i < n ? gc_abs_key(c[i]) : 0u;
		int a = 0, z = ncand;
		while (a < z) {                /* upper bound: #(cand <= key) */
			int m = (a + z) >> 1;
			if (sk[m] <= key)
				a = m + 1;
			else
				z = m;
		}
		if (i >= n)
			a = 0;
		unsigned peers = __match_any_sync(0xffffffffu, a);
		if (a > 0 && (threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1))
			atomicAdd(&sh[a], (unsigned)__popc(peers));
	}
	__syncthreads();
	for (int j = threadIdx.x + 1; j <= ncand; j += blockDim.x)
		if (sh[j])
			atomicAdd(&hist[j], (unsigned long long)sh[j]);
}

static uint32_t host_key(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u & 0x7fffffffu;
}

static void mstopk_release(gc_bucket *b)
{
	struct gc_cu_sparse *s = (struct gc_cu_sparse *)b->st;
	struct ms_ext *x = s ? (struct ms_ext *)s->ext : NULL;
	if (x) {
		gc_cu_chunks_release(&x->ch);
		gc_cuda_free(x->stats);
		gc_cuda_free(x->cand);
		gc_cuda_free(x->hist);
		if (x->h)
			(void)cudaFreeHost(x->h);
		free(x);
	}
	gc_cu_sparse_release(b);
}

static gc_rc mstopk_init(gc_bucket *b, gc_err *e)
{
	struct ms_ext *x;
	gc_rc rc = gc_cu_sparse_init(b, e);
	if (rc)
		goto fail;
	x = (struct ms_ext *)calloc(1, sizeof(*x));
	((struct gc_cu_sparse *)b->st)->ext = x;
	if (!x) {
		rc = gc_fail(e, GC_E_NOMEM, "cannot allocate the mstopk state: out of memory");
		goto fail;
	}
	rc = gc_cu_chunks_init(&x->ch, b, 0, e);
	if (!rc)
		rc = gc_cu_malloc((void **)&x->stats, 2 * sizeof(float), "the mstopk statistics", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&x->cand, sizeof(x->h->cand), "the mstopk thresholds", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&x->hist, sizeof(x->h->hist), "the mstopk histogram", e);
	if (!rc && cudaMallocHost((void **)&x->h, sizeof(*x->h)) != cudaSuccess)
		rc = gc_fail(e, GC_E_CUDA, "cannot allocate pinned host memory for mstopk: %s",
			     cudaGetErrorString(cudaGetLastError()));
	if (!rc)
		return GC_OK;
fail:
	mstopk_release(b);
	return rc;
}

/* One counting pass over c for the planned candidates; ge[j] = #(key >= cand[j]). */
static gc_rc ms_count(gc_bucket *b, struct ms_ext *x, const gc_bisect *bs, const float *c, uint64_t *ge)
{
	cudaStream_t st = gc_cu_stream(b);
	int n = (int)bs->ncand, j;
	unsigned long long acc = 0;
	gc_rc rc = GC_OK;
	for (j = 0; j < n; j++)
		x->h->cand[j] = host_key(bs->cand[j]);
	GC_CUDA_CHECK(cudaMemcpyAsync(x->cand, x->h->cand, n * sizeof(uint32_t), cudaMemcpyHostToDevice, st));
	GC_CUDA_CHECK(cudaMemsetAsync(x->hist, 0, sizeof(x->h->hist), st));
	k_ms_count<<<gc_cu_grid(b->numel, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(c, b->numel, x->cand, n, x->hist);
	GC_CUDA_LAUNCHED();
	GC_CUDA_CHECK(cudaMemcpyAsync(x->h->hist, x->hist, sizeof(x->h->hist), cudaMemcpyDeviceToHost, st));
	GC_CUDA_CHECK(cudaStreamSynchronize(st));
	for (j = n - 1; j >= 0; j--) {         /* key >= cand[j] iff bin >= j + 1 */
		acc += x->h->hist[j + 1];
		ge[j] = acc;
	}
out:
	return rc;
}

/* lo and hi by the multi-level bisection. */
static gc_rc ms_bisect(gc_bucket *b, struct ms_ext *x, size_t k, const float *c, gc_bisect *bs)
{
	cudaStream_t st = gc_cu_stream(b);
	uint64_t ge[GC_BISECT_MAXCAND];
	gc_rc rc = gc_cu_absstats(&x->ch, c, x->stats, x->stats + 1, st);
	if (rc)
		return rc;
	GC_CUDA_CHECK(cudaMemcpyAsync(x->h->stats, x->stats, 2 * sizeof(float), cudaMemcpyDeviceToHost, st));
	GC_CUDA_CHECK(cudaStreamSynchronize(st));
	gc_bisect_start(bs, x->h->stats[0], x->h->stats[1], k, b->p.rounds);
	while (gc_bisect_plan(bs)) {
		rc = ms_count(b, x, bs, c, ge);
		if (!rc)
			rc = gc_bisect_apply(bs, ge);
		if (rc) {
			if (rc == GC_E_STATE)
				gc_error("mstopk bisection on the GPU lost a threshold (NaN in the gradient?)");
			return rc;
		}
	}
out:
	return rc;
}

static gc_rc mstopk_encode(gc_bucket *b, const float *grad)
{
	struct gc_cu_sparse *s = (struct gc_cu_sparse *)b->st;
	struct ms_ext *x = (struct ms_ext *)s->ext;
	const float *c = NULL;
	gc_bisect bs;
	gc_cu_rule *r = &x->h->rule;
	gc_rc rc = gc_cu_sparse_input(b, grad, &c);
	if (rc || !b->numel)
		return rc ? rc : gc_cu_sparse_commit(b, c);
	rc = ms_bisect(b, x, s->k, c, &bs);
	if (rc)
		return rc;
	r->a_lo = host_key(bs.hi);
	r->b_hi = 0x80000000u;                 /* above every key */
	if (bs.hi_count >= s->k) {             /* the first k with |c| >= hi */
		r->a_on = 0;
		r->b_lo = host_key(bs.hi);
		r->kr = s->k;
	} else {                               /* all >= hi, filled from [lo, hi) */
		r->a_on = 1;
		r->b_lo = host_key(bs.lo);
		r->b_hi = host_key(bs.hi);
		r->kr = s->k - bs.hi_count;
	}
	GC_CUDA_CHECK(cudaMemcpyAsync(s->d_rule, r, sizeof(*r), cudaMemcpyHostToDevice, gc_cu_stream(b)));
	rc = gc_cu_sparse_commit(b, c);
out:
	return rc;
}

const struct gc_method_ops gc_cu_mstopk_ops = {
	mstopk_init, mstopk_encode, NULL, gc_cu_sparse_decode, gc_cu_sparse_residual,
	mstopk_release,
};

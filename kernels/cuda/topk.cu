/* kernels/cuda/topk.cu: exact top-k on the GPU.
 *
 * The k-th largest magnitude key K (bits of |c|) is found by a radix select, entirely
 * on the device (no host round trip): four passes of 8 bits from the top, each a
 * histogram of the keys that match the digits found so far (shared-memory bins,
 * warp-aggregated with __match_any_sync), then one thread picks the digit holding the
 * k-th largest. The selection is every key > K and the first (k - #(key > K)) keys
 * == K in index order (ties: lower index first), compacted by sparse.cu.
 */
#include <stdlib.h>

#include "sparse.cuh"

#define RADIX_BINS 256

struct radix_sel {
	uint32_t prefix, mask;
	unsigned long long kr;         /* rank still wanted among keys matching prefix */
};

struct topk_ext {
	unsigned *hist;                /* RADIX_BINS (device) */
	radix_sel *sel;                /* (device) */
};

__global__ void k_radix_start(radix_sel *sel, unsigned *hist, unsigned long long k)
{
	if (threadIdx.x == 0) {
		sel->prefix = 0;
		sel->mask = 0;
		sel->kr = k;
	}
	hist[threadIdx.x] = 0;
}

__global__ void k_radix_hist(const float *__restrict__ c, size_t n, const radix_sel *sel,
			     unsigned *hist, int shift)
{
	__shared__ unsigned sh[RADIX_BINS];
	uint32_t prefix = sel->prefix, mask = sel->mask;
	size_t nw = (n + 31) / 32 * 32;
	for (int j = threadIdx.x; j < RADIX_BINS; j += blockDim.x)
		sh[j] = 0;
	__syncthreads();
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nw; i += (size_t)gridDim.x * blockDim.x) {
		uint32_t key = i < n ? gc_abs_key(c[i]) : 0u;
		int bin = (i < n && (key & mask) == prefix) ? (int)((key >> shift) & 255u) : -1;
		unsigned peers = __match_any_sync(0xffffffffu, bin);
		if (bin >= 0 && (threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1))
			atomicAdd(&sh[bin], (unsigned)__popc(peers));
	}
	__syncthreads();
	for (int j = threadIdx.x; j < RADIX_BINS; j += blockDim.x)
		if (sh[j])
			atomicAdd(&hist[j], sh[j]);
}

/* One block of RADIX_BINS threads: fix the next digit, clear the histogram. */
__global__ void k_radix_pick(unsigned *hist, radix_sel *sel, int shift)
{
	if (threadIdx.x == 0) {
		unsigned long long cum = 0, kr = sel->kr;
		for (int d = RADIX_BINS - 1; d >= 0; d--) {
			if (cum + hist[d] >= kr || d == 0) {
				sel->prefix |= (uint32_t)d << shift;
				sel->mask |= 255u << shift;
				sel->kr = kr - cum;
				break;
			}
			cum += hist[d];
		}
	}
	__syncthreads();
	hist[threadIdx.x] = 0;
}

/* key > K: class A; key == K: class B, the first kr of them. */
__global__ void k_topk_rule(const radix_sel *sel, gc_cu_rule *rule)
{
	uint32_t K = sel->prefix;
	rule->a_lo = K + 1;
	rule->a_on = 1;
	rule->b_lo = K;
	rule->b_hi = K + 1;
	rule->kr = sel->kr;
}

static void topk_release(gc_bucket *b)
{
	struct gc_cu_sparse *s = (struct gc_cu_sparse *)b->st;
	struct topk_ext *x = s ? (struct topk_ext *)s->ext : NULL;
	if (x) {
		gc_cuda_free(x->hist);
		gc_cuda_free(x->sel);
		free(x);
	}
	gc_cu_sparse_release(b);
}

static gc_rc topk_init(gc_bucket *b, gc_err *e)
{
	struct topk_ext *x;
	gc_rc rc = gc_cu_sparse_init(b, e);
	if (rc)
		goto fail;
	x = (struct topk_ext *)calloc(1, sizeof(*x));
	((struct gc_cu_sparse *)b->st)->ext = x;
	if (!x) {
		rc = gc_fail(e, GC_E_NOMEM, "cannot allocate the topk state: out of memory");
		goto fail;
	}
	rc = gc_cu_malloc((void **)&x->hist, RADIX_BINS * sizeof(unsigned), "the topk histogram", e);
	if (!rc)
		rc = gc_cu_malloc((void **)&x->sel, sizeof(radix_sel), "the topk selection", e);
	if (!rc)
		return GC_OK;
fail:
	topk_release(b);
	return rc;
}

static gc_rc topk_encode(gc_bucket *b, const float *grad)
{
	struct gc_cu_sparse *s = (struct gc_cu_sparse *)b->st;
	struct topk_ext *x = (struct topk_ext *)s->ext;
	cudaStream_t st = gc_cu_stream(b);
	const float *c = NULL;
	gc_rc rc = gc_cu_sparse_input(b, grad, &c);
	int shift;
	if (rc)
		return rc;
	if (b->numel) {
		k_radix_start<<<1, RADIX_BINS, 0, st>>>(x->sel, x->hist, s->k);
		GC_CUDA_LAUNCHED();
		for (shift = 24; shift >= 0; shift -= 8) {
			k_radix_hist<<<gc_cu_grid(b->numel, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
				c, b->numel, x->sel, x->hist, shift);
			GC_CUDA_LAUNCHED();
			k_radix_pick<<<1, RADIX_BINS, 0, st>>>(x->hist, x->sel, shift);
			GC_CUDA_LAUNCHED();
		}
		k_topk_rule<<<1, 1, 0, st>>>(x->sel, s->d_rule);
		GC_CUDA_LAUNCHED();
	}
	rc = gc_cu_sparse_commit(b, c);
out:
	return rc;
}

const struct gc_method_ops gc_cu_topk_ops = {
	topk_init, topk_encode, NULL, gc_cu_sparse_decode, gc_cu_sparse_residual,
	topk_release,
};

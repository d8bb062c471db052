/* kernels/cuda/radix.cu: the exact top-k rule by radix select (radix.cuh). */
#include <stdio.h>

#include "radix.cuh"

struct gc_cu_radix_sel {
	uint32_t prefix, mask;
	unsigned long long kr;         /* rank still wanted among keys matching prefix */
};

__global__ void k_radix_start(gc_cu_radix_sel *sel, unsigned *hist, unsigned long long k)
{
	if (threadIdx.x == 0) {
		sel->prefix = 0;
		sel->mask = 0;
		sel->kr = k;
	}
	hist[threadIdx.x] = 0;
}

__global__ void k_radix_hist(const float *__restrict__ c, size_t n, const gc_cu_radix_sel *sel,
			     unsigned *hist, int shift)
{
	__shared__ unsigned sh[GC_CU_RADIX_BINS];
	uint32_t prefix = sel->prefix, mask = sel->mask;
	size_t nw = (n + 31) / 32 * 32;
	for (int j = threadIdx.x; j < GC_CU_RADIX_BINS; j += blockDim.x)
		sh[j] = 0;
	__syncthreads();
	for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nw;
	     i += (size_t)gridDim.x * blockDim.x) {
		uint32_t key = i < n ? gc_abs_key(c[i]) : 0u;
		int bin = (i < n && (key & mask) == prefix) ? (int)((key >> shift) & 255u) : -1;
		unsigned peers = __match_any_sync(0xffffffffu, bin);
		if (bin >= 0 && (threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1))
			atomicAdd(&sh[bin], (unsigned)__popc(peers));
	}
	__syncthreads();
	for (int j = threadIdx.x; j < GC_CU_RADIX_BINS; j += blockDim.x)
		if (sh[j])
			atomicAdd(&hist[j], sh[j]);
}

/* One block of GC_CU_RADIX_BINS threads: fix the next digit, clear the histogram. */
__global__ void k_radix_pick(unsigned *hist, gc_cu_radix_sel *sel, int shift)
{
	if (threadIdx.x == 0) {
		unsigned long long cum = 0, kr = sel->kr;
		for (int d = GC_CU_RADIX_BINS - 1; d >= 0; d--) {
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
__global__ void k_radix_rule(const gc_cu_radix_sel *sel, gc_cu_rule *rule)
{
	uint32_t K = sel->prefix;
	rule->a_lo = K + 1;
	rule->a_on = 1;
	rule->b_lo = K;
	rule->b_hi = K + 1;
	rule->kr = sel->kr;
}

gc_rc gc_cu_radix_init(struct gc_cu_radix *r, const char *method, gc_err *e)
{
	char what[64];
	gc_rc rc;
	snprintf(what, sizeof(what), "the %s histogram", method);
	rc = gc_cu_malloc((void **)&r->hist, GC_CU_RADIX_BINS * sizeof(unsigned), what, e);
	snprintf(what, sizeof(what), "the %s selection", method);
	if (!rc)
		rc = gc_cu_malloc((void **)&r->sel, sizeof(gc_cu_radix_sel), what, e);
	return rc;
}

void gc_cu_radix_release(struct gc_cu_radix *r)
{
	gc_cuda_free(r->hist);
	gc_cuda_free(r->sel);
	r->hist = NULL;
	r->sel = NULL;
}

gc_rc gc_cu_radix_rule(struct gc_cu_radix *r, const float *c, size_t n, unsigned long long k,
		       gc_cu_rule *rule, cudaStream_t st)
{
	gc_rc rc = GC_OK;
	k_radix_start<<<1, GC_CU_RADIX_BINS, 0, st>>>(r->sel, r->hist, k);
	GC_CUDA_LAUNCHED();
	for (int shift = 24; shift >= 0; shift -= 8) {
		k_radix_hist<<<gc_cu_grid(n, GC_CU_THREADS), GC_CU_THREADS, 0, st>>>(
			c, n, r->sel, r->hist, shift);
		GC_CUDA_LAUNCHED();
		k_radix_pick<<<1, GC_CU_RADIX_BINS, 0, st>>>(r->hist, r->sel, shift);
		GC_CUDA_LAUNCHED();
	}
	k_radix_rule<<<1, 1, 0, st>>>(r->sel, rule);
	GC_CUDA_LAUNCHED();
out:
	return rc;
}

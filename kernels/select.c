/* kernels/select.c: shared CPU helpers: buffers, error feedback, magnitude
 * histograms and the sparse payload of topk and mstopk. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "select.h"

#define PAR_MIN 65536           /* below this many elements, stay single-threaded */
#define BLOCK 16                /* elements tested together before a scalar look */

void *gc_cpu_alloc(size_t bytes)
{
	void *p = NULL;

	if (posix_memalign(&p, 64, bytes ? bytes : 64))
		return NULL;
	return p;
}

void *gc_cpu_zalloc(size_t bytes)
{
	void *p = gc_cpu_alloc(bytes);

	if (p)
		memset(p, 0, bytes);
	return p;
}

int gc_cpu_threads(void)
{
	int n = omp_get_max_threads();
	return n < 1 ? 1 : n;
}

void gc_ef_add(float *e, const float *g, size_t n)
{
	size_t i;

#pragma omp parallel for simd schedule(static) if (n >= PAR_MIN)
	for (i = 0; i < n; i++)
		e[i] += g[i];
}

/* One thread's share over [a, b): with e, first e[i] += g[i] (error feedback) and use
 * e[i]; histogram, and (if stats) sum |c| and max key. Inlined with constant flags so
 * the loop carries only the work asked for. */
static inline __attribute__((always_inline)) void
hist_body(float *e, const float *g, size_t a, size_t b, uint32_t *h, int stats,
	  double *sum, uint32_t *maxkey)
{
	const float *c = e ? e : g;
	double s0 = 0, s1 = 0;
	uint32_t m = 0;
	size_t i;

	for (i = a; i + 1 < b; i += 2) {
		if (e) {
			e[i] += g[i];
			e[i + 1] += g[i + 1];
		}
		uint32_t k0 = gc_key(c[i]), k1 = gc_key(c[i + 1]);
		h[k0 >> GC_SEL_SHIFT]++;
		h[k1 >> GC_SEL_SHIFT]++;
		if (stats) {
			s0 += fabsf(c[i]);
			s1 += fabsf(c[i + 1]);
			m = k0 > m ? k0 : m;
			m = k1 > m ? k1 : m;
		}
	}
	if (i < b) {
		if (e)
			e[i] += g[i];
		uint32_t k0 = gc_key(c[i]);
		h[k0 >> GC_SEL_SHIFT]++;
		s0 += fabsf(c[i]);
		m = k0 > m ? k0 : m;
	}
	*sum = s0 + s1;
	*maxkey = m;
}

static void hist_part(float *e, const float *g, size_t a, size_t b, uint32_t *h, int stats,
		      double *sum, uint32_t *maxkey)
{
	if (stats && e)
		hist_body(e, g, a, b, h, 1, sum, maxkey);
	else if (stats)
		hist_body(NULL, g, a, b, h, 1, sum, maxkey);
	else if (e)
		hist_body(e, g, a, b, h, 0, sum, maxkey);
	else
		hist_body(NULL, g, a, b, h, 0, sum, maxkey);
}

void gc_sel_hist(float *e, const float *g, size_t n, uint32_t *hist, uint32_t *scratch,
		 double *sum, uint32_t *maxkey)
{
	int nt = n >= PAR_MIN ? gc_cpu_threads() : 1;
	double s = 0;
	uint32_t m = 0;

#pragma omp parallel num_threads(nt) reduction(+:s) reduction(max:m)
	{
		int t = omp_get_thread_num(), tn = omp_get_num_threads();
		uint32_t *h = t ? scratch + (size_t)(t - 1) * GC_SEL_BINS : hist;
		size_t a = n * (size_t)t / (size_t)tn, b = n * (size_t)(t + 1) / (size_t)tn;

		memset(h, 0, GC_SEL_BINS * sizeof(*h));
		hist_part(e, g, a, b, h, sum || maxkey, &s, &m);
#pragma omp barrier
#pragma omp for schedule(static)
		for (size_t j = 0; j < GC_SEL_BINS; j++)
			for (int u = 1; u < tn; u++)
				hist[j] += scratch[(size_t)(u - 1) * GC_SEL_BINS + j];
	}
	if (sum)
		*sum = s;
	if (maxkey)
		*maxkey = m;
}

uint32_t gc_sel_bin(const uint32_t *hist, size_t k, size_t *above)
{
	size_t acc = 0;
	uint32_t j = GC_SEL_BINS;

	while (j > 0) {
		j--;
		if (acc + hist[j] >= k)
			break;
		acc += hist[j];
	}
	*above = acc;
	return j;
}

/* 1 if any key in c[i, i + BLOCK) is >= lo (vectorizable). */
static inline int block_any_ge(const float *c, size_t i, uint32_t lo)
{
	uint32_t any = 0;
	for (size_t j = 0; j < BLOCK; j++)
		any |= gc_key(c[i + j]) >= lo;
	return any != 0;
}

/* 1 if any key in c[i, i + BLOCK) lies in coarse bin `bin` (vectorizable). */
static inline int block_any_in(const float *c, size_t i, uint32_t bin)
{
	uint32_t any = 0;
	for (size_t j = 0; j < BLOCK; j++)
		any |= (gc_key(c[i + j]) >> GC_SEL_SHIFT) == bin;
	return any != 0;
}

void gc_sel_fine(const float *c, size_t n, uint32_t bin, uint32_t *fine)
{
	size_t i = 0, j;

	memset(fine, 0, GC_SEL_FINE * sizeof(*fine));
	for (; i + BLOCK <= n; i += BLOCK) {
		if (!block_any_in(c, i, bin))
			continue;
		for (j = i; j < i + BLOCK; j++)
			if ((gc_key(c[j]) >> GC_SEL_SHIFT) == bin)
				fine[gc_key(c[j]) & (GC_SEL_FINE - 1)]++;
	}
	for (; i < n; i++)
		if ((gc_key(c[i]) >> GC_SEL_SHIFT) == bin)
			fine[gc_key(c[i]) & (GC_SEL_FINE - 1)]++;
	for (j = GC_SEL_FINE - 1; j > 0; j--)
		fine[j - 1] += fine[j];
}

void gc_sel_scan(const float *c, size_t n, uint32_t lo, uint32_t hi, size_t k,
		 uint32_t *ai, size_t *na, uint32_t *fi, size_t *nf)
{
	size_t i = 0, a = 0, f = 0, end;

	while (i < n && (a < k || f < k)) {
		if (i + BLOCK <= n && !block_any_ge(c, i, lo)) {
			i += BLOCK;
			continue;
		}
		for (end = i + BLOCK < n ? i + BLOCK : n; i < end; i++) {
			uint32_t key = gc_key(c[i]);
			if (key >= hi) {
				if (a < k)
					ai[a++] = (uint32_t)i;
			} else if (key >= lo && f < k) {
				fi[f++] = (uint32_t)i;
			}
		}
	}
	*na = a;
	*nf = f;
}

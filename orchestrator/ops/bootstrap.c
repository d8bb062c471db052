#include "bootstrap.h"

#include <math.h>
#include <stdlib.h>

static uint64_t next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* uniform in [0, n) (n > 0; the modulo bias is below 2^-40 for the sizes here) */
static size_t pick(uint64_t *s, size_t n)
{
	return (size_t)((next(s) >> 11) % n);
}

size_t gc_boot_scratch(const gc_boot_sample *s)
{
	size_t r, longest = 0;
	for (r = 0; r < s->nruns; r++)
		if (s->off[r + 1] - s->off[r] > longest)
			longest = s->off[r + 1] - s->off[r];
	return longest * s->nruns > s->off[s->nruns] ? longest * s->nruns : s->off[s->nruns];
}

static void swap(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

/* The k-th smallest of x[0..n), leaving every larger-ranked value after position k
 * (three-way quickselect: runs of equal values, common in resamples, cost nothing). */
static double kth(double *x, size_t n, size_t k)
{
	size_t lo = 0, hi = n;
	while (hi - lo > 1) {
		double pv = x[lo + (hi - lo) / 2];
		size_t lt = lo, i = lo, gt = hi;
		while (i < gt) {
			if (x[i] < pv)
				swap(&x[lt++], &x[i++]);
			else if (x[i] > pv)
				swap(&x[i], &x[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pv;
	}
	return x[lo];
}

double gc_median_inplace(double *x, size_t n)
{
	double a, b;
	size_t i;
	if (!n)
		return NAN;
	a = kth(x, n, (n - 1) / 2);
	if (n % 2)
		return a;
	b = x[n / 2];   /* after kth, everything above (n-1)/2 is >= a: take their minimum */
	for (i = n / 2 + 1; i < n; i++)
		b = x[i] < b ? x[i] : b;
	return (a + b) / 2;
}

double gc_boot_median(const gc_boot_sample *s, int by_runs, uint64_t *rng, double *scratch)
{
	size_t total = s->nruns ? s->off[s->nruns] : 0, m = 0, k, i;

	if (!total)
		return NAN;
	if (!by_runs) {
		for (i = 0; i < total; i++)
			scratch[i] = s->x[pick(rng, total)];
		return gc_median_inplace(scratch, total);
	}
	for (k = 0; k < s->nruns; k++) {
		size_t r = pick(rng, s->nruns), a = s->off[r], len = s->off[r + 1] - a;
		for (i = 0; i < len; i++)
			scratch[m++] = s->x[a + pick(rng, len)];
	}
	return gc_median_inplace(scratch, m);
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void gc_boot_interval(double *v, size_t n, double alpha, double *lo, double *hi)
{
	size_t i, m = 0, a, b;

	for (i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[m++] = v[i];
	*lo = *hi = NAN;
	if (!m)
		return;
	qsort(v, m, sizeof *v, cmp);
	a = (size_t)floor(alpha / 2 * (double)m);
	b = (size_t)ceil((1 - alpha / 2) * (double)m);
	b = b ? b - 1 : 0;
	*lo = v[a < m ? a : m - 1];
	*hi = v[b < m ? b : m - 1];
}

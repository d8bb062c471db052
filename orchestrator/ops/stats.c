/* orchestrator/ops/stats.c: Mann-Whitney U with the normal approximation. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct tagged {
	double v;
	int from_x;
};

static int cmp_tagged(const void *a, const void *b)
{
	double x = ((const struct tagged *)a)->v, y = ((const struct tagged *)b)->v;
	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double gc_norm_sf(double z)
{
	return 0.5 * erfc(z / sqrt(2.0));
}

double gc_median(const double *x, size_t n)
{
	double *c, m;

	if (n == 0 || !(c = malloc(n * sizeof *c)))
		return NAN;
	memcpy(c, x, n * sizeof *c);
	qsort(c, n, sizeof *c, cmp_double);
	m = (c[(n - 1) / 2] + c[n / 2]) / 2;
	free(c);
	return m;
}

/* Rank the sorted pool: r1 = sum of x's (average) ranks, ties = sum t^3 - t. */
static void rank_pool(const struct tagged *p, size_t n, double *r1, double *ties)
{
	size_t i = 0, j, k, nx;
	double t, avg;

	*r1 = 0;
	*ties = 0;
	while (i < n) {
		for (j = i + 1; j < n && p[j].v == p[i].v; j++)
			;
		t = (double)(j - i);
		avg = ((double)(i + 1) + (double)j) / 2;   /* ranks i+1 .. j */
		for (k = i, nx = 0; k < j; k++)
			nx += (size_t)p[k].from_x;
		*r1 += avg * (double)nx;
		*ties += t * t * t - t;
		i = j;
	}
}

gc_rc gc_mwu_test(const double *x, size_t n1, const double *y, size_t n2, int continuity,
		  gc_mwu *out)
{
	size_t i, n = n1 + n2;
	struct tagged *p;
	double mu, nn, d;

	memset(out, 0, sizeof *out);
	if (!n1 || !n2)
		return GC_E_INVAL;
	if (!(p = malloc(n * sizeof *p)))
		return GC_E_NOMEM;
	for (i = 0; i < n; i++) {
		p[i].v = i < n1 ? x[i] : y[i - n1];
		p[i].from_x = i < n1;
		if (!isfinite(p[i].v)) {
			free(p);
			return GC_E_INVAL;
		}
	}
	qsort(p, n, sizeof *p, cmp_tagged);
	rank_pool(p, n, &out->r1, &out->tie_sum);
	free(p);
	out->n1 = n1;
	out->n2 = n2;
	nn = (double)n;
	out->u1 = out->r1 - (double)n1 * ((double)n1 + 1) / 2;
	out->u2 = (double)n1 * (double)n2 - out->u1;
	mu = (double)n1 * (double)n2 / 2;
	d = n > 1 ? out->tie_sum / (nn * (nn - 1)) : 0;
	out->sigma = sqrt(fmax(0.0, (double)n1 * (double)n2 / 12 * ((nn + 1) - d)));
	if (out->sigma <= 0) {
		out->z = 0;
		out->p = 1;
		return GC_OK;
	}
	d = out->u1 - mu;
	if (continuity)
		d = d > 0.5 ? d - 0.5 : d < -0.5 ? d + 0.5 : 0;
	out->z = d / out->sigma;
	out->p = fmin(1.0, 2 * gc_norm_sf(fabs(out->z)));
	return GC_OK;
}

/* orchestrator/ops/stats.h: the statistics of regression tracking.
 *
 * Mann-Whitney U (Wilcoxon rank-sum), two-sided, with the normal approximation, the
 * tie correction and an optional continuity correction:
 *   ranks over the pooled samples (ties get their average rank), R1 = sum of x's ranks
 *   U1 = R1 - n1 (n1 + 1) / 2,  U2 = n1 n2 - U1,  mu = n1 n2 / 2
 *   sigma^2 = n1 n2 / 12 * ((n + 1) - sum(t^3 - t) / (n (n - 1)))   (t: tie group sizes)
 *   z = (U1 - mu -+ 0.5) / sigma  (continuity: towards mu),  p = erfc(|z| / sqrt 2)
 * z < 0 means x tends to be smaller than y. When sigma is 0 (all values equal) z = 0
 * and p = 1. The normal approximation wants n1, n2 >= about 8; below that p is rough.
 */
#ifndef GC_STATS_H
#define GC_STATS_H

#include <stddef.h>

#include "result.h"

typedef struct gc_mwu {
	size_t n1, n2;
	double r1;        /* rank sum of x */
	double u1, u2;    /* U of x and of y (u1 + u2 = n1 n2) */
	double tie_sum;   /* sum over tie groups of t^3 - t */
	double sigma;     /* standard deviation of U under H0, tie-corrected */
	double z;         /* standardized U1 */
	double p;         /* two-sided p-value */
} gc_mwu;

/* Test x (n1 values) against y (n2 values); continuity: 1 to apply the 0.5
 * correction. GC_E_INVAL when n1 or n2 is 0 or a value is not finite; GC_E_NOMEM. */
gc_rc gc_mwu_test(const double *x, size_t n1, const double *y, size_t n2, int continuity,
		  gc_mwu *out);

/* Median of n values ((x[(n-1)/2] + x[n/2]) / 2 of the sorted copy); NAN when n is 0
 * or out of memory. x is not modified. */
double gc_median(const double *x, size_t n);

/* Standard normal upper tail P(Z > z). */
double gc_norm_sf(double z);

#endif

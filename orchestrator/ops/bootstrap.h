/* orchestrator/ops/bootstrap.h: bootstrap confidence intervals for regression verdicts.
 *
 * Per-iteration times within one run are not independent (a slow node, a noisy
 * neighbour, the run's placement slow every iteration of it), so when a point has
 * several runs the runs are the unit: a replicate draws runs with replacement, then
 * iterations with replacement within each drawn run (the two-level bootstrap), and
 * takes the median of what it drew. With fewer runs the iterations of all runs are
 * drawn as one pool. The statistic of a comparison is a function of a few such
 * medians (a ratio of two for time, of four for speedup); its interval is the
 * percentile interval of GC_BOOT_REPLICATES replicates from a fixed seed, so the
 * same database always gives the same verdict.
 */
#ifndef GC_BOOTSTRAP_H
#define GC_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

#define GC_BOOT_REPLICATES 2000
#define GC_BOOT_MIN_RUNS 3      /* runs per sample for runs to be the unit */

/* Values grouped by run: run r is x[off[r]] .. x[off[r + 1] - 1]; off has nruns + 1. */
typedef struct gc_boot_sample {
	const double *x;
	const size_t *off;
	size_t nruns;
} gc_boot_sample;

/* Doubles of scratch gc_boot_median needs for s. */
size_t gc_boot_scratch(const gc_boot_sample *s);

/* One replicate of s's median (by_runs: two-level, else pooled); rng is the state of a
 * xorshift64* generator (never 0). NAN for an empty sample. */
double gc_boot_median(const gc_boot_sample *s, int by_runs, uint64_t *rng, double *scratch);

/* Median of n values, reordering x (quickselect). NAN when n is 0. */
double gc_median_inplace(double *x, size_t n);

/* The [alpha/2, 1 - alpha/2] percentile interval of the n values v (sorted in place);
 * NAN values are dropped. lo = hi = NAN when none is left. */
void gc_boot_interval(double *v, size_t n, double alpha, double *lo, double *hi);

#endif

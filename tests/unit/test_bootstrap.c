/* The bootstrap of regression verdicts (orchestrator/ops/bootstrap.h). */
#include <math.h>
#include <stdlib.h>

#include "harness.h"
#include "orchestrator/ops/bootstrap.h"
#include "orchestrator/ops/stats.h"

/* quickselect's median equals the sorted one, duplicates and even sizes included */
static void test_median_inplace(void)
{
	double x[64], y[64];
	unsigned s = 7;

	for (size_t n = 1; n <= 64; n++)
		for (int rep = 0; rep < 20; rep++) {
			for (size_t i = 0; i < n; i++) {
				s = s * 1103515245u + 12345u;
				x[i] = y[i] = (double)((s >> 16) % 9);   /* many ties */
			}
			double want = gc_median(y, n), got = gc_median_inplace(x, n);
			CHECKF(got == want, "n %zu: %g, want %g", n, got, want);
		}
	CHECK(isnan(gc_median_inplace(x, 0)));
}

static void test_interval(void)
{
	double v[101];
	double lo, hi;

	for (int i = 0; i <= 100; i++)
		v[i] = 100 - i;                          /* unsorted on purpose */
	gc_boot_interval(v, 101, 0.1, &lo, &hi);
	CHECK(lo == 5 && hi == 95);
	v[0] = NAN;
	v[1] = NAN;
	gc_boot_interval(v, 2, 0.1, &lo, &hi);
	CHECK(isnan(lo) && isnan(hi));
}

/* runs of constant values: a two-level replicate's median is one of the run levels,
 * a pooled one too; an empty sample gives NAN */
static void test_boot_median(void)
{
	double x[] = { 1, 1, 1, 5, 5, 5, 9, 9, 9 };
	size_t off[] = { 0, 3, 6, 9 };
	gc_boot_sample s = { x, off, 3 }, empty = { x, off, 0 };
	double scratch[16];
	uint64_t rng = 42;
	int seen[10] = { 0 };

	CHECK(gc_boot_scratch(&s) == 9);
	for (int k = 0; k < 200; k++) {
		double m = gc_boot_median(&s, 1, &rng, scratch);
		CHECKF(m == 1 || m == 5 || m == 9, "median %g", m);
		seen[(int)m] = 1;
	}
	CHECK(seen[1] && seen[5] && seen[9]);   /* the runs are what varies */
	CHECK(isnan(gc_boot_median(&empty, 1, &rng, scratch)));
}

int main(void)
{
	GCT_SUITE("bootstrap");
	GCT_RUN(test_median_inplace);
	GCT_RUN(test_interval);
	GCT_RUN(test_boot_median);
	return gct_finish();
}

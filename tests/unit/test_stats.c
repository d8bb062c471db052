/* tests/unit/test_stats.c: Mann-Whitney U against values computed by hand. */
#include "harness.h"
#include "orchestrator/ops/stats.h"

/* x = {1,2,3}, y = {4,5,6}: ranks of x 1,2,3 -> R1 = 6, U1 = 6 - 3*4/2 = 0, U2 = 9,
 * mu = 4.5, no ties: sigma^2 = 9/12 * 7 = 5.25, sigma = 2.291288.
 * z = -4.5/sigma = -1.963961, p = erfc(1.963961/sqrt 2) = 0.049535;
 * with continuity z = -4/sigma = -1.745743, p = 0.080856 (scipy's asymptotic value). */
static void test_separated(void)
{
	const double x[] = { 1, 2, 3 }, y[] = { 4, 5, 6 };
	gc_mwu r;

	CHECK_EQ_INT(gc_mwu_test(x, 3, y, 3, 0, &r), GC_OK);
	CHECK_NEAR(r.r1, 6, 1e-12);
	CHECK_NEAR(r.u1, 0, 1e-12);
	CHECK_NEAR(r.u2, 9, 1e-12);
	CHECK_NEAR(r.tie_sum, 0, 1e-12);
	CHECK_NEAR(r.sigma, 2.291288, 1e-6);
	CHECK_NEAR(r.z, -1.963961, 1e-6);
	CHECK_NEAR(r.p, 0.049535, 1e-6);
	CHECK_EQ_INT(gc_mwu_test(x, 3, y, 3, 1, &r), GC_OK);
	CHECK_NEAR(r.z, -1.745743, 1e-6);
	CHECK_NEAR(r.p, 0.080856, 1e-6);
}

/* x = {1,2,2,3}, y = {2,3,4,5}; pooled sorted 1 2 2 2 3 3 4 5: ranks 1, 3 3 3, 5.5 5.5,
 * 7, 8. R1 = 1 + 3 + 3 + 5.5 = 12.5, U1 = 12.5 - 10 = 2.5, U2 = 13.5.
 * ties: t=3 -> 24, t=2 -> 6, sum 30; sigma^2 = 16/12 * (9 - 30/56) = 11.285714,
 * sigma = 3.359422; z = (2.5 - 8)/sigma = -1.637187, p = 0.101591;
 * continuity: z = -5/sigma = -1.488351, p = 0.136658. */
static void test_ties(void)
{
	const double x[] = { 2, 1, 3, 2 }, y[] = { 5, 2, 4, 3 };
	gc_mwu r;

	CHECK_EQ_INT(gc_mwu_test(x, 4, y, 4, 0, &r), GC_OK);
	CHECK_NEAR(r.r1, 12.5, 1e-12);
	CHECK_NEAR(r.u1, 2.5, 1e-12);
	CHECK_NEAR(r.u2, 13.5, 1e-12);
	CHECK_NEAR(r.tie_sum, 30, 1e-12);
	CHECK_NEAR(r.sigma, 3.359422, 1e-6);
	CHECK_NEAR(r.z, -1.637187, 1e-6);
	CHECK_NEAR(r.p, 0.101591, 1e-6);
	CHECK_EQ_INT(gc_mwu_test(x, 4, y, 4, 1, &r), GC_OK);
	CHECK_NEAR(r.z, -1.488351, 1e-6);
	CHECK_NEAR(r.p, 0.136658, 1e-6);
}

/* swapping the samples mirrors U and z */
static void test_symmetric(void)
{
	const double x[] = { 2, 1, 3, 2 }, y[] = { 5, 2, 4, 3 };
	gc_mwu a, b;

	CHECK_EQ_INT(gc_mwu_test(x, 4, y, 4, 1, &a), GC_OK);
	CHECK_EQ_INT(gc_mwu_test(y, 4, x, 4, 1, &b), GC_OK);
	CHECK_NEAR(a.u1, b.u2, 1e-12);
	CHECK_NEAR(a.z, -b.z, 1e-12);
	CHECK_NEAR(a.p, b.p, 1e-12);
}

static void test_all_equal_and_errors(void)
{
	const double x[] = { 7, 7, 7 }, y[] = { 7, 7 }, bad[] = { 1, NAN };
	gc_mwu r;

	CHECK_EQ_INT(gc_mwu_test(x, 3, y, 2, 1, &r), GC_OK);
	CHECK_NEAR(r.u1, 3, 1e-12);
	CHECK_NEAR(r.z, 0, 0);
	CHECK_NEAR(r.p, 1, 0);
	CHECK_EQ_INT(gc_mwu_test(x, 0, y, 2, 1, &r), GC_E_INVAL);
	CHECK_EQ_INT(gc_mwu_test(x, 3, bad, 2, 1, &r), GC_E_INVAL);
}

/* identical samples: U1 = n1 n2 / 2 exactly, p = 1 */
static void test_identical(void)
{
	double x[20];
	gc_mwu r;
	int i;

	for (i = 0; i < 20; i++)
		x[i] = 1.0 + 0.01 * i;
	CHECK_EQ_INT(gc_mwu_test(x, 20, x, 20, 1, &r), GC_OK);
	CHECK_NEAR(r.u1, 200, 1e-9);
	CHECK_NEAR(r.p, 1, 1e-12);
}

static void test_median_and_tail(void)
{
	const double a[] = { 5, 1, 3 }, b[] = { 4, 1, 3, 2 };

	CHECK_NEAR(gc_median(a, 3), 3, 0);
	CHECK_NEAR(gc_median(b, 4), 2.5, 0);
	CHECK(isnan(gc_median(a, 0)));
	CHECK_NEAR(gc_norm_sf(0), 0.5, 1e-15);
	CHECK_NEAR(gc_norm_sf(1.959964), 0.025, 1e-7);
}

int main(void)
{
	GCT_SUITE("stats");
	GCT_RUN(test_separated);
	GCT_RUN(test_ties);
	GCT_RUN(test_symmetric);
	GCT_RUN(test_all_equal_and_errors);
	GCT_RUN(test_identical);
	GCT_RUN(test_median_and_tail);
	return gct_finish();
}

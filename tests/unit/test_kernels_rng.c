/* Unit tests of kernels/rng.h, the counter-based generator: the published splitmix64
 * outputs, the same numbers whatever the order or split of the indices, and the range
 * and moments of the uniforms. */
#include <stdint.h>

#include "harness.h"
#include "kernels/rng.h"

/* Reference outputs of splitmix64 from state 1234567 (Vigna's splitmix64.c; the same
 * vectors test rand_xoshiro's SplitMix64), not computed by the code under test. */
static const uint64_t ref1234567[5] = {
	6457827717110365317ull, 3203168211198807973ull, 9817491932198370423ull,
	4593380528125082431ull, 16408922859458223821ull,
};

static void test_splitmix_reference(void)
{
	uint64_t s = 1234567;
	int i;

	for (i = 0; i < 5; i++)
		CHECKF(gc_splitmix64(&s) == ref1234567[i], "sequential output %d", i);
	for (i = 4; i >= 0; i--)        /* the counter form, backwards */
		CHECKF(gc_rng_at(1234567, (uint64_t)i) == ref1234567[i], "counter value %d", i);
}

/* Normals drawn whole, in parts of odd sizes in reverse order, and by the sequential
 * gc_rng_normal are the same bits; the sequential state ends past what it used. */
static void test_normal_any_split(void)
{
	enum { N = 1001 };
	static float whole[N], parts[N], seq[N];
	uint64_t key = gc_rng_key(42, 3, 7), s = key, first;
	size_t cut[] = { 0, 1, 2, 5, 77, 500, 999, N };
	int i;

	gc_rng_normal_at(key, 0, whole, N);
	for (i = (int)(sizeof cut / sizeof cut[0]) - 2; i >= 0; i--)
		gc_rng_normal_at(key, cut[i], parts + cut[i], cut[i + 1] - cut[i]);
	gc_rng_normal(&s, seq, N);
	CHECK(!memcmp(whole, parts, sizeof whole));
	CHECK(!memcmp(whole, seq, sizeof whole));
	first = gc_rng_at(key, N + 1);  /* N odd: values 0..N used, the next is N + 1 */
	CHECK(gc_splitmix64(&s) == first);
#pragma omp parallel for schedule(dynamic, 7)
	for (i = 0; i < N; i++)
		gc_rng_normal_at(key, (uint64_t)i, parts + i, 1);
	CHECK(!memcmp(whole, parts, sizeof whole));
}

/* Keys differ for each of seed, tensor and step; a key is a function of all three. */
static void test_keys(void)
{
	uint64_t k = gc_rng_key(1, 2, 3);

	CHECK(k == gc_rng_key(1, 2, 3));
	CHECK(k != gc_rng_key(2, 2, 3));
	CHECK(k != gc_rng_key(1, 3, 3));
	CHECK(k != gc_rng_key(1, 2, 4));
	CHECK(gc_rng_key(0, 0, 0) != gc_rng_key(0, 0, 1));
	CHECK(gc_rng_seed(1, 2, 3) == k);
}

/* gc_rng_unit24: in [0, 1), a multiple of 2^-24, mean 1/2 and variance 1/12. With
 * n = 2^20 uniforms the mean's standard error is 2.8e-4 and the variance's 7.5e-5;
 * the bounds are 6 standard errors (a false failure about 2e-9 per bound for a random
 * seed; the seed is fixed, so the test is deterministic). */
static void test_unit24_moments(void)
{
	const size_t n = (size_t)1 << 20;
	uint64_t key = gc_rng_key(7, 0, 0);
	double sum = 0, sq = 0, mean, var;
	size_t i;

	for (i = 0; i < n; i++) {
		float u = gc_rng_unit24(key, i);
		CHECKF(u >= 0.0f && u < 1.0f, "value %zu is %g", i, (double)u);
		CHECKF(u * 16777216.0f == (float)(uint32_t)(u * 16777216.0f), "value %zu", i);
		sum += u;
		sq += (double)u * u;
	}
	mean = sum / (double)n;
	var = sq / (double)n - mean * mean;
	CHECK_NEAR(mean, 0.5, 6 * 2.8e-4);
	CHECK_NEAR(var, 1.0 / 12, 6 * 7.5e-5);
}

int main(void)
{
	GCT_SUITE("kernels_rng");
	GCT_RUN(test_splitmix_reference);
	GCT_RUN(test_normal_any_split);
	GCT_RUN(test_keys);
	GCT_RUN(test_unit24_moments);
	return gct_finish();
}

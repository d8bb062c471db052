/* tests/unit/test_wk_fill.c: a replay rank's gradients (worker/wk_fill.h) against a
 * scalar reference written from the header's definition, at one and two threads and
 * across the 2^16-element blocks; their mean and variance; and the pre-mapped zeroed
 * buffers (worker/wk_mem.h). */
#include "harness.h"

#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "worker/wk_fill.h"
#include "worker/wk_mem.h"

/* The definition, element by element: lowbias32, a key per block of 2^16 elements
 * from the seed's two words and the block's index, two hashes of the counter. */
static uint32_t ref_hash(uint32_t x)
{
	/* xorshift 16, multiply, xorshift 15, multiply, xorshift 16 (mod 2^32) */
	static const struct { int shift; uint32_t mul; } step[] = {
		{ 16, 0x7feb352du }, { 15, 0x846ca68bu }, { 16, 1 } };
	for (size_t k = 0; k < 3; k++)
		x = (x ^ (x >> step[k].shift)) * step[k].mul;
	return x;
}

static float ref_at(size_t idx, uint64_t seed, float scale)
{
	uint32_t blk = (uint32_t)(idx >> 16), i = (uint32_t)(idx & 0xffff);
	uint32_t key = ref_hash((uint32_t)seed ^ ref_hash((uint32_t)(seed >> 32) ^ ref_hash(blk)));
	uint32_t h0 = ref_hash(key + 2 * i), h1 = ref_hash(key + 2 * i + 1);
	int64_t u = (int64_t)(h0 & 0xffff) + (h0 >> 16) + (h1 & 0xffff) + (h1 >> 16);
	float a = 1.7320508f / 65536.0f * scale;
	return (float)(u - 131070) * a;
}

static void test_fill_reference(void)
{
	const uint64_t seeds[] = { 0, 1000, 1003, (uint64_t)1 << 32, UINT64_MAX };
	size_t n = ((size_t)3 << 20) + 7;       /* split across threads, a partial block */
	float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
	CHECK(a && b);
	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		omp_set_num_threads(1);
		gc_wk_fill_gradient(a, n, seeds[s], 0.01f);
		omp_set_num_threads(2);
		gc_wk_fill_gradient(b, n, seeds[s], 0.01f);
		CHECK(!memcmp(a, b, n * sizeof(float)));
		for (size_t i = 0; i < n; i += (i < 70000 ? 1 : 997))
			if (a[i] != ref_at(i, seeds[s], 0.01f)) {
				gct_failf(__FILE__, __LINE__, "seed %llu element %zu: %g, the "
					  "definition gives %g", (unsigned long long)seeds[s], i,
					  (double)a[i], (double)ref_at(i, seeds[s], 0.01f));
				free(a), free(b);
				return;
			}
		CHECK(a[n - 1] == ref_at(n - 1, seeds[s], 0.01f));
	}
	free(a);
	free(b);
}

/* Mean 0 and variance scale^2 (1e6 draws: the mean's standard error is 1e-3 of the
 * scale, the variance's about 1.2e-3 of it: the bounds are over 10 of each); seeds
 * that differ only in one word give other values, and no block repeats another. */
static void test_fill_moments(void)
{
	size_t n = 1000000;
	float *a = malloc(n * sizeof(float)), *b = malloc(n * sizeof(float));
	double mean = 0, var = 0;
	CHECK(a && b);
	gc_wk_fill_gradient(a, n, 7, 2.0f);
	for (size_t i = 0; i < n; i++)
		mean += a[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		var += (a[i] - mean) * (a[i] - mean);
	var /= (double)n;
	CHECK_NEAR(mean, 0, 0.02);
	CHECK_NEAR(var, 4.0, 0.06);
	gc_wk_fill_gradient(b, n, 7 + ((uint64_t)1 << 32), 2.0f);
	CHECK(memcmp(a, b, n * sizeof(float)));
	gc_wk_fill_gradient(b, n, 8, 2.0f);
	CHECK(memcmp(a, b, n * sizeof(float)));
	CHECK(memcmp(a, a + 65536, 65536 * sizeof(float)));
	free(a);
	free(b);
}

static void test_zeroed(void)
{
	size_t n = ((size_t)1 << 20) + 3;
	float *p = gc_wk_zeroed(n), *q = gc_wk_zeroed(0);
	CHECK(p && q);
	CHECK(((uintptr_t)p & 63) == 0);
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0.0f) {
			gct_failf(__FILE__, __LINE__, "element %zu is %g, not zero", i, (double)p[i]);
			break;
		}
	p[n - 1] = 1.0f;                    /* writable to its last element */
	CHECK(gc_wk_zeroed(SIZE_MAX / 2) == NULL);
	gc_wk_unzeroed(p, n);
	gc_wk_unzeroed(q, 0);
	gc_wk_unzeroed(NULL, 5);
}

int main(void)
{
	GCT_SUITE("wk_fill");
	GCT_RUN(test_fill_reference);
	GCT_RUN(test_fill_moments);
	GCT_RUN(test_zeroed);
	return gct_finish();
}

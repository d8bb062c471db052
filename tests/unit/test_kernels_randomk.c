/* Unit tests of randomk (kernels/randomk.h, kernels/randomk.c): the stratified pick
 * (one distinct index per stratum, ascending, the same on every worker, new each
 * step, each element at its stated probability), the method's bits with and without
 * error feedback, and the same bits at any thread count. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "harness.h"
#include "kernels/compress.h"
#include "kernels/randomk.h"
#include "kernels_fixture.h"

static void test_pick_strata(void)
{
	const uint64_t sizes[][2] = { { 10, 3 }, { 1000, 10 }, { 1001, 7 }, { 5, 5 }, { 7, 1 },
				      { 4000000000ull, 40000000ull } };
	for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
		uint64_t n = sizes[c][0], k = sizes[c][1], key = gc_rng_key(42, 0, c);
		uint64_t prev = 0;
		for (uint64_t j = 0; j < k; j += k > 1000 ? 997 : 1) {
			uint32_t i = gc_randomk_index(key, j, n, k);
			CHECKF(i >= j * n / k && i < (j + 1) * n / k, "n %llu k %llu j %llu: %u",
			       (unsigned long long)n, (unsigned long long)k, (unsigned long long)j, i);
			CHECK(j == 0 || i > prev);
			prev = i;
		}
	}
}

/* Over S = 20000 steps of n = 12, k = 5 (strata of 2 and 3 elements), each element's
 * count of picks is binomial(S, 1/size): standard deviation at most 67. The bound is 6
 * standard deviations of each of the 12 counts (a false failure below 3e-8 for a
 * random seed; the seed is fixed, so the test is deterministic). Every step picks the
 * same on two "workers" (the pick is a function of the key alone). */
static void test_pick_frequencies(void)
{
	enum { N = 12, K = 5, S = 20000 };
	unsigned cnt[N] = { 0 };
	uint64_t j, s;

	for (s = 0; s < S; s++) {
		uint64_t key = gc_rng_key(7, 0, s);
		for (j = 0; j < K; j++)
			cnt[gc_randomk_index(key, j, N, K)]++;
	}
	for (j = 0; j < K; j++) {
		uint64_t lo = j * N / K, hi = (j + 1) * N / K;
		double p = 1.0 / (double)(hi - lo), sd = sqrt(S * p * (1 - p));
		for (uint64_t i = lo; i < hi; i++)
			CHECKF(fabs(cnt[i] - S * p) < 6 * sd, "element %llu: %u picks of %d, want %.0f",
			       (unsigned long long)i, cnt[i], S, S * p);
	}
}

/* Three workers, two steps: avg is zero but at the step's indices, where it is the
 * float sum of the workers' c (in worker order) / 3; with EF, c = g + e and e keeps
 * everything not sent. Written from the definition in compress.h. */
static void run_bits(int ef)
{
	enum { N = 5003, P = 3 };
	static float g[2][P][N], avg[P][N], res[N], e[P][N];
	gc_tensor_desc t[2] = { { 3000, 1, 1 }, { 2003, 1, 1 } };
	gc_bucket *b[P];
	gc_params p;
	gc_err err;
	size_t k;
	int w, s;

	gc_params_default(&p, GC_M_RANDOMK);
	p.ratio = 0.01;
	p.ef = ef;
	p.seed = 5;
	k = (size_t)ceil(0.01 * N);
	for (w = 0; w < P; w++)
		CHECK_EQ_INT(gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, t, 2, P, w, &err), GC_OK);
	CHECK_EQ_INT(gc_bucket_payload_bytes(b[0]), 4 * k);
	memset(e, 0, sizeof e);
	for (s = 0; s < 2; s++) {
		const float *gp[P];
		float *ap[P];
		uint64_t key = gc_rng_key(5, 0, (uint64_t)s);
		for (w = 0; w < P; w++) {
			fill(g[s][w], N, 100 + (uint64_t)(s * P + w));
			gp[w] = g[s][w];
			ap[w] = avg[w];
			for (int i = 0; i < N; i++)
				e[w][i] = ef ? e[w][i] + g[s][w][i] : g[s][w][i];
		}
		CHECK_EQ_INT(gc_simulate_step(b, P, gp, ap, NULL, NULL, &err), GC_OK);
		size_t j = 0;
		for (size_t i = 0; i < N; i++) {
			float want = 0.0f;
			if (j < k && gc_randomk_index(key, j, N, k) == i) {
				float sum = e[0][i];
				for (w = 1; w < P; w++)
					sum += e[w][i];
				want = sum / P;
				for (w = 0; w < P; w++)
					e[w][i] = 0.0f;
				j++;
			}
			for (w = 0; w < P; w++)
				CHECKF(!memcmp(&avg[w][i], &want, 4), "ef %d step %d worker %d element "
				       "%zu: %g, want %g", ef, s, w, i, avg[w][i], want);
		}
		CHECK(j == k);
		for (w = 0; w < P; w++) {
			CHECK_EQ_INT(gc_bucket_residual(b[w], res), GC_OK);
			for (size_t i = 0; i < N; i++)
				CHECKF(ef ? !memcmp(&res[i], &e[w][i], 4) : res[i] == 0.0f,
				       "residual of worker %d element %zu", w, i);
		}
	}
	for (w = 0; w < P; w++)
		gc_bucket_free(b[w]);
}

static void test_bits_ef(void) { run_bits(1); }
static void test_bits_no_ef(void) { run_bits(0); }

/* One thread and all of them give the same bits (a bucket above the threads' size) */
static void test_threads(void)
{
#ifdef _OPENMP
	enum { N = 300007 };
	static float g[N], a1[N], a2[N];
	gc_tensor_desc t = { N, 1, 1 };
	const float *gp[1] = { g };
	float *ap[1];
	gc_bucket *b;
	gc_params p;
	gc_err err;
	int nt = omp_get_max_threads();

	gc_params_default(&p, GC_M_RANDOMK);
	fill(g, N, 9);
	for (int r = 0; r < 2; r++) {
		omp_set_num_threads(r ? 1 : (nt < 4 ? 4 : nt));
		CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, &t, 1, 1, 0, &err), GC_OK);
		ap[0] = r ? a2 : a1;
		CHECK_EQ_INT(gc_simulate_step(&b, 1, gp, ap, NULL, NULL, &err), GC_OK);
		gc_bucket_free(b);
	}
	omp_set_num_threads(nt);
	CHECK(!memcmp(a1, a2, sizeof a1));
#else
	SKIP("built without OpenMP");
#endif
}

/* the method's rules: ratio in (0, 1], ef 0/1, seed any; no rank */
static void test_params(void)
{
	gc_params p;
	gc_err e;

	CHECK_EQ_INT(gc_params_parse_method("randomk:ratio=0.05,ef=0,seed=9", &p, &e), GC_OK);
	CHECK(p.method == GC_M_RANDOMK && p.ratio == 0.05 && p.ef == 0 && p.seed == 9);
	CHECK(gc_params_parse_method("randomk:ratio=0", &p, &e) != GC_OK);
	CHECK_CONTAINS(e.msg, "ratio");
	CHECK(gc_params_parse_method("randomk:rank=2", &p, &e) != GC_OK);
	CHECK_CONTAINS(e.msg, "rank");
	gc_params_default(&p, GC_M_RANDOMK);
	CHECK(p.ef == 1 && p.ratio == 0.01 && p.seed == 42);
}

int main(void)
{
	GCT_SUITE("kernels_randomk");
	GCT_RUN(test_pick_strata);
	GCT_RUN(test_pick_frequencies);
	GCT_RUN(test_bits_ef);
	GCT_RUN(test_bits_no_ef);
	GCT_RUN(test_threads);
	GCT_RUN(test_params);
	return gct_finish();
}

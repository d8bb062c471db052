/* Unit tests of terngrad (kernels/terngrad.h, kernels/terngrad.c): the bits from the
 * definition at 3 workers, unbiasedness and the variance s |g| - g^2 of the estimator
 * (a statistical test, false-failure rate stated below), zero tensors, payload size
 * and the same bits at any thread count. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "harness.h"
#include "kernels/compress.h"
#include "kernels/rng.h"
#include "kernels_fixture.h"

static gc_rc step(gc_bucket **b, int p, float (*g)[4099], float (*avg)[4099])
{
	const float *gp[4];
	float *ap[4];
	gc_err e;

	for (int w = 0; w < p; w++)
		gp[w] = g[w], ap[w] = avg[w];
	return gc_simulate_step(b, p, gp, ap, NULL, NULL, &e);
}

/* Written from compress.h's rule: scale = max |g| per tensor, b = (u < |g| / s) with
 * u = gc_rng_unit24(key(seed, t, step), w 2^32 + i), value s sign(g) b, summed over
 * workers in order in float, / p. Two steps, two tensors, one of them all zero. */
static void test_bits(void)
{
	enum { N = 4099, P = 3 };
	static float g[P][N], avg[P][N];
	gc_tensor_desc t[3] = { { 1000, 3, 2 }, { 99, 1, 1 }, { 1000, 1, 1 } };
	size_t off[4] = { 0, 3000, 3099, N };
	gc_bucket *b[P];
	gc_params p;
	gc_err e;

	gc_params_default(&p, GC_M_TERNGRAD);
	p.seed = 11;
	for (int w = 0; w < P; w++)
		CHECK_EQ_INT(gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, t, 3, P, w, &e), GC_OK);
	CHECK_EQ_INT(gc_bucket_payload_bytes(b[0]), 4 * 3 + (N + 3) / 4);
	for (int s = 0; s < 2; s++) {
		float sc[P][3];
		for (int w = 0; w < P; w++) {
			fill(g[w], N, 77 + (uint64_t)(s * P + w));
			for (size_t i = off[1]; i < off[2]; i++)
				g[w][i] = (i % 2) ? 0.0f : -0.0f;
			for (int tt = 0; tt < 3; tt++) {
				sc[w][tt] = 0;
				for (size_t i = off[tt]; i < off[tt + 1]; i++)
					sc[w][tt] = fmaxf(sc[w][tt], fabsf(g[w][i]));
			}
		}
		CHECK_EQ_INT(step(b, P, g, avg), GC_OK);
		for (int tt = 0; tt < 3; tt++) {
			uint64_t key = gc_rng_key(11, (uint64_t)tt, (uint64_t)s);
			for (size_t i = off[tt]; i < off[tt + 1]; i++) {
				float acc = 0.0f, want;
				for (int w = 0; w < P; w++) {
					float u = gc_rng_unit24(key, ((uint64_t)w << 32) | i);
					if (sc[w][tt] > 0 && u < fabsf(g[w][i]) / sc[w][tt])
						acc += signbit(g[w][i]) ? -sc[w][tt] : sc[w][tt];
				}
				want = acc / P;
				for (int w = 0; w < P; w++)
					CHECKF(!memcmp(&avg[w][i], &want, 4), "step %d worker %d element "
					       "%zu: %g, want %g", s, w, i, avg[w][i], want);
				if (tt == 1)
					CHECK(avg[0][i] == 0.0f);
			}
		}
	}
	for (int w = 0; w < P; w++)
		gc_bucket_free(b[w]);
}

/* One worker, S = 4000 steps (each a fresh draw) of one fixed 64-element gradient with
 * max |g| = s = 1: per element the mean of the S results estimates g (unbiasedness)
 * and their variance s |g| - g^2 (the estimator's, from the paper). Bounds: 6 standard
 * errors of each, computed from the ternary distribution itself (mean: sqrt(var / S);
 * variance: sqrt(q (1 - q) (s^2 - 2 s |g|)^2 / S), q = |g| / s). A false failure of one
 * bound is below 2e-9, of the 128 below 3e-7 for a random seed; the seed is fixed, so
 * the test is deterministic. */
static void test_unbiased(void)
{
	enum { N = 64, S = 4000 };
	static float g[1][4099], avg[1][4099];
	double sum[N] = { 0 }, sq[N] = { 0 };
	gc_tensor_desc t = { N, 1, 1 };
	gc_bucket *b;
	gc_params p;
	gc_err e;

	gc_params_default(&p, GC_M_TERNGRAD);
	CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, &t, 1, 1, 0, &e), GC_OK);
	for (int i = 0; i < N; i++)
		g[0][i] = i == 0 ? 1.0f : (float)((i * 37 % 64) / 32.0 - 1.0) * 0.999f;
	for (int s = 0; s < S; s++) {
		CHECK_EQ_INT(step(&b, 1, g, avg), GC_OK);
		for (int i = 0; i < N; i++) {
			sum[i] += avg[0][i];
			sq[i] += (double)avg[0][i] * avg[0][i];
		}
	}
	gc_bucket_free(b);
	for (int i = 0; i < N; i++) {
		double a = fabs(g[0][i]), q = a, var = a - a * a;
		double mean = sum[i] / S, v = sq[i] / S - mean * mean;
		double se_m = sqrt(var / S), se_v = sqrt(q * (1 - q) * (1 - 2 * a) * (1 - 2 * a) / S);
		CHECKF(fabs(mean - g[0][i]) <= 6 * se_m + 1e-12, "element %d: mean %g, g %g "
		       "(6 se %g)", i, mean, g[0][i], 6 * se_m);
		CHECKF(fabs(v - var) <= 6 * se_v + 1e-3 / S, "element %d: variance %g, theory "
		       "%g (6 se %g)", i, v, var, 6 * se_v);
	}
}

static void test_threads(void)
{
#ifdef _OPENMP
	enum { N = 300007 };
	static float g[N], a1[N], a2[N];
	gc_tensor_desc t[2] = { { 200000, 1, 1 }, { 100007, 1, 1 } };
	const float *gp[1] = { g };
	float *ap[1];
	gc_bucket *b;
	gc_params p;
	gc_err err;
	int nt = omp_get_max_threads();

	gc_params_default(&p, GC_M_TERNGRAD);
	fill(g, N, 9);
	for (int r = 0; r < 2; r++) {
		omp_set_num_threads(r ? 1 : (nt < 4 ? 4 : nt));
		CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, t, 2, 1, 0, &err), GC_OK);
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

static void test_params(void)
{
	gc_params p;
	gc_err e;

	CHECK_EQ_INT(gc_params_parse_method("terngrad:seed=3", &p, &e), GC_OK);
	CHECK(p.method == GC_M_TERNGRAD && p.seed == 3 && p.ef == 0);
	CHECK(gc_params_parse_method("terngrad:ef=1", &p, &e) != GC_OK);
	CHECK_CONTAINS(e.msg, "ef");
	CHECK(gc_params_parse_method("terngrad:ratio=0.1", &p, &e) != GC_OK);
}

int main(void)
{
	GCT_SUITE("kernels_terngrad");
	GCT_RUN(test_bits);
	GCT_RUN(test_unbiased);
	GCT_RUN(test_threads);
	GCT_RUN(test_params);
	return gct_finish();
}

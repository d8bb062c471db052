/* Unit tests of qsgd (kernels/qsgd.h, kernels/qsgd.c): the bits from the definition at
 * 3 workers for each code width (4, 8, 16 bits) and norm buckets that end inside and
 * at tensor ends, unbiasedness and the variance of the estimator (a statistical test,
 * false-failure rate stated below), zero tensors, payload size, the same bits at any
 * thread count, and the parameters' ranges. */
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

enum { N = 4099, P = 3 };

static gc_rc step(gc_bucket **b, int p, float (*g)[N], float (*avg)[N])
{
	const float *gp[P];
	float *ap[P];
	gc_err e;

	for (int w = 0; w < p; w++)
		gp[w] = g[w], ap[w] = avg[w];
	return gc_simulate_step(b, p, gp, ap, NULL, NULL, &e);
}

/* Written from compress.h's rule, not from kernels/qsgd.h: per norm bucket (d
 * consecutive elements of one tensor) r = (float) sqrt(double sum of squares in
 * order); x = (|g| / r) s in float, level = floor(x) + (u < x - floor(x)), u =
 * gc_rng_unit24(key(seed, t, step), w 2^32 + i); value sign(g) (r level) / s; summed
 * over workers in order in float, / p. Two steps, three tensors, one all zero. */
static void check_bits(int levels, int d, size_t want_bytes)
{
	static float g[P][N], avg[P][N];
	static float nrm[P][N];
	gc_tensor_desc t[3] = { { 1000, 3, 2 }, { 99, 1, 1 }, { 1000, 1, 1 } };
	size_t off[4] = { 0, 3000, 3099, N };
	gc_bucket *b[P];
	gc_params p;
	gc_err e;

	gc_params_default(&p, GC_M_QSGD);
	p.seed = 11;
	p.levels = levels;
	p.bucket_size = d;
	for (int w = 0; w < P; w++)
		CHECK_EQ_INT(gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, t, 3, P, w, &e), GC_OK);
	CHECKF(gc_bucket_payload_bytes(b[0]) == want_bytes, "levels %d bucket %d: payload "
	       "%zu, want %zu", levels, d, gc_bucket_payload_bytes(b[0]), want_bytes);
	for (int s = 0; s < 2; s++) {
		for (int w = 0; w < P; w++) {
			fill(g[w], N, 77 + (uint64_t)(s * P + w));
			for (size_t i = off[1]; i < off[2]; i++)
				g[w][i] = (i % 2) ? 0.0f : -0.0f;
			for (int tt = 0; tt < 3; tt++)
				for (size_t i0 = off[tt]; i0 < off[tt + 1]; i0 += (size_t)d) {
					size_t i1 = i0 + (size_t)d < off[tt + 1] ? i0 + (size_t)d : off[tt + 1];
					double acc = 0;
					for (size_t i = i0; i < i1; i++)
						acc += (double)g[w][i] * (double)g[w][i];
					for (size_t i = i0; i < i1; i++)
						nrm[w][i] = (float)sqrt(acc);
				}
		}
		CHECK_EQ_INT(step(b, P, g, avg), GC_OK);
		for (int tt = 0; tt < 3; tt++) {
			uint64_t key = gc_rng_key(11, (uint64_t)tt, (uint64_t)s);
			for (size_t i = off[tt]; i < off[tt + 1]; i++) {
				float acc = 0.0f, want;
				for (int w = 0; w < P; w++) {
					float r = nrm[w][i], u, x, f, v;
					int level = 0;
					if (r > 0) {
						u = gc_rng_unit24(key, ((uint64_t)w << 32) | i);
						x = (fabsf(g[w][i]) / r) * (float)levels;
						f = floorf(x);
						level = (int)f + (u < x - f);
					}
					v = (r * (float)level) / (float)levels;
					acc += signbit(g[w][i]) ? -v : v;
				}
				want = acc / P;
				for (int w = 0; w < P; w++)
					CHECKF(!memcmp(&avg[w][i], &want, 4), "levels %d bucket %d "
					       "step %d worker %d element %zu: %g, want %g", levels,
					       d, s, w, i, avg[w][i], want);
				if (tt == 1)
					CHECK(avg[0][i] == 0.0f);
			}
		}
	}
	for (int w = 0; w < P; w++)
		gc_bucket_free(b[w]);
}

static void test_bits(void)
{
	/* norm buckets: 3000/128 -> 24, 99/128 -> 1, 1000/128 -> 8 */
	check_bits(127, 128, 4 * 33 + N);
	check_bits(3, 128, 4 * 33 + (N + 1) / 2);
	check_bits(7, 7, 4 * (429 + 15 + 143) + (N + 1) / 2);
	check_bits(256, 1000, 4 * (3 + 1 + 1) + 2 * N);
	check_bits(128, 1, 4 * N + 2 * N);
	check_bits(2, 4099, 4 * 3 + (N + 1) / 2);
}

/* One worker, S = 4000 steps (each a fresh draw) of one fixed 64-element gradient in
 * one norm bucket with s = 4 levels: per element the mean of the S results estimates g
 * (unbiasedness), their variance (r/s)^2 f (1 - f), f = x - floor(x), x = |g| s / r
 * (the estimator's: a two-point distribution). Bounds: 6 standard errors of each,
 * computed from the two-point distribution itself (mean: sqrt(var / S); variance:
 * sqrt(f (1 - f) (1 - 2 f)^2 (r/s)^4 / S)). A false failure of one bound is below
 * 2e-9, of the 128 below 3e-7 for a random seed; the seed is fixed, so the test is
 * deterministic. */
static void test_unbiased(void)
{
	enum { M = 64, S = 4000 };
	static float g[1][N], avg[1][N];
	double sum[M] = { 0 }, sq[M] = { 0 }, r2 = 0;
	gc_tensor_desc t = { M, 1, 1 };
	gc_bucket *b;
	gc_params p;
	gc_err e;
	float r;

	gc_params_default(&p, GC_M_QSGD);
	p.levels = 4;
	CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, &t, 1, 1, 0, &e), GC_OK);
	for (int i = 0; i < M; i++) {
		g[0][i] = (float)((i * 37 % 64) / 32.0 - 1.0) * 0.999f;
		r2 += (double)g[0][i] * g[0][i];
	}
	r = (float)sqrt(r2);
	for (int s = 0; s < S; s++) {
		CHECK_EQ_INT(step(&b, 1, g, avg), GC_OK);
		for (int i = 0; i < M; i++) {
			sum[i] += avg[0][i];
			sq[i] += (double)avg[0][i] * avg[0][i];
		}
	}
	gc_bucket_free(b);
	for (int i = 0; i < M; i++) {
		double x = fabs(g[0][i]) / r * 4, f = x - floor(x), h = r / 4.0;
		double var = h * h * f * (1 - f);
		double mean = sum[i] / S, v = sq[i] / S - mean * mean;
		double se_m = sqrt(var / S), se_v = sqrt(f * (1 - f) * (1 - 2 * f) * (1 - 2 * f) *
							 h * h * h * h / S);
		CHECKF(fabs(mean - g[0][i]) <= 6 * se_m + 1e-6, "element %d: mean %g, g %g "
		       "(6 se %g)", i, mean, g[0][i], 6 * se_m);
		CHECKF(fabs(v - var) <= 6 * se_v + 1e-6, "element %d: variance %g, theory "
		       "%g (6 se %g)", i, v, var, 6 * se_v);
	}
}

static void test_threads(void)
{
#ifdef _OPENMP
	enum { M = 300007 };
	static float g[M], a1[M], a2[M];
	gc_tensor_desc t[2] = { { 200001, 1, 1 }, { 100006, 1, 1 } };
	const float *gp[1] = { g };
	float *ap[1];
	gc_bucket *b;
	gc_params p;
	gc_err err;
	int nt = omp_get_max_threads();

	for (int lv = 0; lv < 2; lv++) {
		gc_params_default(&p, GC_M_QSGD);
		p.levels = lv ? 5 : 127;       /* 4- and 8-bit codes */
		p.bucket_size = 333;
		fill(g, M, 9);
		for (int r = 0; r < 2; r++) {
			omp_set_num_threads(r ? 1 : (nt < 4 ? 4 : nt));
			CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, t, 2, 1, 0, &err),
				     GC_OK);
			ap[0] = r ? a2 : a1;
			CHECK_EQ_INT(gc_simulate_step(&b, 1, gp, ap, NULL, NULL, &err), GC_OK);
			gc_bucket_free(b);
		}
		omp_set_num_threads(nt);
		CHECK(!memcmp(a1, a2, sizeof a1));
	}
#else
	SKIP("built without OpenMP");
#endif
}

static void test_params(void)
{
	gc_params p;
	gc_err e;

	CHECK_EQ_INT(gc_params_parse_method("qsgd", &p, &e), GC_OK);
	CHECK(p.method == GC_M_QSGD && p.levels == 127 && p.bucket_size == 128 && p.ef == 0);
	CHECK_EQ_INT(gc_params_parse_method("qsgd:levels=2,bucket_size=1,seed=3", &p, &e), GC_OK);
	CHECK(p.levels == 2 && p.bucket_size == 1 && p.seed == 3);
	CHECK_EQ_INT(gc_params_parse_method("qsgd:levels=256,bucket_size=1048576", &p, &e), GC_OK);
	CHECK(gc_params_parse_method("qsgd:levels=1", &p, &e) != GC_OK);
	CHECK_CONTAINS(e.msg, "2..256");
	CHECK(gc_params_parse_method("qsgd:levels=257", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("qsgd:levels=2.5", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("qsgd:bucket_size=0", &p, &e) != GC_OK);
	CHECK_CONTAINS(e.msg, "bucket_size");
	CHECK(gc_params_parse_method("qsgd:bucket_size=-3", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("qsgd:ef=1", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("qsgd:ratio=0.1", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("terngrad:levels=4", &p, &e) != GC_OK);
	CHECK_CONTAINS(e.msg, "levels");
}

int main(void)
{
	GCT_SUITE("kernels_qsgd");
	GCT_RUN(test_bits);
	GCT_RUN(test_unbiased);
	GCT_RUN(test_threads);
	GCT_RUN(test_params);
	return gct_finish();
}

/* Unit tests of cgx (kernels/cgx.h, kernels/cgx.c): the average bit for bit against
 * the definition written here (3 workers, chunks and quantization buckets ending inside
 * tensors, levels spanning bytes, a constant bucket), unbiasedness of the quantizer and
 * of the whole exchange (statistical tests, false-failure rates stated below), the
 * rounds and payload, the same bits at any thread count, parameters. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "harness.h"
#include "kernels/cgx.h"
#include "kernels/compress.h"
#include "kernels/plan.h"
#include "kernels/rng.h"
#include "kernels_fixture.h"

enum { N = 4099, P = 3 };

/* The values x[0, m) (elements base.. of the bucket) take, from compress.h's rule:
 * per d consecutive, mn, mx, unit = (mx - mn) / (2^bits - 1); t = (x - mn) / unit;
 * level floor(t) + (u < t - floor(t)) within [0, L]; value mn + level unit. */
static void ref_quant(const float *x, size_t m, size_t base, int bits, size_t d, uint64_t key,
		      uint64_t hi, float *out)
{
	float L = (float)((1u << bits) - 1u);

	for (size_t a = 0; a < m; a += d) {
		size_t z = a + d < m ? a + d : m;
		float mn = x[a], mx = x[a], unit;
		for (size_t i = a; i < z; i++) {
			mn = fminf(mn, x[i]);
			mx = fmaxf(mx, x[i]);
		}
		unit = (mx - mn) / L;
		for (size_t i = a; i < z; i++) {
			float t = unit > 0 ? (x[i] - mn) / unit : 0, level;
			float u = (float)(gc_rng_at(key, hi + base + i) >> 40) / 16777216.0f;
			if (t <= 0)
				level = 0;
			else if (t >= L)
				level = L;
			else
				level = fminf(floorf(t) + (u < t - floorf(t) ? 1.0f : 0.0f), L);
			out[i] = mn + level * unit;
		}
	}
}

static void ref_step(float (*g)[N], int p, int bits, size_t d, uint64_t seed, uint64_t step,
		     float *avg)
{
	static float q[P][N], sum[N], q2[N];
	uint64_t k0 = gc_rng_key(seed, 0, step), k1 = gc_rng_key(seed, 1, step);

	for (int j = 0; j < p; j++) {
		size_t a = (size_t)N * (size_t)j / (size_t)p, z = (size_t)N * (size_t)(j + 1) / (size_t)p;
		for (int w = 0; w < p; w++)
			ref_quant(g[w] + a, z - a, a, bits, d, k0, (uint64_t)w << 32, q[w] + a);
		for (size_t i = a; i < z; i++) {
			sum[i] = 0.0f;
			for (int w = 0; w < p; w++)
				sum[i] += q[w][i];
		}
		ref_quant(sum + a, z - a, a, bits, d, k1, 0, q2 + a);
		for (size_t i = a; i < z; i++)
			avg[i] = q2[i] / (float)p;
	}
}

static void check_bits(int bits, int d)
{
	static float g[P][N], avg[P][N], want[N];
	gc_tensor_desc t[3] = { { 1000, 3, 2 }, { 99, 1, 1 }, { 1000, 1, 1 } };
	const float *gp[P];
	float *ap[P];
	gc_bucket *b[P];
	gc_params p;
	gc_err e;

	gc_params_default(&p, GC_M_CGX);
	p.seed = 7;
	p.bits = bits;
	p.bucket_size = d;
	for (int w = 0; w < P; w++) {
		CHECK_EQ_INT(gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, t, 3, P, w, &e), GC_OK);
		gp[w] = g[w], ap[w] = avg[w];
	}
	for (int s = 0; s < 3; s++) {
		for (int w = 0; w < P; w++) {
			fill(g[w], N, 300 + (uint64_t)(s * P + w));
			for (size_t i = 3000; i < 3099; i++)    /* constant: unit 0 */
				g[w][i] = 0.25f;
		}
		ref_step(g, P, bits, (size_t)d, 7, (uint64_t)s, want);
		CHECK_EQ_INT(gc_simulate_step(b, P, gp, ap, NULL, NULL, &e), GC_OK);
		for (int w = 0; w < P; w++) {
			size_t bad = N;
			for (size_t i = 0; i < N && bad == N; i++)
				if (memcmp(&avg[w][i], &want[i], 4))
					bad = i;
			CHECKF(bad == N, "bits %d d %d step %d worker %d: avg[%zu] = %a, want %a",
			       bits, d, s, w, bad, bad < N ? avg[w][bad] : 0, bad < N ? want[bad] : 0);
		}
	}
	for (int w = 0; w < P; w++)
		gc_bucket_free(b[w]);
}

static void test_bits(void)
{
	check_bits(4, 512);
	check_bits(3, 100);     /* levels across bytes; 3 x 100 bits: buckets end mid-byte */
	check_bits(1, 7);
	check_bits(8, 1);
	check_bits(5, 2000);    /* one bucket per chunk */
}

/* The quantizer alone: for x in a bucket (mn, unit), E[level] = t = (x - mn) / unit
 * and Var = f (1 - f), f = t - floor(t), over S = 40000 counters. The mean of S draws
 * is within 6 standard errors of t unless a 6-sigma event happens: for the 6 values
 * below, a false failure below 1e-8 (normal approximation, S large). */
static void test_quantizer_unbiased(void)
{
	enum { S = 40000 };
	const float xs[6] = { 0.1f, 0.37f, 0.5f, 0.999f, 0.0f, 1.0f };
	const float mn = 0.0f, unit = gc_cgx_unit(0.0f, 1.0f, 2);   /* 1/3 */
	uint64_t key = gc_rng_key(5, 0, 0);

	for (int k = 0; k < 6; k++) {
		double sum = 0, t = (double)((xs[k] - mn) / unit), f = t - floor(t);
		for (uint64_t c = 0; c < S; c++)
			sum += gc_cgx_level(xs[k], mn, unit, 2, gc_rng_unit24(key, 1000 * (uint64_t)k + c * 7));
		double mean = sum / S, se = sqrt(f * (1 - f) / S);
		CHECKF(fabs(mean - t) <= 6 * se + 1e-6, "x %g: mean level %g, t %g (6 se %g)",
		       (double)xs[k], mean, t, 6 * se);
	}
}

/* The whole exchange (two stochastic roundings: the chunks, then the requantized sum):
 * the average over S = 4000 steps of each element's result is within 6 standard errors
 * (from the sample variance) of the true average. Per element a false failure below
 * 2e-9 (normal approximation); over the 64 elements below 1.3e-7. The float rounding
 * of mn + level unit adds at most a few ulps: 1e-6 of slack. */
static void test_exchange_unbiased(void)
{
	enum { S = 4000, M = 64, W = 2 };
	static float g[W][M], avg[W][M];
	static double sum[M], sq[M];
	gc_tensor_desc t = { M, 1, 1 };
	const float *gp[W] = { g[0], g[1] };
	float *ap[W] = { avg[0], avg[1] };
	gc_bucket *b[W];
	gc_params p;
	gc_err e;

	gc_params_default(&p, GC_M_CGX);
	p.bits = 2;
	p.bucket_size = 16;
	for (int w = 0; w < W; w++) {
		fill(g[w], M, 90 + (uint64_t)w);
		CHECK_EQ_INT(gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, &t, 1, W, w, &e), GC_OK);
	}
	for (int s = 0; s < S; s++) {
		CHECK_EQ_INT(gc_simulate_step(b, W, gp, ap, NULL, NULL, &e), GC_OK);
		for (int i = 0; i < M; i++) {
			sum[i] += avg[0][i];
			sq[i] += (double)avg[0][i] * avg[0][i];
		}
	}
	for (int i = 0; i < M; i++) {
		double want = ((double)g[0][i] + g[1][i]) / 2, mean = sum[i] / S;
		double var = sq[i] / S - mean * mean, se = sqrt((var > 0 ? var : 0) / S);
		CHECKF(fabs(mean - want) <= 6 * se + 1e-6, "element %d: mean %g, want %g (6 se %g)",
		       i, mean, want, 6 * se);
	}
	for (int w = 0; w < W; w++)
		gc_bucket_free(b[w]);
}

/* Slot = the bytes of a chunk of ceil(n / p) elements; round 0 an all-to-all of a slot
 * to each worker, round 1 an all-gather of a slot. */
static void test_rounds(void)
{
	gc_tensor_desc t[] = { { 1000, 1000, 2 }, { 1000, 1, 1 }, { 10, 3, 2 } };
	gc_params p;
	gc_plan pl;
	const size_t slot = 8 * 489 + 488 * 256 + 201;   /* 250258 elements at 4 bits, d 512 */

	gc_params_default(&p, GC_M_CGX);
	CHECK(p.bits == 4 && p.bucket_size == 512 && p.seed == 42);
	gc_plan_begin(&pl, &p);
	pl.world = 4;
	for (int i = 0; i < 3; i++)
		gc_plan_add(&pl, &t[i]);
	gc_plan_end(&pl);
	CHECK_EQ_INT(pl.nround, 2);
	CHECK(pl.round[0].coll == GC_COLL_ALLTOALL && pl.round[0].dtype == GC_DT_U8 &&
	      pl.round[0].count == slot);
	CHECK(pl.round[1].coll == GC_COLL_ALLGATHER && pl.round[1].count == slot);
	CHECK_EQ_INT(gc_plan_round_bytes(&pl, 0), 4 * slot);
	CHECK_EQ_INT(gc_plan_payload_bytes(&pl), 5 * slot);
	CHECK_EQ_INT(gc_cgx_chunk_bytes(0, 4, 512), 0);
	CHECK_EQ_INT(gc_cgx_chunk_bytes(7, 3, 2), 8 * 4 + 3 * 1 + 1);
}

static void test_threads(void)
{
#ifdef _OPENMP
	enum { M = 300007, W = 2 };
	static float g[W][M], a1[M], a2[M], junk[M];
	gc_tensor_desc t[2] = { { 200001, 1, 1 }, { 100006, 1, 1 } };
	const float *gp[W] = { g[0], g[1] };
	float *ap[W];
	gc_bucket *b[W];
	gc_params p;
	gc_err err;
	int nt = omp_get_max_threads();

	gc_params_default(&p, GC_M_CGX);
	p.bits = 3;
	fill(g[0], M, 1);
	fill(g[1], M, 2);
	for (int r = 0; r < 2; r++) {
		omp_set_num_threads(r ? 1 : (nt < 4 ? 4 : nt));
		for (int w = 0; w < W; w++)
			CHECK_EQ_INT(gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, t, 2, W, w, &err), GC_OK);
		ap[0] = r ? a2 : a1;
		ap[1] = junk;
		CHECK_EQ_INT(gc_simulate_step(b, W, gp, ap, NULL, NULL, &err), GC_OK);
		for (int w = 0; w < W; w++)
			gc_bucket_free(b[w]);
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

	CHECK_EQ_INT(gc_params_parse_method("cgx:bits=1,bucket_size=64,seed=3", &p, &e), GC_OK);
	CHECK(p.bits == 1 && p.bucket_size == 64 && p.seed == 3);
	CHECK_EQ_INT(gc_params_check(&p, &e), GC_OK);
	CHECK(gc_params_parse_method("cgx:bits=0", &p, &e) != GC_OK);
	CHECK_CONTAINS(e.msg, "1..8");
	CHECK(gc_params_parse_method("cgx:bits=9", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("cgx:bucket_size=0", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("cgx:ef=1", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("qsgd:bits=4", &p, &e) != GC_OK);
	CHECK_EQ_INT(gc_params_parse_method("qsgd", &p, &e), GC_OK);
	CHECK_EQ_INT(p.bucket_size, 128);          /* qsgd keeps its own default */
}

int main(void)
{
	GCT_SUITE("kernels_cgx");
	GCT_RUN(test_bits);
	GCT_RUN(test_quantizer_unbiased);
	GCT_RUN(test_exchange_unbiased);
	GCT_RUN(test_rounds);
	GCT_RUN(test_threads);
	GCT_RUN(test_params);
	return gct_finish();
}

/* Unit tests of dgc (kernels/dgc.h, kernels/dgc.c): the average and every worker's
 * accumulated velocity, bit for bit, against the paper's definition written here over
 * six steps at 3 workers (clipping on some tensors, the warm-up schedule across all its
 * stages, momentum correction and factor masking); the payload each step sends; the
 * same bits at any thread count and through the histogram fallback; parameters. */
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

enum { N = 4099, P = 3, STEPS = 6 };

/* ---- the reference, from the paper (Lin et al. 2018, Algorithm 4 with Section 3.3's
 * clipping and Section 4's warm-up), not from kernels/dgc.h ---- */

/* Warm-up densities 75%, 93.75%, 98.4375%, 99.6% sparsity, each a quarter of W steps;
 * never below the target ratio. */
static size_t ref_k(double ratio, int W, int step, size_t n)
{
	static const double dens[4] = { 0.25, 0.0625, 0.015625, 0.00390625 };
	double d = ratio, k;

	if (step < W && dens[4 * step / W] > ratio)
		d = dens[4 * step / W];
	k = ceil(d * (double)n);
	return k < 1 ? 1 : k > (double)n ? n : (size_t)k;
}

/* The sum of squares per block of 1024 in double, blocks in order (compress.h). */
static double ref_norm(const float *g, size_t n)
{
	double tot = 0;

	for (size_t a = 0; a < n; a += 1024) {
		double s = 0;
		for (size_t i = a; i < n && i < a + 1024; i++)
			s += (double)g[i] * (double)g[i];
		tot += s;
	}
	return sqrt(tot);
}

static const float *g_sort;

/* |v| descending, then the lower index first. */
static int by_mag(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	float x = fabsf(g_sort[i]), y = fabsf(g_sort[j]);

	if (x != y)
		return x > y ? -1 : 1;
	return (i > j) - (i < j);
}

struct ref {
	float u[P][N], v[P][N], avg[N];
	uint8_t sel[P][N];
	float val[P][N];
};

static void ref_step(struct ref *r, float (*g)[N], const size_t *off, size_t nt, float m,
		     double clip, size_t k)
{
	static uint32_t idx[N];

	for (int w = 0; w < P; w++) {
		for (size_t t = 0; t < nt; t++) {
			double nrm = ref_norm(g[w] + off[t], off[t + 1] - off[t]);
			double thr = clip / sqrt((double)P);
			float f = clip > 0 && nrm > thr ? (float)(thr / nrm) : 1.0f;
			for (size_t i = off[t]; i < off[t + 1]; i++) {
				float gi = clip > 0 && nrm > thr ? g[w][i] * f : g[w][i];
				r->u[w][i] = m * r->u[w][i] + gi;
				r->v[w][i] = r->v[w][i] + r->u[w][i];
			}
		}
		for (uint32_t i = 0; i < N; i++)
			idx[i] = i;
		g_sort = r->v[w];
		qsort(idx, N, sizeof(idx[0]), by_mag);
		memset(r->sel[w], 0, N);
		for (size_t j = 0; j < k; j++) {
			r->sel[w][idx[j]] = 1;
			r->val[w][idx[j]] = r->v[w][idx[j]];
			r->v[w][idx[j]] = 0;
			r->u[w][idx[j]] = 0;
		}
	}
	for (size_t i = 0; i < N; i++) {
		float acc = 0.0f;
		for (int w = 0; w < P; w++)
			if (r->sel[w][i])
				acc += r->val[w][i];
		r->avg[i] = acc / (float)P;
	}
}

static gc_rc step(gc_bucket **b, float (*g)[N], float (*avg)[N])
{
	const float *gp[P];
	float *ap[P];
	gc_err e;

	for (int w = 0; w < P; w++)
		gp[w] = g[w], ap[w] = avg[w];
	return gc_simulate_step(b, P, gp, ap, NULL, NULL, &e);
}

static void check_bits(const char *params, double ratio, double m, double clip, int W)
{
	static float g[P][N], avg[P][N], res[N];
	static struct ref r;
	gc_tensor_desc t[3] = { { 1000, 3, 2 }, { 99, 1, 1 }, { 1000, 1, 1 } };
	size_t off[4] = { 0, 3000, 3099, N };
	gc_bucket *b[P];
	gc_params p;
	gc_err e;

	memset(&r, 0, sizeof(r));
	CHECK_EQ_INT(gc_params_parse_method(params, &p, &e), GC_OK);
	for (int w = 0; w < P; w++)
		CHECK_EQ_INT(gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, t, 3, P, w, &e), GC_OK);
	CHECK_EQ_INT(gc_bucket_payload_bytes(b[0]), 8 * ref_k(ratio, 0, 0, N));
	for (int s = 0; s < STEPS; s++) {
		for (int w = 0; w < P; w++) {
			fill(g[w], N, 500 + (uint64_t)(s * P + w));
			if (s == 2)     /* a tensor of zeros: ties at 0 go to the lower index */
				memset(g[w] + off[1], 0, 99 * sizeof(float));
		}
		ref_step(&r, g, off, 3, (float)m, clip, ref_k(ratio, W, s, N));
		CHECK_EQ_INT(step(b, g, avg), GC_OK);
		for (int w = 0; w < P; w++) {
			size_t bad = N;
			for (size_t i = 0; i < N && bad == N; i++)
				if (memcmp(&avg[w][i], &r.avg[i], 4))
					bad = i;
			CHECKF(bad == N, "%s step %d worker %d: avg[%zu] = %a, want %a", params, s,
			       w, bad, bad < N ? avg[w][bad] : 0, bad < N ? r.avg[bad] : 0);
			CHECK_EQ_INT(gc_bucket_residual(b[w], res), GC_OK);
			bad = N;
			for (size_t i = 0; i < N && bad == N; i++)
				if (memcmp(&res[i], &r.v[w][i], 4))
					bad = i;
			CHECKF(bad == N, "%s step %d worker %d: v[%zu] = %a, want %a", params, s, w,
			       bad, bad < N ? res[bad] : 0, bad < N ? r.v[w][bad] : 0);
		}
	}
	for (int w = 0; w < P; w++)
		gc_bucket_free(b[w]);
}

static void test_bits(void)
{
	check_bits("dgc", 0.01, 0.9, 0, 0);
	check_bits("dgc:ratio=0.01,clip=10,warmup_steps=4", 0.01, 0.9, 10, 4);
	check_bits("dgc:ratio=0.003,momentum=0.5,warmup_steps=5", 0.003, 0.5, 0, 5);
	check_bits("dgc:ratio=0.3,momentum=0,clip=3", 0.3, 0, 3, 0);   /* no candidate lists */
}

/* One worker alone: the round each step asks for follows the schedule (two steps
 * each of 25%, 6.25%, 1.5625%, then the ratio 1%, above the fourth stage's 0.39%),
 * and a decode gives back what was sent. */
static void test_schedule(void)
{
	static float g[N], avg[N];
	static uint8_t recv[8 * N];
	gc_tensor_desc t = { N, 1, 1 };
	const size_t want[7] = { 1025, 1025, 257, 257, 65, 65, 41 };
	gc_bucket *b;
	gc_params p;
	gc_round r;
	gc_err e;

	CHECK_EQ_INT(gc_params_parse_method("dgc:ratio=0.01,warmup_steps=8", &p, &e), GC_OK);
	CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, &t, 1, 1, 0, &e), GC_OK);
	for (int s = 0; s < 7; s++) {
		fill(g, N, 40 + (uint64_t)s);
		CHECK_EQ_INT(gc_encode(b, g), GC_OK);
		CHECK(gc_round_get(b, &r) == 1);
		CHECKF(r.coll == GC_COLL_ALLGATHER && r.count == 8 * want[s], "step %d: count "
		       "%zu, want %zu", s, r.count, 8 * want[s]);
		memcpy(r.recv, r.send, r.count);
		memcpy(recv, r.send, r.count);
		CHECK_EQ_INT(gc_round_done(b), GC_OK);
		CHECK_EQ_INT(gc_decode(b, avg), GC_OK);
		for (size_t j = 0; j < want[s]; j++) {
			uint32_t i;
			float v;
			memcpy(&i, recv + 4 * j, 4);
			memcpy(&v, recv + 4 * (want[s] + j), 4);
			CHECK(i < N && avg[i] == v);
		}
	}
	gc_bucket_free(b);
}

static void test_threads(void)
{
#ifdef _OPENMP
	enum { M = 300007 };
	static float g[M], a1[M], a2[M], r1[M], r2[M];
	gc_tensor_desc t[2] = { { 200001, 1, 1 }, { 100006, 1, 1 } };
	const float *gp[1] = { g };
	float *ap[1];
	gc_bucket *b;
	gc_params p;
	gc_err err;
	int nt = omp_get_max_threads();

	CHECK_EQ_INT(gc_params_parse_method("dgc:clip=50,warmup_steps=3", &p, &err), GC_OK);
	for (int r = 0; r < 2; r++) {
		omp_set_num_threads(r ? 1 : (nt < 4 ? 4 : nt));
		CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, t, 2, 1, 0, &err), GC_OK);
		ap[0] = r ? a2 : a1;
		for (int s = 0; s < 4; s++) {
			fill(g, M, 9 + (uint64_t)s);
			CHECK_EQ_INT(gc_simulate_step(&b, 1, gp, ap, NULL, NULL, &err), GC_OK);
		}
		CHECK_EQ_INT(gc_bucket_residual(b, r ? r2 : r1), GC_OK);
		gc_bucket_free(b);
	}
	omp_set_num_threads(nt);
	CHECK(!memcmp(a1, a2, sizeof a1));
	CHECK(!memcmp(r1, r2, sizeof r1));
#else
	SKIP("built without OpenMP");
#endif
}

static void test_params(void)
{
	gc_params p;
	gc_err e;

	CHECK_EQ_INT(gc_params_parse_method("dgc", &p, &e), GC_OK);
	CHECK(p.momentum == 0.9 && p.clip == 0 && p.warmup_steps == 0 && p.ratio == 0.01);
	CHECK_EQ_INT(gc_params_parse_method("dgc:momentum=0.99,clip=1.5,warmup_steps=100", &p, &e),
		     GC_OK);
	CHECK_EQ_INT(gc_params_check(&p, &e), GC_OK);
	CHECK(gc_params_parse_method("dgc:momentum=1", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("dgc:clip=-1", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("dgc:warmup_steps=-1", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("dgc:warmup_steps=1.5", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("dgc:ratio=0", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("dgc:ef=1", &p, &e) != GC_OK);
	CHECK_CONTAINS(e.msg, "dgc");
	CHECK(gc_params_parse_method("topk:clip=1", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("topk:warmup_steps=4", &p, &e) != GC_OK);
}

int main(void)
{
	GCT_SUITE("kernels_dgc");
	GCT_RUN(test_bits);
	GCT_RUN(test_schedule);
	GCT_RUN(test_threads);
	GCT_RUN(test_params);
	return gct_finish();
}

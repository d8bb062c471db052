/* Unit tests: top-k against a sort, MSTop-K against its counting definition and the true
 * top-k, PowerSGD's exactness on low-rank gradients, error feedback for every method
 * that has it, and identical averages on every worker. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels/compress.h"
#include "kernels/rng.h"

#define MAXW 8

static const float *key_base;

/* Order indices by |c| descending, then index ascending. */
static int by_mag(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	float x = fabsf(key_base[i]), y = fabsf(key_base[j]);
	if (x != y)
		return x > y ? -1 : 1;
	return i < j ? -1 : 1;
}

static int by_index(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	return (i > j) - (i < j);
}

/* The reference top-k: sort everything, keep k, sort indices. */
static uint32_t *ref_topk(const float *c, size_t n, size_t k)
{
	uint32_t *idx = malloc(n * sizeof(*idx));
	for (size_t i = 0; i < n; i++)
		idx[i] = (uint32_t)i;
	key_base = c;
	qsort(idx, n, sizeof(*idx), by_mag);
	qsort(idx, k, sizeof(*idx), by_index);
	return idx;
}

/* Encode one worker (world 1) and return its payload (k indices then k values). */
static const uint32_t *encode_payload(gc_bucket **b, const gc_params *p, const float *g,
				      size_t n, size_t *k)
{
	gc_tensor_desc t = { n, 1, 1 };
	gc_round r;
	gc_err e;

	if (gc_bucket_new(b, p, GC_BACKEND_CPU, NULL, &t, 1, 1, 0, &e) || gc_encode(*b, g) ||
	    !gc_round_get(*b, &r))
		return NULL;
	*k = r.count / 8;
	return r.send;
}

static void fill_normal(float *x, size_t n, uint64_t seed)
{
	uint64_t s = seed;
	gc_rng_normal(&s, x, n);
}

/* Heavy tails: Cauchy = normal / normal. */
static void fill_cauchy(float *x, size_t n, uint64_t seed)
{
	float *y = malloc(n * sizeof(float));
	fill_normal(x, n, seed);
	fill_normal(y, n, seed + 1000);
	for (size_t i = 0; i < n; i++)
		x[i] = x[i] / (fabsf(y[i]) + 1e-3f);
	free(y);
}

static void test_topk_matches_sort(void)
{
	enum { N = 20000 };
	static float g[N];
	double ratios[] = { 0.0001, 0.01, 0.1, 0.5, 1.0 };
	uint64_t s = 1;
	size_t r, i, k;

	for (i = 0; i < N; i++)           /* few distinct magnitudes: many ties, +-0 too */
		g[i] = (float)((int)(gc_splitmix64(&s) % 41) - 20) * 0.25f;
	for (r = 0; r < sizeof(ratios) / sizeof(ratios[0]); r++) {
		gc_params p;
		gc_bucket *b = NULL;
		const uint32_t *pl;
		uint32_t *ref;

		gc_params_default(&p, GC_M_TOPK);
		p.ratio = ratios[r];
		p.ef = 0;
		pl = encode_payload(&b, &p, g, N, &k);
		CHECK(pl != NULL);
		CHECK_EQ_INT(k, (size_t)ceil(ratios[r] * N));
		ref = ref_topk(g, N, k);
		for (i = 0; i < k; i++) {
			float v;
			memcpy(&v, (const char *)pl + 4 * k + 4 * i, 4);
			if (pl[i] != ref[i] || v != g[ref[i]])
				break;
		}
		free(ref);
		gc_bucket_free(b);
		CHECKF(i == k, "ratio %g: entry %zu differs from the sorted reference", ratios[r], i);
	}
}

static void test_topk_gaussian_and_decode(void)
{
	enum { N = 100003, P = 3 };
	static float in[P][N], avg[P][N];
	const float *g[P] = { in[0], in[1], in[2] };
	float *a[P] = { avg[0], avg[1], avg[2] };
	gc_bucket *b[P];
	gc_tensor_desc t = { N, 1, 1 };
	gc_params p;
	gc_err e;
	size_t i, k = (size_t)ceil(0.01 * N);
	int w;

	gc_params_default(&p, GC_M_TOPK);
	p.ef = 0;
	for (w = 0; w < P; w++) {
		fill_normal(in[w], N, 100 + (uint64_t)w);
		CHECK_EQ_INT(gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, &t, 1, P, w, &e), GC_OK);
	}
	CHECK_EQ_INT(gc_simulate_step(b, P, g, a, NULL, NULL, &e), GC_OK);
	{
		static float want[N];
		memset(want, 0, sizeof(want));
		for (w = 0; w < P; w++) {
			uint32_t *ref = ref_topk(in[w], N, k);
			for (i = 0; i < k; i++)
				want[ref[i]] += in[w][ref[i]];
			free(ref);
		}
		for (i = 0; i < N; i++)
			CHECKF(avg[2][i] == want[i] / P, "element %zu: %g vs %g", i, avg[2][i],
			       want[i] / P);
	}
	for (w = 0; w < P; w++)
		gc_bucket_free(b[w]);
}

/* MSTop-K by its definition in compress.h, with one counting pass per question. */
static size_t count_ge(const float *c, size_t n, float x)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		m += fabsf(c[i]) >= x;
	return m;
}

static void ref_mstopk(const float *c, size_t n, size_t k, int rounds, uint32_t *out)
{
	double sum = 0;
	float lo, hi = 0, mid;
	size_t i, o = 0, na, fill;

	for (i = 0; i < n; i++) {
		sum += fabsf(c[i]);
		hi = fabsf(c[i]) > hi ? fabsf(c[i]) : hi;
	}
	lo = (float)(sum / (double)n);
	if (count_ge(c, n, lo) < k)
		lo = 0;
	for (int r = 0; r < rounds; r++) {
		mid = (lo + hi) * 0.5f;
		if (count_ge(c, n, mid) >= k)
			lo = mid;
		else
			hi = mid;
	}
	na = count_ge(c, n, hi);
	fill = na >= k ? 0 : k - na;
	for (i = 0; i < n && o < k; i++) {
		float m = fabsf(c[i]);
		if (m >= hi) {
			out[o++] = (uint32_t)i;
		} else if (m >= lo && fill > 0) {
			out[o++] = (uint32_t)i;
			fill--;
		}
	}
}

/* Checks the selection against the reference and the true top-k (recall). */
static void check_mstopk(const float *g, size_t n, int rounds, double min_recall)
{
	gc_params p;
	gc_bucket *b = NULL;
	const uint32_t *pl;
	uint32_t *ref, *top;
	size_t k, i, j, hit = 0;

	gc_params_default(&p, GC_M_MSTOPK);
	p.ef = 0;
	p.rounds = rounds;
	pl = encode_payload(&b, &p, g, n, &k);
	CHECK(pl != NULL);
	CHECK_EQ_INT(k, (size_t)ceil(0.01 * (double)n));
	ref = malloc(k * sizeof(*ref));
	ref_mstopk(g, n, k, rounds, ref);
	top = ref_topk(g, n, k);
	for (i = 0; i < k; i++) {
		CHECKF(pl[i] == ref[i], "rounds %d: entry %zu is %u, the definition gives %u",
		       rounds, i, pl[i], ref[i]);
		CHECK(i == 0 || pl[i] > pl[i - 1]);
	}
	for (i = j = 0; i < k && j < k;) {     /* both sorted by index */
		if (pl[i] == top[j]) {
			hit++;
			i++;
			j++;
		} else if (pl[i] < top[j]) {
			i++;
		} else {
			j++;
		}
	}
	free(ref);
	free(top);
	gc_bucket_free(b);
	CHECKF((double)hit / (double)k >= min_recall, "rounds %d: recall %.3f < %.2f", rounds,
	       (double)hit / (double)k, min_recall);
}

static void test_mstopk_gaussian(void)
{
	enum { N = 200000 };
	static float g[N];

	fill_normal(g, N, 9);
	check_mstopk(g, N, 20, 0.9);
	if (gct_state)
		return;
	check_mstopk(g, N, 3, 0.0);             /* few rounds: exact k, definition holds */
}

static void test_mstopk_heavy_tailed(void)
{
	enum { N = 200000 };
	static float g[N];

	fill_cauchy(g, N, 21);
	check_mstopk(g, N, 20, 0.9);
	if (gct_state)
		return;
	check_mstopk(g, N, 64, 0.99);
}

static void test_mstopk_ties(void)
{
	enum { N = 5000 };
	static float g[N];
	uint64_t s = 4;

	for (size_t i = 0; i < N; i++)          /* max |c| shared by many: first k by index */
		g[i] = (gc_splitmix64(&s) % 5 == 0) ? 7.0f : (float)(i % 3) * 0.1f;
	check_mstopk(g, N, 20, 1.0);
	if (gct_state)
		return;
	for (size_t i = 0; i < N; i++)
		g[i] = 1.0f;
	check_mstopk(g, N, 20, 1.0);
}

/* A random rows x cols matrix of rank rk (sum of rk outer products). */
static void low_rank(float *m, size_t rows, size_t cols, int rk, uint64_t seed)
{
	float *u = malloc(rows * sizeof(float)), *v = malloc(cols * sizeof(float));
	memset(m, 0, rows * cols * sizeof(float));
	for (int r = 0; r < rk; r++) {
		fill_normal(u, rows, seed + 2 * (uint64_t)r);
		fill_normal(v, cols, seed + 2 * (uint64_t)r + 1);
		for (size_t i = 0; i < rows; i++)
			for (size_t j = 0; j < cols; j++)
				m[i * cols + j] += u[i] * v[j];
	}
	free(u);
	free(v);
}

static double rel_err(const float *a, const float *b, size_t n)
{
	double num = 0, den = 0;
	for (size_t i = 0; i < n; i++) {
		num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
		den += (double)b[i] * b[i];
	}
	return sqrt(num / (den > 0 ? den : 1));
}

/* One PowerSGD step for world 1 on the bucket; returns the relative error. */
static double psgd_once(const gc_tensor_desc *t, size_t nt, const float *g, size_t n, int rank)
{
	float *avg = malloc(n * sizeof(float));
	gc_params p;
	gc_bucket *b;
	gc_err e;
	double err = -1;

	gc_params_default(&p, GC_M_POWERSGD);
	p.rank = rank;
	if (!gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, t, nt, 1, 0, &e)) {
		if (!gc_simulate_step(&b, 1, &g, &avg, NULL, NULL, &e))
			err = rel_err(avg, g, n);
		gc_bucket_free(b);
	}
	free(avg);
	return err;
}

static void test_powersgd_exact_low_rank(void)
{
	gc_tensor_desc t[3] = { { 64, 48, 4 }, { 30, 1, 1 }, { 80, 120, 2 } };
	size_t n = 64 * 48 + 30 + 80 * 120;
	float *g = malloc(n * sizeof(float));

	low_rank(g, 64, 48, 4, 1);
	fill_normal(g + 64 * 48, 30, 2);        /* 1-D: sent uncompressed, exact */
	low_rank(g + 64 * 48 + 30, 80, 120, 2, 3);      /* rank 2 < r = 4 */
	double err = psgd_once(t, 3, g, n, 4);
	free(g);
	CHECKF(err >= 0 && err < 1e-4, "relative error %g", err);
}

static void test_powersgd_error_falls_with_rank(void)
{
	gc_tensor_desc t = { 96, 64, 2 };
	size_t n = 96 * 64;
	float *g = malloc(n * sizeof(float));
	double prev = 2, err;
	int rank;

	low_rank(g, 96, 64, 16, 5);
	for (rank = 1; rank <= 16; rank *= 2) {
		err = psgd_once(&t, 1, g, n, rank);
		if (!(err >= 0 && err < prev))
			break;
		prev = err;
	}
	free(g);
	CHECKF(rank > 16, "rank %d: error %g did not fall below %g", rank, err, prev);
	CHECKF(prev < 1e-4, "rank 16 on a rank-16 matrix: error %g", prev);
}

/* Q is the same on every worker, and warm_start=0 redraws it from the step. */
static void test_powersgd_deterministic(void)
{
	gc_tensor_desc t = { 40, 30, 2 };
	float g[1200], a1[1200], a2[1200];
	const float *gp[1] = { g };
	float *ap[1];
	gc_params p;
	gc_bucket *b1, *b2;
	gc_err e;

	fill_normal(g, 1200, 77);
	gc_params_default(&p, GC_M_POWERSGD);
	p.warm_start = 0;
	p.ef = 0;
	CHECK_EQ_INT(gc_bucket_new(&b1, &p, GC_BACKEND_CPU, NULL, &t, 1, 1, 0, &e), GC_OK);
	CHECK_EQ_INT(gc_bucket_new(&b2, &p, GC_BACKEND_CPU, NULL, &t, 1, 1, 0, &e), GC_OK);
	ap[0] = a1;
	CHECK_EQ_INT(gc_simulate_step(&b1, 1, gp, ap, NULL, NULL, &e), GC_OK);
	ap[0] = a2;
	CHECK_EQ_INT(gc_simulate_step(&b2, 1, gp, ap, NULL, NULL, &e), GC_OK);
	CHECK(!memcmp(a1, a2, sizeof(a1)));     /* same seed, same step: same result */
	CHECK_EQ_INT(gc_simulate_step(&b2, 1, gp, ap, NULL, NULL, &e), GC_OK);
	CHECK(memcmp(a1, a2, sizeof(a1)) != 0); /* step 1 draws another Q */
	gc_bucket_free(b1);
	gc_bucket_free(b2);
}

struct efcase { gc_method m; const char *extra; };

/* World 1: decoded own contribution + residual == c = g + e, over two steps. */
static void test_ef_conserves_signal(void)
{
	static const struct efcase c[] = {
		{ GC_M_SIGNSGD, "scaled" }, { GC_M_TOPK, NULL }, { GC_M_MSTOPK, NULL },
		{ GC_M_POWERSGD, NULL },
	};
	gc_tensor_desc t[3] = { { 50, 40, 2 }, { 40, 1, 1 }, { 20, 60, 4 } };
	enum { N = 50 * 40 + 40 + 20 * 60 };
	static float g[N], avg[N], res[N], prev[N];
	const float *gp[1] = { g };
	float *ap[1] = { avg };
	gc_err e;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		gc_params p;
		gc_bucket *b;
		gc_params_default(&p, c[i].m);
		p.ef = 1;
		p.scaled = c[i].extra != NULL;
		p.ratio = 0.05;
		CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, t, 3, 1, 0, &e), GC_OK);
		memset(prev, 0, sizeof(prev));
		for (int s = 0; s < 2; s++) {
			fill_normal(g, N, 40 + (uint64_t)s);
			CHECK_EQ_INT(gc_simulate_step(&b, 1, gp, ap, NULL, NULL, &e), GC_OK);
			CHECK_EQ_INT(gc_bucket_residual(b, res), GC_OK);
			for (size_t j = 0; j < N; j++)
				CHECKF(fabsf(avg[j] + res[j] - (g[j] + prev[j])) <= 1e-5f *
				       (1 + fabsf(g[j] + prev[j])), "%s step %d element %zu: %g + %g "
				       "!= %g", gc_method_name(c[i].m), s, j, avg[j], res[j],
				       g[j] + prev[j]);
			memcpy(prev, res, sizeof(prev));
		}
		gc_bucket_free(b);
	}
}

/* Every method, 3 workers, 2 steps: all workers end with the same bits. */
static void test_all_workers_identical(void)
{
	gc_tensor_desc t[2] = { { 30, 20, 2 }, { 77, 1, 1 } };
	enum { N = 600 + 77, P = 3 };
	static float in[P][N], avg[P][N];
	const float *g[P] = { in[0], in[1], in[2] };
	float *a[P] = { avg[0], avg[1], avg[2] };
	gc_bucket *b[P];
	gc_err e;
	int m, w, s;

	for (m = 0; m < GC_M__COUNT; m++) {
		gc_params p;
		gc_params_default(&p, (gc_method)m);
		for (w = 0; w < P; w++)
			CHECK_EQ_INT(gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, t, 2, P, w, &e),
				     GC_OK);
		for (s = 0; s < 2; s++) {
			for (w = 0; w < P; w++)
				fill_normal(in[w], N, 1000 * (uint64_t)s + (uint64_t)w);
			CHECK_EQ_INT(gc_simulate_step(b, P, g, a, NULL, NULL, &e), GC_OK);
			for (w = 1; w < P; w++)
				CHECKF(!memcmp(avg[w], avg[0], sizeof(avg[0])), "%s step %d: worker "
				       "%d differs from worker 0", gc_method_name((gc_method)m), s, w);
		}
		for (w = 0; w < P; w++)
			gc_bucket_free(b[w]);
	}
}

/* syncsgd is exact; fp16 is within half precision of the exact average. */
static void test_dense_accuracy(void)
{
	enum { N = 4099, P = 4 };
	static float in[P][N], avg[P][N];
	const float *g[P] = { in[0], in[1], in[2], in[3] };
	float *a[P] = { avg[0], avg[1], avg[2], avg[3] };
	gc_tensor_desc t = { N, 1, 1 };
	gc_bucket *b[P];
	gc_err e;
	int m, w;

	for (w = 0; w < P; w++)
		fill_normal(in[w], N, 500 + (uint64_t)w);
	for (m = GC_M_SYNCSGD; m <= GC_M_FP16; m++) {
		gc_params p;
		gc_params_default(&p, (gc_method)m);
		for (w = 0; w < P; w++)
			CHECK_EQ_INT(gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, &t, 1, P, w, &e),
				     GC_OK);
		CHECK_EQ_INT(gc_simulate_step(b, P, g, a, NULL, NULL, &e), GC_OK);
		for (int i = 0; i < N; i++) {
			float sum = in[0][i];
			for (w = 1; w < P; w++)
				sum += in[w][i];
			float sumabs = 0;
			uint16_t h = gc_f32_to_f16(in[0][i] / P);
			for (w = 0; w < P; w++)
				sumabs += fabsf(in[w][i]) / P;
			for (w = 1; w < P; w++)         /* the half sum, addition by addition */
				h = gc_f32_to_f16(gc_f16_to_f32(h) +
						  gc_f16_to_f32(gc_f32_to_f16(in[w][i] / P)));
			if (m == GC_M_SYNCSGD) {
				CHECK(avg[0][i] == sum / P);
			} else {
				CHECK(avg[0][i] == gc_f16_to_f32(h));
				CHECK_NEAR(avg[0][i], sum / P, 2e-3 * sumabs + 1e-7);
			}
		}
		for (w = 0; w < P; w++)
			gc_bucket_free(b[w]);
	}
}

int main(void)
{
	GCT_SUITE("kernels_methods");
	GCT_RUN(test_topk_matches_sort);
	GCT_RUN(test_topk_gaussian_and_decode);
	GCT_RUN(test_mstopk_gaussian);
	GCT_RUN(test_mstopk_heavy_tailed);
	GCT_RUN(test_mstopk_ties);
	GCT_RUN(test_powersgd_exact_low_rank);
	GCT_RUN(test_powersgd_error_falls_with_rank);
	GCT_RUN(test_powersgd_deterministic);
	GCT_RUN(test_ef_conserves_signal);
	GCT_RUN(test_all_workers_identical);
	GCT_RUN(test_dense_accuracy);
	return gct_finish();
}

/* Unit tests: the dispatched CPU kernels (kernels/isa.h). Each ISA level this CPU has
 * must give the same bits as the baseline level for every method (outputs and
 * residuals, several steps, layouts with odd tails, sizes on both sides of the
 * parallel and candidate-list thresholds); the candidate lists of the top-k pass against
 * a plain listing at each level; and the build-info helpers. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels/compress.h"
#include "kernels/isa.h"
#include "kernels/rng.h"
#include "kernels/select.h"

#define WORLD 3
#define STEPS 3

struct lay {
	const char *name;
	gc_tensor_desc t[20];
	size_t nt;
};

static const struct lay lays[] = {
	{ "small odd", { { 7, 13, 2 }, { 5, 1, 1 }, { 1, 1, 1 } }, 3 },
	{ "medium", { { 64, 257, 2 }, { 4099, 1, 1 }, { 33, 65, 2 } }, 3 },
	{ "large", { { 512, 300, 2 }, { 70001, 1, 1 }, { 130, 129, 4 }, { 3, 1, 1 } }, 4 },
	/* more tensors than efsign_ar's sixteen lanes: lanes finish and take new ones */
	{ "many", { { 300, 97, 2 }, { 5, 1, 1 }, { 64, 33, 2 }, { 1, 1, 1 }, { 2000, 1, 1 },
		    { 7, 9, 2 }, { 129, 1, 1 }, { 40, 41, 2 }, { 3, 1, 1 }, { 17, 23, 2 },
		    { 8, 1, 1 }, { 90, 11, 2 }, { 256, 1, 1 }, { 33, 65, 2 }, { 2, 2, 2 },
		    { 701, 1, 1 }, { 12, 12, 2 }, { 15, 1, 1 }, { 100, 100, 2 }, { 9, 1, 1 } },
	  20 },
};

struct mc {
	gc_method m;
	const char *params;
};

static const struct mc mcs[] = {
	{ GC_M_SYNCSGD, "" },
	{ GC_M_FP16, "" },
	{ GC_M_BF16, "" },
	{ GC_M_RANDOMK, "ratio=0.02" },
	{ GC_M_TERNGRAD, "" },
	{ GC_M_QSGD, "" },
	{ GC_M_EFSIGN_AR, "" },
	{ GC_M_EFSIGN_AR, "ef=0" },
	{ GC_M_DGC, "" },
	{ GC_M_DGC, "clip=0.01,warmup_steps=2" },
	{ GC_M_CGX, "" },
	{ GC_M_CGX, "bits=7,bucket_size=33" },
	{ GC_M_QSGD, "levels=5,bucket_size=64" },
	{ GC_M_SIGNSGD, "" },
	{ GC_M_SIGNSGD, "scaled=1" },
	{ GC_M_SIGNSGD, "scaled=1,ef=1" },
	{ GC_M_TOPK, "ratio=0.01" },
	{ GC_M_TOPK, "ratio=0.3,ef=1" },       /* k > n / 8: no candidate lists */
	{ GC_M_MSTOPK, "ratio=0.01,rounds=20" },
	{ GC_M_MSTOPK, "ratio=0.05,rounds=3,ef=1" },
	{ GC_M_POWERSGD, "rank=4" },
	{ GC_M_POWERSGD, "rank=3,ef=1,warm_start=0" },
};
#define NMC (sizeof(mcs) / sizeof(mcs[0]))

static size_t lay_numel(const struct lay *l)
{
	size_t n = 0;
	for (size_t t = 0; t < l->nt; t++)
		n += l->t[t].rows * l->t[t].cols;
	return n;
}

/* STEPS steps at the current level; out[w]: each step's average then the residual,
 * (STEPS + 1) n floats per worker. */
static gc_rc run(const struct mc *c, const struct lay *l, float *const *g, float **out)
{
	gc_bucket *b[WORLD] = { 0 };
	size_t n = lay_numel(l);
	gc_params p;
	gc_err e = { "" };
	gc_rc rc;
	int w;

	gc_params_default(&p, c->m);
	rc = gc_params_set_list(&p, c->params, &e);
	for (w = 0; w < WORLD && !rc; w++)
		rc = gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, l->t, l->nt, WORLD, w, &e);
	for (int s = 0; s < STEPS && !rc; s++) {
		const float *gs[WORLD];
		float *avg[WORLD];
		for (w = 0; w < WORLD; w++) {
			gs[w] = g[s * WORLD + w];
			avg[w] = out[w] + (size_t)s * n;
		}
		rc = gc_simulate_step(b, WORLD, gs, avg, NULL, NULL, &e);
	}
	for (w = 0; w < WORLD && !rc; w++)
		rc = gc_bucket_residual(b[w], out[w] + (size_t)STEPS * n);
	for (w = 0; w < WORLD; w++)
		gc_bucket_free(b[w]);
	if (rc)
		printf("# %s %s: %s\n", gc_method_name(c->m), c->params, e.msg);
	return rc;
}

/* Gradients with the sign rule's and the tie rule's hard cases: signed zeros, runs of
 * equal magnitudes (ties by index), subnormals and values beyond half's range. */
static void fill(float *g, size_t n, uint64_t *st)
{
	gc_rng_normal(st, g, n);
	for (size_t i = 0; i < n; i += 97) {
		switch ((i / 97) % 6) {
		case 0: g[i] = 0.0f; break;
		case 1: g[i] = -0.0f; break;
		case 2: g[i] = (i & 1) ? 3.0f : -3.0f; break;
		case 3: g[i] = 1e-41f; break;
		case 4: g[i] = -70000.0f; break;
		default: break;
		}
	}
	for (size_t i = n / 3; i < n / 3 + 40 && i < n; i++)
		g[i] = (i & 1) ? 2.5f : -2.5f;
}

static void test_levels_identical(void)
{
	gc_isa top = gc_isa_cpu();
	uint64_t st = 7;
	int checked = 0;

	printf("# this CPU's best kernel level: %s\n", gc_isa_name(top));
	for (size_t li = 0; li < sizeof(lays) / sizeof(lays[0]); li++) {
		const struct lay *l = &lays[li];
		size_t n = lay_numel(l), tot = (size_t)(STEPS + 1) * n;
		float *g[STEPS * WORLD], *ref[WORLD], *got[WORLD];
		int w, s;

		for (s = 0; s < STEPS * WORLD; s++) {
			g[s] = malloc(n * sizeof(float));
			fill(g[s], n, &st);
		}
		for (w = 0; w < WORLD; w++) {
			ref[w] = malloc(tot * sizeof(float));
			got[w] = malloc(tot * sizeof(float));
		}
		for (size_t c = 0; c < NMC; c++) {
			gc_isa_cap(GC_ISA_DEFAULT);
			CHECK_EQ_INT(gc_isa_active(), GC_ISA_DEFAULT);
			CHECK_EQ_INT(run(&mcs[c], l, g, ref), GC_OK);
			for (int lv = GC_ISA_AVX2; lv <= (int)top; lv++) {
				gc_isa_cap((gc_isa)lv);
				CHECK_EQ_INT(gc_isa_active(), lv);
				CHECK_EQ_INT(run(&mcs[c], l, g, got), GC_OK);
				for (w = 0; w < WORLD; w++)
					for (size_t i = 0; i < tot; i++)
						CHECKF(!memcmp(&ref[w][i], &got[w][i], sizeof(float)),
						       "%s %s, layout %s, level %s: worker %d, float %zu "
						       "(step %zu): %a vs baseline %a",
						       gc_method_name(mcs[c].m), mcs[c].params, l->name,
						       gc_isa_name((gc_isa)lv), w, i % n, i / n,
						       (double)got[w][i], (double)ref[w][i]);
				checked++;
			}
		}
		gc_isa_cap(GC_ISA_AVX512);
		for (s = 0; s < STEPS * WORLD; s++)
			free(g[s]);
		for (w = 0; w < WORLD; w++) {
			free(ref[w]);
			free(got[w]);
		}
	}
	if (!checked)
		SKIP("this CPU has only the baseline level: no variant to compare");
}

/* One gc_sel_pass at the current level over c = e + g (e given) or g: its lists must
 * hold exactly the elements whose key reaches the pass's tlo, in index order, with
 * their bits; ret/sum/maxkey/tlo are returned for the comparison across levels. */
static int sel_lists_ok(size_t n, size_t k, const float *g, const float *e0, int *ret,
			double *sum, uint32_t *maxkey, uint32_t *tlo)
{
	struct gc_cand cd;
	uint32_t *hist = gc_cpu_alloc(GC_SEL_BINS * sizeof(uint32_t));
	uint32_t *fine = gc_cpu_alloc(GC_SEL_FINE * sizeof(uint32_t));
	float *e = e0 ? gc_cpu_alloc(n * sizeof(float)) : NULL;
	int ok = hist && fine && (!e0 || e);
	size_t pos = 0;
	int p = 0;

	memset(&cd, 0, sizeof(cd));
	ok = ok && gc_cand_init(&cd, n, k) == GC_OK;
	if (ok && e)
		memcpy(e, e0, n * sizeof(float));
	if (ok)
		*ret = gc_sel_pass(&cd, e, g, n, k, hist, fine, sum, maxkey);
	*tlo = cd.tlo;
	for (size_t i = 0; ok && *ret && i < n; i++) {
		float c = e0 ? e0[i] + g[i] : g[i];
		uint32_t u;
		memcpy(&u, &c, sizeof(u));
		if (e && memcmp(&e[i], &c, sizeof(c)))
			ok = 0;
		if ((u & 0x7fffffffu) < cd.tlo)
			continue;
		while (p < cd.parts && pos == cd.n[p]) {
			p++;
			pos = 0;
		}
		if (p == cd.parts || cd.idx[p][pos] != i || cd.bits[p][pos] != u) {
			printf("# n %zu k %zu: element %zu (key >= tlo %#x) is not next in the lists\n",
			       n, k, i, cd.tlo);
			ok = 0;
		}
		pos++;
	}
	while (ok && *ret && p < cd.parts && pos == cd.n[p]) {
		p++;
		pos = 0;
	}
	if (ok && *ret && p != cd.parts) {
		printf("# n %zu k %zu: the lists hold more than the keys >= tlo\n", n, k);
		ok = 0;
	}
	gc_cand_release(&cd);
	free(hist);
	free(fine);
	free(e);
	return ok;
}

static void test_sel_lists(void)
{
	static const struct { size_t n, k; int shape; } cs[] = {
		{ 1000, 10, 0 },                /* n <= the sample: tlo is the k-th key */
		{ 70001, 700, 0 },              /* parallel parts, a tail of 1 */
		{ 300007, 3000, 1 },            /* with error feedback */
		{ 200000, 25000, 0 },           /* k = n / 8: a hit in nearly every group */
		{ 300000, 3000, 2 },            /* equal magnitudes: more than a list holds */
	};
	gc_isa top = gc_isa_cpu();
	uint64_t st = 11;
	int listed = 0;

	for (size_t c = 0; c < sizeof(cs) / sizeof(cs[0]); c++) {
		size_t n = cs[c].n, k = cs[c].k;
		float *g = malloc(n * sizeof(float)), *e0 = NULL;
		int ret0 = 0, ret;
		double sum0 = 0, sum;
		uint32_t mk0 = 0, mk, tlo0 = 0, tlo;

		CHECK(g);
		fill(g, n, &st);
		if (cs[c].shape == 1) {
			e0 = malloc(n * sizeof(float));
			CHECK(e0);
			gc_rng_normal(&st, e0, n);
		} else if (cs[c].shape == 2) {
			for (size_t i = 0; i < n; i++)
				g[i] = (i % 3) ? 1.0f : -1.0f;
			g[n / 2] = 2.0f;
		}
		for (int lv = GC_ISA_DEFAULT; lv <= (int)top; lv++) {
			gc_isa_cap((gc_isa)lv);
			CHECKF(sel_lists_ok(n, k, g, e0, lv ? &ret : &ret0, lv ? &sum : &sum0,
					    lv ? &mk : &mk0, lv ? &tlo : &tlo0),
			       "n %zu k %zu level %s: the lists differ from a plain listing", n, k,
			       gc_isa_name((gc_isa)lv));
			if (!lv) {
				listed += ret0;
				continue;
			}
			CHECKF(ret == ret0 && !memcmp(&sum, &sum0, sizeof(sum)) && mk == mk0 &&
			       tlo == tlo0, "n %zu k %zu level %s: pass gives %d %a %#x %#x, baseline "
			       "%d %a %#x %#x", n, k, gc_isa_name((gc_isa)lv), ret, sum, mk, tlo,
			       ret0, sum0, mk0, tlo0);
		}
		CHECKF(cs[c].shape != 2 || !ret0, "n %zu: equal magnitudes fit the lists", n);
		gc_isa_cap(GC_ISA_AVX512);
		free(g);
		free(e0);
	}
	CHECKF(listed == 4, "%d of 4 cases were selected from the lists", listed);
}

/* The half sum over every pair class (inf, NaN, subnormal, overflow) at each level. */
/* 1 when both halves are NaNs. A build whose baseline already has F16C (ARCH=native on
 * such a CPU) converts in hardware, which quiets a signaling NaN and may keep the other
 * operand's payload: only there may two levels' NaNs differ in their bits. */
static int both_nan_native(uint16_t a, uint16_t b)
{
#ifdef __F16C__
	return (a & 0x7c00) == 0x7c00 && (a & 0x03ff) && (b & 0x7c00) == 0x7c00 && (b & 0x03ff);
#else
	(void)a, (void)b;
	return 0;
#endif
}

static void test_f16_sum_levels(void)
{
	enum { N = 1 << 16 };
	static uint16_t a[N], x[N], ref[N], got[N];
	gc_isa top = gc_isa_cpu();

	for (uint32_t i = 0; i < N; i++) {
		a[i] = (uint16_t)i;
		x[i] = (uint16_t)(i * 40503u + 17);
	}
	memcpy(ref, a, sizeof(a));
	gc_isa_cap(GC_ISA_DEFAULT);
	gc_f16_sum(ref, x, N);
	for (int lv = GC_ISA_AVX2; lv <= (int)top; lv++) {
		memcpy(got, a, sizeof(a));
		gc_isa_cap((gc_isa)lv);
		gc_f16_sum(got, x, N - 3);      /* a tail too */
		gc_f16_sum(got + N - 3, x + N - 3, 3);
		for (uint32_t i = 0; i < N; i++)
			CHECKF(got[i] == ref[i] || both_nan_native(got[i], ref[i]),
			       "level %s: %04x + %04x = %04x, baseline %04x",
			       gc_isa_name((gc_isa)lv), a[i], x[i], got[i], ref[i]);
	}
	gc_isa_cap(GC_ISA_AVX512);
	if (top == GC_ISA_DEFAULT)
		SKIP("this CPU has only the baseline level");
}

/* The bf16 sum at every level against the scalar one, NaN payloads included (the
 * rounding is integer arithmetic at every level, so no NaN exception is needed). */
static void test_bf16_sum_levels(void)
{
	enum { N = 1 << 16 };
	static uint16_t a[N], x[N], ref[N], got[N];
	gc_isa top = gc_isa_cpu();

	for (uint32_t i = 0; i < N; i++) {
		a[i] = (uint16_t)i;
		x[i] = (uint16_t)(i * 40503u + 17);
	}
	memcpy(ref, a, sizeof(a));
	gc_isa_cap(GC_ISA_DEFAULT);
	gc_bf16_sum(ref, x, N);
	for (int lv = GC_ISA_AVX2; lv <= (int)top; lv++) {
		memcpy(got, a, sizeof(a));
		gc_isa_cap((gc_isa)lv);
		gc_bf16_sum(got, x, N - 5);     /* a tail too */
		gc_bf16_sum(got + N - 5, x + N - 5, 5);
		for (uint32_t i = 0; i < N; i++)
			CHECKF(got[i] == ref[i], "level %s: %04x + %04x = %04x, baseline %04x",
			       gc_isa_name((gc_isa)lv), a[i], x[i], got[i], ref[i]);
	}
	gc_isa_cap(GC_ISA_AVX512);
	if (top == GC_ISA_DEFAULT)
		SKIP("this CPU has only the baseline level");
}

static void test_isa_names(void)
{
	CHECK_EQ_INT(gc_isa_parse("default"), GC_ISA_DEFAULT);
	CHECK_EQ_INT(gc_isa_parse("avx2"), GC_ISA_AVX2);
	CHECK_EQ_INT(gc_isa_parse("avx512"), GC_ISA_AVX512);
	CHECK_EQ_INT(gc_isa_parse("AVX2"), -1);
	CHECK_EQ_INT(gc_isa_parse(""), -1);
	CHECK_EQ_INT(gc_isa_parse(NULL), -1);
	CHECK_STR(gc_isa_name(GC_ISA_AVX2), "avx2");
	gc_isa_cap(GC_ISA_DEFAULT);
	CHECK_EQ_INT(gc_isa_active(), GC_ISA_DEFAULT);
	gc_isa_cap(GC_ISA_AVX512);
	CHECK_EQ_INT(gc_isa_active(), gc_isa_cpu());
}

static void test_build_info(void)
{
	char miss[256];

	CHECK(gc_build_arch()[0]);
	/* the portable default needs SSE4.2 and POPCNT and nothing of AVX */
	if (!gc_build_is_native()) {
		CHECK(gc_isa_missing("sse4_2 popcnt", gc_build_cpu_flags(), miss, sizeof(miss)) == 0);
		CHECK(!strstr(gc_build_cpu_flags(), "avx"));
	}
}

static void test_missing_flags(void)
{
	char m[64];
	const char *nehalem = "fpu vme sse sse2 pni ssse3 cx16 sse4_1 sse4_2 popcnt lahf_lm";

	CHECK_EQ_INT(gc_isa_missing("sse4_2 popcnt", nehalem, m, sizeof(m)), 0);
	CHECK_STR(m, "");
	CHECK_EQ_INT(gc_isa_missing("sse4_2 avx2 avx512f", nehalem, m, sizeof(m)), 2);
	CHECK_STR(m, "avx2 avx512f");
	/* a prefix of a flag is not the flag; extra spaces and tabs; a newline ends the list */
	CHECK_EQ_INT(gc_isa_missing("sse4", nehalem, m, sizeof(m)), 1);
	CHECK_EQ_INT(gc_isa_missing("  popcnt\t ssse3  ", "ssse3\tpopcnt", m, sizeof(m)), 0);
	CHECK_EQ_INT(gc_isa_missing("avx", "sse avx2\navx", m, sizeof(m)), 1);
	/* empty or missing inputs */
	CHECK_EQ_INT(gc_isa_missing("", nehalem, m, sizeof(m)), 0);
	CHECK_EQ_INT(gc_isa_missing(NULL, nehalem, m, sizeof(m)), 0);
	CHECK_EQ_INT(gc_isa_missing("avx", NULL, m, sizeof(m)), 1);
	CHECK_EQ_INT(gc_isa_missing("avx", "", m, sizeof(m)), 1);
	/* a small buffer: counted, truncated, terminated */
	CHECK_EQ_INT(gc_isa_missing("avx512f avx512bw avx512vl", "", m, 8), 3);
	CHECK(strlen(m) < 8);
}

int main(void)
{
	GCT_SUITE("kernels_isa");
	GCT_RUN(test_isa_names);
	GCT_RUN(test_build_info);
	GCT_RUN(test_missing_flags);
	GCT_RUN(test_f16_sum_levels);
	GCT_RUN(test_bf16_sum_levels);
	GCT_RUN(test_levels_identical);
	GCT_RUN(test_sel_lists);
	return gct_finish();
}

/* worker/wk_selftest.c: gcbench-worker --self-test and --build-info (wk_selftest.h). */
#include "wk_selftest.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/compress.h"
#include "kernels/isa.h"
#include "kernels/rng.h"

#define WORLD 2
#define STEPS 2

/* A small bucket: a matrix (PowerSGD compresses it), a vector with an odd length (tails
 * of every 8- and 16-lane loop), a second matrix and a scalar. */
static const gc_tensor_desc layout[] = {
	{ 96, 320, 2 }, { 20001, 1, 1 }, { 128, 150, 2 }, { 1, 1, 1 },
};
#define NT (sizeof(layout) / sizeof(layout[0]))

struct tcase {
	const char *label;
	gc_method m;
	const char *params;
};

static const struct tcase cases[] = {
	{ "syncsgd", GC_M_SYNCSGD, "" },
	{ "fp16", GC_M_FP16, "" },
	{ "bf16", GC_M_BF16, "" },
	{ "randomk", GC_M_RANDOMK, "ratio=0.01,ef=1" },
	{ "terngrad", GC_M_TERNGRAD, "" },
	{ "qsgd", GC_M_QSGD, "" },
	{ "efsign_ar", GC_M_EFSIGN_AR, "" },
	{ "signsgd", GC_M_SIGNSGD, "" },
	{ "signsgd scaled+ef", GC_M_SIGNSGD, "scaled=1,ef=1" },
	{ "topk", GC_M_TOPK, "ratio=0.01,ef=1" },
	{ "mstopk", GC_M_MSTOPK, "ratio=0.01,rounds=20" },
	{ "dgc", GC_M_DGC, "ratio=0.01,clip=0.5,warmup_steps=4" },
	{ "cgx", GC_M_CGX, "bits=3" },
	{ "powersgd", GC_M_POWERSGD, "rank=2" },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

void gc_wk_build_info(FILE *out, const char *version)
{
	fprintf(out, "arch=%s\nneeds=%s\nbuilt_on=%s\nnative=%d\nisa=%s\nversion=%s\n",
		gc_build_arch(), gc_build_cpu_flags(), gc_build_host_cpu(),
		gc_build_is_native(), gc_isa_name(gc_isa_cpu()), version);
}

static size_t numel(void)
{
	size_t n = 0;
	for (size_t t = 0; t < NT; t++)
		n += layout[t].rows * layout[t].cols;
	return n;
}

/* STEPS steps of one case at the current level: out[w] gets the last step's average
 * and then the residual (2 n floats per worker). */
static int run_case(const struct tcase *c, float *const *grads, float **out, char *why,
		    size_t wn)
{
	gc_bucket *b[WORLD] = { 0 };
	gc_params p;
	gc_err e = { "" };
	size_t n = numel();
	gc_rc rc;
	int w;

	gc_params_default(&p, c->m);
	rc = gc_params_set_list(&p, c->params, &e);
	for (w = 0; w < WORLD && !rc; w++)
		rc = gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, layout, NT, WORLD, w, &e);
	for (int s = 0; s < STEPS && !rc; s++) {
		const float *g[WORLD];
		float *avg[WORLD];
		for (w = 0; w < WORLD; w++) {
			g[w] = grads[s * WORLD + w];
			avg[w] = out[w];
		}
		rc = gc_simulate_step(b, WORLD, g, avg, NULL, NULL, &e);
	}
	for (w = 0; w < WORLD && !rc; w++)
		rc = gc_bucket_residual(b[w], out[w] + n);
	for (w = 0; w < WORLD; w++)
		gc_bucket_free(b[w]);
	if (rc)
		snprintf(why, wn, "%s: %s", c->label, e.msg[0] ? e.msg : gc_strerror(rc));
	return rc ? 1 : 0;
}

/* First element where a and b differ in their bits, or -1. */
static long first_diff(const float *a, const float *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (memcmp(a + i, b + i, sizeof(float)))
			return (long)i;
	return -1;
}

/* Independent scalar checks: the vote of signsgd (scaled=0) from the signs alone, and
 * fp16's (bf16's) decode as the scalar conversion of half(c / p) summed in half (bf16). */
static long check_scalar(const struct tcase *c, float *const *grads, float *const *out)
{
	size_t n = numel(), i;
	const float *g0 = grads[(STEPS - 1) * WORLD], *g1 = grads[(STEPS - 1) * WORLD + 1];

	for (i = 0; i < n; i++) {
		float want;
		if (c->m == GC_M_SIGNSGD && strcmp(c->params, "") == 0) {
			int v = (signbit(g0[i]) ? -1 : 1) + (signbit(g1[i]) ? -1 : 1);
			want = (float)((v > 0) - (v < 0));
		} else if (c->m == GC_M_FP16) {
			uint16_t h = gc_f32_to_f16(g0[i] / WORLD);
			uint16_t x = gc_f32_to_f16(g1[i] / WORLD);
			want = gc_f16_to_f32(gc_f32_to_f16(gc_f16_to_f32(h) + gc_f16_to_f32(x)));
		} else if (c->m == GC_M_BF16) {
			uint16_t h = gc_f32_to_bf16(g0[i] / WORLD);
			uint16_t x = gc_f32_to_bf16(g1[i] / WORLD);
			want = gc_bf16_to_f32(gc_f32_to_bf16(gc_bf16_to_f32(h) + gc_bf16_to_f32(x)));
		} else {
			return -1;
		}
		if (memcmp(&want, &out[0][i], sizeof(float)))
			return (long)i;
	}
	return -1;
}

int gc_wk_self_test(FILE *out, const char *version)
{
	size_t n = numel();
	float *grads[STEPS * WORLD], *ref[WORLD], *got[WORLD];
	gc_isa best = gc_isa_cpu(), lvl = gc_isa_active();
	char why[300] = "";
	uint64_t st = 12345;
	int fail = 0;
	size_t i, c;

	gc_wk_build_info(out, version);
	for (i = 0; i < STEPS * WORLD; i++) {
		grads[i] = malloc(n * sizeof(float));
		if (grads[i])
			gc_rng_normal(&st, grads[i], n);
	}
	for (i = 0; i < WORLD; i++) {
		ref[i] = malloc(2 * n * sizeof(float));
		got[i] = malloc(2 * n * sizeof(float));
	}
	for (i = 0; i < STEPS * WORLD; i++)
		fail |= !grads[i];
	for (i = 0; i < WORLD; i++)
		fail |= !ref[i] || !got[i];
	if (fail) {
		fprintf(out, "self-test: FAILED: out of memory\n");
		return GC_EXIT_FAILED;
	}
	/* signed zeros, ties and a run of equal magnitudes: the sign and tie rules */
	for (i = 0; i < STEPS * WORLD; i++) {
		grads[i][0] = 0.0f;
		grads[i][1] = -0.0f;
		for (size_t j = 100; j < 164; j++)
			grads[i][j] = (j & 1) ? 4.0f : -4.0f;
	}
	for (c = 0; c < NCASES && !fail; c++) {
		long d;
		gc_isa_cap(GC_ISA_DEFAULT);
		fail = run_case(&cases[c], grads, ref, why, sizeof(why));
		gc_isa_cap(GC_ISA_AVX512);
		if (!fail)
			fail = run_case(&cases[c], grads, got, why, sizeof(why));
		for (i = 0; i < WORLD && !fail; i++) {
			d = first_diff(ref[i], got[i], 2 * n);
			if (d >= 0) {
				snprintf(why, sizeof(why), "%s at level %s differs from the baseline "
					 "kernels: worker %zu, %s element %ld", cases[c].label,
					 gc_isa_name(lvl), i, d < (long)n ? "output" : "residual",
					 d < (long)n ? d : d - (long)n);
				fail = 1;
			}
		}
		if (!fail && (d = check_scalar(&cases[c], grads, got)) >= 0) {
			snprintf(why, sizeof(why), "%s differs from the scalar reference at element "
				 "%ld", cases[c].label, d);
			fail = 1;
		}
	}
	for (i = 0; i < STEPS * WORLD; i++)
		free(grads[i]);
	for (i = 0; i < WORLD; i++) {
		free(ref[i]);
		free(got[i]);
	}
	if (fail) {
		fprintf(out, "self-test: FAILED: %s\n", why);
		return GC_EXIT_FAILED;
	}
	fprintf(out, "self-test: ok: %zu methods on %zu elements, kernels at level %s (this "
		"CPU's best: %s) identical to the baseline's\n", NCASES, n, gc_isa_name(lvl),
		gc_isa_name(best));
	return 0;
}

/* gcbench-bench-kernels: encode and decode time of every compressor at ResNet-50 and
 * BERT-base size, as ratios to a memcpy of the same buffer measured in the same run
 * (docs/kernels.md defines every figure). A benchmark, not a test: it never fails on
 * time. One worker of a world of 4: decode sees 4 payloads (copies of its own). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/compress.h"
#include "kernels/rng.h"
#include "log.h"
#include "strutil.h"
#include "timing.h"

#ifndef GC_CUDA_KERNELS
#define GC_CUDA_KERNELS 0
#endif
#if GC_HAVE_CUDA && GC_CUDA_KERNELS
#include "kernels/cuda/cuda_util.h"
#define BENCH_CUDA 1
#else
#define BENCH_CUDA 0
#endif

#define WORLD 4
#define MAXT 1024

struct model {
	const char *name, *csv;
	size_t numel;           /* the flat fallback */
	gc_tensor_desc t[MAXT];
	size_t nt;
	int from_csv;
};

struct mcase {
	const char *label;
	gc_method m;
	const char *params;     /* "k=v,k=v" */
};

static const struct mcase cases[] = {
	{ "syncsgd", GC_M_SYNCSGD, "" },
	{ "fp16", GC_M_FP16, "" },
	{ "signsgd", GC_M_SIGNSGD, "" },
	{ "signsgd scaled+ef", GC_M_SIGNSGD, "scaled=1,ef=1" },
	{ "topk 1%", GC_M_TOPK, "ratio=0.01" },
	{ "mstopk 1% r20", GC_M_MSTOPK, "ratio=0.01,rounds=20" },
	{ "powersgd rank 4", GC_M_POWERSGD, "rank=4" },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static double median_ms(uint64_t *ns, int n)
{
	qsort(ns, (size_t)n, sizeof(*ns), cmp_u64);
	return (n % 2 ? (double)ns[n / 2] : 0.5 * (double)(ns[n / 2 - 1] + ns[n / 2])) / 1e6;
}

/* Parse "64x3x7x7" into a descriptor. */
static int parse_shape(const char *s, gc_tensor_desc *d)
{
	char *end;
	size_t v;

	d->ndim = 0;
	d->rows = d->cols = 1;
	for (;;) {
		v = (size_t)strtoull(s, &end, 10);
		if (end == s || v == 0)
			return -1;
		if (d->ndim++ == 0)
			d->rows = v;
		else
			d->cols *= v;
		if (*end != 'x')
			return 0;
		s = end + 1;
	}
}

/* Load the tensor shapes from the model's CSV (index,name,shape,numel); 0 if usable. */
static int load_csv(struct model *m, const char *dir)
{
	char path[1024], line[512];
	size_t total = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/data/models/%s", dir, m->csv);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && m->nt < MAXT) {
		char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
		char *c3 = c2 ? strchr(c2 + 1, ',') : NULL;
		if (line[0] == '#' || !c3 || !strncmp(line, "index", 5))
			continue;
		*c3 = '\0';
		if (parse_shape(c2 + 1, &m->t[m->nt]))
			continue;
		total += m->t[m->nt].rows * m->t[m->nt].cols;
		m->nt++;
	}
	fclose(f);
	if (total != m->numel) {
		gc_warn("%s holds %zu parameters, expected %zu; using one flat tensor", path,
			total, m->numel);
		m->nt = 0;
		return -1;
	}
	m->from_csv = 1;
	return 0;
}

static void model_layout(struct model *m, const char *shared)
{
	if (load_csv(m, shared)) {
		m->t[0] = (gc_tensor_desc){ m->numel, 1, 1 };
		m->nt = 1;
	}
}

/* Device (CUDA) or host copies and waits, so that one timing loop serves both. */
static void xcopy(gc_backend be, void *dst, const void *src, size_t bytes)
{
#if BENCH_CUDA
	if (be == GC_BACKEND_CUDA) {
		gc_cuda_copy(dst, src, bytes, 2, NULL);
		return;
	}
#endif
	(void)be;
	memcpy(dst, src, bytes);
}

static void xsync(gc_backend be)
{
#if BENCH_CUDA
	if (be == GC_BACKEND_CUDA)
		gc_cuda_sync(NULL);
#endif
	(void)be;
}

static double bench_copy(gc_backend be, void *dst, const void *src, size_t bytes, int reps)
{
	uint64_t ns[64];
	int r;

	for (r = 0; r <= reps; r++) {
		uint64_t t0 = gc_now_ns();
		xcopy(be, dst, src, bytes);
		xsync(be);
		ns[r ? r - 1 : 0] = gc_now_ns() - t0;   /* rep 0 is a warm-up */
	}
	return median_ms(ns, reps);
}

/* The collective for worker 0 of WORLD, faked: every worker sent worker 0's payload
 * (all-gather), or the sum is left as worker 0's own values (all-reduce). */
static void fake_round(gc_backend be, const gc_round *r)
{
	size_t bytes = r->count * gc_dtype_size(r->dtype);

	for (int w = 0; r->coll == GC_COLL_ALLGATHER && w < WORLD; w++)
		xcopy(be, (char *)r->recv + (size_t)w * bytes, r->send, bytes);
	if (r->coll == GC_COLL_ALLREDUCE && r->recv != r->send)
		xcopy(be, r->recv, r->send, bytes);
	xsync(be);
}

/* One encode (with round_done, without the faked collective) and one decode. */
static gc_rc one_step(gc_bucket *b, gc_backend be, const float *g, float *avg,
		      uint64_t *enc, uint64_t *dec)
{
	uint64_t t0 = gc_now_ns(), tc = 0, t1;
	gc_round r;
	gc_rc rc = gc_encode(b, g);

	while (!rc && gc_round_get(b, &r)) {
		xsync(be);
		t1 = gc_now_ns();
		fake_round(be, &r);
		tc += gc_now_ns() - t1;
		rc = gc_round_done(b);
	}
	xsync(be);
	*enc = gc_now_ns() - t0 - tc;
	t0 = gc_now_ns();
	if (!rc)
		rc = gc_decode(b, avg);
	xsync(be);
	*dec = gc_now_ns() - t0;
	return rc;
}

struct result {
	double enc_ms, dec_ms;
	double ref_ms;          /* the copy, timed between this case's steps */
	size_t payload;
};

static gc_rc bench_case(const struct model *m, const struct mcase *c, gc_backend be,
			const float *g, float *avg, int reps, struct result *res)
{
	char buf[128], *tok, *save = NULL;
	uint64_t enc[64], dec[64], ref[64];
	gc_params p;
	gc_bucket *b = NULL;
	gc_err e;
	gc_rc rc = GC_OK;
	int r;

	gc_params_default(&p, c->m);
	gc_strlcpy(buf, c->params, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		*eq = '\0';
		rc = gc_params_set(&p, tok, eq + 1, &e);
	}
	if (!rc)
		rc = gc_bucket_new(&b, &p, be, NULL, m->t, m->nt, WORLD, 0, &e);
	if (rc) {
		gc_error("%s on %s: %s", c->label, m->name, e.msg);
		return rc;
	}
	for (r = 0; r <= reps && !rc; r++) {    /* rep 0 is a warm-up */
		uint64_t t0 = gc_now_ns();          /* the reference, interleaved */
		xcopy(be, avg, g, m->numel * sizeof(float));
		xsync(be);
		ref[r ? r - 1 : 0] = gc_now_ns() - t0;
		rc = one_step(b, be, g, avg, &enc[r ? r - 1 : 0], &dec[r ? r - 1 : 0]);
	}
	res->payload = gc_bucket_payload_bytes(b);
	res->enc_ms = median_ms(enc, reps);
	res->dec_ms = median_ms(dec, reps);
	res->ref_ms = median_ms(ref, reps);
	gc_bucket_free(b);
	if (rc)
		gc_error("%s on %s: a step failed: %s", c->label, m->name, gc_strerror(rc));
	return rc;
}

static void print_row(const struct model *m, const char *label, const struct result *r,
		      const char *be)
{
	double gb = (double)m->numel * 4 / 1e9;

	printf("%-9s %-4s %-18s %8.2f %8.2f %8.2f %6.2f %6.2f %6.2f %8.2f %7.1f\n", m->name, be,
	       label, r->ref_ms, r->enc_ms, r->dec_ms, r->enc_ms / r->ref_ms,
	       r->dec_ms / r->ref_ms, (r->enc_ms + r->dec_ms) / r->ref_ms,
	       gb / (r->enc_ms / 1e3), (double)m->numel * 4 / (double)r->payload);
}

static void header(void)
{
	printf("%-9s %-4s %-18s %8s %8s %8s %6s %6s %6s %8s %7s\n", "model", "be", "method",
	       "ref_ms", "enc_ms", "dec_ms", "enc_x", "dec_x", "e+d_x", "enc_GB/s", "ratio");
}

/* Every case on one model and back end; g and avg live where the back end computes. */
static int bench_model(const struct model *m, gc_backend be, const float *g, float *avg,
		       int reps)
{
	const char *bn = be == GC_BACKEND_CPU ? "cpu" : "cuda";
	double copy_ms = bench_copy(be, avg, g, m->numel * sizeof(float), reps);
	int fails = 0;
	size_t i;

	printf("%-9s %-4s %-18s %8.2f %8s %8s %6s %6s %6s %8.2f %7s\n", m->name, bn,
	       be == GC_BACKEND_CPU ? "memcpy (ref)" : "cudaMemcpy d2d", copy_ms, "-", "-", "-",
	       "-", "-", (double)m->numel * 4 / 1e9 / (copy_ms / 1e3), "-");
	fflush(stdout);
	for (i = 0; i < NCASES; i++) {
		struct result r;
		if (bench_case(m, &cases[i], be, g, avg, reps, &r)) {
			fails++;
			continue;
		}
		print_row(m, cases[i].label, &r, bn);
		fflush(stdout);
	}
	return fails;
}

#if BENCH_CUDA
static int bench_cuda(const struct model *m, const float *g, int reps)
{
	void *dg = NULL, *da = NULL;
	size_t bytes = m->numel * sizeof(float);
	int fails = 1;

	if (!gc_cuda_alloc(&dg, bytes) && !gc_cuda_alloc(&da, bytes) &&
	    !gc_cuda_copy(dg, g, bytes, 0, NULL) && !gc_cuda_sync(NULL))
		fails = bench_model(m, GC_BACKEND_CUDA, dg, da, reps);
	else
		gc_error("%s: cannot set up device buffers of %zu bytes", m->name, bytes);
	if (dg)
		gc_cuda_free(dg);
	if (da)
		gc_cuda_free(da);
	return fails;
}
#endif

static int run_model(struct model *m, const char *shared, int reps)
{
	float *g, *avg;
	uint64_t s = 1;
	int fails;

	model_layout(m, shared);
	printf("# %s: %zu elements in %zu tensor%s (%s)\n", m->name, m->numel, m->nt,
	       m->nt == 1 ? "" : "s", m->from_csv ? m->csv : "one flat bucket: no CSV found");
	g = malloc(m->numel * sizeof(float));
	avg = malloc(m->numel * sizeof(float));
	if (!g || !avg) {
		gc_error("%s: out of memory for %zu floats", m->name, m->numel);
		free(g);
		free(avg);
		return 1;
	}
	gc_rng_normal(&s, g, m->numel);
	memset(avg, 0, m->numel * sizeof(float));
	fails = bench_model(m, GC_BACKEND_CPU, g, avg, reps);
#if BENCH_CUDA
	if (gc_cuda_available())
		fails += bench_cuda(m, g, reps);
#endif
	free(g);
	free(avg);
	return fails;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: gcbench-bench-kernels [--reps N] [--model resnet50|bert-base]...\n\n"
		   "Times encode and decode of every compressor (one worker of a world of %d) at\n"
		   "ResNet-50 and BERT-base size and prints them as ratios to a memcpy of the same\n"
		   "buffer measured in the same run (see docs/kernels.md). Tensor shapes come from\n"
		   "$GCBENCH_SHARED/data/models/*.csv (default ../shared), else one flat bucket.\n\n"
		   "example:\n  gcbench-bench-kernels --reps 3 --model resnet50\n", WORLD);
}

int main(int argc, char **argv)
{
	static struct model models[] = {
		{ .name = "resnet50", .csv = "resnet50.csv", .numel = 25557032 },
		{ .name = "bert-base", .csv = "bert-base.csv", .numel = 109482240 },
	};
	const char *shared = getenv("GCBENCH_SHARED"), *only[2] = { 0 };
	int reps = 5, nonly = 0, fails = 0, i, j;
	int64_t v;

	gc_log_init("gcbench-bench-kernels", GC_LOG_INFO);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc && !gc_parse_i64(argv[i + 1], &v) &&
		    v >= 1 && v <= 63) {
			reps = (int)v;
			i++;
		} else if (!strcmp(argv[i], "--model") && i + 1 < argc && nonly < 2) {
			only[nonly++] = argv[++i];
		} else {
			if (strcmp(argv[i], "-h") && strcmp(argv[i], "--help"))
				gc_error("bad argument '%s' (--reps takes 1..63)", argv[i]);
			usage(strcmp(argv[i], "-h") && strcmp(argv[i], "--help") ? stderr : stdout);
			return strcmp(argv[i], "-h") && strcmp(argv[i], "--help") ? 2 : 0;
		}
	}
	printf("# gcbench-bench-kernels: median of %d reps after a warm-up; world %d; %s\n",
	       reps, WORLD, gc_cuda_available() ? "CUDA available" : "no CUDA device");
	printf("# ref_ms: memcpy of the same bytes, timed between the steps of each row; "
	       "x = time / ref_ms (lower is better);\n# enc_GB/s: float32 input encoded per "
	       "second; ratio = float32 bytes / payload\n");
	header();
	for (j = 0; j < 2; j++) {
		int want = !nonly;
		for (i = 0; i < nonly; i++)
			want |= !strcmp(only[i], models[j].name);
		if (want)
			fails += run_model(&models[j], shared ? shared : "../shared", reps);
	}
	return fails ? 1 : 0;
}

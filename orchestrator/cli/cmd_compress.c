/* gcbench compress: simulate one compressed exchange among workers, given each
 * worker's gradient as a .npy file; report payload, ratio, error and times. */
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "kernels/compress.h"
#include "log.h"
#include "npy.h"
#include "strutil.h"

#define MAX_IN 1024

struct copts {
	gc_params p;
	gc_backend be;
	const char *in[MAX_IN];
	int nin;
	const char *out_dir;
	int have_method, json;
	int steps;              /* exchanges run with the same gradients (--steps) */
};

/* Apply "k=v,k2=v2" to o->p (kernels/params.h reads and checks it). */
static int apply_params(struct copts *o, const char *arg)
{
	gc_err e;

	if (gc_params_set_list(&o->p, arg, &e)) {
		gc_error("--param: %s", e.msg);
		return GC_EXIT_USAGE;
	}
	return 0;
}

static struct copts co = { .steps = 1 };   /* the declarations' targets */
static char *pending[MAX_IN];        /* --param k=v, applied once the method is known */
static int np;

static gc_rc method_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	gc_err why;

	if (gc_params_parse_method(v, &co.p, &why))
		return gc_fail(e, GC_E_INVAL, "invalid --method: %s", why.msg);
	co.have_method = 1;
	return GC_OK;
}

static gc_rc param_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (np == MAX_IN)
		return gc_fail(e, GC_E_INVAL, "too many --param options");
	pending[np++] = (char *)v;
	return GC_OK;
}

static gc_rc steps_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	int64_t n;

	if (gc_parse_i64(v, &n) || n < 1 || n > 1000)
		return gc_fail(e, GC_E_INVAL, "invalid --steps '%s': give a whole number from 1 to "
			       "1000", v);
	co.steps = (int)n;
	return GC_OK;
}

static gc_rc in_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (co.nin == MAX_IN)
		return gc_fail(e, GC_E_INVAL, "too many --in files (at most %d workers)", MAX_IN);
	co.in[co.nin++] = v;
	return GC_OK;
}

static gc_rc backend_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (strcmp(v, "cpu") && strcmp(v, "cuda"))
		return gc_fail(e, GC_E_INVAL, "unknown back end '%s'; use cpu or cuda", v);
	co.be = strcmp(v, "cpu") ? GC_BACKEND_CUDA : GC_BACKEND_CPU;
	return GC_OK;
}

/* --method's lines name every method. */
static void method_usage(FILE *f)
{
	char names[512];

	gc_method_names(names, sizeof(names), ", ");
	fprintf(f, "  --method M[:K=V,..] a method with its parameters after a colon\n"
		"                    (topk:ratio=0.01; each method's keys and defaults:\n"
		"                    gcbench-worker --help, docs/kernels.md), one of\n"
		"                    %s\n", names);
}

static const struct gc_option compress_opts[] = {
	{ .o = { "--method", NULL, GC_OPT_ARG, 0 }, .type = GC_OT_CALLBACK, .cb = method_cb,
	  .usage = method_usage },
	GC_OPTION_CALLBACK("--param", NULL, GC_OPT_ARG, param_cb, "K=V", NULL),
	GC_OPTION_CALLBACK("--in", NULL, GC_OPT_ARG, in_cb, "FILE",
		"one worker's gradient: float32 .npy, the same shape for all;\n"
		"rows = shape[0], cols = the product of the other dimensions"),
	GC_OPTION_CALLBACK("--steps", NULL, GC_OPT_ARG, steps_cb, "N",
		"run N exchanges (1 to 1000) with the same gradients, each\n"
		"worker keeping its state (error feedback, PowerSGD's Q,\n"
		"momentum, the step number); the figures are the last step's"),
	GC_OPTION_STRING("--out-dir", NULL, &co.out_dir, "D",
		"write D/result.npy (the average every worker ends with) and\n"
		"D/residual_<w>.npy (error feedback left at worker w)"),
	GC_OPTION_CALLBACK("--backend", NULL, GC_OPT_ARG, backend_cb, "B", "cpu (default) or cuda"),
	GC_OPTION_FLAG("--json", NULL, &co.json, "the figures as one JSON object (the names above)"),
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench compress --method M[:K=V,...] --in w0.npy --in w1.npy ...\n"
		"                        [--steps N] [--out-dir D] [--backend cpu|cuda] [--json]\n\n"
		"Simulate one gradient exchange among as many workers as --in files, with the\n"
		"collectives run in memory: every worker encodes its gradient, the payloads are\n"
		"all-reduced or all-gathered, every worker decodes. Prints the payload each worker\n"
		"sends, the compression ratio (float32 bytes / payload), the relative L2 error of the\n"
		"result against the exact average, and the encode and decode times.\n\n"
		"options:\n");
	gc_opts_usage(f, compress_opts, sizeof compress_opts / sizeof compress_opts[0], 20);
	fprintf(f, "\n"
		"example:\n"
		"  gcbench compress --method topk:ratio=0.01 --in g0.npy --in g1.npy --out-dir out\n");
}

/* 0 to go on, -1 when help or version was printed, else the exit status. */
static int parse_args(struct copts *o, int argc, char **argv)
{
	int i, rc, id;
	gc_opts p;

	gc_opts_decl_init(&p, "gcbench compress", compress_opts,
			  sizeof compress_opts / sizeof compress_opts[0], argc, argv, NULL);
	id = gc_opts_parse_all(&p);
	*o = co;
	if (id != GC_OPTS_END)
		return (rc = gc_cli_opts_stop(&p, id, usage)) ? rc : -1;
	if (!o->have_method) {
		gc_error("no --method given; e.g. --method topk:ratio=0.01 (see 'gcbench compress --help')");
		return GC_EXIT_USAGE;
	}
	if (o->nin < 1) {
		gc_error("no --in files: give one .npy gradient per worker, e.g. --in g0.npy --in g1.npy");
		return GC_EXIT_USAGE;
	}
	for (i = 0; i < np; i++)
		if ((rc = apply_params(o, pending[i])))
			return rc;
	if (np) {
		char pb[256];
		gc_params_format(&o->p, pb, sizeof pb);
		gc_warn("--param is deprecated: write --method %s%s%s", gc_method_name(o->p.method),
			pb[0] ? ":" : "", pb);
	}
	return 0;
}

/* Read every input and check they agree in shape. */
static int read_inputs(const struct copts *o, gc_npy *g)
{
	gc_err e;
	int w, d;

	for (w = 0; w < o->nin; w++) {
		if (gc_npy_read(o->in[w], &g[w], &e)) {
			gc_error("%s", e.msg);
			return 1;
		}
		if (g[w].ndim < 1 || g[w].numel == 0) {
			gc_error("cannot use '%s': it holds %s; a gradient needs at least one "
				 "dimension and one element", o->in[w],
				 g[w].ndim < 1 ? "a scalar" : "no elements");
			return 1;
		}
		if (w > 0 && g[w].ndim != g[0].ndim) {
			gc_error("'%s' has %d dimensions but '%s' has %d; every worker's gradient "
				 "must have the same shape", o->in[w], g[w].ndim, o->in[0], g[0].ndim);
			return 1;
		}
		for (d = 0; w > 0 && d < g[0].ndim; d++) {
			if (g[w].shape[d] != g[0].shape[d]) {
				gc_error("'%s' has a different shape from '%s' (dimension %d: %zu vs "
					 "%zu); every worker's gradient must have the same shape",
					 o->in[w], o->in[0], d, g[w].shape[d], g[0].shape[d]);
				return 1;
			}
		}
	}
	return 0;
}

static double rel_error(const gc_npy *g, int p, const float *res)
{
	double num = 0, den = 0;

	for (size_t i = 0; i < g[0].numel; i++) {
		double exact = 0;
		for (int w = 0; w < p; w++)
			exact += g[w].data[i];
		exact /= p;
		num += (res[i] - exact) * (res[i] - exact);
		den += exact * exact;
	}
	return den > 0 ? sqrt(num / den) : sqrt(num);
}

static int write_outputs(const struct copts *o, const gc_npy *g, gc_bucket **b, float **avg)
{
	char path[4096];
	float *res = NULL;
	gc_err e;
	int w, rc = 0;

	if (mkdir(o->out_dir, 0777) && errno != EEXIST) {
		gc_error("cannot create the output folder '%s': %s", o->out_dir, strerror(errno));
		return GC_EXIT_FAILED;
	}
	snprintf(path, sizeof(path), "%s/result.npy", o->out_dir);
	if (gc_npy_write(path, avg[0], g[0].numel, g[0].ndim, g[0].shape, &e)) {
		gc_error("%s", e.msg);
		return GC_EXIT_FAILED;
	}
	res = malloc(g[0].numel * sizeof(float));
	for (w = 0; w < o->nin && !rc; w++) {
		snprintf(path, sizeof(path), "%s/residual_%d.npy", o->out_dir, w);
		if (!res || gc_bucket_residual(b[w], res)) {
			gc_error("cannot read worker %d's residual", w);
			rc = 1;
		} else if (gc_npy_write(path, res, g[0].numel, g[0].ndim, g[0].shape, &e)) {
			gc_error("%s", e.msg);
			rc = 1;
		}
	}
	free(res);
	return rc;
}

static void report_json(const struct copts *o, const gc_npy *g, size_t pay, double err,
			int same, uint64_t enc, uint64_t dec)
{
	char pbuf[256];
	size_t n = g[0].numel;
	gc_buf b;
	gc_json j;

	gc_params_format(&o->p, pbuf, sizeof(pbuf));
	gc_buf_init(&b);
	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_str_field(&j, "method", gc_method_name(o->p.method));
	gc_json_str_field(&j, "params", pbuf);
	gc_json_int_field(&j, "workers", o->nin);
	gc_json_uint_field(&j, "elements", n);
	gc_json_uint_field(&j, "rows", g[0].shape[0]);
	gc_json_uint_field(&j, "cols", n / g[0].shape[0]);
	gc_json_uint_field(&j, "payload_bytes", pay);
	gc_json_numg_field(&j, "ratio", (double)(4 * n) / (double)pay, 6);
	gc_json_numg_field(&j, "rel_error", err, 6);
	gc_json_key(&j, "identical");
	gc_json_bool(&j, same);
	gc_json_numg_field(&j, "encode_ms", enc / 1e6, 6);
	gc_json_numg_field(&j, "decode_ms", dec / 1e6, 6);
	gc_json_obj_close(&j);
	gc_cli_json_print(&b, &j);
}

static void report(const struct copts *o, const gc_npy *g, gc_bucket *b, float **avg,
		   uint64_t enc, uint64_t dec)
{
	char pbuf[256];
	size_t pay = gc_bucket_payload_bytes(b), n = g[0].numel;
	int p = o->nin, w, same = 1;

	for (w = 1; w < p; w++)
		same &= !memcmp(avg[w], avg[0], n * sizeof(float));
	if (o->json)
		return report_json(o, g, pay, rel_error(g, p, avg[0]), same, enc, dec);
	gc_params_format(&o->p, pbuf, sizeof(pbuf));
	printf("method:          %s%s%s\n", gc_method_name(o->p.method), pbuf[0] ? " " : "", pbuf);
	printf("workers:         %d\n", p);
	printf("elements:        %zu (rows %zu x cols %zu)\n", n, g[0].shape[0], n / g[0].shape[0]);
	printf("payload_bytes:   %zu per worker\n", pay);
	printf("ratio:           %.3f (float32 bytes / payload)\n", (double)(4 * n) / (double)pay);
	printf("rel_error:       %.6g (L2, against the exact average)\n", rel_error(g, p, avg[0]));
	printf("identical:       %s (all workers decoded the same average)\n", same ? "yes" : "NO");
	printf("encode_ms:       %.3f (all workers), %.3f per worker\n", enc / 1e6, enc / 1e6 / p);
	printf("decode_ms:       %.3f (all workers), %.3f per worker\n", dec / 1e6, dec / 1e6 / p);
}

static int run(const struct copts *o, gc_npy *g, gc_bucket **b, float **avg)
{
	gc_tensor_desc d = { g[0].shape[0], g[0].numel / g[0].shape[0], g[0].ndim };
	uint64_t enc = 0, dec = 0;
	const float **in = calloc((size_t)o->nin, sizeof(*in));
	gc_err e;
	int w, rc = 1;

	if (!in)
		goto out;
	for (w = 0; w < o->nin; w++) {
		in[w] = g[w].data;
		avg[w] = malloc(g[0].numel * sizeof(float));
		if (!avg[w] || gc_bucket_new(&b[w], &o->p, o->be, NULL, &d, 1, o->nin, w, &e)) {
			gc_error("cannot set up worker %d: %s", w, avg[w] ? e.msg : "out of memory");
			goto out;
		}
	}
	for (int s = 0; s < o->steps; s++) {
		enc = dec = 0;          /* the last step's times */
		if (gc_simulate_step(b, o->nin, (const float *const *)in, avg, &enc, &dec, &e)) {
			gc_error("step %d: %s", s, e.msg);
			goto out;
		}
	}
	report(o, g, b[0], avg, enc, dec);
	rc = o->out_dir ? write_outputs(o, g, b, avg) : 0;
out:
	free(in);
	return rc;
}

int cmd_compress(int argc, char **argv)
{
	struct copts o;
	gc_npy *g = NULL;
	gc_bucket **b = NULL;
	float **avg = NULL;
	int rc, w;

	rc = parse_args(&o, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	g = calloc((size_t)o.nin, sizeof(*g));
	b = calloc((size_t)o.nin, sizeof(*b));
	avg = calloc((size_t)o.nin, sizeof(*avg));
	rc = GC_EXIT_USAGE;   /* the inputs */
	if (!g || !b || !avg)
		gc_error("out of memory for %d workers", o.nin);
	else if (!read_inputs(&o, g))
		rc = run(&o, g, b, avg) ? GC_EXIT_ENV : GC_EXIT_OK;   /* the method failed, or
									 * writing the outputs */
	for (w = 0; w < o.nin; w++) {
		if (g)
			gc_npy_release(&g[w]);
		if (b)
			gc_bucket_free(b[w]);
		if (avg)
			free(avg[w]);
	}
	free(g);
	free(b);
	free(avg);
	return rc;
}

/* worker/wk_args.c: the command line of gcbench-worker, validated up front (before MPI
 * starts, so a typo fails in milliseconds and names the option, the value, and what to
 * write instead). */
#include "wk.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "formats/arch.h"
#include "kernels/plan.h"
#include "log.h"
#include "opts.h"
#include "strutil.h"

/* The --method and --param lines of the usage, from the method table. */
static void usage_methods(FILE *f)
{
	char names[128];
	size_t i, n;
	const gc_param_def *d = gc_param_table(&n);

	gc_method_names(names, sizeof(names), " ");
	fprintf(f, "  --method M[:k=v,...]     %s; %s\n", names, gc_method_name(GC_M_SYNCSGD));
	fputs("                           with its parameters after a colon (topk:ratio=0.01);\n"
	      "                           defaults:\n"
	      "                          ", f);
	for (i = 0; i < n; i++)
		fprintf(f, " %s=%.15g%s", d[i].key, d[i].def,
			i + 1 < n && i % 4 == 3 ? "\n                          " : "");
	for (i = 0; i < n; i++)
		for (int m = 0; m < GC_M__COUNT; m++)
			if (d[i].def_zero & d[i].methods & GC_METHOD_BIT(m))
				fprintf(f, " (%s=0 for %s)", d[i].key, gc_method_name((gc_method)m));
			else if (d[i].alt & d[i].methods & GC_METHOD_BIT(m))
				fprintf(f, " (%s=%.15g for %s)", d[i].key, d[i].alt_def,
					gc_method_name((gc_method)m));
	fputc('\n', f);
}

/* The state of one parse, handed to the callbacks. */
struct wk_parse {
	gc_wk_cfg *c;
	char *kv[GC_WK_MAX_PARAMS];   /* --param k=v, applied after the method is known */
	int nkv;
};

static const struct gc_option *wk_decl(gc_wk_cfg *c, size_t *n);

void gc_wk_usage(FILE *f)
{
	static gc_wk_cfg dummy;
	size_t n;
	const struct gc_option *d = wk_decl(&dummy, &n);

	fputs(
"usage: gcbench-worker --workload replay:MODEL|train:mlp|train:cnn [options]   (one rank; start with mpirun)\n"
"\n"
"One rank of data-parallel training: backward compute (emulated for replay, real for\n"
"train:mlp/cnn) overlapped with a bucketed gradient exchange through a compressor, timed\n"
"per iteration into a record file (see docs/worker.md).\n"
"\n", f);
	gc_opts_usage(f, d, n, 27);
	fputs(
"\n"
"Example (4 ranks on one shaped interface, ring algorithms, ranks yield when idle):\n"
"  mpirun -np 4 --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include eth1 \\\n"
"    --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4 \\\n"
"    --mca coll_tuned_allgather_algorithm 4 --mca coll_libnbc_iallreduce_algorithm 1 \\\n"
"    --mca mpi_yield_when_idle 1 \\\n"
"    gcbench-worker --method powersgd:rank=4 --workload replay:resnet50 \\\n"
"      --iters 50 --warmup 5 --batch 32 --out run1-r%r.gcr\n"
"(As root, OpenMPI also needs OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.)\n",
	      f);
}

/* --method NAME[:k=v,...]: the method and its parameters (applied at once, so that a
 * mistake names the method as written). */
static gc_rc parse_method(gc_wk_cfg *c, const char *v, gc_err *e)
{
	return gc_params_parse_method(v, &c->params, e);
}

static gc_rc parse_workload(gc_wk_cfg *c, const char *v, gc_err *e)
{
	if (gc_strlcpy(c->workload, v, sizeof(c->workload)) >= sizeof(c->workload))
		return gc_fail(e, GC_E_INVAL, "workload '%.40s...' is too long", v);
	if (!strncmp(v, "replay:csv:" GC_ARCH_BIN_DIR "/", 16)) {
		/* a model provisioned with the build: relative to this program's folder, which
		 * differs between hosts whose logins differ (orchestrator/remote/provision.c) */
		char self[PATH_MAX];
		ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		char *slash = len > 0 ? (self[len] = 0, strrchr(self, '/')) : NULL;
		if (!slash)
			return gc_fail(e, GC_E_IO, "cannot find this program's folder for '%s'", v);
		*slash = 0;
		c->kind = GC_WK_REPLAY;
		if ((size_t)snprintf(c->model, sizeof(c->model), "csv:%s%s", self, v + 15) >=
		    sizeof(c->model))
			return gc_fail(e, GC_E_INVAL, "the model's path under '%s' is too long", self);
		return GC_OK;
	}
	if (!strncmp(v, "replay:", 7) && v[7]) {
		c->kind = GC_WK_REPLAY;
		gc_strlcpy(c->model, v + 7, sizeof(c->model));
		return GC_OK;
	}
	if (!strcmp(v, "train:mlp") || !strcmp(v, "train:cnn")) {
		c->kind = GC_WK_TRAIN;
		gc_strlcpy(c->model, v + 6, sizeof(c->model));
		return GC_OK;
	}
	return gc_fail(e, GC_E_INVAL, "unknown workload '%s': use replay:MODEL (e.g. "
		       "replay:resnet50, replay:csv:FILE), train:mlp or train:cnn", v);
}

static gc_rc copy_opt(char *dst, size_t n, const char *opt, const char *v, gc_err *e)
{
	if (!v[0] || gc_strlcpy(dst, v, n) >= n)
		return gc_fail(e, GC_E_INVAL, "invalid %s '%.60s': empty or longer than %zu bytes",
			       opt, v, n - 1);
	return GC_OK;
}

static void cfg_defaults(gc_wk_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->mode = GC_WK_RUN;
	c->backend = GC_WK_MPI;
	gc_params_default(&c->params, GC_M_SYNCSGD);
	c->iters = 20;
	c->warmup = 5;
	c->batch = 32;
	c->compute_scale = 1;
	c->bucket_first_mb = GC_DDP_FIRST_BYTES / 1048576.0;
	c->bucket_mb = GC_DDP_BYTES / 1048576.0;
	c->overlap = 1;
	c->deadline = 60;
	c->rings = 2;
	gc_strlcpy(c->out, "records-r%r.gcr", sizeof(c->out));
	gc_strlcpy(c->data, "auto", sizeof(c->data));
}

/* --param k=v entries (deprecated), applied once the method is known (it may come
 * later), after the parameters of --method NAME:k=v. */
static gc_rc apply_params(gc_wk_cfg *c, char **kv, int n, gc_err *e)
{
	gc_rc rc;
	for (int i = 0; i < n; i++) {
		char key[64];
		const char *eq = strchr(kv[i], '=');
		if (!eq || eq == kv[i] || (size_t)(eq - kv[i]) >= sizeof(key))
			return gc_fail(e, GC_E_INVAL, "invalid --param '%s': expected key=value, e.g. ratio=0.01", kv[i]);
		memcpy(key, kv[i], (size_t)(eq - kv[i]));
		key[eq - kv[i]] = 0;
		rc = gc_params_set(&c->params, key, eq + 1, e);
		if (rc)
			return rc;
	}
	rc = gc_params_check(&c->params, e);
	if (rc)
		return rc;
	gc_params_format(&c->params, c->param_text, sizeof(c->param_text));
	if (n)
		gc_warn("--param is deprecated: write --method %s%s%s",
			gc_method_name(c->params.method), c->param_text[0] ? ":" : "",
			c->param_text);
	return GC_OK;
}

static gc_rc check_cfg(gc_wk_cfg *c, gc_err *e)
{
	if (c->mode == GC_WK_HELP || c->mode == GC_WK_VERSION || c->mode == GC_WK_DUMP ||
	    c->mode == GC_WK_PRINT_MODEL)
		return GC_OK;
	if (!c->workload[0])
		return gc_fail(e, GC_E_INVAL, "missing --workload: give replay:MODEL (e.g. replay:resnet50), train:mlp or train:cnn");
	if (c->profile[0] && c->kind != GC_WK_REPLAY)
		return gc_fail(e, GC_E_INVAL, "--profile '%s' applies to replay workloads only, not '%s'",
			       c->profile, c->workload);
	if ((c->eval_every || strcmp(c->data, "auto")) && c->kind != GC_WK_TRAIN)
		return gc_fail(e, GC_E_INVAL, "--eval-every and --data apply to training workloads "
			       "(train:mlp, train:cnn) only, not '%s'", c->workload);
	if (strcmp(c->data, "auto") && strcmp(c->data, "digits") && strcmp(c->data, "generated") &&
	    access(c->data, R_OK))
		return gc_fail(e, GC_E_NOTFOUND, "cannot read data set '%s': no such readable file "
			       "(give auto, digits, generated or a GCBDAT1 file)", c->data);
	if (c->profile[0] && access(c->profile, R_OK))
		return gc_fail(e, GC_E_NOTFOUND, "cannot read profile '%s': no such readable file "
			       "(give a CSV of name,t_bwd_seconds, or drop --profile)", c->profile);
	if (c->lr == 0)
		c->lr = (c->params.method == GC_M_SIGNSGD && !c->params.scaled) ? 0.002 : 0.1;
	return GC_OK;
}

/* --print-model MODEL: the model as --workload replay:MODEL names it. */
static gc_rc print_model_opt(gc_wk_cfg *c, const char *v, gc_err *e)
{
	char w[sizeof(c->workload)];
	gc_rc rc;

	if ((size_t)snprintf(w, sizeof(w), "replay:%s", v) >= sizeof(w))
		return gc_fail(e, GC_E_INVAL, "invalid --print-model '%.40s...': too long", v);
	if (!v[0])
		return gc_fail(e, GC_E_INVAL, "invalid --print-model '': give a model such as "
			       "resnet50 or csv:FILE");
	if ((rc = parse_workload(c, w, e)))
		return rc;
	c->mode = GC_WK_PRINT_MODEL;
	return GC_OK;
}

static gc_rc bench_count(gc_wk_cfg *c, const char *v, gc_err *e)
{
	int64_t n;

	c->mode = GC_WK_BENCH_ALLREDUCE;
	if (!v)
		return GC_OK;
	if (gc_parse_i64(v, &n) || n < 1 || n > (1ll << 32))
		return gc_fail(e, GC_E_INVAL, "invalid --bench-allreduce '%s': expected a float "
			       "count from 1 to 2^32", v);
	c->bench_count = n;
	return GC_OK;
}

static gc_rc backend_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	gc_wk_cfg *c = ((struct wk_parse *)ctx)->c;

	if (strcmp(v, "mpi") && strcmp(v, "nccl"))
		return gc_fail(e, GC_E_INVAL, "unknown backend '%s': use mpi or nccl", v);
	c->backend = strcmp(v, "mpi") ? GC_WK_NCCL : GC_WK_MPI;
	return GC_OK;
}

static gc_rc method_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	return parse_method(((struct wk_parse *)ctx)->c, v, e);
}

static gc_rc workload_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	return parse_workload(((struct wk_parse *)ctx)->c, v, e);
}

static gc_rc param_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	struct wk_parse *w = ctx;

	if (w->nkv == GC_WK_MAX_PARAMS)
		return gc_fail(e, GC_E_INVAL, "too many --param options (at most %d)",
			       GC_WK_MAX_PARAMS);
	w->kv[w->nkv++] = (char *)v;
	return GC_OK;
}

/* A text option into its char array: target, hi = its size. */
static gc_rc text_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	return copy_opt(opt->target, (size_t)opt->hi, opt->o.name, v, e);
}

static gc_rc iface_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (!gc_is_safe_token(v))
		return gc_fail(e, GC_E_INVAL, "invalid --iface '%s': expected an interface name such as eth1", v);
	return text_cb(ctx, opt, v, e);
}

static gc_rc dump_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	((struct wk_parse *)ctx)->c->mode = GC_WK_DUMP;
	return text_cb(ctx, opt, v, e);
}

static gc_rc coll_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (strcmp(v, "nb") && strcmp(v, "blocking"))
		return gc_fail(e, GC_E_INVAL, "invalid --mpi-coll '%s': use nb or blocking", v);
	((struct wk_parse *)ctx)->c->blocking = !strcmp(v, "blocking");
	return GC_OK;
}

static gc_rc print_model_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	return print_model_opt(((struct wk_parse *)ctx)->c, v, e);
}

static gc_rc bench_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	return bench_count(((struct wk_parse *)ctx)->c, v, e);
}

#define WK_TEXT(l, field, fn, a, h) \
	{ .o = { l, NULL, GC_OPT_ARG, 0 }, .arg = a, .help = h, .type = GC_OT_CALLBACK, \
	  .cb = fn, .target = c->field, .hi = (long long)sizeof c->field }

/* The options of gcbench-worker, one declaration each, their targets in c. */
static const struct gc_option *wk_decl(gc_wk_cfg *c, size_t *n)
{
	static struct gc_option tab[32];
	const struct gc_option t[] = {
		GC_OPTION_CALLBACK("--backend", NULL, GC_OPT_ARG, backend_cb, "mpi|nccl",
				   "collectives over MPI (CPU) or NCCL (one GPU per rank); mpi"),
		{ .o = { "--method", NULL, GC_OPT_ARG, 0 }, .type = GC_OT_CALLBACK,
		  .cb = method_cb, .usage = usage_methods },
		GC_OPTION_CALLBACK("--param", NULL, GC_OPT_ARG, param_cb, "K=V", NULL),
		GC_OPTION_CALLBACK("--workload", NULL, GC_OPT_ARG, workload_cb, "W",
				   "replay:MODEL (resnet50 resnet101 vgg16 bert-base gpt2-small\n"
				   "tiny csv:PATH), train:mlp (features-256-classes) or\n"
				   "train:cnn (2 conv layers + fc), real gradients"),
		WK_TEXT("--data", data, text_cb, "D",
			"training data: auto (the built-in digits if this build has\n"
			"them, else generated), digits, generated, or a GCBDAT1\n"
			"file (tools/digits_convert.py); auto"),
		GC_OPTION_INT("--eval-every", NULL, &c->eval_every, 0, 100000000, "K",
			      "training: validation loss and accuracy every K iterations\n"
			      "and after the last, outside the timed part; 0 (off)"),
		GC_OPTION_INT("--iters", NULL, &c->iters, 1, 100000000, "N",
			      "measured iterations (>= 1); 20"),
		GC_OPTION_INT("--warmup", NULL, &c->warmup, 0, 100000000, "W",
			      "extra iterations run first, flagged warmup; 5"),
		GC_OPTION_INT("--batch", NULL, &c->batch, 1, 1000000, "B", "per-rank batch size; 32"),
		GC_OPTION_POSITIVE("--compute-scale", NULL, &c->compute_scale, "S",
				   "device speed multiplier for replay compute (>0); 1"),
		GC_OPTION_POSITIVE("--device-flops", NULL, &c->device_flops, "F",
				   "FLOP/s of the emulated device; the V100 default"),
		WK_TEXT("--profile", profile, text_cb, "FILE",
			"per-tensor backward seconds (CSV name,t_bwd_seconds)"),
		GC_OPTION_POSITIVE("--bucket-first-mb", NULL, &c->bucket_first_mb, "X",
				   "first bucket at least X MiB; 1"),
		GC_OPTION_POSITIVE("--bucket-mb", NULL, &c->bucket_mb, "X",
				   "later buckets at least X MiB; 25"),
		GC_OPTION_SET("--no-overlap", NULL, &c->overlap, 0,
			      "exchange after backward, bucket after bucket"),
		GC_OPTION_CALLBACK("--mpi-coll", NULL, GC_OPT_ARG, coll_cb, "nb|blocking",
				   "MPI_Iallreduce polled against the deadline (nb, default) or\n"
				   "MPI_Allreduce (coll/tuned algorithms) under a watchdog"),
		GC_OPTION_INT("--mpi-rings", NULL, &c->rings, 1, GC_WK_MAX_RINGS, "K",
			      "nb: an all-reduce of 4 MiB or more runs as K concurrent\n"
			      "MPI_Iallreduce on slices of it (one fills the link while\n"
			      "another reduces); 1-8; 2"),
		GC_OPTION_SECONDS("--deadline", NULL, &c->deadline, 0.001, 86400, "T",
				  "per collective (60, 60s, 500ms, 2min; bare: seconds); on\n"
				  "expiry: error and MPI_Abort; 60s"),
		GC_OPTION_INT("--threads", NULL, &c->threads, 0, 4096, "N",
			      "CPU threads per rank for encode/decode (OpenMP, OpenBLAS);\n"
			      "0 = the cores this rank may use / ranks on this host\n"
			      "(OMPI_COMM_WORLD_LOCAL_SIZE); ranks that share cores but\n"
			      "not a host (network namespaces) need it set: 0"),
		GC_OPTION_POSITIVE("--lr", NULL, &c->lr, "X",
				   "SGD learning rate; 0.1 (signsgd without scaled: 0.002)"),
		WK_TEXT("--out", out, text_cb, "PATTERN", "record file, %r = rank; records-r%r.gcr"),
		GC_OPTION_INT("--heartbeat", NULL, &c->heartbeat, 0, 1000000000, "K",
			      "progress line on stderr every K iterations; 0 (off)"),
		WK_TEXT("--iface", iface, iface_cb, "IFACE",
			"the data interface (recorded; NCCL_SOCKET_IFNAME if unset)"),
		WK_TEXT("--dump", dump, dump_cb, "FILE",
			"print a record file (header, then one line per iteration)"),
		GC_OPTION_CALLBACK("--print-model", NULL, GC_OPT_ARG, print_model_cb, "MODEL",
				   "(alone) print MODEL's parameter tensors (any MODEL of\n"
				   "replay:MODEL) as the csv that replay:csv:PATH reads"),
		GC_OPTION_CALLBACK("--bench-allreduce", NULL, GC_OPT_OPTARG, bench_cb, "[N]",
				   "time MPI_Allreduce of N floats (default: the model's size)"),
		/* answered by main() when alone (wk_main.c), not parsed here */
		GC_OPTION_DOC("--self-test", NULL,
			      "(alone) run every method's CPU kernels on a small bucket at\n"
			      "this CPU's ISA level and check them against the baseline's"),
		GC_OPTION_DOC("--build-info", NULL,
			      "(alone) how this build was made: arch, the CPU flags it\n"
			      "needs, the build machine's CPU, the kernels' ISA level here"),
		GC_OPTION_DOC("--help, --version", NULL, "this text; the version"),
	};

	_Static_assert(sizeof t <= sizeof tab, "wk_decl: tab is too small");
	memcpy(tab, t, sizeof t);
	*n = sizeof t / sizeof t[0];
	return tab;
}

gc_rc gc_wk_args_parse(gc_wk_cfg *c, int argc, char **argv, gc_err *e)
{
	struct wk_parse w = { .c = c };
	size_t n;
	const struct gc_option *d;
	gc_opts p;
	gc_rc rc;
	int r;

	cfg_defaults(c);
	d = wk_decl(c, &n);
	gc_opts_decl_init(&p, "gcbench-worker", d, n, argc, argv, &w);
	r = gc_opts_parse_all(&p);
	if (r == GC_OPTS_HELP || r == GC_OPTS_VERSION) {
		c->mode = r == GC_OPTS_HELP ? GC_WK_HELP : GC_WK_VERSION;
		return GC_OK;
	}
	if (r != GC_OPTS_END)
		return gc_fail(e, p.rc, "%s", p.err.msg);
	if (c->mode == GC_WK_PRINT_MODEL && p.count > 1)
		return gc_fail(e, GC_E_INVAL, "--print-model takes no other option: run "
			       "'gcbench-worker --print-model MODEL' alone");
	rc = apply_params(c, w.kv, w.nkv, e);
	return rc ? rc : check_cfg(c, e);
}

gc_rc gc_wk_out_path(char *dst, size_t n, const char *pattern, int rank, gc_err *e)
{
	size_t len = 0;
	for (const char *p = pattern; *p; p++) {
		char num[16];
		const char *piece = num;
		if (p[0] == '%' && p[1] == 'r') {
			snprintf(num, sizeof(num), "%d", rank);
			p++;
		} else {
			num[0] = *p;
			num[1] = 0;
		}
		size_t k = strlen(piece);
		if (len + k + 1 > n)
			return gc_fail(e, GC_E_INVAL, "record path from '%s' is too long", pattern);
		memcpy(dst + len, piece, k);
		len += k;
	}
	dst[len] = 0;
	return GC_OK;
}

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

void gc_wk_usage(FILE *f)
{
	fputs(
"usage: gcbench-worker --workload replay:MODEL|train:mlp|train:cnn [options]   (one rank; start with mpirun)\n"
"\n"
"One rank of data-parallel training: backward compute (emulated for replay, real for\n"
"train:mlp/cnn) overlapped with a bucketed gradient exchange through a compressor, timed\n"
"per iteration into a record file (see docs/worker.md).\n"
"\n"
"  --backend mpi|nccl       collectives over MPI (CPU) or NCCL (one GPU per rank); mpi\n",
	      f);
	usage_methods(f);
	fputs(
"  --workload W             replay:MODEL (resnet50 resnet101 vgg16 bert-base gpt2-small\n"
"                           tiny csv:PATH), train:mlp (features-256-classes) or\n"
"                           train:cnn (2 conv layers + fc), real gradients\n"
"  --data D                 training data: auto (the built-in digits if this build has\n"
"                           them, else generated), digits, generated, or a GCBDAT1\n"
"                           file (tools/digits_convert.py); auto\n"
"  --eval-every K           training: validation loss and accuracy every K iterations\n"
"                           and after the last, outside the timed part; 0 (off)\n"
"  --iters N                measured iterations (>= 1); 20\n"
"  --warmup W               extra iterations run first, flagged warmup; 5\n"
"  --batch B                per-rank batch size; 32\n"
"  --compute-scale S        device speed multiplier for replay compute (>0); 1\n"
"  --device-flops F         FLOP/s of the emulated device; the V100 default\n"
"  --profile FILE           per-tensor backward seconds (CSV name,t_bwd_seconds)\n"
"  --bucket-first-mb X      first bucket at least X MiB; 1\n"
"  --bucket-mb X            later buckets at least X MiB; 25\n"
"  --no-overlap             exchange after backward, bucket after bucket\n"
"  --mpi-coll nb|blocking   MPI_Iallreduce polled against the deadline (nb, default) or\n"
"                           MPI_Allreduce (coll/tuned algorithms) under a watchdog\n"
"  --mpi-rings K            nb: an all-reduce of 4 MiB or more runs as K concurrent\n"
"                           MPI_Iallreduce on slices of it (one fills the link while\n"
"                           another reduces); 1-8; 2\n"
"  --deadline T             per collective (60, 60s, 500ms, 2min; bare: seconds); on\n"
"                           expiry: error and MPI_Abort; 60s\n"
"  --threads N              CPU threads per rank for encode/decode (OpenMP, OpenBLAS);\n"
"                           0 = the cores this rank may use / ranks on this host\n"
"                           (OMPI_COMM_WORLD_LOCAL_SIZE); ranks that share cores but\n"
"                           not a host (network namespaces) need it set: 0\n"
"  --lr X                   SGD learning rate; 0.1 (signsgd without scaled: 0.002)\n"
"  --out PATTERN            record file, %r = rank; records-r%r.gcr\n"
"  --heartbeat K            progress line on stderr every K iterations; 0 (off)\n"
"  --iface IFACE            the data interface (recorded; NCCL_SOCKET_IFNAME if unset)\n"
"  --dump FILE              print a record file (header, then one line per iteration)\n"
"  --print-model MODEL      (alone) print MODEL's parameter tensors (any MODEL of\n"
"                           replay:MODEL) as the csv that replay:csv:PATH reads\n"
"  --bench-allreduce [N]    time MPI_Allreduce of N floats (default: the model's size)\n"
"  --self-test              (alone) run every method's CPU kernels on a small bucket at\n"
"                           this CPU's ISA level and check them against the baseline's\n"
"  --build-info             (alone) how this build was made: arch, the CPU flags it\n"
"                           needs, the build machine's CPU, the kernels' ISA level here\n"
"  --help, --version        this text; the version\n"
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

static gc_rc parse_int(const char *opt, const char *v, long long lo, long long hi, int *out,
		       gc_err *e)
{
	int64_t x;
	if (gc_parse_i64(v, &x) || x < lo || x > hi)
		return gc_fail(e, GC_E_INVAL, "invalid %s '%s': expected an integer from %lld to %lld",
			       opt, v, lo, hi);
	*out = (int)x;
	return GC_OK;
}

static gc_rc parse_pos(const char *opt, const char *v, double *out, gc_err *e)
{
	double x;
	if (gc_parse_double(v, &x) || !(x > 0))
		return gc_fail(e, GC_E_INVAL, "invalid %s '%s': expected a number greater than 0",
			       opt, v);
	*out = x;
	return GC_OK;
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

static gc_rc value_opt2(gc_wk_cfg *c, const char *o, const char *v, gc_err *e)
{
	if (!strcmp(o, "--bucket-first-mb"))
		return parse_pos(o, v, &c->bucket_first_mb, e);
	if (!strcmp(o, "--bucket-mb"))
		return parse_pos(o, v, &c->bucket_mb, e);
	if (!strcmp(o, "--deadline"))
		return gc_opts_seconds(o, v, 0.001, 86400, &c->deadline, e);
	if (!strcmp(o, "--lr"))
		return parse_pos(o, v, &c->lr, e);
	if (!strcmp(o, "--out"))
		return copy_opt(c->out, sizeof(c->out), o, v, e);
	if (!strcmp(o, "--threads"))
		return parse_int(o, v, 0, 4096, &c->threads, e);
	if (!strcmp(o, "--mpi-rings"))
		return parse_int(o, v, 1, GC_WK_MAX_RINGS, &c->rings, e);
	if (!strcmp(o, "--heartbeat"))
		return parse_int(o, v, 0, 1000000000, &c->heartbeat, e);
	if (!strcmp(o, "--eval-every"))
		return parse_int(o, v, 0, 100000000, &c->eval_every, e);
	if (!strcmp(o, "--data"))
		return copy_opt(c->data, sizeof(c->data), o, v, e);
	if (!strcmp(o, "--iface")) {
		if (!gc_is_safe_token(v))
			return gc_fail(e, GC_E_INVAL, "invalid --iface '%s': expected an interface name such as eth1", v);
		return copy_opt(c->iface, sizeof(c->iface), o, v, e);
	}
	if (!strcmp(o, "--dump")) {
		c->mode = GC_WK_DUMP;
		return copy_opt(c->dump, sizeof(c->dump), o, v, e);
	}
	if (!strcmp(o, "--mpi-coll")) {
		if (strcmp(v, "nb") && strcmp(v, "blocking"))
			return gc_fail(e, GC_E_INVAL, "invalid --mpi-coll '%s': use nb or blocking", v);
		c->blocking = !strcmp(v, "blocking");
		return GC_OK;
	}
	return gc_fail(e, GC_E_INVAL, "unknown option '%s' (see 'gcbench-worker --help')", o);
}

static gc_rc value_opt(gc_wk_cfg *c, const char *o, const char *v, gc_err *e)
{
	if (!strcmp(o, "--backend")) {
		if (strcmp(v, "mpi") && strcmp(v, "nccl"))
			return gc_fail(e, GC_E_INVAL, "unknown backend '%s': use mpi or nccl", v);
		c->backend = strcmp(v, "mpi") ? GC_WK_NCCL : GC_WK_MPI;
		return GC_OK;
	}
	if (!strcmp(o, "--method"))
		return parse_method(c, v, e);
	if (!strcmp(o, "--workload"))
		return parse_workload(c, v, e);
	if (!strcmp(o, "--iters"))
		return parse_int(o, v, 1, 100000000, &c->iters, e);
	if (!strcmp(o, "--warmup"))
		return parse_int(o, v, 0, 100000000, &c->warmup, e);
	if (!strcmp(o, "--batch"))
		return parse_int(o, v, 1, 1000000, &c->batch, e);
	if (!strcmp(o, "--compute-scale"))
		return parse_pos(o, v, &c->compute_scale, e);
	if (!strcmp(o, "--device-flops"))
		return parse_pos(o, v, &c->device_flops, e);
	if (!strcmp(o, "--profile"))
		return copy_opt(c->profile, sizeof(c->profile), o, v, e);
	return value_opt2(c, o, v, e);
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

enum { W_VALUE = 1, W_PARAM, W_NO_OVERLAP, W_BENCH, W_PRINT_MODEL };
static const struct gc_opt wk_opts[] = {
	{ "--backend", NULL, GC_OPT_ARG, W_VALUE }, { "--method", NULL, GC_OPT_ARG, W_VALUE },
	{ "--param", NULL, GC_OPT_ARG, W_PARAM }, { "--workload", NULL, GC_OPT_ARG, W_VALUE },
	{ "--data", NULL, GC_OPT_ARG, W_VALUE }, { "--eval-every", NULL, GC_OPT_ARG, W_VALUE },
	{ "--iters", NULL, GC_OPT_ARG, W_VALUE }, { "--warmup", NULL, GC_OPT_ARG, W_VALUE },
	{ "--batch", NULL, GC_OPT_ARG, W_VALUE }, { "--compute-scale", NULL, GC_OPT_ARG, W_VALUE },
	{ "--device-flops", NULL, GC_OPT_ARG, W_VALUE }, { "--profile", NULL, GC_OPT_ARG, W_VALUE },
	{ "--bucket-first-mb", NULL, GC_OPT_ARG, W_VALUE },
	{ "--bucket-mb", NULL, GC_OPT_ARG, W_VALUE }, { "--no-overlap", NULL, 0, W_NO_OVERLAP },
	{ "--mpi-coll", NULL, GC_OPT_ARG, W_VALUE }, { "--mpi-rings", NULL, GC_OPT_ARG, W_VALUE },
	{ "--deadline", NULL, GC_OPT_ARG, W_VALUE }, { "--threads", NULL, GC_OPT_ARG, W_VALUE },
	{ "--lr", NULL, GC_OPT_ARG, W_VALUE }, { "--out", NULL, GC_OPT_ARG, W_VALUE },
	{ "--heartbeat", NULL, GC_OPT_ARG, W_VALUE }, { "--iface", NULL, GC_OPT_ARG, W_VALUE },
	{ "--dump", NULL, GC_OPT_ARG, W_VALUE }, { "--bench-allreduce", NULL, GC_OPT_OPTARG, W_BENCH },
	{ "--print-model", NULL, GC_OPT_ARG, W_PRINT_MODEL },
};

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

gc_rc gc_wk_args_parse(gc_wk_cfg *c, int argc, char **argv, gc_err *e)
{
	char *kv[GC_WK_MAX_PARAMS];
	int nkv = 0, nopts = 0, r;
	gc_opts p;
	gc_rc rc;

	cfg_defaults(c);
	gc_opts_init(&p, "gcbench-worker", wk_opts, sizeof wk_opts / sizeof wk_opts[0], argc,
		     argv);
	while ((r = gc_opts_next(&p)) > 0) {
		nopts++;
		if (r == W_PRINT_MODEL) {
			if ((rc = print_model_opt(c, p.val, e)))
				return rc;
		} else if (r == W_NO_OVERLAP) {
			c->overlap = 0;
		} else if (r == W_BENCH) {
			if ((rc = bench_count(c, p.val, e)))
				return rc;
		} else if (r == W_PARAM) {
			if (nkv == GC_WK_MAX_PARAMS)
				return gc_fail(e, GC_E_INVAL, "too many --param options (at most %d)",
					       GC_WK_MAX_PARAMS);
			kv[nkv++] = (char *)p.val;
		} else if ((rc = value_opt(c, p.opt, p.val, e))) {
			return rc;
		}
	}
	if (r == GC_OPTS_HELP || r == GC_OPTS_VERSION) {
		c->mode = r == GC_OPTS_HELP ? GC_WK_HELP : GC_WK_VERSION;
		return GC_OK;
	}
	if (r != GC_OPTS_END)
		return gc_fail(e, GC_E_INVAL, "%s", p.err.msg);
	if (c->mode == GC_WK_PRINT_MODEL && nopts > 1)
		return gc_fail(e, GC_E_INVAL, "--print-model takes no other option: run "
			       "'gcbench-worker --print-model MODEL' alone");
	rc = apply_params(c, kv, nkv, e);
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

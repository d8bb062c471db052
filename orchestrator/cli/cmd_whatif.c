/* gcbench whatif: the performance model's answer at scales, bandwidths and compute
 * speeds you do not have (model/whatif.h, docs/model.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "json.h"
#include "log.h"
#include "bandwidth.h"
#include "netem/trace.h"
#include "cmd_whatif.h"
#include "report/whatif_svg.h"
#include "strutil.h"

static void whatif_opt_lines(FILE *f);

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench whatif [--model M] [--workers LIST] [--bandwidth RANGE|LIST]\n"
		"                      [--compute-speedup LIST] [--codec-speedup LIST] [--method LIST]\n"
		"                      [--preset paper|gcbench|ideal | --db FILE [--env ID] [--assume-free-codec]]\n"
		"                      [--batch N] [--seq-len S] [--collective ring|tree|auto]\n"
		"                      [--gpus-per-node G [--intra-bw GB/s] [--intra-latency us]]\n"
		"                      [--racks R (--uplink RATE | --oversubscription X)]\n"
		"                      [--grid paper|study-code [--sensitivity]] [--grid-steps]\n"
		"                      [--background-flows N] [--constants] [--json]\n\n"
		"Predict, with the performance model of Agarwal et al. (MLSys 2022), the speedup of\n"
		"each compression method over synchronous SGD (bucketed all-reduce overlapped with\n"
		"backward) per worker count, link bandwidth and compute speed; the crossover\n"
		"bandwidth below which each method wins; and how many configurations gain at all.\n"
		"These are predictions, not measurements: see docs/model.md for what the model\n"
		"leaves out and how far it is from the study's measured findings.\n\n"
		"options:\n");
	whatif_opt_lines(f);
	fprintf(f, "\n"
		"example:\n"
		"  gcbench whatif --model resnet50 --workers 8,32,96 --bandwidth 1gbit:30gbit \\\n"
		"      --compute-speedup 1,4 --method powersgd:rank=4,signsgd\n"
		"  gcbench whatif --grid paper --sensitivity\n"
		"  gcbench whatif --grid study-code\n"
		"  gcbench whatif --grid-steps\n"
		"  gcbench whatif --db gcbench.db --workers 4,16,64 --bandwidth 1gbit,10gbit,25gbit\n");
}

/* A double option in lo..hi (what names it in the message). */
static int opt_double(const char *arg, double lo, double hi, const char *what, double *v,
		      gc_err *e)
{
	if (gc_parse_double(arg, v) || !(*v >= lo && *v <= hi))
		return gc_fail(e, GC_E_INVAL, "%s '%s' is not a number in %g..%g", what, arg,
			       lo, hi), -1;
	return 0;
}

/* --bandwidth items trace:FILE (docs/netem.md, "Bandwidth traces"): each becomes its
 * trace's time-weighted mean over a period, as a rate; the rest stays as written. A
 * range (1gbit:30gbit) passes as it is. 0, or -1 with e naming the trace's FILE:LINE. */
static int bw_traces(const char *in, struct opts *o, gc_err *e)
{
	char buf[2048], *tok, *save = NULL;
	size_t n = 0, nn = 0;

	if (!in || !strstr(in, "trace:")) {
		gc_strlcpy(o->bw_list, in ? in : "", sizeof(o->bw_list));
		return 0;
	}
	if (gc_strlcpy(buf, in, sizeof(buf)) >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "--bandwidth: too long a list"), -1;
	o->bw_list[0] = o->trace_note[0] = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char item[64];
		if (!strncmp(tok, "trace:", 6)) {
			struct gc_trace t;
			uint64_t mean;
			char bw[32];
			if (!tok[6])
				return gc_fail(e, GC_E_INVAL, "--bandwidth trace:FILE needs the path "
					       "of a trace file"), -1;
			if (gc_trace_load(tok + 6, &t, e))
				return -1;
			mean = (uint64_t)(gc_trace_mean(&t, 0, t.period_us) + 0.5);
			gc_trace_release(&t);
			snprintf(item, sizeof(item), "%llubit", (unsigned long long)mean);
			gc_bw_format(mean, bw, sizeof(bw));
			nn += (size_t)snprintf(o->trace_note + nn, sizeof(o->trace_note) - nn,
					       "%s%.200s at its mean %s", nn ? ", " : "", tok, bw);
			if (nn >= sizeof(o->trace_note))
				nn = sizeof(o->trace_note) - 1;
		} else {
			gc_strlcpy(item, tok, sizeof(item));
		}
		n += (size_t)snprintf(o->bw_list + n, sizeof(o->bw_list) - n, "%s%s",
				      n ? "," : "", item);
		if (n >= sizeof(o->bw_list))
			return gc_fail(e, GC_E_INVAL, "--bandwidth: too long a list"), -1;
	}
	return 0;
}

static int opt_algo(const char *arg, gc_coll_algo *a, gc_err *e)
{
	if (!strcmp(arg, "ring"))
		*a = GC_ALGO_RING;
	else if (!strcmp(arg, "tree"))
		*a = GC_ALGO_TREE;
	else if (!strcmp(arg, "auto"))
		*a = GC_ALGO_AUTO;
	else
		return gc_fail(e, GC_E_INVAL, "--collective '%s': use ring, tree or auto", arg), -1;
	return 0;
}

/* --db: the default methods are those measured; a given one never measured is refused
 * unless --assume-free-codec (then a warning). */
static int db_methods(struct opts *o, const char *given, gc_err *e)
{
	char list[512] = "";
	size_t k;
	int m;

	if (!given) {
		for (m = 1; m < GC_M__COUNT; m++)
			if (o->fit.n_enc[m] || o->fit.n_dec[m])
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 *list ? "," : "", gc_method_name((gc_method)m));
		if (!*list)
			return gc_fail(e, GC_E_INVAL, "%s (environment %lld) holds no measured "
				       "compression method; give --method and --assume-free-codec",
				       o->db, (long long)o->fit.env_id), -1;
		if (gc_whatif_parse_methods(list, &o->w, e))
			return -1;
	}
	for (k = 0; k < o->w.nmethods; k++) {
		m = o->w.methods[k].p.method;
		if (m == GC_M_SYNCSGD || o->fit.n_enc[m] || o->fit.n_dec[m])
			continue;
		if (!o->free_codec)
			return gc_fail(e, GC_E_INVAL, "method '%s' was never measured in %s "
				       "(environment %lld), so its encode/decode cost is unknown; "
				       "measure it, drop it from --method, or pass --assume-free-codec "
				       "to predict it with a free codec (an upper bound)",
				       o->w.methods[k].label, o->db, (long long)o->fit.env_id), -1;
		gc_warn("whatif: method '%s' was never measured in %s; predicted with free "
			"encode/decode (--assume-free-codec): an upper bound", o->w.methods[k].label,
			o->db);
	}
	return 0;
}

/* Checks across options, then the parameters: preset or fit. */
static int finish_args(struct opts *o, const char *const *a, int64_t env, gc_err *e)
{
	struct stat st;

	/* a: workers, bw, cs, preset, methods, codec, algo, grid */
	if (env >= 0 && !o->db)
		return gc_fail(e, GC_E_INVAL, "--env needs --db"), -1;
	if (o->free_codec && !o->db)
		return gc_fail(e, GC_E_INVAL, "--assume-free-codec needs --db (the presets "
			       "price every method)"), -1;
	if (o->svg && (a[7] || o->steps))
		return gc_fail(e, GC_E_INVAL, "--svg draws sweeps; it does not apply to --grid"), -1;
	if (o->svg && o->json)
		return gc_fail(e, GC_E_INVAL, "--svg and --json exclude each other"), -1;
	if (o->svg && (stat(o->svg, &st) || !S_ISDIR(st.st_mode)))
		return gc_fail(e, GC_E_INVAL, "--svg: '%s' is not an existing directory", o->svg), -1;
	if (o->sens && !a[7])
		return gc_fail(e, GC_E_INVAL, "--sensitivity needs --grid paper or --grid "
			       "study-code"), -1;
	if (a[7] && gc_whatif_grid_check(a[7], e))
		return -1;
	if (o->steps && a[7])
		return gc_fail(e, GC_E_INVAL, "--grid-steps runs both grids; drop --grid"), -1;
	if (o->db && (o->steps || (a[7] && strcmp(a[7], "paper"))))
		return gc_fail(e, GC_E_INVAL, "--grid study-code and --grid-steps price the "
			       "study's hooks from operation counts, which a fit to '%s' does not "
			       "hold; use them with a preset (drop --db)", o->db), -1;
	if (o->db && a[3])
		return gc_fail(e, GC_E_INVAL, "--preset and --db exclude each other"), -1;
	if (o->db && gc_pdb_fit_load(o->db, env, &o->fit, e))
		return -1;
	if (gc_whatif_preset(&o->w, o->db ? "ideal" : a[3] ? a[3] : "paper", e) ||
	    gc_whatif_parse_workers(a[0], &o->w, e) ||
	    bw_traces(a[1], o, e) || gc_whatif_parse_bw(o->bw_list, &o->w, e) ||
	    gc_whatif_parse_speedup(a[2], &o->w, e) ||
	    (a[5] && gc_whatif_parse_codec(a[5], &o->w, e)) ||
	    (!(o->db && !a[4]) && gc_whatif_parse_methods(a[4] ? a[4] :
		"signsgd,topk:ratio=0.01,mstopk:ratio=0.01,powersgd:rank=4", &o->w, e)) ||
	    (a[6] && opt_algo(a[6], &o->algo, e)))
		return -1;
	if (o->sens && !o->w.paper)
		return gc_fail(e, GC_E_INVAL, "--sensitivity varies the constants of the paper "
			       "preset; use it with --preset paper (not --db or ideal)"), -1;
	if (o->db && a[7]) {             /* the grid's methods must be measured too */
		size_t k;
		o->w.nmethods = 0;
		for (k = 0; k < GC_GRID_METHODS; k++)
			if (gc_model_method_parse(gc_grid_method(k), &o->w.methods[o->w.nmethods++], e))
				return -1;
		if (db_methods(o, "grid", e))
			return -1;
	} else if (o->db && db_methods(o, a[4], e)) {
		return -1;
	}
	if (o->db && !a[6])              /* gcbench-worker's MPI rings, as the fit assumed */
		o->algo = GC_ALGO_RING;
	o->grid = a[7] != NULL;
	o->grid_name = a[7];
	if (o->db)
		snprintf(o->w.source, sizeof(o->w.source), "%.120s, environment %lld", o->db,
			 (long long)o->fit.env_id);
	return 0;
}

/* The declarations' targets: the options, and what finish_args() reads after them. */
static struct opts wo;
static struct {
	const char *a[8];   /* workers, bandwidth, compute, preset, method, codec, collective, grid */
	int64_t g, env, racks, batch, seq_len, bg;
	double uplink, oversub, slow;
} wi;

/* A whole number in [lo, hi] into the int64_t target; help NULL or not, the message
 * names the option as "--name 'v' is not a whole number in lo..hi". */
static gc_rc whole_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	int64_t x;

	if (gc_parse_i64(v, &x) || x < opt->lo || x > opt->hi) {
		if (!strcmp(opt->o.name, "--env"))
			return gc_fail(e, GC_E_INVAL, "--env '%s' is not an environment id (a whole "
				       "number >= 0)", v);
		if (!strcmp(opt->o.name, "--batch"))
			return gc_fail(e, GC_E_INVAL, "--batch '%s' is not a whole number in "
				       "1..1000000", v);
		if (!strcmp(opt->o.name, "--seq-len"))
			return gc_fail(e, GC_E_INVAL, "--seq-len '%s' is not a whole number of "
				       "tokens in 1..1024", v);
		if (!strcmp(opt->o.name, "--background-flows"))
			return gc_fail(e, GC_E_INVAL, "--background-flows '%s' is not a whole "
				       "number of flows in 0..16", v);
		if (!strcmp(opt->o.name, "--racks"))
			return gc_fail(e, GC_E_INVAL, "--racks '%s' is not a number of racks in "
				       "2..64", v);
		return gc_fail(e, GC_E_INVAL, "%s '%s' is not in %lld..%lld", opt->o.name, v,
			       opt->lo, opt->hi);
	}
	*(int64_t *)opt->target = x;
	return GC_OK;
}

static gc_rc model_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	gc_strlcpy(wo.w.model, v, sizeof(wo.w.model));
	return GC_OK;
}

/* A double in a range; the message names it as what (the help's unit included). */
static gc_rc double_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	const char *n = opt->o.name;

	if (!strcmp(n, "--intra-bw"))
		return opt_double(v, 0.01, 1e5, "--intra-bw (GB/s)", opt->target, e) ? GC_E_INVAL : 0;
	if (!strcmp(n, "--intra-latency"))
		return opt_double(v, 0, 1e6, "--intra-latency (us)", opt->target, e) ? GC_E_INVAL : 0;
	if (!strcmp(n, "--slow"))
		return opt_double(v, 0.001, 1, "--slow (the slow node's factor on --bandwidth)",
				  opt->target, e) ? GC_E_INVAL : 0;
	return opt_double(v, 1, 1000, n, opt->target, e) ? GC_E_INVAL : GC_OK;
}

static gc_rc uplink_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	uint64_t bps;
	char hint[160];

	if (gc_bw_parse(v, 0, &bps, e) || !bps)
		return gc_fail(e, GC_E_INVAL, "--uplink is %s", gc_bw_hint(v, 0, hint, sizeof hint));
	wi.uplink = (double)bps / 1e9;
	return GC_OK;
}

#define WHOLE(l, var, low, high, ar, h) { .o = { l, NULL, GC_OPT_ARG, 0 }, .arg = ar, \
	.help = h, .type = GC_OT_CALLBACK, .cb = whole_cb, .target = (var), .lo = low, .hi = high }
#define DOUBLE(l, var, ar, h) { .o = { l, NULL, GC_OPT_ARG, 0 }, .arg = ar, .help = h, \
	.type = GC_OT_CALLBACK, .cb = double_cb, .target = (var) }
static const struct gc_option whatif_opts[] = {
	GC_OPTION_CALLBACK("--model", NULL, GC_OPT_ARG, model_cb, "M",
		"resnet50 (default), resnet101, vgg16, bert-base, gpt2-small,\n"
		"or csv:PATH (a parameter list; without FLOPs it has no compute)"),
	GC_OPTION_STRING("--workers", NULL, &wi.a[0], "LIST", "worker counts (default 8,16,32,64,96)"),
	GC_OPTION_STRING("--bandwidth", NULL, &wi.a[1], "R",
		"per node link, in tc units: LOW:HIGH[:STEP] or a list\n"
		"(default 1gbit:30gbit, step 1gbit; e.g. 100mbit,10gbit);\n"
		"a list item trace:FILE is a bandwidth trace at its mean\n"
		"(docs/netem.md, Bandwidth traces)"),
	GC_OPTION_STRING("--compute-speedup", NULL, &wi.a[2], "L",
		"forward/backward speed multipliers (default 1); 4 = 4x faster"),
	GC_OPTION_STRING("--codec-speedup", NULL, &wi.a[5], "L",
		"encode/decode speed multipliers, swept on their own (default:\n"
		"each compute speedup, i.e. the codec runs on the same device)"),
	GC_OPTION_STRING("--method", NULL, &wi.a[4], "LIST",
		"default signsgd,topk:ratio=0.01,mstopk:ratio=0.01,powersgd:rank=4\n"
		"(with --db: the methods measured there)"),
	GC_OPTION_STRING("--preset", NULL, &wi.a[3], "P",
		"paper (default): a V100 in fp32 (measured), the study's lambda\n"
		"range, NCCL's ring/tree choice, and encode/decode costs counted\n"
		"from the PyTorch code paths the study ran (launches, syncs,\n"
		"memory passes, matrix FLOPs) with device constants that are\n"
		"partly this project's assumptions: --constants lists each\n"
		"with its source or range. gcbench: the same setting with the\n"
		"codecs at the speed of gcbench's kernels (make bench-kernels,\n"
		"relative to a copy; docs/model.md). ideal: free encode/decode,\n"
		"lambda 1"),
	GC_OPTION_STRING("--db", NULL, &wo.db, "FILE",
		"instead of a preset, the model fitted to a results database\n"
		"(as `gcbench model` fits it: latency, host cost, lambda,\n"
		"encode/decode rates, the worker's schedule): what your cluster\n"
		"would do at other bandwidths and scales. A method the database\n"
		"never measured is refused (its codec cost is unknown)"),
	WHOLE("--env", &wi.env, 0, INT64_MAX, "ID",
		"the environment of the database to use (default: the one\n"
		"with the most ok runs)"),
	GC_OPTION_FLAG("--assume-free-codec", NULL, &wo.free_codec,
		"with --db: predict unmeasured methods with free encode/decode\n"
		"(an upper bound), with a warning"),
	WHOLE("--batch", &wi.batch, 1, 1000000, "N", "per-worker batch (default 64)"),
	WHOLE("--seq-len", &wi.seq_len, 1, 1024, "S",
		"tokens per sequence for bert-base (1..512) and gpt2-small\n"
		"(1..1024); default 128"),
	GC_OPTION_STRING("--collective", NULL, &wi.a[6], "C",
		"all-reduce among nodes: ring, tree (double binary tree) or\n"
		"auto (the faster, as NCCL's tuner picks; default, with --db\n"
		"ring as the fit assumed)"),
	WHOLE("--background-flows", &wi.bg, 0, 16, "N",
		"\nN bulk TCP flows (0..16) compete on every link: the ring\n"
		"gets 1/(N+1) of each --bandwidth (a fair share: within 6%\n"
		"of the measured slowdown under a fair queue; a lower bound\n"
		"behind one FIFO: docs/netem.md, Background flows)"),
	WHOLE("--gpus-per-node", &wi.g, 1, 1024, "G",
		"two-level: G GPUs share a node's link (default 1)"),
	DOUBLE("--slow", &wi.slow, "F",
	       "one node's link at F x --bandwidth (0 < F <= 1: a\n"
	       "degraded NIC, 0.875 for one of 8 lost): the ring runs at\n"
	       "its slowest hop, the spec's slow: (docs/model.md)"),
	DOUBLE("--intra-bw", &wo.intra_bw, "B", "GB/s of the links inside a node (default 100)"),
	DOUBLE("--intra-latency", &wo.intra_lat, "L", "us per hop inside a node (default 5)"),
	WHOLE("--racks", &wi.racks, 2, 64, "R",
		"the nodes in R racks of equal size (in rank order) that\n"
		"share uplinks: the ring's bandwidth is the slower of a\n"
		"node's link and its share of an uplink (docs/model.md)"),
	GC_OPTION_CALLBACK("--uplink", NULL, GC_OPT_ARG, uplink_cb, "RATE",
		"with --racks: each rack's uplink, in tc units (1gbit)"),
	DOUBLE("--oversubscription", &wi.oversub, "X",
		"with --racks: each uplink at the sum of its rack's node\n"
		"links over X (2: a 2:1 oversubscribed rack)"),
	GC_OPTION_STRING("--grid", NULL, &wi.a[7], "G", NULL),
	GC_OPTION_DOC("--grid paper", NULL,
		"predict the study's whole grid (3 models x 3 batches x 7\n"
		"methods x 5 worker counts x 8 bandwidths) and count the wins\n"
		"by model, batch, method, workers and bandwidth, next to the\n"
		"study's findings; --model/--batch/--workers/--bandwidth/\n"
		"--method do not apply"),
	GC_OPTION_DOC("--grid study-code", NULL,
		"the same models, batches and methods on the setup the study's\n"
		"released code (uw-mad-dash/GradCompressionUtility) defines,\n"
		"where --grid paper takes the paper's text: 16 p3.8xlarge\n"
		"nodes (4 V100, a two-level collective) instead of 8-96\n"
		"single-GPU workers; BERT with 8 processes per node (two per\n"
		"GPU; the 4-per-node reading is printed too), 512 tokens and\n"
		"45 MB sync-SGD buckets; tc rates 1, 2, 4, 8 and 20 Gbit/s on a\n"
		"10 Gbit/s NIC instead of 1-30; speedups of backward only (the\n"
		"study's CUDA events), PowerSGD's 3 warm-up iterations; and\n"
		"the codecs of the study's hooks (MSTop-K 20/100 threshold\n"
		"rounds, its doubled values all-gather, signSGD's unpack of\n"
		"every worker's bits). --constants cites each line"),
	GC_OPTION_FLAG("--grid-steps", NULL, &wo.steps,
		"the win count as each of those assumptions moves, one at a\n"
		"time, from --grid paper to --grid study-code"),
	GC_OPTION_FLAG("--sensitivity", NULL, &wo.sens,
		"with --grid: the counts again with each assumed\n"
		"constant at either end of its range"),
	GC_OPTION_FLAG("--constants", NULL, &wo.constants,
		"print the paper preset's constants and the study code's\n"
		"setup, with their sources"),
	GC_OPTION_FLAG("--json", NULL, &wo.json,
		"one JSON document instead of tables (sweeps and\n"
		"--constants; refused with --grid)"),
	GC_OPTION_STRING("--svg", NULL, &wo.svg, "DIR",
		"also write one chart per compute speed, codec speed and\n"
		"worker count into the existing directory DIR: speedup\n"
		"against bandwidth, a line per method"),
};

static void whatif_opt_lines(FILE *f)
{
	gc_opts_usage(f, whatif_opts, sizeof whatif_opts / sizeof whatif_opts[0], 23);
}

static int parse_args(int argc, char **argv, struct opts *o, gc_err *e)
{
	gc_opts op;
	const char *a[8];
	int64_t g, env, racks;
	double uplink, oversub;
	int c, bg;

	memset(&wo, 0, sizeof(wo));
	memset(&wi, 0, sizeof(wi));
	wi.a[0] = "8,16,32,64,96", wi.a[1] = "1gbit:30gbit", wi.a[2] = "1";
	wi.g = 1, wi.env = -1, wi.batch = 64;
	gc_strlcpy(wo.w.model, "resnet50", sizeof(wo.w.model));
	wo.algo = GC_ALGO_AUTO;
	wo.intra_bw = 100, wo.intra_lat = 5;
	gc_opts_decl_init(&op, "gcbench whatif", whatif_opts,
			  sizeof whatif_opts / sizeof whatif_opts[0], argc, argv, NULL);
	c = gc_opts_parse_all(&op);
	*o = wo;
	memcpy(a, wi.a, sizeof a);
	g = wi.g, env = wi.env, racks = wi.racks, uplink = wi.uplink, oversub = wi.oversub;
	o->w.batch = (int)wi.batch;
	o->seq_len = (int)wi.seq_len;
	bg = (int)wi.bg;
	if (c == GC_OPTS_HELP || c == GC_OPTS_VERSION)
		return gc_cli_opts_stop(&op, c, usage), 1;
	if (c != GC_OPTS_END)
		return gc_fail(e, GC_E_INVAL, "%s", op.err.msg), -1;
	if (o->json && (a[7] || o->steps))
		return gc_fail(e, GC_E_INVAL, "--json does not apply to --grid or --grid-steps "
			       "(they print tables only); drop --json, or ask for sweeps"), -1;
	o->gpn = (int)g;
	if (racks && !uplink == !oversub)
		return gc_fail(e, GC_E_INVAL, "--racks needs the uplinks' rate: give --uplink RATE "
			       "or --oversubscription X (one of them)"), -1;
	if (!racks && (uplink || oversub))
		return gc_fail(e, GC_E_INVAL, "--%s needs --racks R (how many racks share "
			       "uplinks)", uplink ? "uplink" : "oversubscription"), -1;
	if (racks && (a[7] || o->steps))
		return gc_fail(e, GC_E_INVAL, "--racks applies to sweeps, not to --grid or "
			       "--grid-steps (the study's setups have no racks)"), -1;
	if (bg && (a[7] || o->steps || o->constants))
		return gc_fail(e, GC_E_INVAL, "--background-flows applies to sweeps; drop it with "
			       "--grid, --grid-steps and --constants"), -1;
	if (wi.slow && (a[7] || o->steps || o->constants))
		return gc_fail(e, GC_E_INVAL, "--slow applies to sweeps; drop it with --grid, "
			       "--grid-steps and --constants"), -1;
	if ((o->steps || (a[7] && !strcmp(a[7], "study-code"))) && (o->seq_len || g != 1))
		return gc_fail(e, GC_E_INVAL, "--grid study-code and --grid-steps take BERT's "
			       "tokens and the processes per node from the study's code; drop "
			       "--seq-len and --gpus-per-node"), -1;
	c = finish_args(o, a, env, e);
	o->w.bg_flows = bg;   /* after the preset or fit, which fill w */
	o->w.slow = wi.slow;
	o->w.racks = (int)racks;
	o->w.uplink_gbps = uplink;
	o->w.oversub = oversub;
	return c;
}

/* The fit's parameters (for this model's optimizer cost) and the topology options. */
static void apply_topology(struct opts *o, const gc_arch *a)
{
	if (o->db && a)
		gc_pdb_fit_params(&o->fit, (double)a->numel, &o->w.mp);
	o->w.mp.gpus_per_node = o->gpn;
	o->w.mp.algo = o->algo;
	o->w.mp.bw_intra = o->intra_bw * 1e9;
	o->w.mp.alpha_intra = o->intra_lat * 1e-6;
}

struct tally {
	size_t wins[GC_WHATIF_MAX_METHODS], points;
	double best;
	size_t best_m;
	int best_p;
	double best_bw, best_s, best_c;
};

static int colw(const gc_model_method *m)
{
	int n = (int)strlen(m->label);
	return n < 8 ? 8 : n;
}

static const char *algo_name(gc_coll_algo a)
{
	return a == GC_ALGO_RING ? "ring" : a == GC_ALGO_TREE ? "tree" : "ring/tree (NCCL's pick)";
}

static void header(const struct opts *o)
{
	const gc_whatif *w = &o->w;
	size_t k;

	printf("gcbench whatif: %s, batch %d", w->model, w->batch);
	if (o->seq_len)
		printf(", %d tokens", o->seq_len);
	printf(", parameters: %s (V100 fp32 %.1f TFLOP/s effective, alpha %.0f us, lambda "
	       "%.2f, codec %s), %s all-reduce", w->source, w->device_flops / 1e12,
	       w->mp.alpha * 1e6, w->mp.lambda, w->mp.codec_ops ? "from operation counts" :
	       "from rates", algo_name(w->mp.algo));
	if (w->mp.gpus_per_node > 1)
		printf(", %d GPUs per node (%.3g GB/s, %.3g us inside)", w->mp.gpus_per_node,
		       w->mp.bw_intra / 1e9, w->mp.alpha_intra * 1e6);
	if (w->racks > 1 && w->uplink_gbps > 0)
		printf("; nodes in %d racks, each uplink %g Gbit/s: the bandwidth column is a "
		       "node's link, each point runs at the ring's bottleneck", w->racks,
		       w->uplink_gbps);
	else if (w->racks > 1)
		printf("; nodes in %d racks, uplinks %g:1 oversubscribed: the bandwidth column is "
		       "a node's link, each point runs at the ring's bottleneck", w->racks,
		       w->oversub);
	if (w->slow > 0 && w->slow < 1)
		printf(", one node's link at %g x the bandwidth (the ring runs at its slowest hop)",
		       w->slow);
	if (o->trace_note[0])   /* right for traces faster than an iteration (docs/model.md) */
		printf(", bandwidth %s", o->trace_note);
	if (w->bg_flows)
		printf(", %d competing TCP flow%s per link (the ring gets 1/%d of each bandwidth: "
		       "a fair share, as a fair queue gives)", w->bg_flows, w->bg_flows > 1 ? "s" : "",
		       w->bg_flows + 1);
	printf("\npredicted speedup over sync SGD (> 1: compression is faster)\n\n");
	printf("%-8s %-8s %7s %9s %11s", "compute", "codec", "workers", "bandwidth", "syncsgd_ms");
	for (k = 0; k < w->nmethods; k++)
		printf("  %*s", colw(&w->methods[k]), w->methods[k].label);
	printf("\n");
}

static void tally_add(struct tally *t, size_t k, double sp, int p, double bw, double s,
		      double c)
{
	if (sp > 1)
		t->wins[k]++;
	if (sp > t->best) {
		t->best = sp, t->best_m = k, t->best_p = p, t->best_bw = bw, t->best_s = s;
		t->best_c = c;
	}
}

static void point_json(gc_json *j, const gc_model_method *m, double s, double c, int p,
		       double bw, double sp, const gc_model_result *rs,
		       const gc_model_result *rm)
{
	gc_json_newline(j);
	gc_json_obj_open(j);
	gc_json_numg_field(j, "compute_speedup", s, 6);
	gc_json_numg_field(j, "codec_speedup", c, 6);
	gc_json_int_field(j, "workers", p);
	gc_json_numg_field(j, "gbps", bw, 6);
	{
		char bws[32];
		gc_json_str_field(j, "bandwidth", gc_bw_format((uint64_t)llround(bw * 1e9), bws,
							       sizeof bws));
	}
	gc_json_str_field(j, "method", m->label);
	gc_json_key(j, "speedup");
	gc_json_fixed(j, sp, 4);
	gc_json_numg_field(j, "syncsgd_s", rs->total, 6);
	gc_json_numg_field(j, "method_s", rm->total, 6);
	gc_json_numg_field(j, "encode_s", rm->encode, 6);
	gc_json_numg_field(j, "decode_s", rm->decode, 6);
	gc_json_numg_field(j, "exposed_comm_s", rm->exposed, 6);
	gc_json_uint_field(j, "bytes_sent", rm->bytes_sent);
	gc_json_obj_close(j);
}

/* One row: every method at (s, c, p, bw); into j when not NULL, else a table row. */
static int row(const struct opts *o, gc_arch *a, double s, double c, int p, double bw,
	       gc_json *j, struct tally *t, gc_err *e)
{
	const gc_whatif *w = &o->w;
	gc_model_result rm, rs;
	double sp;
	size_t k;

	for (k = 0; k < w->nmethods; k++) {
		if (gc_whatif_eval(w, a, &w->methods[k], p, bw, s, c, &sp, &rm, &rs, e))
			return -1;
		tally_add(t, k, sp, p, bw, s, c);
		if (j) {
			point_json(j, &w->methods[k], s, c, p, bw, sp, &rs, &rm);
			continue;
		}
		if (k == 0) {
			char sx[32], cx[32];
			snprintf(sx, sizeof(sx), "%gx", s);
			snprintf(cx, sizeof(cx), "%gx", c);
			char bws[32];
			gc_bw_format((uint64_t)llround(bw * 1e9), bws, sizeof bws);
			printf("%-8s %-8s %7d %9s %11.1f", sx, cx, p, bws, rs.total * 1e3);
		}
		printf("  %*.2f", colw(&w->methods[k]), sp);
	}
	if (!j)
		printf("\n");
	t->points++;
	return 0;
}

/* Codec speed n of compute speed s: the --codec-speedup list, else s. */
static double codec_of(const gc_whatif *w, size_t n, double s)
{
	return w->ncodec ? w->codec[n] : s;
}

/* The sweep's points: into js (the document's head and its "points" list) when not
 * NULL, else the table. */
static int sweep(const struct opts *o, gc_arch *a, struct tally *t, gc_json *js, gc_err *e)
{
	const gc_whatif *w = &o->w;
	size_t i, n, j, l, nc = w->ncodec ? w->ncodec : 1;

	if (js) {
		gc_json_obj_open(js);
		gc_json_str_field(js, "model", w->model);
		gc_json_int_field(js, "batch", w->batch);
		gc_json_str_field(js, "preset", w->source);
		if (w->racks > 1) {   /* the points' bandwidth is a node's link (model/racks.h) */
			gc_json_int_field(js, "racks", w->racks);
			gc_json_numg_field(js, w->uplink_gbps > 0 ? "uplink_gbps" : "oversubscription",
					   w->uplink_gbps > 0 ? w->uplink_gbps : w->oversub, 6);
		}
		if (w->bg_flows)
			gc_json_int_field(js, "background_flows", w->bg_flows);
		if (w->slow > 0 && w->slow < 1)
			gc_json_numg_field(js, "slow", w->slow, 6);
		gc_json_key(js, "points");
		gc_json_arr_open(js);
	} else {
		header(o);
	}
	for (i = 0; i < w->nspeed; i++)
		for (n = 0; n < nc; n++)
			for (j = 0; j < w->nworkers; j++)
				for (l = 0; l < w->nbw; l++)
					if (row(o, a, w->speedup[i], codec_of(w, n, w->speedup[i]),
						w->workers[j], w->bw_gbps[l], js, t, e))
						return -1;
	if (js) {
		gc_json_newline(js);
		gc_json_arr_close(js);
	}
	return 0;
}

static void cross_json(gc_json *j, const gc_model_method *m, int p, double s, double c,
		       double x)
{
	char top[32];

	gc_json_newline(j);
	gc_json_obj_open(j);
	gc_json_numg_field(j, "compute_speedup", s, 6);
	gc_json_numg_field(j, "codec_speedup", c, 6);
	gc_json_int_field(j, "workers", p);
	gc_json_str_field(j, "method", m->label);
	if (isinf(x)) {                 /* wins up to the top of the range: "1e+04+" */
		snprintf(top, sizeof(top), "%.4g+", 1e4);
		gc_json_str_field(j, "wins_below_gbps", top);
	} else {
		gc_json_numg_field(j, "wins_below_gbps", x, 4);
	}
	gc_json_obj_close(j);
}

/* One method's crossover x: into j when not NULL, else a line of text. */
static void print_cross(gc_json *j, const gc_model_method *m, int p, double s, double c,
			double x)
{
	if (j)
		cross_json(j, m, p, s, c, x);
	else if (x == 0) {
		printf("  %-22s never wins (0.1 to 10000 Gbit/s)\n", m->label);
	} else if (isinf(x)) {
		printf("  %-22s wins at every bandwidth up to 10000 Gbit/s\n", m->label);
	} else {
		printf("  %-22s wins below %.3g Gbit/s\n", m->label, x);
	}
}

/* The crossovers: into js (the document's "crossover" list) when not NULL, else text. */
static int crossovers(const struct opts *o, gc_arch *a, gc_json *js, gc_err *e)
{
	const gc_whatif *w = &o->w;
	size_t i, n, j, k, nc = w->ncodec ? w->ncodec : 1;
	double x, c;

	if (js) {
		gc_json_newline(js);
		gc_json_key(js, "crossover");
		gc_json_arr_open(js);
	} else {
		printf("\ncrossover bandwidth (the method beats sync SGD below it):\n");
	}
	for (i = 0; i < w->nspeed; i++)
		for (n = 0; n < nc; n++)
			for (j = 0; j < w->nworkers; j++) {
				c = codec_of(w, n, w->speedup[i]);
				if (!js)
					printf(" compute %gx, codec %gx, %d workers:\n", w->speedup[i],
					       c, w->workers[j]);
				for (k = 0; k < w->nmethods; k++) {
					if (gc_whatif_crossover(w, a, &w->methods[k], w->workers[j],
								w->speedup[i], c, &x, e))
						return -1;
					print_cross(js, &w->methods[k], w->workers[j],
						    w->speedup[i], c, x);
				}
			}
	if (js) {
		gc_json_newline(js);
		gc_json_arr_close(js);
	}
	return 0;
}

/* The summary: into j (closing the document) when not NULL, else text. */
static void summary(const struct opts *o, const struct tally *t, gc_json *j)
{
	const gc_whatif *w = &o->w;
	size_t k, wins = 0, n = t->points * w->nmethods;

	for (k = 0; k < w->nmethods; k++)
		wins += t->wins[k];
	if (j) {
		gc_json_newline(j);
		gc_json_key(j, "summary");
		gc_json_obj_open(j);
		gc_json_uint_field(j, "configurations", n);
		gc_json_uint_field(j, "gains", wins);
		gc_json_key(j, "best_speedup");
		gc_json_fixed(j, t->best, 4);
		gc_json_str_field(j, "best_method", w->methods[t->best_m].label);
		gc_json_obj_close(j);
		gc_json_newline(j);
		gc_json_obj_close(j);
		return;
	}
	printf("\nsummary: %zu of %zu configurations gain (speedup > 1)", wins, n);
	char bws[32];
	gc_bw_format((uint64_t)llround(t->best_bw * 1e9), bws, sizeof bws);
	printf("; best %.2fx: %s at %d workers, %s, %gx compute, %gx codec\n", t->best,
	       w->methods[t->best_m].label, t->best_p, bws, t->best_s, t->best_c);
	for (k = 0; k < w->nmethods; k++)
		printf("  %-22s gains in %zu of %zu\n", w->methods[k].label, t->wins[k], t->points);
	printf("note: predictions of the model (docs/model.md), not measurements; the study "
	       "measured gains in 6 of 200+ setups (gcbench whatif --grid paper compares).\n");
}

/* The sweep, its crossovers and its summary: tables (printed as they come), or with
 * --json one document, printed once whole. 0, or -1 (e says why). */
static int report(const struct opts *o, gc_arch *a, gc_err *e)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j, *js = NULL;
	struct tally t;
	gc_rc rc;
	int r;

	memset(&t, 0, sizeof(t));
	if (o->json) {
		gc_json_init(&j, &b, GC_JSON_SPACED);
		js = &j;
	}
	r = sweep(o, a, &t, js, e) || crossovers(o, a, js, e);
	if (!r)
		summary(o, &t, js);
	if (!r && js) {
		rc = gc_json_finish(js);
		if (rc)
			r = gc_fail(e, rc, "cannot write the JSON document: %s", gc_strerror(rc));
		else
			printf("%s\n", b.p);
	}
	gc_buf_release(&b);
	return r ? -1 : 0;
}

/* --constants --json: [{"name", "unit", "value", "lo", "hi", "source"}, ...] */
static int constants_json(void)
{
	size_t n;
	const gc_whatif_const *c = gc_whatif_constants(&n);
	gc_buf b;
	gc_json j;

	gc_buf_init(&b);
	gc_json_init(&j, &b, GC_JSON_SPACED);
	gc_json_arr_open(&j);
	for (size_t i = 0; i < n; i++) {
		gc_json_newline(&j);
		gc_json_obj_open(&j);
		gc_json_str_field(&j, "name", c[i].name);
		gc_json_str_field(&j, "unit", c[i].unit);
		gc_json_numg_field(&j, "value", c[i].value, 6);
		gc_json_numg_field(&j, "lo", c[i].lo, 6);
		gc_json_numg_field(&j, "hi", c[i].hi, 6);
		gc_json_str_field(&j, "source", c[i].source);
		gc_json_obj_close(&j);
	}
	gc_json_newline(&j);
	gc_json_arr_close(&j);
	return gc_cli_json_print(&b, &j);
}

int cmd_whatif(int argc, char **argv)
{
	struct opts o;
	gc_arch a;
	gc_err e;
	gc_rc rc;
	int r = parse_args(argc, argv, &o, &e);

	if (r) {
		if (r < 0)
			gc_error("%s", e.msg);
		return r > 0 ? GC_EXIT_OK : GC_EXIT_USAGE;
	}
	if (o.constants)
		return o.json ? constants_json() : (gc_whatif_print_constants(), 0);
	if (o.steps) {
		apply_topology(&o, NULL);
		if (gc_whatif_print_steps(&o, &e)) {
			gc_error("whatif: %s", e.msg);
			return GC_EXIT_FAILED;
		}
		return GC_EXIT_OK;
	}
	if (o.grid) {
		if (o.db)
			gc_pdb_fit_params(&o.fit, 25557032.0, &o.w.mp);  /* ResNet-50's optimizer */
		apply_topology(&o, NULL);
		if ((rc = gc_whatif_print_grid(&o, &e))) {
			gc_error("whatif: %s", e.msg);
			return gc_exit_code(rc);   /* an unknown grid or option: 2 */
		}
		return GC_EXIT_OK;
	}
	if (gc_arch_build(o.w.model, &a, &e) ||
	    (o.seq_len && gc_whatif_scale_seq(&a, o.seq_len, &e))) {
		gc_error("whatif: %s", e.msg);
		gc_arch_release(&a);
		return GC_EXIT_USAGE;
	}
	apply_topology(&o, &a);
	r = report(&o, &a, &e);
	if (!r && o.svg) {
		size_t nf;
		if (!(r = gc_whatif_svg(&o.w, &a, o.svg, &nf, &e) != GC_OK))
			printf("charts: %zu SVG files in %s\n", nf, o.svg);
	}
	if (r)
		gc_error("whatif: %s", e.msg);
	gc_arch_release(&a);
	return r ? GC_EXIT_FAILED : GC_EXIT_OK;
}

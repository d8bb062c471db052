/* gcbench whatif: the performance model's answer at scales, bandwidths and compute
 * speeds you do not have (model/whatif.h, docs/model.md). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "model/predict_db.h"
#include "model/whatif.h"
#include "strutil.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench whatif [--model M] [--workers LIST] [--bandwidth RANGE|LIST]\n"
		"                      [--compute-speedup LIST] [--method LIST] [--preset paper|ideal]\n"
		"                      [--db FILE [--env ID]] [--batch N] [--gpus-per-node G] [--json]\n\n"
		"Predict, with the performance model of Agarwal et al. (MLSys 2022), the speedup of\n"
		"each compression method over synchronous SGD (bucketed ring all-reduce overlapped\n"
		"with backward) per worker count, link bandwidth and compute speed; the crossover\n"
		"bandwidth below which each method wins; and how many configurations gain at all.\n"
		"These are predictions, not measurements: see docs/model.md for what the model\n"
		"leaves out and how far it is from the study's measured findings.\n\n"
		"options:\n"
		"  --model M            resnet50 (default), resnet101, vgg16, bert-base, gpt2-small,\n"
		"                       or csv:PATH (a parameter list; without FLOPs it has no compute)\n"
		"  --workers LIST       worker counts (default 8,16,32,64,96)\n"
		"  --bandwidth R        Gbit/s per node link: LOW:HIGH[:STEP] or a list (default 1:30)\n"
		"  --compute-speedup L  device speed multipliers (default 1); 4 = 4x faster GPUs\n"
		"  --method LIST        default signsgd,topk:ratio=0.01,mstopk:ratio=0.01,powersgd:rank=4\n"
		"  --preset P           paper (default): V100 fp32, NCCL ring, the study's lambda and\n"
		"                       encode/decode costs; ideal: free encode/decode, lambda 1\n"
		"  --db FILE            instead of a preset, the model fitted to a results database\n"
		"                       (as `gcbench model` fits it: latency, host cost, lambda,\n"
		"                       encode/decode rates of the methods measured there, the\n"
		"                       worker's schedule): what your cluster would do at other\n"
		"                       bandwidths and scales. A method never measured there costs\n"
		"                       nothing to encode or decode.\n"
		"  --env ID             the environment of the database to use (default: the one\n"
		"                       with the most ok runs)\n"
		"  --batch N            per-worker batch (default 64; sequences of 128 tokens for\n"
		"                       bert-base/gpt2-small)\n"
		"  --gpus-per-node G    hierarchical: G GPUs share a node's link (default 1)\n"
		"  --json               one JSON document instead of tables\n\n"
		"example:\n"
		"  gcbench whatif --model resnet50 --workers 8,32,96 --bandwidth 1:30:1 \\\n"
		"      --compute-speedup 1,4 --method powersgd:rank=4,signsgd\n"
		"  gcbench whatif --db gcbench.db --workers 4,16,64 --bandwidth 1,10,25\n");
}

struct opts {
	gc_whatif w;
	int json;
	const char *db;          /* --db: parameters fitted to this database */
	gc_pdb_fit fit;
};

static int parse_args(int argc, char **argv, struct opts *o, gc_err *e)
{
	static const struct option lo[] = {
		{ "model", 1, 0, 'm' }, { "workers", 1, 0, 'w' }, { "bandwidth", 1, 0, 'b' },
		{ "compute-speedup", 1, 0, 'c' }, { "method", 1, 0, 'M' }, { "preset", 1, 0, 'p' },
		{ "batch", 1, 0, 'B' }, { "gpus-per-node", 1, 0, 'g' }, { "json", 0, 0, 'j' },
		{ "db", 1, 0, 'D' }, { "env", 1, 0, 'E' },
		{ "help", 0, 0, 'h' }, { 0, 0, 0, 0 },
	};
	const char *workers = "8,16,32,64,96", *bw = "1:30", *cs = "1", *preset = "paper",
		   *methods = "signsgd,topk:ratio=0.01,mstopk:ratio=0.01,powersgd:rank=4";
	int64_t v, g = 1, env = -1;
	int c;

	memset(o, 0, sizeof(*o));
	gc_strlcpy(o->w.model, "resnet50", sizeof(o->w.model));
	o->w.batch = 64;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'm': gc_strlcpy(o->w.model, optarg, sizeof(o->w.model)); break;
		case 'w': workers = optarg; break;
		case 'b': bw = optarg; break;
		case 'c': cs = optarg; break;
		case 'M': methods = optarg; break;
		case 'p': preset = optarg; break;
		case 'D': o->db = optarg; break;
		case 'E':
			if (gc_parse_i64(optarg, &env) || env < 0)
				return gc_fail(e, GC_E_INVAL, "--env '%s' is not an environment id "
					       "(a whole number >= 0)", optarg), -1;
			break;
		case 'j': o->json = 1; break;
		case 'h': return 1;
		case 'B':
			if (gc_parse_i64(optarg, &v) || v < 1 || v > 1000000)
				return gc_fail(e, GC_E_INVAL, "--batch '%s' is not a whole number in "
					       "1..1000000", optarg), -1;
			o->w.batch = (int)v;
			break;
		case 'g':
			if (gc_parse_i64(optarg, &g) || g < 1 || g > 1024)
				return gc_fail(e, GC_E_INVAL, "--gpus-per-node '%s' is not in 1..1024",
					       optarg), -1;
			break;
		default:
			return gc_fail(e, GC_E_INVAL, "unknown or incomplete option '%s'; see "
				       "'gcbench whatif --help'", argv[optind - 1]), -1;
		}
	}
	if (optind < argc)
		return gc_fail(e, GC_E_INVAL, "unexpected argument '%s'", argv[optind]), -1;
	if (env >= 0 && !o->db)
		return gc_fail(e, GC_E_INVAL, "--env needs --db"), -1;
	if (o->db && gc_pdb_fit_load(o->db, env, &o->fit, e))
		return -1;
	if (gc_whatif_preset(&o->w, o->db ? "ideal" : preset, e) ||
	    gc_whatif_parse_workers(workers, &o->w, e) ||
	    gc_whatif_parse_bw(bw, &o->w, e) || gc_whatif_parse_speedup(cs, &o->w, e) ||
	    gc_whatif_parse_methods(methods, &o->w, e))
		return -1;
	o->w.mp.gpus_per_node = (int)g;
	if (o->db)
		snprintf(o->w.source, sizeof(o->w.source), "%.120s, environment %lld", o->db,
			 (long long)o->fit.env_id);
	return 0;
}

struct tally {
	size_t wins[GC_WHATIF_MAX_METHODS], points;
	double best;
	size_t best_m;
	int best_p;
	double best_bw, best_s;
};

static int colw(const gc_model_method *m)
{
	int n = (int)strlen(m->label);
	return n < 8 ? 8 : n;
}

static void header(const struct opts *o)
{
	const gc_whatif *w = &o->w;
	size_t k;

	printf("gcbench whatif: %s, batch %d, parameters: %s (V100 fp32 %.1f TFLOP/s effective, "
	       "alpha %.0f us, lambda %.2f), %s\n", w->model, w->batch,
	       w->source, GC_V100_FLOPS / 1e12, w->mp.alpha * 1e6,
	       w->mp.lambda, w->mp.gpus_per_node > 1 ? "hierarchical" : "flat ring");
	printf("predicted speedup over sync SGD (> 1: compression is faster)\n\n");
	printf("%-8s %7s %8s %11s", "compute", "workers", "Gbit/s", "syncsgd_ms");
	for (k = 0; k < w->nmethods; k++)
		printf("  %*s", colw(&w->methods[k]), w->methods[k].label);
	printf("\n");
}

static void tally_add(struct tally *t, size_t k, double sp, int p, double bw, double s)
{
	if (sp > 1)
		t->wins[k]++;
	if (sp > t->best) {
		t->best = sp, t->best_m = k, t->best_p = p, t->best_bw = bw, t->best_s = s;
	}
}

/* One row: every method at (s, p, bw). */
static int row(const struct opts *o, gc_arch *a, double s, int p, double bw, int *first,
	       struct tally *t, gc_err *e)
{
	const gc_whatif *w = &o->w;
	gc_model_result rm, rs;
	double sp;
	size_t k;

	for (k = 0; k < w->nmethods; k++) {
		if (gc_whatif_point(w, a, &w->methods[k], p, bw, s, &sp, &rm, &rs, e))
			return -1;
		tally_add(t, k, sp, p, bw, s);
		if (o->json) {
			printf("%s\n    {\"compute_speedup\": %g, \"workers\": %d, \"gbps\": %g, "
			       "\"method\": \"%s\", \"speedup\": %.4f, \"syncsgd_s\": %.6g, "
			       "\"method_s\": %.6g, \"encode_s\": %.6g, \"decode_s\": %.6g, "
			       "\"exposed_comm_s\": %.6g, \"bytes_sent\": %zu}", *first ? "" : ",",
			       s, p, bw, w->methods[k].label, sp, rs.total, rm.total, rm.encode,
			       rm.decode, rm.exposed, rm.bytes_sent);
			*first = 0;
			continue;
		}
		if (k == 0) {
			char sx[32];
			snprintf(sx, sizeof(sx), "%gx", s);
			printf("%-8s %7d %8.3g %11.1f", sx, p, bw, rs.total * 1e3);
		}
		printf("  %*.2f", colw(&w->methods[k]), sp);
	}
	if (!o->json)
		printf("\n");
	t->points++;
	return 0;
}

static int sweep(const struct opts *o, gc_arch *a, struct tally *t, gc_err *e)
{
	const gc_whatif *w = &o->w;
	size_t i, j, l;
	int first = 1;

	if (o->json)
		printf("{\"model\": \"%s\", \"batch\": %d, \"preset\": \"%s\", \"points\": [",
		       w->model, w->batch, w->source);
	else
		header(o);
	for (i = 0; i < w->nspeed; i++)
		for (j = 0; j < w->nworkers; j++)
			for (l = 0; l < w->nbw; l++)
				if (row(o, a, w->speedup[i], w->workers[j], w->bw_gbps[l], &first, t, e))
					return -1;
	if (o->json)
		printf("\n  ],\n  \"crossover\": [");
	return 0;
}

static void print_cross(const struct opts *o, const gc_model_method *m, int p, double s,
			double x, int *first)
{
	if (o->json) {
		printf("%s\n    {\"compute_speedup\": %g, \"workers\": %d, \"method\": \"%s\", "
		       "\"wins_below_gbps\": %s%.4g%s}", *first ? "" : ",", s, p, m->label,
		       isinf(x) ? "\"" : "", isinf(x) ? 1e4 : x, isinf(x) ? "+\"" : "");
		*first = 0;
	} else if (x == 0) {
		printf("  %-22s never wins (0.1 to 10000 Gbit/s)\n", m->label);
	} else if (isinf(x)) {
		printf("  %-22s wins at every bandwidth up to 10000 Gbit/s\n", m->label);
	} else {
		printf("  %-22s wins below %.3g Gbit/s\n", m->label, x);
	}
}

static int crossovers(const struct opts *o, gc_arch *a, gc_err *e)
{
	const gc_whatif *w = &o->w;
	int first = 1;
	size_t i, j, k;
	double x;

	if (!o->json)
		printf("\ncrossover bandwidth (the method beats sync SGD below it):\n");
	for (i = 0; i < w->nspeed; i++)
		for (j = 0; j < w->nworkers; j++) {
			if (!o->json)
				printf(" compute %gx, %d workers:\n", w->speedup[i], w->workers[j]);
			for (k = 0; k < w->nmethods; k++) {
				if (gc_whatif_crossover(w, a, &w->methods[k], w->workers[j],
							w->speedup[i], &x, e))
					return -1;
				print_cross(o, &w->methods[k], w->workers[j], w->speedup[i], x, &first);
			}
		}
	return 0;
}

static void summary(const struct opts *o, const struct tally *t)
{
	const gc_whatif *w = &o->w;
	size_t k, wins = 0, n = t->points * w->nmethods;

	for (k = 0; k < w->nmethods; k++)
		wins += t->wins[k];
	if (o->json) {
		printf("\n  ],\n  \"summary\": {\"configurations\": %zu, \"gains\": %zu, "
		       "\"best_speedup\": %.4f, \"best_method\": \"%s\"}\n}\n", n, wins, t->best,
		       w->methods[t->best_m].label);
		return;
	}
	printf("\nsummary: %zu of %zu configurations gain (speedup > 1)", wins, n);
	printf("; best %.2fx: %s at %d workers, %g Gbit/s, %gx compute\n", t->best,
	       w->methods[t->best_m].label, t->best_p, t->best_bw, t->best_s);
	for (k = 0; k < w->nmethods; k++)
		printf("  %-22s gains in %zu of %zu\n", w->methods[k].label, t->wins[k], t->points);
	printf("note: predictions of the model (docs/model.md), not measurements; the study "
	       "measured gains in 6 of 200+ setups.\n");
}

int cmd_whatif(int argc, char **argv)
{
	struct tally t;
	struct opts o;
	gc_arch a;
	gc_err e;
	int r = parse_args(argc, argv, &o, &e);

	if (r) {
		if (r > 0)
			usage(stdout);
		else
			gc_error("whatif: %s", e.msg);
		return r > 0 ? 0 : 2;
	}
	if (gc_arch_build(o.w.model, &a, &e)) {
		gc_error("whatif: %s", e.msg);
		return 2;
	}
	if (o.db) {                     /* the fit, with this model's optimizer cost */
		int g = o.w.mp.gpus_per_node;
		gc_pdb_fit_params(&o.fit, (double)a.numel, &o.w.mp);
		o.w.mp.gpus_per_node = g;
	}
	memset(&t, 0, sizeof(t));
	r = sweep(&o, &a, &t, &e) || crossovers(&o, &a, &e);
	if (!r)
		summary(&o, &t);
	else
		gc_error("whatif: %s", e.msg);
	gc_arch_release(&a);
	return r ? 1 : 0;
}

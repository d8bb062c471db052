/* gcbench model: fit the performance model to a results database, predict every ok
 * run, store the predictions and print predicted vs measured (model/predict_db.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "commands.h"
#include "json.h"
#include "log.h"
#include "model/predict_db.h"
#include "model/validate.h"
#include "strutil.h"

struct opts {
	const char *db, *predict, *baseline;
	int validate;
	int fit_only, no_store, json;
	int64_t env;
};

static struct opts mo = { .db = "gcbench.db", .env = -1 };   /* the declarations' targets */

static gc_rc heldout_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (mo.predict)
		return gc_fail(e, GC_E_INVAL, "--predict and --validate take one database, once; "
			       "give one of them");
	mo.predict = v;
	mo.validate = !strcmp(opt->o.name, "--validate");
	return GC_OK;
}

static gc_rc env_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (gc_parse_i64(v, &mo.env) || mo.env < 0)
		return gc_fail(e, GC_E_INVAL, "--env '%s' is not an environment id (a whole number "
			       ">= 0)", v);
	return GC_OK;
}

static const struct gc_option model_opts[] = {
	GC_OPTION_STRING("--db", NULL, &mo.db, "FILE",
		"results database (default gcbench.db); it must exist, and one this\n"
		"user cannot write (or its folder) is only read, as --no-store"),
	GC_OPTION_FLAG("--fit-only", NULL, &mo.fit_only, "print the fitted parameters only; store nothing"),
	GC_OPTION_FLAG("--no-store", NULL, &mo.no_store,
		"predict and print, but do not write the predictions"),
	GC_OPTION_FLAG("--json", NULL, &mo.json, "one JSON document instead of tables"),
	GC_OPTION_CALLBACK("--predict", NULL, GC_OPT_ARG, heldout_cb, "F",
		"out of sample: fit --db (environment --env, default the one with\n"
		"the most ok runs) and predict every ok run of the database F with\n"
		"that fit: per run and per method the error on runs it never saw\n"
		"(e.g. other bandwidths); stores nothing"),
	GC_OPTION_CALLBACK("--validate", NULL, GC_OPT_ARG, heldout_cb, "F",
		"as --predict, but print the validation table: per method, bandwidth\n"
		"cap, world size, ranks per node and network the median and\n"
		"95th-percentile |error| on the held-out runs of F, and how often the\n"
		"model gives the measured verdict (does the method beat the baseline\n"
		"at that point, on the same network?), next to the goals (median\n"
		"<= 8%, p95 <= 15%, >= 95%)"),
	GC_OPTION_STRING("--baseline", NULL, &mo.baseline, "M",
		"with --validate: the method verdicts compare with (syncsgd)"),
	GC_OPTION_CALLBACK("--env", NULL, GC_OPT_ARG, env_cb, "ID",
		"with --predict or --validate: the environment of --db to fit"),
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench model [--db FILE] [--fit-only] [--no-store] [--json]\n"
		"       gcbench model --db FILE [--env ID] --predict OTHER [--json]\n"
		"       gcbench model --db FILE [--env ID] --validate HELDOUT [--baseline M]\n\n"
		"Fit the performance model of Agarwal et al. (MLSys 2022) to the measurements in a\n"
		"results database, per environment: per-hop latency and achieved bandwidth from the\n"
		"links' calibration (goodput, RTT; without one, the cap x 1448/1514), lambda from the\n"
		"sync-SGD runs where compute dominates, encode/decode rates from the per-iteration\n"
		"encode/decode medians. Then predict the median iteration time of every ok run,\n"
		"store it in the predictions table (model version " GC_PDB_VERSION "; the fitted\n"
		"parameters in model_fits) and print predicted vs measured per run, the median\n"
		"and worst |error| per method, and the same leave-one-out (each run predicted by\n"
		"a fit without it).\n"
		"`gcbench report` plots these predictions against the measurements.\n\n"
		"options:\n");
	gc_opts_usage(f, model_opts, sizeof model_opts / sizeof model_opts[0], 16);
	fprintf(f, "\n"
		"example:\n"
		"  gcbench run experiments/quickstart.yaml --db q.db && gcbench model --db q.db\n"
		"  gcbench model --db q.db --validate h.db   (h.db: experiments/heldout.yaml)\n"
		"  sudo tools/validation-table.sh            (the fit and every held-out set)\n");
}


/* 0 to go on, -1 for a mistake (reported), 1 when help or version was printed. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	gc_opts p;
	int c;

	gc_opts_decl_init(&p, "gcbench model", model_opts, sizeof model_opts / sizeof model_opts[0],
			  argc, argv, NULL);
	c = gc_opts_parse_all(&p);
	*o = mo;
	if (c != GC_OPTS_END)
		return gc_cli_opts_stop(&p, c, usage) ? -1 : 1;
	if (o->env >= 0 && !o->predict) {
		gc_error("--env needs --predict (without it every environment is fitted)");
		return -1;
	}
	if (o->baseline && !o->validate) {
		gc_error("--baseline needs --validate (it names the method verdicts compare with)");
		return -1;
	}
	if (o->validate && o->json) {
		gc_error("--validate prints a table; drop --json (--predict F --json has the runs)");
		return -1;
	}
	if (o->predict && (o->fit_only || o->no_store)) {
		gc_error("--predict stores nothing and prints the runs; drop --fit-only/--no-store");
		return -1;
	}
	return 0;
}

static void print_fit_text(const gc_pdb_fit *f)
{
	int m;

	printf("environment %lld: %zu ok runs, %zu link rows\n", (long long)f->env_id,
	       f->n_runs, f->n_links);
	printf("  alpha      %.1f us per hop on the wire %s\n",
	       f->alpha_link >= 0 ? f->alpha_link * 1e6 : 25.0,
	       f->alpha_link >= 0 ? "(median RTT / 2)" : "(no RTT: 25 us + run latency)");
	if (f->n_comm)
		printf("  software   %.1f us per hop; host cost %s%.3g GB/s of link traffic "
		       "(fitted to t_comm of %zu runs)\n", f->alpha_sw * 1e6,
		       f->mp.host_bw > 0 ? "" : "none ", f->mp.host_bw / 1e9, f->n_comm);
	else
		printf("  software   none fitted (no run with p > 1 and time in collectives)\n");
	if (f->goodput_ratio > 0)
		printf("  bandwidth  goodput %.3f x cap (link rows; per run its own)\n",
		       f->goodput_ratio);
	else
		printf("  bandwidth  cap x 1448/1514 (no link rows)\n");
	printf("  lambda     %.3f (%zu sync-SGD runs%s)\n", f->mp.lambda, f->n_lambda,
	       f->n_lambda ? (f->lambda_compute_bound ? ", compute-bound" :
			      ", none compute-bound: all of them") : ": none, default 1");
	printf("  fwd/bwd    %.3f; optimizer %.3g ns per parameter\n", f->mp.fwd_over_bwd,
	       f->opt_per_elem * 1e9);
	for (m = 1; m < GC_M__COUNT; m++)
		if (f->n_enc[m] || f->n_dec[m])
			printf("  %-9s  encode %.3g elem/s (%zu runs), decode %.3g elem/s (%zu runs)\n",
			       gc_method_name((gc_method)m), f->mp.enc_rate[m], f->n_enc[m],
			       f->mp.dec_rate[m], f->n_dec[m]);
}

static void print_rows_text(const gc_pdb *p)
{
	size_t i;

	printf("\n%6s  %-10s %-9s %-28s %3s %7s %12s %12s %8s %8s\n", "run", "model", "method",
	       "params", "p", "Gbit/s", "measured_ms", "predicted_ms", "error", "cv_err");
	for (i = 0; i < p->nrows; i++) {
		const gc_pdb_row *r = &p->rows[i];
		printf("%6lld  %-10.10s %-9.9s %-28.28s %3d %7.2f %12.1f ", (long long)r->run_id,
		       r->model, r->method, r->params, r->world_size, r->bw_cap_bps / 1e9,
		       r->measured * 1e3);
		if (r->skipped[0])
			printf("%12s  (%s)\n", "-", r->skipped);
		else if (!isfinite(r->cv_err))
			printf("%12.1f %+7.1f%% %8s\n", r->pred.total * 1e3, r->rel_err * 100, "-");
		else
			printf("%12.1f %+7.1f%% %+7.1f%%\n", r->pred.total * 1e3, r->rel_err * 100,
			       r->cv_err * 100);
	}
	printf("\n%-10s %5s %13s %12s %16s\n", "method", "runs", "median_|err|", "worst_|err|",
	       "median_|cv_err|");
	for (i = 0; i < p->nmethods; i++) {
		printf("%-10s %5zu %12.1f%% %11.1f%%", p->methods[i].method, p->methods[i].n,
		       p->methods[i].median_abs * 100, p->methods[i].worst_abs * 100);
		if (p->methods[i].n_cv)
			printf(" %15.1f%%\n", p->methods[i].median_abs_cv * 100);
		else
			printf(" %16s\n", "-");
	}
	if (p->nmethods && p->methods[0].n_cv)
		printf("\nerror: the fit uses every run; cv_err: leave-one-out, the run predicted "
		       "by a fit without it\n");
}

static int print_json(const gc_pdb *p, const struct opts *o);

static void val_row(const gc_val_group *g)
{
	printf("  %-22s %6zu %9.1f%% %9.1f%% %+9.1f%%", g->name, g->n, g->median_abs * 100,
	       g->p95_abs * 100, g->mean_err * 100);
	if (g->verdicts)
		printf(" %6zu of %-4zu %5.1f%%\n", g->agree, g->verdicts,
		       100.0 * (double)g->agree / (double)g->verdicts);
	else
		printf(" %14s\n", "-");
}

static void val_block(const char *by, const gc_val_group *g, size_t n)
{
	size_t i;

	printf("\nby %s:\n  %-22s %6s %10s %10s %10s %s\n", by, "", "points", "median|e|",
	       "p95|e|", "mean e", "verdicts agree");
	for (i = 0; i < n; i++)
		val_row(&g[i]);
}

static const char *met(int ok) { return ok ? "met" : "missed"; }

/* --validate: the validation table of p (validate.h); 1 after a message on failure. */
static int print_validation(const gc_pdb *p, const struct opts *o, const gc_pdb_fit *f)
{
	const char *base = o->baseline ? o->baseline : "syncsgd";
	gc_val_point *pts = calloc(p->nrows ? p->nrows : 1, sizeof(*pts));
	gc_validation v;
	gc_err e = { "" };
	size_t i;
	int rc = 1;

	if (!pts) {
		gc_error("validation: out of memory");
		return 1;
	}
	for (i = 0; i < p->nrows; i++) {
		const gc_pdb_row *r = &p->rows[i];
		pts[i].env_id = r->env_id;
		gc_strlcpy(pts[i].model, r->model, sizeof(pts[i].model));
		gc_strlcpy(pts[i].method, r->method, sizeof(pts[i].method));
		pts[i].world_size = r->world_size, pts[i].batch = r->batch;
		pts[i].nodes = r->nodes;
		pts[i].cap_bps = r->point_cap_bps, pts[i].measured = r->measured;
		gc_strlcpy(pts[i].network, r->network, sizeof(pts[i].network));
		pts[i].predicted = r->skipped[0] ? 0 : r->pred.total;
	}
	if (gc_validate(pts, p->nrows, base, &v, &e)) {
		gc_error("cannot validate on '%s': %s", o->predict, e.msg);
		goto out;
	}
	printf("gcbench model %s: validation, the fit of '%s' (environment %lld) on the %zu "
	       "held-out runs of '%s'; verdict: does the method beat %s at that point?\n",
	       GC_PDB_VERSION, o->db, (long long)f->env_id, v.all.n, o->predict, base);
	val_block("method", v.method, v.nmethod);
	val_block("bandwidth cap", v.cap, v.ncap);
	val_block("world size", v.world, v.nworld);
	val_block("ranks per node", v.rpn, v.nrpn);
	val_block("network", v.net, v.nnet);
	printf("\n");
	val_row(&v.all);
	printf("\ngoals (a quiet machine): median |e| <= %.0f%% %s, p95 |e| <= %.0f%% %s, "
	       "verdicts agree >= %.0f%% %s\n", GC_VAL_GOAL_MEDIAN * 100,
	       met(v.all.median_abs <= GC_VAL_GOAL_MEDIAN), GC_VAL_GOAL_P95 * 100,
	       met(v.all.p95_abs <= GC_VAL_GOAL_P95), GC_VAL_GOAL_AGREE * 100,
	       met(v.all.verdicts && (double)v.all.agree >= GC_VAL_GOAL_AGREE *
		   (double)v.all.verdicts));
	{
		const gc_val_point *w = &pts[v.worst];
		printf("worst: %s %s, %d workers, %g Gbit/s, %s: measured %.1f ms, predicted "
		       "%.1f ms (%+.1f%%)\n", w->model, w->method, w->world_size,
		       (double)w->cap_bps / 1e9, w->network[0] ? w->network : "uniform",
		       w->measured * 1e3, w->predicted * 1e3,
		       (w->predicted / w->measured - 1) * 100);
	}
	for (i = 0; i < v.ndisagree && i < GC_VAL_MAX_GROUPS; i++) {
		const gc_val_point *d = &pts[v.disagree[i]];
		printf("verdict differs: %s %s, %d workers, %g Gbit/s, %s\n", d->model, d->method,
		       d->world_size, (double)d->cap_bps / 1e9,
		       d->network[0] ? d->network : "uniform");
	}
	if (!v.all.verdicts)
		printf("no verdicts: no held-out point has a %s run at its model, batch, world "
		       "size, cap and network\n", base);
	rc = 0;
out:
	free(pts);
	return rc;
}

/* --predict: the fit of o->db on the runs of o->predict. */
static int predict_other(const struct opts *o)
{
	gc_pdb_fit f;
	gc_pdb p;
	gc_db *db = NULL;
	gc_err e = { "" };
	int rc = GC_EXIT_ENV;

	memset(&p, 0, sizeof(p));
	if (gc_pdb_fit_load(o->db, o->env, &f, &e)) {
		gc_error("cannot fit the model to '%s': %s", o->db, e.msg);
		return GC_EXIT_ENV;
	}
	if (gc_db_open(o->predict, GC_DB_READONLY, &db, &e) || gc_pdb_run_with(db, &f, &p, &e)) {
		gc_error("cannot predict the runs of '%s': %s", o->predict, e.msg);
		goto out;
	}
	if (o->validate) {
		if (print_validation(&p, o, &f))
			goto out;
	} else if (o->json) {
		p.fits[0] = f, p.nfits = 1;
		if (print_json(&p, o))
			goto out;
	} else {
		printf("gcbench model %s: out of sample, the fit of '%s' (environment %lld) on the "
		       "%zu ok runs of '%s'\n\n", GC_PDB_VERSION, o->db, (long long)f.env_id,
		       p.nrows, o->predict);
		print_fit_text(&f);
		if (p.nrows)
			print_rows_text(&p);
		else
			printf("no ok runs in '%s'\n", o->predict);
	}
	rc = 0;
out:
	gc_pdb_release(&p);
	gc_db_close(db);
	return rc;
}

static void print_row_json(gc_json *j, const gc_pdb_row *r)
{
	gc_json_obj_open(j);
	gc_json_int_field(j, "run_id", (long long)r->run_id);
	gc_json_int_field(j, "env_id", (long long)r->env_id);
	gc_json_str_field(j, "model", r->model);
	gc_json_str_field(j, "method", r->method);
	gc_json_str_field(j, "params", r->params);
	gc_json_int_field(j, "world_size", r->world_size);
	gc_json_int_field(j, "batch", r->batch);
	gc_json_uint_field(j, "bw_cap_bps", (unsigned long long)r->bw_cap_bps);
	gc_json_numg_field(j, "bw_used_bps", r->bw_bps, 6);
	gc_json_numg_field(j, "measured_s", r->measured, 6);
	if (r->skipped[0]) {
		gc_json_str_field(j, "skipped", r->skipped);
	} else {
		gc_json_numg_field(j, "predicted_s", r->pred.total, 6);
		gc_json_numg_field(j, "rel_err", r->rel_err, 6);
		gc_json_numg_field(j, "compute_s", r->pred.compute, 6);
		gc_json_numg_field(j, "encode_s", r->pred.encode, 6);
		gc_json_numg_field(j, "decode_s", r->pred.decode, 6);
		gc_json_numg_field(j, "exposed_s", r->pred.exposed, 6);
		if (isfinite(r->cv_err)) {
			gc_json_numg_field(j, "cv_predicted_s", r->cv_pred, 6);
			gc_json_numg_field(j, "cv_rel_err", r->cv_err, 6);
		}
	}
	gc_json_obj_close(j);
}

static void print_method_json(gc_json *j, const gc_pdb_method_err *m)
{
	gc_json_obj_open(j);
	gc_json_str_field(j, "method", m->method);
	gc_json_uint_field(j, "runs", m->n);
	gc_json_numg_field(j, "median_abs_err", m->median_abs, 6);
	gc_json_numg_field(j, "worst_abs_err", m->worst_abs, 6);
	if (m->n_cv)
		gc_json_numg_field(j, "median_abs_cv_err", m->median_abs_cv, 6);
	gc_json_obj_close(j);
}

static void write_json(gc_json *j, const gc_pdb *p, const struct opts *o)
{
	size_t i;

	gc_json_obj_open(j);
	gc_json_str_field(j, "model_version", GC_PDB_VERSION);
	gc_json_uint_field(j, "stored", p->stored);
	gc_json_key(j, "fits");
	gc_json_arr_open(j);
	for (i = 0; i < p->nfits; i++)
		gc_pdb_fit_json(&p->fits[i], j);
	gc_json_arr_close(j);
	if (!o->fit_only) {
		gc_json_key(j, "runs");
		gc_json_arr_open(j);
		for (i = 0; i < p->nrows; i++)
			print_row_json(j, &p->rows[i]);
		gc_json_arr_close(j);
		gc_json_key(j, "methods");
		gc_json_arr_open(j);
		for (i = 0; i < p->nmethods; i++)
			print_method_json(j, &p->methods[i]);
		gc_json_arr_close(j);
	}
	gc_json_obj_close(j);
}

/* The whole result as one JSON document on stdout; 1 (after a message) on failure. */
static int print_json(const gc_pdb *p, const struct opts *o)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;
	gc_rc rc;

	gc_json_init(&j, &b, 0);
	write_json(&j, p, o);
	rc = gc_json_finish(&j);
	if (rc)
		gc_error("cannot write the JSON: %s", gc_strerror(rc));
	else
		printf("%s\n", b.p);
	gc_buf_release(&b);
	return rc ? 1 : 0;
}

int cmd_model(int argc, char **argv)
{
	struct opts o;
	gc_pdb p;
	gc_db *db = NULL;
	gc_err e = { "" };
	size_t i;
	int r = parse_args(argc, argv, &o), store;

	if (r)
		return r > 0 ? GC_EXIT_OK : GC_EXIT_USAGE;
	if (o.predict)
		return predict_other(&o);
	memset(&p, 0, sizeof(p));
	store = !o.fit_only && !o.no_store;
	if (store && !access(o.db, F_OK) && !gc_db_writable(o.db)) {
		gc_warn("'%s' (or its folder) is not writable for this user: predicting without "
			"storing the predictions (as --no-store)", o.db);
		store = 0;
	}
	if (gc_db_open(o.db, store ? GC_DB_EXISTING : GC_DB_READONLY, &db, &e) ||
	    gc_pdb_run(db, store, &p, &e)) {
		gc_error("cannot fit the model to '%s': %s", o.db, e.msg);
		gc_pdb_release(&p);
		gc_db_close(db);
		return GC_EXIT_ENV;
	}
	if (o.json) {
		r = print_json(&p, &o);
	} else {
		printf("gcbench model %s: '%s', %zu ok runs, %zu predictions %s\n\n", GC_PDB_VERSION,
		       o.db, p.nrows, store ? p.stored : 0, store ? "stored" : "(not stored)");
		for (i = 0; i < p.nfits; i++)
			print_fit_text(&p.fits[i]);
		if (!p.nrows)
			printf("no ok runs: run a sweep first (gcbench run SPEC --db %s)\n", o.db);
		else if (!o.fit_only)
			print_rows_text(&p);
	}
	gc_pdb_release(&p);
	gc_db_close(db);
	return r;
}

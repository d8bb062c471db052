/* orchestrator/ops/regress_print.c: `gcbench regress` as a table, markdown or JSON. */
#include "regress.h"

#include <math.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "netem/rate.h"
#include "bootstrap.h"
#include "run_view.h"
#include "table.h"
#include "strutil.h"

/* ---- output ----------------------------------------------------------------------- */

static void bw_text(int64_t bps, char *buf, size_t n)
{
	gc_bw_format(bps > 0 ? (uint64_t)bps : 0, buf, n);   /* the one cap spelling */
}

enum numfmt { NF_MS, NF_PCT, NF_P, NF_X };

#define GC_REGRESS_WIDTH 100

static void fmt_num(char *buf, size_t n, enum numfmt k, double v)
{
	if (isnan(v))
		gc_strlcpy(buf, "-", n);
	else if (k == NF_MS)
		snprintf(buf, n, "%.2f", v * 1e3);
	else if (k == NF_PCT)
		snprintf(buf, n, "%+.1f%%", v * 100);
	else if (k == NF_P)
		snprintf(buf, n, "%.2g", v);
	else
		snprintf(buf, n, "%.2f", v);
}

#define NCOL 10

/* One row of the table: model, method, params (only what differs from the defaults),
 * bandwidth, ranks x batch, the metric on each side, change, interval, verdict. */
static int add_point(gc_table *t, const gc_regress_point *pt, int speedup)
{
	char bw[32], pb[32], base[32], cand[32], change[16], ci[48], lo[16], hi[16], params[192];
	char method[100];
	const char *row[NCOL];

	bw_text(pt->bw_cap_bps, bw, sizeof bw);
	snprintf(pb, sizeof pb, "%dx%d", pt->world_size, pt->batch);
	gc_params_brief(pt->workload, pt->method, pt->params, params, sizeof params);
	fmt_num(base, sizeof base, speedup ? NF_X : NF_MS, speedup ? pt->speedup_base : pt->med_base);
	fmt_num(cand, sizeof cand, speedup ? NF_X : NF_MS, speedup ? pt->speedup_cand : pt->med_cand);
	fmt_num(change, sizeof change, NF_PCT, pt->change);
	fmt_num(lo, sizeof lo, NF_PCT, pt->ci_lo);
	fmt_num(hi, sizeof hi, NF_PCT, pt->ci_hi);
	if (isnan(pt->ci_lo))
		snprintf(ci, sizeof ci, "-");
	else
		snprintf(ci, sizeof ci, "%s..%s%s", lo, hi, pt->by_runs ? "*" :
			 pt->nights ? "#" : "");
	row[0] = pt->model;
	row[1] = gc_stack_method(pt->stack, pt->method, method, sizeof method);
	row[2] = params;
	row[3] = bw;
	row[4] = pb;
	row[5] = base;
	row[6] = cand;
	row[7] = change;
	row[8] = ci;
	row[9] = pt->suspect ? "suspect" : gc_regress_verdict_name(pt->verdict);
	return gc_table_add(t, row);
}

static void print_text(FILE *f, const gc_regress_report *r, int md)
{
	static const char *const head_t[NCOL] = { "model", "method", "params", "bandwidth", "pxb",
		"base_ms", "cand_ms", "change", "interval", "verdict" };
	static const char *const head_s[NCOL] = { "model", "method", "params", "bandwidth", "pxb",
		"base_x", "cand_x", "change", "interval", "verdict" };
	int speedup = r->metric == GC_METRIC_SPEEDUP;
	const char *what = speedup ? "speedup over the baseline method" : "median iteration time";
	gc_table t;
	size_t i;

	if (md)
		fprintf(f, "**baseline** %s, **candidate** %s; metric: %s (min effect %.0f%%, "
			"alpha %g)\n\n", r->base_desc, r->cand_desc, what, r->min_effect * 100, r->alpha);
	else
		fprintf(f, "baseline:  %s\ncandidate: %s\nmetric:    %s (min effect %.0f%%, "
			"alpha %g)\n\n", r->base_desc, r->cand_desc, what, r->min_effect * 100, r->alpha);
	gc_table_init(&t, NCOL, speedup ? head_s : head_t, "lllrrrrrrl", 2);
	for (i = 0; i < r->n; i++)
		add_point(&t, &r->v[i], speedup);
	if (md)
		gc_table_markdown(&t, f);
	else
		gc_table_print(&t, f, GC_REGRESS_WIDTH);
	gc_table_release(&t);
	fprintf(f, "\n%zu points: %zu regressions, %zu improvements, %zu on one side only\n",
		r->n, r->n_regressions, r->n_improvements, r->n_one_side);
	fprintf(f, "interval: %.0f%% bootstrap interval of the change. Unit of independence: the "
		"run%s where every\nsample has %d or more runs (marked *: %zu points), else the "
		"iteration%s.\n", (1 - r->alpha) * 100, "", GC_BOOT_MIN_RUNS, r->n_by_runs,
		speedup ? "" : " (verdict by Mann-Whitney U)");
	if (r->n_by_nights)
		fprintf(f, "marked #: %zu points judged by their nightly series: the level of up to "
			"%d earlier\nnights (base) and a %.0f%% prediction interval from their "
			"night-to-night spread;\none run a night: a REGRESSION needs this night and "
			"the one before beyond it.\n", r->n_by_nights, GC_SERIES_WINDOW,
			(1 - r->alpha) * 100);
	if (r->n_suspects)
		fprintf(f, "suspect: confirm tomorrow: %zu points slower beyond their noise on "
			"this night alone\n(no regression yet; a second such night confirms it).\n",
			r->n_suspects);
	if (r->n_short_history)
		fprintf(f, "%zu points have fewer than %d earlier nights for a noise model: their "
			"verdict pools\none run's iterations and is optimistic.\n",
			r->n_short_history, GC_SERIES_MIN_HISTORY);
	if (speedup)
		fprintf(f, "speedup = the baseline method's median iteration time / the method's, on "
			"the same side;\na fall of the speedup is the regression.\n");
}

/* Numbers in the JSON as %.9g (null where not finite). */
static void num(gc_json *j, const char *key, double v)
{
	gc_json_numg_field(j, key, v, 9);
}

static void json_point(gc_json *j, const gc_regress_point *pt)
{
	gc_json_obj_open(j);
	gc_json_str_field(j, "model", pt->model);
	gc_json_str_field(j, "method", pt->method);
	gc_json_str_field(j, "params", pt->params);
	gc_json_str_field(j, "stack", pt->stack);
	gc_json_str_field(j, "workload", pt->workload);
	gc_json_str_field(j, "backend", pt->backend);
	gc_json_int_field(j, "bw_cap_bps", (long long)pt->bw_cap_bps);
	gc_json_int_field(j, "world_size", pt->world_size);
	gc_json_int_field(j, "batch", pt->batch);
	gc_json_uint_field(j, "n_base", pt->n_base);
	gc_json_uint_field(j, "n_cand", pt->n_cand);
	num(j, "latency_s", pt->latency_s);
	num(j, "compute_scale", pt->compute_scale);
	num(j, "median_base_s", pt->med_base);
	num(j, "median_cand_s", pt->med_cand);
	num(j, "change", pt->change);
	num(j, "ci_lo", pt->ci_lo);
	num(j, "ci_hi", pt->ci_hi);
	gc_json_int_field(j, "runs_base", pt->runs_base);
	gc_json_int_field(j, "runs_cand", pt->runs_cand);
	gc_json_str_field(j, "unit", pt->by_runs ? "runs" : pt->nights ? "nights" : "iterations");
	gc_json_int_field(j, "nights", pt->nights);
	gc_json_int_field(j, "confirm", pt->nights ? pt->confirm : 0);
	gc_json_key(j, "suspect");
	gc_json_bool(j, pt->suspect);
	num(j, "night_sd", pt->nights ? pt->night_sd : NAN);
	num(j, "z", pt->z);
	num(j, "p", pt->p);
	num(j, "speedup_base", pt->speedup_base);
	num(j, "speedup_cand", pt->speedup_cand);
	gc_json_str_field(j, "verdict", gc_regress_verdict_name(pt->verdict));
	gc_json_obj_close(j);
}

static gc_rc print_json(FILE *f, const gc_regress_report *r, gc_err *e)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;
	gc_rc rc;
	size_t i;

	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_str_field(&j, "baseline", r->base_desc);
	gc_json_str_field(&j, "candidate", r->cand_desc);
	gc_json_str_field(&j, "metric", r->metric == GC_METRIC_SPEEDUP ? "speedup" : "time");
	num(&j, "min_effect", r->min_effect);
	num(&j, "alpha", r->alpha);
	gc_json_uint_field(&j, "regressions", r->n_regressions);
	gc_json_uint_field(&j, "improvements", r->n_improvements);
	gc_json_uint_field(&j, "one_side", r->n_one_side);
	gc_json_uint_field(&j, "by_nights", r->n_by_nights);
	gc_json_uint_field(&j, "short_history", r->n_short_history);
	gc_json_uint_field(&j, "suspects", r->n_suspects);
	gc_json_key(&j, "points");
	gc_json_arr_open(&j);
	for (i = 0; i < r->n; i++)
		json_point(&j, &r->v[i]);
	gc_json_arr_close(&j);
	gc_json_obj_close(&j);
	rc = gc_json_finish(&j);
	if (rc)
		gc_fail(e, rc, "cannot write the report as JSON: %s", gc_strerror(rc));
	else
		fprintf(f, "%s\n", b.p);
	gc_buf_release(&b);
	return rc;
}

gc_rc gc_regress_print(FILE *f, const gc_regress_report *r, const char *format, gc_err *e)
{
	if (!format || !strcmp(format, "table"))
		print_text(f, r, 0);
	else if (!strcmp(format, "markdown"))
		print_text(f, r, 1);
	else if (!strcmp(format, "json"))
		return print_json(f, r, e);
	else
		return gc_fail(e, GC_E_INVAL, "unknown format '%s': table, markdown or json",
			       format);
	return GC_OK;
}


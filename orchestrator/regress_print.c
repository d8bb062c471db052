/* orchestrator/regress_print.c: `gcbench regress` as a table, markdown or JSON. */
#include "regress.h"

#include <math.h>
#include <string.h>

#include "netem/rate.h"
#include "orchestrator/bootstrap.h"
#include "orchestrator/run.h"
#include "orchestrator/table.h"
#include "strutil.h"

/* ---- output ----------------------------------------------------------------------- */

static void bw_text(int64_t bps, char *buf, size_t n)
{
	if (bps <= 0)
		gc_strlcpy(buf, "unlimited", n);
	else
		gc_rate_format((uint64_t)bps, buf, n);
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
	const char *row[NCOL];

	bw_text(pt->bw_cap_bps, bw, sizeof bw);
	snprintf(pb, sizeof pb, "%dx%d", pt->world_size, pt->batch);
	gc_params_brief(pt->method, pt->params, params, sizeof params);
	fmt_num(base, sizeof base, speedup ? NF_X : NF_MS, speedup ? pt->speedup_base : pt->med_base);
	fmt_num(cand, sizeof cand, speedup ? NF_X : NF_MS, speedup ? pt->speedup_cand : pt->med_cand);
	fmt_num(change, sizeof change, NF_PCT, pt->change);
	fmt_num(lo, sizeof lo, NF_PCT, pt->ci_lo);
	fmt_num(hi, sizeof hi, NF_PCT, pt->ci_hi);
	if (isnan(pt->ci_lo))
		snprintf(ci, sizeof ci, "-");
	else
		snprintf(ci, sizeof ci, "%s..%s%s", lo, hi, pt->by_runs ? "*" : "");
	row[0] = pt->model;
	row[1] = pt->method;
	row[2] = params;
	row[3] = bw;
	row[4] = pb;
	row[5] = base;
	row[6] = cand;
	row[7] = change;
	row[8] = ci;
	row[9] = gc_regress_verdict_name(pt->verdict);
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
	if (speedup)
		fprintf(f, "speedup = the baseline method's median iteration time / the method's, on "
			"the same side;\na fall of the speedup is the regression.\n");
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, const char *key, double v)
{
	fprintf(f, ",\"%s\":", key);
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.9g", v);
}

static void json_point(FILE *f, const gc_regress_point *pt)
{
	fputs("{\"model\":", f);
	json_str(f, pt->model);
	fputs(",\"method\":", f);
	json_str(f, pt->method);
	fputs(",\"params\":", f);
	json_str(f, pt->params);
	fputs(",\"workload\":", f);
	json_str(f, pt->workload);
	fputs(",\"backend\":", f);
	json_str(f, pt->backend);
	fprintf(f, ",\"bw_cap_bps\":%lld,\"world_size\":%d,\"batch\":%d,\"n_base\":%zu,"
		"\"n_cand\":%zu", (long long)pt->bw_cap_bps, pt->world_size, pt->batch,
		pt->n_base, pt->n_cand);
	json_num(f, "latency_s", pt->latency_s);
	json_num(f, "compute_scale", pt->compute_scale);
	json_num(f, "median_base_s", pt->med_base);
	json_num(f, "median_cand_s", pt->med_cand);
	json_num(f, "change", pt->change);
	json_num(f, "ci_lo", pt->ci_lo);
	json_num(f, "ci_hi", pt->ci_hi);
	fprintf(f, ",\"runs_base\":%d,\"runs_cand\":%d,\"unit\":\"%s\"", pt->runs_base,
		pt->runs_cand, pt->by_runs ? "runs" : "iterations");
	json_num(f, "z", pt->z);
	json_num(f, "p", pt->p);
	json_num(f, "speedup_base", pt->speedup_base);
	json_num(f, "speedup_cand", pt->speedup_cand);
	fputs(",\"verdict\":", f);
	json_str(f, gc_regress_verdict_name(pt->verdict));
	fputs("}", f);
}

static void print_json(FILE *f, const gc_regress_report *r)
{
	size_t i;

	fputs("{\"baseline\":", f);
	json_str(f, r->base_desc);
	fputs(",\"candidate\":", f);
	json_str(f, r->cand_desc);
	fprintf(f, ",\"metric\":\"%s\"", r->metric == GC_METRIC_SPEEDUP ? "speedup" : "time");
	json_num(f, "min_effect", r->min_effect);
	json_num(f, "alpha", r->alpha);
	fprintf(f, ",\"regressions\":%zu,\"improvements\":%zu,\"one_side\":%zu,\"points\":[",
		r->n_regressions, r->n_improvements, r->n_one_side);
	for (i = 0; i < r->n; i++) {
		if (i)
			fputc(',', f);
		json_point(f, &r->v[i]);
	}
	fputs("]}\n", f);
}

gc_rc gc_regress_print(FILE *f, const gc_regress_report *r, const char *format, gc_err *e)
{
	if (!format || !strcmp(format, "table"))
		print_text(f, r, 0);
	else if (!strcmp(format, "markdown"))
		print_text(f, r, 1);
	else if (!strcmp(format, "json"))
		print_json(f, r);
	else
		return gc_fail(e, GC_E_INVAL, "unknown format '%s': table, markdown or json",
			       format);
	return GC_OK;
}


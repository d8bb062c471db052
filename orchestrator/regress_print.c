/* orchestrator/regress_print.c: `gcbench regress` as a table, markdown or JSON. */
#include "regress.h"

#include <math.h>
#include <string.h>

#include "netem/rate.h"
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

/* The cells of one row, as text, shared by the table and markdown printers. */
struct cells {
	char bw[32], base[32], cand[32], change[16], p[16], sp[40];
};

static void row_cells(const gc_regress_point *pt, struct cells *c)
{
	char a[16], b[16];

	bw_text(pt->bw_cap_bps, c->bw, sizeof c->bw);
	fmt_num(c->base, sizeof c->base, NF_MS, pt->med_base);
	fmt_num(c->cand, sizeof c->cand, NF_MS, pt->med_cand);
	fmt_num(c->change, sizeof c->change, NF_PCT, pt->change);
	fmt_num(c->p, sizeof c->p, NF_P, pt->p);
	fmt_num(a, sizeof a, NF_X, pt->speedup_base);
	fmt_num(b, sizeof b, NF_X, pt->speedup_cand);
	snprintf(c->sp, sizeof c->sp, "%s -> %s", a, b);
}

static void print_row(FILE *f, int md, const char *const c[12])
{
	if (md)
		fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11]);
	else
		fprintf(f, "%-10s %-9s %-14s %-10s %3s %5s %9s %9s %8s %8s %-13s %s\n",
			c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11]);
}

static void print_point(FILE *f, int md, const gc_regress_point *pt)
{
	struct cells c;
	char ws[16], bs[16];
	const char *cols[12];

	row_cells(pt, &c);
	snprintf(ws, sizeof ws, "%d", pt->world_size);
	snprintf(bs, sizeof bs, "%d", pt->batch);
	cols[0] = pt->model;
	cols[1] = pt->method;
	cols[2] = pt->params[0] ? pt->params : "-";
	cols[3] = c.bw;
	cols[4] = ws;
	cols[5] = bs;
	cols[6] = c.base;
	cols[7] = c.cand;
	cols[8] = c.change;
	cols[9] = c.p;
	cols[10] = c.sp;
	cols[11] = gc_regress_verdict_name(pt->verdict);
	print_row(f, md, cols);
}

static void print_text(FILE *f, const gc_regress_report *r, int md)
{
	static const char *const head[12] = { "model", "method", "params", "bandwidth", "p",
		"batch", "base ms", "cand ms", "change", "p-value", "speedup", "verdict" };
	size_t i;

	if (md)
		fprintf(f, "**baseline** %s, **candidate** %s (min effect %.0f%%, alpha %g)\n\n",
			r->base_desc, r->cand_desc, r->min_effect * 100, r->alpha);
	else
		fprintf(f, "baseline:  %s\ncandidate: %s\n(min effect %.0f%% on medians, "
			"alpha %g)\n\n", r->base_desc, r->cand_desc, r->min_effect * 100, r->alpha);
	print_row(f, md, head);
	if (md)
		fprintf(f, "|---|---|---|---|--:|--:|--:|--:|--:|--:|---|---|\n");
	for (i = 0; i < r->n; i++)
		print_point(f, md, &r->v[i]);
	fprintf(f, "\n%zu points: %zu regressions, %zu improvements, %zu on one side only\n",
		r->n, r->n_regressions, r->n_improvements, r->n_one_side);
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


/* orchestrator/regress.c: compare two sets of environments point by point. */
#include "regress.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "netem/rate.h"
#include "stats.h"
#include "strutil.h"

void gc_regress_opts_default(gc_regress_opts *o)
{
	o->baseline = NULL;
	o->candidate = NULL;
	o->min_effect = 0.05;
	o->alpha = 0.01;
}

const char *gc_regress_verdict_name(enum gc_regress_verdict v)
{
	switch (v) {
	case GC_REG_SAME: return "same";
	case GC_REG_REGRESSION: return "REGRESSION";
	case GC_REG_IMPROVEMENT: return "improvement";
	case GC_REG_BASELINE_ONLY: return "baseline only";
	case GC_REG_CANDIDATE_ONLY: return "candidate only";
	}
	return "?";
}

static gc_rc db_fail(sqlite3 *db, gc_err *e, const char *what)
{
	return gc_fail(e, GC_E_DB, "cannot %s: %s", what, sqlite3_errmsg(db));
}

/* ---- selectors -------------------------------------------------------------------- */

static const char *const sel_fields[] = { "host", "gpu_model", "tcp_cc", "tag", "driver",
	"cuda", "nccl", "mpi", "kernel", "libnl", "sqlite", "gcbench", "env", NULL };
#define SEL_FIRST_VERSION 4
#define SEL_MAX 8

struct selector {
	char where[2048];
	char vals[SEL_MAX][128];
	int n;
};

/* One "field=value" into s->where (a column from the whitelist, the value bound). */
static gc_rc sel_term(struct selector *s, const char *term, gc_err *e)
{
	const char *eq = strchr(term, '=');
	char frag[512], col[32];
	size_t fl = eq ? (size_t)(eq - term) : 0;
	int k, i = s->n + 1;

	for (k = 0; sel_fields[k]; k++)
		if (fl == strlen(sel_fields[k]) && !strncmp(term, sel_fields[k], fl))
			break;
	if (!eq || !sel_fields[k] || !eq[1] || strlen(eq + 1) >= sizeof s->vals[0] ||
	    s->n >= SEL_MAX)
		return gc_fail(e, GC_E_INVAL, "invalid selector term '%s': write FIELD=VALUE "
			       "with FIELD one of host, gpu_model, driver, cuda, nccl, mpi, "
			       "kernel, libnl, sqlite, gcbench, tcp_cc, tag, env (at most %d "
			       "terms, joined by ',')", term, SEL_MAX);
	gc_strlcpy(col, sel_fields[k], sizeof col);
	gc_strlcpy(s->vals[s->n++], eq + 1, sizeof s->vals[0]);
	if (!strcmp(col, "env"))
		snprintf(frag, sizeof frag, "id = CAST(?%d AS INTEGER)", i);
	else if (k >= SEL_FIRST_VERSION)
		snprintf(frag, sizeof frag, "(%s = ?%d OR substr(%s, 1, length(?%d) + 1) IN "
			 "(?%d || '.', ?%d || '-'))", col, i, col, i, i, i);
	else
		snprintf(frag, sizeof frag, "%s = ?%d", col, i);
	if (s->where[0])
		strncat(s->where, " AND ", sizeof s->where - strlen(s->where) - 1);
	strncat(s->where, frag, sizeof s->where - strlen(s->where) - 1);
	return GC_OK;
}

static gc_rc sel_parse(const char *text, struct selector *s, gc_err *e)
{
	char buf[1024], *tok, *save = NULL;
	gc_rc rc;

	memset(s, 0, sizeof *s);
	if (!text || !*text || strlen(text) >= sizeof buf)
		return gc_fail(e, GC_E_INVAL, "missing or too long selector: write e.g. "
			       "'nccl=2.18' or 'previous'");
	gc_strlcpy(buf, text, sizeof buf);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if ((rc = sel_term(s, tok, e)))
			return rc;
	return GC_OK;
}

/* A list of environment ids, and its description "nccl=2.18 (env 1, 2)". */
struct envset {
	int64_t id[64];
	size_t n;
};

static void envset_desc(const char *sel, const struct envset *es, char *out, size_t n)
{
	char tmp[32];
	size_t i;

	snprintf(out, n, "%s (env %s", sel, es->n ? "" : "none");
	for (i = 0; i < es->n; i++) {
		snprintf(tmp, sizeof tmp, "%s%lld", i ? ", " : "", (long long)es->id[i]);
		strncat(out, tmp, n - strlen(out) - 1);
	}
	strncat(out, ")", n - strlen(out) - 1);
}

/* The environments of a selector that have ok runs. */
static gc_rc sel_envs(sqlite3 *db, const char *text, struct envset *es, gc_err *e)
{
	struct selector s;
	char sql[3072];
	sqlite3_stmt *st = NULL;
	int i, r;
	gc_rc rc;

	if ((rc = sel_parse(text, &s, e)))
		return rc;
	snprintf(sql, sizeof sql, "SELECT id FROM environments WHERE %s AND EXISTS (SELECT 1 "
		 "FROM runs r WHERE r.env_id = environments.id AND r.status = 'ok') "
		 "ORDER BY id", s.where);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return db_fail(db, e, "select environments");
	for (i = 0; i < s.n; i++)
		sqlite3_bind_text(st, i + 1, s.vals[i], -1, SQLITE_TRANSIENT);
	es->n = 0;
	while ((r = sqlite3_step(st)) == SQLITE_ROW && es->n < 64)
		es->id[es->n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return db_fail(db, e, "select environments");
	if (!es->n)
		return gc_fail(e, GC_E_NOTFOUND, "no environment with ok runs matches '%s'; "
			       "see the environments table (sqlite3 DB 'SELECT * FROM "
			       "environments')", text);
	return GC_OK;
}

/* "previous": the newest environment with ok runs, and the one before it. */
static gc_rc previous_envs(sqlite3 *db, struct envset *base, struct envset *cand, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	int64_t id[2];
	int n = 0;

	if (sqlite3_prepare_v2(db, "SELECT e.id FROM environments e WHERE EXISTS (SELECT 1 "
			       "FROM runs r WHERE r.env_id = e.id AND r.status = 'ok') ORDER BY "
			       "e.first_seen DESC, e.id DESC LIMIT 2", -1, &st, NULL))
		return db_fail(db, e, "select environments");
	while (n < 2 && sqlite3_step(st) == SQLITE_ROW)
		id[n++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (n < 2)
		return gc_fail(e, GC_E_NOTFOUND, "'previous' needs two environments with ok "
			       "runs; the database has %d", n);
	cand->id[0] = id[0];
	base->id[0] = id[1];
	cand->n = base->n = 1;
	return GC_OK;
}

/* ---- samples per point -------------------------------------------------------------- */

struct spoint {
	gc_regress_point key;   /* key fields only */
	double *x;
	size_t n, cap;
	double med;
};

struct side {
	struct spoint *v;
	size_t n, cap;
};

static void side_release(struct side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i].x);
	free(s->v);
	memset(s, 0, sizeof *s);
}

static int same_key(const gc_regress_point *a, const gc_regress_point *b, int method_too)
{
	return !strcmp(a->workload, b->workload) && !strcmp(a->model, b->model) &&
	       (!method_too || (!strcmp(a->method, b->method) &&
				!strcmp(a->params, b->params))) &&
	       !strcmp(a->backend, b->backend) && a->bw_cap_bps == b->bw_cap_bps &&
	       a->latency_s == b->latency_s && a->compute_scale == b->compute_scale &&
	       a->world_size == b->world_size && a->batch == b->batch;
}

static void key_from_row(sqlite3_stmt *st, gc_regress_point *k)
{
	memset(k, 0, sizeof *k);
	gc_strlcpy(k->workload, (const char *)sqlite3_column_text(st, 0), sizeof k->workload);
	gc_strlcpy(k->model, (const char *)sqlite3_column_text(st, 1), sizeof k->model);
	gc_strlcpy(k->method, (const char *)sqlite3_column_text(st, 2), sizeof k->method);
	gc_strlcpy(k->params, (const char *)sqlite3_column_text(st, 3), sizeof k->params);
	k->bw_cap_bps = sqlite3_column_int64(st, 4);
	k->latency_s = sqlite3_column_double(st, 5);
	k->world_size = sqlite3_column_int(st, 6);
	k->batch = sqlite3_column_int(st, 7);
	gc_strlcpy(k->backend, (const char *)sqlite3_column_text(st, 8), sizeof k->backend);
	k->compute_scale = sqlite3_column_double(st, 9);
	gc_strlcpy(k->baseline, (const char *)sqlite3_column_text(st, 10), sizeof k->baseline);
}

/* Append sample v to the last point if the row's key matches it, else a new point. */
static gc_rc side_add(struct side *s, const gc_regress_point *k, double v)
{
	struct spoint *p = s->n ? &s->v[s->n - 1] : NULL;
	void *nv;

	if (!p || !same_key(&p->key, k, 1) || strcmp(p->key.baseline, k->baseline)) {
		if (s->n == s->cap) {
			nv = realloc(s->v, (s->cap = s->cap ? s->cap * 2 : 16) * sizeof *s->v);
			if (!nv)
				return GC_E_NOMEM;
			s->v = nv;
		}
		p = &s->v[s->n++];
		memset(p, 0, sizeof *p);
		p->key = *k;
	}
	if (p->n == p->cap) {
		nv = realloc(p->x, (p->cap = p->cap ? p->cap * 2 : 64) * sizeof *p->x);
		if (!nv)
			return GC_E_NOMEM;
		p->x = nv;
	}
	p->x[p->n++] = v;
	return GC_OK;
}

static gc_rc side_load(sqlite3 *db, const struct envset *es, struct side *s, gc_err *e)
{
	char sql[4096], ids[1024] = "", tmp[32];
	sqlite3_stmt *st = NULL;
	gc_regress_point k;
	size_t i;
	int r = SQLITE_DONE;
	gc_rc rc = GC_OK;

	for (i = 0; i < es->n; i++) {   /* integers from the database: safe to format */
		snprintf(tmp, sizeof tmp, "%s%lld", i ? "," : "", (long long)es->id[i]);
		strncat(ids, tmp, sizeof ids - strlen(ids) - 1);
	}
	snprintf(sql, sizeof sql, "SELECT r.workload, r.model, r.method, r.params, r.bw_cap_bps, "
		 "r.latency_s, r.world_size, r.batch, r.backend, r.compute_scale, s.baseline, "
		 "i.t_iter FROM iterations i JOIN runs r ON r.id = i.run_id JOIN sweeps s ON "
		 "s.id = r.sweep_id WHERE r.status = 'ok' AND i.warmup = 0 AND r.env_id IN (%s) "
		 "ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11", ids);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return db_fail(db, e, "read iterations");
	while (!rc && (r = sqlite3_step(st)) == SQLITE_ROW) {
		key_from_row(st, &k);
		rc = side_add(s, &k, sqlite3_column_double(st, 11));
	}
	sqlite3_finalize(st);
	if (rc)
		return gc_fail(e, rc, "out of memory reading iterations");
	if (r != SQLITE_DONE)
		return db_fail(db, e, "read iterations");
	for (i = 0; i < s->n; i++)
		s->v[i].med = gc_median(s->v[i].x, s->v[i].n);
	return GC_OK;
}

/* ---- comparison ------------------------------------------------------------------- */

static const struct spoint *side_find(const struct side *s, const gc_regress_point *k)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (same_key(&s->v[i].key, k, 1))
			return &s->v[i];
	return NULL;
}

/* Median of the baseline method at p's point on the same side / p's median. */
static double side_speedup(const struct side *s, const struct spoint *p)
{
	size_t i;

	if (!p)
		return NAN;
	for (i = 0; i < s->n; i++)
		if (same_key(&s->v[i].key, &p->key, 0) &&
		    !strcmp(s->v[i].key.method, p->key.baseline))
			return s->v[i].med / p->med;
	return NAN;
}

static gc_rc report_add(gc_regress_report *r, const gc_regress_point *pt)
{
	gc_regress_point *nv = realloc(r->v, (r->n + 1) * sizeof *r->v);

	if (!nv)
		return GC_E_NOMEM;
	r->v = nv;
	r->v[r->n++] = *pt;
	return GC_OK;
}

static void judge(gc_regress_point *pt, const struct spoint *b, const struct spoint *c,
		  const gc_regress_opts *o)
{
	gc_mwu m;

	pt->n_base = b ? b->n : 0;
	pt->n_cand = c ? c->n : 0;
	pt->med_base = b ? b->med : NAN;
	pt->med_cand = c ? c->med : NAN;
	pt->change = pt->z = pt->p = NAN;
	if (!b || !c) {
		pt->verdict = b ? GC_REG_BASELINE_ONLY : GC_REG_CANDIDATE_ONLY;
		return;
	}
	pt->change = c->med / b->med - 1;
	pt->verdict = GC_REG_SAME;
	if (gc_mwu_test(c->x, c->n, b->x, b->n, 1, &m))
		return;
	pt->z = m.z;
	pt->p = m.p;
	if (m.p < o->alpha && pt->change >= o->min_effect)
		pt->verdict = GC_REG_REGRESSION;
	else if (m.p < o->alpha && pt->change <= -o->min_effect)
		pt->verdict = GC_REG_IMPROVEMENT;
}

static gc_rc compare_sides(const struct side *bs, const struct side *cs,
			   const gc_regress_opts *o, gc_regress_report *r)
{
	const struct spoint *b, *c;
	gc_regress_point pt;
	size_t i;
	gc_rc rc = GC_OK;

	for (i = 0; !rc && i < bs->n + cs->n; i++) {
		b = i < bs->n ? &bs->v[i] : side_find(bs, &cs->v[i - bs->n].key);
		c = i < bs->n ? side_find(cs, &b->key) : &cs->v[i - bs->n];
		if (i >= bs->n && b)
			continue;      /* already reported from the baseline side */
		pt = (b ? b : c)->key;
		judge(&pt, b, c, o);
		pt.speedup_base = side_speedup(bs, b);
		pt.speedup_cand = side_speedup(cs, c);
		r->n_regressions += pt.verdict == GC_REG_REGRESSION;
		r->n_improvements += pt.verdict == GC_REG_IMPROVEMENT;
		r->n_one_side += pt.verdict >= GC_REG_BASELINE_ONLY;
		rc = report_add(r, &pt);
	}
	return rc;
}

static gc_rc resolve(sqlite3 *db, const gc_regress_opts *o, struct envset *be,
		     struct envset *ce, gc_regress_report *r, gc_err *e)
{
	gc_rc rc;

	if (o->baseline && !strcmp(o->baseline, "previous") &&
	    (!o->candidate || !strcmp(o->candidate, "latest"))) {
		if ((rc = previous_envs(db, be, ce, e)))
			return rc;
		envset_desc("previous", be, r->base_desc, sizeof r->base_desc);
		envset_desc("latest", ce, r->cand_desc, sizeof r->cand_desc);
		return GC_OK;
	}
	if (!o->candidate)
		return gc_fail(e, GC_E_INVAL, "missing --candidate: only '--baseline previous' "
			       "can go without one");
	if ((rc = sel_envs(db, o->baseline, be, e)) || (rc = sel_envs(db, o->candidate, ce, e)))
		return rc;
	envset_desc(o->baseline, be, r->base_desc, sizeof r->base_desc);
	envset_desc(o->candidate, ce, r->cand_desc, sizeof r->cand_desc);
	return GC_OK;
}

gc_rc gc_regress_compare(sqlite3 *db, const gc_regress_opts *o, gc_regress_report *r,
			 gc_err *e)
{
	struct envset be, ce;
	struct side bs = { 0 }, cs = { 0 };
	gc_rc rc;

	memset(r, 0, sizeof *r);
	r->min_effect = o->min_effect;
	r->alpha = o->alpha;
	if ((rc = resolve(db, o, &be, &ce, r, e)))
		return rc;
	rc = side_load(db, &be, &bs, e);
	if (!rc)
		rc = side_load(db, &ce, &cs, e);
	if (!rc && (rc = compare_sides(&bs, &cs, o, r)))
		gc_fail(e, rc, "out of memory comparing points");
	side_release(&bs);
	side_release(&cs);
	return rc;
}

void gc_regress_report_release(gc_regress_report *r)
{
	if (!r)
		return;
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

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

/* ---- history ---------------------------------------------------------------------- */

static void history_row(sqlite3_stmt *st, gc_history_row *h)
{
	memset(h, 0, sizeof *h);
	h->first_seen = sqlite3_column_double(st, 0);
	h->env_id = sqlite3_column_int64(st, 1);
	gc_strlcpy(h->driver, (const char *)sqlite3_column_text(st, 2), sizeof h->driver);
	gc_strlcpy(h->cuda, (const char *)sqlite3_column_text(st, 3), sizeof h->cuda);
	gc_strlcpy(h->nccl, (const char *)sqlite3_column_text(st, 4), sizeof h->nccl);
	gc_strlcpy(h->tag, (const char *)sqlite3_column_text(st, 5), sizeof h->tag);
	gc_strlcpy(h->params, (const char *)sqlite3_column_text(st, 6), sizeof h->params);
	h->bw_cap_bps = sqlite3_column_int64(st, 7);
	h->world_size = sqlite3_column_int(st, 8);
	h->batch = sqlite3_column_int(st, 9);
	h->repeats = sqlite3_column_int(st, 10);
	h->t_iter = sqlite3_column_double(st, 11);
	h->t_iter_baseline = sqlite3_column_double(st, 12);
	h->speedup = sqlite3_column_double(st, 13);
}

gc_rc gc_history(sqlite3 *db, const char *model, const char *method, int64_t bw_cap_bps,
		 int (*fn)(const gc_history_row *row, void *arg), void *arg, gc_err *e)
{
	static const char sql[] =
		"SELECT coalesce(e.first_seen, 0), coalesce(e.id, 0), coalesce(e.driver, ''), "
		"coalesce(e.cuda, ''), coalesce(e.nccl, ''), coalesce(e.tag, ''), sp.params, "
		"sp.bw_cap_bps, sp.world_size, sp.batch, sp.repeats, sp.t_iter, "
		"sp.t_iter_baseline, sp.speedup FROM speedup sp LEFT JOIN environments e ON "
		"e.id = sp.env_id WHERE sp.model = ?1 AND sp.method = ?2 AND (?3 < 0 OR "
		"sp.bw_cap_bps = ?3) ORDER BY sp.bw_cap_bps, sp.world_size, sp.batch, "
		"sp.params, e.first_seen, e.id";
	sqlite3_stmt *st = NULL;
	gc_history_row h;
	int r;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return db_fail(db, e, "read the speedup view");
	sqlite3_bind_text(st, 1, model, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, method, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, bw_cap_bps);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		history_row(st, &h);
		if (fn(&h, arg))
			break;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return db_fail(db, e, "read the speedup view");
	return GC_OK;
}

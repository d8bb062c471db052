/* orchestrator/regress.c: compare two sets of environments point by point. */
#include "regress.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/bootstrap.h"
#include "stats.h"
#include "strutil.h"

void gc_regress_opts_default(gc_regress_opts *o)
{
	o->baseline = NULL;
	o->candidate = NULL;
	o->min_effect = 0.05;
	o->alpha = 0.01;
	o->metric = GC_METRIC_TIME;
}

int gc_regress_metric_parse(const char *s, int *metric)
{
	if (s && !strcmp(s, "time"))
		*metric = GC_METRIC_TIME;
	else if (s && !strcmp(s, "speedup"))
		*metric = GC_METRIC_SPEEDUP;
	else
		return -1;
	return 0;
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
	int by_sweep;      /* id[] are sweep ids (baseline 'previous', 'sweep=ID') */
};

static void envset_desc(const char *sel, const struct envset *es, char *out, size_t n)
{
	char tmp[32];
	size_t i;

	snprintf(out, n, "%s (%s %s", sel, es->by_sweep ? "sweep" : "env", es->n ? "" : "none");
	for (i = 0; i < es->n; i++) {
		snprintf(tmp, sizeof tmp, "%s%lld", i ? ", " : "", (long long)es->id[i]);
		strncat(out, tmp, n - strlen(out) - 1);
	}
	strncat(out, ")", n - strlen(out) - 1);
}

/* "sweep=ID": one sweep, which must have ok runs. */
static gc_rc sel_sweep(sqlite3 *db, const char *text, struct envset *es, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	uint64_t id;
	int found;

	if (gc_parse_u64(text + 6, &id) || id == 0 || id > INT64_MAX)
		return gc_fail(e, GC_E_INVAL, "invalid selector '%s': sweep=ID takes a sweep id "
			       "(gcbench status lists them)", text);
	if (sqlite3_prepare_v2(db, "SELECT 1 FROM runs WHERE sweep_id = ? AND status = 'ok'",
			       -1, &st, NULL))
		return db_fail(db, e, "select the sweep");
	sqlite3_bind_int64(st, 1, (int64_t)id);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	if (!found)
		return gc_fail(e, GC_E_NOTFOUND, "sweep %lld has no ok runs; see 'gcbench status'",
			       (long long)id);
	es->id[0] = (int64_t)id;
	es->n = 1;
	es->by_sweep = 1;
	return GC_OK;
}

/* The environments of a selector that have ok runs. */
static gc_rc sel_envs(sqlite3 *db, const char *text, struct envset *es, gc_err *e)
{
	struct selector s;
	char sql[3072];
	sqlite3_stmt *st = NULL;
	int i, r;
	gc_rc rc;

	es->by_sweep = 0;
	if (text && !strncmp(text, "sweep=", 6))
		return sel_sweep(db, text, es, e);
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

/* "previous": the newest sweep with ok runs, and the newest sweep of the same spec
 * before it with ok runs (last night and the night before). */
static gc_rc previous_sweeps(sqlite3 *db, struct envset *base, struct envset *cand, gc_err *e)
{
	static const char sql[] =
		"WITH ok AS (SELECT s.id, s.spec_hash FROM sweeps s WHERE EXISTS (SELECT 1 FROM "
		"runs r WHERE r.sweep_id = s.id AND r.status = 'ok')), last AS (SELECT * FROM ok "
		"ORDER BY id DESC LIMIT 1) SELECT last.id, (SELECT max(ok.id) FROM ok WHERE "
		"ok.spec_hash = last.spec_hash AND ok.id < last.id) FROM last";
	sqlite3_stmt *st = NULL;
	int r, have_prev = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return db_fail(db, e, "select sweeps");
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		cand->id[0] = sqlite3_column_int64(st, 0);
		have_prev = sqlite3_column_type(st, 1) != SQLITE_NULL;
		base->id[0] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return db_fail(db, e, "select sweeps");
	if (r != SQLITE_ROW || !have_prev)
		return gc_fail(e, GC_E_NOTFOUND, "'previous' needs two sweeps of the same spec with "
			       "ok runs; %s", r == SQLITE_ROW ? "the newest sweep's spec has one" :
			       "the database has none");
	cand->n = base->n = 1;
	cand->by_sweep = base->by_sweep = 1;
	return GC_OK;
}

/* ---- samples per point -------------------------------------------------------------- */

struct spoint {
	gc_regress_point key;   /* key fields only */
	double *x;
	size_t n, cap;
	size_t *off;            /* run r's samples start at x[off[r]]; off[nruns] = n */
	size_t nruns, offcap;
	int64_t last_run;
	double med;
};

struct side {
	struct spoint *v;
	size_t n, cap;
};

static void side_release(struct side *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].x);
		free(s->v[i].off);
	}
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

/* Start a run at p->n (and keep off[nruns] = n, with room for one more). */
static gc_rc run_mark(struct spoint *p, int64_t run)
{
	if (p->nruns && p->last_run == run)
		return GC_OK;
	if (p->nruns + 2 > p->offcap) {
		void *nv = realloc(p->off, (p->offcap = p->offcap ? p->offcap * 2 : 8) * sizeof *p->off);
		if (!nv)
			return GC_E_NOMEM;
		p->off = nv;
	}
	p->off[p->nruns++] = p->n;
	p->last_run = run;
	return GC_OK;
}

/* Append sample v of run `run` to the last point if the row's key matches it, else a
 * new point. */
static gc_rc side_add(struct side *s, const gc_regress_point *k, int64_t run, double v)
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
	if (run_mark(p, run))
		return GC_E_NOMEM;
	if (p->n == p->cap) {
		nv = realloc(p->x, (p->cap = p->cap ? p->cap * 2 : 64) * sizeof *p->x);
		if (!nv)
			return GC_E_NOMEM;
		p->x = nv;
	}
	p->x[p->n++] = v;
	p->off[p->nruns] = p->n;
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
		 "i.t_iter, r.id FROM iterations i JOIN runs r ON r.id = i.run_id JOIN sweeps s "
		 "ON s.id = r.sweep_id WHERE r.status = 'ok' AND i.warmup = 0 AND %s IN (%s) "
		 "ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13", es->by_sweep ? "r.sweep_id" :
		 "r.env_id", ids);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return db_fail(db, e, "read iterations");
	while (!rc && (r = sqlite3_step(st)) == SQLITE_ROW) {
		key_from_row(st, &k);
		rc = side_add(s, &k, sqlite3_column_int64(st, 12), sqlite3_column_double(st, 11));
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

static gc_rc report_add(gc_regress_report *r, const gc_regress_point *pt)
{
	gc_regress_point *nv = realloc(r->v, (r->n + 1) * sizeof *r->v);

	if (!nv)
		return GC_E_NOMEM;
	r->v = nv;
	r->v[r->n++] = *pt;
	return GC_OK;
}

static gc_boot_sample sample_of(const struct spoint *p)
{
	gc_boot_sample s = { p->x, p->off, p->nruns };
	return s;
}

/* The bootstrap interval of the relative change, from v[0] (baseline side) and v[1]
 * (candidate side) for time, and for speedup also the baseline method on each side,
 * v[2] and v[3]: change = (v3 / v1) / (v2 / v0) - 1. */
static void interval(gc_regress_point *pt, const struct spoint *const *v, int nv, double alpha)
{
	double *rep = malloc(GC_BOOT_REPLICATES * sizeof *rep), *scratch, m[4];
	uint64_t rng = 0x9E3779B97F4A7C15ull;
	size_t need = 0, k;
	int i;

	for (i = 0; i < nv; i++) {
		gc_boot_sample s = sample_of(v[i]);
		need = gc_boot_scratch(&s) > need ? gc_boot_scratch(&s) : need;
	}
	scratch = malloc((need ? need : 1) * sizeof *scratch);
	if (rep && scratch) {
		for (k = 0; k < GC_BOOT_REPLICATES; k++) {
			for (i = 0; i < nv; i++) {
				gc_boot_sample s = sample_of(v[i]);
				m[i] = gc_boot_median(&s, pt->by_runs, &rng, scratch);
			}
			rep[k] = nv == 2 ? m[1] / m[0] - 1 : (m[3] / m[1]) / (m[2] / m[0]) - 1;
		}
		gc_boot_interval(rep, GC_BOOT_REPLICATES, alpha, &pt->ci_lo, &pt->ci_hi);
	}
	free(rep);
	free(scratch);
}

static int all_runs(const struct spoint *const *v, int nv)
{
	for (int i = 0; i < nv; i++)
		if (v[i]->nruns < GC_BOOT_MIN_RUNS)
			return 0;
	return 1;
}

static void verdict_from_interval(gc_regress_point *pt, double min_effect, int bad_sign)
{
	/* bad_sign: +1 when a rise is a regression (time), -1 when a fall is (speedup) */
	if (pt->ci_lo > 0 && pt->change >= min_effect)
		pt->verdict = bad_sign > 0 ? GC_REG_REGRESSION : GC_REG_IMPROVEMENT;
	else if (pt->ci_hi < 0 && pt->change <= -min_effect)
		pt->verdict = bad_sign > 0 ? GC_REG_IMPROVEMENT : GC_REG_REGRESSION;
}

/* b, c: the point on each side; bb, cb: the baseline method there (speedup only). */
static void judge(gc_regress_point *pt, const struct spoint *b, const struct spoint *c,
		  const struct spoint *bb, const struct spoint *cb, const gc_regress_opts *o)
{
	int speedup = o->metric == GC_METRIC_SPEEDUP;
	const struct spoint *v[4] = { b, c, bb, cb };
	int have_b = b && (!speedup || bb), have_c = c && (!speedup || cb);
	gc_mwu m;

	pt->n_base = b ? b->n : 0;
	pt->n_cand = c ? c->n : 0;
	pt->runs_base = b ? (int)b->nruns : 0;
	pt->runs_cand = c ? (int)c->nruns : 0;
	pt->med_base = b ? b->med : NAN;
	pt->med_cand = c ? c->med : NAN;
	pt->change = pt->z = pt->p = pt->ci_lo = pt->ci_hi = NAN;
	pt->by_runs = 0;
	if (!have_b || !have_c) {
		pt->verdict = have_b ? GC_REG_BASELINE_ONLY : GC_REG_CANDIDATE_ONLY;
		return;
	}
	pt->verdict = GC_REG_SAME;
	pt->by_runs = all_runs(v, speedup ? 4 : 2);
	if (speedup)
		pt->change = (cb->med / c->med) / (bb->med / b->med) - 1;
	else
		pt->change = c->med / b->med - 1;
	interval(pt, v, speedup ? 4 : 2, o->alpha);
	if (speedup || pt->by_runs) {
		verdict_from_interval(pt, o->min_effect, speedup ? -1 : 1);
		return;
	}
	if (gc_mwu_test(c->x, c->n, b->x, b->n, 1, &m))
		return;
	pt->z = m.z;
	pt->p = m.p;
	if (m.p < o->alpha && pt->change >= o->min_effect)
		pt->verdict = GC_REG_REGRESSION;
	else if (m.p < o->alpha && pt->change <= -o->min_effect)
		pt->verdict = GC_REG_IMPROVEMENT;
}

/* The baseline method's samples at p's point on side s, or NULL. */
static const struct spoint *side_base(const struct side *s, const struct spoint *p)
{
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < s->n; i++)
		if (same_key(&s->v[i].key, &p->key, 0) && !strcmp(s->v[i].key.method, p->key.baseline))
			return &s->v[i];
	return NULL;
}

static gc_rc compare_sides(const struct side *bs, const struct side *cs,
			   const gc_regress_opts *o, gc_regress_report *r)
{
	const struct spoint *b, *c, *bb, *cb;
	gc_regress_point pt;
	size_t i;
	gc_rc rc = GC_OK;

	for (i = 0; !rc && i < bs->n + cs->n; i++) {
		b = i < bs->n ? &bs->v[i] : side_find(bs, &cs->v[i - bs->n].key);
		c = i < bs->n ? side_find(cs, &b->key) : &cs->v[i - bs->n];
		if (i >= bs->n && b)
			continue;      /* already reported from the baseline side */
		pt = (b ? b : c)->key;
		if (o->metric == GC_METRIC_SPEEDUP && !strcmp(pt.method, pt.baseline))
			continue;      /* its speedup is 1 by definition */
		bb = side_base(bs, b);
		cb = side_base(cs, c);
		judge(&pt, b, c, bb, cb, o);
		pt.speedup_base = bb ? bb->med / b->med : NAN;
		pt.speedup_cand = cb ? cb->med / c->med : NAN;
		r->n_regressions += pt.verdict == GC_REG_REGRESSION;
		r->n_improvements += pt.verdict == GC_REG_IMPROVEMENT;
		r->n_one_side += pt.verdict >= GC_REG_BASELINE_ONLY;
		r->n_by_runs += pt.by_runs;
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
		if ((rc = previous_sweeps(db, be, ce, e)))
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
	r->metric = o->metric;
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


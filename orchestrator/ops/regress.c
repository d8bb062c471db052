/* orchestrator/ops/regress.c: compare two sets of environments point by point. */
#include "regress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db/q_regress.h"
#include "bootstrap.h"
#include "grow.h"
#include "stats.h"
#include "strutil.h"

void gc_regress_opts_default(gc_regress_opts *o)
{
	o->baseline = NULL;
	o->candidate = NULL;
	o->min_effect = 0.05;
	o->alpha = 0.01;
	o->metric = GC_METRIC_TIME;
	o->confirm = 0;
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

/* ---- selectors -------------------------------------------------------------------- */

#define SEL_MAX 8

/* The conditions of a selector: fields[i] (an environment field, gc_db_env_field)
 * equal to (or, for a version, starting) vals[i]. */
struct selector {
	char fields[SEL_MAX][32];
	char vals[SEL_MAX][128];
	int n;
};

/* One "field=value" into s (a field db/ knows; the value is bound there). */
static gc_rc sel_term(struct selector *s, const char *term, gc_err *e)
{
	const char *eq = strchr(term, '=');
	size_t fl = eq ? (size_t)(eq - term) : 0;

	if (!eq || gc_db_env_field(term, fl) < 0 || fl >= sizeof s->fields[0] || !eq[1] ||
	    strlen(eq + 1) >= sizeof s->vals[0] || s->n >= SEL_MAX)
		return gc_fail(e, GC_E_INVAL, "invalid selector term '%s': write FIELD=VALUE "
			       "with FIELD one of host, gpu_model, driver, cuda, nccl, mpi, "
			       "kernel, libnl, sqlite, gcbench, tcp_cc, tag, env (at most %d "
			       "terms, joined by ','); a SLURM job is selected on its own "
			       "(job=ID, partition=P)", term, SEL_MAX);
	memcpy(s->fields[s->n], term, fl);
	s->fields[s->n][fl] = '\0';
	gc_strlcpy(s->vals[s->n++], eq + 1, sizeof s->vals[0]);
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
	int by_job;        /* the runs of a SLURM job and/or partition ('job=ID,partition=P') */
	char job[32], partition[128];   /* "" when not a term */
};

static void envset_desc(const char *sel, const struct envset *es, char *out, size_t n)
{
	char tmp[32];
	size_t i;

	if (es->by_job) {
		snprintf(out, n, "%s (runs)", sel);
		return;
	}
	snprintf(out, n, "%s (%s %s", sel, es->by_sweep ? "sweep" : "env", es->n ? "" : "none");
	for (i = 0; i < es->n; i++) {
		snprintf(tmp, sizeof tmp, "%s%lld", i ? ", " : "", (long long)es->id[i]);
		strncat(out, tmp, n - strlen(out) - 1);
	}
	strncat(out, ")", n - strlen(out) - 1);
}

/* "sweep=ID": one sweep, which must have ok runs. */
static gc_rc sel_sweep(gc_db *db, const char *text, struct envset *es, gc_err *e)
{
	uint64_t id;
	int found;
	gc_rc rc;

	if (gc_parse_u64(text + 6, &id) || id == 0 || id > INT64_MAX)
		return gc_fail(e, GC_E_INVAL, "invalid selector '%s': sweep=ID takes a sweep id "
			       "(gcbench status lists them)", text);
	if ((rc = gc_db_sweep_has_ok_runs(db, (int64_t)id, &found, e)))
		return rc;
	if (!found)
		return gc_fail(e, GC_E_NOTFOUND, "sweep %lld has no ok runs; see 'gcbench status'",
			       (long long)id);
	es->id[0] = (int64_t)id;
	es->n = 1;
	es->by_sweep = 1;
	return GC_OK;
}

int gc_regress_valid_partition(const char *p)
{
	if (!p || !*p || *p == '-' || *p == '.' || strlen(p) > 127)
		return 0;
	for (; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			return 0;
	return 1;
}

int gc_regress_job_parse(const char *s, char *out, size_t n)
{
	uint64_t id;

	if (!s || *s < '0' || *s > '9' || gc_parse_u64(s, &id) || !id)
		return -1;
	return snprintf(out, n, "%llu", (unsigned long long)id) < (int)n ? 0 : -1;
}

static int is_job_term(const char *t)
{
	return !strncmp(t, "job=", 4) || !strncmp(t, "partition=", 10);
}

/* "job=ID", "partition=P" or both joined by ',': the ok runs of a SLURM job and/or
 * partition (runs.slurm_job, runs.slurm_partition), which must exist. */
static gc_rc sel_job(gc_db *db, const char *text, struct envset *es, gc_err *e)
{
	char buf[256], *tok, *save = NULL;
	int found;
	gc_rc rc;

	es->by_job = 1;
	es->job[0] = es->partition[0] = '\0';
	if (strlen(text) >= sizeof buf || strstr(text, ",,") || text[strlen(text) - 1] == ',')
		return gc_fail(e, GC_E_INVAL, "invalid selector '%.64s': write job=ID, "
			       "partition=P or both joined by one ','", text);
	gc_strlcpy(buf, text, sizeof buf);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int job_ok = !strncmp(tok, "job=", 4) && !es->job[0] &&
			     !gc_regress_job_parse(tok + 4, es->job, sizeof es->job);
		int part_ok = !job_ok && !strncmp(tok, "partition=", 10) && !es->partition[0] &&
			      gc_regress_valid_partition(tok + 10);

		if (part_ok)
			gc_strlcpy(es->partition, tok + 10, sizeof es->partition);
		if (!job_ok && !part_ok)
			return gc_fail(e, GC_E_INVAL, "invalid selector term '%s' in '%s': a job "
				       "selector is job=ID (the SLURM job id, digits), partition=P "
				       "([A-Za-z0-9._-]) or both joined by ',', each once", tok, text);
	}
	if ((rc = gc_db_job_has_ok_runs(db, es->job[0] ? es->job : NULL,
					es->partition[0] ? es->partition : NULL, &found, e)))
		return rc;
	if (!found)
		return gc_fail(e, GC_E_NOTFOUND, "no ok run matches '%s'; runs.slurm_job and "
			       "runs.slurm_partition hold each run's job (sqlite3 DB 'SELECT DISTINCT "
			       "slurm_job, slurm_partition FROM runs')", text);
	return GC_OK;
}

/* The environments of a selector that have ok runs. */
static gc_rc sel_envs(gc_db *db, const char *text, struct envset *es, gc_err *e)
{
	struct gc_db_env_cond c[SEL_MAX];
	struct selector s;
	gc_rc rc;

	es->by_sweep = es->by_job = 0;
	if (text && !strncmp(text, "sweep=", 6))
		return sel_sweep(db, text, es, e);
	if (text && is_job_term(text))
		return sel_job(db, text, es, e);
	if ((rc = sel_parse(text, &s, e)))
		return rc;
	for (int i = 0; i < s.n; i++)
		c[i] = (struct gc_db_env_cond){ s.fields[i], s.vals[i] };
	rc = gc_db_envs_with_ok_runs(db, c, (size_t)s.n, es->id,
				     sizeof es->id / sizeof es->id[0], &es->n, e);
	if (rc)
		return rc;
	if (!es->n)
		return gc_fail(e, GC_E_NOTFOUND, "no environment with ok runs matches '%s'; "
			       "see the environments table (sqlite3 DB 'SELECT * FROM "
			       "environments')", text);
	return GC_OK;
}

/* "previous": the newest sweep with ok runs, and the newest sweep of the same spec
 * before it with ok runs (last night and the night before). */
static gc_rc previous_sweeps(gc_db *db, struct envset *base, struct envset *cand, gc_err *e)
{
	int64_t last, prev;
	gc_rc rc = gc_db_previous_sweeps(db, &last, &prev, e);

	if (rc)
		return rc;
	if (!last || !prev)
		return gc_fail(e, GC_E_NOTFOUND, "'previous' needs two sweeps of the same spec with "
			       "ok runs; %s", last ? "the newest sweep's spec has one" :
			       "the database has none");
	cand->id[0] = last;
	base->id[0] = prev;
	cand->n = base->n = 1;
	cand->by_sweep = base->by_sweep = 1;
	cand->by_job = base->by_job = 0;
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
	       a->world_size == b->world_size && a->batch == b->batch &&
	       !strcmp(a->stack, b->stack);
}

static void key_from_sample(const struct gc_db_iter_sample *x, gc_regress_point *k)
{
	memset(k, 0, sizeof *k);
	gc_strlcpy(k->workload, x->workload, sizeof k->workload);
	gc_strlcpy(k->model, x->model, sizeof k->model);
	gc_strlcpy(k->method, x->method, sizeof k->method);
	gc_strlcpy(k->params, x->params, sizeof k->params);
	k->bw_cap_bps = x->bw_cap_bps;
	k->latency_s = x->latency_s;
	k->world_size = x->world_size;
	k->batch = x->batch;
	gc_strlcpy(k->backend, x->backend, sizeof k->backend);
	k->compute_scale = x->compute_scale;
	gc_strlcpy(k->baseline, x->baseline, sizeof k->baseline);
	gc_strlcpy(k->stack, x->stack, sizeof k->stack);
}

/* Start a run at p->n (and keep off[nruns] = n, with room for one more). */
static gc_rc run_mark(struct spoint *p, int64_t run)
{
	if (p->nruns && p->last_run == run)
		return GC_OK;
	if (GC_GROW(p->off, p->offcap, p->nruns + 2, 8))
		return GC_E_NOMEM;
	p->off[p->nruns++] = p->n;
	p->last_run = run;
	return GC_OK;
}

/* Append sample v of run `run` to the last point if the row's key matches it, else a
 * new point. */
static gc_rc side_add(struct side *s, const gc_regress_point *k, int64_t run, double v)
{
	struct spoint *p = s->n ? &s->v[s->n - 1] : NULL;

	if (!p || !same_key(&p->key, k, 1) || strcmp(p->key.baseline, k->baseline)) {
		if (GC_GROW(s->v, s->cap, s->n + 1, 16))
			return GC_E_NOMEM;
		p = &s->v[s->n++];
		memset(p, 0, sizeof *p);
		p->key = *k;
	}
	if (run_mark(p, run))
		return GC_E_NOMEM;
	if (GC_GROW(p->x, p->cap, p->n + 1, 64))
		return GC_E_NOMEM;
	p->x[p->n++] = v;
	p->off[p->nruns] = p->n;
	return GC_OK;
}

struct loading {
	struct side *s;
	gc_rc rc;
};

/* gc_db_ok_iterations callback: one sample into its point; stops on a failure. */
static int sample_add(const struct gc_db_iter_sample *x, void *arg)
{
	struct loading *l = arg;
	gc_regress_point k;

	key_from_sample(x, &k);
	l->rc = side_add(l->s, &k, x->run_id, x->t_iter);
	return l->rc != GC_OK;
}

static gc_rc side_load(gc_db *db, const struct envset *es, struct side *s, gc_err *e)
{
	struct loading l = { s, GC_OK };
	size_t i;
	gc_rc rc = es->by_job ?
		gc_db_job_iterations(db, es->job[0] ? es->job : NULL,
				     es->partition[0] ? es->partition : NULL, sample_add, &l, e) :
		gc_db_ok_iterations(db, es->id, es->n, es->by_sweep, sample_add, &l, e);

	if (l.rc)
		return gc_fail(e, l.rc, "out of memory reading iterations");
	if (rc)
		return rc;
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

/* ---- the noise model of a nightly series ----------------------------------------- */

/* Judge report point pt by its series sp (the candidate is the newest night). */
static void judge_by_nights(gc_regress_point *pt, const gc_regress_series *s,
			    const gc_regress_spoint *sp, const gc_regress_opts *o,
			    gc_regress_report *r)
{
	double *y = malloc((s->nnights + 1) * sizeof *y);
	gc_series_verdict v;
	size_t n = 0;
	int confirm = o->confirm ? o->confirm : sp->runs[s->nnights - 1] == 1 ? 2 : 1;

	if (!y || isnan(sp->med[s->nnights - 1])) {
		free(y);
		return;
	}
	for (size_t k = 0; k < s->nnights; k++)
		if (!isnan(sp->med[k]))
			y[n++] = log(sp->med[k]);
	gc_series_judge(y, n - 1, confirm, o->alpha, o->min_effect, &v);
	free(y);
	if (!v.history) {
		r->n_short_history++;
		return;
	}
	r->n_regressions -= pt->verdict == GC_REG_REGRESSION;
	r->n_improvements -= pt->verdict == GC_REG_IMPROVEMENT;
	pt->nights = v.history;
	pt->confirm = v.confirm;
	pt->night_sd = v.sd;
	pt->med_base = exp(v.mean);
	pt->change = v.change;
	pt->z = v.t;
	pt->p = v.t >= 0 ? v.p_up : v.p_down;
	pt->ci_lo = v.ci_lo;
	pt->ci_hi = v.ci_hi;
	pt->verdict = v.verdict > 0 ? GC_REG_REGRESSION : v.verdict < 0 ? GC_REG_IMPROVEMENT :
		GC_REG_SAME;
	pt->suspect = v.suspect > 0;
	r->n_regressions += pt->verdict == GC_REG_REGRESSION;
	r->n_improvements += pt->verdict == GC_REG_IMPROVEMENT;
	r->n_suspects += pt->suspect;
	r->n_by_nights++;
}

/* 'previous' with the time metric: the points with few runs are judged by the series
 * of the candidate's spec up to the candidate night. */
static gc_rc apply_series(gc_db *db, const gc_regress_opts *o, int64_t cand_sweep,
			  gc_regress_report *r, gc_err *e)
{
	gc_regress_series s;
	gc_rc rc = gc_regress_series_load(db, cand_sweep, GC_SERIES_WINDOW + 1, &s, e);

	if (rc)
		return rc;
	for (size_t i = 0; i < r->n; i++) {
		gc_regress_point *pt = &r->v[i];

		if (pt->verdict >= GC_REG_BASELINE_ONLY || pt->by_runs)
			continue;
		for (size_t k = 0; k < s.npts; k++)
			if (same_key(&s.pt[k].key, pt, 1)) {
				judge_by_nights(pt, &s, &s.pt[k], o, r);
				break;
			}
	}
	gc_regress_series_release(&s);
	return GC_OK;
}

static gc_rc resolve(gc_db *db, const gc_regress_opts *o, struct envset *be,
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

gc_rc gc_regress_compare(gc_db *db, const gc_regress_opts *o, gc_regress_report *r,
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
	if (!rc && o->metric == GC_METRIC_TIME && o->baseline &&
	    !strcmp(o->baseline, "previous") && ce.by_sweep)
		rc = apply_series(db, o, ce.id[0], r, e);
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


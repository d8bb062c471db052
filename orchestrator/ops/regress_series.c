/* orchestrator/ops/regress_series.c: a spec's nights, every point's median each night,
 * and the steps of each point's series (gcbench regress --series). */
#include "regress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "stats.h"
#include "strutil.h"

void gc_regress_series_release(gc_regress_series *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->npts; i++) {
		free(s->pt[i].med);
		free(s->pt[i].runs);
	}
	free(s->pt);
	free(s->sweep);
	free(s->night);
	memset(s, 0, sizeof *s);
}

static void key_of(const struct gc_db_iter_sample *x, gc_regress_point *k, char *id, size_t n)
{
	memset(k, 0, sizeof *k);
	gc_strlcpy(k->workload, x->workload, sizeof k->workload);
	gc_strlcpy(k->model, x->model, sizeof k->model);
	gc_strlcpy(k->method, x->method, sizeof k->method);
	gc_strlcpy(k->params, x->params, sizeof k->params);
	gc_strlcpy(k->backend, x->backend, sizeof k->backend);
	gc_strlcpy(k->baseline, x->baseline, sizeof k->baseline);
	gc_strlcpy(k->stack, x->stack, sizeof k->stack);
	k->bw_cap_bps = x->bw_cap_bps;
	k->latency_s = x->latency_s;
	k->compute_scale = x->compute_scale;
	k->world_size = x->world_size;
	k->batch = x->batch;
	snprintf(id, n, "%s|%s|%s|%s|%s|%s|%lld|%.17g|%.17g|%d|%d", k->workload, k->model,
		 k->method, k->params, k->backend, k->stack, (long long)k->bw_cap_bps,
		 k->latency_s, k->compute_scale, k->world_size, k->batch);
}

/* The point called id, appended (with every night NAN) when new; NULL out of memory. */
static gc_regress_spoint *point_get(gc_regress_series *s, const gc_regress_point *k,
				    const char *id)
{
	gc_regress_spoint *p;

	for (size_t i = 0; i < s->npts; i++)
		if (!strcmp(s->pt[i].id, id))
			return &s->pt[i];
	if (GC_GROW(s->pt, s->cap, s->npts + 1, 16))
		return NULL;
	p = &s->pt[s->npts];
	memset(p, 0, sizeof *p);
	p->key = *k;
	gc_strlcpy(p->id, id, sizeof p->id);
	p->med = malloc(s->nnights * sizeof *p->med);
	p->runs = calloc(s->nnights, sizeof *p->runs);
	if (!p->med || !p->runs) {
		free(p->med);
		free(p->runs);
		return NULL;
	}
	for (size_t i = 0; i < s->nnights; i++)
		p->med[i] = NAN;
	p->spread = NAN;
	s->npts++;
	return p;
}

/* One night's samples of the point being read. */
struct night_load {
	gc_regress_series *s;
	size_t night;
	char id[512];
	gc_regress_point key;
	double *x;
	size_t n, cap;
	int runs;
	int64_t last_run;
	gc_rc rc;
};

static gc_rc flush(struct night_load *l)
{
	gc_regress_spoint *p;

	if (!l->n)
		return GC_OK;
	if (!(p = point_get(l->s, &l->key, l->id)))
		return GC_E_NOMEM;
	p->med[l->night] = gc_median(l->x, l->n);
	p->runs[l->night] = l->runs;
	l->n = 0;
	l->runs = 0;
	return isnan(p->med[l->night]) ? GC_E_NOMEM : GC_OK;
}

static int night_sample(const struct gc_db_iter_sample *x, void *arg)
{
	struct night_load *l = arg;
	gc_regress_point k;
	char id[512];

	key_of(x, &k, id, sizeof id);
	if (strcmp(id, l->id)) {
		if ((l->rc = flush(l)))
			return 1;
		gc_strlcpy(l->id, id, sizeof l->id);
		l->key = k;
	}
	if (!l->runs || x->run_id != l->last_run) {
		l->runs++;
		l->last_run = x->run_id;
	}
	if (GC_GROW(l->x, l->cap, l->n + 1, 256)) {
		l->rc = GC_E_NOMEM;
		return 1;
	}
	l->x[l->n++] = x->t_iter;
	return 0;
}

static gc_rc load_nights(gc_db *db, gc_regress_series *s, gc_err *e)
{
	struct night_load l = { .s = s };
	gc_rc rc = GC_OK;

	for (size_t i = 0; !rc && i < s->nnights; i++) {
		l.night = i;
		l.id[0] = '\0';
		l.n = 0;
		l.runs = 0;
		rc = gc_db_night_info(db, s->sweep[i], &s->night[i], e);
		if (!rc)
			rc = gc_db_ok_iterations(db, &s->sweep[i], 1, 1, night_sample, &l, e);
		if (!rc && !l.rc)
			l.rc = flush(&l);
		if (!rc && l.rc)
			rc = gc_fail(e, l.rc, "out of memory reading the nights' iterations");
	}
	free(l.x);
	return rc;
}

gc_rc gc_regress_series_load(gc_db *db, int64_t last, size_t max, gc_regress_series *s,
			     gc_err *e)
{
	gc_rc rc;

	memset(s, 0, sizeof *s);
	max = max && max < GC_REGRESS_SERIES_MAX ? max : GC_REGRESS_SERIES_MAX;
	s->sweep = malloc(max * sizeof *s->sweep);
	s->night = calloc(max, sizeof *s->night);
	if (!s->sweep || !s->night) {
		gc_regress_series_release(s);
		return gc_fail(e, GC_E_NOMEM, "out of memory reading the nights");
	}
	rc = gc_db_series_sweeps(db, last, s->sweep, max, &s->nnights, e);
	if (!rc && !s->nnights)
		rc = gc_fail(e, GC_E_NOTFOUND, "the database has no sweep with ok runs");
	if (!rc)
		rc = load_nights(db, s, e);
	if (rc)
		gc_regress_series_release(s);
	return rc;
}

void gc_regress_series_steps(gc_regress_series *s, double min_effect)
{
	double *y = malloc((s->nnights + 1) * sizeof *y);
	size_t *at = malloc((s->nnights + 1) * sizeof *at);

	s->min_effect = min_effect;
	for (size_t i = 0; y && at && i < s->npts; i++) {
		gc_regress_spoint *p = &s->pt[i];
		gc_series_set one;
		size_t n = 0, off[2];

		for (size_t k = 0; k < s->nnights; k++)
			if (!isnan(p->med[k])) {
				at[n] = k;
				y[n++] = log(p->med[k]);
			}
		off[0] = 0;
		off[1] = n;
		one = (gc_series_set){ .y = y, .off = off, .npoints = 1, .n = n };
		p->spread = gc_series_spread(&one, 0);
		p->nsteps = gc_series_steps(y, n, min_effect, p->steps, GC_SERIES_MAX_STEPS);
		for (size_t k = 0; k < p->nsteps; k++)
			p->steps[k].at = at[p->steps[k].at];
	}
	free(y);
	free(at);
}

void gc_regress_env_changes(const struct gc_db_night *a, const struct gc_db_night *b,
			    char *out, size_t n)
{
	static const char *const fields[] = { "host", "gpu_model", "driver", "cuda", "nccl",
		"mpi", "kernel", "libnl", "sqlite", "gcbench", "tcp_cc", "tag" };
	char one[300];

	out[0] = '\0';
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		const char *x = gc_envinfo_field(&a->env, fields[i]);
		const char *y = gc_envinfo_field(&b->env, fields[i]);

		if (!x || !y || !strcmp(x, y))
			continue;
		snprintf(one, sizeof one, "%s%s %s -> %s", out[0] ? ", " : "", fields[i],
			 x[0] ? x : "''", y[0] ? y : "''");
		strncat(out, one, n - strlen(out) - 1);
	}
}

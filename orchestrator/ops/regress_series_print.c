/* orchestrator/ops/regress_series_print.c: `gcbench regress --series` as a table,
 * markdown, JSON or the CSV of measured nights. */
#include "regress.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "json.h"
#include "netem/rate.h"
#include "run_view.h"
#include "strutil.h"
#include "table.h"

#define NCOL 9

static void when(double t, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M", &tm))
		gc_strlcpy(buf, "?", n);
}

static double last_median(const gc_regress_series *s, const gc_regress_spoint *p, size_t *nights)
{
	double last = NAN;

	*nights = 0;
	for (size_t k = 0; k < s->nnights; k++)
		if (!isnan(p->med[k])) {
			last = p->med[k];
			++*nights;
		}
	return last;
}

static void add_row(gc_table *t, const gc_regress_series *s, const gc_regress_spoint *p)
{
	char bw[32], pb[32], params[192], method[100], nn[16], last[32], spread[16], step[64];
	const gc_regress_point *k = &p->key;
	const char *row[NCOL];
	size_t nights;
	double lm = last_median(s, p, &nights);

	gc_bw_format(k->bw_cap_bps > 0 ? (uint64_t)k->bw_cap_bps : 0, bw, sizeof bw);
	snprintf(pb, sizeof pb, "%dx%d", k->world_size, k->batch);
	gc_params_brief(k->workload, k->method, k->params, params, sizeof params);
	snprintf(nn, sizeof nn, "%zu", nights);
	snprintf(last, sizeof last, "%.2f", lm * 1e3);
	if (isnan(p->spread))
		gc_strlcpy(spread, "-", sizeof spread);
	else
		snprintf(spread, sizeof spread, "%.1f%%", p->spread * 100);
	if (!p->nsteps)
		gc_strlcpy(step, "none", sizeof step);
	else
		snprintf(step, sizeof step, "%+.1f%% at sweep %lld%s",
			 p->steps[p->nsteps - 1].change * 100,
			 (long long)s->sweep[p->steps[p->nsteps - 1].at], p->nsteps > 1 ? " (+)" : "");
	row[0] = k->model;
	row[1] = gc_stack_method(k->stack, k->method, method, sizeof method);
	row[2] = params;
	row[3] = bw;
	row[4] = pb;
	row[5] = nn;
	row[6] = last;
	row[7] = spread;
	row[8] = step;
	gc_table_add(t, row);
}

/* "sweep 9 (2026-12-04 22:13): +28.7% (p 3e-06); changed that night: tag a -> b" */
static void step_text(const gc_regress_series *s, const gc_series_step *st, char *out,
		      size_t n)
{
	char at[32], env[1024];

	when(s->night[st->at].started, at, sizeof at);
	if (st->at)
		gc_regress_env_changes(&s->night[st->at - 1], &s->night[st->at], env, sizeof env);
	else
		env[0] = '\0';
	snprintf(out, n, "sweep %lld (%s): %+.1f%% (p %.2g); changed that night: %s",
		 (long long)s->sweep[st->at], at, st->change * 100, st->p, env[0] ? env :
		 "no environment field");
}

static void print_text(FILE *f, const gc_regress_series *s, int md)
{
	static const char *const head[NCOL] = { "model", "method", "params", "bandwidth",
		"pxb", "nights", "last_ms", "spread", "last step" };
	char line[1400], bw[32];
	gc_table t;
	size_t i, k, nsteps = 0;

	fprintf(f, "%sseries%s '%s': %zu nights (sweeps %lld..%lld); a step: t-test p < %g and "
		"|change| >= %.0f%%\n\n", md ? "**" : "", md ? "**" : "", s->night[0].name,
		s->nnights, (long long)s->sweep[0], (long long)s->sweep[s->nnights - 1],
		GC_SERIES_STEP_P, s->min_effect * 100);
	gc_table_init(&t, NCOL, head, "lllrrrrrl", 2);
	for (i = 0; i < s->npts; i++)
		add_row(&t, s, &s->pt[i]);
	if (md)
		gc_table_markdown(&t, f);
	else
		gc_table_print(&t, f, 100);
	gc_table_release(&t);
	fprintf(f, "\nspread: the standard deviation of the change of the median from one night "
		"to the next\n");
	for (i = 0; i < s->npts; i++)
		for (k = 0; k < s->pt[i].nsteps; k++) {
			const gc_regress_point *p = &s->pt[i].key;

			if (!nsteps++)
				fprintf(f, "\nsteps:\n");
			gc_bw_format(p->bw_cap_bps > 0 ? (uint64_t)p->bw_cap_bps : 0, bw, sizeof bw);
			step_text(s, &s->pt[i].steps[k], line, sizeof line);
			fprintf(f, "%s%s %s%s%s %s %dx%d: %s\n", md ? "- " : "  ", p->model, p->method,
				p->params[0] ? " " : "", p->params, bw, p->world_size, p->batch, line);
		}
	if (!nsteps)
		fprintf(f, "\nno steps\n");
}

static void json_point(gc_json *j, const gc_regress_series *s, const gc_regress_spoint *p)
{
	char env[1024];

	gc_json_obj_open(j);
	gc_json_str_field(j, "model", p->key.model);
	gc_json_str_field(j, "method", p->key.method);
	gc_json_str_field(j, "params", p->key.params);
	gc_json_str_field(j, "stack", p->key.stack);
	gc_json_str_field(j, "workload", p->key.workload);
	gc_json_int_field(j, "bw_cap_bps", (long long)p->key.bw_cap_bps);
	gc_json_int_field(j, "world_size", p->key.world_size);
	gc_json_int_field(j, "batch", p->key.batch);
	gc_json_numg_field(j, "spread", p->spread, 9);
	gc_json_key(j, "median_s");
	gc_json_arr_open(j);
	for (size_t k = 0; k < s->nnights; k++)
		gc_json_numg(j, p->med[k], 9);
	gc_json_arr_close(j);
	gc_json_key(j, "steps");
	gc_json_arr_open(j);
	for (size_t k = 0; k < p->nsteps; k++) {
		const gc_series_step *st = &p->steps[k];

		gc_json_obj_open(j);
		gc_json_int_field(j, "sweep", (long long)s->sweep[st->at]);
		gc_json_numg_field(j, "started", s->night[st->at].started, 12);
		gc_json_numg_field(j, "change", st->change, 9);
		gc_json_numg_field(j, "p", st->p, 9);
		if (st->at)
			gc_regress_env_changes(&s->night[st->at - 1], &s->night[st->at], env,
					       sizeof env);
		else
			env[0] = '\0';
		gc_json_str_field(j, "env_changed", env);
		gc_json_obj_close(j);
	}
	gc_json_arr_close(j);
	gc_json_obj_close(j);
}

static gc_rc print_json(FILE *f, const gc_regress_series *s, gc_err *e)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;
	gc_rc rc;

	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_str_field(&j, "name", s->night[0].name);
	gc_json_numg_field(&j, "min_effect", s->min_effect, 9);
	gc_json_key(&j, "sweeps");
	gc_json_arr_open(&j);
	for (size_t k = 0; k < s->nnights; k++)
		gc_json_int(&j, (long long)s->sweep[k]);
	gc_json_arr_close(&j);
	gc_json_key(&j, "points");
	gc_json_arr_open(&j);
	for (size_t i = 0; i < s->npts; i++)
		json_point(&j, s, &s->pt[i]);
	gc_json_arr_close(&j);
	gc_json_obj_close(&j);
	if ((rc = gc_json_finish(&j)))
		gc_fail(e, rc, "cannot write the series as JSON: %s", gc_strerror(rc));
	else
		fprintf(f, "%s\n", b.p);
	gc_buf_release(&b);
	return rc;
}

/* point,night,median_s; the point's key without commas or quotes (params' commas as
 * ';'), the night its sweep id. */
static void print_csv(FILE *f, const gc_regress_series *s)
{
	char name[512];

	fprintf(f, "point,night,median_s\n");
	for (size_t i = 0; i < s->npts; i++) {
		gc_strlcpy(name, s->pt[i].id, 160);
		for (char *c = name; *c; c++)
			if (*c == ',' || *c == '"' || *c == '\n' || *c == '\r')
				*c = ';';
		for (size_t k = 0; k < s->nnights; k++)
			if (!isnan(s->pt[i].med[k]))
				fprintf(f, "%s,%lld,%.9g\n", name, (long long)s->sweep[k],
					s->pt[i].med[k]);
	}
}

gc_rc gc_regress_series_print(FILE *f, const gc_regress_series *s, const char *format,
			      gc_err *e)
{
	if (!format || !strcmp(format, "table"))
		print_text(f, s, 0);
	else if (!strcmp(format, "markdown"))
		print_text(f, s, 1);
	else if (!strcmp(format, "json"))
		return print_json(f, s, e);
	else if (!strcmp(format, "csv"))
		print_csv(f, s);
	else
		return gc_fail(e, GC_E_INVAL, "unknown format '%s': table, markdown, json or csv",
			       format);
	return GC_OK;
}

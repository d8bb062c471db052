/* gcbench status: the sweeps in a results database and their latest runs. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "db/db.h"
#include "log.h"
#include "netem/rate.h"
#include "orchestrator/ops/run_view.h"
#include "orchestrator/ops/table.h"
#include "strutil.h"

static void status_opt_lines(FILE *f);

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench status [--db PATH] [--sweeps N] [--runs N] [--json]\n\n"
		"Show the sweeps recorded in a results database, newest first, with how many\n"
		"points ended ok, failed, timed out, were interrupted or are still running, a\n"
		"point's mean overhead (its time beyond its iterations) and where it went\n"
		"(docs/database.md, \"Overhead\"), and the latest runs with their median\n"
		"iteration time and overhead or their error. The database is only read (an\n"
		"older schema is migrated first when the file is writable).\n"
		"A sweep shown 'running' whose process is gone is marked 'interrupted' by the\n"
		"next 'gcbench run' of the same spec, which then continues it if the nodes'\n"
		"environments are unchanged (docs/spec.md, \"Resume\").\n\n"
		"options:\n");
	status_opt_lines(f);
	fprintf(f, "\n"
		"example:\n"
		"  gcbench status --db results/gcbench.db --runs 20\n"
		"  sqlite3 results/gcbench.db 'SELECT * FROM speedup'   # see docs/database.md\n");
}

static void fmt_time(double t, char *buf, size_t n)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (t <= 0 || !localtime_r(&s, &tm))
		gc_strlcpy(buf, "-", n);
	else
		strftime(buf, n, "%Y-%m-%d %H:%M", &tm);
}

/* The names status shows for gc_db_phases (launch less the iterations: ranks). */
static const char *const phase_label[GC_DB_NPHASES] = { "reap", "prepare", "shape",
	"calibrate", "ranks", "collect", "ingest", "cleanup", "record" };

/* "overhead per point 1.23 s of 4.56 s (n runs): shape 0.10, calibrate 0.52, ..." */
static void print_overhead(const struct gc_db_overhead *o)
{
	int i, any = 0;

	if (o->n <= 0 || o->overhead_s < 0)
		return;
	printf("       overhead per point %.2f s of %.2f s (mean of %d run%s)", o->overhead_s,
	       o->wall_s, o->n, o->n == 1 ? "" : "s");
	for (i = 0; i < GC_DB_NPHASES; i++)
		if (o->phase_s[i] >= 0)
			printf("%s %s %.2f", any++ ? "," : ":", phase_label[i], o->phase_s[i]);
	printf("\n");
	if (o->setup_s >= 0)
		printf("       setup before the first point %.2f s\n", o->setup_s);
}

struct sweeps_out {
	gc_db *db;
	int shown;
};

static int print_sweep(const struct gc_db_sweep_stat *s, void *arg)
{
	struct sweeps_out *so = arg;
	struct gc_db_overhead o;
	char started[32];
	gc_err e;

	so->shown++;
	fmt_time(s->started, started, sizeof(started));
	printf("%5lld  %-20.20s %-16s %-11s %4d %6d %7d %11d %7d\n", (long long)s->id, s->name,
	       started, s->status, s->n_ok, s->n_failed, s->n_timeout, s->n_interrupted,
	       s->n_running);
	printf("       spec_hash %s\n", s->spec_hash);
	if (gc_db_sweep_overhead(so->db, s->id, &o, &e))
		gc_warn("%s", e.msg);
	else
		print_overhead(&o);
	return 0;
}

static void json_mean(gc_json *j, const char *key, double v)
{
	gc_json_key(j, key);
	if (v >= 0)
		gc_json_numg(j, v, 6);
	else
		gc_json_null(j);
}

/* "overhead": {"runs", "wall_s", "iter_s", "overhead_s", "setup_s", "phases": {...}} */
static void json_overhead(gc_json *j, const struct gc_db_overhead *o)
{
	int i;

	gc_json_key(j, "overhead");
	if (o->n <= 0) {
		gc_json_null(j);
		return;
	}
	gc_json_obj_open(j);
	gc_json_int_field(j, "runs", o->n);
	json_mean(j, "wall_s", o->wall_s);
	json_mean(j, "iter_s", o->iter_s);
	json_mean(j, "overhead_s", o->overhead_s);
	json_mean(j, "setup_s", o->setup_s);
	gc_json_key(j, "phases_s");
	gc_json_obj_open(j);
	for (i = 0; i < GC_DB_NPHASES; i++)
		json_mean(j, phase_label[i], o->phase_s[i]);
	gc_json_obj_close(j);
	gc_json_obj_close(j);
}

struct json_out {
	gc_json *j;
	gc_db *db;
	gc_rc rc;
	gc_err e;
};

static int json_sweep(const struct gc_db_sweep_stat *s, void *arg)
{
	struct json_out *jo = arg;
	struct gc_db_overhead o;
	gc_json *j = jo->j;

	if ((jo->rc = gc_db_sweep_overhead(jo->db, s->id, &o, &jo->e)))
		return 1;

	gc_json_obj_open(j);
	gc_json_int_field(j, "id", s->id);
	gc_json_str_field(j, "name", s->name);
	gc_json_str_field(j, "spec_hash", s->spec_hash);
	gc_json_time_field(j, "started", s->started);
	gc_json_time_field(j, "finished", s->finished);
	gc_json_str_field(j, "status", s->status);
	gc_json_int_field(j, "ok", s->n_ok);
	gc_json_int_field(j, "failed", s->n_failed);
	gc_json_int_field(j, "timeout", s->n_timeout);
	gc_json_int_field(j, "interrupted", s->n_interrupted);
	gc_json_int_field(j, "running", s->n_running);
	json_overhead(j, &o);
	gc_json_obj_close(j);
	return 0;
}

static int json_run(const struct gc_db_run_stat *r, void *arg)
{
	gc_json *j = arg;
	char bw[32];

	gc_json_obj_open(j);
	gc_json_int_field(j, "id", r->id);
	gc_json_int_field(j, "sweep", r->sweep_id);
	gc_json_time_field(j, "started", r->started);
	gc_json_str_field(j, "status", r->status);
	gc_json_str_field(j, "model", r->model);
	gc_json_str_field(j, "method", r->method);
	gc_json_str_field(j, "params", r->params);
	gc_json_str_field(j, "stack", r->stack);
	gc_json_str_field(j, "bandwidth", gc_bw_format((uint64_t)(r->bw_cap_bps > 0 ?
							r->bw_cap_bps : 0), bw, sizeof bw));
	gc_json_int_field(j, "bw_cap_bps", r->bw_cap_bps > 0 ? r->bw_cap_bps : 0);
	gc_json_int_field(j, "world_size", r->world_size);
	gc_json_int_field(j, "batch", r->batch);
	gc_json_key(j, "iter_ms");
	if (r->t_iter_median >= 0)
		gc_json_numg(j, r->t_iter_median * 1e3, 6);
	else
		gc_json_null(j);
	json_mean(j, "overhead_s", r->overhead_s);
	gc_json_str_field(j, "error", r->error[0] ? r->error : NULL);
	gc_json_obj_close(j);
	return 0;
}

static int show_json(gc_db *db, const char *path, int nsweeps, int nruns)
{
	gc_buf b;
	gc_json j;
	gc_err e;
	struct json_out jo = { &j, db, GC_OK, { "" } };

	gc_buf_init(&b);
	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_str_field(&j, "db", path);
	gc_json_key(&j, "sweeps");
	gc_json_arr_open(&j);
	if (gc_db_sweep_stats(db, nsweeps, json_sweep, &jo, &e))
		goto fail;
	if (jo.rc) {
		e = jo.e;
		goto fail;
	}
	gc_json_arr_close(&j);
	gc_json_key(&j, "runs");
	gc_json_arr_open(&j);
	if (nruns > 0 && gc_db_latest_runs(db, nruns, json_run, &j, &e))
		goto fail;
	gc_json_arr_close(&j);
	gc_json_obj_close(&j);
	gc_db_close(db);
	return gc_cli_json_print(&b, &j);
fail:
	gc_error("%s", e.msg);
	gc_db_close(db);
	gc_buf_release(&b);
	return GC_EXIT_ENV;
}

#define RCOL 11
static const char *const run_head[RCOL] = { "run", "sweep", "started", "status", "model",
	"method", "params", "bandwidth", "pxb", "iter_ms", "ovh_s" };

struct runs_out {
	gc_table t;
	char errors[8192];   /* "  run N: error" lines, printed after the table */
	size_t elen;
};

static int add_run(const struct gc_db_run_stat *r, void *arg)
{
	struct runs_out *o = arg;
	char id[24], sw[24], started[32], params[192], bw[32] = "unlimited", pb[32], ms[32] = "-";
	char method[100], ovh[32] = "-";
	const char *row[RCOL] = { id, sw, started, r->status, r->model,
				  gc_stack_method(r->stack, r->method, method, sizeof method),
				  params, bw, pb, ms, ovh };

	snprintf(id, sizeof(id), "%lld", (long long)r->id);
	snprintf(sw, sizeof(sw), "%lld", (long long)r->sweep_id);
	fmt_time(r->started, started, sizeof(started));
	gc_params_brief(r->workload, r->method, r->params, params, sizeof(params));
	gc_bw_format(r->bw_cap_bps > 0 ? (uint64_t)r->bw_cap_bps : 0, bw, sizeof(bw));
	snprintf(pb, sizeof(pb), "%dx%d", r->world_size, r->batch);
	if (r->t_iter_median >= 0)
		snprintf(ms, sizeof(ms), "%.2f", r->t_iter_median * 1e3);
	if (r->overhead_s >= 0)
		snprintf(ovh, sizeof(ovh), "%.2f", r->overhead_s);
	if (r->error[0] && o->elen < sizeof(o->errors))
		o->elen += (size_t)snprintf(o->errors + o->elen, sizeof(o->errors) - o->elen,
					    "  run %lld: %.*s\n", (long long)r->id,
					    GC_SUMMARY_WIDTH - 16, r->error);
	return gc_table_add(&o->t, row) ? 1 : 0;
}

static gc_rc count_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	int64_t x;

	if (gc_parse_i64(v, &x) || x < 0 || x > 100000)
		return gc_fail(e, GC_E_INVAL, "invalid %s '%s': give a count from 0 to 100000",
			       opt->o.name, v);
	*(int *)opt->target = (int)x;
	return GC_OK;
}

static int show(const char *path, int nsweeps, int nruns, int json)
{
	gc_db *db;
	gc_err e;
	struct sweeps_out so = { NULL, 0 };

	if (access(path, F_OK)) {
		gc_error("no results database at '%s': run a sweep first ('gcbench run'), or "
			 "pass --db PATH", path);
		return GC_EXIT_ENV;
	}
	/* only read: never migrates, works on another user's file or a read-only mount */
	if (gc_db_open(path, GC_DB_READONLY, &db, &e)) {
		gc_error("%s", e.msg);
		return GC_EXIT_ENV;
	}
	if (json)
		return show_json(db, path, nsweeps, nruns);
	printf("sweeps in %s (newest first)\n", path);
	printf("%5s  %-20s %-16s %-11s %4s %6s %7s %11s %7s\n", "id", "name", "started",
	       "status", "ok", "failed", "timeout", "interrupted", "running");
	so.db = db;
	if (gc_db_sweep_stats(db, nsweeps, print_sweep, &so, &e))
		goto fail;
	if (!so.shown)
		printf("  (no sweeps yet: start one with 'gcbench run SPEC.yaml --db %s')\n", path);
	if (nruns > 0 && so.shown) {
		struct runs_out o = { .elen = 0 };
		gc_table_init(&o.t, RCOL, run_head, "rrllllllrrr", 6);
		printf("\nlatest runs (params: only what differs from the method's defaults, a "
		       "command's in full)\n");
		if (gc_db_latest_runs(db, nruns, add_run, &o, &e)) {
			gc_table_release(&o.t);
			goto fail;
		}
		if (o.t.n)
			gc_table_print(&o.t, stdout, GC_SUMMARY_WIDTH);
		else
			printf("  (no runs yet)\n");
		if (o.elen)
			printf("\nerrors\n%s", o.errors);
		gc_table_release(&o.t);
	}
	gc_db_close(db);
	return 0;
fail:
	gc_error("%s", e.msg);
	gc_db_close(db);
	return GC_EXIT_ENV;
}

static const char *path = "gcbench.db";
static int nsweeps = 10, nruns = 10, json;
#define COUNT(l, var, h) { .o = { l, NULL, GC_OPT_ARG, 0 }, .arg = "N", .help = h, \
			   .type = GC_OT_CALLBACK, .cb = count_cb, .target = (var) }
static const struct gc_option status_opts[] = {
	GC_OPTION_STRING("--db", NULL, &path, "PATH", "the database (default: gcbench.db)"),
	COUNT("--sweeps", &nsweeps, "how many sweeps to list (default 10)"),
	COUNT("--runs", &nruns, "how many recent runs to list (default 10; 0 for none)"),
	GC_OPTION_FLAG("--json", NULL, &json,
		       "one JSON object: {\"db\", \"sweeps\": [...], \"runs\": [...]};\n"
		       "times as every --json gives them: \"2026-12-04T22:30:40Z\" (UTC)"),
};
static const size_t n_status_opts = sizeof status_opts / sizeof status_opts[0];

static void status_opt_lines(FILE *f)
{
	gc_opts_usage(f, status_opts, n_status_opts, 15);
}

int cmd_status(int argc, char **argv)
{
	gc_opts o;
	int r;

	gc_opts_decl_init(&o, "gcbench status", status_opts, n_status_opts, argc, argv, NULL);
	if ((r = gc_opts_parse_all(&o)) != GC_OPTS_END)
		return gc_cli_opts_stop(&o, r, usage);
	return show(path, nsweeps, nruns, json);
}

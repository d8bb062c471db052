/* gcbench status: the sweeps in a results database and their latest runs. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "db/db.h"
#include "log.h"
#include "netem/rate.h"
#include "orchestrator/run/run.h"
#include "orchestrator/ops/table.h"
#include "strutil.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench status [--db PATH] [--sweeps N] [--runs N]\n\n"
		"Show the sweeps recorded in a results database, newest first, with how many\n"
		"points ended ok, failed, timed out, were interrupted or are still running, and\n"
		"the latest runs with their median iteration time or their error. The database\n"
		"is only read (an older schema is migrated first when the file is writable).\n"
		"A sweep shown 'running' whose process is gone is marked 'interrupted' by the\n"
		"next 'gcbench run' of the same spec, which then continues it if the nodes'\n"
		"environments are unchanged (docs/spec.md, \"Resume\").\n\n"
		"options:\n"
		"  --db PATH    the database (default: gcbench.db)\n"
		"  --sweeps N   how many sweeps to list (default 10)\n"
		"  --runs N     how many recent runs to list (default 10; 0 for none)\n\n"
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

static int print_sweep(const struct gc_db_sweep_stat *s, void *arg)
{
	char started[32];

	++*(int *)arg;
	fmt_time(s->started, started, sizeof(started));
	printf("%5lld  %-20.20s %-16s %-11s %4d %6d %7d %11d %7d\n", (long long)s->id, s->name,
	       started, s->status, s->n_ok, s->n_failed, s->n_timeout, s->n_interrupted,
	       s->n_running);
	printf("       spec_hash %s\n", s->spec_hash);
	return 0;
}

#define RCOL 10
static const char *const run_head[RCOL] = { "run", "sweep", "started", "status", "model",
	"method", "params", "bandwidth", "pxb", "iter_ms" };

struct runs_out {
	gc_table t;
	char errors[8192];   /* "  run N: error" lines, printed after the table */
	size_t elen;
};

static int add_run(const struct gc_db_run_stat *r, void *arg)
{
	struct runs_out *o = arg;
	char id[24], sw[24], started[32], params[192], bw[32] = "unlimited", pb[32], ms[32] = "-";
	const char *row[RCOL] = { id, sw, started, r->status, r->model, r->method, params, bw, pb, ms };

	snprintf(id, sizeof(id), "%lld", (long long)r->id);
	snprintf(sw, sizeof(sw), "%lld", (long long)r->sweep_id);
	fmt_time(r->started, started, sizeof(started));
	gc_params_brief(r->method, r->params, params, sizeof(params));
	if (r->bw_cap_bps > 0)
		gc_rate_format((uint64_t)r->bw_cap_bps, bw, sizeof(bw));
	snprintf(pb, sizeof(pb), "%dx%d", r->world_size, r->batch);
	if (r->t_iter_median >= 0)
		snprintf(ms, sizeof(ms), "%.2f", r->t_iter_median * 1e3);
	if (r->error[0] && o->elen < sizeof(o->errors))
		o->elen += (size_t)snprintf(o->errors + o->elen, sizeof(o->errors) - o->elen,
					    "  run %lld: %.*s\n", (long long)r->id,
					    GC_SUMMARY_WIDTH - 16, r->error);
	return gc_table_add(&o->t, row) ? 1 : 0;
}

static int parse_count(const char *opt, const char *v, int *out)
{
	int64_t x;

	if (!v || gc_parse_i64(v, &x) || x < 0 || x > 100000) {
		gc_error("invalid %s '%s': give a count from 0 to 100000", opt, v ? v : "");
		return -1;
	}
	*out = (int)x;
	return 0;
}

static int show(const char *path, int nsweeps, int nruns)
{
	gc_db *db;
	gc_err e;
	int shown = 0;

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
	printf("sweeps in %s (newest first)\n", path);
	printf("%5s  %-20s %-16s %-11s %4s %6s %7s %11s %7s\n", "id", "name", "started",
	       "status", "ok", "failed", "timeout", "interrupted", "running");
	if (gc_db_sweep_stats(db, nsweeps, print_sweep, &shown, &e))
		goto fail;
	if (!shown)
		printf("  (no sweeps yet: start one with 'gcbench run SPEC.yaml --db %s')\n", path);
	if (nruns > 0 && shown) {
		struct runs_out o = { .elen = 0 };
		gc_table_init(&o.t, RCOL, run_head, "rrllllllrr", 6);
		printf("\nlatest runs (params: only what differs from the method's defaults)\n");
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

int cmd_status(int argc, char **argv)
{
	const char *path = "gcbench.db";
	int nsweeps = 10, nruns = 10;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--db") && v) {
			path = v;
		} else if (!strcmp(a, "--sweeps")) {
			if (parse_count(a, v, &nsweeps))
				return 2;
		} else if (!strcmp(a, "--runs")) {
			if (parse_count(a, v, &nruns))
				return 2;
		} else {
			gc_error("unknown option '%s' for status; see 'gcbench status --help'", a);
			return 2;
		}
		i++;
	}
	return show(path, nsweeps, nruns);
}

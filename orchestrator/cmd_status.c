/* gcbench status: the sweeps in a results database and their latest runs. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "db/db.h"
#include "log.h"
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
		"next 'gcbench run' of the same spec, which then resumes it.\n\n"
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
	return 0;
}

static int print_run(const struct gc_db_run_stat *r, void *arg)
{
	char started[32];

	++*(int *)arg;
	fmt_time(r->started, started, sizeof(started));
	if (r->t_iter_median >= 0)
		printf("%6lld %5lld  %-16s %-11s %9.4f s  %s\n", (long long)r->id,
		       (long long)r->sweep_id, started, r->status, r->t_iter_median, r->point_key);
	else
		printf("%6lld %5lld  %-16s %-11s %11s  %s%s%s\n", (long long)r->id,
		       (long long)r->sweep_id, started, r->status, "-", r->point_key,
		       r->error[0] ? "\n                                          error: " : "",
		       r->error);
	return 0;
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
		return 1;
	}
	/* read-write when we may (an older schema is then migrated), else read-only */
	if (gc_db_open(path, access(path, W_OK) ? GC_DB_READONLY : 0, &db, &e)) {
		gc_error("%s", e.msg);
		return 1;
	}
	printf("sweeps in %s (newest first)\n", path);
	printf("%5s  %-20s %-16s %-11s %4s %6s %7s %11s %7s\n", "id", "name", "started",
	       "status", "ok", "failed", "timeout", "interrupted", "running");
	if (gc_db_sweep_stats(db, nsweeps, print_sweep, &shown, &e))
		goto fail;
	if (!shown)
		printf("  (no sweeps yet: start one with 'gcbench run SPEC.yaml --db %s')\n", path);
	if (nruns > 0 && shown) {
		shown = 0;
		printf("\nlatest runs\n%6s %5s  %-16s %-11s %11s  %s\n", "run", "sweep", "started",
		       "status", "t_iter(med)", "point");
		if (gc_db_latest_runs(db, nruns, print_run, &shown, &e))
			goto fail;
		if (!shown)
			printf("  (no runs yet)\n");
	}
	gc_db_close(db);
	return 0;
fail:
	gc_error("%s", e.msg);
	gc_db_close(db);
	return 1;
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

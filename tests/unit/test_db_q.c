/* tests/unit/test_db_q.c: the query functions of db/q_*.h (and gc_db_begin/commit/
 * rollback, gc_db_engine_version) on a small hand-made database whose answers are known.
 *
 * The database: env 1 (NCCL 2.9.9, driver 535.104.05), env 2 (NCCL 2.18.3, driver
 * 550.54.15), env 3 (NCCL 2.20.1) with only a failed run; sweeps 1 and 2 of spec "h1",
 * resnet50, 4 workers, batch 32, baseline syncsgd; 2 ranks x 3 post-warmup iterations
 * per ok run (every post-warmup t_iter the value below; warmup 100 s):
 *   run 1 s1 env1 syncsgd  1gbit 2.0     run 4 s1 env1 syncsgd 10gbit 0.5
 *   run 2 s1 env1 powersgd 1gbit 1.0     run 5 s1 env1 powersgd 10gbit 1.0
 *   run 3 s1 env1 signsgd  1gbit failed
 *   run 6 s2 env2 syncsgd  1gbit 2.0     run 7 s2 env2 powersgd 1gbit 1.6
 *   run 8 s2 env3 syncsgd  1gbit failed
 * Links of run 1: rtt 0.001 s, goodput 0.9 Gbit/s of 1 Gbit/s; of run 2: rtt not
 * measured, goodput 0.8 Gbit/s. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db.h"
#include "db/db_internal.h"   /* gc_db_exec: the fixtures' SQL */
#include "db/engine.h"
#include "db/q_history.h"
#include "db/q_model.h"
#include "db/q_regress.h"
#include "db/q_report.h"
#include "db/q_summary.h"
#include "db_fixture.h"
#include "harness.h"

#define G1 1000000000ull
#define G10 10000000000ull
static char dbpath[64];
static int64_t env1, env2, env3, sweep1, sweep2;

static int64_t add_run(gc_db *db, int64_t sweep, int64_t env, const char *method,
		       uint64_t bw, double t, enum gc_run_status st)
{
	struct gc_iter_rec recs[8];

	memset(recs, 0, sizeof(recs));
	for (int i = 0; i < 8; i++) {
		recs[i].rank = (uint32_t)(i / 4);
		recs[i].iter = (uint32_t)(i % 4);
		recs[i].warmup = i % 4 == 0;
		recs[i].t_iter = recs[i].warmup ? 100 : t;
		recs[i].t_forward = 0.1 * t;
		recs[i].t_backward = 0.4 * t;
		recs[i].t_comm = 0.3 * t;
	}
	return fx_run(db, sweep, env, method, strcmp(method, "powersgd") ? "" : "rank=4", bw,
		      recs, 8, st, st == GC_RUN_OK ? NULL : "failed", NULL);
}

static int build(void)
{
	gc_db *db;
	gc_err e;
	int ok;

	unlink(dbpath);
	if (gc_db_open(dbpath, 0, &db, &e))
		return 0;
	env1 = fx_env(db, "2.9.9", "535.104.05");
	env2 = fx_env(db, "2.18.3", "550.54.15");
	env3 = fx_env(db, "2.20.1", "550.54.15");
	ok = !gc_db_sweep_begin(db, "before", "spec", "h1", "syncsgd", &sweep1, &e) &&
	     !gc_db_sweep_begin(db, "after", "spec", "h1", "syncsgd", &sweep2, &e);
	ok = ok && add_run(db, sweep1, env1, "syncsgd", G1, 2.0, GC_RUN_OK) == 1 &&
	     add_run(db, sweep1, env1, "powersgd", G1, 1.0, GC_RUN_OK) == 2 &&
	     add_run(db, sweep1, env1, "signsgd", G1, 1.0, GC_RUN_FAILED) == 3 &&
	     add_run(db, sweep1, env1, "syncsgd", G10, 0.5, GC_RUN_OK) == 4 &&
	     add_run(db, sweep1, env1, "powersgd", G10, 1.0, GC_RUN_OK) == 5 &&
	     add_run(db, sweep2, env2, "syncsgd", G1, 2.0, GC_RUN_OK) == 6 &&
	     add_run(db, sweep2, env2, "powersgd", G1, 1.6, GC_RUN_OK) == 7 &&
	     add_run(db, sweep2, env3, "syncsgd", G1, 2.0, GC_RUN_FAILED) == 8;
	ok = ok && !gc_db_link_add(db, 1, "n1", "n2", G1, 0.9e9, 0.001, &e) &&
	     !gc_db_link_add(db, 2, "n1", "n2", G1, 0.8e9, -1, &e);
	gc_db_close(db);
	return ok;
}

static gc_db *open_ro(void)
{
	gc_db *db = NULL;
	gc_err e;

	if (gc_db_open(dbpath, GC_DB_READONLY, &db, &e))
		printf("# open: %s\n", e.msg);
	return db;
}

static void test_env_field(void)
{
	CHECK_EQ_INT(gc_db_env_field("host", 4), GC_DB_ENV_EQUAL);
	CHECK_EQ_INT(gc_db_env_field("tag", 3), GC_DB_ENV_EQUAL);
	CHECK_EQ_INT(gc_db_env_field("nccl", 4), GC_DB_ENV_VERSION);
	CHECK_EQ_INT(gc_db_env_field("sqlite", 6), GC_DB_ENV_VERSION);
	CHECK_EQ_INT(gc_db_env_field("env", 3), GC_DB_ENV_ID);
	CHECK_EQ_INT(gc_db_env_field("nccl=2.18", 4), GC_DB_ENV_VERSION);   /* len counts */
	CHECK_EQ_INT(gc_db_env_field("color", 5), -1);
	CHECK_EQ_INT(gc_db_env_field("ncc", 3), -1);
	CHECK_EQ_INT(gc_db_env_field("", 0), -1);
}

/* The ids of one selector into out as "1,2" ("" for none). */
static gc_rc envs(gc_db *db, const struct gc_db_env_cond *c, size_t n, size_t max, char *out)
{
	int64_t ids[8];
	size_t k = 0;
	gc_err e;
	gc_rc rc = gc_db_envs_with_ok_runs(db, c, n, ids, max, &k, &e);

	out[0] = '\0';
	for (size_t i = 0; i < k; i++)
		sprintf(out + strlen(out), "%s%lld", i ? "," : "", (long long)ids[i]);
	return rc;
}

static void test_envs_with_ok_runs(void)
{
	const struct gc_db_env_cond v218 = { "nccl", "2.18" }, v2 = { "nccl", "2" },
		v21 = { "nccl", "2.1" }, d550 = { "driver", "550" }, id1 = { "env", "1" },
		host = { "host", "n1" }, bad = { "color", "red" }, two[2] = { { "nccl", "2" },
		{ "driver", "535.104.05" } }, v220 = { "nccl", "2.20.1" };
	char out[64];
	gc_db *db = open_ro();

	CHECK(db);
	CHECK_EQ_INT(envs(db, &v218, 1, 8, out), GC_OK);
	CHECK_STR(out, "2");                 /* 2.18 matches 2.18.3, not 2.9.9 */
	CHECK_EQ_INT(envs(db, &v2, 1, 8, out), GC_OK);
	CHECK_STR(out, "1,2");               /* env 3 has no ok run */
	CHECK_EQ_INT(envs(db, &v21, 1, 8, out), GC_OK);
	CHECK_STR(out, "");                  /* "2.1" is no version prefix of "2.18.3" */
	CHECK_EQ_INT(envs(db, &d550, 1, 8, out), GC_OK);
	CHECK_STR(out, "2");
	CHECK_EQ_INT(envs(db, &id1, 1, 8, out), GC_OK);
	CHECK_STR(out, "1");
	CHECK_EQ_INT(envs(db, &host, 1, 1, out), GC_OK);
	CHECK_STR(out, "1");                 /* at most max */
	CHECK_EQ_INT(envs(db, two, 2, 8, out), GC_OK);
	CHECK_STR(out, "1");
	CHECK_EQ_INT(envs(db, &v220, 1, 8, out), GC_OK);
	CHECK_STR(out, "");
	CHECK_EQ_INT(envs(db, &bad, 1, 8, out), GC_E_INVAL);
	CHECK_EQ_INT(envs(db, &host, 0, 8, out), GC_E_DB);
	gc_db_close(db);
}

static void test_sweeps(void)
{
	int64_t last = -1, prev = -1;
	int yes = -1;
	gc_db *db = open_ro(), *empty = NULL;
	gc_err e;
	char path[80];

	CHECK(db);
	CHECK_EQ_INT(gc_db_sweep_has_ok_runs(db, sweep1, &yes, &e), GC_OK);
	CHECK_EQ_INT(yes, 1);
	CHECK_EQ_INT(gc_db_sweep_has_ok_runs(db, 99, &yes, &e), GC_OK);
	CHECK_EQ_INT(yes, 0);
	CHECK_EQ_INT(gc_db_previous_sweeps(db, &last, &prev, &e), GC_OK);
	CHECK_EQ_INT(last, sweep2);
	CHECK_EQ_INT(prev, sweep1);
	gc_db_close(db);
	snprintf(path, sizeof path, "%s.empty", dbpath);
	unlink(path);
	CHECK(gc_db_open(path, 0, &empty, &e) == GC_OK);
	CHECK_EQ_INT(gc_db_previous_sweeps(empty, &last, &prev, &e), GC_OK);
	CHECK_EQ_INT(last, 0);
	CHECK_EQ_INT(prev, 0);
	gc_db_close(empty);
	unlink(path);
}

struct seen {
	int n, stop_at, bad_order, npoints;
	double sum;
	int64_t last_run;
	char keys[16][128];   /* the points seen, in order */
};

/* Counts samples; a point met again after another one, or a run id going back within a
 * point, counts as bad order. */
static int on_sample(const struct gc_db_iter_sample *s, void *arg)
{
	struct seen *v = arg;
	char key[128];
	int k;

	snprintf(key, sizeof key, "%s|%s|%s|%s|%lld|%d|%d|%s", s->workload, s->model, s->method,
		 s->params, (long long)s->bw_cap_bps, s->world_size, s->batch, s->baseline);
	if (v->npoints && !strcmp(key, v->keys[v->npoints - 1])) {
		v->bad_order += s->run_id < v->last_run;
	} else {
		for (k = 0; k < v->npoints; k++)
			v->bad_order += !strcmp(key, v->keys[k]);
		if (v->npoints < 16)
			strcpy(v->keys[v->npoints++], key);
	}
	v->last_run = s->run_id;
	v->sum += s->t_iter;
	v->n++;
	return v->stop_at && v->n == v->stop_at;
}

static void test_ok_iterations(void)
{
	const int64_t e1[] = { 1 }, both[] = { 1, 2 }, s2[] = { 2 };
	struct seen v = { 0 };
	gc_db *db = open_ro();
	gc_err e;

	CHECK(db);
	CHECK_EQ_INT(gc_db_ok_iterations(db, e1, 1, 0, on_sample, &v, &e), GC_OK);
	CHECK_EQ_INT(v.n, 4 * 6);            /* 4 ok runs, 2 ranks x 3 post-warmup */
	CHECK_NEAR(v.sum, 6 * (2.0 + 1.0 + 0.5 + 1.0), 1e-9);
	CHECK_EQ_INT(v.bad_order, 0);
	CHECK_EQ_INT(v.npoints, 4);
	memset(&v, 0, sizeof v);
	CHECK_EQ_INT(gc_db_ok_iterations(db, both, 2, 0, on_sample, &v, &e), GC_OK);
	CHECK_EQ_INT(v.n, 6 * 6);
	CHECK_EQ_INT(v.bad_order, 0);
	CHECK_EQ_INT(v.npoints, 4);          /* the 1gbit points of both envs together */
	memset(&v, 0, sizeof v);
	CHECK_EQ_INT(gc_db_ok_iterations(db, s2, 1, 1, on_sample, &v, &e), GC_OK);
	CHECK_EQ_INT(v.n, 2 * 6);            /* by sweep: sweep 2's ok runs */
	CHECK_NEAR(v.sum, 6 * (2.0 + 1.6), 1e-9);
	memset(&v, 0, sizeof v);
	v.stop_at = 5;
	CHECK_EQ_INT(gc_db_ok_iterations(db, both, 2, 0, on_sample, &v, &e), GC_OK);
	CHECK_EQ_INT(v.n, 5);                /* fn's nonzero stops */
	gc_db_close(db);
}

/* Runs by SLURM job and partition: runs 1-5 (sweep 1) in job 7, 4 and 5 in partition
 * cpu; 6 and 7 in job 8, partition gpu; 8 (failed) in job 9. */
static void test_job_iterations(void)
{
	struct seen v = { 0 };
	gc_db *db = NULL;
	gc_err e;
	int yes = -1;

	CHECK(gc_db_open(dbpath, 0, &db, &e) == GC_OK);
	CHECK(!sqlite3_exec(gc_db_handle(db), "UPDATE runs SET slurm_job = CASE WHEN id <= 5 "
			    "THEN '7' WHEN id <= 7 THEN '8' ELSE '9' END, slurm_partition = CASE "
			    "WHEN id IN (4, 5) THEN 'cpu' WHEN id IN (6, 7) THEN 'gpu' ELSE '' END",
			    NULL, NULL, NULL));
	CHECK_EQ_INT(gc_db_job_iterations(db, "7", NULL, on_sample, &v, &e), GC_OK);
	CHECK_EQ_INT(v.n, 4 * 6);            /* the failed run 3 does not count */
	CHECK_EQ_INT(v.bad_order, 0);
	memset(&v, 0, sizeof v);
	CHECK_EQ_INT(gc_db_job_iterations(db, "7", "cpu", on_sample, &v, &e), GC_OK);
	CHECK_EQ_INT(v.n, 2 * 6);
	CHECK_NEAR(v.sum, 6 * (0.5 + 1.0), 1e-9);
	memset(&v, 0, sizeof v);
	CHECK_EQ_INT(gc_db_job_iterations(db, NULL, "gpu", on_sample, &v, &e), GC_OK);
	CHECK_NEAR(v.sum, 6 * (2.0 + 1.6), 1e-9);
	memset(&v, 0, sizeof v);
	CHECK_EQ_INT(gc_db_job_iterations(db, "7' OR '1'='1", NULL, on_sample, &v, &e), GC_OK);
	CHECK_EQ_INT(v.n, 0);
	CHECK_EQ_INT(gc_db_job_iterations(db, NULL, NULL, on_sample, &v, &e), GC_E_INVAL);
	CHECK_EQ_INT(gc_db_job_has_ok_runs(db, "8", "gpu", &yes, &e), GC_OK);
	CHECK_EQ_INT(yes, 1);
	CHECK_EQ_INT(gc_db_job_has_ok_runs(db, "9", NULL, &yes, &e), GC_OK);
	CHECK_EQ_INT(yes, 0);                /* job 9 has only a failed run */
	CHECK_EQ_INT(gc_db_job_has_ok_runs(db, "8", "cpu", &yes, &e), GC_OK);
	CHECK_EQ_INT(yes, 0);
	CHECK_EQ_INT(gc_db_job_has_ok_runs(db, NULL, NULL, &yes, &e), GC_E_INVAL);
	CHECK(!sqlite3_exec(gc_db_handle(db), "UPDATE runs SET slurm_job = '', "
			    "slurm_partition = ''", NULL, NULL, NULL));
	gc_db_close(db);
}

struct hist {
	int n;
	double speedup[8];
	int64_t bw[8];
	char workload[96];
};

static int on_history(const struct gc_db_history_row *h, void *arg)
{
	struct hist *v = arg;

	if (v->n < 8)
		v->speedup[v->n] = h->speedup, v->bw[v->n] = h->bw_cap_bps;
	snprintf(v->workload, sizeof v->workload, "%s", h->workload);
	v->n++;
	return 0;
}

static void test_history(void)
{
	struct hist v = { 0 };
	gc_db *db = open_ro();
	gc_err e;

	CHECK(db);
	CHECK_EQ_INT(gc_db_history(db, "resnet50", "powersgd", -1, on_history, &v, &e), GC_OK);
	CHECK_EQ_INT(v.n, 3);                /* 1gbit in sweeps 1 and 2, 10gbit in sweep 1 */
	CHECK_NEAR(v.speedup[0], 2.0, 1e-9); /* by cap, then sweep: oldest first */
	CHECK_NEAR(v.speedup[1], 1.25, 1e-9);
	CHECK_NEAR(v.speedup[2], 0.5, 1e-9);
	CHECK_EQ_INT(v.bw[2], G10);
	CHECK_STR(v.workload, "replay");   /* for params_brief: a command's are shown whole */
	memset(&v, 0, sizeof v);
	CHECK_EQ_INT(gc_db_history(db, "resnet50", "powersgd", (int64_t)G10, on_history, &v, &e),
		     GC_OK);
	CHECK_EQ_INT(v.n, 1);
	memset(&v, 0, sizeof v);
	CHECK_EQ_INT(gc_db_history(db, "vgg16", "powersgd", -1, on_history, &v, &e), GC_OK);
	CHECK_EQ_INT(v.n, 0);
	gc_db_close(db);
}

static int on_latest(const struct gc_db_run_stat *r, void *arg)
{
	char *out = arg;

	snprintf(out + strlen(out), 256 - strlen(out), "%lld %s %s %s %s|", (long long)r->id,
		 r->workload, r->method, r->params, r->status);
	return 0;
}

/* gcbench status's latest runs, newest first, with their workload (a command's params
 * are shown whole) */
static void test_latest_runs(void)
{
	char out[256] = "";
	gc_db *db = open_ro();
	gc_err e;

	CHECK(db);
	CHECK_EQ_INT(gc_db_latest_runs(db, 2, on_latest, out, &e), GC_OK);
	CHECK_STR(out, "8 replay syncsgd  failed|7 replay powersgd rank=4 ok|");
	gc_db_close(db);
}

static int on_summary(const struct gc_db_summary_row *w, void *arg)
{
	char *out = arg;

	snprintf(out + strlen(out), 1024 - strlen(out), "%s %s %s %s %d %s %s %s %s %s\n",
		 w->workload, w->method,
		 w->params, w->bandwidth, w->world_size, w->iter_ms, w->base_ms, w->speedup,
		 w->to_target ? w->to_target : "(null)",
		 w->tta_speedup ? w->tta_speedup : "(null)");
	return 0;
}

static void test_summary(void)
{
	char out[1024] = "", metric[16];
	double value = -1;
	gc_db *db = NULL;
	gc_err e;

	CHECK(gc_db_open(dbpath, 0, &db, &e) == GC_OK);
	CHECK_EQ_INT(gc_db_sweep_target_get(db, sweep1, metric, sizeof metric, &value, &e), GC_OK);
	CHECK_STR(metric, "");
	CHECK_EQ_INT(gc_db_sweep_summary(db, sweep2, 0, on_summary, out, &e), GC_OK);
	CHECK_CONTAINS(out,
		       "replay powersgd rank=4 1000000000 4 1600.0 2000.0 1.25x (null) (null)\n");
	CHECK(gc_db_sweep_target(db, sweep1, "accuracy", 0.9, &e) == GC_OK);
	CHECK_EQ_INT(gc_db_sweep_target_get(db, sweep1, metric, sizeof metric, &value, &e), GC_OK);
	CHECK_STR(metric, "accuracy");
	CHECK_NEAR(value, 0.9, 1e-12);
	out[0] = '\0';
	CHECK_EQ_INT(gc_db_sweep_summary(db, sweep1, 1, on_summary, out, &e), GC_OK);
	/* with a target but no validation records: every point missed it */
	CHECK_CONTAINS(out,
		       "replay powersgd rank=4 10000000000 4 1000.0 500.0 0.50x never (null)\n");
	CHECK(gc_db_sweep_target(db, sweep1, "", 0, &e) == GC_OK);
	gc_db_close(db);
}

struct pts {
	int n;
	struct gc_db_point_row last;   /* its strings are not kept (borrowed) */
};

static int on_point(const struct gc_db_point_row *w, void *arg)
{
	struct pts *p = arg;

	p->n++;
	p->last = *w;
	p->last.model = p->last.method = p->last.params = NULL;
	return 0;
}

/* The row count of a report query (-1 on failure); *last gets the last row. */
static int points(gc_db *db, gc_rc (*q)(gc_db *, gc_db_point_fn, void *, gc_err *),
		  struct gc_db_point_row *last)
{
	struct pts p;
	gc_err e;

	memset(&p, 0, sizeof p);
	if (q(db, on_point, &p, &e))
		return -1;
	*last = p.last;
	return p.n;
}

static void test_counts_and_transactions(void)
{
	struct gc_db_prediction p = { "test-1", 1.5, 0.5, 0.1, 0.1, 0.7, 0.3 };
	struct gc_db_counts c;
	struct gc_db_point_row w;
	gc_db *db = NULL;
	gc_err e;

	CHECK(gc_db_open(dbpath, 0, &db, &e) == GC_OK);
	CHECK_EQ_INT(gc_db_counts(db, &c, &e), GC_OK);
	CHECK_EQ_INT(c.sweeps, 2);
	CHECK_EQ_INT(c.runs_ok, 6);
	CHECK_EQ_INT(c.runs_not_ok, 2);
	CHECK_EQ_INT(c.predictions, 0);
	CHECK_EQ_INT(points(db, gc_db_report_predictions, &w), 0);
	CHECK(gc_db_begin(db, &e) == GC_OK);
	CHECK(gc_db_prediction_put(db, 2, &p, &e) == GC_OK);
	gc_db_rollback(db);
	gc_db_rollback(NULL);
	CHECK_EQ_INT(gc_db_counts(db, &c, &e), GC_OK);
	CHECK_EQ_INT(c.predictions, 0);      /* rolled back */
	CHECK(gc_db_begin(db, &e) == GC_OK);
	CHECK(gc_db_prediction_put(db, 2, &p, &e) == GC_OK);
	CHECK(gc_db_commit(db, &e) == GC_OK);
	CHECK_EQ_INT(gc_db_counts(db, &c, &e), GC_OK);
	CHECK_EQ_INT(c.predictions, 1);
	CHECK_EQ_INT(points(db, gc_db_report_predictions, &w), 1);
	CHECK_EQ_INT(w.nv, 3);
	CHECK_NEAR(w.v[0], 1.0, 1e-9);       /* measured median of run 2 */
	CHECK_NEAR(w.v[1], 1.5, 1e-9);       /* predicted */
	CHECK_NEAR(w.v[2], 2, 0);            /* run id */
	CHECK(gc_db_commit(db, &e) != GC_OK);   /* no transaction open */
	gc_db_close(db);
}

static void test_report_rows(void)
{
	struct gc_db_point_row w;
	gc_db *db = open_ro();

	CHECK(db);
	/* powersgd 1gbit (envs 1 and 2: 2.0, 1.25), powersgd 10gbit (0.5) */
	CHECK_EQ_INT(points(db, gc_db_report_speedup, &w), 2);
	CHECK_EQ_INT(w.nv, 3);
	CHECK_EQ_INT(w.bw_cap_bps, G10);
	CHECK_NEAR(w.v[0], 0.5, 1e-9);
	CHECK_NEAR(w.v[1], 1.0, 1e-9);
	CHECK_NEAR(w.v[2], 0.5, 1e-9);
	/* (world, cap, method): syncsgd and powersgd at 1gbit and at 10gbit */
	CHECK_EQ_INT(points(db, gc_db_report_breakdown, &w), 4);
	CHECK_EQ_INT(w.nv, 5);
	CHECK_NEAR(w.v[0], 0.5, 1e-9);       /* forward + backward of powersgd 10gbit */
	CHECK_NEAR(w.v[4], 1.0, 1e-9);
	CHECK(isnan(w.v[1]) || w.v[1] == 0); /* encode not recorded */
	CHECK_EQ_INT(points(db, gc_db_report_methods, &w), 1);
	CHECK_EQ_INT(w.nv, 2);
	CHECK_EQ_INT(w.bw_cap_bps, 0);
	CHECK_NEAR(w.v[0], 32, 0);           /* the smallest batch */
	CHECK_NEAR(w.v[1], 1, 0);            /* the smallest environment */
	gc_db_close(db);
}

struct acc {
	int n, missed, repeats;
	double target, iter_speedup, tta, iters;
};

static int on_curve(const struct gc_db_acc_point *p, void *arg)
{
	struct acc *a = arg;

	a->n++;
	a->target = p->target;
	return 0;
}

static int on_tta(const struct gc_db_tta_row *t, void *arg)
{
	struct acc *a = arg;

	a->n++;
	if (!strcmp(t->method, "powersgd") && t->bw_cap_bps == (int64_t)G1) {
		a->missed = t->missed, a->repeats = t->repeats, a->iter_speedup = t->iter_speedup;
		a->tta = t->tta_speedup, a->iters = t->iters_to_target;
	}
	return 0;
}

static void test_accuracy(void)
{
	struct acc a = { 0 };
	gc_db *db = NULL;
	gc_err e;

	CHECK(gc_db_open(dbpath, 0, &db, &e) == GC_OK);
	CHECK_EQ_INT(gc_db_accuracy_curves(db, on_curve, &a, &e), GC_OK);
	CHECK_EQ_INT(a.n, 0);                /* no validation records */
	CHECK_EQ_INT(gc_db_time_to_target(db, on_tta, &a, &e), GC_OK);
	CHECK_EQ_INT(a.n, 0);
	/* syncsgd (run 1) reaches 0.9 at iteration 1; powersgd (run 2) never */
	CHECKF(gc_db_exec(db, "INSERT INTO evals VALUES (1, 0, 0, 10, 1.0, 0.5, 0.1, 2.0), "
			  "(1, 0, 1, 10, 0.5, 0.95, 0.1, 4.0), (2, 0, 0, 10, 1.0, 0.4, 0.1, 1.0), "
			  "(2, 0, 1, 10, 1.0, 0.5, 0.1, 2.0)", &e) == GC_OK, "%s", e.msg);
	CHECK(gc_db_sweep_target(db, sweep1, "accuracy", 0.9, &e) == GC_OK);
	CHECK_EQ_INT(gc_db_accuracy_curves(db, on_curve, &a, &e), GC_OK);
	CHECK_EQ_INT(a.n, 4);
	CHECK_NEAR(a.target, 0.9, 1e-12);
	memset(&a, 0, sizeof a);
	CHECK_EQ_INT(gc_db_time_to_target(db, on_tta, &a, &e), GC_OK);
	CHECK(a.n >= 2);
	CHECK_EQ_INT(a.missed, 1);
	CHECK_EQ_INT(a.repeats, 1);
	CHECK(isnan(a.iters) && isnan(a.tta));
	CHECK_NEAR(a.iter_speedup, 2.0, 1e-9);
	CHECK(gc_db_sweep_target(db, sweep1, "", 0, &e) == GC_OK);
	CHECK(gc_db_exec(db, "DELETE FROM evals", &e) == GC_OK);
	gc_db_close(db);
}

struct runs {
	int n;
	double goodput_run1, t_iter_sum;
	int64_t env_last;
};

static int on_run(const struct gc_db_model_run *r, void *arg)
{
	struct runs *v = arg;

	v->n++;
	v->t_iter_sum += r->t_iter;
	if (r->run_id == 1)
		v->goodput_run1 = r->link_goodput_bps;
	v->env_last = r->env_id;
	return 0;
}

struct lk {
	int n, rtt_nan;
	double rtt, goodput;
};

static int on_link(const struct gc_db_link_meas *l, void *arg)
{
	struct lk *v = arg;

	v->n++;
	if (isnan(l->rtt_s))
		v->rtt_nan++;
	else
		v->rtt = l->rtt_s;
	v->goodput += l->goodput_bps / l->cap_bps;
	return 0;
}

static void test_model_queries(void)
{
	struct runs v = { 0 };
	struct lk l = { 0 };
	gc_db *db = open_ro();
	gc_err e;

	CHECK(db);
	CHECK_EQ_INT(gc_db_model_runs(db, on_run, &v, &e), GC_OK);
	CHECK_EQ_INT(v.n, 6);                /* the ok runs */
	CHECK_NEAR(v.t_iter_sum, 2.0 + 1.0 + 0.5 + 1.0 + 2.0 + 1.6, 1e-9);
	CHECK_NEAR(v.goodput_run1, 0.9e9, 1);
	CHECK_EQ_INT(v.env_last, env2);      /* by run id: run 7 last */
	CHECK_EQ_INT(gc_db_env_links(db, env1, on_link, &l, &e), GC_OK);
	CHECK_EQ_INT(l.n, 2);
	CHECK_EQ_INT(l.rtt_nan, 1);          /* not measured: NAN */
	CHECK_NEAR(l.rtt, 0.001, 1e-12);
	CHECK_NEAR(l.goodput, 0.9 + 0.8, 1e-9);
	memset(&l, 0, sizeof l);
	CHECK_EQ_INT(gc_db_env_links(db, env2, on_link, &l, &e), GC_OK);
	CHECK_EQ_INT(l.n, 0);
	gc_db_close(db);
}

static void test_engine_version(void)
{
	CHECK_STR(gc_db_engine_version(), sqlite3_libversion());
}

int main(void)
{
	GCT_SUITE("db_q");
	snprintf(dbpath, sizeof dbpath, "/tmp/gct-db-q-%d.db", (int)getpid());
	if (!build()) {
		printf("FAIL db_q/build: cannot build the database\n");
		return 1;
	}
	GCT_RUN(test_env_field);
	GCT_RUN(test_envs_with_ok_runs);
	GCT_RUN(test_sweeps);
	GCT_RUN(test_ok_iterations);
	GCT_RUN(test_job_iterations);
	GCT_RUN(test_history);
	GCT_RUN(test_latest_runs);
	GCT_RUN(test_summary);
	GCT_RUN(test_counts_and_transactions);
	GCT_RUN(test_report_rows);
	GCT_RUN(test_accuracy);
	GCT_RUN(test_model_queries);
	GCT_RUN(test_engine_version);
	{   /* the database and what WAL mode left beside it */
		static const char *const sfx[] = { "", "-wal", "-shm" };
		for (size_t i = 0; i < 3; i++) {
			char p[80];
			snprintf(p, sizeof p, "%s%s", dbpath, sfx[i]);
			unlink(p);
		}
	}
	return gct_finish();
}

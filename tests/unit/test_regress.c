/* tests/unit/test_regress.c: regression tracking on synthetic databases whose answer
 * is known, built through db/db.h.
 *
 * `test_regress --make-db PATH` writes the synthetic database and exits (used by
 * tests/integration/test_regress.sh to check the CLI's output and exit status). */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "db/db.h"
#include "db/db_internal.h"   /* gc_db_handle, gc_db_exec: the fixtures' SQL */
#include "db/q_history.h"
#include "harness.h"
#include "orchestrator/ops/regress.h"
#include "strutil.h"

static uint64_t rng = 88172645463325252ull;

static double unif(void)   /* xorshift64, uniform in [0, 1) */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static gc_rc add_env(gc_db *db, const char *nccl, int64_t *id)
{
	struct gc_envinfo env;

	memset(&env, 0, sizeof env);
	strcpy(env.host, "node1");
	strcpy(env.driver, "535.104.05");
	strcpy(env.cuda, "12.2");
	strcpy(env.nccl, nccl);
	strcpy(env.tag, "lab");
	return gc_db_env_get(db, &env, id, NULL);
}

static double iter_noise = 0.2;   /* iterations: t * (1 - noise/2 + noise * U) */

/* One run: 2 ranks x 100 iterations of median about t (uniform +-10% noise), plus
 * 5 warmup iterations at 10 t that must never count. */
static gc_rc add_run(gc_db *db, int64_t sweep, int64_t env, const char *method,
		     const char *params, uint64_t bw, double t, enum gc_run_status status)
{
	struct gc_db_run r = { sweep, "key", "replay", "resnet50", method, params, 2, 2, 32,
			       bw, 0, "mpi", 1, 100, 5, 0, env, NULL, NULL };
	sqlite3_stmt *st = NULL;
	int64_t id;
	int rank, it;
	gc_rc rc;

	if ((rc = gc_db_run_begin(db, &r, &id, NULL)))
		return rc;
	if (sqlite3_prepare_v2(gc_db_handle(db), "INSERT INTO iterations VALUES (?1, ?2, ?3, "
			       "?4, 0, 0, 0, 0, 0, 0, 0, 0, ?5, ?5, 0, 0, 0)", -1, &st, NULL))
		return GC_E_DB;
	for (rank = 0; rank < 2; rank++)
		for (it = 0; it < 105; it++) {
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_int(st, 2, rank);
			sqlite3_bind_int(st, 3, it);
			sqlite3_bind_int(st, 4, it < 5);
			sqlite3_bind_double(st, 5, it < 5 ? 10 * t :
					    t * (1 - iter_noise / 2 + iter_noise * unif()));
			if (sqlite3_step(st) != SQLITE_DONE)
				rc = GC_E_DB;
			sqlite3_reset(st);
		}
	sqlite3_finalize(st);
	return rc ? rc : gc_db_run_end(db, id, status, NULL, NULL, NULL);
}

#define GBIT 1000000000ull

/* Baseline nccl 2.18.3 vs candidate 2.19.1:
 *   sync 10gbit            0.100 / 0.100 (other noise)     -> same
 *   powersgd rank=4 10gbit 0.080 / 0.088 (10% slower)      -> REGRESSION
 *   signsgd 10gbit         0.090 / 0.090 (other noise)     -> same
 *   mstopk k=0.01 10gbit   0.120 / 0.1236 (3% < 5% effect) -> same
 *   topk 1gbit             baseline only;  sync 25gbit candidate only
 * and on the candidate a failed powersgd run at 0.5 s that must not count. */
/* A fresh database at path with environments nccl 2.18.3 (*a) and 2.19.1 (*b) and one
 * sweep of the spec for each (*s, *s2), as two nights of `gcbench run` give. */
static gc_rc two_nights(const char *path, gc_db **db, int64_t *a, int64_t *b, int64_t *s,
			int64_t *s2)
{
	gc_rc rc;

	unlink(path);
	if ((rc = gc_db_open(path, 0, db, NULL)))
		return rc;
	if (!(rc = add_env(*db, "2.18.3", a)) && !(rc = add_env(*db, "2.19.1", b)) &&
	    !(rc = gc_db_sweep_begin(*db, "t", "spec", "hash", "sync", s, NULL)))
		rc = gc_db_sweep_begin(*db, "t", "spec", "hash", "sync", s2, NULL);
	if (rc)
		gc_db_close(*db), *db = NULL;
	return rc;
}

static gc_rc make_db(const char *path)
{
	gc_db *db = NULL;
	int64_t s, s2, a, b;
	gc_rc rc;

	if (!(rc = two_nights(path, &db, &a, &b, &s, &s2)))
		rc = add_run(db, s, a, "sync", "", 10 * GBIT, 0.100, GC_RUN_OK) ||
		     add_run(db, s, a, "powersgd", "rank=4", 10 * GBIT, 0.080, GC_RUN_OK) ||
		     add_run(db, s, a, "signsgd", "", 10 * GBIT, 0.090, GC_RUN_OK) ||
		     add_run(db, s, a, "mstopk", "k=0.01", 10 * GBIT, 0.120, GC_RUN_OK) ||
		     add_run(db, s, a, "topk", "k=0.01", GBIT, 0.300, GC_RUN_OK) ||
		     (s = s2, 0) ||
		     add_run(db, s, b, "sync", "", 10 * GBIT, 0.100, GC_RUN_OK) ||
		     add_run(db, s, b, "powersgd", "rank=4", 10 * GBIT, 0.088, GC_RUN_OK) ||
		     add_run(db, s, b, "powersgd", "rank=4", 10 * GBIT, 0.5, GC_RUN_FAILED) ||
		     add_run(db, s, b, "signsgd", "", 10 * GBIT, 0.090, GC_RUN_OK) ||
		     add_run(db, s, b, "mstopk", "k=0.01", 10 * GBIT, 0.1236, GC_RUN_OK) ||
		     add_run(db, s, b, "sync", "", 25 * GBIT, 0.090, GC_RUN_OK) ? GC_E_DB : GC_OK;
	if (db)
		gc_db_close(db);
	return rc;
}

static char dbpath[256];

static const gc_regress_point *find(const gc_regress_report *r, const char *method,
				    uint64_t bw)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].method, method) && r->v[i].bw_cap_bps == (int64_t)bw)
			return &r->v[i];
	return NULL;
}

static int confirm_nights;   /* opts.confirm for compare() (0: the default) */

static gc_rc compare(const char *base, const char *cand, gc_regress_report *r, gc_err *e)
{
	gc_regress_opts o;
	gc_db *db = NULL;
	gc_rc rc;

	gc_regress_opts_default(&o);
	o.confirm = confirm_nights;
	o.baseline = base;
	o.candidate = cand;
	memset(r, 0, sizeof *r);
	if ((rc = gc_db_open(dbpath, GC_DB_READONLY, &db, e)))
		return rc;
	rc = gc_regress_compare(db, &o, r, e);
	gc_db_close(db);
	return rc;
}

static void test_finds_real_slowdown(void)
{
	gc_regress_report r;
	const gc_regress_point *p;
	gc_err e;

	CHECKF(compare("nccl=2.18", "nccl=2.19", &r, &e) == GC_OK, "%s", e.msg);
	p = find(&r, "powersgd", 10 * GBIT);
	CHECK(p != NULL);
	CHECK_EQ_INT(p->verdict, GC_REG_REGRESSION);
	CHECK_EQ_INT(p->n_base, 200);   /* warmup rows excluded */
	CHECK_EQ_INT(p->n_cand, 200);   /* the failed run excluded */
	CHECK_NEAR(p->change, 0.10, 0.02);
	CHECK(p->p < 1e-6);
	CHECK_NEAR(p->speedup_base, 0.100 / 0.080, 0.03);
	CHECK_NEAR(p->speedup_cand, 0.100 / 0.088, 0.03);
	CHECK_EQ_INT(r.n_regressions, 1);
	gc_regress_report_release(&r);
}

static void test_noise_is_not_regression(void)
{
	gc_regress_report r;
	const gc_regress_point *p;
	gc_err e;

	CHECKF(compare("nccl=2.18", "nccl=2.19", &r, &e) == GC_OK, "%s", e.msg);
	p = find(&r, "signsgd", 10 * GBIT);
	CHECK(p != NULL && p->verdict == GC_REG_SAME);
	CHECK(fabs(p->change) < 0.05);
	p = find(&r, "sync", 10 * GBIT);
	CHECK(p != NULL && p->verdict == GC_REG_SAME);
	/* a real but small shift (3%) is below the 5% minimum effect */
	p = find(&r, "mstopk", 10 * GBIT);
	CHECK(p != NULL && p->verdict == GC_REG_SAME);
	CHECKF(p->change > 0.01 && p->change < 0.05, "change %g", p->change);
	gc_regress_report_release(&r);
}

static void test_one_side_reported(void)
{
	gc_regress_report r;
	const gc_regress_point *p;
	gc_err e;

	CHECKF(compare("nccl=2.18", "nccl=2.19", &r, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(r.n, 6);
	CHECK_EQ_INT(r.n_one_side, 2);
	p = find(&r, "topk", GBIT);
	CHECK(p != NULL && p->verdict == GC_REG_BASELINE_ONLY && p->n_cand == 0);
	CHECK(isnan(p->p));
	p = find(&r, "sync", 25 * GBIT);
	CHECK(p != NULL && p->verdict == GC_REG_CANDIDATE_ONLY && p->n_base == 0);
	gc_regress_report_release(&r);
}

static void test_reverse_is_improvement(void)
{
	gc_regress_report r;
	gc_err e;

	CHECKF(compare("nccl=2.19.1", "nccl=2.18.3", &r, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(r.n_regressions, 0);
	CHECK_EQ_INT(r.n_improvements, 1);
	CHECK_EQ_INT(find(&r, "powersgd", 10 * GBIT)->verdict, GC_REG_IMPROVEMENT);
	gc_regress_report_release(&r);
}

static void test_previous(void)
{
	gc_regress_report r;
	gc_err e;

	/* the last two sweeps of the newest sweep's spec */
	CHECKF(compare("previous", NULL, &r, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(r.n_regressions, 1);
	CHECK_CONTAINS(r.cand_desc, "sweep 2");
	CHECK_CONTAINS(r.base_desc, "sweep 1");
	gc_regress_report_release(&r);
	CHECKF(compare("sweep=1", "sweep=2", &r, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(r.n_regressions, 1);
	gc_regress_report_release(&r);
	CHECK_EQ_INT(compare("sweep=x", "sweep=2", &r, &e), GC_E_INVAL);
	CHECK_EQ_INT(compare("sweep=0", "sweep=2", &r, &e), GC_E_INVAL);
	CHECK_EQ_INT(compare("sweep=9", "sweep=2", &r, &e), GC_E_NOTFOUND);
	CHECK_CONTAINS(e.msg, "sweep 9 has no ok runs");
	gc_regress_report_release(&r);
}

static void test_selectors(void)
{
	gc_regress_report r;
	gc_err e;

	CHECK_EQ_INT(compare("nccl=2.1", "nccl=2.19", &r, &e), GC_E_NOTFOUND);
	CHECK_EQ_INT(compare("nccl=2.18' OR 1=1 --", "nccl=2.19", &r, &e), GC_E_NOTFOUND);
	CHECK_EQ_INT(compare("color=red", "nccl=2.19", &r, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "color=red");
	CHECK_EQ_INT(compare("nccl=2.18", NULL, &r, &e), GC_E_INVAL);
	CHECKF(compare("env=1,tag=lab,cuda=12", "driver=535,nccl=2.19", &r, &e) == GC_OK,
	       "%s", e.msg);
	CHECK_EQ_INT(r.n_regressions, 1);
	gc_regress_report_release(&r);
}

static void test_formats(void)
{
	gc_regress_report r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	gc_err e;

	CHECKF(compare("nccl=2.18", "nccl=2.19", &r, &e) == GC_OK, "%s", e.msg);
	f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	gc_regress_print(f, &r, "json", &e);
	gc_regress_print(f, &r, "markdown", &e);
	CHECK_EQ_INT(gc_regress_print(f, &r, "xml", &e), GC_E_INVAL);
	fclose(f);
	CHECK_CONTAINS(buf, "\"regressions\":1,");
	CHECK_CONTAINS(buf, "\"method\":\"powersgd\",\"params\":\"rank=4\"");
	CHECK_CONTAINS(buf, "\"verdict\":\"REGRESSION\"}");
	CHECK_CONTAINS(buf, "\"n_cand\":0");
	CHECK_CONTAINS(buf, "| resnet50 | powersgd | defaults | 10gbit | 2x32 | 79.");
	CHECK_CONTAINS(buf, "\"unit\":\"iterations\"");
	free(buf);
	gc_regress_report_release(&r);
}

static int count_rows(const struct gc_db_history_row *h, void *arg)
{
	int *n = arg;
	*n += 1;
	if (h->speedup < 1.1 || h->speedup > 1.4)
		*n += 1000;
	return 0;
}

static void test_history(void)
{
	gc_db *db = NULL;
	gc_err e;
	int n = 0;

	CHECKF(gc_db_open(dbpath, GC_DB_READONLY, &db, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(gc_db_history(db, "resnet50", "powersgd", -1, count_rows, &n, &e),
		     GC_OK);
	gc_db_close(db);
	CHECK_EQ_INT(n, 2);   /* one row per sweep, speedups 1.25 and 1.14 */
}

/* Only the baseline method got faster (sync 0.100 -> 0.080 s), the methods did not:
 * their speedups fell (powersgd 1.25 -> 1.0, signsgd 1.11 -> 0.89). */
static gc_rc make_db_baseline_faster(const char *path)
{
	gc_db *db = NULL;
	int64_t s, s2, a, b;
	gc_rc rc;

	if (!(rc = two_nights(path, &db, &a, &b, &s, &s2)))
		rc = add_run(db, s, a, "sync", "", 10 * GBIT, 0.100, GC_RUN_OK) ||
		     add_run(db, s, a, "powersgd", "rank=4", 10 * GBIT, 0.080, GC_RUN_OK) ||
		     add_run(db, s, a, "signsgd", "", 10 * GBIT, 0.090, GC_RUN_OK) ||
		     add_run(db, s2, b, "sync", "", 10 * GBIT, 0.080, GC_RUN_OK) ||
		     add_run(db, s2, b, "powersgd", "rank=4", 10 * GBIT, 0.080, GC_RUN_OK) ||
		     add_run(db, s2, b, "signsgd", "", 10 * GBIT, 0.090, GC_RUN_OK) ? GC_E_DB : GC_OK;
	if (db)
		gc_db_close(db);
	return rc;
}

static gc_rc compare_metric(const char *path, int metric, gc_regress_report *r, gc_err *e)
{
	gc_regress_opts o;
	gc_db *db = NULL;
	gc_rc rc;

	gc_regress_opts_default(&o);
	o.baseline = "nccl=2.18";
	o.candidate = "nccl=2.19";
	o.metric = metric;
	memset(r, 0, sizeof *r);
	if ((rc = gc_db_open(path, GC_DB_READONLY, &db, e)))
		return rc;
	rc = gc_regress_compare(db, &o, r, e);
	gc_db_close(db);
	return rc;
}

static void test_speedup_metric(void)
{
	char path[300];
	gc_regress_report r;
	const gc_regress_point *p;
	gc_err e;
	int m;

	snprintf(path, sizeof path, "%s.fast", dbpath);
	CHECK(make_db_baseline_faster(path) == GC_OK);
	CHECKF(compare_metric(path, GC_METRIC_TIME, &r, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(r.n_regressions, 0);             /* nothing got slower */
	CHECK_EQ_INT(find(&r, "sync", 10 * GBIT)->verdict, GC_REG_IMPROVEMENT);
	gc_regress_report_release(&r);
	CHECKF(compare_metric(path, GC_METRIC_SPEEDUP, &r, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(r.n, 2);                          /* the baseline method has no row */
	CHECK_EQ_INT(r.n_regressions, 2);
	p = find(&r, "powersgd", 10 * GBIT);
	CHECK(p && p->verdict == GC_REG_REGRESSION);
	CHECK_NEAR(p->change, 0.8 - 1, 0.03);
	CHECK(p->ci_lo < p->change && p->change < p->ci_hi && p->ci_hi < 0);
	CHECK(!p->by_runs);
	p = find(&r, "signsgd", 10 * GBIT);
	CHECK(p && p->verdict == GC_REG_REGRESSION);
	gc_regress_report_release(&r);
	/* on the first database the speedup of powersgd fell 10%: flagged too; signsgd's
	 * and mstopk's stayed within noise */
	CHECKF(compare_metric(dbpath, GC_METRIC_SPEEDUP, &r, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(find(&r, "powersgd", 10 * GBIT)->verdict, GC_REG_REGRESSION);
	CHECK_EQ_INT(find(&r, "signsgd", 10 * GBIT)->verdict, GC_REG_SAME);
	gc_regress_report_release(&r);
	CHECK(gc_regress_metric_parse("speedup", &m) == 0 && m == GC_METRIC_SPEEDUP);
	CHECK(gc_regress_metric_parse("time", &m) == 0 && m == GC_METRIC_TIME);
	CHECK(gc_regress_metric_parse("Speedup", &m) == -1);
	CHECK(gc_regress_metric_parse("", &m) == -1);
	unlink(path);
}

/* Three runs per side whose levels differ by +-15% from run to run (a noisy machine),
 * with 2% noise within a run, and a 6% shift of the mean: by iterations the shift
 * looks certain (p tiny), but with runs as the unit it is within the runs' spread. */
static void test_runs_are_the_unit(void)
{
	static const double level[2][3] = { { 0.85, 1.00, 1.15 }, { 0.91, 1.06, 1.21 } };
	char path[300];
	gc_regress_report r;
	const gc_regress_point *p;
	int64_t env[2], sw[2];
	gc_db *db = NULL;
	gc_err e;
	int side, k;

	snprintf(path, sizeof path, "%s.runs", dbpath);
	unlink(path);
	CHECK(gc_db_open(path, 0, &db, NULL) == GC_OK);
	iter_noise = 0.04;
	CHECK(add_env(db, "2.18.3", &env[0]) == GC_OK && add_env(db, "2.19.1", &env[1]) == GC_OK);
	for (side = 0; side < 2; side++) {
		CHECK(gc_db_sweep_begin(db, "t", "spec", "hash", "sync", &sw[side], NULL) == GC_OK);
		for (k = 0; k < 3; k++)
			CHECK(add_run(db, sw[side], env[side], "powersgd", "rank=4", GBIT,
				      0.1 * level[side][k], GC_RUN_OK) == GC_OK);
	}
	iter_noise = 0.2;
	gc_db_close(db);
	CHECKF(compare_metric(path, GC_METRIC_TIME, &r, &e) == GC_OK, "%s", e.msg);
	p = find(&r, "powersgd", GBIT);
	CHECK(p && p->by_runs && p->runs_base == 3 && p->runs_cand == 3);
	CHECK_EQ_INT(r.n_by_runs, 1);
	CHECKF(p->change > 0.04 && p->change < 0.08, "change %g", p->change);
	CHECKF(p->ci_lo < 0 && p->ci_hi > 0, "interval %g..%g should contain 0", p->ci_lo, p->ci_hi);
	CHECK_EQ_INT(p->verdict, GC_REG_SAME);
	gc_regress_report_release(&r);
	unlink(path);
}

/* Sweep 1 ran in SLURM job 101, sweep 2 in job 202, both in partition gpu. */
static gc_rc set_jobs(void)
{
	gc_db *db = NULL;
	gc_rc rc;

	if ((rc = gc_db_open(dbpath, 0, &db, NULL)))
		return rc;
	if (sqlite3_exec(gc_db_handle(db), "UPDATE runs SET slurm_job = CASE sweep_id WHEN 1 "
			 "THEN '101' ELSE '202' END, slurm_partition = 'gpu', slurm_nodes = "
			 "'n[1-2]'", NULL, NULL, NULL))
		rc = GC_E_DB;
	gc_db_close(db);
	return rc;
}

static void test_job_selectors(void)
{
	static const char *bad[] = {
		"job=", "job=x", "job=0", "job=-1", "job=+1", "job= 1", "job=1x", "job=0x10",
		"job=1,job=2", "job=99999999999999999999999", "partition=", "partition=-gpu",
		"partition=.gpu", "partition=g'pu", "partition=gpu,partition=cpu",
		"job=101,nccl=2.18", "partition=gpu,", "nccl=2.18,job=101",
	};
	gc_regress_report r;
	gc_err e;

	CHECK(set_jobs() == GC_OK);
	CHECKF(compare("job=101", "job=202", &r, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(r.n_regressions, 1);
	CHECK_CONTAINS(r.base_desc, "job=101");
	gc_regress_report_release(&r);
	CHECKF(compare("job=101,partition=gpu", "partition=gpu,job=202", &r, &e) == GC_OK,
	       "%s", e.msg);
	CHECK_EQ_INT(r.n_regressions, 1);
	gc_regress_report_release(&r);
	/* both jobs on each side: the same runs, no regression */
	CHECKF(compare("partition=gpu", "partition=gpu", &r, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(r.n_regressions, 0);
	CHECK(r.n > 0);
	gc_regress_report_release(&r);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&e, 0, sizeof e);
		CHECKF(compare(bad[i], "job=202", &r, &e) == GC_E_INVAL, "%s accepted", bad[i]);
		CHECKF(strstr(e.msg, "job=ID") != NULL, "%s: %s", bad[i], e.msg);
		gc_regress_report_release(&r);
	}
	CHECK_EQ_INT(compare("job=999", "job=202", &r, &e), GC_E_NOTFOUND);
	CHECK_CONTAINS(e.msg, "no ok run matches 'job=999'");
	CHECK_EQ_INT(compare("job=101", "partition=cpu", &r, &e), GC_E_NOTFOUND);
	CHECK_EQ_INT(compare("job=101,partition=cpu", "job=202", &r, &e), GC_E_NOTFOUND);
	CHECK_EQ_INT(compare("job=101' OR 1=1 --", "job=202", &r, &e), GC_E_INVAL);
}

static void test_history_by_job(void)
{
	static const struct { const char *job, *part; int rows; } c[] = {
		{ "101", NULL, 1 }, { "202", "gpu", 1 }, { NULL, "gpu", 2 }, { "999", NULL, 0 },
		{ NULL, "cpu", 0 }, { "101' OR 1=1 --", NULL, 0 }, { NULL, NULL, 2 },
	};
	char out[32];
	gc_db *db = NULL;
	gc_err e;

	CHECK(set_jobs() == GC_OK);
	CHECKF(gc_db_open(dbpath, GC_DB_READONLY, &db, &e) == GC_OK, "%s", e.msg);
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		int n = 0;
		CHECK_EQ_INT(gc_db_history_job(db, "resnet50", "powersgd", -1, c[i].job, c[i].part,
					       count_rows, &n, &e), GC_OK);
		CHECKF(n == c[i].rows, "job %s partition %s: %d rows, want %d", c[i].job,
		       c[i].part, n, c[i].rows);
	}
	gc_db_close(db);
	CHECK(gc_regress_job_parse("007", out, sizeof out) == 0 && !strcmp(out, "7"));
	CHECK(gc_regress_job_parse("0", out, sizeof out) == -1);
	CHECK(gc_regress_job_parse(" 1", out, sizeof out) == -1);
	CHECK(gc_regress_job_parse("123456", out, 4) == -1);
	CHECK(gc_regress_job_parse("1_2", out, sizeof out) == -1);
	CHECK(gc_regress_valid_partition("gpu-a100.x_1"));
	CHECK(!gc_regress_valid_partition(""));
	CHECK(!gc_regress_valid_partition("-p"));
	CHECK(!gc_regress_valid_partition("a,b"));
	CHECK(!gc_regress_valid_partition(NULL));
}

/* One night of the series fixture: a sweep of spec "nightly" with one sync run at
 * level t (iterations +-10% around it) in environment env. */
static gc_rc night(const char *path, double t, int64_t env_of)
{
	gc_db *db = NULL;
	int64_t s, env;
	gc_rc rc;

	if ((rc = gc_db_open(path, 0, &db, NULL)))
		return rc;
	rc = add_env(db, env_of ? "2.19.1" : "2.18.3", &env);
	if (!rc)
		rc = gc_db_sweep_begin(db, "nightly", "spec", "nightly-hash", "sync", &s, NULL);
	if (!rc)
		rc = add_run(db, s, env, "sync", "", 10 * GBIT, t, GC_RUN_OK);
	gc_db_close(db);
	return rc;
}

static gc_rc compare_at(const char *path, const char *base, const char *cand,
			gc_regress_report *r, gc_err *e)
{
	char keep[256];
	gc_rc rc;

	gc_strlcpy(keep, dbpath, sizeof keep);
	gc_strlcpy(dbpath, path, sizeof dbpath);
	rc = compare(base, cand, r, e);
	gc_strlcpy(dbpath, keep, sizeof dbpath);
	return rc;
}

/* Nights whose level moves +-6% with one run each: the pooled iterations call an
 * ordinary night (+11% over the night before) a REGRESSION; the noise model (one run a
 * night: confirmed over 2 nights, 6 before them) calls it same; a first night at 1.5x
 * is "suspect" (a REGRESSION with --confirm 1), the second at 1.5x a REGRESSION, and
 * --series names the first and the environment field that changed (nccl). */
static void test_nightly_noise_model(void)
{
	static const double lvl[] = { 1.00, 1.06, 0.95, 1.03, 0.97, 1.05, 0.96, 1.07 };
	char path[300];
	gc_regress_report r;
	gc_regress_series s;
	const gc_regress_point *p;
	gc_db *db = NULL;
	gc_err e;
	size_t i;

	snprintf(path, sizeof path, "%s.nights", dbpath);
	unlink(path);
	for (i = 0; i < 5; i++)
		CHECK(night(path, 0.100 * lvl[i], 0) == GC_OK);
	/* 4 earlier nights: too few for a model; the pooled verdict stays */
	CHECKF(compare_at(path, "previous", NULL, &r, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(r.n_short_history, 1);
	CHECK_EQ_INT(r.n_by_nights, 0);
	gc_regress_report_release(&r);
	for (; i < 8; i++)
		CHECK(night(path, 0.100 * lvl[i], 0) == GC_OK);
	CHECKF(compare_at(path, "sweep=7", "sweep=8", &r, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(r.n_regressions, 1);      /* the false alarm of pooled iterations */
	gc_regress_report_release(&r);
	CHECKF(compare_at(path, "previous", NULL, &r, &e) == GC_OK, "%s", e.msg);
	p = find(&r, "sync", 10 * GBIT);
	CHECK(p != NULL);
	CHECK_EQ_INT(r.n_by_nights, 1);
	CHECK_EQ_INT(p->nights, 6);
	CHECK_EQ_INT(p->confirm, 2);
	CHECK_EQ_INT(p->verdict, GC_REG_SAME);
	CHECK(p->ci_lo < 0 && p->ci_hi > p->change);
	CHECK_EQ_INT(r.n_regressions, 0);
	gc_regress_report_release(&r);
	CHECK(night(path, 0.150, 1) == GC_OK);
	CHECKF(compare_at(path, "previous", NULL, &r, &e) == GC_OK, "%s", e.msg);
	p = find(&r, "sync", 10 * GBIT);
	CHECK(p != NULL && p->nights == 7 && p->verdict == GC_REG_SAME && p->suspect);
	CHECK_NEAR(p->change, 0.50, 0.06);
	CHECK_EQ_INT(r.n_regressions, 0);
	CHECK_EQ_INT(r.n_suspects, 1);
	{
		char *txt = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&txt, &len);

		CHECK(f && gc_regress_print(f, &r, "json", &e) == GC_OK &&
		      gc_regress_print(f, &r, "table", &e) == GC_OK);
		fclose(f);
		CHECK_CONTAINS(txt, "\"confirm\":2,\"suspect\":true");
		CHECK_CONTAINS(txt, "\"suspects\":1");
		CHECK_CONTAINS(txt, "# suspect");
		CHECK_CONTAINS(txt, "suspect: confirm tomorrow: 1 points");
		free(txt);
	}
	gc_regress_report_release(&r);
	confirm_nights = 1;                    /* the one-night call says it today */
	CHECKF(compare_at(path, "previous", NULL, &r, &e) == GC_OK, "%s", e.msg);
	confirm_nights = 0;
	p = find(&r, "sync", 10 * GBIT);
	CHECK(p != NULL && p->nights == 8 && p->confirm == 1 && !p->suspect &&
	      p->verdict == GC_REG_REGRESSION);
	gc_regress_report_release(&r);
	CHECK(night(path, 0.150, 1) == GC_OK);
	CHECKF(compare_at(path, "previous", NULL, &r, &e) == GC_OK, "%s", e.msg);
	p = find(&r, "sync", 10 * GBIT);
	CHECK(p != NULL && p->nights == 8 && p->verdict == GC_REG_REGRESSION && !p->suspect);
	CHECK_NEAR(p->change, 0.50, 0.06);
	CHECK_EQ_INT(r.n_regressions, 1);
	{
		char *txt = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&txt, &len);

		CHECK(f && gc_regress_print(f, &r, "json", &e) == GC_OK &&
		      gc_regress_print(f, &r, "table", &e) == GC_OK);
		fclose(f);
		CHECK_CONTAINS(txt, "\"by_nights\":1,\"short_history\":0");
		CHECK_CONTAINS(txt, "\"unit\":\"nights\",\"nights\":8,\"confirm\":2,");
		CHECK_CONTAINS(txt, "# REGRESSION");
		CHECK_CONTAINS(txt, "marked #: 1 points judged by their nightly series");
		free(txt);
	}
	gc_regress_report_release(&r);
	CHECKF(gc_db_open(path, GC_DB_READONLY, &db, &e) == GC_OK, "%s", e.msg);
	CHECKF(gc_regress_series_load(db, 0, 0, &s, &e) == GC_OK, "%s", e.msg);
	gc_db_close(db);
	gc_regress_series_steps(&s, 0.05);
	CHECK_EQ_INT(s.nnights, 10);
	CHECK_EQ_INT(s.npts, 1);
	CHECK_EQ_INT(s.pt[0].nsteps, 1);
	CHECK_EQ_INT(s.sweep[s.pt[0].steps[0].at], 9);
	{
		char env[256];

		gc_regress_env_changes(&s.night[7], &s.night[8], env, sizeof env);
		CHECK_STR(env, "nccl 2.18.3 -> 2.19.1");
		gc_regress_env_changes(&s.night[6], &s.night[7], env, sizeof env);
		CHECK_STR(env, "");
	}
	gc_regress_series_release(&s);
	unlink(path);
}

int main(int argc, char **argv)
{
	int rc;

	if (argc == 3 && !strcmp(argv[1], "--make-db"))
		return make_db(argv[2]) ? 1 : 0;
	GCT_SUITE("regress");
	snprintf(dbpath, sizeof dbpath, "%s/gct-regress-%d.db",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
	if (make_db(dbpath)) {
		printf("FAIL regress/make_db: cannot build the synthetic database %s\n", dbpath);
		return 1;
	}
	GCT_RUN(test_finds_real_slowdown);
	GCT_RUN(test_noise_is_not_regression);
	GCT_RUN(test_one_side_reported);
	GCT_RUN(test_reverse_is_improvement);
	GCT_RUN(test_previous);
	GCT_RUN(test_selectors);
	GCT_RUN(test_job_selectors);
	GCT_RUN(test_history_by_job);
	GCT_RUN(test_formats);
	GCT_RUN(test_history);
	GCT_RUN(test_speedup_metric);
	GCT_RUN(test_runs_are_the_unit);
	GCT_RUN(test_nightly_noise_model);
	rc = gct_finish();
	unlink(dbpath);
	return rc;
}

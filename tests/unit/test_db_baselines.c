/* tests/unit/test_db_baselines.c: several baselines (`baseline: [syncsgd, bf16]`,
 * migration 11): the speedup view's rows per (method, baseline) against hand-computed
 * answers, a single-baseline sweep beside it unchanged, and the JSON of
 * gc_db_sweep_set_baselines.
 *
 * Sweep "two" (baselines syncsgd, bf16), one point (resnet50, 4 workers, 1 Gbit/s):
 *   syncsgd t_iter 2.0, bf16 1.6, topk 0.8: speedups over syncsgd 1, 1.25, 2.5;
 *   over bf16 0.8, 1, 2.
 * Sweep "one" (baseline syncsgd only) at 10 Gbit/s: syncsgd 1.0, bf16 0.5: rows over
 *   syncsgd only (1, 2).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db_fixture.h"
#include "harness.h"
#include "db/db.h"
#include "db/db_internal.h"   /* gc_db_handle */

static char dbpath[64];

static int64_t add(gc_db *db, int64_t sweep, const char *method, uint64_t bw, double t)
{
	struct gc_iter_rec recs[8];

	memset(recs, 0, sizeof(recs));
	for (int i = 0; i < 8; i++) {
		recs[i].rank = (uint32_t)(i / 4);
		recs[i].iter = (uint32_t)(i % 4);
		recs[i].warmup = i % 4 == 0;
		recs[i].t_iter = recs[i].warmup ? 100 : t;
	}
	return fx_run(db, sweep, 0, method, "", bw, recs, 8, GC_RUN_OK, NULL, NULL);
}


static gc_db *build(void)
{
	char *const two[] = { "syncsgd", "bf16" };
	int64_t s1, s2;
	gc_db *db = NULL;
	gc_err e;

	snprintf(dbpath, sizeof(dbpath), "/tmp/gcbench-test-bl-%d.db", (int)getpid());
	unlink(dbpath);
	if (gc_db_open(dbpath, 0, &db, &e) ||
	    gc_db_sweep_begin(db, "two", "spec", "h2", "syncsgd", &s2, &e) ||
	    gc_db_sweep_set_baselines(db, s2, two, 2, &e) ||
	    gc_db_sweep_begin(db, "one", "spec", "h1", "syncsgd", &s1, &e)) {
		printf("# %s\n", e.msg);
		gc_db_close(db);
		return NULL;
	}
	if (add(db, s2, "syncsgd", 1000000000, 2.0) < 0 || add(db, s2, "bf16", 1000000000, 1.6) < 0 ||
	    add(db, s2, "topk", 1000000000, 0.8) < 0 || add(db, s1, "syncsgd", 10000000000, 1.0) < 0 ||
	    add(db, s1, "bf16", 10000000000, 0.5) < 0) {
		gc_db_close(db);
		return NULL;
	}
	return db;
}

static void test_speedup_per_baseline(void)
{
	gc_db *db = build();

	CHECK(db);
	CHECK_ROWS(db, "SELECT bw_cap_bps / 1000000000, method, baseline, round(speedup, 4) "
		   "FROM speedup ORDER BY bw_cap_bps, baseline DESC, method",
		   "1|bf16|syncsgd|1.25\n1|syncsgd|syncsgd|1.0\n1|topk|syncsgd|2.5\n"
		   "1|bf16|bf16|1.0\n1|syncsgd|bf16|0.8\n1|topk|bf16|2.0\n"
		   "10|bf16|syncsgd|2.0\n10|syncsgd|syncsgd|1.0\n");
	CHECK_ROWS(db, "SELECT count(*) FROM speedup WHERE baseline = sweep_baseline", "5\n");
	CHECK_ROWS(db, "SELECT method, baseline FROM compression_wins ORDER BY baseline, method",
		   "topk|bf16\nbf16|syncsgd\nbf16|syncsgd\ntopk|syncsgd\n");
	CHECK_ROWS(db, "SELECT name, baselines FROM sweeps ORDER BY id",
		   "two|[\"syncsgd\",\"bf16\"]\none|[]\n");
	gc_db_close(db);
	unlink(dbpath);
}

/* names are JSON-escaped (labels never need it, but the column must stay valid JSON) */
static void test_baselines_json(void)
{
	char *const odd[] = { "a\"b", "c\\d", "e\tf" };
	gc_db *db = build();
	gc_err e;

	CHECK(db);
	CHECK(gc_db_sweep_set_baselines(db, 1, odd, 3, &e) == GC_OK);
	CHECK_ROWS(db, "SELECT group_concat(value, '|') FROM sweeps, json_each(baselines) "
		   "WHERE sweeps.id = 1", "a\"b|c\\d|e\tf\n");
	CHECK(gc_db_sweep_set_baselines(db, 99, odd, 1, &e) == GC_E_NOTFOUND);
	CHECK_CONTAINS(e.msg, "sweep 99");
	gc_db_close(db);
	unlink(dbpath);
}

int main(void)
{
	GCT_SUITE("db_baselines");
	GCT_RUN(test_speedup_per_baseline);
	GCT_RUN(test_baselines_json);
	return gct_finish();
}

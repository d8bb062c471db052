/* tests/unit/test_db_network.c: the network of a run's point (migration 13): view
 * run_network's text for each network axis of a point key, and the speedup view
 * pairing a method with the baseline of the same network only.
 *
 * One sweep at 1 Gbit/s: syncsgd 2.0 s and topk 1.0 s uniform; syncsgd 4.0 s and topk
 * 1.6 s with n2 at 0.5. Speedups: uniform 2.0, slow 2.5 (merged, as before migration
 * 13 they were: 3.0 / 1.3). gc_db_history_filter: a row per network, and --network's
 * matches (whole text, a '+' part, a kind). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db_fixture.h"
#include "harness.h"
#include "db/db.h"
#include "db/db_internal.h"   /* gc_db_handle */
#include "db/q_history.h"

#define KEY "workload=replay;model=resnet50;method=%s;params=;bw=1000000000;lat=0;" \
	    "world=4;batch=32;backend=mpi;scale=1;repeat=0%s"

static char dbpath[64];

static int64_t add(gc_db *db, int64_t sweep, const char *method, const char *tail, double t)
{
	struct gc_iter_rec recs[8];
	char key[512], sql[700];
	int64_t id;

	memset(recs, 0, sizeof(recs));
	for (int i = 0; i < 8; i++) {
		recs[i].rank = (uint32_t)(i / 4);
		recs[i].iter = (uint32_t)(i % 4);
		recs[i].warmup = i % 4 == 0;
		recs[i].t_iter = recs[i].warmup ? 100 : t;
	}
	id = fx_run(db, sweep, 0, method, "", 1000000000, recs, 8, GC_RUN_OK, NULL, NULL);
	snprintf(key, sizeof(key), KEY, method, tail);
	snprintf(sql, sizeof(sql), "UPDATE runs SET point_key = '%s' WHERE id = %lld", key,
		 (long long)id);
	if (id < 0 || sqlite3_exec(gc_db_handle(db), sql, NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	return id;
}


static gc_db *build(void)
{
	int64_t s;
	gc_db *db = NULL;
	gc_err e;

	snprintf(dbpath, sizeof(dbpath), "/tmp/gcbench-test-net-%d.db", (int)getpid());
	unlink(dbpath);
	if (gc_db_open(dbpath, 0, &db, &e) ||
	    gc_db_sweep_begin(db, "net", "spec", "h", "syncsgd", &s, &e)) {
		printf("# %s\n", e.msg);
		gc_db_close(db);
		return NULL;
	}
	if (add(db, s, "syncsgd", "", 2.0) < 0 || add(db, s, "topk", "", 1.0) < 0 ||
	    add(db, s, "syncsgd", ";slow=n2:0.5", 4.0) < 0 ||
	    add(db, s, "topk", ";slow=n2:0.5", 1.6) < 0) {
		gc_db_close(db);
		return NULL;
	}
	return db;
}

static void test_speedup_per_network(void)
{
	gc_db *db = build();

	CHECK(db);
	if (!db)
		return;
	CHECK_ROWS(db, "SELECT network, method, round(t_iter, 3) FROM point_summary "
		   "ORDER BY network DESC, method",
		   "uniform|syncsgd|2.0\nuniform|topk|1.0\nslow n2:0.5|syncsgd|4.0\n"
		   "slow n2:0.5|topk|1.6\n");
	CHECK_ROWS(db, "SELECT network, method, round(speedup, 3), round(t_iter_baseline, 3) "
		   "FROM speedup WHERE method <> baseline ORDER BY network DESC",
		   "uniform|topk|2.0|2.0\nslow n2:0.5|topk|2.5|4.0\n");
	CHECK_ROWS(db, "SELECT count(*) FROM compression_wins", "2\n");
	gc_db_close(db);
	unlink(dbpath);
}

/* each network axis of a key as the column shows it, joined in the key's order */
static void test_network_text(void)
{
	static const char *const tails[][2] = {
		{ "", "uniform" },
		{ ";stack=a", "uniform" },
		{ ";slow=n2:0.5,n3:0.875", "slow n2:0.5,n3:0.875" },
		{ ";uplink=2:1", "uplink 2:1" },
		{ ";uplink=1000000000", "uplink 1gbit" },
		{ ";uplink=150000000", "uplink 150mbit" },
		{ ";uplink=1500", "uplink 1500bit" },
		{ ";bg=flows:1", "bg 1" },
		{ ";bg=flows:2,onoff:1/2", "bg 2,onoff:1/2" },
		{ ";slow=n3:0.5;uplink=4:1;bg=flows:1", "slow n3:0.5+uplink 4:1+bg 1" },
	};
	gc_db *db = build();
	char sql[900], want[128];

	CHECK(db);
	if (!db)
		return;
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		snprintf(sql, sizeof(sql), "UPDATE runs SET point_key = '" KEY "' WHERE id = 1",
			 "syncsgd", tails[i][0]);
		CHECK(sqlite3_exec(gc_db_handle(db), sql, NULL, NULL, NULL) == SQLITE_OK);
		snprintf(want, sizeof(want), "%s\n", tails[i][1]);
		CHECK_ROWS(db, "SELECT network FROM run_network WHERE run_id = 1", want);
	}
	CHECK(sqlite3_exec(gc_db_handle(db), "UPDATE runs SET point_key = 'workload=replay;"
			   "model=m;method=x;params=;bw=trace:square.txt@0011223344556677;lat=0;"
			   "repeat=0;slow=n1:0.5' WHERE id = 1", NULL, NULL, NULL) == SQLITE_OK);
	CHECK_ROWS(db, "SELECT network FROM run_network WHERE run_id = 1",
		   "trace:square.txt+slow n1:0.5\n");
	gc_db_close(db);
	unlink(dbpath);
}

struct hist { char text[512]; size_t o; };

static int on_hist(const struct gc_db_history_row *h, void *arg)
{
	struct hist *x = arg;

	if (x->o < sizeof(x->text))
		x->o += (size_t)snprintf(x->text + x->o, sizeof(x->text) - x->o, "%s=%.2f;",
					 h->network, h->speedup);
	return 0;
}

static void history_of(gc_db *db, const char *network, const char *want)
{
	struct gc_db_history_filter f = { "resnet50", "topk", -1, NULL, NULL, network };
	struct hist x = { "", 0 };
	gc_err e;

	CHECK_EQ_INT(gc_db_history_filter(db, &f, on_hist, &x, &e), GC_OK);
	CHECKF(!strcmp(x.text, want), "--network %s: got '%s', want '%s'",
	       network ? network : "(none)", x.text, want);
}

static void test_history_network(void)
{
	gc_db *db = build();

	CHECK(db);
	if (!db)
		return;
	history_of(db, NULL, "uniform=2.00;slow n2:0.5=2.50;");
	history_of(db, "uniform", "uniform=2.00;");
	history_of(db, "slow", "slow n2:0.5=2.50;");
	history_of(db, "slow n2:0.5", "slow n2:0.5=2.50;");
	history_of(db, "n2", "");
	history_of(db, "slow n2", "");
	history_of(db, "bg", "");
	history_of(db, "%", "");
	/* several parts: each part and each kind selects it */
	CHECK(sqlite3_exec(gc_db_handle(db), "UPDATE runs SET point_key = point_key || "
			   "';bg=flows:1' WHERE point_key LIKE '%slow=%'", NULL, NULL, NULL) == SQLITE_OK);
	history_of(db, "bg", "slow n2:0.5+bg 1=2.50;");
	history_of(db, "bg 1", "slow n2:0.5+bg 1=2.50;");
	history_of(db, "slow n2:0.5", "slow n2:0.5+bg 1=2.50;");
	history_of(db, "slow n2:0.5+bg 1", "slow n2:0.5+bg 1=2.50;");
	CHECK(sqlite3_exec(gc_db_handle(db), "UPDATE runs SET point_key = replace(point_key, "
			   "';bw=1000000000;', ';bw=trace:sq.txt@0011223344556677;') WHERE point_key "
			   "LIKE '%slow=%'", NULL, NULL, NULL) == SQLITE_OK);
	history_of(db, "trace", "trace:sq.txt+slow n2:0.5+bg 1=2.50;");
	history_of(db, "trace:sq.txt", "trace:sq.txt+slow n2:0.5+bg 1=2.50;");
	history_of(db, "trace:sq", "");
	gc_db_close(db);
	unlink(dbpath);
}

int main(void)
{
	GCT_SUITE("db_network");
	GCT_RUN(test_speedup_per_network);
	GCT_RUN(test_network_text);
	GCT_RUN(test_history_network);
	return gct_finish();
}

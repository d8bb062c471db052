/* tests/unit/test_db_queries.c: the five queries of docs/database.md, read from that
 * file, run against a small hand-made database, compared with hand-computed answers.
 *
 * The database: sweep "before" (env 1: NCCL 2.9.9) and sweep "after" (env 2: NCCL
 * 2.18.3, which sorts AFTER 2.9.9 by nccl_num although not as text), resnet50, 4
 * workers, batch 32, mpi, baseline syncsgd. Post-warmup t_iter of every rank and
 * iteration (warmup iterations take 100 s, so counting them would show):
 *   run 1 env1 syncsgd  1gbit: rank 0 1.9 2.0 2.1, rank 1 1.8 2.0 2.2 -> median 2.0
 *   run 2 env1 powersgd 1gbit: 1.0   -> speedup 2.0 (a win)
 *   run 3 env1 signsgd  1gbit: 4.0   -> speedup 0.5
 *   run 4 env1 syncsgd 10gbit: 0.5
 *   run 5 env1 powersgd 10gbit: 1.0  -> speedup 0.5
 *   run 6 env1 signsgd 10gbit: failed "rank 3: allgather deadline passed"
 *   run 7 env2 syncsgd  1gbit: 2.0
 *   run 8 env2 powersgd 1gbit: 1.6   -> speedup 1.25 (a win)
 *   run 9 env2 signsgd  1gbit: timeout "point exceeded 300 s"
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db_fixture.h"
#include "harness.h"
#include "db/db.h"
#include "db/db_internal.h"   /* gc_db_handle, gc_db_exec: the fixtures' SQL */
#include "orchestrator/spec/yamlutil.h"

#define PS "rank=4"
static char dbpath[64];
static char *doc;

static int64_t add_run(gc_db *db, int64_t sweep, int64_t env, const char *method,
		       uint64_t bw, const double *t, size_t nt, enum gc_run_status st,
		       const char *err)
{
	struct gc_iter_rec recs[8];

	memset(recs, 0, sizeof(recs));
	for (int i = 0; i < 8; i++) {
		recs[i].rank = (uint32_t)(i / 4);
		recs[i].iter = (uint32_t)(i % 4);
		recs[i].warmup = i % 4 == 0;
		/* rank r, post-warmup iteration j (1..3): t[r * 3 + j - 1], or t[0] for all */
		recs[i].t_iter = recs[i].warmup ? 100 :
				 nt == 1 ? t[0] : t[(i / 4) * 3 + i % 4 - 1];
		recs[i].t_forward = 0.1;
		recs[i].t_backward = 1.0;
		recs[i].t_comm = i < 4 ? 0.8 : 0.9;
		recs[i].t_exposed = 0.3;
		recs[i].t_optimizer = 0.05;
	}
	return fx_run(db, sweep, env, method, strcmp(method, "powersgd") ? "" : PS, bw, recs, 8,
		      st, err, st == GC_RUN_OK ? NULL : "...\nMPI_ABORT was invoked");
}

static gc_db *build(void)
{
	const double r1[] = { 1.9, 2.0, 2.1, 1.8, 2.0, 2.2 }, one = 1.0, four = 4.0, half = 0.5,
		     two = 2.0, r8 = 1.6;
	int64_t s1, s2, e1, e2;
	gc_db *db;
	gc_err e;
	int ok;

	if (gc_db_open(dbpath, 0, &db, &e))
		return NULL;
	e1 = fx_env(db, "2.9.9", "535.104.05");
	e2 = fx_env(db, "2.18.3", "550.54.15");
	ok = !gc_db_sweep_begin(db, "before", "spec", "h1", "syncsgd", &s1, &e) &&
	     !gc_db_sweep_begin(db, "after", "spec", "h1", "syncsgd", &s2, &e);
	ok = ok && add_run(db, s1, e1, "syncsgd", 1000000000ull, r1, 6, GC_RUN_OK, NULL) == 1;
	ok = ok && add_run(db, s1, e1, "powersgd", 1000000000ull, &one, 1, GC_RUN_OK, NULL) > 0;
	ok = ok && add_run(db, s1, e1, "signsgd", 1000000000ull, &four, 1, GC_RUN_OK, NULL) > 0;
	ok = ok && add_run(db, s1, e1, "syncsgd", 10000000000ull, &half, 1, GC_RUN_OK, NULL) > 0;
	ok = ok && add_run(db, s1, e1, "powersgd", 10000000000ull, &one, 1, GC_RUN_OK, NULL) > 0;
	ok = ok && add_run(db, s1, e1, "signsgd", 10000000000ull, &one, 1, GC_RUN_FAILED,
			   "rank 3: allgather deadline passed") > 0;
	ok = ok && add_run(db, s2, e2, "syncsgd", 1000000000ull, &two, 1, GC_RUN_OK, NULL) > 0;
	ok = ok && add_run(db, s2, e2, "powersgd", 1000000000ull, &r8, 1, GC_RUN_OK, NULL) > 0;
	ok = ok && add_run(db, s2, e2, "signsgd", 1000000000ull, &one, 1, GC_RUN_TIMEOUT,
			   "point exceeded 300 s") > 0;
	if (!ok) {
		gc_db_close(db);
		return NULL;
	}
	return db;
}

/* the SQL of the first ```sql block (```sql runnable too: tools/doc-check.sh) after the
 * heading "### N." in text (docs/database.md or README.md) */
static char *query_in(const char *text, int n)
{
	char head[24], *h, *s, *end;

	snprintf(head, sizeof(head), "\n### %d.", n);
	if (!text || !(h = strstr(text, head)) || !(s = strstr(h, "```sql")) ||
	    !(s = strchr(s, '\n')))
		return NULL;
	s += 1;
	if (!(end = strstr(s, "```")))
		return NULL;
	return strndup(s, (size_t)(end - s));
}

/* rows as "a|b|c\n" */
static char *run_query(gc_db *db, const char *sql)
{
	sqlite3_stmt *st;
	char *out = calloc(1, 8192);
	size_t o = 0;

	if (!out || sqlite3_prepare_v2(gc_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK) {
		printf("# prepare: %s\n", sqlite3_errmsg(gc_db_handle(db)));
		free(out);
		return NULL;
	}
	while (sqlite3_step(st) == SQLITE_ROW && o < 8000) {
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const unsigned char *t = sqlite3_column_text(st, c);
			o += (size_t)snprintf(out + o, 8192 - o, "%s%s", c ? "|" : "",
					      t ? (const char *)t : "NULL");
		}
		o += (size_t)snprintf(out + o, 8192 - o, "\n");
	}
	sqlite3_finalize(st);
	return out;
}

static void check_query(int n, const char *expect)
{
	gc_db *db;
	char *sql, *got;

	if (!doc)
		SKIP("docs/database.md not found (run from the repository root)");
	sql = query_in(doc, n);
	CHECKF(sql, "docs/database.md has no query %d", n);
	db = build();
	CHECK(db);
	got = run_query(db, sql);
	free(sql);
	gc_db_close(db);
	unlink(dbpath);
	CHECK(got);
	if (strcmp(got, expect)) {
		printf("# query %d returned:\n%s# expected:\n%s", n, got, expect);
		free(got);
		CHECKF(0, "query %d differs from the hand-computed answer", n);
	}
	free(got);
}

static void test_q1_speedup_by_bandwidth(void)
{
	check_query(1, "resnet50|powersgd|" PS "|1.0|1|2.0\n"
		       "resnet50|powersgd|" PS "|1.0|2|1.25\n"
		       "resnet50|powersgd|" PS "|10.0|1|0.5\n"
		       "resnet50|signsgd||1.0|1|0.5\n");
}

static void test_q2_breakdown(void)
{
	/* t_comm: rank 0 0.8 x3, rank 1 0.9 x3 -> median 0.85; p95 = x[6] = 2.2 */
	check_query(2, "1|6|2.0|2.2|0.1|1.0|0.0|0.0|0.85|0.3|0.05\n");
}

static void test_q3_wins(void)
{
	check_query(3, "resnet50|powersgd|" PS "|1.0|4|32|1|2.0\n"
		       "resnet50|powersgd|" PS "|1.0|4|32|2|1.25\n");
}

static void test_q4_by_nccl(void)
{
	check_query(4, "2.9.9|535.104.05|powersgd|" PS "|1.0|2.0\n"
		       "2.9.9|535.104.05|powersgd|" PS "|10.0|0.5\n"
		       "2.9.9|535.104.05|signsgd||1.0|0.5\n"
		       "2.18.3|550.54.15|powersgd|" PS "|1.0|1.25\n");
}

static void test_q5_failed(void)
{
	check_query(5, "9|after|signsgd|1.0|timeout|point exceeded 300 s|...\nMPI_ABORT was invoked\n"
		       "6|before|signsgd|10.0|failed|rank 3: allgather deadline passed|...\n"
		       "MPI_ABORT was invoked\n");
}

/* README.md shows queries 1-4 as docs/database.md has them, word for word */
static void test_readme_same_queries(void)
{
	char *readme = NULL;
	size_t len;
	gc_err e;

	if (!doc || gc_read_file("README.md", &readme, &len, &e))
		SKIP("README.md or docs/database.md not found (run from the repository root)");
	for (int n = 1; n <= 4; n++) {
		char *a = query_in(doc, n), *b = query_in(readme, n);
		CHECKF(a && b && !strcmp(a, b), "query %d: README.md %s docs/database.md", n,
		       b ? "differs from" : "lacks it; see");
		free(a);
		free(b);
	}
	free(readme);
}

int main(void)
{
	size_t len;
	gc_err e;
	int fd;

	GCT_SUITE("db_queries");
	snprintf(dbpath, sizeof(dbpath), "/tmp/gcbench-test-q-XXXXXX");
	fd = mkstemp(dbpath);
	if (fd >= 0)
		close(fd);
	unlink(dbpath);
	if (gc_read_file("docs/database.md", &doc, &len, &e))
		doc = NULL;
	GCT_RUN(test_q1_speedup_by_bandwidth);
	GCT_RUN(test_q2_breakdown);
	GCT_RUN(test_q3_wins);
	GCT_RUN(test_q4_by_nccl);
	GCT_RUN(test_q5_failed);
	GCT_RUN(test_readme_same_queries);
	free(doc);
	return gct_finish();
}

/* tests/unit/test_db.c: schema, migrations, runs, ingest, resume keys, views. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "db/db.h"
#include "db/q_calibration.h"
#include "db/db_internal.h"   /* gc_db_handle, gc_db_exec: the fixtures' SQL */
#include "orchestrator/remote/env_probe.h"

static char dir[256];

static const char *tmp_path(const char *name)
{
	static char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static gc_db *fresh(const char *name)
{
	gc_db *db = NULL;
	gc_err e;
	char p[512];

	snprintf(p, sizeof(p), "%s", tmp_path(name));
	unlink(p);
	if (gc_db_open(p, 0, &db, &e)) {
		printf("# open %s: %s\n", p, e.msg);
		return NULL;
	}
	return db;
}

/* one integer from a query, or -999 */
static long long q_int(gc_db *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -999;

	if (sqlite3_prepare_v2(gc_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK)
		return -999;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static double q_dbl(gc_db *db, const char *sql)
{
	sqlite3_stmt *st;
	double v = -999;

	if (sqlite3_prepare_v2(gc_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK)
		return -999;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void test_migrate_empty(void)
{
	gc_db *db = fresh("m.db");

	CHECK(db);
	CHECK(gc_db_schema_version() >= 1);
	CHECK_EQ_INT(gc_db_user_version(db), gc_db_schema_version());
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM sqlite_master WHERE name IN ('environments',"
			   "'sweeps','runs','links','iterations','predictions','run_hosts','evals')"), 8);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'view'"), 13);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'run_stats'"), 1);
	CHECK_EQ_INT(q_int(db, "PRAGMA foreign_keys"), 1);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
	/* STRICT: a text in an INTEGER column is refused */
	CHECK(gc_db_exec(db, "INSERT INTO sweeps (name, spec_text, spec_hash, baseline, started) "
			 "VALUES ('x', '', 'h', 'syncsgd', 'yesterday')", NULL) == GC_E_DB);
	gc_db_close(db);
}

/* every older version (0 .. latest-1) migrates to the newest, keeping its rows */
static void test_migrate_each_older(void)
{
	int latest = gc_db_schema_version();

	for (int v = 0; v < latest; v++) {
		gc_db *db;
		gc_err e;
		char name[32];

		snprintf(name, sizeof(name), "old%d.db", v);
		unlink(tmp_path(name));
		CHECK(gc_db_open(tmp_path(name), GC_DB_NO_MIGRATE, &db, &e) == GC_OK);
		CHECK(gc_db_migrate(db, v, &e) == GC_OK);
		CHECK_EQ_INT(gc_db_user_version(db), v);
		gc_db_close(db);
		CHECKF(gc_db_open(tmp_path(name), 0, &db, &e) == GC_OK, "%s", e.msg);
		CHECK_EQ_INT(gc_db_user_version(db), latest);
		gc_db_close(db);
	}
}

/* a version-1 database with an ok run gets its statistics back-filled by migration 2 */
static void test_migrate_keeps_summary(void)
{
	gc_db *db;
	gc_err e;

	if (gc_db_schema_version() < 2)
		SKIP("no migration 2 in this schema");
	unlink(tmp_path("v1.db"));
	CHECK(gc_db_open(tmp_path("v1.db"), GC_DB_NO_MIGRATE, &db, &e) == GC_OK);
	CHECK(gc_db_migrate(db, 1, &e) == GC_OK);
	CHECK(gc_db_exec(db,
		"INSERT INTO sweeps (id, name, spec_text, spec_hash, baseline, started) "
		"VALUES (1, 's', '', 'h', 'syncsgd', 0);"
		"INSERT INTO runs (id, sweep_id, point_key, workload, model, method, world_size, "
		"nodes, batch, bw_cap_bps, backend, iterations, warmup, status, started) VALUES "
		"(1, 1, 'k', 'replay', 'resnet50', 'syncsgd', 2, 2, 8, 0, 'mpi', 2, 1, 'ok', 0);"
		"INSERT INTO iterations VALUES (1,0,0,1,0,0,0,0,0,0,0,0,9,0,0,0,0),"
		"(1,0,1,0,0,0,0,0,0,0,0,0,3,0,0,0,0),(1,1,0,1,0,0,0,0,0,0,0,0,9,0,0,0,0),"
		"(1,1,1,0,0,0,0,0,0,0,0,0,5,0,0,0,0)", &e) == GC_OK);
	CHECK_NEAR(q_dbl(db, "SELECT t_iter_median FROM run_summary"), 4.0, 1e-12);
	gc_db_close(db);
	CHECK(gc_db_open(tmp_path("v1.db"), 0, &db, &e) == GC_OK);
	CHECK_EQ_INT(gc_db_user_version(db), gc_db_schema_version());
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM run_stats"), 9);
	CHECK_NEAR(q_dbl(db, "SELECT t_iter_median FROM run_summary"), 4.0, 1e-12);
	CHECK_NEAR(q_dbl(db, "SELECT t_iter_p95 FROM run_summary"), 5.0, 1e-12);
	gc_db_close(db);
}

static void test_refuse_newer(void)
{
	gc_db *db = fresh("new.db");
	gc_err e;
	char sql[64];

	CHECK(db);
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", gc_db_schema_version() + 1);
	CHECK(gc_db_exec(db, sql, &e) == GC_OK);
	gc_db_close(db);
	CHECK(gc_db_open(tmp_path("new.db"), 0, &db, &e) == GC_E_DB);
	CHECK(db == NULL);
	CHECK_CONTAINS(e.msg, "newer than this gcbench knows");
	CHECK_CONTAINS(e.msg, "new.db");
}

/* A reader given an older schema reads a copy migrated in memory; the file keeps its
 * version and contents. */
static void test_readonly_old_copy(void)
{
	gc_db *db;
	gc_err e;

	unlink(tmp_path("ro.db"));
	CHECK(gc_db_open(tmp_path("ro.db"), GC_DB_NO_MIGRATE, &db, &e) == GC_OK);
	CHECK(gc_db_migrate(db, 1, &e) == GC_OK);
	CHECK(gc_db_exec(db, "INSERT INTO sweeps (name, spec_text, spec_hash, baseline, "
			 "started, status) VALUES ('old', '', 'h', 'syncsgd', 1, 'done')", &e)
	      == GC_OK);
	gc_db_close(db);
	CHECKF(gc_db_open(tmp_path("ro.db"), GC_DB_READONLY, &db, &e) == GC_OK, "%s", e.msg);
	CHECK(gc_db_user_version(db) == gc_db_schema_version());
	CHECK(q_int(db, "SELECT count(*) FROM sweeps WHERE name = 'old'") == 1);
	gc_db_close(db);
	/* the file is as it was: version 1 */
	CHECK(gc_db_open(tmp_path("ro.db"), GC_DB_NO_MIGRATE, &db, &e) == GC_OK);
	CHECK(gc_db_user_version(db) == 1);
	gc_db_close(db);
	/* an empty file reads as an empty database and stays empty */
	fclose(fopen(tmp_path("empty.db"), "w"));
	CHECKF(gc_db_open(tmp_path("empty.db"), GC_DB_READONLY, &db, &e) == GC_OK, "%s", e.msg);
	CHECK(q_int(db, "SELECT count(*) FROM sweeps") == 0);
	gc_db_close(db);
	CHECK(access(tmp_path("empty.db-wal"), F_OK) != 0);
	{
		FILE *f = fopen(tmp_path("empty.db"), "r");
		CHECK(f && fgetc(f) == EOF);
		if (f)
			fclose(f);
	}
}

/* A reader never creates the file (nor its -wal/-shm); GC_DB_EXISTING neither. */
static void test_readonly_missing(void)
{
	static const unsigned fl[] = { GC_DB_READONLY, GC_DB_EXISTING,
				       GC_DB_READONLY | GC_DB_NO_MIGRATE };
	gc_db *db = (gc_db *)1;
	gc_err e;

	for (size_t i = 0; i < sizeof(fl) / sizeof(fl[0]); i++) {
		unlink(tmp_path("typo.db"));
		CHECK(gc_db_open(tmp_path("typo.db"), fl[i], &db, &e) == GC_E_NOTFOUND);
		CHECK(db == NULL);
		CHECK_CONTAINS(e.msg, "no results database at");
		CHECK_CONTAINS(e.msg, "typo.db");
		CHECK(access(tmp_path("typo.db"), F_OK) != 0);
		CHECK(access(tmp_path("typo.db-wal"), F_OK) != 0);
	}
}

/* Read-only opens go through a "file:" URI: names with '?', '#', '%' and spaces
 * must still name the file, and reading changes nothing in it. */
static void test_readonly_uri_names(void)
{
	static const char *names[] = { "q?mode=rwc.db", "h#x.db", "p%41.db", "s p.db" };
	gc_db *db;
	gc_err e;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		db = fresh(names[i]);
		CHECK(db);
		gc_db_close(db);
		CHECK(access(tmp_path(names[i]), F_OK) == 0);
		CHECKF(gc_db_open(tmp_path(names[i]), GC_DB_READONLY, &db, &e) == GC_OK,
		       "%s: %s", names[i], e.msg);
		CHECK(gc_db_user_version(db) == gc_db_schema_version());
		CHECK(!gc_db_is_immutable(db));
		/* a write through a read-only handle fails */
		CHECK(gc_db_exec(db, "CREATE TABLE t (x)", &e) != GC_OK);
		gc_db_close(db);
	}
	/* "p%41.db" must not have been read as "pA.db" */
	CHECK(access(tmp_path("pA.db"), F_OK) != 0);
	CHECK(access(tmp_path("q"), F_OK) != 0);
}

/* A relative path opens read-only too (no "file://" authority confusion). */
static void test_readonly_relative(void)
{
	char cwd[1024];
	gc_db *db = fresh("rel.db");
	gc_err e;

	CHECK(db);
	gc_db_close(db);
	CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
	CHECK(chdir(dir) == 0);
	CHECKF(gc_db_open("rel.db", GC_DB_READONLY, &db, &e) == GC_OK, "%s", e.msg);
	gc_db_close(db);
	CHECK(chdir(cwd) == 0);
}

/* gc_db_writable: a file in a writable folder, a missing folder. */
static void test_writable(void)
{
	gc_db *db = fresh("w.db");

	CHECK(db);
	gc_db_close(db);
	CHECK(gc_db_writable(tmp_path("w.db")) == 1);
	CHECK(gc_db_writable("/nonexistent-gcbench-dir/x.db") == 0);
	CHECK(gc_db_writable(tmp_path("nope.db")) == 0);
}

static void test_not_sqlite(void)
{
	FILE *f = fopen(tmp_path("junk.db"), "w");
	gc_db *db;
	gc_err e;

	CHECK(f);
	fputs("this is not a database, just text long enough to have a header......\n", f);
	fclose(f);
	CHECK(gc_db_open(tmp_path("junk.db"), 0, &db, &e) == GC_E_DB);
	CHECK_CONTAINS(e.msg, "junk.db");
	CHECK_CONTAINS(e.msg, "is not a SQLite database");
	CHECK(gc_db_open(tmp_path("junk.db"), GC_DB_READONLY, &db, &e) == GC_E_DB);
	CHECK_CONTAINS(e.msg, "is not a SQLite database");
}

static void env_fill(struct gc_envinfo *i, const char *host, const char *nccl)
{
	memset(i, 0, sizeof(*i));
	strcpy(i->host, host);
	strcpy(i->nccl, nccl);
	strcpy(i->driver, "535.104.05");
	strcpy(i->kernel, "6.1.0-18-amd64");
}

static void test_env_get(void)
{
	gc_db *db = fresh("env.db");
	struct gc_envinfo a, b;
	int64_t ia, ia2, ib;
	gc_err e;

	CHECK(db);
	env_fill(&a, "n1", "2.18.3");
	env_fill(&b, "n1", "2.19.1");
	CHECK(gc_db_env_get(db, &a, &ia, &e) == GC_OK);
	CHECK(gc_db_env_get(db, &a, &ia2, &e) == GC_OK);
	CHECK(gc_db_env_get(db, &b, &ib, &e) == GC_OK);
	CHECK_EQ_INT(ia, ia2);
	CHECK(ia != ib);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM environments"), 2);
	CHECK_EQ_INT(q_int(db, "SELECT nccl_num FROM environments WHERE nccl = '2.18.3'"), 2018003);
	CHECK_EQ_INT(q_int(db, "SELECT driver_num FROM environments LIMIT 1"), 535104005);
	CHECK_EQ_INT(q_int(db, "SELECT kernel_num FROM environments LIMIT 1"), 6001000);
	gc_db_close(db);
}

static void test_version_num(void)
{
	CHECK_EQ_INT(gc_version_num("Open MPI v4.1.4"), 4001004);
	CHECK_EQ_INT(gc_version_num("12.2"), 12002000);
	CHECK_EQ_INT(gc_version_num(""), 0);
	CHECK_EQ_INT(gc_version_num("v"), 0);
	CHECK_EQ_INT(gc_version_num("3.40.1"), 3040001);
	CHECK(gc_version_num("2.9.10") > gc_version_num("2.9.9"));
	CHECK(gc_version_num("2.10.0") > gc_version_num("2.9.9"));
	CHECK_EQ_INT(gc_version_num("12345.1"), 999001000);
}

static void test_envinfo_probe(void)
{
	struct gc_envinfo i;
	char json[4096];

	gc_envinfo_probe(&i, "v1.2.3");
	CHECK(i.host[0] && i.kernel[0]);
	CHECK_STR(i.sqlite, sqlite3_libversion());
	CHECK_STR(i.gcbench, "v1.2.3");
	CHECK(gc_envinfo_json(&i, json, sizeof(json)) == GC_OK);
	CHECK_CONTAINS(json, "\"sqlite_num\":");
	CHECK(json[0] == '{' && json[strlen(json) - 1] == '}');
	/* quotes and control characters are escaped; a small buffer is refused */
	strcpy(i.tag, "a\"b\n");
	CHECK(gc_envinfo_json(&i, json, sizeof(json)) == GC_OK);
	CHECK_CONTAINS(json, "\"tag\":\"a\\\"b\\u000a\"");
	CHECK(gc_envinfo_json(&i, json, 40) == GC_E_INVAL);
}

static struct gc_db_run run_of(int64_t sweep, const char *key, const char *method)
{
	struct gc_db_run r = {
		.sweep_id = sweep, .point_key = key, .workload = "replay", .model = "resnet50",
		.method = method, .params = "", .world_size = 4, .nodes = 4, .batch = 32,
		.bw_cap_bps = 1000000000ull, .backend = "mpi", .compute_scale = 1,
		.iterations = 4, .warmup = 1, .repeat = 0,
	};
	return r;
}

/* records for `ranks` ranks: iteration i of rank r has t_iter = base + i + 10 r */
static gc_rc write_recs(const char *path, int rank, int iters, double base, int complete)
{
	struct gc_iter_rec *v = calloc((size_t)iters, sizeof(*v));
	gc_err e;
	gc_rc rc;

	for (int i = 0; i < iters; i++) {
		v[i].rank = (uint32_t)rank;
		v[i].iter = (uint32_t)i;
		v[i].warmup = i == 0;
		v[i].t_iter = base + i + 10 * rank;
		v[i].t_comm = 0.5;
		v[i].bytes_sent = 1000u * (unsigned)i;
	}
	rc = gc_rec_write(path, "{}", v, (size_t)iters, &e);
	free(v);
	if (!rc && !complete)
		rc = truncate(path, 12 + 2 + (off_t)iters * 128) ? GC_E_IO : GC_OK;
	return rc;
}

static void test_ingest_and_summary(void)
{
	gc_db *db = fresh("ing.db");
	struct gc_db_run r;
	int64_t sw, run;
	char p0[512], p1[512];
	const char *paths[2] = { p0, p1 };
	size_t rows;
	gc_err e;

	CHECK(db);
	CHECK(gc_db_sweep_begin(db, "t", "spec", "h1", "syncsgd", &sw, &e) == GC_OK);
	r = run_of(sw, "k1", "syncsgd");
	CHECK(gc_db_run_begin(db, &r, &run, &e) == GC_OK);
	snprintf(p0, sizeof(p0), "%s", tmp_path("r0.rec"));
	snprintf(p1, sizeof(p1), "%s", tmp_path("r1.rec"));
	CHECK(write_recs(p0, 0, 4, 1.0, 1) == GC_OK);
	CHECK(write_recs(p1, 1, 4, 1.0, 1) == GC_OK);
	CHECKF(gc_db_ingest_files(db, run, paths, 2, &rows, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(rows, 8);
	/* not ok yet: the summary ignores it */
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM run_summary"), 0);
	CHECK(gc_db_run_end(db, run, GC_RUN_OK, NULL, NULL, &e) == GC_OK);
	/* post-warmup t_iter: rank 0: 2,3,4; rank 1: 12,13,14 -> sorted 2,3,4,12,13,14:
	 * median (4+12)/2 = 8, p95 = x[ceil(5.7)] = x[6] = 14 */
	CHECK_NEAR(q_dbl(db, "SELECT t_iter_median FROM run_summary"), 8.0, 1e-12);
	CHECK_NEAR(q_dbl(db, "SELECT t_iter_p95 FROM run_summary"), 14.0, 1e-12);
	CHECK_NEAR(q_dbl(db, "SELECT t_comm_median FROM run_summary"), 0.5, 1e-12);
	CHECK_EQ_INT(q_int(db, "SELECT samples FROM run_summary"), 6);
	/* bytes 1000,2000,3000 twice: median 2000 */
	CHECK_NEAR(q_dbl(db, "SELECT bytes_sent_median FROM run_summary"), 2000, 1e-9);
	gc_db_close(db);
}

static void test_ingest_refuses_incomplete(void)
{
	gc_db *db = fresh("inc.db");
	struct gc_db_run r;
	int64_t sw, run;
	char p0[512], p1[512];
	const char *paths[2] = { p0, p1 };
	size_t rows = 99;
	gc_err e;

	CHECK(db);
	CHECK(gc_db_sweep_begin(db, "t", "spec", "h1", "syncsgd", &sw, &e) == GC_OK);
	r = run_of(sw, "k1", "syncsgd");
	CHECK(gc_db_run_begin(db, &r, &run, &e) == GC_OK);
	snprintf(p0, sizeof(p0), "%s", tmp_path("c0.rec"));
	snprintf(p1, sizeof(p1), "%s", tmp_path("c1.rec"));
	CHECK(write_recs(p0, 0, 4, 1.0, 1) == GC_OK);
	CHECK(write_recs(p1, 1, 4, 1.0, 0) == GC_OK);
	CHECK(gc_db_ingest_files(db, run, paths, 2, &rows, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "c1.rec");
	CHECK_CONTAINS(e.msg, "incomplete");
	CHECK_EQ_INT(rows, 0);
	/* all or nothing: rank 0's rows were rolled back */
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM iterations"), 0);
	/* unknown run */
	CHECK(gc_db_ingest_files(db, run + 100, paths, 1, NULL, &e) == GC_E_NOTFOUND);
	gc_db_close(db);
}

/* write raw bytes to path */
static int put_file(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fwrite(b, 1, n, f) == n;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -1;
}

/* frame of a record file: magic, header length, header (odd length: records start
 * unaligned), n records with iter i, trailer */
static unsigned char *rec_image(size_t n, size_t *len)
{
	const char *hdr = "{\"a\":1}";
	uint32_t hl = (uint32_t)strlen(hdr);
	uint64_t tr[2] = { UINT64_MAX, n };
	unsigned char *b;
	struct gc_iter_rec r;

	*len = 12 + hl + n * sizeof(r) + 16;
	if (!(b = calloc(1, *len)))
		return NULL;
	memcpy(b, "GCBREC1\n", 8);
	memcpy(b + 8, &hl, 4);
	memcpy(b + 12, hdr, hl);
	for (size_t i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		r.rank = 3;
		r.iter = (uint32_t)i;
		r.t_iter = (double)i;
		r.bytes_recv = i;
		memcpy(b + 12 + hl + i * sizeof(r), &r, sizeof(r));
	}
	memcpy(b + *len - 16, tr, 16);
	return b;
}

/* Files are streamed in chunks: a count that crosses chunk and batch boundaries, an
 * unaligned record start, and every malformed frame refused with its cause. */
static void test_ingest_stream_frames(void)
{
	const size_t n = 1237;       /* 2 chunks of 512 + 213: batches and a remainder */
	gc_db *db = fresh("stream.db");
	struct gc_db_run r;
	int64_t sw, run;
	char p[512];
	const char *paths[1] = { p };
	size_t len, rows = 0;
	unsigned char *img = rec_image(n, &len);
	uint64_t bad = 7;
	gc_err e;

	CHECK(db && img);
	CHECK(gc_db_sweep_begin(db, "t", "spec", "h1", "syncsgd", &sw, &e) == GC_OK);
	r = run_of(sw, "k1", "syncsgd");
	CHECK(gc_db_run_begin(db, &r, &run, &e) == GC_OK);
	snprintf(p, sizeof(p), "%s", tmp_path("s.rec"));
	CHECK(put_file(p, img, len) == 0);
	CHECKF(gc_db_ingest_files(db, run, paths, 1, &rows, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(rows, n);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM iterations WHERE rank = 3"), n);
	CHECK_EQ_INT(q_int(db, "SELECT sum(iter) FROM iterations"), n * (n - 1) / 2);
	CHECK_EQ_INT(q_int(db, "SELECT sum(t_iter = iter AND bytes_recv = iter) FROM iterations"), n);
	/* the same rows again: primary key conflict, named with its record */
	CHECK(gc_db_ingest_files(db, run, paths, 1, &rows, &e) == GC_E_DB);
	CHECK_CONTAINS(e.msg, "rank 3, iteration 0");
	/* trailer count off by one */
	memcpy(img + len - 8, &bad, 8);
	CHECK(put_file(p, img, len) == 0);
	CHECK(gc_db_ingest_files(db, run, paths, 1, &rows, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "trailer count does not match");
	/* header length beyond the file */
	memset(img + 8, 0xff, 3);
	CHECK(put_file(p, img, len) == 0);
	CHECK(gc_db_ingest_files(db, run, paths, 1, &rows, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "header length");
	/* bad magic, too short, missing */
	CHECK(put_file(p, "GCBREC2\nxxxxxxxx", 16) == 0);
	CHECK(gc_db_ingest_files(db, run, paths, 1, &rows, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "bad magic");
	CHECK(put_file(p, "GC", 2) == 0);
	CHECK(gc_db_ingest_files(db, run, paths, 1, &rows, &e) == GC_E_FORMAT);
	unlink(p);
	CHECK(gc_db_ingest_files(db, run, paths, 1, &rows, &e) == GC_E_NOTFOUND);
	CHECK_CONTAINS(e.msg, "s.rec");
	CHECK_EQ_INT(rows, 0);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM iterations"), n);
	free(img);
	gc_db_close(db);
}

static void test_run_end_and_tail(void)
{
	gc_db *db = fresh("end.db");
	struct gc_db_run r;
	int64_t sw, run;
	char *tail = malloc(20000);
	gc_err e;

	CHECK(db && tail);
	memset(tail, 'x', 19999);
	tail[19999] = 0;
	tail[19998] = 'Z';
	CHECK(gc_db_sweep_begin(db, "t", "spec", "h1", "syncsgd", &sw, &e) == GC_OK);
	r = run_of(sw, "k1", "syncsgd");
	CHECK(gc_db_run_begin(db, &r, &run, &e) == GC_OK);
	CHECK(gc_db_run_end(db, run, GC_RUN_FAILED, "rank 2 exited 1", tail, &e) == GC_OK);
	free(tail);
	CHECK_EQ_INT(q_int(db, "SELECT length(stderr_tail) FROM runs"), 8192);
	CHECK_EQ_INT(q_int(db, "SELECT substr(stderr_tail, -1) = 'Z' FROM runs"), 1);
	CHECK_EQ_INT(q_int(db, "SELECT finished IS NOT NULL FROM runs"), 1);
	CHECK(gc_db_run_end(db, run + 5, GC_RUN_OK, NULL, NULL, &e) == GC_E_NOTFOUND);
	r.world_size = 0;  /* CHECK constraint */
	CHECK(gc_db_run_begin(db, &r, &run, &e) == GC_E_DB);
	CHECK(gc_db_sweep_end(db, sw, "finished", &e) == GC_E_INVAL);
	CHECK(gc_db_sweep_end(db, sw, "done", &e) == GC_OK);
	gc_db_close(db);
}

/* gc_db_run_set_network: a member added to network_json; a bad key, a value that is
 * not JSON and an unknown run refused, the stored record unchanged */
static void test_run_set_network(void)
{
	gc_db *db = fresh("net.db");
	struct gc_db_run r;
	int64_t sw, run;
	gc_err e;

	CHECK(db);
	CHECK(gc_db_sweep_begin(db, "t", "spec", "h1", "syncsgd", &sw, &e) == GC_OK);
	r = run_of(sw, "k1", "syncsgd");
	r.network_json = "{\"slow\":{\"n3\":0.5}}";
	CHECK(gc_db_run_begin(db, &r, &run, &e) == GC_OK);
	CHECK(gc_db_run_set_network(db, run, "trace", "{\"name\":\"sq.txt\",\"hosts\":{\"n1\":[{\"window\":0}]}}",
				    &e) == GC_OK);
	CHECK_EQ_INT(q_int(db, "SELECT json_extract(network_json, '$.slow.n3') = 0.5 AND "
			   "json_extract(network_json, '$.trace.hosts.n1[0].window') = 0 FROM runs"), 1);
	CHECK(gc_db_run_set_network(db, run, "trace", "{\"name\":", &e) == GC_E_FORMAT);
	CHECK(gc_db_run_set_network(db, run, "trace", "", &e) == GC_E_FORMAT);
	CHECK(gc_db_run_set_network(db, run, "a.b", "1", &e) == GC_E_INVAL);
	CHECK(gc_db_run_set_network(db, run, "", "1", &e) == GC_E_INVAL);
	CHECK(gc_db_run_set_network(db, run, "trace", NULL, &e) == GC_E_INVAL);
	CHECK(gc_db_run_set_network(db, run + 7, "trace", "1", &e) == GC_E_FORMAT);
	CHECK_EQ_INT(q_int(db, "SELECT json_extract(network_json, '$.trace.name') = 'sq.txt' FROM runs"), 1);
	gc_db_close(db);
}

static void test_done_keys_and_interrupted(void)
{
	gc_db *db = fresh("res.db");
	struct gc_db_run r;
	struct gc_strlist done;
	int64_t sw, sw2, a, b, c;
	int n;
	gc_err e;

	CHECK(db);
	CHECK(gc_db_sweep_begin(db, "t", "spec", "hA", "syncsgd", &sw, &e) == GC_OK);
	r = run_of(sw, "kb", "syncsgd");
	CHECK(gc_db_run_begin(db, &r, &a, &e) == GC_OK);
	r.point_key = "ka";
	CHECK(gc_db_run_begin(db, &r, &b, &e) == GC_OK);
	r.point_key = "kc";
	CHECK(gc_db_run_begin(db, &r, &c, &e) == GC_OK);
	CHECK(gc_db_run_end(db, a, GC_RUN_OK, NULL, NULL, &e) == GC_OK);
	CHECK(gc_db_run_end(db, b, GC_RUN_OK, NULL, NULL, &e) == GC_OK);
	/* another spec's ok run does not count */
	CHECK(gc_db_sweep_begin(db, "t", "spec2", "hB", "syncsgd", &sw2, &e) == GC_OK);
	r = run_of(sw2, "kc", "syncsgd");
	CHECK(gc_db_run_begin(db, &r, &c, &e) == GC_OK);
	CHECK(gc_db_run_end(db, c, GC_RUN_OK, NULL, NULL, &e) == GC_OK);
	CHECK(gc_db_done_keys(db, sw, &done, &e) == GC_OK);
	CHECK_EQ_INT(done.n, 2);
	CHECK_STR(done.v[0], "ka");
	CHECK(gc_strlist_has(&done, "kb") && !gc_strlist_has(&done, "kc"));
	gc_strlist_release(&done);
	/* our own sweep is alive: not interrupted without force */
	CHECK(gc_db_mark_interrupted(db, "hA", 0, &n, &e) == GC_OK);
	CHECK_EQ_INT(n, 0);
	CHECK(gc_db_exec(db, "UPDATE sweeps SET owner_pid = 0", &e) == GC_OK);
	CHECK(gc_db_mark_interrupted(db, "hA", 0, &n, &e) == GC_OK);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM runs WHERE status = 'interrupted' AND "
			   "point_key = 'kc'"), 1);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM sweeps WHERE status = 'interrupted'"), 1);
	gc_db_close(db);
}

static void test_links_predictions(void)
{
	gc_db *db = fresh("lk.db");
	struct gc_db_run r;
	struct gc_db_prediction p = { "m1", 0.25, 0.1, -1, -1, 0.12, 0.03 };
	int64_t sw, run;
	gc_err e;

	CHECK(db);
	CHECK(gc_db_sweep_begin(db, "t", "spec", "h", "syncsgd", &sw, &e) == GC_OK);
	r = run_of(sw, "k", "syncsgd");
	CHECK(gc_db_run_begin(db, &r, &run, &e) == GC_OK);
	CHECK(gc_db_link_add(db, run, "n1", "n2", 1000000000ull, 9.5e8, 0.0002, &e) == GC_OK);
	CHECK(gc_db_link_add(db, run, "n2", "n1", 1000000000ull, -1, -1, &e) == GC_OK);
	CHECK(gc_db_prediction_put(db, run, &p, &e) == GC_OK);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM links WHERE goodput_bps IS NULL"), 1);
	CHECK_NEAR(q_dbl(db, "SELECT goodput_bps / cap_bps FROM links WHERE src = 'n1'"), 0.95, 1e-12);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM predictions WHERE t_encode IS NULL"), 1);
	/* foreign key: a link of a missing run is refused */
	CHECK(gc_db_link_add(db, run + 9, "a", "b", 1, 1, 1, &e) == GC_E_DB);
	gc_db_close(db);
}

/* placement and the SLURM job land on their run; the statements are reused */
static void test_run_placement_slurm(void)
{
	gc_db *db = fresh("pl.db");
	struct gc_db_run r;
	int64_t sw, a, b;
	gc_err e;

	CHECK(db);
	CHECK(gc_db_sweep_begin(db, "t", "spec", "h", "syncsgd", &sw, &e) == GC_OK);
	r = run_of(sw, "ka", "syncsgd");
	CHECK(gc_db_run_begin(db, &r, &a, &e) == GC_OK);
	r.point_key = "kb";
	CHECK(gc_db_run_begin(db, &r, &b, &e) == GC_OK);
	CHECK(gc_db_run_set_placement(db, a, 2, "n1:2,n2:2", &e) == GC_OK);
	CHECK(gc_db_run_set_placement(db, b, -1, NULL, &e) == GC_OK);
	CHECK(gc_db_run_set_slurm(db, a, "4711", "gpu", "n[1-2]", &e) == GC_OK);
	CHECK(gc_db_run_set_slurm(db, b, NULL, NULL, NULL, &e) == GC_OK);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM runs WHERE ranks_per_node = 2 AND "
			   "placement = 'n1:2,n2:2' AND slurm_job = '4711' AND "
			   "slurm_partition = 'gpu' AND slurm_nodes = 'n[1-2]'"), 1);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM runs WHERE ranks_per_node = 0 AND "
			   "placement = '' AND slurm_job = '' AND slurm_partition = '' AND "
			   "slurm_nodes = ''"), 1);
	gc_db_close(db);
}

/* An earlier probe is found only for the same pairs, caps, delay, hosts' environments,
 * without trace or background load, young enough; the newest such probe wins. */
static void test_calibration_find(void)
{
	gc_db *db = fresh("cal.db");
	struct gc_db_run r;
	struct gc_db_cal_pair q[2] = { { "n1", "n2", 1000000000ull, 0, 0 },
				       { "n2", "n1", 1000000000ull, 0, 0 } };
	int64_t sw, old, mid, cur, found = -1;
	gc_err e;

	CHECK(db);
	CHECK(gc_db_sweep_begin(db, "t", "spec", "h", "syncsgd", &sw, &e) == GC_OK);
	CHECK(gc_db_exec(db, "INSERT INTO environments (id, host, kernel, first_seen) VALUES "
			 "(1, 'n1', '6.1', 0), (2, 'n2', '6.1', 0), (3, 'n2', '6.2', 0)", &e) == GC_OK);
	r = run_of(sw, "a", "syncsgd");
	CHECK(gc_db_run_begin(db, &r, &old, &e) == GC_OK);
	CHECK(gc_db_run_begin(db, &r, &mid, &e) == GC_OK);
	CHECK(gc_db_run_begin(db, &r, &cur, &e) == GC_OK);
	for (int64_t id = old; id <= cur; id++) {
		CHECK(gc_db_run_add_host(db, id, "n1", 1, &e) == GC_OK);
		CHECK(gc_db_run_add_host(db, id, "n2", 2, &e) == GC_OK);
	}
	CHECK(gc_db_exec(db, "UPDATE runs SET started = 1000 + id", &e) == GC_OK);
	CHECK(gc_db_link_add(db, old, "n1", "n2", 1000000000ull, 9e8, 1e-4, &e) == GC_OK);
	CHECK(gc_db_link_add(db, old, "n2", "n1", 1000000000ull, 8e8, 2e-4, &e) == GC_OK);
	CHECK(gc_db_link_add(db, mid, "n1", "n2", 1000000000ull, 9.5e8, 3e-4, &e) == GC_OK);
	CHECK(gc_db_run_set_calibration(db, old, old, &e) == GC_OK);
	CHECK(gc_db_run_set_calibration(db, mid, mid, &e) == GC_OK);

	/* one pair: the newest probe; both pairs: only old measured n2 -> n1 */
	CHECK(gc_db_calibration_find(db, cur, q, 1, 0, &found, &e) == GC_OK);
	CHECK(found == mid);
	CHECK_NEAR(q[0].bps, 9.5e8, 1);
	CHECK(gc_db_calibration_find(db, cur, q, 2, 0, &found, &e) == GC_OK);
	CHECK(found == old);
	CHECK_NEAR(q[1].bps, 8e8, 1);
	CHECK_NEAR(q[1].rtt, 2e-4, 1e-12);
	/* too old: started before not_before */
	CHECK(gc_db_calibration_find(db, cur, q, 2, 1000.0 + (double)old + 0.5, &found, &e) == GC_OK);
	CHECK(found == 0);
	/* another cap, another delay */
	q[0].cap_bps = 2000000000ull;
	CHECK(gc_db_calibration_find(db, cur, q, 1, 0, &found, &e) == GC_OK && found == 0);
	q[0].cap_bps = 1000000000ull;
	CHECK(gc_db_exec(db, "UPDATE runs SET latency_s = 0.001 WHERE id = (SELECT max(id) FROM runs)", &e) == GC_OK);
	CHECK(gc_db_calibration_find(db, cur, q, 1, 0, &found, &e) == GC_OK && found == 0);
	CHECK(gc_db_exec(db, "UPDATE runs SET latency_s = 0", &e) == GC_OK);
	/* a run that reused a probe did not probe: it is never the one referenced */
	CHECK(gc_db_run_set_calibration(db, mid, old, &e) == GC_OK);
	CHECK(gc_db_calibration_find(db, cur, q, 1, 0, &found, &e) == GC_OK && found == old);
	CHECK(gc_db_run_set_calibration(db, mid, mid, &e) == GC_OK);
	/* n2's environment changed (a new kernel): nothing to reuse */
	CHECK(gc_db_exec(db, "UPDATE run_hosts SET env_id = 3 WHERE node = 'n2' AND run_id = "
			 "(SELECT max(id) FROM runs)", &e) == GC_OK);
	CHECK(gc_db_calibration_find(db, cur, q, 1, 0, &found, &e) == GC_OK && found == 0);
	CHECK(gc_db_exec(db, "UPDATE run_hosts SET env_id = 2 WHERE node = 'n2'", &e) == GC_OK);
	/* a trace in the earlier run, or in this one */
	CHECK(gc_db_run_set_network(db, mid, "trace", "{\"name\":\"sq\"}", &e) == GC_OK);
	CHECK(gc_db_calibration_find(db, cur, q, 1, 0, &found, &e) == GC_OK && found == old);
	CHECK(gc_db_run_set_network(db, cur, "background", "{\"flows\":1}", &e) == GC_OK);
	CHECK(gc_db_calibration_find(db, cur, q, 1, 0, &found, &e) == GC_OK && found == 0);
	gc_db_close(db);
}

/* run_phases and run_overhead: overhead = wall - rank 0's iterations, phases in their
 * columns, launch less the iterations as ranks_s, setup apart; bad phases refused */
static void test_run_phases(void)
{
	gc_db *db = fresh("ph.db");
	struct gc_db_run r;
	struct gc_db_overhead o;
	int64_t sw, a, b;
	gc_err e;

	CHECK(db);
	CHECK(gc_db_sweep_begin(db, "t", "spec", "h", "syncsgd", &sw, &e) == GC_OK);
	r = run_of(sw, "ka", "syncsgd");
	CHECK(gc_db_run_begin(db, &r, &a, &e) == GC_OK);
	r.point_key = "kb";
	CHECK(gc_db_run_begin(db, &r, &b, &e) == GC_OK);
	CHECK(gc_db_run_phase_add(db, a, "shape", 0.25, &e) == GC_OK);
	CHECK(gc_db_run_phase_add(db, a, "shape", 0.5, &e) == GC_OK);   /* accumulates */
	CHECK(gc_db_run_phase_add(db, a, "launch", 3.5, &e) == GC_OK);
	CHECK(gc_db_run_phase_add(db, a, "calibrate", 0, &e) == GC_OK);
	CHECK(gc_db_run_phase_add(db, a, "setup_check", 1.5, &e) == GC_OK);
	CHECK(gc_db_run_phase_add(db, b, "collect", 0.125, &e) == GC_OK);
	CHECK(gc_db_run_phase_add(db, a, "nap", 1, &e) == GC_E_INVAL);
	CHECK(strstr(e.msg, "'nap'") != NULL);
	CHECK(gc_db_run_phase_add(db, a, "setup_", 1, &e) == GC_E_INVAL);
	CHECK(gc_db_run_phase_add(db, a, "setup_X;", 1, &e) == GC_E_INVAL);
	CHECK(gc_db_run_phase_add(db, a, NULL, 1, &e) == GC_E_INVAL);
	CHECK(gc_db_run_phase_add(db, a, "shape", -1, &e) == GC_E_INVAL);
	CHECK(gc_db_run_phase_add(db, a, "shape", NAN, &e) == GC_E_INVAL);
	CHECK(gc_db_run_phase_add(db, a + 99, "shape", 1, &e) == GC_E_DB);   /* no such run */
	CHECK(gc_db_run_set_calibration(db, a, a, &e) == GC_OK);
	CHECK(gc_db_run_set_calibration(db, b, a, &e) == GC_OK);
	/* rank 0 iterates 1 + 2 s, rank 1's rows do not count; a runs 5 s, b 4 s */
	CHECK(gc_db_exec(db, "INSERT INTO iterations (run_id, rank, iter, warmup, t_forward, "
			 "t_backward, t_encode, t_decode, t_comm, t_exposed, t_optimizer, t_iter, "
			 "t_iter_gpu, loss, bytes_sent, bytes_recv) SELECT id, k.rank, k.it, k.it = 0, "
			 "0, 0, 0, 0, 0, 0, 0, k.t, 0, 0, 0, 0 FROM runs, (SELECT 0 AS rank, 0 AS it, "
			 "1.0 AS t UNION ALL SELECT 0, 1, 2.0 UNION ALL SELECT 1, 0, 7.0) k", &e) == GC_OK);
	CHECK(gc_db_exec(db, "UPDATE runs SET status = 'ok', finished = started + "
			 "CASE point_key WHEN 'ka' THEN 5 ELSE 4 END", &e) == GC_OK);
	CHECK_NEAR(q_dbl(db, "SELECT overhead_s FROM run_overhead WHERE run_id = (SELECT id "
			 "FROM runs WHERE point_key = 'ka')"), 2.0, 1e-9);
	CHECK_NEAR(q_dbl(db, "SELECT shape_s FROM run_overhead WHERE run_id = (SELECT id FROM "
			 "runs WHERE point_key = 'ka')"), 0.75, 1e-12);
	CHECK_NEAR(q_dbl(db, "SELECT ranks_s FROM run_overhead WHERE run_id = (SELECT id FROM "
			 "runs WHERE point_key = 'ka')"), 0.5, 1e-9);
	CHECK_NEAR(q_dbl(db, "SELECT setup_s FROM run_overhead WHERE run_id = (SELECT id FROM "
			 "runs WHERE point_key = 'ka')"), 1.5, 1e-12);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM run_overhead WHERE setup_s IS NULL AND "
			   "shape_s IS NULL AND collect_s = 0.125"), 1);
	CHECK_EQ_INT(q_int(db, "SELECT count(*) FROM runs WHERE calibration_run = "
			   "(SELECT id FROM runs WHERE point_key = 'ka')"), 2);
	CHECK(gc_db_sweep_overhead(db, sw, &o, &e) == GC_OK);
	CHECK_EQ_INT(o.n, 2);
	CHECK_NEAR(o.overhead_s, 1.5, 1e-9);     /* (2 + 1) / 2 */
	CHECK_NEAR(o.wall_s, 4.5, 1e-9);
	CHECK_NEAR(o.phase_s[2], 0.75, 1e-12);   /* shape: only a has it */
	CHECK(o.phase_s[0] < 0);                  /* reap: never timed */
	CHECK(gc_db_sweep_overhead(db, sw + 5, &o, &e) == GC_OK && o.n == 0);
	gc_db_close(db);
}

int main(void)
{
	char tmpl[] = "/tmp/gcbench-test-db.XXXXXX";

	GCT_SUITE("db");
	if (!mkdtemp(tmpl)) {
		printf("FAIL db/setup: mkdtemp failed\n");
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s", tmpl);
	GCT_RUN(test_migrate_empty);
	GCT_RUN(test_migrate_each_older);
	GCT_RUN(test_migrate_keeps_summary);
	GCT_RUN(test_refuse_newer);
	GCT_RUN(test_readonly_old_copy);
	GCT_RUN(test_readonly_missing);
	GCT_RUN(test_readonly_uri_names);
	GCT_RUN(test_readonly_relative);
	GCT_RUN(test_writable);
	GCT_RUN(test_not_sqlite);
	GCT_RUN(test_env_get);
	GCT_RUN(test_version_num);
	GCT_RUN(test_envinfo_probe);
	GCT_RUN(test_ingest_and_summary);
	GCT_RUN(test_ingest_refuses_incomplete);
	GCT_RUN(test_ingest_stream_frames);
	GCT_RUN(test_run_end_and_tail);
	GCT_RUN(test_run_set_network);
	GCT_RUN(test_done_keys_and_interrupted);
	GCT_RUN(test_links_predictions);
	GCT_RUN(test_run_placement_slurm);
	GCT_RUN(test_run_phases);
	GCT_RUN(test_calibration_find);
	gct_rmtree(dir);
	return gct_finish();
}

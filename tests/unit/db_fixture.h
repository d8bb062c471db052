/* tests/unit/db_fixture.h: what the db/ query tests share to build a small database by
 * hand: a resnet50 run on 4 workers at batch 32 (MPI, 3 iterations after 1 warmup), its
 * records ingested when it is ok, and an environment by its NCCL and driver versions.
 * Each returns the new row's id, or -1 after printing why as a '#' line. */
#ifndef GC_TESTS_DB_FIXTURE_H
#define GC_TESTS_DB_FIXTURE_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/db_internal.h"   /* gc_db_handle */

static inline int64_t fx_run(gc_db *db, int64_t sweep, int64_t env, const char *method,
			     const char *params, uint64_t bw, struct gc_iter_rec *recs, size_t n,
			     enum gc_run_status st, const char *err, const char *log)
{
	struct gc_db_run r = {
		.sweep_id = sweep, .point_key = method, .workload = "replay", .model = "resnet50",
		.method = method, .params = params, .world_size = 4, .nodes = 4, .batch = 32,
		.bw_cap_bps = bw, .backend = "mpi", .compute_scale = 1, .iterations = 3,
		.warmup = 1, .env_id = env,
	};
	gc_rec_file f = { .recs = recs, .n = n, .complete = 1 };
	int64_t id = -1;
	gc_err e;

	if (gc_db_run_begin(db, &r, &id, &e) ||
	    (st == GC_RUN_OK && gc_db_ingest(db, id, &f, &e)) ||
	    gc_db_run_end(db, id, st, err, log, &e)) {
		printf("# add_run: %s\n", e.msg);
		return -1;
	}
	return id;
}

static inline int64_t fx_env(gc_db *db, const char *nccl, const char *driver)
{
	struct gc_envinfo i;
	int64_t id = -1;
	gc_err e;

	memset(&i, 0, sizeof(i));
	strcpy(i.host, "n1");
	strcpy(i.nccl, nccl);
	strcpy(i.driver, driver);
	if (gc_db_env_get(db, &i, &id, &e))
		printf("# env: %s\n", e.msg);
	return id;
}

/* A query's rows as "a|b|c\n" (NULL as NULL), at most about 4000 bytes; NULL after
 * printing why. The caller frees it. */
static inline char *fx_rows(gc_db *db, const char *sql)
{
	sqlite3_stmt *st;
	char *out = calloc(1, 4096);
	size_t o = 0;

	if (!out || sqlite3_prepare_v2(gc_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK) {
		printf("# prepare: %s\n", sqlite3_errmsg(gc_db_handle(db)));
		free(out);
		return NULL;
	}
	while (sqlite3_step(st) == SQLITE_ROW && o < 4000)
		for (int c = 0; c < sqlite3_column_count(st); c++) {
			const unsigned char *t = sqlite3_column_text(st, c);
			o += (size_t)snprintf(out + o, 4096 - o, "%s%s%s", c ? "|" : "",
					      t ? (const char *)t : "NULL",
					      c + 1 == sqlite3_column_count(st) ? "\n" : "");
		}
	sqlite3_finalize(st);
	return out;
}

/* The rows of sql are exactly want; both printed when they differ. */
#define CHECK_ROWS(db, sql, want) do { char *_g = fx_rows(db, sql); CHECK(_g); \
	if (_g && strcmp(_g, want)) printf("# got:\n%s# want:\n%s", _g, want); \
	int _ok = _g && !strcmp(_g, want); free(_g); CHECKF(_ok, "%s", sql); } while (0)

#endif

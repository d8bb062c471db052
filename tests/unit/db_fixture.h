/* tests/unit/db_fixture.h: what the db/ query tests share to build a small database by
 * hand: a resnet50 run on 4 workers at batch 32 (MPI, 3 iterations after 1 warmup), its
 * records ingested when it is ok, and an environment by its NCCL and driver versions.
 * Each returns the new row's id, or -1 after printing why as a '#' line. */
#ifndef GC_TESTS_DB_FIXTURE_H
#define GC_TESTS_DB_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "db/db.h"

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

#endif

/* tests/unit/test_db_accuracy.c: validation records in the database (migration 5):
 * ingest into evals, the views run_evals, run_time_to_target and
 * time_to_target_speedup against hand-computed answers, malformed validation records,
 * and records of older workers (no validation).
 *
 * The sweep: target accuracy 0.9, baseline syncsgd, 2 ranks, iterations 0..9 with
 * iteration 0 warmup; rank 0 validates 3 samples, rank 1 one sample:
 *   syncsgd:  t_iter 1.0 (rank 1's warmup iteration 1.2); at iter 4 the ranks have
 *             0.6 and 1.0 -> (0.6 * 3 + 1.0) / 4 = 0.7; at iter 9 1.0 and 1.0 -> reached:
 *             10 iterations, 10.2 s (the slower rank, warmup counted)
 *   powersgd: t_iter 0.5; 0.95 at iter 4 -> 5 iterations, 2.5 s; iteration speedup
 *             1.0 / 0.5 = 2, time-to-target speedup 10.2 / 2.5 = 4.08
 *   topk:     t_iter 0.8; 0.5 at both -> never (NULL), speedup NULL, missed 1
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "db/db.h"
#include "db/db_internal.h"   /* gc_db_handle, gc_db_exec: the fixtures' SQL */
#include "db_fixture.h"

static char dbpath[64];

static void eval_at(struct gc_iter_rec *r, uint32_t n, double acc, double loss)
{
	r->flags = GC_REC_F_EVAL | n << 8;
	r->val_acc = (float)acc;
	r->val_loss = loss;
	r->t_eval = 0.01f;
}

/* acc[rank][k]: accuracy at the k-th evaluation (iterations 4 and 9) */
static int64_t add_run(gc_db *db, int64_t sweep, const char *method, double t,
		       const double acc[2][2])
{
	struct gc_db_run r = {
		.sweep_id = sweep, .point_key = method, .workload = "train:mlp", .model = "mlp",
		.method = method, .params = "", .world_size = 2, .nodes = 2, .batch = 16,
		.bw_cap_bps = 1000000000ull, .backend = "mpi", .compute_scale = 1,
		.iterations = 9, .warmup = 1,
	};
	struct gc_iter_rec recs[20];
	gc_rec_file f = { .recs = recs, .n = 20, .complete = 1 };
	int64_t id = -1;
	gc_err e;
	memset(recs, 0, sizeof(recs));
	for (int i = 0; i < 20; i++) {
		struct gc_iter_rec *x = &recs[i];
		x->rank = (uint32_t)(i / 10), x->iter = (uint32_t)(i % 10), x->warmup = i % 10 == 0;
		x->t_iter = i == 10 && !strcmp(method, "syncsgd") ? 1.2 : t;
		if (x->iter == 4 || x->iter == 9)
			eval_at(x, x->rank ? 1 : 3, acc[x->rank][x->iter == 9], 1.0 - acc[x->rank][x->iter == 9]);
	}
	if (gc_db_run_begin(db, &r, &id, &e) || gc_db_ingest(db, id, &f, &e) ||
	    gc_db_run_end(db, id, GC_RUN_OK, NULL, NULL, &e)) {
		printf("# add_run: %s\n", e.msg);
		return -1;
	}
	return id;
}

static gc_db *build(const char *metric, double value)
{
	const double sync[2][2] = { { 0.6, 1.0 }, { 1.0, 1.0 } };
	const double psgd[2][2] = { { 0.95, 0.95 }, { 0.95, 0.95 } };
	const double topk[2][2] = { { 0.5, 0.5 }, { 0.5, 0.5 } };
	int64_t s;
	gc_db *db;
	gc_err e;
	snprintf(dbpath, sizeof(dbpath), "/tmp/gcbench-test-acc-%d.db", (int)getpid());
	unlink(dbpath);
	if (gc_db_open(dbpath, 0, &db, &e))
		return NULL;
	if (gc_db_sweep_begin(db, "acc", "spec", "h", "syncsgd", &s, &e) ||
	    gc_db_sweep_target(db, s, metric, value, &e) || add_run(db, s, "syncsgd", 1.0, sync) < 0 ||
	    add_run(db, s, "powersgd", 0.5, psgd) < 0 || add_run(db, s, "topk", 0.8, topk) < 0) {
		printf("# build: %s\n", e.msg);
		gc_db_close(db);
		return NULL;
	}
	return db;
}


static void test_run_evals(void)
{
	gc_db *db = build("accuracy", 0.9);
	CHECK(db);
	CHECK_ROWS(db, "SELECT run_id, iter, val_n, round(val_acc, 4), round(val_loss, 4), "
		   "round(t_train, 4) FROM run_evals ORDER BY run_id, iter",
		   "1|4|4|0.7|0.3|5.2\n1|9|4|1.0|0.0|10.2\n"
		   "2|4|4|0.95|0.05|2.5\n2|9|4|0.95|0.05|5.0\n"
		   "3|4|4|0.5|0.5|4.0\n3|9|4|0.5|0.5|8.0\n");
	gc_db_close(db);
	unlink(dbpath);
}

static void test_time_to_target(void)
{
	gc_db *db = build("accuracy", 0.9);
	CHECK(db);
	CHECK_ROWS(db, "SELECT method, target_metric, target_value, iters_to_target, "
		   "round(t_to_target, 4), round(final_val_acc, 4) FROM run_time_to_target "
		   "ORDER BY run_id",
		   "syncsgd|accuracy|0.9|10|10.2|1.0\npowersgd|accuracy|0.9|5|2.5|0.95\n"
		   "topk|accuracy|0.9|NULL|NULL|0.5\n");
	CHECK_ROWS(db, "SELECT method, missed, round(iter_speedup, 4), round(tta_speedup, 4), "
		   "iters_to_target, iters_to_target_baseline FROM time_to_target_speedup "
		   "ORDER BY method",
		   "powersgd|0|2.0|4.08|5.0|10.0\nsyncsgd|0|1.0|1.0|10.0|10.0\n"
		   "topk|1|1.25|NULL|NULL|10.0\n");
	gc_db_close(db);
	unlink(dbpath);
}

/* A loss target: reached when the validation loss is at most the value. */
static void test_loss_target(void)
{
	gc_db *db = build("loss", 0.1);
	CHECK(db);
	CHECK_ROWS(db, "SELECT method, iters_to_target FROM run_time_to_target ORDER BY run_id",
		   "syncsgd|10\npowersgd|5\ntopk|NULL\n");
	gc_db_close(db);
	unlink(dbpath);
}

/* No target: the views are empty, the evaluations are kept. */
static void test_no_target(void)
{
	gc_db *db = build("", 0);
	CHECK(db);
	CHECK_ROWS(db, "SELECT COUNT(*) FROM run_time_to_target", "0\n");
	CHECK_ROWS(db, "SELECT COUNT(*) FROM evals", "12\n");
	gc_db_close(db);
	unlink(dbpath);
}

/* A validation record out of range is refused whole; older records have no evals. */
static void test_malformed_evals(void)
{
	struct gc_db_run r = { .sweep_id = 1, .point_key = "k", .workload = "train:mlp",
			       .model = "mlp", .method = "syncsgd", .params = "", .world_size = 1,
			       .nodes = 1, .batch = 1, .backend = "mpi", .compute_scale = 1,
			       .iterations = 1 };
	struct gc_iter_rec rec;
	gc_rec_file f = { .recs = &rec, .n = 1, .complete = 1 };
	const struct { uint32_t n; double acc, loss; float t; const char *msg; } bad[] = {
		{ 0, 0.5, 0.1, 0, "validation out of range (0 samples" },
		{ 3, 1.5, 0.1, 0, "accuracy 1.5" },
		{ 3, -0.1, 0.1, 0, "accuracy -0.1" },
		{ 3, 0.5, -1, 0, "loss -1" },
		{ 3, 0.5, NAN, 0, "loss nan" },
		{ 3, 0.5, 0.1, -1, "-1 s" },
	};
	int64_t s, id;
	gc_db *db;
	gc_err e;
	snprintf(dbpath, sizeof(dbpath), "/tmp/gcbench-test-acc-%d.db", (int)getpid());
	unlink(dbpath);
	CHECK_EQ_INT(gc_db_open(dbpath, 0, &db, &e), GC_OK);
	CHECK_EQ_INT(gc_db_sweep_begin(db, "acc", "spec", "h", "syncsgd", &s, &e), GC_OK);
	r.sweep_id = s;
	CHECK_EQ_INT(gc_db_run_begin(db, &r, &id, &e), GC_OK);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&rec, 0, sizeof(rec));
		rec.t_iter = 1;
		eval_at(&rec, bad[i].n, bad[i].acc, bad[i].loss);
		rec.t_eval = bad[i].t;
		CHECK_EQ_INT(gc_db_ingest(db, id, &f, &e), GC_E_FORMAT);
		CHECKF(strstr(e.msg, bad[i].msg) != NULL, "case %zu: '%s'", i, e.msg);
	}
	memset(&rec, 0, sizeof(rec));                 /* an older worker's record */
	rec.t_iter = 1, rec.val_acc = 0.5f;           /* stray bytes without the flag */
	CHECK_EQ_INT(gc_db_ingest(db, id, &f, &e), GC_OK);
	CHECK_ROWS(db, "SELECT COUNT(*) FROM iterations", "1\n");
	CHECK_ROWS(db, "SELECT COUNT(*) FROM evals", "0\n");
	CHECK_EQ_INT(gc_db_sweep_target(db, s, "speed", 1, &e), GC_E_DB);   /* CHECK constraint */
	gc_db_close(db);
	unlink(dbpath);
}

/* A record file streamed in chunks: the training seconds carry across them. */
static void test_stream_clock(void)
{
	struct gc_db_run r = { .point_key = "k", .workload = "train:cnn", .model = "cnn",
			       .method = "syncsgd", .params = "", .world_size = 1, .nodes = 1,
			       .batch = 1, .backend = "mpi", .compute_scale = 1, .iterations = 1300 };
	struct gc_iter_rec *rec = calloc(1300, sizeof(*rec));
	char path[96];
	const char *paths[1] = { path };
	int64_t s, id;
	size_t n = 0;
	gc_db *db;
	gc_err e;
	CHECK(rec);
	for (uint32_t i = 0; i < 1300; i++) {
		rec[i].iter = i, rec[i].t_iter = 0.5;
		if (i == 99 || i == 1299)
			eval_at(&rec[i], 10, 0.5, 1.0);
	}
	snprintf(path, sizeof(path), "/tmp/gcbench-test-acc-%d.gcr", (int)getpid());
	snprintf(dbpath, sizeof(dbpath), "/tmp/gcbench-test-acc-%d.db", (int)getpid());
	unlink(dbpath);
	CHECK_EQ_INT(gc_rec_write(path, "{}", rec, 1300, &e), GC_OK);
	free(rec);
	CHECK_EQ_INT(gc_db_open(dbpath, 0, &db, &e), GC_OK);
	CHECK_EQ_INT(gc_db_sweep_begin(db, "acc", "spec", "h", "syncsgd", &s, &e), GC_OK);
	r.sweep_id = s;
	CHECK_EQ_INT(gc_db_run_begin(db, &r, &id, &e), GC_OK);
	CHECK_EQ_INT(gc_db_ingest_files(db, id, paths, 1, &n, &e), GC_OK);
	CHECK_EQ_INT(n, 1300);
	CHECK_ROWS(db, "SELECT iter, t_train FROM evals ORDER BY iter", "99|50.0\n1299|650.0\n");
	gc_db_close(db);
	unlink(dbpath);
	unlink(path);
}

int main(void)
{
	GCT_SUITE("db_accuracy");
	GCT_RUN(test_run_evals);
	GCT_RUN(test_time_to_target);
	GCT_RUN(test_loss_target);
	GCT_RUN(test_no_target);
	GCT_RUN(test_malformed_evals);
	GCT_RUN(test_stream_clock);
	return gct_finish();
}

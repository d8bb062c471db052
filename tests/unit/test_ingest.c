/* tests/unit/test_ingest.c: record files of a run made elsewhere (gcbench ingest):
 * the checks of orchestrator/ops/rec_ingest.h, each refusal naming the file and
 * leaving the database untouched, and gc_db_ingest_run's run (sweep, headers,
 * producer, repeat, speedup rows); the sweep path's header storage too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "db/db.h"
#include "db/db_internal.h"
#include "orchestrator/ops/rec_ingest.h"

static char dir[] = "/tmp/gcbench-test-ingest.XXXXXX";

static const char *path_of(const char *name)
{
	static char p[8][512];
	static int k;
	k = (k + 1) % 8;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static long long q_int(gc_db *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_prepare_v2(gc_db_handle(db), sql, -1, &st, NULL) != SQLITE_OK)
		return -2;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* rank's file of a run: iters records (the first `warm` warmup), t_iter = t each */
static int write_rank(const char *name, const char *method, int world, int rank, int iters,
		      int warm, double t, const char *extra)
{
	struct gc_iter_rec r[16];
	char hdr[512];
	gc_err e;

	memset(r, 0, sizeof(r));
	for (int i = 0; i < iters; i++) {
		r[i].rank = (uint32_t)rank;
		r[i].iter = (uint32_t)i;
		r[i].warmup = i < warm;
		r[i].t_iter = t;
		r[i].t_encode = strcmp(method, "allreduce") ? t / 10 : 0;
		r[i].t_comm = t / 2;
		r[i].bytes_sent = 1000;
	}
	snprintf(hdr, sizeof(hdr), "{\"producer\": \"test 1\", \"method\": \"%s\", \"params\": "
		 "\"\", \"workload\": \"pytorch\", \"model\": \"tiny\", \"world\": %d, \"rank\": %d, "
		 "\"backend\": \"gloo\", \"batch\": 8, \"host\": \"h%d\"%s}", method, world, rank,
		 rank, extra ? extra : "");
	return gc_rec_write(path_of(name), hdr, r, (size_t)iters, &e) ? -1 : 0;
}

static void test_load_ok(void)
{
	const char *p[2];
	struct gc_ingest_opts o = { .sweep = "s" };
	struct gc_ingest_set s;
	gc_err e;

	CHECK(!write_rank("a0.rec", "powersgd", 2, 0, 5, 2, 0.1, NULL));
	CHECK(!write_rank("a1.rec", "powersgd", 2, 1, 5, 2, 0.1, NULL));
	p[0] = strdup(path_of("a1.rec"));   /* out of order: sorted by rank */
	p[1] = strdup(path_of("a0.rec"));
	CHECKF(!gc_ingest_load(p, 2, &o, &s, &e), "%s", e.msg);
	CHECK(s.n == 2 && s.iterations == 3 && s.warmup == 2 && s.nodes == 2);
	CHECK(s.hdr[0].rank == 0 && strstr(s.names[0], "a0.rec"));
	CHECK(strstr(s.point_key, "method=powersgd"));
	gc_ingest_set_release(&s);
	/* overrides replace the headers' values */
	o.method = "psgd";
	o.params = "rank=2";
	CHECKF(!gc_ingest_load(p, 2, &o, &s, &e), "%s", e.msg);
	CHECK(!strcmp(s.hdr[1].method, "psgd") && !strcmp(s.hdr[1].params, "rank=2"));
	gc_ingest_set_release(&s);
	free((void *)p[0]);
	free((void *)p[1]);
}

/* a refusal of gc_ingest_load whose message holds want */
static int refused(const char *const *p, size_t n, const char *want)
{
	struct gc_ingest_opts o = { .sweep = "s" };
	struct gc_ingest_set s;
	gc_err e;

	if (!gc_ingest_load(p, n, &o, &s, &e)) {
		gc_ingest_set_release(&s);
		printf("# accepted, wanted '%s'\n", want);
		return 0;
	}
	if (!strstr(e.msg, want))
		printf("# '%s' lacks '%s'\n", e.msg, want);
	return strstr(e.msg, want) != NULL && s.n == 0 && !s.files;
}

static void test_load_refusals(void)
{
	char a[512], b[512], c[512];
	const char *p[3] = { a, b, c };
	FILE *f;

	snprintf(a, sizeof(a), "%s", path_of("r0.rec"));
	snprintf(b, sizeof(b), "%s", path_of("r1.rec"));
	snprintf(c, sizeof(c), "%s", path_of("r2.rec"));
	CHECK(!write_rank("r0.rec", "fp16", 2, 0, 4, 1, 0.1, NULL));
	CHECK(!write_rank("r1.rec", "fp16", 2, 1, 4, 1, 0.1, NULL));
	CHECK(refused(p, 1, "rank 1 is missing"));
	CHECK(!write_rank("r2.rec", "fp16", 2, 0, 4, 1, 0.1, NULL));
	p[1] = c;   /* rank 0 twice */
	CHECK(refused(p, 2, "are both rank 0"));
	p[1] = b;
	CHECK(refused(p, 3, "are both rank 0"));
	CHECK(!write_rank("r1.rec", "topk", 2, 1, 4, 1, 0.1, NULL));
	CHECK(refused(p, 2, "says method 'topk'"));
	CHECK(!write_rank("r1.rec", "fp16", 3, 1, 4, 1, 0.1, NULL));
	CHECK(refused(p, 2, "says world '3'"));
	CHECK(!write_rank("r1.rec", "fp16", 2, 1, 5, 1, 0.1, NULL));
	CHECK(refused(p, 2, "every rank runs the same iterations"));
	CHECK(!write_rank("r1.rec", "fp16", 2, 1, 2, 2, 0.1, NULL));
	CHECK(refused(p, 2, "at least one iteration after warmup"));
	/* a header without producer */
	{
		struct gc_iter_rec r = { .rank = 1, .t_iter = 1 };
		gc_err e;
		CHECK(!gc_rec_write(b, "{\"method\": \"fp16\"}", &r, 1, &e));
		CHECK(refused(p, 2, "r1.rec': record header: no \"producer\""));
		CHECK(!gc_rec_write(b, "not json", &r, 1, &e));
		CHECK(refused(p, 2, "r1.rec': record header: expected '{'"));
	}
	/* records of another rank than the header's */
	CHECK(!write_rank("r1.rec", "fp16", 2, 1, 4, 1, 0.1, NULL));
	{
		unsigned char *buf = NULL;
		long len;
		f = fopen(b, "r+b");
		CHECK(f);
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		buf = malloc((size_t)len);
		fseek(f, 0, SEEK_SET);
		CHECK(fread(buf, 1, (size_t)len, f) == (size_t)len);
		/* truncated: the trailer cut off */
		fclose(f);
		f = fopen(b, "wb");
		CHECK(fwrite(buf, 1, (size_t)len - 10, f) == (size_t)len - 10);
		fclose(f);
		CHECK(refused(p, 2, "r1.rec' is incomplete"));
		free(buf);
	}
	unlink(c);
	CHECK(refused(p + 2, 1, "r2.rec"));
}

static gc_db *fresh(const char *name)
{
	gc_db *db = NULL;
	gc_err e;

	unlink(path_of(name));
	if (gc_db_open(path_of(name), 0, &db, &e))
		printf("# open: %s\n", e.msg);
	return db;
}

/* load the files and store them as a run of sweep "hooks" */
static gc_rc ingest(gc_db *db, const char *const *p, size_t n, const char *baseline,
		    struct gc_db_ingest_out *out, gc_err *e)
{
	struct gc_ingest_opts o = { .sweep = "hooks", .baseline = baseline };
	struct gc_ingest_set s;
	struct gc_envinfo env;
	struct gc_db_ingest_req q;
	gc_rc rc = gc_ingest_load(p, n, &o, &s, e);

	if (rc)
		return rc;
	memset(&env, 0, sizeof(env));
	strcpy(env.host, "here");
	gc_ingest_request(&s, &o, &env, &q);
	rc = gc_db_ingest_run(db, &q, out, e);
	gc_ingest_set_release(&s);
	return rc;
}

static void test_db_run_and_speedup(void)
{
	gc_db *db = fresh("i.db");
	char b0[512], b1[512], m0[512], m1[512];
	const char *base[2] = { b0, b1 }, *meth[2] = { m0, m1 };
	struct gc_db_ingest_out out;
	gc_err e;

	CHECK(db);
	snprintf(b0, 512, "%s", path_of("b0.rec"));
	snprintf(b1, 512, "%s", path_of("b1.rec"));
	snprintf(m0, 512, "%s", path_of("m0.rec"));
	snprintf(m1, 512, "%s", path_of("m1.rec"));
	CHECK(!write_rank("b0.rec", "allreduce", 2, 0, 6, 1, 0.2, ", \"versions\": {\"torch\": \"1.13.1\"}"));
	CHECK(!write_rank("b1.rec", "allreduce", 2, 1, 6, 1, 0.2, NULL));
	CHECK(!write_rank("m0.rec", "powersgd", 2, 0, 6, 1, 0.1, NULL));
	CHECK(!write_rank("m1.rec", "powersgd", 2, 1, 6, 1, 0.1, NULL));
	/* a new sweep needs a baseline */
	CHECK(ingest(db, base, 2, NULL, &out, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "--baseline");
	CHECK(q_int(db, "SELECT count(*) FROM sweeps") == 0);
	CHECKF(!ingest(db, base, 2, "allreduce", &out, &e), "%s", e.msg);
	CHECK(out.sweep_created && out.rows == 12);
	CHECKF(!ingest(db, meth, 2, NULL, &out, &e), "%s", e.msg);
	CHECK(!out.sweep_created);
	CHECK(q_int(db, "SELECT count(*) FROM sweeps WHERE status = 'done' AND spec_hash = 'ingest'") == 1);
	CHECK(q_int(db, "SELECT count(*) FROM runs WHERE status = 'ok' AND producer = 'test 1' "
		    "AND iterations = 5 AND warmup = 1 AND nodes = 2 AND env_id IS NOT NULL") == 2);
	CHECK(q_int(db, "SELECT count(*) FROM run_headers WHERE producer = 'test 1'") == 4);
	CHECK(q_int(db, "SELECT count(*) FROM run_headers WHERE json_extract(header, "
		    "'$.versions.torch') = '1.13.1' AND rank = 0") == 1);
	CHECK(q_int(db, "SELECT count(*) FROM run_hosts") == 2);
	/* the speedup view pairs the compressed run with the baseline: 0.2 / 0.1 */
	CHECK(q_int(db, "SELECT count(*) FROM speedup WHERE method = 'powersgd' AND "
		    "abs(speedup - 2) < 1e-9") == 1);
	CHECK(q_int(db, "SELECT count(*) FROM run_summary WHERE t_encode_median > 0") == 1);
	/* the same run again is a repeat of the point */
	CHECKF(!ingest(db, meth, 2, "allreduce", &out, &e), "%s", e.msg);
	CHECK(q_int(db, "SELECT max(repeat_idx) FROM runs WHERE method = 'powersgd'") == 1);
	/* another baseline for the existing sweep: refused, nothing written */
	CHECK(ingest(db, meth, 2, "fp16", &out, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "has baseline 'allreduce'");
	CHECK(q_int(db, "SELECT count(*) FROM runs") == 3);
	gc_db_close(db);
}

/* an error inside the transaction (the second rank's records break a rule) leaves
 * no sweep, run, iteration or header behind */
static void test_db_rollback(void)
{
	gc_db *db = fresh("rb.db");
	struct gc_db_ingest_req q;
	struct gc_db_ingest_out out;
	struct gc_iter_rec r[2];
	gc_rec_file f[2];
	gc_err e;

	CHECK(db);
	memset(r, 0, sizeof(r));
	r[0].t_iter = r[1].t_iter = 1;
	r[1].rank = 1;
	r[1].flags = 1;   /* an evaluation with no samples: refused by the ingest */
	memset(f, 0, sizeof(f));
	f[0] = (gc_rec_file){ .header = "{}", .recs = &r[0], .n = 1, .complete = 1 };
	f[1] = (gc_rec_file){ .header = "{}", .recs = &r[1], .n = 1, .complete = 1 };
	memset(&q, 0, sizeof(q));
	q.sweep = "x";
	q.baseline = "a";
	q.producer = "p";
	q.files = f;
	q.n = 2;
	q.run = (struct gc_db_run){ .point_key = "k", .workload = "w", .model = "m",
				    .method = "a", .world_size = 2, .nodes = 1, .batch = 1,
				    .backend = "gloo", .compute_scale = 1, .iterations = 1 };
	CHECK(gc_db_ingest_run(db, &q, &out, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "validation out of range");
	CHECK(out.run_id == 0);
	CHECK(q_int(db, "SELECT (SELECT count(*) FROM sweeps) + (SELECT count(*) FROM runs) + "
		    "(SELECT count(*) FROM iterations) + (SELECT count(*) FROM run_headers) + "
		    "(SELECT count(*) FROM environments)") == 0);
	f[1].complete = 0;
	r[1].flags = 0;
	CHECK(gc_db_ingest_run(db, &q, &out, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "incomplete");
	CHECK(q_int(db, "SELECT count(*) FROM runs") == 0);
	f[1].complete = 1;
	CHECKF(!gc_db_ingest_run(db, &q, &out, &e), "%s", e.msg);
	CHECK(q_int(db, "SELECT count(*) FROM runs WHERE producer = 'p'") == 1);
	gc_db_close(db);
}

/* gcbench run's path (gc_db_ingest_files) stores each file's header and the producer */
static void test_sweep_path_headers(void)
{
	gc_db *db = fresh("sw.db");
	struct gc_db_run r = { .point_key = "k", .workload = "replay", .model = "resnet50",
			       .method = "syncsgd", .world_size = 2, .nodes = 2, .batch = 32,
			       .backend = "mpi", .compute_scale = 1, .iterations = 3 };
	struct gc_iter_rec rec[2];
	char a[512], b[512];
	const char *p[2] = { a, b };
	int64_t sw, run;
	size_t rows;
	gc_err e;

	CHECK(db);
	memset(rec, 0, sizeof(rec));
	rec[1].rank = 1;
	rec[0].iter = rec[1].iter = 0;
	snprintf(a, sizeof(a), "%s", path_of("w0.rec"));
	snprintf(b, sizeof(b), "%s", path_of("w1.rec"));
	CHECK(!gc_rec_write(a, "{\"format\": \"gcbench-worker\", \"rank\": 0, \"versions\": "
			    "{\"gcbench\": \"v9\"}}", &rec[0], 1, &e));
	CHECK(!gc_rec_write(b, "{\"format\": \"gcbench-worker\", \"rank\": 1}", &rec[1], 1, &e));
	CHECK(!gc_db_sweep_begin(db, "t", "spec", "h", "syncsgd", &sw, &e));
	r.sweep_id = sw;
	CHECK(!gc_db_run_begin(db, &r, &run, &e));
	CHECKF(!gc_db_ingest_files(db, run, p, 2, &rows, &e), "%s", e.msg);
	CHECK(q_int(db, "SELECT count(*) FROM runs WHERE producer = 'gcbench-worker v9'") == 1);
	CHECK(q_int(db, "SELECT count(*) FROM run_headers WHERE json_extract(header, "
		    "'$.format') = 'gcbench-worker'") == 2);
	/* a header that is not JSON: refused, nothing stored */
	CHECK(!gc_rec_write(b, "{\"rank\": 1,", &rec[1], 1, &e));
	CHECK(!gc_db_run_begin(db, &r, &run, &e));
	CHECK(gc_db_ingest_files(db, run, p, 2, &rows, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "w1.rec");
	CHECK(q_int(db, "SELECT count(*) FROM iterations") == 2);
	gc_db_close(db);
}

int main(void)
{
	gct_suite = "ingest";
	if (!mkdtemp(dir)) {
		printf("FAIL ingest/setup: cannot create a temporary folder\n");
		return 1;
	}
	GCT_RUN(test_load_ok);
	GCT_RUN(test_load_refusals);
	GCT_RUN(test_db_run_and_speedup);
	GCT_RUN(test_db_rollback);
	GCT_RUN(test_sweep_path_headers);
	gct_rmtree(dir);
	return gct_finish();
}

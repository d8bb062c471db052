/* tests/unit/test_run_summary.c: the end-of-sweep table of `gcbench run`
 * (gc_run_summary_print) on a small database: params shown as their difference from
 * the method's defaults, columns sized to their content and aligned, long params
 * wrapped at commas within GC_SUMMARY_WIDTH columns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "db/db.h"
#include "db/q_summary.h"
#include "orchestrator/run/run_summary.h"

static char dbpath[64];

static void test_params_brief(void)
{
	char b[64], tiny[8];

	gc_params_brief("replay", "powersgd", "ef=1,rank=4,warm_start=1,min_compression=2,seed=42", b,
			sizeof(b));
	CHECK_STR(b, "defaults");
	gc_params_brief("replay", "powersgd", "ef=1,rank=8,warm_start=0,min_compression=2,seed=42", b,
			sizeof(b));
	CHECK_STR(b, "rank=8,warm_start=0");
	gc_params_brief("replay", "topk", "ef=1,ratio=0.001", b, sizeof(b));
	CHECK_STR(b, "ratio=0.001");
	gc_params_brief("replay", "syncsgd", "", b, sizeof(b));
	CHECK_STR(b, "-");
	gc_params_brief("replay", "nosuch", "a=1,b=2", b, sizeof(b));
	CHECK_STR(b, "a=1,b=2");
	/* a short buffer keeps whole items only */
	gc_params_brief("replay", "powersgd", "ef=0,rank=8,warm_start=0", tiny, sizeof(tiny));
	CHECK_STR(tiny, "ef=0");
	/* the worker's own spellings of its workloads shorten too */
	gc_params_brief("train:mlp", "topk", "ef=1,ratio=0.001", b, sizeof(b));
	CHECK_STR(b, "ratio=0.001");
	gc_params_brief("replay:csv:/m.csv", "powersgd", "ef=1,rank=4", b, sizeof(b));
	CHECK_STR(b, "defaults");
	/* a command's (or a record file's) method is a label: its params in full, even
	 * those equal to the built-in method's defaults */
	gc_params_brief("command", "powersgd", "rank=4", b, sizeof(b));
	CHECK_STR(b, "rank=4");
	gc_params_brief("pytorch", "powersgd", "ef=1,rank=4,warm_start=1", b, sizeof(b));
	CHECK_STR(b, "ef=1,rank=4,warm_start=1");
	gc_params_brief(NULL, "topk", "ratio=0.01", b, sizeof(b));
	CHECK_STR(b, "ratio=0.01");
	gc_params_brief("command", "allreduce", "", b, sizeof(b));
	CHECK_STR(b, "-");
}

/* one ok run of workload whose post-warmup iterations all take t seconds */
static int add_run_of(gc_db *db, int64_t sweep, const char *workload, const char *model,
		      const char *method, const char *params, uint64_t bw, double t)
{
	struct gc_db_run r = {
		.sweep_id = sweep, .point_key = params, .workload = workload, .model = model,
		.method = method, .params = params, .world_size = 4, .nodes = 4, .batch = 32,
		.bw_cap_bps = bw, .backend = "mpi", .compute_scale = 1, .iterations = 3,
		.warmup = 1,
	};
	struct gc_iter_rec recs[4];
	gc_rec_file f = { .recs = recs, .n = 4, .complete = 1 };
	int64_t id;
	gc_err e;

	memset(recs, 0, sizeof(recs));
	for (int i = 0; i < 4; i++) {
		recs[i].iter = (uint32_t)i;
		recs[i].warmup = i == 0;
		recs[i].t_iter = t;
	}
	if (gc_db_run_begin(db, &r, &id, &e) || gc_db_ingest(db, id, &f, &e) ||
	    gc_db_run_end(db, id, GC_RUN_OK, NULL, NULL, &e)) {
		printf("# add_run: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static int add_run(gc_db *db, int64_t sweep, const char *model, const char *method,
		   const char *params, uint64_t bw, double t)
{
	return add_run_of(db, sweep, "replay", model, method, params, bw, t);
}

/* a new database at dbpath with one sweep of baseline (its id in *sw); NULL on failure */
static gc_db *new_sweep(const char *baseline, int64_t *sw)
{
	gc_db *db = NULL;
	gc_err e;

	unlink(dbpath);
	if (gc_db_open(dbpath, 0, &db, &e) ||
	    gc_db_sweep_begin(db, "t", "spec", "h", baseline, sw, &e)) {
		printf("# new_sweep: %s\n", e.msg);
		gc_db_close(db);
		return NULL;
	}
	return db;
}

/* the table of a sweep as text (caller frees) */
static char *table_of(gc_db *db, int64_t sweep, int *rows)
{
	FILE *f = tmpfile();
	char *buf;
	long n;

	if (!f)
		return NULL;
	*rows = gc_run_summary_print(db, sweep, f);
	n = ftell(f);
	buf = n >= 0 ? calloc(1, (size_t)n + 1) : NULL;
	rewind(f);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* gc_run_summary_json's stdout as text (caller frees) */
static char *json_of(gc_db *db, int64_t sweep, int *rows)
{
	FILE *f = tmpfile();
	char *buf = NULL;
	long n;
	int saved;

	fflush(stdout);
	saved = dup(1);
	if (!f || saved < 0 || dup2(fileno(f), 1) < 0) {
		if (f)
			fclose(f);
		return NULL;
	}
	*rows = gc_run_summary_json(db, sweep);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	n = (long)lseek(fileno(f), 0, SEEK_END);   /* written through the descriptor */
	buf = n >= 0 ? calloc(1, (size_t)n + 1) : NULL;
	rewind(f);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void test_table_aligned(void)
{
	const char *pdef = "ef=1,rank=4,warm_start=1,min_compression=2,seed=42";
	const char *plong = "ef=0,rank=16,warm_start=0,min_compression=3.5,seed=12345";
	gc_db *db = NULL;
	int64_t sw;
	int rows = -1, nlines = 0, pcol, width, cont = 0;
	char *txt = NULL, *save = NULL, *line;

	CHECK((db = new_sweep("syncsgd", &sw)) != NULL);
	CHECK(add_run(db, sw, "resnet50", "syncsgd", "", 1000000000ull, 0.2) == 0);
	CHECK(add_run(db, sw, "resnet50", "powersgd", pdef, 1000000000ull, 0.1) == 0);
	CHECK(add_run(db, sw, "resnet50", "powersgd", plong, 1000000000ull, 0.4) == 0);
	CHECK(add_run(db, sw, "a-much-longer-model-name", "syncsgd", "", 0, 0.2) == 0);
	CHECK(add_run(db, sw, "a-much-longer-model-name", "topk", "ef=1,ratio=0.001", 0, 0.25) == 0);
	txt = table_of(db, sw, &rows);
	gc_db_close(db);
	CHECK(txt);
	CHECKF(rows == 5, "%d rows:\n%s", rows, txt);
	/* header: the first non-empty line; params starts where its title does */
	line = strtok_r(txt, "\n", &save);
	CHECKF(line && !strncmp(line, "model", 5), "%s", txt);
	pcol = (int)(strstr(line, "params") - line);
	width = (int)strlen(line);
	CHECKF(width <= GC_SUMMARY_WIDTH, "header of %d columns", width);
	for (; line; line = strtok_r(NULL, "\n", &save)) {
		int len = (int)strlen(line);
		if (!strncmp(line, "params:", 7) || !strncmp(line, "speedup =", 9))
			break;
		nlines++;
		CHECKF(len <= GC_SUMMARY_WIDTH, "line of %d columns: '%s'", len, line);
		if (line[0] == ' ') {   /* a wrapped params line */
			cont++;
			CHECKF((int)strspn(line, " ") == pcol, "continuation not under params: '%s'",
			       line);
			continue;
		}
		/* every row ends where the header does (right-aligned speedup), and its
		 * params start under the title, after a blank */
		CHECKF(len == width, "row of %d columns, header %d: '%s'\n%s", len, width, line,
		       txt);
		CHECKF(line[pcol - 1] == ' ' && line[pcol] != ' ', "params not at %d: '%s'", pcol,
		       line);
	}
	free(txt);
	CHECKF(nlines == 6 + cont, "%d lines, %d continued", nlines, cont);
	CHECK(cont >= 1);   /* plong does not fit beside a 24-character model name */
}

static void test_table_content(void)
{
	gc_db *db = NULL;
	int64_t sw;
	int rows = -1;
	char *txt;
	gc_err e;

	CHECK(gc_db_open(dbpath, 0, &db, &e) == GC_OK);
	sw = 1;
	txt = table_of(db, sw, &rows);
	gc_db_close(db);
	CHECK(txt);
	CHECKF(strstr(txt, "defaults") && strstr(txt, "ratio=0.001") &&
	       strstr(txt, "rank=16,") && !strstr(txt, "seed=42") &&
	       strstr(txt, "unlimited") && strstr(txt, "2.00x") && strstr(txt, "0.50x") &&
	       strstr(txt, "0.80x"), "%s", txt);
	free(txt);
}

/* a command sweep's labels may share a built-in method's name: its params are shown in
 * full, not shortened against gcbench's powersgd (whose default rank is 4) */
static void test_table_command(void)
{
	gc_db *db = NULL;
	int64_t sw;
	int rows = -1;
	char *txt;

	CHECK((db = new_sweep("allreduce", &sw)) != NULL);
	CHECK(add_run_of(db, sw, "command", "mlp", "allreduce", "", 0, 0.2) == 0);
	CHECK(add_run_of(db, sw, "command", "mlp", "powersgd", "rank=4", 0, 0.1) == 0);
	txt = table_of(db, sw, &rows);
	CHECK(txt);
	CHECKF(rows == 2, "%d rows:\n%s", rows, txt);
	CHECKF(strstr(txt, "\nmlp   powersgd  rank=4 unlimited "), "%s", txt);
	free(txt);
	/* the same rows as JSON */
	rows = -1;
	txt = json_of(db, sw, &rows);
	gc_db_close(db);
	CHECK(txt);
	CHECKF(rows == 2, "%d rows: %s", rows, txt ? txt : "");
	CHECKF(txt && strstr(txt, "\"method\":\"powersgd\",\"params\":\"rank=4\""), "%s",
	       txt ? txt : "");
	free(txt);
}

static void test_table_empty(void)
{
	gc_db *db = NULL;
	int64_t sw;
	int rows = -1;
	char *txt;
	gc_err e;

	CHECK(gc_db_open(dbpath, 0, &db, &e) == GC_OK);
	CHECK(gc_db_sweep_begin(db, "empty", "spec", "h2", "syncsgd", &sw, &e) == GC_OK);
	txt = table_of(db, sw, &rows);
	gc_db_close(db);
	CHECK(txt);
	CHECK(rows == 0);
	CHECKF(strstr(txt, "(no point finished with its baseline)"), "%s", txt);
	free(txt);
}

/* one ok training run: 10 iterations of t seconds (1 warmup), validated at
 * iterations 4 and 9 with accuracies a4 and a9 */
static int add_train_run(gc_db *db, int64_t sweep, const char *method, double t, double a4,
			 double a9)
{
	struct gc_db_run r = {
		.sweep_id = sweep, .point_key = method, .workload = "train", .model = "cnn",
		.method = method, .params = "", .world_size = 4, .nodes = 4, .batch = 16,
		.bw_cap_bps = 1000000000ull, .backend = "mpi", .compute_scale = 1,
		.iterations = 9, .warmup = 1,
	};
	struct gc_iter_rec recs[10];
	gc_rec_file f = { .recs = recs, .n = 10, .complete = 1 };
	int64_t id;
	gc_err e;

	memset(recs, 0, sizeof(recs));
	for (int i = 0; i < 10; i++) {
		recs[i].iter = (uint32_t)i;
		recs[i].warmup = i == 0;
		recs[i].t_iter = t;
		if (i == 4 || i == 9) {
			recs[i].flags = GC_REC_F_EVAL | 100u << 8;
			recs[i].val_acc = (float)(i == 4 ? a4 : a9);
		}
	}
	if (gc_db_run_begin(db, &r, &id, &e) || gc_db_ingest(db, id, &f, &e) ||
	    gc_db_run_end(db, id, GC_RUN_OK, NULL, NULL, &e)) {
		printf("# add_train_run: %s\n", e.msg);
		return -1;
	}
	return 0;
}

/* With a target: iterations to it ("never" when missed) and the time-to-target speedup
 * beside the iteration speedup. syncsgd 10 ms, reaches 0.9 at iteration 10 (0.1 s);
 * signsgd 5 ms (2x per iteration), reaches it only at 10 too: 0.05 s, 2x; topk 4 ms
 * never: its time-to-target speedup is '-'. */
static void test_table_target(void)
{
	gc_db *db = NULL;
	int64_t sw;
	int rows = -1;
	char *txt;
	gc_err e;

	CHECK((db = new_sweep("syncsgd", &sw)) != NULL);
	CHECK(gc_db_sweep_target(db, sw, "accuracy", 0.9, &e) == GC_OK);
	CHECK(add_train_run(db, sw, "syncsgd", 0.010, 0.5, 0.95) == 0);
	CHECK(add_train_run(db, sw, "signsgd", 0.005, 0.6, 0.92) == 0);
	CHECK(add_train_run(db, sw, "topk", 0.004, 0.3, 0.5) == 0);
	txt = table_of(db, sw, &rows);
	gc_db_close(db);
	CHECK(txt);
	CHECKF(rows == 3, "%d rows:\n%s", rows, txt);
	CHECKF(strstr(txt, "to_target tta_speedup") != NULL, "%s", txt);
	CHECKF(strstr(txt, "2.00x     10 it       2.00x") != NULL, "%s", txt);   /* signsgd */
	CHECKF(strstr(txt, "1.00x     10 it       1.00x") != NULL, "%s", txt);   /* syncsgd */
	CHECKF(strstr(txt, "2.50x     never           -") != NULL, "%s", txt);   /* topk */
	CHECKF(strstr(txt, "validation accuracy 0.9 was first reached") != NULL, "%s", txt);
	free(txt);
}

/* runs.ranks_per_node and runs.placement (migration 6), and the summary's placement
 * line; a run without a placement (before the migration) is not listed */
static void test_table_placement(void)
{
	static const struct { int world, nodes, rpn; const char *hosts; } runs[] = {
		{ 4, 2, 2, "n1:2,n2:2" }, { 3, 2, 2, "n1:2,n2:1" }, { 4, 2, 2, "n1:2,n2:2" },
		{ 8, 4, 0, NULL },
	};
	char place[512], *txt;
	gc_db *db = NULL;
	int64_t sw, id;
	int rows;
	gc_err e;

	CHECK((db = new_sweep("syncsgd", &sw)) != NULL);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct gc_db_run r = {
			.sweep_id = sw, .point_key = "k", .workload = "replay", .model = "tiny",
			.method = "syncsgd", .params = "", .world_size = runs[i].world,
			.nodes = runs[i].nodes, .batch = 8, .backend = "mpi", .compute_scale = 1,
			.iterations = 3, .warmup = 1,
		};
		CHECK(gc_db_run_begin(db, &r, &id, &e) == GC_OK);
		if (runs[i].hosts)
			CHECK(gc_db_run_set_placement(db, id, runs[i].rpn, runs[i].hosts, &e) == GC_OK);
	}
	CHECK(gc_db_sweep_placements(db, sw, place, sizeof(place), &e) == GC_OK);
	CHECK_STR(place, "world 3 (mpi): 2 nodes x up to 2 ranks (n1:2,n2:1); "
		  "world 4 (mpi): 2 nodes x 2 ranks (n1:2,n2:2)");
	txt = table_of(db, sw, &rows);
	CHECK(gc_db_sweep_placements(db, sw + 1, place, sizeof(place), &e) == GC_OK);
	CHECK_STR(place, "");
	gc_db_close(db);
	CHECK(txt);
	CHECKF(strstr(txt, "\nplacement: world 3 (mpi): 2 nodes x up to 2 ranks") != NULL, "%s", txt);
	free(txt);
}

int main(void)
{
	GCT_SUITE("run_summary");
	snprintf(dbpath, sizeof(dbpath), "/tmp/gcbench-test-summary.%ld.db", (long)getpid());
	GCT_RUN(test_params_brief);
	GCT_RUN(test_table_aligned);
	GCT_RUN(test_table_content);
	GCT_RUN(test_table_command);
	GCT_RUN(test_table_empty);
	GCT_RUN(test_table_target);
	GCT_RUN(test_table_placement);
	unlink(dbpath);
	{
		char p[80];
		snprintf(p, sizeof(p), "%s-wal", dbpath);
		unlink(p);
		snprintf(p, sizeof(p), "%s-shm", dbpath);
		unlink(p);
	}
	return gct_finish();
}

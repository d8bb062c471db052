/* tests/unit/test_sweep.c: expansion counts, order, exclude, zip, keys and resume. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "orchestrator/run/sweep.h"

static int load(const char *text, struct gc_spec *s)
{
	struct gc_diags d;
	gc_rc rc;

	gc_diags_init(&d, "t.yaml");
	rc = gc_spec_parse(text, strlen(text), "t.yaml", s, &d);
	for (size_t i = 0; i < d.n; i++)
		printf("# %s\n", d.msg[i]);
	gc_diags_release(&d);
	return rc;
}

#define BASE "name: t\nmodels: [resnet50, vgg16]\niterations: 3\nworld_size: [2, 4]\n"

static void test_counts_and_order(void)
{
	struct gc_spec s;
	struct gc_sweep sw;
	gc_err e;

	CHECK(load(BASE "methods: [syncsgd, {powersgd: {rank: [4, 8]}}]\n"
		   "bandwidth: [1gbit, 10gbit, unlimited]\nbatch: [16, 32]\nrepeats: 2\n", &s) == GC_OK);
	CHECK(gc_sweep_expand(&s, &sw, &e) == GC_OK);
	/* 2 models x 3 methods x 3 bw x 2 world x 2 batch x 2 repeats */
	CHECK_EQ_INT(sw.n, 2 * 3 * 3 * 2 * 2 * 2);
	CHECK_EQ_INT(sw.n_excluded, 0);
	/* methods innermost, repeats outermost */
	CHECK_STR(sw.pts[0].method->name, "syncsgd");
	CHECK_STR(sw.pts[1].method->name, "powersgd");
	CHECK_EQ_INT(sw.pts[1].method->params.rank, 4);
	CHECK_EQ_INT(sw.pts[2].method->params.rank, 8);
	CHECK_EQ_INT(sw.pts[0].repeat, 0);
	CHECK_EQ_INT(sw.pts[sw.n - 1].repeat, 1);
	CHECK(sw.pts[0].bw_bps == 1000000000ull && sw.pts[sw.n / 2 - 1].bw_bps == 0);
	CHECK_STR(sw.pts[0].key, "workload=replay;model=resnet50;method=syncsgd;params=;"
		  "bw=1000000000;lat=0;world=2;batch=16;backend=mpi;scale=1;repeat=0");
	/* keys are unique */
	for (size_t i = 0; i < sw.n; i++)
		for (size_t j = i + 1; j < sw.n; j++)
			CHECKF(strcmp(sw.pts[i].key, sw.pts[j].key), "duplicate key %s", sw.pts[i].key);
	gc_sweep_release(&sw);
	gc_spec_release(&s);
}

static void test_exclude(void)
{
	struct gc_spec s;
	struct gc_sweep sw;
	gc_err e;

	CHECK(load(BASE "methods: [syncsgd, signsgd, {powersgd: {rank: [4, 8]}}]\n"
		   "bandwidth: [1gbit, 10gbit]\nbatch: 32\nexclude:\n"
		   "  - {method: powersgd, bandwidth: 10gbit}\n"
		   "  - {model: vgg16, world_size: [2]}\n", &s) == GC_OK);
	CHECK(gc_sweep_expand(&s, &sw, &e) == GC_OK);
	/* product 2 x 4 x 2 x 2 = 32; powersgd at 10gbit: 2 ranks x 2 models x 2 worlds = 8;
	 * vgg16 at world 2: 4 methods x 2 bw = 8, of which 2 were already excluded */
	CHECK_EQ_INT(sw.n_product, 32);
	CHECK_EQ_INT(sw.n_excluded, 8 + 8 - 2);
	CHECK_EQ_INT(sw.n, 32 - 14);
	for (size_t i = 0; i < sw.n; i++) {
		CHECK(!(strcmp(sw.pts[i].method->name, "powersgd") == 0 &&
			sw.pts[i].bw_bps == 10000000000ull));
		CHECK(!(strcmp(sw.pts[i].model, "vgg16") == 0 && sw.pts[i].world_size == 2));
	}
	gc_sweep_release(&sw);
	gc_spec_release(&s);
}

static void test_exclude_errors(void)
{
	struct gc_spec s;
	struct gc_diags d;
	const char *t = BASE "methods: [syncsgd]\nbandwidth: 1gbit\nbatch: 32\nexclude:\n"
			"  - {method: signsgd, bandwdth: 1gbit}\n  - {bandwidth: 2gbit}\n  - 3\n";

	gc_diags_init(&d, "t.yaml");
	CHECK(gc_spec_parse(t, strlen(t), "t.yaml", &s, &d) == GC_E_INVAL);
	CHECK_EQ_INT(d.n, 4);
	CHECK_CONTAINS(d.msg[0], "t.yaml:9:14: exclude: this method is not a value of the sweep");
	CHECK_CONTAINS(d.msg[1], "t.yaml:9:23: unknown key in an exclude entry; did you mean 'bandwidth'?");
	CHECK_CONTAINS(d.msg[2], "t.yaml:10:17: exclude: this bandwidth is not a value of the sweep");
	CHECK_CONTAINS(d.msg[3], "t.yaml:11:5: an exclude entry is a value");
	gc_diags_release(&d);
}

static void test_zip(void)
{
	struct gc_spec s;
	struct gc_sweep sw;
	struct gc_diags d;
	gc_err e;
	const char *badzip = BASE "methods: [syncsgd]\nbandwidth: [1gbit, 2gbit]\nbatch: [8]\n"
			     "zip: [[bandwidth, batch], [method, model]]\n";

	CHECK(load(BASE "methods: [syncsgd, signsgd]\nbandwidth: [1gbit, 2gbit, 5gbit]\n"
		   "batch: [16, 32, 64]\nzip: [[bandwidth, batch]]\n", &s) == GC_OK);
	CHECK(gc_sweep_expand(&s, &sw, &e) == GC_OK);
	/* (bw, batch) pairs: 3, not 9 */
	CHECK_EQ_INT(sw.n, 2 * 2 * 3 * 2);
	for (size_t i = 0; i < sw.n; i++)
		CHECK((sw.pts[i].bw_bps == 1000000000ull) == (sw.pts[i].batch == 16) &&
		      (sw.pts[i].bw_bps == 5000000000ull) == (sw.pts[i].batch == 64));
	gc_sweep_release(&sw);
	gc_spec_release(&s);
	gc_diags_init(&d, "t.yaml");
	CHECK(gc_spec_parse(badzip, strlen(badzip), "t.yaml", &s, &d) == GC_E_INVAL);
	CHECK_EQ_INT(d.n, 2);
	CHECK_CONTAINS(d.msg[0], "t.yaml:8:19: zip: 'batch' has 1 values but 'bandwidth' has 2");
	CHECK_CONTAINS(d.msg[1], "t.yaml:8:28: zip: method is not an axis that can be zipped");
	gc_diags_release(&d);
}

static void test_too_many_points(void)
{
	struct gc_spec s;
	struct gc_sweep sw;
	gc_err e;

	CHECK(load(BASE "methods: [syncsgd]\nbandwidth: [1gbit, 2gbit, 3gbit, 4gbit, 5gbit]\n"
		   "batch: [1,2,3,4,5,6,7,8,9,10]\nrepeats: 1000\n", &s) == GC_OK);
	CHECK(gc_sweep_expand(&s, &sw, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "more than 20000 points");
	gc_spec_release(&s);
}

static void test_resume_with_db(void)
{
	char path[] = "/tmp/gcbench-test-sweep-XXXXXX";
	struct gc_spec s;
	struct gc_sweep sw;
	struct gc_strlist done;
	struct gc_db_run r;
	gc_db *db;
	int64_t sid, rid;
	gc_err e;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	unlink(path);
	CHECK(load(BASE "methods: [syncsgd, signsgd]\nbandwidth: [1gbit]\nbatch: 8\n", &s) == GC_OK);
	CHECK(gc_sweep_expand(&s, &sw, &e) == GC_OK);
	CHECK_EQ_INT(sw.n, 8);
	CHECK(gc_db_open(path, 0, &db, &e) == GC_OK);
	CHECK(gc_db_sweep_begin(db, s.name, s.text, s.hash, s.baseline, &sid, &e) == GC_OK);
	/* points 0 and 3 ok, point 1 failed, point 2 left running */
	for (size_t i = 0; i < 4; i++) {
		gc_point_to_run(&s, &sw.pts[i], sid, 0, 0, &r);
		CHECK(gc_db_run_begin(db, &r, &rid, &e) == GC_OK);
		if (i != 2)
			CHECK(gc_db_run_end(db, rid, i == 1 ? GC_RUN_FAILED : GC_RUN_OK, NULL, NULL, &e) == GC_OK);
	}
	CHECK(gc_db_done_keys(db, sid, &done, &e) == GC_OK);
	CHECK_EQ_INT(done.n, 2);
	CHECK_EQ_INT(gc_sweep_resume(&sw, &done), 2);
	CHECK_EQ_INT(sw.n, 6);
	CHECK_EQ_INT(sw.pts[0].index, 1);   /* the failed one comes first again */
	CHECK_EQ_INT(sw.pts[1].index, 2);
	CHECK_EQ_INT(sw.pts[2].index, 4);
	gc_strlist_release(&done);
	/* another sweep resumes nothing */
	CHECK(gc_db_done_keys(db, sid + 1, &done, &e) == GC_OK);
	CHECK_EQ_INT(done.n, 0);
	gc_db_close(db);
	gc_sweep_release(&sw);
	gc_spec_release(&s);
	unlink(path);
}

int main(void)
{
	GCT_SUITE("sweep");
	GCT_RUN(test_counts_and_order);
	GCT_RUN(test_exclude);
	GCT_RUN(test_exclude_errors);
	GCT_RUN(test_zip);
	GCT_RUN(test_too_many_points);
	GCT_RUN(test_resume_with_db);
	return gct_finish();
}

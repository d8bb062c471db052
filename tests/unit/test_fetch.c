/* A run's record files in one round trip (orchestrator/remote/fetch.h) and one
 * operation on several nodes at once (orchestrator/run/each_node.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "proc.h"
#include "orchestrator/remote/fetch.h"
#include "orchestrator/run/each_node.h"
#include "timing.h"

struct seen {
	int n;
	char names[8][64];
	size_t sizes[8];
	char data[8][64];
	int stop_at;   /* return nonzero at this file (-1: never) */
};

static int keep(const char *name, const char *data, size_t size, void *arg, gc_err *e)
{
	struct seen *s = arg;

	(void)e;
	if (s->n == s->stop_at || s->n >= 8)
		return 1;
	snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
	s->sizes[s->n] = size;
	memcpy(s->data[s->n], data, size < 63 ? size : 63);
	s->n++;
	return 0;
}

static gc_rc parse(const char *buf, size_t len, struct seen *s, gc_err *e)
{
	memset(s, 0, sizeof(*s));
	s->stop_at = -1;
	return gc_fetch_parse(buf, len, keep, s, e);
}

static void test_parse_stream(void)
{
	static const char two[] = "gcbench-file 3 records-r0.gcr\nabcgcbench-file 0 records-r1.gcr\n"
				  "gcbench-file 5 records-r10.gcr\n\n\0x\nz";
	struct seen s;
	gc_err e;

	CHECK(parse(two, sizeof(two) - 1, &s, &e) == GC_OK);
	CHECK(s.n == 3);
	CHECK(!strcmp(s.names[0], "records-r0.gcr") && s.sizes[0] == 3 && !memcmp(s.data[0], "abc", 3));
	CHECK(!strcmp(s.names[1], "records-r1.gcr") && s.sizes[1] == 0);
	CHECK(!strcmp(s.names[2], "records-r10.gcr") && s.sizes[2] == 5);
	CHECK(!memcmp(s.data[2], "\n\0x\nz", 5));   /* binary content, newlines and NULs */
	CHECK(parse("", 0, &s, &e) == GC_OK && s.n == 0);
}

static void test_parse_rejects(void)
{
	static const char *const bad[] = {
		"junk",                                        /* no tag */
		"gcbench-file 3 records-r0.gcr",               /* no newline */
		"gcbench-file x records-r0.gcr\nabc",          /* size not decimal */
		"gcbench-file  3 records-r0.gcr\nabc",         /* two spaces */
		"gcbench-file 3records-r0.gcr\nabc",           /* no space */
		"gcbench-file -3 records-r0.gcr\nabc",
		"gcbench-file 3 ../etc/passwd\nabc",           /* not a record file */
		"gcbench-file 3 records-r0/../../x\nabc",      /* a slash */
		"gcbench-file 3 records-r0 x\nabc",            /* a space in the name */
		"gcbench-file 3 records-r\nabc",               /* nothing after the prefix */
		"gcbench-file 3 \nabc",
		"gcbench-file 99999999999999999999999 records-r0.gcr\nabc",   /* overflow */
		"gcbench-file 4 records-r0.gcr\nabc",          /* cut short */
		"gcbench-file 1 records-r0.gcr\nabcd",         /* trailing bytes: not a header */
	};
	char longname[400];
	struct seen s;
	gc_err e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gc_rc rc = parse(bad[i], strlen(bad[i]), &s, &e);
		if (rc != GC_E_FORMAT) {
			gct_failf(__FILE__, __LINE__, "accepted '%s' (rc %d)", bad[i], (int)rc);
			return;
		}
	}
	CHECK(strstr(e.msg, "records-r0.gcr") != NULL || strstr(e.msg, "byte") != NULL);
	snprintf(longname, sizeof(longname), "gcbench-file 1 records-r%0300d\nx", 0);
	CHECK(parse(longname, strlen(longname), &s, &e) == GC_E_FORMAT);
	/* the callback stops it */
	memset(&s, 0, sizeof(s));
	s.stop_at = 0;
	CHECK(gc_fetch_parse("gcbench-file 1 records-r0.gcr\na", 31, keep, &s, &e) == GC_E_IO);
	CHECK(strstr(e.msg, "records-r0.gcr") != NULL);
}

/* The remote script, run here with sh: what it writes parses back to the files. */
static void test_script_roundtrip(void)
{
	char dir[] = "/tmp/gct-fetch-XXXXXX", path[128];
	const char *argv[5];
	char *av[6];
	gc_proc_result r;
	struct seen s;
	gc_err e;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	gc_fetch_argv(dir, argv);
	memcpy(av, argv, sizeof(argv));
	av[5] = NULL;
	CHECK(gc_proc_run(av, NULL, NULL, 10, 0, &r, &e) == GC_OK && r.status == 0);
	CHECK(r.out_len == 0);   /* no files: nothing */
	gc_proc_result_release(&r);
	snprintf(path, sizeof(path), "%s/records-r0.gcr", dir);
	f = fopen(path, "wb");
	CHECK(f && fwrite("a\0b", 1, 3, f) == 3 && !fclose(f));
	snprintf(path, sizeof(path), "%s/records-r1.gcr", dir);
	f = fopen(path, "wb");
	CHECK(f && fwrite("xyz\n", 1, 4, f) == 4 && !fclose(f));
	snprintf(path, sizeof(path), "%s/other.txt", dir);
	f = fopen(path, "wb");
	CHECK(f && !fclose(f));
	CHECK(gc_proc_run(av, NULL, NULL, 10, 0, &r, &e) == GC_OK && r.status == 0);
	CHECK(parse(r.out, r.out_len, &s, &e) == GC_OK);
	gc_proc_result_release(&r);
	CHECK(s.n == 2 && !strcmp(s.names[0], "records-r0.gcr") && s.sizes[0] == 3);
	CHECK(!memcmp(s.data[0], "a\0b", 3) && s.sizes[1] == 4 && !memcmp(s.data[1], "xyz\n", 4));
	gct_rmtree(dir);
	/* a folder that is not there: status 1 */
	CHECK(gc_proc_run(av, NULL, NULL, 10, 0, &r, &e) == GC_OK && r.status == 1);
	gc_proc_result_release(&r);
}

static gc_rc slow_job(size_t i, void *arg, gc_err *e)
{
	int *hits = arg;

	usleep(200000);
	hits[i]++;
	if (i == 2 || i == 3)
		return gc_fail(e, i == 2 ? GC_E_COMM : GC_E_IO, "node %zu failed", i);
	return GC_OK;
}

static void test_each_node(void)
{
	int hits[6] = { 0 };
	uint64_t t0 = gc_now_ns();
	gc_err e;
	gc_rc rc = gc_each_node(6, slow_job, hits, &e);
	double took = (double)(gc_now_ns() - t0) * 1e-9;

	CHECK(rc == GC_E_COMM && !strcmp(e.msg, "node 2 failed"));   /* the lowest index */
	for (int i = 0; i < 6; i++)
		CHECK(hits[i] == 1);   /* every index ran once, failures or not */
	CHECK(took < 1.0);         /* at once: 6 x 0.2 s one after the other is 1.2 s */
	memset(hits, 0, sizeof(hits));
	CHECK(gc_each_node(2, slow_job, hits, &e) == GC_OK && hits[0] == 1 && hits[1] == 1);
	CHECK(gc_each_node(0, slow_job, hits, &e) == GC_OK);
}

static gc_rc count_job(size_t i, void *arg, gc_err *e)
{
	int *hits = arg;

	usleep(1000);
	hits[i]++;
	return i >= 40 && i % 7 == 0 ? gc_fail(e, GC_E_IO, "node %zu failed", i) : GC_OK;
}

/* more nodes than run at a time: every index once, the lowest failure reported */
static void test_each_node_waves(void)
{
	int hits[3 * GC_EACH_NODE_MAX + 5] = { 0 };
	size_t n = sizeof(hits) / sizeof(hits[0]), i;
	gc_err e;

	CHECK(gc_each_node(n, count_job, hits, &e) == GC_E_IO);
	CHECK(!strcmp(e.msg, "node 42 failed"));
	for (i = 0; i < n; i++)
		CHECK(hits[i] == 1);
}

int main(void)
{
	GCT_SUITE("fetch");
	GCT_RUN(test_parse_stream);
	GCT_RUN(test_parse_rejects);
	GCT_RUN(test_script_roundtrip);
	GCT_RUN(test_each_node);
	GCT_RUN(test_each_node_waves);
	return gct_finish();
}

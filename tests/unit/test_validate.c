/* tests/unit/test_validate.c: the checks before a sweep (orchestrator/run/validate.h),
 * background: queue fair's refusals, gc_yaml_locate on good and malformed text, the
 * exit status mapping, and the build tree test of `gcbench schedule install`. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "orchestrator/ops/schedule.h"
#include "orchestrator/run/validate.h"

static char dir[] = "/tmp/gct-validate-XXXXXX";

static void put(const char *name, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static const char *at(const char *name)
{
	static char p[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

/* gc_run_check on spec and inventory (NULL: local: 4) and db; its stderr into err */
static gc_rc check(const char *spec, const char *inv, const char *db, char *err, size_t n)
{
	struct gc_run_opts o = { .spec_path = at(spec), .inventory_path = inv ? at(inv) : NULL,
				 .db_path = at(db), .dry_run = 1 };
	int saved = dup(2), fd = open(at("stderr"), O_CREAT | O_TRUNC | O_WRONLY, 0600);
	gc_err e = { "" };
	gc_rc rc;
	FILE *f;
	size_t got;

	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	rc = gc_run_check(&o, NULL, &e);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fopen(at("stderr"), "r");
	got = f ? fread(err, 1, n - 1, f) : 0;
	err[got] = 0;
	if (f)
		fclose(f);
	return rc;
}

#define SPEC "name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nbandwidth: 1gbit\n" \
	     "world_size: 2\nbatch: 8\niterations: 2\n"

static void test_good_passes(void)
{
	char err[4096];

	put("ok.yaml", SPEC);
	put("key", "k\n");
	put("inv.yaml", "hosts:\n  - {name: a, address: 10.0.0.1, iface: eth0, gpus: 2, "
	    "identity: KEY}\n");
	/* the identity by absolute path */
	{
		char t[PATH_MAX * 2];
		snprintf(t, sizeof(t), "hosts:\n  - {name: a, address: 10.0.0.1, iface: eth0, "
			 "gpus: 2, identity: %s}\n", at("key"));
		put("inv.yaml", t);
	}
	CHECK_EQ_INT(check("ok.yaml", NULL, "new.db", err, sizeof(err)), GC_OK);
	CHECK_EQ_INT(check("ok.yaml", "inv.yaml", "new.db", err, sizeof(err)), GC_OK);
	CHECKF(access(at("new.db"), F_OK) != 0, "a check created the database");
	put("empty.db", "");
	CHECK_EQ_INT(check("ok.yaml", NULL, "empty.db", err, sizeof(err)), GC_OK);
}

static void test_spec_problems(void)
{
	char err[4096];

	put("csv.yaml", "name: t\nmodels: [resnet50, csv:nope.csv]\nmethods: [syncsgd]\n"
	    "bandwidth: 1gbit\nworld_size: 2\nbatch: 8\niterations: 2\n");
	CHECK_EQ_INT(check("csv.yaml", NULL, "x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "csv.yaml:2:20: model 'csv:nope.csv'") != NULL, "%s", err);
	CHECKF(strstr(err, "no such file") != NULL, "%s", err);

	put("excl.yaml", SPEC "exclude:\n  - {world_size: 2}\n");
	CHECK_EQ_INT(check("excl.yaml", NULL, "x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "excl.yaml:9:3: exclude drops every one of the 1 points") != NULL,
	       "%s", err);

	put("dupm.yaml", "name: t\nmodels: [resnet50]\nmethods: [{powersgd: {rank: [4, 4]}}]\n"
	    "baseline: powersgd\nbandwidth: 1gbit\nworld_size: 2\nbatch: 8\niterations: 2\n");
	CHECK_EQ_INT(check("dupm.yaml", NULL, "x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "dupm.yaml:3:") && strstr(err, "twice"), "%s", err);

	/* zipped axes may repeat values; a repeated tuple is two points with one key */
	put("zip.yaml", "name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nbandwidth: 1gbit\n"
	    "world_size: [2, 2, 4]\nbatch: [8, 16, 32]\nzip: [[world_size, batch]]\niterations: 2\n");
	CHECK_EQ_INT(check("zip.yaml", NULL, "x.db", err, sizeof(err)), GC_OK);
	put("zipdup.yaml", "name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nbandwidth: 1gbit\n"
	    "world_size: [2, 4, 2]\nbatch: [8, 16, 8]\nzip: [[world_size, batch]]\niterations: 2\n");
	CHECK_EQ_INT(check("zipdup.yaml", NULL, "x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "zipdup.yaml:7:6: points 1 and 3 have the same key") != NULL, "%s", err);

	put("badbw.yaml", "name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nbandwidth: 10Gbps\n"
	    "world_size: 2\nbatch: 8\niterations: 2\n");
	CHECK_EQ_INT(check("badbw.yaml", NULL, "x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "badbw.yaml:4:") != NULL, "%s", err);
}

/* background: queue: fair (the default) refused where its classes cannot follow the
 * cap: a trace, a latency under a cap, real hosts' racks; queue: fifo and points
 * without a cap pass */
static void test_bg_queue(void)
{
	char err[4096];

	put("bgl.yaml", SPEC "latency: [0, 1ms]\nbackground: {flows: 1}\n");
	CHECK_EQ_INT(check("bgl.yaml", NULL, "x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "bgl.yaml:9:13: background: queue fair (the default) cannot go with "
		       "a latency") != NULL, "%s", err);
	put("bgl2.yaml", SPEC "latency: 1ms\nbackground: {flows: 1, queue: fair}\n");
	CHECK_EQ_INT(check("bgl2.yaml", NULL, "x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "bgl2.yaml:9:31: background: queue fair") != NULL, "%s", err);
	put("bgf.yaml", SPEC "latency: 1ms\nbackground: {flows: 1, queue: fifo}\n");
	CHECK_EQ_INT(check("bgf.yaml", NULL, "x.db", err, sizeof(err)), GC_OK);
	put("bgu.yaml", "name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nbandwidth: unlimited\n"
	    "world_size: 2\nbatch: 8\niterations: 2\nlatency: 1ms\nbackground: {flows: 1}\n");
	CHECK_EQ_INT(check("bgu.yaml", NULL, "x.db", err, sizeof(err)), GC_OK);
	put("bgn.yaml", SPEC "latency: 1ms\nbackground: {flows: 0}\n");
	CHECK_EQ_INT(check("bgn.yaml", NULL, "x.db", err, sizeof(err)), GC_OK);

	put("sq.trace", "0 100mbit\n1 50mbit\n");
	put("bgt.yaml", "name: t\nmodels: [resnet50]\nmethods: [syncsgd]\n"
	    "bandwidth: [1gbit, trace:sq.trace]\nworld_size: 2\nbatch: 8\niterations: 2\n"
	    "background: {flows: 1}\n");
	CHECK_EQ_INT(check("bgt.yaml", NULL, "x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "bgt.yaml:8:13: background: queue fair (the default) cannot follow "
		       "a trace") != NULL, "%s", err);
	put("bgt2.yaml", "name: t\nmodels: [resnet50]\nmethods: [syncsgd]\n"
	    "bandwidth: [1gbit, trace:sq.trace]\nworld_size: 2\nbatch: 8\niterations: 2\n"
	    "background: {flows: 1, queue: fifo}\n");
	CHECK_EQ_INT(check("bgt2.yaml", NULL, "x.db", err, sizeof(err)), GC_OK);

	put("rk.yaml", "hosts:\n  - {name: a, address: 10.0.0.1, iface: eth0}\n"
	    "  - {name: b, address: 10.0.0.2, iface: eth0}\nracks: [[a], [b]]\n");
	put("bgr.yaml", SPEC "oversubscription: 2\nbackground: {flows: 1}\n");
	CHECK_EQ_INT(check("bgr.yaml", "rk.yaml", "x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "bgr.yaml:9:13: background: queue fair (the default) and the racks' "
		       "approximation") != NULL, "%s", err);
	put("bgr2.yaml", SPEC "oversubscription: 2\nbackground: {flows: 1, queue: fifo}\n");
	CHECK_EQ_INT(check("bgr2.yaml", "rk.yaml", "x.db", err, sizeof(err)), GC_OK);
	put("bgr3.yaml", SPEC "background: {flows: 1}\n");   /* racks, but no uplink: asked */
	CHECK_EQ_INT(check("bgr3.yaml", "rk.yaml", "x.db", err, sizeof(err)), GC_OK);
	CHECKF(access(at("x.db"), F_OK) != 0, "a check created the database");
}

static void test_inventory_problems(void)
{
	char err[4096];

	put("nccl.yaml", "name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nbandwidth: 1gbit\n"
	    "world_size: [2, 8]\nbatch: 8\niterations: 2\nbackend: nccl\n");
	put("nogpu.yaml", "hosts:\n  - {name: a, address: 10.0.0.1, iface: eth0}\n"
	    "  - {name: b, address: 10.0.0.2, iface: eth0, identity: /nonexistent/k}\n");
	CHECK_EQ_INT(check("nccl.yaml", "nogpu.yaml", "x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "nccl.yaml:8:10: backend 'nccl' runs one rank per GPU") != NULL, "%s", err);
	CHECKF(strstr(err, "nogpu.yaml:3:") && strstr(err, "host 'b': identity '/nonexistent/k'"),
	       "%s", err);

	/* with GPUs, where the ranks fit is the placement's question, not this one */
	put("gpu4.yaml", "hosts:\n  - {name: a, address: 10.0.0.1, iface: eth0, gpus: 2}\n"
	    "  - {name: b, address: 10.0.0.2, iface: eth0, gpus: 2}\n");
	CHECK_EQ_INT(check("nccl.yaml", "gpu4.yaml", "x.db", err, sizeof(err)), GC_OK);
	/* a local cluster's GPUs are this machine's: not checked */
	put("local.yaml", "local: 2\n");
	CHECK_EQ_INT(check("nccl.yaml", "local.yaml", "x.db", err, sizeof(err)), GC_OK);

	put("cfg.yaml", "ssh_config: /nonexistent/cfg\nhosts:\n  - {name: a, address: 10.0.0.1, "
	    "iface: eth0}\n");
	put("ok.yaml", SPEC);
	CHECK_EQ_INT(check("ok.yaml", "cfg.yaml", "x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "cfg.yaml:1:13: ssh_config '/nonexistent/cfg': no such file") != NULL,
	       "%s", err);
	CHECK_EQ_INT(check("ok.yaml", "missing-inv.yaml", "x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "missing-inv.yaml") != NULL, "%s", err);
}

static void test_db_problems(void)
{
	char err[4096], sub[PATH_MAX];

	put("ok.yaml", SPEC);
	snprintf(sub, sizeof(sub), "%s/adir", dir);
	mkdir(sub, 0700);
	CHECK_EQ_INT(check("ok.yaml", NULL, "adir", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "is a directory") != NULL, "%s", err);
	put("text.db", "index,name,shape,numel\nthis is not sqlite\n");
	CHECK_EQ_INT(check("ok.yaml", NULL, "text.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "is not a SQLite database") && !strstr(err, "index,name"), "%s", err);
	CHECK_EQ_INT(check("ok.yaml", NULL, "nodir/x.db", err, sizeof(err)), GC_E_INVAL);
	CHECKF(strstr(err, "does not exist") != NULL, "%s", err);
	put("real.db", "SQLite format 3");   /* the magic with its NUL: 16 bytes */
	{
		FILE *f = fopen(at("real.db"), "ab");
		if (f) {
			fputc(0, f);
			fclose(f);
		}
	}
	CHECK_EQ_INT(check("ok.yaml", NULL, "real.db", err, sizeof(err)), GC_OK);
}

static void test_yaml_locate(void)
{
	const char *t = "a: 1\nlist: [x, y]\nhosts:\n  - name: n1\n    port: 22\n";
	const char *bad[] = { "a: [1, 2\n", "", ":\n  - -\n  x: {\n", "\t- a\n" };
	size_t line, col;

	CHECK(gc_yaml_locate(t, strlen(t), "hosts/0/port", &line, &col));
	CHECK_EQ_INT(line, 5);
	CHECK_EQ_INT(col, 11);
	CHECK(gc_yaml_locate(t, strlen(t), "list/1", &line, &col));
	CHECK_EQ_INT(line, 2);
	CHECK_EQ_INT(col, 11);
	CHECK(gc_yaml_locate(t, strlen(t), "a/0", &line, &col));   /* a scalar as item 0 */
	CHECK_EQ_INT(line, 1);
	CHECK(!gc_yaml_locate(t, strlen(t), "a/1", &line, &col));
	CHECK(!gc_yaml_locate(t, strlen(t), "list/9", &line, &col));
	CHECK(!gc_yaml_locate(t, strlen(t), "list/x", &line, &col));
	CHECK(!gc_yaml_locate(t, strlen(t), "nokey", &line, &col));
	CHECK_EQ_INT(line, 0);
	CHECK(!gc_yaml_locate(t, strlen(t), "hosts/0/port/0/1", &line, &col));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECKF(!gc_yaml_locate(bad[i], strlen(bad[i]), "a", &line, &col), "bad[%zu]", i);
		CHECK_EQ_INT(line, 0);
	}
	{
		char longp[400];
		memset(longp, 'k', sizeof(longp) - 1);
		longp[sizeof(longp) - 1] = 0;
		CHECK(!gc_yaml_locate(t, strlen(t), longp, &line, &col));
	}
}

static void test_exit_codes(void)
{
	CHECK_EQ_INT(gc_exit_code(GC_OK), GC_EXIT_OK);
	CHECK_EQ_INT(gc_exit_code(GC_E_INVAL), GC_EXIT_USAGE);
	CHECK_EQ_INT(gc_exit_code(GC_E_FORMAT), GC_EXIT_USAGE);
	CHECK_EQ_INT(gc_exit_code(GC_E_NOTFOUND), GC_EXIT_ENV);
	CHECK_EQ_INT(gc_exit_code(GC_E_DB), GC_EXIT_ENV);
	CHECK_EQ_INT(gc_exit_code(GC_E_INTERRUPTED), 130);
	CHECK_EQ_INT(gc_exit_env(GC_E_INVAL), GC_EXIT_ENV);
	CHECK_EQ_INT(gc_exit_env(GC_E_INTERRUPTED), 130);
	CHECK_EQ_INT(gc_exit_env(GC_OK), 0);
}

static void test_build_tree(void)
{
	char p[PATH_MAX], root[PATH_MAX];

	snprintf(p, sizeof(p), "%s/src/build/bin", dir);
	CHECK(system(NULL) != 0);
	{
		char cmd[PATH_MAX * 8];
		snprintf(cmd, sizeof(cmd), "mkdir -p %s %s/src/orchestrator/cli %s/inst/bin && "
			 "touch %s/gcbench %s/src/Makefile %s/src/orchestrator/cli/main.c "
			 "%s/inst/bin/gcbench", p, dir, dir, p, dir, dir, dir);
		CHECK_EQ_INT(system(cmd), 0);
	}
	snprintf(p, sizeof(p), "%s/src/build/bin/gcbench", dir);
	CHECK(gc_sched_in_build_tree(p, root, sizeof(root)));
	snprintf(p, sizeof(p), "%s/src", dir);
	{
		char real[PATH_MAX];
		CHECK(realpath(p, real) != NULL);
		CHECK_STR(root, real);
	}
	snprintf(p, sizeof(p), "%s/inst/bin/gcbench", dir);
	CHECK(!gc_sched_in_build_tree(p, root, sizeof(root)));
	CHECK(!gc_sched_in_build_tree("/nonexistent/bin/gcbench", root, sizeof(root)));
}

int main(void)
{
	int rc;

	GCT_SUITE("validate");
	if (!mkdtemp(dir)) {
		printf("FAIL validate/setup: cannot create a temporary directory\n");
		return 1;
	}
	GCT_RUN(test_good_passes);
	GCT_RUN(test_spec_problems);
	GCT_RUN(test_bg_queue);
	GCT_RUN(test_inventory_problems);
	GCT_RUN(test_db_problems);
	GCT_RUN(test_yaml_locate);
	GCT_RUN(test_exit_codes);
	GCT_RUN(test_build_tree);
	rc = gct_finish();
	gct_rmtree(dir);
	return rc;
}

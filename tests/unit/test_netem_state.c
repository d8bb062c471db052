/* tests/unit/test_netem_state.c: state files, owner liveness, restore-all of links that
 * are gone, name validation and cluster subnets (no root needed). */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "home.h"
#include "netem/cluster.h"
#include "netem/pids.h"
#include "netem/shape.h"
#include "netem/state.h"

static char dir[64];

static void fill(struct gc_netem_state *st, const char *dev, const char *ns, pid_t owner)
{
	memset(st, 0, sizeof(*st));
	snprintf(st->dev, sizeof(st->dev), "%s", dev);
	snprintf(st->netns, sizeof(st->netns), "%s", ns);
	strcpy(st->orig_kind, "noqueue");
	strcpy(st->kind, "tbf");
	st->owner = owner;
	st->owner_start = gc_proc_start_time(owner);
	st->rate_bps = 30000000000ull;
	st->burst = 15000000;
}

static void test_roundtrip(void)
{
	struct gc_netem_state a, b;
	char path[512];
	gc_err e = { { 0 } };

	fill(&a, "eth0", "gcbt-ns", getpid());
	CHECK(a.owner_start > 0);
	CHECKF(gc_state_write(&a, &e) == GC_OK, "%s", e.msg);
	CHECK(gc_state_path("eth0", "gcbt-ns", path, sizeof(path), &e) == GC_OK);
	CHECK_CONTAINS(path, "/gcbt-ns_eth0.state");
	CHECKF(gc_state_read(path, &b, &e) == GC_OK, "%s", e.msg);
	CHECK_STR(b.dev, "eth0");
	CHECK_STR(b.netns, "gcbt-ns");
	CHECK_STR(b.orig_kind, "noqueue");
	CHECK(b.rate_bps == a.rate_bps && b.burst == a.burst && b.owner == a.owner);
	CHECK(gc_state_owner_alive(&b));
	unlink(path);
	CHECK(gc_state_read(path, &b, &e) == GC_E_NOTFOUND);
}

/* a delay is recorded only when there is one: a rate-only file is as before */
static void test_delay_recorded(void)
{
	struct gc_netem_state a, b;
	char path[512], text[1024];
	gc_err e = { { 0 } };
	FILE *f;
	size_t n;

	fill(&a, "eth1", "gcbt-ns", getpid());
	CHECKF(gc_state_write(&a, &e) == GC_OK, "%s", e.msg);
	CHECK(gc_state_path("eth1", "gcbt-ns", path, sizeof(path), &e) == GC_OK);
	f = fopen(path, "r");
	CHECK(f != NULL);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	CHECK(strstr(text, "delay_us") == NULL);
	strcpy(a.kind, "netem");
	a.rate_bps = 0;
	a.burst = 0;
	a.delay_us = 10000;
	CHECKF(gc_state_write(&a, &e) == GC_OK, "%s", e.msg);
	CHECKF(gc_state_read(path, &b, &e) == GC_OK, "%s", e.msg);
	CHECK_STR(b.kind, "netem");
	CHECK(b.delay_us == 10000 && b.rate_bps == 0);
	unlink(path);
}

static void test_malformed(void)
{
	struct gc_netem_state b;
	char path[512];
	gc_err e = { { 0 } };
	FILE *f;

	snprintf(path, sizeof(path), "%s/bad.state", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	fputs("version=1\ndev=eth0\nrate_bps=12S3CR3T\n", f);
	fclose(f);
	CHECK(gc_state_read(path, &b, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "bad.state:3:10: expected KEY=VALUE");
	CHECK(!strstr(e.msg, "S3CR3T"));   /* never quotes the file */
	f = fopen(path, "w");
	CHECK(f != NULL);
	fputs("version=1\nroot:$y$S3CR3T:19000:0:99999:7:::\n", f);
	fclose(f);
	CHECK(gc_state_read(path, &b, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "bad.state:2:1: expected KEY=VALUE");
	CHECK(!strstr(e.msg, "S3CR3T"));
	unlink(path);
}

static void test_owner_gone(void)
{
	struct gc_netem_state st;
	pid_t child = fork();
	int status;

	if (child == 0)
		_exit(0);
	CHECK(child > 0);
	fill(&st, "eth0", "", getpid());
	st.owner = child;
	waitpid(child, &status, 0);
	CHECK(!gc_state_owner_alive(&st));
	fill(&st, "eth0", "", getpid());
	st.owner_start += 1;                 /* same pid, other start time: reused pid */
	CHECK(!gc_state_owner_alive(&st));
	st.owner = 0;
	CHECK(!gc_state_owner_alive(&st));
}

static void test_restore_all_vanished(void)
{
	struct gc_netem_state st;
	char path[512];
	int n = -1;
	gc_err e = { { 0 } };
	pid_t child = fork();

	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	/* a namespace that does not exist: its qdisc went with it; the file goes too */
	fill(&st, "eth0", "gcbt-vanished-ns", getpid());
	st.owner = child;
	CHECK(gc_state_write(&st, &e) == GC_OK);
	fill(&st, "eth1", "gcbt-alive-ns", getpid());   /* owner alive: left alone */
	CHECK(gc_state_write(&st, &e) == GC_OK);
	CHECKF(gc_shape_restore_all(0, &n, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(n, 1);
	gc_state_path("eth0", "gcbt-vanished-ns", path, sizeof(path), NULL);
	CHECK(access(path, F_OK) != 0);
	gc_state_path("eth1", "gcbt-alive-ns", path, sizeof(path), NULL);
	CHECK(access(path, F_OK) == 0);
	CHECK(gc_shape_restore_all(1, &n, &e) == GC_OK && n == 1);
	CHECK(access(path, F_OK) != 0);
	CHECK(gc_shape_clear("eth0", "gcbt-never-touched", &e) == GC_OK);   /* idempotent */
}

static void test_names(void)
{
	gc_err e = { { 0 } };
	struct gc_shape_req r = { .dev = "eth0;rm", .rate_bps = 1000000000ull };

	CHECK(gc_shape_valid_dev("eth0") && gc_shape_valid_dev("gc17-v1"));
	CHECK(!gc_shape_valid_dev("") && !gc_shape_valid_dev("-x") && !gc_shape_valid_dev("a/b"));
	CHECK(!gc_shape_valid_dev("sixteen-chars-xx") && !gc_shape_valid_dev("a b"));
	CHECK(gc_shape_valid_netns("gcb-gcb-n1") && !gc_shape_valid_netns("../etc"));
	CHECK(gc_shape_set(&r, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "invalid interface name 'eth0;rm'");
	r.dev = "eth0";
	r.netns = "../x";
	CHECK(gc_shape_set(&r, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "invalid namespace name '../x'");
}

static void test_cluster_names(void)
{
	char buf[256];
	gc_err e = { { 0 } };

	CHECK(gc_cluster_valid_name("gcb") && gc_cluster_valid_name("a-1") &&
	      gc_cluster_valid_name("abcdefghijkl"));
	CHECK(!gc_cluster_valid_name("") && !gc_cluster_valid_name("abcdefghijklm") &&
	      !gc_cluster_valid_name("A") && !gc_cluster_valid_name("a_b") &&
	      !gc_cluster_valid_name("a b") && !gc_cluster_valid_name("a/b"));
	CHECK(gc_cluster_subnet("gcb") >= 1 && gc_cluster_subnet("gcb") <= 250);
	CHECK_EQ_INT(gc_cluster_subnet("gcb"), gc_cluster_subnet("gcb"));
	CHECK(gc_cluster_subnet("gcb") != gc_cluster_subnet("gcc"));
	/* FNV-1a 32 of the name, computed apart (Python): existing clusters keep their subnet */
	CHECK_EQ_INT(gc_cluster_subnet("gcb"), 224);
	setenv("GCBENCH_HOME", "/var/lib/gcbench", 1);
	CHECK(gc_cluster_dir("gcb", buf, sizeof(buf), &e) == GC_OK);
	CHECK_STR(buf, "/var/lib/gcbench/clusters/gcb");
	setenv("GCBENCH_HOME", "relative", 1);
	CHECK(gc_cluster_dir("gcb", buf, sizeof(buf), &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "absolute path");
	unsetenv("GCBENCH_HOME");
	{       /* the same default as every other user of GCBENCH_HOME (common/home.h) */
		char want[256];
		snprintf(want, sizeof(want), "%s/clusters/gcb", gc_home());
		if (gc_cluster_dir("gcb", buf, sizeof(buf), &e) == GC_OK)
			CHECK_STR(buf, want);
		else   /* a long or spaced $HOME of a non-root login */
			CHECK(strstr(e.msg, "too long") || strstr(e.msg, "without spaces"));
	}
	if (geteuid() != 0) {
		CHECK(gc_cluster_up("gcb", 2, NULL, &e) == GC_E_PERM);
		CHECK_CONTAINS(e.msg, "needs root");
	}
	CHECK(gc_cluster_up("Bad", 2, NULL, &e) == GC_E_INVAL);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/gcbt-state-%d", (int)getpid());
	setenv("GCBENCH_NETEM_STATE_DIR", dir, 1);
	GCT_SUITE("netem_state");
	GCT_RUN(test_roundtrip);
	GCT_RUN(test_delay_recorded);
	GCT_RUN(test_malformed);
	GCT_RUN(test_owner_gone);
	GCT_RUN(test_restore_all_vanished);
	GCT_RUN(test_names);
	GCT_RUN(test_cluster_names);
	rmdir(dir);
	return gct_finish();
}

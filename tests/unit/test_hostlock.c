/* The host lock (orchestrator/run/hostlock.h): the owner record and its parser, and the
 * holders through a stand-in ssh that runs the remote command here, with each host's
 * lock directory under a temporary directory (GCBENCH_HOSTLOCK_DIR, set per address). */
#include "harness.h"
#include "orchestrator/run/hostlock.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char base[256];   /* temporary: fake ssh, one lock directory per address */

static void test_owner_roundtrip(void)
{
	struct gc_hostlock_owner a, b;
	char text[4096];
	gc_err e = { "" };

	gc_hostlock_owner_self(&a, "/etc/inv.yaml", "s.yaml", NULL);
	CHECK(*a.controller && *a.user && a.pid == getpid());
	CHECK_STR(a.db, "-");
	a.since = 1796361182;
	CHECK(gc_hostlock_owner_format(&a, text, sizeof(text)) < (int)sizeof(text));
	CHECKF(gc_hostlock_owner_parse(text, &b, &e) == GC_OK, "%s", e.msg);
	CHECK_STR(b.controller, a.controller);
	CHECK_STR(b.user, a.user);
	CHECK_STR(b.inventory, "/etc/inv.yaml");
	CHECK_STR(b.spec, a.spec);
	CHECK_EQ_INT(b.pid, a.pid);
	CHECK_EQ_INT(b.since, 1796361182);
	/* without since (the record a controller sends): not a complete record */
	a.since = 0;
	gc_hostlock_owner_format(&a, text, sizeof(text));
	CHECK(strstr(text, "since=") == NULL);
	CHECK(gc_hostlock_owner_parse(text, &b, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "since");
	/* control characters in what this process reports are replaced */
	gc_hostlock_owner_self(&a, "in\nv", "s", "d");
	CHECK_STR(a.inventory, "in?v");
}

static void test_owner_unknown_key(void)
{
	struct gc_hostlock_owner o;
	gc_err e = { "" };

	CHECKF(gc_hostlock_owner_parse("# c\nversion=1\ncontroller=c\npid=5\nsince=9\nlater=x\n",
				       &o, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(o.pid, 5);
}

static void test_owner_malformed(void)
{
	static const char *const bad[] = {
		"",
		"SECRET\n",
		"controller=SECRET\npid=1\nsince=1\n",                    /* no version */
		"version=2\ncontroller=SECRET\npid=1\nsince=1\n",
		"version=1\ncontroller=SECRET\npid=x1\nsince=1\n",
		"version=1\ncontroller=SECRET\npid=0\nsince=1\n",
		"version=1\ncontroller=SECRET\npid=-4\nsince=1\n",
		"version=1\ncontroller=SEC\tRET\npid=1\nsince=1\n",
		"version=1\ncontroller=\npid=1\nsince=1\n",
		"version=1\npid=1\nsince=1\nSECRET\n",
		"version=1\ncontroller=x\npid=1\n",
		"version=1\ncontroller=x\nsince=1\n",
		("version=1\nuser=SECRETSECRETSECRETSECRETSECRETSECRETSECRETSECRETSECRETSECRETSECRETSECRET\n"
		 "controller=x\npid=1\nsince=1\n"),
		"version=99999999999999999999999\ncontroller=x\npid=1\nsince=1\n",
	};
	char longline[1500];
	struct gc_hostlock_owner o;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gc_err e = { "" };
		CHECKF(gc_hostlock_owner_parse(bad[i], &o, &e) == GC_E_FORMAT, "case %zu parsed", i);
		CHECKF(*e.msg && !strstr(e.msg, "SECRET") && !strstr(e.msg, "SEC"),
		       "case %zu: '%s'", i, e.msg);
	}
	memset(longline, 'S', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = 0;
	{
		gc_err e = { "" };
		CHECK(gc_hostlock_owner_parse(longline, &o, &e) == GC_E_FORMAT);
		CHECK_CONTAINS(e.msg, "line 1 is too long");
	}
}

static void test_owner_describe(void)
{
	struct gc_hostlock_owner o = { .pid = 812, .since = 1796361000 };
	char d[2048];

	snprintf(o.controller, sizeof(o.controller), "ctl");
	snprintf(o.user, sizeof(o.user), "alice");
	snprintf(o.home, sizeof(o.home), "/h");
	gc_hostlock_owner_describe(&o, 1796361000 + 725, d, sizeof(d));
	CHECK_CONTAINS(d, "user 'alice' on 'ctl'");
	CHECK_CONTAINS(d, "pid 812");
	CHECK_CONTAINS(d, "UTC, 12 min ago");
	CHECK_CONTAINS(d, "GCBENCH_HOME /h");
	CHECK_CONTAINS(d, "inventory -");
}

/* ---- holders, through the stand-in ssh ---- */

static gc_node node(const char *name, const char *addr)
{
	gc_node n;
	memset(&n, 0, sizeof(n));
	snprintf(n.name, sizeof(n.name), "%s", name);
	snprintf(n.address, sizeof(n.address), "%s", addr);
	return n;
}

static int fake_ssh(void)
{
	char path[300], env[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/ssh", base);
	f = fopen(path, "w");
	if (!f)
		return -1;
	/* the address is the argument before "--", the remote command the last one */
	fprintf(f, "#!/bin/sh\nprev=; addr=; for a; do [ \"$a\" = -- ] && addr=$prev; "
		"prev=$a; done\nmkdir -p \"%s/h-$addr\"\n"
		"GCBENCH_HOSTLOCK_DIR=\"%s/h-$addr\" exec sh -c \"$prev\"\n", base, base);
	fclose(f);
	chmod(path, 0755);
	snprintf(env, sizeof(env), "%s:%s", base, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	return setenv("PATH", env, 1);
}

/* the lock file of the stand-in host addr */
static void lock_file(const char *addr, char *buf, size_t n)
{
	struct stat st;
	unsigned long long ino = stat("/proc/self/ns/net", &st) ? 0 : (unsigned long long)st.st_ino;

	snprintf(buf, n, "%s/h-%s/host@%llu", base, addr, ino);
}

static long long file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) ? -1 : (long long)st.st_size;
}

static int have_flock(void)
{
	return system("command -v flock >/dev/null 2>&1") == 0;
}

static void test_hold_busy_release(void)
{
	gc_node a[2] = { node("n2", "10.0.0.2"), node("n1", "10.0.0.1") };
	gc_node b[2] = { node("m3", "10.0.0.3"), node("m2", "10.0.0.2") };
	gc_node c[1] = { node("m3", "10.0.0.3") };
	struct gc_hostlocks ha, hb, hc;
	struct gc_hostlock_owner me;
	char p[400];
	gc_err e = { "" };

	if (!have_flock())
		SKIP("no flock(1) here (util-linux)");
	gc_hostlock_owner_self(&me, "inv-a.yaml", "spec.yaml", "a.db");
	CHECKF(gc_hostlock_acquire(a, 2, &me, &ha, &e) == GC_OK, "%s", e.msg);
	lock_file("10.0.0.1", p, sizeof(p));
	CHECK(file_size(p) > 0);
	/* a second owner on hosts that overlap: stops, names the host and the owner */
	CHECK(gc_hostlock_acquire(b, 2, &me, &hb, &e) == GC_E_BUSY);
	CHECK_CONTAINS(e.msg, "host 'm2' (10.0.0.2) is held by another gcbench run");
	CHECK_CONTAINS(e.msg, "inv-a.yaml");
	CHECK_CONTAINS(e.msg, "nothing was changed");
	/* ... and gave back the host it had taken */
	CHECKF(gc_hostlock_acquire(c, 1, &me, &hc, &e) == GC_OK, "%s", e.msg);
	gc_hostlock_release(&hc);
	gc_hostlock_release(&ha);
	CHECK(file_size(p) == 0);   /* the holder emptied its record */
	CHECKF(gc_hostlock_acquire(b, 2, &me, &hb, &e) == GC_OK, "%s", e.msg);
	gc_hostlock_release(&hb);
	gc_hostlock_release(&hb);      /* twice: harmless */
}

static void test_hold_malformed_owner(void)
{
	gc_node a[1] = { node("n1", "10.0.0.7") };
	struct gc_hostlocks ha, hb;
	struct gc_hostlock_owner me;
	char p[400];
	FILE *f;
	gc_err e = { "" };

	if (!have_flock())
		SKIP("no flock(1) here (util-linux)");
	gc_hostlock_owner_self(&me, NULL, "spec.yaml", "a.db");
	CHECKF(gc_hostlock_acquire(a, 1, &me, &ha, &e) == GC_OK, "%s", e.msg);
	lock_file("10.0.0.7", p, sizeof(p));
	f = fopen(p, "w");
	CHECK(f != NULL);
	fputs("root:$6$SECRETHASH:19000:0:99999:7:::\n", f);
	fclose(f);
	CHECK(gc_hostlock_acquire(a, 1, &me, &hb, &e) == GC_E_BUSY);
	gc_hostlock_release(&ha);
	CHECK_CONTAINS(e.msg, "cannot be read");
	CHECKF(!strstr(e.msg, "SECRET") && !strstr(e.msg, "root:"), "quoted: %s", e.msg);
}

/* The controller dies by SIGKILL while holding: the next one takes over. */
static void test_hold_takeover_after_sigkill(void)
{
	gc_node a[2] = { node("n1", "10.0.0.21"), node("n2", "10.0.0.22") };
	struct gc_hostlocks h;
	struct gc_hostlock_owner me;
	int sync[2], k;
	char ch = 0;
	pid_t kid;
	gc_rc rc = GC_E_BUSY;
	gc_err e = { "" };

	if (!have_flock())
		SKIP("no flock(1) here (util-linux)");
	gc_hostlock_owner_self(&me, NULL, "spec.yaml", "a.db");
	CHECK(pipe(sync) == 0);
	fflush(stdout);
	kid = fork();
	if (kid == 0) {
		struct gc_hostlocks mine;
		char ok = gc_hostlock_acquire(a, 2, &me, &mine, NULL) == GC_OK ? 'y' : 'n';
		if (write(sync[1], &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(sync[1]);
	CHECK(read(sync[0], &ch, 1) == 1);
	close(sync[0]);
	CHECK(ch == 'y');
	CHECK(gc_hostlock_acquire(a, 2, &me, &h, &e) == GC_E_BUSY);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	for (k = 0; k < 50 && rc == GC_E_BUSY; k++) {   /* the holders end within moments */
		rc = gc_hostlock_acquire(a, 2, &me, &h, &e);
		if (rc == GC_E_BUSY)
			usleep(100000);
	}
	CHECKF(rc == GC_OK, "%s", e.msg);
	gc_hostlock_release(&h);
}

/* The controller is gone but its holder was not told (a connection that did not carry
 * the end of input: here a leftover process keeps the holder's stdin open): the owner
 * is provably gone on this machine, so the next run ends that holder and takes over. */
static void test_hold_takeover_stale_holder(void)
{
	gc_node a[1] = { node("n1", "10.0.0.31") };
	struct gc_hostlocks h;
	struct gc_hostlock_owner me;
	int sync[2];
	pid_t kid, keeper = 0;
	gc_err e = { "" };

	if (!have_flock())
		SKIP("no flock(1) here (util-linux)");
	gc_hostlock_owner_self(&me, NULL, "spec.yaml", "a.db");
	CHECK(pipe(sync) == 0);
	fflush(stdout);
	kid = fork();
	if (kid == 0) {
		struct gc_hostlocks mine;
		struct gc_hostlock_owner self;
		pid_t k;
		gc_hostlock_owner_self(&self, NULL, "spec.yaml", "a.db");   /* this pid */
		if (gc_hostlock_acquire(a, 1, &self, &mine, NULL) != GC_OK)
			_exit(1);
		k = fork();   /* keeps the holder's stdin open after this process is killed */
		if (k == 0) {
			sleep(60);
			_exit(0);
		}
		if (write(sync[1], &k, sizeof(k)) != sizeof(k))
			_exit(1);
		pause();
		_exit(0);
	}
	close(sync[1]);
	CHECK(read(sync[0], &keeper, sizeof(keeper)) == sizeof(keeper));
	close(sync[0]);
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	CHECKF(gc_hostlock_acquire(a, 1, &me, &h, &e) == GC_OK, "%s", e.msg);
	gc_hostlock_release(&h);
	kill(keeper, SIGKILL);
	/* a live owner of this machine is never taken over */
	me.pid = getpid();
	CHECK(gc_hostlock_owner_gone(&me) == 0);
}

static void test_owner_gone(void)
{
	struct gc_hostlock_owner o;
	pid_t kid;

	gc_hostlock_owner_self(&o, NULL, NULL, NULL);
	CHECK(*o.machine && *o.boot && o.pidns && o.start);
	CHECK(gc_hostlock_owner_gone(&o) == 0);   /* this process */
	fflush(stdout);
	kid = fork();
	if (kid == 0)
		_exit(0);
	waitpid(kid, NULL, 0);
	o.pid = kid;                              /* ended */
	CHECK(gc_hostlock_owner_gone(&o) == 1);
	/* alive, but another process than recorded: a child started 30 ms after this
	 * process (the start times differ by more than a clock tick; the parent, which
	 * may have started in the same tick as this process, would not do) */
	struct timespec ts = { 0, 30 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	pid_t alive = fork();
	if (alive == 0) {
		pause();
		_exit(0);
	}
	o.pid = alive;
	CHECK(alive > 0 && gc_hostlock_owner_gone(&o) == 1);
	kill(alive, SIGKILL);
	waitpid(alive, NULL, 0);
	o.pid = kid;
	snprintf(o.machine, sizeof(o.machine), "0123");   /* another machine: not known */
	CHECK(gc_hostlock_owner_gone(&o) == 0);
	gc_hostlock_owner_self(&o, NULL, NULL, NULL);
	o.pid = kid;
	snprintf(o.controller, sizeof(o.controller), "elsewhere");
	CHECK(gc_hostlock_owner_gone(&o) == 0);
	gc_hostlock_owner_self(&o, NULL, NULL, NULL);
	o.pid = kid;
	o.start = 0;                              /* an older record: not known */
	CHECK(gc_hostlock_owner_gone(&o) == 0);
}

int main(void)
{
	int rc;

	GCT_SUITE("hostlock");
	snprintf(base, sizeof(base), "/tmp/gcbench-test-hostlock.XXXXXX");
	if (!mkdtemp(base) || fake_ssh()) {
		printf("FAIL hostlock/setup: cannot make a temporary directory\n");
		return 1;
	}
	GCT_RUN(test_owner_roundtrip);
	GCT_RUN(test_owner_unknown_key);
	GCT_RUN(test_owner_malformed);
	GCT_RUN(test_owner_describe);
	GCT_RUN(test_owner_gone);
	GCT_RUN(test_hold_busy_release);
	GCT_RUN(test_hold_malformed_owner);
	GCT_RUN(test_hold_takeover_after_sigkill);
	GCT_RUN(test_hold_takeover_stale_holder);
	rc = gct_finish();
	gct_rmtree(base);
	return rc;
}

#include <signal.h>
#include <unistd.h>

#include "harness.h"
#include "proc.h"
#include "timing.h"

static void test_capture(void)
{
	char *argv[] = { "sh", "-c", "echo out; echo err >&2; exit 3", NULL };
	gc_proc_result r;
	gc_err e;
	CHECK(gc_proc_run(argv, NULL, NULL, 10, 0, &r, &e) == GC_OK);
	CHECK_EQ_INT(r.status, 3);
	CHECK_STR(r.out, "out\n");
	CHECK_STR(r.err_tail, "err\n");
	gc_proc_result_release(&r);
}

static void test_stdin_env(void)
{
	char *argv[] = { "sh", "-c", "read x; echo \"$x-$GCT_VAR\"", NULL };
	const char *env[] = { "GCT_VAR=v", NULL };
	gc_proc_result r;
	gc_err e;
	CHECK(gc_proc_run(argv, env, "in\n", 10, 0, &r, &e) == GC_OK);
	CHECK_STR(r.out, "in-v\n");
	gc_proc_result_release(&r);
}

/* alive and not a zombie waiting for init to reap it */
static int alive(int pid)
{
	char path[64], st[512];
	FILE *f;
	size_t n;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(st, 1, sizeof(st) - 1, f);
	fclose(f);
	st[n] = 0;
	return !strstr(st, ") Z ");
}

static void test_timeout_kills_group(void)
{
	/* a child that starts a grandchild; both must be gone after the timeout */
	char *argv[] = { "sh", "-c", "sleep 30 & echo $!; wait", NULL };
	gc_proc_result r;
	gc_err e;
	uint64_t t0 = gc_now_ns();
	gc_rc rc = gc_proc_run(argv, NULL, NULL, 0.5, 0, &r, &e);
	double dt = (double)(gc_now_ns() - t0) * 1e-9;
	int gpid = atoi(r.out);
	CHECK(rc == GC_E_TIMEOUT);
	CHECK(r.timed_out);
	CHECK(dt < 5);
	CHECK(gpid > 0);
	usleep(100000);
	CHECKF(!alive(gpid), "grandchild %d still alive", gpid);
	gc_proc_result_release(&r);
}

static void test_missing_program(void)
{
	char *argv[] = { "/nonexistent/prog", NULL };
	gc_proc_result r;
	gc_err e = { "" };
	CHECK(gc_proc_run(argv, NULL, NULL, 5, 0, &r, &e) == GC_E_NOTFOUND);
	CHECK_CONTAINS(e.msg, "/nonexistent/prog");
	gc_proc_result_release(&r);
}

static void test_no_shell_expansion(void)
{
	char *argv[] = { "echo", "$(touch /tmp/gcbench-proc-injected)", NULL };
	gc_proc_result r;
	gc_err e;
	unlink("/tmp/gcbench-proc-injected");
	CHECK(gc_proc_run(argv, NULL, NULL, 5, 0, &r, &e) == GC_OK);
	CHECK(access("/tmp/gcbench-proc-injected", F_OK) != 0);
	CHECK_CONTAINS(r.out, "$(touch");
	gc_proc_result_release(&r);
}

static void test_interrupt(void)
{
	char *argv[] = { "sleep", "30", NULL };
	gc_proc_result r;
	gc_err e;
	gc_proc_interrupt();
	CHECK(gc_proc_run(argv, NULL, NULL, 60, 0, &r, &e) == GC_E_INTERRUPTED);
	gc_proc_clear_interrupt();
	CHECK(r.interrupted);
	gc_proc_result_release(&r);
}

static const char *const stall_marks[] = { "job failed", NULL };

/* A mark on stderr, then the child hangs: killed grace seconds later, not at the
 * (far) deadline, with its group. */
static void test_stall_mark_bounds_a_hang(void)
{
	char *argv[] = { "sh", "-c", "printf 'x: job fai' >&2; sleep 0.2; echo 'led' >&2; sleep 30",
			 NULL };
	gc_proc_opts o = { 60, 0, stall_marks, 0.5 };
	gc_proc_result r;
	gc_err e = { "" };
	uint64_t t0 = gc_now_ns();
	gc_rc rc = gc_proc_run_opts(argv, NULL, NULL, &o, &r, &e);
	double dt = (double)(gc_now_ns() - t0) * 1e-9;
	char how[128];
	CHECK(rc == GC_E_TIMEOUT);
	CHECK(r.stalled);
	CHECK(!r.timed_out);
	CHECKF(dt > 0.6 && dt < 5, "ended after %.2f s", dt);
	CHECK_CONTAINS(e.msg, "after the job failed");
	gc_proc_describe(&r, 60, how, sizeof(how));
	CHECK_CONTAINS(how, "hung");
	gc_proc_result_release(&r);
}

/* A mark, then a prompt exit: nothing is killed; no mark: the deadline applies. */
static void test_stall_mark_exit_in_grace(void)
{
	char *argv[] = { "sh", "-c", "echo 'job failed' >&2; sleep 0.2; exit 3", NULL };
	char *quiet[] = { "sh", "-c", "echo 'all good' >&2; sleep 1.5; exit 0", NULL };
	gc_proc_opts o = { 60, 0, stall_marks, 5 };
	gc_proc_opts q = { 60, 0, stall_marks, 0.2 };
	gc_proc_result r;
	gc_err e;
	CHECK(gc_proc_run_opts(argv, NULL, NULL, &o, &r, &e) == GC_OK);
	CHECK(r.status == 3 && !r.stalled);
	gc_proc_result_release(&r);
	CHECK(gc_proc_run_opts(quiet, NULL, NULL, &q, &r, &e) == GC_OK);
	CHECK(r.status == 0 && !r.stalled);
	gc_proc_result_release(&r);
}

int main(void)
{
	GCT_SUITE("proc");
	GCT_RUN(test_capture);
	GCT_RUN(test_stdin_env);
	GCT_RUN(test_timeout_kills_group);
	GCT_RUN(test_missing_program);
	GCT_RUN(test_no_shell_expansion);
	GCT_RUN(test_interrupt);
	GCT_RUN(test_stall_mark_bounds_a_hang);
	GCT_RUN(test_stall_mark_exit_in_grace);
	return gct_finish();
}

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

int main(void)
{
	GCT_SUITE("proc");
	GCT_RUN(test_capture);
	GCT_RUN(test_stdin_env);
	GCT_RUN(test_timeout_kills_group);
	GCT_RUN(test_missing_program);
	GCT_RUN(test_no_shell_expansion);
	GCT_RUN(test_interrupt);
	return gct_finish();
}

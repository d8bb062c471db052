/* gcbench reap: marked processes of ours are ended, unmarked ones are left alone. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "orchestrator/remote/reap.h"

static void test_mark_parse(void)
{
	const char argv_mark[] = "orted\0-mca\0ess\0env\0--mca\0gcbench_run\0" "042\0--mca\0pml\0ob1";
	const char argv_none[] = "orted\0gcbench_run\0" "042\0--mca";
	const char argv_cut[] = "orted\0--mca\0gcbench_run";
	const char env_mark[] = "PATH=/bin\0OMPI_MCA_gcbench_run=7\0";
	const char env_empty[] = "OMPI_MCA_gcbench_run=\0";
	size_t l = 0;
	const char *v;

	v = gc_reap_mark(argv_mark, sizeof(argv_mark), NULL, 0, &l);
	CHECK(v && l == 3 && !memcmp(v, "042", 3));
	CHECK(!gc_reap_mark(argv_none, sizeof(argv_none), NULL, 0, &l));   /* not after --mca */
	CHECK(!gc_reap_mark(argv_cut, sizeof(argv_cut) - 1, NULL, 0, &l));  /* no value */
	v = gc_reap_mark(argv_none, sizeof(argv_none), env_mark, sizeof(env_mark), &l);
	CHECK(v && l == 1 && *v == '7');
	CHECK(!gc_reap_mark(NULL, 0, env_empty, sizeof(env_empty), &l));
	CHECK(!gc_reap_mark("", 0, "", 0, &l));
}

static pid_t spawn(int marked)
{
	pid_t p = fork();
	if (p == 0) {
		char *argv[] = { "sleep", "30", NULL };
		if (marked)
			setenv("OMPI_MCA_gcbench_run", "99", 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	return p;
}

static int gone(pid_t p)
{
	int st;
	for (int i = 0; i < 150; i++) {
		if (waitpid(p, &st, WNOHANG) == p)
			return 1;
		usleep(20000);
	}
	return 0;
}

static void test_reap_ends_only_marked(void)
{
	pid_t marked = spawn(1), plain = spawn(0);
	char buf[4096] = "";
	FILE *log = fmemopen(buf, sizeof(buf), "w");
	int n = -1;
	gc_err e;

	usleep(200000);   /* let both exec */
	CHECK(gc_reap(1, 2.0, log, &n, &e) == GC_OK);
	fflush(log);
	CHECKF(n >= 1, "dry run found %d", n);
	CHECK_CONTAINS(buf, "would end sleep");
	CHECK(kill(marked, 0) == 0);          /* a dry run ends nothing */
	rewind(log);
	CHECK(gc_reap(0, 2.0, log, &n, &e) == GC_OK);
	fclose(log);
	CHECK_CONTAINS(buf, "of run 99");
	CHECK(gone(marked));
	CHECK(kill(plain, 0) == 0);
	kill(plain, SIGKILL);
	waitpid(plain, NULL, 0);
}

int main(void)
{
	GCT_SUITE("reap");
	GCT_RUN(test_mark_parse);
	GCT_RUN(test_reap_ends_only_marked);
	return gct_finish();
}

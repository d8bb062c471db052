/* The mpirun command line and the sweep lock. */
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "orchestrator/remote/launch.h"
#include "orchestrator/run/lock.h"
#include "orchestrator/run/progress.h"
#include "proc.h"

static char *joined(char **v)
{
	static char buf[8192];
	size_t i;
	buf[0] = 0;
	for (i = 0; v[i]; i++) {
		strcat(buf, v[i]);
		strcat(buf, "|");
	}
	return buf;
}

static gc_launch base(void)
{
	gc_launch l = { .worker = "/opt/gcbench/bin/gcbench-worker", .hosts = { "n1", "n2", "n3" },
			.nhosts = 3, .slots_per_host = 1, .world = 2, .ssh_config = "/c/ssh_config",
			.iface = "eth0", .backend = "mpi", .method = "powersgd",
			.params = { "rank=4" }, .nparams = 1, .workload = "replay:resnet50",
			.iters = 10, .warmup = 2, .batch = 32, .compute_scale = 1,
			.out_pattern = "/tmp/run1/records-r%r.gcr", .allow_root = 1 };
	return l;
}

static void test_argv(void)
{
	gc_launch l = base();
	char **v;
	gc_err e;
	CHECK(gc_launch_argv(&l, &v, &e) == GC_OK);
	CHECK_CONTAINS(joined(v), "mpirun|--allow-run-as-root|-np|2|--host|n1:1,n2:1|--map-by|node|");
	CHECK_CONTAINS(joined(v), "--mca|btl|tcp,self|--mca|btl_tcp_if_include|eth0|");
	CHECK_CONTAINS(joined(v), "--mca|pml|ob1|");
	CHECK_CONTAINS(joined(v), "coll_tuned_allreduce_algorithm|4|");
	CHECK_CONTAINS(joined(v), "plm_rsh_agent|ssh -F /c/ssh_config -o BatchMode=yes|");
	CHECK_CONTAINS(joined(v), "NCCL_SOCKET_IFNAME=eth0|");
	CHECK_CONTAINS(joined(v), "--method|powersgd|--param|rank=4|--workload|replay:resnet50|");
	CHECK_CONTAINS(joined(v), "--out|/tmp/run1/records-r%r.gcr|");
	CHECK(!strstr(joined(v), "--threads"));      /* 0: the worker decides */
	CHECK(!strstr(joined(v), "gcbench_run"));    /* no run id: no mark */
	gc_argv_free(v);
	l.run_id = 17;
	CHECK(gc_launch_argv(&l, &v, &e) == GC_OK);
	CHECK_CONTAINS(joined(v), "|--mca|gcbench_run|17|");
	gc_argv_free(v);
	l.run_id = 0;
	l.threads = 1;                                /* ranks sharing cores: one each */
	CHECK(gc_launch_argv(&l, &v, &e) == GC_OK);
	CHECK_CONTAINS(joined(v), "--threads|1|--iface|eth0|");
	CHECK(!strstr(joined(v), "--eval-every"));   /* 0: no validation (replay) */
	gc_argv_free(v);
	l.eval_every = 20, l.workload = "train:cnn";  /* training: validate every 20 */
	l.data = "digits";
	CHECK(gc_launch_argv(&l, &v, &e) == GC_OK);
	CHECK_CONTAINS(joined(v), "--workload|train:cnn|");
	CHECK_CONTAINS(joined(v), "--threads|1|--eval-every|20|--data|digits|--iface|eth0|");
	gc_argv_free(v);
}

static void test_too_few_hosts(void)
{
	gc_launch l = base();
	char **v;
	gc_err e;
	l.world = 4;
	CHECK(gc_launch_argv(&l, &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "4 ranks need 4 hosts");
	l.slots_per_host = 2;
	CHECK(gc_launch_argv(&l, &v, &e) == GC_OK);
	CHECK_CONTAINS(joined(v), "--host|n1:2,n2:2|");
	gc_argv_free(v);
}

static void test_rejects_injection(void)
{
	const char *bad[] = { "eth0; touch /tmp/x", "$(id)", "`id`", "-oProxyCommand=x", "a b" };
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gc_launch l = base();
		char **v = NULL;
		gc_err e;
		l.iface = bad[i];
		CHECKF(gc_launch_argv(&l, &v, &e) == GC_E_INVAL, "iface '%s' accepted", bad[i]);
		l = base();
		l.hosts[1] = bad[i];
		CHECKF(gc_launch_argv(&l, &v, &e) == GC_E_INVAL, "host '%s' accepted", bad[i]);
		l = base();
		l.params[0] = bad[i];
		CHECKF(gc_launch_argv(&l, &v, &e) == GC_E_INVAL, "param '%s' accepted", bad[i]);
	}
}

static void test_lock(void)
{
	char path[] = "/tmp/gcbench-lock-test.XXXXXX";
	char lockp[128];
	int fd, fd2, st;
	pid_t pid;
	gc_err e = { "" };
	CHECK(mkdtemp(path));
	snprintf(lockp, sizeof(lockp), "%s/sub/sweep.lock", path);
	CHECK(gc_lock_acquire(lockp, &fd, &e) == GC_OK);
	pid = fork();
	if (pid == 0) {
		gc_err e2 = { "" };
		_exit(gc_lock_acquire(lockp, &fd2, &e2) == GC_E_BUSY && strstr(e2.msg, "pid") ? 0 : 1);
	}
	waitpid(pid, &st, 0);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	gc_lock_release(fd);
	CHECK(gc_lock_acquire(lockp, &fd2, &e) == GC_OK);
	gc_lock_release(fd2);
	unlink(lockp);
	snprintf(lockp, sizeof(lockp), "%s/sub", path);
	rmdir(lockp);
	rmdir(path);
}

static void test_duration(void)
{
	char b[32];
	gc_format_duration(12.4, b, sizeof(b));
	CHECK_STR(b, "12s");
	gc_format_duration(250, b, sizeof(b));
	CHECK_STR(b, "4m10s");
	gc_format_duration(3720, b, sizeof(b));
	CHECK_STR(b, "1h02m");
	gc_format_duration(-1, b, sizeof(b));
	CHECK_STR(b, "?");
}

/* The runs table's network settings: the bytes they always had, strings escaped. */
static void test_settings_json(void)
{
	gc_launch l = base();
	char *s;

	l.oversubscribe = 1;
	s = gc_launch_settings_json(&l);
	CHECK_STR(s, "{\"pml\":\"ob1\",\"btl\":\"tcp,self\",\"btl_tcp_if_include\":\"eth0\","
		  "\"allreduce_algorithm\":\"ring\",\"allgather_algorithm\":\"ring\","
		  "\"mpi_yield_when_idle\":1,\"NCCL_IB_DISABLE\":\"1\","
		  "\"NCCL_SOCKET_IFNAME\":\"eth0\",\"backend\":\"mpi\"}");
	free(s);
	l.iface = "e\"0";
	l.backend = NULL;
	s = gc_launch_settings_json(&l);
	CHECK(s && strstr(s, "\"NCCL_SOCKET_IFNAME\":\"e\\\"0\",\"backend\":\"mpi\"}"));
	free(s);
}

int main(void)
{
	GCT_SUITE("launch");
	GCT_RUN(test_argv);
	GCT_RUN(test_too_few_hosts);
	GCT_RUN(test_rejects_injection);
	GCT_RUN(test_lock);
	GCT_RUN(test_duration);
	GCT_RUN(test_settings_json);
	return gct_finish();
}

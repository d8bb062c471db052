/* The mpirun command line and the sweep lock. */
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "orchestrator/remote/launch.h"
#include "orchestrator/remote/subnet.h"
#include "orchestrator/run/placement.h"
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

static gc_params powersgd_rank4(void)
{
	gc_params p;
	gc_err e;
	if (gc_params_parse_method("powersgd:rank=4", &p, &e))
		memset(&p, 0, sizeof(p));
	return p;
}

static gc_launch base(void)
{
	static gc_params pr;
	gc_launch l = { .worker = "/opt/gcbench/bin/gcbench-worker", .hosts = { "n1", "n2", "n3" },
			.nhosts = 3, .slots = { 1, 1, 0 }, .world = 2, .ssh_config = "/c/ssh_config",
			.iface = "eth0", .backend = "mpi", .method = "powersgd",
			.params = &pr, .workload = "replay:resnet50",
			.iters = 10, .warmup = 2, .batch = 32, .compute_scale = 1,
			.out_pattern = "/tmp/run1/records-r%r.gcr", .allow_root = 1 };
	pr = powersgd_rank4();
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
	CHECK_CONTAINS(joined(v), "plm_rsh_agent|ssh -F /c/ssh_config -o BatchMode=yes|"
				  "--mca|plm_rsh_no_tree_spawn|1|");
	CHECK_CONTAINS(joined(v), "NCCL_SOCKET_IFNAME=eth0|");
	CHECK_CONTAINS(joined(v), "--method|powersgd:ef=1,rank=4,warm_start=1,min_compression=2,seed=42|--workload|replay:resnet50|");
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

static void test_slots(void)
{
	gc_launch l = base();
	char **v;
	gc_err e;
	l.world = 4;   /* the slots hold 2 */
	CHECK(gc_launch_argv(&l, &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "4 ranks but the hosts' slots add up to 2");
	l.slots[0] = 2, l.slots[1] = 1, l.slots[2] = 1;   /* each host its own */
	CHECK(gc_launch_argv(&l, &v, &e) == GC_OK);
	CHECK_CONTAINS(joined(v), "--host|n1:2,n2:1,n3:1|");
	gc_argv_free(v);
	l.slots[1] = 0, l.slots[2] = 2;                    /* an unused host is left out */
	CHECK(gc_launch_argv(&l, &v, &e) == GC_OK);
	CHECK_CONTAINS(joined(v), "--host|n1:2,n3:2|");
	gc_argv_free(v);
	l.slots[1] = -1;
	CHECK(gc_launch_argv(&l, &v, &e) == GC_OK);        /* negative counts as none */
	gc_argv_free(v);
}

/* A hostfile with each host's slots, and the data subnet: btl by CIDR, each rank's
 * interface found on its own host by a fixed script, no global NCCL_SOCKET_IFNAME. */
static void test_hostfile_and_subnet(void)
{
	gc_launch l = base();
	gc_buf b = GC_BUF_INIT;
	char **v;
	gc_err e;

	l.slots[0] = 2, l.slots[1] = 0, l.slots[2] = 1, l.world = 3;
	CHECK(gc_launch_hostfile(&l, &b, &e) == GC_OK);
	CHECK_STR(b.p, "n1 slots=2\nn3 slots=1\n");
	gc_buf_release(&b);
	l.hostfile = "/w/run-3/hostfile";
	l.data_cidr = "10.10.0.0/24";
	CHECK(gc_launch_argv(&l, &v, &e) == GC_OK);
	CHECK_CONTAINS(joined(v), "-np|3|--hostfile|/w/run-3/hostfile|--map-by|node|");
	CHECK(!strstr(joined(v), "--host|"));
	CHECK_CONTAINS(joined(v), "--mca|btl_tcp_if_include|10.10.0.0/24|");
	CHECK(!strstr(joined(v), "NCCL_SOCKET_IFNAME=eth0"));
	CHECK(!strstr(joined(v), "--iface|eth0"));
	CHECK_CONTAINS(joined(v), "|/bin/sh|-c|");
	CHECK_CONTAINS(joined(v), "ip -o -4 addr show to \"$c\"");
	CHECK_CONTAINS(joined(v), "export NCCL_SOCKET_IFNAME; exec \"$w\" \"$@\" --iface \"$i\"|gcbench-iface|"
		       "10.10.0.0/24|/opt/gcbench/bin/gcbench-worker|--backend|mpi|");
	gc_argv_free(v);
	/* logins that differ: the build under each one's home, resolved there */
	l.worker = ".cache/gcbench/0123456789abcdef/gcbench-worker";
	CHECK(gc_launch_argv(&l, &v, &e) == GC_OK);
	CHECK_CONTAINS(joined(v), "case $w in /*) ;; *) w=$HOME/$w ;; esac");
	CHECK_CONTAINS(joined(v), "|10.10.0.0/24|.cache/gcbench/0123456789abcdef/gcbench-worker|--backend|");
	gc_argv_free(v);
	l.data_cidr = NULL;   /* a relative path needs the wrapper */
	CHECK(gc_launch_argv(&l, &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "is relative");
	l.worker = "/opt/gcbench/bin/gcbench-worker";
	l.data_cidr = "10.10.0.0/24;id";
	l.hostfile = "/w/run-3/hostfile";
	CHECK(gc_launch_argv(&l, &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "data subnet");
	l.data_cidr = NULL;
	l.hostfile = "/w/$(id)";
	CHECK(gc_launch_argv(&l, &v, &e) == GC_E_INVAL);
	l = base();
	l.hosts[0] = "n1 slots=99";
	CHECK(gc_launch_hostfile(&l, &b, &e) == GC_E_INVAL);
	gc_buf_release(&b);
}

static gc_node node(const char *name, const char *addr, const char *user, int port,
		    const char *key)
{
	gc_node n;
	memset(&n, 0, sizeof(n));
	snprintf(n.name, sizeof(n.name), "%s", name);
	snprintf(n.address, sizeof(n.address), "%s", addr);
	snprintf(n.user, sizeof(n.user), "%s", user);
	n.port = port;
	snprintf(n.identity, sizeof(n.identity), "%s", key);
	return n;
}

/* mpirun's ssh reaches each host as gcbench's own does: address, user, port, key,
 * ControlMaster socket; the inventory's ssh_config (or the user's) comes after. */
static void test_ssh_config(void)
{
	gc_node n[3] = { node("n1", "10.0.0.1", "", 22, ""),
			 node("n2", "10.0.0.2", "alice", 2222, "/keys/n2"),
			 node("n3", "h3.lab", "root", 22, "/keys/n3") };
	gc_buf b = GC_BUF_INIT;
	gc_err e;

	snprintf(n[0].control_dir, sizeof(n[0].control_dir), "/var/lib/gcbench/ssh");
	CHECK(gc_launch_ssh_config(n, 3, &b, &e) == GC_OK);
	CHECK_CONTAINS(b.p, "Host n1\n  HostName 10.0.0.1\n  Port 22\n  ControlMaster auto\n"
		       "  ControlPath /var/lib/gcbench/ssh/cm-%C\n  ControlPersist 60\nHost n2\n");
	CHECK_CONTAINS(b.p, "Host n2\n  HostName 10.0.0.2\n  Port 2222\n  User alice\n"
		       "  IdentityFile /keys/n2\n  IdentitiesOnly yes\nHost n3\n");
	CHECK_CONTAINS(b.p, "Host n3\n  HostName h3.lab\n  Port 22\n  User root\n"
		       "  IdentityFile /keys/n3\n");
	CHECK_CONTAINS(b.p, "Host *\n  BatchMode yes\n  StrictHostKeyChecking yes\n");
	CHECK_CONTAINS(b.p, "  Include ~/.ssh/config\n  Include /etc/ssh/ssh_config\n");
	gc_buf_release(&b);
	/* with the inventory's ssh_config: the alias picks its Host block there, and the
	 * inventory's address and written port still win (before the Include); an address
	 * equal to the name and an unwritten port (0) leave them to the config */
	for (int i = 0; i < 3; i++)
		snprintf(n[i].ssh_config, sizeof(n[i].ssh_config), "/lab/ssh_config");
	snprintf(n[2].address, sizeof(n[2].address), "n3");
	n[2].port = 0;
	CHECK(gc_launch_ssh_config(n, 3, &b, &e) == GC_OK);
	CHECK_CONTAINS(b.p, "Host n2\n  HostName 10.0.0.2\n  Port 2222\n  User alice\n"
		       "  IdentityFile /keys/n2\n");
	CHECK_CONTAINS(b.p, "Host n3\n  User root\n  IdentityFile /keys/n3\n");
	CHECK(!strstr(b.p, "  ConnectTimeout 30\n"));
	gc_buf_release(&b);
	/* the inventory's connect_timeout, in each host's block (before Host *'s 10) */
	n[1].connect_timeout = 30;
	CHECK(gc_launch_ssh_config(n, 3, &b, &e) == GC_OK);
	CHECK_CONTAINS(b.p, "  IdentitiesOnly yes\n  ConnectTimeout 30\nHost n3\n");
	CHECK_CONTAINS(b.p, "  Include /lab/ssh_config\n");
	CHECK(!strstr(b.p, "~/.ssh/config"));
	gc_buf_release(&b);
	/* nothing unsafe reaches the file: a newline would add a directive */
	snprintf(n[1].user, sizeof(n[1].user), "alice\n  ProxyCommand x");
	CHECK(gc_launch_ssh_config(n, 3, &b, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "refusing user");
	gc_buf_release(&b);
}

static void test_placement(void)
{
	const char *names[4] = { "n1", "n2", "n3", "n4" };
	int none[4] = { 0, 0, 0, 0 }, gpus[4] = { 2, 2, 1, 1 }, eight[4] = { 8, 8, 8, 8 };
	struct gc_placement p;
	char t[64];
	gc_err e;

	/* MPI, auto: one rank per node while there are nodes, then dealt round-robin */
	CHECK(gc_placement_compute("mpi", 2, 0, names, none, 4, &p, &e) == GC_OK);
	gc_placement_text(&p, t, sizeof(t));
	CHECK_STR(t, "2 nodes x 1 rank");
	CHECK(p.used == 2 && p.ranks_per_node == 1 && p.slots[2] == 0);
	CHECK(gc_placement_compute("mpi", 6, 0, names, none, 4, &p, &e) == GC_OK);
	gc_placement_text(&p, t, sizeof(t));
	CHECK_STR(t, "4 nodes x 2,2,1,1 ranks");
	/* MPI, ranks_per_node 2: fill, fewest nodes */
	CHECK(gc_placement_compute("mpi", 4, 2, names, none, 4, &p, &e) == GC_OK);
	gc_placement_text(&p, t, sizeof(t));
	CHECK_STR(t, "2 nodes x 2 ranks");
	gc_placement_hosts_text(&p, names, t, sizeof(t));
	CHECK_STR(t, "n1:2,n2:2");
	CHECK(gc_placement_compute("mpi", 9, 2, names, none, 4, &p, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "world_size 9 cannot be placed: ranks_per_node 2 on 4 hosts holds 8 ranks");
	/* NCCL: one rank per GPU; auto spans the most nodes with the fewest GPUs each */
	CHECK(gc_placement_compute("nccl", 8, 0, names, eight, 4, &p, &e) == GC_OK);
	gc_placement_text(&p, t, sizeof(t));
	CHECK_STR(t, "4 nodes x 2 ranks");
	CHECK(gc_placement_compute("nccl", 5, 0, names, gpus, 4, &p, &e) == GC_OK);
	gc_placement_hosts_text(&p, names, t, sizeof(t));
	CHECK_STR(t, "n1:2,n2:1,n3:1,n4:1");
	CHECK(gc_placement_compute("nccl", 5, 2, names, gpus, 4, &p, &e) == GC_OK);
	gc_placement_hosts_text(&p, names, t, sizeof(t));   /* hosts with fewer GPUs, fewer ranks */
	CHECK_STR(t, "n1:2,n2:2,n3:1");
	{   /* a host without GPUs before others holds no rank and is not counted */
		int mixed[4] = { 0, 1, 2, 0 };
		CHECK(gc_placement_compute("nccl", 3, 0, names, mixed, 4, &p, &e) == GC_OK);
		gc_placement_hosts_text(&p, names, t, sizeof(t));
		CHECK_STR(t, "n2:1,n3:2");
		CHECK(p.nodes == 2 && p.used == 3 && p.ranks_per_node == 2);
		gc_placement_text(&p, t, sizeof(t));
		CHECK_STR(t, "2 nodes x 1,2 ranks");
	}
	CHECK(gc_placement_compute("nccl", 7, 0, names, gpus, 4, &p, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "GPUs: n1 2, n2 2, n3 1, n4 1) hold 6 ranks");
	CHECK(gc_placement_compute("nccl", 1, 0, names, none, 4, &p, &e) == GC_E_INVAL);
	CHECK(gc_placement_compute("mpi", 0, 0, names, none, 4, &p, &e) == GC_E_INVAL);
	CHECK(gc_placement_compute("mpi", 2, 0, names, none, 0, &p, &e) == GC_E_INVAL);
	CHECK(gc_placement_compute("mpi", 1, 0, names, none, 4, &p, &e) == GC_OK);
	gc_placement_text(&p, t, sizeof(t));
	CHECK_STR(t, "1 node x 1 rank");
}

static void test_subnet(void)
{
	uint32_t a[3];
	int pf[3];
	char cidr[32];

	CHECK(gc_subnet_parse_ip("3: dat0    inet 10.213.7.12/24 brd 10.213.7.255 scope global dat0\\"
				 "       valid_lft forever preferred_lft forever\n", &a[0], &pf[0]) == GC_OK);
	CHECK(a[0] == (10u << 24 | 213u << 16 | 7u << 8 | 12u) && pf[0] == 24);
	CHECK(gc_subnet_parse_ip("", &a[1], &pf[1]) == GC_E_FORMAT);
	CHECK(gc_subnet_parse_ip("2: eth0 inet 10.0.0.300/24 brd", &a[1], &pf[1]) == GC_E_FORMAT);
	CHECK(gc_subnet_parse_ip("2: eth0 inet 10.0.0.3/33 brd", &a[1], &pf[1]) == GC_E_FORMAT);
	CHECK(gc_subnet_parse_ip("2: eth0 inet 10.0.0.3 brd", &a[1], &pf[1]) == GC_E_FORMAT);
	CHECK(gc_subnet_parse_ip("2: eth0 inet 10.213.7.40/24 x", &a[1], &pf[1]) == GC_OK);
	CHECK(gc_subnet_parse_ip("2: eth0 inet 10.213.7.41/24 x", &a[2], &pf[2]) == GC_OK);
	CHECK(gc_subnet_common(a, pf, 3, cidr, sizeof(cidr)));
	CHECK_STR(cidr, "10.213.7.0/24");
	CHECK(gc_subnet_parse_ip("2: eth0 inet 10.213.8.41/24 x", &a[2], &pf[2]) == GC_OK);
	CHECK(!gc_subnet_common(a, pf, 3, cidr, sizeof(cidr)));
	CHECK(gc_subnet_parse_ip("2: eth0 inet 10.213.7.41/16 x", &a[2], &pf[2]) == GC_OK);
	CHECK(!gc_subnet_common(a, pf, 3, cidr, sizeof(cidr)));   /* same network, other prefix */
	gc_subnet_cidr(a[2], 16, cidr, sizeof(cidr));
	CHECK_STR(cidr, "10.213.0.0/16");
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
		l.method = bad[i];
		CHECKF(gc_launch_argv(&l, &v, &e) == GC_E_INVAL, "method '%s' accepted", bad[i]);
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
	GCT_RUN(test_slots);
	GCT_RUN(test_hostfile_and_subnet);
	GCT_RUN(test_ssh_config);
	GCT_RUN(test_placement);
	GCT_RUN(test_subnet);
	GCT_RUN(test_rejects_injection);
	GCT_RUN(test_lock);
	GCT_RUN(test_duration);
	GCT_RUN(test_settings_json);
	return gct_finish();
}

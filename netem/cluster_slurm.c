/* netem/cluster_slurm.c: SLURM on the local cluster (gcbench cluster up N --slurm; see
 * cluster.h and cluster_int.h). Every file is in the cluster directory DIR:
 *   slurm.conf, slurm.env           the configuration; SLURM_CONF=DIR/slurm.conf for clients
 *   munge.key, munge.sock, munged.* munged: its own key, socket, pid, log and seed
 *   slurmctld.pid, slurmctld.log    slurmctld, on the bridge's address 10.213.K.1, in a UTS
 *   slurmctld.state/                namespace of its own (hostname ctl), ports from K
 *   slurmd/                         every node's spool (slurmd/%n), pid file and log
 *                                   (slurmd/%n.pid, slurmd/%n.log); bound read-write in
 *                                   the nodes' views, where the rest of DIR is read-only
 * Each daemon forks itself into the background and writes its pid file; down ends them
 * by those pids (slurmd first, munged last). One `slurmd -N n<i>` per node runs in the
 * node's network namespace, with its hostname and its own mount view (the one its sshd
 * has), so jobs see what a login on the node sees. */
#include "cluster_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "netns.h"
#include "pids.h"
#include "proc.h"
#include "timing.h"

#define SBIN_MUNGED "/usr/sbin/munged"
#define SBIN_SLURMCTLD "/usr/sbin/slurmctld"
#define SBIN_SLURMD "/usr/sbin/slurmd"
#define PMIX_PLUGIN "/usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix.so"
#define T_START 20       /* seconds for a daemon to put itself in the background */
#define T_IDLE 60        /* seconds for every node to be idle */

int gc_cluster_slurm_missing(char *what, size_t n)
{
	static const char *const need[] = { SBIN_MUNGED, SBIN_SLURMCTLD, SBIN_SLURMD,
					    "/usr/bin/sinfo", "/usr/bin/srun", "/usr/bin/scontrol" };

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (access(need[i], X_OK)) {
			snprintf(what, n, "%s", need[i]);
			return 1;
		}
	return 0;
}

int gc_cluster_slurm_ports(int k, int *ctld, int *slurmd)
{
	if (k < 1 || k > 250)
		return -1;
	*ctld = GC_CLUSTER_SLURM_PORT0 + 2 * k;
	*slurmd = *ctld + 1;
	return 0;
}

/* the pid in DIR/file when that process still runs with DIR on its command line */
static pid_t pid_from(const struct cl *c, const char *file)
{
	pid_t pid = cl_read_pid(c, file);

	return pid > 1 && gc_pid_matches(pid, c->dir) ? pid : 0;
}

pid_t cl_slurm_pid(const struct cl *c, int node)
{
	char f[32];

	if (node == -1)
		return pid_from(c, "munged.pid");
	if (node == 0)
		return pid_from(c, "slurmctld.pid");
	snprintf(f, sizeof(f), "slurmd/n%d.pid", node);
	return pid_from(c, f);
}

/* SIGTERM, then SIGKILL after 5 s; 1 when it was running */
static int stop_pid(pid_t pid)
{
	uint64_t end = gc_now_ns() + 5000000000ull;

	if (pid <= 1 || kill(pid, SIGTERM))
		return 0;
	while (gc_now_ns() < end && gc_proc_start_time(pid))
		usleep(20000);
	if (gc_proc_start_time(pid))
		kill(pid, SIGKILL);
	return 1;
}

void cl_slurm_stop(const struct cl *c)
{
	for (int i = 1; i <= GC_CLUSTER_MAX_NODES; i++)
		stop_pid(cl_slurm_pid(c, i));
	stop_pid(cl_slurm_pid(c, 0));
	stop_pid(cl_slurm_pid(c, -1));
}

/* ---- starting a daemon that puts itself in the background ---- */

/* In the child of node i (0: the controller): its namespaces, then exec argv. */
static void daemon_child(const struct cl *c, int i, char *const argv[], const char *err)
{
	cl_child_stdio(err);
	if (i > 0)
		cl_child_enter_node(c, i);
	else if (i == 0 && (unshare(CLONE_NEWUTS) || sethostname("ctl", 3))) {
		fprintf(stderr, "gcbench: cannot give slurmctld its hostname: %s\n", strerror(errno));
		_exit(126);
	}
	setsid();
	execv(argv[0], argv);
	fprintf(stderr, "gcbench: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* The last non-empty line of path into buf ("(nothing)" when none). */
static void last_line(const char *path, char *buf, size_t n)
{
	char line[256];
	FILE *f = fopen(path, "r");

	snprintf(buf, n, "(nothing)");
	while (f && fgets(line, sizeof(line), f))
		if (line[0] != '\n') {
			line[strcspn(line, "\n")] = 0;
			snprintf(buf, n, "%s", line);
		}
	if (f)
		fclose(f);
}

/* Run argv for node i (0: the controller, -1: this machine as it is) and wait until it
 * has forked itself into the background (its first process exits 0). what names it. */
static gc_rc start_daemon(const struct cl *c, int i, char *const argv[], const char *what,
			  const char *errfile, gc_err *e)
{
	char err[PATH_MAX], last[256];
	uint64_t end = gc_now_ns() + (uint64_t)T_START * 1000000000ull;
	int st = 0;
	pid_t pid, r = 0;

	cl_path_of(c, errfile, err, sizeof(err));
	pid = fork();
	if (pid < 0)
		return gc_fail(e, GC_E_CHILD, "fork: %s", strerror(errno));
	if (pid == 0)
		daemon_child(c, i, argv, err);
	while ((r = waitpid(pid, &st, WNOHANG)) == 0 && gc_now_ns() < end)
		usleep(10000);
	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return gc_fail(e, GC_E_TIMEOUT, "%s did not start within %d s; see '%s'", what,
			       T_START, err);
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		last_line(err, last, sizeof(last));
		return gc_fail(e, GC_E_CHILD, "%s did not start (%s %d): %.200s", what,
			       WIFEXITED(st) ? "exit" : "signal",
			       WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), last);
	}
	return GC_OK;
}

/* ---- munged ---- */

static gc_rc make_munge_key(const struct cl *c, gc_err *e)
{
	unsigned char key[1024];
	char path[PATH_MAX];
	size_t got = 0;
	ssize_t r;
	int fd;

	while (got < sizeof(key)) {
		r = getrandom(key + got, sizeof(key) - got, 0);
		if (r < 0 && errno != EINTR)
			return gc_fail(e, GC_E_IO, "cannot read random bytes for the munge key: %s",
				       strerror(errno));
		got += r > 0 ? (size_t)r : 0;
	}
	cl_path_of(c, "munge.key", path, sizeof(path));
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0400);
	if (fd < 0 || write(fd, key, sizeof(key)) != (ssize_t)sizeof(key) || close(fd))
		return gc_fail(e, GC_E_IO, "cannot write the munge key '%s': %s", path,
			       strerror(errno));
	return GC_OK;
}

/* 1 when the unix socket path accepts a connection */
static int socket_answers(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, ok;

	if (strlen(path) >= sizeof(sa.sun_path))
		return 0;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

static gc_rc start_munged(const struct cl *c, gc_err *e)
{
	char key[PATH_MAX + 16], sock[PATH_MAX + 16], pid[PATH_MAX + 16], log[PATH_MAX + 16],
	     seed[PATH_MAX + 16], path[PATH_MAX];
	/* --force: the cluster directory is root-only (0700), so munged finds its socket
	 * "inaccessible" to other users; only root uses this cluster */
	char *argv[] = { SBIN_MUNGED, "--force", key, sock, pid, log, seed, NULL };
	uint64_t end;
	gc_rc rc;

	snprintf(key, sizeof(key), "--key-file=%s/munge.key", c->dir);
	snprintf(sock, sizeof(sock), "--socket=%s/munge.sock", c->dir);
	snprintf(pid, sizeof(pid), "--pid-file=%s/munged.pid", c->dir);
	snprintf(log, sizeof(log), "--log-file=%s/munged.log", c->dir);
	snprintf(seed, sizeof(seed), "--seed-file=%s/munged.seed", c->dir);
	if ((rc = make_munge_key(c, e)) ||
	    (rc = start_daemon(c, -1, argv, "munged", "munged.start", e)))
		return rc;
	cl_path_of(c, "munge.sock", path, sizeof(path));
	for (end = gc_now_ns() + 5000000000ull; gc_now_ns() < end; usleep(20000))
		if (socket_answers(path))
			return GC_OK;
	return gc_fail(e, GC_E_TIMEOUT, "munged did not answer on '%s' within 5 s; see '%s/munged.log'",
		       path, c->dir);
}

/* ---- slurm.conf ---- */

static int have_pmix(void)
{
	return access(PMIX_PLUGIN, R_OK) == 0;
}

/* DIR/slurm.env: SLURM_CONF=DIR/slurm.conf, for scripts to source */
static gc_rc write_env(const struct cl *c, gc_err *e)
{
	char path[PATH_MAX], text[PATH_MAX + 32];

	cl_path_of(c, "slurm.env", path, sizeof(path));
	snprintf(text, sizeof(text), "SLURM_CONF=%s/slurm.conf\n", c->dir);
	return cl_write_file(path, text, e);
}

gc_rc cl_slurm_write_conf(const struct cl *c, int cpus, gc_err *e)
{
	char path[PATH_MAX], addr[32], *t;
	size_t cap = 4096 + (size_t)c->n * 160, o = 0;
	int ctld, slurmd;
	gc_rc rc;

	if (gc_cluster_slurm_ports(c->k, &ctld, &slurmd))
		return gc_fail(e, GC_E_INVAL, "cluster '%s' has no subnet yet", c->name);
	t = malloc(cap);
	if (!t)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
#define ADD(...) (o += (size_t)snprintf(t + o, o < cap ? cap - o : 0, __VA_ARGS__))
	ADD("# slurm.conf of gcbench cluster '%s' (written by gcbench cluster up --slurm)\n"
	    "# clients: SLURM_CONF=%s/slurm.conf sinfo\n"
	    "ClusterName=gcb-%s\nSlurmctldHost=ctl(10.213.%d.1)\n"
	    "SlurmctldPort=%d\nSlurmdPort=%d\nSlurmUser=root\nSlurmdUser=root\n"
	    "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=%s/munge.sock\n"
	    "StateSaveLocation=%s/slurmctld.state\nSlurmctldPidFile=%s/slurmctld.pid\n"
	    "SlurmctldLogFile=%s/slurmctld.log\nSlurmdSpoolDir=%s/slurmd/%%n\n"
	    "SlurmdPidFile=%s/slurmd/%%n.pid\nSlurmdLogFile=%s/slurmd/%%n.log\n"
	    "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
	    "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
	    "SchedulerType=sched/backfill\nReturnToService=2\n"
	    "AccountingStorageType=accounting_storage/none\nJobAcctGatherType=jobacct_gather/none\n"
	    "JobCompType=jobcomp/none\nMpiDefault=%s\n"
	    "SlurmctldTimeout=30\nSlurmdTimeout=30\nInactiveLimit=0\nKillWait=5\n",
	    c->name, c->dir, c->name, c->k, ctld, slurmd, c->dir, c->dir, c->dir, c->dir, c->dir,
	    c->dir, c->dir, have_pmix() ? "pmix" : "none");
	/* nodes that share this machine's /tmp: PMIx's per-step folders apart, per node */
	if (c->shared_fs)
		ADD("TmpFS=%s/slurmd/%%n\n", c->dir);
	for (int i = 1; i <= c->n; i++) {
		cl_node_addr(c, i, addr, sizeof(addr));
		ADD("NodeName=n%d NodeHostname=n%d NodeAddr=%s CPUs=%d State=UNKNOWN\n", i, i, addr,
		    cpus);
	}
	ADD("PartitionName=main Nodes=n[1-%d] Default=YES MaxTime=INFINITE State=UP\n", c->n);
#undef ADD
	cl_path_of(c, "slurm.conf", path, sizeof(path));
	rc = o < cap ? cl_write_file(path, t, e) : gc_fail(e, GC_E_INVAL, "slurm.conf too long");
	free(t);
	return rc ? rc : write_env(c, e);
}

/* ---- waiting for the nodes ---- */

/* `sinfo -h -N -o "%N %t"` into res (the cluster's SLURM_CONF) */
static gc_rc run_sinfo(const struct cl *c, gc_proc_result *res, gc_err *e)
{
	char env[PATH_MAX + 32];
	const char *envv[] = { env, NULL };
	char *argv[] = { "sinfo", "-h", "-N", "-o", "%N %t", NULL };

	snprintf(env, sizeof(env), "SLURM_CONF=%s/slurm.conf", c->dir);
	return gc_proc_run(argv, envv, NULL, 10, 0, res, e);
}

/* How many nodes sinfo shows idle; the first one that is not into first_bad. */
static int count_idle(const char *out, char *first_bad, size_t n)
{
	char name[32], state[32];
	const char *p = out;
	int idle = 0, used;

	first_bad[0] = 0;
	while (p && sscanf(p, "%31s %31s%n", name, state, &used) == 2) {
		if (!strcmp(state, "idle"))
			idle++;
		else if (!first_bad[0])
			snprintf(first_bad, n, "%s (%s)", name, state);
		p = strchr(p + used, '\n');
		p = p ? p + 1 : NULL;
	}
	return idle;
}

/* GC_E_CHILD naming the first node whose slurmd is gone, with its log's last line */
static gc_rc slurmd_gone(const struct cl *c, gc_err *e)
{
	char log[PATH_MAX], f[32], last[256];

	for (int i = 1; i <= c->n; i++) {
		if (cl_slurm_pid(c, i))
			continue;
		snprintf(f, sizeof(f), "slurmd/n%d.log", i);
		cl_path_of(c, f, log, sizeof(log));
		last_line(log, last, sizeof(last));
		return gc_fail(e, GC_E_CHILD, "slurmd of node n%d exited; its log '%s' ends: %.200s",
			       i, log, last);
	}
	return GC_OK;
}

gc_rc cl_slurm_wait_idle(const struct cl *c, gc_err *e)
{
	uint64_t start = gc_now_ns(), end = start + (uint64_t)T_IDLE * 1000000000ull;
	char bad[80] = "", node[16] = "n1", last[256] = "(sinfo gave nothing)";
	gc_proc_result r;
	int idle = 0;
	gc_rc rc;

	while (gc_now_ns() < end) {
		memset(&r, 0, sizeof(r));
		rc = run_sinfo(c, &r, e);
		if (!rc && r.status == 0 && r.out)
			idle = count_idle(r.out, bad, sizeof(bad));
		else if (!rc)
			snprintf(last, sizeof(last), "%.200s", r.err_tail);
		gc_proc_result_release(&r);
		if (rc)
			return rc;
		if (idle == c->n)
			return GC_OK;
		/* a slurmd that died will not come back: say so now, not after T_IDLE (its
		 * pid file is written just after it forks itself away: some grace first) */
		if (gc_now_ns() - start > 2000000000ull && (rc = slurmd_gone(c, e)))
			return rc;
		usleep(250000);
	}
	if (bad[0])
		snprintf(node, sizeof(node), "%.*s", (int)strcspn(bad, " "), bad);
	last[strcspn(last, "\n")] = 0;
	return gc_fail(e, GC_E_TIMEOUT, "only %d of %d SLURM nodes were idle after %d s (%s); "
		       "see the slurmd log '%s/slurmd/%s.log' and '%s/slurmctld.log'%s%s", idle, c->n,
		       T_IDLE, bad[0] ? bad : last, c->dir, node, c->dir, bad[0] ? "" : "; sinfo: ",
		       bad[0] ? "" : last);
}

/* GC_E_BUSY when TCP port on this machine is taken (slurmctld listens on every address) */
static gc_rc port_free(const struct cl *c, int port, gc_err *e)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_ANY) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1, err = 0;

	if (fd < 0)
		return GC_OK;   /* slurmctld will say */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		err = errno;
	close(fd);
	if (err == EADDRINUSE)
		return gc_fail(e, GC_E_BUSY, "cannot start slurmctld of cluster '%s': TCP port %d "
			       "(%d + 2 x its subnet %d) is in use on this machine; end what "
			       "listens there (ss -ltnp 'sport = %d') or use another cluster name",
			       c->name, port, GC_CLUSTER_SLURM_PORT0, c->k, port);
	return GC_OK;
}

/* ---- up ---- */

static gc_rc make_dirs(const struct cl *c, gc_err *e)
{
	char p[PATH_MAX];
	gc_rc rc;

	cl_path_of(c, "slurmctld.state", p, sizeof(p));
	if ((rc = gc_mkdir_p(p, 0700, e)))
		return rc;
	cl_path_of(c, "slurmd", p, sizeof(p));
	if ((rc = gc_mkdir_p(p, 0700, e)))
		return rc;
	for (int i = 1; i <= c->n; i++) {
		char f[32];
		snprintf(f, sizeof(f), "slurmd/n%d", i);
		cl_path_of(c, f, p, sizeof(p));
		if ((rc = gc_mkdir_p(p, 0700, e)))
			return rc;
	}
	return GC_OK;
}

static gc_rc start_slurmd(const struct cl *c, int i, const char *conf, gc_err *e)
{
	char node[16], what[32], err[32];
	char *argv[] = { SBIN_SLURMD, "-f", (char *)conf, "-N", node, NULL };

	snprintf(node, sizeof(node), "n%d", i);
	snprintf(what, sizeof(what), "slurmd of node n%d", i);
	snprintf(err, sizeof(err), "slurmd/n%d.start", i);
	return start_daemon(c, i, argv, what, err, e);
}

gc_rc cl_slurm_start(const struct cl *c, gc_err *e)
{
	char conf[PATH_MAX], missing[64];
	char *ctld[] = { SBIN_SLURMCTLD, "-f", conf, "-i", NULL };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int port, sport;
	gc_rc rc;

	if (gc_cluster_slurm_missing(missing, sizeof(missing)))
		return gc_fail(e, GC_E_NOTFOUND, "cannot start SLURM: '%s' is missing; run as root: "
			       "apt-get install -y slurmctld slurmd slurm-client munge", missing);
	cl_path_of(c, "slurm.conf", conf, sizeof(conf));
	if (gc_cluster_slurm_ports(c->k, &port, &sport))
		return gc_fail(e, GC_E_STATE, "cluster '%s' has no subnet yet", c->name);
	if ((rc = port_free(c, port, e)) || (rc = make_dirs(c, e)) || (rc = start_munged(c, e)) ||
	    (rc = cl_slurm_write_conf(c, cpus > 0 ? (int)cpus : 1, e)) ||
	    (rc = start_daemon(c, 0, ctld, "slurmctld", "slurmctld.start", e)))
		return rc;
	for (int i = 1; i <= c->n; i++)
		if ((rc = start_slurmd(c, i, conf, e)))
			return rc;
	return cl_slurm_wait_idle(c, e);
}

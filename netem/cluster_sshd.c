/* netem/cluster_sshd.c: each node's sshd in the local cluster (config, start in the
 * node's namespaces, wait), and the cluster's keys and client files (known_hosts,
 * ssh_config, inventory.yaml); see cluster_int.h. */
#include "cluster_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netns.h"
#include "pids.h"
#include "proc.h"
#include "timing.h"

#define T_CMD 30    /* seconds for one ssh-keygen */

/* 1 when addr:22 accepts a TCP connection within timeout_ms. */
int cl_tcp_reachable(const char *addr, int timeout_ms)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(22) };
	struct pollfd pfd;
	int fd, err = 0, ok = 0;
	socklen_t len = sizeof(err);

	if (inet_pton(AF_INET, addr, &sa.sin_addr) != 1)
		return 0;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ok = 1;
	} else if (errno == EINPROGRESS) {
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, timeout_ms) == 1 &&
		    !getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) && !err)
			ok = 1;
	}
	close(fd);
	return ok;
}

/* The pid of node i's sshd from its pid file, when it still runs; else 0. */
pid_t cl_sshd_pid(const struct cl *c, int i)
{
	char needle[64];
	pid_t pid;

	snprintf(needle, sizeof(needle), "n%d.pid", i);
	pid = cl_read_pid(c, needle);
	snprintf(needle, sizeof(needle), "/n%d.sshd_config", i);
	return pid > 1 && gc_pid_matches(pid, needle) ? pid : 0;
}

static gc_rc write_sshd_config(const struct cl *c, int i, char *cfg, size_t n, gc_err *e)
{
	char addr[32], text[2048], f[32];

	cl_node_addr(c, i, addr, sizeof(addr));
	snprintf(f, sizeof(f), "n%d.sshd_config", i);
	cl_path_of(c, f, cfg, n);
	snprintf(text, sizeof(text),
		 "# sshd of node n%d of gcbench cluster '%s' (written by gcbench cluster up)\n"
		 "ListenAddress %s:22\nHostKey %s/host_key\nPidFile none\n"
		 "AuthorizedKeysFile %s/authorized_keys .ssh/authorized_keys\n"
		 "PermitRootLogin prohibit-password\n"
		 "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\n"
		 "PrintMotd no\nPrintLastLog no\nX11Forwarding no\nMaxStartups 100:30:200\n"
		 "MaxSessions 64\nAcceptEnv LANG LC_* OMPI_* GCBENCH_*\n"
		 /* bash sources ~/.bashrc for ssh commands only at SHLVL < 2: a slow
		  * .bashrc (pyenv init: 1.3 s here) would otherwise tax every command */
		 "SetEnv SHLVL=1\n"
		 "Subsystem sftp internal-sftp\n", i, c->name, addr, c->dir, c->dir);
	return cl_write_file(cfg, text, e);
}

/* In the child: enter the node's network namespace, new UTS and mount namespaces (its
 * hostname, its own view of the file system), become sshd. */
static void sshd_child(const struct cl *c, int i, const char *cfg, const char *log)
{
	cl_child_stdio(log);
	cl_child_enter_node(c, i);
	setsid();
	execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f", cfg, (char *)NULL);
	_exit(127);
}

gc_rc cl_start_sshd(const struct cl *c, int i, gc_err *e)
{
	char cfg[PATH_MAX], log[PATH_MAX], pidf[PATH_MAX], f[32], num[32];
	pid_t pid;
	gc_rc rc;

	if ((rc = write_sshd_config(c, i, cfg, sizeof(cfg), e)))
		return rc;
	snprintf(f, sizeof(f), "n%d.log", i);
	cl_path_of(c, f, log, sizeof(log));
	snprintf(f, sizeof(f), "n%d.pid", i);
	cl_path_of(c, f, pidf, sizeof(pidf));
	pid = fork();
	if (pid < 0)
		return gc_fail(e, GC_E_CHILD, "fork: %s", strerror(errno));
	if (pid == 0)
		sshd_child(c, i, cfg, log);
	snprintf(num, sizeof(num), "%d\n", (int)pid);
	return cl_write_file(pidf, num, e);
}

/* 1 when node i's sshd (our child) has exited. */
static int child_exited(const struct cl *c, int i)
{
	char f[32];
	int st;
	pid_t pid;

	snprintf(f, sizeof(f), "n%d.pid", i);
	pid = cl_read_pid(c, f);
	return pid <= 0 || waitpid(pid, &st, WNOHANG) == pid;
}

/* The failure of node i's sshd, with the last line of its log (removed by down). */
static gc_rc log_tail_fail(const struct cl *c, int i, const char *addr, gc_err *e)
{
	char path[PATH_MAX], f[32], line[256] = "", last[256] = "(empty log)";
	FILE *fp;

	snprintf(f, sizeof(f), "n%d.log", i);
	cl_path_of(c, f, path, sizeof(path));
	fp = fopen(path, "r");
	while (fp && fgets(line, sizeof(line), fp))
		if (line[0] != '\n')
			memcpy(last, line, sizeof(last));
	if (fp)
		fclose(fp);
	last[strcspn(last, "\n")] = 0;
	return gc_fail(e, GC_E_TIMEOUT, "sshd of node n%d (%s:22) did not accept connections "
		       "within 15 s; its log says: %.200s", i, addr, last);
}

/* Wait until node i's sshd accepts TCP connections (up to 15 s). */
gc_rc cl_wait_sshd(const struct cl *c, int i, gc_err *e)
{
	uint64_t end = gc_now_ns() + 15000000000ull;
	char addr[32];

	cl_node_addr(c, i, addr, sizeof(addr));
	while (gc_now_ns() < end) {
		if (cl_tcp_reachable(addr, 200))
			return GC_OK;
		if (child_exited(c, i))
			break;   /* it exited: no point in waiting */
		usleep(50000);
	}
	return log_tail_fail(c, i, addr, e);
}

static gc_rc read_small(const char *path, char *buf, size_t n, gc_err *e)
{
	FILE *f = fopen(path, "r");
	size_t r;

	if (!f)
		return gc_fail(e, GC_E_IO, "cannot read '%s': %s", path, strerror(errno));
	r = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[r] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return GC_OK;
}

/* An ed25519 key pair DIR/file(.pub) without passphrase, by ssh-keygen (through the
 * one child-process runner, common/proc.h). */
static gc_rc gen_key(const struct cl *c, const char *file, gc_err *e)
{
	char path[PATH_MAX], comment[64], how[64];
	char *argv[] = { "ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path,
			 NULL };
	gc_proc_result r;
	gc_rc rc;

	snprintf(comment, sizeof(comment), "gcbench-cluster-%s", c->name);
	cl_path_of(c, file, path, sizeof(path));
	rc = gc_proc_run(argv, NULL, NULL, T_CMD, 0, &r, e);
	if (!rc && r.status != 0) {
		gc_proc_describe(&r, T_CMD, how, sizeof(how));
		r.err_tail[strcspn(r.err_tail, "\n")] = 0;   /* its first line says why */
		rc = gc_fail(e, GC_E_CHILD, "cannot make the key '%s': ssh-keygen %s: %.200s", path,
			     how, r.err_tail[0] ? r.err_tail : "no message");
	}
	gc_proc_result_release(&r);
	return rc;
}

gc_rc cl_make_keys(const struct cl *c, gc_err *e)
{
	char ck[PATH_MAX], pub[1024], ak[PATH_MAX];
	gc_rc rc;

	cl_path_of(c, "id_ed25519", ck, sizeof(ck));
	cl_path_of(c, "authorized_keys", ak, sizeof(ak));
	if ((rc = gen_key(c, "host_key", e)) || (rc = gen_key(c, "id_ed25519", e)))
		return rc;
	strcat(ck, ".pub");
	if ((rc = read_small(ck, pub, sizeof(pub) - 2, e)))
		return rc;
	strcat(pub, "\n");
	rc = cl_write_file(ak, pub, e);
	chmod(ak, 0600);
	return rc;
}

/* The Host * part of ssh_config, shared by every node. */
static void ssh_config_tail(const struct cl *c, char *buf, size_t n)
{
	snprintf(buf, n, "Host *\n  User root\n  Port 22\n  IdentityFile %s/id_ed25519\n"
		 "  IdentitiesOnly yes\n  UserKnownHostsFile %s/known_hosts\n"
		 "  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  CheckHostIP no\n"
		 "  BatchMode yes\n  ConnectTimeout 10\n  ServerAliveInterval 5\n  ServerAliveCountMax 3\n"
		 "  ControlMaster auto\n"
		 /* sockets in a short fixed directory: a unix socket path is limited to 107
		  * bytes, which a cluster dir under a long GCBENCH_HOME would exceed */
		 /* named per bring-up, so a rebuilt cluster never meets a stale master */
		 "  ControlPath " GC_CLUSTER_CM_DIR "/%s-%ld-%%C\n  ControlPersist 60\n", c->dir, c->dir,
		 c->name, (long)getpid());
}

/* DIR/known_hosts, DIR/ssh_config and DIR/inventory.yaml with these texts. */
static gc_rc write_client_texts(const struct cl *c, const char *kh, const char *sc,
				const char *inv, gc_err *e)
{
	char path[PATH_MAX];
	gc_rc rc;

	cl_path_of(c, "known_hosts", path, sizeof(path));
	if ((rc = cl_write_file(path, kh, e)))
		return rc;
	cl_path_of(c, "ssh_config", path, sizeof(path));
	if ((rc = cl_write_file(path, sc, e)))
		return rc;
	cl_path_of(c, "inventory.yaml", path, sizeof(path));
	return cl_write_file(path, inv, e);
}

/* known_hosts, ssh_config and inventory.yaml, for nodes 1..n. */
gc_rc cl_write_client_files(const struct cl *c, gc_err *e)
{
	char path[PATH_MAX], hostpub[1024], addr[32], *kh, *sc, *inv;
	size_t cap = 4096 + (size_t)c->n * 1024, lk = 0, ls = 0, li = 0;
	gc_rc rc;
	int i;

	cl_path_of(c, "host_key.pub", path, sizeof(path));
	if ((rc = read_small(path, hostpub, sizeof(hostpub), e)))
		return rc;
	kh = calloc(1, cap), sc = calloc(1, cap), inv = calloc(1, cap);
	if (!kh || !sc || !inv) {
		rc = gc_fail(e, GC_E_NOMEM, "out of memory");
		goto out;
	}
	ls += (size_t)snprintf(sc + ls, cap - ls, "# ssh client config of gcbench cluster '%s': "
			       "ssh -F %s/ssh_config n1 hostname\n", c->name, c->dir);
	li += (size_t)snprintf(inv + li, cap - li, "%s", "# gcbench inventory written by "
			       "`gcbench cluster up`\n");
	if (c->slurm)
		li += (size_t)snprintf(inv + li, cap - li, "# SLURM on these nodes: export "
				       "SLURM_CONF=%s/slurm.conf (also in %s/slurm.env)\n",
				       c->dir, c->dir);
	li += (size_t)snprintf(inv + li, cap - li, "name: %s\nssh_config: %s/ssh_config\nhosts:\n",
			       c->name, c->dir);
	for (i = 1; i <= c->n; i++) {
		cl_node_addr(c, i, addr, sizeof(addr));
		lk += (size_t)snprintf(kh + lk, cap - lk, "n%d,%s %s\n", i, addr, hostpub);
		ls += (size_t)snprintf(sc + ls, cap - ls, "Host n%d\n  HostName %s\n", i, addr);
		li += (size_t)snprintf(inv + li, cap - li, "  - name: n%d\n    address: %s\n"
				       "    user: root\n    port: 22\n    identity: %s/id_ed25519\n"
				       "    iface: eth0\n    netns: gcb-%s-n%d\n    gpus: 0\n",
				       i, addr, c->dir, c->name, i);
	}
	for (i = 1; c->racks >= 2 && i <= c->racks; i++) {   /* racks: (cluster.h) */
		int per = c->n / c->racks;
		li += (size_t)snprintf(inv + li, cap - li, "%s[", i == 1 ? "racks: [" : ", ");
		for (int k = 1; k <= per; k++)
			li += (size_t)snprintf(inv + li, cap - li, "%sn%d", k > 1 ? ", " : "",
					       (i - 1) * per + k);
		li += (size_t)snprintf(inv + li, cap - li, "]%s", i == c->racks ? "]\n" : "");
	}
	for (i = 1; c->racks >= 2 && i <= c->racks; i++) {
		char uo[32], ui[32];
		cl_uplink_names(c, i, uo, ui, sizeof(uo));
		li += (size_t)snprintf(inv + li, cap - li, "%s[%s, %s]%s", i == 1 ?
				       "# each rack's uplink on this machine (out, in): gcbench run "
				       "caps them\nuplink_ifaces: [" : ", ", uo, ui,
				       i == c->racks ? "]\n" : "");
	}
	ssh_config_tail(c, sc + ls, cap - ls);
	rc = write_client_texts(c, kh, sc, inv, e);
out:
	free(kh);
	free(sc);
	free(inv);
	return rc;
}

/* netem/cluster.c: namespaces + veth + bridge + sshd per node (see cluster.h); links
 * through libnl-route (netem/link.h), namespaces made in C (netem/netns.h). */
#include "cluster.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "log.h"
#include "link.h"
#include "netns.h"
#include "pids.h"
#include "shape.h"
#include "proc.h"
#include "strutil.h"
#include "timing.h"

#define T_CMD 30    /* seconds for one ssh-keygen */

struct cl {
	const char *name;
	const char *user;   /* an extra unprivileged login on every node, or NULL */
	int shared_fs;      /* the nodes see this machine's file system */
	int k, n;
	int k_known;     /* k was read from cluster.conf (else: the name's hash, unclaimed) */
	char dir[128];
};

int gc_cluster_valid_name(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	return n >= 1 && n <= 12 && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

int gc_cluster_subnet(const char *name)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return 1 + (int)(h % 250);
}

gc_rc gc_cluster_dir(const char *name, char *buf, size_t n, gc_err *e)
{
	const char *home = getenv("GCBENCH_HOME");
	int len;

	if (!home || !*home)
		home = "/var/lib/gcbench";
	if (home[0] != '/' || strchr(home, '\n') || strchr(home, ' '))
		return gc_fail(e, GC_E_INVAL, "GCBENCH_HOME '%s' must be an absolute path without "
			       "spaces", home);
	len = snprintf(buf, n, "%s/clusters/%s", home, name);
	if (len < 0 || (size_t)len >= n || len > 60)
		return gc_fail(e, GC_E_INVAL, "cluster directory '%s/clusters/%s' is too long (at "
			       "most 60 bytes: ssh's control sockets live there)", home, name);
	return GC_OK;
}

static void node_netns(const struct cl *c, int i, char *buf, size_t n)
{
	snprintf(buf, n, "gcb-%s-n%d", c->name, i);
}

static void node_addr(const struct cl *c, int i, char *buf, size_t n)
{
	snprintf(buf, n, "10.213.%d.%d", c->k, 10 + i);
}

static void host_veth(const struct cl *c, int i, char *buf, size_t n)
{
	snprintf(buf, n, "gc%d-v%d", c->k, i);
}

static void bridge_name(const struct cl *c, char *buf, size_t n)
{
	snprintf(buf, n, "gc%d-br", c->k);
}

static void path_of(const struct cl *c, const char *file, char *buf, size_t n)
{
	snprintf(buf, n, "%s/%s", c->dir, file);
}

/* $GCBENCH_HOME/nodes/NAME (beside clusters/NAME, which the nodes see) */
static void nodes_dir(const struct cl *c, char *buf, size_t n)
{
	size_t len = strlen(c->dir) - strlen(c->name) - strlen("clusters/");

	snprintf(buf, n, "%.*snodes/%s", (int)len, c->dir, c->name);
}

static int link_exists(const char *dev)
{
	char p[128];
	snprintf(p, sizeof(p), "/sys/class/net/%s", dev);
	return access(p, F_OK) == 0;
}

static gc_rc need_root(gc_err *e)
{
	if (geteuid() != 0)
		return gc_fail(e, GC_E_PERM, "the local cluster needs root (CAP_NET_ADMIN and "
			       "CAP_SYS_ADMIN to create namespaces, links and bridges): run as root");
	return GC_OK;
}

static gc_rc cl_init(struct cl *c, const char *name, gc_err *e)
{
	if (!gc_cluster_valid_name(name))
		return gc_fail(e, GC_E_INVAL, "invalid cluster name '%.32s': use 1-12 of [a-z0-9-]",
			       name ? name : "");
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->k = gc_cluster_subnet(name);
	return gc_cluster_dir(name, c->dir, sizeof(c->dir), e);
}

/* The subnet this cluster claimed in its cluster.conf, if any (sets c->k_known). */
static void read_conf_subnet(struct cl *c)
{
	char path[PATH_MAX], line[128];
	FILE *f;
	int k;

	snprintf(path, sizeof(path), "%s/cluster.conf", c->dir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "subnet=", 7) && (k = atoi(line + 7)) >= 1 && k <= 250) {
			c->k = k;
			c->k_known = 1;
		}
	if (f)
		fclose(f);
}

static gc_rc write_file(const char *path, const char *text, gc_err *e)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		return gc_fail(e, GC_E_IO, "cannot write '%s': %s", path, strerror(errno));
	return GC_OK;
}

/* Read nodes=N from cluster.conf; 0 when absent or unreadable. */
static int read_conf_nodes(const struct cl *c, char *owner, size_t on)
{
	char path[PATH_MAX], line[128];
	FILE *f;
	int n = 0;

	path_of(c, "cluster.conf", path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "nodes=", 6))
			n = atoi(line + 6);
		if (owner && !strncmp(line, "name=", 5))
			snprintf(owner, on, "%.*s", (int)strcspn(line + 5, "\n"), line + 5);
	}
	fclose(f);
	return n > 0 && n <= GC_CLUSTER_MAX_NODES ? n : 0;
}

/* 1 when addr:22 accepts a TCP connection within timeout_ms. */
static int tcp_reachable(const char *addr, int timeout_ms)
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
static pid_t sshd_pid(const struct cl *c, int i)
{
	char path[PATH_MAX], needle[64], line[32];
	FILE *f;
	pid_t pid = 0;

	snprintf(needle, sizeof(needle), "n%d.pid", i);
	path_of(c, needle, path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		pid = (pid_t)atoi(line);
	fclose(f);
	snprintf(needle, sizeof(needle), "/n%d.sshd_config", i);
	return pid > 1 && gc_pid_matches(pid, needle) ? pid : 0;
}

static void node_status(const struct cl *c, int i, struct gc_node_status *s)
{
	snprintf(s->name, sizeof(s->name), "n%d", i);
	node_netns(c, i, s->netns, sizeof(s->netns));
	node_addr(c, i, s->address, sizeof(s->address));
	s->netns_exists = gc_netns_exists(s->netns);
	s->sshd_pid = sshd_pid(c, i);
	s->reachable = s->sshd_pid && tcp_reachable(s->address, 1000);
}

gc_rc gc_cluster_status(const char *name, struct gc_cluster_status *st, gc_err *e)
{
	struct cl c;
	char br[32];
	gc_rc rc;
	int i, n;

	memset(st, 0, sizeof(*st));
	if ((rc = cl_init(&c, name, e)))
		return rc;
	read_conf_subnet(&c);
	gc_strlcpy(st->name, name, sizeof(st->name));
	gc_strlcpy(st->dir, c.dir, sizeof(st->dir));
	st->subnet = c.k;
	st->nodes = read_conf_nodes(&c, NULL, 0);
	bridge_name(&c, br, sizeof(br));
	st->bridge_exists = c.k_known && link_exists(br);
	st->healthy = st->nodes > 0 && st->bridge_exists;
	/* look past the configured size too: a half-built cluster may have more */
	for (i = 1, n = st->nodes; i <= GC_CLUSTER_MAX_NODES; i++) {
		node_status(&c, i, &st->node[i - 1]);
		if (i > n && !st->node[i - 1].netns_exists && !st->node[i - 1].sshd_pid)
			break;
		if (i > st->nodes)
			st->nodes = i, st->healthy = 0;
		if (!st->node[i - 1].reachable || !st->node[i - 1].netns_exists)
			st->healthy = 0;
	}
	return GC_OK;
}

/* Best effort: what is left is reported by check_gone. host: a socket on this
 * machine's links (host->sk NULL: none could be opened). */
static void down_node(const struct cl *c, struct gc_links *host, int i)
{
	char ns[32], v[32];

	node_netns(c, i, ns, sizeof(ns));
	host_veth(c, i, v, sizeof(v));
	if (gc_netns_exists(ns)) {
		gc_shape_clear("eth0", ns, NULL);
		gc_netns_kill_all(ns);
		gc_netns_del(ns, NULL);
	}
	if (c->k_known && host->sk && link_exists(v))
		gc_links_delete(host, v, NULL);
}

/* Remove the cluster directory (flat: only files gcbench wrote). */
static gc_rc remove_dir(const struct cl *c, gc_err *e)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp = opendir(c->dir);

	if (!dp)
		return errno == ENOENT ? GC_OK : gc_fail(e, GC_E_IO, "cannot read '%s': %s",
							 c->dir, strerror(errno));
	while ((d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			path_of(c, d->d_name, path, sizeof(path));
			unlink(path);
		}
	closedir(dp);
	if (rmdir(c->dir) && errno != ENOENT)
		return gc_fail(e, GC_E_IO, "cannot remove '%s': %s", c->dir, strerror(errno));
	return GC_OK;
}

static int remove_tree_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT ? -1 : 0;
}

/* Remove the nodes' trees (never crossing into another file system). */
static gc_rc remove_node_trees(const struct cl *c, gc_err *e)
{
	char p[PATH_MAX];

	nodes_dir(c, p, sizeof(p));
	if (access(p, F_OK))
		return GC_OK;
	if (nftw(p, remove_tree_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT))
		return gc_fail(e, GC_E_IO, "cannot remove the nodes' files in '%s': %s", p,
			       strerror(errno));
	return GC_OK;
}

/* After down: what is still there, as an error. */
static gc_rc check_gone(const struct cl *c, gc_err *e)
{
	char ns[32], br[32], needle[PATH_MAX];
	int i;

	for (i = 1; i <= GC_CLUSTER_MAX_NODES; i++) {
		node_netns(c, i, ns, sizeof(ns));
		if (gc_netns_exists(ns))
			return gc_fail(e, GC_E_STATE, "namespace '%s' is still there after down", ns);
	}
	bridge_name(c, br, sizeof(br));
	if (c->k_known && link_exists(br))
		return gc_fail(e, GC_E_STATE, "bridge '%s' is still there after down", br);
	snprintf(needle, sizeof(needle), "%s/", c->dir);
	if (access(c->dir, F_OK) == 0)
		return gc_fail(e, GC_E_STATE, "directory '%s' is still there after down", c->dir);
	return GC_OK;
}

gc_rc gc_cluster_down(const char *name, gc_err *e)
{
	struct gc_links host = { 0 };
	struct cl c;
	char br[32], needle[PATH_MAX];
	gc_rc rc;
	int i;

	if ((rc = cl_init(&c, name, e)) || (rc = need_root(e)))
		return rc;
	read_conf_subnet(&c);   /* without it, no bridge or host veth is this cluster's */
	/* sshd (-f DIR/n1.sshd_config) and ssh ControlMaster processes (DIR/cm-...) */
	snprintf(needle, sizeof(needle), "%s/", c.dir);
	gc_kill_matching(needle);
	gc_links_open(&host, NULL, NULL);   /* without it, check_gone names what is left */
	for (i = 1; i <= GC_CLUSTER_MAX_NODES; i++)
		down_node(&c, &host, i);
	bridge_name(&c, br, sizeof(br));
	if (c.k_known && host.sk && link_exists(br))
		gc_links_delete(&host, br, NULL);
	gc_links_release(&host);
	if ((rc = remove_dir(&c, e)) || (rc = remove_node_trees(&c, e)))
		return rc;
	return check_gone(&c, e);
}

/* Write net.ipv4.tcp_congestion_control=reno inside namespace ns. */
static gc_rc set_reno(const char *ns, gc_err *e)
{
	int saved, fd, ok;
	gc_rc rc = gc_netns_enter(ns, &saved, e);

	if (rc)
		return rc;
	fd = open("/proc/sys/net/ipv4/tcp_congestion_control", O_WRONLY | O_CLOEXEC);
	ok = fd >= 0 && write(fd, "reno\n", 5) == 5;
	if (fd >= 0)
		close(fd);
	gc_netns_leave(saved);
	return ok ? GC_OK : gc_fail(e, GC_E_IO, "cannot set tcp congestion control reno in '%s'", ns);
}

/* The bridge gcK-br with 10.213.K.1/24, up. GC_E_BUSY when it exists already. */
static gc_rc make_bridge(const struct cl *c, struct gc_links *host, gc_err *e)
{
	char br[32], addr[32];
	gc_rc rc;

	bridge_name(c, br, sizeof(br));
	snprintf(addr, sizeof(addr), "10.213.%d.1/24", c->k);
	if ((rc = gc_links_add_bridge(host, br, e)) || (rc = gc_links_add_addr(host, br, addr, e)))
		return rc;
	return gc_links_set_up(host, br, NULL, e);
}

/* Inside node i's namespace: eth0 with its address, eth0 and lo up. */
static gc_rc node_links_up(const struct cl *c, int i, const char *ns, gc_err *e)
{
	struct gc_links in;
	char addr[32];
	gc_rc rc;

	node_addr(c, i, addr, sizeof(addr));
	strcat(addr, "/24");
	if ((rc = gc_links_open(&in, ns, e)))
		return rc;
	if (!(rc = gc_links_add_addr(&in, "eth0", addr, e)) &&
	    !(rc = gc_links_set_up(&in, "eth0", NULL, e)))
		rc = gc_links_set_up(&in, "lo", NULL, e);
	gc_links_release(&in);
	return rc;
}

/* Node i's namespace, and a veth pair: gcK-v<i> up in the bridge, eth0 inside. */
static gc_rc make_node_net(const struct cl *c, struct gc_links *host, int i, gc_err *e)
{
	char ns[32], v[32], br[32];
	gc_rc rc;

	node_netns(c, i, ns, sizeof(ns));
	host_veth(c, i, v, sizeof(v));
	bridge_name(c, br, sizeof(br));
	if ((rc = gc_netns_add(ns, e)) || (rc = gc_links_add_veth(host, v, "eth0", ns, e)) ||
	    (rc = gc_links_set_up(host, v, br, e)) || (rc = node_links_up(c, i, ns, e)))
		return rc;
	return set_reno(ns, e);
}

/* ---- each node's own mount view ------------------------------------------------------
 * The tree of node i on the host is $GCBENCH_HOME/nodes/NAME/n<i>: tmp, root, home,
 * varlib, run, sudoers.d, etc/hosts (every node by name) and, with a login user,
 * etc/{passwd,group,shadow}. Its sshd runs in a mount namespace of its own where these
 * are bound over /tmp, /root, /home, /var/lib/gcbench, /run/gcbench, /etc/sudoers.d
 * and the etc files; the
 * cluster directory is bound back read-only at its own path (sshd's keys and config,
 * the ssh_config OpenMPI's daemons use); the top directory holding the controller's
 * source tree (/work for /work/x/build/bin/gcbench) is covered by an empty tmpfs. */

static void node_tree(const struct cl *c, int i, const char *sub, char *buf, size_t n)
{
	char d[256];   /* c->dir is under 128 bytes */

	nodes_dir(c, d, sizeof(d));
	snprintf(buf, n, "%s/n%d%s%s", d, i, *sub ? "/" : "", sub);
}

/* the source tree this program was built in: the nearest ancestor of its directory
 * with a Makefile and an orchestrator/ folder; "" when installed elsewhere */
static void source_tree(char *out, size_t n)
{
	char p[PATH_MAX], probe[PATH_MAX + 32];
	ssize_t len = readlink("/proc/self/exe", p, sizeof(p) - 1);
	char *slash;

	out[0] = 0;
	if (len <= 0)
		return;
	p[len] = 0;
	while ((slash = strrchr(p, '/')) && slash != p) {
		*slash = 0;
		snprintf(probe, sizeof(probe), "%s/orchestrator/cli/commands.def", p);
		if (access(probe, F_OK) == 0) {
			gc_strlcpy(out, p, n);
			return;
		}
	}
}

/* What to cover so that a node cannot see the source tree: its top directory, unless
 * that is one the node needs (then the tree itself). */
static void mask_path(char *out, size_t n)
{
	static const char *const sys[] = { "usr", "etc", "bin", "sbin", "lib", "lib32", "lib64",
					   "libx32", "proc", "sys", "dev", "run", "var", "boot",
					   "opt", "tmp", "root", "home", "srv", "mnt", "media" };
	char tree[PATH_MAX];
	size_t top;

	out[0] = 0;
	source_tree(tree, sizeof(tree));
	if (!tree[0])
		return;
	top = strcspn(tree + 1, "/");
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		if (strlen(sys[i]) == top && !strncmp(tree + 1, sys[i], top)) {
			if (strcmp(sys[i], "tmp") && strcmp(sys[i], "root") && strcmp(sys[i], "home"))
				gc_strlcpy(out, tree, n);   /* /tmp, /root, /home are private anyway */
			return;
		}
	snprintf(out, n, "/%.*s", (int)top, tree + 1);
}

/* copy a file adding a line, with the mode of the original */
static gc_rc copy_plus(const char *from, const char *to, const char *line, gc_err *e)
{
	FILE *in = fopen(from, "r"), *out;
	char buf[4096];
	size_t r;
	struct stat st;

	if (!in)
		return gc_fail(e, GC_E_IO, "cannot read '%s': %s", from, strerror(errno));
	out = fopen(to, "w");
	while (out && (r = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, r, out) != r)
			break;
	fclose(in);
	if (!out || fputs(line, out) < 0 || fclose(out))
		return gc_fail(e, GC_E_IO, "cannot write '%s'", to);
	if (!stat(from, &st)) {
		chmod(to, st.st_mode & 07777);
		if (chown(to, st.st_uid, st.st_gid)) {
		}
	}
	return GC_OK;
}

/* passwd, group and shadow of the node with the login user added; its home */
static gc_rc make_user(const struct cl *c, int i, gc_err *e)
{
	char etc[PATH_MAX], to[PATH_MAX + 16], line[256], home[PATH_MAX];
	gc_rc rc;

	node_tree(c, i, "etc", etc, sizeof(etc));
	if ((rc = gc_mkdir_p(etc, 0755, e)))
		return rc;
	snprintf(line, sizeof(line), "%s:x:%d:%d:gcbench test login:/home/%s:/bin/sh\n", c->user,
		 GC_CLUSTER_USER_UID, GC_CLUSTER_USER_UID, c->user);
	snprintf(to, sizeof(to), "%s/passwd", etc);
	if ((rc = copy_plus("/etc/passwd", to, line, e)))
		return rc;
	snprintf(line, sizeof(line), "%s:x:%d:\n", c->user, GC_CLUSTER_USER_UID);
	snprintf(to, sizeof(to), "%s/group", etc);
	if ((rc = copy_plus("/etc/group", to, line, e)))
		return rc;
	snprintf(line, sizeof(line), "%s:*:20000:0:99999:7:::\n", c->user);
	snprintf(to, sizeof(to), "%s/shadow", etc);
	if ((rc = copy_plus("/etc/shadow", to, line, e)))
		return rc;
	snprintf(line, sizeof(line), "home/%s", c->user);
	node_tree(c, i, line, home, sizeof(home));
	if ((rc = gc_mkdir_p(home, 0755, e)))
		return rc;
	if (chown(home, GC_CLUSTER_USER_UID, GC_CLUSTER_USER_UID))
		return gc_fail(e, GC_E_IO, "cannot chown '%s': %s", home, strerror(errno));
	/* sshd reads a user's keys as that user: the cluster key in its own home */
	snprintf(to, sizeof(to), "%s/.ssh", home);
	if ((rc = gc_mkdir_p(to, 0700, e)))
		return rc;
	if (chown(to, GC_CLUSTER_USER_UID, GC_CLUSTER_USER_UID))
		return gc_fail(e, GC_E_IO, "cannot chown '%s': %s", to, strerror(errno));
	path_of(c, "authorized_keys", etc, sizeof(etc));
	strcat(to, "/authorized_keys");
	if ((rc = copy_plus(etc, to, "", e)))
		return rc;
	if (chown(to, GC_CLUSTER_USER_UID, GC_CLUSTER_USER_UID))
		return gc_fail(e, GC_E_IO, "cannot chown '%s': %s", to, strerror(errno));
	return GC_OK;
}

static gc_rc make_node_tree(const struct cl *c, int i, gc_err *e)
{
	static const struct { const char *sub; mode_t mode; } dirs[] = {
		{ "tmp", 01777 }, { "root", 0700 }, { "home", 0755 }, { "varlib", 0755 },
		{ "run", 0755 }, { "run/ssh", 0700 }, { "sudoers.d", 0750 }, { "etc", 0755 },
	};
	char p[PATH_MAX], names[64 * 40] = "\n# the nodes of this gcbench cluster\n", addr[32];
	size_t o = strlen(names);
	gc_rc rc;

	for (size_t k = 0; k < sizeof(dirs) / sizeof(dirs[0]); k++) {
		node_tree(c, i, dirs[k].sub, p, sizeof(p));
		if ((rc = gc_mkdir_p(p, dirs[k].mode, e)))
			return rc;
		chmod(p, dirs[k].mode);
	}
	/* /etc/hosts: the machine's, and every node by name (sudo looks its host up) */
	for (int j = 1; j <= c->n && o < sizeof(names) - 40; j++) {
		node_addr(c, j, addr, sizeof(addr));
		o += (size_t)snprintf(names + o, sizeof(names) - o, "%s n%d\n", addr, j);
	}
	node_tree(c, i, "etc/hosts", p, sizeof(p));
	if ((rc = copy_plus("/etc/hosts", p, names, e)))
		return rc;
	return c->user ? make_user(c, i, e) : GC_OK;
}

/* bind from (a host path, or /proc/self/fd/N) over to; 0 on success */
static int bind_over(const char *from, const char *to, int ro)
{
	if (mount(from, to, NULL, MS_BIND, NULL))
		return -1;
	if (ro && mount(NULL, to, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID, NULL))
		return -1;
	return 0;
}

/* In sshd's child, after unshare(CLONE_NEWNS): build the node's view. 0 on success. */
static int enter_node_view(const struct cl *c, int i)
{
	static const struct { const char *sub, *over; } binds[] = {
		{ "tmp", "/tmp" }, { "root", "/root" }, { "home", "/home" },
		{ "varlib", "/var/lib/gcbench" }, { "run", "/run/gcbench" },
		{ "sudoers.d", "/etc/sudoers.d" }, { "etc/passwd", "/etc/passwd" },
		{ "etc/group", "/etc/group" }, { "etc/shadow", "/etc/shadow" },
		{ "etc/hosts", "/etc/hosts" },
	};
	int fds[sizeof(binds) / sizeof(binds[0])], fd;
	char src[PATH_MAX], mask[PATH_MAX], fdp[64];
	size_t k;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	/* every source first: a bind may cover the next one's path ($GCBENCH_HOME under
	 * /var/lib/gcbench) */
	fd = open(c->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	mkdir("/var/lib/gcbench", 0755);   /* on the host, once: the mount point */
	for (k = 0; k < sizeof(binds) / sizeof(binds[0]); k++) {
		node_tree(c, i, binds[k].sub, src, sizeof(src));
		fds[k] = access(binds[k].over, F_OK) ? -1 : open(src, O_PATH | O_CLOEXEC);
	}
	mask_path(mask, sizeof(mask));
	if (mask[0] && mount("tmpfs", mask, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=755"))
		return -1;
	for (k = 0; k < sizeof(binds) / sizeof(binds[0]); k++) {
		if (fds[k] < 0)
			continue;   /* no login user, or no sudo on this machine */
		snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", fds[k]);
		if (bind_over(fdp, binds[k].over, 0))
			return -1;
		close(fds[k]);
	}
	/* the cluster directory again, read-only, where it was */
	if (gc_mkdir_p(c->dir, 0700, NULL))
		return -1;
	snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", fd);
	if (bind_over(fdp, c->dir, 1))
		return -1;
	close(fd);
	return 0;
}


static gc_rc write_sshd_config(const struct cl *c, int i, char *cfg, size_t n, gc_err *e)
{
	char addr[32], text[2048], f[32];

	node_addr(c, i, addr, sizeof(addr));
	snprintf(f, sizeof(f), "n%d.sshd_config", i);
	path_of(c, f, cfg, n);
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
	return write_file(cfg, text, e);
}

/* In the child: enter the node's network namespace, new UTS and mount namespaces (its
 * hostname, its own view of the file system), become sshd. */
static void sshd_child(const struct cl *c, int i, const char *cfg, const char *log)
{
	char ns[32], host[16];
	int saved, fd;

	node_netns(c, i, ns, sizeof(ns));
	snprintf(host, sizeof(host), "n%d", i);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0)
		dup2(fd, 0);
	if (gc_netns_enter(ns, &saved, NULL) ||
	    unshare(CLONE_NEWUTS | (c->shared_fs ? 0 : CLONE_NEWNS)) ||
	    sethostname(host, strlen(host)))
		_exit(126);
	close(saved);
	if (!c->shared_fs && enter_node_view(c, i)) {
		fprintf(stderr, "gcbench: cannot make the file system view of node n%d: %s\n", i,
			strerror(errno));
		_exit(126);
	}
	setsid();
	execl("/usr/sbin/sshd", "/usr/sbin/sshd", "-D", "-e", "-f", cfg, (char *)NULL);
	_exit(127);
}

static gc_rc start_sshd(const struct cl *c, int i, gc_err *e)
{
	char cfg[PATH_MAX], log[PATH_MAX], pidf[PATH_MAX], f[32], num[32];
	pid_t pid;
	gc_rc rc;

	if ((rc = write_sshd_config(c, i, cfg, sizeof(cfg), e)))
		return rc;
	snprintf(f, sizeof(f), "n%d.log", i);
	path_of(c, f, log, sizeof(log));
	snprintf(f, sizeof(f), "n%d.pid", i);
	path_of(c, f, pidf, sizeof(pidf));
	pid = fork();
	if (pid < 0)
		return gc_fail(e, GC_E_CHILD, "fork: %s", strerror(errno));
	if (pid == 0)
		sshd_child(c, i, cfg, log);
	snprintf(num, sizeof(num), "%d\n", (int)pid);
	return write_file(pidf, num, e);
}

/* 1 when node i's sshd (our child) has exited. */
static int child_exited(const struct cl *c, int i)
{
	char path[PATH_MAX], f[32], line[32] = "";
	FILE *fp;
	int st;
	pid_t pid;

	snprintf(f, sizeof(f), "n%d.pid", i);
	path_of(c, f, path, sizeof(path));
	fp = fopen(path, "r");
	if (!fp)
		return 1;
	if (!fgets(line, sizeof(line), fp))
		line[0] = 0;
	fclose(fp);
	pid = (pid_t)atoi(line);
	return pid <= 0 || waitpid(pid, &st, WNOHANG) == pid;
}

/* The failure of node i's sshd, with the last line of its log (removed by down). */
static gc_rc log_tail_fail(const struct cl *c, int i, const char *addr, gc_err *e)
{
	char path[PATH_MAX], f[32], line[256] = "", last[256] = "(empty log)";
	FILE *fp;

	snprintf(f, sizeof(f), "n%d.log", i);
	path_of(c, f, path, sizeof(path));
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
static gc_rc wait_sshd(const struct cl *c, int i, gc_err *e)
{
	uint64_t end = gc_now_ns() + 15000000000ull;
	char addr[32];

	node_addr(c, i, addr, sizeof(addr));
	while (gc_now_ns() < end) {
		if (tcp_reachable(addr, 200))
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
	path_of(c, file, path, sizeof(path));
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

static gc_rc make_keys(const struct cl *c, gc_err *e)
{
	char ck[PATH_MAX], pub[1024], ak[PATH_MAX];
	gc_rc rc;

	path_of(c, "id_ed25519", ck, sizeof(ck));
	path_of(c, "authorized_keys", ak, sizeof(ak));
	if ((rc = gen_key(c, "host_key", e)) || (rc = gen_key(c, "id_ed25519", e)))
		return rc;
	strcat(ck, ".pub");
	if ((rc = read_small(ck, pub, sizeof(pub) - 2, e)))
		return rc;
	strcat(pub, "\n");
	rc = write_file(ak, pub, e);
	chmod(ak, 0600);
	return rc;
}

/* known_hosts, ssh_config and inventory.yaml, for nodes 1..n. */
static gc_rc write_client_files(const struct cl *c, gc_err *e)
{
	char path[PATH_MAX], hostpub[1024], addr[32], *kh, *sc, *inv;
	size_t cap = 4096 + (size_t)c->n * 1024, lk = 0, ls = 0, li = 0;
	gc_rc rc;
	int i;

	path_of(c, "host_key.pub", path, sizeof(path));
	if ((rc = read_small(path, hostpub, sizeof(hostpub), e)))
		return rc;
	kh = calloc(1, cap), sc = calloc(1, cap), inv = calloc(1, cap);
	if (!kh || !sc || !inv) {
		rc = gc_fail(e, GC_E_NOMEM, "out of memory");
		goto out;
	}
	ls += (size_t)snprintf(sc + ls, cap - ls, "# ssh client config of gcbench cluster '%s': "
			       "ssh -F %s/ssh_config n1 hostname\n", c->name, c->dir);
	li += (size_t)snprintf(inv + li, cap - li, "# gcbench inventory written by `gcbench "
			       "cluster up`\nname: %s\nssh_config: %s/ssh_config\nhosts:\n",
			       c->name, c->dir);
	for (i = 1; i <= c->n; i++) {
		node_addr(c, i, addr, sizeof(addr));
		lk += (size_t)snprintf(kh + lk, cap - lk, "n%d,%s %s\n", i, addr, hostpub);
		ls += (size_t)snprintf(sc + ls, cap - ls, "Host n%d\n  HostName %s\n", i, addr);
		li += (size_t)snprintf(inv + li, cap - li, "  - name: n%d\n    address: %s\n"
				       "    user: root\n    port: 22\n    identity: %s/id_ed25519\n"
				       "    iface: eth0\n    netns: gcb-%s-n%d\n    gpus: 0\n",
				       i, addr, c->dir, c->name, i);
	}
	snprintf(sc + ls, cap - ls, "Host *\n  User root\n  Port 22\n  IdentityFile %s/id_ed25519\n"
		 "  IdentitiesOnly yes\n  UserKnownHostsFile %s/known_hosts\n"
		 "  GlobalKnownHostsFile /dev/null\n  StrictHostKeyChecking yes\n  CheckHostIP no\n"
		 "  BatchMode yes\n  ConnectTimeout 10\n  ServerAliveInterval 5\n  ServerAliveCountMax 3\n"
		 "  ControlMaster auto\n"
		 /* sockets in a short fixed directory: a unix socket path is limited to 107
		  * bytes, which a cluster dir under a long GCBENCH_HOME would exceed */
		 /* named per bring-up, so a rebuilt cluster never meets a stale master */
		 "  ControlPath " GC_CLUSTER_CM_DIR "/%s-%ld-%%C\n  ControlPersist 60\n", c->dir, c->dir,
		 c->name, (long)getpid());
	path_of(c, "known_hosts", path, sizeof(path));
	if ((rc = write_file(path, kh, e)))
		goto out;
	path_of(c, "ssh_config", path, sizeof(path));
	if ((rc = write_file(path, sc, e)))
		goto out;
	path_of(c, "inventory.yaml", path, sizeof(path));
	rc = write_file(path, inv, e);
out:
	free(kh);
	free(sc);
	free(inv);
	return rc;
}

static gc_rc mkdirs(const char *dir, gc_err *e)
{
	gc_rc rc = gc_mkdir_p(dir, 0700, e);

	if (rc)
		return rc;
	mkdir("/run/sshd", 0755);   /* sshd's privilege separation directory */
	mkdir("/run/gcbench", 0755);
	mkdir(GC_CLUSTER_CM_DIR, 0700);
	return GC_OK;
}

static gc_rc write_conf(const struct cl *c, gc_err *e)
{
	char path[PATH_MAX], conf[128];

	snprintf(conf, sizeof(conf), "name=%s\nnodes=%d\nsubnet=%d\nuser=%s\nshared_fs=%d\n",
		 c->name, c->n, c->k, c->user ? c->user : "", c->shared_fs);
	path_of(c, "cluster.conf", path, sizeof(path));
	return write_file(path, conf, e);
}

/* Claim a free subnet: the name's hash K first, then K+1, ... (mod 250); a subnet is
 * taken when its bridge gcK-br exists (another cluster, or a crashed one). The claim
 * is written to cluster.conf before the bridge is made, so down finds it; when two
 * clusters race for one K, the second's bridge creation (NLM_F_EXCL) fails and it moves
 * on. */
static gc_rc make_bridge_free(struct cl *c, struct gc_links *host, gc_err *e)
{
	int first = c->k, tries;
	gc_rc rc = GC_OK;

	for (tries = 0; tries < 250; tries++, c->k = c->k % 250 + 1) {
		char br[32];
		bridge_name(c, br, sizeof(br));
		if (link_exists(br))
			continue;
		c->k_known = 1;
		if ((rc = write_conf(c, e)))
			return rc;
		if (!(rc = make_bridge(c, host, e)))
			break;
		if (!link_exists(br))
			return rc;   /* failed for another reason than a race */
	}
	if (tries == 250)
		return gc_fail(e, GC_E_BUSY, "no free subnet 10.213.K.0/24 (K = 1..250): every "
			       "bridge gcK-br exists; take a cluster down (gcbench cluster down)");
	if (c->k != first)
		gc_info("cluster '%s': subnet 10.213.%d.0/24 (10.213.%d.0/24, its name's hash, "
			"is taken by another cluster)", c->name, c->k, first);
	return rc;
}

/* Bridge, then each node: namespace and links (on one socket of this machine's
 * links), its tree, its sshd; then wait for every sshd. */
static gc_rc build(struct cl *c, gc_err *e)
{
	struct gc_links host;
	gc_rc rc;
	int i;

	if ((rc = mkdirs(c->dir, e)) || (rc = make_keys(c, e)) ||
	    (rc = gc_links_open(&host, NULL, e)))
		return rc;
	rc = make_bridge_free(c, &host, e);
	for (i = 1; !rc && i <= c->n; i++)
		if (!(rc = make_node_net(c, &host, i, e)) && !(rc = make_node_tree(c, i, e)))
			rc = start_sshd(c, i, e);
	gc_links_release(&host);
	if (rc)
		return rc;
	for (i = 1; i <= c->n; i++)
		if ((rc = wait_sshd(c, i, e)))
			return rc;
	return write_client_files(c, e);
}

/* cluster.conf holds these options (a file of before them: no user, own views) */
static int conf_opts_are(const struct cl *c, const char *user, int shared_fs)
{
	char path[PATH_MAX], line[128], want[80];
	FILE *f;
	int same_user = !user || !*user, same_fs = !shared_fs;

	snprintf(want, sizeof(want), "user=%s\n", user ? user : "");
	path_of(c, "cluster.conf", path, sizeof(path));
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "user=", 5))
			same_user = !strcmp(line, want);
		if (!strncmp(line, "shared_fs=", 10))
			same_fs = atoi(line + 10) == (shared_fs != 0);
	}
	if (f)
		fclose(f);
	return same_user && same_fs;
}

static int valid_user(const char *u)
{
	size_t n = strlen(u);
	return n >= 1 && n <= 16 && u[0] >= 'a' && u[0] <= 'z' &&
	       strspn(u, "abcdefghijklmnopqrstuvwxyz0123456789-") == n && strcmp(u, "root");
}

gc_rc gc_cluster_up(const char *name, int nodes, int *was_up, gc_err *e)
{
	return gc_cluster_up_opts(name, nodes, NULL, was_up, e);
}

gc_rc gc_cluster_up_opts(const char *name, int nodes, const struct gc_cluster_opts *o,
			 int *was_up, gc_err *e)
{
	const char *user = o ? o->user : NULL;
	struct gc_cluster_status *st;
	struct cl c;
	gc_rc rc;
	int exists;

	if (was_up)
		*was_up = 0;
	if ((rc = cl_init(&c, name, e)) || (rc = need_root(e)))
		return rc;
	if (nodes < 1 || nodes > GC_CLUSTER_MAX_NODES)
		return gc_fail(e, GC_E_INVAL, "cannot make %d nodes: give 1 to %d", nodes,
			       GC_CLUSTER_MAX_NODES);
	if (user && !valid_user(user))
		return gc_fail(e, GC_E_INVAL, "invalid login user '%.32s': use 1-16 of [a-z0-9-], "
			       "starting with a letter, not root", user);
	c.n = nodes;
	c.user = user;
	c.shared_fs = o ? o->shared_fs != 0 : 0;
	st = calloc(1, sizeof(*st));
	if (!st)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	rc = gc_cluster_status(name, st, e);
	exists = st->nodes > 0 || st->bridge_exists || access(c.dir, F_OK) == 0;
	if (!rc && st->healthy && st->nodes == nodes &&
	    conf_opts_are(&c, user, c.shared_fs)) {
		if (was_up)
			*was_up = 1;
		free(st);
		return GC_OK;
	}
	free(st);
	if (!rc && exists) {
		gc_info("cluster '%s' is incomplete or of another size: rebuilding it", name);
		rc = gc_cluster_down(name, e);
	}
	if (!rc && (rc = build(&c, e)))
		gc_cluster_down(name, NULL);   /* leave nothing half-built */
	return rc;
}

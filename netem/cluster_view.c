/* netem/cluster_view.c: each node's own mount view of the local cluster, and the way a
 * forked daemon (sshd, slurmd) enters its node (see cluster_int.h).
 * The tree of node i on the host is $GCBENCH_HOME/nodes/NAME/n<i>: tmp, root, home,
 * varlib, run, sudoers.d, etc/hosts (every node by name) and, with a login user,
 * etc/{passwd,group,shadow}. Its sshd runs in a mount namespace of its own where these
 * are bound over /tmp, /root, /home, /var/lib/gcbench, /run/gcbench, /etc/sudoers.d
 * and the etc files; the
 * cluster directory is bound back read-only at its own path (sshd's keys and config,
 * the ssh_config OpenMPI's daemons use), but for DIR/slurmd, SLURM's node files, which
 * stay writable; the top directory holding the controller's
 * source tree (/work for /work/x/build/bin/gcbench) is covered by an empty tmpfs. */
#include "cluster_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "netns.h"
#include "strutil.h"

static void node_tree(const struct cl *c, int i, const char *sub, char *buf, size_t n)
{
	char d[256];   /* c->dir is under 128 bytes */

	cl_nodes_dir(c, d, sizeof(d));
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
	cl_path_of(c, "authorized_keys", etc, sizeof(etc));
	strcat(to, "/authorized_keys");
	if ((rc = copy_plus(etc, to, "", e)))
		return rc;
	if (chown(to, GC_CLUSTER_USER_UID, GC_CLUSTER_USER_UID))
		return gc_fail(e, GC_E_IO, "cannot chown '%s': %s", to, strerror(errno));
	return GC_OK;
}

gc_rc cl_make_node_tree(const struct cl *c, int i, gc_err *e)
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
		cl_node_addr(c, j, addr, sizeof(addr));
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
int cl_enter_node_view(const struct cl *c, int i)
{
	static const struct { const char *sub, *over; } binds[] = {
		{ "tmp", "/tmp" }, { "root", "/root" }, { "home", "/home" },
		{ "varlib", "/var/lib/gcbench" }, { "run", "/run/gcbench" },
		{ "sudoers.d", "/etc/sudoers.d" }, { "etc/passwd", "/etc/passwd" },
		{ "etc/group", "/etc/group" }, { "etc/shadow", "/etc/shadow" },
		{ "etc/hosts", "/etc/hosts" },
	};
	int fds[sizeof(binds) / sizeof(binds[0])], fd, spool;
	char src[PATH_MAX], mask[PATH_MAX], fdp[64], spool_path[PATH_MAX];
	size_t k;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	/* every source first: a bind may cover the next one's path ($GCBENCH_HOME under
	 * /var/lib/gcbench) */
	fd = open(c->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(spool_path, sizeof(spool_path), "%s/slurmd", c->dir);
	spool = open(spool_path, O_PATH | O_DIRECTORY | O_CLOEXEC);   /* -1: no SLURM */
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
	/* SLURM's node files (spool, pid files, logs: DIR/slurmd) stay writable */
	if (spool >= 0) {
		snprintf(fdp, sizeof(fdp), "/proc/self/fd/%d", spool);
		if (bind_over(fdp, spool_path, 0))
			return -1;
		close(spool);
	}
	return 0;
}

void cl_child_stdio(const char *log)
{
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0)
		dup2(fd, 0);
}

void cl_child_enter_node(const struct cl *c, int i)
{
	char ns[32], host[16];
	int saved;

	cl_node_netns(c, i, ns, sizeof(ns));
	snprintf(host, sizeof(host), "n%d", i);
	if (gc_netns_enter(ns, &saved, NULL) ||
	    unshare(CLONE_NEWUTS | (c->shared_fs ? 0 : CLONE_NEWNS)) ||
	    sethostname(host, strlen(host))) {
		fprintf(stderr, "gcbench: cannot enter the namespaces of node n%d (%s): %s\n", i,
			ns, strerror(errno));
		_exit(126);
	}
	close(saved);
	if (!c->shared_fs && cl_enter_node_view(c, i)) {
		fprintf(stderr, "gcbench: cannot make the file system view of node n%d: %s\n", i,
			strerror(errno));
		_exit(126);
	}
}

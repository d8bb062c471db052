/* The host lock of the local emulated cluster's nodes, seen from this machine
 * (orchestrator/run/hostlock.h): before `local: N` rebuilds a cluster. */
#include "hostlock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netem/cluster.h"

static int ns_inode(const char *path, unsigned long long *ino)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	*ino = (unsigned long long)st.st_ino;
	return 0;
}

/* One lock file: 1 locked (*o filled when its record parses), 0 free, -1 none. */
static int probe_file(const char *path, struct gc_hostlock_owner *o, int *readable)
{
	char text[8192];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), held;
	ssize_t r;

	if (fd < 0)
		return -1;
	held = flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	r = held ? pread(fd, text, sizeof(text) - 1, 0) : 0;
	close(fd);
	if (!held)
		return 0;
	text[r > 0 ? r : 0] = 0;
	*readable = r > 0 && !gc_hostlock_owner_parse(text, o, NULL);
	return 1;
}

/* The node's lock as process pid sees it (its own mount view): root's, or a login's
 * own under /home. 1 locked, 0 free, -1 this process shows none. */
static int probe_pid(long pid, unsigned long long ino, struct gc_hostlock_owner *o, int *readable)
{
	char path[600], home[300];
	struct dirent *d;
	DIR *dp;
	int r, k0;

	snprintf(path, sizeof(path), "/proc/%ld/root" GC_HOSTLOCK_DIR "/host@%llu", pid, ino);
	if ((r = probe_file(path, o, readable)) == 1)
		return 1;
	snprintf(path, sizeof(path), "/proc/%ld/root" GC_HOSTLOCK_OLD_DIR "/host@%llu", pid, ino);
	if ((k0 = probe_file(path, o, readable)) == 1)
		return 1;
	r = k0 > r ? k0 : r;
	snprintf(home, sizeof(home), "/proc/%ld/root/home", pid);
	if (!(dp = opendir(home)))
		return r;
	while ((d = readdir(dp))) {
		int k;
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%.200s/.cache/gcbench/hostlock/host@%llu", home,
			 d->d_name, ino);
		k = probe_file(path, o, readable);
		r = k > r ? k : r;
		if (k == 1)
			break;
	}
	closedir(dp);
	return r;
}

int gc_hostlock_probe_netns(const char *netns, struct gc_hostlock_owner *o, int *readable)
{
	char path[512];
	unsigned long long ino, pino;
	struct dirent *d;
	DIR *dp;
	int found = 0, r;

	*readable = 0;
	snprintf(path, sizeof(path), "/var/run/netns/%s", netns);
	if (ns_inode(path, &ino) || !(dp = opendir("/proc")))
		return 0;
	/* every process in the namespace: the holder, or the node's sshd, sees its /tmp */
	while (!found && (d = readdir(dp))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
		if (ns_inode(path, &pino) || pino != ino)
			continue;
		r = probe_pid(pid, ino, o, readable);
		if (r == 1)
			found = 1;
		if (r >= 0)
			break;   /* this process sees the node's lock file: held or free */
	}
	closedir(dp);
	return found;
}

gc_rc gc_hostlock_check_cluster(const char *name, gc_err *e)
{
	struct gc_cluster_status *st = calloc(1, sizeof(*st));
	struct gc_hostlock_owner o;
	char desc[2048];
	int i, readable;
	gc_rc rc;

	if (!st)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	rc = gc_cluster_status(name, st, e);
	for (i = 0; !rc && i < st->nodes && i < GC_CLUSTER_MAX_NODES; i++) {
		if (!st->node[i].netns_exists ||
		    !gc_hostlock_probe_netns(st->node[i].netns, &o, &readable))
			continue;
		if (readable)
			gc_hostlock_owner_describe(&o, time(NULL), desc, sizeof(desc));
		else
			snprintf(desc, sizeof(desc), "an owner whose record cannot be read");
		rc = gc_fail(e, GC_E_BUSY, "local cluster '%s' is in use: its node %s is held by %s; "
			     "the cluster was neither rebuilt nor changed: wait for that run to end or "
			     "stop it, or give this sweep another cluster ('name:' in the inventory)",
			     name, st->node[i].name, desc);
	}
	free(st);
	return rc;
}

/* netem/netns.c: make and delete named network namespaces; setns() into one and back. */
#include "netns.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shape.h"

int gc_netns_exists(const char *name)
{
	char path[PATH_MAX];

	if (!gc_shape_valid_netns(name))
		return 0;
	snprintf(path, sizeof(path), "%s/%s", GC_NETNS_DIR, name);
	return access(path, F_OK) == 0;
}

/* GC_NETNS_DIR/name into path (PATH_MAX bytes), for a valid name. */
static gc_rc ns_path(const char *name, char *path, gc_err *e)
{
	if (!gc_shape_valid_netns(name))
		return gc_fail(e, GC_E_INVAL, "invalid namespace name '%.64s': use 1-64 of "
			       "[A-Za-z0-9._-]", name ? name : "");
	snprintf(path, PATH_MAX, "%s/%s", GC_NETNS_DIR, name);
	return GC_OK;
}

gc_rc gc_netns_enter(const char *name, int *saved, gc_err *e)
{
	char path[PATH_MAX];
	int fd, cur;
	gc_rc rc;

	*saved = -1;
	if (!name)
		return GC_OK;
	if ((rc = ns_path(name, path, e)))
		return rc;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return gc_fail(e, errno == ENOENT ? GC_E_NOTFOUND : GC_E_IO,
			       "network namespace '%s' does not exist (%s: %s); list them with "
			       "'ip netns list'", name, path, strerror(errno));
	cur = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (cur < 0) {
		close(fd);
		return gc_fail(e, GC_E_IO, "cannot open /proc/self/ns/net: %s", strerror(errno));
	}
	if (setns(fd, CLONE_NEWNET)) {
		int err = errno;
		close(fd);
		close(cur);
		return gc_fail(e, err == EPERM ? GC_E_PERM : GC_E_IO, "cannot enter network "
			       "namespace '%s': %s (need CAP_SYS_ADMIN: run as root)", name,
			       strerror(err));
	}
	close(fd);
	*saved = cur;
	return GC_OK;
}

void gc_netns_leave(int saved)
{
	if (saved < 0)
		return;
	if (setns(saved, CLONE_NEWNET))
		perror("gcbench: cannot return to the original network namespace");
	close(saved);
}

static gc_rc mount_fail(const char *what, const char *path, gc_err *e)
{
	int err = errno, perm = err == EPERM || err == EACCES;

	return gc_fail(e, perm ? GC_E_PERM : GC_E_IO, "cannot %s '%s': %s%s", what, path,
		       strerror(err), perm ? " (need CAP_SYS_ADMIN: run as root)" : "");
}

/* Make GC_NETNS_DIR a shared mount point, so that a namespace deleted here is deleted
 * in every mount namespace that sees it (iproute2 does the same). */
static gc_rc share_run_dir(gc_err *e)
{
	int made = 0;

	if (mkdir(GC_NETNS_DIR, 0755) && errno != EEXIST)
		return mount_fail("create", GC_NETNS_DIR, e);
	while (mount("", GC_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL)) {
		if (errno != EINVAL || made)   /* EINVAL: not a mount point yet */
			return mount_fail("make a shared mount of", GC_NETNS_DIR, e);
		if (mount(GC_NETNS_DIR, GC_NETNS_DIR, "none", MS_BIND | MS_REC, NULL))
			return mount_fail("bind-mount onto itself", GC_NETNS_DIR, e);
		made = 1;
	}
	return GC_OK;
}

struct ns_maker {
	const char *path;   /* the file to bind the new namespace onto */
	int err;            /* errno of the step that failed, else 0 */
	char step[PATH_MAX + 32];
};

/* In a thread of its own: unshare the network namespace of this thread only, and
 * keep it alive by binding it onto the file; the thread then ends. */
static void *make_ns(void *arg)
{
	struct ns_maker *m = arg;

	if (unshare(CLONE_NEWNET)) {
		m->err = errno;
		snprintf(m->step, sizeof(m->step), "unshare(CLONE_NEWNET)");
	} else if (mount("/proc/thread-self/ns/net", m->path, "none", MS_BIND, NULL)) {
		m->err = errno;
		snprintf(m->step, sizeof(m->step), "bind-mount onto %s", m->path);
	}
	return NULL;
}

static gc_rc bind_new_ns(const char *name, const char *path, gc_err *e)
{
	struct ns_maker m = { .path = path };
	pthread_t t;
	int err = pthread_create(&t, NULL, make_ns, &m);

	if (err)
		return gc_fail(e, GC_E_IO, "cannot make network namespace '%s': cannot start a "
			       "thread: %s", name, strerror(err));
	pthread_join(t, NULL);
	if (!m.err)
		return GC_OK;
	return gc_fail(e, m.err == EPERM ? GC_E_PERM : GC_E_IO, "cannot make network namespace "
		       "'%s': %s: %s%s", name, m.step, strerror(m.err),
		       m.err == EPERM ? " (need CAP_SYS_ADMIN: run as root)" : "");
}

gc_rc gc_netns_add(const char *name, gc_err *e)
{
	char path[PATH_MAX];
	gc_rc rc;
	int fd;

	if ((rc = ns_path(name, path, e)) || (rc = share_run_dir(e)))
		return rc;
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0)
		return errno == EEXIST ? gc_fail(e, GC_E_BUSY, "network namespace '%s' already "
						 "exists (%s)", name, path)
				       : mount_fail("create", path, e);
	close(fd);
	rc = bind_new_ns(name, path, e);
	if (rc)
		unlink(path);
	return rc;
}

gc_rc gc_netns_del(const char *name, gc_err *e)
{
	char path[PATH_MAX];
	gc_rc rc;

	if ((rc = ns_path(name, path, e)))
		return rc;
	if (umount2(path, MNT_DETACH) && errno != EINVAL && errno != ENOENT)
		return mount_fail("unmount network namespace", path, e);
	if (unlink(path) && errno != ENOENT)
		return mount_fail("remove network namespace file", path, e);
	return GC_OK;
}

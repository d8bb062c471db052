/* netem/netns.c: setns() into a named network namespace and back. */
#include "netem/netns.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "netem/shape.h"

int gc_netns_exists(const char *name)
{
	char path[PATH_MAX];

	if (!gc_shape_valid_netns(name))
		return 0;
	snprintf(path, sizeof(path), "%s/%s", GC_NETNS_DIR, name);
	return access(path, F_OK) == 0;
}

gc_rc gc_netns_enter(const char *name, int *saved, gc_err *e)
{
	char path[PATH_MAX];
	int fd, cur;

	*saved = -1;
	if (!name)
		return GC_OK;
	if (!gc_shape_valid_netns(name))
		return gc_fail(e, GC_E_INVAL, "invalid namespace name '%.64s': use 1-64 of "
			       "[A-Za-z0-9._-]", name);
	snprintf(path, sizeof(path), "%s/%s", GC_NETNS_DIR, name);
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

#include "lock.h"

#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

gc_rc gc_lock_acquire(const char *path, int *fd, gc_err *e)
{
	char dir[4096], pid[32] = "";
	char *slash;
	int f;
	ssize_t n;

	*fd = -1;
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (gc_mkdir_p(dir, 0755, e))
			return GC_E_IO;
	}
	f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (f < 0)
		return gc_fail(e, GC_E_IO, "cannot open lock '%s': %s", path, strerror(errno));
	if (flock(f, LOCK_EX | LOCK_NB)) {
		n = pread(f, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = 0;
		pid[strcspn(pid, "\n")] = 0;
		close(f);
		return gc_fail(e, GC_E_BUSY,
			       "another sweep (pid %s) holds '%s' and is shaping these nodes; wait for it or stop it",
			       *pid ? pid : "?", path);
	}
	if (ftruncate(f, 0) == 0) {
		n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
		if (pwrite(f, pid, (size_t)n, 0) < 0) {
		}
	}
	*fd = f;
	return GC_OK;
}

void gc_lock_release(int fd)
{
	if (fd < 0)
		return;
	flock(fd, LOCK_UN);
	close(fd);
}

/* common/fsutil.c: file-system helpers (fsutil.h). */
#include "fsutil.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

gc_rc gc_mkdir_p(const char *path, mode_t mode, gc_err *e)
{
	char buf[4096];
	size_t i, n = strlen(path);

	if (n >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "path too long: '%.64s...'", path);
	memcpy(buf, path, n + 1);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = '\0';
	for (i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, i == n ? mode : 0755) && errno != EEXIST)
			return gc_fail(e, errno == EACCES || errno == EPERM ? GC_E_PERM : GC_E_IO,
				       "cannot create directory '%s': %s", buf, strerror(errno));
		buf[i] = i == n ? '\0' : '/';
	}
	return GC_OK;
}

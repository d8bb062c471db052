/* common/fsutil.c: file-system helpers (fsutil.h). */
#include "fsutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

gc_rc gc_read_whole(const char *path, const char *what, unsigned char **buf, size_t *len,
		    gc_err *e)
{
	const char *sep = what ? " " : "";
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	long sz;

	*buf = NULL;
	*len = 0;
	what = what ? what : "";
	if (!f)
		return gc_fail(e, errno == ENOENT ? GC_E_NOTFOUND : GC_E_IO, "cannot open %s%s'%s': %s",
			       what, sep, path, strerror(errno));
	if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(b = malloc((size_t)sz + 1)) || fread(b, 1, (size_t)sz, f) != (size_t)sz) {
		free(b);
		fclose(f);
		return gc_fail(e, GC_E_IO, "cannot read %s%s'%s'", what, sep, path);
	}
	fclose(f);
	b[sz] = 0;
	*buf = b;
	*len = (size_t)sz;
	return GC_OK;
}

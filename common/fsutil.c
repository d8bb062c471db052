/* common/fsutil.c: file-system helpers (fsutil.h). */
#include "fsutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
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

/* The first buffer size: a regular file's size (+1, to see its end at once), else
 * 64 KiB; never above max + 1. */
static size_t first_cap(FILE *f, size_t max)
{
	struct stat st;
	size_t cap = 1u << 16;

	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (unsigned long long)st.st_size < SIZE_MAX - 1)
		cap = (size_t)st.st_size + 1;
	return cap > max ? max + 1 : cap;
}

gc_rc gc_read_whole(const char *path, const char *what, size_t max, unsigned char **buf,
		    size_t *len, gc_err *e)
{
	const char *sep = what ? " " : "";
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL, *nb;
	size_t cap, n = 0;
	gc_rc rc = GC_OK;

	*buf = NULL;
	*len = 0;
	what = what ? what : "";
	max = max ? max : SIZE_MAX - 2;
	if (!f)
		return gc_fail(e, errno == ENOENT ? GC_E_NOTFOUND : GC_E_IO, "cannot open %s%s'%s': %s",
			       what, sep, path, strerror(errno));
	for (cap = first_cap(f, max);; cap = cap > max / 2 ? max + 1 : cap * 2) {
		if (!(nb = realloc(b, cap + 1))) {
			rc = gc_fail(e, GC_E_NOMEM, "cannot read %s%s'%s': out of memory", what, sep, path);
			goto out;
		}
		b = nb;
		n += fread(b + n, 1, cap - n, f);
		if (n < cap || n > max)
			break;
	}
	if (ferror(f))
		rc = gc_fail(e, GC_E_IO, "cannot read %s%s'%s': read error", what, sep, path);
	else if (n > max && max % (1u << 20) == 0)
		rc = gc_fail(e, GC_E_IO, "cannot read %s%s'%s': larger than %zu MiB", what, sep,
			     path, max >> 20);
	else if (n > max)
		rc = gc_fail(e, GC_E_IO, "cannot read %s%s'%s': larger than %zu bytes", what, sep,
			     path, max);
out:
	fclose(f);
	if (rc) {
		free(b);
		return rc;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return GC_OK;
}

/* common/fsutil.h: file-system helpers every component shares. */
#ifndef GC_FSUTIL_H
#define GC_FSUTIL_H

#include <sys/types.h>

#include "result.h"

/* mkdir -p: missing parents get mode 0755, path itself `mode` (an existing directory
 * is left as it is). GC_E_PERM when permission was refused, GC_E_IO otherwise, the
 * message naming the component that failed; GC_E_INVAL for a path of 4096 bytes or
 * more. */
gc_rc gc_mkdir_p(const char *path, mode_t mode, gc_err *e);

/* Read a whole file into a malloc'ed buffer with one NUL byte after its *len bytes
 * (caller frees *buf; NULL and 0 on error). Reads to the end without seeking, so a
 * pipe or a /proc file works too. `what` names it in messages ("data set" gives
 * "cannot open data set 'P': ..."; NULL for none). max: the most bytes accepted (0: no
 * limit); a larger file fails with GC_E_IO, the message naming the limit.
 * GC_E_NOTFOUND when it does not exist, GC_E_NOMEM when memory ran out, GC_E_IO for
 * any other failure. */
gc_rc gc_read_whole(const char *path, const char *what, size_t max, unsigned char **buf,
		    size_t *len, gc_err *e);

#endif

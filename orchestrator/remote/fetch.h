/* orchestrator/remote/fetch.h: a run's record files from one node in one round trip.
 *
 * gc_fetch_argv is the remote command: a fixed `sh -c` script that, in the folder
 * given as its one argument, writes every regular file named records-r* as
 *     gcbench-file SIZE NAME\n<SIZE bytes>
 * one after the other (nothing when there is none; status 1 when the folder cannot be
 * entered or a file cannot be read). gc_fetch_parse reads that stream back. The folder
 * reaches the script as an argument, never inside the script's text.
 */
#ifndef GC_FETCH_H
#define GC_FETCH_H

#include <stddef.h>

#include "result.h"

/* The remote argv (static strings but dir; NULL-terminated, 5 entries with the NULL). */
void gc_fetch_argv(const char *dir, const char *argv[5]);

/* Call fn(name, data, size, arg) for each file of buf[0..len) in order; fn returning
 * nonzero stops with GC_E_IO (its message in e, if fn set one). GC_E_FORMAT naming the
 * offset for anything that is not the stream above: a header that is not
 * "gcbench-file SIZE NAME\n", a SIZE that is not decimal or runs past the end, a NAME
 * that does not start with "records-r", is longer than 255 bytes or holds a '/' or a
 * byte outside [A-Za-z0-9._-]. An empty buffer holds no files (GC_OK). */
gc_rc gc_fetch_parse(const char *buf, size_t len,
		     int (*fn)(const char *name, const char *data, size_t size, void *arg,
			       gc_err *e),
		     void *arg, gc_err *e);

#endif

/* common/buf.h: the one growable string buffer of gcbench (after git's strbuf and
 * curl's dynbuf).
 *
 * A gc_buf holds len bytes plus a NUL in p. Zero-initialized (GC_BUF_INIT, {0} or
 * gc_buf_init) it is empty and owns nothing; p stays NULL until the first byte is
 * added, so read it through gc_buf_str() where it may be empty. Adding never crashes
 * and never truncates silently: when an allocation fails (or the length would
 * overflow), the buffer keeps what it had, sets oom, and every later add does nothing
 * and returns GC_E_NOMEM. The failure is sticky until gc_buf_release, so a writer can
 * add a hundred pieces and check once at the end (gc_buf_rc, gc_buf_take).
 *
 * Bytes are copied as they are: a buffer may hold NUL bytes (gc_buf_add), though then
 * only len tells where it ends.
 */
#ifndef GC_BUF_H
#define GC_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "result.h"

typedef struct gc_buf {
	char *p;        /* the contents, NUL-terminated; NULL while nothing was added */
	size_t len;     /* bytes in p, not counting the NUL */
	size_t cap;     /* bytes allocated at p */
	int oom;        /* 1 once an allocation failed (sticky) */
} gc_buf;

#define GC_BUF_INIT { NULL, 0, 0, 0 }

/* Make b empty, owning nothing (what GC_BUF_INIT gives). Do not call it on a buffer
 * that owns memory: release that one. */
void gc_buf_init(gc_buf *b);

/* Free the contents and make b empty again (oom cleared); accepts NULL. */
void gc_buf_release(gc_buf *b);

/* Append n bytes of s. GC_OK, or GC_E_NOMEM (now or earlier: nothing is added). */
gc_rc gc_buf_add(gc_buf *b, const void *s, size_t n);

/* Append the NUL-terminated s; as gc_buf_add. */
gc_rc gc_buf_puts(gc_buf *b, const char *s);

/* Append one byte; as gc_buf_add. */
gc_rc gc_buf_putc(gc_buf *b, char c);

/* Append printf-formatted text; as gc_buf_add (GC_E_INVAL if vsnprintf fails on the
 * format: nothing is added, the buffer stays usable). */
gc_rc gc_buf_addf(gc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
gc_rc gc_buf_vaddf(gc_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* The contents, "" while empty; borrowed, valid until the next add or release. */
const char *gc_buf_str(const gc_buf *b);

/* GC_E_NOMEM if an allocation failed since the last release, else GC_OK. */
gc_rc gc_buf_rc(const gc_buf *b);

/* Hand over the contents: a malloc'ed NUL-terminated string (the caller frees it; ""
 * for an empty buffer), or NULL when an allocation failed (now or earlier). b is
 * released either way. */
char *gc_buf_take(gc_buf *b);

#endif

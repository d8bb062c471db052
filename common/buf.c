/* common/buf.c: the growable string buffer (buf.h). */
#include "buf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GC_BUF_MIN 64

void gc_buf_init(gc_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void gc_buf_release(gc_buf *b)
{
	if (!b)
		return;
	free(b->p);
	gc_buf_init(b);
}

/* Make room for extra more bytes plus the NUL; on failure set oom. */
static gc_rc grow(gc_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->oom)
		return GC_E_NOMEM;
	if (extra > SIZE_MAX - 1 - b->len)
		goto nomem;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return GC_OK;
	cap = b->cap ? b->cap : GC_BUF_MIN;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	p = realloc(b->p, cap);
	if (!p)
		goto nomem;
	b->p = p;
	b->cap = cap;
	return GC_OK;
nomem:
	b->oom = 1;
	return GC_E_NOMEM;
}

gc_rc gc_buf_add(gc_buf *b, const void *s, size_t n)
{
	gc_rc rc = grow(b, n);

	if (rc)
		return rc;
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return GC_OK;
}

gc_rc gc_buf_puts(gc_buf *b, const char *s)
{
	return gc_buf_add(b, s, strlen(s));
}

gc_rc gc_buf_putc(gc_buf *b, char c)
{
	return gc_buf_add(b, &c, 1);
}

gc_rc gc_buf_vaddf(gc_buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	gc_rc rc;
	int n;

	if (b->oom)
		return GC_E_NOMEM;
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return GC_E_INVAL;
	rc = grow(b, (size_t)n);
	if (rc)
		return rc;
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return GC_OK;
}

gc_rc gc_buf_addf(gc_buf *b, const char *fmt, ...)
{
	va_list ap;
	gc_rc rc;

	va_start(ap, fmt);
	rc = gc_buf_vaddf(b, fmt, ap);
	va_end(ap);
	return rc;
}

const char *gc_buf_str(const gc_buf *b)
{
	return b->p ? b->p : "";
}

gc_rc gc_buf_rc(const gc_buf *b)
{
	return b->oom ? GC_E_NOMEM : GC_OK;
}

char *gc_buf_take(gc_buf *b)
{
	char *s = b->oom ? NULL : b->p;

	if (b->oom)
		free(b->p);
	else if (!s)
		s = calloc(1, 1);
	gc_buf_init(b);
	return s;
}

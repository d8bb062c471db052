/* worker/wk_json.c: a small JSON object writer with proper string escaping (control
 * characters as \u00XX, quote and backslash escaped; bytes >= 0x80 passed through). */
#include "wk.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void put(gc_wk_json *j, const char *s, size_t n)
{
	if (j->oom)
		return;
	if (j->len + n + 1 > j->cap) {
		size_t cap = j->cap ? j->cap : 256;
		while (cap < j->len + n + 1)
			cap *= 2;
		char *b = realloc(j->buf, cap);
		if (!b) {
			j->oom = 1;
			return;
		}
		j->buf = b;
		j->cap = cap;
	}
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = 0;
}

static void puts_(gc_wk_json *j, const char *s)
{
	put(j, s, strlen(s));
}

static void put_escaped(gc_wk_json *j, const char *s)
{
	put(j, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char u[8];
		if (*p == '"' || *p == '\\') {
			u[0] = '\\';
			u[1] = (char)*p;
			put(j, u, 2);
		} else if (*p < 0x20) {
			snprintf(u, sizeof(u), "\\u%04x", *p);
			put(j, u, 6);
		} else {
			put(j, (const char *)p, 1);
		}
	}
	put(j, "\"", 1);
}

static void key(gc_wk_json *j, const char *k)
{
	if (!j->first)
		put(j, ",", 1);
	j->first = 0;
	put_escaped(j, k);
	put(j, ":", 1);
}

void gc_wk_json_begin(gc_wk_json *j)
{
	memset(j, 0, sizeof(*j));
	puts_(j, "{");
	j->first = 1;
}

void gc_wk_json_str(gc_wk_json *j, const char *k, const char *v)
{
	key(j, k);
	if (v)
		put_escaped(j, v);
	else
		puts_(j, "null");
}

void gc_wk_json_int(gc_wk_json *j, const char *k, long long v)
{
	char b[32];
	key(j, k);
	snprintf(b, sizeof(b), "%lld", v);
	puts_(j, b);
}

void gc_wk_json_num(gc_wk_json *j, const char *k, double v)
{
	char b[40];
	key(j, k);
	if (!isfinite(v)) {
		puts_(j, "null");
		return;
	}
	snprintf(b, sizeof(b), "%.17g", v);
	puts_(j, b);
}

void gc_wk_json_obj(gc_wk_json *j, const char *k)
{
	key(j, k);
	puts_(j, "{");
	j->first = 1;
}

void gc_wk_json_close(gc_wk_json *j)
{
	puts_(j, "}");
	j->first = 0;
}

char *gc_wk_json_take(gc_wk_json *j)
{
	char *s = j->oom ? NULL : j->buf;
	if (j->oom)
		free(j->buf);
	memset(j, 0, sizeof(*j));
	return s;
}

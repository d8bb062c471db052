#include "strutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t gc_strlcpy(char *dst, const char *src, size_t n)
{
	size_t len = strlen(src);
	size_t c = len < n ? len : n - 1;

	memcpy(dst, src, c);
	dst[c] = 0;
	return len;
}

gc_rc gc_parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!s || !*s)
		return GC_E_INVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || end == s)
		return GC_E_INVAL;
	*out = v;
	return GC_OK;
}

gc_rc gc_parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return GC_E_INVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || end == s)
		return GC_E_INVAL;
	*out = v;
	return GC_OK;
}

gc_rc gc_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || *s == ' ')
		return GC_E_INVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(v))
		return GC_E_INVAL;
	*out = v;
	return GC_OK;
}

gc_rc gc_shell_quote(char *dst, size_t n, const char *s)
{
	size_t o = strlen(dst);

#define PUT(ch) do { if (o + 1 >= n) goto toolong; dst[o++] = (ch); } while (0)
	PUT('\'');
	for (; *s; s++) {
		if (*s == '\'') {
			PUT('\'');
			PUT('\\');
			PUT('\'');
			PUT('\'');
		} else {
			PUT(*s);
		}
	}
	PUT('\'');
#undef PUT
	dst[o] = 0;
	return GC_OK;
toolong:
	dst[0] = 0;
	return GC_E_INVAL;
}

int gc_is_safe_token(const char *s)
{
	size_t i;

	if (!s || !*s || *s == '-' || strlen(s) > 255)
		return 0;
	for (i = 0; s[i]; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("._:@%+=,/-", c)))
			return 0;
	}
	return 1;
}

void gc_kv_line(const char *text, const char *key, char *dst, size_t n)
{
	size_t kl = strlen(key);
	const char *p = text;

	dst[0] = 0;
	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			p += kl + 1;
			snprintf(dst, n, "%.*s", (int)strcspn(p, "\n"), p);
			return;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
}

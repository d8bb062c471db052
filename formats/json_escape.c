/* formats/json_escape.c: the escapes inside a JSON string (json_escape.h). */
#include "json_escape.h"

#include <string.h>

/* the byte that the one-letter escape x stands for, or -1 */
static int escape_char(int x)
{
	/* pairs: the escape letter, then the byte it stands for */
	static const char esc[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
	const char *m = x > 0 ? strchr(esc, x) : NULL;

	return m && !((m - esc) & 1) ? (unsigned char)m[1] : -1;
}

static int hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch |= 0x20;
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* four hex digits at s[*pos]: their value, *pos past them; -1 (pos kept) when bad */
static long hex4(const char *s, size_t len, size_t *pos)
{
	long v = 0;

	if (*pos > len || len - *pos < 4)
		return -1;
	for (int k = 0; k < 4; k++) {
		int h = hexval((unsigned char)s[*pos + (size_t)k]);
		if (h < 0)
			return -1;
		v = v * 16 + h;
	}
	*pos += 4;
	return v;
}

/* the code point of \uXXXX with *pos after the "\u", a pair joined; -1 when bad */
static long uescape(const char *s, size_t len, size_t *pos, int pairs)
{
	long cp = hex4(s, len, pos), lo;

	if (cp < 0xd800 || cp > 0xdfff)
		return cp;
	if (!pairs || cp > 0xdbff)
		return -1;
	if (len - *pos < 6 || s[*pos] != '\\' || s[*pos + 1] != 'u')
		return -1;
	*pos += 2;
	lo = hex4(s, len, pos);
	if (lo < 0xdc00 || lo > 0xdfff)
		return -1;
	return 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
}

long gc_json_escape(const char *s, size_t len, size_t *pos, int pairs)
{
	long cp;

	if (*pos + 1 >= len)
		return GC_JSON_BAD_ESCAPE;
	++*pos;
	if (s[*pos] != 'u') {
		cp = escape_char((unsigned char)s[*pos]);
		if (cp < 0)
			return GC_JSON_BAD_ESCAPE;
		++*pos;
		return cp;
	}
	++*pos;
	cp = uescape(s, len, pos, pairs);
	return cp <= 0 ? GC_JSON_BAD_U : cp;
}

int gc_json_put_utf8(char *dst, size_t n, size_t *o, long cp)
{
	char b[4];
	size_t k = 0;

	if (cp < 0x80) {
		b[k++] = (char)cp;
	} else if (cp < 0x800) {
		b[k++] = (char)(0xc0 | (cp >> 6));
		b[k++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		b[k++] = (char)(0xe0 | (cp >> 12));
		b[k++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[k++] = (char)(0x80 | (cp & 0x3f));
	} else {
		b[k++] = (char)(0xf0 | (cp >> 18));
		b[k++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		b[k++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		b[k++] = (char)(0x80 | (cp & 0x3f));
	}
	if (!dst)
		return 0;
	if (*o + k >= n)
		return -1;
	memcpy(dst + *o, b, k);
	*o += k;
	return 0;
}

/* formats/json_escape.h: the escapes inside a JSON string (RFC 8259, section 7), for
 * the readers of formats/ that take JSON apart by hand (rec_header.c, envinfo.c):
 * the one-letter escapes, \uXXXX with its surrogate pairs, and code points written
 * back as UTF-8. Each reader keeps its own cursor and words its own errors.
 */
#ifndef GC_JSON_ESCAPE_H
#define GC_JSON_ESCAPE_H

#include <stddef.h>

/* What gc_json_escape returns for an escape it refuses. */
enum { GC_JSON_BAD_ESCAPE = -1, GC_JSON_BAD_U = -2 };

/* The escape whose backslash is s[*pos] (s is len bytes, not NUL-terminated): the code
 * point it stands for, *pos moved past it. The one-letter escapes \" \\ \/ \b \f \n
 * \r \t, and \uXXXX; with pairs set a high surrogate followed by a \u low surrogate is
 * joined into one code point above U+FFFF, with pairs 0 any surrogate is refused (the
 * Basic Multilingual Plane only).
 * GC_JSON_BAD_ESCAPE for any other letter, or none: *pos is left on the offending byte
 * (the letter, or the backslash when the text ends after it).
 * GC_JSON_BAD_U for a \u with missing or bad hex digits, \u0000, or a surrogate it
 * refuses (a lone one; with pairs 0, any): *pos is left where reading stopped (after
 * the "\u", or past the last four digits it could read). */
long gc_json_escape(const char *s, size_t len, size_t *pos, int pairs);

/* Append code point cp (0 to 0x10FFFF) as 1 to 4 bytes of UTF-8 at dst + *o, dst
 * being n bytes with room kept for a NUL after *o; *o moves past them. Returns -1,
 * writing nothing, when they do not fit. dst NULL writes nothing and returns 0 (a
 * string being skipped). */
int gc_json_put_utf8(char *dst, size_t n, size_t *o, long cp);

#endif

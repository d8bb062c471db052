/* common/strutil.h: bounded strings, strict number parsing, shell quoting. */
#ifndef GC_STRUTIL_H
#define GC_STRUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

/* Copy src into dst (size n >= 1), always NUL-terminated. Returns strlen(src);
 * a value >= n means the copy was truncated. */
size_t gc_strlcpy(char *dst, const char *src, size_t n);

/* Strict conversions: the whole string must be the number (no trailing text, no
 * empty string, no overflow). */
gc_rc gc_parse_i64(const char *s, int64_t *out);
gc_rc gc_parse_u64(const char *s, uint64_t *out);
gc_rc gc_parse_double(const char *s, double *out);   /* finite values only */

/* Append s to dst (size n) quoted for a POSIX shell: 'it'\''s'. Returns GC_E_INVAL
 * if the result does not fit (dst is then left empty). */
gc_rc gc_shell_quote(char *dst, size_t n, const char *s);

/* A "safe token": non-empty, at most 255 bytes, only [A-Za-z0-9._:@%+=,/-], and not
 * starting with '-' (so it can never be read as an option). Used to validate host
 * names, interface names, users and paths before they reach any command line. */
int gc_is_safe_token(const char *s);

/* The value of "key=" on the first line of text that starts with it (up to the end of
 * that line), into dst (size n; "" if no line has it). For the key=value lines a
 * remote command prints. */
void gc_kv_line(const char *text, const char *key, char *dst, size_t n);

#endif

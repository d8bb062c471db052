/* common/json.h: the one JSON writer of gcbench, over a gc_buf (after iproute2's
 * json_writer).
 *
 * Compact output, no whitespace: {"a":1,"b":[true,null]}. The writer puts the commas
 * and the colons; the caller says what comes: gc_json_key then a value inside an
 * object, values only inside an array, one value at the top.
 *
 * For documents people read: GC_JSON_SPACED puts a space after each comma and colon
 * ({"a": 1, "b": [true, null]}), and gc_json_newline breaks the line where the caller
 * wants it, indented by the nesting depth; no other whitespace is ever written.
 *
 * Strings: '"' and '\' are escaped with a backslash, every control character (bytes
 * 0x00-0x1f and 0x7f) as \u00xx (lowercase hex), a newline as \n instead with
 * GC_JSON_ESC_NL; all other bytes (UTF-8 included) are copied as they are. A NULL
 * string is written as null.
 *
 * Numbers: integers exactly; doubles by a printf conversion the caller picks (the
 * formats gcbench's outputs have always used), and every non-finite double (NaN,
 * +-inf) as null, since JSON has no such numbers.
 *
 * Errors are sticky, like gc_buf's: a call that does not fit where the writer stands
 * (a key inside an array, a value in an object without its key, a second top-level
 * value, closing what is not open, nesting deeper than GC_JSON_MAX_DEPTH) writes
 * nothing and marks the writer; an allocation failure marks the buffer.
 * gc_json_finish says whether the document is whole.
 */
#ifndef GC_JSON_H
#define GC_JSON_H

#include "buf.h"
#include "result.h"

#define GC_JSON_MAX_DEPTH 32

/* flags of gc_json_init and gc_json_quote */
#define GC_JSON_ESC_NL 1u   /* a newline inside a string as \n (else \u000a) */
#define GC_JSON_SPACED 2u   /* (init only) ", " and ": " instead of "," and ":" */

typedef struct gc_json {
	gc_buf *b;                                    /* borrowed: where text goes */
	unsigned flags;
	int depth;                                    /* open objects and arrays */
	int key_pending;                              /* a key waits for its value */
	int bad;                                      /* misuse seen (sticky) */
	int newline;                                  /* gc_json_newline pending */
	unsigned char more[GC_JSON_MAX_DEPTH + 1];    /* the level has a member */
	unsigned char arr[GC_JSON_MAX_DEPTH + 1];     /* the level is an array */
} gc_json;

/* Start a writer that appends to b (borrowed: it must outlive j; what b already holds
 * stays in front). flags: 0, GC_JSON_ESC_NL, GC_JSON_SPACED or both. Owns nothing: no release. */
void gc_json_init(gc_json *j, gc_buf *b, unsigned flags);

/* GC_OK when exactly one whole value was written (every container closed),
 * GC_E_NOMEM when the buffer ran out of memory, GC_E_STATE on misuse or an unclosed
 * container. */
gc_rc gc_json_finish(const gc_json *j);

/* Containers: open with a value slot, close the innermost one of the same kind. */
void gc_json_obj_open(gc_json *j);
void gc_json_obj_close(gc_json *j);
void gc_json_arr_open(gc_json *j);
void gc_json_arr_close(gc_json *j);

/* Start what comes next (a key, a value, or a closing bracket) on a new line: a
 * comma that is due stays at the end of this line, then "\n" and two spaces per open
 * container (one level less before a closing bracket, so it lines up with the line
 * that opened it), and no space after the comma. Several calls before the next item
 * make one break. Writes nothing by itself; JSON stays valid wherever it is called. */
void gc_json_newline(gc_json *j);

/* A member's key inside an object; its value comes next. */
void gc_json_key(gc_json *j, const char *key);

/* Values. */
void gc_json_str(gc_json *j, const char *s);                  /* NULL: null */
void gc_json_int(gc_json *j, long long v);
void gc_json_uint(gc_json *j, unsigned long long v);
void gc_json_num(gc_json *j, double v);                       /* %.17g: round-trips */
void gc_json_numg(gc_json *j, double v, int digits);          /* %.<digits>g (1..17) */
void gc_json_fixed(gc_json *j, double v, int decimals);       /* %.<decimals>f (0..17) */
void gc_json_bool(gc_json *j, int v);
void gc_json_null(gc_json *j);

/* A key and its value in one call. */
void gc_json_str_field(gc_json *j, const char *key, const char *s);
void gc_json_int_field(gc_json *j, const char *key, long long v);
void gc_json_uint_field(gc_json *j, const char *key, unsigned long long v);
void gc_json_num_field(gc_json *j, const char *key, double v);
void gc_json_numg_field(gc_json *j, const char *key, double v, int digits);
/* A time (Unix seconds) as every --json writes one: "2026-12-04T22:30:40Z" (ISO 8601,
 * UTC, whole seconds); null when t <= 0 (not yet, or unknown). */
void gc_json_time_field(gc_json *j, const char *key, double t);

/* Append s (NUL-terminated) to b as one JSON string literal, quotes included, escaped
 * as above (flags: 0 or GC_JSON_ESC_NL). GC_OK or GC_E_NOMEM. */
gc_rc gc_json_quote(gc_buf *b, const char *s, unsigned flags);

#endif

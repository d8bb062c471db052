/* common/json.c: the JSON writer (json.h). */
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

gc_rc gc_json_quote(gc_buf *b, const char *s, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	const char *run = s;

	gc_buf_putc(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		char esc[6] = { '\\', 'u', '0', '0', 0, 0 };
		if (c != '"' && c != '\\' && c >= 0x20 && c != 0x7f)
			continue;
		gc_buf_add(b, run, (size_t)(s - run));
		run = s + 1;
		if (c == '"' || c == '\\' || (c == '\n' && (flags & GC_JSON_ESC_NL))) {
			esc[1] = c == '\n' ? 'n' : (char)c;
			gc_buf_add(b, esc, 2);
		} else {
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			gc_buf_add(b, esc, sizeof(esc));
		}
	}
	gc_buf_add(b, run, (size_t)(s - run));
	return gc_buf_putc(b, '"');
}

void gc_json_init(gc_json *j, gc_buf *b, unsigned flags)
{
	memset(j, 0, sizeof(*j));
	j->b = b;
	j->flags = flags;
}

gc_rc gc_json_finish(const gc_json *j)
{
	if (gc_buf_rc(j->b))
		return GC_E_NOMEM;
	if (j->bad || j->depth || j->key_pending || !j->more[0])
		return GC_E_STATE;
	return GC_OK;
}

/* Between two items: the comma (when one is due), then the pending line break indented
 * `level` steps, or else the space of GC_JSON_SPACED after a comma. (After a key's
 * colon, value_slot puts that space.) */
static void separate(gc_json *j, int comma, int level)
{
	if (comma)
		gc_buf_putc(j->b, ',');
	if (j->newline) {
		gc_buf_putc(j->b, '\n');
		while (level-- > 0)
			gc_buf_puts(j->b, "  ");
		j->newline = 0;
	} else if (comma && (j->flags & GC_JSON_SPACED)) {
		gc_buf_putc(j->b, ' ');
	}
}

void gc_json_newline(gc_json *j)
{
	j->newline = 1;
}

/* Before a value: take the pending key's slot, or put the comma of an array (one
 * value only at the top). Returns -1 (and marks the writer) where no value may come. */
static int value_slot(gc_json *j)
{
	int d = j->depth;

	if (j->bad)
		return -1;
	if (j->key_pending) {
		j->key_pending = 0;
		if (!j->newline && (j->flags & GC_JSON_SPACED))
			gc_buf_putc(j->b, ' ');
		separate(j, 0, d);
		return 0;
	}
	if ((d && !j->arr[d]) || (!d && j->more[0])) {
		j->bad = 1;
		return -1;
	}
	separate(j, j->more[d], d);
	j->more[d] = 1;
	return 0;
}

void gc_json_key(gc_json *j, const char *key)
{
	int d = j->depth;

	if (j->bad || !d || j->arr[d] || j->key_pending) {
		j->bad = 1;
		return;
	}
	separate(j, j->more[d], d);
	j->more[d] = 1;
	gc_json_quote(j->b, key, j->flags);
	gc_buf_putc(j->b, ':');
	j->key_pending = 1;
}

static void open_(gc_json *j, int arr)
{
	if (value_slot(j))
		return;
	if (j->depth >= GC_JSON_MAX_DEPTH) {
		j->bad = 1;
		return;
	}
	gc_buf_putc(j->b, arr ? '[' : '{');
	j->depth++;
	j->more[j->depth] = 0;
	j->arr[j->depth] = (unsigned char)arr;
}

static void close_(gc_json *j, int arr)
{
	if (j->bad || !j->depth || j->arr[j->depth] != arr || j->key_pending) {
		j->bad = 1;
		return;
	}
	separate(j, 0, j->depth - 1);
	gc_buf_putc(j->b, arr ? ']' : '}');
	j->depth--;
}

void gc_json_obj_open(gc_json *j)
{
	open_(j, 0);
}

void gc_json_obj_close(gc_json *j)
{
	close_(j, 0);
}

void gc_json_arr_open(gc_json *j)
{
	open_(j, 1);
}

void gc_json_arr_close(gc_json *j)
{
	close_(j, 1);
}

void gc_json_str(gc_json *j, const char *s)
{
	if (value_slot(j))
		return;
	if (s)
		gc_json_quote(j->b, s, j->flags);
	else
		gc_buf_puts(j->b, "null");
}

void gc_json_int(gc_json *j, long long v)
{
	if (!value_slot(j))
		gc_buf_addf(j->b, "%lld", v);
}

void gc_json_uint(gc_json *j, unsigned long long v)
{
	if (!value_slot(j))
		gc_buf_addf(j->b, "%llu", v);
}

void gc_json_numg(gc_json *j, double v, int digits)
{
	if (value_slot(j))
		return;
	if (!isfinite(v))
		gc_buf_puts(j->b, "null");
	else
		gc_buf_addf(j->b, "%.*g", digits < 1 ? 1 : digits > 17 ? 17 : digits, v);
}

void gc_json_num(gc_json *j, double v)
{
	gc_json_numg(j, v, 17);
}

void gc_json_fixed(gc_json *j, double v, int decimals)
{
	if (value_slot(j))
		return;
	if (!isfinite(v))
		gc_buf_puts(j->b, "null");
	else
		gc_buf_addf(j->b, "%.*f", decimals < 0 ? 0 : decimals > 17 ? 17 : decimals, v);
}

void gc_json_bool(gc_json *j, int v)
{
	if (!value_slot(j))
		gc_buf_puts(j->b, v ? "true" : "false");
}

void gc_json_null(gc_json *j)
{
	if (!value_slot(j))
		gc_buf_puts(j->b, "null");
}

void gc_json_str_field(gc_json *j, const char *key, const char *s)
{
	gc_json_key(j, key);
	gc_json_str(j, s);
}

void gc_json_int_field(gc_json *j, const char *key, long long v)
{
	gc_json_key(j, key);
	gc_json_int(j, v);
}

void gc_json_uint_field(gc_json *j, const char *key, unsigned long long v)
{
	gc_json_key(j, key);
	gc_json_uint(j, v);
}

void gc_json_num_field(gc_json *j, const char *key, double v)
{
	gc_json_key(j, key);
	gc_json_num(j, v);
}

void gc_json_numg_field(gc_json *j, const char *key, double v, int digits)
{
	gc_json_key(j, key);
	gc_json_numg(j, v, digits);
}

void gc_json_time_field(gc_json *j, const char *key, double t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	char buf[32];

	gc_json_key(j, key);
	if (t <= 0 || !gmtime_r(&tt, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		gc_json_null(j);
	else
		gc_json_str(j, buf);
}

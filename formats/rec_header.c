/* formats/rec_header.c: a record file's JSON header, checked whole and read for the
 * keys gcbench needs (rec_header.h). */
#include "rec_header.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "json_escape.h"
#include "strutil.h"

#define MAX_DEPTH 64

struct cur {
	const char *s;
	size_t len, pos;
	gc_err *e;
};

/* Fail at the cursor: what is wrong and the byte offset (nothing of the text quoted). */
static gc_rc hfail(struct cur *c, const char *what)
{
	return gc_fail(c->e, GC_E_FORMAT, "record header: %s at byte %zu of %zu", what, c->pos,
		       c->len);
}

static int peek(struct cur *c)
{
	while (c->pos < c->len && (c->s[c->pos] == ' ' || c->s[c->pos] == '\t' ||
				   c->s[c->pos] == '\r' || c->s[c->pos] == '\n'))
		c->pos++;
	return c->pos < c->len ? (unsigned char)c->s[c->pos] : -1;
}

/* A string at the cursor into dst (size n, NUL-terminated), or skipped (dst NULL). */
static gc_rc jstring(struct cur *c, char *dst, size_t n, const char *field)
{
	size_t o = 0;

	if (peek(c) != '"')
		return hfail(c, "expected a string");
	c->pos++;
	while (c->pos < c->len && c->s[c->pos] != '"') {
		unsigned char ch = (unsigned char)c->s[c->pos];
		long cp;
		if (ch < 0x20)
			return hfail(c, "control character inside a string");
		if (ch == '\\') {
			if ((cp = gc_json_escape(c->s, c->len, &c->pos, 1)) < 0)
				return hfail(c, cp == GC_JSON_BAD_U ? "bad \\u escape (\\u0000 and lone "
					     "surrogates are refused)" : "bad escape in a string");
			if (gc_json_put_utf8(dst, n, &o, cp))
				goto too_long;
			continue;
		}
		c->pos++;
		if (dst && o + 1 >= n)
			goto too_long;
		if (dst)
			dst[o++] = (char)ch;
	}
	if (c->pos >= c->len)
		return hfail(c, "unterminated string");
	c->pos++;
	if (dst)
		dst[o] = 0;
	return GC_OK;
too_long:
	return gc_fail(c->e, GC_E_FORMAT, "record header: \"%s\" is longer than %zu bytes",
		       field, n - 1);
}

/* A number at the cursor (JSON grammar); *integer is set when it has no fraction or
 * exponent, with its value in *v (clamped to +-1e18). */
static gc_rc jnumber(struct cur *c, int *integer, long long *v)
{
	size_t start = c->pos;
	int neg = 0, digits = 0;

	*integer = 1;
	*v = 0;
	if (peek(c) == '-')
		neg = 1, c->pos++;
	if (c->pos < c->len && c->s[c->pos] == '0') {
		c->pos++;
		digits = 1;
	} else {
		while (c->pos < c->len && isdigit((unsigned char)c->s[c->pos])) {
			if (*v < 1000000000000000000LL / 10)
				*v = *v * 10 + (c->s[c->pos] - '0');
			else
				*v = 1000000000000000000LL;
			c->pos++, digits++;
		}
	}
	if (!digits) {
		c->pos = start;
		return hfail(c, "expected a value");
	}
	if (c->pos < c->len && c->s[c->pos] == '.') {
		*integer = 0;
		c->pos++;
		if (c->pos >= c->len || !isdigit((unsigned char)c->s[c->pos]))
			return hfail(c, "expected a digit after '.'");
		while (c->pos < c->len && isdigit((unsigned char)c->s[c->pos]))
			c->pos++;
	}
	if (c->pos < c->len && (c->s[c->pos] == 'e' || c->s[c->pos] == 'E')) {
		*integer = 0;
		c->pos++;
		if (c->pos < c->len && (c->s[c->pos] == '+' || c->s[c->pos] == '-'))
			c->pos++;
		if (c->pos >= c->len || !isdigit((unsigned char)c->s[c->pos]))
			return hfail(c, "expected a digit in the exponent");
		while (c->pos < c->len && isdigit((unsigned char)c->s[c->pos]))
			c->pos++;
	}
	if (neg)
		*v = -*v;
	return GC_OK;
}

static gc_rc jvalue(struct cur *c, int depth);

/* An object or array at the cursor, its members skipped. */
static gc_rc jcontainer(struct cur *c, int depth)
{
	int close = c->s[c->pos] == '{' ? '}' : ']', n = 0;
	gc_rc rc;

	if (depth >= MAX_DEPTH)
		return hfail(c, "nested deeper than 64");
	c->pos++;
	while (peek(c) != close) {
		if (n++ && (peek(c) != ',' || !++c->pos))
			return hfail(c, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
		if (close == '}') {
			if ((rc = jstring(c, NULL, 0, "")))
				return rc;
			if (peek(c) != ':')
				return hfail(c, "expected ':' after a key");
			c->pos++;
		}
		if ((rc = jvalue(c, depth + 1)))
			return rc;
	}
	c->pos++;
	return GC_OK;
}

static gc_rc jvalue(struct cur *c, int depth)
{
	static const char *const words[] = { "true", "false", "null" };
	int ch = peek(c), integer;
	long long v;

	if (ch == '{' || ch == '[')
		return jcontainer(c, depth);
	if (ch == '"')
		return jstring(c, NULL, 0, "");
	for (size_t i = 0; i < 3; i++) {
		size_t l = strlen(words[i]);
		if (c->len - c->pos >= l && !memcmp(c->s + c->pos, words[i], l)) {
			c->pos += l;
			return GC_OK;
		}
	}
	return jnumber(c, &integer, &v);
}

/* the keys read, in the order of the GC_RECH_* bits */
struct key {
	const char *name;
	size_t off, size;     /* a string field of gc_rec_header; size 0: an integer */
	long long lo, hi;
};
#define S(f) offsetof(struct gc_rec_header, f), sizeof(((struct gc_rec_header *)0)->f), 0, 0
#define I(f, lo, hi) offsetof(struct gc_rec_header, f), 0, lo, hi
static const struct key keys[] = {
	{ "producer", S(producer) }, { "method", S(method) }, { "params", S(params) },
	{ "workload", S(workload) }, { "model", S(model) }, { "backend", S(backend) },
	{ "world", I(world, 1, 65536) }, { "rank", I(rank, 0, 65535) },
	{ "batch", I(batch, 1, 2147483647LL) },
	{ "host", S(host) },   /* the keys from here on are optional */
};
#define NREQUIRED 9
#undef S
#undef I
#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* what a gcbench-worker file says instead of "producer" */
struct legacy {
	char format[GC_RECH_NAME], version[GC_RECH_NAME];
	int have_format, have_version;
};

static gc_rc read_int(struct cur *c, const struct key *k, long long *dst)
{
	size_t at = c->pos;
	int integer;
	long long v;
	gc_rc rc = jnumber(c, &integer, &v);
	char what[96];

	if (rc || !integer || v < k->lo || v > k->hi) {
		c->pos = at;
		snprintf(what, sizeof(what), "\"%s\" must be an integer from %lld to %lld", k->name,
			 k->lo, k->hi);
		return hfail(c, what);
	}
	*dst = v;
	return GC_OK;
}

/* A member's key and its ':' at the cursor; a key longer than key (size n) is none that
 * gcbench reads: it is skipped and key is "". */
static gc_rc jkey(struct cur *c, char *key, size_t n)
{
	size_t at = c->pos;

	if (jstring(c, key, n, "key") != GC_OK) {
		gc_rc rc;
		c->pos = at;
		key[0] = 0;
		if ((rc = jstring(c, NULL, 0, "")))
			return rc;
	}
	if (peek(c) != ':')
		return hfail(c, "expected ':' after a key");
	c->pos++;
	return GC_OK;
}

/* versions.gcbench, for a gcbench-worker file's producer; other members skipped */
static gc_rc read_versions(struct cur *c, struct legacy *lg)
{
	int n = 0;
	gc_rc rc;

	if (peek(c) != '{')
		return jvalue(c, 1);
	c->pos++;
	while (peek(c) != '}') {
		char key[16];
		if (n++ && (peek(c) != ',' || !++c->pos))
			return hfail(c, "expected ',' or '}'");
		if ((rc = jkey(c, key, sizeof(key))))
			return rc;
		if (!strcmp(key, "gcbench") && peek(c) == '"') {
			if ((rc = jstring(c, lg->version, sizeof(lg->version), "versions.gcbench")))
				return rc;
			lg->have_version = 1;
		} else if ((rc = jvalue(c, 2))) {
			return rc;
		}
	}
	c->pos++;
	return GC_OK;
}

static gc_rc member(struct cur *c, struct gc_rec_header *h, struct legacy *lg)
{
	char key[32];
	size_t at = c->pos;
	gc_rc rc = jkey(c, key, sizeof(key));

	if (rc)
		return rc;
	for (size_t i = 0; i < NKEYS; i++) {
		if (strcmp(key, keys[i].name))
			continue;
		if (h->have & (1u << i)) {
			c->pos = at;
			return hfail(c, "a key given twice");
		}
		h->have |= 1u << i;
		if (!keys[i].size)
			return read_int(c, &keys[i], (long long *)((char *)h + keys[i].off));
		if (peek(c) != '"') {
			char what[64];
			snprintf(what, sizeof(what), "\"%s\" must be a string", keys[i].name);
			return hfail(c, what);
		}
		return jstring(c, (char *)h + keys[i].off, keys[i].size, keys[i].name);
	}
	if (!strcmp(key, "format") && peek(c) == '"') {
		lg->have_format = 1;
		return jstring(c, lg->format, sizeof(lg->format), "format");
	}
	if (!strcmp(key, "versions"))
		return read_versions(c, lg);
	return jvalue(c, 1);
}

gc_rc gc_rec_header_parse(const char *text, size_t len, struct gc_rec_header *out, gc_err *e)
{
	struct cur c = { text, len, 0, e };
	struct legacy lg;
	int n = 0;
	gc_rc rc = GC_OK;

	memset(out, 0, sizeof(*out));
	memset(&lg, 0, sizeof(lg));
	out->world = out->rank = out->batch = -1;
	if (peek(&c) != '{')
		return hfail(&c, "expected '{' (the header is one JSON object)");
	c.pos++;
	while (!rc && peek(&c) != '}') {
		if (n++ && (peek(&c) != ',' || !++c.pos))
			rc = hfail(&c, "expected ',' or '}'");
		else
			rc = member(&c, out, &lg);
	}
	if (!rc) {
		c.pos++;
		if (peek(&c) >= 0)
			rc = hfail(&c, "trailing bytes after the object");
	}
	if (!rc && !(out->have & GC_RECH_PRODUCER) && lg.have_format &&
	    !strcmp(lg.format, "gcbench-worker")) {
		snprintf(out->producer, sizeof(out->producer), "gcbench-worker%s%s",
			 lg.have_version ? " " : "", lg.have_version ? lg.version : "");
		out->have |= GC_RECH_PRODUCER;
	}
	if (rc) {
		memset(out, 0, sizeof(*out));
		out->world = out->rank = out->batch = -1;
	}
	return rc;
}

gc_rc gc_rec_header_require(const struct gc_rec_header *h, gc_err *e)
{
	for (size_t i = 0; i < NREQUIRED; i++)
		if (!(h->have & (1u << i)))
			return gc_fail(e, GC_E_FORMAT, "record header: no \"%s\" (required, see "
				       "docs/records.md)", keys[i].name);
	if (!h->producer[0] || !h->method[0] || !h->workload[0] || !h->model[0] || !h->backend[0])
		return gc_fail(e, GC_E_FORMAT, "record header: producer, method, workload, model "
			       "and backend must not be empty");
	if (h->rank >= h->world)
		return gc_fail(e, GC_E_FORMAT, "record header: rank %lld is not below world %lld",
			       h->rank, h->world);
	return GC_OK;
}

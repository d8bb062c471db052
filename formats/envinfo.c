/* formats/envinfo.c: the environment record of a host: its fields, its JSON (written,
 * and read back by the controller) and its text form for people. */
#include "envinfo.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "json_escape.h"
#include "strutil.h"

int64_t gc_version_num(const char *s)
{
	int64_t part[3] = { 0, 0, 0 };
	int k = 0;

	while (*s && !isdigit((unsigned char)*s))
		s++;
	if (!*s)
		return 0;
	while (k < 3 && isdigit((unsigned char)*s)) {
		int64_t v = 0;
		while (isdigit((unsigned char)*s)) {
			if (v < 1000)
				v = v * 10 + (*s - '0');
			s++;
		}
		part[k++] = v > 999 ? 999 : v;
		if (*s != '.' || !isdigit((unsigned char)s[1]))
			break;
		s++;
	}
	return part[0] * 1000000 + part[1] * 1000 + part[2];
}

/* the text fields in output order, with whether a sortable number goes with them */
struct field { const char *name; size_t off; int num; };
#define F(n, num) { #n, offsetof(struct gc_envinfo, n), num }
static const struct field fields[] = {
	F(host, 0), F(gpu_model, 0), F(driver, 1), F(cuda, 1), F(nccl, 1), F(mpi, 1),
	F(kernel, 1), F(libnl, 1), F(sqlite, 1), F(gcbench, 0), F(tcp_cc, 0), F(tag, 0),
};
#undef F
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

const char *gc_envinfo_field(const struct gc_envinfo *in, const char *name)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (!strcmp(fields[i].name, name))
			return (const char *)in + fields[i].off;
	return NULL;
}

gc_rc gc_envinfo_json(const struct gc_envinfo *in, char *buf, size_t n)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;
	gc_rc rc;

	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	for (size_t i = 0; i < NFIELDS; i++) {
		const char *v = (const char *)in + fields[i].off;
		char key[64];
		gc_json_str_field(&j, fields[i].name, v);
		if (!fields[i].num)
			continue;
		snprintf(key, sizeof(key), "%s_num", fields[i].name);
		gc_json_int_field(&j, key, (long long)gc_version_num(v));
	}
	gc_json_int_field(&j, "gpu_count", in->gpu_count);
	gc_json_obj_close(&j);
	rc = gc_json_finish(&j);
	if (!rc && b.len >= n)
		rc = GC_E_INVAL;
	if (!rc)
		memcpy(buf, b.p, b.len + 1);
	gc_buf_release(&b);
	return rc;
}

void gc_envinfo_print(const struct gc_envinfo *in, void *fp)
{
	FILE *f = fp;

	for (size_t i = 0; i < NFIELDS; i++) {
		const char *v = (const char *)in + fields[i].off;
		fprintf(f, "%-10s %s\n", fields[i].name,
			*v ? v : strcmp(fields[i].name, "tag") ? "(not found)" : "(none)");
	}
	fprintf(f, "%-10s %d\n", "gpu_count", in->gpu_count);
}

/* ---- reading gc_envinfo_json's output back ---------------------------------------- */

struct jcur {
	const char *s;
	size_t len, pos;
	gc_err *e;
};

/* Fail at the cursor, naming its line and column (1-based) and what was expected
 * there, never the bytes found: the text is untrusted and may hold anything. */
static gc_rc jfail(struct jcur *c, const char *what)
{
	size_t i, line = 1, col = 1;

	for (i = 0; i < c->pos && i < c->len; i++) {
		if (c->s[i] == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
	}
	return gc_fail(c->e, GC_E_FORMAT, "environment JSON: %s at line %zu, column %zu%s",
		       what, line, col, c->pos >= c->len ? " (at the end)" : "");
}

static void jspace(struct jcur *c)
{
	while (c->pos < c->len && strchr(" \t\r\n", c->s[c->pos]) && c->s[c->pos])
		c->pos++;
}

static int jpeek(struct jcur *c)
{
	jspace(c);
	return c->pos < c->len ? (unsigned char)c->s[c->pos] : -1;
}

/* A JSON string at the cursor into dst (size n, NUL-terminated); dst may be NULL to
 * skip. Escapes of the Basic Multilingual Plane only (what gc_envinfo_json writes). */
static gc_rc jstring(struct jcur *c, char *dst, size_t n)
{
	char sink[GC_ENV_FIELD];
	size_t o = 0;

	if (!dst) {
		dst = sink;
		n = sizeof(sink);
	}
	if (jpeek(c) != '"')
		return jfail(c, "expected a string");
	c->pos++;
	while (c->pos < c->len && c->s[c->pos] != '"') {
		unsigned char ch = (unsigned char)c->s[c->pos];
		long cp = ch;
		if (ch < 0x20)
			return jfail(c, "control character inside a string");
		if (ch != '\\')
			c->pos++;
		else if ((cp = gc_json_escape(c->s, c->len, &c->pos, 0)) < 0)
			return jfail(c, cp == GC_JSON_BAD_U ? "bad \\u escape (NUL and surrogates "
				     "are refused)" : "bad escape in a string");
		if (ch != '\\' || cp < 0x80) {
			if (o + 1 >= n)
				return jfail(c, "string longer than an environment field");
			dst[o++] = (char)cp;
		} else if (gc_json_put_utf8(dst, n, &o, cp)) {
			return jfail(c, "string longer than an environment field");
		}
	}
	if (c->pos >= c->len)
		return jfail(c, "unterminated string");
	c->pos++;
	dst[o] = 0;
	return GC_OK;
}

/* An integer at the cursor (-?[0-9]+, at most 18 digits). */
static gc_rc jint(struct jcur *c, long long *v)
{
	int neg = 0, digits = 0;

	*v = 0;
	if (jpeek(c) == '-') {
		neg = 1;
		c->pos++;
	}
	while (c->pos < c->len && isdigit((unsigned char)c->s[c->pos]) && digits < 18) {
		*v = *v * 10 + (c->s[c->pos++] - '0');
		digits++;
	}
	if (c->pos < c->len && isdigit((unsigned char)c->s[c->pos]))
		digits++;   /* a 19th digit: too long (and 10 * v could overflow) */
	if (!digits || digits > 18 ||
	    (c->pos < c->len && strchr(".eE", c->s[c->pos]) && c->s[c->pos]))
		return jfail(c, "expected an integer");
	if (neg)
		*v = -*v;
	return GC_OK;
}

/* One "key": value member into *out; seen[] marks the text fields given so far. */
static gc_rc jmember(struct jcur *c, struct gc_envinfo *out, unsigned char *seen, int *count_seen)
{
	char key[64];
	size_t at = c->pos;
	long long v;
	gc_rc rc;

	if ((rc = jstring(c, key, sizeof(key))))
		return rc;
	if (jpeek(c) != ':')
		return jfail(c, "expected ':' after a key");
	c->pos++;
	for (size_t i = 0; i < NFIELDS; i++) {
		if (strcmp(key, fields[i].name))
			continue;
		if (seen[i]) {
			c->pos = at;
			return jfail(c, "a key given twice");
		}
		seen[i] = 1;
		return jstring(c, (char *)out + fields[i].off, GC_ENV_FIELD);
	}
	if (!strcmp(key, "gpu_count")) {
		if (*count_seen) {
			c->pos = at;
			return jfail(c, "a key given twice");
		}
		*count_seen = 1;
		if ((rc = jint(c, &v)))
			return rc;
		if (v < 0 || v > 1 << 20)
			return jfail(c, "gpu_count out of range");
		out->gpu_count = (int)v;
		return GC_OK;
	}
	/* <field>_num and keys of a newer gcbench: a string or an integer, not kept */
	return jpeek(c) == '"' ? jstring(c, NULL, 0) : jint(c, &v);
}

static gc_rc jobject(struct jcur *c, struct gc_envinfo *out)
{
	unsigned char seen[NFIELDS] = { 0 };
	int count_seen = 0, n = 0;
	gc_rc rc;

	if (jpeek(c) != '{')
		return jfail(c, "expected '{' (the output of 'gcbench env --json')");
	c->pos++;
	while (jpeek(c) != '}') {
		if (n && jpeek(c) != ',')
			return jfail(c, "expected ',' or '}'");
		if (n++)
			c->pos++;
		if (n > 256)
			return jfail(c, "more than 256 members");
		if ((rc = jmember(c, out, seen, &count_seen)))
			return rc;
	}
	c->pos++;
	if (jpeek(c) >= 0)
		return jfail(c, "trailing bytes after the object");
	if (!out->host[0])
		return gc_fail(c->e, GC_E_FORMAT, "environment JSON: no \"host\" (or an empty one)");
	return GC_OK;
}

gc_rc gc_envinfo_parse_json(const char *text, size_t len, struct gc_envinfo *out, gc_err *e)
{
	struct jcur c = { text, len, 0, e };
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	rc = jobject(&c, out);
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}

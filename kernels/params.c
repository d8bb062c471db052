/* kernels/params.c: method names and parameters (parsing, checks, canonical text). */
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compress.h"
#include "strutil.h"

static const char *const method_names[GC_M__COUNT] = {
	"syncsgd", "fp16", "signsgd", "topk", "mstopk", "powersgd",
};

const char *gc_method_name(gc_method m)
{
	if ((int)m < 0 || m >= GC_M__COUNT)
		return "?";
	return method_names[m];
}

gc_rc gc_method_parse(const char *name, gc_method *out)
{
	int m;

	for (m = 0; name && m < GC_M__COUNT; m++) {
		if (!strcmp(name, method_names[m])) {
			*out = (gc_method)m;
			return GC_OK;
		}
	}
	return GC_E_INVAL;
}

void gc_params_default(gc_params *p, gc_method m)
{
	memset(p, 0, sizeof(*p));
	p->method = m;
	p->ef = (m == GC_M_TOPK || m == GC_M_MSTOPK || m == GC_M_POWERSGD);
	p->scaled = 0;
	p->ratio = 0.01;
	p->rounds = 20;
	p->rank = 4;
	p->warm_start = 1;
	p->min_compression = 2.0;
	p->seed = 42;
}

#define MB(m) (1u << (m))

enum ptype { PT_BOOL, PT_INT, PT_DOUBLE, PT_U64 };

/* One parameter: which methods take it, its type, its valid range (text for messages). */
struct pdef {
	const char *key;
	unsigned methods;
	enum ptype type;
	double min, max;
	int min_open;           /* the lower bound is excluded */
	const char *range;
	size_t off;
};

static const struct pdef pdefs[] = {
	{ "ef", MB(GC_M_SIGNSGD) | MB(GC_M_TOPK) | MB(GC_M_MSTOPK) | MB(GC_M_POWERSGD),
	  PT_BOOL, 0, 1, 0, "0 or 1", offsetof(gc_params, ef) },
	{ "scaled", MB(GC_M_SIGNSGD), PT_BOOL, 0, 1, 0, "0 or 1", offsetof(gc_params, scaled) },
	{ "ratio", MB(GC_M_TOPK) | MB(GC_M_MSTOPK), PT_DOUBLE, 0, 1, 1,
	  "(0, 1], e.g. 0.01 for 1%", offsetof(gc_params, ratio) },
	{ "rounds", MB(GC_M_MSTOPK), PT_INT, 1, 64, 0, "1..64", offsetof(gc_params, rounds) },
	{ "rank", MB(GC_M_POWERSGD), PT_INT, 1, 32, 0, "1..32", offsetof(gc_params, rank) },
	{ "warm_start", MB(GC_M_POWERSGD), PT_BOOL, 0, 1, 0, "0 or 1",
	  offsetof(gc_params, warm_start) },
	{ "min_compression", MB(GC_M_POWERSGD), PT_DOUBLE, 1, 1e9, 0, "[1, 1e9]",
	  offsetof(gc_params, min_compression) },
	{ "seed", MB(GC_M_POWERSGD), PT_U64, 0, 0, 0, "0..18446744073709551615",
	  offsetof(gc_params, seed) },
};
#define NPDEFS (sizeof(pdefs) / sizeof(pdefs[0]))

/* "ef, ratio" for the method, or "none". */
static void keys_of(gc_method m, char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < NPDEFS; i++) {
		if (!(pdefs[i].methods & MB(m)))
			continue;
		if (buf[0])
			strncat(buf, ", ", len - strlen(buf) - 1);
		strncat(buf, pdefs[i].key, len - strlen(buf) - 1);
	}
	if (!buf[0])
		gc_strlcpy(buf, "none", len);
}

/* The shortest of %.15g..%.17g that reads back as v. */
static void fmt_double(char *buf, size_t len, double v)
{
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

static gc_rc set_value(gc_params *p, const struct pdef *d, const char *value, gc_err *e)
{
	char *field = (char *)p + d->off;
	double v;
	uint64_t u;

	if (d->type == PT_U64) {
		if (gc_parse_u64(value, &u))
			return gc_fail(e, GC_E_INVAL, "parameter '%s': '%s' is not an unsigned "
				       "integer; use %s", d->key, value, d->range);
		memcpy(field, &u, sizeof(u));
		return GC_OK;
	}
	/* an integer parameter must be whole and within int64 before the cast (a cast of
	 * 1e61 is undefined behaviour; fuzz_params found it) */
	if (gc_parse_double(value, &v) ||
	    (d->type != PT_DOUBLE && (!(fabs(v) < 9.2e18) || v != (double)(int64_t)v)))
		return gc_fail(e, GC_E_INVAL, "parameter '%s': '%s' is not %s; use %s", d->key,
			       value, d->type == PT_DOUBLE ? "a number" : "an integer", d->range);
	if (v > d->max || v < d->min || (d->min_open && v <= d->min))
		return gc_fail(e, GC_E_INVAL, "parameter '%s': %s is out of range; use %s",
			       d->key, value, d->range);
	if (d->type == PT_DOUBLE)
		memcpy(field, &v, sizeof(v));
	else
		*(int *)(void *)field = (int)v;
	return GC_OK;
}

gc_rc gc_params_set(gc_params *p, const char *key, const char *value, gc_err *e)
{
	char keys[128];
	size_t i;

	keys_of(p->method, keys, sizeof(keys));
	for (i = 0; i < NPDEFS; i++) {
		if (strcmp(pdefs[i].key, key))
			continue;
		if (!(pdefs[i].methods & MB(p->method)))
			return gc_fail(e, GC_E_INVAL, "method '%s' does not take parameter '%s' "
				       "(its parameters: %s)", gc_method_name(p->method), key, keys);
		return set_value(p, &pdefs[i], value, e);
	}
	return gc_fail(e, GC_E_INVAL, "unknown parameter '%s' for method '%s' (its parameters: "
		       "%s)", key, gc_method_name(p->method), keys);
}

gc_rc gc_params_check(const gc_params *p, gc_err *e)
{
	if ((int)p->method < 0 || p->method >= GC_M__COUNT)
		return gc_fail(e, GC_E_INVAL, "unknown method number %d", (int)p->method);
	if (p->method == GC_M_SIGNSGD && p->ef && !p->scaled)
		return gc_fail(e, GC_E_INVAL, "signsgd: ef=1 needs scaled=1 (error feedback is "
			       "defined for the scaled sign only); add scaled=1 or drop ef");
	if ((p->method == GC_M_TOPK || p->method == GC_M_MSTOPK) &&
	    !(p->ratio > 0 && p->ratio <= 1))
		return gc_fail(e, GC_E_INVAL, "%s: ratio %g is out of range; use (0, 1]",
			       gc_method_name(p->method), p->ratio);
	if (p->method == GC_M_MSTOPK && (p->rounds < 1 || p->rounds > 64))
		return gc_fail(e, GC_E_INVAL, "mstopk: rounds %d is out of range; use 1..64",
			       p->rounds);
	if (p->method == GC_M_POWERSGD && (p->rank < 1 || p->rank > 32))
		return gc_fail(e, GC_E_INVAL, "powersgd: rank %d is out of range; use 1..32", p->rank);
	if (p->method == GC_M_POWERSGD && !(p->min_compression >= 1 && p->min_compression <= 1e9))
		return gc_fail(e, GC_E_INVAL, "powersgd: min_compression %g is out of range; use "
			       "[1, 1e9]", p->min_compression);
	return GC_OK;
}

void gc_params_format(const gc_params *p, char *buf, size_t len)
{
	size_t i, n = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < NPDEFS && n < len; i++) {
		const struct pdef *d = &pdefs[i];
		const char *field = (const char *)p + d->off;
		const char *sep = n ? "," : "";
		double v;
		uint64_t u;
		int iv;

		if (!(d->methods & MB(p->method)))
			continue;
		if (d->type == PT_DOUBLE) {
			char num[32];

			memcpy(&v, field, sizeof(v));
			fmt_double(num, sizeof(num), v);
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", sep, d->key, num);
		} else if (d->type == PT_U64) {
			memcpy(&u, field, sizeof(u));
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%llu", sep, d->key,
					      (unsigned long long)u);
		} else {
			memcpy(&iv, field, sizeof(iv));
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%d", sep, d->key, iv);
		}
	}
}

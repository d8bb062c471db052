/* kernels/params.c: the method table (params.h): names, parameters, defaults, ranges;
 * parsing, checks and the canonical text. */
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "params.h"
#include "strutil.h"

static const char *const method_names[GC_M__COUNT] = {
	"syncsgd", "fp16", "signsgd", "topk", "mstopk", "powersgd", "bf16", "randomk", "terngrad",
	"qsgd", "efsign_ar", "dgc", "cgx",
};

#define MB(m) GC_METHOD_BIT(m)
#define ALL_METHODS (GC_METHOD_BIT(GC_M__COUNT) - 1u)

static const gc_param_def pdefs[] = {
	{ "ef", MB(GC_M_SIGNSGD) | MB(GC_M_TOPK) | MB(GC_M_MSTOPK) | MB(GC_M_POWERSGD) |
	  MB(GC_M_RANDOMK) | MB(GC_M_EFSIGN_AR),
	  GC_PT_BOOL, 1, MB(GC_M_SYNCSGD) | MB(GC_M_FP16) | MB(GC_M_SIGNSGD) | MB(GC_M_BF16) |
	  MB(GC_M_TERNGRAD) | MB(GC_M_QSGD) | MB(GC_M_DGC) | MB(GC_M_CGX),
	  0, 1, 0,
	  "0 or 1", offsetof(gc_params, ef), 0, 0, 0, 0 },
	{ "scaled", MB(GC_M_SIGNSGD), GC_PT_BOOL, 0, 0, 0, 1, 0, "0 or 1",
	  offsetof(gc_params, scaled), 0, 0, 0, 0 },
	{ "ratio", MB(GC_M_TOPK) | MB(GC_M_MSTOPK) | MB(GC_M_RANDOMK) | MB(GC_M_DGC), GC_PT_DOUBLE, 0.01, 0, 0, 1, 1,
	  "(0, 1], e.g. 0.01 for 1%", offsetof(gc_params, ratio), 0, 0, 0, 0 },
	{ "rounds", MB(GC_M_MSTOPK), GC_PT_INT, 20, 0, 1, 64, 0, "1..64",
	  offsetof(gc_params, rounds), 0, 0, 0, 0 },
	{ "rank", MB(GC_M_POWERSGD), GC_PT_INT, 4, 0, 1, 32, 0, "1..32",
	  offsetof(gc_params, rank), 0, 0, 0, 0 },
	{ "warm_start", MB(GC_M_POWERSGD), GC_PT_BOOL, 1, 0, 0, 1, 0, "0 or 1",
	  offsetof(gc_params, warm_start), 0, 0, 0, 0 },
	{ "min_compression", MB(GC_M_POWERSGD), GC_PT_DOUBLE, 2, 0, 1, 1e9, 0, "[1, 1e9]",
	  offsetof(gc_params, min_compression), 0, 0, 0, 0 },
	{ "seed", MB(GC_M_POWERSGD) | MB(GC_M_RANDOMK) | MB(GC_M_TERNGRAD) |
	  MB(GC_M_QSGD) | MB(GC_M_CGX), GC_PT_U64, 42, 0, 0, 0, 0, "0..18446744073709551615",
	  offsetof(gc_params, seed), 0, 0, 0, 0 },
	{ "levels", MB(GC_M_QSGD), GC_PT_INT, 127, 0, 2, 256, 0, "2..256",
	  offsetof(gc_params, levels), 0, 0, 0, 0 },
	{ "bucket_size", MB(GC_M_QSGD) | MB(GC_M_CGX), GC_PT_INT, 128, 0, 1, 1048576, 0,
	  "1..1048576", offsetof(gc_params, bucket_size), 0, 0, MB(GC_M_CGX), 512 },
	{ "momentum", ALL_METHODS, GC_PT_DOUBLE, 0, 0, 0, 1, 0, "[0, 1), e.g. 0.9",
	  offsetof(gc_params, momentum), 1, ALL_METHODS & ~MB(GC_M_DGC), MB(GC_M_DGC), 0.9 },
	{ "clip", MB(GC_M_DGC), GC_PT_DOUBLE, 0, 0, 0, 1e9, 0, "[0, 1e9] (0: no clipping)",
	  offsetof(gc_params, clip), 0, 0, 0, 0 },
	{ "warmup_steps", MB(GC_M_DGC), GC_PT_INT, 0, 0, 0, 100000000, 0, "0..100000000",
	  offsetof(gc_params, warmup_steps), 0, 0, 0, 0 },
	{ "bits", MB(GC_M_CGX), GC_PT_INT, 4, 0, 1, 8, 0, "1..8",
	  offsetof(gc_params, bits), 0, 0, 0, 0 },
};
#define NPDEFS (sizeof(pdefs) / sizeof(pdefs[0]))

const gc_param_def *gc_param_table(size_t *n)
{
	*n = NPDEFS;
	return pdefs;
}

const gc_param_def *gc_param_lookup(const char *key)
{
	size_t i;

	for (i = 0; key && i < NPDEFS; i++)
		if (!strcmp(pdefs[i].key, key))
			return &pdefs[i];
	return NULL;
}

int gc_method_takes(gc_method m, const gc_param_def *d)
{
	return (int)m >= 0 && m < GC_M__COUNT && (d->methods & MB(m)) != 0;
}

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

/* Append sep (unless buf is empty) and s to buf, cut to len. */
static void join(char *buf, size_t len, const char *sep, const char *s)
{
	if (buf[0])
		strncat(buf, sep, len - strlen(buf) - 1);
	strncat(buf, s, len - strlen(buf) - 1);
}

void gc_method_names(char *buf, size_t len, const char *sep)
{
	int m;

	if (!len)
		return;
	buf[0] = '\0';
	for (m = 0; m < GC_M__COUNT; m++)
		join(buf, len, sep, method_names[m]);
}

void gc_method_keys(gc_method m, char *buf, size_t len)
{
	size_t i;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < NPDEFS; i++)
		if (gc_method_takes(m, &pdefs[i]))
			join(buf, len, ", ", pdefs[i].key);
}

/* The field of d in p, as a double (u64 fields: rounded). */
static double field_get(const gc_params *p, const gc_param_def *d)
{
	const char *field = (const char *)p + d->off;
	double v;
	uint64_t u;
	int iv;

	if (d->type == GC_PT_DOUBLE) {
		memcpy(&v, field, sizeof(v));
		return v;
	}
	if (d->type == GC_PT_U64) {
		memcpy(&u, field, sizeof(u));
		return (double)u;
	}
	memcpy(&iv, field, sizeof(iv));
	return iv;
}

/* Store v in d's field: whole and in range for bool and int, >= 0 for u64. */
static void field_put(gc_params *p, const gc_param_def *d, double v)
{
	char *field = (char *)p + d->off;
	uint64_t u;
	int iv;

	if (d->type == GC_PT_DOUBLE) {
		memcpy(field, &v, sizeof(v));
	} else if (d->type == GC_PT_U64) {
		u = (uint64_t)v;
		memcpy(field, &u, sizeof(u));
	} else {
		iv = (int)v;
		memcpy(field, &iv, sizeof(iv));
	}
}

void gc_params_default(gc_params *p, gc_method m)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->method = m;
	for (i = 0; i < NPDEFS; i++)
		field_put(p, &pdefs[i], (pdefs[i].def_zero & MB(m)) ? 0 :
			  (pdefs[i].alt & MB(m)) ? pdefs[i].alt_def : pdefs[i].def);
}

static int in_range(const gc_param_def *d, double v)
{
	return v >= d->min && v <= d->max && !(d->min_open && v <= d->min) &&
	       !(d->max_open && v >= d->max);
}

gc_param_fault gc_param_put(gc_params *p, const gc_param_def *d, const char *text)
{
	double v;
	uint64_t u;

	if (d->type == GC_PT_U64) {
		if (gc_parse_u64(text, &u))
			return GC_PF_SYNTAX;
		memcpy((char *)p + d->off, &u, sizeof(u));
		return GC_PF_OK;
	}
	/* an integer parameter must be whole and within int64 before the cast (a cast of
	 * 1e61 is undefined behaviour; fuzz_params found it) */
	if (gc_parse_double(text, &v) ||
	    (d->type != GC_PT_DOUBLE && (!(fabs(v) < 9.2e18) || v != (double)(int64_t)v)))
		return GC_PF_SYNTAX;
	if (!in_range(d, v))
		return GC_PF_RANGE;
	field_put(p, d, v);
	return GC_PF_OK;
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

static gc_rc set_value(gc_params *p, const gc_param_def *d, const char *value, gc_err *e)
{
	gc_param_fault f = gc_param_put(p, d, value);

	if (f == GC_PF_SYNTAX && d->type == GC_PT_U64)
		return gc_fail(e, GC_E_INVAL, "parameter '%s': '%s' is not an unsigned "
			       "integer; use %s", d->key, value, d->range);
	if (f == GC_PF_SYNTAX)
		return gc_fail(e, GC_E_INVAL, "parameter '%s': '%s' is not %s; use %s", d->key,
			       value, d->type == GC_PT_DOUBLE ? "a number" : "an integer", d->range);
	if (f == GC_PF_RANGE)
		return gc_fail(e, GC_E_INVAL, "parameter '%s': %s is out of range; use %s",
			       d->key, value, d->range);
	return GC_OK;
}

gc_rc gc_params_set(gc_params *p, const char *key, const char *value, gc_err *e)
{
	const gc_param_def *d = gc_param_lookup(key);
	char keys[128];

	gc_method_keys(p->method, keys, sizeof(keys));
	if (!d)
		return gc_fail(e, GC_E_INVAL, "unknown parameter '%s' for method '%s' (its "
			       "parameters: %s)", key, gc_method_name(p->method),
			       keys[0] ? keys : "none");
	if (!gc_method_takes(p->method, d))
		return gc_fail(e, GC_E_INVAL, "method '%s' does not take parameter '%s' "
			       "(its parameters: %s)", gc_method_name(p->method), key,
			       keys[0] ? keys : "none");
	return set_value(p, d, value, e);
}

gc_rc gc_params_set_list(gc_params *p, const char *list, gc_err *e)
{
	char buf[256], *kv, *save = NULL;
	gc_rc rc;

	if (gc_strlcpy(buf, list ? list : "", sizeof(buf)) >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "parameter list '%.40s...' is too long (at most "
			       "%zu bytes)", list, sizeof(buf) - 1);
	for (kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		if (!eq || eq == kv)
			return gc_fail(e, GC_E_INVAL, "parameter '%s' is not key=value (e.g. "
				       "ratio=0.01)", kv);
		*eq = '\0';
		if ((rc = gc_params_set(p, kv, eq + 1, e)))
			return rc;
	}
	return GC_OK;
}

gc_rc gc_params_parse_method(const char *spec, gc_params *p, gc_err *e)
{
	char name[64], names[160];
	const char *colon = spec ? strchr(spec, ':') : NULL;
	size_t n = colon ? (size_t)(colon - spec) : (spec ? strlen(spec) : 0);
	gc_method m;
	gc_rc rc;

	if (!n || n >= sizeof(name))
		return gc_fail(e, GC_E_INVAL, "method '%.60s' names no method; write e.g. topk or "
			       "topk:ratio=0.01", spec ? spec : "");
	memcpy(name, spec, n);
	name[n] = 0;
	if (gc_method_parse(name, &m)) {
		gc_method_names(names, sizeof(names), ", ");
		return gc_fail(e, GC_E_INVAL, "unknown method '%s'; use one of %s", name, names);
	}
	gc_params_default(p, m);
	if (colon && !colon[1])
		return gc_fail(e, GC_E_INVAL, "method '%s' ends in ':'; write %s or %s:key=value",
			       spec, name, name);
	if (colon && (rc = gc_params_set_list(p, colon + 1, e)))
		return rc;
	return GC_OK;
}

gc_rc gc_params_check(const gc_params *p, gc_err *e)
{
	size_t i;

	if ((int)p->method < 0 || p->method >= GC_M__COUNT)
		return gc_fail(e, GC_E_INVAL, "unknown method number %d", (int)p->method);
	if (p->method == GC_M_SIGNSGD && p->ef && !p->scaled)
		return gc_fail(e, GC_E_INVAL, "signsgd: ef=1 needs scaled=1 (error feedback is "
			       "defined for the scaled sign only); add scaled=1 or drop ef");
	for (i = 0; i < NPDEFS; i++) {
		const gc_param_def *d = &pdefs[i];
		double v = field_get(p, d);

		if ((d->type == GC_PT_INT || d->type == GC_PT_DOUBLE) &&
		    gc_method_takes(p->method, d) && !in_range(d, v))
			return gc_fail(e, GC_E_INVAL, "%s: %s %g is out of range; use %s",
				       gc_method_name(p->method), d->key, v, d->range);
	}
	return GC_OK;
}

void gc_params_format(const gc_params *p, char *buf, size_t len)
{
	size_t i, n = 0;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < NPDEFS && n < len; i++) {
		const gc_param_def *d = &pdefs[i];
		const char *field = (const char *)p + d->off;
		const char *sep = n ? "," : "";
		char num[32];
		uint64_t u;

		if (!gc_method_takes(p->method, d))
			continue;
		if ((d->quiet & MB(p->method)) && field_get(p, d) == 0)
			continue;
		if (d->type == GC_PT_DOUBLE) {
			fmt_double(num, sizeof(num), field_get(p, d));
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", sep, d->key, num);
		} else if (d->type == GC_PT_U64) {
			memcpy(&u, field, sizeof(u));
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%llu", sep, d->key,
					      (unsigned long long)u);
		} else {
			n += (size_t)snprintf(buf + n, len - n, "%s%s=%d", sep, d->key,
					      (int)field_get(p, d));
		}
	}
}

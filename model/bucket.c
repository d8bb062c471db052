/* model/bucket.c: the bucket layout (shared with the worker), method specs, and the
 * per-bucket payload of each method exactly as kernels/compress.h defines it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "strutil.h"

gc_rc gc_buckets_make(const gc_arch *a, size_t first_bytes, size_t bytes, gc_buckets *out,
		      gc_err *e)
{
	size_t k, cap = 16, cur = 0;

	memset(out, 0, sizeof(*out));
	if (!a->n)
		return gc_fail(e, GC_E_INVAL, "architecture '%s' has no tensors to bucket", a->name);
	if (!(out->b = calloc(cap, sizeof(*out->b))))
		return gc_fail(e, GC_E_NOMEM, "bucketing: out of memory");
	for (k = 0; k < a->n; k++) {
		const gc_arch_tensor *t = &a->t[a->n - 1 - k];
		gc_bucket_span *s;
		if (out->n == 0 || cur >= (out->n == 1 ? first_bytes : bytes)) {
			if (out->n == cap) {
				void *q = realloc(out->b, 2 * cap * sizeof(*out->b));
				if (!q) {
					gc_buckets_release(out);
					return gc_fail(e, GC_E_NOMEM, "bucketing: out of memory");
				}
				out->b = q;
				cap *= 2;
			}
			out->b[out->n++] = (gc_bucket_span){ k, 0, 0 };
			cur = 0;
		}
		s = &out->b[out->n - 1];
		s->count++;
		s->numel += t->numel;
		cur += 4 * t->numel;
	}
	return GC_OK;
}

void gc_buckets_release(gc_buckets *b)
{
	if (!b)
		return;
	free(b->b);
	memset(b, 0, sizeof(*b));
}

static const char *const method_names[GC_M__COUNT] = {
	"syncsgd", "fp16", "signsgd", "topk", "mstopk", "powersgd",
};

static gc_rc set_key(gc_model_method *m, const char *key, const char *val, gc_err *e)
{
	double v;

	if (gc_parse_double(val, &v))
		return gc_fail(e, GC_E_INVAL, "method '%s': value '%s' of '%s' is not a number",
			       m->label, val, key);
	if (!strcmp(key, "ratio") && (m->m == GC_M_TOPK || m->m == GC_M_MSTOPK)) {
		if (!(v > 0 && v <= 1))
			return gc_fail(e, GC_E_INVAL, "method '%s': ratio %s is outside (0, 1]",
				       m->label, val);
		m->ratio = v;
	} else if (!strcmp(key, "rank") && m->m == GC_M_POWERSGD) {
		if (v != floor(v) || v < 1 || v > 32)
			return gc_fail(e, GC_E_INVAL, "method '%s': rank %s is not an integer "
				       "in 1..32", m->label, val);
		m->rank = (int)v;
	} else if (!strcmp(key, "rounds") && m->m == GC_M_MSTOPK) {
		if (v != floor(v) || v < 1 || v > 64)
			return gc_fail(e, GC_E_INVAL, "method '%s': rounds %s is not an integer "
				       "in 1..64", m->label, val);
		m->rounds = (int)v;
	} else if (!strcmp(key, "min_compression") && m->m == GC_M_POWERSGD) {
		if (!(v >= 0))
			return gc_fail(e, GC_E_INVAL, "method '%s': min_compression %s < 0",
				       m->label, val);
		m->min_compression = v;
	} else if (!strcmp(key, "scaled") && m->m == GC_M_SIGNSGD && (v == 0 || v == 1)) {
		m->scaled = (int)v;
	} else {
		return gc_fail(e, GC_E_INVAL, "method '%s': unknown parameter '%s=%s' for %s; "
			       "it takes %s", m->label, key, val, method_names[m->m],
			       m->m == GC_M_TOPK ? "ratio=(0,1]" :
			       m->m == GC_M_MSTOPK ? "ratio=(0,1], rounds=1..64" :
			       m->m == GC_M_POWERSGD ? "rank=1..32, min_compression=X" :
			       m->m == GC_M_SIGNSGD ? "scaled=0|1" : "no parameters");
	}
	return GC_OK;
}

gc_rc gc_model_method_parse(const char *spec, gc_model_method *out, gc_err *e)
{
	char buf[64], *colon, *kv, *save = NULL;
	int i;

	memset(out, 0, sizeof(*out));
	out->ratio = 0.01, out->rank = 4, out->rounds = 20, out->min_compression = 2;
	if (!spec || !*spec || gc_strlcpy(buf, spec, sizeof(buf)) >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "method '%.64s' is empty or too long; use e.g. "
			       "signsgd, topk:ratio=0.01, mstopk:ratio=0.01, powersgd:rank=4",
			       spec ? spec : "");
	gc_strlcpy(out->label, spec, sizeof(out->label));
	if ((colon = strchr(buf, ':')))
		*colon = '\0';
	for (i = 0; i < GC_M__COUNT && strcmp(buf, method_names[i]); i++)
		;
	if (i == GC_M__COUNT)
		return gc_fail(e, GC_E_INVAL, "unknown method '%s'; use syncsgd, fp16, signsgd, "
			       "topk, mstopk or powersgd", buf);
	out->m = (gc_method)i;
	for (kv = colon ? strtok_r(colon + 1, ",", &save) : NULL; kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		gc_rc rc;
		if (!eq)
			return gc_fail(e, GC_E_INVAL, "method '%s': '%s' is not key=value", spec, kv);
		*eq = '\0';
		if ((rc = set_key(out, kv, eq + 1, e)))
			return rc;
	}
	return GC_OK;
}

int gc_model_powersgd_matrix(const gc_arch_tensor *t, const gc_model_method *m,
			     size_t *rows, size_t *cols, size_t *r)
{
	*rows = t->shape[0], *cols = t->numel / t->shape[0];
	*r = (size_t)m->rank;
	if (*r > *rows)
		*r = *rows;
	if (*r > *cols)
		*r = *cols;
	return t->ndim >= 2 && (double)*rows * (double)*cols >=
			       m->min_compression * (double)(*rows + *cols) * (double)*r;
}

/* PowerSGD's rounds for one bucket: P + uncompressed (round0), Q (round1), in floats. */
static void powersgd_floats(const gc_arch *a, const gc_bucket_span *s,
			    const gc_model_method *m, size_t *r0, size_t *r1)
{
	size_t j, rows, cols, r;

	*r0 = *r1 = 0;
	for (j = 0; j < s->count; j++) {
		const gc_arch_tensor *t = &a->t[a->n - 1 - (s->first + j)];
		if (gc_model_powersgd_matrix(t, m, &rows, &cols, &r)) {
			*r0 += rows * r;
			*r1 += cols * r;
		} else {
			*r0 += t->numel;
		}
	}
}

size_t gc_model_topk_k(const gc_model_method *m, size_t n)
{
	double k = ceil(m->ratio * (double)n);
	if (k < 1)
		k = 1;
	return k > (double)n ? n : (size_t)k;
}

int gc_model_payload(const gc_arch *a, const gc_bucket_span *s, const gc_model_method *m,
		     size_t *round0, size_t *round1)
{
	*round1 = 0;
	switch (m->m) {
	case GC_M_FP16:
		*round0 = 2 * s->numel;
		return 0;
	case GC_M_SIGNSGD:
		*round0 = (s->numel + 7) / 8 + (m->scaled ? 4 * s->count : 0);
		return 1;
	case GC_M_TOPK:
	case GC_M_MSTOPK:
		*round0 = 8 * gc_model_topk_k(m, s->numel);
		return 1;
	case GC_M_POWERSGD:
		powersgd_floats(a, s, m, round0, round1);
		*round0 *= 4;
		*round1 *= 4;
		return 0;
	default:
		*round0 = 4 * s->numel;
		return 0;
	}
}

double gc_model_decode_elems(const gc_model_method *m, size_t n, int p)
{
	switch (m->m) {
	case GC_M_SIGNSGD:
		return (double)n * p;
	case GC_M_TOPK:
	case GC_M_MSTOPK:
		return (double)n + (double)gc_model_topk_k(m, n) * p;
	case GC_M_POWERSGD:
	case GC_M_FP16:
		return (double)n;
	default:
		return 0;
	}
}

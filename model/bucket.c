/* model/bucket.c: an architecture's buckets, method specs, and the per-bucket payload
 * of each method, all by the rules of kernels/ (plan.h, params.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "strutil.h"

gc_rc gc_buckets_make(const gc_arch *a, size_t first_bytes, size_t bytes, gc_buckets *out,
		      gc_err *e)
{
	size_t k, *numel;

	memset(out, 0, sizeof(*out));
	if (!a->n)
		return gc_fail(e, GC_E_INVAL, "architecture '%s' has no tensors to bucket", a->name);
	numel = malloc(a->n * sizeof(*numel));
	out->b = malloc(a->n * sizeof(*out->b));
	if (!numel || !out->b) {
		free(numel);
		gc_buckets_release(out);
		return gc_fail(e, GC_E_NOMEM, "bucketing: out of memory");
	}
	for (k = 0; k < a->n; k++)
		numel[k] = a->t[a->n - 1 - k].numel;
	out->n = gc_ddp_buckets(numel, a->n, (double)first_bytes, (double)bytes, out->b);
	free(numel);
	return GC_OK;
}

void gc_buckets_release(gc_buckets *b)
{
	if (!b)
		return;
	free(b->b);
	memset(b, 0, sizeof(*b));
}

gc_tensor_desc gc_model_tensor(const gc_arch *a, const gc_bucket_span *s, size_t j)
{
	const gc_arch_tensor *t = &a->t[a->n - 1 - (s->first + j)];

	return gc_tensor_view(t->ndim, t->shape, t->numel);
}

/* How a value out of range is worded: "ratio 2 is outside (0, 1]". */
static const char *out_of_range(const gc_param_def *d)
{
	if (d->type == GC_PT_DOUBLE)
		return "is outside";
	return d->type == GC_PT_INT ? "is not an integer in" : "is not";
}

/* One key=value of a spec, checked against the method table. */
static gc_rc set_key(gc_model_method *m, const char *key, const char *val, gc_err *e)
{
	const gc_param_def *d = gc_param_lookup(key);
	char keys[128];

	if (!d || !gc_method_takes(m->p.method, d)) {
		gc_method_keys(m->p.method, keys, sizeof(keys));
		return gc_fail(e, GC_E_INVAL, "method '%s': unknown parameter '%s=%s' for %s; "
			       "it takes %s", m->label, key, val, gc_method_name(m->p.method),
			       keys[0] ? keys : "no parameters");
	}
	switch (gc_param_put(&m->p, d, val)) {
	case GC_PF_SYNTAX:
		return gc_fail(e, GC_E_INVAL, "method '%s': value '%s' of '%s' is not %s",
			       m->label, val, key, d->type == GC_PT_DOUBLE ? "a number" :
			       "an integer");
	case GC_PF_RANGE:
		return gc_fail(e, GC_E_INVAL, "method '%s': %s %s %s %s", m->label, key, val,
			       out_of_range(d), d->range);
	default:
		return GC_OK;
	}
}

gc_rc gc_model_method_parse(const char *spec, gc_model_method *out, gc_err *e)
{
	char buf[64], names[96], *colon, *kv, *save = NULL;
	gc_method method;

	memset(out, 0, sizeof(*out));
	if (!spec || !*spec || gc_strlcpy(buf, spec, sizeof(buf)) >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "method '%.64s' is empty or too long; use e.g. "
			       "signsgd, topk:ratio=0.01, mstopk:ratio=0.01, powersgd:rank=4",
			       spec ? spec : "");
	gc_strlcpy(out->label, spec, sizeof(out->label));
	if ((colon = strchr(buf, ':')))
		*colon = '\0';
	if (gc_method_parse(buf, &method)) {
		gc_method_names(names, sizeof(names), ", ");
		return gc_fail(e, GC_E_INVAL, "unknown method '%s'; use one of %s", buf, names);
	}
	gc_params_default(&out->p, method);
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

int gc_model_payload(const gc_arch *a, const gc_bucket_span *s, const gc_model_method *m,
		     size_t *round0, size_t *round1)
{
	return gc_model_payload_p(a, s, m, 1, round0, round1);
}

int gc_model_payload_p(const gc_arch *a, const gc_bucket_span *s, const gc_model_method *m,
		       int p, size_t *round0, size_t *round1)
{
	gc_plan pl;
	size_t j;

	gc_plan_begin(&pl, &m->p);
	pl.world = p > 1 ? p : 1;
	for (j = 0; j < s->count; j++) {
		gc_tensor_desc d = gc_model_tensor(a, s, j);
		gc_plan_add(&pl, &d);
	}
	gc_plan_end(&pl);
	*round0 = gc_plan_round_bytes(&pl, 0);
	*round1 = gc_plan_round_bytes(&pl, 1);
	if (pl.round[0].coll == GC_COLL_ALLTOALL)
		*round1 = 0;
	return pl.round[0].coll == GC_COLL_ALLGATHER;
}

double gc_model_decode_elems(const gc_model_method *m, size_t n, int p)
{
	switch (m->p.method) {
	case GC_M_SIGNSGD:
	case GC_M_TERNGRAD:
	case GC_M_QSGD:
		return (double)n * p;
	case GC_M_TOPK:
	case GC_M_MSTOPK:
	case GC_M_DGC:
		return (double)n + (double)gc_topk_k(&m->p, n) * p;
	case GC_M_POWERSGD:
	case GC_M_FP16:
	case GC_M_BF16:
	case GC_M_RANDOMK:
	case GC_M_EFSIGN_AR:
		return (double)n;
	case GC_M_CGX:          /* the p chunks of this worker's, then the whole bucket */
		return 2.0 * (double)n;
	default:
		return 0;
	}
}

/* model/validate.c: the validation table of held-out runs (validate.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate.h"
#include "strutil.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double rel_err(const gc_val_point *p)
{
	return (p->predicted - p->measured) / p->measured;
}

static int predicted(const gc_val_point *p)
{
	return p->predicted > 0 && p->measured > 0;
}

/* The group named name in g[0..*n), added if new; NULL when full. */
static gc_val_group *group(gc_val_group *g, size_t *n, const char *name)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(g[i].name, name))
			return &g[i];
	if (*n == GC_VAL_MAX_GROUPS)
		return NULL;
	memset(&g[*n], 0, sizeof(g[*n]));
	gc_strlcpy(g[*n].name, name, sizeof(g[*n].name));
	return &g[(*n)++];
}

static const char *net_name(const gc_val_point *p)
{
	return p->network[0] ? p->network : "uniform";
}

/* The baseline point of p (same environment, model, batch, world size, nodes, cap and
 * network), or -1. */
static long baseline_of(const gc_val_point *pts, size_t n, const gc_val_point *p,
			const char *baseline)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (predicted(&pts[i]) && !strcmp(pts[i].method, baseline) &&
		    pts[i].env_id == p->env_id && !strcmp(pts[i].model, p->model) &&
		    pts[i].batch == p->batch && pts[i].world_size == p->world_size &&
		    pts[i].nodes == p->nodes && pts[i].cap_bps == p->cap_bps &&
		    !strcmp(net_name(&pts[i]), net_name(p)))
			return (long)i;
	return -1;
}

/* Median, p95 and mean of the members of group g: member(i) says which points. */
static void stats(const gc_val_point *pts, size_t n, double *buf, gc_val_group *g,
		  int (*member)(const gc_val_point *, const char *), const char *key)
{
	size_t i, m = 0;
	double sum = 0;

	for (i = 0; i < n; i++)
		if (predicted(&pts[i]) && (!member || member(&pts[i], key))) {
			buf[m++] = fabs(rel_err(&pts[i]));
			sum += rel_err(&pts[i]);
		}
	g->n = m;
	if (!m)
		return;
	qsort(buf, m, sizeof(double), cmp_double);
	g->median_abs = m % 2 ? buf[m / 2] : (buf[m / 2 - 1] + buf[m / 2]) / 2;
	g->p95_abs = buf[(size_t)ceil(0.95 * (double)m) - 1];
	g->mean_err = sum / (double)m;
}

static void cap_name(uint64_t bps, char *buf, size_t n)
{
	snprintf(buf, n, "%g Gbit/s", (double)bps / 1e9);
}

static void rpn_name(const gc_val_point *p, char *buf, size_t n)
{
	if (p->nodes > 0)
		snprintf(buf, n, "%d per node", (p->world_size + p->nodes - 1) / p->nodes);
	else
		snprintf(buf, n, "unknown");
}

static int is_method(const gc_val_point *p, const char *k) { return !strcmp(p->method, k); }
static int is_rpn(const gc_val_point *p, const char *k)
{
	char b[48];
	rpn_name(p, b, sizeof(b));
	return !strcmp(b, k);
}
static int is_cap(const gc_val_point *p, const char *k)
{
	char b[48];
	cap_name(p->cap_bps, b, sizeof(b));
	return !strcmp(b, k);
}
static int is_net(const gc_val_point *p, const char *k) { return !strcmp(net_name(p), k); }
static int is_world(const gc_val_point *p, const char *k)
{
	char b[48];
	snprintf(b, sizeof(b), "%d workers", p->world_size);
	return !strcmp(b, k);
}

/* The verdict of point i against its baseline, counted into its groups. */
static void verdict(const gc_val_point *pts, size_t n, size_t i, gc_validation *v)
{
	const gc_val_point *p = &pts[i];
	long b = baseline_of(pts, n, p, v->baseline);
	char cb[48], wb[48], rb[48];
	int same;

	if (b < 0 || !strcmp(p->method, v->baseline))
		return;
	same = (pts[b].measured / p->measured > 1) == (pts[b].predicted / p->predicted > 1);
	cap_name(p->cap_bps, cb, sizeof(cb));
	snprintf(wb, sizeof(wb), "%d workers", p->world_size);
	rpn_name(p, rb, sizeof(rb));
	{
		gc_val_group *gs[6] = { &v->all, group(v->method, &v->nmethod, p->method),
					group(v->cap, &v->ncap, cb), group(v->world, &v->nworld, wb),
					group(v->rpn, &v->nrpn, rb), group(v->net, &v->nnet,
									   net_name(p)) };
		size_t k;
		for (k = 0; k < 6; k++)
			gs[k]->verdicts++, gs[k]->agree += same;
	}
	if (!same) {
		if (v->ndisagree < GC_VAL_MAX_GROUPS)
			v->disagree[v->ndisagree] = i;
		v->ndisagree++;
	}
}

gc_rc gc_validate(const gc_val_point *pts, size_t n, const char *baseline, gc_validation *out,
		  gc_err *e)
{
	double *buf, worst = -1;
	size_t i;

	memset(out, 0, sizeof(*out));
	gc_strlcpy(out->baseline, baseline, sizeof(out->baseline));
	gc_strlcpy(out->all.name, "all", sizeof(out->all.name));
	for (i = 0; i < n; i++) {                  /* the groups, in order of appearance */
		char cb[48], wb[48], rb[48];
		if (!predicted(&pts[i]))
			continue;
		cap_name(pts[i].cap_bps, cb, sizeof(cb));
		snprintf(wb, sizeof(wb), "%d workers", pts[i].world_size);
		rpn_name(&pts[i], rb, sizeof(rb));
		if (!group(out->method, &out->nmethod, pts[i].method) ||
		    !group(out->cap, &out->ncap, cb) || !group(out->world, &out->nworld, wb) ||
		    !group(out->rpn, &out->nrpn, rb) ||
		    !group(out->net, &out->nnet, net_name(&pts[i])))
			return gc_fail(e, GC_E_INVAL, "validation: more than %d methods, caps, "
				       "world sizes, ranks per node or networks; split the held-out "
				       "database",
				       GC_VAL_MAX_GROUPS);
		if (fabs(rel_err(&pts[i])) > worst)
			worst = fabs(rel_err(&pts[i])), out->worst = i;
	}
	if (worst < 0)
		return gc_fail(e, GC_E_INVAL, "validation: no held-out run has a prediction; "
			       "run a sweep the model covers (experiments/heldout.yaml)");
	if (!(buf = malloc(n * sizeof(double))))
		return gc_fail(e, GC_E_NOMEM, "validation: out of memory");
	stats(pts, n, buf, &out->all, NULL, NULL);
	for (i = 0; i < out->nmethod; i++)
		stats(pts, n, buf, &out->method[i], is_method, out->method[i].name);
	for (i = 0; i < out->ncap; i++)
		stats(pts, n, buf, &out->cap[i], is_cap, out->cap[i].name);
	for (i = 0; i < out->nworld; i++)
		stats(pts, n, buf, &out->world[i], is_world, out->world[i].name);
	for (i = 0; i < out->nrpn; i++)
		stats(pts, n, buf, &out->rpn[i], is_rpn, out->rpn[i].name);
	for (i = 0; i < out->nnet; i++)
		stats(pts, n, buf, &out->net[i], is_net, out->net[i].name);
	free(buf);
	for (i = 0; i < n; i++)
		if (predicted(&pts[i]))
			verdict(pts, n, i, out);
	return GC_OK;
}

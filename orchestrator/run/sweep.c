/* orchestrator/run/sweep.c: cartesian product with zip and exclude, point keys, resume. */
#include "sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* outermost first; METHOD drives PARAMS too; a method's stacks run back to back */
static const enum gc_axis order[] = { GC_AX_BANDWIDTH, GC_AX_UPLINK, GC_AX_SLOW, GC_AX_LATENCY, GC_AX_WORLD,
				      GC_AX_BACKEND, GC_AX_MODEL, GC_AX_BATCH, GC_AX_SCALE,
				      GC_AX_METHOD, GC_AX_STACK };
#define NORDER (sizeof(order) / sizeof(order[0]))

struct dim {
	unsigned mask;    /* the axes this dimension advances */
	size_t len;
};

static size_t make_dims(const struct gc_spec *s, struct dim *dims)
{
	unsigned covered = 0;
	size_t nd = 0;

	for (size_t i = 0; i < NORDER; i++) {
		unsigned bit = 1u << order[i], mask = bit;
		if (covered & bit)
			continue;
		for (size_t z = 0; z < s->n_zip; z++)
			if (s->zip[z] & bit)
				mask = s->zip[z];
		dims[nd].mask = mask;
		dims[nd].len = gc_spec_axis_len(s, order[i]);
		covered |= mask;
		nd++;
	}
	return nd;
}

static void fill_point(const struct gc_spec *s, struct gc_point *p)
{
	char v[GC_AX__COUNT][256];

	p->model = s->models[p->ax[GC_AX_MODEL]];
	p->method = &s->methods[p->ax[GC_AX_METHOD]];
	p->bw_bps = gc_spec_bw_rate(s, s->bandwidth[p->ax[GC_AX_BANDWIDTH]]);
	p->trace = gc_spec_bw_trace(s, s->bandwidth[p->ax[GC_AX_BANDWIDTH]]);
	p->latency_s = s->latency[p->ax[GC_AX_LATENCY]];
	p->world_size = s->world_size[p->ax[GC_AX_WORLD]];
	p->batch = s->batch[p->ax[GC_AX_BATCH]];
	p->backend = s->backend[p->ax[GC_AX_BACKEND]];
	p->compute_scale = s->compute_scale[p->ax[GC_AX_SCALE]];
	p->stack = s->n_stacks ? &s->stacks[p->ax[GC_AX_STACK]] : NULL;
	p->uplink = s->n_uplink ? &s->uplink[p->ax[GC_AX_UPLINK]] : NULL;
	p->slow = s->n_slow ? &s->slow[p->ax[GC_AX_SLOW]] : NULL;
	for (int a = 0; a < GC_AX__COUNT; a++)
		gc_spec_axis_text(s, (enum gc_axis)a, p->ax[a], v[a], sizeof(v[a]));
	snprintf(p->key, sizeof(p->key), "workload=%s;model=%s;method=%s;params=%s;bw=%s;"
		 "lat=%s;world=%s;batch=%s;backend=%s;scale=%s;repeat=%d%s%s", s->workload,
		 v[GC_AX_MODEL], v[GC_AX_METHOD], v[GC_AX_PARAMS], v[GC_AX_BANDWIDTH],
		 v[GC_AX_LATENCY], v[GC_AX_WORLD], v[GC_AX_BATCH], v[GC_AX_BACKEND],
		 v[GC_AX_SCALE], p->repeat, *v[GC_AX_STACK] ? ";stack=" : "", v[GC_AX_STACK]);
	if (p->slow && p->slow->n) {   /* only when used: keys of specs without slow: and
				        * of the uniform point, {}, stay as they were */
		char slow[GC_SPEC_MAX_SLOW * 80];
		size_t len = strlen(p->key);
		spec_slow_text(p->slow, slow, sizeof(slow));
		snprintf(p->key + len, sizeof(p->key) - len, ";slow=%s", slow);
	}
	if (s->n_uplink) {   /* likewise */
		size_t len = strlen(p->key);
		snprintf(p->key + len, sizeof(p->key) - len, ";uplink=%s", v[GC_AX_UPLINK]);
	}
	if (s->bg.flows) {   /* likewise: ;bg= only for a spec with background flows */
		char bg[600];
		size_t len = strlen(p->key);
		spec_bg_text(s, bg, sizeof(bg));
		snprintf(p->key + len, sizeof(p->key) - len, ";bg=%s", bg);
	}
}

static int excluded(const struct gc_spec *s, const struct gc_point *p)
{
	char v[300];

	for (size_t i = 0; i < s->n_exclude; i++) {
		const struct gc_spec_exclude *x = &s->exclude[i];
		int all = 1, any_axis = 0;

		for (int a = 0; a < GC_AX__COUNT && all; a++) {
			int hit = 0;
			if (!x->n[a])
				continue;
			any_axis = 1;
			gc_spec_axis_text(s, (enum gc_axis)a, p->ax[a], v, sizeof(v));
			for (size_t k = 0; k < x->n[a] && !hit; k++)
				hit = !strcmp(x->vals[a][k], v);
			all = hit;
		}
		if (all && any_axis)
			return 1;
	}
	return 0;
}

/* set p->ax from the odometer position idx over dims */
static void place(const struct gc_spec *s, const struct dim *dims, size_t nd,
		  const size_t *idx, struct gc_point *p)
{
	(void)s;
	for (size_t d = 0; d < nd; d++)
		for (int a = 0; a < GC_AX__COUNT; a++)
			if (dims[d].mask & (1u << a))
				p->ax[a] = idx[d];
	p->ax[GC_AX_PARAMS] = p->ax[GC_AX_METHOD];
}

static gc_rc product_size(const struct gc_spec *s, const struct dim *dims, size_t nd,
			  size_t *total, gc_err *e)
{
	size_t t = (size_t)s->repeats;

	for (size_t d = 0; d < nd; d++) {
		if (dims[d].len == 0) {
			*total = 0;
			return GC_OK;
		}
		if (t > GC_SPEC_MAX_POINTS / dims[d].len)
			return gc_fail(e, GC_E_INVAL, "the sweep '%s' has more than %d points; split "
				       "it or use exclude/zip", s->name, GC_SPEC_MAX_POINTS);
		t *= dims[d].len;
	}
	*total = t;
	return GC_OK;
}

gc_rc gc_sweep_expand(const struct gc_spec *s, struct gc_sweep *out, gc_err *e)
{
	struct dim dims[NORDER];
	size_t nd = make_dims(s, dims), total = 0, idx[NORDER] = { 0 };
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	rc = product_size(s, dims, nd, &total, e);
	if (rc)
		return rc;
	out->pts = calloc(total ? total : 1, sizeof(*out->pts));
	if (!out->pts)
		return gc_fail(e, GC_E_NOMEM, "out of memory expanding %zu points", total);
	out->n_product = total;
	for (size_t t = 0; t < total; t++) {
		struct gc_point *p = &out->pts[out->n];
		size_t per_repeat = total / (size_t)s->repeats;

		memset(p, 0, sizeof(*p));
		p->index = t;
		p->repeat = (int)(t / per_repeat);
		place(s, dims, nd, idx, p);
		fill_point(s, p);
		if (excluded(s, p))
			out->n_excluded++;
		else
			out->n++;
		for (size_t d = nd; d-- > 0;) {
			if (++idx[d] < dims[d].len)
				break;
			idx[d] = 0;
		}
	}
	return GC_OK;
}

void gc_sweep_release(struct gc_sweep *sw)
{
	if (!sw)
		return;
	free(sw->pts);
	memset(sw, 0, sizeof(*sw));
}

size_t gc_sweep_resume(struct gc_sweep *sw, const struct gc_strlist *done)
{
	size_t k = 0, removed;

	for (size_t i = 0; i < sw->n; i++)
		if (!gc_strlist_has(done, sw->pts[i].key))
			sw->pts[k++] = sw->pts[i];
	removed = sw->n - k;
	sw->n = k;
	sw->n_done += removed;
	return removed;
}

void gc_point_to_run(const struct gc_spec *s, const struct gc_point *p, int64_t sweep_id,
		     int nodes, int64_t env_id, struct gc_db_run *r)
{
	memset(r, 0, sizeof(*r));
	r->sweep_id = sweep_id;
	r->point_key = p->key;
	r->workload = s->ddp ? "ddp" : s->workload;   /* runs.workload: ddp's own name */
	r->model = p->model;
	r->method = p->method->name;
	r->params = p->method->params_text;
	r->world_size = p->world_size;
	r->nodes = nodes > 0 ? nodes : p->world_size;
	r->batch = p->batch;
	r->bw_cap_bps = p->bw_bps;
	r->latency_s = p->latency_s;
	r->backend = p->backend;
	r->compute_scale = p->compute_scale;
	r->stack = p->stack ? p->stack->name : "";
	r->iterations = s->iterations;
	r->warmup = s->warmup;
	r->repeat = p->repeat;
	r->env_id = env_id;
}

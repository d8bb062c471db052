/* orchestrator/spec/spec_axes.c: the values of a spec's axes as canonical text (point keys,
 * exclude entries). */
#include "spec.h"
#include "spec_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"
#include "netem/rate.h"

size_t gc_spec_axis_len(const struct gc_spec *s, enum gc_axis a)
{
	const size_t n[GC_AX__COUNT] = { s->n_models, s->n_methods, s->n_methods,
					 s->n_bandwidth, s->n_latency, s->n_world_size,
					 s->n_batch, s->n_backend, s->n_compute_scale,
					 s->n_stacks ? s->n_stacks : 1,
					 s->n_uplink ? s->n_uplink : 1,
					 s->n_slow ? s->n_slow : 1 };
	return (unsigned)a < GC_AX__COUNT ? n[a] : 0;
}

void gc_spec_axis_text(const struct gc_spec *s, enum gc_axis a, size_t i, char *buf,
		       size_t n)
{
	switch (a) {
	case GC_AX_MODEL: gc_strlcpy(buf, s->models[i], n); break;
	case GC_AX_METHOD: gc_strlcpy(buf, s->methods[i].name, n); break;
	case GC_AX_PARAMS: gc_strlcpy(buf, s->methods[i].params_text, n); break;
	case GC_AX_BANDWIDTH:   /* a trace: trace:NAME@DIGEST in keys (only when used) */
		if (gc_spec_bw_trace(s, s->bandwidth[i]))
			snprintf(buf, n, "trace:%s@%s", gc_spec_bw_trace(s, s->bandwidth[i])->name,
				 gc_spec_bw_trace(s, s->bandwidth[i])->digest);
		else
			snprintf(buf, n, "%llu", (unsigned long long)s->bandwidth[i]);
		break;
	case GC_AX_LATENCY: spec_num(s->latency[i], buf, n); break;
	case GC_AX_WORLD: snprintf(buf, n, "%d", s->world_size[i]); break;
	case GC_AX_BATCH: snprintf(buf, n, "%d", s->batch[i]); break;
	case GC_AX_BACKEND: gc_strlcpy(buf, s->backend[i], n); break;
	case GC_AX_SCALE: spec_num(s->compute_scale[i], buf, n); break;
	case GC_AX_STACK: gc_strlcpy(buf, i < s->n_stacks ? s->stacks[i].name : "", n); break;
	case GC_AX_UPLINK: spec_uplink_text(i < s->n_uplink ? &s->uplink[i] : NULL, buf, n); break;
	case GC_AX_SLOW: spec_slow_text(i < s->n_slow ? &s->slow[i] : NULL, buf, n); break;
	default: gc_strlcpy(buf, "", n); break;
	}
}

/* the canonical text of a value written in an exclude entry; 0 on a bad value */
static int normalize(struct spec_ctx *c, enum gc_axis a, yaml_node_t *n, char *out,
		     size_t len)
{
	const char *t = gc_yaml_text(n);
	uint64_t bps;
	double d;
	int64_t i;
	gc_err e;
	char hint[160];

	switch (a) {
	case GC_AX_BANDWIDTH:
		if (gc_bw_parse(t, 0, &bps, &e)) {
			/* not e.msg: it quotes the text, and a spec's text is never quoted */
			gc_diag(c->d, n, "bandwidth is %s",
				gc_bw_hint(t, 0, hint, sizeof hint));
			return 0;
		}
		snprintf(out, len, "%llu", (unsigned long long)bps);
		return 1;
	case GC_AX_LATENCY:
		if (gc_latency_parse(t, &d, &e)) {
			gc_diag(c->d, n, "%s", e.msg);
			return 0;
		}
		spec_num(d, out, len);
		return 1;
	case GC_AX_WORLD: case GC_AX_BATCH:
		if (gc_parse_i64(t, &i)) {
			gc_diag(c->d, n, "not a whole number; write e.g. 4");
			return 0;
		}
		snprintf(out, len, "%lld", (long long)i);
		return 1;
	case GC_AX_SCALE:
		if (gc_parse_double(t, &d)) {
			gc_diag(c->d, n, "not a number; write e.g. 1");
			return 0;
		}
		spec_num(d, out, len);
		return 1;
	case GC_AX_UPLINK:
		return spec_uplink_normalize(c, n, out, len);
	default:
		gc_strlcpy(out, t, len);
		return 1;
	}
}

int spec_axis_value(struct spec_ctx *c, enum gc_axis a, yaml_node_t *n, char *out,
		    size_t len)
{
	char have[512], list[400];
	size_t o = 0, na = gc_spec_axis_len(c->s, a);

	if (!normalize(c, a, n, out, len))
		return 0;
	list[0] = 0;
	for (size_t i = 0; i < na; i++) {
		gc_spec_axis_text(c->s, a, i, have, sizeof(have));
		if (!strcmp(have, out))
			return 1;
		if (o < sizeof(list))
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s'%s'", i ? ", " : "",
					      have);
	}
	gc_diag(c->d, n, "exclude: this %s is not a value of the sweep, so it excludes "
		"nothing; use one of: %s", gc_axis_name(a), list);
	return 0;
}

const char *const *spec_axis_list(void)
{
	static const char *v[GC_AX__COUNT];
	for (int a = 0; a < GC_AX__COUNT; a++)
		v[a] = gc_axis_name((enum gc_axis)a);
	return v;
}

int spec_axis_of(const char *name)
{
	for (int a = 0; name && a < GC_AX__COUNT; a++)
		if (!strcmp(gc_axis_name((enum gc_axis)a), name))
			return a;
	return -1;
}

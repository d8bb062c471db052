/* orchestrator/spec/spec_trace.c: bandwidth: trace:FILE, a bandwidth trace read and
 * checked when the spec loads (netem/trace.h), so a run never starts with a trace that
 * does not parse. */
#include "spec.h"
#include "spec_internal.h"

#include <stdlib.h>
#include <string.h>

#include "strutil.h"
#include "netem/trace.h"

const struct gc_spec_trace *gc_spec_bw_trace(const struct gc_spec *s, uint64_t item)
{
	if (!(item & GC_SPEC_BW_TRACE) || (item & ~GC_SPEC_BW_TRACE) >= s->n_traces)
		return NULL;
	return &s->traces[item & ~GC_SPEC_BW_TRACE];
}

uint64_t gc_spec_bw_rate(const struct gc_spec *s, uint64_t item)
{
	const struct gc_spec_trace *t = gc_spec_bw_trace(s, item);
	return t ? t->mean_bps : item;
}

void gc_spec_trace_file(const struct gc_spec_trace *t, char *buf, size_t n)
{
	snprintf(buf, n, "trace-%s.txt", t->digest);
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, k;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			char *nb = cap >= GC_TRACE_MAX_BYTES ? NULL : realloc(buf, cap + 65536 + 1);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		k = fread(buf + n, 1, cap - n, f);
		n += k;
	} while (k > 0);
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

int spec_parse_trace(struct spec_ctx *c, yaml_node_t *n, const char *t, uint64_t *out)
{
	const char *slash = strrchr(c->d->file, '/'), *base = strrchr(t, '/');
	struct gc_spec *s = c->s;
	struct gc_spec_trace *x;
	struct gc_trace tr;
	char path[1200], digest[17];
	size_t len = 0;
	char *text;
	gc_err e;

	base = base ? base + 1 : t;
	if (!*t || !gc_is_safe_token(t) || !*base || strlen(base) >= sizeof(x->name)) {
		gc_diag(c->d, n, "bandwidth trace:FILE needs the path of a trace file (letters, "
			"digits and ._:@%%+=,/-), e.g. trace:traces/square.txt");
		return -1;
	}
	if (t[0] == '/' || !slash)
		snprintf(path, sizeof(path), "%s", t);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - c->d->file), c->d->file, t);
	if (gc_trace_load(path, &tr, &e)) {   /* e names FILE:LINE */
		gc_diag(c->d, n, "bandwidth trace: %s", e.msg);
		return -1;
	}
	if (!(text = read_all(path, &len))) {
		gc_trace_release(&tr);
		gc_diag(c->d, n, "bandwidth trace '%s' cannot be read again; check the file", t);
		return -1;
	}
	snprintf(digest, sizeof(digest), "%016llx", (unsigned long long)gc_fnv1a64(text, len));
	for (size_t i = 0; i < s->n_traces; i++)
		if (!strcmp(s->traces[i].digest, digest) && !strcmp(s->traces[i].name, base)) {
			gc_trace_release(&tr);
			free(text);
			*out = GC_SPEC_BW_TRACE | i;   /* the axis then reports it twice */
			return 0;
		}
	if (s->n_traces >= GC_SPEC_MAX_TRACES) {
		gc_trace_release(&tr);
		free(text);
		gc_diag(c->d, n, "more than %d bandwidth traces; split the sweep", GC_SPEC_MAX_TRACES);
		return -1;
	}
	x = &s->traces[s->n_traces];
	memset(x, 0, sizeof(*x));
	x->mean_bps = (uint64_t)(gc_trace_mean(&tr, 0, tr.period_us) + 0.5);
	x->period_us = tr.period_us;
	gc_trace_release(&tr);
	if (!(x->src = strdup(path))) {
		free(text);
		c->d->oom = 1;
		return -1;
	}
	x->text = text;
	x->len = len;
	gc_strlcpy(x->name, base, sizeof(x->name));
	gc_strlcpy(x->digest, digest, sizeof(x->digest));
	*out = GC_SPEC_BW_TRACE | s->n_traces++;
	return 0;
}

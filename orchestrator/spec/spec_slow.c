/* orchestrator/spec/spec_slow.c: slow: {HOST: FACTOR, ...}, a host's factor on the
 * sweep's cap (docs/spec.md, "Slow hosts"). */
#include "spec.h"
#include "spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"

/* A host name as an inventory writes it: 1-63 of [A-Za-z0-9._-], not starting '-'. */
static int host_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n >= 1 && n < 64 && s[0] != '-' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static void one_host(struct spec_ctx *c, yaml_node_t *k, yaml_node_t *v)
{
	struct gc_spec *s = c->s;
	const char *name = gc_yaml_text(k), *t = gc_yaml_text(v);
	double f;

	if (!host_name_ok(name)) {
		gc_diag(c->d, k, "slow: a host is named by its inventory name (1-63 of "
			"[A-Za-z0-9._-]), e.g. slow: {n3: 0.5}");
		return;
	}
	for (size_t i = 0; i < s->n_slow; i++)
		if (!strcmp(s->slow[i].host, name)) {
			gc_diag(c->d, k, "slow: host '%s' is given twice", name);
			return;
		}
	if (!t || gc_parse_double(t, &f) || !(f > 0 && f <= 1)) {
		gc_diag(c->d, v ? v : k, "slow: host '%s' needs a factor on the cap, more than 0 "
			"and at most 1 (0.5: half the cap; 0.875: one of eight NICs lost)", name);
		return;
	}
	for (size_t b = 0; b < s->n_bandwidth; b++)
		if (s->bandwidth[b] && (double)s->bandwidth[b] * f < (double)GC_BW_MIN) {
			gc_diag(c->d, v, "slow: host '%s' at %g of a %llu bit/s cap is under 1mbit, "
				"the smallest cap; raise the factor or the bandwidth", name, f,
				(unsigned long long)s->bandwidth[b]);
			return;
		}
	if (!(s->slow[s->n_slow].host = strdup(name)))
		return;
	s->slow[s->n_slow++].factor = f;
}

void spec_parse_slow(struct spec_ctx *c, yaml_node_t *v)
{
	size_t n = v->type == YAML_MAPPING_NODE ?
		   (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start) : 0;

	if (!n || n > GC_SPEC_MAX_SLOW) {
		gc_diag(c->d, v, "'slow' is %s; write a mapping of hosts to factors on the cap, "
			"e.g. slow: {n3: 0.5} (at most %d hosts)", n ? "too long" :
			v->type == YAML_MAPPING_NODE ? "empty" : gc_yaml_kind(v), GC_SPEC_MAX_SLOW);
		return;
	}
	for (size_t b = 0; b < c->s->n_bandwidth; b++)
		if (!c->s->bandwidth[b]) {
			gc_diag(c->d, v, "'slow' scales the cap, and bandwidth 'unlimited' has none; "
				"give every bandwidth a rate, or drop 'slow'");
			return;
		}
	if (!(c->s->slow = calloc(n, sizeof(*c->s->slow))))
		return;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++)
		one_host(c, yaml_document_get_node(c->doc, p->key),
			 yaml_document_get_node(c->doc, p->value));
}

void spec_slow_text(const struct gc_spec *s, char *buf, size_t n)
{
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < s->n_slow && at < n; i++) {
		char num[40];
		int w;

		spec_num(s->slow[i].factor, num, sizeof(num));
		w = snprintf(buf + at, n - at, "%s%s:%s", i ? "," : "", s->slow[i].host, num);
		if (w < 0)
			break;
		at += (size_t)w;
	}
}

double gc_spec_slow_factor(const struct gc_spec *s, const char *host)
{
	for (size_t i = 0; host && i < s->n_slow; i++)
		if (!strcmp(s->slow[i].host, host))
			return s->slow[i].factor;
	return 1.0;
}

uint64_t gc_spec_host_cap(const struct gc_spec *s, uint64_t cap_bps, const char *host)
{
	double f = gc_spec_slow_factor(s, host);

	return cap_bps && f < 1.0 ? (uint64_t)((double)cap_bps * f + 0.5) : cap_bps;
}

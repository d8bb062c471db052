/* orchestrator/spec/spec_slow.c: slow: {HOST: FACTOR, ...}, a host's factor on the
 * sweep's cap, or slow: [{}, {HOST: FACTOR}, ...], an axis of such mappings ({}: the
 * uniform point) (docs/spec.md, "Slow hosts"). */
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

static void one_host(struct spec_ctx *c, struct gc_spec_slowset *set, yaml_node_t *k,
		     yaml_node_t *v)
{
	struct gc_spec *s = c->s;
	const char *name = gc_yaml_text(k), *t = gc_yaml_text(v);
	double f;

	if (!host_name_ok(name)) {
		gc_diag(c->d, k, "slow: a host is named by its inventory name (1-63 of "
			"[A-Za-z0-9._-]), e.g. slow: {n3: 0.5}");
		return;
	}
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->host[i].host, name)) {
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
	if (!(set->host[set->n].host = strdup(name))) {
		c->d->oom = 1;
		return;
	}
	set->host[set->n++].factor = f;
}

static size_t map_len(const yaml_node_t *v)
{
	return v->type == YAML_MAPPING_NODE ?
	       (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start) : 0;
}

/* one mapping of hosts to factors into set ({} is allowed in a list only) */
static void one_set(struct spec_ctx *c, struct gc_spec_slowset *set, yaml_node_t *v,
		    int in_list)
{
	size_t n = map_len(v);

	if ((!n && !in_list) || n > GC_SPEC_MAX_SLOW || v->type != YAML_MAPPING_NODE) {
		gc_diag(c->d, v, "'slow'%s is %s; write a mapping of hosts to factors on the cap, "
			"e.g. slow: {n3: 0.5} (at most %d hosts), or a list of them, e.g. "
			"slow: [{}, {n3: 0.5}]", in_list ? ": an item" : "", n ? "too long" :
			v->type == YAML_MAPPING_NODE ? "empty" : gc_yaml_kind(v), GC_SPEC_MAX_SLOW);
		return;
	}
	if (n && !(set->host = calloc(n, sizeof(*set->host)))) {
		c->d->oom = 1;
		return;
	}
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++)
		one_host(c, set, yaml_document_get_node(c->doc, p->key),
			 yaml_document_get_node(c->doc, p->value));
}

/* a bandwidth 'unlimited' has no cap to scale: diagnosed once, at v */
static int caps_ok(struct spec_ctx *c, yaml_node_t *v)
{
	for (size_t b = 0; b < c->s->n_bandwidth; b++)
		if (!c->s->bandwidth[b]) {
			gc_diag(c->d, v, "'slow' scales the cap, and bandwidth 'unlimited' has none; "
				"give every bandwidth a rate, or drop 'slow'");
			return 0;
		}
	return 1;
}

/* the same value twice in the list would give two points one key */
static void check_twice(struct spec_ctx *c, yaml_node_t *v)
{
	char a[GC_SPEC_MAX_SLOW * 80], b[GC_SPEC_MAX_SLOW * 80];

	for (size_t i = 0; i < c->s->n_slow; i++)
		for (size_t j = 0; j < i; j++) {
			spec_slow_text(&c->s->slow[i], a, sizeof(a));
			spec_slow_text(&c->s->slow[j], b, sizeof(b));
			if (!strcmp(a, b)) {
				gc_diag(c->d, gc_yaml_seq_at(c->doc, v, i), "slow: this value is given "
					"twice in the list ('%s'); give each once", *a ? a : "{}");
				return;
			}
		}
}

void spec_parse_slow(struct spec_ctx *c, yaml_node_t *v)
{
	size_t n = v->type == YAML_SEQUENCE_NODE ? gc_yaml_seq_len(v) : 1;

	if (v->type == YAML_SEQUENCE_NODE && (!n || n > GC_SPEC_MAX_SLOW_SETS)) {
		gc_diag(c->d, v, "'slow' is %s; give 1 to %d mappings, e.g. slow: [{}, {n3: 0.5}]",
			n ? "too long a list" : "an empty list", GC_SPEC_MAX_SLOW_SETS);
		return;
	}
	if (!(c->s->slow = calloc(n, sizeof(*c->s->slow)))) {
		c->d->oom = 1;
		return;
	}
	c->s->n_slow = n;
	for (size_t i = 0; i < n; i++)
		one_set(c, &c->s->slow[i], v->type == YAML_SEQUENCE_NODE ?
			gc_yaml_seq_at(c->doc, v, i) : v, v->type == YAML_SEQUENCE_NODE);
	if (gc_spec_has_slow(c->s))
		caps_ok(c, v);
	if (v->type == YAML_SEQUENCE_NODE)
		check_twice(c, v);
}

int gc_spec_has_slow(const struct gc_spec *s)
{
	for (size_t i = 0; i < s->n_slow; i++)
		if (s->slow[i].n)
			return 1;
	return 0;
}

void spec_slow_text(const struct gc_spec_slowset *sl, char *buf, size_t n)
{
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; sl && i < sl->n && at < n; i++) {
		char num[40];
		int w;

		spec_num(sl->host[i].factor, num, sizeof(num));
		w = snprintf(buf + at, n - at, "%s%s:%s", i ? "," : "", sl->host[i].host, num);
		if (w < 0)
			break;
		at += (size_t)w;
	}
}

double gc_spec_slow_factor(const struct gc_spec_slowset *sl, const char *host)
{
	for (size_t i = 0; sl && host && i < sl->n; i++)
		if (!strcmp(sl->host[i].host, host))
			return sl->host[i].factor;
	return 1.0;
}

uint64_t gc_spec_host_cap(const struct gc_spec_slowset *sl, uint64_t cap_bps, const char *host)
{
	double f = gc_spec_slow_factor(sl, host);

	return cap_bps && f < 1.0 ? (uint64_t)((double)cap_bps * f + 0.5) : cap_bps;
}

/* orchestrator/spec_methods.c: the spec's methods (with parameter lists), exclude,
 * zip and notify sections. */
#include "spec.h"
#include "spec_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"
#include "netem/rate.h"

#define MAX_PARAM_KEYS 8
#define MAX_VARIANTS 4096

/* the parameters of one methods entry: keys and their candidate values */
struct pset {
	const char *key[MAX_PARAM_KEYS];
	yaml_node_t **vals[MAX_PARAM_KEYS];
	size_t nval[MAX_PARAM_KEYS];
	size_t n;
};

static void pset_release(struct pset *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->vals[i]);
}

static const char *method_names[GC_M__COUNT];

static void unknown_method(struct spec_ctx *c, yaml_node_t *n, const char *name)
{
	const char *hint;

	for (int i = 0; i < GC_M__COUNT; i++)
		method_names[i] = gc_method_name((gc_method)i);
	hint = gc_did_you_mean(name, method_names, GC_M__COUNT);
	if (hint)
		gc_diag(c->d, n, "unknown method '%s'; did you mean '%s'?", name, hint);
	else
		gc_diag(c->d, n, "unknown method '%s'; use syncsgd, fp16, signsgd, topk, mstopk "
			"or powersgd", name);
}

/* Collect and check each parameter value on its own; 0 if all are valid. */
static int collect_params(struct spec_ctx *c, gc_method m, yaml_node_t *pv, struct pset *ps)
{
	int bad = 0;

	for (yaml_node_pair_t *p = pv->data.mapping.pairs.start; p < pv->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = yaml_document_get_node(c->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(c->doc, p->value);
		const char *k = gc_yaml_text(kn);

		if (!k || ps->n == MAX_PARAM_KEYS) {
			gc_diag(c->d, kn, "method parameters are name: value pairs (at most %d)",
				MAX_PARAM_KEYS);
			bad = 1;
			continue;
		}
		ps->key[ps->n] = k;
		ps->nval[ps->n] = spec_items(c, vn, k, &ps->vals[ps->n]);
		bad |= ps->nval[ps->n] == 0;
		for (size_t i = 0; i < ps->nval[ps->n]; i++) {
			gc_params gp;
			gc_err e;
			gc_params_default(&gp, m);
			if (gc_params_set(&gp, k, gc_yaml_text(ps->vals[ps->n][i]), &e)) {
				gc_diag(c->d, ps->vals[ps->n][i], "%s", e.msg);
				bad = 1;
			}
		}
		ps->n++;
	}
	return bad;
}

static int push_variant(struct spec_ctx *c, yaml_node_t *at, const gc_params *gp)
{
	struct gc_spec *s = c->s;
	struct gc_spec_method *v, *nv;

	nv = realloc(s->methods, (s->n_methods + 1) * sizeof(*nv));
	if (!nv) {
		c->d->oom = 1;
		return -1;
	}
	s->methods = nv;
	v = &nv[s->n_methods];
	memset(v, 0, sizeof(*v));
	v->params = *gp;
	gc_strlcpy(v->name, gc_method_name(gp->method), sizeof(v->name));
	gc_params_format(gp, v->params_text, sizeof(v->params_text));
	if (v->params_text[0])
		snprintf(v->label, sizeof(v->label), "%s(%s)", v->name, v->params_text);
	else
		snprintf(v->label, sizeof(v->label), "%s", v->name);
	for (size_t i = 0; i < s->n_methods; i++)
		if (!strcmp(s->methods[i].label, v->label)) {
			gc_diag(c->d, at, "method %s is listed twice; remove one", v->label);
			return -1;
		}
	s->n_methods++;
	return 0;
}

/* Every combination of the parameter values (an odometer over the keys). */
static void expand_params(struct spec_ctx *c, yaml_node_t *at, gc_method m, struct pset *ps)
{
	size_t idx[MAX_PARAM_KEYS] = { 0 }, total = 1;

	for (size_t k = 0; k < ps->n; k++)
		total *= ps->nval[k];
	if (total > MAX_VARIANTS) {
		gc_diag(c->d, at, "these parameter lists make %zu variants; keep it under %d",
			total, MAX_VARIANTS);
		return;
	}
	for (size_t t = 0; t < total; t++) {
		gc_params gp;
		gc_err e;

		gc_params_default(&gp, m);
		for (size_t k = 0; k < ps->n; k++)
			gc_params_set(&gp, ps->key[k], gc_yaml_text(ps->vals[k][idx[k]]), NULL);
		if (gc_params_check(&gp, &e))
			gc_diag(c->d, at, "%s", e.msg);
		else if (push_variant(c, at, &gp))
			return;
		for (size_t k = 0; k < ps->n && ++idx[k] == ps->nval[k]; k++)
			idx[k] = 0;
	}
}

static void parse_method_item(struct spec_ctx *c, yaml_node_t *it)
{
	yaml_node_t *kn = it, *pv = NULL;
	struct pset ps = { .n = 0 };
	const char *name = gc_yaml_text(it);
	gc_method m;

	if (it->type == YAML_MAPPING_NODE && it->data.mapping.pairs.top -
	    it->data.mapping.pairs.start == 1) {
		kn = yaml_document_get_node(c->doc, it->data.mapping.pairs.start->key);
		pv = yaml_document_get_node(c->doc, it->data.mapping.pairs.start->value);
		name = gc_yaml_text(kn);
	}
	if (!name) {
		gc_diag(c->d, it, "a method is a name (signsgd) or a name with parameters "
			"(powersgd: {rank: [4, 8]}), not %s", gc_yaml_kind(it));
		return;
	}
	if (gc_method_parse(name, &m)) {
		unknown_method(c, kn, name);
		return;
	}
	if (pv && pv->type == YAML_SCALAR_NODE && (!*gc_yaml_text(pv) ||
	    !strcmp(gc_yaml_text(pv), "~") || !strcmp(gc_yaml_text(pv), "null")))
		pv = NULL;
	if (pv && pv->type != YAML_MAPPING_NODE) {
		gc_diag(c->d, pv, "the parameters of '%s' are %s; write a mapping, e.g. "
			"%s: {ratio: 0.01}", name, gc_yaml_kind(pv), name);
		return;
	}
	if (!pv || !collect_params(c, m, pv, &ps))
		expand_params(c, kn, m, &ps);
	pset_release(&ps);
}

void spec_parse_methods(struct spec_ctx *c, yaml_node_t *v)
{
	size_t n = v->type == YAML_SEQUENCE_NODE ? gc_yaml_seq_len(v) : 1;

	if (v->type == YAML_SEQUENCE_NODE && n == 0) {
		gc_diag(c->d, v, "'methods' is an empty list; give at least one method");
		return;
	}
	for (size_t i = 0; i < n; i++)
		parse_method_item(c, v->type == YAML_SEQUENCE_NODE ? gc_yaml_seq_at(c->doc, v, i)
								    : v);
}

/* --- axis values as canonical text -------------------------------------------------- */

size_t gc_spec_axis_len(const struct gc_spec *s, enum gc_axis a)
{
	const size_t n[GC_AX__COUNT] = { s->n_models, s->n_methods, s->n_methods,
					 s->n_bandwidth, s->n_latency, s->n_world_size,
					 s->n_batch, s->n_backend, s->n_compute_scale };
	return (unsigned)a < GC_AX__COUNT ? n[a] : 0;
}

void gc_spec_axis_text(const struct gc_spec *s, enum gc_axis a, size_t i, char *buf,
		       size_t n)
{
	switch (a) {
	case GC_AX_MODEL: gc_strlcpy(buf, s->models[i], n); break;
	case GC_AX_METHOD: gc_strlcpy(buf, s->methods[i].name, n); break;
	case GC_AX_PARAMS: gc_strlcpy(buf, s->methods[i].params_text, n); break;
	case GC_AX_BANDWIDTH: snprintf(buf, n, "%llu", (unsigned long long)s->bandwidth[i]); break;
	case GC_AX_LATENCY: spec_num(s->latency[i], buf, n); break;
	case GC_AX_WORLD: snprintf(buf, n, "%d", s->world_size[i]); break;
	case GC_AX_BATCH: snprintf(buf, n, "%d", s->batch[i]); break;
	case GC_AX_BACKEND: gc_strlcpy(buf, s->backend[i], n); break;
	case GC_AX_SCALE: spec_num(s->compute_scale[i], buf, n); break;
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

	switch (a) {
	case GC_AX_BANDWIDTH:
		if (!strcmp(t, "unlimited"))
			bps = 0;
		else if (gc_rate_parse(t, &bps, &e)) {
			gc_diag(c->d, n, "%s", e.msg);
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
			gc_diag(c->d, n, "'%s' is not a whole number; write e.g. 4", t);
			return 0;
		}
		snprintf(out, len, "%lld", (long long)i);
		return 1;
	case GC_AX_SCALE:
		if (gc_parse_double(t, &d)) {
			gc_diag(c->d, n, "'%s' is not a number; write e.g. 1", t);
			return 0;
		}
		spec_num(d, out, len);
		return 1;
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
	gc_diag(c->d, n, "exclude: %s '%s' is not a value of the sweep, so it excludes "
		"nothing; use one of: %s", gc_axis_name(a), gc_yaml_text(n), list);
	return 0;
}

/* --- exclude ----------------------------------------------------------------------- */

static const char *const *axis_list(void)
{
	static const char *v[GC_AX__COUNT];
	for (int a = 0; a < GC_AX__COUNT; a++)
		v[a] = gc_axis_name((enum gc_axis)a);
	return v;
}

static int axis_of(const char *name)   /* NULL (a key that is not a scalar): -1 */
{
	for (int a = 0; name && a < GC_AX__COUNT; a++)
		if (!strcmp(gc_axis_name((enum gc_axis)a), name))
			return a;
	return -1;
}

static void exclude_pair(struct spec_ctx *c, struct gc_spec_exclude *x, yaml_node_pair_t *p)
{
	int a = axis_of(gc_yaml_text(yaml_document_get_node(c->doc, p->key)));
	yaml_node_t *vn = yaml_document_get_node(c->doc, p->value), **items;
	size_t k;
	char buf[512];

	if (a < 0 || x->vals[a])
		return;   /* unknown or duplicate key: diagnosed by gc_yaml_check_keys */
	k = spec_items(c, vn, gc_axis_name((enum gc_axis)a), &items);
	x->vals[a] = calloc(k ? k : 1, sizeof(char *));
	if (!x->vals[a]) {
		c->d->oom = 1;
		free(items);
		return;
	}
	for (size_t i = 0; i < k; i++)
		if (spec_axis_value(c, (enum gc_axis)a, items[i], buf, sizeof(buf)) &&
		    (x->vals[a][x->n[a]] = strdup(buf)))
			x->n[a]++;
	free(items);
}

void spec_parse_exclude(struct spec_ctx *c, yaml_node_t *v)
{
	size_t n = gc_yaml_seq_len(v);

	if (v->type != YAML_SEQUENCE_NODE) {
		gc_diag(c->d, v, "'exclude' is %s; write a list of mappings, e.g. exclude: "
			"[{method: powersgd, bandwidth: 10gbit}]", gc_yaml_kind(v));
		return;
	}
	c->s->exclude = calloc(n ? n : 1, sizeof(*c->s->exclude));
	if (!c->s->exclude) {
		c->d->oom = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *it = gc_yaml_seq_at(c->doc, v, i);
		struct gc_spec_exclude *x = &c->s->exclude[c->s->n_exclude++];

		if (it->type != YAML_MAPPING_NODE || it->data.mapping.pairs.top ==
		    it->data.mapping.pairs.start) {
			gc_diag(c->d, it, "an exclude entry is %s; write a mapping of point "
				"fields, e.g. {method: powersgd, bandwidth: 10gbit}",
				it->type == YAML_MAPPING_NODE ? "empty" : gc_yaml_kind(it));
			continue;
		}
		gc_yaml_check_keys(c->doc, it, axis_list(), GC_AX__COUNT, "an exclude entry", c->d);
		for (yaml_node_pair_t *p = it->data.mapping.pairs.start;
		     p < it->data.mapping.pairs.top; p++)
			exclude_pair(c, x, p);
	}
}

/* --- zip --------------------------------------------------------------------------- */

static void zip_group(struct spec_ctx *c, yaml_node_t *g, unsigned *used)
{
	unsigned mask = 0;
	size_t len = 0, n = gc_yaml_seq_len(g);
	const char *first = NULL;

	if (g->type != YAML_SEQUENCE_NODE || n < 2) {
		gc_diag(c->d, g, "a zip group is a list of at least two axes, e.g. [bandwidth, "
			"batch]");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *an = gc_yaml_seq_at(c->doc, g, i);
		const char *t = gc_yaml_text(an);
		int a = t ? axis_of(t) : -1;
		size_t al;

		if (a < 0 || a == GC_AX_METHOD || a == GC_AX_PARAMS) {
			const char *hint = t ? gc_did_you_mean(t, axis_list(), GC_AX__COUNT) : NULL;
			gc_diag(c->d, an, "zip: '%s' is not an axis that can be zipped; use model, "
				"bandwidth, latency, world_size, batch, backend or compute_scale%s%s%s",
				t ? t : gc_yaml_kind(an), hint ? " (did you mean '" : "",
				hint ? hint : "", hint ? "'?)" : "");
			continue;
		}
		if ((*used | mask) & (1u << a)) {
			gc_diag(c->d, an, "zip: axis '%s' is zipped twice; put it in one group", t);
			continue;
		}
		al = gc_spec_axis_len(c->s, (enum gc_axis)a);
		if (!first) {
			first = t;
			len = al;
		} else if (al != len) {
			gc_diag(c->d, an, "zip: '%s' has %zu values but '%s' has %zu; zipped axes "
				"need the same number of values", t, al, first, len);
		}
		mask |= 1u << a;
	}
	*used |= mask;
	if (c->s->n_zip < sizeof(c->s->zip) / sizeof(c->s->zip[0]))
		c->s->zip[c->s->n_zip++] = mask;
	else
		gc_diag(c->d, g, "zip: too many groups; at most 8");
}

void spec_parse_zip(struct spec_ctx *c, yaml_node_t *v)
{
	unsigned used = 0;

	if (v->type != YAML_SEQUENCE_NODE || !gc_yaml_seq_len(v)) {
		gc_diag(c->d, v, "'zip' is %s; write a list of groups, e.g. zip: [[bandwidth, "
			"batch]]", v->type == YAML_SEQUENCE_NODE ? "empty" : gc_yaml_kind(v));
		return;
	}
	for (size_t i = 0; i < gc_yaml_seq_len(v); i++)
		zip_group(c, gc_yaml_seq_at(c->doc, v, i), &used);
}

/* --- notify ------------------------------------------------------------------------ */

static int env_name_ok(const char *s)
{
	if (!s || !(isupper((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isupper((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

static void notify_item(struct spec_ctx *c, yaml_node_t *it)
{
	static const char *const keys[] = { "type", "url_env" };
	yaml_node_t *tn = gc_yaml_get(c->doc, it, "type"), *un = gc_yaml_get(c->doc, it, "url_env");
	gc_notify_target *t = &c->s->notify[c->s->n_notify];
	gc_err e;

	if (it->type != YAML_MAPPING_NODE) {
		gc_diag(c->d, it, "a notify entry is %s; write {type: webhook, url_env: NAME}",
			gc_yaml_kind(it));
		return;
	}
	if (gc_yaml_get(c->doc, it, "url")) {
		gc_diag(c->d, gc_yaml_get(c->doc, it, "url"), "notify: a URL is a secret and is "
			"never written in a spec; write url_env: GCBENCH_WEBHOOK_URL and export "
			"the URL in that variable");
		return;
	}
	gc_yaml_check_keys(c->doc, it, keys, 2, "a notify entry", c->d);
	if (!gc_yaml_text(tn) || gc_notify_type_parse(gc_yaml_text(tn), &t->type, &e)) {
		gc_diag(c->d, tn ? tn : it, "notify: type %s%s%s is unknown; use webhook or slack",
			tn ? "'" : "", tn && gc_yaml_text(tn) ? gc_yaml_text(tn) : "(missing)",
			tn ? "'" : "");
		return;
	}
	if (!env_name_ok(gc_yaml_text(un))) {
		gc_diag(c->d, un ? un : it, "notify: url_env must name an environment variable "
			"(A-Z, 0-9, _), e.g. url_env: GCBENCH_WEBHOOK_URL");
		return;
	}
	if ((t->url_env = strdup(gc_yaml_text(un))))
		c->s->n_notify++;
}

void spec_parse_notify(struct spec_ctx *c, yaml_node_t *v)
{
	size_t n = gc_yaml_seq_len(v);

	if (v->type != YAML_SEQUENCE_NODE) {
		gc_diag(c->d, v, "'notify' is %s; write a list, e.g. notify: [{type: webhook, "
			"url_env: GCBENCH_WEBHOOK_URL}]", gc_yaml_kind(v));
		return;
	}
	c->s->notify = calloc(n ? n : 1, sizeof(*c->s->notify));
	if (!c->s->notify) {
		c->d->oom = 1;
		return;
	}
	for (size_t i = 0; i < n; i++)
		notify_item(c, gc_yaml_seq_at(c->doc, v, i));
}

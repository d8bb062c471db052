/* orchestrator/spec/spec_methods.c: the spec's methods section (each with its parameter
 * lists, expanded into variants). */
#include "spec.h"
#include "spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"

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

/* Why gc_params_set refused key: value, in words that name the parameter only when it
 * is one of ours and never quote the value (its position says where it is). */
static void param_diag(struct spec_ctx *c, yaml_node_t *vn,
		       const gc_params *p, const char *key)
{
	const gc_param_def *d = gc_param_lookup(key);
	const char *v = gc_yaml_text(vn);
	char keys[128];
	gc_params tmp = *p;

	gc_method_keys(p->method, keys, sizeof(keys));
	if (!d || !gc_method_takes(p->method, d)) {
		gc_diag(c->d, vn, "method '%s' does not take %s%s%s (its parameters: %s)",
			gc_method_name(p->method), d ? "parameter '" : "this parameter",
			d ? d->key : "", d ? "'" : "", keys[0] ? keys : "none");
		return;
	}
	if (v && gc_param_put(&tmp, d, v) == GC_PF_RANGE)
		gc_diag(c->d, vn, "parameter '%s': %s is out of range; use %s", d->key, v, d->range);
	else
		gc_diag(c->d, vn, "parameter '%s' is not %s; use %s", d->key,
			d->type == GC_PT_U64 ? "an unsigned integer" : d->type == GC_PT_DOUBLE ?
			"a number" : "an integer", d->range);
}

static void unknown_method(struct spec_ctx *c, yaml_node_t *n, const char *name)
{
	const char *hint;

	for (int i = 0; i < GC_M__COUNT; i++)
		method_names[i] = gc_method_name((gc_method)i);
	hint = gc_did_you_mean(name, method_names, GC_M__COUNT);
	if (hint)
		gc_diag(c->d, n, "unknown method; did you mean '%s'?", hint);
	else {
		char all[512];
		gc_method_names(all, sizeof(all), ", ");
		gc_diag(c->d, n, "unknown method; use one of %s", all);
	}
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
				param_diag(c, ps->vals[ps->n][i], &gp, k);
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

const char *spec_method_item(struct spec_ctx *c, yaml_node_t *it, const char *what,
			     yaml_node_t **kn, yaml_node_t **pv)
{
	const char *name = gc_yaml_text(it);

	*kn = it;
	*pv = NULL;
	if (it->type == YAML_MAPPING_NODE && it->data.mapping.pairs.top -
	    it->data.mapping.pairs.start == 1) {
		*kn = yaml_document_get_node(c->doc, it->data.mapping.pairs.start->key);
		*pv = yaml_document_get_node(c->doc, it->data.mapping.pairs.start->value);
		name = gc_yaml_text(*kn);
	}
	if (!name) {
		gc_diag(c->d, it, "a method is a %s (signsgd) or a %s with parameters "
			"(powersgd: {rank: [4, 8]}), not %s", what, what, gc_yaml_kind(it));
		return NULL;
	}
	if (*pv && (*pv)->type == YAML_SCALAR_NODE && (!*gc_yaml_text(*pv) ||
	    !strcmp(gc_yaml_text(*pv), "~") || !strcmp(gc_yaml_text(*pv), "null")))
		*pv = NULL;
	if (*pv && (*pv)->type != YAML_MAPPING_NODE) {
		gc_diag(c->d, *pv, "the parameters of '%s' are %s; write a mapping, e.g. "
			"%s: {rank: 4}", name, gc_yaml_kind(*pv), name);
		return NULL;
	}
	return name;
}

static void parse_method_item(struct spec_ctx *c, yaml_node_t *it)
{
	yaml_node_t *kn, *pv;
	struct pset ps = { .n = 0 };
	const char *name = spec_method_item(c, it, "name", &kn, &pv);
	gc_method m;

	if (!name)
		return;
	if (gc_method_parse(name, &m)) {
		unknown_method(c, kn, name);
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
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *it = v->type == YAML_SEQUENCE_NODE ? gc_yaml_seq_at(c->doc, v, i) : v;
		if (c->s->workload && !strcmp(c->s->workload, "command"))
			spec_command_method(c, it);   /* free labels (spec_command.c) */
		else
			parse_method_item(c, it);
	}
}

/* orchestrator/spec/spec_exclude.c: the spec's exclude section (points left out of the
 * cartesian product). */
#include "spec.h"
#include "spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"

static void exclude_pair(struct spec_ctx *c, struct gc_spec_exclude *x, yaml_node_pair_t *p)
{
	int a = spec_axis_of(gc_yaml_text(yaml_document_get_node(c->doc, p->key)));
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
		gc_yaml_check_keys(c->doc, it, spec_axis_list(), GC_AX__COUNT, "an exclude entry", c->d);
		for (yaml_node_pair_t *p = it->data.mapping.pairs.start;
		     p < it->data.mapping.pairs.top; p++)
			exclude_pair(c, x, p);
	}
}

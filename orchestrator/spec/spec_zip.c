/* orchestrator/spec/spec_zip.c: the spec's zip section (axes that vary together). */
#include "spec.h"
#include "spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"

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
		int a = t ? spec_axis_of(t) : -1;
		size_t al;

		if (a < 0 || a == GC_AX_METHOD || a == GC_AX_PARAMS) {
			const char *hint = t && a < 0 ? gc_did_you_mean(t, spec_axis_list(), GC_AX__COUNT) : NULL;
			gc_diag(c->d, an, "zip: %s is not an axis that can be zipped; use model, "
				"bandwidth, latency, world_size, batch, backend or compute_scale%s%s%s",
				t && a >= 0 ? gc_axis_name((enum gc_axis)a) : t ? "this" : gc_yaml_kind(an),
				hint ? " (did you mean '" : "",
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

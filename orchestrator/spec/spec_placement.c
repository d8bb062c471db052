/* orchestrator/spec/spec_placement.c: ranks_per_node and allow_single_node (docs/spec.md,
 * Placement). */
#include "spec.h"
#include "spec_internal.h"

#include <string.h>

#include "strutil.h"

#define GC_SPEC_MAX_RPN 4096

static void parse_rpn(struct spec_ctx *c)
{
	yaml_node_t *n = gc_yaml_get(c->doc, c->root, "ranks_per_node");
	const char *t = gc_yaml_text(n);
	int64_t v;

	c->s->ranks_per_node = 0;
	if (!n)
		return;
	if (!t) {
		gc_diag(c->d, n, "ranks_per_node is %s; write one whole number (e.g. 2) or auto",
			gc_yaml_kind(n));
		return;
	}
	if (!strcmp(t, "auto"))
		return;
	if (gc_parse_i64(t, &v) || v < 1 || v > GC_SPEC_MAX_RPN) {
		gc_diag(c->d, n, "ranks_per_node is not a whole number in 1..%d or auto; write "
			"e.g. ranks_per_node: 2", GC_SPEC_MAX_RPN);
		return;
	}
	c->s->ranks_per_node = (int)v;
}

static void parse_single(struct spec_ctx *c)
{
	yaml_node_t *n = gc_yaml_get(c->doc, c->root, "allow_single_node");
	const char *t = gc_yaml_text(n);

	c->s->allow_single_node = 0;
	if (!n)
		return;
	if (t && (!strcmp(t, "true") || !strcmp(t, "yes")))
		c->s->allow_single_node = 1;
	else if (!t || (strcmp(t, "false") && strcmp(t, "no")))
		gc_diag(c->d, n, "allow_single_node is %s; write allow_single_node: true "
			"or false", t ? "not true or false" : gc_yaml_kind(n));
}

void spec_parse_placement(struct spec_ctx *c)
{
	parse_rpn(c);
	parse_single(c);
}

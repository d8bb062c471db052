/* orchestrator/spec/spec_uplink.c: uplink: RATE or oversubscription: RATIO (one value or
 * a list: an axis), each rack's uplink for inventories with racks: (docs/spec.md,
 * "Racks and uplinks"). */
#include "spec.h"
#include "spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"

/* a ratio as written: "2" or "2:1"; 0 when it is neither or outside 1..1000 */
static double ratio_of(const char *t)
{
	char buf[64];
	size_t n = t ? strlen(t) : 0;
	double r;

	if (!n || n >= sizeof(buf))
		return 0;
	gc_strlcpy(buf, t, sizeof(buf));
	if (n > 2 && !strcmp(buf + n - 2, ":1"))
		buf[n - 2] = 0;
	if (gc_parse_double(buf, &r) || !(r >= 1 && r <= 1000))
		return 0;
	return r;
}

static void one_value(struct spec_ctx *c, yaml_node_t *n, int ratio)
{
	struct gc_spec_uplink *u = &c->s->uplink[c->s->n_uplink];
	const char *t = gc_yaml_text(n);
	char hint[160];
	gc_err e;

	if (ratio) {
		if (!(u->ratio = ratio_of(t))) {
			gc_diag(c->d, n, "oversubscription is the ratio of a rack's host caps to its "
				"uplink, from 1 to 1000; write e.g. oversubscription: 2 (or 2:1)");
			return;
		}
	} else if (gc_bw_parse(t, 0, &u->bps, &e) || !u->bps) {
		/* not e.msg: it quotes the text, and a spec's text is never quoted */
		gc_diag(c->d, n, "uplink is %s", u->bps || !t || strcmp(t, "unlimited") ?
			gc_bw_hint(t, 0, hint, sizeof hint) : "'unlimited', which is no uplink; "
			"give a rate, e.g. uplink: 1gbit (or drop uplink:)");
		return;
	}
	for (size_t i = 0; i < c->s->n_uplink; i++)
		if (c->s->uplink[i].bps == u->bps && c->s->uplink[i].ratio == u->ratio) {
			gc_diag(c->d, n, "%s: this value is given twice", ratio ? "oversubscription" :
				"uplink");
			return;
		}
	c->s->n_uplink++;
}

void spec_parse_uplink(struct spec_ctx *c)
{
	yaml_node_t *u = gc_yaml_get(c->doc, c->root, "uplink"),
		    *o = gc_yaml_get(c->doc, c->root, "oversubscription"), *v = u ? u : o;
	yaml_node_t **items = NULL;
	size_t k;

	if (u && o) {
		gc_diag(c->d, o, "the spec gives both 'uplink' and 'oversubscription'; keep one "
			"(the uplink's rate, or the ratio of a rack's host caps to it)");
		return;
	}
	if (!v)
		return;
	k = spec_items(c, v, u ? "uplink" : "oversubscription", &items);
	if (k > GC_SPEC_MAX_UPLINKS) {
		gc_diag(c->d, v, "at most %d uplink values; split the sweep", GC_SPEC_MAX_UPLINKS);
		k = 0;
	}
	if (k && !(c->s->uplink = calloc(k, sizeof(*c->s->uplink))))
		k = 0, c->d->oom = 1;
	for (size_t i = 0; i < k; i++)
		one_value(c, items[i], o != NULL);
	free(items);
	for (size_t b = 0; o && b < c->s->n_bandwidth; b++)
		if (!c->s->bandwidth[b]) {
			gc_diag(c->d, o, "'oversubscription' divides the hosts' caps, and bandwidth "
				"'unlimited' has none; give every bandwidth a rate, or an uplink: rate");
			break;
		}
	if (c->s->n_traces)
		gc_diag(c->d, v, "an uplink and a bandwidth trace do not go together yet; give "
			"the uplink's points fixed caps");
}

void spec_uplink_text(const struct gc_spec_uplink *u, char *buf, size_t n)
{
	char num[40];

	if (!u) {
		gc_strlcpy(buf, "", n);
	} else if (u->ratio > 0) {
		spec_num(u->ratio, num, sizeof(num));
		snprintf(buf, n, "%s:1", num);
	} else {
		snprintf(buf, n, "%llu", (unsigned long long)u->bps);
	}
}

int spec_uplink_normalize(struct spec_ctx *c, yaml_node_t *n, char *out, size_t len)
{
	const char *t = gc_yaml_text(n);
	struct gc_spec_uplink u = { 0, 0 };
	char hint[160];
	gc_err e;

	if (c->s->n_uplink && c->s->uplink[0].ratio > 0) {
		if (!(u.ratio = ratio_of(t))) {
			gc_diag(c->d, n, "uplink: not an oversubscription ratio; write e.g. 2 or 2:1");
			return 0;
		}
	} else if (gc_bw_parse(t, 0, &u.bps, &e)) {
		gc_diag(c->d, n, "uplink is %s", gc_bw_hint(t, 0, hint, sizeof hint));
		return 0;
	}
	spec_uplink_text(&u, out, len);
	return 1;
}

uint64_t gc_spec_uplink_bps(const struct gc_spec_uplink *u, uint64_t rack_caps_bps)
{
	if (!u)
		return 0;
	if (u->ratio > 0) {
		double r = (double)rack_caps_bps / u->ratio + 0.5;
		return r < (double)GC_BW_MIN ? GC_BW_MIN : (uint64_t)r;
	}
	return u->bps;
}

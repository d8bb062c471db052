/* orchestrator/spec/spec_background.c: background: {flows: N, ...}, cross traffic on the
 * ring's links while a point runs (docs/spec.md, "Cross traffic"). */
#include "spec.h"
#include "spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "strutil.h"

static const char *const bg_keys[] = { "flows", "pattern", "on", "off", "pairs", "tool",
				       "queue" };
static const char *const tools[] = { "auto", "iperf3", "probe" };   /* GC_BG_TOOL_* */
static const char *const queues[] = { "fair", "fifo" };             /* GC_BG_QUEUE_* */
#define N_BG_KEYS (sizeof(bg_keys) / sizeof(bg_keys[0]))

#define BG_KEY_PAIRS_MAX 400   /* longer pairs text: its digest in the key */

/* A host name as an inventory writes it: 1-63 of [A-Za-z0-9._-], not starting '-'. */
static int host_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n >= 1 && n < 64 && s[0] != '-' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static void parse_flows(struct spec_ctx *c, yaml_node_t *v)
{
	const char *t = gc_yaml_text(v);
	double f;

	if (!t || gc_parse_double(t, &f) || f != (int)f || f < 0 || f > GC_SPEC_BG_MAX_FLOWS) {
		gc_diag(c->d, v, "background: flows is the number of bulk TCP flows per pair, a "
			"whole number from 0 to %d, e.g. background: {flows: 1}",
			GC_SPEC_BG_MAX_FLOWS);
		return;
	}
	c->s->bg.flows = (int)f;
}

/* on: / off: seconds, (0, GC_SPEC_BG_MAX_ONOFF_S] */
static void parse_secs(struct spec_ctx *c, yaml_node_t *v, const char *key, double *out)
{
	const char *t = gc_yaml_text(v);
	double f;

	if (!t || gc_parse_double(t, &f) || !(f > 0 && f <= GC_SPEC_BG_MAX_ONOFF_S)) {
		gc_diag(c->d, v, "background: %s is seconds, more than 0 and at most %.0f, e.g. "
			"background: {flows: 1, pattern: onoff, on: 2, off: 3}", key,
			GC_SPEC_BG_MAX_ONOFF_S);
		return;
	}
	*out = f;
}

static void one_pair(struct spec_ctx *c, yaml_node_t *it)
{
	struct gc_spec_background *b = &c->s->bg;
	yaml_node_t *x = gc_yaml_seq_len(it) == 2 ? gc_yaml_seq_at(c->doc, it, 0) : NULL;
	yaml_node_t *y = x ? gc_yaml_seq_at(c->doc, it, 1) : NULL;
	const char *from = x ? gc_yaml_text(x) : NULL, *to = y ? gc_yaml_text(y) : NULL;

	if (!host_ok(from) || !host_ok(to)) {
		gc_diag(c->d, it, "background: a pair is [SENDER, RECEIVER], two inventory host "
			"names (1-63 of [A-Za-z0-9._-]), e.g. pairs: [[n1, n2], [n2, n1]]");
		return;
	}
	if (!strcmp(from, to)) {
		gc_diag(c->d, it, "background: pair [%s, %s] sends to itself, which crosses no "
			"link; name two hosts", from, to);
		return;
	}
	for (size_t i = 0; i < b->n_pairs; i++)
		if (!strcmp(b->pairs[i].from, from) && !strcmp(b->pairs[i].to, to)) {
			gc_diag(c->d, it, "background: pair [%s, %s] is given twice; raise flows "
				"instead", from, to);
			return;
		}
	gc_strlcpy(b->pairs[b->n_pairs].from, from, sizeof(b->pairs[0].from));
	gc_strlcpy(b->pairs[b->n_pairs].to, to, sizeof(b->pairs[0].to));
	b->n_pairs++;
}

static void parse_pairs(struct spec_ctx *c, yaml_node_t *v)
{
	size_t n = gc_yaml_seq_len(v);

	if (!n || n > GC_SPEC_BG_MAX_PAIRS) {
		gc_diag(c->d, v, "background: pairs is %s; write a list of [SENDER, RECEIVER] "
			"hosts, e.g. pairs: [[n1, n2], [n2, n1]] (at most %d)", n ? "too long" :
			v->type == YAML_SEQUENCE_NODE ? "empty" : gc_yaml_kind(v),
			GC_SPEC_BG_MAX_PAIRS);
		return;
	}
	if (!(c->s->bg.pairs = calloc(n, sizeof(*c->s->bg.pairs)))) {
		c->d->oom = 1;
		return;
	}
	for (size_t i = 0; i < n; i++)
		one_pair(c, gc_yaml_seq_at(c->doc, v, i));
}

static void parse_tool(struct spec_ctx *c, yaml_node_t *v)
{
	const char *t = gc_yaml_text(v);

	for (int i = 0; t && i < 3; i++)
		if (!strcmp(t, tools[i])) {
			if (i == GC_BG_TOOL_IPERF3 && c->s->bg.onoff)
				break;
			c->s->bg.tool = i;
			return;
		}
	gc_diag(c->d, v, "background: tool is auto (iperf3 where both ends have it, else "
		"gcbench-probe), iperf3 or probe%s", t && !strcmp(t, "iperf3") ?
		"; pattern onoff runs on gcbench-probe only" : "");
}

static void parse_queue(struct spec_ctx *c, yaml_node_t *v)
{
	const char *t = gc_yaml_text(v);

	for (int i = 0; t && i < 2; i++)
		if (!strcmp(t, queues[i])) {
			c->s->bg.queue = i;
			return;
		}
	gc_diag(c->d, v, "background: queue is fair (the default: the ranks and the flows each "
		"get a class of the cap) or fifo (one drop-tail queue for both, the plain cap)");
}

void spec_parse_background(struct spec_ctx *c, yaml_node_t *v)
{
	struct gc_spec_background *b = &c->s->bg;
	yaml_node_t *f, *p, *on, *off, *pr;
	const char *pat;

	if (v->type != YAML_MAPPING_NODE) {
		gc_diag(c->d, v, "'background' is %s; write a mapping, e.g. background: {flows: 1}",
			gc_yaml_kind(v));
		return;
	}
	gc_yaml_check_keys(c->doc, v, bg_keys, N_BG_KEYS, "background", c->d);
	if (!(f = gc_yaml_get(c->doc, v, "flows")))
		gc_diag(c->d, v, "background: needs flows, the number of bulk TCP flows per "
			"pair, e.g. background: {flows: 1}");
	else
		parse_flows(c, f);
	p = gc_yaml_get(c->doc, v, "pattern");
	pat = p ? gc_yaml_text(p) : "constant";
	if (!pat || (strcmp(pat, "constant") && strcmp(pat, "onoff")))
		gc_diag(c->d, p, "background: pattern is constant (the default) or onoff");
	else
		b->onoff = !strcmp(pat, "onoff");
	on = gc_yaml_get(c->doc, v, "on");
	off = gc_yaml_get(c->doc, v, "off");
	if (b->onoff && (!on || !off))
		gc_diag(c->d, p, "background: pattern onoff needs on: and off: (seconds), e.g. "
			"{flows: 1, pattern: onoff, on: 2, off: 3}");
	else if (!b->onoff && (on || off))
		gc_diag(c->d, on ? on : off, "background: on: and off: go with pattern: onoff");
	if (b->onoff && on)
		parse_secs(c, on, "on", &b->on_s);
	if (b->onoff && off)
		parse_secs(c, off, "off", &b->off_s);
	if ((pr = gc_yaml_get(c->doc, v, "pairs")))
		parse_pairs(c, pr);
	if ((p = gc_yaml_get(c->doc, v, "tool")))
		parse_tool(c, p);
	if ((p = gc_yaml_get(c->doc, v, "queue")))
		parse_queue(c, p);
}

/* "n1>n2+n2>n3" into b */
static void pairs_text(const struct gc_spec_background *b, gc_buf *t)
{
	for (size_t i = 0; i < b->n_pairs; i++)
		gc_buf_addf(t, "%s%s>%s", i ? "+" : "", b->pairs[i].from, b->pairs[i].to);
}

void spec_bg_text(const struct gc_spec *s, char *buf, size_t n)
{
	const struct gc_spec_background *b = &s->bg;
	char on[40], off[40];
	size_t at;
	gc_buf t = GC_BUF_INIT;

	buf[0] = 0;
	if (!b->flows || !n)
		return;
	snprintf(buf, n, "flows:%d", b->flows);
	if (b->onoff) {
		spec_num(b->on_s, on, sizeof(on));
		spec_num(b->off_s, off, sizeof(off));
		at = strlen(buf);
		snprintf(buf + at, n - at, ",onoff:%s/%s", on, off);
	}
	if (b->tool) {
		at = strlen(buf);
		snprintf(buf + at, n - at, ",tool:%s", tools[b->tool]);
	}
	if (b->n_pairs) {
		pairs_text(b, &t);
		at = strlen(buf);
		if (t.p && t.len <= BG_KEY_PAIRS_MAX)
			snprintf(buf + at, n - at, ",pairs:%s", t.p);
		else   /* a long list: its digest keeps the key short, still tells lists apart */
			snprintf(buf + at, n - at, ",pairs@%016llx",
				 (unsigned long long)gc_fnv1a64(t.p ? t.p : "", t.len));
		gc_buf_release(&t);
	}
	if (b->queue == GC_BG_QUEUE_FIFO) {   /* fair, the default, keeps the keys as they were */
		at = strlen(buf);
		snprintf(buf + at, n - at, ",queue:fifo");
	}
}

const char *gc_spec_bg_queue_name(int queue)
{
	return queue == GC_BG_QUEUE_FIFO ? queues[1] : queues[0];
}

/* tests/unit/test_spec_background.c: background: {flows: N, ...} in a sweep spec: the
 * parsed fields, the point key and canonical text (changed only when flows are asked
 * for; queue: only when fifo), every malformed form with its line, and the model's fair share. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model/model.h"
#include "orchestrator/run/sweep.h"
#include "orchestrator/spec/spec.h"
#include "orchestrator/spec/yamlutil.h"
#include "spec_fixture.h"

#define BASE "name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nworld_size: [4]\n" \
	     "batch: [32]\niterations: 3\nbandwidth: [1gbit]\n"

static void test_bg_fields(void)
{
	struct gc_spec s;
	struct gc_diags d;

	CHECK(parse(BASE "background: {flows: 2}\n", &s, &d) == GC_OK);
	CHECK(s.bg.flows == 2 && !s.bg.onoff && !s.bg.n_pairs && s.bg.tool == GC_BG_TOOL_AUTO);
	CHECK_CONTAINS(s.canonical, "\nbackground=flows:2\n");
	gc_spec_release(&s);
	gc_diags_release(&d);
	CHECK(parse(BASE "background: {flows: 1, pattern: onoff, on: 2, off: 0.5, tool: probe,\n"
		    "  pairs: [[n1, n2], [n3, n1]]}\n", &s, &d) == GC_OK);
	CHECK(s.bg.flows == 1 && s.bg.onoff && s.bg.on_s == 2 && s.bg.off_s == 0.5);
	CHECK(s.bg.tool == GC_BG_TOOL_PROBE && s.bg.n_pairs == 2);
	CHECK_STR(s.bg.pairs[1].from, "n3");
	CHECK_STR(s.bg.pairs[1].to, "n1");
	CHECK_CONTAINS(s.canonical,
		       "\nbackground=flows:1,onoff:2/0.5,tool:probe,pairs:n1>n2+n3>n1\n");
	gc_spec_release(&s);
	gc_diags_release(&d);
}

/* flows enter the key and the hash only when asked for; flows: 0 is no background */
static void test_bg_key_and_hash(void)
{
	struct gc_spec a, b, z;
	struct gc_sweep sa, sb;
	struct gc_diags d1, d2, d3;
	gc_err e;

	CHECK(parse(BASE, &a, &d1) == GC_OK);
	CHECK(parse(BASE "background: {flows: 1}\n", &b, &d2) == GC_OK);
	CHECK(parse(BASE "background: {flows: 0}\n", &z, &d3) == GC_OK);
	CHECK(strstr(a.canonical, "background") == NULL);
	CHECK(strcmp(a.hash, b.hash) != 0);
	CHECK(strcmp(a.hash, z.hash) == 0);
	CHECK(gc_sweep_expand(&a, &sa, &e) == GC_OK && gc_sweep_expand(&b, &sb, &e) == GC_OK);
	CHECK(sa.n == 1 && sb.n == 1);
	CHECKF(strstr(sa.pts[0].key, "bg=") == NULL, "%s", sa.pts[0].key);
	CHECKF(!strncmp(sb.pts[0].key, sa.pts[0].key, strlen(sa.pts[0].key)) &&
	       !strcmp(sb.pts[0].key + strlen(sa.pts[0].key), ";bg=flows:1"),
	       "%s vs %s", sb.pts[0].key, sa.pts[0].key);
	gc_sweep_release(&sa);
	gc_sweep_release(&sb);
	gc_spec_release(&a);
	gc_spec_release(&b);
	gc_spec_release(&z);
	gc_diags_release(&d1);
	gc_diags_release(&d2);
	gc_diags_release(&d3);
}

/* queue: fair is the default and changes neither the key nor the hash; fifo enters
 * both, after the other options */
static void test_bg_queue(void)
{
	struct gc_spec a, f, q;
	struct gc_sweep sa, sf, sq;
	struct gc_diags d1, d2, d3;
	gc_err e;

	CHECK(parse(BASE "background: {flows: 1}\n", &a, &d1) == GC_OK);
	CHECK(parse(BASE "background: {flows: 1, queue: fair}\n", &f, &d2) == GC_OK);
	CHECK(parse(BASE "background: {flows: 1, queue: fifo, tool: probe,\n"
		    "  pairs: [[n1, n2]]}\n", &q, &d3) == GC_OK);
	CHECK(a.bg.queue == GC_BG_QUEUE_FAIR && f.bg.queue == GC_BG_QUEUE_FAIR);
	CHECK(q.bg.queue == GC_BG_QUEUE_FIFO);
	CHECK_STR(gc_spec_bg_queue_name(a.bg.queue), "fair");
	CHECK_STR(gc_spec_bg_queue_name(q.bg.queue), "fifo");
	CHECK(strcmp(a.hash, f.hash) == 0);
	CHECK(strcmp(a.hash, q.hash) != 0);
	CHECK_CONTAINS(q.canonical, "\nbackground=flows:1,tool:probe,pairs:n1>n2,queue:fifo\n");
	CHECK(gc_sweep_expand(&a, &sa, &e) == GC_OK && gc_sweep_expand(&f, &sf, &e) == GC_OK &&
	      gc_sweep_expand(&q, &sq, &e) == GC_OK);
	CHECKF(!strcmp(sa.pts[0].key, sf.pts[0].key), "%s vs %s", sa.pts[0].key, sf.pts[0].key);
	CHECKF(strstr(sa.pts[0].key, "queue") == NULL, "%s", sa.pts[0].key);
	CHECKF(strstr(sq.pts[0].key, ";bg=flows:1,tool:probe,pairs:n1>n2,queue:fifo") != NULL,
	       "%s", sq.pts[0].key);
	gc_sweep_release(&sa);
	gc_sweep_release(&sf);
	gc_sweep_release(&sq);
	gc_spec_release(&a);
	gc_spec_release(&f);
	gc_spec_release(&q);
	gc_diags_release(&d1);
	gc_diags_release(&d2);
	gc_diags_release(&d3);
}

/* a long pairs list: its digest keeps the key within bounds, and still differs */
static void test_bg_long_pairs(void)
{
	char text[8192];
	struct gc_spec s;
	struct gc_diags d;
	char buf[600];
	int at = snprintf(text, sizeof(text), BASE "background: {flows: 1, pairs: [");

	for (int i = 0; i < 60; i++)
		at += snprintf(text + at, sizeof(text) - (size_t)at, "%s[host-number-%02d, "
			       "host-number-%02d]", i ? ", " : "", i, i + 1);
	snprintf(text + at, sizeof(text) - (size_t)at, "]}\n");
	CHECK(parse(text, &s, &d) == GC_OK);
	spec_bg_text(&s, buf, sizeof(buf));
	CHECKF(!strncmp(buf, "flows:1,pairs@", 14) && strlen(buf) == 14 + 16, "%s", buf);
	gc_spec_release(&s);
	gc_diags_release(&d);
}

static const struct spec_bad bg_bad[] = {
	{ "background: 1\n", "t.yaml:8:13: 'background' is a value" },
	{ "background: [1]\n", "'background' is a list" },
	{ "background: {}\n", "background: needs flows" },
	{ "background: {flows: 17}\n", "t.yaml:8:21: background: flows is the number" },
	{ "background: {flows: -1}\n", "flows is the number" },
	{ "background: {flows: 1.5}\n", "flows is the number" },
	{ "background: {flows: many}\n", "flows is the number" },
	{ "background: {flows: [1]}\n", "flows is the number" },
	{ "background: {flows: 1, pattern: bursty}\n",
	  "pattern is constant (the default) or onoff" },
	{ "background: {flows: 1, pattern: onoff}\n", "pattern onoff needs on: and off:" },
	{ "background: {flows: 1, pattern: onoff, on: 1}\n", "pattern onoff needs on: and off:" },
	{ "background: {flows: 1, on: 1, off: 1}\n", "on: and off: go with pattern: onoff" },
	{ "background: {flows: 1, pattern: onoff, on: 0, off: 1}\n", "background: on is seconds" },
	{ "background: {flows: 1, pattern: onoff, on: 1, off: 4000}\n",
	  "background: off is seconds" },
	{ "background: {flows: 1, pattern: onoff, on: 1, off: nan}\n",
	  "background: off is seconds" },
	{ "background: {flows: 1, pairs: []}\n", "pairs is empty" },
	{ "background: {flows: 1, pairs: n1}\n", "pairs is a value" },
	{ "background: {flows: 1, pairs: [[n1]]}\n", "a pair is [SENDER, RECEIVER]" },
	{ "background: {flows: 1, pairs: [[n1, n2, n3]]}\n", "a pair is [SENDER, RECEIVER]" },
	{ "background: {flows: 1, pairs: [[n1, 'a b']]}\n", "a pair is [SENDER, RECEIVER]" },
	{ "background: {flows: 1, pairs: [[n1, [n2]]]}\n", "a pair is [SENDER, RECEIVER]" },
	{ "background: {flows: 1, pairs: [n1, n2]}\n", "a pair is [SENDER, RECEIVER]" },
	{ "background: {flows: 1, pairs: [[n1, n1]]}\n", "sends to itself" },
	{ "background: {flows: 1, pairs: [[n1, n2], [n1, n2]]}\n", "is given twice" },
	{ "background: {flows: 1, tool: netperf}\n", "tool is auto" },
	{ "background: {flows: 1, tool: iperf3, pattern: onoff, on: 1, off: 1}\n",
	  "onoff runs on gcbench-probe only" },
	{ "background: {flows: 1, flow: 2}\n", "unknown key" },
	{ "background: {flows: 1, queue: wfq}\n", "t.yaml:8:31: background: queue is fair" },
	{ "background: {flows: 1, queue: FIFO}\n", "background: queue is fair" },
	{ "background: {flows: 1, queue: [fifo]}\n", "background: queue is fair" },
	{ "background: {flows: 1, queue: }\n", "background: queue is fair" },
	{ "background: {flows: 1, queues: fifo}\n", "unknown key" },
};

static void test_bg_rejects(void)
{
	SPEC_REJECT_TABLE("t.yaml", BASE, bg_bad);
}

static void test_bg_share(void)
{
	CHECK(gc_model_bg_share(0, 1) == 1.0);
	CHECK(gc_model_bg_share(-3, 1) == 1.0);
	CHECK(fabs(gc_model_bg_share(1, 1) - 0.5) < 1e-12);
	CHECK(fabs(gc_model_bg_share(3, 1) - 0.25) < 1e-12);
	CHECK(fabs(gc_model_bg_share(1, 0.5) - 1 / 1.5) < 1e-12);
	CHECK(fabs(gc_model_bg_share(2, 0) - 1 / 3.0) < 1e-12);   /* duty out of range: 1 */
	CHECK(fabs(gc_model_bg_share(2, NAN) - 1 / 3.0) < 1e-12);
}

int main(void)
{
	GCT_SUITE("spec_background");
	GCT_RUN(test_bg_fields);
	GCT_RUN(test_bg_key_and_hash);
	GCT_RUN(test_bg_queue);
	GCT_RUN(test_bg_long_pairs);
	GCT_RUN(test_bg_rejects);
	GCT_RUN(test_bg_share);
	return gct_finish();
}

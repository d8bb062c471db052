/* tests/unit/test_run_bg.c: reading the hosts' stop output of the background flows
 * (orchestrator/run/run_bg.h): the processes left, each pair's goodput from
 * gcbench-probe's line or iperf3's JSON, and output that is cut, empty or foreign; the
 * flows each host sends (gc_run_bg_sent, the fair queue's shares). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "orchestrator/run/run_bg.h"

static void setup(struct gc_bg_run *b, size_t n, int iperf)
{
	memset(b, 0, sizeof(*b));
	b->n_pairs = n;
	for (size_t i = 0; i < n; i++) {
		b->pair[i].iperf = iperf;
		b->pair[i].goodput_bps = -1;
	}
}

static void read_text(const char *text, struct gc_bg_run *b)
{
	char *t = strdup(text);

	gc_run_bg_read_stop(t, b);
	CHECKF(!strcmp(t, text), "the output was not restored: %s", t);
	free(t);
}

static void test_probe_lines(void)
{
	struct gc_bg_run b;

	setup(&b, 3, 0);
	read_text("== bg-c5310.out\ngoodput_bps=48000000 bytes=1 seconds=2 sent=3 flows=1 replied=1\n\n"
		  "== bg-c5312.out\ngoodput_bps=52000000 bytes=1 seconds=2 sent=3 flows=2 replied=2\n\n",
		  &b);
	CHECK(b.pair[0].goodput_bps == 48e6);
	CHECK(b.pair[1].goodput_bps == -1);
	CHECK(b.pair[2].goodput_bps == 52e6);
	CHECK(b.left == 0);
}

static void test_iperf_json(void)
{
	struct gc_bg_run b;

	setup(&b, 2, 1);
	/* after SIGTERM: the receiver's sum is 0, the sender's holds the rate */
	read_text("== bg-c5310.out\n{\n\t\"end\":\t{\n\t\t\"sum_sent\":\t{\n\t\t\t\"bytes\":\t5,\n"
		  "\t\t\t\"bits_per_second\":\t81234567.5,\n\t\t\t\"sender\":\ttrue\n\t\t},\n"
		  "\t\t\"sum_received\":\t{\n\t\t\t\"bytes\":\t0,\n\t\t\t\"bits_per_second\":\t0,\n"
		  "\t\t\t\"sender\":\ttrue\n\t\t}\n\t},\n\t\"error\":\t\"interrupt\"\n}\n"
		  "== bg-c5311.out\n{\"end\":{\"sum_sent\":{\"bits_per_second\":9e7},"
		  "\"sum_received\":{\"bits_per_second\":8.5e7}}}\n", &b);
	CHECKF(b.pair[0].goodput_bps == 81234567.5, "%g", b.pair[0].goodput_bps);
	CHECKF(b.pair[1].goodput_bps == 8.5e7, "%g", b.pair[1].goodput_bps);
}

static void test_alive_and_foreign(void)
{
	struct gc_bg_run b;

	setup(&b, 1, 0);
	read_text("alive=123\nalive=456\n== bg-c5399.out\ngoodput_bps=1\n== bg-c4000.out\n"
		  "goodput_bps=2\n== bg-cxyz.out\ngoodput_bps=3\n", &b);
	CHECK(b.left == 2);
	CHECK(b.pair[0].goodput_bps == -1);
}

static void test_malformed(void)
{
	static const char *const bad[] = {
		"", "== bg-c", "== bg-c5310", "== bg-c5310.out", "== bg-c5310.out\n",
		"== bg-c5310.out\ngoodput_bps=", "== bg-c5310.out\ngoodput_bps=-5\n",
		"== bg-c5310.out\ngoodput_bps=nan-ish\n", "== bg-c5310.out\ngoodput_bps=inf\n",
		"== bg-c5310.out\ngoodput_bps=1e999\n",
		"== bg-c5310.out\n{\"end\":{\"sum_sent\":{\"bits_per_second\":inf}}}\n",
		"== bg-c5310.out\niperf3: error - unable to connect to server\n",
		"== bg-c5310.out\n{\"end\":{\"sum_received\":{\"bits_per_second\":\n",
		"== bg-c5310.out\n{\"end\":{\"sum_received\":{\"bytes\":1}, \"bits_per_second\":5}}\n",
		"== bg-c5310.out\n{\"end\":{}}\n", "\n\n== bg-c5310.out== bg-c5310.out",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct gc_bg_run b;
		setup(&b, 1, 0);
		read_text(bad[i], &b);
		CHECKF(b.pair[0].goodput_bps == -1, "probe: '%s' gave %g", bad[i], b.pair[0].goodput_bps);
		setup(&b, 1, 1);
		read_text(bad[i], &b);
		CHECKF(b.pair[0].goodput_bps == -1, "iperf3: '%s' gave %g", bad[i], b.pair[0].goodput_bps);
		CHECK(b.left == 0);
	}
}

/* the flows each host sends, which size the fair queue's classes (queue: fair): the
 * ring by default (one pair each), explicit pairs counted per sender, none without
 * background, and a pair naming a host the point does not use refused */
static void test_sent(void)
{
	gc_node nodes[4];
	struct gc_sweep_ctx c;
	struct gc_spec s;
	struct gc_spec_bg_pair pairs[3] = { { "n1", "n2" }, { "n1", "n3" }, { "n3", "n2" } };
	int sent[4];
	size_t np = 99;
	gc_err e;

	memset(nodes, 0, sizeof(nodes));
	memset(&c, 0, sizeof(c));
	memset(&s, 0, sizeof(s));
	for (int i = 0; i < 4; i++)
		snprintf(nodes[i].name, sizeof(nodes[i].name), "n%d", i + 1);
	c.nodes = nodes;
	c.n_nodes = 4;
	CHECK(gc_run_bg_sent(&c, &s, 3, sent, &np, &e) == GC_OK);
	CHECK(np == 0 && !sent[0] && !sent[1] && !sent[2]);
	s.bg.flows = 2;
	CHECK(gc_run_bg_sent(&c, &s, 3, sent, &np, &e) == GC_OK);
	CHECK(np == 3 && sent[0] == 2 && sent[1] == 2 && sent[2] == 2);
	s.bg.pairs = pairs;
	s.bg.n_pairs = 3;
	CHECK(gc_run_bg_sent(&c, &s, 3, sent, &np, &e) == GC_OK);
	CHECK(np == 3 && sent[0] == 4 && sent[1] == 0 && sent[2] == 2);
	CHECK(gc_run_bg_sent(&c, &s, 2, sent, &np, &e) == GC_E_INVAL);   /* n3 unused */
	CHECK_CONTAINS(e.msg, "host 'n3' runs no rank of this point");
	CHECK(np == 0);
}

int main(void)
{
	GCT_SUITE("run_bg");
	GCT_RUN(test_probe_lines);
	GCT_RUN(test_iperf_json);
	GCT_RUN(test_alive_and_foreign);
	GCT_RUN(test_malformed);
	GCT_RUN(test_sent);
	return gct_finish();
}

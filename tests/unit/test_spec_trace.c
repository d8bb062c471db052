/* tests/unit/test_spec_trace.c: bandwidth: [trace:FILE] in a sweep spec: the trace is
 * read at load (its mean is the point's cap), the point key and the canonical text name
 * it (trace:NAME@DIGEST) only when used, and a trace that does not parse, a missing
 * file, a bad path and slow: with a trace are refused with FILE:LINE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "orchestrator/run/sweep.h"
#include "orchestrator/spec/spec.h"
#include "orchestrator/spec/yamlutil.h"
#include "spec_fixture.h"

#define BASE "name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nworld_size: [4]\n" \
	     "batch: [32]\niterations: 3\n"

static char dir[64], specf[128];

static void put(const char *name, const char *text)
{
	char p[160];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* a square wave 1gbit/200mbit, 0.5 s each: mean 600 Mbit/s */
static void test_trace_mean_and_key(void)
{
	struct gc_spec a, b;
	struct gc_sweep sa, sb;
	struct gc_diags d1, d2;
	gc_err e;

	put("sq.txt", "# square\n0 1gbit\n0.5 200mbit\n1 end\n");
	CHECK(parse_at(specf, BASE "bandwidth: [600mbit, trace:sq.txt]\n", &a, &d1) == GC_OK);
	CHECK(parse_at(specf, BASE "bandwidth: [600mbit]\n", &b, &d2) == GC_OK);
	CHECK(a.n_traces == 1 && a.n_bandwidth == 2);
	CHECK_STR(a.traces[0].name, "sq.txt");
	CHECK(a.traces[0].mean_bps == 600000000ull);
	CHECK(a.traces[0].period_us == 1000000ull);
	CHECK(a.traces[0].len == strlen("# square\n0 1gbit\n0.5 200mbit\n1 end\n"));
	CHECK(gc_spec_bw_trace(&a, a.bandwidth[0]) == NULL);
	CHECK(gc_spec_bw_rate(&a, a.bandwidth[1]) == 600000000ull);
	CHECK(strstr(b.canonical, "trace") == NULL);
	CHECK_CONTAINS(a.canonical, "bandwidth=600000000,trace:sq.txt@");
	CHECK(gc_sweep_expand(&a, &sa, &e) == GC_OK && gc_sweep_expand(&b, &sb, &e) == GC_OK);
	CHECK(sa.n == 2 && sb.n == 1);
	/* the fixed point's key is the same as without the trace */
	CHECK_STR(sa.pts[0].key, sb.pts[0].key);
	CHECK(sa.pts[0].trace == NULL && sa.pts[1].trace == &a.traces[0]);
	CHECK(sa.pts[1].bw_bps == 600000000ull);
	CHECKF(strstr(sa.pts[1].key, ";bw=trace:sq.txt@") != NULL, "%s", sa.pts[1].key);
	CHECK(strstr(sa.pts[1].key, a.traces[0].digest) != NULL);
	gc_sweep_release(&sa);
	gc_sweep_release(&sb);
	gc_spec_release(&a);
	gc_spec_release(&b);
	gc_diags_release(&d1);
	gc_diags_release(&d2);
}

/* another content, another digest: the spec's hash changes */
static void test_trace_content_in_hash(void)
{
	struct gc_spec a, b;
	struct gc_diags d1, d2;

	put("w.txt", "0 1gbit\n0.5 200mbit\n");
	CHECK(parse_at(specf, BASE "bandwidth: [trace:w.txt]\n", &a, &d1) == GC_OK);
	put("w.txt", "0 1gbit\n0.5 300mbit\n");
	CHECK(parse_at(specf, BASE "bandwidth: [trace:w.txt]\n", &b, &d2) == GC_OK);
	CHECK(strcmp(a.hash, b.hash) != 0);
	CHECK(strcmp(a.traces[0].digest, b.traces[0].digest) != 0);
	gc_spec_release(&a);
	gc_spec_release(&b);
	gc_diags_release(&d1);
	gc_diags_release(&d2);
}

static void reject(const char *tail, const char *want)
{
	spec_reject(specf, BASE, tail, want);
}

static void test_trace_rejects(void)
{
	char want[200];

	put("bad.txt", "0 1gbit\n0.5 20gbps\n");
	snprintf(want, sizeof(want), "%s/bad.txt:2:", dir);
	reject("bandwidth: [trace:bad.txt]\n", want);
	put("late.txt", "0.2 1gbit\n");
	snprintf(want, sizeof(want), "%s/late.txt:1:", dir);
	reject("bandwidth: [trace:late.txt]\n", want);
	reject("bandwidth: [trace:nothere.txt]\n", "nothere.txt");
	reject("bandwidth: [\"trace:\"]\n", "needs the path of a trace file");
	reject("bandwidth: [\"trace:a b\"]\n", "needs the path of a trace file");
	put("sq2.txt", "0 1gbit\n0.5 200mbit\n");
	reject("bandwidth: [trace:sq2.txt, trace:sq2.txt]\n", "twice");
	reject("bandwidth: [trace:sq2.txt]\nlatency: [0, 1ms]\n", "does not go with a latency");
	reject("bandwidth: [trace:sq2.txt]\nslow: {n3: 0.5}\n",
	       "'slow' and a bandwidth trace do not go together");
}

int main(void)
{
	char cmd[128];

	GCT_SUITE("spec_trace");
	snprintf(dir, sizeof(dir), "/tmp/gct-spec-trace-%ld", (long)getpid());
	snprintf(specf, sizeof(specf), "%s/t.yaml", dir);
	if (mkdir(dir, 0700)) {
		perror(dir);
		return 1;
	}
	GCT_RUN(test_trace_mean_and_key);
	GCT_RUN(test_trace_content_in_hash);
	GCT_RUN(test_trace_rejects);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", dir);
	return gct_finish();
}

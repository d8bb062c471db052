/* tests/unit/test_spec_slow.c: slow: {HOST: FACTOR} and slow: [{}, {HOST: FACTOR}]
 * in a sweep spec: the factors and each host's cap, the point key and the canonical
 * text (both changed only when slow: names hosts), and every malformed form with its
 * line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "orchestrator/run/sweep.h"
#include "orchestrator/spec/spec.h"
#include "orchestrator/spec/yamlutil.h"
#include "spec_fixture.h"

#define BASE "name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nworld_size: [4]\n" \
	     "batch: [32]\niterations: 3\n"

static void test_slow_caps(void)
{
	struct gc_spec s;
	struct gc_diags d;

	CHECK(parse(BASE "bandwidth: [1gbit, 2gbit]\nslow: {n3: 0.5, n4: 0.875}\n", &s, &d) == GC_OK);
	CHECK(s.n_slow == 1 && s.slow[0].n == 2);
	CHECK_STR(s.slow[0].host[0].host, "n3");
	CHECK(gc_spec_slow_factor(&s.slow[0], "n3") == 0.5);
	CHECK(gc_spec_slow_factor(&s.slow[0], "n1") == 1.0);
	CHECK(gc_spec_slow_factor(NULL, "n3") == 1.0);
	CHECK(gc_spec_host_cap(&s.slow[0], 1000000000ull, "n3") == 500000000ull);
	CHECK(gc_spec_host_cap(&s.slow[0], 2000000000ull, "n4") == 1750000000ull);
	CHECK(gc_spec_host_cap(&s.slow[0], 2000000000ull, "n2") == 2000000000ull);
	CHECK(gc_spec_host_cap(&s.slow[0], 0, "n3") == 0);
	CHECK(gc_spec_host_cap(NULL, 1000000000ull, "n3") == 1000000000ull);
	CHECK_CONTAINS(s.canonical, "\nslow=n3:0.5,n4:0.875\n");
	gc_spec_release(&s);
	gc_diags_release(&d);
}

/* slow: enters the key and the hash only when used */
static void test_slow_key_and_hash(void)
{
	struct gc_spec a, b;
	struct gc_sweep sa, sb;
	struct gc_diags d1, d2;
	gc_err e;

	CHECK(parse(BASE "bandwidth: [1gbit]\n", &a, &d1) == GC_OK);
	CHECK(parse(BASE "bandwidth: [1gbit]\nslow: {n2: 0.5}\n", &b, &d2) == GC_OK);
	CHECK(strstr(a.canonical, "slow") == NULL);
	CHECK(strcmp(a.hash, b.hash) != 0);
	CHECK(gc_sweep_expand(&a, &sa, &e) == GC_OK && gc_sweep_expand(&b, &sb, &e) == GC_OK);
	CHECK(sa.n == 1 && sb.n == 1);
	CHECKF(strstr(sa.pts[0].key, "slow") == NULL, "%s", sa.pts[0].key);
	CHECKF(strlen(sb.pts[0].key) == strlen(sa.pts[0].key) + strlen(";slow=n2:0.5") &&
	       !strncmp(sb.pts[0].key, sa.pts[0].key, strlen(sa.pts[0].key)) &&
	       !strcmp(sb.pts[0].key + strlen(sa.pts[0].key), ";slow=n2:0.5"),
	       "%s vs %s", sb.pts[0].key, sa.pts[0].key);
	gc_sweep_release(&sa);
	gc_sweep_release(&sb);
	gc_spec_release(&a);
	gc_spec_release(&b);
	gc_diags_release(&d1);
	gc_diags_release(&d2);
}

/* slow: [{}, {n2: 0.5}] is an axis: the uniform point keeps the key of a spec without
 * slow:, the other one adds ;slow=; the mapping form's key and hash are those of a
 * one-item list's key (same points) */
static void test_slow_list(void)
{
	struct gc_spec a, b, m, l;
	struct gc_sweep sa, sb;
	struct gc_diags d1, d2, d3, d4;
	char t[64];
	gc_err e;

	CHECK(parse(BASE "bandwidth: [1gbit]\n", &a, &d1) == GC_OK);
	CHECK(parse(BASE "bandwidth: [1gbit]\nslow: [{}, {n2: 0.5, n3: 0.875}]\n", &b, &d2) == GC_OK);
	CHECK(b.n_slow == 2 && b.slow[0].n == 0 && b.slow[1].n == 2);
	CHECK(gc_spec_has_slow(&b) && !gc_spec_has_slow(&a));
	CHECK(gc_spec_axis_len(&b, GC_AX_SLOW) == 2 && gc_spec_axis_len(&a, GC_AX_SLOW) == 1);
	gc_spec_axis_text(&b, GC_AX_SLOW, 1, t, sizeof(t));
	CHECK_STR(t, "n2:0.5,n3:0.875");
	gc_spec_axis_text(&b, GC_AX_SLOW, 0, t, sizeof(t));
	CHECK_STR(t, "");
	CHECK_CONTAINS(b.canonical, "\nslow=\nslow=n2:0.5,n3:0.875\n");
	CHECK(gc_sweep_expand(&a, &sa, &e) == GC_OK && gc_sweep_expand(&b, &sb, &e) == GC_OK);
	CHECK(sa.n == 1 && sb.n == 2);
	CHECKF(!strcmp(sb.pts[0].key, sa.pts[0].key), "%s vs %s", sb.pts[0].key, sa.pts[0].key);
	CHECK(sb.pts[0].slow == &b.slow[0] && sb.pts[1].slow == &b.slow[1]);
	CHECKF(!strncmp(sb.pts[1].key, sa.pts[0].key, strlen(sa.pts[0].key)) &&
	       !strcmp(sb.pts[1].key + strlen(sa.pts[0].key), ";slow=n2:0.5,n3:0.875"),
	       "%s", sb.pts[1].key);
	CHECK(gc_spec_host_cap(sb.pts[1].slow, 1000000000ull, "n2") == 500000000ull);
	CHECK(gc_spec_host_cap(sb.pts[0].slow, 1000000000ull, "n2") == 1000000000ull);
	/* the mapping and a one-item list: the same canonical text, hash and keys */
	CHECK(parse(BASE "bandwidth: [1gbit]\nslow: {n2: 0.5}\n", &m, &d3) == GC_OK);
	CHECK(parse(BASE "bandwidth: [1gbit]\nslow: [{n2: 0.5}]\n", &l, &d4) == GC_OK);
	CHECK_STR(m.hash, l.hash);
	CHECK(strcmp(m.hash, b.hash) != 0);
	gc_sweep_release(&sa);
	gc_sweep_release(&sb);
	gc_spec_release(&a);
	gc_spec_release(&b);
	gc_spec_release(&m);
	gc_spec_release(&l);
	gc_diags_release(&d1);
	gc_diags_release(&d2);
	gc_diags_release(&d3);
	gc_diags_release(&d4);
}

/* an exclude entry and a zip group may name the slow axis (its canonical text) */
static void test_slow_exclude(void)
{
	struct gc_spec s;
	struct gc_sweep sw;
	struct gc_diags d;
	gc_err e;

	CHECK(parse(BASE "bandwidth: [1gbit, 2gbit]\nslow: [{}, {n2: 0.5}]\n"
		    "exclude: [{bandwidth: 2gbit, slow: 'n2:0.5'}]\n", &s, &d) == GC_OK);
	CHECK(gc_sweep_expand(&s, &sw, &e) == GC_OK);
	CHECK(sw.n == 3 && sw.n_excluded == 1);
	for (size_t i = 0; i < sw.n; i++)
		CHECKF(!(sw.pts[i].bw_bps == 2000000000ull && sw.pts[i].slow->n), "%s", sw.pts[i].key);
	gc_sweep_release(&sw);
	gc_spec_release(&s);
	gc_diags_release(&d);
}

static void reject(const char *tail, const char *want)
{
	spec_reject("t.yaml", BASE, tail, want);
}

static void test_slow_rejects(void)
{
	reject("bandwidth: [1gbit]\nslow: [n3]\n", "t.yaml:8:8: 'slow': an item is a value");
	reject("bandwidth: [1gbit]\nslow: []\n", "t.yaml:8:7: 'slow' is an empty list");
	reject("bandwidth: [1gbit]\nslow: [{}, [n3]]\n", "t.yaml:8:12: 'slow': an item is a list");
	reject("bandwidth: [1gbit]\nslow: [{}, {n3: 0}]\n", "t.yaml:8:17: slow: host 'n3' needs a factor");
	reject("bandwidth: [1gbit]\nslow: [{}, {n3: 2}]\n", "host 'n3' needs a factor");
	reject("bandwidth: [1gbit]\nslow: [{}, {'a b': 0.5}]\n", "a host is named by its inventory name");
	reject("bandwidth: [1gbit]\nslow: [{n3: 0.5, n3: 0.5}]\n", "host 'n3' is given twice");
	reject("bandwidth: [1gbit]\nslow: [{}, {n3: 0.5}, {}]\n",
	       "t.yaml:8:23: slow: this value is given twice in the list ('{}')");
	reject("bandwidth: [1gbit]\nslow: [{n3: 0.5}, {n3: 0.50}]\n", "given twice in the list ('n3:0.5')");
	reject("bandwidth: [1gbit, unlimited]\nslow: [{}, {n3: 0.5}]\n", "bandwidth 'unlimited' has none");
	reject("bandwidth: [1gbit]\nslow: [{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}]\n",
	       "'slow' is too long a list");
	reject("bandwidth: [1gbit]\nslow: [{}, {n3: 0.5}]\nexclude: [{slow: 'n4:0.5'}]\n",
	       "this slow is not a value of the sweep");
	reject("bandwidth: [1gbit]\nslow: 0.5\n", "'slow' is a value");
	reject("bandwidth: [1gbit]\nslow: {}\n", "'slow' is empty");
	reject("bandwidth: [1gbit]\nslow: {n3: 0}\n", "t.yaml:8:12: slow: host 'n3' needs a factor");
	reject("bandwidth: [1gbit]\nslow: {n3: 1.5}\n", "host 'n3' needs a factor");
	reject("bandwidth: [1gbit]\nslow: {n3: -0.5}\n", "host 'n3' needs a factor");
	reject("bandwidth: [1gbit]\nslow: {n3: fast}\n", "host 'n3' needs a factor");
	reject("bandwidth: [1gbit]\nslow: {n3: nan}\n", "host 'n3' needs a factor");
	reject("bandwidth: [1gbit]\nslow: {n3: [0.5]}\n", "host 'n3' needs a factor");
	reject("bandwidth: [1gbit]\nslow: {'a b': 0.5}\n", "a host is named by its inventory name");
	reject("bandwidth: [1gbit]\nslow: {-n3: 0.5}\n", "a host is named by its inventory name");
	reject("bandwidth: [1gbit]\nslow: {n3: 0.5, n3: 0.6}\n", "host 'n3' is given twice");
	reject("bandwidth: [1gbit, unlimited]\nslow: {n3: 0.5}\n", "bandwidth 'unlimited' has none");
	reject("bandwidth: [1mbit]\nslow: {n3: 0.5}\n", "is under 1mbit, the smallest cap");
	reject("bandwidth: [1gbit]\nslow: {n3: 0.5}\nslw: 1\n",
	       "t.yaml:9:1: unknown key in the spec; did you mean 'slow'?");
}

int main(void)
{
	GCT_SUITE("spec_slow");
	GCT_RUN(test_slow_caps);
	GCT_RUN(test_slow_key_and_hash);
	GCT_RUN(test_slow_list);
	GCT_RUN(test_slow_exclude);
	GCT_RUN(test_slow_rejects);
	return gct_finish();
}

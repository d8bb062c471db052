/* tests/unit/test_spec_slow.c: slow: {HOST: FACTOR} in a sweep spec: the factors and
 * each host's cap, the point key and the canonical text (both changed only when slow:
 * is used), and every malformed form with its line. */
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
	CHECK(s.n_slow == 2);
	CHECK_STR(s.slow[0].host, "n3");
	CHECK(gc_spec_slow_factor(&s, "n3") == 0.5 && gc_spec_slow_factor(&s, "n1") == 1.0);
	CHECK(gc_spec_host_cap(&s, 1000000000ull, "n3") == 500000000ull);
	CHECK(gc_spec_host_cap(&s, 2000000000ull, "n4") == 1750000000ull);
	CHECK(gc_spec_host_cap(&s, 2000000000ull, "n2") == 2000000000ull);
	CHECK(gc_spec_host_cap(&s, 0, "n3") == 0);
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

static void reject(const char *tail, const char *want)
{
	spec_reject("t.yaml", BASE, tail, want);
}

static void test_slow_rejects(void)
{
	reject("bandwidth: [1gbit]\nslow: [n3]\n", "t.yaml:8:7: 'slow' is a list");
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
	GCT_RUN(test_slow_rejects);
	return gct_finish();
}

/* tests/unit/test_spec_uplink.c: uplink: RATE and oversubscription: RATIO in a sweep
 * spec (an axis): the values, each rack's rate, the point key and the canonical text
 * (both changed only when used), exclude entries naming them, and every malformed form
 * with its line. */
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

static void test_uplink_values(void)
{
	struct gc_spec s;
	struct gc_diags d;

	CHECK(parse(BASE "bandwidth: [1gbit]\nuplink: [1gbit, 500mbit]\n", &s, &d) == GC_OK);
	CHECK(s.n_uplink == 2 && s.uplink[0].bps == 1000000000ull && s.uplink[1].ratio == 0);
	CHECK(gc_spec_uplink_bps(&s.uplink[1], 2000000000ull) == 500000000ull);
	CHECK(gc_spec_uplink_bps(NULL, 2000000000ull) == 0);
	CHECK_CONTAINS(s.canonical, "\nuplink=1000000000,500000000\n");
	CHECK(gc_spec_axis_len(&s, GC_AX_UPLINK) == 2);
	gc_spec_release(&s);
	gc_diags_release(&d);
	CHECK(parse(BASE "bandwidth: [1gbit]\noversubscription: [1, 2, '4:1', 1.5]\n", &s, &d) ==
	      GC_OK);
	CHECK(s.n_uplink == 4 && s.uplink[1].ratio == 2 && s.uplink[2].ratio == 4 &&
	      s.uplink[0].bps == 0);
	/* two hosts of 1 Gbit/s at 2:1 share 1 Gbit/s; 1.5:1 rounds to the bit */
	CHECK(gc_spec_uplink_bps(&s.uplink[1], 2000000000ull) == 1000000000ull);
	CHECK(gc_spec_uplink_bps(&s.uplink[3], 1000000000ull) == 666666667ull);
	CHECK(gc_spec_uplink_bps(&s.uplink[2], 1000ull) == 1000000ull);   /* at least 1mbit */
	CHECK_CONTAINS(s.canonical, "\nuplink=1:1,2:1,4:1,1.5:1\n");
	gc_spec_release(&s);
	gc_diags_release(&d);
}

/* the axis enters the key and the hash only when used; exclude names its values */
static void test_uplink_key_and_hash(void)
{
	struct gc_spec a, b;
	struct gc_sweep sa, sb;
	struct gc_diags d1, d2;
	gc_err e;

	CHECK(parse(BASE "bandwidth: [1gbit]\n", &a, &d1) == GC_OK);
	CHECK(parse(BASE "bandwidth: [1gbit]\noversubscription: [1, 2, 4]\n"
		    "exclude: [{uplink: '4:1'}]\n", &b, &d2) == GC_OK);
	CHECK(strstr(a.canonical, "uplink") == NULL);
	CHECK(strcmp(a.hash, b.hash) != 0);
	CHECK(gc_sweep_expand(&a, &sa, &e) == GC_OK && gc_sweep_expand(&b, &sb, &e) == GC_OK);
	CHECKF(sa.n == 1 && sb.n == 2, "%zu %zu", sa.n, sb.n);
	CHECKF(strstr(sa.pts[0].key, "uplink") == NULL && sa.pts[0].uplink == NULL, "%s",
	       sa.pts[0].key);
	CHECKF(!strncmp(sb.pts[0].key, sa.pts[0].key, strlen(sa.pts[0].key)) &&
	       !strcmp(sb.pts[0].key + strlen(sa.pts[0].key), ";uplink=1:1") &&
	       !strcmp(sb.pts[1].key + strlen(sa.pts[0].key), ";uplink=2:1"),
	       "%s / %s", sb.pts[0].key, sb.pts[1].key);
	CHECK(sb.pts[1].uplink && sb.pts[1].uplink->ratio == 2);
	gc_sweep_release(&sa);
	gc_sweep_release(&sb);
	gc_spec_release(&a);
	gc_spec_release(&b);
	gc_diags_release(&d1);
	gc_diags_release(&d2);
}

static const struct spec_bad uplink_bad[] = {
	{ "bandwidth: [1gbit]\nuplink: 1gbps\n", "t.yaml:8:9: uplink is" },
	{ "bandwidth: [1gbit]\nuplink: 1000\n", "uplink is" },
	{ "bandwidth: [1gbit]\nuplink: unlimited\n", "'unlimited', which is no uplink" },
	{ "bandwidth: [1gbit]\nuplink: 500gbit\n", "uplink is" },
	{ "bandwidth: [1gbit]\nuplink: [1gbit, 1000mbit]\n", "uplink: this value is given twice" },
	{ "bandwidth: [1gbit]\nuplink: {a: 1}\n", "'uplink'" },
	{ "bandwidth: [1gbit]\nuplink: []\n", "'uplink'" },
	{ "bandwidth: [1gbit]\noversubscription: 0.5\n",
	  "t.yaml:8:19: oversubscription is the ratio" },
	{ "bandwidth: [1gbit]\noversubscription: 2:2\n", "oversubscription is the ratio" },
	{ "bandwidth: [1gbit]\noversubscription: nan\n", "oversubscription is the ratio" },
	{ "bandwidth: [1gbit]\noversubscription: 1001\n", "oversubscription is the ratio" },
	{ "bandwidth: [1gbit]\noversubscription: -2\n", "oversubscription is the ratio" },
	{ "bandwidth: [1gbit]\noversubscription: [2, '2:1']\n", "given twice" },
	{ "bandwidth: [1gbit]\nuplink: 1gbit\noversubscription: 2\n",
	  "t.yaml:9:19: the spec gives both 'uplink' and 'oversubscription'" },
	{ "bandwidth: [1gbit, unlimited]\noversubscription: 2\n",
	  "bandwidth 'unlimited' has none" },
	{ "bandwidth: [1gbit]\noversubscription: [2]\nexclude: [{uplink: 3}]\n",
	  "exclude: this uplink is not a value of the sweep" },
	{ "bandwidth: [1gbit]\nuplink: [1gbit]\nexclude: [{uplink: fast}]\n", "uplink is" },
	{ "bandwidth: [1gbit]\nuplnk: 1gbit\n",
	  "t.yaml:8:1: unknown key in the spec; did you mean 'uplink'?" },
};

static void test_uplink_rejects(void)
{
	SPEC_REJECT_TABLE("t.yaml", BASE, uplink_bad);
}

int main(void)
{
	GCT_SUITE("spec_uplink");
	GCT_RUN(test_uplink_values);
	GCT_RUN(test_uplink_key_and_hash);
	GCT_RUN(test_uplink_rejects);
	return gct_finish();
}

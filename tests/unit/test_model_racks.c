/* tests/unit/test_model_racks.c: a ring's bottleneck over racks that share uplinks
 * (model/racks.h), against counts done by hand. */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "model/racks.h"

#define G 1e9

/* 4 hosts in 2 racks, ring n1 n2 n3 n4: one flow each way over the uplink */
static void test_contiguous_ring(void)
{
	int host[] = { 0, 1, 2, 3 }, rack[] = { 1, 1, 2, 2 };
	double up[] = { 1 * G, 1 * G };
	struct gc_racks_ring r;

	gc_racks_ring(host, rack, 4, up, &r);
	CHECK(r.crossings == 2 && r.max_flows == 1);
	CHECK(fabs(r.bps - 1 * G) < 1);
	up[0] = 0.5 * G;   /* one slower uplink binds the hops through it */
	gc_racks_ring(host, rack, 4, up, &r);
	CHECK(fabs(r.bps - 0.5 * G) < 1);
}

/* ring n1 n3 n2 n4 with racks {n1,n2} {n3,n4}: every hop crosses, two flows each way */
static void test_alternating_ring(void)
{
	int host[] = { 0, 2, 1, 3 }, rack[] = { 1, 2, 1, 2 };
	double up[] = { 1 * G, 1 * G };
	struct gc_racks_ring r;

	gc_racks_ring(host, rack, 4, up, &r);
	CHECK(r.crossings == 4 && r.max_flows == 2);
	CHECK(fabs(r.bps - 0.5 * G) < 1);
}

/* two ranks per host: hops inside a host never touch a link */
static void test_same_host_and_one_rack(void)
{
	int host[] = { 0, 0, 1, 1 }, rack[] = { 1, 1, 2, 2 }, one[] = { 1, 1, 1, 1 };
	double up[] = { 2 * G, 2 * G };
	struct gc_racks_ring r;

	gc_racks_ring(host, rack, 4, up, &r);
	CHECK(r.crossings == 2 && fabs(r.bps - 2 * G) < 1);
	gc_racks_ring(host, one, 4, up, &r);
	CHECK(r.crossings == 0 && r.bps == 0);
	gc_racks_ring(host, rack, 1, up, &r);
	CHECK(r.crossings == 0 && r.bps == 0);
}

/* what-if: 4 nodes at 1 Gbit/s in 2 racks; 2:1 leaves 1 Gbit/s per uplink, one flow
 * each way: no change; 4:1 halves it; 8 nodes in 2 racks at 4:1 still 1 flow: 1 G */
static void test_even_racks(void)
{
	CHECK(fabs(gc_racks_even_bps(4, 1, 2, 1 * G, 0, 2) - 1 * G) < 1);
	CHECK(fabs(gc_racks_even_bps(4, 1, 2, 1 * G, 0, 4) - 0.5 * G) < 1);
	CHECK(fabs(gc_racks_even_bps(8, 1, 2, 1 * G, 0, 4) - 1 * G) < 1);
	CHECK(fabs(gc_racks_even_bps(8, 1, 2, 1 * G, 0, 8) - 0.5 * G) < 1);
	CHECK(fabs(gc_racks_even_bps(4, 1, 2, 1 * G, 0.25 * G, 0) - 0.25 * G) < 1);
	CHECK(fabs(gc_racks_even_bps(4, 1, 1, 1 * G, 0.25 * G, 0) - 1 * G) < 1);   /* one rack */
	CHECK(fabs(gc_racks_even_bps(8, 4, 2, 1 * G, 0.5 * G, 0) - 0.5 * G) < 1);  /* 2 nodes */
}

int main(void)
{
	GCT_SUITE("model_racks");
	GCT_RUN(test_contiguous_ring);
	GCT_RUN(test_alternating_ring);
	GCT_RUN(test_same_host_and_one_rack);
	GCT_RUN(test_even_racks);
	return gct_finish();
}

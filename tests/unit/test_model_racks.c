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

/* mpirun --map-by node: one rank per host in turn, full hosts skipped (counted by hand) */
static void test_place_by_node(void)
{
	int even[] = { 2, 2 }, uneven[] = { 2, 2, 1, 1 }, few[] = { 1, 3 }, host[8];
	int want_even[] = { 0, 1, 0, 1 }, want_uneven[] = { 0, 1, 2, 3, 0, 1 };
	int want_few[] = { 0, 1, 1, 1 };

	gc_ring_place_by_node(even, 2, host, 4);
	CHECK(!memcmp(host, want_even, sizeof(want_even)));
	gc_ring_place_by_node(uneven, 4, host, 6);
	CHECK(!memcmp(host, want_uneven, sizeof(want_uneven)));
	gc_ring_place_by_node(few, 2, host, 4);
	CHECK(!memcmp(host, want_few, sizeof(want_few)));
	gc_ring_place_by_node(few, 2, host, 5);       /* more ranks than slots */
	CHECK(host[4] == -1);
}

/* the ring's flows on the busiest host link */
static void test_host_flows(void)
{
	int rr4[] = { 0, 1, 0, 1 };              /* 4 ranks by node on 2 hosts: every hop leaves */
	int block4[] = { 0, 0, 1, 1 };           /* block placement: one hop out of each host */
	int rr6[] = { 0, 1, 2, 3, 0, 1 };        /* 2,2,1,1: hosts 0 and 1 send 2 each */
	int rr5[] = { 0, 1, 0, 1, 0 };           /* 3,2: 4 -> 0 stays on host 0 */
	int one[] = { 0, 0, 0 }, flat[] = { 0, 1, 2, 3 };

	CHECK(gc_ring_host_flows(rr4, 4) == 2);
	CHECK(gc_ring_host_flows(block4, 4) == 1);
	CHECK(gc_ring_host_flows(rr6, 6) == 2);
	CHECK(gc_ring_host_flows(rr5, 5) == 2);
	CHECK(gc_ring_host_flows(one, 3) == 0);
	CHECK(gc_ring_host_flows(flat, 4) == 1);
	CHECK(gc_ring_host_flows(flat, 1) == 0);
	/* a linear all-gather: r (n - r) blocks leave a host of r ranks, n - 1 a ring's */
	CHECK(fabs(gc_gather_host_flows(rr4, 4) - 4.0 / 3) < 1e-12);     /* 2 x 2 / 3 */
	CHECK(fabs(gc_gather_host_flows(block4, 4) - 4.0 / 3) < 1e-12);  /* placement-blind */
	CHECK(fabs(gc_gather_host_flows(rr6, 6) - 8.0 / 5) < 1e-12);     /* 2 x 4 / 5 */
	CHECK(fabs(gc_gather_host_flows(flat, 4) - 1) < 1e-12);          /* 1 x 3 / 3 */
	CHECK(gc_gather_host_flows(one, 3) == 0);                         /* 3 x 0 / 2 */
	CHECK(gc_gather_host_flows(flat, 1) == 0);
}

int main(void)
{
	GCT_SUITE("model_racks");
	GCT_RUN(test_contiguous_ring);
	GCT_RUN(test_alternating_ring);
	GCT_RUN(test_same_host_and_one_rack);
	GCT_RUN(test_even_racks);
	GCT_RUN(test_place_by_node);
	GCT_RUN(test_host_flows);
	return gct_finish();
}

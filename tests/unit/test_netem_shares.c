/* tests/unit/test_netem_shares.c: the leaves of gcbench-netem shares (netem/shares.h):
 * each --leaf form parsed, every malformed one refused with a message, the checks a
 * set of leaves passes before anything is touched, and the port ranges' blocks. */
#include <string.h>

#include "harness.h"
#include "netem/shares.h"

static struct gc_share_leaf L;   /* large (64 addresses): not on the stack of each test */

static void test_parse_forms(void)
{
	gc_err e;

	CHECK(gc_share_leaf_parse("default=10mbit", &L, &e) == GC_OK);
	CHECK(L.match == GC_SHARE_DEFAULT && L.rate_bps == 10000000u);
	CHECK(gc_share_leaf_parse("src:10.213.5.2=495mbit", &L, &e) == GC_OK);
	CHECK(L.match == GC_SHARE_SRC && L.n_addr == 1 && L.addr[0].addr == 0x0ad50502u &&
	      L.addr[0].prefix == 32 && L.rate_bps == 495000000u);
	CHECK(gc_share_leaf_parse("dst:10.0.0.0/24,10.0.1.5=1gbit", &L, &e) == GC_OK);
	CHECK(L.match == GC_SHARE_DST && L.n_addr == 2 && L.addr[0].prefix == 24 &&
	      L.addr[1].addr == 0x0a000105u && L.rate_bps == 1000000000u);
	CHECK(gc_share_leaf_parse("port:5310-5317=500mbit", &L, &e) == GC_OK);
	CHECK(L.match == GC_SHARE_PORT && L.port_lo == 5310 && L.port_hi == 5317);
	CHECK(gc_share_leaf_parse("port:22=8bit", &L, &e) == GC_OK);
	CHECK(L.port_lo == 22 && L.port_hi == 22 && L.rate_bps == 8);
	CHECK(gc_share_leaf_parse("port:1-65535=1.5gbit", &L, &e) == GC_OK);
	CHECK(L.port_lo == 1 && L.port_hi == 65535 && L.rate_bps == 1500000000u);
}

static void test_parse_malformed(void)
{
	static const char *const bad[] = {
		"", "default", "default=", "=10mbit", "default=10", "default=10gbps",
		"default=-1mbit", "default=x", "default=unlimited", "default:=10mbit",
		"default:10.0.0.1=10mbit", "defaults=10mbit", "src=10mbit", "src:=10mbit",
		"src:10.0.0.256=10mbit", "src:10.0.0.1/24=10mbit", "src:10.0.0.1,=10mbit",
		"src:,10.0.0.1=10mbit", "src:10.0.0.1,,10.0.0.2=10mbit", "dst:fe80::1=10mbit",
		"dst:host=10mbit", "port:0=10mbit", "port:0-5=10mbit", "port:65536=10mbit",
		"port:10-5=10mbit", "port:5-=10mbit", "port:-5=10mbit", "port:=10mbit",
		"port:05=10mbit", "port:5-6-7=10mbit", "port:a=10mbit", "port=10mbit",
		"sport:5=10mbit", "SRC:10.0.0.1=10mbit", "port:5=10mbit=10mbit",
		"src:10.0.0.1 =10mbit", "port:5 =10mbit",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gc_err e = { { 0 } };
		CHECKF(gc_share_leaf_parse(bad[i], &L, &e) == GC_E_INVAL && e.msg[0],
		       "accepted '%s'", bad[i]);
	}
	CHECK(gc_share_leaf_parse(NULL, &L, NULL) == GC_E_INVAL);
}

static void test_parse_too_many_addresses(void)
{
	char s[1400];
	size_t n = 0;
	gc_err e = { { 0 } };

	n += (size_t)snprintf(s, sizeof(s), "src:");
	for (int i = 0; i < GC_SHARES_MAX_ADDR; i++)
		n += (size_t)snprintf(s + n, sizeof(s) - n, "%s10.0.%d.1", i ? "," : "", i);
	snprintf(s + n, sizeof(s) - n, "=1mbit");
	CHECK(gc_share_leaf_parse(s, &L, &e) == GC_OK && L.n_addr == GC_SHARES_MAX_ADDR);
	snprintf(s + n, sizeof(s) - n, ",10.1.0.1=1mbit");
	CHECK(gc_share_leaf_parse(s, &L, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "more than");
}

static struct gc_share_leaf set[GC_SHARES_MAX_LEAVES + 1];

static void leaf(size_t i, const char *spec)
{
	gc_err e;
	if (gc_share_leaf_parse(spec, &set[i], &e))
		memset(&set[i], 0, sizeof(set[i]));
}

static void test_check(void)
{
	gc_err e = { { 0 } };

	leaf(0, "default=10mbit");
	leaf(1, "src:10.0.0.2=495mbit");
	leaf(2, "src:10.0.0.3=495mbit");
	CHECK(gc_shares_check(1000000000u, set, 3, &e) == GC_OK);
	CHECK(gc_shares_check(1000000000u, set, 1, &e) == GC_OK);       /* default alone */
	CHECK(gc_shares_check(999999999u, set, 3, &e) == GC_E_INVAL);    /* sum above cap */
	CHECK_CONTAINS(e.msg, "above the cap");
	CHECK(gc_shares_check(1000000000u, set + 1, 2, &e) == GC_E_INVAL); /* no default */
	CHECK_CONTAINS(e.msg, "no default");
	leaf(3, "default=1mbit");
	CHECK(gc_shares_check(2000000000u, set, 4, &e) == GC_E_INVAL);    /* two defaults */
	CHECK_CONTAINS(e.msg, "more than one default");
	CHECK(gc_shares_check(1000000000u, set, 0, &e) == GC_E_INVAL);
	CHECK(gc_shares_check(0, set, 1, &e) == GC_E_INVAL);              /* no cap */
	set[1].rate_bps = 0;                                             /* below plan's range */
	CHECK(gc_shares_check(1000000000u, set, 2, &e) == GC_E_INVAL);
	set[1].rate_bps = 1000;
	set[1].n_addr = 0;                                               /* built by hand */
	CHECK(gc_shares_check(1000000000u, set, 2, &e) == GC_E_INVAL);
	leaf(1, "port:10-20=1mbit");
	set[1].port_lo = 30;
	CHECK(gc_shares_check(1000000000u, set, 2, &e) == GC_E_INVAL);
	for (size_t i = 1; i <= GC_SHARES_MAX_LEAVES; i++)
		leaf(i, "port:10=1mbit");
	CHECK(gc_shares_check(1000000000u, set, GC_SHARES_MAX_LEAVES, &e) == GC_OK);
	CHECK(gc_shares_check(1000000000u, set, GC_SHARES_MAX_LEAVES + 1, &e) == GC_E_INVAL);
}

/* the blocks cover lo..hi exactly, each aligned to its own size */
static int blocks_cover(unsigned lo, unsigned hi)
{
	uint16_t v[32], m[32];
	size_t n = gc_share_port_blocks((uint16_t)lo, (uint16_t)hi, v, m, 32);
	unsigned next = lo;

	if (n == 0 || n > 32)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned size = 0x10000u - m[i];
		if (v[i] != next || (v[i] & ~m[i] & 0xffffu) || next + size - 1 > hi)
			return 0;
		next += size;
	}
	return next == hi + 1;
}

static void test_port_blocks(void)
{
	uint16_t v[32], m[32];

	/* 5310-5311, 5312-5315, 5316-5317 */
	CHECK(gc_share_port_blocks(5310, 5317, v, m, 32) == 3);
	CHECK(v[0] == 5310 && m[0] == 0xfffe && v[1] == 5312 && m[1] == 0xfffc &&
	      v[2] == 5316 && m[2] == 0xfffe);
	CHECK(gc_share_port_blocks(5312, 5319, v, m, 32) == 1 && v[0] == 5312 && m[0] == 0xfff8);
	CHECK(gc_share_port_blocks(80, 80, v, m, 32) == 1 && m[0] == 0xffff);
	CHECK(gc_share_port_blocks(1, 65535, v, m, 32) == 16);
	CHECK(blocks_cover(5310, 5317) && blocks_cover(1, 65535) && blocks_cover(2, 65534) &&
	      blocks_cover(65535, 65535) && blocks_cover(1023, 1025));
	for (unsigned lo = 1; lo < 300; lo += 7)
		for (unsigned hi = lo; hi < 700; hi += 13)
			CHECKF(blocks_cover(lo, hi), "%u-%u", lo, hi);
}

int main(void)
{
	GCT_SUITE("netem_shares");
	GCT_RUN(test_parse_forms);
	GCT_RUN(test_parse_malformed);
	GCT_RUN(test_parse_too_many_addresses);
	GCT_RUN(test_check);
	GCT_RUN(test_port_blocks);
	return gct_finish();
}

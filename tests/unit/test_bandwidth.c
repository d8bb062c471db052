/* tests/unit/test_bandwidth.c: common/bandwidth, the one cap syntax and its printer. */
#include "harness.h"

#include "bandwidth.h"

static void test_caps_accepted(void)
{
	static const struct { const char *s; uint64_t bps; } ok[] = {
		{ "unlimited", 0 }, { "UNLIMITED", 0 }, { "1mbit", 1000000 },
		{ "100mbit", 100000000 }, { "10gbit", 10000000000ull }, { "0.1gbit", 100000000 },
		{ "400gbit", 400000000000ull }, { "10Gbit", 10000000000ull },
	};
	uint64_t b;
	gc_err e;

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		CHECKF(gc_bw_parse(ok[i].s, 0, &b, &e) == GC_OK, "%s: %s", ok[i].s, e.msg);
		CHECKF(b == ok[i].bps, "%s: %llu", ok[i].s, (unsigned long long)b);
	}
}

static void test_caps_refused(void)
{
	static const char *const bad[] = { "", "10", "0", "0bit", "999kbit", "401gbit", "1tbit",
		"10 gbit", "-1gbit", "1e9bit", "10gbps", "gbit", "10gbitx", "inf", "nan",
		"unlimitedx", "0x10gbit" };
	uint64_t b = 7;
	gc_err e;

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECKF(gc_bw_parse(bad[i], 0, &b, &e) == GC_E_INVAL, "'%s' accepted", bad[i]);
		CHECK(b == 7);
	}
	CHECK(gc_bw_parse(NULL, 0, &b, &e) == GC_E_INVAL);
}

static void test_bare_number_hints(void)
{
	char h[160];
	uint64_t b;
	gc_err e;

	CHECK_CONTAINS(gc_bw_hint("10", GC_BW_BARE_GBIT, h, sizeof h), "write 10gbit for 10 Gbit/s");
	CHECK_CONTAINS(gc_bw_hint("0", 0, h, sizeof h), "write unlimited");
	CHECK(!strstr(h, "0bit"));
	CHECK_CONTAINS(gc_bw_hint("0", GC_BW_BARE_GBIT, h, sizeof h), "write unlimited");
	CHECK_CONTAINS(gc_bw_hint("1000000000", 0, h, sizeof h), "write 1gbit for 1000000000 bits/s");
	CHECK_CONTAINS(gc_bw_hint("1000000000", GC_BW_BARE_GBIT, h, sizeof h), "write 1gbit for");
	CHECK_CONTAINS(gc_bw_hint("10", 0, h, sizeof h), "write 10gbit for 10 Gbit/s");
	CHECK_CONTAINS(gc_bw_hint("1000", 0, h, sizeof h), "write e.g. 10gbit or 500mbit");
	CHECK_CONTAINS(gc_bw_hint("0.5", GC_BW_BARE_GBIT, h, sizeof h), "write 0.5gbit");
	CHECK_CONTAINS(gc_bw_hint("100kbit", 0, h, sizeof h), "out of range; use 1mbit to 400gbit");
	CHECK_CONTAINS(gc_bw_hint("apples", 0, h, sizeof h), "not a rate; write a number and a unit");
	CHECK(gc_bw_parse("10", GC_BW_BARE_GBIT, &b, &e) == GC_E_INVAL);
	CHECK_STR(e.msg, "bandwidth '10' is not a rate: a number needs a unit; write 10gbit for 10 Gbit/s");
	CHECK(gc_bw_parse("2tbit", 0, &b, &e) == GC_E_INVAL);
	CHECK_STR(e.msg, "bandwidth '2tbit' is out of range; use 1mbit to 400gbit, or unlimited");
}

static void test_print_round_trip(void)
{
	static const uint64_t v[] = { 0, 1000000, 100000000, 1500000000, 10000000000ull,
		400000000000ull, 123456789 };
	char buf[32];
	uint64_t b;
	gc_err e;

	CHECK_STR(gc_bw_format(0, buf, sizeof buf), "unlimited");
	CHECK_STR(gc_bw_format(100000000, buf, sizeof buf), "100mbit");
	CHECK_STR(gc_bw_format(10000000000ull, buf, sizeof buf), "10gbit");
	CHECK_STR(gc_bw_format(1500000000, buf, sizeof buf), "1500mbit");
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		gc_bw_format(v[i], buf, sizeof buf);
		CHECKF(gc_bw_parse(buf, 0, &b, &e) == GC_OK && b == v[i], "%s", buf);
	}
}

int main(void)
{
	GCT_SUITE("bandwidth");
	GCT_RUN(test_caps_accepted);
	GCT_RUN(test_caps_refused);
	GCT_RUN(test_bare_number_hints);
	GCT_RUN(test_print_round_trip);
	return gct_finish();
}

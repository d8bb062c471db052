/* tests/unit/test_netem_rate.c: tc units, the gbps trap, bursts and the rate -> qdisc
 * mapping (pure functions: no root, no kernel). */
#include <stdint.h>

#include "harness.h"
#include "netem/rate.h"

static uint64_t rate_ok(const char *s, int *ok)
{
	uint64_t v = 0;
	gc_err e = { { 0 } };
	*ok = gc_rate_parse(s, &v, &e) == GC_OK;
	return v;
}

static void test_rate_units(void)
{
	static const struct { const char *s; uint64_t v; } t[] = {
		{ "8bit", 8 }, { "1kbit", 1000 }, { "1mbit", 1000000 }, { "30gbit", 30000000000ull },
		{ "1tbit", 1000000000000ull }, { "1kibit", 1024 }, { "1mibit", 1048576 },
		{ "1gibit", 1073741824ull }, { "1tibit", 1099511627776ull }, { "1.5gbit", 1500000000ull },
		{ "10GBIT", 10000000000ull }, { "0.25mbit", 250000 }, { "007gbit", 7000000000ull },
		{ "34.359738360gbit", 34359738360ull }, { "1000tbit", GC_RATE_MAX },
	};
	size_t i;
	int ok;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint64_t v = rate_ok(t[i].s, &ok);
		CHECKF(ok, "'%s' rejected", t[i].s);
		CHECKF(v == t[i].v, "'%s' -> %llu, want %llu", t[i].s, (unsigned long long)v,
		       (unsigned long long)t[i].v);
	}
}

static void test_rate_rejects(void)
{
	static const char *bad[] = {
		"", "0gbit", "0bit", "7bit", "-1gbit", "+1gbit", " 1gbit", "1gbit ", "1 gbit",
		"gbit", "1", "1000", "nan", "inf", "nanbit", "infgbit", "1e9bit", "0x10gbit",
		"1.gbit", ".5gbit", "1..5gbit", "1.5.5gbit", "1gbitx", "1gb", "1g", "1001tbit",
		"99999999999999999999gbit", "1234567890123456789bit", "1kbit/s", "1,5gbit",
	};
	size_t i;
	uint64_t v;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gc_err e = { { 0 } };
		CHECKF(gc_rate_parse(bad[i], &v, &e) == GC_E_INVAL, "'%s' accepted", bad[i]);
		CHECKF(e.msg[0], "'%s': no message", bad[i]);
	}
}

static void test_rate_messages(void)
{
	gc_err e = { { 0 } };
	uint64_t v;

	CHECK(gc_rate_parse("", &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "empty rate");
	CHECK(gc_rate_parse("1000", &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "no unit");
	CHECK(gc_rate_parse("5furlongs", &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "unknown unit 'furlongs'");
	CHECK(gc_rate_parse("2000tbit", &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "too large");
}

static void test_gbps_trap(void)
{
	gc_err e = { { 0 } };
	uint64_t v = 0;

	CHECK(gc_rate_parse("30gbps", &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "'30gbps'");
	CHECK_CONTAINS(e.msg, "30 gigaBYTES/s");
	CHECK_CONTAINS(e.msg, "30 gigabits/s");
	CHECK_CONTAINS(e.msg, "write 30gbit");
	CHECK_CONTAINS(e.msg, "240gbit");
	CHECK(gc_rate_parse("100mbps", &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "100mbit");
	CHECK(gc_rate_parse("1kibps", &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "1kibit");
	CHECK(gc_rate_parse_flags("30gbps", GC_RATE_ALLOW_BYTES, &v, &e) == GC_OK);
	CHECK(v == 240000000000ull);
	CHECK(gc_rate_parse_flags("1bps", GC_RATE_ALLOW_BYTES, &v, &e) == GC_OK);
	CHECK(v == 8);
	CHECK(gc_rate_parse_flags("1mibps", GC_RATE_ALLOW_BYTES, &v, &e) == GC_OK);
	CHECK(v == 8ull * 1048576);
}

static void test_size_units(void)
{
	static const struct { const char *s; uint64_t v; } t[] = {
		{ "1", 1 }, { "1500", 1500 }, { "1500b", 1500 }, { "64k", 65536 }, { "64kb", 65536 },
		{ "1m", 1048576 }, { "1MB", 1048576 }, { "1g", 1073741824ull }, { "2gb", 2147483648ull },
		{ "8kbit", 1024 }, { "1mbit", 131072 }, { "1gbit", 134217728 }, { "1.5k", 1536 },
	};
	static const char *bad[] = { "", "0", "0kb", "-1", "1x", "4g", "5gb", "k", "1 kb", "nan",
				     "1kib", "1e3" };
	size_t i;
	uint64_t v;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		gc_err e = { { 0 } };
		CHECKF(gc_size_parse(t[i].s, &v, &e) == GC_OK, "'%s': %s", t[i].s, e.msg);
		CHECKF(v == t[i].v, "'%s' -> %llu", t[i].s, (unsigned long long)v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gc_err e = { { 0 } };
		CHECKF(gc_size_parse(bad[i], &v, &e) == GC_E_INVAL, "'%s' accepted", bad[i]);
		CHECKF(e.msg[0], "'%s': no message", bad[i]);
	}
}

static void test_format_roundtrip(void)
{
	static const uint64_t r[] = { 8, 123, 1000, 1500000000ull, 30000000000ull, 1024,
				      34359738360ull, 40000000000ull, GC_RATE_MAX, 1000001 };
	static const uint64_t z[] = { 1, 1500, 65536, 1048576, 1073741824ull, 3u << 30, 65537 };
	char buf[64];
	size_t i;
	uint64_t v;

	CHECK_STR(gc_rate_format(30000000000ull, buf, sizeof(buf)), "30gbit");
	CHECK_STR(gc_rate_format(1500000000ull, buf, sizeof(buf)), "1500mbit");
	CHECK_STR(gc_rate_format(123, buf, sizeof(buf)), "123bit");
	CHECK_STR(gc_size_format(65536, buf, sizeof(buf)), "64kb");
	CHECK_STR(gc_size_format(1500, buf, sizeof(buf)), "1500b");
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		CHECK(gc_rate_parse(gc_rate_format(r[i], buf, sizeof(buf)), &v, NULL) == GC_OK);
		CHECKF(v == r[i], "%s", buf);
	}
	for (i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
		CHECK(gc_size_parse(gc_size_format(z[i], buf, sizeof(buf)), &v, NULL) == GC_OK);
		CHECKF(v == z[i], "%s", buf);
	}
}

static void test_burst_default(void)
{
	CHECK_EQ_INT(gc_burst_default(8), 65536);
	CHECK_EQ_INT(gc_burst_default(100000000ull), 65536);        /* 100 Mbit: 50 kB < 64 KiB */
	CHECK_EQ_INT(gc_burst_default(1000000000ull), 500000);      /* 1 Gbit x 4 ms = 500 kB */
	CHECK_EQ_INT(gc_burst_default(5000000000ull), 2500000);
	CHECK_EQ_INT(gc_burst_default(30000000000ull), 15000000);
	CHECK_EQ_INT(gc_burst_default(131072000ull), 65536);        /* crossover exactly */
	CHECK_EQ_INT(gc_burst_default(131074001ull), 65538);        /* rounded up */
}

static void test_plan_tbf_htb(void)
{
	struct gc_qdisc_plan p;
	gc_err e = { { 0 } };

	CHECK(gc_qdisc_plan_make(30000000000ull, 0, &p, &e) == GC_OK);
	CHECK(p.kind == GC_QDISC_TBF);
	CHECK(p.rate_bytes == 3750000000ull);
	CHECK_EQ_INT(p.burst, 15000000);
	CHECK_EQ_INT(p.limit, 15000000 + 37500000);
	/* the last rate TBF holds: UINT32_MAX bytes/s */
	CHECK(gc_qdisc_plan_make(34359738360ull, 0, &p, &e) == GC_OK);
	CHECK(p.kind == GC_QDISC_TBF && p.rate_bytes == 4294967295ull);
	CHECK(gc_qdisc_plan_make(34359738368ull, 0, &p, &e) == GC_OK);
	CHECK(p.kind == GC_QDISC_HTB && p.rate_bytes == 4294967296ull);
	CHECK(gc_qdisc_plan_make(40000000000ull, 0, &p, &e) == GC_OK);
	CHECK(p.kind == GC_QDISC_HTB && p.rate_bytes == 5000000000ull);
	CHECK_EQ_INT(p.burst, 20000000);
	CHECK(p.quantum >= 1514);
	CHECK(gc_qdisc_plan_make(1000000000ull, 100000, &p, &e) == GC_OK);
	CHECK(p.kind == GC_QDISC_TBF && p.burst == 100000 && p.rate_bytes == 125000000);
	CHECK_STR(gc_qdisc_kind_name(GC_QDISC_HTB), "htb");
	CHECK_STR(gc_qdisc_kind_name(GC_QDISC_TBF), "tbf");
}

static void test_plan_rejects(void)
{
	struct gc_qdisc_plan p;
	gc_err e = { { 0 } };

	CHECK(gc_qdisc_plan_make(0, 0, &p, &e) == GC_E_INVAL);
	CHECK(gc_qdisc_plan_make(GC_RATE_MAX + 1, 0, &p, &e) == GC_E_INVAL);
	CHECK(gc_qdisc_plan_make(1000000000ull, 1000, &p, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "burst 1000 bytes");
	CHECK(gc_qdisc_plan_make(1000000000ull, 1ull << 33, &p, &e) == GC_E_INVAL);
}

/* The delay parser (gcbench-netem --delay): tc's time units, strictly. */
static void test_time_units(void)
{
	uint32_t us;
	char f[32];
	gc_err e;

	CHECK(gc_time_parse("0", &us, NULL) == GC_OK && us == 0);
	CHECK(gc_time_parse("10msec", &us, NULL) == GC_OK && us == 10000);
	CHECK(gc_time_parse("10MS", &us, NULL) == GC_OK && us == 10000);
	CHECK(gc_time_parse("2secs", &us, NULL) == GC_OK && us == 2000000);
	CHECK(gc_time_parse("7usecs", &us, NULL) == GC_OK && us == 7);
	CHECK(gc_time_parse("0.5ms", &us, NULL) == GC_OK && us == 500);
	CHECK(gc_time_parse("60s", &us, NULL) == GC_OK && us == 60000000);
	CHECK(gc_time_parse("1us", &us, NULL) == GC_OK && us == 1);
	CHECK(strcmp(gc_time_format(10000, f, sizeof(f)), "10ms") == 0);
	CHECK(strcmp(gc_time_format(2000000, f, sizeof(f)), "2s") == 0);
	CHECK(strcmp(gc_time_format(1500, f, sizeof(f)), "1500us") == 0);
	CHECK(strcmp(gc_time_format(0, f, sizeof(f)), "0us") == 0);
	CHECK(gc_time_parse(f, &us, NULL) == GC_OK && us == 0);
	/* a nonzero time that would round to no delay at all */
	CHECK(gc_time_parse("0.1us", &us, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "below 1 us");
	CHECK(gc_time_parse("10ns", &us, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "needs a unit");
	CHECK(gc_time_parse("10 ms", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse(" 10ms", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse("10ms ", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse("+10ms", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse("1e3ms", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse("0x10ms", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse("nanms", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse("10mss", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse(".5ms", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse("5.ms", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse("ms", &us, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "invalid time 'ms'");
	CHECK(gc_time_parse("60.000001s", &us, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "above 60 s");
	CHECK(gc_time_parse("99999999999999999999999ms", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse(NULL, &us, NULL) == GC_E_INVAL);
}

static void test_time_percent(void)
{
	uint32_t us;
	double p;

	CHECK(gc_time_parse("10ms", &us, NULL) == GC_OK && us == 10000);
	CHECK(gc_time_parse("1.5s", &us, NULL) == GC_OK && us == 1500000);
	CHECK(gc_time_parse("250us", &us, NULL) == GC_OK && us == 250);
	CHECK(gc_time_parse("0ms", &us, NULL) == GC_OK && us == 0);
	CHECK(gc_time_parse("10", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse("61s", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse("-1ms", &us, NULL) == GC_E_INVAL);
	CHECK(gc_time_parse("", &us, NULL) == GC_E_INVAL);
	CHECK(gc_percent_parse("0.1%", &p, NULL) == GC_OK && fabs(p - 0.1) < 1e-12);
	CHECK(gc_percent_parse("100", &p, NULL) == GC_OK && p == 100);
	CHECK(gc_percent_parse("101%", &p, NULL) == GC_E_INVAL);
	CHECK(gc_percent_parse("1%%", &p, NULL) == GC_E_INVAL);
	CHECK(gc_percent_parse("nan", &p, NULL) == GC_E_INVAL);
}

int main(void)
{
	GCT_SUITE("netem_rate");
	GCT_RUN(test_rate_units);
	GCT_RUN(test_rate_rejects);
	GCT_RUN(test_rate_messages);
	GCT_RUN(test_gbps_trap);
	GCT_RUN(test_size_units);
	GCT_RUN(test_format_roundtrip);
	GCT_RUN(test_burst_default);
	GCT_RUN(test_plan_tbf_htb);
	GCT_RUN(test_plan_rejects);
	GCT_RUN(test_time_units);
	GCT_RUN(test_time_percent);
	return gct_finish();
}

/* tests/unit/test_netem_classes.c: the destinations of gcbench-netem classes
 * (netem/classes.h): addresses and prefixes, and every malformed form refused with a
 * message. */
#include <string.h>

#include "harness.h"
#include "netem/classes.h"

static void test_dest_ok(void)
{
	struct gc_class_dest d;
	gc_err e;

	CHECK(gc_class_dest_parse("10.213.7.13", &d, &e) == GC_OK);
	CHECK(d.addr == 0x0ad5070du && d.prefix == 32);
	CHECK(gc_class_dest_parse("10.213.7.0/24", &d, &e) == GC_OK);
	CHECK(d.addr == 0x0ad50700u && d.prefix == 24);
	CHECK(gc_class_dest_parse("0.0.0.0/0", &d, &e) == GC_OK && d.prefix == 0);
}

static void test_dest_bad(void)
{
	static const char *const bad[] = { "", "10.0.0", "10.0.0.256", "10.0.0.1/33",
		"10.0.0.1/-1", "10.0.0.0/", "10.0.0.0/08", "10.0.0.1/24", "fe80::1",
		"10.0.0.1 ", " 10.0.0.1", "10.0.0.1/24x", "host.example",
		"10.0.0.0/24/24", "1234567890123456789012345678901234567890" };
	struct gc_class_dest d;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gc_err e = { { 0 } };
		CHECKF(gc_class_dest_parse(bad[i], &d, &e) == GC_E_INVAL && e.msg[0],
		       "accepted '%s'", bad[i]);
	}
	CHECK(gc_class_dest_parse(NULL, &d, NULL) == GC_E_INVAL);
}

int main(void)
{
	GCT_SUITE("netem_classes");
	GCT_RUN(test_dest_ok);
	GCT_RUN(test_dest_bad);
	return gct_finish();
}

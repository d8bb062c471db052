/* tests/unit/test_netem_policy.c: the admin's allowlist (/etc/gcbench/netem.conf) of
 * the installed helper: what it allows, and every malformed file refused by line. */
#include <string.h>

#include "harness.h"
#include "netem/policy.h"

static void test_allow(void)
{
	struct gc_netem_conf c;
	gc_err e = { { 0 } };
	const char *text = "# the data NICs only\n\nallow eth0\n  allow\tens1f* # both ports\r\n"
			   "allow veth?.gcb\n";

	CHECKF(gc_netem_conf_parse(text, &c, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(c.n, 3);
	CHECK(gc_netem_conf_allows(&c, "eth0"));
	CHECK(!gc_netem_conf_allows(&c, "eth1"));
	CHECK(!gc_netem_conf_allows(&c, "eth00"));
	CHECK(gc_netem_conf_allows(&c, "ens1f0"));
	CHECK(gc_netem_conf_allows(&c, "ens1f1np1"));
	CHECK(gc_netem_conf_allows(&c, "veth1.gcb"));
	CHECK(!gc_netem_conf_allows(&c, "veth12.gcb"));
	CHECK(!gc_netem_conf_allows(&c, "lo"));
	CHECK(!gc_netem_conf_allows(&c, NULL));
}

/* an empty or comment-only file allows nothing */
static void test_empty(void)
{
	struct gc_netem_conf c;
	gc_err e = { { 0 } };

	CHECK(gc_netem_conf_parse("", &c, &e) == GC_OK && c.n == 0);
	CHECK(gc_netem_conf_parse("# nothing yet\n   \n", &c, &e) == GC_OK && c.n == 0);
	CHECK(!gc_netem_conf_allows(&c, "eth0"));
}

static void test_malformed(void)
{
	static const struct { const char *text, *msg; } bad[] = {
		{ "allow eth0\nallow\n", "line 2: expected 'allow INTERFACE'" },
		{ "deny eth0\n", "line 1: expected 'allow INTERFACE'" },
		{ "alloweth0\n", "line 1: expected" },
		{ "allow eth0 eth1\n", "line 1: one interface a line" },
		{ "allow -eth0\n", "line 1: not an interface name" },
		{ "allow eth0;reboot\n", "line 1: not an interface name" },
		{ "allow abcdefghijklmnop\n", "line 1: not an interface name" },
		{ "# x\nallow e/th0\n", "line 2: not an interface name" },
	};
	struct gc_netem_conf c;
	char many[64 * 16 + 32] = "";
	gc_err e;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e.msg[0] = 0;
		CHECKF(gc_netem_conf_parse(bad[i].text, &c, &e) == GC_E_FORMAT, "case %zu", i);
		CHECK_CONTAINS(e.msg, bad[i].msg);
		CHECK(strstr(e.msg, "reboot") == NULL);   /* never quotes the text */
	}
	for (i = 0; i <= GC_NETEM_CONF_MAX; i++)
		strcat(many, "allow e*\n");
	CHECK(gc_netem_conf_parse(many, &c, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "line 65: more than 64 interfaces");
}

int main(void)
{
	GCT_SUITE("netem_policy");
	GCT_RUN(test_allow);
	GCT_RUN(test_empty);
	GCT_RUN(test_malformed);
	return gct_finish();
}

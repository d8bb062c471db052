#include "harness.h"
#include "strutil.h"

static void test_parse(void)
{
	int64_t i;
	uint64_t u;
	double d;
	CHECK(gc_parse_i64("-12", &i) == GC_OK && i == -12);
	CHECK(gc_parse_i64("", &i) == GC_E_INVAL);
	CHECK(gc_parse_i64("12x", &i) == GC_E_INVAL);
	CHECK(gc_parse_i64("99999999999999999999", &i) == GC_E_INVAL);
	CHECK(gc_parse_u64("-1", &u) == GC_E_INVAL);
	CHECK(gc_parse_u64("18446744073709551615", &u) == GC_OK && u == UINT64_MAX);
	CHECK(gc_parse_double("0.25", &d) == GC_OK && d == 0.25);
	CHECK(gc_parse_double("nan", &d) == GC_E_INVAL);
	CHECK(gc_parse_double("1e999", &d) == GC_E_INVAL);
	CHECK(gc_parse_double(" 1", &d) == GC_E_INVAL);
}

static void test_quote(void)
{
	char b[64] = "";
	CHECK(gc_shell_quote(b, sizeof(b), "it's; rm -rf /") == GC_OK);
	CHECK_STR(b, "'it'\\''s; rm -rf /'");
	b[0] = 0;
	CHECK(gc_shell_quote(b, 4, "long") == GC_E_INVAL);
	CHECK_STR(b, "");
}

static void test_safe_token(void)
{
	CHECK(gc_is_safe_token("eth0"));
	CHECK(gc_is_safe_token("node-1.lab:22"));
	CHECK(!gc_is_safe_token("-oProxyCommand=x"));
	CHECK(!gc_is_safe_token("eth0; touch /tmp/x"));
	CHECK(!gc_is_safe_token("$(id)"));
	CHECK(!gc_is_safe_token("`id`"));
	CHECK(!gc_is_safe_token("a\nb"));
	CHECK(!gc_is_safe_token(""));
}

static void test_kv_line(void)
{
	char v[8];
	gc_kv_line("a=1\nnetem=ok\nnetem=second\n", "netem", v, sizeof(v));
	CHECK_STR(v, "ok");                       /* the first line that has it */
	gc_kv_line("xnetem=1\nnetem", "netem", v, sizeof(v));
	CHECK_STR(v, "");                         /* not at a line start; no '=' */
	gc_kv_line("k=abcdefghijkl", "k", v, sizeof(v));
	CHECK_STR(v, "abcdefg");                  /* cut to dst */
	gc_kv_line("", "k", v, sizeof(v));
	CHECK_STR(v, "");
}

int main(void)
{
	GCT_SUITE("strutil");
	GCT_RUN(test_kv_line);
	GCT_RUN(test_parse);
	GCT_RUN(test_quote);
	GCT_RUN(test_safe_token);
	return gct_finish();
}

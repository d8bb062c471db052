/* tests/unit/test_envinfo.c: the environment record's one format. What gc_envinfo_json
 * writes, gc_envinfo_parse_json reads back field by field (in process and from the
 * real `gcbench env --json` of this build); malformed input is refused with its line
 * and column, never an excerpt of it. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "formats/envinfo.h"
#include "orchestrator/remote/env_probe.h"

static int env_equal(const struct gc_envinfo *a, const struct gc_envinfo *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static void fill(struct gc_envinfo *i)
{
	memset(i, 0, sizeof(*i));
	strcpy(i->host, "n1");
	strcpy(i->gpu_model, "NVIDIA H100 80GB HBM3");
	i->gpu_count = 8;
	strcpy(i->driver, "535.104.05");
	strcpy(i->cuda, "12.2");
	strcpy(i->nccl, "2.18.3");
	strcpy(i->mpi, "Open MPI v4.1.4");
	strcpy(i->kernel, "6.1.0-18-amd64");
	strcpy(i->libnl, "3.7.0");
	strcpy(i->sqlite, "3.40.1");
	strcpy(i->gcbench, "63bcb4b-dirty");
	strcpy(i->tcp_cc, "bbr");
	strcpy(i->tag, "after \"upgrade\"\t\\ \x01 caf\xc3\xa9");
}

static void test_roundtrip(void)
{
	struct gc_envinfo a, b;
	char json[4096];
	gc_err e;

	fill(&a);
	CHECK(gc_envinfo_json(&a, json, sizeof(json)) == GC_OK);
	CHECKF(gc_envinfo_parse_json(json, strlen(json), &b, &e) == GC_OK, "%s", e.msg);
	CHECK_STR(b.tag, a.tag);
	CHECK(env_equal(&a, &b));
	/* a value of the longest length a field holds */
	memset(a.gpu_model, 'x', GC_ENV_FIELD - 1);
	a.gpu_model[GC_ENV_FIELD - 1] = 0;
	CHECK(gc_envinfo_json(&a, json, sizeof(json)) == GC_OK);
	CHECKF(gc_envinfo_parse_json(json, strlen(json), &b, &e) == GC_OK, "%s", e.msg);
	CHECK(env_equal(&a, &b));
	/* the probe of this host too, with whitespace around and no NUL after the text */
	gc_envinfo_probe(&a, "v9");
	json[0] = '\n';
	CHECK(gc_envinfo_json(&a, json + 1, sizeof(json) - 2) == GC_OK);
	strcat(json, " \n");
	CHECKF(gc_envinfo_parse_json(json, strlen(json), &b, &e) == GC_OK, "%s", e.msg);
	CHECK(env_equal(&a, &b));
}

static void test_escapes_and_extra_keys(void)
{
	static const char j[] =
		"{ \"host\" : \"n\\u00e9\\/2\\u20ac\", \"kernel_num\": 6001000, \"new_field\": \"x\","
		" \"later\": -3, \"gpu_count\": 2, \"mpi\": \"a\\nb\" }";
	struct gc_envinfo b;
	gc_err e;

	CHECKF(gc_envinfo_parse_json(j, strlen(j), &b, &e) == GC_OK, "%s", e.msg);
	CHECK_STR(b.host, "n\xc3\xa9/2\xe2\x82\xac");
	CHECK_STR(b.mpi, "a\nb");
	CHECK_EQ_INT(b.gpu_count, 2);
	CHECK_STR(b.kernel, "");
}

/* each malformed input: GC_E_FORMAT, *out zeroed, the message names what is wrong and
 * where, holds only printable bytes and none of the input (S3CR3T stands for a
 * secret) */
static void test_malformed(void)
{
	static const struct { const char *in; const char *want; } bad[] = {
		{ "", "expected '{'" },
		{ "host       n1\nkernel     6.1\n", "expected '{'" },   /* the text form */
		{ "[]", "expected '{'" },
		{ "{", "expected a string" },
		{ "{\"host\":\"n1\"", "expected ',' or '}'" },
		{ "{\"host\":\"n1\",}", "expected a string" },
		{ "{\"host\" \"n1\"}", "expected ':'" },
		{ "{\"host\":\"n1}", "unterminated string" },
		{ "{\"host\":n1}", "expected a string" },
		{ "{\"host\":\"n1\",\"host\":\"n2\"}", "given twice" },
		{ "{\"host\":\"n1\",\"gpu_count\":1,\"gpu_count\":2}", "given twice" },
		{ "{\"host\":\"n\\q\"}", "bad escape" },
		{ "{\"host\":\"n\\u00\"}", "bad \\u escape" },
		{ "{\"host\":\"n\\u0000\"}", "bad \\u escape" },
		{ "{\"host\":\"n\\ud800\"}", "bad \\u escape" },
		{ "{\"host\":\"n\\udfff\"}", "bad \\u escape" },
		{ "{\"host\":\"n\\ud83d\\ude00\"}", "refused) at line 1, column 17" },
		{ "{\"host\":\"n\\u00g0\"}", "bad \\u escape" },
		{ "{\"host\":\"a\nb\"}", "control character" },
		{ "{\"host\":\"n1\",\"gpu_count\":\"2\"}", "expected an integer" },
		{ "{\"host\":\"n1\",\"gpu_count\":1.5}", "expected an integer" },
		{ "{\"host\":\"n1\",\"gpu_count\":-1}", "out of range" },
		{ "{\"host\":\"n1\",\"x\":12345678901234567890}", "expected an integer" },
		{ "{\"host\":\"n1\",\"x\":{}}", "expected an integer" },
		{ "{\"host\":\"n1\"} {}", "trailing bytes" },
		{ "{\"kernel\":\"6.1\"}", "no \"host\"" },
		{ "{\"host\":\"\"}", "no \"host\"" },
		{ "S3CR3T", "expected '{' (the output of 'gcbench env --json') at line 1, column 1" },
		{ "{\n\"host\":\"n1\",\n  S3CR3T}", "expected a string at line 3, column 3" },
		{ "{\"host\":S3CR3T}", "expected a string at line 1, column 9" },
		{ "{\"host\":\"n1\",\"gpu_count\":S3CR3T}", "expected an integer" },
		{ "{\"host\":\"n\\S3CR3T\"}", "bad escape" },
		{ "{\"host\":\"n1\"} S3CR3T", "trailing bytes after the object at line 1, column 15" },
		{ "{\"host\":\"n1\"", "expected ',' or '}' at line 1, column 13 (at the end)" },
	};
	struct gc_envinfo b;
	gc_err e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = strlen(bad[i].in);
		memset(&b, 0x55, sizeof(b));
		e.msg[0] = 0;
		CHECKF(gc_envinfo_parse_json(bad[i].in, len, &b, &e) == GC_E_FORMAT,
		       "input %zu '%s' accepted", i, bad[i].in);
		CHECKF(strstr(e.msg, bad[i].want), "input %zu: '%s' lacks '%s'", i, e.msg, bad[i].want);
		CHECKF(!b.host[0] && !b.gpu_count, "input %zu left *out filled", i);
		for (const char *p = e.msg; *p; p++)
			CHECKF(*p >= 0x20 && *p < 0x7f, "input %zu: unprintable byte in '%s'", i, e.msg);
		CHECKF(!strstr(e.msg, "S3CR3T"), "input %zu quoted: '%s'", i, e.msg);
	}
}

/* a value one byte over a field, and a line of secrets: no excerpt at all */
static void test_long_inputs(void)
{
	char in[1024];
	struct gc_envinfo b;
	gc_err e;
	int n;

	n = snprintf(in, sizeof(in), "{\"host\":\"%0*d\"}", GC_ENV_FIELD, 7);
	CHECK(gc_envinfo_parse_json(in, (size_t)n, &b, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "longer than an environment field");
	n = snprintf(in, sizeof(in), "root:*:20228:0:99999:7:::SECRETSECRETSECRETSECRET\x01\n");
	CHECK(gc_envinfo_parse_json(in, (size_t)n, &b, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "at line 1, column 1");
	CHECK(!strstr(e.msg, "root"));
	CHECK(!strstr(e.msg, "SECRET"));
	/* len bounds the read: a NUL-less buffer cut in the middle of a key */
	memcpy(in, "{\"host\":\"n1\"}", 13);
	CHECK(gc_envinfo_parse_json(in, 10, &b, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "unterminated");
}

/* end to end: this build's `gcbench env --json` as a node runs it, read back, equals
 * what the probe finds in process (the same host, kernel, MPI, libraries) */
static void test_real_gcbench_env(void)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char cmd[1200], out[8192];
	struct gc_envinfo got, here;
	size_t len;
	FILE *p;
	gc_err e;

	snprintf(cmd, sizeof(cmd), "%s/bin/gcbench", build);
	if (access(cmd, X_OK))
		SKIP("%s is not built", cmd);
	snprintf(cmd, sizeof(cmd), "%s/bin/gcbench env --json --tag t1", build);
	p = popen(cmd, "r");
	CHECK(p);
	len = fread(out, 1, sizeof(out) - 1, p);
	CHECK(pclose(p) == 0);
	out[len] = 0;
	CHECKF(gc_envinfo_parse_json(out, len, &got, &e) == GC_OK, "%s :: %s", e.msg, out);
	gc_envinfo_probe(&here, got.gcbench);
	strcpy(here.tag, "t1");
	CHECK_STR(got.host, here.host);
	CHECK_STR(got.kernel, here.kernel);
	CHECK_STR(got.mpi, here.mpi);
	CHECK_STR(got.sqlite, here.sqlite);
	CHECK(got.gcbench[0] && got.kernel[0] && got.sqlite[0] && got.libnl[0]);
	CHECK(env_equal(&got, &here));
}

int main(void)
{
	GCT_SUITE("envinfo");
	GCT_RUN(test_roundtrip);
	GCT_RUN(test_escapes_and_extra_keys);
	GCT_RUN(test_malformed);
	GCT_RUN(test_long_inputs);
	GCT_RUN(test_real_gcbench_env);
	return gct_finish();
}

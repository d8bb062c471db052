/* tests/unit/test_netem_trace.c: the bandwidth trace format (netem/trace.h): what it
 * accepts, every malformed input with its file:line message, the period rule, the
 * rate at a time and the mean over a window (pure functions: no root). */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "netem/trace.h"

static gc_rc parse(const char *text, struct gc_trace *t, gc_err *e)
{
	e->msg[0] = 0;
	return gc_trace_parse(text, strlen(text), "t.trace", t, e);
}

static void test_trace_accepts(void)
{
	struct gc_trace t;
	gc_err e;
	gc_rc rc = parse("# a square wave\n0 500mbit\n\n  0.1\t2gbit   # comment\r\n0.25 1gbit\n"
			 "0.5 end\n", &t, &e);

	CHECKF(rc == GC_OK, "rejected: %s", e.msg);
	CHECK(t.n == 3);
	CHECK(t.steps[0].t_us == 0 && t.steps[0].rate_bps == 500000000ull);
	CHECK(t.steps[1].t_us == 100000 && t.steps[1].rate_bps == 2000000000ull);
	CHECK(t.steps[2].t_us == 250000 && t.steps[2].rate_bps == 1000000000ull);
	CHECK(t.period_us == 500000);
	CHECK(t.min_bps == 500000000ull && t.max_bps == 2000000000ull);
	gc_trace_release(&t);
	gc_trace_release(&t);   /* idempotent */
	gc_trace_release(NULL);
}

/* Without 'end', the last rate holds as long as the step before it; one line: 1 s. */
static void test_trace_period_rule(void)
{
	struct gc_trace t;
	gc_err e;

	CHECK(parse("0 1gbit\n1 2gbit\n", &t, &e) == GC_OK && t.period_us == 2000000);
	gc_trace_release(&t);
	CHECK(parse("0 1gbit\n1 2gbit\n1.5 3gbit", &t, &e) == GC_OK && t.period_us == 2000000);
	gc_trace_release(&t);
	CHECK(parse("0 1gbit", &t, &e) == GC_OK && t.period_us == 1000000 && t.n == 1);
	gc_trace_release(&t);
	CHECK(parse("0 1gbit\n0.010 2gbit\n0.020 end\n", &t, &e) == GC_OK && t.period_us == 20000);
	gc_trace_release(&t);
}

static void test_trace_rate_and_mean(void)
{
	struct gc_trace t;
	gc_err e;

	CHECK(parse("0 500mbit\n1 2gbit\n", &t, &e) == GC_OK);
	CHECK(gc_trace_rate_at(&t, 0) == 500000000ull);
	CHECK(gc_trace_rate_at(&t, 999999) == 500000000ull);
	CHECK(gc_trace_rate_at(&t, 1000000) == 2000000000ull);
	CHECK(gc_trace_rate_at(&t, 2000000) == 500000000ull);      /* repeats */
	CHECK(gc_trace_rate_at(&t, 7500000) == 2000000000ull);
	CHECK(gc_trace_index_at(&t, 3000001) == 1);
	CHECK(fabs(gc_trace_mean(&t, 0, 1000000) - 5e8) < 1);
	CHECK(fabs(gc_trace_mean(&t, 0, 2000000) - 1.25e9) < 1);
	CHECK(fabs(gc_trace_mean(&t, 500000, 1500000) - 1.25e9) < 1);
	CHECK(fabs(gc_trace_mean(&t, 10500000, 11500000) - 1.25e9) < 1);
	CHECK(fabs(gc_trace_mean(&t, 0, 4000000) - 1.25e9) < 1);
	CHECK(fabs(gc_trace_mean(&t, 1500000, 1500000) - 2e9) < 1);  /* empty: the rate */
	CHECK(fabs(gc_trace_phase_s(&t, 4250000) - 0.25) < 1e-9);
	gc_trace_release(&t);
}

/* reject TEXT WANT: the message names the file and line and says WANT */
static void reject(const char *text, const char *want)
{
	struct gc_trace t;
	gc_err e;
	gc_rc rc = parse(text, &t, &e);

	CHECKF(rc == GC_E_FORMAT, "accepted or wrong code %d: '%s'", (int)rc, text);
	CHECKF(strstr(e.msg, want) != NULL, "'%s': message '%s' lacks '%s'", text, e.msg, want);
	CHECK(t.steps == NULL && t.n == 0);
}

static void test_trace_rejects(void)
{
	reject("", "t.trace:1: no rate");
	reject("# only a comment\n\n", "no rate");
	reject("1 1gbit\n", "t.trace:1: the first line starts at '1'");
	reject("0 1gbit\n0.005 2gbit\n", "t.trace:2: time '0.005' is not at least 10 ms after");
	reject("0 1gbit\n2 2gbit\n1 1gbit\n", "t.trace:3: time '1' is not at least 10 ms");
	reject("0 1gbit\n0 2gbit\n", "t.trace:2:");
	reject("0 1gbit 2\n", "t.trace:1: more than two fields");
	reject("0\n", "t.trace:1: one field");
	reject("0 1\n", "t.trace:1: invalid rate '1'");
	reject("0 30gbps\n", "invalid rate '30gbps'");
	reject("0 unlimited\n", "invalid rate 'unlimited'");
	reject("0 500kbit\n", "invalid rate '500kbit'");
	reject("0 401gbit\n", "invalid rate '401gbit'");
	reject("-1 1gbit\n", "invalid time '-1'");
	reject("0 1gbit\n1e3 1gbit\n", "t.trace:2: invalid time '1e3'");
	reject("0 1gbit\n1.1234567 1gbit\n", "invalid time '1.1234567'");
	reject("0 1gbit\n. 1gbit\n", "invalid time '.'");
	reject("0 1gbit\n1. 1gbit\n", "invalid time '1.'");
	reject("0x1 1gbit\n", "invalid time '0x1'");
	reject("0 1gbit\n1234567 1gbit\n", "invalid time '1234567'");
	reject("0 1gbit\n86400 2gbit\n", "past one day");
	reject("0 1gbit\n50000 2gbit\n", "passes one day");
	reject("0 end\n", "'end' before any rate");
	reject("0 1gbit\n1 end\n2 2gbit\n", "t.trace:3: '2' comes after the 'end' line");
	reject("0 1gbit\n1 end\n1.5 end\n", "comes after the 'end' line");
	reject("0 1gbit\n0 end\n", "t.trace:2:");
}

static void test_trace_nul(void)
{
	static const char text[] = "0 1gbit\n\0001 2gbit\n";
	struct gc_trace t;
	gc_err e = { { 0 } };

	CHECK(gc_trace_parse(text, sizeof(text) - 1, "t.trace", &t, &e) == GC_E_FORMAT);
	CHECKF(strstr(e.msg, "t.trace: a NUL byte") != NULL, "%s", e.msg);
	CHECK(t.steps == NULL);
}

/* Every bad line counts; the message names the first and counts the rest. */
static void test_trace_counts_problems(void)
{
	struct gc_trace t;
	gc_err e;

	CHECK(parse("0 1gbit\n1 x\n2 y\n3 z\n", &t, &e) == GC_E_FORMAT);
	CHECKF(strstr(e.msg, "t.trace:2: invalid rate 'x'") && strstr(e.msg, "and 2 more lines"),
	       "%s", e.msg);
	CHECK(parse("0 1gbit\n1 x\n3 2gbit\n2 3gbit\n", &t, &e) == GC_E_FORMAT);
	CHECKF(strstr(e.msg, "t.trace:2:") && strstr(e.msg, "and 1 more line with"), "%s", e.msg);
}

static void test_trace_load(void)
{
	struct gc_trace t;
	gc_err e = { { 0 } };

	CHECK(gc_trace_load("/nonexistent/gcbench.trace", &t, &e) == GC_E_NOTFOUND);
	CHECKF(strstr(e.msg, "/nonexistent/gcbench.trace") != NULL, "%s", e.msg);
	CHECK(t.steps == NULL);
	CHECKF(gc_trace_load("experiments/traces/walk-200m-2g.trace", &t, &e) == GC_OK, "%s", e.msg);
	CHECK(t.n == 600 && t.period_us == 60000000 && t.min_bps >= 200000000ull &&
	      t.max_bps <= 2000000000ull);
	gc_trace_release(&t);
	CHECKF(gc_trace_load("experiments/traces/square-500m-2g.trace", &t, &e) == GC_OK, "%s", e.msg);
	CHECK(t.n == 2 && t.period_us == 2000000);
	gc_trace_release(&t);
}

int main(void)
{
	GCT_RUN(test_trace_accepts);
	GCT_RUN(test_trace_period_rule);
	GCT_RUN(test_trace_rate_and_mean);
	GCT_RUN(test_trace_rejects);
	GCT_RUN(test_trace_nul);
	GCT_RUN(test_trace_counts_problems);
	GCT_RUN(test_trace_load);
	return gct_finish();
}

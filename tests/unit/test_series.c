/* tests/unit/test_series.c: the nightly series (orchestrator/ops/series.h): Student's t,
 * the noise model's verdict against values computed by hand, the step finder, the
 * measured-nights CSV (malformed lines refused) and the false-alarm/recall computation
 * on the stored fixture tests/data/regress_nights.csv. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "orchestrator/ops/series.h"

/* df 1 is Cauchy: P(T > t) = 1/2 - atan(t)/pi; df 2: 1/2 - t / (2 sqrt(2 + t^2));
 * df 10: the tables' 0.975 and 0.99 quantiles 2.228139, 2.763769. */
static void test_t_sf(void)
{
	CHECK_NEAR(gc_t_sf(1, 1), 0.25, 1e-9);
	CHECK_NEAR(gc_t_sf(3, 1), 0.5 - atan(3) / M_PI, 1e-9);
	CHECK_NEAR(gc_t_sf(1.5, 2), 0.5 - 1.5 / (2 * sqrt(2 + 2.25)), 1e-9);
	CHECK_NEAR(gc_t_sf(-1.5, 2), 0.5 + 1.5 / (2 * sqrt(2 + 2.25)), 1e-9);
	CHECK_NEAR(gc_t_sf(2.228139, 10), 0.025, 1e-6);
	CHECK_NEAR(gc_t_sf(2.763769, 10), 0.01, 1e-6);
	CHECK_NEAR(gc_t_sf(0, 7), 0.5, 1e-12);
	CHECK_NEAR(gc_t_sf(INFINITY, 7), 0, 0);
	CHECK(isnan(gc_t_sf(1, 0)));
}

/* History 1.00 1.02 0.98 1.01 0.99 (log): mean -1.00017e-4, sd 0.01581346; night 1.10:
 * t = (ln 1.1 - mean) / (sd sqrt(1.2)) = 5.507790, P(T4 > t) = 0.0026505 (df 4's closed
 * form 1/2 + 3/8 u (1 - t^2 / (12 a)), a = 1 + t^2/4, u = t / sqrt a), change +10.01%:
 * REGRESSION at alpha 0.01 (tail 0.005). Night 1.03: t = 1.712129, p 0.081: same.
 * Night 0.90: t = -6.076423: improvement. */
static void test_judge(void)
{
	double y[6] = { log(1.00), log(1.02), log(0.98), log(1.01), log(0.99), log(1.10) };
	gc_series_verdict v;

	gc_series_judge(y, 5, 0.01, 0.05, &v);
	CHECK_EQ_INT(v.history, 5);
	CHECK_NEAR(v.mean, -1.00017004e-4, 1e-10);
	CHECK_NEAR(v.sd, 0.0158134575, 1e-9);
	CHECK_NEAR(v.t, 5.5077895, 1e-6);
	CHECK_NEAR(v.p_up, 0.00265049, 1e-7);
	CHECK_NEAR(v.change, 0.1001100, 1e-6);
	CHECK_EQ_INT(v.verdict, 1);
	y[5] = log(1.03);
	gc_series_judge(y, 5, 0.01, 0.05, &v);
	CHECK_NEAR(v.t, 1.7121287, 1e-6);
	CHECK_NEAR(v.p_up, 0.0810182, 1e-6);
	CHECK_EQ_INT(v.verdict, 0);
	y[5] = log(0.90);
	gc_series_judge(y, 5, 0.01, 0.05, &v);
	CHECK_NEAR(v.t, -6.0764225, 1e-6);
	CHECK_EQ_INT(v.verdict, -1);
	/* +10% but under a min effect of 20%: same */
	y[5] = log(1.10);
	gc_series_judge(y, 5, 0.01, 0.20, &v);
	CHECK_EQ_INT(v.verdict, 0);
	/* 4 earlier nights: no model, no verdict */
	gc_series_judge(y + 1, 4, 0.01, 0.05, &v);
	CHECK_EQ_INT(v.history, 0);
	CHECK_EQ_INT(v.verdict, 0);
	CHECK(isnan(v.t));
}

/* nights 0..n-1 at level 1 +-0.5% (alternating), from night `at` at level `lvl` */
static void series(double *y, size_t n, size_t at, double lvl)
{
	for (size_t i = 0; i < n; i++)
		y[i] = log((i >= at ? lvl : 1.0) * (i % 2 ? 1.005 : 0.995));
}

static void test_steps(void)
{
	gc_series_step st[GC_SERIES_MAX_STEPS];
	gc_series_verdict v;
	double y[40];

	series(y, 15, 10, 1.10);          /* +10% from night 10 */
	CHECK_EQ_INT(gc_series_steps(y, 15, 0.05, st, GC_SERIES_MAX_STEPS), 1);
	CHECK_EQ_INT(st[0].at, 10);
	CHECK_NEAR(st[0].change, 0.10, 0.002);
	CHECK(st[0].p < GC_SERIES_STEP_P);
	series(y, 13, 12, 1.20);          /* the newest night alone */
	CHECK_EQ_INT(gc_series_steps(y, 13, 0.05, st, GC_SERIES_MAX_STEPS), 1);
	CHECK_EQ_INT(st[0].at, 12);
	series(y, 20, 20, 1);             /* flat: none */
	CHECK_EQ_INT(gc_series_steps(y, 20, 0.05, st, GC_SERIES_MAX_STEPS), 0);
	series(y, 15, 10, 1.03);          /* significant but under the min effect */
	CHECK_EQ_INT(gc_series_steps(y, 15, 0.05, st, GC_SERIES_MAX_STEPS), 0);
	/* two steps, in night order: +10% at 8, then -15% (of the new level) at 16 */
	series(y, 24, 8, 1.10);
	for (size_t i = 16; i < 24; i++)
		y[i] += log(0.85);
	CHECK_EQ_INT(gc_series_steps(y, 24, 0.05, st, GC_SERIES_MAX_STEPS), 2);
	CHECK_EQ_INT(st[0].at, 8);
	CHECK_EQ_INT(st[1].at, 16);
	CHECK_NEAR(st[1].change, -0.15, 0.002);
	/* the verdict's history starts after the last step: 6 nights at the new level,
	 * so a night at that level is "same", though 10% above the older nights */
	series(y, 16, 10, 1.10);
	y[16] = log(1.10);
	gc_series_judge(y, 16, 0.01, 0.05, &v);
	CHECK_EQ_INT(v.history, 6);
	CHECK_EQ_INT(v.verdict, 0);
}

static gc_rc parse(const char *text, gc_series_set *s, gc_err *e)
{
	return gc_series_set_parse(text, strlen(text), s, e);
}

static void test_parse(void)
{
	static const struct { const char *text, *why; } bad[] = {
		{ "", "empty input" },
		{ "point,median\n", "expected the header" },
		{ "point,night,median_s\nresnet,1\n", "line 2: expected point,night" },
		{ "point,night,median_s\n,1,0.1\n", "line 2: expected point,night" },
		{ "point,night,median_s\na,1,0.1,4\n", "line 2: expected point,night" },
		{ "point,night,median_s\na,x,0.1\n", "night 'x' is not a whole number" },
		{ "point,night,median_s\na,-1,0.1\n", "is not a whole number" },
		{ "point,night,median_s\na,1,0\n", "median_s '0' is not a positive" },
		{ "point,night,median_s\na,1,nan\n", "is not a positive" },
		{ "point,night,median_s\na,1,0.1s\n", "is not a positive" },
		{ "point,night,median_s\na,2,0.1\na,2,0.1\n", "line 3: night 2 of point 'a' is not after" },
		{ "point,night,median_s\na,1,0.1\nb,1,0.1\na,2,0.1\n", "line 4: point 'a' appears again" },
	};
	gc_series_set s;
	gc_err e;
	char longl[700];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECKF(parse(bad[i].text, &s, &e) == GC_E_FORMAT, "accepted case %zu", i);
		CHECK_CONTAINS(e.msg, bad[i].why);
		CHECK(s.y == NULL && s.npoints == 0);
	}
	snprintf(longl, sizeof longl, "point,night,median_s\n%0600d,1,0.1\n", 7);
	CHECK_EQ_INT(parse(longl, &s, &e), GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "line 2: longer than");
	CHECK_EQ_INT(parse("point,night,median_s\r\na,1,0.1\r\na,3,0.2\r\n\r\nb,1,1\n", &s, &e),
		     GC_OK);
	CHECK_EQ_INT(s.npoints, 2);
	CHECK_EQ_INT(s.off[1], 2);
	CHECK_EQ_INT(s.off[2], 3);
	CHECK_NEAR(s.y[1], log(0.2), 1e-12);
	CHECK_STR(s.name[1], "b");
	gc_series_set_release(&s);
	gc_series_set_release(NULL);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	*len = f && buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

/* Every night equal: no spread, so nothing unchanged is called a regression and every
 * 5% step (the floor) is: t is infinite. */
static void test_evaluate_exact(void)
{
	const char *text = "point,night,median_s\na,1,0.1\na,2,0.1\na,3,0.1\na,4,0.1\n";
	gc_series_set s;
	gc_series_eval ev;
	gc_err e;

	CHECK_EQ_INT(parse(text, &s, &e), GC_OK);
	CHECK_EQ_INT(gc_series_evaluate(&s, 50, 10, 3, 0.05, 0.01, 0.05, 1, &ev, &e), GC_OK);
	CHECK_EQ_INT(ev.points, 1);
	CHECK_EQ_INT(ev.trials, 50);
	CHECK_EQ_INT(ev.false_alerts, 0);
	CHECK_EQ_INT(ev.detected, 50);
	CHECK_EQ_INT(ev.step_alerts_cp, 50);
	CHECK_EQ_INT(ev.false_steps_cp, 0);
	CHECK_NEAR(ev.median_step, 0.05, 1e-12);
	CHECK_EQ_INT(ev.real_judged, 0);     /* 4 nights: none has 5 before it */
	gc_series_set_release(&s);
	/* 7 measured nights, the last 20% up: nights 6 and 7 are judged as they are, the
	 * 7th (against 6 equal nights) is a REGRESSION */
	CHECK_EQ_INT(parse("point,night,median_s\na,1,0.1\na,2,0.1\na,3,0.1\na,4,0.1\n"
			   "a,5,0.1\na,6,0.1\na,7,0.12\n", &s, &e), GC_OK);
	CHECK_EQ_INT(gc_series_evaluate(&s, 10, 10, 3, 0.05, 0.01, 0.05, 1, &ev, &e), GC_OK);
	CHECK_EQ_INT(ev.real_judged, 2);
	CHECK_EQ_INT(ev.real_alerts, 1);
	gc_series_set_release(&s);
	CHECK_EQ_INT(parse("point,night,median_s\na,1,0.1\na,2,0.1\n", &s, &e), GC_OK);
	CHECK_EQ_INT(gc_series_evaluate(&s, 50, 10, 3, 0.05, 0.01, 0.05, 1, &ev, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "no point has 3 or more nights");
	gc_series_set_release(&s);
}

/* The stored measured nights: the spreads recomputed here from the file, the counts
 * consistent, and one seed one table. */
static void test_evaluate_fixture(void)
{
	size_t len, p;
	char *text = slurp("tests/data/regress_nights.csv", &len);
	gc_series_set s;
	gc_series_eval a, b;
	gc_err e;

	CHECK(len > 0);
	CHECKF(gc_series_set_parse(text, len, &s, &e) == GC_OK, "%s", e.msg);
	free(text);
	for (p = 0; p < s.npoints; p++) {
		const double *y = s.y + s.off[p];
		size_t n = s.off[p + 1] - s.off[p];
		double d[64], m = 0, ss = 0;

		CHECK(n >= 3 && n <= 64);
		for (size_t i = 1; i < n; i++)
			m += (d[i] = y[i] - y[i - 1]) / (double)(n - 1);
		for (size_t i = 1; i < n; i++)
			ss += (d[i] - m) * (d[i] - m);
		CHECK_NEAR(gc_series_spread(&s, p), sqrt(ss / (double)(n - 2)), 1e-12);
	}
	CHECK_EQ_INT(gc_series_evaluate(&s, 300, GC_SERIES_WINDOW, 3, 0.05, 0.01, 0.05, 7, &a,
					&e), GC_OK);
	CHECK_EQ_INT(gc_series_evaluate(&s, 300, GC_SERIES_WINDOW, 3, 0.05, 0.01, 0.05, 7, &b,
					&e), GC_OK);
	CHECK_EQ_INT(a.points, s.npoints);
	CHECK_EQ_INT(a.trials, 300);
	CHECK(a.false_alerts <= a.trials && a.detected <= a.trials);
	CHECK_EQ_INT(a.false_alerts, b.false_alerts);
	CHECK_EQ_INT(a.detected, b.detected);
	CHECK(a.median_step >= 0.05);
	/* steps are at least 3 spreads: more of them are found than unchanged nights
	 * are flagged */
	CHECK(a.detected > a.false_alerts);
	gc_series_set_release(&s);
}

int main(void)
{
	GCT_SUITE("series");
	GCT_RUN(test_t_sf);
	GCT_RUN(test_judge);
	GCT_RUN(test_steps);
	GCT_RUN(test_parse);
	GCT_RUN(test_evaluate_exact);
	GCT_RUN(test_evaluate_fixture);
	return gct_finish();
}

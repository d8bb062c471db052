/* tests/unit/test_series.c: the nightly series (orchestrator/ops/series.h): Student's t,
 * the noise model's verdict against values computed by hand, the step finder, the
 * measured-nights CSV (malformed lines refused), the binomial interval, and the
 * false-alarm/recall computation on the stored fixtures tests/data/regress_nights.csv
 * (a loaded machine) and tests/data/regress_nights_quiet.csv (a nearly quiet one),
 * recomputed here from first principles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

	gc_series_judge(y, 5, 1, 0.01, 0.05, &v);
	CHECK_EQ_INT(v.history, 5);
	CHECK_NEAR(v.mean, -1.00017004e-4, 1e-10);
	CHECK_NEAR(v.sd, 0.0158134575, 1e-9);
	CHECK_NEAR(v.t, 5.5077895, 1e-6);
	CHECK_NEAR(v.p_up, 0.00265049, 1e-7);
	CHECK_NEAR(v.change, 0.1001100, 1e-6);
	CHECK_EQ_INT(v.verdict, 1);
	y[5] = log(1.03);
	gc_series_judge(y, 5, 1, 0.01, 0.05, &v);
	CHECK_NEAR(v.t, 1.7121287, 1e-6);
	CHECK_NEAR(v.p_up, 0.0810182, 1e-6);
	CHECK_EQ_INT(v.verdict, 0);
	y[5] = log(0.90);
	gc_series_judge(y, 5, 1, 0.01, 0.05, &v);
	CHECK_NEAR(v.t, -6.0764225, 1e-6);
	CHECK_EQ_INT(v.verdict, -1);
	/* +10% but under a min effect of 20%: same */
	y[5] = log(1.10);
	gc_series_judge(y, 5, 1, 0.01, 0.20, &v);
	CHECK_EQ_INT(v.verdict, 0);
	/* 4 earlier nights: no model, no verdict */
	gc_series_judge(y + 1, 4, 1, 0.01, 0.05, &v);
	CHECK_EQ_INT(v.history, 0);
	CHECK_EQ_INT(v.verdict, 0);
	CHECK(isnan(v.t));
}

/* An outlier night in the history (1.30: a burst of load) is kept: its mean is
 * 0.0436440 and sd 0.1080801 (ln units), and the +10% night that test_judge calls a
 * REGRESSION is t = (ln 1.1 - mean) / (sd sqrt(7/6)) = 0.442575 against it: same. The
 * history's own bursts set how far out a night must be. */
static void test_judge_outlier_kept(void)
{
	double y[8] = { log(1.00), log(1.02), log(0.98), log(1.30), log(1.01), log(0.99),
			log(1.10) };
	gc_series_verdict v;

	gc_series_judge(y, 6, 1, 0.01, 0.05, &v);
	CHECK_EQ_INT(v.history, 6);
	CHECK_NEAR(v.mean, 0.0436440299, 1e-9);
	CHECK_NEAR(v.sd, 0.1080800731, 1e-9);
	CHECK_NEAR(v.t, 0.4425752, 1e-6);
	CHECK_EQ_INT(v.verdict, 0);
	CHECK_NEAR(v.ci_lo, exp(log(1.10) - 0.0436440299 - gc_t_isf(0.005, 5) *
				0.1080800731 * sqrt(7.0 / 6)) - 1, 1e-9);
}

/* --confirm 2: the newest two nights against the five before them, each night's tail
 * below sqrt(0.005) = 0.0707 (t above 1.8288 at 4 d.f.); the change must reach 5%
 * within the verdict's interval (alpha 0.01, as with one night). */
static void test_judge_confirm(void)
{
	double y[8] = { log(1.00), log(1.02), log(0.98), log(1.01), log(0.99) };
	double se = 0.0158134575 * sqrt(1.2), m = -1.00017004e-4;
	gc_series_verdict v;

	/* df 4 closed form: P(T > t) = 1/2 - 3/8 u (1 - t^2 / (12 a)), a = 1 + t^2/4,
	 * u = t / sqrt a, is 0.0707107 at t = 1.8288187 */
	CHECK_NEAR(gc_t_isf(sqrt(0.005), 4), 1.8288187, 1e-6);
	y[5] = log(1.10);
	y[6] = log(1.10);
	gc_series_judge(y, 6, 2, 0.01, 0.05, &v);
	CHECK_EQ_INT(v.confirm, 2);
	CHECK_EQ_INT(v.history, 5);
	CHECK_NEAR(v.tail, sqrt(0.005), 1e-12);
	CHECK_EQ_INT(v.verdict, 1);
	CHECK_EQ_INT(v.suspect, 0);
	/* first night ordinary, the newest beyond: a suspect, no verdict */
	y[5] = log(1.00);
	gc_series_judge(y, 6, 2, 0.01, 0.05, &v);
	CHECK_EQ_INT(v.verdict, 0);
	CHECK_EQ_INT(v.suspect, 1);
	/* the night before beyond, the newest back: neither */
	y[5] = log(1.10);
	y[6] = log(1.00);
	gc_series_judge(y, 6, 2, 0.01, 0.05, &v);
	CHECK_EQ_INT(v.verdict, 0);
	CHECK_EQ_INT(v.suspect, 0);
	/* one night slower, one faster: no direction holds for both */
	y[6] = log(0.90);
	gc_series_judge(y, 6, 2, 0.01, 0.05, &v);
	CHECK_EQ_INT(v.verdict, 0);
	CHECK_EQ_INT(v.suspect, -1);
	/* 2.5%: t = (ln 1.025 - m) / se = 1.4312 < 1.8288 on both nights: same */
	y[5] = y[6] = log(1.025);
	gc_series_judge(y, 6, 2, 0.01, 0.05, &v);
	CHECK_NEAR(v.t, (log(1.025) - m) / se, 1e-6);
	CHECK_EQ_INT(v.verdict, 0);
	/* confirm 2 needs the 5 nights before both candidates */
	gc_series_judge(y, 5, 2, 0.01, 0.05, &v);
	CHECK_EQ_INT(v.history, 0);
}

/* The min effect within the interval: a precise series (+-0.1%) with both nights 4.9%
 * up is a REGRESSION under a 5% minimum (the upper end reaches it; a point estimate
 * would make a 5% step a coin toss), 3% up is "same" though far beyond the noise. */
static void test_judge_min_effect(void)
{
	double y[8];
	gc_series_verdict v;

	for (int i = 0; i < 6; i++)
		y[i] = log(i % 2 ? 1.001 : 0.999);
	y[6] = y[7] = log(1.049);
	gc_series_judge(y, 7, 2, 0.01, 0.05, &v);
	CHECK(v.t > 20);
	CHECK_EQ_INT(v.verdict, 1);
	y[6] = y[7] = log(1.03);
	gc_series_judge(y, 7, 2, 0.01, 0.05, &v);
	CHECK(v.t > 20);
	CHECK_EQ_INT(v.verdict, 0);
	CHECK_EQ_INT(v.suspect, 0);
}

/* Clopper-Pearson at the ends has closed forms: k = 0: hi = 1 - (a/2)^(1/n); k = n:
 * lo = (a/2)^(1/n); k = 1: lo = 1 - (1 - a/2)^(1/n). */
static void test_binom_ci(void)
{
	double lo, hi;

	gc_binom_ci(0, 300, 0.95, &lo, &hi);
	CHECK_NEAR(lo, 0, 0);
	CHECK_NEAR(hi, 1 - pow(0.025, 1.0 / 300), 1e-9);
	gc_binom_ci(300, 300, 0.95, &lo, &hi);
	CHECK_NEAR(lo, pow(0.025, 1.0 / 300), 1e-9);
	CHECK_NEAR(hi, 1, 0);
	gc_binom_ci(1, 600, 0.95, &lo, &hi);
	CHECK_NEAR(lo, 1 - pow(0.975, 1.0 / 600), 1e-9);
	CHECK(hi > 1.0 / 600 && hi < 0.01);
	gc_binom_ci(3, 0, 0.95, &lo, &hi);
	CHECK(isnan(lo) && isnan(hi));
	CHECK_NEAR(gc_t_isf(0.025, 10), 2.228139, 1e-6);
	CHECK_NEAR(gc_t_isf(0.975, 10), -2.228139, 1e-6);
	CHECK(isnan(gc_t_isf(0, 10)));
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
	gc_series_judge(y, 16, 1, 0.01, 0.05, &v);
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
	CHECK_EQ_INT(ev.one.false_alerts, 0);
	CHECK_EQ_INT(ev.one.detected, 50);
	CHECK_EQ_INT(ev.confirmed.false_alerts, 0);
	CHECK_EQ_INT(ev.confirmed.detected, 50);
	CHECK_EQ_INT(ev.steps.detected, 50);
	CHECK_EQ_INT(ev.steps.false_alerts, 0);
	CHECK_NEAR(ev.median_step, 0.05, 1e-12);
	CHECK_EQ_INT(ev.real_judged[0], 0);     /* 4 nights: none has 5 before it */
	CHECK_EQ_INT(ev.real_judged[1], 0);
	gc_series_set_release(&s);
	/* 7 measured nights, the last 20% up: nights 6 and 7 are judged as they are, the
	 * 7th (against 6 equal nights) is a REGRESSION alone; confirmed, only night 7 is
	 * judged (nights 6 and 7 against 5) and night 6 is not beyond */
	CHECK_EQ_INT(parse("point,night,median_s\na,1,0.1\na,2,0.1\na,3,0.1\na,4,0.1\n"
			   "a,5,0.1\na,6,0.1\na,7,0.12\n", &s, &e), GC_OK);
	CHECK_EQ_INT(gc_series_evaluate(&s, 10, 10, 3, 0.05, 0.01, 0.05, 1, &ev, &e), GC_OK);
	CHECK_EQ_INT(ev.real_judged[0], 2);
	CHECK_EQ_INT(ev.real_alerts[0], 1);
	CHECK_EQ_INT(ev.real_judged[1], 1);
	CHECK_EQ_INT(ev.real_alerts[1], 0);
	gc_series_set_release(&s);
	CHECK_EQ_INT(parse("point,night,median_s\na,1,0.1\na,2,0.1\n", &s, &e), GC_OK);
	CHECK_EQ_INT(gc_series_evaluate(&s, 50, 10, 3, 0.05, 0.01, 0.05, 1, &ev, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "no point has 3 or more nights");
	gc_series_set_release(&s);
}

/* ---- the evaluation recomputed from first principles ------------------------------- */

/* The t with P(T > t) = tail, by bisection on gc_t_sf (tested against closed forms). */
static double ref_tq(double tail, double df)
{
	double lo = -1e3, hi = 1e3;

	for (int i = 0; i < 300; i++) {
		double mid = (lo + hi) / 2;

		*(gc_t_sf(mid, df) > tail ? &lo : &hi) = mid;
	}
	return (lo + hi) / 2;
}

/* The nightly verdict as docs/regress.md states it, written out directly: 1 when the
 * newest c nights of y[0..n] are all slower beyond the history y[..n + 1 - c). */
static int ref_regression(const double *y, size_t n, int c, double alpha, double me)
{
	gc_series_step st[GC_SERIES_MAX_STEPS];
	double mean = 0, ss = 0, se, tail, q, qe;
	size_t end = n + 1 - (size_t)c, lo, k, m;

	if (n + 1 < (size_t)c + 5)
		return 0;
	lo = end > 30 ? end - 30 : 0;                  /* the window */
	k = gc_series_steps(y + lo, end - lo, me, st, GC_SERIES_MAX_STEPS);
	while (k > 0 && st[k - 1].at + 2 > end - lo)   /* a step needs 2 nights after it */
		k--;
	if (k > 0)
		lo += st[k - 1].at;
	m = end - lo;
	if (m < 5)
		return 0;
	for (size_t i = lo; i < end; i++)
		mean += y[i] / (double)m;
	for (size_t i = lo; i < end; i++)
		ss += (y[i] - mean) * (y[i] - mean);
	se = sqrt(ss / (double)(m - 1)) * sqrt(1 + 1 / (double)m);
	tail = c == 2 ? sqrt(alpha / 2) : alpha / 2;
	q = ref_tq(tail, (double)m - 1);
	qe = ref_tq(alpha / 2, (double)m - 1);          /* the verdict's own interval */
	for (size_t i = end; i <= n; i++) {
		double d = y[i] - mean;

		if (se > 0 ? !(d / se > q) : !(d > 0))       /* P(T > t) < tail */
			return 0;
		if (exp(d + qe * se) - 1 < me)               /* cannot reach the min effect */
			return 0;
	}
	return 1;
}

static uint64_t ref_next(uint64_t *r)                  /* splitmix64, as series.h says */
{
	uint64_t z = (*r += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* gc_series_evaluate's table recomputed: the same draws (the documented generator and
 * seeds), judged by ref_regression. */
static void ref_evaluate(const gc_series_set *s, size_t trials, size_t hist, uint64_t seed,
			 gc_series_eval *r)
{
	double y[64], spread[64];
	gc_series_step st[GC_SERIES_MAX_STEPS];

	memset(r, 0, sizeof *r);
	for (size_t p = 0; p < s->npoints; p++) {    /* sd of consecutive differences */
		const double *v = s->y + s->off[p];
		size_t n = s->off[p + 1] - s->off[p];
		double d[128], m = 0, ss = 0;

		for (size_t i = 1; i < n; i++)
			m += (d[i] = v[i] - v[i - 1]) / (double)(n - 1);
		for (size_t i = 1; i < n; i++)
			ss += (d[i] - m) * (d[i] - m);
		spread[p] = sqrt(ss / (double)(n - 2));
	}
	for (size_t t = 0; t < trials; t++) {
		size_t p = t % s->npoints, n = s->off[p + 1] - s->off[p];
		const double *v = s->y + s->off[p];
		uint64_t rng = seed ^ (0xD1B54A32D192ED03ull * (t + 1));
		double m = 0, step = fmax(3 * spread[p], log(1.05));
		size_t k;
		int named = 0;

		for (size_t i = 0; i < n; i++)
			m += v[i] / (double)n;
		for (size_t i = 0; i < hist + 2; i++)
			y[i] = v[ref_next(&rng) % n] - m;
		r->one.false_alerts += ref_regression(y, hist, 1, 0.01, 0.05);
		r->confirmed.false_alerts += ref_regression(y, hist + 1, 2, 0.01, 0.05);
		r->steps.false_alerts += gc_series_steps(y, hist + 2, 0.05, st,
							 GC_SERIES_MAX_STEPS) > 0;
		y[hist] += step;
		y[hist + 1] += step;
		r->one.detected += ref_regression(y, hist, 1, 0.01, 0.05);
		r->confirmed.detected += ref_regression(y, hist + 1, 2, 0.01, 0.05);
		k = gc_series_steps(y, hist + 2, 0.05, st, GC_SERIES_MAX_STEPS);
		for (size_t i = 0; i < k; i++)
			named |= st[i].at == hist && st[i].change > 0;
		r->steps.detected += named;
	}
	for (size_t p = 0; p < s->npoints; p++) {
		const double *v = s->y + s->off[p];
		size_t n = s->off[p + 1] - s->off[p];

		for (int c = 1; c <= 2; c++)
			for (size_t k = 4 + (size_t)c; k < n; k++) {
				r->real_judged[c - 1]++;
				r->real_alerts[c - 1] += ref_regression(v, k, c, 0.01, 0.05);
			}
	}
}

/* Both stored fixtures, at the histories and seeds `gcbench regress --evaluate` prints
 * (5, 10, 30 nights; seeds 0x5EED + row): the library's counts are the ones computed
 * here from the rule as documented. */
static void check_fixture(const char *path)
{
	static const size_t hist[] = { 5, 10, 30 };
	size_t len;
	char *text = slurp(path, &len);
	gc_series_set s;
	gc_series_eval a, r;
	gc_err e;

	CHECKF(len > 0, "cannot read %s", path);
	CHECKF(gc_series_set_parse(text, len, &s, &e) == GC_OK, "%s: %s", path, e.msg);
	free(text);
	CHECK_EQ_INT(s.npoints, 6);
	for (size_t i = 0; i < 3; i++) {
		CHECK_EQ_INT(gc_series_evaluate(&s, 3000, hist[i], 3, 0.05, 0.01, 0.05,
						0x5EED + i, &a, &e), GC_OK);
		ref_evaluate(&s, 3000, hist[i], 0x5EED + i, &r);
		CHECKF(a.one.false_alerts == r.one.false_alerts &&
		       a.one.detected == r.one.detected, "%s, %zu nights, one night: %zu/%zu "
		       "want %zu/%zu", path, hist[i], a.one.false_alerts, a.one.detected,
		       r.one.false_alerts, r.one.detected);
		CHECKF(a.confirmed.false_alerts == r.confirmed.false_alerts &&
		       a.confirmed.detected == r.confirmed.detected, "%s, %zu nights, "
		       "confirmed: %zu/%zu want %zu/%zu", path, hist[i],
		       a.confirmed.false_alerts, a.confirmed.detected,
		       r.confirmed.false_alerts, r.confirmed.detected);
		CHECK_EQ_INT(a.steps.false_alerts, r.steps.false_alerts);
		CHECK_EQ_INT(a.steps.detected, r.steps.detected);
		CHECK_EQ_INT(a.real_alerts[0], r.real_alerts[0]);
		CHECK_EQ_INT(a.real_alerts[1], r.real_alerts[1]);
		CHECK_EQ_INT(a.trials, 3000);
		/* a lasting step of 3 spreads is found more often than noise is flagged */
		CHECK(a.confirmed.detected > a.confirmed.false_alerts);
	}
	gc_series_set_release(&s);
}

static void test_evaluate_fixtures(void)
{
	check_fixture("tests/data/regress_nights.csv");
	check_fixture("tests/data/regress_nights_quiet.csv");
}

int main(void)
{
	GCT_SUITE("series");
	GCT_RUN(test_t_sf);
	GCT_RUN(test_judge);
	GCT_RUN(test_judge_outlier_kept);
	GCT_RUN(test_judge_confirm);
	GCT_RUN(test_judge_min_effect);
	GCT_RUN(test_binom_ci);
	GCT_RUN(test_steps);
	GCT_RUN(test_parse);
	GCT_RUN(test_evaluate_exact);
	GCT_RUN(test_evaluate_fixtures);
	return gct_finish();
}

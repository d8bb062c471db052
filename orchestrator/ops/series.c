/* orchestrator/ops/series.c: a point's nightly series (series.h). */
#include "series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Student's t ---------------------------------------------------------------- */

/* Continued fraction of the regularized incomplete beta (Lentz's method). */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h, del, aa;
	int m;

	d = fabs(d) < tiny ? tiny : d;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 300; m++) {
		aa = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? 1 / tiny : 1 / d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b). */
static double ibeta(double a, double b, double x)
{
	double lbt;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

double gc_t_sf(double t, double df)
{
	double tail;

	if (isnan(t) || df <= 0)
		return NAN;
	if (isinf(t))
		return t > 0 ? 0 : 1;
	tail = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t));
	return t > 0 ? tail : 1 - tail;
}

double gc_t_isf(double tail, double df)
{
	double lo = 0, hi = 1e3, mid;

	if (!(tail > 0 && tail < 1) || !(df > 0))
		return NAN;
	if (tail > 0.5)
		return -gc_t_isf(1 - tail, df);
	for (int i = 0; i < 200; i++) {
		mid = (lo + hi) / 2;
		if (gc_t_sf(mid, df) > tail)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* The x with I_x(a, b) = q (bisection; I is increasing in x). */
static double ibeta_inv(double a, double b, double q)
{
	double lo = 0, hi = 1, mid;

	for (int i = 0; i < 200; i++) {
		mid = (lo + hi) / 2;
		if (ibeta(a, b, mid) < q)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

void gc_binom_ci(size_t k, size_t n, double conf, double *lo, double *hi)
{
	double a = (1 - conf) / 2;

	if (!n || k > n) {
		*lo = *hi = NAN;
		return;
	}
	*lo = k ? ibeta_inv((double)k, (double)(n - k + 1), a) : 0;
	*hi = k < n ? ibeta_inv((double)(k + 1), (double)(n - k), 1 - a) : 1;
}

/* ---- moments --------------------------------------------------------------------- */

static double mean_of(const double *y, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += y[i];
	return n ? s / (double)n : NAN;
}

/* Sum of squared deviations from the mean m. */
static double ss_of(const double *y, size_t n, double m)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += (y[i] - m) * (y[i] - m);
	return s;
}

/* ---- steps ------------------------------------------------------------------------ */

/* The largest-t split of y[0..n) into *at (first index of the right part) with its t
 * and p; 0 when n < 3. */
static int best_split(const double *y, size_t n, size_t *at, double *t, double *p)
{
	double best = -1, tk, ml, mr, sp, df = (double)n - 2;
	size_t k;

	if (n < 3)
		return 0;
	for (k = 2; k < n; k++) {      /* left >= 2 nights, right >= 1 */
		ml = mean_of(y, k);
		mr = mean_of(y + k, n - k);
		sp = sqrt((ss_of(y, k, ml) + ss_of(y + k, n - k, mr)) / df);
		tk = sp > 0 ? fabs(mr - ml) / (sp * sqrt(1.0 / (double)k + 1.0 / (double)(n - k))) :
			(mr != ml ? INFINITY : 0);
		if (tk > best) {
			best = tk;
			*at = k;
		}
	}
	*t = best;
	*p = fmin(1, 2 * gc_t_sf(best, df) * (double)(n - 2));   /* Bonferroni: n - 2 splits */
	return 1;
}

struct steps {
	gc_series_step *v;
	size_t n, max;
};

/* Binary segmentation of y[lo..hi). */
static void segment(const double *y, size_t lo, size_t hi, double min_effect,
		    struct steps *s)
{
	size_t at = 0, i;
	double t, p, before, after, change;

	if (s->n >= s->max || !best_split(y + lo, hi - lo, &at, &t, &p))
		return;
	at += lo;
	before = mean_of(y + lo, at - lo);
	after = mean_of(y + at, hi - at);
	change = exp(after - before) - 1;
	if (!(p < GC_SERIES_STEP_P) || fabs(change) < min_effect)
		return;
	for (i = s->n; i > 0 && s->v[i - 1].at > at; i--)   /* keep night order */
		s->v[i] = s->v[i - 1];
	s->v[i] = (gc_series_step){ at, before, after, change, t, p };
	s->n++;
	segment(y, lo, at, min_effect, s);
	segment(y, at, hi, min_effect, s);
}

size_t gc_series_steps(const double *y, size_t n, double min_effect, gc_series_step *out,
		       size_t max)
{
	struct steps s = { out, 0, max };

	segment(y, 0, n, min_effect, &s);
	/* a step's before/after are of the segments it split; restate them against the
	 * neighbouring steps so each reads "the level before it, the level after it" */
	for (size_t i = 0; i < s.n; i++) {
		size_t lo = i ? s.v[i - 1].at : 0, hi = i + 1 < s.n ? s.v[i + 1].at : n;
		s.v[i].before = mean_of(y + lo, s.v[i].at - lo);
		s.v[i].after = mean_of(y + s.v[i].at, hi - s.v[i].at);
		s.v[i].change = exp(s.v[i].after - s.v[i].before) - 1;
	}
	return s.n;
}

/* ---- the nightly verdict ------------------------------------------------------------ */

/* Does night y (log median) lie beyond the model in direction dir (1 slower, -1
 * faster)? */
static int beyond(const gc_series_verdict *v, double y, int dir, double q, double se,
		  double min_effect)
{
	double t = se > 0 ? (y - v->mean) / se :
		(y > v->mean ? INFINITY : y < v->mean ? -INFINITY : 0);
	double tail = gc_t_sf(dir * t, (double)v->history - 1);

	if (!(tail < v->tail))
		return 0;
	/* the change must reach min_effect within the verdict's 1 - alpha prediction
	 * interval (q: the t quantile of alpha / 2, however many nights are judged) */
	return dir > 0 ? expm1(y - v->mean + q * se) >= min_effect :
		expm1(y - v->mean - q * se) <= -min_effect;
}

void gc_series_judge(const double *y, size_t n, int confirm, double alpha,
		     double min_effect, gc_series_verdict *v)
{
	gc_series_step st[GC_SERIES_MAX_STEPS];
	double q, se;
	size_t c = confirm == 2 ? 2 : 1, end, lo, k, h, i;
	int up, down;

	memset(v, 0, sizeof *v);
	v->t = v->p_up = v->p_down = v->mean = v->sd = v->change = v->tail = NAN;
	v->ci_lo = v->ci_hi = NAN;
	v->confirm = (int)c;
	if (n + 1 < c + GC_SERIES_MIN_HISTORY)
		return;
	end = n + 1 - c;                        /* history y[lo..end), candidates y[end..n] */
	lo = end > GC_SERIES_WINDOW ? end - GC_SERIES_WINDOW : 0;
	k = gc_series_steps(y + lo, end - lo, min_effect, st, GC_SERIES_MAX_STEPS);
	while (k && end - lo - st[k - 1].at < 2)   /* a last night alone: not a level yet */
		k--;
	if (k)
		lo += st[k - 1].at;             /* the level since the last step */
	h = end - lo;
	if (h < GC_SERIES_MIN_HISTORY)
		return;
	v->history = (int)h;
	v->mean = mean_of(y + lo, h);
	v->sd = sqrt(ss_of(y + lo, h, v->mean) / (double)(h - 1));
	v->tail = pow(alpha / 2, 1.0 / (double)c);
	se = v->sd * sqrt(1 + 1.0 / (double)h);
	q = gc_t_isf(alpha / 2, (double)h - 1);
	v->change = expm1(y[n] - v->mean);
	v->t = se > 0 ? (y[n] - v->mean) / se :
		(y[n] > v->mean ? INFINITY : y[n] < v->mean ? -INFINITY : 0);
	v->p_up = gc_t_sf(v->t, (double)h - 1);
	v->p_down = gc_t_sf(-v->t, (double)h - 1);
	v->ci_lo = expm1(y[n] - v->mean - q * se);
	v->ci_hi = expm1(y[n] - v->mean + q * se);
	up = down = 1;
	for (i = end; i <= n; i++) {
		up &= beyond(v, y[i], 1, q, se, min_effect);
		down &= beyond(v, y[i], -1, q, se, min_effect);
	}
	v->verdict = up ? 1 : down ? -1 : 0;
	if (!v->verdict && c == 2)
		v->suspect = beyond(v, y[n], 1, q, se, min_effect) ? 1 :
			beyond(v, y[n], -1, q, se, min_effect) ? -1 : 0;
}

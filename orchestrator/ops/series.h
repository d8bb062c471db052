/* orchestrator/ops/series.h: a point's nightly series: its noise model, the verdict on
 * the newest night, and the steps of the whole series.
 *
 * A night is one sweep of a spec; a point's value that night is its median iteration
 * time. The iterations of one run are not independent (one placement, one moment, one
 * neighbour's load), so with one run per point per night the spread that matters is
 * the spread of the median from night to night, which only the series itself shows.
 * Everything here works on y = ln(median), so a step is a relative change.
 *
 * Noise model (the nightly verdict, gc_series_judge). A verdict confirms over c nights
 * (c = 1 or 2): the candidates are the newest c nights, the history the up to
 * GC_SERIES_WINDOW nights before them, cut at the last step the step finder sees in
 * them with at least 2 nights after it (a level that moved is not noise; one last
 * night alone is not a level yet). With at least GC_SERIES_MIN_HISTORY nights there,
 * each candidate night i gets the prediction-interval statistic
 *     t_i = (y_i - mean(y_h)) / (sd(y_h) sqrt(1 + 1/h))    ~ Student t, h - 1 d.f.
 * (exact when nightly log medians are normal and independent). Outlier nights in the
 * history are kept: on the machines measured (docs/regress.md) bursts of load are part
 * of a point's night-to-night distribution, and setting them aside (median and MAD)
 * raised the false alerts more than it raised the recall.
 * Every candidate must lie beyond, in the same direction: its one-sided tail below
 * (alpha / 2)^(1/c) (so that, for independent nights, the chance that c unchanged
 * nights all do is alpha / 2, one direction of a two-sided alpha), and its change
 * must reach min_effect within the verdict's 1 - alpha prediction interval (a
 * slowdown's upper end, t quantile of alpha / 2 for any c, at least min_effect: a
 * change not shown smaller than the least that matters, so a precise 5% step is not a
 * coin toss and a precise 3% step stays "same" under a 5% minimum). Then REGRESSION
 * (or improvement). With c = 2 a newest night that alone meets the rule is a
 * "suspect": tomorrow confirms it or not.
 *
 * Steps (gc_series_steps): binary segmentation with a t-test. The split of a segment
 * is where the two-sample t statistic of the means before and after it is largest
 * (for a shift of the mean, the likelihood-ratio split); it is a step when the
 * two-sided p of that t (pooled variance, n - 2 d.f.), times the n - 2 splits it was
 * the largest of (Bonferroni), is below GC_SERIES_STEP_P and
 * the relative change is at least min_effect; both halves are then searched again.
 * This is the t-test of Hunter / Apache Otava with the max-t split in place of
 * E-divisive's energy statistic: a series has one value per night (tens, not
 * thousands), and what is sought is a shift of the level.
 */
#ifndef GC_SERIES_H
#define GC_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define GC_SERIES_WINDOW 30        /* earlier nights the nightly verdict looks at */
#define GC_SERIES_MIN_HISTORY 5    /* earlier nights it needs (after the last step) */
#define GC_SERIES_STEP_P 0.001     /* a split's t-test p for a step (Otava's default) */
#define GC_SERIES_MAX_STEPS 16

/* Upper tail P(T > t) of Student's t with df degrees of freedom (df > 0). */
double gc_t_sf(double t, double df);

/* Upper quantile of Student's t: the t with P(T > t) = tail (0 < tail < 1). */
double gc_t_isf(double tail, double df);

/* Clopper-Pearson interval of a binomial proportion, k of n, at confidence conf:
 * *lo..*hi (0 and 1 at the ends). */
void gc_binom_ci(size_t k, size_t n, double conf, double *lo, double *hi);

/* The nightly verdict on night y[n] (a log median), confirmed over the newest confirm
 * nights y[n - confirm + 1 .. n] (confirm 1 or 2), against the nights before them. */
typedef struct gc_series_verdict {
	int history;          /* history nights used (0: no model) */
	int confirm;          /* nights that had to lie beyond */
	double mean, sd;      /* of the history's log medians */
	double t;             /* the newest night's statistic (NAN without a model) */
	double p_up, p_down;  /* its one-sided tails */
	double tail;          /* each candidate night's tail must be below this */
	double change;        /* exp(y[n] - mean) - 1 */
	double ci_lo, ci_hi;  /* the newest night's 1 - alpha prediction interval of change */
	int verdict;          /* -1 improvement, 0 same, 1 regression; 0 without a model */
	int suspect;          /* confirm 2, no verdict: the newest night alone meets the
	                       * rule (1 slower, -1 faster), the night before does not */
} gc_series_verdict;

void gc_series_judge(const double *y, size_t n, int confirm, double alpha,
		     double min_effect, gc_series_verdict *v);

/* One step: night `at` (index into y) is the first night of the new level. */
typedef struct gc_series_step {
	size_t at;
	double before, after;   /* mean log medians of the segments either side */
	double change;          /* exp(after - before) - 1 */
	double t, p;
} gc_series_step;

/* The steps of y[0..n) in night order, at most max of them; returns how many. Each
 * segment needs 2 nights before a split, the part after it may be 1 night (the
 * newest night can begin a step). */
size_t gc_series_steps(const double *y, size_t n, double min_effect, gc_series_step *out,
		       size_t max);

/* ---- false-alarm rate and recall from measured nights --------------------------------- */

/* Measured nights: point p's log medians are y[off[p]] .. y[off[p + 1] - 1], night
 * order. */
typedef struct gc_series_set {
	double *y;
	size_t *off;
	char (*name)[160];
	size_t npoints, n, cap, pcap;
} gc_series_set;

void gc_series_set_release(gc_series_set *s);

/* Read CSV "point,night,median_s" (a header line first; a point's rows together,
 * nights ascending; median_s > 0) into s (log medians). GC_E_FORMAT with "line N:
 * what" in e for a malformed line; GC_E_NOMEM. */
gc_rc gc_series_set_parse(const char *text, size_t len, gc_series_set *s, gc_err *e);

/* Point p's night-to-night spread: the standard deviation of y[i] - y[i-1] (the
 * relative change of its median from one night to the next); NAN under 3 nights. */
double gc_series_spread(const gc_series_set *s, size_t p);

/* One verdict's counts: unchanged comparisons called REGRESSION, stepped ones called
 * REGRESSION (recall) at the night it judges. */
typedef struct gc_series_rate {
	size_t false_alerts, detected;
} gc_series_rate;

typedef struct gc_series_eval {
	size_t points;               /* points with 3 or more nights (the others skipped) */
	size_t trials;               /* unchanged comparisons, and as many with a step */
	gc_series_rate one;          /* confirm 1, judging the first stepped night */
	gc_series_rate confirmed;    /* confirm 2, judging the second (the confirming) */
	gc_series_rate steps;        /* --series on all history + 2 nights: a step
	                              * anywhere (unchanged); one named at the first
	                              * stepped night (stepped) */
	size_t real_judged[2];       /* the measured nights as they are: each night with
	                              * enough before it, judged against them with confirm
	                              * 1 and 2 ([0], [1]) */
	size_t real_alerts[2];       /* of those, called REGRESSION */
	double median_spread;        /* of the points' spreads */
	double median_step;          /* of the injected steps */
} gc_series_eval;

/* For trials comparisons, each of a point in turn: a series of history + 2 nights,
 * every night the point's mean level plus a residual drawn (with replacement, each
 * night independently) from its measured nights' residuals; judged as it is
 * (unchanged), then with a step that begins at night history + 1 and lasts (both last
 * nights slower by step_k spreads in ln units, the spread being of ln medians, at
 * least min_step: ln(1 + min_step)). The one-night verdict judges night history + 1
 * against the history, the confirmed one night history + 2 (confirm 2). Fixed seed:
 * one input, one table. median_step is relative (exp(step) - 1). GC_E_INVAL when no
 * point has 3 nights; GC_E_NOMEM. */
gc_rc gc_series_evaluate(const gc_series_set *s, size_t trials, size_t history,
			 double step_k, double min_step, double alpha, double min_effect,
			 uint64_t seed, gc_series_eval *out, gc_err *e);

#endif

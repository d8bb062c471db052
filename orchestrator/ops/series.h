/* orchestrator/ops/series.h: a point's nightly series: its noise model, the verdict on
 * the newest night, and the steps of the whole series.
 *
 * A night is one sweep of a spec; a point's value that night is its median iteration
 * time. The iterations of one run are not independent (one placement, one moment, one
 * neighbour's load), so with one run per point per night the spread that matters is
 * the spread of the median from night to night, which only the series itself shows.
 * Everything here works on y = ln(median), so a step is a relative change.
 *
 * Noise model (the nightly verdict, gc_series_judge): the history is the newest
 * GC_SERIES_WINDOW earlier nights, cut at the last step the step finder sees in them
 * (a level that moved is not noise); with at least GC_SERIES_MIN_HISTORY nights left,
 * the candidate night c is a prediction-interval test against them:
 *     t = (y_c - mean(y_h)) / (sd(y_h) sqrt(1 + 1/h))    ~ Student t, h - 1 d.f.
 * (the exact distribution when nightly log medians are normal and independent; the
 * measured false-alarm rate, tools/regress-eval.sh, checks the claim on real nights).
 * REGRESSION when t's upper tail is below alpha / 2 (one direction of a two-sided
 * alpha, as the Mann-Whitney verdict used) and the change is at least min_effect;
 * improvement for the mirror case.
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

/* The nightly verdict on night y[n] (a log median) against the nights y[0..n). */
typedef struct gc_series_verdict {
	int history;          /* earlier nights used (0: not enough for a model) */
	double mean, sd;      /* of the history's log medians */
	double t;             /* prediction-interval statistic (NAN without a model) */
	double p_up, p_down;  /* one-sided tails of t */
	double change;        /* exp(y[n] - mean) - 1 */
	int verdict;          /* -1 improvement, 0 same, 1 regression; 0 without a model */
} gc_series_verdict;

void gc_series_judge(const double *y, size_t n, double alpha, double min_effect,
		     gc_series_verdict *v);

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

typedef struct gc_series_eval {
	size_t points;               /* points with 3 or more nights (the others skipped) */
	size_t trials;               /* unchanged comparisons, and as many with a step */
	size_t false_alerts;         /* unchanged comparisons called REGRESSION */
	size_t detected;             /* stepped comparisons called REGRESSION */
	size_t step_alerts_cp;       /* stepped series whose step finder named the night */
	size_t false_steps_cp;       /* unchanged series in which it named a step */
	size_t real_judged;          /* the measured nights as they are: each night with
	                              * GC_SERIES_MIN_HISTORY or more before it, judged
	                              * against them (gc_series_judge) */
	size_t real_alerts;          /* of those, called REGRESSION */
	double median_spread;        /* of the points' spreads */
	double median_step;          /* of the injected steps */
} gc_series_eval;

/* For trials comparisons, each of a point in turn: a series of history nights plus
 * one, every night the point's mean level plus a residual drawn (with replacement)
 * from its measured nights' residuals; judged unchanged, then with the last night
 * slower by step_k spreads in ln units (the spread is of ln medians), at least
 * min_step (relative: ln(1 + min_step)). Fixed seed: one input, one table.
 * median_step is relative (exp(step) - 1). GC_E_INVAL when no point has 3 nights;
 * GC_E_NOMEM. */
gc_rc gc_series_evaluate(const gc_series_set *s, size_t trials, size_t history,
			 double step_k, double min_step, double alpha, double min_effect,
			 uint64_t seed, gc_series_eval *out, gc_err *e);

#endif

/* netem/trace.h: a bandwidth trace, the rate a link holds over time (docs/netem.md,
 * "Bandwidth traces"). Pure functions: no root, no kernel.
 *
 * The format, one change per line:
 *
 *     # comment (from '#' to the end of the line); blank lines are skipped
 *     0     500mbit        SECONDS RATE: from SECONDS on, the cap is RATE
 *     0.1   2gbit
 *     0.25  1gbit
 *     0.5   end            optional: the trace's length (then it repeats)
 *
 * SECONDS: a decimal number (digits, optionally '.' and up to 6 digits: microseconds),
 * the first line at 0, each next one later than the one before by at least 10 ms (the
 * player follows at most 100 changes a second). RATE: a cap in tc's units as anywhere in
 * gcbench (gc_bw_parse: 1mbit to 400gbit; no 'unlimited', no bare number). Fields are
 * separated by spaces or tabs. The trace repeats from its start when it ends: at the
 * 'end' line's time, or, without one, after the last rate has held as long as the step
 * before it (a one-line trace is a constant rate with a period of 1 s). At most
 * GC_TRACE_MAX_STEPS lines of rates, a length of at most one day.
 */
#ifndef GC_NETEM_TRACE_H
#define GC_NETEM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define GC_TRACE_MAX_STEPS 1000000
#define GC_TRACE_MIN_STEP_US 10000ull          /* 10 ms */
#define GC_TRACE_MAX_PERIOD_US 86400000000ull  /* one day */
#define GC_TRACE_MAX_BYTES (64u << 20)         /* the largest trace file read */

struct gc_trace_step {
	uint64_t t_us;          /* from the trace's start */
	uint64_t rate_bps;      /* bits/s, in [GC_BW_MIN, GC_BW_MAX] */
};

struct gc_trace {
	struct gc_trace_step *steps;   /* n >= 1, t_us strictly increasing, steps[0].t_us == 0 */
	size_t n;
	uint64_t period_us;            /* > steps[n-1].t_us */
	uint64_t min_bps, max_bps;
};

/* Parse text (len bytes; need not be NUL-terminated). name labels messages as
 * "NAME:LINE: ..." (the file's path). Every line is checked; the message names the
 * first problem and counts the others. GC_E_FORMAT for a malformed trace, GC_E_NOMEM.
 * On success *t owns its steps (gc_trace_release); on failure *t is empty. */
gc_rc gc_trace_parse(const char *text, size_t len, const char *name, struct gc_trace *t,
		     gc_err *e);

/* Read and parse the file at path (at most GC_TRACE_MAX_BYTES). Errors as
 * gc_trace_parse, plus GC_E_NOTFOUND / GC_E_IO for the file. */
gc_rc gc_trace_load(const char *path, struct gc_trace *t, gc_err *e);

void gc_trace_release(struct gc_trace *t);

/* The index of the step in force at time t_us from the start (the trace repeats). */
size_t gc_trace_index_at(const struct gc_trace *t, uint64_t t_us);

/* The rate in force at time t_us from the start. */
uint64_t gc_trace_rate_at(const struct gc_trace *t, uint64_t t_us);

/* The time-weighted mean rate (bits/s) over [t0_us, t1_us) from the start (t1 > t0;
 * the rate at t0 when they are equal). */
double gc_trace_mean(const struct gc_trace *t, uint64_t t0_us, uint64_t t1_us);

/* The phase of time t_us: t_us modulo the period, in seconds. */
double gc_trace_phase_s(const struct gc_trace *t, uint64_t t_us);

#endif

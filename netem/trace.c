/* netem/trace.c: bandwidth traces, parsed strictly (see trace.h). */
#include "trace.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "fsutil.h"
#include "grow.h"
#include "strutil.h"

/* What the parse of one trace has seen so far. */
struct tparse {
	const char *name;
	struct gc_trace *t;
	size_t cap;
	int have_end;
	size_t line;
	size_t n_bad;           /* lines with a problem */
	gc_err first;           /* the first problem */
};

__attribute__((format(printf, 2, 3)))
static void problem(struct tparse *p, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (p->n_bad++)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gc_fail(&p->first, GC_E_FORMAT, "%s:%zu: %s", p->name, p->line, msg);
}

/* SECONDS: [0-9]{1,6}(\.[0-9]{1,6})? into microseconds; 0 or -1. */
static int seconds_parse(const char *s, uint64_t *us)
{
	uint64_t whole = 0, frac = 0, scale = 1000000;
	size_t i = 0, nd = 0;

	while (s[i] >= '0' && s[i] <= '9' && nd < 7)
		whole = whole * 10 + (uint64_t)(s[i++] - '0'), nd++;
	if (!nd || nd > 6)
		return -1;
	if (s[i] == '.') {
		i++;
		nd = 0;
		while (s[i] >= '0' && s[i] <= '9' && nd < 7) {
			frac = frac * 10 + (uint64_t)(s[i++] - '0');
			scale /= 10;
			nd++;
		}
		if (!nd || nd > 6)
			return -1;
		frac *= scale;
	}
	if (s[i])
		return -1;
	*us = whole * 1000000ull + frac;
	return 0;
}

static gc_rc add_step(struct tparse *p, uint64_t t_us, uint64_t bps)
{
	struct gc_trace *t = p->t;

	if (GC_GROW(t->steps, p->cap, t->n + 1, 64))
		return GC_E_NOMEM;
	t->steps[t->n].t_us = t_us;
	t->steps[t->n].rate_bps = bps;
	t->n++;
	return GC_OK;
}

/* The time of this line against the lines before: 0 when it may follow them. */
static int time_ok(struct tparse *p, const char *ts, uint64_t us)
{
	const struct gc_trace *t = p->t;
	uint64_t prev = t->n ? t->steps[t->n - 1].t_us : 0;

	if (p->have_end)
		return problem(p, "'%s' comes after the 'end' line; the trace ends there", ts), -1;
	if (!t->n && us != 0)
		return problem(p, "the first line starts at '%s'; a trace starts at 0 (write "
			       "'0 RATE' first)", ts), -1;
	if (t->n && us < prev + GC_TRACE_MIN_STEP_US)
		return problem(p, "time '%s' is not at least 10 ms after the line before; times "
			       "increase, by 10 ms or more (the player follows at most 100 changes "
			       "a second)", ts), -1;
	if (us >= GC_TRACE_MAX_PERIOD_US)
		return problem(p, "time '%s' is past one day, the longest trace", ts), -1;
	return 0;
}

/* One line's two fields (already split); GC_E_NOMEM or GC_OK (problems are counted). */
static gc_rc field_pair(struct tparse *p, const char *ts, const char *rs)
{
	char hint[160];
	uint64_t us, bps;

	if (seconds_parse(ts, &us))
		return problem(p, "invalid time '%s': write seconds as a decimal number with up "
			       "to 6 digits after the point (e.g. 0.25)", ts), GC_OK;
	if (time_ok(p, ts, us))
		return GC_OK;
	if (!strcmp(rs, "end")) {
		if (!p->t->n)
			return problem(p, "'end' before any rate; give '0 RATE' first"), GC_OK;
		p->have_end = 1;
		p->t->period_us = us;
		return GC_OK;
	}
	if (gc_bw_parse(rs, 0, &bps, NULL) || !bps)
		return problem(p, "invalid rate '%s': %s", rs,
			       gc_bw_hint(rs, 0, hint, sizeof(hint))), GC_OK;
	if (p->t->n >= GC_TRACE_MAX_STEPS)
		return problem(p, "more than 1000000 rates; the trace is too long"), GC_OK;
	return add_step(p, us, bps);
}

/* Split one line (NUL-terminated, comment removed) into fields and check them. */
static gc_rc one_line(struct tparse *p, char *s)
{
	char *f[3];
	int n = 0;
	char *tok, *save = NULL;

	for (tok = strtok_r(s, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
		if (n == 3)
			break;
		f[n++] = tok;
	}
	if (n == 0)
		return GC_OK;
	if (n != 2)
		return problem(p, "%s; each line is 'SECONDS RATE' (e.g. '0.5 2gbit')",
			       n == 1 ? "one field" : "more than two fields"), GC_OK;
	return field_pair(p, f[0], f[1]);
}

static void finish(struct gc_trace *t)
{
	size_t i;

	if (!t->period_us) {
		if (t->n == 1)
			t->period_us = 1000000;
		else
			t->period_us = 2 * t->steps[t->n - 1].t_us - t->steps[t->n - 2].t_us;
	}
	t->min_bps = t->max_bps = t->steps[0].rate_bps;
	for (i = 1; i < t->n; i++) {
		if (t->steps[i].rate_bps < t->min_bps)
			t->min_bps = t->steps[i].rate_bps;
		if (t->steps[i].rate_bps > t->max_bps)
			t->max_bps = t->steps[i].rate_bps;
	}
}

static gc_rc check_whole(struct tparse *p, const char *text, size_t len, gc_err *e)
{
	if (memchr(text, 0, len))
		return gc_fail(e, GC_E_FORMAT, "%s: a NUL byte; a trace is text", p->name);
	if (!p->n_bad && !p->t->n) {
		p->line = 1;
		problem(p, "no rate; a trace has 'SECONDS RATE' lines, starting with '0 RATE'");
	}
	if (!p->n_bad && !p->have_end && p->t->n > 1 &&
	    2 * p->t->steps[p->t->n - 1].t_us - p->t->steps[p->t->n - 2].t_us >=
	    GC_TRACE_MAX_PERIOD_US)
		problem(p, "the trace's length passes one day; end it earlier");
	if (!p->n_bad)
		return GC_OK;
	if (p->n_bad > 1)
		return gc_fail(e, GC_E_FORMAT, "%s (and %zu more line%s with problems)",
			       p->first.msg, p->n_bad - 1, p->n_bad > 2 ? "s" : "");
	return gc_fail(e, GC_E_FORMAT, "%s", p->first.msg);
}

gc_rc gc_trace_parse(const char *text, size_t len, const char *name, struct gc_trace *t,
		     gc_err *e)
{
	struct tparse p;
	const char *s = text, *end = text + len;
	char *line = NULL;
	gc_rc rc = GC_OK;

	memset(t, 0, sizeof(*t));
	memset(&p, 0, sizeof(p));
	p.name = name ? name : "trace";
	p.t = t;
	if (memchr(text, 0, len))
		s = end;                 /* check_whole says why */
	while (!rc && s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t n = (size_t)((nl ? nl : end) - s);
		char *hash;

		p.line++;
		free(line);
		if (!(line = malloc(n + 1))) {
			rc = GC_E_NOMEM;
			break;
		}
		memcpy(line, s, n);
		line[n] = 0;
		if ((hash = strchr(line, '#')))
			*hash = 0;
		rc = one_line(&p, line);
		s = nl ? nl + 1 : end;
	}
	free(line);
	if (!rc)
		rc = check_whole(&p, text, len, e);
	else
		gc_fail(e, rc, "%s: out of memory reading the trace", p.name);
	if (rc) {
		gc_trace_release(t);
		return rc;
	}
	finish(t);
	return GC_OK;
}

gc_rc gc_trace_load(const char *path, struct gc_trace *t, gc_err *e)
{
	unsigned char *buf = NULL;
	size_t len = 0;
	gc_rc rc;

	memset(t, 0, sizeof(*t));
	rc = gc_read_whole(path, "trace", GC_TRACE_MAX_BYTES, &buf, &len, e);
	if (!rc)
		rc = gc_trace_parse((const char *)buf, len, path, t, e);
	free(buf);
	return rc;
}

void gc_trace_release(struct gc_trace *t)
{
	if (!t)
		return;
	free(t->steps);
	memset(t, 0, sizeof(*t));
}

size_t gc_trace_index_at(const struct gc_trace *t, uint64_t t_us)
{
	uint64_t ph = t_us % t->period_us;
	size_t lo = 0, hi = t->n;   /* the last step with t <= ph: in [lo, hi) */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->steps[mid].t_us <= ph)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

uint64_t gc_trace_rate_at(const struct gc_trace *t, uint64_t t_us)
{
	return t->steps[gc_trace_index_at(t, t_us)].rate_bps;
}

double gc_trace_phase_s(const struct gc_trace *t, uint64_t t_us)
{
	return (double)(t_us % t->period_us) / 1e6;
}

/* The integral of the rate (bits) over [0, t_us) from the start. */
static long double integral(const struct gc_trace *t, uint64_t t_us)
{
	uint64_t reps = t_us / t->period_us, ph = t_us % t->period_us;
	long double per = 0, part = 0;
	size_t i;

	for (i = 0; i < t->n; i++) {
		uint64_t a = t->steps[i].t_us;
		uint64_t b = i + 1 < t->n ? t->steps[i + 1].t_us : t->period_us;
		long double r = (long double)t->steps[i].rate_bps;
		per += r * (long double)(b - a);
		if (ph > a)
			part += r * (long double)((ph < b ? ph : b) - a);
	}
	return ((long double)reps * per + part) / 1e6L;
}

double gc_trace_mean(const struct gc_trace *t, uint64_t t0_us, uint64_t t1_us)
{
	if (t1_us <= t0_us)
		return (double)gc_trace_rate_at(t, t0_us);
	return (double)((integral(t, t1_us) - integral(t, t0_us)) * 1e6L /
			(long double)(t1_us - t0_us));
}

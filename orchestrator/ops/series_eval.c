/* orchestrator/ops/series_eval.c: measured nights, and the false-alarm rate and
 * recall of the nightly verdict on series resampled from them (series.h). */
#include "series.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "strutil.h"

void gc_series_set_release(gc_series_set *s)
{
	if (!s)
		return;
	free(s->y);
	free(s->off);
	free(s->name);
	memset(s, 0, sizeof *s);
}

static gc_rc set_grow(gc_series_set *s, int new_point)
{
	void *nv;

	if (GC_GROW(s->y, s->cap, s->n + 1, 64))
		return GC_E_NOMEM;
	if (new_point && s->npoints + 2 > s->pcap) {
		s->pcap = s->pcap ? 2 * s->pcap : 16;
		if (!(nv = realloc(s->off, s->pcap * sizeof *s->off)))
			return GC_E_NOMEM;
		s->off = nv;
		if (!(nv = realloc(s->name, s->pcap * sizeof *s->name)))
			return GC_E_NOMEM;
		s->name = nv;
	}
	return GC_OK;
}

/* One data line "point,night,median_s" (NUL-terminated, no newline) into s. */
static gc_rc parse_line(char *line, gc_series_set *s, long *last_night, int lineno,
			gc_err *e)
{
	char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
	uint64_t night;
	double med;
	int new_point;

	if (!c1 || !c2 || strchr(c2 + 1, ',') || c1 == line || (size_t)(c1 - line) >= 160)
		return gc_fail(e, GC_E_FORMAT, "line %d: expected point,night,median_s with a "
			       "point name of 1 to 159 bytes", lineno);
	*c1 = *c2 = '\0';
	if (gc_parse_u64(c1 + 1, &night) || night > 1000000000ull)
		return gc_fail(e, GC_E_FORMAT, "line %d: night '%.32s' is not a whole number",
			       lineno, c1 + 1);
	if (gc_parse_double(c2 + 1, &med) || !(med > 0) || !isfinite(med))
		return gc_fail(e, GC_E_FORMAT, "line %d: median_s '%.32s' is not a positive "
			       "number of seconds", lineno, c2 + 1);
	new_point = !s->npoints || strcmp(s->name[s->npoints - 1], line);
	if (!new_point && (long)night <= *last_night)
		return gc_fail(e, GC_E_FORMAT, "line %d: night %llu of point '%s' is not after "
			       "night %ld: write each point's nights in ascending order", lineno,
			       (unsigned long long)night, line, *last_night);
	for (size_t p = 0; new_point && p + 1 < s->npoints; p++)
		if (!strcmp(s->name[p], line))
			return gc_fail(e, GC_E_FORMAT, "line %d: point '%s' appears again after "
				       "other points: keep a point's rows together", lineno, line);
	if (set_grow(s, new_point))
		return gc_fail(e, GC_E_NOMEM, "out of memory reading measured nights");
	if (new_point) {
		gc_strlcpy(s->name[s->npoints], line, sizeof s->name[0]);
		s->off[s->npoints++] = s->n;
	}
	s->y[s->n++] = log(med);
	s->off[s->npoints] = s->n;
	*last_night = (long)night;
	return GC_OK;
}

gc_rc gc_series_set_parse(const char *text, size_t len, gc_series_set *s, gc_err *e)
{
	char line[512];
	size_t i = 0, j;
	long last_night = -1;
	int lineno = 0;
	gc_rc rc = GC_OK;

	memset(s, 0, sizeof *s);
	while (!rc && i < len) {
		for (j = i; j < len && text[j] != '\n'; j++)
			;
		lineno++;
		if (j - i >= sizeof line) {
			rc = gc_fail(e, GC_E_FORMAT, "line %d: longer than %zu bytes", lineno,
				     sizeof line - 1);
			break;
		}
		memcpy(line, text + i, j - i);
		line[j - i] = '\0';
		if (j - i && line[j - i - 1] == '\r')
			line[j - i - 1] = '\0';
		i = j + 1;
		if (lineno == 1) {
			if (strcmp(line, "point,night,median_s"))
				rc = gc_fail(e, GC_E_FORMAT, "line 1: expected the header "
					     "'point,night,median_s'");
			continue;
		}
		if (line[0])
			rc = parse_line(line, s, &last_night, lineno, e);
	}
	if (!rc && !lineno)
		rc = gc_fail(e, GC_E_FORMAT, "line 1: empty input; expected the header "
			     "'point,night,median_s'");
	if (rc)
		gc_series_set_release(s);
	return rc;
}

double gc_series_spread(const gc_series_set *s, size_t p)
{
	const double *y = s->y + s->off[p];
	size_t n = s->off[p + 1] - s->off[p], i;
	double m = 0, ss = 0;

	if (n < 3)
		return NAN;
	for (i = 1; i < n; i++)
		m += y[i] - y[i - 1];
	m /= (double)(n - 1);
	for (i = 1; i < n; i++)
		ss += (y[i] - y[i - 1] - m) * (y[i] - y[i - 1] - m);
	return sqrt(ss / (double)(n - 2));
}

/* ---- resampling ------------------------------------------------------------------- */

static uint64_t next(uint64_t *r)   /* splitmix64 */
{
	uint64_t z = (*r += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_inplace(double *x, size_t n)
{
	qsort(x, n, sizeof *x, cmp_dbl);
	return n ? (x[(n - 1) / 2] + x[n / 2]) / 2 : NAN;
}

/* One series of point p: night i = its residual drawn at random (mean 0), history + 1
 * nights into y. */
static void draw(const gc_series_set *s, size_t p, size_t nights, uint64_t *rng, double *y)
{
	const double *v = s->y + s->off[p];
	size_t n = s->off[p + 1] - s->off[p];
	double m = 0;

	for (size_t i = 0; i < n; i++)
		m += v[i];
	m /= (double)n;
	for (size_t i = 0; i < nights; i++)
		y[i] = v[next(rng) % n] - m;
}

gc_rc gc_series_evaluate(const gc_series_set *s, size_t trials, size_t history,
			 double step_k, double min_step, double alpha, double min_effect,
			 uint64_t seed, gc_series_eval *out, gc_err *e)
{
	size_t *pts = malloc((s->npoints + 1) * sizeof *pts), np = 0, t, k, nn = history + 2;
	double *y = malloc(nn * sizeof *y), *sp = malloc((s->npoints + 1) * sizeof *sp);
	double *steps = malloc((trials + 1) * sizeof *steps), step;
	gc_series_step st[GC_SERIES_MAX_STEPS];
	gc_series_verdict v;
	gc_rc rc = GC_OK;

	memset(out, 0, sizeof *out);
	if (!pts || !y || !sp || !steps) {
		rc = gc_fail(e, GC_E_NOMEM, "out of memory evaluating the nightly verdict");
		goto out;
	}
	for (size_t p = 0; p < s->npoints; p++)
		if (s->off[p + 1] - s->off[p] >= 3) {
			sp[np] = gc_series_spread(s, p);
			pts[np++] = p;
		}
	if (!np || history < 2) {
		rc = gc_fail(e, GC_E_INVAL, "no point has 3 or more nights: measure more "
			     "nights (tools/regress-eval.sh)");
		goto out;
	}
	for (t = 0; t < trials; t++) {
		size_t p = pts[t % np];
		uint64_t rng = seed ^ (0xD1B54A32D192ED03ull * (t + 1));

		draw(s, p, nn, &rng, y);
		for (int stepped = 0; stepped < 2; stepped++) {
			gc_series_rate *one = &out->one, *conf = &out->confirmed, *cp = &out->steps;
			size_t *count;

			if (stepped) {
				step = fmax(step_k * sp[t % np], log1p(min_step));
				steps[t] = expm1(step);
				y[history] += step;
				y[history + 1] += step;
			}
			gc_series_judge(y, history, 1, alpha, min_effect, &v);
			count = stepped ? &one->detected : &one->false_alerts;
			*count += v.verdict > 0;
			gc_series_judge(y, history + 1, 2, alpha, min_effect, &v);
			count = stepped ? &conf->detected : &conf->false_alerts;
			*count += v.verdict > 0;
			k = gc_series_steps(y, nn, min_effect, st, GC_SERIES_MAX_STEPS);
			if (stepped) {
				int named = 0;

				for (size_t i = 0; i < k; i++)
					named |= st[i].at == history && st[i].change > 0;
				cp->detected += named;
			} else {
				cp->false_alerts += k > 0;
			}
		}
	}
	for (size_t i = 0; i < np; i++) {
		const double *ym = s->y + s->off[pts[i]];
		size_t n = s->off[pts[i] + 1] - s->off[pts[i]];

		for (int c = 1; c <= 2; c++)
			for (k = GC_SERIES_MIN_HISTORY + (size_t)c - 1; k < n; k++) {
				gc_series_judge(ym, k, c, alpha, min_effect, &v);
				out->real_judged[c - 1] += v.history > 0;
				out->real_alerts[c - 1] += v.verdict > 0;
			}
	}
	out->points = np;
	out->trials = trials;
	out->median_spread = median_inplace(sp, np);
	out->median_step = median_inplace(steps, trials);
out:
	free(pts);
	free(y);
	free(sp);
	free(steps);
	return rc;
}

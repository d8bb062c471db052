/* report/report_accuracy.c: the accuracy section of gcbench report: validation accuracy
 * against training seconds, one chart per model and bandwidth cap with a line per
 * method (repeats averaged per validated iteration) and the target marked; a table of
 * iterations and seconds to the target with both speedups; and which points never
 * reached it. Only when the database holds validation records (training workloads
 * with eval_every); otherwise the section is left out. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/q_report.h"
#include "report_int.h"
#include "grow.h"
#include "strutil.h"

#define MAX_LINES 16
#define MAX_POINTS 512

/* One validation point of a method at a model and cap: repeats averaged per iteration
 * (training is deterministic, so their accuracies agree; their seconds differ). */
struct apoint {
	char model[64], label[96], key[300];
	double gbps, t, acc, target;   /* target: NaN without an accuracy target */
};

struct points {
	struct apoint *v;
	size_t n, cap;
};

/* gc_db_accuracy_curves callback: one point into ps; stops when out of memory. */
static int point_add(const struct gc_db_acc_point *q, void *arg)
{
	struct points *ps = arg;
	struct apoint *a;

	if (GC_GROW(ps->v, ps->cap, ps->n + 1, 256))
		return 1;
	a = &ps->v[ps->n++];
	gc_strlcpy(a->model, q->model, sizeof a->model);
	gc_report_short_label(q->method, q->params, a->label, sizeof a->label);
	snprintf(a->key, sizeof a->key, "%.31s %.260s", q->method, q->params);
	a->gbps = (double)q->bw_cap_bps / 1e9;
	a->t = q->t_train;
	a->acc = q->val_acc;
	a->target = q->target;
	return 0;
}

/* The validation points (*out owned by the caller: free()); none when the query fails. */
static size_t load_points(struct gc_rep *r, struct apoint **out)
{
	struct points ps = { 0 };

	gc_db_accuracy_curves(r->db, point_add, &ps, NULL);
	*out = ps.v;
	return ps.n;
}

/* The chart of points [i0, i1) (one model and cap): a line per method variant. */
static void curve_chart(struct gc_rep *r, const struct apoint *p, size_t i0, size_t i1)
{
	static double xs[MAX_LINES][MAX_POINTS], ys[MAX_LINES][MAX_POINTS];
	char names[MAX_LINES][112], title[192], slug[160], cap[32];
	gc_svg_series s[MAX_LINES];
	gc_svg_xy c = { 0 };
	gc_buf svg = { 0 };
	size_t ns = 0;
	double target = NAN, lo = INFINITY, hi = 0;

	for (size_t i = i0; i < i1; i++) {
		if (i == i0 || strcmp(p[i].key, p[i - 1].key)) {
			if (ns == MAX_LINES)
				break;
			snprintf(names[ns], sizeof names[0], "%s", p[i].label);
			s[ns] = (gc_svg_series){ names[ns], xs[ns], ys[ns], 0 };
			ns++;
		}
		gc_svg_series *q = &s[ns - 1];
		if (q->n < MAX_POINTS)
			xs[ns - 1][q->n] = p[i].t, ys[ns - 1][q->n++] = p[i].acc;
		target = isnan(target) ? p[i].target : target;
		lo = p[i].t > 0 ? fmin(lo, p[i].t) : lo, hi = fmax(hi, p[i].t);
	}
	gc_rep_cap(cap, sizeof cap, p[i0].gbps);
	snprintf(title, sizeof title, "Validation accuracy vs training time: %.64s at %s",
		 p[i0].model, cap);
	c.title = title, c.xlabel = "training seconds (iterations summed, evaluation excluded)";
	c.ylabel = "validation accuracy";
	c.xlog = hi >= 30 * lo;   /* methods 10x apart: a log axis keeps the fast ones apart */
	c.empty_hint = "no validation records";
	c.hline_on = !isnan(target), c.hline = target, c.hline_label = "target";
	c.s = s, c.ns = ns;
	gc_svg_xy_chart(&svg, &c);
	snprintf(slug, sizeof slug, "accuracy-%.64s-%g", p[i0].model, p[i0].gbps);
	gc_rep_figure(r, slug, &svg, title);
	gc_buf_release(&svg);
}

/* v with prec decimals and suffix ("x"), or "-" when unknown (NAN). */
static void num(char *buf, size_t n, double v, int prec, const char *suffix)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.*f%s", prec, v, suffix);
}

static const char *const tta_head[] = { "model", "method", "workers", "cap",
	"iterations to target", "seconds to target", "iteration speedup",
	"time-to-target speedup" };

struct tta {
	struct gc_rep *r;
	gc_buf *missed;
	size_t rows;
};

/* gc_db_time_to_target callback: one row of the table (opened at the first). */
static int tta_row(const struct gc_db_tta_row *t, void *arg)
{
	struct tta *a = arg;
	char c[8][112];
	const char *cells[8];

	if (!a->rows++)
		gc_rep_table(a->r, tta_head, 8);
	gc_strlcpy(c[0], t->model, sizeof c[0]);
	gc_report_short_label(t->method, t->params, c[1], sizeof c[1]);
	snprintf(c[2], sizeof c[2], "%d", t->world_size);
	gc_rep_cap(c[3], sizeof c[3], (double)t->bw_cap_bps / 1e9);
	num(c[4], sizeof c[4], t->iters_to_target, 0, "");
	num(c[5], sizeof c[5], t->t_to_target, 3, "");
	num(c[6], sizeof c[6], t->iter_speedup, 2, "x");
	num(c[7], sizeof c[7], t->tta_speedup, 2, "x");
	if (t->missed > 0) {
		snprintf(c[4], sizeof c[4], "never (%d of %d runs)", t->missed, t->repeats);
		gc_buf_addf(a->missed, "%s%s %s at %s", a->missed->len ? ", " : "", c[0], c[1],
			    c[3]);
	}
	for (int k = 0; k < 8; k++)
		cells[k] = c[k];
	gc_rep_row(a->r, cells, 8);
	return 0;
}

/* The table (its row count returned); the points that missed the target go to missed.
 * No table when the query fails before its first row; an empty one when it has none. */
static size_t tta_table(struct gc_rep *r, gc_buf *missed)
{
	struct tta a = { r, missed, 0 };
	gc_rc rc = gc_db_time_to_target(r->db, tta_row, &a, NULL);

	if (rc && !a.rows)
		return 0;
	if (!a.rows)
		gc_rep_table(r, tta_head, 8);
	gc_rep_table_end(r);
	return a.rows;
}

void gc_rep_accuracy(struct gc_rep *r)
{
	struct apoint *p;
	size_t n = load_points(r, &p), i0 = 0;
	gc_buf missed = { 0 };

	if (!n) {
		free(p);
		return;
	}
	gc_rep_h2(r, "Time to accuracy");
	gc_rep_p(r, "Validation accuracy of the training runs against their training seconds "
		 "(each rank's t_iter summed from the first iteration, warmup included; the "
		 "evaluations themselves are not counted). Time-to-target speedup = the "
		 "baseline's seconds to the sweep's target / the method's; iteration speedup = "
		 "the ratio of median iteration times, as in the speedup section. A compressor "
		 "that needs more iterations, or whose median hides slow iterations, gains less "
		 "than its iteration speedup says (docs/accuracy.md).");
	for (size_t i = 1; i <= n; i++)
		if (i == n || strcmp(p[i].model, p[i0].model) || p[i].gbps != p[i0].gbps) {
			curve_chart(r, p, i0, i);
			i0 = i;
		}
	if (!tta_table(r, &missed))
		gc_rep_p(r, "No sweep of these runs set a target (target: {accuracy: 0.9} in the "
			 "spec), or no baseline run finished at the same point.");
	else if (missed.len) {
		gc_buf m = { 0 };
		gc_buf_addf(&m, "Never reached the target within their iterations: %s.", missed.p);
		gc_rep_p(r, m.p ? m.p : "");
		gc_buf_release(&m);
	} else {
		gc_rep_p(r, "Every method reached the target.");
	}
	gc_buf_release(&missed);
	free(p);
}

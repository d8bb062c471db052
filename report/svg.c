/* report/svg.c: SVG charts for gcbench report (svg.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
				       "#9467bd", "#8c564b", "#e377c2", "#17becf" };
#define NPAL (sizeof(palette) / sizeof(palette[0]))

void gc_svg_esc(gc_buf *b, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': gc_buf_puts(b, "&amp;"); break;
		case '<': gc_buf_puts(b, "&lt;"); break;
		case '>': gc_buf_puts(b, "&gt;"); break;
		case '"': gc_buf_puts(b, "&quot;"); break;
		case '\'': gc_buf_puts(b, "&#39;"); break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t')
				gc_buf_putc(b, '?');     /* not allowed in XML 1.0 */
			else
				gc_buf_putc(b, *s);
		}
	}
}

/* The nice step (1, 2, 2.5, 5 x 10^k) for about n intervals over span. */
static double nice_step(double span, int n)
{
	double raw = span / n, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * mag;
}

static size_t nice_log(double mn, double mx, gc_svg_axis *ax, double *t, size_t max)
{
	double a = floor(log10(mn) + 1e-9), z = ceil(log10(mx) - 1e-9), d;
	size_t n = 0;

	if (z <= a)
		z = a + 1;
	ax->lo = pow(10, a), ax->hi = pow(10, z), ax->log = 1;
	for (d = a; d <= z + 1e-9 && n < max; d++) {
		t[n++] = pow(10, d);
		if (z - a <= 2 && d < z && n + 2 < max)      /* few decades: 2 and 5 too */
			t[n++] = 2 * pow(10, d), t[n++] = 5 * pow(10, d);
	}
	return n;
}

size_t gc_svg_nice(double mn, double mx, int log, gc_svg_axis *ax, double *t, size_t max)
{
	double step, v;
	size_t n = 0;

	if (!(mn <= mx) || !isfinite(mn) || !isfinite(mx))
		mn = 0, mx = 1;
	if (log && mn > 0)
		return nice_log(mn, mx, ax, t, max);
	ax->log = 0;
	if (mx - mn < 1e-12 * (fabs(mx) + 1e-300) || mx == mn) {
		double pad = mn == 0 ? 1 : fabs(mn) * 0.1;
		mn -= pad, mx += pad;
	}
	step = nice_step(mx - mn, 5);
	ax->lo = floor(mn / step + 1e-9) * step;
	ax->hi = ceil(mx / step - 1e-9) * step;
	for (v = ax->lo; v <= ax->hi + step * 1e-6 && n < max; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

double gc_svg_map(const gc_svg_axis *ax, double v)
{
	double f;

	if (ax->log)
		f = (log10(v) - log10(ax->lo)) / (log10(ax->hi) - log10(ax->lo));
	else
		f = (v - ax->lo) / (ax->hi - ax->lo);
	return ax->px0 + f * (ax->px1 - ax->px0);
}

static void svg_open(gc_buf *b, const char *title)
{
	gc_buf_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		    "viewBox=\"0 0 %d %d\" role=\"img\" font-family=\"sans-serif\" "
		    "font-size=\"12\"><title>", GC_SVG_W, GC_SVG_H, GC_SVG_W, GC_SVG_H);
	gc_svg_esc(b, title);
	gc_buf_addf(b, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n"
		    "<text class=\"chart-title\" x=\"%d\" y=\"24\" text-anchor=\"middle\" "
		    "font-size=\"15\" font-weight=\"bold\">", GC_SVG_W, GC_SVG_H, GC_SVG_W / 2);
	gc_svg_esc(b, title);
	gc_buf_puts(b, "</text>\n");
}

/* The frame, a "no data" line and the hint, then </svg>. */
static void svg_empty(gc_buf *b, const char *hint)
{
	gc_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "fill=\"#f6f6f6\" stroke=\"#999\"/>\n<text class=\"no-data\" x=\"%.1f\" "
		    "y=\"%.1f\" text-anchor=\"middle\" font-size=\"16\">no data</text>\n",
		    GC_SVG_PL, GC_SVG_PT, GC_SVG_PR - GC_SVG_PL, GC_SVG_PB - GC_SVG_PT,
		    (GC_SVG_PL + GC_SVG_PR) / 2, (GC_SVG_PT + GC_SVG_PB) / 2);
	if (hint && *hint) {
		gc_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			    (GC_SVG_PL + GC_SVG_PR) / 2, (GC_SVG_PT + GC_SVG_PB) / 2 + 22);
		gc_svg_esc(b, hint);
		gc_buf_puts(b, "</text>\n");
	}
	gc_buf_puts(b, "</svg>\n");
}

/* A tick value as short text: 0.5, 2, 10, 1e+06. */
static void fmt_tick(char *buf, size_t n, double v)
{
	if (fabs(v) >= 1000 && fabs(v) < 1e9 && v == floor(v))
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.3g", v);
}

static void axis_labels(gc_buf *b, const char *xlabel, const char *ylabel)
{
	gc_buf_addf(b, "<text class=\"x-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		    (GC_SVG_PL + GC_SVG_PR) / 2, GC_SVG_PB + 50);
	gc_svg_esc(b, xlabel);
	gc_buf_addf(b, "</text>\n<text class=\"y-label\" x=\"0\" y=\"0\" text-anchor=\"middle\" "
		    "transform=\"translate(20 %.1f) rotate(-90)\">", (GC_SVG_PT + GC_SVG_PB) / 2);
	gc_svg_esc(b, ylabel);
	gc_buf_puts(b, "</text>\n");
}

/* Plot frame, grid lines and tick labels of both axes. */
static void axes(gc_buf *b, const gc_svg_axis *ax, const double *xt, size_t nx,
		 const gc_svg_axis *ay, const double *yt, size_t ny)
{
	char s[32];
	size_t i;

	gc_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "fill=\"none\" stroke=\"#333\"/>\n", GC_SVG_PL, GC_SVG_PT,
		    GC_SVG_PR - GC_SVG_PL, GC_SVG_PB - GC_SVG_PT);
	for (i = 0; ax && i < nx; i++) {
		double x = gc_svg_map(ax, xt[i]);
		fmt_tick(s, sizeof s, xt[i]);
		gc_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
			    "%s</text>\n", x, GC_SVG_PT, x, GC_SVG_PB, x, GC_SVG_PB + 18, s);
	}
	for (i = 0; i < ny; i++) {
		double y = gc_svg_map(ay, yt[i]);
		fmt_tick(s, sizeof s, yt[i]);
		gc_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
			    "%s</text>\n", GC_SVG_PL, y, GC_SVG_PR, y, GC_SVG_PL - 6, y + 4, s);
	}
}

/* One legend entry (i-th): a swatch (line or box) and the name. */
static void legend_item(gc_buf *b, size_t i, const char *color, int box, const char *name)
{
	double y = GC_SVG_PT + 8 + 20.0 * (double)i, x = GC_SVG_PR + 16;

	if (box)
		gc_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" "
			    "fill=\"%s\"/>", x, y - 6, color);
	else
		gc_buf_addf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"%s\" stroke-width=\"2.5\"/>", x, y, x + 16, y, color);
	gc_buf_addf(b, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">", x + 22, y + 4);
	gc_svg_esc(b, name);
	gc_buf_puts(b, "</text>\n");
}

/* Data range of the series (positive values only on a log axis). */
static int xy_range(const gc_svg_xy *c, double *x0, double *x1, double *y0, double *y1)
{
	size_t i, j;
	int any = 0;

	*x0 = *y0 = INFINITY, *x1 = *y1 = -INFINITY;
	for (i = 0; i < c->ns; i++)
		for (j = 0; j < c->s[i].n; j++) {
			double x = c->s[i].x[j], y = c->s[i].y[j];
			if (!isfinite(x) || !isfinite(y) || (c->xlog && x <= 0) || (c->ylog && y <= 0))
				continue;
			*x0 = fmin(*x0, x), *x1 = fmax(*x1, x);
			*y0 = fmin(*y0, y), *y1 = fmax(*y1, y);
			any = 1;
		}
	if (any && c->hline_on && !(c->ylog && c->hline <= 0))
		*y0 = fmin(*y0, c->hline), *y1 = fmax(*y1, c->hline);
	if (any && c->diag) {
		*x0 = *y0 = fmin(*x0, *y0);
		*x1 = *y1 = fmax(*x1, *y1);
	}
	if (any && !c->ylog && !c->diag && *y0 > 0)
		*y0 = 0;                    /* linear y from 0: bars of time, speedups */
	return any;
}

static void xy_series(gc_buf *b, const gc_svg_xy *c, size_t i, const gc_svg_axis *ax,
		      const gc_svg_axis *ay)
{
	const gc_svg_series *s = &c->s[i];
	const char *col = palette[i % NPAL];
	size_t j;
	int pen = 0;

	if (!c->scatter) {
		gc_buf_addf(b, "<path class=\"series\" fill=\"none\" stroke=\"%s\" "
			    "stroke-width=\"2\" d=\"", col);
		for (j = 0; j < s->n; j++) {
			if (!isfinite(s->x[j]) || !isfinite(s->y[j]) || (c->xlog && s->x[j] <= 0) ||
			    (c->ylog && s->y[j] <= 0))
				continue;
			gc_buf_addf(b, "%s%.1f %.1f ", pen++ ? "L" : "M",
				    gc_svg_map(ax, s->x[j]), gc_svg_map(ay, s->y[j]));
		}
		gc_buf_puts(b, "\"/>\n");
	}
	for (j = 0; j < s->n; j++) {
		if (!isfinite(s->x[j]) || !isfinite(s->y[j]) || (c->xlog && s->x[j] <= 0) ||
		    (c->ylog && s->y[j] <= 0))
			continue;
		gc_buf_addf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"><title>",
			    gc_svg_map(ax, s->x[j]), gc_svg_map(ay, s->y[j]), c->scatter ? 4 : 3,
			    col);
		gc_svg_esc(b, s->name);
		gc_buf_addf(b, ": %.4g, %.4g</title></circle>\n", s->x[j], s->y[j]);
	}
	legend_item(b, i, col, c->scatter, s->name);
}

/* The y = x diagonal or the dashed horizontal reference line. */
static void xy_refs(gc_buf *b, const gc_svg_xy *c, const gc_svg_axis *ax,
		    const gc_svg_axis *ay)
{
	if (c->diag) {
		double lo = fmax(ax->lo, ay->lo), hi = fmin(ax->hi, ay->hi);
		gc_buf_addf(b, "<line class=\"diag\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"#555\" stroke-dasharray=\"6 4\"/>\n<text x=\"%.1f\" "
			    "y=\"%.1f\" fill=\"#555\">y = x</text>\n", gc_svg_map(ax, lo),
			    gc_svg_map(ay, lo), gc_svg_map(ax, hi), gc_svg_map(ay, hi),
			    gc_svg_map(ax, hi) - 40, gc_svg_map(ay, hi) + 16);
	}
	if (c->hline_on && !(c->ylog && c->hline <= 0)) {
		double y = gc_svg_map(ay, c->hline);
		gc_buf_addf(b, "<line class=\"hline\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n"
			    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", GC_SVG_PL, y,
			    GC_SVG_PR, y, GC_SVG_PR - 4, y - 5);
		gc_svg_esc(b, c->hline_label ? c->hline_label : "");
		gc_buf_puts(b, "</text>\n");
	}
}

void gc_svg_xy_chart(gc_buf *b, const gc_svg_xy *c)
{
	double x0, x1, y0, y1, xt[32], yt[32];
	gc_svg_axis ax = { 0, 1, GC_SVG_PL, GC_SVG_PR, 0 }, ay = { 0, 1, GC_SVG_PB, GC_SVG_PT, 0 };
	size_t nx, ny, i;

	svg_open(b, c->title);
	if (!xy_range(c, &x0, &x1, &y0, &y1)) {
		axis_labels(b, c->xlabel, c->ylabel);
		svg_empty(b, c->empty_hint);
		return;
	}
	nx = gc_svg_nice(x0, x1, c->xlog, &ax, xt, 32);
	ny = gc_svg_nice(y0, y1, c->ylog, &ay, yt, 32);
	if (c->diag) {                          /* one range for both axes */
		ay.lo = ax.lo, ay.hi = ax.hi, ay.log = ax.log, ny = nx;
		memcpy(yt, xt, sizeof(xt));
	}
	axes(b, &ax, xt, nx, &ay, yt, ny);
	axis_labels(b, c->xlabel, c->ylabel);
	xy_refs(b, c, &ax, &ay);
	for (i = 0; i < c->ns; i++)
		xy_series(b, c, i, &ax, &ay);
	gc_buf_puts(b, "</svg>\n");
}

static int bars_range(const gc_svg_bars *c, double *mx)
{
	size_t i, s, n = c->ngroups * c->nbars;
	int any = 0;

	*mx = 0;
	for (i = 0; i < n; i++) {
		double tot = 0;
		if (!isfinite(c->v[i * c->nstacks]))
			continue;
		for (s = 0; s < c->nstacks; s++)
			tot += isfinite(c->v[i * c->nstacks + s]) ? fmax(0, c->v[i * c->nstacks + s]) : 0;
		*mx = fmax(*mx, tot), any = 1;
	}
	return any;
}

/* Bar `bar` of group g: its stacked segments and its short label under it. */
static void one_bar(gc_buf *b, const gc_svg_bars *c, size_t g, size_t bar, double x,
		    double w, const gc_svg_axis *ay)
{
	const double *v = &c->v[(g * c->nbars + bar) * c->nstacks];
	double base = 0;
	size_t s;

	if (!isfinite(v[0]))
		return;
	for (s = 0; s < c->nstacks; s++) {
		double h = isfinite(v[s]) ? fmax(0, v[s]) : 0, y1 = gc_svg_map(ay, base + h);
		gc_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			    "fill=\"%s\"><title>", x, y1, w, gc_svg_map(ay, base) - y1,
			    palette[s % NPAL]);
		gc_svg_esc(b, c->bars[bar]);
		gc_buf_puts(b, " @ ");
		gc_svg_esc(b, c->groups[g]);
		gc_buf_puts(b, ": ");
		gc_svg_esc(b, c->stacks[s]);
		gc_buf_addf(b, " %.4g</title></rect>\n", h);
		base += h;
	}
	gc_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
		    "text-anchor=\"middle\">%zu</text>\n", x + w / 2, GC_SVG_PB + 13, bar + 1);
}

void gc_svg_bar_chart(gc_buf *b, const gc_svg_bars *c)
{
	gc_svg_axis ay = { 0, 1, GC_SVG_PB, GC_SVG_PT, 0 };
	double mx, yt[32], gw, bw;
	size_t ny, g, i;

	svg_open(b, c->title);
	if (!c->ngroups || !c->nbars || !c->nstacks || !bars_range(c, &mx)) {
		axis_labels(b, c->xlabel, c->ylabel);
		svg_empty(b, c->empty_hint);
		return;
	}
	ny = gc_svg_nice(0, mx, 0, &ay, yt, 32);
	axes(b, NULL, NULL, 0, &ay, yt, ny);
	axis_labels(b, c->xlabel, c->ylabel);
	gw = (GC_SVG_PR - GC_SVG_PL) / (double)c->ngroups;
	bw = gw * 0.8 / (double)c->nbars;
	for (g = 0; g < c->ngroups; g++) {
		double x0 = GC_SVG_PL + gw * (double)g + gw * 0.1;
		for (i = 0; i < c->nbars; i++)
			one_bar(b, c, g, i, x0 + bw * (double)i + bw * 0.1, bw * 0.8, &ay);
		gc_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			    "font-weight=\"bold\">", x0 + gw * 0.4, GC_SVG_PB + 30);
		gc_svg_esc(b, c->groups[g]);
		gc_buf_puts(b, "</text>\n");
	}
	for (i = 0; i < c->nstacks; i++)
		legend_item(b, i, palette[i % NPAL], 1, c->stacks[i]);
	for (i = 0; i < c->nbars; i++) {         /* bar numbers under the stacks' legend */
		gc_buf_addf(b, "<text class=\"legend\" x=\"%.1f\" y=\"%.1f\">%zu = ",
			    GC_SVG_PR + 16, GC_SVG_PT + 24 + 20.0 * (double)(c->nstacks + i), i + 1);
		gc_svg_esc(b, c->bars[i]);
		gc_buf_puts(b, "</text>\n");
	}
	gc_buf_puts(b, "</svg>\n");
}

/* Cell colour: green above the pivot, red below, deeper the further (log ratio). */
static void heat_color(double v, double pivot, char *buf, size_t n)
{
	double r, k;

	if (!isfinite(v) || !(v > 0) || !(pivot > 0)) {
		snprintf(buf, n, "#e0e0e0");
		return;
	}
	r = log2(v / pivot);
	k = fmin(1, fabs(r) / 1.5);                   /* full colour at 2.8x either way */
	if (r >= 0)
		snprintf(buf, n, "rgb(%d,%d,%d)", (int)(235 - 160 * k), (int)(245 - 70 * k),
			 (int)(235 - 160 * k));
	else
		snprintf(buf, n, "rgb(%d,%d,%d)", (int)(250 - 20 * k), (int)(235 - 150 * k),
			 (int)(235 - 150 * k));
}

static void heat_cell(gc_buf *b, const gc_svg_heat *c, size_t x, size_t y, double cw,
		      double ch)
{
	double v = c->v[y * c->nx + x], px = GC_SVG_PL + cw * (double)x,
	       py = GC_SVG_PT + ch * (double)(c->ny - 1 - y);
	char col[32];

	heat_color(v, c->pivot, col, sizeof col);
	gc_buf_addf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		    "fill=\"%s\" stroke=\"#fff\"><title>", px, py, cw, ch, col);
	gc_svg_esc(b, c->ynames[y]);
	gc_buf_puts(b, ", ");
	gc_svg_esc(b, c->xnames[x]);
	if (isfinite(v))
		gc_buf_addf(b, ": %.3g</title></rect>\n<text x=\"%.1f\" y=\"%.1f\" "
			    "text-anchor=\"middle\" font-size=\"11\">%.2f</text>\n", v,
			    px + cw / 2, py + ch / 2 + 4, v);
	else
		gc_buf_puts(b, ": no data</title></rect>\n");
}

void gc_svg_heat_map(gc_buf *b, const gc_svg_heat *c)
{
	double cw, ch;
	size_t x, y;

	svg_open(b, c->title);
	if (!c->nx || !c->ny) {
		axis_labels(b, c->xlabel, c->ylabel);
		svg_empty(b, c->empty_hint);
		return;
	}
	cw = (GC_SVG_PR - GC_SVG_PL) / (double)c->nx;
	ch = (GC_SVG_PB - GC_SVG_PT) / (double)c->ny;
	for (y = 0; y < c->ny; y++)
		for (x = 0; x < c->nx; x++)
			heat_cell(b, c, x, y, cw, ch);
	for (x = 0; x < c->nx; x++) {
		gc_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
			    GC_SVG_PL + cw * ((double)x + 0.5), GC_SVG_PB + 18);
		gc_svg_esc(b, c->xnames[x]);
		gc_buf_puts(b, "</text>\n");
	}
	for (y = 0; y < c->ny; y++) {
		gc_buf_addf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
			    GC_SVG_PL - 6, GC_SVG_PT + ch * ((double)(c->ny - 1 - y) + 0.5) + 4);
		gc_svg_esc(b, c->ynames[y]);
		gc_buf_puts(b, "</text>\n");
	}
	axis_labels(b, c->xlabel, c->ylabel);
	legend_item(b, 0, "rgb(75,175,75)", 1, "compression wins (> 1)");
	legend_item(b, 1, "rgb(230,85,85)", 1, "sync SGD wins (< 1)");
	legend_item(b, 2, "#e0e0e0", 1, "no data");
	gc_buf_puts(b, "</svg>\n");
}

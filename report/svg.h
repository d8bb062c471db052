/* report/svg.h: a small SVG chart writer for `gcbench report` (docs/report.md): line
 * charts (speedup vs bandwidth), scatter plots with the y = x line (predicted vs
 * measured), stacked bars (iteration-time breakdown) and heat maps (win/lose maps).
 *
 * Every chart is one standalone <svg> element of GC_SVG_W x GC_SVG_H user units with a
 * <title> (the chart's title), axes with ticks and labels, and a legend. All text is
 * escaped (gc_svg_esc). A chart without data draws its frame, its title and the text
 * "no data" plus the caller's hint instead of crashing. Output goes to a gc_buf
 * (common/buf.h), which never fails mid-way: on allocation failure it sets oom and
 * drops the rest.
 *
 * Layout (user units): the plot area spans x GC_SVG_PL..GC_SVG_PR and y GC_SVG_PT..
 * GC_SVG_PB (y grows downwards); the legend sits right of it. Axis ranges are the data
 * range widened to "nice" tick values (1, 2, 2.5, 5 x 10^k); log axes to decades.
 */
#ifndef GC_MODEL_SVG_H
#define GC_MODEL_SVG_H

#include <stddef.h>

#include "buf.h"

#define GC_SVG_W 760
#define GC_SVG_H 420
#define GC_SVG_PL 80.0
#define GC_SVG_PR 560.0
#define GC_SVG_PT 48.0
#define GC_SVG_PB 360.0

/* Append s escaped for HTML/SVG text and attribute values (& < > " '; control
 * characters other than newline and tab, which XML 1.0 does not allow, as '?'). */
void gc_svg_esc(gc_buf *b, const char *s);

/* One axis: [lo, hi] mapped onto [px0, px1] (linear, or log10 when log). */
typedef struct gc_svg_axis {
	double lo, hi, px0, px1;
	int log;
} gc_svg_axis;

/* Nice axis for data in [mn, mx] (log: mn > 0, widened to decades); ticks (at most
 * max) written to t, count returned. */
size_t gc_svg_nice(double mn, double mx, int log, gc_svg_axis *ax, double *t, size_t max);
double gc_svg_map(const gc_svg_axis *ax, double v);

/* A line or scatter series; x and y are borrowed. NaN points are skipped. */
typedef struct gc_svg_series {
	const char *name;
	const double *x, *y;
	size_t n;
} gc_svg_series;

typedef struct gc_svg_xy {
	const char *title, *xlabel, *ylabel;  /* labels carry the unit, e.g. "Gbit/s" */
	const char *empty_hint;               /* shown under "no data" */
	int xlog, ylog;
	int scatter;                          /* markers only, no lines */
	int diag;                             /* draw y = x (both axes share one range) */
	int hline_on;                         /* draw a dashed line at y = hline */
	double hline;
	const char *hline_label;
	const gc_svg_series *s;
	size_t ns;
} gc_svg_xy;

void gc_svg_xy_chart(gc_buf *b, const gc_svg_xy *c);

/* Stacked bars: ngroups groups (x categories) of nbars bars of nstacks segments;
 * v[(g * nbars + bar) * nstacks + s], a NaN first segment means the bar is missing. */
typedef struct gc_svg_bars {
	const char *title, *xlabel, *ylabel, *empty_hint;
	size_t ngroups, nbars, nstacks;
	const char *const *groups, *const *bars, *const *stacks;
	const double *v;
} gc_svg_bars;

void gc_svg_bar_chart(gc_buf *b, const gc_svg_bars *c);

/* Heat map of v[y * nx + x] around pivot (> pivot green "wins", < pivot red, NaN grey
 * "no data"), each cell labelled with its value. */
typedef struct gc_svg_heat {
	const char *title, *xlabel, *ylabel, *empty_hint;
	size_t nx, ny;
	const char *const *xnames, *const *ynames;
	const double *v;
	double pivot;
} gc_svg_heat;

void gc_svg_heat_map(gc_buf *b, const gc_svg_heat *c);

#endif

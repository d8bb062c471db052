/* report/report.h: `gcbench report`, a self-contained HTML page and a markdown file with
 * the plots and tables of a results database (docs/report.md).
 *
 * Writes into out_dir (created if missing): index.html (inline SVG and CSS, no scripts,
 * no external resources), report.md (the same tables; figures as links to the SVG
 * files) and fig-NN-<slug>.svg, one per chart:
 *   1. speedup vs bandwidth, one chart per model, a line per method (and world size),
 *      the 1.0 line marked (from the speedup view);
 *   2. iteration-time breakdown per model and world size: stacked bars per method at
 *      each bandwidth (compute, encode, exposed communication, decode, optimizer;
 *      medians from run_summary; exposed = iteration - the others, >= 0);
 *   3. predicted vs measured iteration time with y = x (the newest model version in
 *      predictions; without any the chart says to run `gcbench model` first);
 *   4. win/lose maps over bandwidth x workers per method: measured when a model has
 *      runs at two or more world sizes, else the what-if of the model fitted to the
 *      database (model/predict_db.h) for the measured model and batch;
 *   5. what-if: predicted speedup vs bandwidth per method at 1x and 4x compute and two
 *      worker counts, from the paper preset and from the fit of up to 2 environments,
 *      with the crossover bandwidths (report/report_whatif.c).
 * Every string from the database is escaped. An empty database gives a page whose
 * charts say "no data".
 */
#ifndef GC_REPORT_H
#define GC_REPORT_H

#include <stddef.h>

#include "db/db.h"

typedef struct gc_report_stats {
	size_t charts;          /* SVG files written */
	size_t ok_runs, predictions;
	int winlose_measured;   /* 1: win/lose maps from measurements, 0: from the model */
} gc_report_stats;

/* Write the report of db into out_dir; db_label names the database on the page. */
gc_rc gc_report_write(gc_db *db, const char *db_label, const char *out_dir,
		      gc_report_stats *st, gc_err *e);

/* "powersgd rank=4" from ("powersgd", "ef=1,rank=4,warm_start=1,..."): the method and
 * the parameters that tell runs apart in a legend (rank, ratio, scaled=1). */
void gc_report_short_label(const char *method, const char *params, char *out, size_t n);

/* A file-name-safe slug of s: [A-Za-z0-9._-] kept, others '_', at most n-1 bytes. */
void gc_report_slug(const char *s, char *out, size_t n);

#endif

/* report/report_int.h: shared by report/report.c (page, tables, files) and
 * report/report_data.c (the sections: queries and charts). Not a public API. */
#ifndef GC_REPORT_INT_H
#define GC_REPORT_INT_H

#include "model/predict_db.h"
#include "report.h"
#include "svg.h"

struct gc_rep {
	gc_db *db;
	const char *db_label, *dir;
	gc_buf html, md;
	gc_report_stats *st;
	gc_rc rc;               /* the first failure to write a file */
	gc_err *e;
	gc_pdb pdb;             /* the model fitted to db, once (gc_rep_fits) */
	int pdb_state;          /* 0: not yet, 1: fitted, -1: failed */
};

/* The model fitted to the database (gc_pdb_run, nothing stored), computed on the first
 * call and kept for the page; NULL when the fit failed. */
const gc_pdb *gc_rep_fits(struct gc_rep *r);

void gc_rep_h2(struct gc_rep *r, const char *title);
void gc_rep_p(struct gc_rep *r, const char *text);          /* one escaped paragraph */
/* A cap given in Gbit/s (<= 0: unlimited) as every command prints one (common/bandwidth.h:
 * 1gbit, 500mbit, unlimited). */
void gc_rep_cap(char *buf, size_t n, double gbps);
/* Write svg to fig-NN-slug.svg, inline it in the page and link it from the markdown. */
void gc_rep_figure(struct gc_rep *r, const char *slug, const gc_buf *svg,
		   const char *title);
void gc_rep_table(struct gc_rep *r, const char *const *head, size_t ncol);
void gc_rep_row(struct gc_rep *r, const char *const *cells, size_t ncol);
void gc_rep_table_end(struct gc_rep *r);

/* The sections, in page order. */
void gc_rep_speedup(struct gc_rep *r);
void gc_rep_accuracy(struct gc_rep *r);     /* report_accuracy.c; absent without evals */
void gc_rep_breakdown(struct gc_rep *r);
void gc_rep_predictions(struct gc_rep *r);
void gc_rep_winlose(struct gc_rep *r);
void gc_rep_whatif(struct gc_rep *r);       /* report_whatif.c */

#endif

/* db/q_report.h: the queries behind `gcbench report` (report/report.c, report_data.c,
 * report_accuracy.c): counts for the page's head, the rows of each section and the
 * accuracy curves. The charts, tables and HTML stay with the caller.
 *
 * Each row function calls fn per row, in the order stated; fn returning nonzero stops
 * (GC_OK). Strings are borrowed for the callback ("" for NULL). Errors: GC_E_DB with
 * "database 'PATH': WHAT failed: SQLite's message"; e may be NULL. A row function that
 * fails has called fn for the rows before the failure.
 */
#ifndef GC_DB_Q_REPORT_H
#define GC_DB_Q_REPORT_H

#include <stdint.h>

#include "db.h"

struct gc_db_counts {
	int64_t sweeps;
	int64_t runs_ok, runs_not_ok;      /* not ok: failed, timed out, interrupted, running */
	int64_t predictions;               /* rows of predictions, every model version */
};

/* Count what the database holds. Reads every count it can (0 for one that fails) and
 * returns the first failure. */
gc_rc gc_db_counts(gc_db *db, struct gc_db_counts *c, gc_err *e);

/* A point of a section (model, method, params, world size, cap, network) and its
 * numbers, v[0..nv) as each function below states (NAN for NULL). */
struct gc_db_point_row {
	const char *model, *method, *params;
	int world_size;
	int64_t bw_cap_bps;                /* 0: unlimited */
	double v[8];
	size_t nv;
	const char *network;               /* view run_network's text ("uniform", "slow n3:0.5");
					    * "" where the function does not say it has one */
};

typedef int (*gc_db_point_fn)(const struct gc_db_point_row *row, void *arg);

/* Speedup (view speedup) of every method but the baseline, averaged over repeats and
 * environments per (model, method, params, world size, cap, network), in that order
 * ('uniform' first), each against the baseline of its own network:
 * v = { speedup, t_iter, t_iter_baseline } (seconds). */
gc_rc gc_db_report_speedup(gc_db *db, gc_db_point_fn fn, void *arg, gc_err *e);

/* Breakdown of the medians of ok runs (view run_summary), averaged per (model, world
 * size, cap, network, method, params), ordered so ('uniform' first), the baseline method
 * first at each cap and network:
 * v = { forward + backward, encode, decode, optimizer, iteration } (seconds). */
gc_rc gc_db_report_breakdown(gc_db *db, gc_db_point_fn fn, void *arg, gc_err *e);

/* Each ok run with a prediction of the newest model version, by method, params, run:
 * v = { measured median iteration time, predicted iteration time (seconds), run id }. */
gc_rc gc_db_report_predictions(gc_db *db, gc_db_point_fn fn, void *arg, gc_err *e);

/* Each (model, method, params) with ok runs, the baseline method left out, in that
 * order: world_size = the smallest, bw_cap_bps = 0, v = { the smallest batch, the
 * smallest environment id (0: unknown) }. */
gc_rc gc_db_report_methods(gc_db *db, gc_db_point_fn fn, void *arg, gc_err *e);

/* One validation point of a method at a model and cap: the evaluations of its ok runs
 * at one iteration, averaged over the repeats. */
struct gc_db_acc_point {
	const char *model, *method, *params;
	int64_t bw_cap_bps;
	double t_train;      /* training seconds until that iteration (view run_evals) */
	double val_acc;      /* validation accuracy */
	double target;       /* the sweep's accuracy target; NAN without one */
};

/* Every validation point, ordered by model, cap, method, params, iteration. */
gc_rc gc_db_accuracy_curves(gc_db *db, int (*fn)(const struct gc_db_acc_point *p, void *arg),
			    void *arg, gc_err *e);

/* One point of view time_to_target_speedup (docs/accuracy.md). */
struct gc_db_tta_row {
	const char *model, *method, *params;
	int world_size;
	int64_t bw_cap_bps;
	double iters_to_target, t_to_target;     /* NAN when a repeat missed the target */
	double iter_speedup, tta_speedup;        /* NAN when not known */
	int missed, repeats;                     /* runs that missed it, of repeats */
};

/* Every point of view time_to_target_speedup, ordered by model, cap, method, params,
 * world size. */
gc_rc gc_db_time_to_target(gc_db *db, int (*fn)(const struct gc_db_tta_row *t, void *arg),
			   void *arg, gc_err *e);

#endif

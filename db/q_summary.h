/* db/q_summary.h: the queries behind the speedup table `gcbench run` prints after a
 * sweep (orchestrator/run/run_summary.c, which lays the table out).
 *
 * Errors: GC_E_DB; e (may be NULL) gets SQLite's message as it is.
 */
#ifndef GC_DB_Q_SUMMARY_H
#define GC_DB_Q_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

/* The accuracy target of sweep sweep_id (gc_db_sweep_target): metric ("accuracy" or
 * "loss", n bytes, cut to fit) and *value; metric "" and *value 0 when the sweep has
 * none or there is no such sweep. */
gc_rc gc_db_sweep_target_get(gc_db *db, int64_t sweep_id, char *metric, size_t n,
			     double *value, gc_err *e);

/* One row of the summary: a point of the sweep with its speedup (view speedup), its
 * numbers already formatted by the query (SQLite's printf), so the table reads the
 * same on every host. Strings are borrowed for the callback; NULL where SQL gave NULL. */
struct gc_db_summary_row {
	const char *workload;        /* runs.workload: "replay", "train", "command", ... */
	const char *model, *method;
	const char *params;          /* in full (the caller shortens it) */
	const char *bandwidth;       /* "unlimited" or the cap in bits/s ("10000000000") */
	int world_size;
	const char *iter_ms;         /* the method's median iteration time, "%.1f" ms */
	const char *base_ms;         /* the baseline method's, "%.1f" ms */
	const char *speedup;         /* "%.2fx" */
	const char *stack;           /* runs.stack: "" unless the spec has stacks: */
	const char *network;         /* view run_network: "uniform", "slow n3:0.5", ... */
	/* with_target only (else NULL), from view time_to_target_speedup: */
	const char *to_target;       /* "700 it", or "never" when a repeat missed it */
	const char *tta_speedup;     /* "%.2fx"; NULL when not known */
};

/* Call fn for the speedup rows of the points sweep sweep_id ran (those that finished
 * with their baseline of the same stack and network), ordered by model, cap, network
 * ('uniform' first), method, params, stack; with_target 1 adds the
 * time-to-target columns. fn returning nonzero stops (GC_OK). */
gc_rc gc_db_sweep_summary(gc_db *db, int64_t sweep_id, int with_target,
			  int (*fn)(const struct gc_db_summary_row *row, void *arg), void *arg,
			  gc_err *e);

/* The placements of sweep sweep_id's runs, for people, into out (n bytes, cut to fit):
 * "world 2 (mpi): 2 nodes x 1 rank (n1:1,n2:1); world 3 (mpi): 2 nodes x up to 2 ranks
 * (n1:2,n2:1)"; "" when its runs predate
 * placement (migration 6). */
gc_rc gc_db_sweep_placements(gc_db *db, int64_t sweep_id, char *out, size_t n, gc_err *e);

#endif

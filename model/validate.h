/* model/validate.h: a validation table of the performance model on held-out runs, as
 * the simulators publish theirs (`gcbench model --db FIT --validate HELDOUT`):
 * per method the median and 95th-percentile |relative error| of the predicted median
 * iteration time, and whether the model gives the verdict that matters, "does this
 * method beat the baseline at this point?", as the measurements do.
 *
 * A point's error: (predicted - measured) / measured, |.| for the statistics. p95: the
 * nearest-rank 95th percentile of the |errors| (the ceil(0.95 n)-th smallest). A
 * verdict: a row of another method and the baseline row of the same model, batch,
 * world size, node count, bandwidth cap and network (and environment); the model agrees when predicted and
 * measured speedup (baseline time / method time) fall on the same side of 1. Rows that
 * were skipped (no prediction) count nowhere.
 */
#ifndef GC_VALIDATE_H
#define GC_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define GC_VAL_MAX_GROUPS 32

/* One held-out run as the table needs it (filled from gc_pdb_row, or a fixture). */
typedef struct gc_val_point {
	int64_t env_id;
	char model[64], method[32];
	int world_size, batch;
	int nodes;                           /* hosts; ranks per node = world_size / nodes */
	uint64_t cap_bps;
	char network[48];                    /* run_summary.network: "uniform", "slow n3:0.5",
	                                      * ...; "" counts as "uniform" */
	double measured, predicted;          /* seconds; predicted <= 0: skipped */
} gc_val_point;

/* The statistics of one group of points (a method, a cap, a world size, a number of
 * ranks per node, a network, all). */
typedef struct gc_val_group {
	char name[48];
	size_t n;                            /* points with a prediction */
	double median_abs, p95_abs, mean_err; /* |error| median and p95; signed mean */
	size_t verdicts, agree;              /* points with a baseline, and agreements */
} gc_val_group;

typedef struct gc_validation {
	char baseline[32];
	gc_val_group all;
	gc_val_group method[GC_VAL_MAX_GROUPS], cap[GC_VAL_MAX_GROUPS], world[GC_VAL_MAX_GROUPS],
		rpn[GC_VAL_MAX_GROUPS], net[GC_VAL_MAX_GROUPS];
	size_t nmethod, ncap, nworld, nrpn, nnet;
	size_t worst;                        /* index into pts of the largest |error| */
	size_t disagree[GC_VAL_MAX_GROUPS];  /* indices of points whose verdict differs */
	size_t ndisagree;                    /* all of them (only the first
	                                      * GC_VAL_MAX_GROUPS are listed) */
} gc_validation;

/* The table of n points against baseline (a method name, e.g. "syncsgd"). GC_E_INVAL
 * when no point has a prediction or more than GC_VAL_MAX_GROUPS methods, caps, world
 * sizes, ranks per node or networks occur; GC_E_NOMEM. Ranks per node: "R per node" (world size /
 * nodes, rounded up), or "unknown" when nodes <= 0. */
gc_rc gc_validate(const gc_val_point *pts, size_t n, const char *baseline, gc_validation *out,
		  gc_err *e);

/* Goals on a quiet machine (issue #37): median <= 8%, p95 <= 15%, agreement >= 95%. */
#define GC_VAL_GOAL_MEDIAN 0.08
#define GC_VAL_GOAL_P95 0.15
#define GC_VAL_GOAL_AGREE 0.95

#endif

/* db/q_history.h: the query behind `gcbench history` (orchestrator/cli/cmd_history.c): the
 * speedup of a method at each point in each sweep, so that a slow drift from night to
 * night, or a jump at a new driver/CUDA/NCCL, shows.
 *
 * Errors: GC_E_DB with "cannot read the runs: SQLite's message"; e may be NULL.
 */
#ifndef GC_DB_Q_HISTORY_H
#define GC_DB_Q_HISTORY_H

#include <stdint.h>

#include "db.h"

/* One row: a method at one point (bandwidth cap, network, world size, batch, params,
 * ...) in one sweep, on one environment. The speedup is the baseline method's mean of run
 * medians (view run_summary) at the same sweep, point (network included) and environment
 * divided by the method's. */
struct gc_db_history_row {
	double started;                     /* the sweep's start (Unix s) */
	int64_t sweep_id, env_id;           /* env_id 0: unknown */
	char driver[64], cuda[64], nccl[64], tag[64];   /* "" when unknown */
	char workload[96];                  /* runs.workload: "replay", "command", ... */
	char method[64], params[160];
	char stack[32];                     /* runs.stack: "" unless the spec has stacks: */
	char network[160];                  /* view run_network: "uniform", "slow n3:0.5", ... */
	int64_t bw_cap_bps;                 /* 0: unlimited */
	int world_size, batch;
	int repeats;                        /* the method's ok runs behind t_iter */
	double t_iter, t_iter_baseline, speedup;   /* seconds, seconds, ratio */
};

/* Call fn per row of model and method (bw_cap_bps < 0: every cap, else only that
 * one), ordered by cap, network ('uniform' first), world size, batch, params, stack,
 * then the sweep's start (oldest first). fn returning nonzero stops (GC_OK). The row is
 * the callback's for the call. */
gc_rc gc_db_history(gc_db *db, const char *model, const char *method, int64_t bw_cap_bps,
		    int (*fn)(const struct gc_db_history_row *row, void *arg), void *arg,
		    gc_err *e);

/* As gc_db_history, over the runs of SLURM job `job` (runs.slurm_job) and/or partition
 * `partition` (runs.slurm_partition) only; NULL: any. Values are bound. */
gc_rc gc_db_history_job(gc_db *db, const char *model, const char *method,
			int64_t bw_cap_bps, const char *job, const char *partition,
			int (*fn)(const struct gc_db_history_row *row, void *arg), void *arg,
			gc_err *e);

/* What gc_db_history_filter selects: model and method (required); bw_cap_bps < 0 every
 * cap; job, partition, network NULL: any. network matches a row's network when it is
 * the whole text ("slow n3:0.5+bg 1"), one of its '+' parts ("bg 1"), or a part's kind
 * (the word before its value: "slow", "uplink", "bg"; "trace" for "trace:NAME").
 * Values are bound. */
struct gc_db_history_filter {
	const char *model, *method;
	int64_t bw_cap_bps;
	const char *job, *partition, *network;
};
gc_rc gc_db_history_filter(gc_db *db, const struct gc_db_history_filter *f,
			   int (*fn)(const struct gc_db_history_row *row, void *arg), void *arg,
			   gc_err *e);

#endif

/* db/q_regress.h: the queries behind `gcbench regress` (orchestrator/ops/regress.c): the
 * environments, sweeps or SLURM job a selector names, and the post-warmup iteration
 * times of their ok runs. The selector's grammar, the statistics and the verdicts stay
 * with the caller.
 *
 * Errors: GC_E_DB with "cannot WHAT: SQLite's message" (WHAT: "select the sweep",
 * "select environments", "select sweeps", "select the job's runs", "read iterations"),
 * GC_E_INVAL for a field that is not an environment field; e (may be NULL) gets the
 * message.
 */
#ifndef GC_DB_Q_REGRESS_H
#define GC_DB_Q_REGRESS_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

/* How a selector's field compares (gc_db_env_field). */
enum gc_db_env_match {
	GC_DB_ENV_EQUAL,     /* host, gpu_model, tcp_cc, tag: the column equals the value */
	GC_DB_ENV_VERSION,   /* driver, cuda, nccl, mpi, kernel, libnl, sqlite, gcbench:
	                      * equal, or the value followed by '.' or '-' starts it */
	GC_DB_ENV_ID,        /* env: the environment id (the value as an integer) */
};

/* The match of the environments column called name (len bytes, no NUL needed); -1
 * when no selector may name it. */
int gc_db_env_field(const char *name, size_t len);

/* One condition of an environment selector: field (gc_db_env_field) and its value,
 * both borrowed for the call. */
struct gc_db_env_cond {
	const char *field;
	const char *value;
};

/* The ids of the environments that meet every condition of c[0..n) and have at least
 * one ok run, ascending, at most max of them into ids; *nids gets how many. n must be at
 * least 1 (with none the statement is malformed: GC_E_DB). GC_E_INVAL for an unknown
 * field. */
gc_rc gc_db_envs_with_ok_runs(gc_db *db, const struct gc_db_env_cond *c, size_t n,
			      int64_t *ids, size_t max, size_t *nids, gc_err *e);

/* *yes = 1 when sweep sweep_id has an ok run, else 0. */
gc_rc gc_db_sweep_has_ok_runs(gc_db *db, int64_t sweep_id, int *yes, gc_err *e);

/* "Last night and the night before": *last gets the newest sweep with ok runs (0: the
 * database has none) and *prev the newest sweep of the same spec before it with ok
 * runs (0: none). */
gc_rc gc_db_previous_sweeps(gc_db *db, int64_t *last, int64_t *prev, gc_err *e);

/* The nights of a series: the sweeps with ok runs of the spec of sweep `last` (0: the
 * newest sweep with ok runs), id <= last, the newest max of them into ids in ascending
 * order; *n gets how many (0 when the database has no ok run). */
gc_rc gc_db_series_sweeps(gc_db *db, int64_t last, int64_t *ids, size_t max, size_t *n,
			gc_err *e);

/* One night: the sweep's name and start (Unix seconds), and the environment of its
 * first ok run (env, env_id). GC_E_NOTFOUND when the sweep has no ok run. */
struct gc_db_night {
	char name[128];
	double started;
	int64_t env_id;
	struct gc_envinfo env;
};
gc_rc gc_db_night_info(gc_db *db, int64_t sweep, struct gc_db_night *out, gc_err *e);

/* One post-warmup iteration of an ok run. Strings are borrowed for the callback ("" for
 * NULL). */
struct gc_db_iter_sample {
	const char *workload, *model, *method, *params, *backend;
	const char *baseline;          /* the sweep's baseline method */
	const char *stack;             /* runs.stack ("" outside a spec with stacks:) */
	int64_t bw_cap_bps;
	double latency_s, compute_scale;
	int world_size, batch;
	int64_t run_id;
	double t_iter;                 /* seconds */
};

/* Call fn for every post-warmup iteration of the ok runs of the environments (by_sweep
 * 0) or sweeps (by_sweep 1) ids[0..n), ordered by point (workload, model, method,
 * params, cap, latency, world size, batch, backend, compute scale, baseline, stack), then by
 * run: a point's samples come together, a run's samples in a row. fn returning
 * nonzero stops (GC_OK). */
gc_rc gc_db_ok_iterations(gc_db *db, const int64_t *ids, size_t n, int by_sweep,
			  int (*fn)(const struct gc_db_iter_sample *s, void *arg), void *arg,
			  gc_err *e);

/* As gc_db_ok_iterations, for the ok runs that ran in SLURM job `job` (runs.slurm_job)
 * and/or partition `partition` (runs.slurm_partition); NULL: any. At least one must
 * be given (GC_E_INVAL). Values are bound, never formatted. */
gc_rc gc_db_job_iterations(gc_db *db, const char *job, const char *partition,
			   int (*fn)(const struct gc_db_iter_sample *s, void *arg), void *arg,
			   gc_err *e);

/* *yes = 1 when an ok run ran in job `job` and/or partition `partition` (NULL: any;
 * not both NULL: GC_E_INVAL). */
gc_rc gc_db_job_has_ok_runs(gc_db *db, const char *job, const char *partition, int *yes,
			    gc_err *e);

#endif

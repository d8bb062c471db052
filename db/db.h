/* db/db.h: the gcbench results database (SQLite), schema in db/schema.sql.
 *
 * One gc_db per thread: connections are opened without SQLite's per-call mutex.
 * Opening read-write creates the file if needed, turns on WAL and foreign keys, and
 * applies the migrations the file lacks (PRAGMA user_version); opening read-only
 * (GC_DB_READONLY) changes nothing on disk (gc_db_open). Every statement is prepared with
 * bound parameters. Record ingest runs in one transaction
 * per call, so a run's iterations are either all there or not at all.
 *
 * A sweep run by `gcbench run` goes:
 *     gc_db_open(path, 0, &db, &e);
 *     gc_db_mark_interrupted(db, spec_hash, &n, &e);      // runs a crash left 'running'
 *     gc_db_done_keys(db, spec_hash, &done, &e);          // resume: skip these points
 *     gc_db_sweep_begin(db, name, spec_text, spec_hash, baseline, &sweep_id, &e);
 *     for each point:
 *         gc_db_env_get(db, &envinfo, &env_id, &e);
 *         gc_db_run_begin(db, &run, &run_id, &e);            // status 'running'
 *         gc_db_run_add_host(...); gc_db_link_add(...);
 *         gc_db_ingest_files(db, run_id, paths, n, &rows, &e);
 *         gc_db_run_end(db, run_id, GC_RUN_OK, NULL, NULL, &e);  // or FAILED + error
 *     gc_db_sweep_end(db, sweep_id, "done", &e);
 * Errors: GC_E_DB with the SQLite message, GC_E_INVAL for bad arguments; each writes
 * e (may be NULL) with what failed and what to do.
 *
 * db/ owns every SQL statement of gcbench: the readers of the other components call
 * the query functions of db/q_regress.h, q_history.h, q_summary.h, q_report.h and
 * q_model.h, which return plain structs or call a row callback with typed values.
 * No raw handle leaves db/ (db/db_internal.h is for db/ and the tests' fixtures).
 */
#ifndef GC_DB_H
#define GC_DB_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "formats/envinfo.h"
#include "formats/records.h"

typedef struct gc_db gc_db;

/* The newest schema version this build knows (the last "-- @migration N"). */
int gc_db_schema_version(void);

enum {
	GC_DB_READONLY = 1u,     /* read-only: see gc_db_open */
	GC_DB_NO_MIGRATE = 2u,   /* tests: open without migrating */
	GC_DB_EXISTING = 4u,     /* read-write, but never create the file */
};

/* Open path. Refuses, with GC_E_DB and a message naming both versions, a database
 * written by a newer gcbench (user_version > ours).
 *
 * flags 0: read-write; creates the file if needed, turns on WAL, and migrates a
 * database older than this build in place (one transaction per migration). With
 * GC_DB_EXISTING the same, but a missing file is GC_E_NOTFOUND.
 *
 * GC_DB_READONLY, for every command that only reads (status, history, regress,
 * report, model --no-store, whatif --db, run --dry-run): never creates, writes or
 * migrates anything.
 *   - A missing file is GC_E_NOTFOUND ("no results database at ..."), never created.
 *   - The file is opened as the URI "file:PATH?mode=ro", so a read-only file (another
 *     user's, a read-only mount) opens.
 *   - A WAL database needs a -shm index shared with its writer. If a writer has made
 *     one, or this user may write the file, the plain read-only open uses (or makes)
 *     it and sees concurrent writes. Otherwise (another user's database with no
 *     writer, a folder this user cannot write, a read-only mount) it is opened with
 *     "&immutable=1", creating no file next to it, and a warning on stderr (gc_warn)
 *     says that writes a sweep makes meanwhile are not seen; a second one if a
 *     non-empty -wal file holds writes the snapshot leaves out.
 *   - A schema older than this build is read through a copy in memory migrated to
 *     this build's schema (a warning says so; an empty file reads as an empty
 *     database); a file over 256 MiB is refused instead (GC_E_DB), naming what
 *     upgrades it in place (a writing command: gcbench run, gcbench model).
 * Caller owns *out; close with gc_db_close(). */
gc_rc gc_db_open(const char *path, unsigned flags, gc_db **out, gc_err *e);
void gc_db_close(gc_db *db);                   /* accepts NULL */

/* Apply migrations up to `version` (<= gc_db_schema_version()). For tests and tools. */
gc_rc gc_db_migrate(gc_db *db, int version, gc_err *e);

/* 1 if this user may write path and its folder (what a read-write open of a WAL
 * database needs), else 0: a command that writes only as an extra (gcbench model
 * storing its predictions) opens read-only when this says 0. */
int gc_db_writable(const char *path);
/* 1 if db was opened read-only as an immutable snapshot (see gc_db_open). */
int gc_db_is_immutable(const gc_db *db);
int gc_db_user_version(gc_db *db);             /* -1 on error */

/* One transaction around several writes (gc_db_prediction_put, ...): begin takes the
 * write lock at once (BEGIN IMMEDIATE); commit makes the writes durable; rollback
 * discards them and never fails (it accepts NULL). */
gc_rc gc_db_begin(gc_db *db, gc_err *e);
gc_rc gc_db_commit(gc_db *db, gc_err *e);
void gc_db_rollback(gc_db *db);

/* --- sweeps ------------------------------------------------------------------- */

/* Record a sweep as 'running', owned by this process (host name and pid, so that
 * gc_db_mark_interrupted can tell a live sweep from a crashed one). */
gc_rc gc_db_sweep_begin(gc_db *db, const char *name, const char *spec_text,
			const char *spec_hash, const char *baseline, int64_t *sweep_id,
			gc_err *e);
/* status: "done", "failed" or "interrupted". */
gc_rc gc_db_sweep_end(gc_db *db, int64_t sweep_id, const char *status, gc_err *e);

/* The sweep's accuracy target: metric "accuracy" (reached when the validation accuracy
 * is >= value) or "loss" (validation loss <= value); "" clears it. The views
 * run_time_to_target and time_to_target_speedup read it (docs/database.md). */
gc_rc gc_db_sweep_target(gc_db *db, int64_t sweep_id, const char *metric, double value,
			 gc_err *e);

/* --- environments -------------------------------------------------------------- */

/* Find the environments row equal to *info in every field, or insert it. */
gc_rc gc_db_env_get(gc_db *db, const struct gc_envinfo *info, int64_t *env_id, gc_err *e);

/* --- runs ---------------------------------------------------------------------- */

enum gc_run_status { GC_RUN_RUNNING, GC_RUN_OK, GC_RUN_FAILED, GC_RUN_INTERRUPTED,
		     GC_RUN_TIMEOUT };
const char *gc_run_status_name(enum gc_run_status s);  /* "running", "ok", ... */

/* One sweep point as stored in `runs`. Strings are borrowed for the call. */
struct gc_db_run {
	int64_t sweep_id;
	const char *point_key;     /* gc_point_key() of orchestrator/run/sweep.h */
	const char *workload;      /* "replay", "train:mlp" */
	const char *model;
	const char *method;
	const char *params;        /* canonical "k=v,..." (gc_params_format) */
	int world_size, nodes, batch;
	uint64_t bw_cap_bps;       /* 0 = unlimited */
	double latency_s;
	const char *backend;       /* "mpi" | "nccl" */
	double compute_scale;
	int iterations, warmup, repeat;
	int64_t env_id;            /* 0 = unknown (NULL in the table) */
	const char *network_json;  /* NULL = "{}": NCCL/MPI settings that applied */
	const char *stack;         /* NULL = "": the spec's stack (workload: command) */
};

/* Insert a run with status 'running' and started = now. */
gc_rc gc_db_run_begin(gc_db *db, const struct gc_db_run *run, int64_t *run_id, gc_err *e);

/* Set the final status, finished = now, the error text and the stderr tail (NULL =
 * leave as is). The stderr tail is cut to its last 8 KiB. With GC_RUN_OK it also
 * computes the run's statistics (gc_db_run_stats_refresh) in the same transaction:
 * ingest the records first, then end the run ok. */
gc_rc gc_db_run_end(gc_db *db, int64_t run_id, enum gc_run_status st, const char *error,
		    const char *stderr_tail, gc_err *e);

/* (Re)compute the median and p95 of every breakdown field of a run over its ranks and
 * post-warmup iterations into run_stats, which the views read. Needed only if records
 * are ingested after the run ended ok. */
gc_rc gc_db_run_stats_refresh(gc_db *db, int64_t run_id, gc_err *e);

gc_rc gc_db_run_add_host(gc_db *db, int64_t run_id, const char *node, int64_t env_id,
			 gc_err *e);

/* The run's placement (docs/spec.md, Placement): the most ranks on one host and every
 * used host with its ranks, "n1:2,n2:1" (runs.ranks_per_node, runs.placement). */
gc_rc gc_db_run_set_placement(gc_db *db, int64_t run_id, int ranks_per_node,
			      const char *placement, gc_err *e);

/* The SLURM job the run ran in, its partition and node list (runs.slurm_job,
 * slurm_partition, slurm_nodes; docs/slurm.md). */
gc_rc gc_db_run_set_slurm(gc_db *db, int64_t run_id, const char *job, const char *partition,
			  const char *nodes, gc_err *e);

/* A link measurement: cap (bits/s, 0 = none), goodput (bits/s) and RTT (s); a
 * negative goodput or rtt stores NULL (not measured). */
gc_rc gc_db_link_add(gc_db *db, int64_t run_id, const char *src, const char *dst,
		     uint64_t cap_bps, double goodput_bps, double rtt_s, gc_err *e);

/* The netem delay the run's links held, read back from the kernel after shaping
 * (seconds; runs.latency_applied_s, docs/database.md); negative stores NULL. */
gc_rc gc_db_run_set_latency_applied(gc_db *db, int64_t run_id, double applied_s, gc_err *e);
/* Set the member key (a name of [A-Za-z0-9_]) of the run's network_json to value, a JSON
 * text (a bandwidth trace's record: orchestrator/run/run_trace.h). GC_E_FORMAT when
 * value is not JSON. */
gc_rc gc_db_run_set_network(gc_db *db, int64_t run_id, const char *key, const char *value,
			    gc_err *e);

/* Add seconds to one phase of a run (run_phases, docs/database.md "Overhead"; a phase
 * timed twice accumulates). phase is one of GC_DB_PHASES or a setup phase ("setup_"
 * and [a-z_], at most 31 characters): GC_E_INVAL otherwise, or when seconds < 0. */
gc_rc gc_db_run_phase_add(gc_db *db, int64_t run_id, const char *phase, double seconds,
			  gc_err *e);

/* The run whose probe measured this run's links rows (runs.calibration_run): run_id
 * itself when it probed, an earlier run when its calibration was reused. */
gc_rc gc_db_run_set_calibration(gc_db *db, int64_t run_id, int64_t calibration_run,
				gc_err *e);

/* A model prediction (model/): total and breakdown in seconds (negative = NULL). */
struct gc_db_prediction {
	const char *model_version;
	double t_iter, t_compute, t_encode, t_decode, t_comm, t_exposed;
};
gc_rc gc_db_prediction_put(gc_db *db, int64_t run_id, const struct gc_db_prediction *p,
			   gc_err *e);

/* The model's fitted parameters of one environment (0: none) as a JSON object, fitted
 * from `runs` runs; replaces the row of the same environment and version. */
gc_rc gc_db_model_fit_put(gc_db *db, int64_t env_id, const char *model_version, size_t runs,
			  const char *params_json, gc_err *e);

/* --- iterations ---------------------------------------------------------------- */

/* Insert the records of f into iterations for run_id, in one transaction. Refuses
 * (GC_E_FORMAT) a file without its trailer (f->complete == 0): a rank that did not
 * finish never counts. */
gc_rc gc_db_ingest(gc_db *db, int64_t run_id, const gc_rec_file *f, gc_err *e);

/* Read and insert n record files (one per rank) in ONE transaction: all or none.
 * Each file's header is stored in run_headers (its rank is the header's "rank", else
 * its place in paths) and rank 0's producer in runs.producer; a header that is not one
 * JSON object is refused (formats/rec_header.h).
 * *rows (may be NULL) gets the number of rows inserted. The message names the file.
 * Cost: each file is streamed in 64 KiB chunks through one reused buffer (never read
 * whole) and bound to a prepared 64-row INSERT with no allocation per row, each file in
 * primary-key order (its rank's iterations in order); `make bench-db` measures it. */
gc_rc gc_db_ingest_files(gc_db *db, int64_t run_id, const char *const *paths, size_t n,
			 size_t *rows, gc_err *e);

/* A run recorded elsewhere (gcbench ingest: record files from any producer,
 * docs/records.md), stored as one ok run of the newest sweep called `sweep`, or of a
 * new sweep with that name (spec_hash GC_DB_INGEST_HASH, status 'done'), in ONE
 * transaction: on any error nothing is written. The caller has checked the files
 * (complete, one per rank, headers that agree). */
#define GC_DB_INGEST_HASH "ingest"
struct gc_db_ingest_req {
	const char *sweep;
	const char *baseline;        /* NULL/"": the existing sweep's; a new sweep needs one,
	                              * an existing sweep with another baseline is refused */
	struct gc_db_run run;        /* as for gc_db_run_begin; sweep_id, env_id and repeat
	                              * (the runs of point_key already in the sweep) are set here */
	const struct gc_envinfo *env;  /* this host's (NULL: none); also the run's one host */
	const char *producer;        /* runs.producer and every rank's run_headers.producer */
	const gc_rec_file *files;    /* files[i] is rank i's; n of them */
	const char *const *names;    /* NULL or their paths, for messages */
	size_t n;
};
struct gc_db_ingest_out {
	int64_t sweep_id, run_id;
	int sweep_created;
	size_t rows;                 /* iteration rows inserted */
};
gc_rc gc_db_ingest_run(gc_db *db, struct gc_db_ingest_req *q, struct gc_db_ingest_out *out,
		       gc_err *e);

/* --- resume and status ---------------------------------------------------------- */

/* A sorted list of strings. Caller owns it; gc_strlist_release frees the strings. */
struct gc_strlist {
	char **v;
	size_t n;
};
void gc_strlist_release(struct gc_strlist *l);
int gc_strlist_has(const struct gc_strlist *l, const char *s);   /* binary search */

/* The point keys with at least one 'ok' run in this sweep. */
gc_rc gc_db_done_keys(gc_db *db, int64_t sweep_id, struct gc_strlist *out, gc_err *e);

/* A sweep of a spec, as resume needs it (db/resume.c). */
struct gc_db_sweep_brief {
	int64_t id;
	char status[16];            /* running, done, failed, interrupted */
	char env_key[512];          /* "tag=T;n1=ENV,n2=ENV"; '' before migration 4 */
	double started;
	int n_ok;                   /* distinct points with an ok run */
};
/* Every sweep of spec_hash, newest first (*out owned: free()). */
gc_rc gc_db_spec_sweeps(gc_db *db, const char *spec_hash, struct gc_db_sweep_brief **out,
			size_t *n, gc_err *e);
/* Store the environments a sweep runs on. */
gc_rc gc_db_sweep_set_env_key(gc_db *db, int64_t sweep_id, const char *env_key, gc_err *e);

/* Record every baseline of a spec with `baseline: [a, b, ...]` (n names, in order; the
 * first is the sweep's baseline) in sweeps.baselines, a JSON array: the speedup view
 * then has a row per (method, baseline). Names are method labels ([A-Za-z0-9._-]). */
gc_rc gc_db_sweep_set_baselines(gc_db *db, int64_t sweep_id, char *const *names, size_t n,
				 gc_err *e);
/* Continue a sweep: 'running' again, owned by this process, finished cleared. */
gc_rc gc_db_sweep_reopen(gc_db *db, int64_t sweep_id, gc_err *e);

/* Mark as 'interrupted' the sweeps left 'running' (and their runs left 'running')
 * whose owner process is gone: another host's sweep counts as gone only with
 * force = 1. spec_hash NULL means every sweep. *n (may be NULL) gets the number of
 * runs changed. */
gc_rc gc_db_mark_interrupted(gc_db *db, const char *spec_hash, int force, int *n,
			     gc_err *e);

/* One sweep for `gcbench status`. */
struct gc_db_sweep_stat {
	int64_t id;
	char name[128];
	char spec_hash[32];
	char status[16];
	double started, finished;          /* finished 0 while running */
	int n_ok, n_failed, n_timeout, n_interrupted, n_running;
};
/* Call fn for the newest `limit` sweeps, newest first. fn returning nonzero stops. */
gc_rc gc_db_sweep_stats(gc_db *db, int limit,
			int (*fn)(const struct gc_db_sweep_stat *s, void *arg), void *arg,
			gc_err *e);

/* One run for `gcbench status`. */
struct gc_db_run_stat {
	int64_t id, sweep_id;
	char point_key[512];
	char workload[96];                 /* "replay", "train", "command", ... */
	char model[64], method[64], params[256];
	char stack[32];                    /* runs.stack: "" unless the spec has stacks: */
	int64_t bw_cap_bps;
	int world_size, batch;
	char status[16];
	char error[256];
	double started, finished;
	double t_iter_median;              /* -1 when not an ok run */
	double overhead_s;                 /* run_overhead.overhead_s; -1 when not finished */
};
/* The per-point phases of run_overhead, in a point's order, and their count. */
#define GC_DB_NPHASES 9
extern const char *const gc_db_phases[GC_DB_NPHASES];   /* "reap", ..., "record" */

/* Where a sweep's points spent their time (means over its finished runs of the view
 * run_overhead; -1 for a mean with no value). n = 0 when no run of it finished. */
struct gc_db_overhead {
	int n;
	double wall_s, iter_s, overhead_s, setup_s;
	double phase_s[GC_DB_NPHASES];     /* gc_db_phases' order; "launch" is ranks_s */
};
gc_rc gc_db_sweep_overhead(gc_db *db, int64_t sweep_id, struct gc_db_overhead *out,
			   gc_err *e);

gc_rc gc_db_latest_runs(gc_db *db, int limit,
			int (*fn)(const struct gc_db_run_stat *r, void *arg), void *arg,
			gc_err *e);

#endif

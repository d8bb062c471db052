/* orchestrator/regress.h: regression tracking across driver/CUDA/NCCL versions.
 *
 * Two sides, each a set of environments (db table environments) chosen by a selector:
 *   "nccl=2.18"            a field equal to the value; for version fields (driver, cuda,
 *                          nccl, mpi, kernel, libnl, sqlite, gcbench) also a value that
 *                          starts with it and a '.' or '-' ("2.18" matches "2.18.3")
 *   "nccl=2.19,tag=lab-a"  several conditions, all must hold
 *   "env=7"                one environment by id
 *   "previous"             (baseline only, candidate NULL) the newest environment with
 *                          ok runs is the candidate, the one before it the baseline
 * Fields: host, gpu_model, driver, cuda, nccl, mpi, kernel, libnl, sqlite, gcbench,
 * tcp_cc, tag, env.
 *
 * A point is (workload, model, method, params, bandwidth cap, latency, world size,
 * batch, backend, compute scale). For each point measured on both sides, the samples
 * are the post-warmup per-iteration times (t_iter) of every rank of every ok run.
 * Verdict: REGRESSION when the Mann-Whitney test gives p < alpha AND the candidate's
 * median is at least min_effect slower than the baseline's; IMPROVEMENT likewise
 * faster; SAME otherwise. A point on one side only is reported, never compared.
 * The speedup over the sweep's baseline method (sync SGD) at the same point, on each
 * side, is shown for context (median of the baseline method / median of the method).
 */
#ifndef GC_REGRESS_H
#define GC_REGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "result.h"

struct sqlite3;

typedef struct gc_regress_opts {
	const char *baseline;    /* selector (see above) */
	const char *candidate;   /* selector; NULL only with baseline "previous" */
	double min_effect;       /* relative change of the medians (default 0.05) */
	double alpha;            /* significance level (default 0.01) */
} gc_regress_opts;

void gc_regress_opts_default(gc_regress_opts *o);

enum gc_regress_verdict {
	GC_REG_SAME, GC_REG_REGRESSION, GC_REG_IMPROVEMENT, GC_REG_BASELINE_ONLY,
	GC_REG_CANDIDATE_ONLY
};
/* "same", "REGRESSION", "improvement", "baseline only", "candidate only" */
const char *gc_regress_verdict_name(enum gc_regress_verdict v);

typedef struct gc_regress_point {
	char workload[64], model[64], method[64], params[160], backend[16], baseline[64];
	int64_t bw_cap_bps;
	double latency_s, compute_scale;
	int world_size, batch;
	size_t n_base, n_cand;           /* samples on each side (0: absent) */
	double med_base, med_cand;       /* medians in seconds (NAN when absent) */
	double change;                   /* med_cand / med_base - 1 (NAN when absent) */
	double speedup_base, speedup_cand;   /* NAN when not known */
	double z, p;                     /* Mann-Whitney, candidate vs baseline */
	enum gc_regress_verdict verdict;
} gc_regress_point;

typedef struct gc_regress_report {
	gc_regress_point *v;
	size_t n;
	size_t n_regressions, n_improvements, n_one_side;
	char base_desc[256], cand_desc[256];   /* selector and the env ids it matched */
	double min_effect, alpha;
} gc_regress_report;

/* Compare. GC_E_INVAL (message in e) for a bad selector; GC_E_NOTFOUND when a side
 * matches no environment with ok runs; GC_E_DB on SQLite errors. Caller releases r. */
gc_rc gc_regress_compare(struct sqlite3 *db, const gc_regress_opts *o,
			 gc_regress_report *r, gc_err *e);
void gc_regress_report_release(gc_regress_report *r);

/* Print r as "table", "markdown" or "json" (GC_E_INVAL for another format). */
gc_rc gc_regress_print(FILE *f, const gc_regress_report *r, const char *format, gc_err *e);

/* One row of `gcbench history`: the speedup of a method at one point in one
 * environment (db view speedup), oldest environment first. */
typedef struct gc_history_row {
	double first_seen;                  /* the environment's first run (Unix s) */
	int64_t env_id;
	char driver[64], cuda[64], nccl[64], tag[64];
	char params[160];
	int64_t bw_cap_bps;
	int world_size, batch, repeats;
	double t_iter, t_iter_baseline, speedup;
} gc_history_row;

/* Call fn per row for model/method (bw_cap_bps < 0: every bandwidth). fn returning
 * nonzero stops. */
gc_rc gc_history(struct sqlite3 *db, const char *model, const char *method,
		 int64_t bw_cap_bps, int (*fn)(const gc_history_row *row, void *arg),
		 void *arg, gc_err *e);

#endif

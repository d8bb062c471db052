/* orchestrator/ops/regress.h: regression tracking across driver/CUDA/NCCL versions.
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
 *
 * Metrics (gc_regress_opts.metric):
 *   time (default)  the change of a point's median iteration time. It catches every
 *                   slowdown, the baseline method's too, which no speedup shows (a
 *                   slower sync SGD raises every speedup), so it is the gate for cron.
 *   speedup         the change of each method's speedup over the sweep's baseline method
 *                   at the same point on the same side: what users track ("does
 *                   compression still pay?"). A faster baseline alone lowers it.
 * Both get a bootstrap interval (orchestrator/ops/bootstrap.h) of the relative change at
 * confidence 1 - alpha. The unit of independence is the run when every sample involved
 * has GC_BOOT_MIN_RUNS or more runs (repeats, or nights selected together), else the
 * iteration. Verdict for time: with runs as the unit, the interval excludes 0; with
 * iterations, Mann-Whitney p < alpha; for speedup, the interval excludes 0; in each case
 * also |change| >= min_effect.
 */
#ifndef GC_REGRESS_H
#define GC_REGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "db/q_regress.h"
#include "result.h"
#include "series.h"

struct gc_db;

typedef struct gc_regress_opts {
	const char *baseline;    /* selector (see above) */
	const char *candidate;   /* selector; NULL only with baseline "previous" */
	double min_effect;       /* relative change of the medians (default 0.05) */
	double alpha;            /* significance level (default 0.01) */
	int metric;              /* GC_METRIC_TIME (default) or GC_METRIC_SPEEDUP */
	int confirm;             /* nightly noise model: nights that must lie beyond it,
	                          * 1 or 2; 0 (default): 2 for a point with one run that
	                          * night, else 1 */
} gc_regress_opts;

enum { GC_METRIC_TIME, GC_METRIC_SPEEDUP };
/* "time" or "speedup" into *metric; -1 for anything else. */
int gc_regress_metric_parse(const char *s, int *metric);

/* A SLURM job id (digits, not 0) into out as a canonical number ("007" -> "7"); -1 when
 * s is not one or does not fit n bytes. The `job=ID` selector and `history --job`. */
int gc_regress_job_parse(const char *s, char *out, size_t n);

/* 1 when p is a partition name as SLURM writes it: [A-Za-z0-9._-], 1..127 bytes, not
 * starting with '-' or '.'. The `partition=P` selector and `history --partition`. */
int gc_regress_valid_partition(const char *p);

void gc_regress_opts_default(gc_regress_opts *o);

enum gc_regress_verdict {
	GC_REG_SAME, GC_REG_REGRESSION, GC_REG_IMPROVEMENT, GC_REG_BASELINE_ONLY,
	GC_REG_CANDIDATE_ONLY
};
/* "same", "REGRESSION", "improvement", "baseline only", "candidate only" */
const char *gc_regress_verdict_name(enum gc_regress_verdict v);

typedef struct gc_regress_point {
	char workload[64], model[64], method[64], params[160], backend[16], baseline[64];
	char stack[32];                  /* runs.stack: "" unless the spec has stacks: */
	int64_t bw_cap_bps;
	double latency_s, compute_scale;
	int world_size, batch;
	size_t n_base, n_cand;           /* samples on each side (0: absent) */
	double med_base, med_cand;       /* medians in seconds (NAN when absent) */
	double change;                   /* relative change of the metric (NAN when absent):
	                                  * time: med_cand / med_base - 1; speedup:
	                                  * speedup_cand / speedup_base - 1 */
	double ci_lo, ci_hi;             /* bootstrap interval of change (NAN when absent) */
	int runs_base, runs_cand;        /* runs behind the samples */
	int by_runs;                     /* runs were the unit of independence */
	double speedup_base, speedup_cand;   /* NAN when not known */
	double z, p;                     /* Mann-Whitney, candidate vs baseline; with
	                                  * nights as the unit: the series' t and p */
	int nights;                      /* earlier nights behind the noise model (0: not
	                                  * used; see "previous" below) */
	double night_sd;                 /* their spread (sd of ln median) */
	int confirm;                     /* nights the model's verdict needed (1 or 2) */
	int suspect;                     /* verdict same, but the newest night alone is
	                                  * beyond the model (slower): confirm tomorrow */
	enum gc_regress_verdict verdict;
} gc_regress_point;

typedef struct gc_regress_report {
	gc_regress_point *v;
	size_t n;
	size_t n_regressions, n_improvements, n_one_side;
	char base_desc[256], cand_desc[256];   /* selector and the env ids it matched */
	double min_effect, alpha;
	int metric;
	size_t n_by_runs;                      /* points whose unit was the run */
	size_t n_by_nights;                    /* points judged by the noise model */
	size_t n_short_history;                /* one-run points of 'previous' with fewer
	                                        * earlier nights than the model needs */
	size_t n_suspects;                     /* points marked suspect */
} gc_regress_report;

/* With baseline "previous" and the time metric, a point with fewer than
 * GC_BOOT_MIN_RUNS runs on a side is judged by its series' noise model
 * (orchestrator/ops/series.h): the candidate night against the earlier nights of the
 * same spec (up to GC_SERIES_WINDOW, since the last step), when there are at least
 * GC_SERIES_MIN_HISTORY of them, confirmed over opts.confirm nights (0: 2 for a point
 * with one run that night, else 1; gc_series_judge). Then med_base is the level of
 * those nights (their geometric mean), change is against it, ci_lo..ci_hi its
 * 1 - alpha prediction interval, z and p the newest night's t statistic and its
 * one-sided p, nights > 0, and suspect set when the newest night alone is beyond.
 * With fewer earlier nights the pooled-iteration verdict stays (counted in
 * n_short_history). */

/* Compare, reading db through db/q_regress.h. GC_E_INVAL (message in e) for a bad
 * selector; GC_E_NOTFOUND when a side matches no environment with ok runs; GC_E_DB on
 * SQLite errors. Caller releases r. */
gc_rc gc_regress_compare(struct gc_db *db, const gc_regress_opts *o,
			 gc_regress_report *r, gc_err *e);
void gc_regress_report_release(gc_regress_report *r);

/* Print r as "table", "markdown" or "json" (GC_E_INVAL for another format; GC_E_NOMEM,
 * nothing printed, when the JSON does not fit in memory). */
gc_rc gc_regress_print(FILE *f, const gc_regress_report *r, const char *format, gc_err *e);

/* ---- the whole series (gcbench regress --series; regress_series.c) ----------------- */

/* One point's nightly medians over a spec's nights. */
typedef struct gc_regress_spoint {
	gc_regress_point key;            /* key fields only */
	char id[512];                    /* the key as one string (compare with strcmp) */
	double *med;                     /* per night, seconds; NAN where not measured */
	int *runs;                       /* ok runs per night */
	double spread;                   /* night-to-night spread (gc_series_spread's) */
	size_t nsteps;
	gc_series_step steps[GC_SERIES_MAX_STEPS];   /* .at: a night index */
} gc_regress_spoint;

typedef struct gc_regress_series {
	int64_t *sweep;                  /* the nights' sweeps, oldest first */
	struct gc_db_night *night;       /* each night's name, start and environment */
	size_t nnights;
	gc_regress_spoint *pt;
	size_t npts, cap;
	double min_effect;
} gc_regress_series;

#define GC_REGRESS_SERIES_MAX (GC_SERIES_WINDOW * 4)

/* The nights of sweep last's spec (0: the newest sweep's), the newest max of them (at
 * most GC_REGRESS_SERIES_MAX), and every point's median each night. GC_E_NOTFOUND when
 * the database has no ok run; GC_E_DB; GC_E_NOMEM. Caller releases s. */
gc_rc gc_regress_series_load(struct gc_db *db, int64_t last, size_t max,
			     gc_regress_series *s, gc_err *e);
/* Find every point's steps (gc_series_steps over the nights it was measured). */
void gc_regress_series_steps(gc_regress_series *s, double min_effect);
void gc_regress_series_release(gc_regress_series *s);

/* The environment fields that differ between nights a and b, as "nccl 2.18.3 -> 2.19.1,
 * tag a -> b" into out ("" when none). */
void gc_regress_env_changes(const struct gc_db_night *a, const struct gc_db_night *b,
			    char *out, size_t n);

/* Print s as "table", "markdown", "json" or "csv" (point,night,median_s: the input of
 * gcbench regress --evaluate, night = sweep id). GC_E_INVAL for another format. */
gc_rc gc_regress_series_print(FILE *f, const gc_regress_series *s, const char *format,
			      gc_err *e);

/* `gcbench history` (a method's speedup sweep by sweep) is a query of db/: see
 * db/q_history.h. */

#endif

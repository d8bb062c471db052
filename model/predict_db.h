/* model/predict_db.h: the performance model fitted to a results database and used to
 * predict every ok run in it (`gcbench model`, docs/model.md "Fitting to a database").
 *
 * Per environment (runs.env_id; NULL counts as one environment of its own) the fit takes:
 *   bandwidth  per run: the mean goodput of its `links` rows, else cap x 1448/1514 (TCP
 *              payload per Ethernet frame at MTU 1500); an unlimited cap without a link
 *              row uses GC_PDB_UNCAPPED_BPS;
 *   alpha      wire latency per hop: the median RTT / 2 of the environment's link rows,
 *              else the run's latency_s + 25 us; plus a software latency per hop fitted
 *              below;
 *   host cost  per byte on the link, and the software latency per hop: least squares
 *              (gc_model_fit_comm) of what each run's measured t_comm median adds to
 *              its link time (gc_model_comm_terms with the alpha and bandwidth above);
 *   lambda     slope through 0 of the measured t_backward median over the emulated
 *              backward (gc_arch_set_timing with the run's batch and compute scale, V100
 *              FLOP/s) of the sync-SGD runs with p > 1 where compute dominates (exposed
 *              communication < 25% of the iteration); if none, of all sync-SGD runs
 *              with p > 1; else 1;
 *   fwd/bwd    median of t_forward / emulated backward;
 *   optimizer  median seconds per parameter of t_optimizer (times the model's numel);
 *   codecs     per method: encode elements/s from (numel, t_encode median), decode
 *              from (gc_model_decode_elems summed over the buckets, t_decode median),
 *              over the runs with p > 1; a method with no positive sample costs 0.
 * Buckets are the worker's defaults (1 MiB first, 25 MiB), as gc_buckets_make lays them,
 * and the schedule is gcbench-worker's (codec_on_comm: encode, exchange and decode of
 * each bucket on one communication thread).
 * Each run is also predicted leave-one-out: everything but the links refitted without
 * it (cv_pred, cv_err), the honest figure of how well the model predicts a run it has
 * not seen.
 */
#ifndef GC_PREDICT_DB_H
#define GC_PREDICT_DB_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "json.h"
#include "model.h"

#define GC_PDB_VERSION "gcbench-model-2"
#define GC_PDB_UNCAPPED_BPS 10e9
#define GC_PDB_MAX_ENVS 64

/* The fitted parameters of one environment. */
typedef struct gc_pdb_fit {
	int64_t env_id;                 /* 0: runs without an environment */
	gc_model_params mp;             /* bw, alpha set per run; host_bw, lambda, rates, fwd */
	double alpha_link;              /* median RTT / 2 of the links; -1: not measured */
	double alpha_sw;                /* fitted software latency per hop, s */
	double opt_per_elem;            /* optimizer seconds per parameter */
	double goodput_ratio;           /* mean goodput / cap over link rows (0: none) */
	size_t n_runs, n_links, n_lambda, n_comm;
	size_t n_enc[GC_M__COUNT], n_dec[GC_M__COUNT];
	/* the same rates per variant, GC_PDB_VARIANT(params): the parameters that change a
	 * method's work (ef, scaled), which one rate per method would average (plain and
	 * scaled signSGD with EF differ by 60%); a row is predicted with its variant's rate
	 * where the fit has runs of it, else with its method's */
	double var_enc[GC_M__COUNT][4], var_dec[GC_M__COUNT][4];
	size_t n_var_enc[GC_M__COUNT][4], n_var_dec[GC_M__COUNT][4];
	int lambda_compute_bound;       /* 1 if lambda came from compute-bound runs */
} gc_pdb_fit;

/* The variant index of a method's parameters: ef and scaled, 0..3. */
#define GC_PDB_VARIANT(p) (((p)->ef ? 1 : 0) | ((p)->scaled ? 2 : 0))

/* One ok run, measured and predicted. */
typedef struct gc_pdb_row {
	int64_t run_id, env_id;
	char model[64], method[32], params[256];
	int world_size, batch;
	int nodes;                      /* hosts the ranks ran on */
	int ring_flows;                 /* the ring's flows on the busiest host link: ranks
					   placed by node (MPI) put 2 on each link at 2 ranks
					   per host (model/racks.h); 1 for NCCL, which orders
					   its ring host by host */
	double gather_flows;            /* the same for libnbc's linear all-gather:
					   gc_gather_host_flows (4/3 at 2 ranks per host
					   on 2 hosts) */
	double flows;                   /* what the prediction divides the link by: the
					   all-gather's for a method that mostly gathers,
					   else the ring's */
	uint64_t bw_cap_bps;            /* the ring's bottleneck cap (db/q_model.h) */
	uint64_t point_cap_bps;         /* the point's own cap (runs.bw_cap_bps) */
	char network[48];               /* run_summary.network ("uniform", "slow n3:0.5") */
	double bw_bps;                  /* what the prediction used, bits/s */
	double measured;                /* t_iter median, s */
	double m_compute, m_encode, m_decode, m_exposed, m_comm;  /* measured medians */
	gc_model_result pred;
	double rel_err;                 /* (predicted - measured) / measured */
	double cv_pred, cv_err;         /* leave-one-out prediction and error (NaN: none) */
	char skipped[128];              /* non-empty: not predicted, and why */
} gc_pdb_row;

/* Median and worst |relative error| of one method. */
typedef struct gc_pdb_method_err {
	char method[32];
	size_t n, n_cv;
	double median_abs, worst_abs;
	double median_abs_cv;           /* leave-one-out; NaN when no run has one */
} gc_pdb_method_err;

typedef struct gc_pdb {
	gc_pdb_fit fits[GC_PDB_MAX_ENVS];
	size_t nfits;
	gc_pdb_row *rows;
	size_t nrows;
	gc_pdb_method_err methods[GC_M__COUNT + 1];
	size_t nmethods;
	size_t stored;                  /* predictions written */
} gc_pdb;

/* Read every ok run of db (run_summary, runs, links), fit per environment, predict
 * every run and, when store is 1, write the predictions (gc_db_prediction_put, version
 * GC_PDB_VERSION) and each environment's fit (gc_db_model_fit_put), one transaction. Runs the model cannot handle (an unknown
 * architecture or method, bad params) are kept in rows with `skipped` set and get no
 * prediction. Caller releases *out (also on failure). */
gc_rc gc_pdb_run(gc_db *db, int store, gc_pdb *out, gc_err *e);
void gc_pdb_release(gc_pdb *p);                            /* accepts NULL */

/* Out of sample: read every ok run of db (and fit it, for the per-run quantities), but
 * predict every run with fit (e.g. gc_pdb_fit_load of another database): rel_err is
 * the error of that fit on these runs, methods[] its median and worst per method;
 * cv_* are NaN. Stores nothing. Caller releases *out (also on failure). */
gc_rc gc_pdb_run_with(gc_db *db, const gc_pdb_fit *fit, gc_pdb *out, gc_err *e);

/* The fitted parameters of f as one JSON object value written to j (common/json.h):
 * the text `gcbench model --json` prints and model_fits stores. Errors (memory) stay
 * in j and its buffer: see gc_json_finish. */
void gc_pdb_fit_json(const gc_pdb_fit *f, gc_json *j);

/* The model's parameters from fit f for an architecture of numel parameters: the
 * fitted ones, alpha = wire latency (25 us when not measured) + software latency,
 * t_opt = optimizer cost per parameter x numel; bw stays to be set. */
void gc_pdb_fit_params(const gc_pdb_fit *f, double numel, gc_model_params *mp);

/* Fit the database at path (read-only) and copy out the fit of env_id, or with
 * env_id < 0 the environment with the most ok runs (out->env_id tells which). */
gc_rc gc_pdb_fit_load(const char *path, int64_t env_id, gc_pdb_fit *out, gc_err *e);

/* The fit of env_id, or NULL. */
const gc_pdb_fit *gc_pdb_fit_of(const gc_pdb *p, int64_t env_id);

/* A gc_model_method from a database method name and its canonical params text
 * ("k=v,..."), parsed with gc_params_set_list; label becomes "method(params)". */
gc_rc gc_pdb_method(const char *method, const char *params, gc_model_method *out,
		    gc_err *e);

#endif

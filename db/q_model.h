/* db/q_model.h: the queries the performance model is fitted from (model/predict_db.c):
 * the ok runs with their medians, and the link measurements of an environment. The
 * fitting stays with the caller; its results go back through gc_db_prediction_put and
 * gc_db_model_fit_put (db.h).
 */
#ifndef GC_DB_Q_MODEL_H
#define GC_DB_Q_MODEL_H

#include <stdint.h>

#include "db.h"

/* One ok run (view run_summary): its point and the medians over its ranks and post-
 * warmup iterations, in seconds. Strings are borrowed for the callback; NULL text is
 * "" and a NULL number 0. */
struct gc_db_model_run {
	int64_t run_id;
	int64_t env_id;                    /* 0: unknown */
	const char *model, *method, *params;
	int world_size, batch;
	int nodes;                         /* hosts the ranks ran on (runs.nodes) */
	const char *backend;               /* "mpi" | "nccl" */
	const char *placement;             /* runs.placement, "n1:2,n2:2" ("": unknown) */
	const char *network;               /* run_summary.network: "uniform", "slow n3:0.5" */
	int64_t bw_cap_bps;                /* the ring's bottleneck cap: the point's (under a
					      trace the mean of the windows the run's players
					      stored), times the least slow: factor of the
					      hosts used and the background flows' fair
					      share, at most the racks' uplink share;
					      0: unlimited */
	int64_t point_cap_bps;             /* runs.bw_cap_bps: the point's own cap (a trace's
					      mean over a period) */
	double latency_s, compute_scale;
	double t_iter, t_forward, t_backward, t_encode, t_decode, t_exposed, t_optimizer,
	       t_comm;
	double link_goodput_bps;           /* mean goodput of the run's links (under slow:
					      their mean goodput / own cap, times the
					      bottleneck cap); 0: none */
};

/* Call fn for every ok run, by run id. fn returning nonzero stops (GC_OK). GC_E_DB
 * "reading the runs failed: MESSAGE (is this a gcbench database?)". */
gc_rc gc_db_model_runs(gc_db *db, int (*fn)(const struct gc_db_model_run *r, void *arg),
		       void *arg, gc_err *e);

/* One link measurement (table links) of an ok run; NAN where it was not measured. */
struct gc_db_link_meas {
	double rtt_s, goodput_bps, cap_bps;
};

/* Call fn for every link row of the ok runs on environment env_id (0: the runs of no
 * known environment). fn returning nonzero stops (GC_OK). GC_E_DB "reading links
 * failed: MESSAGE". */
gc_rc gc_db_env_links(gc_db *db, int64_t env_id,
		      int (*fn)(const struct gc_db_link_meas *l, void *arg), void *arg,
		      gc_err *e);

#endif

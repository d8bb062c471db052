/* orchestrator/run/sweep_ctx.h: a sweep while it runs: its points as they are executed,
 * the nodes, the database, the last calibration, and the bounds on a dead node. Every
 * step of the sweep engine (setup, SLURM, racks, background flows, traces, one point)
 * works on a struct gc_sweep_ctx; gc_sweep_run (run.h) owns it.
 */
#ifndef GC_SWEEP_CTX_H
#define GC_SWEEP_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "orchestrator/remote/nodes.h"
#include "phases.h"
#include "result.h"
#include "run_opts.h"
#include "sweep.h"

/* One point as `gcbench run` executes it: the expanded point plus what the worker
 * command line needs. */
struct gc_exec_point {
	const struct gc_spec *spec;
	const struct gc_point *pt;
	char label[512];              /* for people: "resnet50 powersgd(rank=4) @ 1gbit x4" */
	char workload[96];            /* worker syntax: "replay:resnet50" or "train:mlp" */
	char placement[256];          /* "2 nodes x 1 rank (n1:1,n2:1)" (gc_run_place_points) */
};

/* The last calibration of a sweep (run_point.c): reused by the next points of its cap. */
#define GC_CAL_MAX_PAIRS 256
struct gc_calibration {
	int valid;
	uint64_t cap;
	const struct gc_spec_slowset *slow;   /* the point's slow: value (its hosts' caps) */
	uint32_t delay_us;
	size_t used, pairs;
	int64_t run_id;               /* the run whose probe measured it */
	double bps[GC_CAL_MAX_PAIRS], rtt[GC_CAL_MAX_PAIRS];
};

/* Everything a sweep needs while it runs. */
struct gc_sweep_ctx {
	const struct gc_run_opts *o;
	struct gc_db *db;
	gc_node *nodes;
	size_t n_nodes;
	int64_t sweep_id;
	int64_t *env_ids;             /* per node */
	char oob_cidr[32];            /* OpenMPI control channel (local cluster), or "" */
	char data_cidr[32];           /* the hosts' common data subnet (gc_run_data_subnet), or "" */
	int shared_cores;             /* nodes are namespaces of this machine: they share its
	                               * cores, so each rank gets cores / world threads */
	char local_work[1024];        /* where fetched record files go */
	char remote_work[1024];       /* where workers write them on the nodes */
	struct gc_calibration cal;
	int validated;                /* the spec, inventory and database passed gc_run_plan_load
	                               * and the nodes are set up: a failure now is exit 3 */
	struct gc_slurm_alloc *slurm; /* the allocation of a SLURM sweep (run_slurm.h), or NULL */
	int *guards;                  /* SLURM: each node's guard step (srun pid), or NULL */
	int reap_pending;             /* reap the nodes before the next point: at the start of
	                               * a sweep and after a point that failed */
	struct gc_phase_clock ph;     /* the point's phases and the process's setup (phases.h) */
	char ssh_dir[64];             /* this process's private ControlMaster folder (mode
	                               * 0700 under /tmp; "" when none): its masters are
	                               * closed and it is removed by gc_run_release_nodes */
	size_t n_racks;               /* the inventory's racks: (0: none; each node's rack is
	                               * in its gc_node) */
	char uplink_if[64][2][16];    /* the emulated cluster's uplink ends per rack, on this
	                               * machine (inventory uplink_ifaces; "" none): run_racks.h */
	int64_t prev_run;             /* the run whose folder on the nodes the next point's
	                               * prepare removes (0: none); the sweep's end removes
	                               * the whole remote_work */
};

/* A dead node's bound (docs/spec.md, Faults): once a worker reports a failed collective
 * (its --deadline) or mpirun reports an abort, mpirun gets GC_STALL_GRACE_S to end (it
 * needs 1-2 s when every node answers); then it is killed, and each used node gets
 * GC_SILENT_PROBE_S (the ssh connect timeout, 10 s, plus 2) to answer, or is named in
 * the run's error and skipped by the cleanup. So a point whose node went down ends at
 * most deadline + 10 + 12 s (plus cleanup of the nodes that answer) after it did. */
#define GC_STALL_GRACE_S 10.0
#define GC_SILENT_PROBE_S 12.0

#endif

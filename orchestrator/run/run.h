/* orchestrator/run/run.h: `gcbench run`, a sweep over real or emulated nodes.
 *
 * For each point of the spec not yet done for the same spec hash: shape every node's
 * data interface, calibrate (goodput and RTT between nodes, stored beside the cap),
 * launch the workers with mpirun over ssh, fetch and ingest their record files (all
 * ranks in one transaction), and unshape — always, after success, failure, timeout
 * or Ctrl-C. A failed point is recorded with the reason and the stderr tail and the
 * sweep goes on; SIGINT/SIGTERM stop cleanly (links restored, the point in flight
 * marked interrupted); rerunning the same spec resumes. A lock on each host
 * (hostlock.h) keeps two sweeps off the same hosts; links a killed sweep left capped
 * are restored first.
 */
#ifndef GC_RUN_H
#define GC_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "orchestrator/remote/nodes.h"
#include "phases.h"
#include "sweep.h"
#include "result.h"

struct gc_run_opts {
	const char *spec_path;
	const char *inventory_path;   /* NULL: experiments/inventory-local.yaml semantics (local: 4) */
	const char *db_path;          /* default gcbench.db */
	const char *tag;              /* free-form environment tag, or NULL */
	const char *bin_dir;          /* binaries on the nodes; default: this program's directory */
	double calibrate_s;           /* probe seconds per node pair (0: no calibration) */
	int calibrate_all;            /* every ring pair instead of n1 -> n2 */
	double calibration_max_age_s; /* reuse an earlier sweep's probe this young (0: never) */
	int dry_run;                  /* print the points and the first mpirun line, run nothing */
	int json;                     /* the end-of-sweep summary as JSON (gc_run_summary_json) */
	double deadline_s;            /* per-collective deadline passed to the workers */
	int resume_mode;              /* enum gc_resume_mode (orchestrator/run/resume.h) */
	int no_provision;             /* 1: binaries managed by hand (bin_dir), not copied */
	int install_deps;             /* provisioning may apt-get a missing library (root) */
	int plan_nodes;               /* --nodes: a dry run of a `slurm: true` inventory plans
	                               * a job of this many nodes (no allocation needed) */
	int plan_gpus;                /* --gpus-per-node of that job */
	int plan_gpus_set;
};

/* One point as `gcbench run` executes it: the expanded point plus what the worker
 * command line needs. */
struct gc_exec_point {
	const struct gc_spec *spec;
	const struct gc_point *pt;
	char label[512];              /* for people: "resnet50 powersgd(rank=4) @ 1gbit x4" */
	char workload[96];            /* worker syntax: "replay:resnet50" or "train:mlp" */
	char placement[256];          /* "2 nodes x 1 rank (n1:1,n2:1)" (gc_run_place_points) */
};

/* Fill x for point p of spec. */
void gc_exec_point_init(struct gc_exec_point *x, const struct gc_spec *spec,
			const struct gc_point *p);

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
	int validated;                /* the spec, inventory and database passed gc_run_validate
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

/* Place every point's ranks on the nodes (orchestrator/run/placement.h) and fill each
 * point's placement text; GC_E_INVAL names the first point that cannot be placed, or
 * whose ranks all sit on one host under a cap or latency without allow_single_node. */
gc_rc gc_run_place_points(const struct gc_sweep_ctx *c, struct gc_exec_point *pts, size_t n,
			  gc_err *e);

/* Run one point: returns GC_OK when it ran (ok or failed: the status is in the
 * database), GC_E_INTERRUPTED when a signal stopped it, another code when the
 * database itself failed. *ok tells whether the run succeeded. */
gc_rc gc_point_exec(struct gc_sweep_ctx *c, const struct gc_exec_point *p, int *ok, gc_err *e);

/* The whole sweep; returns the process exit status (enum gc_exit, common/result.h):
 * 0 all points ok, 1 some failed, 2 the spec, inventory or database cannot be used
 * (orchestrator/run/validate.h; nothing was touched), 3 an environment error (a host
 * unreachable, provisioning, the database), 130 interrupted. */
int gc_sweep_run(const struct gc_run_opts *o);

/* The end-of-sweep table: every method's speedup over the baseline at each point of
 * sweep_id, columns sized to their content and the whole kept within GC_SUMMARY_WIDTH
 * columns (params wrap at commas). Returns the number of rows, -1 on error (warned). */
#define GC_SUMMARY_WIDTH 100

int gc_run_summary_print(struct gc_db *db, int64_t sweep_id, FILE *f);

/* The same rows as one JSON object on stdout: {"sweep": ID, "rows": [{"model", ...}]}
 * (the table's columns; bandwidth as the one cap spelling). Rows, or -1 (warned). */
int gc_run_summary_json(struct gc_db *db, int64_t sweep_id);

/* The params of a run as the summary shows them: for a workload gcbench's worker runs
 * (replay, train; "replay:...", "train:..." in a worker's record file) only the key=value
 * items that differ from the method's defaults ("defaults" if none); for any other
 * (command, a record file's "pytorch", NULL) all of them, since its method is only a
 * label that may share a built-in method's name. "-" for no params. out is n bytes,
 * cut at a whole item. */
void gc_params_brief(const char *workload, const char *method, const char *params, char *out,
		     size_t n);

/* A run's method as tables show it: "STACK/METHOD" for a run of a spec with stacks:
 * (runs.stack not empty), else the method. Returns out (n bytes) or method. */
const char *gc_stack_method(const char *stack, const char *method, char *out, size_t n);

/* Set by the SIGINT/SIGTERM handler. */
int gc_run_interrupted(void);

#endif

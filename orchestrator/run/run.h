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
 *
 * The sweep's parts have headers of their own: run_opts.h (what it is asked),
 * sweep_ctx.h (its state while it runs), run_point.h (one point), run_setup.h (the
 * nodes), run_summary.h (the table at its end), interrupt.h (SIGINT/SIGTERM).
 */
#ifndef GC_RUN_H
#define GC_RUN_H

#include "run_opts.h"

/* The whole sweep; returns the process exit status (enum gc_exit, common/result.h):
 * 0 all points ok, 1 some failed, 2 the spec, inventory or database cannot be used
 * (orchestrator/run/validate.h; nothing was touched), 3 an environment error (a host
 * unreachable, provisioning, the database), 130 interrupted. */
int gc_sweep_run(const struct gc_run_opts *o);

#endif

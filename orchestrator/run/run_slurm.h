/* orchestrator/run/run_slurm.h: a sweep inside a SLURM allocation (docs/slurm.md).
 *
 * The inventory is SLURM's when it says `slurm: true`, when --inventory is the word
 * `slurm`, or when no --inventory is given and SLURM_JOB_ID is set; the last two read
 * the site file (gc_run_slurm_site_file) for the nodes' data interface. The nodes are
 * the allocation's (SLURM_JOB_NODELIST expanded by scontrol), each reached through
 * one-task srun steps (orchestrator/remote/backend.h), with the allocation's GPUs per
 * node. A sweep with a cap or a latency needs the job's nodes to itself (--exclusive),
 * checked before anything touches a node.
 */
#ifndef GC_RUN_SLURM_H
#define GC_RUN_SLURM_H

#include <stddef.h>

#include "orchestrator/remote/slurm.h"
#include "orchestrator/spec/inventory.h"
#include "sweep_ctx.h"

/* The inventory path a run uses: o_path unless it is NULL or "slurm". For "slurm", or
 * NULL inside an allocation (SLURM_JOB_ID set), the site file: $GCBENCH_HOME/slurm.yaml,
 * else /etc/gcbench/slurm.yaml; GC_E_NOTFOUND naming both (and what to write) when
 * neither exists. NULL outside an allocation: *out = NULL (the default local cluster). */
gc_rc gc_run_slurm_inventory(const char *o_path, const char **out, char *buf, size_t n,
			     gc_err *e);

/* Fill c->nodes from the allocation this process runs in (inv: `slurm: true`), and
 * c->slurm (owned by c: gc_run_release_nodes frees it). GC_E_NOTFOUND outside one. */
gc_rc gc_run_slurm_nodes(const struct gc_run_opts *o, const struct gc_inventory *inv,
			 struct gc_sweep_ctx *c, gc_err *e);

/* For a SLURM sweep (c->slurm) with a cap or a latency in some point: GC_E_PERM unless
 * the job is exclusive (gc_slurm_require_exclusive: the job, its OverSubscribe and the
 * option to add). GC_OK at once for an ssh sweep or a sweep without caps. */
gc_rc gc_run_slurm_check_exclusive(const struct gc_sweep_ctx *c,
				   const struct gc_exec_point *pts, size_t n, gc_err *e);

/* Guards (SLURM sweeps only): one long step per node, started before anything is
 * shaped, that waits and, when it gets SIGTERM, SIGINT or SIGHUP, runs `gcbench-netem
 * restore-all` on its node (through sudo -n when the node shapes through sudo). scancel
 * and the job's time limit SIGTERM every step of the job at once and refuse new
 * steps, so the sweep's own restore can no longer start one: the guards, already
 * running, restore every node within KillWait. At the sweep's end
 * gc_run_slurm_guards_stop ends them (their restore then finds nothing to do). */
gc_rc gc_run_slurm_guards_start(struct gc_sweep_ctx *c, gc_err *e);
void gc_run_slurm_guards_stop(struct gc_sweep_ctx *c);

/* After a point failed in a SLURM sweep: when the job is no longer RUNNING (scancel,
 * the time limit: its steps died with it, often before a guard's end is seen), the
 * sweep stops as on SIGTERM, so the point is recorded interrupted, not failed. */
void gc_run_slurm_check_job(const struct gc_sweep_ctx *c);

#endif

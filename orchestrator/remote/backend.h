/* orchestrator/remote/backend.h: how the sweep engine reaches its nodes (the launcher
 * back end), docs/slurm.md.
 *
 * Two back ends, chosen per sweep from the inventory and kept in every gc_node:
 *  - ssh (GC_LAUNCHER_SSH, the default): a command on a host is `ssh ... -- 'quoted
 *    argv'` (orchestrator/remote/ssh.h); the ranks start with mpirun through an
 *    ssh_config written for the run (orchestrator/remote/launch.h).
 *  - slurm (GC_LAUNCHER_SLURM, inside an allocation): a command on a host is a job step
 *    of the allocation this process runs in,
 *        srun --mpi=none --nodes=1 --ntasks=1 --nodelist=HOST --overlap --chdir=/
 *             --kill-on-bad-exit=1 --quiet ARGV...
 *    (srun executes ARGV itself, no shell on either side; --overlap lets a step run
 *    beside another on the node, as the probe's server and client and the host lock's
 *    holder do; --mpi=none: PMIx's setup doubles a step's cost). The ranks start with
 *    the same mpirun command line minus the ssh agent: Open MPI inside an allocation
 *    starts its daemons with srun (plm slurm). No ssh between nodes is needed.
 * Every operation of orchestrator/remote/nodes.h (checks, shaping, probes, records),
 * provisioning's transfer and the host lock's holder go through gc_node_argv or
 * gc_node_exec, and so through the node's back end.
 */
#ifndef GC_BACKEND_H
#define GC_BACKEND_H

#include "result.h"

enum gc_launcher { GC_LAUNCHER_SSH = 0, GC_LAUNCHER_SLURM = 1 };

/* "ssh" or "slurm" */
const char *gc_launcher_name(int launcher);

/* The srun command line (NULL-terminated, owned: gc_argv_free of common/proc.h) of a
 * one-task step on host running argv. GC_E_INVAL when host is not a host name SLURM
 * could hold or argv[0] is empty or starts with '-' (srun would read it as an option). */
gc_rc gc_backend_slurm_step_argv(const char *host, char *const argv[], char ***out, gc_err *e);

/* Whether srun's stderr says the step itself could not start or was refused (a line
 * "srun: error: ..." that is not about a task's own end, "... task 0: Exited with exit
 * code 1"); 1 with the line in why. */
int gc_backend_slurm_step_failed(const char *err_tail, char *why, size_t n);

/* The last line of a step's stderr that is the command's (not srun's or slurmstepd's),
 * "" when none, into out. */
void gc_backend_slurm_last_line(const char *err_tail, char *out, size_t n);

#endif

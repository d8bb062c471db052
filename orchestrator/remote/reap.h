/* orchestrator/remote/reap.h: end what an earlier gcbench run left running on this host.
 *
 * `gcbench run` marks every job it launches: mpirun gets `--mca gcbench_run <run id>`,
 * which OpenMPI copies onto each remote daemon's command line (orted) and into each
 * rank's environment (OMPI_MCA_gcbench_run). A node whose link went down keeps its
 * daemon and ranks after mpirun is killed; `gcbench reap`, run on each node before a
 * sweep's first point and after a point that failed, finds them by that mark and ends
 * them.
 *
 * Only processes of the calling user, in the caller's network namespace (a node of the
 * local emulated cluster sees only its own), never the caller itself. Nothing unmarked
 * is touched, so other MPI jobs of the same user survive.
 */
#ifndef GC_REAP_H
#define GC_REAP_H

#include <stdio.h>

#include "result.h"

#define GC_REAP_MCA "gcbench_run"              /* the MCA parameter that marks a job */
#define GC_REAP_ENV "OMPI_MCA_" GC_REAP_MCA "=" /* how a rank carries it */

/* Is this process (its NUL-separated cmdline and environment, as in /proc) marked? Returns
 * the run id text (pointer into the buffers, not NUL-terminated: *len) or NULL. */
const char *gc_reap_mark(const char *cmdline, size_t cmdline_len, const char *env,
			 size_t env_len, size_t *len);

/* End every marked process (SIGTERM, SIGKILL after grace_s for those still there).
 * With dry_run, only list them. One line per process goes to log (may be NULL);
 * *n gets how many were found. */
gc_rc gc_reap(int dry_run, double grace_s, FILE *log, int *n, gc_err *e);

#endif

/* common/proc.h: run a child process with a deadline, never through a shell.
 *
 * The child gets argv exactly (execvp), its own process group, stdin from /dev/null
 * (or the given data), and optional extra environment entries "NAME=value". Its stdout
 * is captured whole (up to GC_PROC_MAX_OUT bytes, the rest dropped) and the last
 * GC_PROC_TAIL bytes of stderr are kept for error reports. On the deadline, or when
 * gc_proc_interrupt() was called (from a signal handler), the whole process group gets
 * SIGTERM, then SIGKILL 2 s later, and is reaped: nothing is left running.
 */
#ifndef GC_PROC_H
#define GC_PROC_H

#include <stddef.h>

#include "result.h"

#define GC_PROC_MAX_OUT (16u << 20)
#define GC_PROC_TAIL 4096

typedef struct gc_proc_result {
	int status;          /* exit status if exited, else -1 */
	int signal;          /* terminating signal, else 0 */
	int timed_out;       /* the deadline passed and the group was killed */
	int interrupted;     /* gc_proc_interrupt() stopped it */
	int stalled;         /* a stall mark was seen on stderr and the child was still
	                      * running stall_grace_s later: the group was killed */
	char *out;           /* captured stdout, NUL-terminated (owned) */
	size_t out_len;
	char err_tail[GC_PROC_TAIL + 1];  /* last bytes of stderr, NUL-terminated */
} gc_proc_result;

/* Run argv to completion or until timeout_s (<= 0: no deadline). Returns GC_OK when the
 * child ran (whatever its exit status: look at res), GC_E_TIMEOUT or GC_E_INTERRUPTED
 * when it was stopped, GC_E_NOTFOUND/GC_E_IO when it could not start, GC_E_NOMEM when
 * its output did not fit in memory (res->out NULL). If echo_stderr is non-zero, the
 * child's stderr is also copied to ours as it arrives (progress lines). */
gc_rc gc_proc_run(char *const argv[], const char *const *env_extra, const char *stdin_data,
		  double timeout_s, int echo_stderr, gc_proc_result *res, gc_err *e);

/* Options of gc_proc_run_opts. A stall mark is a string that, once seen on the
 * child's stderr, means the job has failed and should end soon (a worker's error line,
 * MPI_Abort's banner): the child then has stall_grace_s more seconds (or until the
 * deadline, whichever is first) before its group is killed and res->stalled set. This
 * bounds a job whose launcher waits forever on a host that stopped answering. */
typedef struct gc_proc_opts {
	double timeout_s;                 /* <= 0: no deadline */
	int echo_stderr;
	const char *const *stall_marks;   /* NULL-terminated, or NULL */
	double stall_grace_s;
} gc_proc_opts;

/* gc_proc_run with options; a stalled child returns GC_E_TIMEOUT with res->stalled. */
gc_rc gc_proc_run_opts(char *const argv[], const char *const *env_extra, const char *stdin_data,
		       const gc_proc_opts *o, gc_proc_result *res, gc_err *e);

/* Free a NULL-terminated argv whose strings and array were malloc'ed; accepts NULL. */
void gc_argv_free(char **argv);

/* Free res->out; accepts NULL. */
void gc_proc_result_release(gc_proc_result *res);

/* Async-signal-safe: ask every running gc_proc_run to stop its child. */
void gc_proc_interrupt(void);
int gc_proc_interrupted(void);
void gc_proc_clear_interrupt(void);

/* A one-line description of how the child ended ("exited 3", "killed by signal 9",
 * "timed out after 30 s"), into buf. */
void gc_proc_describe(const gc_proc_result *res, double timeout_s, char *buf, size_t n);

#endif

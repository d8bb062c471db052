/* common/result.h: the one result type of gcbench.
 *
 * Every fallible function returns gc_rc; GC_OK is 0, so `rc = f(); if (rc) goto out;`.
 * gc_strerror() gives a lowercase phrase for messages ("timed out"). Library code
 * never calls exit(); it returns a gc_rc and, where useful, writes a detailed
 * message into a caller-supplied gc_err buffer.
 */
#ifndef GC_RESULT_H
#define GC_RESULT_H

#include <stddef.h>

typedef enum gc_rc {
	GC_OK = 0,
	GC_E_NOMEM,        /* allocation failed */
	GC_E_INVAL,        /* invalid argument or input value */
	GC_E_IO,           /* read/write/open failed (errno has the cause) */
	GC_E_FORMAT,       /* malformed file or record */
	GC_E_UNSUPPORTED,  /* not built in, or not available on this host */
	GC_E_PERM,         /* missing privilege (root, CAP_NET_ADMIN) */
	GC_E_NOTFOUND,     /* interface, namespace, file, row does not exist */
	GC_E_TIMEOUT,      /* a deadline passed */
	GC_E_COMM,         /* a collective or peer failed */
	GC_E_CUDA,         /* CUDA runtime or cuBLAS error */
	GC_E_NCCL,         /* NCCL error */
	GC_E_MPI,          /* MPI error */
	GC_E_NETLINK,      /* netlink / libnl error */
	GC_E_DB,           /* SQLite error */
	GC_E_STATE,        /* call out of order, or inconsistent state */
	GC_E_INTERRUPTED,  /* stopped by a signal (SIGINT/SIGTERM) */
	GC_E_MISMATCH,     /* the kernel/peer holds something other than asked */
	GC_E_BUSY,         /* a lock is held by someone else */
	GC_E_CHILD,        /* a child process failed */
	GC_E__COUNT
} gc_rc;

/* A lowercase phrase for rc; never NULL ("unknown error" for out-of-range). */
const char *gc_strerror(gc_rc rc);

/* The exit status of every gcbench command (the table in docs/spec.md, "Exit status",
 * and in each --help): what a cron or CI job can act on. */
enum gc_exit {
	GC_EXIT_OK = 0,             /* done; no regression */
	GC_EXIT_FAILED = 1,         /* a regression, or points that failed */
	GC_EXIT_USAGE = 2,          /* usage error or bad input (spec, inventory, options) */
	GC_EXIT_ENV = 3,            /* cannot compare, or an environment error: unreachable
				     * host, unreadable database, missing privilege */
	GC_EXIT_INTERRUPTED = 130   /* stopped by SIGINT/SIGTERM */
};

/* The exit status for a command that stopped on rc: GC_EXIT_OK for GC_OK, GC_EXIT_USAGE
 * for GC_E_INVAL and GC_E_FORMAT (the input is wrong), GC_EXIT_INTERRUPTED for
 * GC_E_INTERRUPTED, GC_EXIT_ENV for every other code. A command whose input was
 * already checked maps its later failures with gc_exit_env(). */
int gc_exit_code(gc_rc rc);

/* The same after validation: every failure but an interruption is GC_EXIT_ENV. */
int gc_exit_env(gc_rc rc);

/* A message buffer that fallible functions fill with the details of a failure. */
#define GC_ERRLEN 512
typedef struct gc_err {
	char msg[GC_ERRLEN];
} gc_err;

/* Format a message into e (if e is non-NULL) and return rc, for `return gc_fail(...)`. */
gc_rc gc_fail(gc_err *e, gc_rc rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif

#include "result.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const rc_names[GC_E__COUNT] = {
	[GC_OK] = "success",
	[GC_E_NOMEM] = "out of memory",
	[GC_E_INVAL] = "invalid argument",
	[GC_E_IO] = "input/output error",
	[GC_E_FORMAT] = "malformed input",
	[GC_E_UNSUPPORTED] = "not supported here",
	[GC_E_PERM] = "operation not permitted",
	[GC_E_NOTFOUND] = "not found",
	[GC_E_TIMEOUT] = "timed out",
	[GC_E_COMM] = "communication failed",
	[GC_E_CUDA] = "cuda error",
	[GC_E_NCCL] = "nccl error",
	[GC_E_MPI] = "mpi error",
	[GC_E_NETLINK] = "netlink error",
	[GC_E_DB] = "database error",
	[GC_E_STATE] = "invalid state",
	[GC_E_INTERRUPTED] = "interrupted",
	[GC_E_MISMATCH] = "mismatch",
	[GC_E_BUSY] = "resource busy",
	[GC_E_CHILD] = "child process failed",
};

const char *gc_strerror(gc_rc rc)
{
	if ((int)rc < 0 || rc >= GC_E__COUNT || !rc_names[rc])
		return "unknown error";
	return rc_names[rc];
}

gc_rc gc_fail(gc_err *e, gc_rc rc, const char *fmt, ...)
{
	if (e) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	return rc;
}

int gc_exit_code(gc_rc rc)
{
	switch (rc) {
	case GC_OK: return GC_EXIT_OK;
	case GC_E_INVAL: case GC_E_FORMAT: return GC_EXIT_USAGE;
	case GC_E_INTERRUPTED: return GC_EXIT_INTERRUPTED;
	default: return GC_EXIT_ENV;
	}
}

int gc_exit_env(gc_rc rc)
{
	return rc == GC_OK ? GC_EXIT_OK : rc == GC_E_INTERRUPTED ? GC_EXIT_INTERRUPTED : GC_EXIT_ENV;
}

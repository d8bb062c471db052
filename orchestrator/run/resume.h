/* orchestrator/run/resume.h: does `gcbench run` continue an earlier sweep or start anew?
 *
 * A sweep is continued only when it did not finish (interrupted, crashed, or with
 * failed points) and runs on the same environments: every node's environment row
 * (versions, host, tag) and the tag, kept as the sweep's env key. A finished sweep, or
 * a changed environment, starts a new sweep that measures every point again, so a
 * nightly job measures every night and a rerun after an upgrade measures the new
 * stack. --resume and --new force either way. docs/spec.md, "Resume".
 */
#ifndef GC_RESUME_H
#define GC_RESUME_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

enum gc_resume_mode { GC_RESUME_AUTO, GC_RESUME_FORCE, GC_RESUME_NEW };

/* "tag=T;n1=3,n2=3": the tag, then each node's name and environment id in inventory
 * order. Returns 0, or -1 if it does not fit in n. */
int gc_env_key(const char *tag, const char *const *names, const int64_t *env_ids, size_t n_nodes,
	       char *out, size_t n);

/* Choose among this spec's sweeps (newest first). env_key NULL: the environments are
 * not known yet (a dry run), so only the tag is compared and the answer says so.
 * Returns the index of the sweep to continue, -1 for a new sweep, or -2 when --resume
 * has nothing to continue. why gets one line for people. */
int gc_resume_choose(enum gc_resume_mode mode, const struct gc_db_sweep_brief *sweeps, size_t n,
		     const char *env_key, const char *tag, char *why, size_t whylen);

#endif

/* orchestrator/run/lock.h: one sweep at a time per inventory name on this controller
 * ($GCBENCH_HOME/locks/NAME.lock), before any host is reached. The hosts themselves
 * are locked by orchestrator/run/hostlock.h, whoever the controller.
 *
 * An advisory flock(2) on a lock file, with the holder's pid written inside for the
 * message. The kernel drops the lock when the holder dies, so a crashed sweep never
 * blocks the next one.
 */
#ifndef GC_LOCK_H
#define GC_LOCK_H

#include "result.h"

/* Take the lock at path (created with its directory if missing) without waiting.
 * GC_E_BUSY names the pid holding it. On success *fd holds the lock until
 * gc_lock_release(). */
gc_rc gc_lock_acquire(const char *path, int *fd, gc_err *e);
void gc_lock_release(int fd);   /* accepts -1 */


#endif

/* orchestrator/run/each_node.h: one operation on several nodes at once.
 *
 * A point's per-node steps (its folder, shaping, collection, cleanup, reaping) are
 * independent between nodes and each waits on its node (an ssh round trip or a SLURM
 * step): done one node after the other, a point pays their sum; done at once, the
 * slowest. gc_each_node runs fn for every index in its own thread and waits for all.
 * fn must touch only what belongs to its index (its gc_node, its slot of an array):
 * gc_node_exec and the process runner of common/proc.h are safe so.
 */
#ifndef GC_EACH_NODE_H
#define GC_EACH_NODE_H

#include <stddef.h>

#include "result.h"

/* At most this many at a time (a cluster of hundreds: as many ssh processes). */
#define GC_EACH_NODE_MAX 32

/* fn(i, arg, e) for i in 0..n-1, at once (GC_EACH_NODE_MAX at a time); GC_OK when every call returned GC_OK, else
 * the code and message of the lowest index that failed. Falls back to one index after
 * the other when a thread cannot be started. */
gc_rc gc_each_node(size_t n, gc_rc (*fn)(size_t i, void *arg, gc_err *e), void *arg,
		   gc_err *e);

#endif

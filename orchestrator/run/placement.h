/* orchestrator/run/placement.h: where a point's ranks run (docs/spec.md, Placement).
 *
 * Each host can hold at most its capacity: with backend nccl one rank per GPU (the
 * inventory's `gpus`), with mpi any number of CPU ranks. The spec's ranks_per_node R
 * caps every host at min(R, capacity) and fills the hosts in inventory order, so the
 * point uses as few hosts as R allows. Without it (R = 0, "auto") the smallest cap
 * that places the world is taken and the ranks are dealt round-robin over the hosts,
 * so the point spans as many hosts as it can: MPI one rank per node while there are
 * enough nodes; NCCL the fewest GPUs per node. A world that does not fit is refused
 * with every host's capacity in the message. A point whose ranks all sit on one host
 * never sends a byte through the shaped interface: with a cap or a latency set it is
 * refused unless the spec says allow_single_node: true.
 */
#ifndef GC_PLACEMENT_H
#define GC_PLACEMENT_H

#include <stddef.h>

#include "result.h"

#define GC_PLACE_MAX_HOSTS 256

struct gc_placement {
	int slots[GC_PLACE_MAX_HOSTS];   /* ranks on host i (0: unused) */
	size_t n_hosts;                  /* hosts considered (the inventory's, up to the max) */
	size_t used;                     /* the hosts up to the last with a rank (a host
	                                  * without capacity before it has none) */
	size_t nodes;                    /* hosts with a rank */
	int ranks_per_node;              /* the most ranks on one host */
	int world;
};

/* Place world ranks on n hosts with gpus[i] GPUs each (names[i] for messages) for
 * backend "mpi" or "nccl"; rpn 0 = auto. GC_E_INVAL with the reason in e. */
gc_rc gc_placement_compute(const char *backend, int world, int rpn, const char *const *names,
			   const int *gpus, size_t n, struct gc_placement *p, gc_err *e);

/* For people: "4 nodes x 2 ranks", "1 node x 1 rank", "3 nodes x 2,2,1 ranks" (the
 * hosts with ranks). */
void gc_placement_text(const struct gc_placement *p, char *buf, size_t n);

/* The hosts and their ranks as stored in runs.placement: "n1:2,n2:2,n3:1". */
void gc_placement_hosts_text(const struct gc_placement *p, const char *const *names, char *buf,
			     size_t n);

#endif

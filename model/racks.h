/* model/racks.h: the bottleneck of a ring whose hosts sit in racks that share uplinks
 * (docs/model.md, "Racks and uplinks").
 *
 * A ring of n ranks sends from rank i to rank i+1 (and from n-1 to 0). A hop between
 * two ranks of one host never leaves it (shared memory, NVLink: uncapped); a hop between
 * hosts of different racks leaves the sender's rack through its uplink's out direction
 * and enters the receiver's through its in direction. The flows that cross one direction
 * of one uplink share it equally, so each gets the uplink's rate over their number, and
 * the ring runs at its slowest hop. A ring over R racks, each visited once in one run of
 * consecutive ranks, crosses each direction of each uplink once: the uplink only binds
 * when it is slower than a host's own link. A ring that alternates racks crosses them on
 * every hop, and each uplink carries as many flows as the rack has hosts in the ring.
 */
#ifndef GC_MODEL_RACKS_H
#define GC_MODEL_RACKS_H

#include <stddef.h>

#define GC_RACKS_MAX 64

struct gc_racks_ring {
	double bps;           /* the slowest cross-rack hop's share of an uplink; 0 when no
	                       * hop crosses racks (the uplinks do not bind) */
	int crossings;        /* hops that cross racks */
	int max_flows;        /* the most flows on one direction of one uplink */
};

/* The ring over n ranks with host[i] and rack[i] (1..GC_RACKS_MAX) the host and rack of
 * rank i; uplink_bps[r - 1] the rate of rack r's uplink (each direction). Returns the
 * share of the most loaded uplink direction of the hop it binds (out->bps), or 0s when
 * n < 2 or no hop crosses racks. A rack outside 1..GC_RACKS_MAX counts as none. */
void gc_racks_ring(const int *host, const int *rack, size_t n, const double *uplink_bps,
		   struct gc_racks_ring *out);

/* Rank r's host under mpirun --map-by node (gcbench's MPI launcher) over nhosts hosts
 * holding slots[h] ranks each (runs.placement): one rank per host in turn, in host
 * order, skipping hosts whose ranks are all placed. host[] gets n entries; ranks past
 * the slots' sum get -1. */
void gc_ring_place_by_node(const int *slots, size_t nhosts, int *host, size_t n);

/* The most ring hops (rank i -> i + 1, n - 1 -> 0) that leave one host: how many of the
 * ring's flows share the busiest host's link. Ranks placed by node put consecutive ranks
 * on different hosts, so with 2 ranks per host every hop leaves its host and each link
 * carries 2 flows where block placement would carry 1. 0 when no hop leaves a host. */
int gc_ring_host_flows(const int *host, size_t n);

/* The same for a linear all-gather (Open MPI libnbc's default MPI_Iallgather: every
 * rank sends its block straight to every other rank, all at once): the host with r of
 * the n ranks sends r (n - r) blocks where a ring moves n - 1 per link, so the link
 * carries max r (n - r) / (n - 1) of a ring's load (1 with one rank per host; 4/3 with
 * 4 ranks on 2 hosts). 0 when n < 2. */
double gc_gather_host_flows(const int *host, size_t n);

/* For what-if questions: p workers, gpn per node, on nodes dealt in order into `racks`
 * racks of (as near as possible) equal size, ring in rank order, each node's link
 * node_bps; each rack's uplink uplink_bps, or (uplink_bps 0) the sum of its nodes'
 * links over ratio. The rate the ring runs at: node_bps, or the uplink's share when that
 * is lower. racks < 2 (or one node): node_bps. */
double gc_racks_even_bps(int p, int gpn, int racks, double node_bps, double uplink_bps,
			 double ratio);

#endif

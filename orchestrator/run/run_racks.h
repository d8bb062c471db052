/* orchestrator/run/run_racks.h: racks and their uplinks in a sweep (docs/spec.md, "Racks
 * and uplinks"; docs/netem.md, "Racks").
 *
 * A point with uplink: or oversubscription: (an inventory with racks:) gives each rack's
 * uplink a rate: the spec's, or the sum of the rack's hosts' caps at the point (slow:
 * factors included) over the ratio. On the emulated cluster (the inventory's
 * uplink_ifaces) both ends of each rack's uplink, on this machine, are capped at that
 * rate, so cross-rack flows truly share it, with an htb leaf per host of the rack (its
 * data address as source on the out end, as destination on the in end) sharing 99% of
 * the rate equally and a default leaf 1% (netem/shares.h): each host an equal part when
 * all send, one host alone all of it; the caps are owned by this process and
 * restored after every point, at the sweep's start (what a killed sweep left), and by
 * 'gcbench-netem restore-all' once this process is gone. On real hosts (racks without
 * uplink_ifaces) nobody can shape the switch: each host's egress gets its cap and, for
 * the other racks' hosts, a class at its fair share of its rack's uplink (an
 * approximation, said so in the output and stored as "how":"approximation").
 */
#ifndef GC_RUN_RACKS_H
#define GC_RUN_RACKS_H

#include "sweep_ctx.h"
#include "placement.h"
#include "model/racks.h"

/* Rack r's (1-based) uplink rate at point pt of spec s (0 when pt has no uplink). */
uint64_t gc_run_rack_uplink_bps(const struct gc_sweep_ctx *c, const struct gc_spec *s,
				const struct gc_point *pt, int r);

/* 1 when point pt's uplink is approximated on each host's egress (racks without
 * emulated uplinks: real hosts), else 0. */
int gc_run_racks_approx(const struct gc_sweep_ctx *c, const struct gc_point *pt);

/* Shape node i for point pt under the approximation (gc_run_racks_approx): its cap, and
 * its traffic to the other racks' hosts (their data addresses) in a class at its fair
 * share of its rack's uplink, the uplink's rate over the rack's hosts (at most its cap):
 * gc_node_classes. A rack alone (no other rack's host known): the cap only. */
gc_rc gc_run_racks_node_shape(struct gc_sweep_ctx *c, const struct gc_spec *s,
			      const struct gc_point *pt, size_t i, gc_err *e);

/* The ring of point p as placed (mpirun's --map-by node: ranks dealt over the used
 * hosts in turn) over the racks: model/racks.h's answer. Zeros without an uplink. */
void gc_run_racks_ring(const struct gc_sweep_ctx *c, const struct gc_exec_point *p,
		       const struct gc_placement *pl, struct gc_racks_ring *out);

/* net (a JSON object, owned) with "uplink":{...} added for a point with an uplink
 * (rack_bps per rack, ratio or 0, ring_bps when the ring crosses racks, crossings,
 * max_flows, how: "emulated" or "approximation"); net as it was otherwise; NULL when
 * out of memory. */
char *gc_run_racks_json(const struct gc_sweep_ctx *c, const struct gc_exec_point *p,
			const struct gc_placement *pl, char *net);

/* Cap every rack's emulated uplink for point p (nothing without an uplink, or under
 * the approximation, which shapes with the nodes: gc_run_racks_node_shape).
 * GC_E_* from netem/shape.h naming the interface. */
gc_rc gc_run_racks_shape(struct gc_sweep_ctx *c, const struct gc_exec_point *p, gc_err *e);

/* Restore every rack uplink this inventory names (idempotent; failures warned). */
void gc_run_racks_unshape(struct gc_sweep_ctx *c);

#endif

/* orchestrator/run/run_point.h: one point of a sweep, from its label and placement to
 * its run in the database (run_point.c): shape, calibrate, launch, fetch, ingest,
 * unshape.
 */
#ifndef GC_RUN_POINT_H
#define GC_RUN_POINT_H

#include "sweep_ctx.h"

/* Fill x for point p of spec. */
void gc_exec_point_init(struct gc_exec_point *x, const struct gc_spec *spec,
			const struct gc_point *p);

/* Place every point's ranks on the nodes (orchestrator/run/placement.h) and fill each
 * point's placement text; GC_E_INVAL names the first point that cannot be placed, or
 * whose ranks all sit on one host under a cap or latency without allow_single_node. */
gc_rc gc_run_place_points(const struct gc_sweep_ctx *c, struct gc_exec_point *pts, size_t n,
			  gc_err *e);

/* Run one point: returns GC_OK when it ran (ok or failed: the status is in the
 * database), GC_E_INTERRUPTED when a signal stopped it, another code when the
 * database itself failed. *ok tells whether the run succeeded. */
gc_rc gc_point_exec(struct gc_sweep_ctx *c, const struct gc_exec_point *p, int *ok, gc_err *e);

#endif

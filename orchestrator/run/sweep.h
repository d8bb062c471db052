/* orchestrator/run/sweep.h: a spec expanded into points, their stable keys, and resume.
 *
 * Order (outermost first): repeat, bandwidth, uplink, slow, latency, world_size, backend, model,
 * batch, compute_scale, method variant, stack. Methods (and a method's stacks) are
 * innermost so that every method of a point runs back to back under the same
 * conditions (and the cap changes least often); repeats are outermost so that they are spread over the sweep's time. A zip
 * group is one dimension, placed where its outermost axis would be. Exclude entries
 * drop matching points.
 *
 * The point key is a canonical text, stable across gcbench versions (a change would
 * need a schema migration of runs.point_key):
 *   workload=W;model=M;method=X;params=P;bw=BITS;lat=S;world=N;batch=B;backend=K;
 *   scale=F;repeat=R[;stack=S][;slow=H:F,...][;uplink=U][;bg=flows:N...]  (one line,
 *                               no spaces; values as gc_spec_axis_text; ;stack= only
 *                               for a spec with stacks:, ;slow= only for a point whose
 *                               value of slow: names hosts (not {}),
 *                               ;uplink= (BITS or RATIO:1) only for one with uplink: or
 *                               oversubscription:, ;bg= (spec_bg_text) only for one with
 *                               background flows)
 * Resume keeps the points whose key has no 'ok' run among the sweeps with the same
 * spec hash (gc_db_done_keys).
 */
#ifndef GC_SWEEP_H
#define GC_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "db/db.h"
#include "orchestrator/spec/spec.h"

#define GC_POINT_KEY_MAX 2700

struct gc_point {
	size_t index;                          /* position in the full expansion */
	size_t ax[GC_AX__COUNT];               /* value index per axis (METHOD = PARAMS) */
	int repeat;
	/* views into the spec (valid while the spec lives) */
	const char *model;
	const struct gc_spec_method *method;
	uint64_t bw_bps;                       /* 0 = unlimited; a trace: its mean */
	const struct gc_spec_trace *trace;    /* bandwidth: trace:FILE; else NULL */
	double latency_s;
	int world_size, batch;
	const char *backend;
	double compute_scale;
	const struct gc_spec_stack *stack;     /* workload: command: the program; else NULL */
	const struct gc_spec_uplink *uplink;   /* uplink:/oversubscription:; else NULL */
	const struct gc_spec_slowset *slow;    /* slow:'s value ({}: n 0); NULL without slow: */
	char key[GC_POINT_KEY_MAX];
};

struct gc_sweep {
	struct gc_point *pts;
	size_t n;               /* points to run */
	size_t n_product;       /* before exclude */
	size_t n_excluded;
	size_t n_done;          /* removed by gc_sweep_resume */
};

/* Expand spec into out (caller owns: gc_sweep_release). Fails with GC_E_INVAL when
 * the product exceeds GC_SPEC_MAX_POINTS, GC_E_NOMEM. */
gc_rc gc_sweep_expand(const struct gc_spec *spec, struct gc_sweep *out, gc_err *e);
void gc_sweep_release(struct gc_sweep *sw);     /* accepts NULL */

/* Remove the points whose key is in done (sorted; gc_db_done_keys), keeping order.
 * Returns the number removed (also added to sw->n_done). */
size_t gc_sweep_resume(struct gc_sweep *sw, const struct gc_strlist *done);

/* Fill a gc_db_run for point p of spec (strings point into spec and p: keep them alive
 * for the gc_db_run_begin call). nodes: hosts the ranks run on. */
void gc_point_to_run(const struct gc_spec *spec, const struct gc_point *p, int64_t sweep_id,
		     int nodes, int64_t env_id, struct gc_db_run *r);

#endif

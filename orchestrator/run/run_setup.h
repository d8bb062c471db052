/* orchestrator/run/run_setup.h: from an inventory to the nodes a sweep runs on.
 *
 * `local: N` (or no inventory) brings up (or reuses) the emulated cluster "gcb" of N
 * nodes and uses the inventory it writes; any other inventory lists real hosts. The
 * nodes get this build's binary directory (local cluster) or the inventory's bin_dir
 * (default /usr/local/bin; `gcbench run` then provisions the build and sets each
 * node's own), a private ControlMaster folder (closed and removed by
 * gc_run_release_nodes), and the work directories where the workers
 * write their records (on the nodes: unique to this controller and sweep).
 */
#ifndef GC_RUN_SETUP_H
#define GC_RUN_SETUP_H

#include <stddef.h>

#include "orchestrator/spec/inventory.h"
#include "sweep_ctx.h"

/* Fill c->nodes, c->n_nodes, c->oob_cidr, c->local_work, c->remote_work, and the
 * path of the sweep lock for these nodes, from inv: the inventory already parsed
 * (gc_run_plan_load's; consumed: released here, on every path), or NULL to load
 * o->inventory_path (`local: 4` without one). */
gc_rc gc_run_setup_nodes(const struct gc_run_opts *o, struct gc_sweep_ctx *c,
			 struct gc_inventory *inv, char *lockpath, size_t lockpath_len, gc_err *e);
void gc_run_release_nodes(struct gc_sweep_ctx *c);

/* When some point of pts asks for a nonzero latency: every node's kernel must have
 * the netem qdisc (gc_node_check_netem), checked before anything is shaped. Else
 * GC_E_UNSUPPORTED naming every node without it and sch_netem (or the first node that
 * cannot tell, with its error). GC_OK at once when every latency is 0. */
gc_rc gc_run_check_latency(struct gc_sweep_ctx *c, const struct gc_exec_point *pts, size_t n,
			   gc_err *e);

/* Learn every node's data-interface address (orchestrator/remote/subnet.h) and set
 * c->data_cidr to their common subnet; refuses, with a table of host, interface and
 * address on stderr, when they are not on one. */
gc_rc gc_run_data_subnet(struct gc_sweep_ctx *c, gc_err *e);

#endif

/* orchestrator/run/run_provision.h: `gcbench run`'s provisioning step, the sweep's
 * side of orchestrator/remote/provision.h: which csv: models and spec files go with the
 * build, and each point's workload rewritten to name the nodes' copy. */
#ifndef GC_RUN_PROVISION_H
#define GC_RUN_PROVISION_H

#include <stddef.h>

#include "orchestrator/remote/nodes.h"
#include "result.h"

/* The first step of `gcbench run`: gc_provision_nodes with this program's directory
 * and the points' csv: models (read on the controller, relative to the spec's folder
 * unless absolute; each point's workload then names the node's copy), then
 * gc_node_check of every node (may the login shape?), so that a sweep stops before
 * touching anything; nothing when o->no_provision or o->bin_dir (binaries and files
 * managed by hand). The spec's files: (workload: command) go with the build, into
 * files/ beside the binaries. */
struct gc_run_opts;
struct gc_exec_point;
gc_rc gc_provision_for_run(const struct gc_run_opts *o, struct gc_exec_point *pts, size_t npts,
			   gc_node *nodes, size_t n, gc_err *e);

#endif

/* orchestrator/run/validate.h: what `gcbench run` checks before it touches a host.
 *
 * `gcbench run`, `gcbench run --dry-run` and `gcbench schedule install` run the same
 * checks, without ssh, without bringing a local cluster up and without creating a file
 * or a directory; a sweep that fails them stops before anything is shaped, copied or
 * written:
 *   - the spec parses and expands to at least one point (an exclude that drops every
 *     point is refused), no two points share a key;
 *   - every `csv:` model is a readable file (relative to the spec's folder);
 *   - the inventory parses; its ssh_config and every host's identity are readable
 *     files; `backend: nccl` has a host that gives the sweep GPUs (`gpus:`; a
 *     `local: N` inventory is not checked: its GPUs are this machine's);
 *   - the database path is a SQLite file, or a new file in a folder that exists (a
 *     directory or another kind of file is refused).
 * Problems in a file are printed to stderr as FILE:LINE:COL messages, all at once.
 */
#ifndef GC_RUN_VALIDATE_H
#define GC_RUN_VALIDATE_H

#include <stddef.h>

#include "orchestrator/spec/inventory.h"
#include "result.h"
#include "run_opts.h"
#include "sweep.h"

/* A sweep's inputs, each file read once and handed on: from validation to the hosts'
 * setup (gc_run_setup_nodes takes inv) to the run. The points point into the spec (its
 * traces are held inline): use a plan where it was loaded, never a copy of it. */
struct gc_run_plan {
	struct gc_spec spec;
	struct gc_sweep sw;          /* spec's points */
	struct gc_inventory inv;     /* o->inventory_path parsed; `local: 4` without one */
};

/* Load o->spec_path and o->inventory_path, expand the spec and check it all against
 * the database path (problems printed). GC_OK with p filled (release it with
 * gc_run_plan_release); else GC_E_INVAL (bad input: exit 2) with every problem printed
 * and a summary in e, GC_E_PERM when the only problem is a database this user cannot
 * read or write (an environment error), GC_E_NOMEM; p is then released. */
gc_rc gc_run_plan_load(const struct gc_run_opts *o, struct gc_run_plan *p, gc_err *e);
void gc_run_plan_release(struct gc_run_plan *p);

/* gc_run_plan_load, the plan released; *points gets the number of points (may be
 * NULL). For `gcbench schedule install`. */
gc_rc gc_run_check(const struct gc_run_opts *o, size_t *points, gc_err *e);

/* Load and expand a spec, printing its FILE:LINE:COL problems to stderr. */
gc_rc gc_run_load_spec(const char *path, struct gc_spec *spec, struct gc_sweep *sw, gc_err *e);

#endif

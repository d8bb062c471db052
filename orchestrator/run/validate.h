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

#include "result.h"
#include "run_opts.h"
#include "sweep.h"

/* Check spec (parsed from o->spec_path) and its expansion sw against o's inventory and
 * database. GC_OK, or GC_E_INVAL (bad input: exit 2) with every problem printed and a
 * summary in e; GC_E_PERM when the only problem is a database this user cannot
 * read or write (an environment error). */
gc_rc gc_run_validate(const struct gc_run_opts *o, const struct gc_spec *spec,
		      const struct gc_sweep *sw, gc_err *e);

/* Load o->spec_path, expand it and gc_run_validate it (problems printed); *points gets
 * the number of points (may be NULL). For `gcbench schedule install`. */
gc_rc gc_run_check(const struct gc_run_opts *o, size_t *points, gc_err *e);

/* Load and expand a spec, printing its FILE:LINE:COL problems to stderr. */
gc_rc gc_run_load_spec(const char *path, struct gc_spec *spec, struct gc_sweep *sw, gc_err *e);

#endif

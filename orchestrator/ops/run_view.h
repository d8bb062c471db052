/* orchestrator/ops/run_view.h: how the CLI's tables show a run: the width they keep
 * within, a run's params in brief, its method with its stack. The end-of-sweep summary
 * (orchestrator/run/run_summary.h), regress, status and history all show runs so.
 */
#ifndef GC_RUN_VIEW_H
#define GC_RUN_VIEW_H

#include <stddef.h>

/* The columns a table of runs keeps within (params wrap at commas). */
#define GC_SUMMARY_WIDTH 100

/* The params of a run as the summary shows them: for a workload gcbench's worker runs
 * (replay, train; "replay:...", "train:..." in a worker's record file) only the key=value
 * items that differ from the method's defaults ("defaults" if none); for any other
 * (command, a record file's "pytorch", NULL) all of them, since its method is only a
 * label that may share a built-in method's name. "-" for no params. out is n bytes,
 * cut at a whole item. */
void gc_params_brief(const char *workload, const char *method, const char *params, char *out,
		     size_t n);

/* A run's method as tables show it: "STACK/METHOD" for a run of a spec with stacks:
 * (runs.stack not empty), else the method. Returns out (n bytes) or method. */
const char *gc_stack_method(const char *stack, const char *method, char *out, size_t n);

#endif

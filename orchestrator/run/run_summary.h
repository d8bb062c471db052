/* orchestrator/run/run_summary.h: the speedup table `gcbench run` prints after a sweep
 * (and `gcbench status` for a sweep), as text or JSON. How each run is shown (its params
 * in brief, stack/method, the width) is orchestrator/ops/run_view.h's.
 */
#ifndef GC_RUN_SUMMARY_H
#define GC_RUN_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "db/db.h"
#include "orchestrator/ops/run_view.h"

/* The end-of-sweep table: every method's speedup over the baseline at each point of
 * sweep_id, columns sized to their content and the whole kept within GC_SUMMARY_WIDTH
 * columns (params wrap at commas). Returns the number of rows, -1 on error (warned). */
int gc_run_summary_print(struct gc_db *db, int64_t sweep_id, FILE *f);

/* The same rows as one JSON object on stdout: {"sweep": ID, "rows": [{"model", ...}]}
 * (the table's columns; bandwidth as the one cap spelling). Rows, or -1 (warned). */
int gc_run_summary_json(struct gc_db *db, int64_t sweep_id);

#endif

/* orchestrator/run/run_summary.c: the speedup table `gcbench run` prints after a sweep.
 * Column widths come from the content; the params column shows only what differs from
 * the method's defaults (a command's in full) and wraps at commas so the table fits
 * GC_SUMMARY_WIDTH. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "db/db.h"
#include "db/q_summary.h"
#include "log.h"
#include "run_summary.h"
#include "orchestrator/ops/table.h"
#include "strutil.h"

#define NCOL 10           /* at most: 8, and 2 more when the sweep has a target */
#define PCOL 2            /* the params column */

static const char *const head[NCOL] = { "model", "method", "params", "bandwidth", "world",
					"iter_ms", "base_ms", "speedup", "to_target",
					"tta_speedup" };

/* gc_db_sweep_summary callback: one row of the table, params shortened */
static int add_row(const struct gc_db_summary_row *w, void *arg)
{
	gc_table *t = arg;
	char brief[256], world[16], bw[160], method[100];
	const char *row[NCOL] = { w->model, gc_stack_method(w->stack, w->method, method,
							    sizeof method), brief, bw, world, w->iter_ms,
				  w->base_ms, w->speedup, w->to_target, w->tta_speedup };
	uint64_t bps = 0;

	/* the one way of printing a cap: 100mbit, 10gbit, unlimited */
	if (w->bandwidth && gc_parse_u64(w->bandwidth, &bps))
		bps = 0;
	gc_bw_format(bps, bw, sizeof bw);
	if (w->network && strcmp(w->network, "uniform")) {   /* "200mbit, slow n2:0.5" */
		size_t l = strlen(bw);
		snprintf(bw + l, sizeof bw - l, ", %.120s", w->network);
	}
	gc_params_brief(w->workload, w->method ? w->method : "", w->params, brief, sizeof(brief));
	snprintf(world, sizeof(world), "%d", w->world_size);
	return gc_table_add(t, row) ? 1 : 0;
}

/* The sweep's target as "accuracy 0.95" (or "loss 0.3"), "" without one. */
static void sweep_target(struct gc_db *db, int64_t sweep_id, char *out, size_t n)
{
	char metric[32];
	double value;

	out[0] = '\0';
	if (!gc_db_sweep_target_get(db, sweep_id, metric, sizeof(metric), &value, NULL) &&
	    *metric)
		snprintf(out, n, "%s %g", metric, value);
}

/* The sweep's rows into *t, its target into target (n bytes, "" without one); -1, warned
 * and with *t released, when they cannot be read. */
static int summary_table(struct gc_db *db, int64_t sweep_id, char *target, size_t n,
			 gc_table *t)
{
	gc_err e;

	sweep_target(db, sweep_id, target, n);
	gc_table_init(t, *target ? NCOL : 8, head, "lllrrrrrrr", PCOL);
	if (gc_db_sweep_summary(db, sweep_id, *target != '\0', add_row, t, &e) || t->oom) {
		gc_warn("cannot print the summary: %s", t->oom ? "out of memory" : e.msg);
		gc_table_release(t);
		return -1;
	}
	return 0;
}

int gc_run_summary_print(struct gc_db *db, int64_t sweep_id, FILE *f)
{
	char target[64], place[1024];
	gc_table t;
	gc_err e;
	int n;

	if (summary_table(db, sweep_id, target, sizeof(target), &t))
		return -1;
	fprintf(f, "\n");
	gc_table_print(&t, f, GC_SUMMARY_WIDTH);
	if (!t.n)
		fprintf(f, "(no point finished with its baseline)\n");
	fprintf(f, "\nparams: only those that differ from the method's defaults "
		"(docs/kernels.md), all for a\ncommand; runs.params has all\n"
		"speedup = baseline median iteration time / method's (> 1: the method is faster)\n");
	if (!gc_db_sweep_placements(db, sweep_id, place, sizeof(place), &e) && *place)
		fprintf(f, "placement: %s\n", place);
	if (*target)
		fprintf(f, "to_target = iterations until the validation %s was first reached "
			"(never: within the run)\ntta_speedup = baseline's training seconds to the "
			"target / method's (docs/accuracy.md)\n", target);
	n = (int)t.n;
	gc_table_release(&t);
	return n;
}

int gc_run_summary_json(struct gc_db *db, int64_t sweep_id)
{
	char target[64];
	gc_buf b;
	gc_json j;
	gc_table t;
	int n;

	if (summary_table(db, sweep_id, target, sizeof(target), &t))
		return -1;
	gc_buf_init(&b);
	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_int_field(&j, "sweep", sweep_id);
	gc_json_str_field(&j, "target", *target ? target : NULL);
	gc_json_key(&j, "rows");
	gc_table_json(&t, &j);
	gc_json_obj_close(&j);
	n = gc_json_finish(&j) ? -1 : (int)t.n;
	if (n >= 0)
		printf("%s\n", gc_buf_str(&b));
	else
		gc_warn("cannot print the summary as JSON: out of memory");
	gc_buf_release(&b);
	gc_table_release(&t);
	return n;
}

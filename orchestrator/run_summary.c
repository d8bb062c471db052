/* orchestrator/run_summary.c: the speedup table `gcbench run` prints after a sweep.
 * Column widths come from the content; the params column shows only what differs from
 * the method's defaults and wraps at commas so the table fits GC_SUMMARY_WIDTH. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db/db.h"
#include "kernels/compress.h"
#include "log.h"
#include "orchestrator/run.h"
#include "orchestrator/table.h"
#include "strutil.h"

#define NCOL 10           /* at most: 8, and 2 more when the sweep has a target */
#define PCOL 2            /* the params column */

static const char *const head[NCOL] = { "model", "method", "params", "bandwidth", "world",
					"iter_ms", "base_ms", "speedup", "to_target",
					"tta_speedup" };

/* 1 if "k=v" (len bytes at tok) is one of the comma-separated items of list */
static int has_item(const char *list, const char *tok, size_t len)
{
	for (const char *p = list; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == len && !strncmp(p, tok, len))
			return 1;
		p += n + (end ? 1 : 0);
	}
	return 0;
}

void gc_params_brief(const char *method, const char *params, char *out, size_t n)
{
	gc_method m;
	gc_params d;
	char def[256];
	size_t o = 0;

	if (!n)
		return;
	out[0] = '\0';
	if (!params || !*params || gc_method_parse(method, &m)) {
		gc_strlcpy(out, params && *params ? params : "-", n);
		return;
	}
	gc_params_default(&d, m);
	gc_params_format(&d, def, sizeof(def));
	for (const char *p = params; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (!has_item(def, p, len) && o + len + 2 <= n) {
			if (o)
				out[o++] = ',';
			memcpy(out + o, p, len);
			o += len;
			out[o] = '\0';
		}
		p += len + (end ? 1 : 0);
	}
	if (!o)
		gc_strlcpy(out, "defaults", n);
}

/* sqlite3_exec callback: one row of the speedup view, params shortened */
static int add_row(void *arg, int ncol, char **v, char **col)
{
	gc_table *t = arg;
	char brief[256];
	const char *row[NCOL];

	(void)col;
	if (ncol != t->ncol)
		return 1;
	gc_params_brief(v[1] ? v[1] : "", v[2], brief, sizeof(brief));
	for (int i = 0; i < t->ncol; i++)
		row[i] = i == PCOL ? brief : v[i];
	return gc_table_add(t, row) ? 1 : 0;
}

/* The sweep's target as "accuracy 0.95" (or "loss 0.3"), "" without one. */
static void sweep_target(struct gc_db *db, int64_t sweep_id, char *out, size_t n)
{
	sqlite3_stmt *st = NULL;
	out[0] = '\0';
	if (sqlite3_prepare_v2(gc_db_handle(db), "SELECT target_metric, target_value FROM sweeps "
			       "WHERE id = ? AND target_metric <> ''", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, sweep_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(out, n, "%s %g", (const char *)sqlite3_column_text(st, 0),
			 sqlite3_column_double(st, 1));
	sqlite3_finalize(st);
}

/* The speedup rows of the sweep; with a target, joined to time_to_target_speedup for
 * the iterations to it ("never" when a repeat missed it) and the time-to-target speedup. */
static void summary_sql(char *sql, size_t n, int64_t sweep_id, int target)
{
	snprintf(sql, n,
		 "SELECT s.model, s.method, s.params, CASE WHEN s.bw_cap_bps = 0 THEN 'unlimited' ELSE "
		 "printf('%%.3gGbit', s.bw_cap_bps / 1e9) END, s.world_size, printf('%%.1f', s.t_iter * 1e3), "
		 "printf('%%.1f', s.t_iter_baseline * 1e3), printf('%%.2fx', s.speedup)%s FROM speedup s %s"
		 "WHERE (s.model, s.method, s.params, s.bw_cap_bps, s.world_size, s.batch) IN (SELECT model, "
		 "method, params, bw_cap_bps, world_size, batch FROM runs WHERE sweep_id = %lld) "
		 "ORDER BY s.model, s.bw_cap_bps, s.method, s.params",
		 target ? ", CASE WHEN t.missed > 0 THEN 'never' ELSE printf('%.0f it', "
			  "t.iters_to_target) END, CASE WHEN t.tta_speedup IS NOT NULL THEN "
			  "printf('%.2fx', t.tta_speedup) END" : "",
		 target ? "LEFT JOIN time_to_target_speedup t ON t.workload = s.workload AND "
			  "t.model = s.model AND t.method = s.method AND t.params = s.params AND "
			  "t.bw_cap_bps = s.bw_cap_bps AND t.latency_s = s.latency_s AND "
			  "t.world_size = s.world_size AND t.batch = s.batch AND t.backend = s.backend "
			  "AND t.compute_scale = s.compute_scale AND t.env_id IS s.env_id " : "",
		 (long long)sweep_id);
}

int gc_run_summary_print(struct gc_db *db, int64_t sweep_id, FILE *f)
{
	char sql[2048], target[64], *err = NULL;
	gc_table t;
	int n;

	sweep_target(db, sweep_id, target, sizeof(target));
	gc_table_init(&t, *target ? NCOL : 8, head, "lllrrrrrrr", PCOL);
	summary_sql(sql, sizeof(sql), sweep_id, *target != '\0');
	if (sqlite3_exec(gc_db_handle(db), sql, add_row, &t, &err) != SQLITE_OK) {
		gc_warn("cannot print the summary: %s", t.oom ? "out of memory" : err ? err : "?");
		sqlite3_free(err);
		gc_table_release(&t);
		return -1;
	}
	fprintf(f, "\n");
	gc_table_print(&t, f, GC_SUMMARY_WIDTH);
	if (!t.n)
		fprintf(f, "(no point finished with its baseline)\n");
	fprintf(f, "\nparams: only those that differ from the method's defaults "
		"(docs/kernels.md); runs.params has all\n"
		"speedup = baseline median iteration time / method's (> 1: the method is faster)\n");
	if (*target)
		fprintf(f, "to_target = iterations until the validation %s was first reached "
			"(never: within the run)\ntta_speedup = baseline's training seconds to the "
			"target / method's (docs/accuracy.md)\n", target);
	n = (int)t.n;
	gc_table_release(&t);
	return n;
}

/* db/q_summary.c: the queries of the summary after a sweep (q_summary.h). */
#include "q_summary.h"
#include "db_internal.h"

#include <stdio.h>

#include "strutil.h"

gc_rc gc_db_sweep_target_get(gc_db *db, int64_t sweep_id, char *metric, size_t n,
			     double *value, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	int r;

	if (n)
		metric[0] = '\0';
	*value = 0;
	if (sqlite3_prepare_v2(db->h, "SELECT target_metric, target_value FROM sweeps "
			       "WHERE id = ? AND target_metric <> ''", -1, &st, NULL) != SQLITE_OK)
		return gc_fail(e, GC_E_DB, "%s", sqlite3_errmsg(db->h));
	sqlite3_bind_int64(st, 1, sweep_id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		gc_strlcpy(metric, gc_db_col_text(st, 0), n);
		*value = sqlite3_column_double(st, 1);
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return gc_fail(e, GC_E_DB, "%s", sqlite3_errmsg(db->h));
	return GC_OK;
}

/* The speedup rows of the sweep; with a target, joined to time_to_target_speedup for
 * the iterations to it ("never" when a repeat missed it) and the time-to-target speedup. */
static void summary_sql(char *sql, size_t n, int64_t sweep_id, int target)
{
	snprintf(sql, n,
		 "SELECT s.model, s.method, s.params, CASE WHEN s.bw_cap_bps = 0 THEN 'unlimited' ELSE "
		 "printf('%%lld', s.bw_cap_bps) END, s.world_size, printf('%%.1f', s.t_iter * 1e3), "
		 "printf('%%.1f', s.t_iter_baseline * 1e3), printf('%%.2fx', s.speedup), s.stack, "
		 "s.workload, s.network%s "
		 "FROM speedup s %sWHERE s.baseline = s.sweep_baseline AND (s.model, s.method, s.params, s.bw_cap_bps, s.world_size, "
		 "s.batch, s.stack) IN (SELECT model, method, params, bw_cap_bps, world_size, batch, "
		 "stack FROM runs WHERE sweep_id = %lld) "
		 "ORDER BY s.model, s.bw_cap_bps, s.network <> 'uniform', s.network, s.method, "
		 "s.params, s.stack",
		 target ? ", CASE WHEN t.missed > 0 THEN 'never' ELSE printf('%.0f it', "
			  "t.iters_to_target) END, CASE WHEN t.tta_speedup IS NOT NULL THEN "
			  "printf('%.2fx', t.tta_speedup) END" : "",
		 target ? "LEFT JOIN time_to_target_speedup t ON t.workload = s.workload AND "
			  "t.model = s.model AND t.method = s.method AND t.params = s.params AND "
			  "t.bw_cap_bps = s.bw_cap_bps AND t.latency_s = s.latency_s AND "
			  "t.world_size = s.world_size AND t.batch = s.batch AND t.backend = s.backend "
			  "AND t.compute_scale = s.compute_scale AND t.env_id IS s.env_id "
			  "AND t.network = s.network " : "",
		 (long long)sweep_id);
}

static const char *text_or_null(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

static void summary_row(sqlite3_stmt *st, int target, struct gc_db_summary_row *w)
{
	w->model = text_or_null(st, 0);
	w->method = text_or_null(st, 1);
	w->params = text_or_null(st, 2);
	w->bandwidth = text_or_null(st, 3);
	w->world_size = sqlite3_column_int(st, 4);
	w->iter_ms = text_or_null(st, 5);
	w->base_ms = text_or_null(st, 6);
	w->speedup = text_or_null(st, 7);
	w->stack = text_or_null(st, 8);
	w->workload = text_or_null(st, 9);
	w->network = text_or_null(st, 10);
	w->to_target = target ? text_or_null(st, 11) : NULL;
	w->tta_speedup = target ? text_or_null(st, 12) : NULL;
}

gc_rc gc_db_sweep_summary(gc_db *db, int64_t sweep_id, int with_target,
			  int (*fn)(const struct gc_db_summary_row *row, void *arg), void *arg,
			  gc_err *e)
{
	struct gc_db_summary_row w;
	sqlite3_stmt *st = NULL;
	char sql[2048];
	int r;

	summary_sql(sql, sizeof(sql), sweep_id, with_target);
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return gc_fail(e, GC_E_DB, "%s", sqlite3_errmsg(db->h));
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		summary_row(st, with_target, &w);
		if (fn(&w, arg))
			break;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return gc_fail(e, GC_E_DB, "%s", sqlite3_errmsg(db->h));
	return GC_OK;
}

gc_rc gc_db_sweep_placements(gc_db *db, int64_t sweep_id, char *out, size_t n, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	size_t o = 0;
	int r;

	if (n)
		out[0] = '\0';
	if (sqlite3_prepare_v2(db->h, "SELECT DISTINCT backend, world_size, nodes, ranks_per_node, "
			       "placement FROM runs WHERE sweep_id = ? AND ranks_per_node > 0 "
			       "ORDER BY backend, world_size, placement", -1, &st, NULL) != SQLITE_OK)
		return gc_fail(e, GC_E_DB, "%s", sqlite3_errmsg(db->h));
	sqlite3_bind_int64(st, 1, sweep_id);
	while ((r = sqlite3_step(st)) == SQLITE_ROW && o < n) {
		int world = sqlite3_column_int(st, 1), nodes = sqlite3_column_int(st, 2);
		int rpn = sqlite3_column_int(st, 3);
		o += (size_t)snprintf(out + o, n - o, "%sworld %d (%s): %d node%s x %s%d rank%s (%s)",
				      o ? "; " : "", world, gc_db_col_text(st, 0), nodes,
				      nodes == 1 ? "" : "s", rpn * nodes == world ? "" : "up to ", rpn,
				      rpn == 1 ? "" : "s", gc_db_col_text(st, 4));
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return gc_fail(e, GC_E_DB, "%s", sqlite3_errmsg(db->h));
	return GC_OK;
}

/* db/q_history.c: the query of `gcbench history` (q_history.h). */
#include "q_history.h"
#include "db_internal.h"

#include <string.h>

#include "strutil.h"

static void history_row(sqlite3_stmt *st, struct gc_db_history_row *h)
{
	memset(h, 0, sizeof *h);
	h->started = sqlite3_column_double(st, 0);
	h->sweep_id = sqlite3_column_int64(st, 1);
	h->env_id = sqlite3_column_int64(st, 2);
	gc_strlcpy(h->driver, gc_db_col_text(st, 3), sizeof h->driver);
	gc_strlcpy(h->cuda, gc_db_col_text(st, 4), sizeof h->cuda);
	gc_strlcpy(h->nccl, gc_db_col_text(st, 5), sizeof h->nccl);
	gc_strlcpy(h->tag, gc_db_col_text(st, 6), sizeof h->tag);
	gc_strlcpy(h->method, gc_db_col_text(st, 7), sizeof h->method);
	gc_strlcpy(h->params, gc_db_col_text(st, 8), sizeof h->params);
	h->bw_cap_bps = sqlite3_column_int64(st, 9);
	h->world_size = sqlite3_column_int(st, 10);
	h->batch = sqlite3_column_int(st, 11);
	h->repeats = sqlite3_column_int(st, 12);
	h->t_iter = sqlite3_column_double(st, 13);
	h->t_iter_baseline = sqlite3_column_double(st, 14);
	h->speedup = sqlite3_column_double(st, 15);
	gc_strlcpy(h->stack, gc_db_col_text(st, 16), sizeof h->stack);
	gc_strlcpy(h->workload, gc_db_col_text(st, 17), sizeof h->workload);
	gc_strlcpy(h->network, gc_db_col_text(st, 18), sizeof h->network);
}

gc_rc gc_db_history(gc_db *db, const char *model, const char *method, int64_t bw_cap_bps,
		    int (*fn)(const struct gc_db_history_row *row, void *arg), void *arg,
		    gc_err *e)
{
	return gc_db_history_job(db, model, method, bw_cap_bps, NULL, NULL, fn, arg, e);
}

gc_rc gc_db_history_job(gc_db *db, const char *model, const char *method,
			int64_t bw_cap_bps, const char *job, const char *partition,
			int (*fn)(const struct gc_db_history_row *row, void *arg), void *arg,
			gc_err *e)
{
	struct gc_db_history_filter f = { model, method, bw_cap_bps, job, partition, NULL };

	return gc_db_history_filter(db, &f, fn, arg, e);
}

gc_rc gc_db_history_filter(gc_db *db, const struct gc_db_history_filter *f,
			   int (*fn)(const struct gc_db_history_row *row, void *arg), void *arg,
			   gc_err *e)
{
	/* per sweep and point: the method's and the baseline method's mean run median */
	static const char sql[] =
		"WITH pt AS (SELECT sweep_id, env_id, workload, method, params, bw_cap_bps, "
		"latency_s, world_size, batch, backend, compute_scale, baseline, stack, network, "
		"COUNT(*) AS n, "
		"AVG(t_iter_median) AS t FROM run_summary WHERE model = ?1 AND (?4 IS NULL OR "
		"run_id IN (SELECT id FROM runs WHERE slurm_job = ?4)) AND (?5 IS NULL OR run_id "
		"IN (SELECT id FROM runs WHERE slurm_partition = ?5)) GROUP BY sweep_id, "
		"env_id, workload, method, params, bw_cap_bps, latency_s, world_size, batch, "
		"backend, compute_scale, baseline, stack, network) "
		"SELECT s.started, m.sweep_id, coalesce(e.id, 0), coalesce(e.driver, ''), "
		"coalesce(e.cuda, ''), coalesce(e.nccl, ''), coalesce(e.tag, ''), m.method, "
		"m.params, m.bw_cap_bps, m.world_size, m.batch, m.n, m.t, b.t, b.t / m.t, m.stack, "
		"m.workload, m.network "
		"FROM pt m JOIN pt b ON b.sweep_id = m.sweep_id AND b.env_id IS m.env_id AND "
		"b.method = m.baseline AND b.workload = m.workload AND b.bw_cap_bps = m.bw_cap_bps "
		"AND b.latency_s = m.latency_s AND b.world_size = m.world_size AND b.batch = m.batch "
		"AND b.backend = m.backend AND b.compute_scale = m.compute_scale AND b.stack = m.stack "
		"AND b.network = m.network "
		"JOIN sweeps s ON s.id = m.sweep_id LEFT JOIN environments e ON e.id = m.env_id "
		"WHERE m.method = ?2 AND (?3 < 0 OR m.bw_cap_bps = ?3) AND (?6 IS NULL OR "
		"m.network = ?6 OR instr('+' || m.network || '+', '+' || ?6 || '+') > 0 OR "
		"instr('+' || m.network, '+' || ?6 || ' ') > 0 OR "
		"(?6 = 'trace' AND instr('+' || m.network, '+trace:') > 0)) "
		"ORDER BY m.bw_cap_bps, m.network <> 'uniform', m.network, m.world_size, m.batch, "
		"m.params, m.stack, s.started, m.sweep_id";
	struct gc_db_history_row h;
	sqlite3_stmt *st = NULL;
	int r;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL))
		return gc_fail(e, GC_E_DB, "cannot read the runs: %s", sqlite3_errmsg(db->h));
	sqlite3_bind_text(st, 1, f->model, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, f->method, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, f->bw_cap_bps);
	if (f->job)
		sqlite3_bind_text(st, 4, f->job, -1, SQLITE_TRANSIENT);
	if (f->partition)
		sqlite3_bind_text(st, 5, f->partition, -1, SQLITE_TRANSIENT);
	if (f->network)
		sqlite3_bind_text(st, 6, f->network, -1, SQLITE_TRANSIENT);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		history_row(st, &h);
		if (fn(&h, arg))
			break;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return gc_fail(e, GC_E_DB, "cannot read the runs: %s", sqlite3_errmsg(db->h));
	return GC_OK;
}

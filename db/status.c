/* db/status.c: per-run statistics and the queries behind `gcbench status`. */
#include "db.h"
#include "db_internal.h"

#include <string.h>

#include "strutil.h"

gc_rc gc_db_run_stats_refresh(gc_db *db, int64_t run_id, gc_err *e)
{
	/* the median/p95 definitions of docs/database.md, for one run (the PK prefix
	 * run_id makes the scan of its iterations an index range) */
	const char *sql =
		"INSERT OR REPLACE INTO run_stats (run_id, field, n, median, p95) "
		"WITH s AS (SELECT * FROM iterations WHERE run_id = ?1 AND warmup = 0), "
		"vals AS (SELECT 'iter' AS field, t_iter AS v FROM s "
		"UNION ALL SELECT 'forward', t_forward FROM s "
		"UNION ALL SELECT 'backward', t_backward FROM s "
		"UNION ALL SELECT 'encode', t_encode FROM s "
		"UNION ALL SELECT 'decode', t_decode FROM s "
		"UNION ALL SELECT 'comm', t_comm FROM s "
		"UNION ALL SELECT 'exposed', t_exposed FROM s "
		"UNION ALL SELECT 'optimizer', t_optimizer FROM s "
		"UNION ALL SELECT 'bytes_sent', bytes_sent FROM s), "
		"ranked AS (SELECT field, v, ROW_NUMBER() OVER (PARTITION BY field ORDER BY v) "
		"AS rn, COUNT(*) OVER (PARTITION BY field) AS n FROM vals) "
		"SELECT ?1, field, n, AVG(CASE WHEN rn IN ((n + 1) / 2, (n + 2) / 2) THEN v END), "
		"MAX(CASE WHEN rn = (95 * n + 99) / 100 THEN v END) FROM ranked GROUP BY field";
	sqlite3_stmt *st = NULL;
	gc_rc rc = gc_db_prep(db, GC_ST_RUN_STATS, sql, &st, e);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	return gc_db_step_done(db, st, "computing the run's statistics", e);
}

static void col_text(sqlite3_stmt *st, int i, char *dst, size_t n)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	gc_strlcpy(dst, t ? (const char *)t : "", n);
}

static void read_sweep(sqlite3_stmt *st, struct gc_db_sweep_stat *s)
{
	memset(s, 0, sizeof(*s));
	s->id = sqlite3_column_int64(st, 0);
	col_text(st, 1, s->name, sizeof(s->name));
	col_text(st, 2, s->spec_hash, sizeof(s->spec_hash));
	col_text(st, 3, s->status, sizeof(s->status));
	s->started = sqlite3_column_double(st, 4);
	s->finished = sqlite3_column_double(st, 5);
	s->n_ok = sqlite3_column_int(st, 6);
	s->n_failed = sqlite3_column_int(st, 7);
	s->n_timeout = sqlite3_column_int(st, 8);
	s->n_interrupted = sqlite3_column_int(st, 9);
	s->n_running = sqlite3_column_int(st, 10);
}

gc_rc gc_db_sweep_stats(gc_db *db, int limit,
			int (*fn)(const struct gc_db_sweep_stat *s, void *arg), void *arg,
			gc_err *e)
{
	const char *sql =
		"SELECT s.id, s.name, s.spec_hash, s.status, s.started, s.finished, "
		"count(r.id) FILTER (WHERE r.status = 'ok'), "
		"count(r.id) FILTER (WHERE r.status = 'failed'), "
		"count(r.id) FILTER (WHERE r.status = 'timeout'), "
		"count(r.id) FILTER (WHERE r.status = 'interrupted'), "
		"count(r.id) FILTER (WHERE r.status = 'running') "
		"FROM sweeps s LEFT JOIN runs r ON r.sweep_id = s.id "
		"GROUP BY s.id ORDER BY s.started DESC, s.id DESC LIMIT ?";
	struct gc_db_sweep_stat s;
	sqlite3_stmt *st = NULL;
	int r;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return gc_db_fail(db, e, "listing sweeps");
	sqlite3_bind_int(st, 1, limit);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		read_sweep(st, &s);
		if (fn(&s, arg))
			break;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return gc_db_fail(db, e, "listing sweeps");
	return GC_OK;
}

gc_rc gc_db_latest_runs(gc_db *db, int limit,
			int (*fn)(const struct gc_db_run_stat *r, void *arg), void *arg,
			gc_err *e)
{
	const char *sql =
		"SELECT r.id, r.sweep_id, r.point_key, r.status, r.error, r.started, "
		"coalesce(r.finished, 0), (SELECT median FROM run_stats m WHERE m.run_id = "
		"r.id AND m.field = 'iter' AND r.status = 'ok'), r.model, r.method, r.params, "
		"r.bw_cap_bps, r.world_size, r.batch, r.stack, r.workload, "
		"(SELECT overhead_s FROM run_overhead o WHERE o.run_id = r.id) FROM runs r "
		"ORDER BY r.started DESC, r.id DESC LIMIT ?";
	struct gc_db_run_stat x;
	sqlite3_stmt *st = NULL;
	int r;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return gc_db_fail(db, e, "listing runs");
	sqlite3_bind_int(st, 1, limit);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&x, 0, sizeof(x));
		x.id = sqlite3_column_int64(st, 0);
		x.sweep_id = sqlite3_column_int64(st, 1);
		col_text(st, 2, x.point_key, sizeof(x.point_key));
		col_text(st, 3, x.status, sizeof(x.status));
		col_text(st, 4, x.error, sizeof(x.error));
		x.started = sqlite3_column_double(st, 5);
		x.finished = sqlite3_column_double(st, 6);
		x.t_iter_median = sqlite3_column_type(st, 7) == SQLITE_NULL ? -1 :
				  sqlite3_column_double(st, 7);
		col_text(st, 8, x.model, sizeof(x.model));
		col_text(st, 9, x.method, sizeof(x.method));
		col_text(st, 10, x.params, sizeof(x.params));
		x.bw_cap_bps = sqlite3_column_int64(st, 11);
		x.world_size = sqlite3_column_int(st, 12);
		x.batch = sqlite3_column_int(st, 13);
		col_text(st, 14, x.stack, sizeof(x.stack));
		col_text(st, 15, x.workload, sizeof(x.workload));
		x.overhead_s = sqlite3_column_type(st, 16) == SQLITE_NULL ? -1 :
			       sqlite3_column_double(st, 16);
		if (fn(&x, arg))
			break;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return gc_db_fail(db, e, "listing runs");
	return GC_OK;
}

static double col_mean(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_double(st, i);
}

gc_rc gc_db_sweep_overhead(gc_db *db, int64_t sweep_id, struct gc_db_overhead *out,
			   gc_err *e)
{
	const char *sql =
		"SELECT count(*), avg(wall_s), avg(iter_s), avg(overhead_s), avg(setup_s), "
		"avg(reap_s), avg(prepare_s), avg(shape_s), avg(calibrate_s), avg(ranks_s), "
		"avg(collect_s), avg(ingest_s), avg(cleanup_s), avg(record_s) "
		"FROM run_overhead WHERE sweep_id = ?";
	sqlite3_stmt *st = NULL;
	int r, i;

	memset(out, 0, sizeof(*out));
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return gc_db_fail(db, e, "reading the sweep's overhead");
	sqlite3_bind_int64(st, 1, sweep_id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		out->n = sqlite3_column_int(st, 0);
		out->wall_s = col_mean(st, 1);
		out->iter_s = col_mean(st, 2);
		out->overhead_s = col_mean(st, 3);
		out->setup_s = col_mean(st, 4);
		for (i = 0; i < GC_DB_NPHASES; i++)
			out->phase_s[i] = col_mean(st, 5 + i);
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW)
		return gc_db_fail(db, e, "reading the sweep's overhead");
	return GC_OK;
}

/* db/q_report.c: the queries of `gcbench report` (q_report.h). */
#include "q_report.h"
#include "db_internal.h"

#include <math.h>
#include <string.h>

/* SELECT count(*) ... into *n (0 when it fails). */
static gc_rc count(gc_db *db, const char *sql, int64_t *n, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	int r = SQLITE_ERROR;

	*n = 0;
	if (!sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) &&
	    (r = sqlite3_step(st)) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return r == SQLITE_ROW ? GC_OK : gc_db_fail(db, e, "counting");
}

gc_rc gc_db_counts(gc_db *db, struct gc_db_counts *c, gc_err *e)
{
	gc_rc r1 = count(db, "SELECT count(*) FROM sweeps", &c->sweeps, e);
	gc_rc r2 = count(db, "SELECT count(*) FROM runs WHERE status = 'ok'", &c->runs_ok,
			 r1 ? NULL : e);
	gc_rc r3 = count(db, "SELECT count(*) FROM runs WHERE status <> 'ok'", &c->runs_not_ok,
			 r1 || r2 ? NULL : e);
	gc_rc r4 = count(db, "SELECT count(*) FROM predictions", &c->predictions,
			 r1 || r2 || r3 ? NULL : e);

	return r1 ? r1 : r2 ? r2 : r3 ? r3 : r4;
}

/* Run sql whose columns are model, method, params, world_size, bw_cap_bps, then nv
 * numbers, then (when sql has it) the network; fn per row. what names the query in an
 * error. */
static gc_rc point_rows(gc_db *db, const char *sql, size_t nv, const char *what,
			gc_db_point_fn fn, void *arg, gc_err *e)
{
	struct gc_db_point_row w;
	sqlite3_stmt *st = NULL;
	int r;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL))
		return gc_db_fail(db, e, what);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&w, 0, sizeof w);
		w.model = gc_db_col_text(st, 0);
		w.method = gc_db_col_text(st, 1);
		w.params = gc_db_col_text(st, 2);
		w.world_size = sqlite3_column_int(st, 3);
		w.bw_cap_bps = sqlite3_column_int64(st, 4);
		for (w.nv = 0; w.nv < nv && w.nv < 8; w.nv++)
			w.v[w.nv] = gc_db_col_double(st, 5 + (int)w.nv, NAN);
		w.network = sqlite3_column_count(st) > 5 + (int)nv ?
			    gc_db_col_text(st, 5 + (int)nv) : "";
		if (fn(&w, arg))
			break;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return gc_db_fail(db, e, what);
	return GC_OK;
}

/* A run's method as the report shows it: "STACK/METHOD" for a spec with stacks: */
#define SMETHOD(t) "CASE WHEN " t "stack = '' THEN " t "method ELSE " t "stack || '/' || " \
	t "method END"

gc_rc gc_db_report_speedup(gc_db *db, gc_db_point_fn fn, void *arg, gc_err *e)
{
	static const char sql[] =
		"SELECT model, " SMETHOD("") " AS sm, params, world_size, bw_cap_bps, AVG(speedup), "
		"AVG(t_iter), AVG(t_iter_baseline), network FROM speedup WHERE method <> baseline "
		"AND baseline = sweep_baseline "
		"GROUP BY model, sm, params, world_size, bw_cap_bps, network "
		"ORDER BY model, sm, params, world_size, bw_cap_bps, network <> 'uniform', network";
	return point_rows(db, sql, 3, "reading the speedups", fn, arg, e);
}

gc_rc gc_db_report_breakdown(gc_db *db, gc_db_point_fn fn, void *arg, gc_err *e)
{
	static const char sql[] =
		"SELECT model, " SMETHOD("") " AS sm, params, world_size, bw_cap_bps, "
		"AVG(t_forward_median + t_backward_median), AVG(t_encode_median), "
		"AVG(t_decode_median), AVG(t_optimizer_median), AVG(t_iter_median), network "
		"FROM run_summary GROUP BY model, world_size, bw_cap_bps, network, sm, params "
		"ORDER BY model, world_size, bw_cap_bps, network <> 'uniform', network, stack, "
		"method = baseline DESC, sm, params";
	return point_rows(db, sql, 5, "reading the breakdowns", fn, arg, e);
}

gc_rc gc_db_report_predictions(gc_db *db, gc_db_point_fn fn, void *arg, gc_err *e)
{
	static const char sql[] =
		"SELECT s.model, " SMETHOD("s.") ", s.params, s.world_size, s.bw_cap_bps, s.t_iter_median, "
		"p.t_iter, s.run_id FROM predictions p JOIN run_summary s ON s.run_id = p.run_id "
		"WHERE p.model_version = (SELECT model_version FROM predictions "
		"ORDER BY created DESC LIMIT 1) ORDER BY s.stack, s.method, s.params, s.run_id";
	return point_rows(db, sql, 3, "reading the predictions", fn, arg, e);
}

gc_rc gc_db_report_methods(gc_db *db, gc_db_point_fn fn, void *arg, gc_err *e)
{
	static const char sql[] =
		"SELECT model, " SMETHOD("") " AS sm, params, MIN(world_size), 0, MIN(batch), "
		"MIN(COALESCE(env_id, 0)) FROM run_summary WHERE method <> baseline "
		"GROUP BY model, sm, params ORDER BY model, sm, params";
	return point_rows(db, sql, 2, "reading the methods", fn, arg, e);
}

gc_rc gc_db_accuracy_curves(gc_db *db, int (*fn)(const struct gc_db_acc_point *p, void *arg),
			    void *arg, gc_err *e)
{
	static const char sql[] =
		"SELECT r.model, " SMETHOD("r.") " AS sm, r.params, r.bw_cap_bps, AVG(e.t_train), AVG(e.val_acc), "
		"MAX(CASE WHEN s.target_metric = 'accuracy' THEN s.target_value END) "
		"FROM run_evals e JOIN runs r ON r.id = e.run_id JOIN sweeps s ON s.id = r.sweep_id "
		"WHERE r.status = 'ok' GROUP BY r.model, r.bw_cap_bps, sm, r.params, e.iter "
		"ORDER BY r.model, r.bw_cap_bps, sm, r.params, e.iter";
	struct gc_db_acc_point p;
	sqlite3_stmt *st = NULL;
	int r;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL))
		return gc_db_fail(db, e, "reading the evaluations");
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		p.model = gc_db_col_text(st, 0);
		p.method = gc_db_col_text(st, 1);
		p.params = gc_db_col_text(st, 2);
		p.bw_cap_bps = sqlite3_column_int64(st, 3);
		p.t_train = sqlite3_column_double(st, 4);
		p.val_acc = sqlite3_column_double(st, 5);
		p.target = gc_db_col_double(st, 6, NAN);
		if (fn(&p, arg))
			break;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return gc_db_fail(db, e, "reading the evaluations");
	return GC_OK;
}

static void tta_read(sqlite3_stmt *st, struct gc_db_tta_row *t)
{
	t->model = gc_db_col_text(st, 0);
	t->method = gc_db_col_text(st, 1);
	t->params = gc_db_col_text(st, 2);
	t->world_size = sqlite3_column_int(st, 3);
	t->bw_cap_bps = sqlite3_column_int64(st, 4);
	t->iters_to_target = gc_db_col_double(st, 5, NAN);
	t->t_to_target = gc_db_col_double(st, 6, NAN);
	t->iter_speedup = gc_db_col_double(st, 7, NAN);
	t->tta_speedup = gc_db_col_double(st, 8, NAN);
	t->missed = sqlite3_column_int(st, 9);
	t->repeats = sqlite3_column_int(st, 10);
}

gc_rc gc_db_time_to_target(gc_db *db, int (*fn)(const struct gc_db_tta_row *t, void *arg),
			   void *arg, gc_err *e)
{
	static const char sql[] =
		"SELECT model, method, params, world_size, bw_cap_bps, iters_to_target, "
		"t_to_target, iter_speedup, tta_speedup, missed, repeats FROM "
		"time_to_target_speedup ORDER BY model, bw_cap_bps, method, params, world_size";
	struct gc_db_tta_row t;
	sqlite3_stmt *st = NULL;
	int r;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL))
		return gc_db_fail(db, e, "reading the times to target");
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		tta_read(st, &t);
		if (fn(&t, arg))
			break;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return gc_db_fail(db, e, "reading the times to target");
	return GC_OK;
}

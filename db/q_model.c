/* db/q_model.c: the queries the performance model is fitted from (q_model.h). */
#include "q_model.h"
#include "db_internal.h"

#include <math.h>

/* The ring's bottleneck under slow: (docs/spec.md): the point's cap times the least
 * factor of the hosts the run used (1 without slow:), and the links' mean efficiency
 * (goodput over each sender's own cap) at that cap. Without slow: these are the cap
 * and the links' mean goodput, as before. Under background flows (docs/spec.md, "Cross
 * traffic") both are further times the ring's fair share of the link the run stored
 * (network_json $.background.share; 1 without). */
#define SQL_SLOWEST "(COALESCE((SELECT MIN(j.value) FROM runs r, json_each(r.network_json, " \
	"'$.slow') j WHERE r.id = s.run_id AND j.key IN (SELECT h.node FROM run_hosts h " \
	"WHERE h.run_id = s.run_id)), 1) * COALESCE((SELECT json_extract(r.network_json, " \
	"'$.background.share') FROM runs r WHERE r.id = s.run_id), 1))"

/* Under racks (docs/spec.md, "Racks and uplinks") the run stores the ring's share of
 * its most loaded uplink direction as network_json's $.uplink.ring_bps: the bottleneck
 * is the lower of that and the hosts' cap above (with bandwidth unlimited: the share). */
#define SQL_UPLINK "(SELECT json_extract(r.network_json, '$.uplink.ring_bps') FROM runs r " \
	"WHERE r.id = s.run_id AND json_valid(r.network_json))"
/* Under a trace (docs/spec.md, "Traces in a run") the cap is the trace's mean over the
 * 1-s windows the run's players stored (network_json $.trace.hosts), the rate the run
 * saw, rather than its mean over a period (runs.bw_cap_bps), which a run shorter than
 * the period (a 60-s random walk) does not see. */
#define SQL_CAP "COALESCE((SELECT AVG(json_extract(w.value, '$.trace_mean_bps')) FROM runs r, " \
	"json_each(r.network_json, '$.trace.hosts') h, json_each(h.value) w WHERE r.id = " \
	"s.run_id AND json_valid(r.network_json) AND json_extract(w.value, '$.window') IS NOT " \
	"NULL), s.bw_cap_bps)"
#define SQL_BOTTLENECK "(CASE WHEN s.bw_cap_bps = 0 THEN COALESCE(" SQL_UPLINK ", 0) ELSE " \
	"MIN(" SQL_CAP " * " SQL_SLOWEST ", COALESCE(" SQL_UPLINK ", " SQL_CAP ")) END)"

static const char sql_runs[] =
	"SELECT s.run_id, COALESCE(s.env_id, 0), s.model, s.method, s.params, s.world_size, "
	"s.batch, CAST(ROUND(" SQL_BOTTLENECK ") AS INTEGER), s.latency_s, "
	"s.compute_scale, s.t_iter_median, "
	"s.t_forward_median, s.t_backward_median, s.t_encode_median, s.t_decode_median, "
	"s.t_exposed_median, s.t_optimizer_median, "
	"(SELECT CASE WHEN " SQL_BOTTLENECK " > 0 AND MIN(l.cap_bps) > 0 THEN AVG(l.goodput_bps * 1.0 "
	"/ l.cap_bps) * " SQL_BOTTLENECK " ELSE AVG(l.goodput_bps) END "
	"FROM links l WHERE l.run_id = s.run_id), s.t_comm_median, "
	"s.nodes, s.backend, (SELECT r.placement FROM runs r WHERE r.id = s.run_id), s.network, "
	"s.bw_cap_bps "
	"FROM run_summary s ORDER BY s.run_id";

static void run_read(sqlite3_stmt *st, struct gc_db_model_run *r)
{
	r->run_id = sqlite3_column_int64(st, 0);
	r->env_id = sqlite3_column_int64(st, 1);
	r->model = gc_db_col_text(st, 2);
	r->method = gc_db_col_text(st, 3);
	r->params = gc_db_col_text(st, 4);
	r->world_size = sqlite3_column_int(st, 5);
	r->batch = sqlite3_column_int(st, 6);
	r->bw_cap_bps = sqlite3_column_int64(st, 7);
	r->latency_s = gc_db_col_double(st, 8, 0);
	r->compute_scale = gc_db_col_double(st, 9, 0);
	r->t_iter = gc_db_col_double(st, 10, 0);
	r->t_forward = gc_db_col_double(st, 11, 0);
	r->t_backward = gc_db_col_double(st, 12, 0);
	r->t_encode = gc_db_col_double(st, 13, 0);
	r->t_decode = gc_db_col_double(st, 14, 0);
	r->t_exposed = gc_db_col_double(st, 15, 0);
	r->t_optimizer = gc_db_col_double(st, 16, 0);
	r->link_goodput_bps = gc_db_col_double(st, 17, 0);
	r->t_comm = gc_db_col_double(st, 18, 0);
	r->nodes = sqlite3_column_int(st, 19);
	r->backend = gc_db_col_text(st, 20);
	r->placement = gc_db_col_text(st, 21);
	r->network = gc_db_col_text(st, 22);
	r->point_cap_bps = sqlite3_column_int64(st, 23);
}

gc_rc gc_db_model_runs(gc_db *db, int (*fn)(const struct gc_db_model_run *r, void *arg),
		       void *arg, gc_err *e)
{
	struct gc_db_model_run r;
	sqlite3_stmt *st = NULL;
	int s;

	if (sqlite3_prepare_v2(db->h, sql_runs, -1, &st, NULL))
		return gc_fail(e, GC_E_DB, "reading the runs failed: %s (is this a gcbench "
			       "database?)", sqlite3_errmsg(db->h));
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		run_read(st, &r);
		if (fn(&r, arg))
			break;
	}
	sqlite3_finalize(st);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		return gc_fail(e, GC_E_DB, "reading the runs failed: %s", sqlite3_errmsg(db->h));
	return GC_OK;
}

gc_rc gc_db_env_links(gc_db *db, int64_t env_id,
		      int (*fn)(const struct gc_db_link_meas *l, void *arg), void *arg,
		      gc_err *e)
{
	struct gc_db_link_meas l;
	sqlite3_stmt *st = NULL;
	int s;

	if (sqlite3_prepare_v2(db->h, "SELECT l.rtt_s, l.goodput_bps, l.cap_bps FROM links l "
			       "JOIN runs r ON r.id = l.run_id WHERE r.status = 'ok' AND "
			       "COALESCE(r.env_id, 0) = ?", -1, &st, NULL))
		return gc_fail(e, GC_E_DB, "reading links failed: %s", sqlite3_errmsg(db->h));
	sqlite3_bind_int64(st, 1, env_id);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		l.rtt_s = gc_db_col_double(st, 0, NAN);
		l.goodput_bps = gc_db_col_double(st, 1, NAN);
		l.cap_bps = gc_db_col_double(st, 2, NAN);
		if (fn(&l, arg))
			break;
	}
	sqlite3_finalize(st);
	if (s != SQLITE_ROW && s != SQLITE_DONE)
		return gc_fail(e, GC_E_DB, "reading links failed: %s", sqlite3_errmsg(db->h));
	return GC_OK;
}

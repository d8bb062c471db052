/* db/q_calibration.c: an earlier calibration to reuse (q_calibration.h). */
#include "q_calibration.h"
#include "db_internal.h"

/* Candidates: probing runs that measured pair 0 alike, newest first. A run probed
 * when its calibration_run is itself (or NULL: before migration 12). */
static const char cand_sql[] =
	"SELECT r.id FROM links l JOIN runs r ON r.id = l.run_id, runs c "
	"WHERE c.id = ?1 AND r.id <> c.id AND coalesce(r.calibration_run, r.id) = r.id "
	"AND l.src = ?2 AND l.dst = ?3 AND l.cap_bps = ?4 AND l.goodput_bps > 0 "
	"AND r.latency_s = c.latency_s AND r.started >= ?5 "
	"AND json_valid(r.network_json) AND json_valid(c.network_json) "
	"AND json_extract(r.network_json, '$.trace') IS NULL "
	"AND json_extract(r.network_json, '$.background') IS NULL "
	"AND json_extract(c.network_json, '$.trace') IS NULL "
	"AND json_extract(c.network_json, '$.background') IS NULL "
	"ORDER BY r.started DESC, r.id DESC LIMIT 16";

/* One pair of one candidate: measured alike, both hosts' environments as run_id's. */
static const char pair_sql[] =
	"SELECT l.goodput_bps, coalesce(l.rtt_s, -1) FROM links l WHERE l.run_id = ?1 "
	"AND l.src = ?2 AND l.dst = ?3 AND l.cap_bps = ?4 AND l.goodput_bps > 0 "
	"AND (SELECT count(*) FROM run_hosts h JOIN run_hosts m ON m.node = h.node "
	"     AND m.env_id = h.env_id AND m.run_id = ?5 "
	"     WHERE h.run_id = ?1 AND h.node IN (?2, ?3)) = 2";

static gc_rc db_fail(gc_db *db, sqlite3_stmt *a, sqlite3_stmt *b, gc_err *e)
{
	gc_rc rc = gc_fail(e, GC_E_DB, "looking for an earlier calibration: %s", sqlite3_errmsg(db->h));
	sqlite3_finalize(a);
	sqlite3_finalize(b);
	return rc;
}

/* 1 when candidate cand measured every pair alike (filled in), 0 when not, -1 on error */
static int all_pairs(sqlite3_stmt *ps, int64_t cand, int64_t run_id,
		     struct gc_db_cal_pair *pairs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int r;
		sqlite3_reset(ps);
		sqlite3_bind_int64(ps, 1, cand);
		sqlite3_bind_text(ps, 2, pairs[i].src, -1, SQLITE_STATIC);
		sqlite3_bind_text(ps, 3, pairs[i].dst, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ps, 4, (int64_t)pairs[i].cap_bps);
		sqlite3_bind_int64(ps, 5, run_id);
		r = sqlite3_step(ps);
		if (r == SQLITE_DONE)
			return 0;
		if (r != SQLITE_ROW)
			return -1;
		pairs[i].bps = sqlite3_column_double(ps, 0);
		pairs[i].rtt = sqlite3_column_double(ps, 1);
	}
	return 1;
}

gc_rc gc_db_calibration_find(gc_db *db, int64_t run_id, struct gc_db_cal_pair *pairs,
			     size_t n, double not_before, int64_t *probe_run, gc_err *e)
{
	sqlite3_stmt *cs = NULL, *ps = NULL;
	int r;

	*probe_run = 0;
	if (!n)
		return GC_OK;
	if (sqlite3_prepare_v2(db->h, cand_sql, -1, &cs, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db->h, pair_sql, -1, &ps, NULL) != SQLITE_OK)
		return db_fail(db, cs, ps, e);
	sqlite3_bind_int64(cs, 1, run_id);
	sqlite3_bind_text(cs, 2, pairs[0].src, -1, SQLITE_STATIC);
	sqlite3_bind_text(cs, 3, pairs[0].dst, -1, SQLITE_STATIC);
	sqlite3_bind_int64(cs, 4, (int64_t)pairs[0].cap_bps);
	sqlite3_bind_double(cs, 5, not_before);
	while ((r = sqlite3_step(cs)) == SQLITE_ROW) {
		int64_t cand = sqlite3_column_int64(cs, 0);
		int ok = all_pairs(ps, cand, run_id, pairs, n);
		if (ok < 0)
			return db_fail(db, cs, ps, e);
		if (ok) {
			*probe_run = cand;
			break;
		}
	}
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return db_fail(db, cs, ps, e);
	sqlite3_finalize(cs);
	sqlite3_finalize(ps);
	return GC_OK;
}

/* orchestrator/history.c: `gcbench history`, a method's speedup sweep by sweep. */
#include "regress.h"

#include <sqlite3.h>
#include <string.h>

#include "strutil.h"

static gc_rc db_fail(sqlite3 *db, gc_err *e, const char *what)
{
	return gc_fail(e, GC_E_DB, "cannot %s: %s", what, sqlite3_errmsg(db));
}

/* ---- history ---------------------------------------------------------------------- */

static void history_row(sqlite3_stmt *st, gc_history_row *h)
{
	memset(h, 0, sizeof *h);
	h->first_seen = sqlite3_column_double(st, 0);
	h->env_id = sqlite3_column_int64(st, 1);
	gc_strlcpy(h->driver, (const char *)sqlite3_column_text(st, 2), sizeof h->driver);
	gc_strlcpy(h->cuda, (const char *)sqlite3_column_text(st, 3), sizeof h->cuda);
	gc_strlcpy(h->nccl, (const char *)sqlite3_column_text(st, 4), sizeof h->nccl);
	gc_strlcpy(h->tag, (const char *)sqlite3_column_text(st, 5), sizeof h->tag);
	gc_strlcpy(h->params, (const char *)sqlite3_column_text(st, 6), sizeof h->params);
	h->bw_cap_bps = sqlite3_column_int64(st, 7);
	h->world_size = sqlite3_column_int(st, 8);
	h->batch = sqlite3_column_int(st, 9);
	h->repeats = sqlite3_column_int(st, 10);
	h->t_iter = sqlite3_column_double(st, 11);
	h->t_iter_baseline = sqlite3_column_double(st, 12);
	h->speedup = sqlite3_column_double(st, 13);
}

gc_rc gc_history(sqlite3 *db, const char *model, const char *method, int64_t bw_cap_bps,
		 int (*fn)(const gc_history_row *row, void *arg), void *arg, gc_err *e)
{
	static const char sql[] =
		"SELECT coalesce(e.first_seen, 0), coalesce(e.id, 0), coalesce(e.driver, ''), "
		"coalesce(e.cuda, ''), coalesce(e.nccl, ''), coalesce(e.tag, ''), sp.params, "
		"sp.bw_cap_bps, sp.world_size, sp.batch, sp.repeats, sp.t_iter, "
		"sp.t_iter_baseline, sp.speedup FROM speedup sp LEFT JOIN environments e ON "
		"e.id = sp.env_id WHERE sp.model = ?1 AND sp.method = ?2 AND (?3 < 0 OR "
		"sp.bw_cap_bps = ?3) ORDER BY sp.bw_cap_bps, sp.world_size, sp.batch, "
		"sp.params, e.first_seen, e.id";
	sqlite3_stmt *st = NULL;
	gc_history_row h;
	int r;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL))
		return db_fail(db, e, "read the speedup view");
	sqlite3_bind_text(st, 1, model, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, method, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 3, bw_cap_bps);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		history_row(st, &h);
		if (fn(&h, arg))
			break;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return db_fail(db, e, "read the speedup view");
	return GC_OK;
}

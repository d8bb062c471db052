/* db/db_internal.h: what the db/ sources share (not part of the API). */
#ifndef GC_DB_INTERNAL_H
#define GC_DB_INTERNAL_H

#include <sqlite3.h>

#include "db.h"

enum gc_db_stmt_id {
	GC_ST_SWEEP_BEGIN, GC_ST_SWEEP_END, GC_ST_ENV_INSERT, GC_ST_ENV_FIND,
	GC_ST_RUN_BEGIN, GC_ST_RUN_END, GC_ST_RUN_HOST, GC_ST_LINK, GC_ST_PREDICTION, GC_ST_MODEL_FIT,
	GC_ST_ITER_INSERT, GC_ST_ITER_INSERT_MANY, GC_ST_RUN_EXISTS, GC_ST_RUN_STATS,
	GC_ST_EVAL_INSERT, GC_ST_SWEEP_TARGET, GC_ST_RUN_LATENCY,
	GC_ST_HEADER_INSERT, GC_ST_RUN_PRODUCER,
	GC_ST_RUN_PLACEMENT, GC_ST_RUN_SLURM, GC_ST_RUN_PHASE, GC_ST_RUN_CALIBRATION,
	GC_ST_RUN_NETWORK_SET,
	GC_ST__COUNT
};

struct gc_db {
	sqlite3 *h;
	char *path;
	int immutable;                      /* opened read-only with immutable=1 */
	sqlite3_stmt *stmt[GC_ST__COUNT];   /* prepared once, on first use */
};

/* The underlying handle, for db/ and the tests' fixtures. Owned by db. */
struct sqlite3 *gc_db_handle(gc_db *db);

/* Run SQL without results (several statements allowed): db/ and tests only. */
gc_rc gc_db_exec(gc_db *db, const char *sql, gc_err *e);

/* End the open transaction: ROLLBACK and return rc when rc is a failure, else COMMIT
 * (its failure returned). */
gc_rc gc_db_txn_end(gc_db *db, gc_rc rc, gc_err *e);

/* GC_E_DB with "database 'PATH': WHAT failed: sqlite message". */
gc_rc gc_db_fail(gc_db *db, gc_err *e, const char *what);

/* The cached statement id (prepared from sql on first use), reset and unbound. */
gc_rc gc_db_prep(gc_db *db, enum gc_db_stmt_id id, const char *sql, sqlite3_stmt **st,
		 gc_err *e);

/* Step st once (DONE or ROW is success), then reset it. */
gc_rc gc_db_step_done(gc_db *db, sqlite3_stmt *st, const char *what, gc_err *e);

/* Column i of the current row: text ("" for NULL), or a number with NULL as dflt
 * (NAN, 0, ...), for the query functions' row readers. */
static inline const char *gc_db_col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? (const char *)t : "";
}

static inline double gc_db_col_double(sqlite3_stmt *st, int i, double dflt)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? dflt : sqlite3_column_double(st, i);
}

#endif

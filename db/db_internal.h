/* db/db_internal.h: what the db/ sources share (not part of the API). */
#ifndef GC_DB_INTERNAL_H
#define GC_DB_INTERNAL_H

#include <sqlite3.h>

#include "db.h"

enum gc_db_stmt_id {
	GC_ST_SWEEP_BEGIN, GC_ST_SWEEP_END, GC_ST_ENV_INSERT, GC_ST_ENV_FIND,
	GC_ST_RUN_BEGIN, GC_ST_RUN_END, GC_ST_RUN_HOST, GC_ST_LINK, GC_ST_PREDICTION, GC_ST_MODEL_FIT,
	GC_ST_ITER_INSERT, GC_ST_ITER_INSERT_MANY, GC_ST_RUN_EXISTS, GC_ST_RUN_STATS,
	GC_ST_EVAL_INSERT, GC_ST_SWEEP_TARGET,
	GC_ST__COUNT
};

struct gc_db {
	sqlite3 *h;
	char *path;
	sqlite3_stmt *stmt[GC_ST__COUNT];   /* prepared once, on first use */
};

/* GC_E_DB with "database 'PATH': WHAT failed: sqlite message". */
gc_rc gc_db_fail(gc_db *db, gc_err *e, const char *what);

/* The cached statement id (prepared from sql on first use), reset and unbound. */
gc_rc gc_db_prep(gc_db *db, enum gc_db_stmt_id id, const char *sql, sqlite3_stmt **st,
		 gc_err *e);

/* Step st once (DONE or ROW is success), then reset it. */
gc_rc gc_db_step_done(gc_db *db, sqlite3_stmt *st, const char *what, gc_err *e);

#endif

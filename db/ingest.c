/* db/ingest.c: record files -> iterations, resume keys, interrupted sweeps, status. */
#include "db.h"
#include "db_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strutil.h"

#define ITER_COLS 17
#define ITER_BATCH 16     /* rows per INSERT statement: fewer steps, same bindings */

/* bind record r as tuple k (0-based) of an INSERT INTO iterations statement */
static void bind_rec(sqlite3_stmt *st, int k, int64_t run_id, const struct gc_iter_rec *r)
{
	const double t[] = { r->t_forward, r->t_backward, r->t_encode, r->t_decode, r->t_comm,
			     r->t_exposed, r->t_optimizer, r->t_iter, r->t_iter_gpu, r->loss };
	int b = k * ITER_COLS;

	sqlite3_bind_int64(st, b + 1, run_id);
	sqlite3_bind_int64(st, b + 2, r->rank);
	sqlite3_bind_int64(st, b + 3, r->iter);
	sqlite3_bind_int64(st, b + 4, r->warmup);
	sqlite3_bind_int64(st, b + 5, r->flags);
	for (int i = 0; i < 10; i++)
		sqlite3_bind_double(st, b + 6 + i, t[i]);
	sqlite3_bind_int64(st, b + 16, (sqlite3_int64)r->bytes_sent);
	sqlite3_bind_int64(st, b + 17, (sqlite3_int64)r->bytes_recv);
}

/* "INSERT INTO iterations (...) VALUES (?,...),(?,...)" with rows tuples */
static char *insert_sql(int rows)
{
	const char *head = "INSERT INTO iterations (run_id, rank, iter, warmup, flags, "
			   "t_forward, t_backward, t_encode, t_decode, t_comm, t_exposed, "
			   "t_optimizer, t_iter, t_iter_gpu, loss, bytes_sent, bytes_recv) VALUES ";
	const char *tuple = "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	size_t n = strlen(head) + (size_t)rows * (strlen(tuple) + 1) + 1;
	char *sql = malloc(n);

	if (!sql)
		return NULL;
	strcpy(sql, head);
	for (int i = 0; i < rows; i++) {
		if (i)
			strcat(sql, ",");
		strcat(sql, tuple);
	}
	return sql;
}

static gc_rc step_batch(gc_db *db, sqlite3_stmt *st, const struct gc_iter_rec *r, size_t i,
			gc_err *e)
{
	gc_rc rc = GC_OK;

	if (sqlite3_step(st) != SQLITE_DONE)
		rc = gc_fail(e, GC_E_DB, "records from %zu (rank %u, iteration %u): %s", i,
			     r->rank, r->iter, sqlite3_errmsg(db->h));
	sqlite3_reset(st);
	return rc;
}

static gc_rc insert_recs(gc_db *db, int64_t run_id, const gc_rec_file *f, gc_err *e)
{
	sqlite3_stmt *one = NULL, *many = NULL;
	char *s1 = insert_sql(1), *sn = insert_sql(ITER_BATCH);
	gc_rc rc = s1 && sn ? GC_OK : gc_fail(e, GC_E_NOMEM, "out of memory");
	size_t i = 0;

	if (!rc)
		rc = gc_db_prep(db, GC_ST_ITER_INSERT, s1, &one, e);
	if (!rc)
		rc = gc_db_prep(db, GC_ST_ITER_INSERT_MANY, sn, &many, e);
	free(s1);
	free(sn);
	for (; !rc && i + ITER_BATCH <= f->n; i += ITER_BATCH) {
		for (int k = 0; k < ITER_BATCH; k++)
			bind_rec(many, k, run_id, &f->recs[i + (size_t)k]);
		rc = step_batch(db, many, &f->recs[i], i, e);
	}
	for (; !rc && i < f->n; i++) {
		bind_rec(one, 0, run_id, &f->recs[i]);
		rc = step_batch(db, one, &f->recs[i], i, e);
	}
	return rc;
}

static gc_rc check_file(const gc_rec_file *f, gc_err *e)
{
	if (!f->complete)
		return gc_fail(e, GC_E_FORMAT, "the record file is incomplete (no trailer: the "
			       "rank did not finish); it is not ingested, mark the run failed");
	for (size_t i = 0; i < f->n; i++)
		if (f->recs[i].bytes_sent > INT64_MAX || f->recs[i].bytes_recv > INT64_MAX)
			return gc_fail(e, GC_E_FORMAT, "record %zu: byte count out of range", i);
	return GC_OK;
}

static gc_rc ingest_one(gc_db *db, int64_t run_id, const gc_rec_file *f, gc_err *e)
{
	gc_rc rc = check_file(f, e);

	if (!rc)
		rc = insert_recs(db, run_id, f, e);
	return rc;
}

static gc_rc run_exists(gc_db *db, int64_t run_id, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	gc_rc rc = gc_db_prep(db, GC_ST_RUN_EXISTS, "SELECT 1 FROM runs WHERE id = ?", &st, e);
	int r;

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	r = sqlite3_step(st);
	sqlite3_reset(st);
	if (r == SQLITE_ROW)
		return GC_OK;
	if (r == SQLITE_DONE)
		return gc_fail(e, GC_E_NOTFOUND, "run %lld is not in '%s'; call gc_db_run_begin "
			       "first", (long long)run_id, db->path);
	return gc_db_fail(db, e, "looking up the run");
}

static gc_rc txn_end(gc_db *db, gc_rc rc, gc_err *e)
{
	if (rc) {
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return gc_db_exec(db, "COMMIT", e);
}

static gc_rc bulk_begin(gc_db *db, int64_t run_id, gc_err *e);
static gc_rc bulk_end(gc_db *db, gc_rc rc, gc_err *e);

gc_rc gc_db_ingest(gc_db *db, int64_t run_id, const gc_rec_file *f, gc_err *e)
{
	gc_rc rc = bulk_begin(db, run_id, e);

	if (rc)
		return rc;
	return bulk_end(db, ingest_one(db, run_id, f, e), e);
}

static gc_rc ingest_path(gc_db *db, int64_t run_id, const char *path, size_t *rows,
			 gc_err *e)
{
	gc_rec_file f;
	gc_rc rc = gc_rec_read(path, &f, e);

	if (rc)
		return rc;
	rc = ingest_one(db, run_id, &f, e);
	if (!rc)
		*rows += f.n;
	gc_rec_file_release(&f);
	if (rc && e) {
		char inner[GC_ERRLEN];
		gc_strlcpy(inner, e->msg, sizeof(inner));
		gc_fail(e, rc, "cannot ingest '%s': %s", path, inner);
	}
	return rc;
}

/* Bulk transaction: the run's existence is checked once, inside the transaction, and
 * the per-row foreign-key lookup is switched off for its duration (it cannot change
 * inside a transaction, so it is set around it and always restored). */
static gc_rc bulk_begin(gc_db *db, int64_t run_id, gc_err *e)
{
	gc_rc rc = gc_db_exec(db, "PRAGMA foreign_keys = OFF; BEGIN IMMEDIATE", e);

	if (!rc && (rc = run_exists(db, run_id, e)))
		sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
	if (rc)
		sqlite3_exec(db->h, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
	return rc;
}

static gc_rc bulk_end(gc_db *db, gc_rc rc, gc_err *e)
{
	rc = txn_end(db, rc, e);
	if (sqlite3_exec(db->h, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK && !rc)
		rc = gc_db_fail(db, e, "turning foreign keys back on");
	return rc;
}

gc_rc gc_db_ingest_files(gc_db *db, int64_t run_id, const char *const *paths, size_t n,
			 size_t *rows, gc_err *e)
{
	size_t total = 0;
	gc_rc rc = bulk_begin(db, run_id, e);

	if (rc)
		return rc;
	for (size_t i = 0; i < n && !rc; i++)
		rc = ingest_path(db, run_id, paths[i], &total, e);
	rc = bulk_end(db, rc, e);
	if (rows)
		*rows = rc ? 0 : total;
	return rc;
}

/* --- resume ----------------------------------------------------------------------- */

void gc_strlist_release(struct gc_strlist *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

int gc_strlist_has(const struct gc_strlist *l, const char *s)
{
	size_t lo = 0, hi = l->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(l->v[mid], s);
		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static gc_rc strlist_push(struct gc_strlist *l, const char *s, size_t *cap, gc_err *e)
{
	if (l->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		char **v = realloc(l->v, nc * sizeof(*v));
		if (!v)
			return gc_fail(e, GC_E_NOMEM, "out of memory");
		l->v = v;
		*cap = nc;
	}
	if (!(l->v[l->n] = strdup(s)))
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	l->n++;
	return GC_OK;
}

gc_rc gc_db_done_keys(gc_db *db, const char *spec_hash, struct gc_strlist *out, gc_err *e)
{
	/* ORDER BY ... COLLATE BINARY matches strcmp, which gc_strlist_has relies on */
	const char *sql = "SELECT DISTINCT r.point_key FROM runs r JOIN sweeps s ON "
			  "s.id = r.sweep_id WHERE s.spec_hash = ? AND r.status = 'ok' "
			  "ORDER BY r.point_key COLLATE BINARY";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	gc_rc rc = GC_OK;
	int r;

	memset(out, 0, sizeof(*out));
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return gc_db_fail(db, e, "querying done points");
	sqlite3_bind_text(st, 1, spec_hash, -1, SQLITE_STATIC);
	while (!rc && (r = sqlite3_step(st)) == SQLITE_ROW)
		rc = strlist_push(out, (const char *)sqlite3_column_text(st, 0), &cap, e);
	if (!rc && r != SQLITE_DONE)
		rc = gc_db_fail(db, e, "querying done points");
	sqlite3_finalize(st);
	if (rc)
		gc_strlist_release(out);
	return rc;
}

/* 1 if the sweep's owner process is alive on this host */
static int owner_alive(const char *host, int64_t pid)
{
	char me[256] = "";

	gethostname(me, sizeof(me) - 1);
	if (strcmp(host, me) || pid <= 0)
		return 0;
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

static gc_rc exec_id(gc_db *db, const char *sql, int64_t id, int *changes, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	gc_rc rc = GC_OK;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return gc_db_fail(db, e, "marking an interrupted sweep");
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = gc_db_fail(db, e, "marking an interrupted sweep");
	else if (changes)
		*changes += sqlite3_changes(db->h);
	sqlite3_finalize(st);
	return rc;
}

static gc_rc interrupt_sweep(gc_db *db, int64_t id, int *n, gc_err *e)
{
	gc_rc rc = exec_id(db, "UPDATE runs SET status = 'interrupted', finished = "
			   "coalesce(finished, CAST(strftime('%s', 'now') AS REAL)), error = "
			   "CASE WHEN error = '' THEN 'the sweep stopped before this run finished' "
			   "ELSE error END WHERE sweep_id = ?1 AND status = 'running'", id, n, e);

	if (!rc)
		rc = exec_id(db, "UPDATE sweeps SET status = 'interrupted', finished = "
			     "coalesce(finished, CAST(strftime('%s', 'now') AS REAL)) WHERE id = ?1",
			     id, NULL, e);
	return rc;
}

gc_rc gc_db_mark_interrupted(gc_db *db, const char *spec_hash, int force, int *n, gc_err *e)
{
	const char *sql = "SELECT id, owner_host, owner_pid FROM sweeps WHERE status = "
			  "'running' AND (?1 IS NULL OR spec_hash = ?1)";
	sqlite3_stmt *st = NULL;
	int count = 0, r = 0;
	gc_rc rc = gc_db_exec(db, "BEGIN IMMEDIATE", e);

	if (rc)
		return rc;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return txn_end(db, gc_db_fail(db, e, "finding running sweeps"), e);
	if (spec_hash)
		sqlite3_bind_text(st, 1, spec_hash, -1, SQLITE_STATIC);
	while (!rc && (r = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		if (!force && owner_alive((const char *)sqlite3_column_text(st, 1),
					  sqlite3_column_int64(st, 2)))
			continue;
		rc = interrupt_sweep(db, id, &count, e);
	}
	sqlite3_finalize(st);
	rc = txn_end(db, rc, e);
	if (n)
		*n = rc ? 0 : count;
	return rc;
}

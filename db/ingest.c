/* db/ingest.c: record files -> iterations and their headers (run_headers), a run
 * recorded elsewhere (gcbench ingest). Resume keys and interrupted sweeps are
 * db/resume.c's. */
#include "db.h"
#include "db_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"
#include "formats/rec_header.h"
#include "formats/records.h"

#define ITER_COLS 17
#define ITER_BATCH 64     /* rows per INSERT statement (1088 variables): fewer steps */

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

/* The two INSERT statements (ITER_BATCH tuples and one), prepared once per gc_db. */
static gc_rc insert_stmts(gc_db *db, sqlite3_stmt **one, sqlite3_stmt **many, gc_err *e)
{
	char *s1 = insert_sql(1), *sn = insert_sql(ITER_BATCH);
	gc_rc rc = s1 && sn ? GC_OK : gc_fail(e, GC_E_NOMEM, "out of memory");

	if (!rc)
		rc = gc_db_prep(db, GC_ST_ITER_INSERT, s1, one, e);
	if (!rc)
		rc = gc_db_prep(db, GC_ST_ITER_INSERT_MANY, sn, many, e);
	free(s1);
	free(sn);
	return rc;
}

/* A validation record (GC_REC_F_EVAL) needs a sample count, an accuracy in [0, 1], a
 * finite loss >= 0 and a finite t_eval >= 0. */
static int eval_ok(const struct gc_iter_rec *r)
{
	return GC_REC_EVAL_N(r->flags) > 0 && r->val_acc >= 0 && r->val_acc <= 1 &&
	       r->val_loss >= 0 && isfinite(r->val_loss) && r->t_eval >= 0 && isfinite(r->t_eval);
}

static gc_rc check_recs(const struct gc_iter_rec *r, size_t n, size_t first, gc_err *e)
{
	for (size_t i = 0; i < n; i++) {
		if (r[i].bytes_sent > INT64_MAX || r[i].bytes_recv > INT64_MAX)
			return gc_fail(e, GC_E_FORMAT, "record %zu: byte count out of range",
				       first + i);
		if ((r[i].flags & GC_REC_F_EVAL) && !eval_ok(&r[i]))
			return gc_fail(e, GC_E_FORMAT, "record %zu: validation out of range (%u "
				       "samples, accuracy %g, loss %g, %g s)", first + i,
				       GC_REC_EVAL_N(r[i].flags), (double)r[i].val_acc, r[i].val_loss,
				       (double)r[i].t_eval);
	}
	return GC_OK;
}

/* A rank's training seconds so far (t_iter summed over its records), carried from one
 * chunk of a file to the next; a record of another rank starts the sum again. */
struct train_clock {
	uint32_t rank;
	double t;
};

/* The validation records among r into evals, with the rank's training seconds. */
static gc_rc insert_evals(gc_db *db, int64_t run_id, const struct gc_iter_rec *r, size_t n,
			  struct train_clock *clk, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	gc_rc rc = GC_OK;
	for (size_t i = 0; !rc && i < n; i++) {
		if (r[i].rank != clk->rank)
			clk->rank = r[i].rank, clk->t = 0;
		clk->t += r[i].t_iter;
		if (!(r[i].flags & GC_REC_F_EVAL))
			continue;
		rc = gc_db_prep(db, GC_ST_EVAL_INSERT, "INSERT INTO evals (run_id, rank, iter, val_n, "
				"val_loss, val_acc, t_eval, t_train) VALUES (?,?,?,?,?,?,?,?)", &st, e);
		if (rc)
			break;
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, r[i].rank);
		sqlite3_bind_int64(st, 3, r[i].iter);
		sqlite3_bind_int64(st, 4, GC_REC_EVAL_N(r[i].flags));
		sqlite3_bind_double(st, 5, r[i].val_loss);
		sqlite3_bind_double(st, 6, (double)r[i].val_acc);
		sqlite3_bind_double(st, 7, (double)r[i].t_eval);
		sqlite3_bind_double(st, 8, clk->t);
		rc = step_batch(db, st, &r[i], i, e);
	}
	return rc;
}

/* Insert n records; `first` is the index of r[0] in its file (for messages);
 * clk: see struct train_clock. */
static gc_rc insert_recs(gc_db *db, int64_t run_id, const struct gc_iter_rec *r, size_t n,
			 size_t first, struct train_clock *clk, gc_err *e)
{
	sqlite3_stmt *one = NULL, *many = NULL;
	gc_rc rc = check_recs(r, n, first, e);
	size_t i = 0;

	if (!rc)
		rc = insert_stmts(db, &one, &many, e);
	for (; !rc && i + ITER_BATCH <= n; i += ITER_BATCH) {
		for (int k = 0; k < ITER_BATCH; k++)
			bind_rec(many, k, run_id, &r[i + (size_t)k]);
		rc = step_batch(db, many, &r[i], first + i, e);
	}
	for (; !rc && i < n; i++) {
		bind_rec(one, 0, run_id, &r[i]);
		rc = step_batch(db, one, &r[i], first + i, e);
	}
	return rc ? rc : insert_evals(db, run_id, r, n, clk, e);
}

static gc_rc ingest_one(gc_db *db, int64_t run_id, const gc_rec_file *f, gc_err *e)
{
	gc_rc rc = gc_rec_require_complete(f, e);
	struct train_clock clk = { f->n ? f->recs[0].rank : 0, 0 };

	if (rc)
		return rc;
	return insert_recs(db, run_id, f->recs, f->n, 0, &clk, e);
}

/* --- streaming a record file ------------------------------------------------------
 * A record file is read in chunks into one reused buffer (no copy of the whole file,
 * no page faults per file) by formats/records.h's stream, which checks its frame as
 * gc_rec_parse does. The header is read whole and stored in run_headers. */

#define ITER_CHUNK 512    /* records per read: 64 KiB, a multiple of ITER_BATCH */

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

static gc_rc bulk_begin(gc_db *db, int64_t run_id, gc_err *e);
static gc_rc bulk_end(gc_db *db, gc_rc rc, gc_err *e);

gc_rc gc_db_ingest(gc_db *db, int64_t run_id, const gc_rec_file *f, gc_err *e)
{
	gc_rc rc = bulk_begin(db, run_id, e);

	if (rc)
		return rc;
	return bulk_end(db, ingest_one(db, run_id, f, e), e);
}

/* A rank's header into run_headers; rank 0's producer also into runs.producer. */
static gc_rc header_put(gc_db *db, int64_t run_id, long long rank, const char *producer,
			const char *header, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	gc_rc rc = gc_db_prep(db, GC_ST_HEADER_INSERT, "INSERT INTO run_headers (run_id, rank, "
			      "producer, header) VALUES (?,?,?,?)", &st, e);

	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int64(st, 2, rank);
	sqlite3_bind_text(st, 3, producer, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, header, -1, SQLITE_STATIC);
	if ((rc = gc_db_step_done(db, st, "storing the record header", e)) || rank)
		return rc;
	rc = gc_db_prep(db, GC_ST_RUN_PRODUCER, "UPDATE runs SET producer = ? WHERE id = ?", &st, e);
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, producer, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, run_id);
	return gc_db_step_done(db, st, "storing the run's producer", e);
}

/* The header of an open stream (between the magic and the records), checked to be one
 * JSON object and stored; its rank is the header's "rank", else the file's place. */
static gc_rc stream_header(gc_db *db, int64_t run_id, const gc_rec_stream *s,
			   size_t idx, gc_err *e)
{
	char *h = NULL;
	struct gc_rec_header rh;
	gc_rc rc = gc_rec_stream_header(s, &h, e);

	if (!rc)
		rc = gc_rec_header_parse(h, s->hl, &rh, e);
	if (!rc)
		rc = header_put(db, run_id, (rh.have & GC_RECH_RANK) ? rh.rank : (long long)idx,
				rh.producer, h, e);
	free(h);
	return rc;
}

static gc_rc ingest_path(gc_db *db, int64_t run_id, const char *path, size_t idx,
			 struct gc_iter_rec *buf, size_t *rows, gc_err *e)
{
	gc_rec_stream s;
	size_t n = 0;
	struct train_clock clk = { UINT32_MAX, 0 };
	gc_rc rc = gc_rec_open(&s, path, e);

	while (!rc) {
		size_t first = s.done;
		if ((rc = gc_rec_next(&s, buf, ITER_CHUNK, &n, e)) || !n)
			break;
		rc = insert_recs(db, run_id, buf, n, first, &clk, e);
	}
	if (!rc)
		rc = stream_header(db, run_id, &s, idx, e);
	gc_rec_close(&s);
	if (!rc)
		*rows += s.n;
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
	rc = gc_db_txn_end(db, rc, e);
	if (sqlite3_exec(db->h, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK && !rc)
		rc = gc_db_fail(db, e, "turning foreign keys back on");
	return rc;
}

gc_rc gc_db_ingest_files(gc_db *db, int64_t run_id, const char *const *paths, size_t n,
			 size_t *rows, gc_err *e)
{
	struct gc_iter_rec *buf = malloc(ITER_CHUNK * sizeof(*buf));
	size_t total = 0;
	gc_rc rc = buf ? bulk_begin(db, run_id, e) : gc_fail(e, GC_E_NOMEM, "out of memory");

	if (!rc) {
		for (size_t i = 0; i < n && !rc; i++)
			rc = ingest_path(db, run_id, paths[i], i, buf, &total, e);
		rc = bulk_end(db, rc, e);
	}
	free(buf);
	if (rows)
		*rows = rc ? 0 : total;
	return rc;
}

/* --- a run recorded elsewhere (gcbench ingest) --------------------------------------- */

/* The newest sweep called q->sweep (its baseline checked against q's), or a new one. */
static gc_rc ingest_sweep(gc_db *db, const struct gc_db_ingest_req *q,
			  struct gc_db_ingest_out *out, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	const char *want = q->baseline && *q->baseline ? q->baseline : NULL;
	gc_rc rc = GC_OK;
	int r;

	if (sqlite3_prepare_v2(db->h, "SELECT id, baseline FROM sweeps WHERE name = ? ORDER BY "
			       "id DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
		return gc_db_fail(db, e, "finding the sweep");
	sqlite3_bind_text(st, 1, q->sweep, -1, SQLITE_STATIC);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		out->sweep_id = sqlite3_column_int64(st, 0);
		if (want && strcmp(want, gc_db_col_text(st, 1)))
			rc = gc_fail(e, GC_E_INVAL, "sweep '%s' has baseline '%s', not '%s': leave "
				     "--baseline out, or name another sweep", q->sweep,
				     gc_db_col_text(st, 1), want);
	} else if (r != SQLITE_DONE) {
		rc = gc_db_fail(db, e, "finding the sweep");
	}
	sqlite3_finalize(st);
	if (rc || r == SQLITE_ROW)
		return rc;
	if (!want)
		return gc_fail(e, GC_E_INVAL, "sweep '%s' is new: give --baseline METHOD, the "
			       "method its speedup view compares the others with (for example "
			       "allreduce)", q->sweep);
	rc = gc_db_sweep_begin(db, q->sweep, "# runs recorded by gcbench ingest\n",
			       GC_DB_INGEST_HASH, want, &out->sweep_id, e);
	if (!rc)
		rc = gc_db_sweep_end(db, out->sweep_id, "done", e);
	out->sweep_created = !rc;
	return rc;
}

/* the repeat index of the run: the runs of the same point already in the sweep */
static gc_rc ingest_repeat(gc_db *db, int64_t sweep_id, const char *key, int *repeat,
			   gc_err *e)
{
	sqlite3_stmt *st = NULL;
	gc_rc rc = GC_OK;

	if (sqlite3_prepare_v2(db->h, "SELECT count(*) FROM runs WHERE sweep_id = ? AND "
			       "point_key = ?", -1, &st, NULL) != SQLITE_OK)
		return gc_db_fail(db, e, "counting the point's runs");
	sqlite3_bind_int64(st, 1, sweep_id);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*repeat = sqlite3_column_int(st, 0);
	else
		rc = gc_db_fail(db, e, "counting the point's runs");
	sqlite3_finalize(st);
	return rc;
}

static gc_rc ingest_ranks(gc_db *db, const struct gc_db_ingest_req *q,
			  struct gc_db_ingest_out *out, gc_err *e)
{
	gc_rc rc = GC_OK;

	for (size_t i = 0; !rc && i < q->n; i++) {
		const gc_rec_file *f = &q->files[i];
		struct train_clock clk = { (uint32_t)i, 0 };
		rc = gc_rec_require_complete(f, e);
		if (!rc)
			rc = insert_recs(db, out->run_id, f->recs, f->n, 0, &clk, e);
		if (!rc)
			rc = header_put(db, out->run_id, (long long)i, q->producer,
					f->header ? f->header : "{}", e);
		if (rc && e && q->names) {
			char inner[GC_ERRLEN];
			gc_strlcpy(inner, e->msg, sizeof(inner));
			gc_fail(e, rc, "cannot ingest '%s': %s", q->names[i], inner);
		}
		out->rows += rc ? 0 : f->n;
	}
	return rc;
}

/* the run ends ok at once: it ran before, elsewhere; started and finished are now */
static gc_rc ingest_ok(gc_db *db, int64_t run_id, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	gc_rc rc = GC_OK;

	if (sqlite3_prepare_v2(db->h, "UPDATE runs SET status = 'ok', finished = started WHERE "
			       "id = ?", -1, &st, NULL) != SQLITE_OK)
		return gc_db_fail(db, e, "ending the run");
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = gc_db_fail(db, e, "ending the run");
	sqlite3_finalize(st);
	return rc;
}

static gc_rc ingest_run_txn(gc_db *db, struct gc_db_ingest_req *q, struct gc_db_ingest_out *out,
			    gc_err *e)
{
	gc_rc rc = ingest_sweep(db, q, out, e);

	q->run.sweep_id = out->sweep_id;
	if (!rc && q->env)
		rc = gc_db_env_get(db, q->env, &q->run.env_id, e);
	if (!rc)
		rc = ingest_repeat(db, out->sweep_id, q->run.point_key, &q->run.repeat, e);
	if (!rc)
		rc = gc_db_run_begin(db, &q->run, &out->run_id, e);
	if (!rc && q->env)
		rc = gc_db_run_add_host(db, out->run_id, q->env->host, q->run.env_id, e);
	if (!rc)
		rc = ingest_ranks(db, q, out, e);
	if (!rc)
		rc = ingest_ok(db, out->run_id, e);
	if (!rc)
		rc = gc_db_run_stats_refresh(db, out->run_id, e);
	return rc;
}

gc_rc gc_db_ingest_run(gc_db *db, struct gc_db_ingest_req *q, struct gc_db_ingest_out *out,
		       gc_err *e)
{
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	if (!q->sweep || !*q->sweep || !q->n || !q->files || !q->producer)
		return gc_fail(e, GC_E_INVAL, "ingest: a sweep name, a producer and at least one "
			       "record file are required");
	if ((rc = gc_db_exec(db, "BEGIN IMMEDIATE", e)))
		return rc;
	rc = gc_db_txn_end(db, ingest_run_txn(db, q, out, e), e);
	if (rc)
		memset(out, 0, sizeof(*out));
	return rc;
}

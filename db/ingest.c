/* db/ingest.c: record files -> iterations and their headers (run_headers), a run
 * recorded elsewhere (gcbench ingest), resume keys, interrupted sweeps. */
#include "db.h"
#include "db_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strutil.h"
#include "formats/rec_header.h"

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

static gc_rc incomplete(gc_err *e)
{
	return gc_fail(e, GC_E_FORMAT, "the record file is incomplete (no trailer: the rank "
		       "did not finish); it is not ingested, mark the run failed");
}

static gc_rc ingest_one(gc_db *db, int64_t run_id, const gc_rec_file *f, gc_err *e)
{
	if (!f->complete)
		return incomplete(e);
	struct train_clock clk = { f->n ? f->recs[0].rank : 0, 0 };
	return insert_recs(db, run_id, f->recs, f->n, 0, &clk, e);
}

/* --- streaming a record file ------------------------------------------------------
 * A record file is read in chunks into one reused buffer (no copy of the whole file,
 * no page faults per file), after its frame is checked as gc_rec_parse does (magic,
 * header length, trailer present and matching the record count; see
 * formats/records.h). The header is read whole and stored in run_headers. */

#define ITER_CHUNK 512    /* records per read: 64 KiB, a multiple of ITER_BATCH */

struct rec_stream {
	int fd;
	off_t off;        /* of the next record */
	size_t n, done;   /* records in the file, records read */
	uint32_t hl;      /* header length */
};

static gc_rc pread_all(int fd, void *buf, size_t len, off_t off, gc_err *e)
{
	size_t got = 0;

	while (got < len) {
		ssize_t r = pread(fd, (char *)buf + got, len - got, off + (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return gc_fail(e, GC_E_IO, "read failed: %s",
				       r ? strerror(errno) : "the file shrank while being read");
		got += (size_t)r;
	}
	return GC_OK;
}

/* Check the frame of a file of `size` bytes; s->off and s->n get the records. */
static gc_rc rec_frame(struct rec_stream *s, off_t size, gc_err *e)
{
	unsigned char head[12];
	uint64_t tr[2], body;
	uint32_t hl;
	gc_rc rc;

	if (size < 12 || (rc = pread_all(s->fd, head, 12, 0, e)) || memcmp(head, GC_REC_MAGIC, 8))
		return gc_fail(e, GC_E_FORMAT, "not a gcbench record file (bad magic)");
	memcpy(&hl, head + 8, 4);
	if (hl > GC_REC_MAX_HEADER || hl > (uint64_t)size - 12)
		return gc_fail(e, GC_E_FORMAT, "header length %u exceeds the file", hl);
	body = (uint64_t)size - 12 - hl;
	if (body < 16)
		return incomplete(e);
	if ((rc = pread_all(s->fd, tr, 16, size - 16, e)))
		return rc;
	if (tr[0] != GC_REC_TRAILER)
		return incomplete(e);
	if ((body - 16) % sizeof(struct gc_iter_rec) ||
	    tr[1] != (body - 16) / sizeof(struct gc_iter_rec))
		return gc_fail(e, GC_E_FORMAT, "trailer count does not match the records");
	s->off = 12 + (off_t)hl;
	s->hl = hl;
	s->n = (size_t)tr[1];
	s->done = 0;
	return GC_OK;
}

static gc_rc rec_open(struct rec_stream *s, const char *path, gc_err *e)
{
	struct stat st;
	gc_rc rc;

	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return gc_fail(e, errno == ENOENT ? GC_E_NOTFOUND : GC_E_IO, "cannot open it: %s",
			       strerror(errno));
	if (fstat(s->fd, &st))
		rc = gc_fail(e, GC_E_IO, "cannot stat it: %s", strerror(errno));
	else
		rc = rec_frame(s, st.st_size, e);
	if (rc) {
		close(s->fd);
		s->fd = -1;
	}
	return rc;
}

/* Read the next up to ITER_CHUNK records into buf; *n gets how many (0 at the end). */
static gc_rc rec_next(struct rec_stream *s, struct gc_iter_rec *buf, size_t *n, gc_err *e)
{
	size_t k = s->n - s->done < ITER_CHUNK ? s->n - s->done : ITER_CHUNK;
	gc_rc rc = k ? pread_all(s->fd, buf, k * sizeof(*buf), s->off, e) : GC_OK;

	*n = rc ? 0 : k;
	s->off += (off_t)(k * sizeof(*buf));
	s->done += k;
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
static gc_rc stream_header(gc_db *db, int64_t run_id, const struct rec_stream *s,
			   size_t idx, gc_err *e)
{
	size_t hl = s->hl;
	char *h = malloc(hl + 1);
	struct gc_rec_header rh;
	gc_rc rc = h ? pread_all(s->fd, h, hl, 12, e) : gc_fail(e, GC_E_NOMEM, "out of memory");

	if (!rc) {
		h[hl] = 0;
		if (memchr(h, 0, hl))
			rc = gc_fail(e, GC_E_FORMAT, "header holds a NUL byte");
	}
	if (!rc)
		rc = gc_rec_header_parse(h, hl, &rh, e);
	if (!rc)
		rc = header_put(db, run_id, (rh.have & GC_RECH_RANK) ? rh.rank : (long long)idx,
				rh.producer, h, e);
	free(h);
	return rc;
}

static gc_rc ingest_path(gc_db *db, int64_t run_id, const char *path, size_t idx,
			 struct gc_iter_rec *buf, size_t *rows, gc_err *e)
{
	struct rec_stream s = { .fd = -1 };
	size_t n = 0;
	struct train_clock clk = { UINT32_MAX, 0 };
	gc_rc rc = rec_open(&s, path, e);

	while (!rc) {
		size_t first = s.done;
		if ((rc = rec_next(&s, buf, &n, e)) || !n)
			break;
		rc = insert_recs(db, run_id, buf, n, first, &clk, e);
	}
	if (!rc)
		rc = stream_header(db, run_id, &s, idx, e);
	if (s.fd >= 0)
		close(s.fd);
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
	rc = txn_end(db, rc, e);
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
		if (!f->complete)
			rc = incomplete(e);
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
	rc = txn_end(db, ingest_run_txn(db, q, out, e), e);
	if (rc)
		memset(out, 0, sizeof(*out));
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

gc_rc gc_db_done_keys(gc_db *db, int64_t sweep_id, struct gc_strlist *out, gc_err *e)
{
	/* ORDER BY ... COLLATE BINARY matches strcmp, which gc_strlist_has relies on */
	const char *sql = "SELECT DISTINCT point_key FROM runs WHERE sweep_id = ? AND "
			  "status = 'ok' ORDER BY point_key COLLATE BINARY";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	gc_rc rc = GC_OK;
	int r;

	memset(out, 0, sizeof(*out));
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return gc_db_fail(db, e, "querying done points");
	sqlite3_bind_int64(st, 1, sweep_id);
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

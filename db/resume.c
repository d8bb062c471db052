/* db/resume.c: what `gcbench run` needs to continue a sweep: the points done, the sweeps
 * a crash left running, the earlier sweeps of a spec (db.h, "resume and status"). */
#include "db.h"
#include "db_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "grow.h"
#include "strutil.h"

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
		return gc_db_txn_end(db, gc_db_fail(db, e, "finding running sweeps"), e);
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
	rc = gc_db_txn_end(db, rc, e);
	if (n)
		*n = rc ? 0 : count;
	return rc;
}

gc_rc gc_db_spec_sweeps(gc_db *db, const char *spec_hash, struct gc_db_sweep_brief **out,
			size_t *n, gc_err *e)
{
	const char *sql = "SELECT s.id, s.status, s.env_key, s.started, "
			  "(SELECT count(DISTINCT point_key) FROM runs r WHERE r.sweep_id = s.id "
			  "AND r.status = 'ok') FROM sweeps s WHERE s.spec_hash = ? ORDER BY s.id DESC";
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	gc_rc rc = GC_OK;
	int r;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return gc_db_fail(db, e, "listing the sweeps of the spec");
	sqlite3_bind_text(st, 1, spec_hash, -1, SQLITE_STATIC);
	while (!rc && (r = sqlite3_step(st)) == SQLITE_ROW) {
		struct gc_db_sweep_brief *b;
		if (GC_GROW(*out, cap, *n + 1, 8)) {
			rc = gc_fail(e, GC_E_NOMEM, "out of memory");
			break;
		}
		b = &(*out)[(*n)++];
		memset(b, 0, sizeof(*b));
		b->id = sqlite3_column_int64(st, 0);
		gc_strlcpy(b->status, (const char *)sqlite3_column_text(st, 1), sizeof(b->status));
		gc_strlcpy(b->env_key, (const char *)sqlite3_column_text(st, 2), sizeof(b->env_key));
		b->started = sqlite3_column_double(st, 3);
		b->n_ok = sqlite3_column_int(st, 4);
	}
	if (!rc && r != SQLITE_DONE)
		rc = gc_db_fail(db, e, "listing the sweeps of the spec");
	sqlite3_finalize(st);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

static gc_rc exec_text_id(gc_db *db, const char *sql, const char *text, int64_t id,
			  const char *what, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	gc_rc rc = GC_OK;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return gc_db_fail(db, e, what);
	sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		rc = gc_db_fail(db, e, what);
	else if (sqlite3_changes(db->h) != 1)
		rc = gc_fail(e, GC_E_NOTFOUND, "%s: sweep %lld is not in '%s'", what, (long long)id,
			     db->path);
	sqlite3_finalize(st);
	return rc;
}

gc_rc gc_db_sweep_set_env_key(gc_db *db, int64_t sweep_id, const char *env_key, gc_err *e)
{
	return exec_text_id(db, "UPDATE sweeps SET env_key = ?1 WHERE id = ?2", env_key, sweep_id,
			    "storing the sweep's environments", e);
}

gc_rc gc_db_sweep_set_baselines(gc_db *db, int64_t sweep_id, char *const *names, size_t n,
				 gc_err *e)
{
	gc_buf b = GC_BUF_INIT;
	gc_rc rc;

	gc_buf_putc(&b, '[');
	for (size_t i = 0; i < n; i++) {
		gc_buf_puts(&b, i ? ",\"" : "\"");
		for (const char *c = names[i]; *c; c++) {       /* JSON string escapes */
			if (*c == '"' || *c == '\\')
				gc_buf_putc(&b, '\\');
			if ((unsigned char)*c < 0x20)
				gc_buf_addf(&b, "\\u%04x", (unsigned)(unsigned char)*c);
			else
				gc_buf_putc(&b, *c);
		}
		gc_buf_putc(&b, '"');
	}
	gc_buf_putc(&b, ']');
	if (gc_buf_rc(&b))
		rc = gc_fail(e, GC_E_NOMEM, "out of memory for the sweep's baselines");
	else
		rc = exec_text_id(db, "UPDATE sweeps SET baselines = ?1 WHERE id = ?2",
				  gc_buf_str(&b), sweep_id, "storing the sweep's baselines", e);
	gc_buf_release(&b);
	return rc;
}

gc_rc gc_db_sweep_reopen(gc_db *db, int64_t sweep_id, gc_err *e)
{
	char host[256] = "", sql[256];

	gethostname(host, sizeof(host) - 1);
	snprintf(sql, sizeof(sql),
		 "UPDATE sweeps SET status = 'running', finished = NULL, owner_host = ?1, "
		 "owner_pid = %lld WHERE id = ?2", (long long)getpid());
	return exec_text_id(db, sql, host, sweep_id, "continuing the sweep", e);
}

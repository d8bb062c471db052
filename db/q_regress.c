/* db/q_regress.c: the queries of `gcbench regress` (q_regress.h). */
#include "q_regress.h"
#include "db_internal.h"

#include <stdio.h>
#include <string.h>

static gc_rc q_fail(gc_db *db, gc_err *e, const char *what)
{
	return gc_fail(e, GC_E_DB, "cannot %s: %s", what, sqlite3_errmsg(db->h));
}

/* The columns a selector may name and how each compares (the whitelist: only these
 * names ever reach the SQL text; values are bound). */
static const struct {
	const char *name;
	enum gc_db_env_match match;
} env_fields[] = {
	{ "host", GC_DB_ENV_EQUAL }, { "gpu_model", GC_DB_ENV_EQUAL },
	{ "tcp_cc", GC_DB_ENV_EQUAL }, { "tag", GC_DB_ENV_EQUAL },
	{ "driver", GC_DB_ENV_VERSION }, { "cuda", GC_DB_ENV_VERSION },
	{ "nccl", GC_DB_ENV_VERSION }, { "mpi", GC_DB_ENV_VERSION },
	{ "kernel", GC_DB_ENV_VERSION }, { "libnl", GC_DB_ENV_VERSION },
	{ "sqlite", GC_DB_ENV_VERSION }, { "gcbench", GC_DB_ENV_VERSION },
	{ "env", GC_DB_ENV_ID },
};

#define N_ENV_FIELDS (sizeof env_fields / sizeof env_fields[0])

static size_t field_index(const char *name, size_t len)
{
	size_t k;

	for (k = 0; k < N_ENV_FIELDS; k++)
		if (len == strlen(env_fields[k].name) && !strncmp(name, env_fields[k].name, len))
			break;
	return k;
}

int gc_db_env_field(const char *name, size_t len)
{
	size_t k = field_index(name, len);
	return k < N_ENV_FIELDS ? (int)env_fields[k].match : -1;
}

/* The condition of parameter i (1-based) on column col into frag. */
static void cond_sql(char *frag, size_t n, const char *col, int match, int i)
{
	if (match == GC_DB_ENV_ID)
		snprintf(frag, n, "id = CAST(?%d AS INTEGER)", i);
	else if (match == GC_DB_ENV_VERSION)
		snprintf(frag, n, "(%s = ?%d OR substr(%s, 1, length(?%d) + 1) IN "
			 "(?%d || '.', ?%d || '-'))", col, i, col, i, i, i);
	else
		snprintf(frag, n, "%s = ?%d", col, i);
}

/* The statement of gc_db_envs_with_ok_runs into sql; GC_E_INVAL for an unknown field. */
static gc_rc envs_sql(const struct gc_db_env_cond *c, size_t n, char *sql, size_t len,
		      gc_err *e)
{
	char where[2048] = "", frag[512];
	size_t k;

	for (size_t i = 0; i < n; i++) {
		if ((k = field_index(c[i].field, strlen(c[i].field))) == N_ENV_FIELDS)
			return gc_fail(e, GC_E_INVAL, "'%s' is not an environment field",
				       c[i].field);
		cond_sql(frag, sizeof frag, env_fields[k].name, (int)env_fields[k].match,
			 (int)i + 1);
		if (where[0])
			strncat(where, " AND ", sizeof where - strlen(where) - 1);
		strncat(where, frag, sizeof where - strlen(where) - 1);
	}
	snprintf(sql, len, "SELECT id FROM environments WHERE %s AND EXISTS (SELECT 1 "
		 "FROM runs r WHERE r.env_id = environments.id AND r.status = 'ok') "
		 "ORDER BY id", where);
	return GC_OK;
}

gc_rc gc_db_envs_with_ok_runs(gc_db *db, const struct gc_db_env_cond *c, size_t n,
			      int64_t *ids, size_t max, size_t *nids, gc_err *e)
{
	char sql[3072];
	sqlite3_stmt *st = NULL;
	int r;
	gc_rc rc;

	*nids = 0;
	if ((rc = envs_sql(c, n, sql, sizeof sql, e)))
		return rc;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL))
		return q_fail(db, e, "select environments");
	for (size_t i = 0; i < n; i++)
		sqlite3_bind_text(st, (int)i + 1, c[i].value, -1, SQLITE_TRANSIENT);
	while ((r = sqlite3_step(st)) == SQLITE_ROW && *nids < max)
		ids[(*nids)++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return q_fail(db, e, "select environments");
	return GC_OK;
}

gc_rc gc_db_sweep_has_ok_runs(gc_db *db, int64_t sweep_id, int *yes, gc_err *e)
{
	sqlite3_stmt *st = NULL;
	int r;

	*yes = 0;
	if (sqlite3_prepare_v2(db->h, "SELECT 1 FROM runs WHERE sweep_id = ? AND status = 'ok'",
			       -1, &st, NULL))
		return q_fail(db, e, "select the sweep");
	sqlite3_bind_int64(st, 1, sweep_id);
	r = sqlite3_step(st);
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return q_fail(db, e, "select the sweep");
	*yes = r == SQLITE_ROW;
	return GC_OK;
}

gc_rc gc_db_previous_sweeps(gc_db *db, int64_t *last, int64_t *prev, gc_err *e)
{
	static const char sql[] =
		"WITH ok AS (SELECT s.id, s.spec_hash FROM sweeps s WHERE EXISTS (SELECT 1 FROM "
		"runs r WHERE r.sweep_id = s.id AND r.status = 'ok')), last AS (SELECT * FROM ok "
		"ORDER BY id DESC LIMIT 1) SELECT last.id, (SELECT max(ok.id) FROM ok WHERE "
		"ok.spec_hash = last.spec_hash AND ok.id < last.id) FROM last";
	sqlite3_stmt *st = NULL;
	int r;

	*last = *prev = 0;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL))
		return q_fail(db, e, "select sweeps");
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		*last = sqlite3_column_int64(st, 0);
		*prev = sqlite3_column_int64(st, 1);     /* NULL: 0 */
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return q_fail(db, e, "select sweeps");
	return GC_OK;
}

static void sample_read(sqlite3_stmt *st, struct gc_db_iter_sample *s)
{
	s->workload = gc_db_col_text(st, 0);
	s->model = gc_db_col_text(st, 1);
	s->method = gc_db_col_text(st, 2);
	s->params = gc_db_col_text(st, 3);
	s->bw_cap_bps = sqlite3_column_int64(st, 4);
	s->latency_s = sqlite3_column_double(st, 5);
	s->world_size = sqlite3_column_int(st, 6);
	s->batch = sqlite3_column_int(st, 7);
	s->backend = gc_db_col_text(st, 8);
	s->compute_scale = sqlite3_column_double(st, 9);
	s->baseline = gc_db_col_text(st, 10);
	s->t_iter = sqlite3_column_double(st, 11);
	s->run_id = sqlite3_column_int64(st, 12);
	s->stack = gc_db_col_text(st, 13);
}

/* The iterations of the ok runs that meet cond (SQL text of ours, parameters ?1, ?2
 * bound to b1, b2 when not NULL). */
static gc_rc iterations(gc_db *db, const char *cond, const char *b1, const char *b2,
			int (*fn)(const struct gc_db_iter_sample *s, void *arg), void *arg,
			gc_err *e)
{
	char sql[4096];
	struct gc_db_iter_sample s;
	sqlite3_stmt *st = NULL;
	int r;

	snprintf(sql, sizeof sql, "SELECT r.workload, r.model, r.method, r.params, r.bw_cap_bps, "
		 "r.latency_s, r.world_size, r.batch, r.backend, r.compute_scale, s.baseline, "
		 "i.t_iter, r.id, r.stack FROM iterations i JOIN runs r ON r.id = i.run_id "
		 "JOIN sweeps s ON s.id = r.sweep_id WHERE r.status = 'ok' AND i.warmup = 0 AND %s "
		 "ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 13", cond);
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL))
		return q_fail(db, e, "read iterations");
	if (b1)
		sqlite3_bind_text(st, 1, b1, -1, SQLITE_TRANSIENT);
	if (b2)
		sqlite3_bind_text(st, 2, b2, -1, SQLITE_TRANSIENT);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		sample_read(st, &s);
		if (fn(&s, arg))
			break;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return q_fail(db, e, "read iterations");
	return GC_OK;
}

gc_rc gc_db_ok_iterations(gc_db *db, const int64_t *ids, size_t n, int by_sweep,
			  int (*fn)(const struct gc_db_iter_sample *s, void *arg), void *arg,
			  gc_err *e)
{
	char cond[1200], list[1024] = "", tmp[32];

	for (size_t i = 0; i < n; i++) {   /* integers, not text: safe to format */
		snprintf(tmp, sizeof tmp, "%s%lld", i ? "," : "", (long long)ids[i]);
		strncat(list, tmp, sizeof list - strlen(list) - 1);
	}
	snprintf(cond, sizeof cond, "%s IN (%s)", by_sweep ? "r.sweep_id" : "r.env_id", list);
	return iterations(db, cond, NULL, NULL, fn, arg, e);
}

/* The condition on the run's job (?1) and partition (?2); either may be absent. */
static const char *job_cond(const char *job, const char *partition)
{
	if (job && partition)
		return "r.slurm_job = ?1 AND r.slurm_partition = ?2";
	return job ? "r.slurm_job = ?1" : "r.slurm_partition = ?2";
}

gc_rc gc_db_job_has_ok_runs(gc_db *db, const char *job, const char *partition, int *yes,
			    gc_err *e)
{
	char sql[256];
	sqlite3_stmt *st = NULL;
	int r;

	*yes = 0;
	if (!job && !partition)
		return gc_fail(e, GC_E_INVAL, "a job selector needs a job or a partition");
	snprintf(sql, sizeof sql, "SELECT 1 FROM runs r WHERE r.status = 'ok' AND %s",
		 job_cond(job, partition));
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL))
		return q_fail(db, e, "select the job's runs");
	if (job)
		sqlite3_bind_text(st, 1, job, -1, SQLITE_TRANSIENT);
	if (partition)
		sqlite3_bind_text(st, 2, partition, -1, SQLITE_TRANSIENT);
	r = sqlite3_step(st);
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return q_fail(db, e, "select the job's runs");
	*yes = r == SQLITE_ROW;
	return GC_OK;
}

gc_rc gc_db_job_iterations(gc_db *db, const char *job, const char *partition,
			   int (*fn)(const struct gc_db_iter_sample *s, void *arg), void *arg,
			   gc_err *e)
{
	if (!job && !partition)
		return gc_fail(e, GC_E_INVAL, "a job selector needs a job or a partition");
	return iterations(db, job_cond(job, partition), job, partition, fn, arg, e);
}

gc_rc gc_db_series_sweeps(gc_db *db, int64_t last, int64_t *ids, size_t max, size_t *n,
			gc_err *e)
{
	static const char sql[] =
		"WITH ok AS (SELECT s.id, s.spec_hash FROM sweeps s WHERE EXISTS (SELECT 1 FROM "
		"runs r WHERE r.sweep_id = s.id AND r.status = 'ok')), last AS (SELECT * FROM ok "
		"WHERE ?1 = 0 OR id = ?1 ORDER BY id DESC LIMIT 1) SELECT id FROM (SELECT ok.id "
		"FROM ok, last WHERE ok.spec_hash = last.spec_hash AND ok.id <= last.id ORDER BY "
		"ok.id DESC LIMIT ?2) ORDER BY id";
	sqlite3_stmt *st = NULL;
	int r;

	*n = 0;
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL))
		return q_fail(db, e, "select sweeps");
	sqlite3_bind_int64(st, 1, last);
	sqlite3_bind_int64(st, 2, (int64_t)max);
	while ((r = sqlite3_step(st)) == SQLITE_ROW && *n < max)
		ids[(*n)++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return q_fail(db, e, "select sweeps");
	return GC_OK;
}

gc_rc gc_db_night_info(gc_db *db, int64_t sweep, struct gc_db_night *out, gc_err *e)
{
	static const char sql[] =
		"SELECT s.name, s.started, v.id, v.host, v.gpu_model, v.driver, v.cuda, v.nccl, "
		"v.mpi, v.kernel, v.libnl, v.sqlite, v.gcbench, v.tcp_cc, v.tag FROM sweeps s "
		"JOIN runs r ON r.sweep_id = s.id AND r.status = 'ok' LEFT JOIN environments v "
		"ON v.id = r.env_id WHERE s.id = ?1 ORDER BY r.id LIMIT 1";
	struct gc_envinfo *v = &out->env;
	char *f[] = { v->host, v->gpu_model, v->driver, v->cuda, v->nccl, v->mpi, v->kernel,
		      v->libnl, v->sqlite, v->gcbench, v->tcp_cc, v->tag };
	sqlite3_stmt *st = NULL;
	int r;

	memset(out, 0, sizeof *out);
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL))
		return q_fail(db, e, "select the sweep");
	sqlite3_bind_int64(st, 1, sweep);
	if ((r = sqlite3_step(st)) == SQLITE_ROW) {
		snprintf(out->name, sizeof out->name, "%s", gc_db_col_text(st, 0));
		out->started = sqlite3_column_double(st, 1);
		out->env_id = sqlite3_column_int64(st, 2);
		for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
			snprintf(f[i], GC_ENV_FIELD, "%s", gc_db_col_text(st, (int)i + 3));
	}
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return q_fail(db, e, "select the sweep");
	if (r == SQLITE_DONE)
		return gc_fail(e, GC_E_NOTFOUND, "sweep %lld has no ok runs", (long long)sweep);
	return GC_OK;
}

/* tests/unit/test_model_db.c: `gcbench model`'s library (model/predict_db.h) on
 * synthetic databases whose iteration times the model itself generated from known
 * parameters, plus +-2% noise: the fit must recover the parameters and the predictions.
 *
 * `test_model_db --make-db PATH` writes the synthetic database and exits (used by the
 * report page test). */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "db/db.h"
#include "db/db_internal.h"   /* gc_db_handle, gc_db_exec: the fixtures' SQL */
#include "harness.h"
#include "model/predict_db.h"

static uint64_t rng = 88172645463325252ull;

static double unif(void)   /* xorshift64, uniform in [0, 1) */
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static double noisy(double v)
{
	return v * (0.98 + 0.04 * unif());
}

#define GBIT 1000000000ull

/* The truth of one environment. */
struct truth {
	const char *host;
	double alpha, alpha_sw, host_bw, goodput_ratio, lambda, opt_per_elem;
	double enc[GC_M__COUNT], dec[GC_M__COUNT];
};

static const struct truth envs[2] = {
	{ "lab1", 60e-6, 500e-6, 5e9, 0.94, 1.08, 2e-9,
	  { 0, 4e9, 1.5e9, 1e8, 3e8, 2e8 }, { 0, 4e9, 3e9, 2e9, 2e9, 1e9 } },
	{ "lab2", 30e-6, 200e-6, 3e9, 0.97, 1.00, 1e-9,
	  { 0, 8e9, 3e9, 2e8, 6e8, 4e8 }, { 0, 8e9, 6e9, 4e9, 4e9, 2e9 } },
};

static const char *const methods[][2] = {
	{ "syncsgd", "" }, { "signsgd", "ef=0,scaled=0" }, { "mstopk", "ef=1,ratio=0.01,rounds=20" },
	{ "powersgd", "ef=1,rank=4,warm_start=1,min_compression=2,seed=42" },
	{ "topk", "ef=1,ratio=0.001" },
};

static gc_rc add_env(gc_db *db, const struct truth *t, int64_t *id)
{
	struct gc_envinfo env;

	memset(&env, 0, sizeof env);
	strcpy(env.host, t->host);
	return gc_db_env_get(db, &env, id, NULL);
}

/* The model's answer for the run, with the truth's parameters. */
static gc_rc truth_predict(const struct truth *t, const char *method, const char *params,
			   int p, double bw_bps, gc_model_result *r, double *numel)
{
	gc_model_method mm;
	gc_model_params mp;
	gc_arch a;
	gc_rc rc;

	if ((rc = gc_arch_build("resnet50", &a, NULL)))
		return rc;
	gc_arch_set_timing(&a, 32, GC_V100_FLOPS, 1);
	gc_model_params_default(&mp);
	mp.alpha = t->alpha + t->alpha_sw, mp.bw = bw_bps / 8, mp.lambda = t->lambda;
	mp.host_bw = t->host_bw, mp.codec_on_comm = 1;
	mp.t_opt = t->opt_per_elem * (double)a.numel;
	memcpy(mp.enc_rate, t->enc, sizeof(mp.enc_rate));
	memcpy(mp.dec_rate, t->dec, sizeof(mp.dec_rate));
	*numel = (double)a.numel;
	rc = gc_pdb_method(method, params, &mm, NULL);
	if (!rc)
		rc = gc_model_predict(&a, &mm, &mp, p, r, NULL);
	gc_arch_release(&a);
	return rc;
}

static gc_rc insert_iters(gc_db *db, int64_t id, int p, const gc_model_result *r,
			  double lambda)
{
	double bwd = r->compute / (0.5 + (p > 1 ? lambda : 1)), lam = p > 1 ? lambda : 1;
	sqlite3_stmt *st = NULL;
	int rank, it;
	gc_rc rc = GC_OK;

	if (sqlite3_prepare_v2(gc_db_handle(db), "INSERT INTO iterations VALUES (?1, ?2, ?3, "
			       "?4, 0, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 0, 0, 0, 0)", -1, &st, NULL))
		return GC_E_DB;
	for (rank = 0; rank < p && !rc; rank++)
		for (it = 0; it < 12; it++) {
			double warm = it < 2 ? 5 : 1;
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_int(st, 2, rank);
			sqlite3_bind_int(st, 3, it);
			sqlite3_bind_int(st, 4, it < 2);
			sqlite3_bind_double(st, 5, noisy(0.5 * bwd));
			sqlite3_bind_double(st, 6, noisy(lam * bwd));
			sqlite3_bind_double(st, 7, noisy(r->encode));
			sqlite3_bind_double(st, 8, noisy(r->decode));
			sqlite3_bind_double(st, 9, noisy(r->comm));
			sqlite3_bind_double(st, 10, noisy(r->exposed));
			sqlite3_bind_double(st, 11, noisy(r->optimizer));
			sqlite3_bind_double(st, 12, warm * noisy(r->total));
			if (sqlite3_step(st) != SQLITE_DONE)
				rc = GC_E_DB;
			sqlite3_reset(st);
		}
	sqlite3_finalize(st);
	return rc;
}

/* One run of resnet50 batch 32 on p workers; links measured unless cap is 2 Gbit/s
 * (then the model must use cap x 1448/1514). */
static gc_rc add_run_of(gc_db *db, int64_t sweep, int64_t env, const struct truth *t,
			const char *method, const char *params, int p, uint64_t cap,
			enum gc_run_status status)
{
	struct gc_db_run run = { sweep, "key", "replay", "resnet50", method, params, p, p, 32,
				 cap, 0, "mpi", 1, 10, 2, 0, env, NULL, NULL };
	int linked = cap != 2 * GBIT;
	double bw = linked ? (double)cap * t->goodput_ratio : (double)cap * 1448 / 1514, numel;
	gc_model_result r;
	int64_t id;
	gc_rc rc;

	if ((rc = truth_predict(t, method, params, p, bw, &r, &numel)) ||
	    (rc = gc_db_run_begin(db, &run, &id, NULL)))
		return rc;
	if (linked && ((rc = gc_db_link_add(db, id, "n1", "n2", cap, bw, 2 * t->alpha, NULL)) ||
		       (rc = gc_db_link_add(db, id, "n2", "n3", cap, bw, 2 * t->alpha, NULL))))
		return rc;
	if ((rc = insert_iters(db, id, p, &r, t->lambda)))
		return rc;
	return gc_db_run_end(db, id, status, status == GC_RUN_OK ? NULL : "boom", NULL, NULL);
}

static gc_rc add_run(gc_db *db, int64_t sweep, int64_t env, const struct truth *t, int mi,
		     int p, uint64_t cap, enum gc_run_status status)
{
	return add_run_of(db, sweep, env, t, methods[mi][0], methods[mi][1], p, cap, status);
}

static const uint64_t caps[] = { 1 * GBIT, 2 * GBIT, 5 * GBIT, 10 * GBIT, 25 * GBIT };
#define NCAPS (sizeof(caps) / sizeof(caps[0]))
#define NMETHODS (sizeof(methods) / sizeof(methods[0]))

/* Environment 0: every method at every cap on 4 workers, sync also on 8; environment
 * 1: every method at 1 and 10 Gbit/s on 4 workers; a failed run in each. */
static gc_rc make_db(const char *path, int *n_ok)
{
	gc_db *db = NULL;
	int64_t s, env[2];
	size_t m, c;
	gc_rc rc;

	unlink(path);
	*n_ok = 0;
	if ((rc = gc_db_open(path, 0, &db, NULL)))
		return rc;
	if ((rc = add_env(db, &envs[0], &env[0])) || (rc = add_env(db, &envs[1], &env[1])) ||
	    (rc = gc_db_sweep_begin(db, "synthetic", "spec", "hash", "syncsgd", &s, NULL)))
		goto out;
	for (m = 0; m < NMETHODS && !rc; m++)
		for (c = 0; c < NCAPS && !rc; c++) {
			rc = add_run(db, s, env[0], &envs[0], (int)m, 4, caps[c], GC_RUN_OK);
			if (!rc && m == 0)
				rc = add_run(db, s, env[0], &envs[0], 0, 8, caps[c], GC_RUN_OK), ++*n_ok;
			if (!rc && (c == 0 || c == 3))
				rc = add_run(db, s, env[1], &envs[1], (int)m, 4, caps[c], GC_RUN_OK), ++*n_ok;
			++*n_ok;
		}
	if (!rc)
		rc = add_run(db, s, env[0], &envs[0], 3, 4, GBIT, GC_RUN_FAILED);
	if (!rc)
		rc = add_run(db, s, env[1], &envs[1], 1, 4, GBIT, GC_RUN_TIMEOUT);
out:
	gc_db_close(db);
	return rc;
}

static char dbpath[256];
static int n_ok;
static gc_pdb res;
static int have_res;

/* Fit and predict once (storing); the tests read the result. */
static int ensure(void)
{
	gc_db *db = NULL;
	gc_err e = { "" };
	gc_rc rc;

	if (have_res)
		return have_res;
	rc = make_db(dbpath, &n_ok);
	if (!rc && !(rc = gc_db_open(dbpath, 0, &db, &e)))
		rc = gc_pdb_run(db, 1, &res, &e);
	gc_db_close(db);
	if (rc)
		printf("# setup failed: %s (%s)\n", gc_strerror(rc), e.msg);
	return have_res = rc ? -1 : 1;
}

static void test_fit_recovers_parameters(void)
{
	size_t i;
	int m;

	CHECK(ensure() > 0);
	CHECK_EQ_INT(res.nfits, 2);
	for (i = 0; i < 2; i++) {
		const struct truth *t = &envs[i];
		const gc_pdb_fit *f = &res.fits[i];
		CHECK_NEAR(f->alpha_link, t->alpha, 0.01 * t->alpha);
		CHECKF(fabs(f->alpha_sw / t->alpha_sw - 1) < 0.1, "env %zu software latency %g "
		       "vs %g", i, f->alpha_sw, t->alpha_sw);
		CHECKF(fabs(f->mp.host_bw / t->host_bw - 1) < 0.1, "env %zu host cost %g vs %g", i,
		       f->mp.host_bw, t->host_bw);
		CHECK_NEAR(f->goodput_ratio, t->goodput_ratio, 0.001);
		CHECK_NEAR(f->mp.lambda, t->lambda, 0.02);
		CHECK_NEAR(f->mp.fwd_over_bwd, 0.5, 0.02);
		CHECK_NEAR(f->opt_per_elem, t->opt_per_elem, 0.03 * t->opt_per_elem);
		for (m = GC_M_SIGNSGD; m <= GC_M_POWERSGD; m++) {     /* the methods with runs */
			CHECKF(fabs(f->mp.enc_rate[m] / t->enc[m] - 1) < 0.03, "env %zu %s encode "
			       "%g vs %g", i, gc_method_name((gc_method)m), f->mp.enc_rate[m], t->enc[m]);
			CHECKF(fabs(f->mp.dec_rate[m] / t->dec[m] - 1) < 0.03, "env %zu %s decode "
			       "%g vs %g", i, gc_method_name((gc_method)m), f->mp.dec_rate[m], t->dec[m]);
		}
		CHECK_EQ_INT(f->n_enc[GC_M_FP16], 0);    /* no fp16 runs: no rate, not 0-filled */
		CHECK_EQ_INT(f->n_enc[GC_M_BF16], 0);
		CHECK_EQ_INT(f->n_enc[GC_M_RANDOMK], 0);
	}
	CHECK(res.fits[0].lambda_compute_bound);
}

static void test_predictions_within_few_percent(void)
{
	size_t i;

	CHECK(ensure() > 0);
	CHECK_EQ_INT(res.nrows, n_ok);
	for (i = 0; i < res.nrows; i++) {
		const gc_pdb_row *r = &res.rows[i];
		CHECKF(!r->skipped[0], "run %lld skipped: %s", (long long)r->run_id, r->skipped);
		CHECKF(fabs(r->rel_err) < 0.03, "run %lld %s %s p=%d cap %.0f: predicted %.4f s, "
		       "measured %.4f s", (long long)r->run_id, r->method, r->params,
		       r->world_size, r->bw_cap_bps / 1e9, r->pred.total, r->measured);
		CHECKF(fabs(r->cv_err) < 0.04, "run %lld: leave-one-out %.4f s, measured %.4f s",
		       (long long)r->run_id, r->cv_pred, r->measured);
	}
	CHECK_EQ_INT(res.nmethods, NMETHODS);
	for (i = 0; i < res.nmethods; i++) {
		CHECK(res.methods[i].n > 0);
		CHECK(res.methods[i].median_abs <= res.methods[i].worst_abs);
		CHECK(res.methods[i].worst_abs < 0.03);
		CHECK(res.methods[i].n_cv == res.methods[i].n);
		CHECK(res.methods[i].median_abs_cv < 0.03);
	}
}

/* gc_pdb_run_with: every run predicted with one environment's fit, no leave-one-out;
 * that environment's runs stay within 3%, the other environment's do not. */
static void test_out_of_sample_fit(void)
{
	gc_db *db = NULL;
	gc_err e = { "" };
	gc_pdb p;
	size_t i, own = 0, other_off = 0;

	CHECK(ensure() > 0);
	CHECK(!gc_db_open(dbpath, GC_DB_READONLY, &db, &e));
	CHECK(!gc_pdb_run_with(db, &res.fits[0], &p, &e));
	CHECK_EQ_INT(p.nrows, n_ok);
	CHECK_EQ_INT(p.stored, 0);
	for (i = 0; i < p.nrows; i++) {
		const gc_pdb_row *r = &p.rows[i];
		CHECK(!isfinite(r->cv_err));
		if (r->env_id == res.fits[0].env_id) {
			own++;
			CHECKF(fabs(r->rel_err) < 0.03, "run %lld: %+.3f", (long long)r->run_id,
			       r->rel_err);
		} else if (fabs(r->rel_err) > 0.03) {
			other_off++;
		}
	}
	CHECK(own > 0 && other_off > 0);
	for (i = 0; i < p.nmethods; i++)
		CHECK_EQ_INT(p.methods[i].n_cv, 0);
	gc_pdb_release(&p);
	gc_db_close(db);
}

/* The 2 Gbit/s runs have no link rows: cap x 1448/1514 is used, links otherwise. */
static void test_bandwidth_source(void)
{
	size_t i, n2 = 0;

	CHECK(ensure() > 0);
	for (i = 0; i < res.nrows; i++) {
		const gc_pdb_row *r = &res.rows[i];
		double ratio = r->bw_bps / (double)r->bw_cap_bps;
		if (r->bw_cap_bps == 2 * GBIT) {
			CHECK_NEAR(ratio, 1448.0 / 1514.0, 1e-9);
			n2++;
		} else {
			CHECK_NEAR(ratio, envs[r->env_id == res.fits[0].env_id ? 0 : 1].goodput_ratio,
				   1e-9);
		}
	}
	CHECK(n2 > 0);
}

static int count(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int n = -1;

	if (!sqlite3_prepare_v2(h, sql, -1, &st, NULL) && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void test_one_prediction_per_ok_run(void)
{
	gc_db *db = NULL;
	sqlite3 *h;

	CHECK(ensure() > 0);
	CHECK_EQ_INT(res.stored, n_ok);
	CHECK(!gc_db_open(dbpath, GC_DB_READONLY, &db, NULL));
	h = gc_db_handle(db);
	CHECK_EQ_INT(count(h, "SELECT count(*) FROM predictions"), n_ok);
	CHECK_EQ_INT(count(h, "SELECT count(*) FROM predictions p JOIN runs r ON r.id = "
			   "p.run_id WHERE r.status <> 'ok'"), 0);
	CHECK_EQ_INT(count(h, "SELECT count(*) FROM runs r WHERE r.status = 'ok' AND NOT "
			   "EXISTS (SELECT 1 FROM predictions p WHERE p.run_id = r.id AND "
			   "p.model_version = '" GC_PDB_VERSION "')"), 0);
	CHECK_EQ_INT(count(h, "SELECT count(*) FROM runs WHERE status <> 'ok'"), 2);
	/* the fitted parameters of both environments, stored with the model's version */
	CHECK_EQ_INT(count(h, "SELECT count(*) FROM model_fits WHERE model_version = '"
			   GC_PDB_VERSION "'"), 2);
	CHECK_EQ_INT(count(h, "SELECT count(*) FROM model_fits f JOIN environments e ON "
			   "e.id = f.env_id WHERE e.host = 'lab2' AND abs(json_extract(f.params, "
			   "'$.host_bw_Bps') / 3e9 - 1) < 0.1 AND json_extract(f.params, "
			   "'$.codecs.powersgd.encode_rate') > 0"), 1);
	gc_db_close(db);
}

/* Running it again replaces the predictions, never duplicates them. */
static void test_rerun_replaces(void)
{
	gc_db *db = NULL;
	gc_pdb again;
	gc_rc rc;

	CHECK(ensure() > 0);
	CHECK(!gc_db_open(dbpath, 0, &db, NULL));
	rc = gc_pdb_run(db, 1, &again, NULL);
	CHECK_EQ_INT(rc, GC_OK);
	CHECK_EQ_INT(count(gc_db_handle(db), "SELECT count(*) FROM predictions"), n_ok);
	CHECK_NEAR(again.rows[0].pred.total, res.rows[0].pred.total, 1e-12);
	gc_pdb_release(&again);
	gc_db_close(db);
}

static void test_method_params(void)
{
	gc_model_method m;
	gc_err e;

	CHECK_EQ_INT(gc_pdb_method("powersgd", "ef=1,rank=8,warm_start=1,min_compression=3,"
				   "seed=42", &m, &e), GC_OK);
	CHECK_EQ_INT(m.p.method, GC_M_POWERSGD);
	CHECK_EQ_INT(m.p.rank, 8);
	CHECK_NEAR(m.p.min_compression, 3, 0);
	CHECK_STR(m.label, "powersgd(ef=1,rank=8,warm_start=1,min_compression=3,seed=42)");
	CHECK_EQ_INT(gc_pdb_method("mstopk", "ratio=0.05", &m, &e), GC_OK);
	CHECK_NEAR(m.p.ratio, 0.05, 0);
	CHECK_EQ_INT(gc_pdb_method("signsgd", "ef=1,scaled=1", &m, &e), GC_OK);
	CHECK_EQ_INT(m.p.scaled, 1);
	CHECK(gc_pdb_method("syncsgd", "", &m, &e) == GC_OK && !strcmp(m.label, "syncsgd"));
	CHECK(gc_pdb_method("nosuch", "", &m, &e) != GC_OK);
	CHECK_CONTAINS(e.msg, "nosuch");
	CHECK(gc_pdb_method("topk", "ratio=7", &m, &e) != GC_OK);
	CHECK(gc_pdb_method("topk", "ratio", &m, &e) != GC_OK);
	CHECK_CONTAINS(e.msg, "key=value");
}

/* Two variants of one method with different work (plain signSGD, and scaled signSGD
 * with error feedback at half the encode rate): each is fitted and predicted with its
 * own rate, where one rate per method would miss both by about a third. */
static void test_variant_rates(void)
{
	char path[300];
	struct truth slow = envs[0];
	gc_db *db = NULL;
	gc_err e = { "" };
	gc_pdb p;
	int64_t s, env;
	gc_rc rc;

	slow.enc[GC_M_SIGNSGD] /= 2;
	slow.dec[GC_M_SIGNSGD] /= 2;
	snprintf(path, sizeof(path), "%s.variants", dbpath);
	unlink(path);
	rc = gc_db_open(path, 0, &db, &e);
	rc = rc ? rc : add_env(db, &envs[0], &env);
	rc = rc ? rc : gc_db_sweep_begin(db, "variants", "spec", "hash", "syncsgd", &s, NULL);
	for (size_t c = 0; c < NCAPS && !rc; c++) {
		rc = add_run(db, s, env, &envs[0], 0, 4, caps[c], GC_RUN_OK);
		rc = rc ? rc : add_run_of(db, s, env, &envs[0], "signsgd", "ef=0,scaled=0", 4,
					  caps[c], GC_RUN_OK);
		rc = rc ? rc : add_run_of(db, s, env, &slow, "signsgd", "ef=1,scaled=1", 4,
					  caps[c], GC_RUN_OK);
	}
	gc_db_close(db);
	db = NULL;
	CHECKF(!rc, "setup: %s", e.msg);
	CHECK(!gc_db_open(path, GC_DB_READONLY, &db, &e));
	CHECK(!gc_pdb_run(db, 0, &p, &e));
	CHECK_EQ_INT(p.nfits, 1);
	CHECK_NEAR(p.fits[0].var_enc[GC_M_SIGNSGD][0] / envs[0].enc[GC_M_SIGNSGD], 1, 0.03);
	CHECK_NEAR(p.fits[0].var_enc[GC_M_SIGNSGD][3] / slow.enc[GC_M_SIGNSGD], 1, 0.03);
	CHECK(p.fits[0].n_var_enc[GC_M_SIGNSGD][1] == 0);   /* no ef-only runs */
	for (size_t i = 0; i < p.nrows; i++)
		CHECKF(fabs(p.rows[i].rel_err) < 0.03, "run %lld %s %s: %+.3f",
		       (long long)p.rows[i].run_id, p.rows[i].method, p.rows[i].params,
		       p.rows[i].rel_err);
	gc_pdb_release(&p);
	gc_db_close(db);
	unlink(path);
}


/* A run of p ranks on `nodes` hosts (placement "n1:2,n2:2") whose ring runs at its cap
 * over `flows`: what MPI's placement by node does to the ring's links. */
static gc_rc add_placed_of(gc_db *db, int64_t sweep, int64_t env, const char *method,
			   const char *params, const char *backend, int p, int nodes,
			   const char *placement, double flows, uint64_t cap, int64_t *id)
{
	struct gc_db_run run = { sweep, "key", "replay", "resnet50", method, params, p, nodes,
				 32, cap, 0, backend, 1, 10, 2, 0, env, NULL, NULL };
	double bw = (double)cap * 1448 / 1514 / flows, numel;
	gc_model_result r;
	gc_rc rc;

	if ((rc = truth_predict(&envs[0], method, params, p, bw, &r, &numel)) ||
	    (rc = gc_db_run_begin(db, &run, id, NULL)) ||
	    (rc = gc_db_run_set_placement(db, *id, p / nodes, placement, NULL)) ||
	    (rc = insert_iters(db, *id, p, &r, envs[0].lambda)))
		return rc;
	return gc_db_run_end(db, *id, GC_RUN_OK, NULL, NULL, NULL);
}

static gc_rc add_placed(gc_db *db, int64_t sweep, int64_t env, const char *backend, int p,
			int nodes, const char *placement, double flows, uint64_t cap, int64_t *id)
{
	return add_placed_of(db, sweep, env, "syncsgd", "", backend, p, nodes, placement, flows,
			     cap, id);
}

/* A new database at /tmp/gct-model-db-TAG-PID.db (its path into path) with environment
 * 0's parameters and one sweep; NULL if it cannot be made. */
static gc_db *small_db(const char *tag, char *path, size_t n, int64_t *env, int64_t *sweep)
{
	gc_db *db = NULL;

	snprintf(path, n, "/tmp/gct-model-db-%s-%d.db", tag, (int)getpid());
	unlink(path);
	if (gc_db_open(path, 0, &db, NULL) || add_env(db, &envs[0], env) ||
	    gc_db_sweep_begin(db, tag, "spec", "h", "syncsgd", sweep, NULL)) {
		gc_db_close(db);
		return NULL;
	}
	return db;
}

/* Placed by node (MPI), 4 ranks on 2 hosts put 2 of the ring's flows on each link and the
 * prediction uses half the cap per flow; NCCL orders its ring host by host (1 flow). The
 * fit is the flat ring of 4 hosts at 4 caps. */
static void test_ring_flows_of_placement(void)
{
	char path[256];
	int64_t s = 0, env = 0, mpi = 0, nccl = 0, none = 0, gath = 0;
	gc_db *db = small_db("f", path, sizeof path, &env, &s);
	gc_pdb p;

	CHECK(db != NULL);
	if (!db)
		return;
	for (size_t c = 0; c < 4; c++) {
		int64_t id;
		char pl[] = "n1:1,n2:1,n3:1,n4:1";
		CHECK(!add_placed(db, s, env, "mpi", 4, 4, pl, 1, caps[c], &id));
	}
	CHECK(!add_placed(db, s, env, "mpi", 4, 2, "n1:2,n2:2", 2, 3 * GBIT, &mpi));
	CHECK(!add_placed(db, s, env, "nccl", 4, 2, "n1:2,n2:2", 1, 3 * GBIT, &nccl));
	CHECK(!add_placed(db, s, env, "mpi", 4, 2, "", 2, 3 * GBIT, &none));  /* even deal */
	/* signSGD all-gathers: libnbc's linear all-gather puts 4/3 of a ring's load there */
	for (size_t c = 0; c < 4; c++) {
		int64_t id;
		CHECK(!add_placed_of(db, s, env, methods[1][0], methods[1][1], "mpi", 4, 4, "", 1,
				     caps[c], &id));
	}
	CHECK(!add_placed_of(db, s, env, methods[1][0], methods[1][1], "mpi", 4, 2, "n1:2,n2:2",
			     4.0 / 3, 3 * GBIT, &gath));
	CHECK_EQ_INT(gc_pdb_run(db, 0, &p, NULL), GC_OK);
	for (size_t i = 0; i < p.nrows; i++) {
		const gc_pdb_row *r = &p.rows[i];
		int want = r->run_id == mpi || r->run_id == none || r->run_id == gath ? 2 : 1;
		if (r->run_id == gath) {
			CHECK_NEAR(r->flows, 4.0 / 3, 1e-12);
			CHECK_NEAR(r->bw_bps * 4 / 3 / (double)r->bw_cap_bps, 1448.0 / 1514.0, 1e-9);
			CHECK(fabs(r->rel_err) < 0.05);
			continue;
		}
		CHECK_EQ_INT(r->ring_flows, want);
		CHECK_NEAR(r->gather_flows, want == 2 ? 4.0 / 3 : 1, 1e-12);
		CHECK_NEAR(r->flows, want, 1e-12);              /* sync SGD all-reduces */
		CHECK_NEAR(r->bw_bps * want / (double)r->bw_cap_bps, 1448.0 / 1514.0, 1e-9);
		if (r->run_id == mpi || r->run_id == nccl || r->run_id == none)
			CHECK(fabs(r->rel_err) < 0.05);
	}
	gc_pdb_release(&p);
	gc_db_close(db);
	unlink(path);
}

/* Under a trace the model's cap is the mean of the 1-s windows the run's players stored
 * (the rate it saw), not the trace's mean over a period; summary lines count nowhere. */
static void test_trace_cap_from_windows(void)
{
	static const char trace[] = "{\"name\":\"w.trace\",\"mean_bps\":1250000000,\"hosts\":{"
		"\"n1\":[{\"window\":0,\"trace_mean_bps\":500000000},{\"window\":1,"
		"\"trace_mean_bps\":2000000000},{\"window\":2,\"trace_mean_bps\":2000000000},"
		"{\"summary\":1,\"rc\":0}],\"n2\":[{\"window\":0,\"trace_mean_bps\":500000000},"
		"{\"window\":1,\"trace_mean_bps\":2000000000},{\"window\":2,"
		"\"trace_mean_bps\":2000000000}]}}";
	char path[256];
	int64_t s = 0, env = 0, plain = 0, traced = 0;
	gc_db *db = small_db("t", path, sizeof path, &env, &s);
	gc_pdb p;

	CHECK(db != NULL);
	if (!db)
		return;
	CHECK(!add_placed(db, s, env, "mpi", 4, 4, "", 1, 1250000000, &plain));
	CHECK(!add_placed(db, s, env, "mpi", 4, 4, "", 1, 1250000000, &traced));
	CHECK(!gc_db_run_set_network(db, traced, "trace", trace, NULL));
	CHECK_EQ_INT(gc_pdb_run(db, 0, &p, NULL), GC_OK);
	for (size_t i = 0; i < p.nrows; i++)
		CHECK_EQ_INT(p.rows[i].bw_cap_bps, p.rows[i].run_id == traced ? 1500000000 :
						   1250000000);
	gc_pdb_release(&p);
	gc_db_close(db);
	unlink(path);
}

/* An ok run of an unknown architecture is listed as skipped and gets no prediction. */
static void test_unknown_arch_skipped(void)
{
	struct gc_db_run run = { 0, "k", "train:mlp", "mlp-x", "syncsgd", "", 2, 2, 8, GBIT,
				 0, "mpi", 1, 10, 2, 0, 0, NULL, NULL };
	char path[256];
	gc_db *db = NULL;
	gc_pdb p;
	int64_t id;

	snprintf(path, sizeof path, "/tmp/gct-model-db-u-%d.db", (int)getpid());
	unlink(path);
	CHECK(!gc_db_open(path, 0, &db, NULL));
	CHECK(!gc_db_sweep_begin(db, "u", "spec", "h", "syncsgd", &run.sweep_id, NULL));
	CHECK(!gc_db_run_begin(db, &run, &id, NULL));
	CHECK(!gc_db_exec(db, "INSERT INTO iterations VALUES (1, 0, 0, 0, 0, 0.01, 0.02, 0, 0, "
			  "0.01, 0, 0.001, 0.05, 0, 0, 0, 0)", NULL));
	CHECK(!gc_db_run_end(db, id, GC_RUN_OK, NULL, NULL, NULL));
	CHECK_EQ_INT(gc_pdb_run(db, 1, &p, NULL), GC_OK);
	CHECK_EQ_INT(p.nrows, 1);
	CHECK_CONTAINS(p.rows[0].skipped, "mlp-x");
	CHECK_EQ_INT(p.stored, 0);
	CHECK_EQ_INT(count(gc_db_handle(db), "SELECT count(*) FROM predictions"), 0);
	gc_pdb_release(&p);
	gc_db_close(db);
	unlink(path);
}

int main(int argc, char **argv)
{
	char side[300];
	int n;

	if (argc == 3 && !strcmp(argv[1], "--make-db"))
		return make_db(argv[2], &n) ? 1 : 0;
	GCT_SUITE("model_db");
	snprintf(dbpath, sizeof dbpath, "/tmp/gct-model-db-%d.db", (int)getpid());
	GCT_RUN(test_fit_recovers_parameters);
	GCT_RUN(test_predictions_within_few_percent);
	GCT_RUN(test_bandwidth_source);
	GCT_RUN(test_out_of_sample_fit);
	GCT_RUN(test_one_prediction_per_ok_run);
	GCT_RUN(test_rerun_replaces);
	GCT_RUN(test_method_params);
	GCT_RUN(test_unknown_arch_skipped);
	GCT_RUN(test_ring_flows_of_placement);
	GCT_RUN(test_trace_cap_from_windows);
	GCT_RUN(test_variant_rates);
	gc_pdb_release(&res);
	unlink(dbpath);
	snprintf(side, sizeof side, "%s-wal", dbpath);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", dbpath);
	unlink(side);
	return gct_finish();
}

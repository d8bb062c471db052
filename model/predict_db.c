/* model/predict_db.c: fit the performance model to a results database and predict its
 * ok runs (predict_db.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/q_model.h"
#include "predict_db.h"
#include "racks.h"
#include "strutil.h"

#define TCP_OF_WIRE (1448.0 / 1514.0)
#define ARCH_CACHE 16

/* Per-row quantities the fit needs, computed once. */
struct rowx {
	double latency_s, compute_scale;
	double m_forward, m_backward, m_optimizer;
	double t_bwd_emul;          /* emulated backward of the arch, s */
	double numel, dec_elems;
	double steps, wire;         /* gc_model_comm_terms of one iteration */
	double link_bps;            /* mean goodput of its link rows, 0 if none */
	gc_model_method mm;
	int arch;                   /* index into the cache, -1 if skipped */
	double gather_bytes, reduce_bytes;   /* per worker and iteration, by exchange */
};

struct ctx {
	gc_db *db;
	gc_pdb *out;
	struct rowx *x;
	gc_arch arch[ARCH_CACHE];
	size_t narch;
	size_t exclude;             /* row left out of the fit (cross-validation), or -1 */
	const gc_pdb_fit *ext;      /* gc_pdb_run_with: every row predicted with this fit */
	double *v1, *v2, *v3;       /* scratch of nrows + 1 */
};

gc_rc gc_pdb_method(const char *method, const char *params, gc_model_method *out,
		    gc_err *e)
{
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	if (gc_method_parse(method, &out->p.method))
		return gc_fail(e, GC_E_INVAL, "unknown method '%s'", method);
	gc_params_default(&out->p, out->p.method);
	if ((rc = gc_params_set_list(&out->p, params, e)))
		return rc;
	snprintf(out->label, sizeof(out->label), "%s%s%s%s", method, *params ? "(" : "",
		 params, *params ? ")" : "");
	return GC_OK;
}

/* Index of the built arch `name` in the cache, building it; -1 if unknown. */
static int arch_get(struct ctx *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->narch; i++)
		if (!strcmp(c->arch[i].name, name))
			return (int)i;
	if (c->narch == ARCH_CACHE || gc_arch_build(name, &c->arch[c->narch], NULL))
		return -1;
	gc_strlcpy(c->arch[c->narch].name, name, sizeof(c->arch[0].name));
	return (int)c->narch++;
}

/* The ring's flows on its busiest host link and a linear all-gather's load there
 * (gc_pdb_row.ring_flows, gather_flows), from the stored placement ("n1:2,n2:2": ranks
 * per host in launch order), or with none stored from the world size dealt evenly over
 * the nodes. Both at least 1; 1 unless MPI on 2 or more hosts. */
static void host_flows(const struct gc_db_model_run *m, gc_pdb_row *r)
{
	int slots[256] = { 0 }, *host;
	size_t nh = 0, sum = 0;
	const char *s = m->placement;

	r->ring_flows = 1, r->gather_flows = 1, r->flows = 1;
	if (strcmp(m->backend, "mpi") || m->world_size < 2 || m->nodes < 2)
		return;
	while (s && *s && nh < 256) {      /* "NAME:N" separated by commas */
		const char *colon = strchr(s, ':'), *comma = strchr(s, ',');
		if (!colon || (comma && comma < colon) || atoi(colon + 1) < 1)
			break;
		slots[nh] = atoi(colon + 1);
		sum += (size_t)slots[nh++];
		s = comma ? comma + 1 : NULL;
	}
	if (sum != (size_t)m->world_size) {      /* none stored, or unreadable */
		nh = (size_t)(m->nodes < 256 ? m->nodes : 256);
		for (size_t h = 0; h < nh; h++)
			slots[h] = m->world_size / (int)nh + ((int)h < m->world_size % (int)nh);
	}
	if ((host = malloc((size_t)m->world_size * sizeof(int)))) {
		gc_ring_place_by_node(slots, nh, host, (size_t)m->world_size);
		r->ring_flows = gc_ring_host_flows(host, (size_t)m->world_size);
		r->gather_flows = gc_gather_host_flows(host, (size_t)m->world_size);
		free(host);
	}
	r->ring_flows = r->ring_flows > 1 ? r->ring_flows : 1;
	r->gather_flows = r->gather_flows > 1 ? r->gather_flows : 1;
	r->flows = r->ring_flows;     /* row_prepare picks by the method's exchange */
}

static void row_read(const struct gc_db_model_run *m, gc_pdb_row *r, struct rowx *x)
{
	memset(r, 0, sizeof(*r));
	memset(x, 0, sizeof(*x));
	r->run_id = m->run_id;
	r->env_id = m->env_id;
	gc_strlcpy(r->model, m->model, sizeof(r->model));
	gc_strlcpy(r->method, m->method, sizeof(r->method));
	gc_strlcpy(r->params, m->params, sizeof(r->params));
	r->world_size = m->world_size;
	r->nodes = m->nodes;
	host_flows(m, r);
	gc_strlcpy(r->network, m->network, sizeof(r->network));
	r->batch = m->batch;
	r->bw_cap_bps = (uint64_t)m->bw_cap_bps;
	r->point_cap_bps = (uint64_t)m->point_cap_bps;
	x->latency_s = m->latency_s;
	x->compute_scale = m->compute_scale;
	r->measured = m->t_iter;
	x->m_forward = m->t_forward;
	x->m_backward = m->t_backward;
	r->m_encode = m->t_encode;
	r->m_decode = m->t_decode;
	r->m_exposed = m->t_exposed;
	x->m_optimizer = m->t_optimizer;
	x->link_bps = m->link_goodput_bps;
	r->m_comm = m->t_comm;
	r->m_compute = x->m_forward + x->m_backward;
	x->arch = -1;
}

/* Arch, method, emulated backward, numel and decode work of one row. */
static void row_prepare(struct ctx *c, gc_pdb_row *r, struct rowx *x)
{
	gc_model_params mp;
	gc_buckets bk;
	gc_arch *a;
	gc_err e;
	size_t i;

	if (gc_pdb_method(r->method, r->params, &x->mm, &e)) {
		gc_strlcpy(r->skipped, e.msg, sizeof(r->skipped));
		return;
	}
	if ((x->arch = arch_get(c, r->model)) < 0) {
		snprintf(r->skipped, sizeof(r->skipped), "unknown architecture '%.64s'", r->model);
		return;
	}
	a = &c->arch[x->arch];
	gc_arch_set_timing(a, r->batch, GC_V100_FLOPS, x->compute_scale);
	x->t_bwd_emul = gc_arch_backward_total(a);
	x->numel = (double)a->numel;
	gc_model_params_default(&mp);
	if (gc_buckets_make(a, mp.first_bucket_bytes, mp.bucket_bytes, &bk, NULL)) {
		snprintf(r->skipped, sizeof(r->skipped), "cannot bucket '%.64s'", r->model);
		x->arch = -1;
		return;
	}
	for (i = 0; i < bk.n; i++) {
		size_t r0 = 0, r1 = 0;
		int g = gc_model_payload_p(a, &bk.b[i], &x->mm, r->world_size, &r0, &r1);
		*(g ? &x->gather_bytes : &x->reduce_bytes) += (double)(r0 + r1);
		x->dec_elems += gc_model_decode_elems(&x->mm, bk.b[i].numel, r->world_size);
	}
	r->flows = x->gather_bytes > x->reduce_bytes ? r->gather_flows : r->ring_flows;
	gc_buckets_release(&bk);
	if (gc_model_comm_terms(a, &x->mm, &mp, r->world_size, &x->steps, &x->wire, NULL)) {
		snprintf(r->skipped, sizeof(r->skipped), "cannot bucket '%.64s'", r->model);
		x->arch = -1;
	}
}

struct loading {
	struct ctx *c;
	size_t cap;
	int oom;
};

/* gc_db_model_runs callback: one run into the rows; stops when out of memory. */
static int row_add(const struct gc_db_model_run *m, void *arg)
{
	struct loading *l = arg;
	struct ctx *c = l->c;
	gc_pdb *p = c->out;

	if (p->nrows == l->cap) {
		size_t n = l->cap ? 2 * l->cap : 64;
		void *r2 = realloc(p->rows, n * sizeof(*p->rows));
		void *x2 = r2 ? realloc(c->x, n * sizeof(*c->x)) : NULL;
		if (r2)
			p->rows = r2;
		if (!x2)
			return l->oom = 1;
		c->x = x2, l->cap = n;
	}
	row_read(m, &p->rows[p->nrows], &c->x[p->nrows]);
	row_prepare(c, &p->rows[p->nrows], &c->x[p->nrows]);
	p->nrows++;
	return 0;
}

static gc_rc load_rows(struct ctx *c, gc_err *e)
{
	struct loading l = { c, 0, 0 };
	gc_rc rc = gc_db_model_runs(c->db, row_add, &l, e);

	if (l.oom)
		return gc_fail(e, GC_E_NOMEM, "out of memory reading runs");
	return rc;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median of v[0..n) (sorts v); 0 when n == 0. */
static double median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The link rows of one environment as fit_links sums them. */
struct links {
	gc_pdb_fit *f;
	double rtt[4096], ratio;
	size_t n, nr;
};

/* gc_db_env_links callback: RTTs (when measured) and goodput/cap (when both known). */
static int link_add(const struct gc_db_link_meas *l, void *arg)
{
	struct links *k = arg;

	k->f->n_links++;
	if (!isnan(l->rtt_s) && k->n < 4096 && l->rtt_s > 0)
		k->rtt[k->n++] = l->rtt_s;
	if (!isnan(l->goodput_bps) && l->cap_bps > 0)
		k->ratio += l->goodput_bps / l->cap_bps, k->nr++;
	return 0;
}

/* Links of the environment: median RTT -> alpha, mean goodput/cap. */
static gc_rc fit_links(struct ctx *c, gc_pdb_fit *f, gc_err *e)
{
	struct links k = { .f = f };
	gc_rc rc = gc_db_env_links(c->db, f->env_id, link_add, &k, e);

	if (rc)
		return rc;
	f->alpha_link = k.n ? median(k.rtt, k.n) / 2 : -1;   /* -1: per run latency + default */
	f->goodput_ratio = k.nr ? k.ratio / (double)k.nr : 0;
	return GC_OK;
}

/* Row i takes part in the fit of f: its environment, predictable, not left out. */
static int in_fit(const struct ctx *c, size_t i, const gc_pdb_fit *f)
{
	return c->out->rows[i].env_id == f->env_id && c->x[i].arch >= 0 && i != c->exclude;
}

/* lambda: measured backward over the emulated one, sync-SGD runs with p > 1, first
 * those where compute dominates. */
static void fit_lambda(struct ctx *c, gc_pdb_fit *f)
{
	const gc_pdb *p = c->out;
	size_t i, n;
	int pass;

	f->mp.lambda = 1;
	f->n_lambda = 0;
	for (pass = 0; pass < 2; pass++) {
		for (i = n = 0; i < p->nrows; i++) {
			const gc_pdb_row *r = &p->rows[i];
			const struct rowx *x = &c->x[i];
			if (!in_fit(c, i, f) || x->mm.p.method != GC_M_SYNCSGD || r->world_size < 2 ||
			    !(x->m_backward > 0) || !(x->t_bwd_emul > 0))
				continue;
			if (pass == 0 && !(r->m_exposed < 0.25 * r->measured))
				continue;
			c->v1[n] = x->t_bwd_emul, c->v2[n++] = x->m_backward;
		}
		if (n && !gc_model_fit_lambda(c->v1, c->v2, n, &f->mp.lambda, NULL)) {
			f->n_lambda = n;
			f->lambda_compute_bound = pass == 0;
			return;
		}
	}
}

/* Forward/backward ratio and optimizer seconds per parameter: medians over the runs. */
static void fit_fwd_opt(struct ctx *c, gc_pdb_fit *f)
{
	const gc_pdb *p = c->out;
	size_t i, n = 0, k = 0;

	f->n_runs = 0;
	for (i = 0; i < p->nrows; i++) {
		const struct rowx *x = &c->x[i];
		if (!in_fit(c, i, f) || !(x->t_bwd_emul > 0))
			continue;
		f->n_runs++;
		c->v1[n++] = x->m_forward / x->t_bwd_emul;
		if (x->numel > 0)
			c->v2[k++] = x->m_optimizer / x->numel;
	}
	f->mp.fwd_over_bwd = n ? median(c->v1, n) : 0.5;
	f->opt_per_elem = median(c->v2, k);
}

/* The encode (dec 0) or decode rate of method m's runs with p > 1, of variant v only
 * when v >= 0, into *rate and *count (0 and 0 when none fits). */
static void fit_rate(struct ctx *c, const gc_pdb_fit *f, int m, int v, int dec, double *rate,
		     size_t *count)
{
	const gc_pdb *p = c->out;
	size_t i, n = 0;

	for (i = 0; i < p->nrows; i++) {
		const gc_pdb_row *r = &p->rows[i];
		const struct rowx *x = &c->x[i];
		double sec = dec ? r->m_decode : r->m_encode;
		if (!in_fit(c, i, f) || (int)x->mm.p.method != m || r->world_size < 2 ||
		    !(sec > 0) || (v >= 0 && GC_PDB_VARIANT(&x->mm.p) != v))
			continue;
		c->v1[n] = dec ? x->dec_elems : x->numel, c->v2[n++] = sec;
	}
	*rate = 0;
	if (n && gc_model_fit_rate(c->v1, c->v2, n, rate, NULL))
		*rate = 0;
	*count = *rate > 0 ? n : 0;
}

/* Encode and decode rates of every method, and of each of its variants. */
static void fit_codecs(struct ctx *c, gc_pdb_fit *f)
{
	for (int m = 0; m < GC_M__COUNT; m++) {
		fit_rate(c, f, m, -1, 0, &f->mp.enc_rate[m], &f->n_enc[m]);
		fit_rate(c, f, m, -1, 1, &f->mp.dec_rate[m], &f->n_dec[m]);
		for (int v = 0; v < 4; v++) {
			fit_rate(c, f, m, v, 0, &f->var_enc[m][v], &f->n_var_enc[m][v]);
			fit_rate(c, f, m, v, 1, &f->var_dec[m][v], &f->n_var_dec[m][v]);
		}
	}
}

/* The bandwidth (bits/s) a run's prediction uses: one flow's share of the busiest link. */
static double run_bw(const gc_pdb_row *r, const struct rowx *x)
{
	if (x->link_bps > 0)
		return x->link_bps / r->flows;
	return r->bw_cap_bps ? (double)r->bw_cap_bps * TCP_OF_WIRE / r->flows :
			       GC_PDB_UNCAPPED_BPS;
}

/* The wire latency per hop of a run: the environment's RTT / 2, else its own. */
static double run_alpha(const gc_pdb_fit *f, const struct rowx *x)
{
	return f->alpha_link >= 0 ? f->alpha_link : x->latency_s + 25e-6;
}

/* Software latency per hop and host cost: what the measured time in collectives
 * (t_comm median) adds to the link's latency and bandwidth, runs with p > 1. */
static void fit_comm(struct ctx *c, gc_pdb_fit *f)
{
	const gc_pdb *p = c->out;
	size_t i, n = 0;

	f->alpha_sw = 0, f->mp.host_bw = 0, f->n_comm = 0;
	for (i = 0; i < p->nrows; i++) {
		const gc_pdb_row *r = &p->rows[i];
		const struct rowx *x = &c->x[i];
		if (!in_fit(c, i, f) || r->world_size < 2 || !(r->m_comm > 0) || !(x->steps > 0))
			continue;
		c->v1[n] = x->steps, c->v2[n] = x->wire;
		c->v3[n++] = r->m_comm - x->steps * run_alpha(f, x) - x->wire * 8 / run_bw(r, x);
	}
	if (n && !gc_model_fit_comm(c->v1, c->v2, c->v3, n, &f->alpha_sw, &f->mp.host_bw, NULL))
		f->n_comm = n;
}

/* Everything but the links, from the rows in_fit. */
static void fit_rest(struct ctx *c, gc_pdb_fit *f)
{
	fit_lambda(c, f);
	fit_fwd_opt(c, f);
	fit_codecs(c, f);
	fit_comm(c, f);
}

static gc_rc fit_all(struct ctx *c, gc_err *e)
{
	gc_pdb *p = c->out;
	size_t i;
	gc_rc rc;

	for (i = 0; i < p->nrows; i++) {
		gc_pdb_fit *f = &p->fits[p->nfits];
		if (gc_pdb_fit_of(p, p->rows[i].env_id))
			continue;
		if (p->nfits == GC_PDB_MAX_ENVS)
			return gc_fail(e, GC_E_INVAL, "more than %d environments; fit a copy of the "
				       "database with fewer", GC_PDB_MAX_ENVS);
		f->env_id = p->rows[i].env_id;
		gc_model_params_default(&f->mp);
		f->mp.codec_on_comm = 1;
		if ((rc = fit_links(c, f, e)))
			return rc;
		fit_rest(c, f);
		p->nfits++;
	}
	return GC_OK;
}

void gc_pdb_fit_params(const gc_pdb_fit *f, double numel, gc_model_params *mp)
{
	*mp = f->mp;
	mp->alpha = (f->alpha_link >= 0 ? f->alpha_link : 25e-6) + f->alpha_sw;
	mp->t_opt = f->opt_per_elem * numel;
}

gc_rc gc_pdb_fit_load(const char *path, int64_t env_id, gc_pdb_fit *out, gc_err *e)
{
	const gc_pdb_fit *f = NULL;
	gc_db *db = NULL;
	gc_pdb p;
	size_t i;
	gc_rc rc = gc_db_open(path, GC_DB_READONLY, &db, e);

	memset(&p, 0, sizeof(p));
	if (!rc)
		rc = gc_pdb_run(db, 0, &p, e);
	for (i = 0; !rc && i < p.nfits; i++)
		if (env_id < 0 ? !f || p.fits[i].n_runs > f->n_runs : p.fits[i].env_id == env_id)
			f = &p.fits[i];
	if (!rc && !f)
		rc = env_id < 0 ? gc_fail(e, GC_E_INVAL, "'%s' has no ok runs to fit the model "
					  "to; run a sweep first", path)
				: gc_fail(e, GC_E_INVAL, "'%s' has no ok runs of environment %lld "
					  "(gcbench model --db %s lists them)", path,
					  (long long)env_id, path);
	if (!rc)
		*out = *f;
	gc_pdb_release(&p);
	gc_db_close(db);
	return rc;
}

const gc_pdb_fit *gc_pdb_fit_of(const gc_pdb *p, int64_t env_id)
{
	size_t i;

	for (i = 0; i < p->nfits; i++)
		if (p->fits[i].env_id == env_id)
			return &p->fits[i];
	return NULL;
}

/* Predict row r with fit f into *out; 0 or -1 with r->skipped set. */
static int predict_with(struct ctx *c, const gc_pdb_fit *f, gc_pdb_row *r,
			const struct rowx *x, gc_model_result *out)
{
	gc_model_params mp;
	gc_arch *a = &c->arch[x->arch];
	gc_err e;

	gc_pdb_fit_params(f, x->numel, &mp);
	{
		int m = (int)x->mm.p.method, v = GC_PDB_VARIANT(&x->mm.p);
		if (f->n_var_enc[m][v])
			mp.enc_rate[m] = f->var_enc[m][v];
		if (f->n_var_dec[m][v])
			mp.dec_rate[m] = f->var_dec[m][v];
	}
	r->bw_bps = run_bw(r, x);
	mp.bw = r->bw_bps / 8;
	mp.alpha = run_alpha(f, x) + f->alpha_sw;
	gc_arch_set_timing(a, r->batch, GC_V100_FLOPS, x->compute_scale);
	if (gc_model_predict(a, &x->mm, &mp, r->world_size, out, &e)) {
		gc_strlcpy(r->skipped, e.msg, sizeof(r->skipped));
		return -1;
	}
	return 0;
}

static double rel(double pred, double measured)
{
	return measured > 0 ? (pred - measured) / measured : 0;
}

/* In-sample with its environment's fit, then leave-one-out: refit without the row. */
static void predict_row(struct ctx *c, size_t i)
{
	gc_pdb_row *r = &c->out->rows[i];
	const gc_pdb_fit *f = c->ext ? c->ext : gc_pdb_fit_of(c->out, r->env_id);
	gc_pdb_fit cv = *f;
	gc_model_result res;

	if (predict_with(c, f, r, &c->x[i], &r->pred))
		return;
	r->rel_err = rel(r->pred.total, r->measured);
	if (c->ext) {                      /* out of sample: nothing to leave out */
		r->cv_pred = NAN, r->cv_err = NAN;
		return;
	}
	c->exclude = i;
	fit_rest(c, &cv);
	c->exclude = (size_t)-1;
	r->cv_pred = predict_with(c, &cv, r, &c->x[i], &res) ? 0 : res.total;
	r->skipped[0] = '\0';
	r->cv_err = r->cv_pred > 0 ? rel(r->cv_pred, r->measured) : NAN;
}

void gc_pdb_fit_json(const gc_pdb_fit *f, gc_json *j)
{
	int m;

	gc_json_obj_open(j);
	gc_json_int_field(j, "env_id", (long long)f->env_id);
	gc_json_uint_field(j, "runs", f->n_runs);
	gc_json_uint_field(j, "links", f->n_links);
	gc_json_numg_field(j, "alpha_link_s", f->alpha_link, 6);
	gc_json_numg_field(j, "alpha_sw_s", f->alpha_sw, 6);
	gc_json_numg_field(j, "host_bw_Bps", f->mp.host_bw, 6);
	gc_json_uint_field(j, "comm_runs", f->n_comm);
	gc_json_numg_field(j, "goodput_ratio", f->goodput_ratio, 6);
	gc_json_numg_field(j, "lambda", f->mp.lambda, 6);
	gc_json_uint_field(j, "lambda_runs", f->n_lambda);
	gc_json_numg_field(j, "fwd_over_bwd", f->mp.fwd_over_bwd, 6);
	gc_json_numg_field(j, "optimizer_s_per_param", f->opt_per_elem, 6);
	gc_json_key(j, "codecs");
	gc_json_obj_open(j);
	for (m = 1; m < GC_M__COUNT; m++) {
		gc_json_key(j, gc_method_name((gc_method)m));
		gc_json_obj_open(j);
		gc_json_numg_field(j, "encode_rate", f->mp.enc_rate[m], 6);
		gc_json_numg_field(j, "decode_rate", f->mp.dec_rate[m], 6);
		gc_json_obj_close(j);
	}
	gc_json_obj_close(j);
	gc_json_obj_close(j);
}

/* One row of model_fits: the fit as gc_pdb_fit_json writes it. */
static gc_rc store_fit(struct ctx *c, const gc_pdb_fit *f, gc_err *e)
{
	gc_buf js = GC_BUF_INIT;
	gc_json j;
	gc_rc rc;

	gc_json_init(&j, &js, 0);
	gc_pdb_fit_json(f, &j);
	rc = gc_json_finish(&j);
	if (rc)
		gc_fail(e, rc, "cannot write the fit as JSON: %s", gc_strerror(rc));
	else
		rc = gc_db_model_fit_put(c->db, f->env_id, GC_PDB_VERSION, f->n_runs, js.p, e);
	gc_buf_release(&js);
	return rc;
}

static gc_rc store_all(struct ctx *c, gc_err *e)
{
	gc_pdb *p = c->out;
	size_t i;
	gc_rc rc;

	if ((rc = gc_db_begin(c->db, e)))
		return rc;
	for (i = 0; i < p->nrows; i++) {
		const gc_pdb_row *r = &p->rows[i];
		struct gc_db_prediction d = { GC_PDB_VERSION, r->pred.total, r->pred.compute,
					      r->pred.encode, r->pred.decode, r->pred.comm,
					      r->pred.exposed };
		if (r->skipped[0])
			continue;
		if ((rc = gc_db_prediction_put(c->db, r->run_id, &d, e))) {
			gc_db_rollback(c->db);
			return rc;
		}
		p->stored++;
	}
	for (i = 0; i < p->nfits; i++) {
		if ((rc = store_fit(c, &p->fits[i], e))) {
			gc_db_rollback(c->db);
			return rc;
		}
	}
	return gc_db_commit(c->db, e);
}

/* Median and worst |error| per method, in the order methods first appear. */
static void summarize(gc_pdb *p)
{
	double v[4096];
	size_t i, j, n;

	for (i = 0; i < p->nrows; i++) {
		gc_pdb_method_err *m = NULL;
		if (p->rows[i].skipped[0])
			continue;
		for (j = 0; j < p->nmethods && !m; j++)
			if (!strcmp(p->methods[j].method, p->rows[i].method))
				m = &p->methods[j];
		if (!m && p->nmethods < sizeof(p->methods) / sizeof(p->methods[0])) {
			m = &p->methods[p->nmethods++];
			gc_strlcpy(m->method, p->rows[i].method, sizeof(m->method));
		}
	}
	for (j = 0; j < p->nmethods; j++) {
		gc_pdb_method_err *m = &p->methods[j];
		size_t k = 0;
		for (i = n = 0; i < p->nrows && n < 4096; i++)
			if (!p->rows[i].skipped[0] && !strcmp(p->rows[i].method, m->method))
				v[n++] = fabs(p->rows[i].rel_err);
		m->n = n;
		m->median_abs = median(v, n);
		m->worst_abs = n ? v[n - 1] : 0;
		for (i = 0; i < p->nrows && k < 4096; i++)
			if (!p->rows[i].skipped[0] && !strcmp(p->rows[i].method, m->method) &&
			    isfinite(p->rows[i].cv_err))
				v[k++] = fabs(p->rows[i].cv_err);
		m->n_cv = k;
		m->median_abs_cv = k ? median(v, k) : NAN;
	}
}

static gc_rc run(gc_db *db, int store, const gc_pdb_fit *ext, gc_pdb *out, gc_err *e);

gc_rc gc_pdb_run(gc_db *db, int store, gc_pdb *out, gc_err *e)
{
	return run(db, store, NULL, out, e);
}

gc_rc gc_pdb_run_with(gc_db *db, const gc_pdb_fit *fit, gc_pdb *out, gc_err *e)
{
	return run(db, 0, fit, out, e);
}

static gc_rc run(gc_db *db, int store, const gc_pdb_fit *ext, gc_pdb *out, gc_err *e)
{
	struct ctx c;
	size_t i;
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.db = db, c.out = out, c.exclude = (size_t)-1, c.ext = ext;
	if ((rc = load_rows(&c, e)))
		goto out;
	c.v1 = malloc((out->nrows + 1) * sizeof(double));
	c.v2 = malloc((out->nrows + 1) * sizeof(double));
	c.v3 = malloc((out->nrows + 1) * sizeof(double));
	if (!c.v1 || !c.v2 || !c.v3) {
		rc = gc_fail(e, GC_E_NOMEM, "out of memory fitting the model");
		goto out;
	}
	if ((rc = fit_all(&c, e)))
		goto out;
	for (i = 0; i < out->nrows; i++)
		if (!out->rows[i].skipped[0])
			predict_row(&c, i);
	summarize(out);
	if (store)
		rc = store_all(&c, e);
out:
	for (i = 0; i < c.narch; i++)
		gc_arch_release(&c.arch[i]);
	free(c.x);
	free(c.v1);
	free(c.v2);
	free(c.v3);
	return rc;
}

void gc_pdb_release(gc_pdb *p)
{
	if (!p)
		return;
	free(p->rows);
	p->rows = NULL;
	p->nrows = 0;
}

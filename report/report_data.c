/* report/report_data.c: the sections of gcbench report: their tables and charts
 * (report.h), from the queries of db/q_report.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/q_report.h"
#include "model/predict_db.h"
#include "report_int.h"
#include "model/whatif.h"
#include "grow.h"
#include "strutil.h"

#define MAX_SERIES 16
#define MAX_GROUPS 16

/* One row of any section's query: the point and up to 8 numbers. */
struct row {
	char model[64], label[96], method[32], params[256];
	char network[96];       /* "uniform", "slow n3:0.5", ...; "" for sections without */
	int p;
	double gbps;            /* 0: unlimited */
	double v[8];
};

struct rows {
	struct row *r;
	size_t n;
};

struct loading {
	struct rows *out;
	size_t cap;
};

/* gc_db_point_fn: one row of a section's query into out; stops when out of memory. */
static int row_add(const struct gc_db_point_row *w, void *arg)
{
	struct loading *l = arg;
	struct rows *out = l->out;
	struct row *r;
	size_t i;

	if (GC_GROW(out->r, l->cap, out->n + 1, 64))
		return 1;
	r = &out->r[out->n++];
	memset(r, 0, sizeof(*r));
	gc_strlcpy(r->model, w->model, sizeof r->model);
	gc_strlcpy(r->method, w->method, sizeof r->method);
	gc_strlcpy(r->params, w->params, sizeof r->params);
	gc_strlcpy(r->network, w->network ? w->network : "", sizeof r->network);
	gc_report_short_label(r->method, r->params, r->label, sizeof r->label);
	r->p = w->world_size;
	r->gbps = (double)w->bw_cap_bps / 1e9;
	for (i = 0; i < w->nv && i < 8; i++)
		r->v[i] = w->v[i];
	return 0;
}

/* The rows of one section's query (db/q_report.h); what the query could read, none
 * when it failed: the section then says it has no data. */
static void load(struct gc_rep *rp,
		 gc_rc (*query)(gc_db *db, gc_db_point_fn fn, void *arg, gc_err *e),
		 struct rows *out)
{
	struct loading l = { out, 0 };

	memset(out, 0, sizeof(*out));
	query(rp->db, row_add, &l, NULL);
}

/* a row's network as a suffix of a chart's name: "" for uniform, " (slow n3:0.5)" */
static void net_suffix(const struct row *w, char *buf, size_t n)
{
	if (!*w->network || !strcmp(w->network, "uniform"))
		gc_strlcpy(buf, "", n);
	else
		snprintf(buf, n, " (%.80s)", w->network);
}

/* Distinct models of rs, in order. */
static size_t models(const struct rows *rs, char (*m)[64], size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < rs->n; i++) {
		for (j = 0; j < n && strcmp(m[j], rs->r[i].model); j++)
			;
		if (j == n && n < max)
			gc_strlcpy(m[n++], rs->r[i].model, 64);
	}
	return n;
}

static int model_world_sizes(const struct rows *rs, const char *model)
{
	size_t i;
	int first = 0;

	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->r[i].model, model)) {
			if (first && rs->r[i].p != first)
				return 2;
			first = rs->r[i].p;
		}
	return first ? 1 : 0;
}

/* The series of one model's speedup chart: one per (label, world size). */
static void speedup_chart(struct gc_rep *r, const struct rows *rs, const char *model)
{
	static double xs[MAX_SERIES][256], ys[MAX_SERIES][256];
	char names[MAX_SERIES][128], title[160], key0[96];
	gc_svg_series s[MAX_SERIES];
	gc_svg_xy c = { 0 };
	gc_buf svg = { 0 };
	int multi = model_world_sizes(rs, model) > 1;
	size_t i, j, ns = 0;
	double lo = INFINITY, hi = 0;

	for (i = 0; i < rs->n; i++) {
		const struct row *w = &rs->r[i];
		char key[128], net[96];
		if (strcmp(w->model, model) || !(w->gbps > 0))
			continue;
		net_suffix(w, net, sizeof net);   /* a series per network too */
		if (multi)
			snprintf(key, sizeof key, "%.60s, p=%d%.60s", w->label, w->p, net);
		else
			snprintf(key, sizeof key, "%.60s%.60s", w->label, net);
		for (j = 0; j < ns && strcmp(names[j], key); j++)
			;
		if (j == ns) {
			if (ns == MAX_SERIES)
				continue;
			gc_strlcpy(names[ns], key, sizeof names[0]);
			s[ns] = (gc_svg_series){ names[ns], xs[ns], ys[ns], 0 };
			ns++;
		}
		if (s[j].n < 256) {
			xs[j][s[j].n] = w->gbps, ys[j][s[j].n++] = w->v[0];
			lo = fmin(lo, w->gbps), hi = fmax(hi, w->gbps);
		}
	}
	snprintf(title, sizeof title, "Speedup vs bandwidth: %.64s", model);
	c.title = title, c.xlabel = "link bandwidth cap (Gbit/s)";
	c.ylabel = "speedup over sync SGD (x)";
	c.empty_hint = "no capped runs with a baseline at the same point";
	c.xlog = hi >= 8 * lo, c.hline_on = 1, c.hline = 1, c.hline_label = "1.0 = sync SGD";
	c.s = s, c.ns = ns;
	gc_svg_xy_chart(&svg, &c);
	snprintf(key0, sizeof key0, "speedup-%.64s", model);
	gc_rep_figure(r, key0, &svg, title);
	gc_buf_release(&svg);
}

void gc_rep_speedup(struct gc_rep *r)
{
	static const char *const head[] = { "model", "method", "workers", "cap", "network",
					    "iteration ms", "baseline ms", "speedup" };
	char ms[MAX_GROUPS][64], c[8][96];
	const char *cells[8];
	struct rows rs;
	size_t i, k, n;

	load(r, gc_db_report_speedup, &rs);
	gc_rep_h2(r, "Speedup over sync SGD vs bandwidth");
	gc_rep_p(r, "Speedup = the baseline's median iteration time / the method's, at the same "
		 "model, bandwidth cap, network, workers, batch and environment (mean over repeats "
		 "and environments). Network: uniform, or the point's network axes (a slow host, "
		 "a rack uplink, background flows, a bandwidth trace); a point is compared with "
		 "the baseline of its own network. Above the dashed 1.0 line compression is "
		 "faster.");
	n = models(&rs, ms, MAX_GROUPS);
	for (i = 0; i < n; i++)
		speedup_chart(r, &rs, ms[i]);
	if (!n)
		speedup_chart(r, &rs, "no runs");
	gc_rep_table(r, head, 8);
	for (i = 0; i < rs.n; i++) {
		const struct row *w = &rs.r[i];
		gc_strlcpy(c[0], w->model, 96), gc_strlcpy(c[1], w->label, 96);
		snprintf(c[2], 96, "%d", w->p);
		gc_rep_cap(c[3], 96, w->gbps);
		gc_strlcpy(c[4], w->network, 96);
		snprintf(c[5], 96, "%.1f", w->v[1] * 1e3);
		snprintf(c[6], 96, "%.1f", w->v[2] * 1e3);
		snprintf(c[7], 96, "%.3f", w->v[0]);
		for (k = 0; k < 8; k++)
			cells[k] = c[k];
		gc_rep_row(r, cells, 8);
	}
	gc_rep_table_end(r);
	free(rs.r);
}

#define NSTACK 5
static const char *const stack_names[NSTACK] = { "compute (fwd + bwd)", "encode",
						 "exposed communication", "decode", "optimizer" };

/* compute, encode, exposed, decode, optimizer of a breakdown row (seconds) */
static void stacks_of(const struct row *w, double *v)
{
	double c = w->v[0], en = w->v[1], de = w->v[2], op = w->v[3], it = w->v[4];

	v[0] = c, v[1] = en, v[3] = de, v[4] = op;
	v[2] = fmax(0, it - c - en - de - op);
}

static size_t find_or_add(char (*names)[96], size_t *n, size_t max, const char *s)
{
	size_t j;

	for (j = 0; j < *n && strcmp(names[j], s); j++)
		;
	if (j == *n && *n < max)
		gc_strlcpy(names[(*n)++], s, 96);
	return j;
}

static void breakdown_chart(struct gc_rep *r, const struct rows *rs, const char *model, int p)
{
	static double v[MAX_GROUPS * MAX_SERIES * NSTACK];
	char gn[MAX_GROUPS][96], bn[MAX_SERIES][96], title[160], slug[96], g[96], net[96];
	const char *gp[MAX_GROUPS], *bp[MAX_SERIES];
	size_t i, ng = 0, nb = 0, gi, bi, k;
	gc_svg_bars c = { 0 };
	gc_buf svg = { 0 };

	for (i = 0; i < MAX_GROUPS * MAX_SERIES * NSTACK; i++)
		v[i] = NAN;
	for (i = 0; i < rs->n; i++) {
		const struct row *w = &rs->r[i];
		if (strcmp(w->model, model) || w->p != p)
			continue;
		gc_rep_cap(g, 32, w->gbps);
		net_suffix(w, net, sizeof net);    /* a group per cap and network */
		strncat(g, net, sizeof g - strlen(g) - 1);
		gi = find_or_add(gn, &ng, MAX_GROUPS, g);
		bi = find_or_add(bn, &nb, MAX_SERIES, w->label);
		if (gi < MAX_GROUPS && bi < MAX_SERIES)
			stacks_of(w, &v[(gi * MAX_SERIES + bi) * NSTACK]);
	}
	for (k = 0; k < ng; k++)          /* pack [g][MAX_SERIES] into [g][nb] */
		memmove(&v[k * nb * NSTACK], &v[k * MAX_SERIES * NSTACK], nb * NSTACK * sizeof(*v));
	for (k = 0; k < ng; k++)
		gp[k] = gn[k];
	for (k = 0; k < nb; k++)
		bp[k] = bn[k];
	snprintf(title, sizeof title, "Iteration time breakdown: %.64s, %d workers", model, p);
	c.title = title, c.xlabel = "link bandwidth cap; bars numbered by method (legend)";
	c.ylabel = "median iteration time (s)", c.empty_hint = "no ok runs";
	c.ngroups = ng, c.nbars = nb, c.nstacks = NSTACK;
	c.groups = gp, c.bars = bp, c.stacks = stack_names, c.v = v;
	gc_svg_bar_chart(&svg, &c);
	snprintf(slug, sizeof slug, "breakdown-%.64s-p%d", model, p);
	gc_rep_figure(r, slug, &svg, title);
	gc_buf_release(&svg);
}

static void breakdown_table(struct gc_rep *r, const struct rows *rs)
{
	static const char *const head[] = { "model", "method", "workers", "cap", "network",
					    "iteration ms", "compute ms", "encode ms",
					    "exposed comm ms", "decode ms", "optimizer ms" };
	char c[11][96];
	const char *cells[11];
	double s[NSTACK];
	size_t i, k;

	gc_rep_table(r, head, 11);
	for (i = 0; i < rs->n; i++) {
		const struct row *w = &rs->r[i];
		stacks_of(w, s);
		gc_strlcpy(c[0], w->model, 96), gc_strlcpy(c[1], w->label, 96);
		snprintf(c[2], 96, "%d", w->p);
		gc_rep_cap(c[3], 96, w->gbps);
		gc_strlcpy(c[4], w->network, 96);
		snprintf(c[5], 96, "%.1f", w->v[4] * 1e3);
		for (k = 0; k < NSTACK; k++)
			snprintf(c[6 + k], 96, "%.1f", s[k] * 1e3);
		for (k = 0; k < 11; k++)
			cells[k] = c[k];
		gc_rep_row(r, cells, 11);
	}
	gc_rep_table_end(r);
}

void gc_rep_breakdown(struct gc_rep *r)
{
	char ms[MAX_GROUPS][64];
	int ps[MAX_GROUPS];
	struct rows rs;
	size_t i, j, k, n, np;

	load(r, gc_db_report_breakdown, &rs);
	gc_rep_h2(r, "Where the iteration time goes");
	gc_rep_p(r, "Medians over ranks and post-warmup iterations. Exposed communication is the "
		 "part of the measured iteration not covered by compute, encode, decode and the "
		 "optimizer (on CPU workers encode and decode run on the communication thread, "
		 "partly hidden behind backward).");
	n = models(&rs, ms, MAX_GROUPS);
	for (i = 0; i < n; i++) {
		for (j = np = 0; j < rs.n; j++) {
			if (strcmp(rs.r[j].model, ms[i]))
				continue;
			for (k = 0; k < np && ps[k] != rs.r[j].p; k++)
				;
			if (k == np && np < MAX_GROUPS)
				ps[np++] = rs.r[j].p;
		}
		for (k = 0; k < np; k++)
			breakdown_chart(r, &rs, ms[i], ps[k]);
	}
	if (!n)
		breakdown_chart(r, &rs, "no runs", 0);
	breakdown_table(r, &rs);
	free(rs.r);
}

static void pred_chart(struct gc_rep *r, const struct rows *rs)
{
	static double xs[MAX_SERIES][1024], ys[MAX_SERIES][1024];
	char names[MAX_SERIES][96], hint[300];
	gc_svg_series s[MAX_SERIES];
	gc_svg_xy c = { 0 };
	gc_buf svg = { 0 };
	double lo = INFINITY, hi = 0;
	size_t i, j, ns = 0;

	for (i = 0; i < rs->n; i++) {
		const struct row *w = &rs->r[i];
		size_t before = ns;
		j = find_or_add(names, &ns, MAX_SERIES, w->label);
		if (j == MAX_SERIES)
			continue;
		if (ns > before)
			s[j] = (gc_svg_series){ names[j], xs[j], ys[j], 0 };
		if (s[j].n < 1024) {
			xs[j][s[j].n] = w->v[0] * 1e3, ys[j][s[j].n++] = w->v[1] * 1e3;
			lo = fmin(lo, fmin(w->v[0], w->v[1])), hi = fmax(hi, fmax(w->v[0], w->v[1]));
		}
	}
	snprintf(hint, sizeof hint, "no predictions: run 'gcbench model --db %.200s' first",
		 r->db_label);
	c.title = "Predicted vs measured iteration time";
	c.xlabel = "measured median iteration time (ms)";
	c.ylabel = "predicted iteration time (ms)";
	c.empty_hint = hint, c.scatter = 1, c.diag = 1;
	c.xlog = c.ylog = hi > 10 * lo;
	c.s = s, c.ns = ns;
	gc_svg_xy_chart(&svg, &c);
	gc_rep_figure(r, "predicted-vs-measured", &svg, c.title);
	gc_buf_release(&svg);
}

void gc_rep_predictions(struct gc_rep *r)
{
	static const char *const head[] = { "run", "model", "method", "workers", "cap",
					    "measured ms", "predicted ms", "error" };
	char c[8][64], msg[400];
	const char *cells[8];
	struct rows rs;
	size_t i, k;

	memset(&rs, 0, sizeof rs);
	load(r, gc_db_report_predictions, &rs);
	gc_rep_h2(r, "The performance model: predicted vs measured");
	if (!rs.n) {
		snprintf(msg, sizeof msg, "There are no predictions in this database yet: run "
			 "'gcbench model --db %.200s' first, then this report again.", r->db_label);
		gc_rep_p(r, msg);
	} else {
		gc_rep_p(r, "Each point is one ok run: its measured median iteration time and the "
			 "time the model fitted to this database predicts (the newest model "
			 "version). On the dashed y = x line the model is exact.");
	}
	pred_chart(r, &rs);
	if (rs.n) {
		gc_rep_table(r, head, 8);
		for (i = 0; i < rs.n; i++) {
			const struct row *w = &rs.r[i];
			snprintf(c[0], 64, "%lld", (long long)w->v[2]);
			gc_strlcpy(c[1], w->model, 64), gc_strlcpy(c[2], w->label, 64);
			snprintf(c[3], 64, "%d", w->p);
			gc_rep_cap(c[4], 64, w->gbps);
			snprintf(c[5], 64, "%.1f", w->v[0] * 1e3);
			snprintf(c[6], 64, "%.1f", w->v[1] * 1e3);
			snprintf(c[7], 64, "%+.1f%%", (w->v[1] / w->v[0] - 1) * 100);
			for (k = 0; k < 8; k++)
				cells[k] = c[k];
			gc_rep_row(r, cells, 8);
		}
		gc_rep_table_end(r);
	}
	free(rs.r);
}

static const int wl_workers[] = { 2, 4, 8, 16, 32, 64 };
static const double wl_gbps[] = { 1, 2, 5, 10, 25, 50, 100 };
#define WL_NW (sizeof(wl_workers) / sizeof(wl_workers[0]))
#define WL_NB (sizeof(wl_gbps) / sizeof(wl_gbps[0]))

static void heat(struct gc_rep *r, const char *title, const char *slug, size_t nx, size_t ny,
		 char (*xn)[32], char (*yn)[32], const double *v)
{
	const char *xp[64], *yp[64];
	gc_svg_heat c = { 0 };
	gc_buf svg = { 0 };
	size_t i;

	for (i = 0; i < nx && i < 64; i++)
		xp[i] = xn[i];
	for (i = 0; i < ny && i < 64; i++)
		yp[i] = yn[i];
	c.title = title, c.xlabel = "link bandwidth cap (Gbit/s)", c.ylabel = "workers";
	c.empty_hint = "no runs to predict from", c.pivot = 1;
	c.nx = nx, c.ny = ny, c.xnames = xp, c.ynames = yp, c.v = v;
	gc_svg_heat_map(&svg, &c);
	gc_rep_figure(r, slug, &svg, title);
	gc_buf_release(&svg);
}

/* Measured maps: one per (model, method label) of the speedup rows. */
static void winlose_measured(struct gc_rep *r, const struct rows *rs, const char *model)
{
	char labels[MAX_SERIES][96], xn[64][32], yn[64][32], title[200], slug[200];
	double xs[64], v[64 * 64];
	int ys[64];
	size_t i, j, nl = 0, nx = 0, ny = 0, x, y;

	for (i = 0; i < rs->n; i++)
		if (!strcmp(rs->r[i].model, model))
			find_or_add(labels, &nl, MAX_SERIES, rs->r[i].label);
	for (j = 0; j < nl; j++) {
		nx = ny = 0;
		for (i = 0; i < 64 * 64; i++)
			v[i] = NAN;
		for (i = 0; i < rs->n; i++) {
			const struct row *w = &rs->r[i];
			if (strcmp(w->model, model) || strcmp(w->label, labels[j]))
				continue;
			for (x = 0; x < nx && xs[x] != w->gbps; x++)
				;
			for (y = 0; y < ny && ys[y] != w->p; y++)
				;
			if (x == 64 || y == 64)
				continue;
			if (x == nx)
				xs[nx] = w->gbps, gc_rep_cap(xn[nx], 32, w->gbps), nx++;
			if (y == ny)
				ys[ny] = w->p, snprintf(yn[ny], 32, "%d", w->p), ny++;
			v[y * 64 + x] = w->v[0];
		}
		for (y = 0; y < ny; y++)               /* pack rows of 64 into rows of nx */
			memmove(&v[y * nx], &v[y * 64], nx * sizeof(double));
		snprintf(title, sizeof title, "Win/lose map (measured): %.64s %.96s", model, labels[j]);
		snprintf(slug, sizeof slug, "winlose-%.64s-%.96s", model, labels[j]);
		heat(r, title, slug, nx, ny, xn, yn, v);
	}
}

/* One predicted map: method m of arch a over wl_workers x wl_gbps with w's params. */
static void winlose_model_one(struct gc_rep *r, gc_whatif *w, gc_arch *a,
			      const struct row *m, int64_t env)
{
	char xn[64][32], yn[64][32], title[240], slug[200];
	double v[WL_NW * WL_NB];
	gc_model_method mm;
	gc_model_result rm, rs;
	size_t x, y;

	if (gc_pdb_method(m->method, m->params, &mm, NULL))
		return;
	for (y = 0; y < WL_NW; y++) {
		snprintf(yn[y], 32, "%d", wl_workers[y]);
		for (x = 0; x < WL_NB; x++)
			if (gc_whatif_point(w, a, &mm, wl_workers[y], wl_gbps[x], 1, &v[y * WL_NB + x],
					    &rm, &rs, NULL))
				v[y * WL_NB + x] = NAN;
	}
	for (x = 0; x < WL_NB; x++)
		gc_rep_cap(xn[x], 32, wl_gbps[x]);
	snprintf(title, sizeof title, "Win/lose map (model, environment %lld): %.64s %.96s",
		 (long long)env, m->model, m->label);
	snprintf(slug, sizeof slug, "winlose-model-%.64s-%.96s", m->model, m->label);
	heat(r, title, slug, WL_NB, WL_NW, xn, yn, v);
}

/* Predicted maps for the first model of the database the model knows, with the fit of
 * its environment. */
static void winlose_model(struct gc_rep *r)
{
	const gc_pdb_fit *f = NULL;
	const struct row *m0 = NULL;
	const gc_pdb *pdb;
	struct rows ms;
	gc_whatif w;
	gc_arch a;
	size_t i;

	load(r, gc_db_report_methods, &ms);
	if (ms.n && (pdb = gc_rep_fits(r)))
		for (i = 0; i < ms.n && !m0; i++)
			if ((f = gc_pdb_fit_of(pdb, (int64_t)ms.r[i].v[1])) &&
			    !gc_arch_build(ms.r[i].model, &a, NULL))
				m0 = &ms.r[i];
	if (!m0) {
		heat(r, "Win/lose map (model)", "winlose-model", 0, 0, NULL, NULL, NULL);
		goto out;
	}
	memset(&w, 0, sizeof w);
	gc_strlcpy(w.model, m0->model, sizeof w.model);
	w.batch = (int)m0->v[0];
	gc_pdb_fit_params(f, (double)a.numel, &w.mp);
	for (i = 0; i < ms.n; i++)
		if (!strcmp(ms.r[i].model, m0->model))
			winlose_model_one(r, &w, &a, &ms.r[i], f->env_id);
	gc_arch_release(&a);
out:
	free(ms.r);
}

void gc_rep_winlose(struct gc_rep *r)
{
	char ms[MAX_GROUPS][64];
	struct rows rs;
	size_t i, n, measured = 0;

	load(r, gc_db_report_speedup, &rs);
	for (i = n = 0; i < rs.n; i++)     /* the maps are of uniform networks */
		if (!strcmp(rs.r[i].network, "uniform"))
			rs.r[n++] = rs.r[i];
	rs.n = n;
	gc_rep_h2(r, "Win/lose maps: bandwidth x workers");
	n = models(&rs, ms, MAX_GROUPS);
	for (i = 0; i < n; i++)
		measured += model_world_sizes(&rs, ms[i]) > 1;
	r->st->winlose_measured = measured > 0;
	if (measured) {
		gc_rep_p(r, "Measured speedup over sync SGD per bandwidth cap and worker count (uniform "
			 "networks only): "
			 "green cells, compression wins; red, sync SGD wins; grey, not measured.");
		for (i = 0; i < n; i++)
			if (model_world_sizes(&rs, ms[i]) > 1)
				winlose_measured(r, &rs, ms[i]);
	} else {
		gc_rep_p(r, "The database holds one world size per model, so these maps are the "
			 "performance model's what-if (the model fitted to this database: its "
			 "latency, lambda and encode/decode rates, at each cap's bandwidth, with the "
			 "measured model and batch): green, compression is predicted to win; red, "
			 "sync SGD. Predictions, not measurements.");
		winlose_model(r);
	}
	free(rs.r);
}

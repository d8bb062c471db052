/* report/report_whatif.c: the what-if section of gcbench report (report_int.h): the
 * predicted speedup over sync SGD against bandwidth, a line per method, at 1x and 4x
 * compute and two worker counts (the charts `gcbench whatif --svg` draws), first with
 * the paper preset (the study's setting, model/whatif.h), then with the model fitted
 * to each environment of the database (as `gcbench whatif --db` uses it); below each
 * set, the crossover bandwidths. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_int.h"
#include "whatif_svg.h"
#include "strutil.h"

#define WI_MAX_ENVS 2           /* environments drawn, the most ok runs first */
#define WI_FIT_WORKERS 64       /* the fit's second worker count */

static const double wi_speeds[] = { 1, 4 };
#define WI_NSPEED (sizeof(wi_speeds) / sizeof(wi_speeds[0]))
static const int wi_paper_workers[] = { 8, 96 };   /* the ends of the study's range */

/* "never", "still wins at 10000" or the crossover in Gbit/s. */
static void fmt_cross(char *buf, size_t n, double x)
{
	if (x == 0)
		snprintf(buf, n, "never");
	else if (isinf(x))
		snprintf(buf, n, "still wins at 10000");
	else
		snprintf(buf, n, "%.3g", x);
}

/* The crossover bandwidth of each method at each (speed, workers) of the charts. */
static void cross_table(struct gc_rep *r, const gc_whatif *w, gc_arch *a, const int *workers,
			size_t nw)
{
	char cells[2 + GC_WHATIF_MAX_METHODS][48];
	const char *cp[2 + GC_WHATIF_MAX_METHODS];
	size_t i, j, k, nc = 2 + w->nmethods;
	double x;

	snprintf(cells[0], sizeof cells[0], "compute");
	snprintf(cells[1], sizeof cells[1], "workers");
	for (k = 0; k < nc; k++)
		cp[k] = k < 2 ? cells[k] : w->methods[k - 2].label;
	gc_rep_table(r, cp, nc);
	for (i = 0; i < WI_NSPEED; i++)
		for (j = 0; j < nw; j++) {
			snprintf(cells[0], sizeof cells[0], "%gx", wi_speeds[i]);
			snprintf(cells[1], sizeof cells[1], "%d", workers[j]);
			for (k = 0; k < w->nmethods; k++) {
				if (gc_whatif_crossover(w, a, &w->methods[k], workers[j], wi_speeds[i],
							wi_speeds[i], &x, NULL))
					snprintf(cells[2 + k], sizeof cells[2 + k], "-");
				else
					fmt_cross(cells[2 + k], sizeof cells[2 + k], x);
				cp[2 + k] = cells[2 + k];
			}
			cp[0] = cells[0], cp[1] = cells[1];
			gc_rep_row(r, cp, nc);
		}
	gc_rep_table_end(r);
}

/* The charts of w at wi_speeds x workers (slug names the files), then the crossovers. */
static void charts(struct gc_rep *r, const gc_whatif *w, gc_arch *a, const int *workers,
		   size_t nw, const char *slug)
{
	char title[400], s[200], msg[600];
	size_t i, j;
	gc_err e = { "" };

	for (i = 0; i < WI_NSPEED; i++)
		for (j = 0; j < nw; j++) {
			gc_buf svg = { 0 };
			if (gc_whatif_svg_chart(w, a, workers[j], wi_speeds[i], wi_speeds[i], &svg,
						title, sizeof title, &e)) {
				snprintf(msg, sizeof msg, "Chart not drawn (%d workers, %gx): %s",
					 workers[j], wi_speeds[i], e.msg);
				gc_rep_p(r, msg);
			} else {
				snprintf(s, sizeof s, "whatif-%s-%dw-%gx", slug, workers[j],
					 wi_speeds[i]);
				gc_rep_figure(r, s, &svg, title);
			}
			gc_buf_release(&svg);
		}
	gc_rep_p(r, "Crossover bandwidth in Gbit/s per link: the largest bandwidth in 0.1 to "
		 "10000 at which the method still beats sync SGD (it wins below it):");
	cross_table(r, w, a, workers, nw);
}

static void paper(struct gc_rep *r)
{
	gc_whatif w;
	gc_arch a;

	memset(&w, 0, sizeof w);
	gc_strlcpy(w.model, "resnet50", sizeof w.model);
	w.batch = 64;
	if (gc_whatif_preset(&w, "paper", NULL) || gc_whatif_parse_bw("1gbit:30gbit", &w, NULL) ||
	    gc_whatif_parse_methods("signsgd,topk:ratio=0.01,mstopk:ratio=0.01,powersgd:rank=4",
				    &w, NULL) || gc_arch_build(w.model, &a, NULL))
		return;
	gc_rep_p(r, "The paper preset (the study's setting: V100 in fp32, NCCL's ring/tree "
		 "choice, codec costs counted from the PyTorch code paths the study ran; "
		 "`gcbench whatif --constants` lists each constant and its source), ResNet-50 at "
		 "batch 64, 8 and 96 workers, compute 1x and 4x (the codec as fast as the "
		 "compute). The same charts as `gcbench whatif --workers 8,96 --bandwidth 1gbit:30gbit "
		 "--compute-speedup 1,4 --svg DIR`.");
	charts(r, &w, &a, wi_paper_workers, 2, "paper-resnet50");
	gc_arch_release(&a);
}

/* The first compression run of env in p that the model can predict, or NULL. */
static const gc_pdb_row *first_run(const gc_pdb *p, int64_t env)
{
	size_t i;

	for (i = 0; i < p->nrows; i++)
		if (p->rows[i].env_id == env && !p->rows[i].skipped[0] &&
		    strcmp(p->rows[i].method, "syncsgd"))
			return &p->rows[i];
	return NULL;
}

/* The methods measured in env for the model and batch of r0, each once, whose codec
 * the fit measured (whatif --db refuses the others). */
static void env_methods(const gc_pdb *p, const gc_pdb_fit *f, const gc_pdb_row *r0,
			gc_whatif *w)
{
	gc_model_method mm;
	size_t i, k;

	for (i = 0; i < p->nrows && w->nmethods < GC_WHATIF_MAX_METHODS; i++) {
		const gc_pdb_row *x = &p->rows[i];
		if (x->env_id != f->env_id || x->skipped[0] || strcmp(x->model, r0->model) ||
		    x->batch != r0->batch || !strcmp(x->method, "syncsgd") ||
		    gc_pdb_method(x->method, x->params, &mm, NULL) ||
		    !(f->n_enc[mm.p.method] || f->n_dec[mm.p.method]))
			continue;
		gc_report_short_label(x->method, x->params, mm.label, sizeof mm.label);
		for (k = 0; k < w->nmethods && strcmp(w->methods[k].label, mm.label); k++)
			;
		if (k == w->nmethods)
			w->methods[w->nmethods++] = mm;
	}
}

/* The charts of fit f: its first predictable model and batch, at the measured world
 * size and WI_FIT_WORKERS. 1 if drawn. */
static int fitted(struct gc_rep *r, const gc_pdb *p, const gc_pdb_fit *f)
{
	const gc_pdb_row *r0 = first_run(p, f->env_id);
	int workers[2], nw = 1;
	char text[600], slug[120];
	gc_whatif w;
	gc_arch a;

	memset(&w, 0, sizeof w);
	if (!r0 || gc_whatif_preset(&w, "ideal", NULL) || gc_whatif_parse_bw("1gbit:30gbit", &w, NULL))
		return 0;
	env_methods(p, f, r0, &w);
	if (!w.nmethods || gc_arch_build(r0->model, &a, NULL))
		return 0;
	gc_strlcpy(w.model, r0->model, sizeof w.model);
	w.batch = r0->batch;
	gc_pdb_fit_params(f, (double)a.numel, &w.mp);
	w.mp.algo = GC_ALGO_RING;       /* gcbench-worker's MPI rings, as the fit assumed */
	snprintf(w.source, sizeof w.source, "fit of environment %lld", (long long)f->env_id);
	workers[0] = r0->world_size;
	if (r0->world_size < WI_FIT_WORKERS)
		workers[nw++] = WI_FIT_WORKERS;
	snprintf(text, sizeof text, "The model fitted to environment %lld of this database "
		 "(%zu ok runs: latency, host cost, lambda, encode/decode rates, optimizer), "
		 "%.64s at batch %d, the measured %d workers%s, compute 1x and 4x of the emulated "
		 "compute; each method measured there whose codec the fit has, with its measured "
		 "parameters, on rings (the fit `gcbench whatif --db DB --env %lld --model %.64s "
		 "--batch %d` uses).", (long long)f->env_id, f->n_runs,
		 r0->model, r0->batch, r0->world_size, nw > 1 ? " and 64" : "",
		 (long long)f->env_id, r0->model, r0->batch);
	gc_rep_p(r, text);
	snprintf(slug, sizeof slug, "env%lld-%.64s", (long long)f->env_id, r0->model);
	charts(r, &w, &a, workers, (size_t)nw, slug);
	gc_arch_release(&a);
	return 1;
}

/* Up to WI_MAX_ENVS fits, the most ok runs first. */
static void fits(struct gc_rep *r)
{
	const gc_pdb *p = gc_rep_fits(r);
	int used[GC_PDB_MAX_ENVS] = { 0 };
	size_t i, n, best, drawn = 0, left = 0;

	for (n = 0; p && n < p->nfits; n++) {
		for (best = p->nfits, i = 0; i < p->nfits; i++)
			if (!used[i] && (best == p->nfits || p->fits[i].n_runs > p->fits[best].n_runs))
				best = i;
		used[best] = 1;
		if (drawn == WI_MAX_ENVS)
			left++;
		else if (fitted(r, p, &p->fits[best]))
			drawn++;
	}
	if (!drawn)
		gc_rep_p(r, "No environment of this database has a compression run the model "
			 "can predict with a measured codec, so there is no what-if from a fit.");
	if (left) {
		char text[200];
		snprintf(text, sizeof text, "%zu more environment(s) not drawn: see `gcbench "
			 "whatif --db DB --env ID`.", left);
		gc_rep_p(r, text);
	}
}

void gc_rep_whatif(struct gc_rep *r)
{
	gc_rep_h2(r, "What-if: speedup vs bandwidth");
	gc_rep_p(r, "Predictions of the performance model (docs/model.md), not measurements: "
		 "the speedup of each method over sync SGD against the link bandwidth, in the "
		 "style of the study's figures; above the dashed 1.0 line compression wins.");
	paper(r);
	fits(r);
}

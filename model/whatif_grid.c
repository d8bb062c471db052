/* model/whatif_grid.c: the study's grid predicted whole, its win counts, and how they
 * move when each assumed constant spans its range (whatif.h). */
#include <math.h>
#include <string.h>

#include "whatif.h"
#include "strutil.h"

static const char *const grid_models[GC_GRID_MODELS] = { "resnet50", "resnet101", "bert-base" };
static const int grid_batches[GC_GRID_BATCHES] = { 16, 32, 64 };
static const char *const grid_methods[GC_GRID_METHODS] = {
	"signsgd", "mstopk:ratio=0.001", "mstopk:ratio=0.01", "mstopk:ratio=0.1",
	"powersgd:rank=4", "powersgd:rank=8", "powersgd:rank=16",
};
static const int grid_workers[GC_GRID_WORKERS] = { 8, 16, 32, 64, 96 };
static const double grid_gbps[GC_GRID_BWS] = { 1, 2, 5, 10, 15, 20, 25, 30 };
static const int cross_workers[2] = { 8, 96 };

const char *gc_grid_model(size_t i) { return i < GC_GRID_MODELS ? grid_models[i] : NULL; }
int gc_grid_batch(size_t i) { return i < GC_GRID_BATCHES ? grid_batches[i] : 0; }
const char *gc_grid_method(size_t i) { return i < GC_GRID_METHODS ? grid_methods[i] : NULL; }
int gc_grid_workers(size_t i) { return i < GC_GRID_WORKERS ? grid_workers[i] : 0; }
double gc_grid_gbps(size_t i) { return i < GC_GRID_BWS ? grid_gbps[i] : 0; }
int gc_grid_cross_workers(size_t i) { return i < 2 ? cross_workers[i] : 0; }

gc_rc gc_whatif_grid_check(const char *name, gc_err *e)
{
	if (!name || strcmp(name, "paper"))
		return gc_fail(e, GC_E_INVAL, "unknown grid '%s'; the one grid is 'paper' (the "
			       "study's: resnet50, resnet101, bert-base; batch 16/32/64; signsgd, "
			       "mstopk 0.1/1/10%%, powersgd rank 4/8/16; 8-96 workers; 1-30 Gbit/s)",
			       name ? name : "");
	return GC_OK;
}

static void count(gc_grid_tally *t, int win, int dc)
{
	t->n++, t->wins += win;
	t->n_dc += dc, t->wins_dc += win && dc;
}

/* Every point of one (model, batch). */
static gc_rc grid_one(const gc_whatif *w, gc_arch *a, size_t im, size_t ib,
		      const gc_model_method *ms, gc_whatif_grid *g, gc_err *e)
{
	double s = w->nspeed ? w->speedup[0] : 1, c = w->ncodec ? w->codec[0] : s, sp;
	gc_model_result rm, rs;
	gc_whatif wb = *w;
	size_t k, j, l;
	gc_rc rc;

	wb.batch = grid_batches[ib];
	for (k = 0; k < GC_GRID_METHODS; k++)
		for (j = 0; j < GC_GRID_WORKERS; j++)
			for (l = 0; l < GC_GRID_BWS; l++) {
				int dc = grid_gbps[l] >= GC_GRID_DC_GBPS, win;
				if ((rc = gc_whatif_eval(&wb, a, &ms[k], grid_workers[j],
							 grid_gbps[l], s, c, &sp, &rm, &rs, e)))
					return rc;
				win = sp > 1;
				count(&g->all, win, dc);
				count(&g->model[im], win, dc);
				count(&g->batch[ib], win, dc);
				count(&g->method[k], win, dc);
				count(&g->workers[j], win, dc);
				count(&g->bw[l], win, dc);
				if (sp > g->best) {
					g->best = sp, g->best_model = im, g->best_batch = ib;
					g->best_method = k, g->best_workers = j, g->best_bw = l;
				}
			}
	for (j = 0; g->crossovers && j < 2; j++)        /* PowerSGD rank 4 */
		if ((rc = gc_whatif_crossover(&wb, a, &ms[4], cross_workers[j], s, c,
					      &g->cross[im][ib][j], e)))
			return rc;
	return GC_OK;
}

gc_rc gc_whatif_grid_run(const gc_whatif *w, int seq_len, int crossovers, gc_whatif_grid *g,
			 gc_err *e)
{
	gc_model_method ms[GC_GRID_METHODS];
	size_t im, ib, k;
	gc_arch a;
	gc_rc rc = GC_OK;

	memset(g, 0, sizeof(*g));
	g->crossovers = crossovers;
	for (k = 0; k < GC_GRID_METHODS; k++)
		if ((rc = gc_model_method_parse(grid_methods[k], &ms[k], e)))
			return rc;
	for (im = 0; !rc && im < GC_GRID_MODELS; im++) {
		if ((rc = gc_arch_build(grid_models[im], &a, e)))
			return rc;
		if (seq_len > 0 && !strcmp(grid_models[im], "bert-base"))
			rc = gc_whatif_scale_seq(&a, seq_len, e);
		for (ib = 0; !rc && ib < GC_GRID_BATCHES; ib++)
			rc = grid_one(w, &a, im, ib, ms, g, e);
		gc_arch_release(&a);
	}
	return rc;
}

/* Does conclusion i hold in g? 0: few wins in the data-center band; 1: PowerSGD rank 4
 * crossover of ResNet-50, batch 64, 8 workers near the study's 9 Gbit/s. */
int gc_whatif_conclusion(const gc_whatif_grid *g, int i)
{
	double x;

	if (i == 0)
		return g->all.n_dc && (double)g->all.wins_dc <= GC_GRID_FEW * (double)g->all.n_dc;
	x = g->cross[0][2][0];
	return x >= GC_GRID_CROSS_LO && x <= GC_GRID_CROSS_HI;
}

/* The crossover conclusion B reads: PowerSGD rank 4, ResNet-50, batch 64, 8 workers. */
static gc_rc r50_cross(gc_whatif *w, double *x, gc_err *e)
{
	double s = w->nspeed ? w->speedup[0] : 1, c = w->ncodec ? w->codec[0] : s;
	gc_model_method m;
	gc_arch a;
	gc_rc rc;

	w->batch = 64;
	if ((rc = gc_model_method_parse("powersgd:rank=4", &m, e)) ||
	    (rc = gc_arch_build("resnet50", &a, e)))
		return rc;
	rc = gc_whatif_crossover(w, &a, &m, 8, s, c, x, e);
	gc_arch_release(&a);
	return rc;
}

gc_rc gc_whatif_sensitivity(const gc_whatif *w, int seq_len, gc_whatif_sens *out,
			    size_t max, size_t *n, gc_err *e)
{
	const gc_whatif_const *cs;
	size_t nc, i, side;
	gc_rc rc;

	*n = 0;
	cs = gc_whatif_constants(&nc);
	if (!w->paper)
		return gc_fail(e, GC_E_INVAL, "--sensitivity varies the constants of the paper "
			       "preset; use it with --preset paper (not --db or ideal)");
	for (i = 0; i < nc; i++) {
		gc_whatif_sens *r;
		if (!(cs[i].lo < cs[i].hi))
			continue;
		if (*n == max)
			return gc_fail(e, GC_E_INVAL, "sensitivity: more than %zu constants", max);
		r = &out[(*n)++];
		r->c = &cs[i];
		for (side = 0; side < 2; side++) {
			gc_whatif wv = *w;
			gc_whatif_grid g;
			double v = side ? cs[i].hi : cs[i].lo;
			if ((rc = gc_whatif_set_const(&wv, cs[i].name, v, e)) ||
			    (rc = gc_whatif_grid_run(&wv, seq_len, 0, &g, e)))
				return rc;
			r->wins_dc[side] = g.all.wins_dc;
			r->n_dc = g.all.n_dc;
			r->wins[side] = g.all.wins;
			r->n = g.all.n;
			if ((rc = r50_cross(&wv, &r->cross[side], e)))
				return rc;
			g.cross[0][2][0] = r->cross[side];
			r->holds[0][side] = gc_whatif_conclusion(&g, 0);
			r->holds[1][side] = gc_whatif_conclusion(&g, 1);
		}
	}
	return GC_OK;
}

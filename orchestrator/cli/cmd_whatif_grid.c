/* gcbench whatif --grid paper [--sensitivity] and --constants: the study's grid counted
 * next to its findings, and the paper preset's constants (cmd_whatif.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cmd_whatif.h"

void gc_whatif_print_constants(void)
{
	const gc_whatif_const *c;
	size_t i, n;

	c = gc_whatif_constants(&n);
	printf("paper preset: constants (range: an assumption, varied by --sensitivity; "
	       "none: measured or read from code)\n");
	printf("%-14s %8s %-8s %-17s %s\n", "constant", "value", "unit", "range", "source");
	for (i = 0; i < n; i++) {
		char range[40] = "-";
		if (c[i].lo < c[i].hi)
			snprintf(range, sizeof(range), "%g..%g", c[i].lo, c[i].hi);
		printf("%-14s %8g %-8s %-17s %s\n", c[i].name, c[i].value, c[i].unit, range,
		       c[i].source);
	}
}

static void tally_line(const char *name, const gc_grid_tally *t)
{
	printf("  %-20s %5zu of %-5zu %5zu of %-5zu %5zu of %zu\n", name, t->wins_dc, t->n_dc,
	       t->wins - t->wins_dc, t->n - t->n_dc, t->wins, t->n);
}

static void tally_head(const char *by)
{
	printf("\nwins by %s:\n  %-20s %-14s %-14s %s\n", by, "", ">= 10 Gbit/s", "< 10 Gbit/s",
	       "all");
}

static void print_cross(double x)
{
	if (x == 0)
		printf(" %10s", "never");
	else if (isinf(x))
		printf(" %10s", ">10000");
	else
		printf(" %10.3g", x);
}

static void print_counts(const gc_whatif_grid *g)
{
	char buf[64];
	size_t i;

	tally_head("model");
	for (i = 0; i < GC_GRID_MODELS; i++)
		tally_line(gc_grid_model(i), &g->model[i]);
	tally_head("batch");
	for (i = 0; i < GC_GRID_BATCHES; i++) {
		snprintf(buf, sizeof(buf), "%d", gc_grid_batch(i));
		tally_line(buf, &g->batch[i]);
	}
	tally_head("method");
	for (i = 0; i < GC_GRID_METHODS; i++)
		tally_line(gc_grid_method(i), &g->method[i]);
	tally_head("workers");
	for (i = 0; i < GC_GRID_WORKERS; i++) {
		snprintf(buf, sizeof(buf), "%d", gc_grid_workers(i));
		tally_line(buf, &g->workers[i]);
	}
	printf("\nwins by bandwidth (Gbit/s):\n");
	for (i = 0; i < GC_GRID_BWS; i++)
		printf("  %-20g %5zu of %zu\n", gc_grid_gbps(i), g->bw[i].wins, g->bw[i].n);
}

static void print_crossovers(const gc_whatif_grid *g)
{
	size_t i, b;

	printf("\nPowerSGD rank 4 crossover, Gbit/s (wins below it); the study: about 9 "
	       "(ResNet-50)\n  %-12s %5s %10s %10s\n", "model", "batch", "8 workers", "96 workers");
	for (i = 0; i < GC_GRID_MODELS; i++)
		for (b = 0; b < GC_GRID_BATCHES; b++) {
			printf("  %-12s %5d", gc_grid_model(i), gc_grid_batch(b));
			print_cross(g->cross[i][b][0]);
			print_cross(g->cross[i][b][1]);
			printf("\n");
		}
}

static const char *yes(int v)
{
	return v ? "holds" : "fails";
}

static int print_sensitivity(const struct opts *o, gc_err *e)
{
	gc_whatif_sens rows[32];
	size_t n, i;

	if (gc_whatif_sensitivity(&o->w, o->seq_len, rows, 32, &n, e))
		return -1;
	printf("\nsensitivity: each assumed constant at the ends of its range, the others as "
	       "above\n  A = at most %.0f%% of the >= 10 Gbit/s configurations win (the study: "
	       "6 of 200+)\n  B = PowerSGD rank 4, ResNet-50, batch 64, 8 workers crosses over "
	       "in %g..%g Gbit/s (the study: about 9)\n", 100 * GC_GRID_FEW, GC_GRID_CROSS_LO,
	       GC_GRID_CROSS_HI);
	printf("  %-14s %-13s %-16s %-16s %-12s %-12s %s\n", "constant", "range", "wins>=10 (lo)",
	       "wins>=10 (hi)", "cross lo", "cross hi", "A lo/hi, B lo/hi");
	for (i = 0; i < n; i++) {
		char rg[32], w0[32], w1[32];
		snprintf(rg, sizeof(rg), "%g..%g", rows[i].c->lo, rows[i].c->hi);
		snprintf(w0, sizeof(w0), "%zu of %zu", rows[i].wins_dc[0], rows[i].n_dc);
		snprintf(w1, sizeof(w1), "%zu of %zu", rows[i].wins_dc[1], rows[i].n_dc);
		printf("  %-14s %-13s %-16s %-16s %-12.3g %-12.3g %s/%s, %s/%s\n", rows[i].c->name,
		       rg, w0, w1, rows[i].cross[0], rows[i].cross[1], yes(rows[i].holds[0][0]),
		       yes(rows[i].holds[0][1]), yes(rows[i].holds[1][0]), yes(rows[i].holds[1][1]));
	}
	return 0;
}

int gc_whatif_print_grid(const struct opts *o, gc_err *e)
{
	gc_whatif_grid g;
	int A, B;

	if (gc_whatif_grid_run(&o->w, o->seq_len, 1, &g, e))
		return -1;
	printf("gcbench whatif --grid paper: %d models x %d batches x %d methods x %d worker "
	       "counts x %d bandwidths = %zu predictions, parameters: %s, BERT at %d tokens\n",
	       GC_GRID_MODELS, GC_GRID_BATCHES, GC_GRID_METHODS, GC_GRID_WORKERS, GC_GRID_BWS,
	       g.all.n, o->w.source, o->seq_len ? o->seq_len : GC_ARCH_SEQ_LEN);
	printf("\nwins (speedup > 1 over sync SGD): %zu of %zu at >= 10 Gbit/s (%.1f%%), %zu of "
	       "%zu below; the study measured 6 of 200+ (3%%) in the data-center setting\n",
	       g.all.wins_dc, g.all.n_dc, 100.0 * (double)g.all.wins_dc / (double)g.all.n_dc,
	       g.all.wins - g.all.wins_dc, g.all.n - g.all.n_dc);
	printf("best %.2fx: %s, batch %d, %s, %d workers, %g Gbit/s\n", g.best,
	       gc_grid_model(g.best_model), gc_grid_batch(g.best_batch),
	       gc_grid_method(g.best_method), gc_grid_workers(g.best_workers),
	       gc_grid_gbps(g.best_bw));
	print_counts(&g);
	print_crossovers(&g);
	A = gc_whatif_conclusion(&g, 0), B = gc_whatif_conclusion(&g, 1);
	printf("\nthe study's findings here: A (at most %.0f%% of >= 10 Gbit/s configurations win) "
	       "%s; B (ResNet-50 batch 64 crossover in %g..%g Gbit/s) %s\n", 100 * GC_GRID_FEW,
	       yes(A), GC_GRID_CROSS_LO, GC_GRID_CROSS_HI, yes(B));
	if (o->sens && print_sensitivity(o, e))
		return -1;
	printf("note: predictions of the model (docs/model.md), not measurements.\n");
	return 0;
}

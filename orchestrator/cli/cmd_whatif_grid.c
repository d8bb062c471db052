/* gcbench whatif --grid paper|study-code [--sensitivity], --grid-steps and --constants:
 * the study's grid counted next to its findings, the steps between the two grids, and
 * the paper preset's constants (cmd_whatif.h). */
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
	{
		const gc_grid_source *g = gc_whatif_study_sources(&n);
		printf("\n--grid study-code: its setup against --grid paper's, from the study's "
		       "released code (github.com/uw-mad-dash/GradCompressionUtility, commit "
		       "b73b330; file line)\n");
		for (i = 0; i < n; i++)
			printf("%-24s paper: %s\n%-24s study-code: %s\n%-24s source: %s\n",
			       g[i].axis, g[i].paper, "", g[i].study, "", g[i].source);
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
	tally_head(g->def.gpn[0] > 0 ? "nodes" : "workers");
	for (i = 0; i < g->def.nnodes; i++) {
		snprintf(buf, sizeof(buf), "%d", g->def.nodes[i]);
		tally_line(buf, &g->workers[i]);
	}
	printf("\nwins by bandwidth (Gbit/s%s):\n", g->def.nic_gbps > 0 ? ", as tc sets it" : "");
	for (i = 0; i < g->def.nbw; i++) {
		if (g->def.nic_gbps > 0 && g->def.gbps[i] > g->def.nic_gbps)
			snprintf(buf, sizeof(buf), "%g (NIC: %g)", g->def.gbps[i], g->def.nic_gbps);
		else
			snprintf(buf, sizeof(buf), "%g", g->def.gbps[i]);
		printf("  %-20s %5zu of %zu\n", buf, g->bw[i].wins, g->bw[i].n);
	}
}

static void print_crossovers(const gc_whatif_grid *g)
{
	const gc_grid_def *d = &g->def;
	char c0[32], c1[32];
	size_t i, b;

	snprintf(c0, sizeof(c0), "%d %s", d->nodes[0], d->gpn[0] > 0 ? "nodes" : "workers");
	snprintf(c1, sizeof(c1), "%d %s", d->nodes[d->nnodes - 1], d->gpn[0] > 0 ? "nodes" :
		 "workers");
	printf("\nPowerSGD rank 4 crossover, Gbit/s (wins below it); the study: about 9 "
	       "(ResNet-50)\n  %-12s %5s %10s %10s\n", "model", "batch", c0, c1);
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

static int print_sensitivity(const struct opts *o, const gc_grid_def *d, gc_err *e)
{
	gc_whatif_sens rows[32];
	size_t n, i;

	if (gc_whatif_sensitivity_def(&o->w, d, rows, 32, &n, e))
		return -1;
	printf("\nsensitivity: each assumed constant at the ends of its range, the others as "
	       "above\n  A = at most %.0f%% of the >= 10 Gbit/s configurations win (the study: "
	       "6 of 200+)\n  B = PowerSGD rank 4, ResNet-50, batch 64, %d %s crosses over "
	       "in %g..%g Gbit/s (the study: about 9)\n", 100 * GC_GRID_FEW, d->nodes[0],
	       d->gpn[0] > 0 ? "nodes" : "workers", GC_GRID_CROSS_LO, GC_GRID_CROSS_HI);
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

/* The counts, crossovers and findings of grid d. */
static int print_one(const struct opts *o, const gc_grid_def *d, gc_whatif_grid *g, gc_err *e)
{
	int A, B;

	if (gc_whatif_grid_run_def(&o->w, d, 1, g, e))
		return -1;
	printf("gcbench whatif --grid %s: %d models x %d batches x %d methods x %zu %s x "
	       "%zu bandwidths = %zu predictions, parameters: %s, BERT at %d tokens\n",
	       d->name, GC_GRID_MODELS, GC_GRID_BATCHES, GC_GRID_METHODS, d->nnodes,
	       d->gpn[0] > 0 ? "node counts" : "worker counts", d->nbw, g->all.n, o->w.source,
	       d->seq_len ? d->seq_len : GC_ARCH_SEQ_LEN);
	printf("\nwins (speedup > 1 over sync SGD): %zu of %zu at >= 10 Gbit/s (%.1f%%), %zu of "
	       "%zu below; the study measured 6 of 200+ (3%%) in the data-center setting\n",
	       g->all.wins_dc, g->all.n_dc, 100.0 * (double)g->all.wins_dc / (double)g->all.n_dc,
	       g->all.wins - g->all.wins_dc, g->all.n - g->all.n_dc);
	printf("best %.2fx: %s, batch %d, %s, %d %s, %g Gbit/s\n", g->best,
	       gc_grid_model(g->best_model), gc_grid_batch(g->best_batch),
	       gc_grid_method(g->best_method), d->nodes[g->best_workers],
	       d->gpn[0] > 0 ? "nodes" : "workers", d->gbps[g->best_bw]);
	print_counts(g);
	print_crossovers(g);
	A = gc_whatif_conclusion(g, 0), B = gc_whatif_conclusion(g, 1);
	printf("\nthe study's findings here: A (at most %.0f%% of >= 10 Gbit/s configurations win) "
	       "%s; B (ResNet-50 batch 64 crossover in %g..%g Gbit/s) %s\n", 100 * GC_GRID_FEW,
	       yes(A), GC_GRID_CROSS_LO, GC_GRID_CROSS_HI, yes(B));
	return 0;
}

int gc_whatif_print_grid(const struct opts *o, gc_err *e)
{
	const char *name = o->grid_name ? o->grid_name : "paper";
	gc_whatif_grid g, g1;
	gc_grid_def d;

	if (gc_whatif_grid_def(name, o->seq_len, &d, e) || print_one(o, &d, &g, e))
		return -1;
	if (!strcmp(name, "study-code")) {     /* the scripts disagree on BERT's launch */
		gc_grid_def_study(&d, 1);
		if (gc_whatif_grid_run_def(&o->w, &d, 1, &g1, e))
			return -1;
		printf("\nBERT as run_ddp.sh launches the ResNets (4 processes per node) instead "
		       "of 8: %zu of %zu at >= 10 Gbit/s (%.1f%%; BERT %zu of %zu, "
		       "with 8: %zu of %zu); A %s, B %s\n", g1.all.wins_dc, g1.all.n_dc,
		       100.0 * (double)g1.all.wins_dc / (double)g1.all.n_dc, g1.model[2].wins_dc,
		       g1.model[2].n_dc, g.model[2].wins_dc, g.model[2].n_dc,
		       yes(gc_whatif_conclusion(&g1, 0)), yes(gc_whatif_conclusion(&g1, 1)));
		printf("which reading the study ran: main_bert.py 720-722 puts each of the 8 "
		       "processes on its own GPU (cuda:local_rank), which the 4-GPU p3.8xlarge of "
		       "launch_ec2_run_commands.py 20 does not have; docs/model.md weighs the "
		       "two\n");
	}
	if (o->sens && (gc_whatif_grid_def(name, o->seq_len, &d, e) || print_sensitivity(o, &d, e)))
		return -1;
	printf("note: predictions of the model (docs/model.md), not measurements.\n");
	return 0;
}

int gc_whatif_print_steps(const struct opts *o, gc_err *e)
{
	gc_whatif_step st[GC_GRID_MAX_STEPS], alt[GC_GRID_MAX_STEPS];
	size_t n, na, i;

	if (gc_whatif_steps(&o->w, 0, st, GC_GRID_MAX_STEPS, &n, e) ||
	    gc_whatif_steps(&o->w, 1, alt, GC_GRID_MAX_STEPS, &na, e))
		return -1;
	printf("gcbench whatif --grid-steps: from --grid paper to --grid study-code, one "
	       "assumption at a time (each row keeps the rows above), parameters: %s\n"
	       "wins: speedup > 1 over sync SGD; >= 10 Gbit/s is the data-center band (the "
	       "study: 6 of 200+, 3%%; finding A allows %.0f%%)\n\n", o->w.source,
	       100 * GC_GRID_FEW);
	printf("%-3s %-18s %-7s %-12s %-14s %-11s %s\n", "#", "wins >= 10 Gbit/s", "", "R50 cross",
	       "R50/R101/BERT", "sign/MS/PS", "assumption moved (source)");
	for (i = 0; i < n; i++) {
		char w[32], x[32], bm[32], bk[32];
		const size_t *k = st[i].wins_dc_method;
		snprintf(w, sizeof(w), "%zu of %zu", st[i].wins_dc, st[i].n_dc);
		snprintf(bm, sizeof(bm), "%zu/%zu/%zu", st[i].wins_dc_model[0],
			 st[i].wins_dc_model[1], st[i].wins_dc_model[2]);
		snprintf(bk, sizeof(bk), "%zu/%zu/%zu", k[0], k[1] + k[2] + k[3], k[4] + k[5] + k[6]);
		if (st[i].cross == 0)
			snprintf(x, sizeof(x), "never");
		else if (isinf(st[i].cross))
			snprintf(x, sizeof(x), ">10000");
		else
			snprintf(x, sizeof(x), "%.3g", st[i].cross);
		printf("%-3zu %-18s %5.1f%%  %-12s %-14s %-11s %s\n", i, w,
		       st[i].n_dc ? 100.0 * (double)st[i].wins_dc / (double)st[i].n_dc : 0, x,
		       bm, bk, st[i].what);
	}
	printf("\nwith BERT at 4 processes per node (the other reading of the scripts), the "
	       "last row is %zu of %zu (%.1f%%)\n", alt[na - 1].wins_dc, alt[na - 1].n_dc,
	       100.0 * (double)alt[na - 1].wins_dc / (double)alt[na - 1].n_dc);
	printf("R50 cross: PowerSGD rank 4, ResNet-50, batch 64, at the first node count: the "
	       "link rate below which it wins (the study: about 9 Gbit/s); R50/R101/BERT and "
	       "sign/MS/PS: the wins >= 10 Gbit/s by model and by method (signSGD, the three "
	       "MSTop-K, the three PowerSGD); timing and warm-up rows change a gain's size, "
	       "never its sign\n");
	printf("note: predictions of the model (docs/model.md), not measurements.\n");
	return 0;
}

/* model/whatif.h: what-if sweeps of the performance model (gcbench whatif): predicted
 * speedup of each method over sync SGD per (workers, bandwidth, compute speed), and the
 * crossover bandwidth below which a method wins. */
#ifndef GC_WHATIF_H
#define GC_WHATIF_H

#include "model/model.h"

#define GC_WHATIF_MAX_LIST 256
#define GC_WHATIF_MAX_METHODS 16

typedef struct gc_whatif {
	char model[64];
	int batch;
	int workers[GC_WHATIF_MAX_LIST];
	size_t nworkers;
	double bw_gbps[GC_WHATIF_MAX_LIST];      /* Gbit/s */
	size_t nbw;
	double speedup[GC_WHATIF_MAX_LIST];      /* compute speed multipliers */
	size_t nspeed;
	gc_model_method methods[GC_WHATIF_MAX_METHODS];
	size_t nmethods;
	int paper;                               /* --preset paper */
	char source[160];                        /* "paper", "ideal" or "DB, environment N" */
	gc_model_params mp;                      /* bw is set per point */
} gc_whatif;

/* Worker counts "8,16,32" (each 1..1000000). */
gc_rc gc_whatif_parse_workers(const char *s, gc_whatif *w, gc_err *e);
/* Bandwidths in Gbit/s: a list "1,10,25" or a range "A:B" (step 1) or "A:B:STEP";
 * values > 0, ranges ascending, at most GC_WHATIF_MAX_LIST points. */
gc_rc gc_whatif_parse_bw(const char *s, gc_whatif *w, gc_err *e);
/* Compute speedups "1,2,4" (each > 0). */
gc_rc gc_whatif_parse_speedup(const char *s, gc_whatif *w, gc_err *e);
/* Methods "signsgd,topk:ratio=0.01,powersgd:rank=4": methods are separated by commas;
 * a token with '=' but no ':' continues the previous method's parameters. */
gc_rc gc_whatif_parse_methods(const char *s, gc_whatif *w, gc_err *e);

/* Fill w->mp for a preset: "paper" (the study's V100/NCCL setting, docs/model.md) or
 * "ideal" (free encode/decode, lambda 1: an upper bound on what compression can gain). */
gc_rc gc_whatif_preset(gc_whatif *w, const char *name, gc_err *e);

/* Speedup of method m over syncsgd for one point (arch timed for speed s inside). */
gc_rc gc_whatif_point(const gc_whatif *w, gc_arch *a, const gc_model_method *m, int p,
		      double bw_gbps, double s, double *speedup, gc_model_result *rm,
		      gc_model_result *rs, gc_err *e);

/* Largest bandwidth in [0.1, 10000] Gbit/s at which m still beats syncsgd (speedup > 1),
 * found on a log grid then by bisection: *gbps = 0 if it never wins, INFINITY if it
 * wins at every bandwidth of the grid. */
gc_rc gc_whatif_crossover(const gc_whatif *w, gc_arch *a, const gc_model_method *m, int p,
			  double s, double *gbps, gc_err *e);

#endif

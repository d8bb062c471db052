/* model/whatif.h: what-if sweeps of the performance model (gcbench whatif): predicted
 * speedup of each method over sync SGD per (workers, bandwidth, compute speed), and the
 * crossover bandwidth below which a method wins. */
#ifndef GC_WHATIF_H
#define GC_WHATIF_H

#include "model.h"

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
	double codec[GC_WHATIF_MAX_LIST];        /* codec speed multipliers; none: = compute */
	size_t ncodec;
	double device_flops;                     /* effective FLOP/s of one device at 1x */
	int paper;                               /* --preset paper */
	char source[160];                        /* "paper", "ideal" or "DB, environment N" */
	gc_model_params mp;                      /* bw is set per point */
	int bg_flows;                            /* competing TCP flows per link: the ring
	                                          * gets gc_model_bg_share(bg_flows, 1) of
	                                          * each bandwidth (0: the whole link) */
	/* how a speedup is timed (the grids set these; 0 for sweeps): */
	int backward_only;                       /* 1: backward + exchange + decode only,
	                                          * as CUDA events around loss.backward() */
	int warmup_iters, timed_iters;           /* PowerSGD: the first warmup_iters of
	                                          * timed_iters all-reduce (mean over all) */
	size_t sync_bucket_bytes;                /* > 0: sync SGD's bucket cap, if not mp's */
	/* racks (model/racks.h; 0: none): the nodes dealt into `racks` racks whose uplinks
	 * run at uplink_gbps, or (0) at the sum of their nodes' links over oversub; every
	 * point's bandwidth is then the ring's bottleneck (gc_racks_even_bps) */
	int racks;
	double uplink_gbps, oversub;
	double slow;                             /* one node's link at slow x the point's
	                                          * bandwidth (0 or 1: none): the ring runs
	                                          * at the slower of it and the racks' share
	                                          * (uplinks sized from the nominal links) */
} gc_whatif;

/* Worker counts "8,16,32" (each 1..1000000). */
gc_rc gc_whatif_parse_workers(const char *s, gc_whatif *w, gc_err *e);
/* Bandwidths in tc units (common/bandwidth.h, 1mbit to 400gbit; a bare number is
 * refused with the unit it needs), into bw_gbps: a list "1gbit,10gbit,25gbit" or a
 * range "A:B" (step 1gbit) or "A:B:STEP"; ranges ascending, at most
 * GC_WHATIF_MAX_LIST points. */
gc_rc gc_whatif_parse_bw(const char *s, gc_whatif *w, gc_err *e);
/* Compute speedups "1,2,4" (each > 0). */
gc_rc gc_whatif_parse_speedup(const char *s, gc_whatif *w, gc_err *e);
/* Methods "signsgd,topk:ratio=0.01,powersgd:rank=4": methods are separated by commas;
 * a token with '=' but no ':' continues the previous method's parameters. */
gc_rc gc_whatif_parse_methods(const char *s, gc_whatif *w, gc_err *e);

/* One constant of the paper preset: value and range in unit (x scale = SI), source. */
typedef struct gc_whatif_const {
	const char *name, *unit;
	double value, lo, hi;      /* lo == hi: measured or read from code, not varied */
	double scale;
	const char *source;
} gc_whatif_const;

/* The paper preset's constants, in a fixed order (*n of them). */
const gc_whatif_const *gc_whatif_constants(size_t *n);

/* Set constant name (in its unit) in w; GC_E_INVAL for an unknown name or v <= 0. */
gc_rc gc_whatif_set_const(gc_whatif *w, const char *name, double v, gc_err *e);

/* Fill w->mp for a preset: "paper" (the study's setting: V100 fp32, NCCL's ring/tree
 * choice, PyTorch-eager codec costs from operation counts, gc_whatif_constants),
 * "gcbench" (the same, but the codecs at the speed of gcbench's kernels relative to a
 * copy, from make bench-kernels: whatif.c says how) or "ideal" (free encode/decode,
 * lambda 1: an upper bound on what compression can gain). */
gc_rc gc_whatif_preset(gc_whatif *w, const char *name, gc_err *e);

/* Rescale the FLOPs of bert-base or gpt2-small from the catalogue's GC_ARCH_SEQ_LEN
 * tokens to seq_len: per-token layers x S/128, attention scores x (S/128)^2, per-sample
 * layers (the pooler) unchanged. Call once after gc_arch_build. GC_E_INVAL for another
 * architecture or seq_len outside 1..positions (512, 1024). */
gc_rc gc_whatif_scale_seq(gc_arch *a, int seq_len, gc_err *e);

/* Speedup of method m over syncsgd for one point: compute speed s (arch timed inside),
 * codec speed c (<= 0: c = s; encode/decode rates x c, gc_codec_dev_scale by c). */
gc_rc gc_whatif_eval(const gc_whatif *w, gc_arch *a, const gc_model_method *m, int p,
		     double bw_gbps, double s, double c, double *speedup, gc_model_result *rm,
		     gc_model_result *rs, gc_err *e);

/* gc_whatif_eval with c = s. */
gc_rc gc_whatif_point(const gc_whatif *w, gc_arch *a, const gc_model_method *m, int p,
		      double bw_gbps, double s, double *speedup, gc_model_result *rm,
		      gc_model_result *rs, gc_err *e);

/* Largest bandwidth in [0.1, 10000] Gbit/s at which m still beats syncsgd (speedup > 1),
 * found on a log grid then by bisection: *gbps = 0 if it never wins, INFINITY if it
 * wins at every bandwidth of the grid. */
gc_rc gc_whatif_crossover(const gc_whatif *w, gc_arch *a, const gc_model_method *m, int p,
			  double s, double c, double *gbps, gc_err *e);

/* Codec speedups "1,2,4" (each > 0) into w->codec. */
gc_rc gc_whatif_parse_codec(const char *s, gc_whatif *w, gc_err *e);

/* ---- the study's grid (gcbench whatif --grid paper | study-code) ---------------
 * paper: resnet50, resnet101, bert-base x batch 16, 32, 64 x signsgd, mstopk ratio
 * 0.001, 0.01, 0.1, powersgd rank 4, 8, 16 x 8, 16, 32, 64, 96 workers x 1, 2, 5, 10,
 * 15, 20, 25, 30 Gbit/s = 2520 predictions; the "data-center" band is >= 10 Gbit/s
 * (1575). study-code: the same models, batches and methods on the setup the study's
 * released code defines (gc_grid_def_study; docs/model.md cites each line). */
#define GC_GRID_MODELS 3
#define GC_GRID_BATCHES 3
#define GC_GRID_METHODS 7
#define GC_GRID_WORKERS 5                /* at most, per grid */
#define GC_GRID_BWS 8                    /* at most, per grid */
#define GC_GRID_DC_GBPS 10.0
/* The study's findings, as the conclusions --sensitivity checks: compression wins in
 * at most GC_GRID_FEW of the data-center configurations (the study: 6 of 200+, 3%; the
 * criterion allows 3x that), and PowerSGD rank 4 on ResNet-50, batch 64, 8 workers
 * stops winning between GC_GRID_CROSS_LO and _HI Gbit/s (the study: about 9). */
#define GC_GRID_FEW 0.10
#define GC_GRID_CROSS_LO 5.0
#define GC_GRID_CROSS_HI 15.0

const char *gc_grid_model(size_t i);       /* NULL past the end */
int gc_grid_batch(size_t i);
const char *gc_grid_method(size_t i);
int gc_grid_workers(size_t i);             /* the paper grid's */
double gc_grid_gbps(size_t i);             /* the paper grid's */
int gc_grid_cross_workers(size_t i);       /* 8, 96: the crossovers' worker counts */

/* A grid's setup: every field one assumption the step table (gc_whatif_steps) moves
 * from the paper grid's value to the study code's. Per model i (gc_grid_model order). */
typedef struct gc_grid_def {
	char name[32];
	size_t nnodes, nbw;
	int nodes[GC_GRID_WORKERS];          /* node counts; workers = nodes x gpn */
	double gbps[GC_GRID_BWS];            /* link rates as set (tc rate) */
	double nic_gbps;                     /* > 0: the NIC's rate; a higher tc rate runs at it */
	int gpn[GC_GRID_MODELS];             /* processes per node; 0: w->mp.gpus_per_node */
	int seq_len;                         /* BERT tokens; 0: the catalogue's 128 */
	double bert_sync_bucket_mb;          /* > 0: sync SGD's bucket cap for BERT */
	gc_hooks hooks;                      /* whose codec (codec.h) */
	gc_gathers gathers[GC_GRID_MODELS];  /* Top-K pair exchange (model.h) */
	int rounds[GC_GRID_MODELS];          /* MSTop-K threshold-search rounds; 0: the method's */
	int backward_only;                   /* time backward only (gc_whatif) */
	int warmup_iters, timed_iters;       /* PowerSGD's all-reduce warm-up (gc_whatif) */
} gc_grid_def;

/* The paper grid (gpn 0: --gpus-per-node; seq_len: --seq-len, 0 = 128). */
void gc_grid_def_paper(gc_grid_def *d, int seq_len);
/* The study's released code: variant 0 runs BERT as run_ddp_bert.sh and
 * run_ddp_var_bandwidth_ddp.sh launch it (8 processes per node, each on its own GPU,
 * as main_bert.py's cuda:local_rank requires); variant 1 as run_ddp.sh launches the
 * ResNets (4 per node). */
void gc_grid_def_study(gc_grid_def *d, int variant);

/* One axis of the study-code grid: its value there and in the paper grid, and where
 * the study's released code (uw-mad-dash/GradCompressionUtility at b73b330) or a
 * public specification says so. */
typedef struct gc_grid_source {
	const char *axis, *paper, *study, *source;
} gc_grid_source;

/* The study-code grid's axes, in a fixed order (*n of them). */
const gc_grid_source *gc_whatif_study_sources(size_t *n);

/* The grid named name ("paper", "study-code") into d (seq_len as gc_grid_def_paper);
 * GC_E_INVAL naming the grids there are. d may be NULL to check the name only. */
gc_rc gc_whatif_grid_def(const char *name, int seq_len, gc_grid_def *d, gc_err *e);

/* GC_OK for "paper" or "study-code", else GC_E_INVAL naming the grids there are. */
gc_rc gc_whatif_grid_check(const char *name, gc_err *e);

typedef struct gc_grid_tally {
	size_t n, wins;            /* all bandwidths */
	size_t n_dc, wins_dc;      /* >= GC_GRID_DC_GBPS (the rate the link runs at) */
} gc_grid_tally;

typedef struct gc_whatif_grid {
	gc_grid_def def;                      /* the grid counted */
	gc_grid_tally all, model[GC_GRID_MODELS], batch[GC_GRID_BATCHES],
		method[GC_GRID_METHODS], workers[GC_GRID_WORKERS], bw[GC_GRID_BWS];
	double best;                          /* largest speedup, and where */
	size_t best_model, best_batch, best_method, best_workers, best_bw;
	int crossovers;                       /* cross[] filled */
	double cross[GC_GRID_MODELS][GC_GRID_BATCHES][2];   /* powersgd rank 4 at the first
	                                       * and last node count (gc_whatif_crossover's
	                                       * units) */
} gc_whatif_grid;

/* Predict the grid with w's parameters (its preset or fit, gpus per node, algorithm;
 * compute speed w->speedup[0], codec speed w->codec[0], else 1 and = compute);
 * seq_len > 0 rescales BERT (gc_whatif_scale_seq); crossovers 1 also fills cross.
 * The paper grid; gc_whatif_grid_run_def any. */
gc_rc gc_whatif_grid_run(const gc_whatif *w, int seq_len, int crossovers, gc_whatif_grid *g,
			 gc_err *e);
gc_rc gc_whatif_grid_run_def(const gc_whatif *w, const gc_grid_def *d, int crossovers,
			     gc_whatif_grid *g, gc_err *e);

/* ---- the step table: from the paper grid to the study code's, one assumption at a
 * time (gcbench whatif --grid-steps). Step 0 is the paper grid; each later step changes
 * one field of the previous step's def (and the last equals gc_grid_def_study(variant)). */
#define GC_GRID_MAX_STEPS 16
typedef struct gc_whatif_step {
	const char *what;                     /* the assumption moved, and its source */
	gc_grid_def def;
	size_t wins_dc, n_dc, wins, n;
	size_t wins_dc_model[GC_GRID_MODELS], wins_dc_method[GC_GRID_METHODS];
	double cross;                         /* ResNet-50, batch 64, first node count */
} gc_whatif_step;

/* Fill out[0..*n) for variant (gc_grid_def_study) from w (a preset), counting each. */
gc_rc gc_whatif_steps(const gc_whatif *w, int variant, gc_whatif_step *out, size_t max,
		      size_t *n, gc_err *e);

/* 1 if conclusion i (0: few data-center wins, 1: crossover near 9 Gbit/s; see above)
 * holds in g (conclusion 1 reads cross[0][2][0]). */
int gc_whatif_conclusion(const gc_whatif_grid *g, int i);

/* One assumed constant at both ends of its range. */
typedef struct gc_whatif_sens {
	const gc_whatif_const *c;
	size_t wins_dc[2], n_dc, wins[2], n;  /* [0]: at lo, [1]: at hi */
	double cross[2];                      /* ResNet-50, batch 64, 8 workers, rank 4 */
	int holds[2][2];                      /* [conclusion][side] */
} gc_whatif_sens;

/* For each constant of the paper preset with lo < hi (w must be a paper preset), the
 * grid at lo and at hi with every other constant as in w; at most max rows into out.
 * The paper grid at seq_len; gc_whatif_sensitivity_def grid d (cross: its ResNet-50,
 * batch 64 crossover at the first node count). */
gc_rc gc_whatif_sensitivity(const gc_whatif *w, int seq_len, gc_whatif_sens *out,
			    size_t max, size_t *n, gc_err *e);
gc_rc gc_whatif_sensitivity_def(const gc_whatif *w, const gc_grid_def *d,
				gc_whatif_sens *out, size_t max, size_t *n, gc_err *e);

#endif

/* orchestrator/spec/spec.h: the sweep spec (YAML), parsed and validated. docs/spec.md is
 * the user's reference; this header is the contract for code.
 *
 * Every axis accepts one value or a list; lists in a method's parameters expand too.
 * Parsing reports ALL problems at once in a gc_diags (orchestrator/spec/yamlutil.h), each
 * as "FILE:LINE:COL: what is wrong; what to write instead", and yields a spec only
 * when there are none. Secrets are never in a spec: notification URLs are named by
 * environment variable (url_env).
 */
#ifndef GC_SPEC_H
#define GC_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "bandwidth.h"
#include "fnv.h"              /* gc_fnv1a64: the spec hash and digests */
#include "result.h"
#include "kernels/compress.h"
#include "notify_target.h"
#include "yamlutil.h"
#include "envvars.h"



#define GC_SPEC_MAX_POINTS 20000       /* an expansion larger than this is refused */
#define GC_SPEC_EVAL_EVERY 20          /* eval_every when a train spec gives none */

/* One method variant: a method with one concrete parameter set. */
struct gc_spec_method {
	char name[32];             /* "powersgd" */
	gc_params params;          /* validated with gc_params_check */
	char params_text[256];     /* gc_params_format(): canonical "k=v,..." ("" syncsgd) */
	char label[300];           /* "powersgd(rank=4,...)" or "syncsgd" */
};

/* The point fields an exclude entry or a zip group can name. */
enum gc_axis {
	GC_AX_MODEL, GC_AX_METHOD, GC_AX_PARAMS, GC_AX_BANDWIDTH, GC_AX_LATENCY,
	GC_AX_WORLD, GC_AX_BATCH, GC_AX_BACKEND, GC_AX_SCALE, GC_AX_STACK, GC_AX_UPLINK,
	GC_AX_SLOW,
	GC_AX__COUNT
};
const char *gc_axis_name(enum gc_axis a);   /* "model", "method", ..., "uplink", "slow" */

/* One exclude entry: a point is dropped when, for every axis with n > 0, its value
 * (canonical text, see gc_point_field in sweep.h) is one of vals. */
struct gc_spec_exclude {
	char **vals[GC_AX__COUNT];
	size_t n[GC_AX__COUNT];
};

/* workload: command: one program to run, an argv template (spec_command.h). `command:`
 * gives one stack without a name; `stacks:` several named ones, swept as an axis (each
 * point runs once per stack, runs.stack holds the name). Other workloads have one stack
 * without a name and no argv. */
struct gc_spec_stack {
	char name[32];             /* "" for command: and other workloads; else a label */
	char **argv;  size_t n_argv;
};

#define GC_SPEC_MAX_STACKS 8
#define GC_SPEC_MAX_SLOW 64             /* hosts in one value of slow: */
#define GC_SPEC_MAX_SLOW_SETS 16        /* values in slow: [...] */

/* workload: command: a file of the spec's files: list (an entry, or a file of a folder
 * entry), shipped with the build (spec_files.c has the rules). */
struct gc_spec_file {
	char *src;                 /* the path on the controller (relative: to the spec's folder) */
	char name[128];            /* where it lands: files/NAME on the hosts ("pkg/util.py":
	                            * its path below the spec's folder, else its base name) */
	char digest[17];           /* FNV-1a 64 of its content, 16 hex digits (in the spec hash) */
};

#define GC_SPEC_MAX_FILES 64
#define GC_SPEC_FILE_MAX_BYTES (16u << 20)

/* bandwidth: trace:FILE, a bandwidth trace (netem/trace.h) that gcbench run plays on
 * every used host's link for the point (docs/spec.md). Its bandwidth item holds
 * GC_SPEC_BW_TRACE | its index in traces; the point's cap (the model's, calibration's)
 * is the trace's mean over one period. */
#define GC_SPEC_MAX_TRACES 8
#define GC_SPEC_BW_TRACE (1ull << 63)
struct gc_spec_trace {
	char *src;                 /* the path on the controller */
	char name[128];            /* its base name */
	char digest[17];           /* FNV-1a 64 of its content, 16 hex digits */
	char *text; size_t len;    /* its content (shipped to the hosts) */
	uint64_t mean_bps;         /* time-weighted mean over one period, rounded */
	uint64_t period_us;
};

/* uplink: RATE or oversubscription: RATIO (a value or a list, one axis; only with an
 * inventory that has racks:, which gcbench run checks): each rack's uplink, the rate, or
 * the sum of the rack's hosts' caps at the point divided by the ratio. */
#define GC_SPEC_MAX_UPLINKS 16
struct gc_spec_uplink {
	uint64_t bps;              /* uplink: the rate (bits/s); 0 with oversubscription: */
	double ratio;              /* oversubscription: 1..1000; 0 with uplink: */
};

/* slow: {HOST: FACTOR}: HOST's cap is FACTOR (0 < FACTOR <= 1) times the point's.
 * slow: [{}, {n3: 0.5}] is an axis: each mapping one value, {} the uniform point. */
struct gc_spec_slow {
	char *host;
	double factor;
};
struct gc_spec_slowset {             /* one value of slow: (n 0: uniform) */
	struct gc_spec_slow *host; size_t n;
};

/* background: {flows: N, pattern: constant|onoff, on: S, off: S, pairs: [[A, B], ...],
 * tool: auto|iperf3|probe, queue: fair|fifo}
 * (docs/spec.md, "Cross traffic"): N bulk TCP flows from each sender to its receiver
 * while a point runs, started after calibration. flows 0 (or no background:) is none. */
#define GC_SPEC_BG_MAX_FLOWS 16
#define GC_SPEC_BG_MAX_PAIRS 64
#define GC_SPEC_BG_MAX_ONOFF_S 3600.0
struct gc_spec_bg_pair {
	char from[64], to[64];     /* inventory host names */
};
struct gc_spec_background {
	int flows;                 /* per pair, 0..GC_SPEC_BG_MAX_FLOWS */
	int onoff;                 /* 1: pattern: onoff (send on_s, pause off_s, repeat) */
	double on_s, off_s;        /* onoff only, each in (0, GC_SPEC_BG_MAX_ONOFF_S] */
	struct gc_spec_bg_pair *pairs; size_t n_pairs;   /* NULL, 0: each used host to the
						       * next one in the ranks' ring order */
	int tool;                  /* GC_BG_TOOL_*: tool: auto (default), iperf3 or probe */
	int queue;                 /* GC_BG_QUEUE_*: queue: fair (default: a sending host's
				    * capped egress is an htb with a class for the ranks and
				    * one for the flows, docs/netem.md) or fifo (the plain
				    * cap's one drop-tail queue) */
};
enum { GC_BG_TOOL_AUTO = 0, GC_BG_TOOL_IPERF3, GC_BG_TOOL_PROBE };
enum { GC_BG_QUEUE_FAIR = 0, GC_BG_QUEUE_FIFO };

struct gc_spec {
	char *name, *description;
	char *workload;                  /* "replay", "train" (models: mlp, cnn) or "command" */
	int ddp;                         /* workload: ddp, parsed as a command workload whose
	                                  * program is gcbench's DDP runner (spec_ddp.c) */
	char python[256];                /* ddp: the spec's python: ("" none: python3, or
	                                  * a host's own python:) */
	char env[GC_ENV_MAX][GC_ENV_LEN]; size_t n_env;  /* command, ddp: env:, "NAME=VALUE" */
	struct gc_spec_stack *stacks; size_t n_stacks;  /* workload: command: the programs
	                                             * (docs/spec.md; spec_command.h) */
	struct gc_spec_file *files; size_t n_files; /* workload: command: files: */
	char **models;          size_t n_models;
	struct gc_spec_method *methods;  size_t n_methods;   /* expanded variants */
	char *baseline;                  /* a method name with exactly one variant; with
	                                  * baseline: [a, b], the first (a) */
	char **baselines;       size_t n_baselines;   /* baseline: [a, b]: every one, in
	                                  * order (each a method with one variant); NULL, 0
	                                  * for a single baseline: */
	uint64_t *bandwidth;    size_t n_bandwidth;   /* bits/s; 0 = unlimited */
	double *latency;        size_t n_latency;     /* seconds (netem delay); default [0] */
	int *world_size;        size_t n_world_size;
	int *batch;             size_t n_batch;
	char **backend;         size_t n_backend;     /* "mpi" | "nccl" */
	double *compute_scale;  size_t n_compute_scale;
	struct gc_spec_trace traces[GC_SPEC_MAX_TRACES]; size_t n_traces;
	struct gc_spec_slowset *slow; size_t n_slow;  /* slow: the axis's values (the mapping
						       * form: one); hosts unchecked here: the
						       * inventory's, gcbench run checks */
	struct gc_spec_uplink *uplink; size_t n_uplink; /* uplink: or oversubscription: */
	struct gc_spec_background bg;    /* background: (hosts unchecked here, as slow:) */
	int iterations, warmup, repeats, timeout_s;
	int eval_every;                  /* train: validate every K iterations */
	int ranks_per_node;              /* 0: auto (orchestrator/run/placement.h) */
	int allow_single_node;           /* 1: a point may put every rank on one host under a cap */
	char data[16];                   /* train: "digits" (default) or "generated" */
	char target_metric[16];          /* train: "accuracy", "loss" or "" (no target) */
	double target_value;
	struct gc_spec_exclude *exclude; size_t n_exclude;
	unsigned zip[8];        size_t n_zip;  /* bit masks of enum gc_axis, advanced together */
	gc_notify_target *notify; size_t n_notify;     /* url_env owned by the spec */
	char *canonical;                 /* canonical text of what the measurements depend on */
	char hash[17];                   /* FNV-1a 64 of canonical, 16 hex digits */
	char *text;                      /* the spec file as given (stored in sweeps) */
};

/* Parse a spec from memory; file names it in messages. On success (GC_OK, d empty)
 * the caller owns *spec (gc_spec_release). Otherwise returns GC_E_INVAL (or
 * GC_E_NOMEM), *spec is empty, and d holds every problem (gc_diags_print). */
gc_rc gc_spec_parse(const char *buf, size_t len, const char *file, struct gc_spec *spec,
		    struct gc_diags *d);

/* Read and parse a file. File errors (missing, unreadable) go to e; problems in the
 * content go to d (and e gets a one-line summary). */
gc_rc gc_spec_load(const char *path, struct gc_spec *spec, struct gc_diags *d, gc_err *e);

void gc_spec_release(struct gc_spec *spec);     /* accepts NULL; leaves it empty */

/* Parse a latency: "0", "250us", "1.5ms", "2s" -> seconds in [0, 10]. GC_E_INVAL with
 * a message in e otherwise. */
gc_rc gc_latency_parse(const char *s, double *seconds, gc_err *e);

/* The number of values of an axis (for METHOD and PARAMS: the method variants) and
 * the canonical text of value i: model/backend/stack as written, method name, params text,
 * uplink as spec_uplink_text (UPLINK, like STACK, has one value "" without uplink:),
 * slow as spec_slow_text (SLOW likewise: one value "" without slow:; {} is ""),
 * bandwidth in bits/s ("1000000000", "0" unlimited), latency and compute_scale as
 * "%.9g" seconds/factor, world_size and batch in decimal. STACK always has at least
 * one value ("" when the spec names no stacks). Point keys, exclude entries and the
 * canonical spec text all use these. */
size_t gc_spec_axis_len(const struct gc_spec *s, enum gc_axis a);
void gc_spec_axis_text(const struct gc_spec *s, enum gc_axis a, size_t i, char *buf,
		       size_t n);

/* slow: the factor on HOST's cap in one value of slow: (a point's; NULL: none, 1 when
 * it does not name HOST), and HOST's cap at a point of cap cap_bps (0, unlimited,
 * stays 0; rounded to the bit). */
double gc_spec_slow_factor(const struct gc_spec_slowset *sl, const char *host);
uint64_t gc_spec_host_cap(const struct gc_spec_slowset *sl, uint64_t cap_bps,
			  const char *host);
/* 1 when some value of slow: names a host (a spec whose slow: is only {} has none) */
int gc_spec_has_slow(const struct gc_spec *s);

/* A rack's uplink at a point: u's rate, or rack_caps_bps (the sum of the rack's hosts'
 * caps) over u's ratio, at least GC_BW_MIN; 0 for u NULL (no uplink). */
uint64_t gc_spec_uplink_bps(const struct gc_spec_uplink *u, uint64_t rack_caps_bps);

/* An uplink value as keys and the canonical text write it: "1000000000" (a rate) or
 * "2:1" (a ratio); "" for NULL. */
void spec_uplink_text(const struct gc_spec_uplink *u, char *buf, size_t n);

/* "n3:0.5,n4:0.875" (one value of slow:, in the spec's order; "" for {} or NULL): the
 * point key's ;slow=, the slow axis's text and the canonical text use it. */
void spec_slow_text(const struct gc_spec_slowset *sl, char *buf, size_t n);

/* "flows:1" ("flows:2,onoff:1/3,tool:probe,pairs:n1>n2+n3>n1,queue:fifo" with the
 * options given (a pairs list longer than 400 characters as pairs@DIGEST; queue only
 * when fifo, so that keys without queue: stay as they were); "" without
 * background or with flows 0): the point key's ;bg= and the canonical text use it. */
void spec_bg_text(const struct gc_spec *s, char *buf, size_t n);
/* "fair" or "fifo": a GC_BG_QUEUE_* as the spec and network_json write it. */
const char *gc_spec_bg_queue_name(int queue);

/* A bandwidth item: its trace (NULL for a fixed cap), and its cap in bits/s (a trace's
 * mean; 0 = unlimited). */
const struct gc_spec_trace *gc_spec_bw_trace(const struct gc_spec *s, uint64_t item);
uint64_t gc_spec_bw_rate(const struct gc_spec *s, uint64_t item);
/* The trace's file name on the hosts, beside the build's files: "trace-DIGEST.txt". */
void gc_spec_trace_file(const struct gc_spec_trace *t, char *buf, size_t n);

#endif

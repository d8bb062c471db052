/* worker/wk.h: the parts of gcbench-worker (one rank of data-parallel training).
 *
 * Split by concern:
 *   wk_args.c    command line -> gc_wk_cfg (validated), --help          [libgcbench.a]
 *   wk_layout.c  tensors in backward order, buckets, byte accounting    [libgcbench.a]
 *   wk_data.c    training data: the GCBDAT1 reader, generated clusters  [libgcbench.a]
 *   wk_net.c     the trained models' common part; wk_mlp.c, wk_cnn.c     [libgcbench.a]
 *   wk_exchange.c one bucket's encode -> rounds -> decode, timed        [libgcbench.a]
 *   wk_optim.c   momentum SGD's velocity                               [libgcbench.a]
 *   wk_comm_mpi.c / wk_comm_nccl.c   collectives with deadlines         [the program]
 *   wk_train.c   the training loop and the communication thread         [the program]
 *   wk_main.c    main: parse, bootstrap MPI, run, write records         [the program]
 * The library parts need no MPI, so unit tests link them from libgcbench.a.
 */
#ifndef GC_WK_H
#define GC_WK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kernels/compress.h"
#include "result.h"

#define GC_WK_MAX_PARAMS 16
#define GC_WK_MAX_RINGS 8              /* --mpi-rings at most */

typedef enum gc_wk_backend { GC_WK_MPI, GC_WK_NCCL } gc_wk_backend;
typedef enum gc_wk_kind { GC_WK_REPLAY, GC_WK_TRAIN } gc_wk_kind;
typedef enum gc_wk_mode { GC_WK_RUN, GC_WK_HELP, GC_WK_DUMP, GC_WK_BENCH_ALLREDUCE,
			   GC_WK_VERSION, GC_WK_PRINT_MODEL } gc_wk_mode;

/* The whole configuration of one rank; filled by gc_wk_args_parse. */
typedef struct gc_wk_cfg {
	gc_wk_mode mode;
	gc_wk_backend backend;
	gc_params params;              /* method and its parameters, checked */
	char param_text[256];          /* canonical gc_params_format() text */
	char workload[300];            /* as given: "replay:resnet50", "train:mlp" */
	gc_wk_kind kind;
	char model[256];               /* replay: the architecture name; train: "mlp", "cnn" */
	char data[256];                /* train: auto, digits, generated or a GCBDAT1 path */
	int eval_every;                /* train: validate every K iterations; 0 = never */
	int iters, warmup, batch;
	double compute_scale, device_flops;
	char profile[256];             /* per-tensor backward seconds, or "" */
	double bucket_first_mb, bucket_mb;
	int overlap;                   /* 0 with --no-overlap */
	int blocking;                  /* --mpi-coll blocking: MPI_Allreduce + watchdog */
	int rings;                     /* --mpi-rings: concurrent slices of a large nb all-reduce */
	double deadline;               /* seconds per collective */
	int threads;                   /* --threads: CPU threads per rank; 0 = auto */
	double lr;                     /* SGD learning rate (0: the method's default) */
	char out[256];                 /* record path pattern, %r = rank */
	int heartbeat;                 /* stderr line every K iterations, 0 = off */
	char iface[64];                /* data interface, "" if not given */
	char dump[256];                /* --dump FILE */
	long long bench_count;         /* --bench-allreduce: floats (0: the model's numel) */
} gc_wk_cfg;

/* Parse argv (argv[0] is the program). Every problem is reported in e with the option,
 * the value and what to do; GC_E_INVAL then. --help sets mode GC_WK_HELP, --version
 * GC_WK_VERSION, --print-model MODEL (alone) GC_WK_PRINT_MODEL with model set as
 * --workload replay:MODEL sets it. --method takes NAME[:k=v,...]; --param k=v (deprecated) still works,
 * with a warning on stderr that says what to write instead. Checks that
 * the profile file exists and is readable, not that the model exists (gc_arch_build
 * does that). */
gc_rc gc_wk_args_parse(gc_wk_cfg *c, int argc, char **argv, gc_err *e);
void gc_wk_usage(FILE *f);

/* The record path for a rank: every "%r" of pattern replaced by rank. */
gc_rc gc_wk_out_path(char *dst, size_t n, const char *pattern, int rank, gc_err *e);

/* One parameter tensor in backward (exchange) order. */
typedef struct gc_wk_tensor {
	char name[128];
	gc_tensor_desc d;
	size_t off, numel;             /* element offset in the flat buffers */
	double t_bwd;                  /* seconds of emulated backward compute */
} gc_wk_tensor;

typedef struct gc_wk_bucket {
	size_t t0, t1;                 /* tensors [t0, t1) of the layout */
	size_t off, numel;             /* elements [off, off + numel) */
} gc_wk_bucket;

/* Tensors in backward order, laid out back to back, grouped into buckets. */
typedef struct gc_wk_layout {
	gc_wk_tensor *t;
	size_t nt, numel;
	gc_wk_bucket *b;
	size_t nb;
	double t_fwd;                  /* emulated forward seconds */
} gc_wk_layout;

/* Build the layout from tensors given in FORWARD order (reversed here). shapes: nt
 * tensors; names, ndim, shape[4], numel and t_bwd are read through the accessor-free
 * struct below so that both the architecture builders and the MLP can feed it. */
typedef struct gc_wk_tensor_in {
	const char *name;
	int ndim;
	const size_t *shape;           /* ndim entries */
	size_t numel;
	double t_bwd;
} gc_wk_tensor_in;

/* Buckets by DDP's rule (kernels/plan.h, gc_ddp_buckets): in backward order, a bucket
 * takes whole tensors until it holds at least first_bytes (the first bucket) or bytes
 * (the others); the last holds the rest. Caller owns out; release with
 * gc_wk_layout_release. */
gc_rc gc_wk_layout_build(gc_wk_layout *out, const gc_wk_tensor_in *fwd, size_t nt,
			 double first_bytes, double bytes, gc_err *e);
void gc_wk_layout_release(gc_wk_layout *l);

/* Bytes one rank sends and receives for one round, as a ring would move them:
 * all-reduce of S bytes: 2 (p-1) S / p each way (rounded down); all-gather of S bytes
 * per rank: (p-1) S each way; all-to-all of S bytes to each rank: (p-1) S each way.
 * 0 for p = 1. */
void gc_wk_round_bytes(gc_coll coll, gc_dtype dt, size_t count, int world,
		       uint64_t *sent, uint64_t *recv);


/* Deterministic pseudo-random floats (splitmix64 -> approx. N(0, scale^2)); the same
 * values from every build. */
void gc_wk_fill_random(float *x, size_t n, uint64_t seed, float scale);

/* Momentum SGD's velocity (PyTorch's SGD with dampening 0, no Nesterov): u[i] =
 * m * u[i] + avg[i] in float, i < n; u starts at zero, so the first step is u = avg.
 * The worker then steps param -= lr * u. */
void gc_wk_momentum(float *u, const float *avg, size_t n, float m);

/* 1 if the worker applies momentum m to the averaged gradient of method p: m > 0 and
 * not dgc, whose compressor applies it before compressing (momentum correction). */
int gc_wk_uses_momentum(const gc_params *p);

/* ---- the trained models (wk_net.c, wk_mlp.c, wk_cnn.c) ---- */
#define GC_NET_MAX_TENSORS 8
#define GC_MLP_HID 256                 /* the MLP's hidden units */
#define GC_CNN_C1 16                   /* the CNN's channels after conv1, conv2 */
#define GC_CNN_C2 32

struct gc_data;

/* A model trained for real: its tensors in forward order (shapes owned here), views of
 * them in the flat parameter and gradient buffers once bound, and its forward and
 * backward. x holds n samples of features floats each (CHW). */
typedef struct gc_wk_net gc_wk_net;
struct gc_wk_net {
	char name[8];                  /* "mlp", "cnn" */
	size_t nt, numel;
	gc_wk_tensor_in t[GC_NET_MAX_TENSORS];
	size_t shape[GC_NET_MAX_TENSORS][4];
	float *p[GC_NET_MAX_TENSORS], *g[GC_NET_MAX_TENSORS]; /* forward order, once bound */
	int batch;                     /* the most samples one forward takes */
	int channels, height, width, classes;
	size_t features;
	/* Mean cross-entropy over the n <= batch samples; *correct (if not NULL) gets the
	 * samples whose largest logit is their label. Keeps what backward needs. */
	double (*forward)(gc_wk_net *m, const float *x, const int *y, int n, int *correct);
	/* Gradients of the last forward into g[]; produced(arg, k) once the k last tensors
	 * (backward order) are complete. */
	void (*backward)(gc_wk_net *m, void (*produced)(void *arg, size_t k), void *arg);
	void (*release)(gc_wk_net *m);
	void *st;                      /* the model's buffers */
};

/* A model ("mlp": features-256-classes, ReLU; "cnn": conv3x3(16)-ReLU-conv3x3(32)-ReLU-
 * avgpool2-fc, both with softmax cross-entropy) for data shaped like d, taking up to
 * batch samples. GC_E_INVAL for another name. Release with gc_wk_net_release. */
gc_rc gc_wk_net_new(gc_wk_net *m, const char *model, const struct gc_data *d, int batch,
		    gc_err *e);
gc_rc gc_mlp_new(gc_wk_net *m, const struct gc_data *d, int batch, gc_err *e);
gc_rc gc_cnn_new(gc_wk_net *m, const struct gc_data *d, int batch, gc_err *e);

/* Point p[] and g[] at the tensors of lay (built from m->t) in the flat buffers, and
 * initialise the parameters from fixed seeds (the same on every rank): weights
 * N(0, 2 / fan_in), biases 0. GC_E_STATE if lay lacks one of the model's tensors. */
gc_rc gc_wk_net_bind(gc_wk_net *m, const gc_wk_layout *lay, float *param, float *grad,
		     gc_err *e);

/* Mean loss and accuracy on validation samples [lo, hi) of d (indices into the
 * validation set), in forward passes of m->batch; 0 and 0 when the range is empty. */
void gc_wk_net_eval(gc_wk_net *m, const struct gc_data *d, size_t lo, size_t hi, double *loss,
		    double *acc);

void gc_wk_net_release(gc_wk_net *m);  /* accepts NULL and a zeroed net */

/* For the constructors: append a tensor (name static, shape copied). */
void gc_wk_net_tensor(gc_wk_net *m, const char *name, int ndim, const size_t *shape);

/* Shared by the models: softmax of the n x classes logits z in place, returning the
 * mean cross-entropy; counts argmax hits into *correct when not NULL. */
double gc_wk_softmax_xent(float *z, const int *y, int n, int classes, int *correct);
/* dz = (softmax - onehot) / n in place of the softmax. */
void gc_wk_xent_grad(float *p, const int *y, int n, int classes);

#endif

/* model/model.h: the performance model of data-parallel training with and without
 * gradient compression (Agarwal et al., MLSys 2022), its fitting, and the buckets of an
 * architecture (by the worker's rule, kernels/plan.h). docs/model.md derives every
 * formula and default.
 *
 * Units: seconds, bytes, bytes/s (BW is per direction of one node's link), elements/s.
 *
 * Event model of one iteration (gc_model_predict):
 *   forward (t_fwd) -> backward over the tensors in backward order, each t_bwd * lambda
 *   (lambda: slowdown of compute by concurrent communication, p > 1 only). A bucket is
 *   ready when its last tensor's gradient is; its encode runs on the device right then
 *   (delaying later backward work); its exchange starts at max(encode end, previous
 *   exchange end) on one communication channel; PowerSGD runs two exchanges (P with the
 *   uncompressed tensors, then Q) with half its encode between them. Decodes run on the
 *   device after backward, in bucket order, each once its exchange is done. Iteration =
 *   forward + max(device end, last decode end) + optimizer. The last bucket cannot
 *   overlap. p = 1: no exchange, no encode/decode.
 * With codec_on_comm (gcbench-worker's schedule, worker/wk_train.c): one communication
 *   thread takes the buckets in order and runs each one's encode, exchange(s) and decode
 *   back to back, starting once the bucket is ready and the previous one is done;
 *   backward is not delayed by encodes. Iteration = forward + max(backward end, last
 *   decode end) + optimizer.
 */
#ifndef GC_MODEL_H
#define GC_MODEL_H

#include <stddef.h>

#include "kernels/compress.h"
#include "kernels/plan.h"
#include "codec.h"
#include "result.h"
#include "formats/arch.h"

/* ---- bucketing --------------------------------------------------------------------
 * DDP's rule (kernels/plan.h: gc_ddp_buckets, as the worker lays out its buckets):
 * tensors in backward order (forward index n-1 first), whole tensors only; a bucket
 * closes once it holds >= first_bytes (the first) or >= bytes (the others) of fp32
 * gradient; the last may be smaller. DDP's defaults: 1 MiB, 25 MiB. A gc_bucket_span's
 * tensor j has the forward index arch.n - 1 - (first + j). The defaults are
 * GC_DDP_FIRST_BYTES and GC_DDP_BYTES (kernels/plan.h). */

typedef struct gc_buckets {
	gc_bucket_span *b;
	size_t n;
} gc_buckets;

gc_rc gc_buckets_make(const gc_arch *a, size_t first_bytes, size_t bytes, gc_buckets *out,
		      gc_err *e);
void gc_buckets_release(gc_buckets *b);                      /* accepts NULL */

/* Tensor j of bucket s as the compressors see it (gc_tensor_view). */
gc_tensor_desc gc_model_tensor(const gc_arch *a, const gc_bucket_span *s, size_t j);

/* ---- methods ------------------------------------------------------------------- */
/* A method and its parameters (kernels/params.h; the what-if tables use ratio, rank,
 * rounds, min_compression and scaled) and its label. */
typedef struct gc_model_method {
	gc_params p;
	char label[64];          /* the spec as given, e.g. "topk:ratio=0.01" */
} gc_model_method;

/* "syncsgd", "fp16", "signsgd[:scaled=1]", "topk:ratio=R", "mstopk:ratio=R",
 * "mstopk:ratio=R,rounds=N", "powersgd:rank=N[,min_compression=X]": a method of the
 * method table with any of the parameters it takes (kernels/params.h: names, defaults,
 * ranges). Errors name the method/key/value and the valid choices. */
gc_rc gc_model_method_parse(const char *spec, gc_model_method *out, gc_err *e);

/* Per-worker payload of one bucket as kernels/plan.h plans it: round0 (and round1 for
 * powersgd, else 0) in bytes; returns 1 if the method all-gathers. */
int gc_model_payload(const gc_arch *a, const gc_bucket_span *s, const gc_model_method *m,
		     size_t *round0, size_t *round1);

/* Decode work of a bucket of n elements on p workers, in elements (see
 * gc_model_predict). */
double gc_model_decode_elems(const gc_model_method *m, size_t n, int p);

/* ---- parameters and prediction ---------------------------------------------------- */
/* All-reduce algorithm among nodes. Ring: 2 (N-1) latency steps, 2 B (N-1)/N bytes on
 * each node's link. Tree (NCCL's double binary tree): 2 ceil(log2 N) steps, 2 B bytes.
 * Auto: the faster of the two for that size and scale, as NCCL's tuner picks the
 * algorithm with the lowest predicted time. All-gather is always a ring (NCCL has no
 * tree all-gather). */
typedef enum gc_coll_algo { GC_ALGO_RING = 0, GC_ALGO_TREE, GC_ALGO_AUTO } gc_coll_algo;

/* How Top-K and MSTop-K exchange their k pairs: as kernels/plan.h plans them (one
 * all-gather of k uint32 indices and k float values), or as the study's released hooks
 * do: ResNet's hook all-gathers the k values twice and no indices (main_ddp_final.py
 * 512-516, the index all-gather commented out at 509), BERT's all-gathers the k int64
 * indices, then the k values (main_bert.py 1145-1149). */
typedef enum gc_gathers {
	GC_GATHER_PLAN = 0, GC_GATHER_VALUES_TWICE, GC_GATHER_INDEX64_VALUES
} gc_gathers;

typedef struct gc_model_params {
	double alpha;                    /* per-hop latency between nodes, s */
	double bw;                       /* node link bandwidth, bytes/s */
	double host_bw;                  /* endpoint cost of collectives (copies, reduction,
	                                  * TCP stack), bytes/s of link traffic; 0 = free.
	                                  * Each byte on the link costs 1/bw + 1/host_bw */
	int codec_on_comm;               /* 1: gcbench-worker's schedule (see above) */
	double lambda;                   /* compute slowdown under communication, >= 1 */
	double enc_rate[GC_M__COUNT];    /* elements/s; 0 = free */
	double dec_rate[GC_M__COUNT];    /* elements/s of decode work (see gc_model_predict) */
	int codec_ops;                   /* 1: encode/decode from dev (codec.h), not rates */
	gc_codec_dev dev;
	gc_coll_algo algo;               /* all-reduce among nodes: ring, tree or NCCL's pick */
	double fwd_over_bwd;             /* forward time / backward time; default 0.5 */
	double t_opt;                    /* optimizer step, s */
	int gpus_per_node;               /* g >= 1: hierarchical when > 1 */
	double alpha_intra, bw_intra;    /* links inside a node (NVLink/PCIe) */
	size_t first_bucket_bytes, bucket_bytes;
	gc_gathers gathers;              /* Top-K/MSTop-K exchange (0: the plan's) */
} gc_model_params;

/* Defaults: alpha 25 us, bw 10 Gbit/s, no host cost, the study's schedule, lambda 1,
 * free encode/decode (rates, codec_ops 0), fwd 0.5x backward, t_opt 0, flat ring
 * (g 1; intra 5 us, 100 GB/s; algo ring), DDP buckets. */
void gc_model_params_default(gc_model_params *p);

/* Cross traffic (docs/model.md, "Competing flows"): the share of a link's cap left to
 * the ring's traffic when `flows` bulk TCP flows leave the same host and send a fraction
 * duty (0..1] of the time: 1 / (1 + flows * duty). An assumption of TCP fairness: the
 * ring's one connection on that link and each competing flow get equal shares while
 * they all send (flows * duty is the mean number of competitors, which holds when an
 * on/off period is short against the run). 1 for flows <= 0; duty outside (0, 1] is 1. */
double gc_model_bg_share(int flows, double duty);

typedef struct gc_model_result {
	double compute;      /* forward + lambda * backward (s) */
	double forward;      /* of which forward (s) */
	double encode, decode, optimizer;
	double comm;         /* time inside collectives, summed over buckets and rounds */
	double exposed;      /* total - compute - encode - decode - optimizer (>= 0) */
	double total;        /* event model's iteration time */
	double study;        /* the study's form: t_fwd + max(lambda T_bwd, sum T_coll) +
	                      * encode + decode + optimizer */
	size_t bytes_sent;   /* per worker per iteration, payloads */
	size_t nbuckets;
} gc_model_result;

/* Collectives (flat when g == 1 or p <= g, else intra-node ring + inter-node ring or
 * tree by mp->algo); 0 for p <= 1. bytes: the all-reduced buffer / one worker's all-gather payload. */
double gc_model_allreduce(const gc_model_params *mp, int p, double bytes);
double gc_model_allgather(const gc_model_params *mp, int p, double bytes);

/* Encode and decode seconds of bucket s: from mp->dev when codec_ops, else n /
 * enc_rate and gc_model_decode_elems / dec_rate (0 when the rate is 0); syncsgd 0. */
void gc_model_bucket_codec(const gc_arch *a, const gc_bucket_span *s,
			   const gc_model_method *m, const gc_model_params *mp, int p,
			   double *enc, double *dec);

/* What one iteration's collectives of method m on p workers cost on the inter-node
 * ring (whatever mp->algo says: the fit uses rings): *steps latency terms (sum of 2 (N-1) per all-reduce, N-1 per all-gather) and
 * *wire bytes one node sends on its link. Their time is steps alpha + wire (1/bw +
 * 1/host_bw); gc_pdb fits alpha and host_bw from measured t_comm this way. */
gc_rc gc_model_comm_terms(const gc_arch *a, const gc_model_method *m,
			  const gc_model_params *mp, int p, double *steps, double *wire,
			  gc_err *e);

/* Predict one iteration of arch (timed: t_bwd set) on p workers with method m.
 * Decode work in elements: signsgd n*p (unpack every worker's bits), topk/mstopk
 * n + k*p, powersgd and fp16 n, syncsgd 0; encode: n for every method but syncsgd. */
gc_rc gc_model_predict(const gc_arch *a, const gc_model_method *m, const gc_model_params *mp,
		       int p, gc_model_result *out, gc_err *e);

/* ---- fitting ------------------------------------------------------------------------ */
typedef struct gc_calib_sample {
	gc_coll coll;        /* GC_COLL_ALLREDUCE or GC_COLL_ALLGATHER */
	int p;
	double bytes;        /* as gc_model_allreduce/allgather take them */
	double seconds;
} gc_calib_sample;

/* Least squares for alpha and bw of the flat ring formulas (g = 1); needs >= 2 samples
 * with p >= 2 that are not collinear. Results must be positive (else GC_E_INVAL saying so). */
gc_rc gc_model_fit_link(const gc_calib_sample *s, size_t n, double *alpha, double *bw,
			gc_err *e);

/* lambda from compute-bound runs: measured[i] ~ lambda * compute[i] (through 0). */
gc_rc gc_model_fit_lambda(const double *compute, const double *measured, size_t n,
			  double *lambda, gc_err *e);

/* Effective per-hop latency and host cost of collectives from measurements:
 * extra[i] ~ alpha steps[i] + wire[i] / host_bw, extra being a run's measured time in
 * collectives minus its link time (wire / bw). Least squares over both terms; when one
 * comes out negative (or the samples cannot separate them) it is dropped (alpha 0, or
 * host_bw 0 = free) and the other fitted alone. Fails when nothing positive fits. */
gc_rc gc_model_fit_comm(const double *steps, const double *wire, const double *extra,
			size_t n, double *alpha, double *host_bw, gc_err *e);

/* A rate (elements/s) from (elements, seconds) pairs: seconds ~ elements / rate. */
gc_rc gc_model_fit_rate(const double *elements, const double *seconds, size_t n,
			double *rate, gc_err *e);

#endif

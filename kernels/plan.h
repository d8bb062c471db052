/* kernels/plan.h: what a method does with a model's gradients, decided from the tensor
 * shapes alone, as kernels/compress.h defines it:
 *   - DDP bucketing: which tensors go into which bucket;
 *   - per tensor of a bucket whether it is compressed (PowerSGD), k (Top-K, MSTop-K);
 *   - per collective round of a bucket: all-reduce or all-gather, element type, count.
 * The compressors (kernels/, kernels/cuda/) size their buffers and rounds by it, and
 * the performance model (model/) and the worker (worker/) use it, so each rule is
 * written once. No allocation, no state. */
#ifndef GC_KERNELS_PLAN_H
#define GC_KERNELS_PLAN_H

#include <stddef.h>

#include "compress.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- DDP bucketing ---------------------------------------------------------------- */
/* PyTorch DDP's bucket caps: the first bucket 1 MiB, the others 25 MiB. */
#define GC_DDP_FIRST_BYTES (1u << 20)
#define GC_DDP_BYTES (25u << 20)

/* Tensors [first, first + count) of the backward order, numel elements in all. */
typedef struct gc_bucket_span {
	size_t first;     /* position in backward order of its first tensor */
	size_t count;     /* tensors */
	size_t numel;
} gc_bucket_span;

/* Group nt tensors, given in backward order (numel[0]: the first gradient ready), into
 * buckets as DDP does: whole tensors only; a bucket closes once it holds >= first_bytes
 * (the first bucket) or >= bytes (the others) of fp32 gradient (4 bytes an element);
 * the last holds the rest and may be smaller. Writes the buckets in order to out, which
 * has room for nt (never more are needed), and returns how many (0 if nt is 0). */
size_t gc_ddp_buckets(const size_t *numel, size_t nt, double first_bytes, double bytes,
		      gc_bucket_span *out);

/* ---- per tensor ------------------------------------------------------------------- */
/* A tensor as the methods see it: rows = shape[0] (> 0), cols = numel / rows. */
gc_tensor_desc gc_tensor_view(int ndim, const size_t *shape, size_t numel);

/* Top-K and MSTop-K: elements kept of a bucket of n, max(1, ceil(ratio n)) computed in
 * double, at most n. */
size_t gc_topk_k(const gc_params *p, size_t n);

/* PowerSGD: r' = min(rank, rows, cols) if tensor d is compressed (ndim >= 2 and rows
 * cols >= min_compression (rows + cols) r'), 0 if it is sent as it is. */
int gc_powersgd_rank(const gc_params *p, const gc_tensor_desc *d);

/* PowerSGD's layout of a bucket of nt tensors. Per tensor t (arrays of nt): r[t] as
 * gc_powersgd_rank; po[t] the offset of its P (compressed) or of its values (not) in
 * round 0's buffer [all P in tensor order | all uncompressed tensors in tensor order];
 * qo[t] the offset of its Q in round 1's buffer (compressed tensors only). Totals in
 * floats: *np of all P, *nu of the uncompressed tensors, *nq of all Q. */
void gc_powersgd_layout(const gc_params *p, const gc_tensor_desc *t, size_t nt, int *r,
			size_t *po, size_t *qo, size_t *np, size_t *nu, size_t *nq);

/* ---- per bucket ------------------------------------------------------------------- */
#define GC_PLAN_MAX_ROUNDS 2

typedef struct gc_plan_round {
	gc_coll coll;
	gc_dtype dtype;
	size_t count;           /* elements of dtype one worker sends (gc_round.count) */
} gc_plan_round;

/* One bucket: its rounds, and what they follow from. */
typedef struct gc_plan {
	gc_params p;
	size_t nt, numel;       /* tensors, elements */
	int world;              /* workers (1 unless set between begin and end: cgx's chunks
	                         * depend on it) */
	size_t k;               /* topk, mstopk, randomk, dgc: elements sent (gc_topk_k; dgc:
	                         * after its warm-up); else 0 */
	size_t np, nu, nq;      /* powersgd: floats of all P, of the uncompressed tensors,
	                         * of all Q; else 0 */
	size_t ncomp;           /* powersgd: tensors compressed */
	size_t nqb;             /* qsgd: norm buckets, sum over tensors of ceil(n / bucket_size) */
	int nround;             /* 1, or 2 for powersgd with a compressed tensor */
	gc_plan_round round[GC_PLAN_MAX_ROUNDS];
} gc_plan;

/* Plan a bucket tensor by tensor: begin, add each tensor in bucket order, end (which
 * fills k and the rounds). p need not outlive the plan (it is copied). */
void gc_plan_begin(gc_plan *pl, const gc_params *p);
void gc_plan_add(gc_plan *pl, const gc_tensor_desc *d);
void gc_plan_end(gc_plan *pl);

/* The three in one, for a bucket of nt tensors. */
void gc_plan_bucket(gc_plan *pl, const gc_params *p, const gc_tensor_desc *t, size_t nt);

/* Bytes one worker sends in round i (0 if there is no such round), in all rounds. An
 * all-to-all round counts its whole send buffer (count * world elements). */
size_t gc_plan_round_bytes(const gc_plan *pl, int i);
size_t gc_plan_payload_bytes(const gc_plan *pl);

#ifdef __cplusplus
}
#endif

#endif

/* kernels/compress.h: the gradient compressors, one interface for every method and
 * back end (CPU in C, CUDA behind a plain C API).
 *
 * A bucket is a contiguous float32 array holding several parameter tensors back to
 * back, in the order of their descriptors. One gc_bucket holds one worker's compressor
 * state for one bucket (error-feedback residual, PowerSGD's Q, seeds). Per training
 * step the caller does:
 *
 *     gc_encode(b, grad);                       // grad: numel floats
 *     while (gc_round_get(b, &r)) {             // 0, 1 or 2 rounds
 *             run r.coll over all workers (sum for all-reduce, rank order for
 *             all-gather), reading r.send and writing r.recv;
 *             gc_round_done(b);
 *     }
 *     gc_decode(b, avg);                        // avg: numel floats, identical on all
 *
 * With the CUDA back end, grad, avg, r.send and r.recv are device pointers and all work
 * is queued on the stream given at creation; the caller synchronizes before reading.
 *
 * Semantics shared by both back ends (bit-identical where stated):
 * - sign rule: an element is "positive" iff its IEEE sign bit is clear, so +0.0 is
 *   positive and -0.0 negative (NaN by its sign bit). Bit-packing: element i is bit
 *   (i % 8) of byte (i / 8), 1 = positive, 0 = negative; payload ceil(n/8) bytes.
 * - magnitudes (topk, mstopk) compare as the IEEE bits of |c| (identical to float order
 *   for non-NaN values); gradients should be finite, NaN gives unspecified selections.
 * - all-gather payloads (signsgd, topk, mstopk) are GC_DT_U8 rounds, count in bytes.
 * - signsgd majority vote (scaled=0): vote_i = #positive - #negative over workers;
 *   result +1 if vote > 0, -1 if vote < 0, and 0 on a tie (even world sizes only).
 *   scaled=1: worker w sends per tensor t a scale s_wt = mean |c| over t (computed in
 *   double, rounded to float): payload = nt float32 scales (tensor order) followed by
 *   the ceil(n/8) bytes of bucket-wide bits. The result is the average over workers of
 *   s_wt * sign: acc = 0.0f, acc += +-s_wt for w = 0..p-1 in float, then acc / p.
 *   Error feedback (ef=1, needs scaled=1): c = g + e, e' = c - s*sign(c).
 * - topk: k = max(1, ceil(ratio * numel)) per bucket. The k elements of largest |c|
 *   (ties: lower index first), sent as k uint32 indices then k float values, indices
 *   ascending (k computed in double on the host, at most numel). Decode: zero, then
 *   scatter-add worker 0..p-1 in order (in float), divide by p.
 *   EF: e' = c with the sent entries zeroed.
 * - mstopk: like topk, but the threshold is found by `rounds` bisection steps on
 *   [lo, hi] = [mean |c| (double sum, rounded to float), max |c|], mid = (lo + hi) * 0.5f
 *   in float; if #(|c| >= mid) >= k then lo = mid else hi = mid. If #(|c| >= lo) < k at
 *   the start, lo = 0. The selection is every element with |c| >= hi (fewer than k, or
 *   exactly k), filled in ascending index order with elements lo <= |c| < hi until k
 *   (if fewer than k have |c| >= hi, that is; if more, the first k by index).
 * - powersgd: each tensor with ndim >= 2 is a matrix (shape[0] x rest); with
 *   r' = min(rank, rows, cols), it is compressed when rows*cols >= min_compression *
 *   (rows + cols) * r', else sent uncompressed. Round 0 all-reduces [all P | all
 *   uncompressed tensors] (P = M Q, M = c for the tensor); then P is averaged and
 *   orthonormalized (modified Gram-Schmidt per column with the projections on the
 *   previous columns done twice, so that rank-deficient gradients stay exact; dot
 *   products and norms summed in double, columns with norm < 1e-8 left zero) and
 *   Q = M^T P; round 1 all-reduces all Q, which is then averaged. Decode:
 *   M' = P Q^T; uncompressed tensors: sum / p. EF (compressed matrices only):
 *   e' = c - P Q^T. Q starts from N(0,1) values drawn from (seed, tensor index), the
 *   same on every worker; warm_start keeps Q across steps, otherwise it is redrawn
 *   each step from (seed, tensor index, step).
 * - fp16: payload half(c / p) (round to nearest even; overflow to inf), all-reduced
 *   with a half sum (each addition done in float, rounded to half); decode float(sum).
 * - bf16: as fp16 with bfloat16 (kernels/bf16.h: round to nearest even, NaN quieted):
 *   payload bf16(c / p), all-reduced with a bf16 sum (each addition in float, rounded
 *   to bf16, workers in order 0..p-1 in gc_simulate_step), decode float(sum).
 * - randomk: k = max(1, ceil(ratio * numel)) per bucket (as topk); the indices are
 *   kernels/randomk.h's stratified pick from (seed, step), the same on every worker;
 *   payload the k values c[idx_j] (float32), all-reduced; decode avg = 0 except
 *   avg[idx_j] = sum_j / p. EF: e' = c with the sent entries zeroed.
 * - terngrad: per tensor t, s_t = max |g| over t; element i of worker w is coded
 *   s_t sign(g_i) b_i, b_i = (gc_rng_unit24(gc_rng_key(seed, t, step), w 2^32 + i) <
 *   |g_i| / s_t) (kernels/terngrad.h: unbiased); payload nt float32 scales then
 *   ceil(n/4) bytes of 2-bit codes (0: 0, 1: +s, 2: -s; element i at bits 2 (i%4) of
 *   byte i/4), all-gathered. Decode: acc = 0.0f, acc += value of worker w's code for
 *   w = 0..p-1 in float, then acc / p.
 * - qsgd: each tensor cut into norm buckets of bucket_size elements (the last
 *   shorter); per norm bucket r = (float) sqrt(sum of g^2, in double, in order); with
 *   s = levels, x = (|g_i| / r) s in float, level = floor(x) + (u < x - floor(x)), u
 *   as terngrad's; value sign(g_i) ((r level) / s) (kernels/qsgd.h: unbiased);
 *   payload the norms (float32, norm bucket order) then sign-magnitude codes of W =
 *   4, 8 or 16 bits (gc_qsgd_width), all-gathered. Decode as terngrad's.
 * - efsign_ar: c = g + e (ef=1, default) or g; per tensor m_t = mean |c| (double sum
 *   in element order / n_t, rounded to float), h_t = bf16(m_t / p); payload element
 *   i = h_t with the sign bit set iff c_i < 0, all-reduced as bf16's (a bf16 sum);
 *   decode float(sum). EF: e' = c - sign(c) (p float(h_t)), sign(c) = -1 iff c < 0.
 * - dgc (kernels/dgc.h): per tensor, with clip > 0, g = g f, f = (float)((clip /
 *   sqrt(p)) / ||g||) when ||g|| > clip / sqrt(p) (the norm's squares summed in double
 *   per block of 1024 in order, then the blocks in order); u = m u + g; v = v + u (m =
 *   momentum, float); the k = gc_dgc_k(step) largest |v| sent as topk's payload
 *   (warm-up: the first warmup_steps steps send more, 25% to 0.39%; the round's count
 *   is then above the plan's, which is the final k); u = v = 0 where sent; decode as
 *   topk. gc_bucket_residual gives v.
 * - cgx (kernels/cgx.h): max-min quantization of p chunks of the bucket to `bits` bits
 *   per quantization bucket of bucket_size elements, stochastic rounding keyed by
 *   (seed, 0, step), counter w 2^32 + i; round 0 all-to-all (chunk j to worker j);
 *   worker j dequantizes its p chunks, sums them in float in worker order, requantizes
 *   the sum (key (seed, 1, step), counter i); round 1 all-gathers the requantized
 *   chunks; decode: dequantized / p. No error feedback.
 * - syncsgd: all-reduce of c in float32, decode sum / p.
 * All-reduce is a sum. gc_bucket_residual gives e' for methods with error feedback.
 * kernels/params.h holds the method table (names, parameters, defaults, ranges);
 * kernels/plan.h computes from shapes alone what these rules make of a bucket (k,
 * PowerSGD's split, each round and the payload) and DDP's bucketing.
 */
#ifndef GC_COMPRESS_H
#define GC_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"   /* the methods and their parameters */
#include "result.h"

typedef enum gc_backend { GC_BACKEND_CPU, GC_BACKEND_CUDA } gc_backend;
typedef enum gc_coll { GC_COLL_ALLREDUCE, GC_COLL_ALLGATHER, GC_COLL_ALLTOALL } gc_coll;
typedef enum gc_dtype { GC_DT_F32, GC_DT_F16, GC_DT_U8, GC_DT_BF16 } gc_dtype;

/* One tensor of a bucket: ndim 1 tensors are never compressed as matrices. */
typedef struct gc_tensor_desc {
	size_t rows;            /* shape[0] */
	size_t cols;            /* product of the other dimensions (1 for 1-D) */
	int ndim;
} gc_tensor_desc;

/* One collective the caller must run for the bucket. */
typedef struct gc_round {
	gc_coll coll;
	gc_dtype dtype;
	const void *send;       /* count elements of dtype */
	size_t count;
	void *recv;             /* all-reduce: count elements (may equal send); all-gather:
	                         * count * world elements, worker w's at offset w * count;
	                         * all-to-all (cgx): send and recv count * world elements,
	                         * send's block j goes to worker j, recv's block w is what
	                         * worker w sent to this one */
} gc_round;

typedef struct gc_bucket gc_bucket;

/* 1 if the CUDA back end is compiled in and a device is usable. */
int gc_cuda_available(void);

/* Create one worker's state for a bucket of nt tensors. stream is a cudaStream_t for
 * GC_BACKEND_CUDA (NULL: the default stream) and ignored for the CPU. Fails with
 * GC_E_UNSUPPORTED if the back end is not built in. Caller owns *out. */
gc_rc gc_bucket_new(gc_bucket **out, const gc_params *p, gc_backend be, void *stream,
		    const gc_tensor_desc *t, size_t nt, int world, int worker, gc_err *e);
void gc_bucket_free(gc_bucket *b);                     /* accepts NULL */

size_t gc_bucket_numel(const gc_bucket *b);

/* Bytes this worker sends per step in all rounds (its payload), for accounting. */
size_t gc_bucket_payload_bytes(const gc_bucket *b);

gc_rc gc_encode(gc_bucket *b, const float *grad);
int gc_round_get(gc_bucket *b, gc_round *r);           /* 1: a round to run; 0: none left */
gc_rc gc_round_done(gc_bucket *b);
gc_rc gc_decode(gc_bucket *b, float *avg);

/* Copy the error-feedback residual (numel floats) to host memory; zeros for methods
 * without error feedback. */
gc_rc gc_bucket_residual(const gc_bucket *b, float *host_out);

/* Run one whole step for p workers in this process: encode each worker's gradient,
 * run the collectives in memory (all-reduce summed in worker order 0..p-1, half sums
 * as defined above), decode into avg[w]. All buckets must have the same layout and
 * method, bucket w made as worker w of world p. grads and avg are host memory for
 * either back end (CUDA buckets are staged through device copies). The tool
 * `gcbench compress` and the unit tests use it. Per-phase times in nanoseconds (summed
 * over workers) go to enc_ns/dec_ns if non-NULL. */
gc_rc gc_simulate_step(gc_bucket **workers, int p, const float *const *grads, float **avg,
		       uint64_t *enc_ns, uint64_t *dec_ns, gc_err *e);

/* Half-precision helpers used by the fp16 method and the collectives' half sum. */
uint16_t gc_f32_to_f16(float f);
float gc_f16_to_f32(uint16_t h);
/* acc[i] = half(float(acc[i]) + float(x[i])), i < n: the half sum of every all-reduce. */
void gc_f16_sum(uint16_t *acc, const uint16_t *x, size_t n);
size_t gc_dtype_size(gc_dtype t);

/* bfloat16 (kernels/bf16.h's rounding), for the bf16 method and its all-reduce. */
uint16_t gc_f32_to_bf16(float f);
float gc_bf16_to_f32(uint16_t h);
/* acc[i] = bf16(float(acc[i]) + float(x[i])), i < n: the bf16 sum of every all-reduce. */
void gc_bf16_sum(uint16_t *acc, const uint16_t *x, size_t n);

#endif

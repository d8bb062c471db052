/* model/codec.h: encode/decode cost of one bucket from what its implementation does
 * (kernel launches, host syncs, memory passes, matrix FLOPs) on a device described by
 * a few constants, instead of one elements/s rate per method. The `paper` preset of
 * gcbench whatif uses it with the operation counts of the study's stack (PyTorch eager,
 * DDP comm hooks) and a V100; docs/model.md lists every count and constant with its
 * source or its assumed range.
 *
 * Operations per bucket of n elements (c compressible matrices rows x cols at rank
 * r' = min(rank, rows, cols), u uncompressed tensors, k = max(1, ceil(ratio n)), p
 * workers; a "pass" moves 4n bytes):
 *   fp16      (fp16_compress_hook) encode 2 launches, 2.5 passes; decode 1, 1.5
 *   signsgd   encode 3 launches, 2 passes; decode p x (3 launches, 2.5 passes) +
 *             2 launches, 2 passes (unpack and add every worker's bits, then sign)
 *   topk      encode 6 launches, 7 passes + topk_passes passes at topk_mem_frac of the
 *             bandwidth (radix select) + 16 k bytes; decode 2 + p launches, 3 passes
 *             + 40 k p bytes (scatter-add of every worker's pairs, 32-byte sectors)
 *   mstopk    encode 9 + 2 rounds launches, 2 + rounds syncs, 11 + rounds passes +
 *             16 k bytes (one count per bisection round, read back); decode as topk
 *   powersgd  (torch powerSGD_hook, error feedback, warm start) encode 3 + c (14r'-6)
 *             launches: error add, clone, cat of the uncompressed, per matrix
 *             Gram-Schmidt of Q and of P (7r'-4 each: norm, +eps, divide, then per
 *             later column multiply, sum, multiply, subtract), M Q and M^T P; 7 passes
 *             + the Gram-Schmidt traffic; 4 sum(rows cols r') FLOPs. Decode 3 + u + c
 *             launches (divides, copies back, P Q^T), 1 sync, 4 passes, 2 sum(rows
 *             cols r') FLOPs.
 *   bf16      as fp16
 *   randomk   encode 4 launches, 3 passes + 12 k bytes; decode 3 launches, 1 pass +
 *             12 k bytes (all-reduce of the k values at shared indices)
 *   terngrad  encode 8 launches, 1 sync (the max), 7 passes; decode 3p + 1 launches,
 *             2.25 p + 1 passes (unpack, scale and add every worker's codes)
 *   qsgd      encode 12 launches, 10 passes (norms, levels, rounding, pack); decode
 *             4p + 1 launches, 3.25 p + 1 passes (unpack, scale by norm / s, add)
 *   efsign_ar encode 7 launches, 4.5 passes (EF add, mean |c|, sign, scale, bf16,
 *             residual); decode 1 launch, 1.5 passes (bf16 sum to float)
 *   dgc       encode topk's 6 launches and 7 passes + clipping (3 launches, 3 passes),
 *             u = m u + g (2, 3), v += u (1, 3), masking u and v (2 launches, 16 k
 *             bytes): 14 launches, 16 passes + 32 k bytes (topk_passes does not apply);
 *             decode as topk
 *   cgx       (torch_cgx) encode 4 launches, 2 + 2 b/32 + 3/p + b/(32 p) passes (min/max
 *             and quantize; after the all-to-all dequantize p chunks, sum, requantize
 *             the own chunk), b = bits; decode 1 launch, 1 + b/32 passes
 * syncsgd costs 0.
 *
 * hooks = GC_HOOKS_STUDY: the hooks of the study's released code as they run
 * (uw-mad-dash/GradCompressionUtility; docs/model.md "The study's code" cites the lines):
 *   signsgd   (encode_decode_signsgd + SignCompressor, main_ddp_final.py 376-398,
 *             gradient_reducers.py 1283-1316) encode: sign, pad (zeros + cat), to
 *             int32, bit2byte.packing: 5 launches, 7 passes. Decode: p empty buffers, then
 *             per worker unpack (int, ones, bit2byte.unpacking, add_, neg, float) and
 *             add: 7 launches, 12 passes each; then sign: 1 launch, 2 passes
 *   mstopk    (encode_decode, main_ddp_final.py 460-527; main_bert.py 1091-1161) encode:
 *             abs, mean, max (3 launches, 4 passes); per round of the threshold search
 *             the threshold (3 scalar ops), a >= thres, count_nonzero (2 launches) and
 *             two Python comparisons on the count (2 launches, 2 syncs): 8 launches, 2
 *             syncs, 2 passes; then two torch.nonzero selections, cat and the gather: 10
 *             launches, 2 syncs, 5 passes + 24 k bytes; p zero buffers. Decode: zeros_like
 *             (1 pass), then p slice adds of k values (p launches, 12 k bytes each).
 *             rounds: d->rounds when > 0 (the study: 20 ResNet, 100 BERT), else the
 *             method's
 *   topk, fp16, powersgd as above (powerSGD_hook is PyTorch's own in both).
 * A method with no study hook of its own costs as with GC_HOOKS_TORCH.
 */
#ifndef GC_CODEC_H
#define GC_CODEC_H

#include "formats/arch.h"

struct gc_bucket_span;
struct gc_model_method;

/* Which code runs a method's encode/decode: PyTorch's hooks and gcbench's plan as
 * described above, or the study's released hooks. */
typedef enum gc_hooks { GC_HOOKS_TORCH = 0, GC_HOOKS_STUDY } gc_hooks;

typedef struct gc_codec_dev {
	double launch_s;       /* one kernel launch / eager op dispatch, s */
	double sync_s;         /* one host-device synchronization, s */
	double mem_Bps;        /* achieved device memory bandwidth, bytes/s */
	double flops;          /* achieved fp32 FLOP/s of the small matrix products */
	double topk_passes;    /* passes of the radix select over the bucket */
	double topk_mem_frac;  /* fraction of mem_Bps the radix select reaches */
	gc_hooks hooks;        /* whose hooks (0: GC_HOOKS_TORCH) */
	double rounds;         /* > 0: MSTop-K threshold-search rounds, overriding the
	                        * method's (the study's BERT hook runs 100, beyond 1..64) */
} gc_codec_dev;

/* Encode and decode seconds of bucket s of arch a for method m on p workers. A
 * constant <= 0 makes its term free (launch_s, sync_s) or is treated as free
 * (mem_Bps, flops, topk_mem_frac: that term 0). */
void gc_codec_cost(const gc_codec_dev *d, const gc_arch *a, const struct gc_bucket_span *s,
		   const struct gc_model_method *m, int p, double *enc, double *dec);

/* d with every time divided by speedup (launches, syncs) and every rate times it. */
void gc_codec_dev_scale(gc_codec_dev *d, double speedup);

#endif

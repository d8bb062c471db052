/* kernels/internal.h: what the method implementations share (not a public API).
 *
 * compress.c owns gc_bucket's common fields and the round protocol; b->plan (plan.h,
 * made by gc_bucket_new) fixes each round's kind, type and count and the payload; a
 * method sizes its buffers by it, binds them to the rounds in encode (gc_round_bind),
 * and keeps its own state behind b->st. One ops table per method and back end:
 *   CPU:  kernels/<method>.c       exports gc_cpu_<method>_ops
 *   CUDA: kernels/cuda/<method>.cu gives its table through gc_cuda_ops()
 * Error messages from init go to the gc_err; later calls return a gc_rc only.
 */
#ifndef GC_KERNELS_INTERNAL_H
#define GC_KERNELS_INTERNAL_H

#include "compress.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

struct gc_method_ops {
	gc_rc (*init)(gc_bucket *b, gc_err *e);            /* allocate b->st */
	gc_rc (*encode)(gc_bucket *b, const float *grad);  /* then gc_round_bind */
	gc_rc (*round_done)(gc_bucket *b);                 /* after round[cur] completed */
	gc_rc (*decode)(gc_bucket *b, float *avg);
	gc_rc (*residual)(const gc_bucket *b, float *host_out); /* NULL: zeros */
	void (*release)(gc_bucket *b);                     /* free b->st */
};

struct gc_bucket {
	gc_params p;
	gc_backend be;
	void *stream;                 /* cudaStream_t for CUDA */
	gc_tensor_desc *t;            /* nt descriptors (owned) */
	size_t *off;                  /* nt + 1 element offsets (owned) */
	size_t nt, numel;
	int world, worker;
	uint64_t step;                /* completed steps, incremented by gc_decode */
	gc_plan plan;                 /* rounds, k, PowerSGD's split (plan.h) */
	const struct gc_method_ops *ops;
	void *st;                     /* the method's state */
	gc_round round[GC_PLAN_MAX_ROUNDS];
	int nround, cur;              /* rounds set by encode; the next one to run */
};

/* Set the rounds of b->plan with these buffers (round 1's are ignored by one-round
 * plans) and b->nround to the plan's. For a method's encode. */
void gc_round_bind(gc_bucket *b, const void *send0, void *recv0, const void *send1,
		   void *recv1);

extern const struct gc_method_ops gc_cpu_syncsgd_ops, gc_cpu_fp16_ops, gc_cpu_signsgd_ops,
	gc_cpu_topk_ops, gc_cpu_mstopk_ops, gc_cpu_powersgd_ops, gc_cpu_bf16_ops,
	gc_cpu_randomk_ops, gc_cpu_terngrad_ops,
	gc_cpu_qsgd_ops, gc_cpu_efsign_ar_ops, gc_cpu_dgc_ops, gc_cpu_cgx_ops;

#if GC_HAVE_CUDA
/* The CUDA table for a method (kernels/cuda/dispatch.cu), NULL if none. */
const struct gc_method_ops *gc_cuda_ops(gc_method m);
int gc_cuda_device_count(void);
#endif

#ifdef __cplusplus
}
#endif

#endif

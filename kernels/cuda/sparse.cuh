/* kernels/cuda/sparse.cuh: the (index, value) payload shared by topk and mstopk on
 * the GPU (C++, nvcc only).
 *
 * A selection is given as a rule on magnitude keys (the bits of |c|): every element of
 * class A (key >= a_lo, if a_on) and the first kr elements, in index order, of class B
 * (b_lo <= key < b_hi); A and B are disjoint. The payload is k uint32 indices ascending
 * then k floats c[index]; entries past the selection (only with NaN) are index 0,
 * value 0, as on the CPU. Stable compaction in three kernels: count A and B per tile
 * of GC_SP_TILE elements, scan the tile counts (one block), write with block scans.
 */
#ifndef GC_CU_SPARSE_CUH
#define GC_CU_SPARSE_CUH

#include "cu_common.cuh"

#define GC_SP_TILE (GC_CU_THREADS * 16)

struct gc_cu_rule {
	uint32_t a_lo, a_on, b_lo, b_hi;
	unsigned long long kr;
};

struct gc_cu_sparse {
	size_t k, ntiles;
	float *e;                      /* residual (ef), numel (device) */
	unsigned char *send, *recv;    /* 8k; world * 8k (device) */
	unsigned *cnt_a, *cnt_b;       /* per tile (device) */
	unsigned long long *base_b, *base_o; /* per tile: B before it, selected before it */
	gc_cu_rule *d_rule;            /* the rule (device) */
	void *ext;                     /* the method's own state (topk, mstopk) */
};

/* Allocate the state into b->st (k from b->plan); errors to e. */
gc_rc gc_cu_sparse_init(gc_bucket *b, gc_err *e);
/* Free b->st (ext must have been freed by the method). */
void gc_cu_sparse_release(gc_bucket *b);
/* The vector to select from: grad, or c = grad + e kept in e (ef). */
gc_rc gc_cu_sparse_input(gc_bucket *b, const float *grad, const float **c);
/* Compact the selection given by *d_rule (device) into the payload, zero the sent
 * entries of e, and set the all-gather round. */
gc_rc gc_cu_sparse_commit(gc_bucket *b, const float *c);
gc_rc gc_cu_sparse_decode(gc_bucket *b, float *avg);
gc_rc gc_cu_sparse_residual(const gc_bucket *b, float *host_out);

#endif

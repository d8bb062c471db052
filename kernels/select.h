/* kernels/select.h: what the CPU methods share (not a public API): aligned buffers,
 * error-feedback helpers, magnitude histograms for top-k selection, and the sparse
 * (index, value) payload common to topk and mstopk.
 *
 * Magnitudes are compared as keys: the IEEE bits of |c| (bits & 0x7fffffff), which
 * order like the floats for non-NaN values. A coarse histogram bins keys by their top
 * 16 bits (key >> GC_SEL_SHIFT); a fine one bins the low 15 bits of one coarse bin.
 */
#ifndef GC_KERNELS_SELECT_H
#define GC_KERNELS_SELECT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

#define GC_SEL_SHIFT 15
#define GC_SEL_BINS (1u << 16)                  /* coarse bins */
#define GC_SEL_FINE (1u << GC_SEL_SHIFT)        /* fine bins within one coarse bin */

static inline uint32_t gc_key(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u & 0x7fffffffu;
}

/* 64-byte aligned memory (free with free()); NULL if out of memory. bytes may be 0. */
void *gc_cpu_alloc(size_t bytes);
/* Like gc_cpu_alloc, zero-filled. */
void *gc_cpu_zalloc(size_t bytes);

/* e[i] += g[i]: c = g + e computed in place (error feedback). */
void gc_ef_add(float *e, const float *g, size_t n);

/* Threads the CPU kernels use (OpenMP's maximum, at least 1). */
int gc_cpu_threads(void);

/* Coarse histogram hist[0..GC_SEL_BINS) (zeroed here) of the keys of c = g, or, when
 * e is non-NULL, of c = e after e[i] += g[i] (error feedback fused into the pass).
 * scratch holds GC_SEL_BINS * gc_cpu_threads() counters. Also gives sum |c| (double,
 * in an unspecified order) and the largest key, when sum/maxkey are non-NULL. */
void gc_sel_hist(float *e, const float *g, size_t n, uint32_t *hist, uint32_t *scratch,
		 double *sum, uint32_t *maxkey);

/* The coarse bin holding the k-th largest key (1 <= k <= total), and in *above the
 * number of keys in higher bins (so above < k <= above + hist[bin]). */
uint32_t gc_sel_bin(const uint32_t *hist, size_t k, size_t *above);

/* Fine histogram fine[0..GC_SEL_FINE) of the low bits of the keys in coarse bin `bin`;
 * turned into suffix counts: fine[x] = #(keys in bin with low bits >= x). */
void gc_sel_fine(const float *c, size_t n, uint32_t bin, uint32_t *fine);

/* Collect in ascending index order, in one pass: the first `k` elements with key >= hi
 * into (ai, *na), and the first `k` with lo <= key < hi into (fi, *nf). lo <= hi. */
void gc_sel_scan(const float *c, size_t n, uint32_t lo, uint32_t hi, size_t k,
		 uint32_t *ai, size_t *na, uint32_t *fi, size_t *nf);

/* The sparse payload of topk and mstopk (b->st points to one). */
struct gc_sparse {
	size_t k;
	float *e;               /* residual, numel floats (ef only) */
	uint8_t *send;          /* k uint32 indices, then k floats */
	uint8_t *recv;          /* world payloads */
	uint32_t *hist, *scratch, *fine;
	uint32_t *ai, *fi;      /* k each: the selection before merging */
	uint8_t *seen;          /* numel bits: decode divided this element already */
};

gc_rc gc_sparse_init(gc_bucket *b, gc_err *e);
void gc_sparse_release(gc_bucket *b);
/* Merge na "above" indices with the first k - na "fill" indices into the payload,
 * zero the sent entries of e (ef), and set the all-gather round. */
void gc_sparse_commit(gc_bucket *b, const float *c, size_t na, size_t nf);
gc_rc gc_sparse_decode(gc_bucket *b, float *avg);
gc_rc gc_sparse_residual(const gc_bucket *b, float *out);
size_t gc_sparse_payload(const gc_bucket *b);

#endif

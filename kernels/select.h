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

/* Candidates of one selection: every element with key >= tlo, kept in index order as
 * (index, value bits) in `parts` lists (one per contiguous range of the bucket), so
 * that the rest of the selection looks at about 1.5 k elements instead of all n.
 * tlo comes from a strided sample of GC_SEL_SAMPLE elements, chosen so that at least
 * k elements reach it with a wide margin; when that fails (too few reach it, or more
 * than a list holds) the caller falls back to the histograms over the whole bucket. */
#define GC_SEL_SAMPLE 16384
#define GC_SEL_MAXPARTS 8
#define GC_SEL_SBLOCK 4096      /* sum |c| is summed per block of this many, in order */

struct gc_cand {
	uint32_t *idx[GC_SEL_MAXPARTS];
	uint32_t *bits[GC_SEL_MAXPARTS];        /* float bits of c */
	size_t n[GC_SEL_MAXPARTS];
	size_t cap;             /* per list; 0: candidates disabled (k too large) */
	int parts;
	uint32_t tlo;           /* this step's lower bound on the keys listed */
	uint32_t *samp;         /* GC_SEL_SAMPLE keys */
	double *bsum;           /* ceil(n / GC_SEL_SBLOCK) block sums */
};

gc_rc gc_cand_init(struct gc_cand *cd, size_t n, size_t k);
void gc_cand_release(struct gc_cand *cd);

/* The first pass of a selection: with e, e[i] += g[i] and c = e, else c = g; sum |c|
 * (double, by blocks of GC_SEL_SBLOCK in index order, so independent of the thread
 * count) and the largest key; and the candidate lists. Returns 1 if the lists hold
 * every key >= cd->tlo and at least k of them, 0 if the caller must fall back.
 * hist and fine are GC_SEL_BINS and GC_SEL_FINE counters of scratch. */
int gc_sel_pass(struct gc_cand *cd, float *e, const float *g, size_t n, size_t k,
		uint32_t *hist, uint32_t *fine, double *sum, uint32_t *maxkey);

/* #(listed keys >= x). */
size_t gc_cand_count(const struct gc_cand *cd, uint32_t x);

/* The k-th largest listed key (1 <= k <= listed). */
uint32_t gc_cand_kth(const struct gc_cand *cd, size_t k, uint32_t *hist, uint32_t *fine);

/* The sparse payload of topk and mstopk (b->st points to one). */
struct gc_sparse {
	size_t k;
	float *e;               /* residual, numel floats (ef only) */
	uint8_t *send;          /* k uint32 indices, then k floats */
	uint8_t *recv;          /* world payloads */
	uint32_t *hist, *scratch, *fine;
	uint32_t *ai, *fi;      /* k each: the selection before merging */
	uint8_t *seen;          /* numel bits: decode divided this element already */
	struct gc_cand cand;
};

gc_rc gc_sparse_init(gc_bucket *b, gc_err *e);
void gc_sparse_release(gc_bucket *b);
/* Merge na "above" indices with the first k - na "fill" indices into the payload,
 * zero the sent entries of e (ef), and set the all-gather round. */
void gc_sparse_commit(gc_bucket *b, const float *c, size_t na, size_t nf);
/* The same from the candidate lists (every key >= lo is listed): all listed keys >= hi
 * (the first k by index if more), then lo <= key < hi in index order up to k. */
void gc_sparse_commit_cand(gc_bucket *b, uint32_t lo, uint32_t hi);
gc_rc gc_sparse_decode(gc_bucket *b, float *avg);
gc_rc gc_sparse_residual(const gc_bucket *b, float *out);

#endif

/* kernels/cuda/bisect.h: mstopk's threshold bisection, several levels per data pass.
 *
 * The sequential rule (kernels/compress.h): start from [lo, hi] = [mean |c|, max |c|];
 * if #(|c| >= lo) < k then lo = 0; then `rounds` times mid = (lo + hi) * 0.5f and
 * lo = mid if #(|c| >= mid) >= k, else hi = mid. Every mid the next L levels can
 * reach is known in advance (the 2^L - 1 nodes of a binary tree of midpoints, computed
 * with the same float formula), so one pass over the data that counts #(|c| >= x) for
 * all of them resolves L levels at once, bit-identically to the sequential loop.
 *
 * Plain C, no CUDA: the GPU back end counts on the device; the unit test drives it
 * with a CPU count. Use:
 *     gc_bisect_start(&s, mean, max, k, rounds);
 *     while (gc_bisect_plan(&s)) {             // s.cand[0..s.ncand): sorted, distinct
 *             ge[j] = #(|c| >= s.cand[j]) for every j;
 *             if (gc_bisect_apply(&s, ge)) error;
 *     }
 *     // s.lo, s.hi final; s.hi_count = #(|c| >= s.hi)
 */
#ifndef GC_CUDA_BISECT_H
#define GC_CUDA_BISECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#include "result.h"

#define GC_BISECT_L_FIRST 7     /* levels of the first pass (two trees: from lo and from 0) */
#define GC_BISECT_L 8           /* levels of the later passes */
#define GC_BISECT_MAXCAND 256   /* 2 * (2^7 - 1) + 2 and 2^8 - 1 both fit */

typedef struct gc_bisect {
	float lo, hi;
	uint64_t k;
	uint64_t hi_count;      /* #(|c| >= hi), valid once planning is over */
	int rounds_left;
	int passes;             /* counting passes applied so far */
	size_t ncand;
	float cand[GC_BISECT_MAXCAND];
} gc_bisect;

/* Begin: lo = mean, hi = max (floats as computed), k elements wanted, rounds 0..64. */
void gc_bisect_start(gc_bisect *s, float mean, float max, uint64_t k, int rounds);

/* 1 if a counting pass is needed, with its thresholds in s->cand (ascending, distinct,
 * at most GC_BISECT_MAXCAND); 0 when lo and hi are final. */
int gc_bisect_plan(gc_bisect *s);

/* Resolve the planned levels from ge[j] = #(|c| >= s->cand[j]). GC_E_STATE if a needed
 * threshold was not among the candidates (a bug). */
gc_rc gc_bisect_apply(gc_bisect *s, const uint64_t *ge);

/* The midpoints of the next `levels` levels from [lo, hi], appended to out (2^levels - 1
 * values, unsorted); returns how many were written. */
size_t gc_bisect_tree(float lo, float hi, int levels, float *out);

#ifdef __cplusplus
}
#endif

#endif

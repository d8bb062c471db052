/* worker/wk_fill.h: a replay rank's gradients, drawn fast.
 *
 * gc_wk_fill_gradient(x, n, seed, scale) writes n floats, approximately N(0, scale^2):
 * x[i] = (float)(u - 131070) * (sqrt(3) / 65536 * scale), u the sum of the four
 * 16-bit halves of two 32-bit hashes of the element's index under a key of the seed
 * and its block of 2^16 elements (u's mean is 131070, its variance about 2^32 / 3).
 * A counter-based draw: any element on its own, the same bits at every thread count
 * and from every build (integer hashing, then one float multiply: nothing to
 * contract), and 32-bit multiplies only, so
 * the portable x86-64-v2 build vectorizes it (SSE4.1), where gc_wk_fill_random's
 * 64-bit splitmix stays scalar. Replay's gradients are payload: what they must be is
 * deterministic per (seed, rank) and shaped like a gradient, not statistically perfect.
 * The trained models keep gc_wk_fill_random (wk.h), whose values their results use. */
#ifndef GC_WK_FILL_H
#define GC_WK_FILL_H

#include <stddef.h>
#include <stdint.h>

void gc_wk_fill_gradient(float *x, size_t n, uint64_t seed, float scale);

#endif

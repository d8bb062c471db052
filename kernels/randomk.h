/* kernels/randomk.h: Random-K's indices, one definition for the CPU and CUDA back ends
 * (plain C, usable in device code).
 *
 * Every worker picks the same k of the bucket's n elements at a step, from the shared
 * seed alone, so the k values go through an all-reduce. The pick is stratified: the
 * bucket is cut into k strata [floor(j n / k), floor((j + 1) n / k)), j < k, and index
 * j of the payload is the element at a uniform offset in stratum j:
 *   r = gc_rng_at(gc_rng_key(seed, 0, step), j) >> 32        (32 random bits)
 *   idx_j = lo_j + (r * size_j) >> 32
 * So the k indices are distinct and ascending, each element is picked with probability
 * 1 / size of its stratum (n/k rounded down or up), and index j needs no other: any
 * thread count and the GPU pick the same ones. (GRACE's randomk draws a random
 * permutation; a stratified pick has the same per-element probability to within one
 * in n/k, at memory speed.)
 */
#ifndef GC_KERNELS_RANDOMK_H
#define GC_KERNELS_RANDOMK_H

#include <stdint.h>

#include "rng.h"

static GC_RNG_HD uint32_t gc_randomk_index(uint64_t key, uint64_t j, uint64_t n, uint64_t k)
{
	uint64_t lo = j * n / k, hi = (j + 1) * n / k;
	uint64_t r = gc_rng_at(key, j) >> 32;

	return (uint32_t)(lo + ((r * (hi - lo)) >> 32));
}

#endif

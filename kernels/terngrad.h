/* kernels/terngrad.h: TernGrad's stochastic ternary code (Wen et al., "TernGrad:
 * Ternary Gradients to Reduce Communication in Distributed Deep Learning", NIPS 2017),
 * one definition for the CPU and CUDA back ends (plain C, usable in device code).
 *
 * Per tensor t, the scale s = max |g| over the tensor. Element i of worker w becomes
 * s * sign(g_i) * b_i, b_i = 1 with probability |g_i| / s: b_i = (u < |g_i| / s), u =
 * gc_rng_unit24(gc_rng_key(seed, t, step), w * 2^32 + i) (each worker draws its own;
 * the quotient in float). So E[s sign(g) b] = g: unbiased. s = 0 gives 0. Code: 0 for
 * 0, 1 for +s, 2 for -s (sign bit set), two bits per element, element i at bits
 * 2 (i % 4) of byte i / 4.
 */
#ifndef GC_KERNELS_TERNGRAD_H
#define GC_KERNELS_TERNGRAD_H

#include <stdint.h>
#include <string.h>

#include "rng.h"

/* Branch-free: the comparison is random, a branch on it mispredicts half the time. */
static GC_RNG_HD unsigned gc_tern_code(float g, float s, uint64_t key, uint64_t ctr)
{
	uint32_t u32, neg;
	float a;
	unsigned keep;

	memcpy(&u32, &g, sizeof(u32));
	neg = u32 >> 31;
	u32 &= 0x7fffffffu;
	memcpy(&a, &u32, sizeof(a));            /* |g| */
	keep = (unsigned)(s > 0) & (unsigned)(gc_rng_unit24(key, ctr) < a / s);
	return keep << neg;                     /* 0, 1 (+s) or 2 (-s) */
}

/* The value of a code under scale s >= 0, finite: s, -s or +0 (code 3 is not made;
 * read as 0). Branch-free. */
static GC_RNG_HD float gc_tern_value(unsigned code, float s)
{
	return s * (float)((int)(code & 1u) - (int)(code >> 1));
}

#endif

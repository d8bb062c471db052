/* kernels/qsgd.h: QSGD's stochastic quantization (Alistarh et al., "QSGD:
 * Communication-Efficient SGD via Gradient Quantization and Encoding", NIPS 2017),
 * one definition for the CPU and CUDA back ends (plain C, usable in device code).
 *
 * Each tensor is cut into norm buckets of bucket_size consecutive elements (the last
 * one shorter; a norm bucket never spans two tensors). Per norm bucket the norm
 * r = (float) sqrt(sum of g^2), the sum in double in element order. With s levels,
 * element i of worker w (|g_i| <= r) has x = (|g_i| / r) * s in float, l = floor(x),
 * and level l + 1 with probability x - l, else l: level = l + (u < x - l), u =
 * gc_rng_unit24(gc_rng_key(seed, tensor, step), w * 2^32 + i), i the element's index
 * in the gradient bucket. So E[level] = x and E[value] = g: unbiased. Its value is
 * sign(g) ((r * level) / s), in float; r = 0 gives level 0. Code: sign-magnitude,
 * width W = gc_qsgd_width(s) bits (4, 8 or 16), the sign in the top bit; element i
 * at bits W (i % (8 / W)) of byte i W / 8 for W <= 8, little-endian 16 bits at byte
 * 2 i for W = 16.
 */
#ifndef GC_KERNELS_QSGD_H
#define GC_KERNELS_QSGD_H

#include <stdint.h>
#include <string.h>

#include "rng.h"

/* Bits per element for s levels: the magnitude 0..s and a sign, rounded up to 4, 8
 * or 16 so that codes never straddle a byte boundary. */
static GC_RNG_HD unsigned gc_qsgd_width(int s)
{
	return s <= 7 ? 4u : s <= 127 ? 8u : 16u;
}

/* The code of g under norm r >= |g| (finite) with s levels, width W. */
static GC_RNG_HD unsigned gc_qsgd_code(float g, float r, int s, unsigned W, uint64_t key,
				       uint64_t ctr)
{
	uint32_t u32, neg;
	float a, x, fl;
	unsigned level;

	memcpy(&u32, &g, sizeof(u32));
	neg = u32 >> 31;
	u32 &= 0x7fffffffu;
	memcpy(&a, &u32, sizeof(a));            /* |g| */
	if (!(r > 0))
		return 0;
	x = (a / r) * (float)s;
	if (!(x < (float)s))                    /* |g| = r (or NaN): the top level */
		x = (float)s;
	fl = (float)(unsigned)x;                /* floor: x >= 0 */
	level = (unsigned)fl + (unsigned)(gc_rng_unit24(key, ctr) < x - fl);
	return level | (neg << (W - 1));
}

/* The value of a code: sign((r * level) / s); level 0 gives +0 or -0. */
static GC_RNG_HD float gc_qsgd_value(unsigned code, float r, int s, unsigned W)
{
	unsigned level = code & ((1u << (W - 1)) - 1u);
	float v = (r * (float)level) / (float)s;

	return (code >> (W - 1)) ? -v : v;
}

#endif

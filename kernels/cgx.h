/* kernels/cgx.h: the max-min quantizer of CGX (Markov, Ramezani-Kebrya, Alistarh et
 * al., "CGX: Adaptive System Support for Communication-Efficient Deep Learning",
 * Middleware 2022; IST-DASLab/torch_cgx), reduced with a scatter-reduce of quantized
 * chunks and an all-gather, so that it works where a reduction does. Plain C (usable
 * from device code).
 *
 * A bucket of n elements (its tensors back to back; quantization ignores their
 * boundaries, as torch_cgx quantizes the fused buffer) is cut into p chunks, chunk j =
 * elements [floor(j n / p), floor((j + 1) n / p)), and each chunk into quantization
 * buckets of d = bucket_size consecutive elements (the last shorter). Per quantization
 * bucket, with L = 2^bits - 1: mn = min, mx = max (exact in any order), unit = (mx -
 * mn) / L in float; element x gets t = (x - mn) / unit in float (0 if unit is 0),
 * level = floor(t) + (u < t - floor(t)), at most L, u = gc_rng_unit24(key, ctr); its
 * value is mn + level unit in float (E[level] = t: unbiased up to float rounding).
 * A quantized chunk: per quantization bucket (mn, unit) as two float32, then per
 * quantization bucket its levels, bits each, element i of the bucket at bit (i bits) %
 * 8 of byte (i bits) / 8 from the bucket's first byte (least significant bits first,
 * a level may span two bytes); each bucket's levels start on a byte. Every chunk has
 * the slot size of the largest, ceil(n / p) elements (gc_cgx_slot).
 *
 * Rounds: (0) all-to-all: worker w sends its chunk j, quantized with key (seed, 0,
 * step) and counter w 2^32 + i (i the element's index in the bucket), to worker j;
 * worker j dequantizes the p chunks j it received, sums them in float in worker order
 * from 0.0f, and quantizes that sum again with key (seed, 1, step), counter i; (1)
 * all-gather of the requantized chunks. Decode: every chunk dequantized, / p (float).
 */
#ifndef GC_KERNELS_CGX_H
#define GC_KERNELS_CGX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rng.h"

/* Chunk j of n elements among p: [*a, *z). */
static GC_RNG_HD void gc_cgx_chunk(size_t n, int p, int j, size_t *a, size_t *z)
{
	*a = (size_t)((unsigned long long)n * (unsigned)j / (unsigned)p);
	*z = (size_t)((unsigned long long)n * (unsigned)(j + 1) / (unsigned)p);
}

/* Bytes of a quantized chunk of m elements: 8 per quantization bucket, then each
 * bucket's levels rounded up to whole bytes. */
static GC_RNG_HD size_t gc_cgx_chunk_bytes(size_t m, int bits, size_t d)
{
	size_t full = m / d, rest = m % d;

	return 8 * (full + (rest != 0)) + full * ((d * (size_t)bits + 7) / 8) +
	       (rest * (size_t)bits + 7) / 8;
}

/* The slot of every chunk: the bytes of the largest, ceil(n / p) elements. */
static GC_RNG_HD size_t gc_cgx_slot(size_t n, int p, int bits, size_t d)
{
	return gc_cgx_chunk_bytes((n + (size_t)p - 1) / (size_t)p, bits, d);
}

/* unit of a quantization bucket with minimum mn and maximum mx. */
static GC_RNG_HD float gc_cgx_unit(float mn, float mx, int bits)
{
	return (mx - mn) / (float)((1u << bits) - 1u);
}

/* The level of x in the bucket (mn, unit) with uniform u in [0, 1). */
static GC_RNG_HD unsigned gc_cgx_level(float x, float mn, float unit, int bits, float u)
{
	unsigned L = (1u << bits) - 1u, level;
	float t, fl;

	if (!(unit > 0))
		return 0;
	t = (x - mn) / unit;
	if (!(t > 0))                    /* x = mn (or NaN) */
		return 0;
	if (!(t < (float)L))
		return L;
	fl = (float)(unsigned)t;
	level = (unsigned)fl + (unsigned)(u < t - fl);
	return level < L ? level : L;
}

static GC_RNG_HD float gc_cgx_value(unsigned level, float mn, float unit)
{
	return mn + (float)level * unit;
}

/* Level i of a bucket's packed levels. */
static GC_RNG_HD unsigned gc_cgx_get(const uint8_t *q, size_t i, int bits)
{
	size_t pos = i * (size_t)bits;
	unsigned w = q[pos / 8] | (((pos % 8) + (size_t)bits > 8 ? (unsigned)q[pos / 8 + 1] : 0u) << 8);

	return (w >> (pos % 8)) & ((1u << bits) - 1u);
}

#endif

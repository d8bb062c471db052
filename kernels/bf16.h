/* kernels/bf16.h: bfloat16 conversion, one definition for the CPU and CUDA back ends
 * (plain C, usable in device code), so both round the same bits.
 *
 * bf16 is the top half of an IEEE float32 (sign, 8 exponent bits, 7 mantissa bits).
 * To bf16: round to nearest even on the dropped 16 bits; values that round past the
 * largest finite bf16 become inf; NaN keeps its sign and top 7 payload bits with the
 * quiet bit set (so a NaN never rounds to inf). To float: exact (shift left by 16).
 */
#ifndef GC_KERNELS_BF16_H
#define GC_KERNELS_BF16_H

#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define GC_BF16_HD __host__ __device__ __forceinline__
#else
#define GC_BF16_HD inline
#endif

static GC_BF16_HD uint16_t gc_bf16_from_bits(uint32_t u)
{
	if ((u & 0x7fffffffu) > 0x7f800000u)    /* NaN: quiet, payload's top bits */
		return (uint16_t)((u >> 16) | 0x0040u);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static GC_BF16_HD uint32_t gc_bf16_to_bits(uint16_t h)
{
	return (uint32_t)h << 16;
}

#ifndef __CUDACC__
static inline uint16_t gc_f32_to_bf16_inl(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return gc_bf16_from_bits(u);
}

static inline float gc_bf16_to_f32_inl(uint16_t h)
{
	uint32_t u = gc_bf16_to_bits(h);
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}
#endif

#endif

/* kernels/simd.h: small vector helpers that several CPU kernels' AVX2 variants share.
 *
 * Include it after isa.h. Each helper is GC_TARGET_AVX2 and always inlined, so it is
 * compiled into the <kernel>_avx2 / <kernel>_avx512 variant that calls it and never
 * stands as a function of its own (the portable build holds no AVX outside those
 * variants: tests/integration/test_portable.sh). Outside x86-64 with dispatch
 * (GC_ISA_MAX_N == 0) the header declares nothing.
 */
#ifndef GC_KERNELS_SIMD_H
#define GC_KERNELS_SIMD_H

#include "isa.h"

#if GC_ISA_MAX_N >= 1
#include <immintrin.h>

/* Rows r[0..8) of an 8 x 8 float block transposed in place: afterwards r[e] lane k is
 * the old r[k] lane e. Moves bits only (no arithmetic), so every level agrees. */
GC_TARGET_AVX2 static inline __attribute__((always_inline)) void gc_transpose8_ps(__m256 *r)
{
	__m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
	__m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
	__m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
	__m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
	__m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xee);
	__m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xee);
	__m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xee);
	__m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xee);

	r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
	r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
	r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
	r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
	r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
	r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
	r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
	r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}
#endif

#endif

/* kernels/bf16.c: bfloat16 all-reduce (CPU): payload bf16(c / p), summed in bf16
 * (each addition in float, rounded to bf16), decode float(sum). The rounding is
 * kernels/bf16.h's, in integer arithmetic, so the AVX2 and AVX-512 loops (eight and
 * sixteen elements at a time, no per-element branch) give the scalar code's bits. The
 * state holds the payload, then the sum, as in fp16.c. */
#include <stdlib.h>
#include <string.h>

#include "bf16.h"
#include "isa.h"
#include "select.h"
#if GC_ISA_MAX_N >= 1
#include <immintrin.h>
#endif

uint16_t gc_f32_to_bf16(float f)
{
	return gc_f32_to_bf16_inl(f);
}

float gc_bf16_to_f32(uint16_t h)
{
	return gc_bf16_to_f32_inl(h);
}

static gc_rc bf16_init(gc_bucket *b, gc_err *e)
{
	b->st = gc_cpu_alloc(2 * b->numel * sizeof(uint16_t));
	if (!b->st)
		return gc_fail(e, GC_E_NOMEM, "out of memory for a %zu-element buffer", b->numel);
	return GC_OK;
}

static void to_bf16_default(uint16_t *h, const float *c, size_t n, float p)
{
	for (size_t i = 0; i < n; i++)
		h[i] = gc_f32_to_bf16_inl(c[i] / p);
}

static void from_bf16_default(float *out, const uint16_t *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = gc_bf16_to_f32_inl(h[i]);
}

static void bf16_sum_default(uint16_t *acc, const uint16_t *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		acc[i] = gc_f32_to_bf16_inl(gc_bf16_to_f32_inl(acc[i]) + gc_bf16_to_f32_inl(x[i]));
}

#if GC_ISA_MAX_N >= 1
/* gc_bf16_from_bits on eight lanes: 32-bit results (< 2^16) */
GC_TARGET_AVX2 static inline __m256i round8(__m256 v)
{
	const __m256i one = _mm256_set1_epi32(1), bias = _mm256_set1_epi32(0x7fff);
	__m256i u = _mm256_castps_si256(v);
	__m256i mag = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
	__m256i nan = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(0x7f800000));
	__m256i r = _mm256_add_epi32(_mm256_add_epi32(u, bias),
				     _mm256_and_si256(_mm256_srli_epi32(u, 16), one));
	__m256i q = _mm256_or_si256(u, _mm256_set1_epi32(0x00400000));
	return _mm256_srli_epi32(_mm256_blendv_epi8(r, q, nan), 16);
}

/* eight 32-bit lanes (< 2^16) to eight uint16 at h */
GC_TARGET_AVX2 static inline void store8(uint16_t *h, __m256i r)
{
	__m256i pk = _mm256_packus_epi32(r, r);         /* per 128-bit lane: a b a b */
	pk = _mm256_permute4x64_epi64(pk, 0x08);        /* lanes 0 and 2: a b */
	_mm_storeu_si128((__m128i *)(void *)h, _mm256_castsi256_si128(pk));
}

GC_TARGET_AVX2 static inline __m256 load8(const uint16_t *h)
{
	__m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)h));
	return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}

GC_TARGET_AVX2 static void to_bf16_avx2(uint16_t *h, const float *c, size_t n, float p)
{
	__m256 vp = _mm256_set1_ps(p);
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		store8(h + i, round8(_mm256_div_ps(_mm256_loadu_ps(c + i), vp)));
	to_bf16_default(h + i, c + i, n - i, p);
}

/* Large outputs (nt) bypass the cache where out + i is 16-byte aligned, so their lines
 * are not read before they are written. */
GC_TARGET_AVX2 static void from_bf16_avx2(float *out, const uint16_t *h, size_t n, int nt)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m256 v = load8(h + i);
		if (nt && !((uintptr_t)(out + i) & 15)) {
			_mm_stream_ps(out + i, _mm256_castps256_ps128(v));
			_mm_stream_ps(out + i + 4, _mm256_extractf128_ps(v, 1));
		} else {
			_mm256_storeu_ps(out + i, v);
		}
	}
	from_bf16_default(out + i, h + i, n - i);
}

GC_TARGET_AVX2 static void bf16_sum_avx2(uint16_t *acc, const uint16_t *x, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8)
		store8(acc + i, round8(_mm256_add_ps(load8(acc + i), load8(x + i))));
	bf16_sum_default(acc + i, x + i, n - i);
}
#else
#define to_bf16_avx2 to_bf16_default
#define from_bf16_avx2(o, h, n, nt) from_bf16_default(o, h, n)
#define bf16_sum_avx2 bf16_sum_default
#endif

#if GC_ISA_MAX_N >= 2
GC_TARGET_AVX512 static inline __m256i round16(__m512 v)
{
	__m512i u = _mm512_castps_si512(v);
	__m512i mag = _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff));
	__mmask16 nan = _mm512_cmpgt_epu32_mask(mag, _mm512_set1_epi32(0x7f800000));
	__m512i r = _mm512_add_epi32(_mm512_add_epi32(u, _mm512_set1_epi32(0x7fff)),
				     _mm512_and_si512(_mm512_srli_epi32(u, 16),
						      _mm512_set1_epi32(1)));
	r = _mm512_mask_or_epi32(r, nan, u, _mm512_set1_epi32(0x00400000));
	return _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
}

GC_TARGET_AVX512 static inline __m512 load16(const uint16_t *h)
{
	__m512i w = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)h));
	return _mm512_castsi512_ps(_mm512_slli_epi32(w, 16));
}

GC_TARGET_AVX512 static void to_bf16_avx512(uint16_t *h, const float *c, size_t n, float p)
{
	__m512 vp = _mm512_set1_ps(p);
	size_t i = 0;

	for (; i + 16 <= n; i += 16)
		_mm256_storeu_si256((__m256i *)(void *)(h + i),
				    round16(_mm512_div_ps(_mm512_loadu_ps(c + i), vp)));
	to_bf16_default(h + i, c + i, n - i, p);
}

GC_TARGET_AVX512 static void from_bf16_avx512(float *out, const uint16_t *h, size_t n, int nt)
{
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		__m512 v = load16(h + i);
		if (nt && !((uintptr_t)(out + i) & 15)) {
			_mm_stream_ps(out + i, _mm512_castps512_ps128(v));
			_mm_stream_ps(out + i + 4, _mm512_extractf32x4_ps(v, 1));
			_mm_stream_ps(out + i + 8, _mm512_extractf32x4_ps(v, 2));
			_mm_stream_ps(out + i + 12, _mm512_extractf32x4_ps(v, 3));
		} else {
			_mm512_storeu_ps(out + i, v);
		}
	}
	from_bf16_default(out + i, h + i, n - i);
}

GC_TARGET_AVX512 static void bf16_sum_avx512(uint16_t *acc, const uint16_t *x, size_t n)
{
	size_t i = 0;

	for (; i + 16 <= n; i += 16)
		_mm256_storeu_si256((__m256i *)(void *)(acc + i),
				    round16(_mm512_add_ps(load16(acc + i), load16(x + i))));
	bf16_sum_default(acc + i, x + i, n - i);
}
#else
#define to_bf16_avx512 to_bf16_avx2
#define from_bf16_avx512(o, h, n, nt) from_bf16_avx2(o, h, n, nt)
#define bf16_sum_avx512 bf16_sum_avx2
#endif

static void to_bf16(uint16_t *h, const float *c, size_t n, float p)
{
#if GC_ISA_DISPATCH
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: to_bf16_avx512(h, c, n, p); return;
	case GC_ISA_AVX2: to_bf16_avx2(h, c, n, p); return;
	default: break;
	}
#endif
	to_bf16_default(h, c, n, p);
}

static void from_bf16(float *out, const uint16_t *h, size_t n, int nt)
{
#if GC_ISA_DISPATCH
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: from_bf16_avx512(out, h, n, nt); return;
	case GC_ISA_AVX2: from_bf16_avx2(out, h, n, nt); return;
	default: break;
	}
#endif
	(void)nt;
	from_bf16_default(out, h, n);
}

void gc_bf16_sum(uint16_t *acc, const uint16_t *x, size_t n)
{
#if GC_ISA_DISPATCH
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: bf16_sum_avx512(acc, x, n); return;
	case GC_ISA_AVX2: bf16_sum_avx2(acc, x, n); return;
	default: break;
	}
#endif
	bf16_sum_default(acc, x, n);
}

/* Split n elements among the threads in parts that are multiples of 16. */
static long split16(size_t n, size_t *chunk)
{
	size_t c = ((n / (size_t)gc_cpu_threads()) + 15) & ~(size_t)15;

	*chunk = c < 16 ? 16 : c;
	return (long)((n + *chunk - 1) / *chunk);
}

static gc_rc bf16_encode(gc_bucket *b, const float *grad)
{
	uint16_t *h = b->st;
	size_t n = b->numel, chunk;
	long j, nchunk = split16(n, &chunk);

#pragma omp parallel for schedule(static) if (n >= 65536)
	for (j = 0; j < nchunk; j++) {
		size_t a = (size_t)j * chunk, m = a + chunk > n ? n - a : chunk;
		to_bf16(h + a, grad + a, m, (float)b->world);
	}
	gc_round_bind(b, h, h + n, NULL, NULL);
	return GC_OK;
}

static gc_rc bf16_decode(gc_bucket *b, float *avg)
{
	size_t n = b->numel, chunk;
	const uint16_t *h = (const uint16_t *)b->st + n;
	long j, nchunk = split16(n, &chunk);

#pragma omp parallel for schedule(static) if (n >= 65536)
	for (j = 0; j < nchunk; j++) {
		size_t a = (size_t)j * chunk, m = a + chunk > n ? n - a : chunk;
		from_bf16(avg + a, h + a, m, n >= (1u << 18));
#if GC_ISA_MAX_N >= 1
		_mm_sfence();   /* the streamed stores, before avg is read */
#endif
	}
	return GC_OK;
}

static void bf16_release(gc_bucket *b)
{
	free(b->st);
	b->st = NULL;
}

const struct gc_method_ops gc_cpu_bf16_ops = {
	.init = bf16_init,
	.encode = bf16_encode,
	.round_done = NULL,
	.decode = bf16_decode,
	.residual = NULL,
	.release = bf16_release,
};

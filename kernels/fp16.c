/* kernels/fp16.c: half-precision all-reduce (CPU): payload half(c / p), summed in
 * half, decode float(sum). The bulk conversions use F16C (AVX2 level) or AVX-512 when
 * the CPU has them (kernels/isa.h), with the same bits as gc_f32_to_f16: round to
 * nearest even, NaN quieted with its payload. The state holds the payload, then the
 * sum: not in place, as in syncsgd.c. */
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "select.h"
#if GC_ISA_MAX_N >= 1
#include <immintrin.h>
#endif

static gc_rc fp16_init(gc_bucket *b, gc_err *e)
{
	b->st = gc_cpu_alloc(2 * b->numel * sizeof(uint16_t));
	if (!b->st)
		return gc_fail(e, GC_E_NOMEM, "out of memory for a %zu-element buffer", b->numel);
	return GC_OK;
}

/* h[i] = half(c[i] / p) for i in [0, n): the scalar reference (every level's tail). */
static void to_half_default(uint16_t *h, const float *c, size_t n, float p)
{
	for (size_t i = 0; i < n; i++)
		h[i] = gc_f32_to_f16(c[i] / p);
}

static void from_half_default(float *out, const uint16_t *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		out[i] = gc_f16_to_f32(h[i]);
}

static void f16_sum_default(uint16_t *acc, const uint16_t *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		acc[i] = gc_f32_to_f16(gc_f16_to_f32(acc[i]) + gc_f16_to_f32(x[i]));
}

#if GC_ISA_MAX_N >= 1
GC_TARGET_AVX2 static void to_half_avx2(uint16_t *h, const float *c, size_t n, float p)
{
	__m256 vp = _mm256_set1_ps(p);
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m256 v = _mm256_div_ps(_mm256_loadu_ps(c + i), vp);
		_mm_storeu_si128((__m128i *)(void *)(h + i),
				 _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
	}
	to_half_default(h + i, c + i, n - i, p);
}

/* Large outputs (nt) bypass the cache where out + i is 16-byte aligned, so their lines
 * are not read before they are written. */
GC_TARGET_AVX2 static void from_half_avx2(float *out, const uint16_t *h, size_t n, int nt)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(h + i)));
		if (nt && !((uintptr_t)(out + i) & 15)) {
			_mm_stream_ps(out + i, _mm256_castps256_ps128(v));
			_mm_stream_ps(out + i + 4, _mm256_extractf128_ps(v, 1));
		} else {
			_mm256_storeu_ps(out + i, v);
		}
	}
	from_half_default(out + i, h + i, n - i);
}

GC_TARGET_AVX2 static void f16_sum_avx2(uint16_t *acc, const uint16_t *x, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m256 a = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(acc + i)));
		__m256 b = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(x + i)));
		_mm_storeu_si128((__m128i *)(void *)(acc + i),
				 _mm256_cvtps_ph(_mm256_add_ps(a, b),
						 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
	}
	f16_sum_default(acc + i, x + i, n - i);
}
#else
#define to_half_avx2 to_half_default
#define from_half_avx2(o, h, n, nt) from_half_default(o, h, n)
#define f16_sum_avx2 f16_sum_default
#endif

#if GC_ISA_MAX_N >= 2
GC_TARGET_AVX512 static void to_half_avx512(uint16_t *h, const float *c, size_t n, float p)
{
	__m512 vp = _mm512_set1_ps(p);
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		__m512 v = _mm512_div_ps(_mm512_loadu_ps(c + i), vp);
		_mm256_storeu_si256((__m256i *)(void *)(h + i),
				    _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
	}
	to_half_default(h + i, c + i, n - i, p);
}

GC_TARGET_AVX512 static void from_half_avx512(float *out, const uint16_t *h, size_t n, int nt)
{
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		__m512 v = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(h + i)));
		if (nt && !((uintptr_t)(out + i) & 15)) {
			_mm_stream_ps(out + i, _mm512_castps512_ps128(v));
			_mm_stream_ps(out + i + 4, _mm512_extractf32x4_ps(v, 1));
			_mm_stream_ps(out + i + 8, _mm512_extractf32x4_ps(v, 2));
			_mm_stream_ps(out + i + 12, _mm512_extractf32x4_ps(v, 3));
		} else {
			_mm512_storeu_ps(out + i, v);
		}
	}
	from_half_default(out + i, h + i, n - i);
}

GC_TARGET_AVX512 static void f16_sum_avx512(uint16_t *acc, const uint16_t *x, size_t n)
{
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		__m512 a = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(acc + i)));
		__m512 b = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(const void *)(x + i)));
		_mm256_storeu_si256((__m256i *)(void *)(acc + i),
				    _mm512_cvtps_ph(_mm512_add_ps(a, b),
						    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
	}
	f16_sum_default(acc + i, x + i, n - i);
}
#else
#define to_half_avx512 to_half_avx2
#define from_half_avx512(o, h, n, nt) from_half_avx2(o, h, n, nt)
#define f16_sum_avx512 f16_sum_avx2
#endif

static void to_half(uint16_t *h, const float *c, size_t n, float p)
{
#if GC_ISA_DISPATCH
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: to_half_avx512(h, c, n, p); return;
	case GC_ISA_AVX2: to_half_avx2(h, c, n, p); return;
	default: break;
	}
#endif
	to_half_default(h, c, n, p);
}

static void from_half(float *out, const uint16_t *h, size_t n, int nt)
{
#if GC_ISA_DISPATCH
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: from_half_avx512(out, h, n, nt); return;
	case GC_ISA_AVX2: from_half_avx2(out, h, n, nt); return;
	default: break;
	}
#endif
	(void)nt;
	from_half_default(out, h, n);
}

void gc_f16_sum(uint16_t *acc, const uint16_t *x, size_t n)
{
#if GC_ISA_DISPATCH
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: f16_sum_avx512(acc, x, n); return;
	case GC_ISA_AVX2: f16_sum_avx2(acc, x, n); return;
	default: break;
	}
#endif
	f16_sum_default(acc, x, n);
}

/* Split n elements among the threads in parts that are multiples of 8. */
static long split8(size_t n, size_t *chunk)
{
	size_t c = ((n / (size_t)gc_cpu_threads()) + 7) & ~(size_t)7;

	*chunk = c < 8 ? 8 : c;
	return (long)((n + *chunk - 1) / *chunk);
}

static gc_rc fp16_encode(gc_bucket *b, const float *grad)
{
	uint16_t *h = b->st;
	size_t n = b->numel, chunk;
	long j, nchunk = split8(n, &chunk);

#pragma omp parallel for schedule(static) if (n >= 65536)
	for (j = 0; j < nchunk; j++) {
		size_t a = (size_t)j * chunk, m = a + chunk > n ? n - a : chunk;
		to_half(h + a, grad + a, m, (float)b->world);
	}
	gc_round_bind(b, h, h + n, NULL, NULL);
	return GC_OK;
}

static gc_rc fp16_decode(gc_bucket *b, float *avg)
{
	size_t n = b->numel, chunk;
	const uint16_t *h = (const uint16_t *)b->st + n;
	long j, nchunk = split8(n, &chunk);

#pragma omp parallel for schedule(static) if (n >= 65536)
	for (j = 0; j < nchunk; j++) {
		size_t a = (size_t)j * chunk, m = a + chunk > n ? n - a : chunk;
		from_half(avg + a, h + a, m, n >= (1u << 18));
#if GC_ISA_MAX_N >= 1
		_mm_sfence();   /* the streamed stores, before avg is read */
#endif
	}
	return GC_OK;
}

static void fp16_release(gc_bucket *b)
{
	free(b->st);
	b->st = NULL;
}

const struct gc_method_ops gc_cpu_fp16_ops = {
	.init = fp16_init,
	.encode = fp16_encode,
	.round_done = NULL,
	.decode = fp16_decode,
	.residual = NULL,
	.release = fp16_release,
};

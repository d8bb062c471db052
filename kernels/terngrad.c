/* kernels/terngrad.c: TernGrad (CPU): per tensor the scale max |g|, per element a
 * stochastic ternary code of two bits (kernels/terngrad.h); all-gathered payload = nt
 * float32 scales (tensor order), then ceil(n/4) bytes of codes. Decode, per element:
 * acc = 0.0f, acc += value(code_w, s_wt) for w = 0..p-1 in float, then acc / p.
 * Threads take whole bytes (four elements), the tensor found at each part's start.
 * Inside a tensor, eight elements (two bytes) at a time in the AVX2 and AVX-512
 * variants (kernels/isa.h): the eight hashes as one vector (rng.h), the division and
 * the comparisons in float lanes, the same bits as the scalar baseline. */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE__
#include <immintrin.h>
#endif

#include "isa.h"
#include "select.h"
#include "terngrad.h"

#define TG_PART 16384           /* bytes of codes per thread's part */
#define TG_MAXCH 65536          /* elements per unit of work of the scales */
#define TG_STREAM_MIN (1u << 18) /* decode outputs this large bypass the cache */

struct tg {
	uint8_t *send, *recv;   /* payload; world payloads */
	float *sc;              /* decode: the scales, tensor-major (nt x world) */
	size_t bytes;           /* payload bytes */
};

static gc_rc terngrad_init(gc_bucket *b, gc_err *e)
{
	struct tg *s = calloc(1, sizeof(*s));

	if (!s)
		return gc_fail(e, GC_E_NOMEM, "out of memory for terngrad state");
	b->st = s;
	s->bytes = 4 * b->nt + (b->numel + 3) / 4;
	s->send = gc_cpu_alloc(s->bytes);
	s->recv = gc_cpu_alloc(s->bytes * (size_t)b->world);
	s->sc = malloc(b->nt * (size_t)b->world * sizeof(float));
	if (!s->send || !s->recv || !s->sc)
		return gc_fail(e, GC_E_NOMEM, "out of memory for terngrad buffers (%zu bytes, %d "
			       "workers)", s->bytes, b->world);
	return GC_OK;
}

static void terngrad_release(gc_bucket *b)
{
	struct tg *s = b->st;

	if (!s)
		return;
	free(s->send);
	free(s->recv);
	free(s->sc);
	free(s);
	b->st = NULL;
}

/* The tensor of element i: the last t with off[t] <= i. */
static size_t tensor_of(const gc_bucket *b, size_t i)
{
	size_t lo = 0, hi = b->nt;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (b->off[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

#if GC_ISA_MAX_N >= 1
/* Bit k of b at bit 2 k. */
#define SP(b) (uint16_t)(((b) & 1) | ((b) & 2) << 1 | ((b) & 4) << 2 | ((b) & 8) << 3 | \
			 ((b) & 16) << 4 | ((b) & 32) << 5 | ((b) & 64) << 6 | ((b) & 128) << 7)
#define SP1(n) SP(n), SP((n) + 1)
#define SP2(n) SP1(n), SP1((n) + 2)
#define SP3(n) SP2(n), SP2((n) + 4)
#define SP4(n) SP3(n), SP3((n) + 8)
#define SP5(n) SP4(n), SP4((n) + 16)
#define SP6(n) SP5(n), SP5((n) + 32)
#define SP7(n) SP6(n), SP6((n) + 64)
#define SP8(n) SP7(n), SP7((n) + 128)
static const uint16_t pairs[256] = { SP8(0) };
#endif

/* Codes of the elements 4 y0 .. 4 y1 - 1 of one tensor (scale st), y0 and y1 even. */
static void codes_default(const float *g, uint8_t *code, size_t y0, size_t y1, float st,
			  uint64_t key, uint64_t wk)
{
	for (size_t y = y0; y < y1; y++) {
		size_t i = 4 * y;
		unsigned v = 0;
		for (unsigned r = 0; r < 4; r++)
			v |= gc_tern_code(g[i + r], st, key, wk | (i + r)) << (2 * r);
		code[y] = (uint8_t)v;
	}
}

#if GC_ISA_MAX_N >= 1
/* Eight elements a step: keep = u < |g| / st in float lanes; the sign bits of the kept
 * positive and kept negative elements (movemask) spread to the bit pairs. st > 0. */
GC_TARGET_AVX2 static inline __attribute__((always_inline)) void
codes_body(const float *g, uint8_t *code, size_t y0, size_t y1, float st, uint64_t key,
	   uint64_t wk)
{
	const __m256 sv = _mm256_set1_ps(st), sign = _mm256_set1_ps(-0.0f);

	for (size_t y = y0; y < y1; y += 2) {
		size_t i = 4 * y;
		__m256 x = _mm256_loadu_ps(g + i);
		__m256 q = _mm256_div_ps(_mm256_andnot_ps(sign, x), sv);
		gc_rng_v8f u;
		gc_rng_unit24_x8(key, wk | i, &u);
		__m256 keep = _mm256_cmp_ps((__m256)u, q, _CMP_LT_OQ);
		unsigned kp = (unsigned)_mm256_movemask_ps(_mm256_andnot_ps(x, keep));
		unsigned kn = (unsigned)_mm256_movemask_ps(_mm256_and_ps(x, keep));
		uint16_t v = (uint16_t)(pairs[kp] | pairs[kn] << 1);
		memcpy(code + y, &v, sizeof(v));
	}
}

GC_TARGET_AVX2 static void codes_avx2(const float *g, uint8_t *code, size_t y0, size_t y1,
				      float st, uint64_t key, uint64_t wk)
{
	codes_body(g, code, y0, y1, st, key, wk);
}

GC_TARGET_AVX512 static void codes_avx512(const float *g, uint8_t *code, size_t y0, size_t y1,
					  float st, uint64_t key, uint64_t wk)
{
	codes_body(g, code, y0, y1, st, key, wk);
}
#endif

static void encode_codes(const float *g, uint8_t *code, size_t y0, size_t y1, float st, uint64_t key,
		  uint64_t wk)
{
	if (!(st > 0)) {                /* no element is kept */
		memset(code + y0, 0, y1 - y0);
		return;
	}
#if GC_ISA_MAX_N >= 1
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: codes_avx512(g, code, y0, y1, st, key, wk); return;
	case GC_ISA_AVX2: codes_avx2(g, code, y0, y1, st, key, wk); return;
	default: break;
	}
#endif
	codes_default(g, code, y0, y1, st, key, wk);
}

/* avg[4 y0 .. 4 y1) of one tensor from the workers' codes (stride bytes apart) and
 * their scales sc[0..world): acc = 0.0f, acc += value_w in worker order, acc / p. */
static void values_default(const uint8_t *codes, size_t stride, const float *sc, int world,
			   size_t y0, size_t y1, float *avg)
{
	float p = (float)world;

	for (size_t y = y0; y < y1; y++)
		for (unsigned r = 0; r < 4; r++) {
			float acc = 0.0f;
			for (int w = 0; w < world; w++)
				acc += gc_tern_value((codes[(size_t)w * stride + y] >> (2 * r)) & 3u,
						     sc[w]);
			avg[4 * y + r] = acc / p;
		}
}

#if GC_ISA_MAX_N >= 1
/* Eight elements a step (y0, y1 even): each worker's two bytes shifted apart into
 * lanes, value = s_w ((c & 1) - (c >> 1)) as the scalar computes it. */
GC_TARGET_AVX2 static inline __attribute__((always_inline)) void
values_body(const uint8_t *codes, size_t stride, const float *sc, int world, size_t y0,
	    size_t y1, float *avg, int nt)
{
	const __m256i sh = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
	const __m256i one = _mm256_set1_epi32(1);
	const __m256 p = _mm256_set1_ps((float)world), pinv = _mm256_set1_ps(1.0f / (float)world);
	const int p2 = !(world & (world - 1));  /* acc / p is acc * (1 / p), exactly */

	for (size_t y = y0; y < y1; y += 2) {
		__m256 acc = _mm256_setzero_ps();
		for (int w = 0; w < world; w++) {
			uint16_t c16;
			memcpy(&c16, codes + (size_t)w * stride + y, sizeof(c16));
			__m256i c = _mm256_srlv_epi32(_mm256_set1_epi32(c16), sh);
			__m256i v = _mm256_sub_epi32(_mm256_and_si256(c, one),
						     _mm256_and_si256(_mm256_srli_epi32(c, 1), one));
			acc = _mm256_add_ps(acc, _mm256_mul_ps(_mm256_set1_ps(sc[w]),
							       _mm256_cvtepi32_ps(v)));
		}
		__m256 o = p2 ? _mm256_mul_ps(acc, pinv) : _mm256_div_ps(acc, p);
		if (nt && !((uintptr_t)(avg + 4 * y) & 15)) {  /* past the cache */
			_mm_stream_ps(avg + 4 * y, _mm256_castps256_ps128(o));
			_mm_stream_ps(avg + 4 * y + 4, _mm256_extractf128_ps(o, 1));
		} else {
			_mm256_storeu_ps(avg + 4 * y, o);
		}
	}
}

GC_TARGET_AVX2 static void values_avx2(const uint8_t *codes, size_t stride, const float *sc,
				       int world, size_t y0, size_t y1, float *avg, int nt)
{
	values_body(codes, stride, sc, world, y0, y1, avg, nt);
}

GC_TARGET_AVX512 static void values_avx512(const uint8_t *codes, size_t stride, const float *sc,
					   int world, size_t y0, size_t y1, float *avg, int nt)
{
	values_body(codes, stride, sc, world, y0, y1, avg, nt);
}
#endif

static void decode_values(const uint8_t *codes, size_t stride, const float *sc, int world, size_t y0,
		   size_t y1, float *avg, int nt)
{
#if GC_ISA_MAX_N >= 1
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: values_avx512(codes, stride, sc, world, y0, y1, avg, nt); return;
	case GC_ISA_AVX2: values_avx2(codes, stride, sc, world, y0, y1, avg, nt); return;
	default: break;
	}
#endif
	(void)nt;
	values_default(codes, stride, sc, world, y0, y1, avg);
}

/* max(0, max |g| over [a, z)), NaN skipped (a > m is false for it): exact in any order. */
static float absmax_default(const float *g, size_t a, size_t z)
{
	float m = 0.0f;

	for (size_t i = a; i < z; i++) {
		float x = g[i] < 0 ? -g[i] : g[i];
		m = x > m ? x : m;
	}
	return m;
}

#if GC_ISA_MAX_N >= 1
/* maxps(x, m) is x > m ? x : m lane by lane, so NaN is skipped as in the scalar loop;
 * |g| by clearing the sign (+0 for -0, which the scalar's comparison also keeps out). */
GC_TARGET_AVX2 static inline __attribute__((always_inline)) float
absmax_body(const float *g, size_t a, size_t z)
{
	const __m256 sign = _mm256_set1_ps(-0.0f);
	__m256 m0 = _mm256_setzero_ps(), m1 = m0, m2 = m0, m3 = m0;
	float l[8], m = 0.0f;
	size_t i = a;

	for (; i + 32 <= z; i += 32) {
		m0 = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(g + i)), m0);
		m1 = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(g + i + 8)), m1);
		m2 = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(g + i + 16)), m2);
		m3 = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(g + i + 24)), m3);
	}
	m0 = _mm256_max_ps(_mm256_max_ps(m0, m1), _mm256_max_ps(m2, m3));
	_mm256_storeu_ps(l, m0);
	for (int k = 0; k < 8; k++)
		m = l[k] > m ? l[k] : m;
	for (; i < z; i++) {
		float x = g[i] < 0 ? -g[i] : g[i];
		m = x > m ? x : m;
	}
	return m;
}

GC_TARGET_AVX2 static float absmax_avx2(const float *g, size_t a, size_t z)
{
	return absmax_body(g, a, z);
}

GC_TARGET_AVX512 static float absmax_avx512(const float *g, size_t a, size_t z)
{
	return absmax_body(g, a, z);
}
#endif

static float absmax(const float *g, size_t a, size_t z)
{
#if GC_ISA_MAX_N >= 1
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: return absmax_avx512(g, a, z);
	case GC_ISA_AVX2: return absmax_avx2(g, a, z);
	default: break;
	}
#endif
	return absmax_default(g, a, z);
}

static gc_rc terngrad_encode(gc_bucket *b, const float *grad)
{
	struct tg *s = b->st;
	float *scale = (float *)(void *)s->send;
	uint8_t *code = s->send + 4 * b->nt;
	size_t n = b->numel, nbytes = (n + 3) / 4;
	long t, q;

	for (t = 0; t < (long)b->nt; t++) {           /* max |g|: exact in any order */
		float m = 0.0f;
		size_t lo = b->off[t], hi = b->off[t + 1];
		long c;
#pragma omp parallel for reduction(max:m) schedule(static) if (hi - lo >= 2 * TG_MAXCH)
		for (c = 0; c < (long)((hi - lo + TG_MAXCH - 1) / TG_MAXCH); c++) {
			size_t a = lo + (size_t)c * TG_MAXCH, z = a + TG_MAXCH < hi ? a + TG_MAXCH : hi;
			float x = absmax(grad, a, z);
			m = x > m ? x : m;
		}
		scale[t] = m;
	}
#pragma omp parallel for schedule(static) if (n >= 65536)
	for (q = 0; q < (long)((nbytes + TG_PART - 1) / TG_PART); q++) {
		size_t b0 = (size_t)q * TG_PART, b1 = b0 + TG_PART < nbytes ? b0 + TG_PART : nbytes;
		size_t i = 4 * b0, tt = tensor_of(b, i);
		uint64_t key = gc_rng_key(b->p.seed, tt, b->step), wk = (uint64_t)b->worker << 32;
		size_t end = b->off[tt + 1];
		float st = scale[tt];
		for (size_t y = b0; y < b1; y++) {
			unsigned v = 0;
			if (!(y & 1) && i < end) {      /* whole pairs of bytes inside tensor tt */
				size_t y1 = end / 4 < b1 ? end / 4 : b1;
				y1 = y + ((y1 > y ? y1 - y : 0) & ~(size_t)1);
				if (y1 > y) {
					encode_codes(grad, code, y, y1, st, key, wk);
					i += 4 * (y1 - y);
					y = y1;
					if (y >= b1)
						break;
				}
			}
			for (unsigned r = 0; r < 4 && i < n; r++, i++) {
				if (i >= end) {
					while (i >= b->off[tt + 1])
						tt++;
					end = b->off[tt + 1];
					st = scale[tt];
					key = gc_rng_key(b->p.seed, tt, b->step);
				}
				v |= gc_tern_code(grad[i], st, key, wk | i) << (2 * r);
			}
			code[y] = (uint8_t)v;
		}
	}
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
	return GC_OK;
}

static gc_rc terngrad_decode(gc_bucket *b, float *avg)
{
	struct tg *s = b->st;
	size_t n = b->numel, nbytes = (n + 3) / 4;
	float p = (float)b->world;
	int world = b->world;
	const uint8_t *codes = s->recv + 4 * b->nt;
	long q;

	for (size_t t = 0; t < b->nt; t++)
		for (int w = 0; w < world; w++)
			memcpy(&s->sc[t * (size_t)world + (size_t)w],
			       s->recv + (size_t)w * s->bytes + 4 * t, sizeof(float));
#pragma omp parallel for schedule(static) if (n >= 65536)
	for (q = 0; q < (long)((nbytes + TG_PART - 1) / TG_PART); q++) {
		size_t b0 = (size_t)q * TG_PART, b1 = b0 + TG_PART < nbytes ? b0 + TG_PART : nbytes;
		size_t i = 4 * b0, tt = tensor_of(b, i), end = b->off[tt + 1];
		const float *sc = s->sc + tt * (size_t)world;
		for (size_t y = b0; y < b1; y++) {
			if (!(y & 1) && i < end) {      /* whole pairs of bytes inside tensor tt */
				size_t y1 = end / 4 < b1 ? end / 4 : b1;
				y1 = y + ((y1 > y ? y1 - y : 0) & ~(size_t)1);
				if (y1 > y) {
					decode_values(codes, s->bytes, sc, world, y, y1, avg,
						      n >= TG_STREAM_MIN);
					i += 4 * (y1 - y);
					y = y1;
					if (y >= b1)
						break;
				}
			}
			for (unsigned r = 0; r < 4 && i < n; r++, i++) {
				float acc = 0.0f;
				if (i >= end) {
					while (i >= b->off[tt + 1])
						tt++;
					end = b->off[tt + 1];
					sc = s->sc + tt * (size_t)world;
				}
				for (int w = 0; w < world; w++)
					acc += gc_tern_value((codes[(size_t)w * s->bytes + y] >> (2 * r)) & 3u,
							     sc[w]);
				avg[i] = acc / p;
			}
		}
#ifdef __SSE__
		_mm_sfence();   /* this part's streamed stores, before avg is read */
#endif
	}
	return GC_OK;
}

const struct gc_method_ops gc_cpu_terngrad_ops = {
	.init = terngrad_init,
	.encode = terngrad_encode,
	.round_done = NULL,
	.decode = terngrad_decode,
	.residual = NULL,
	.release = terngrad_release,
};

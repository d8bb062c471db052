/* kernels/signsgd.c: signSGD (CPU): 1 bit per element, all-gathered; majority vote
 * (scaled=0) or the average of per-tensor scaled signs (scaled=1, optional error
 * feedback). Packing reads 8 sign bits at once (movemask); the vote counts 8 elements
 * per 64-bit add (one byte lane per element, spilled every 255 workers). The loops are
 * compiled per ISA level and dispatched at run time (kernels/isa.h). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE__
#include <immintrin.h>
#endif

#include "isa.h"
#include "select.h"

struct sg {
	size_t hdr, bytes;      /* scale header (4 * nt, scaled only), packed bits */
	uint8_t *send, *recv;   /* hdr + bytes; world * (hdr + bytes) */
	float *e;               /* residual (ef) */
	float *scales;          /* nt */
	double *partial;        /* nth * nt: per-thread sums for the scales */
	int nth;                /* threads */
};

#define PAR_MIN 65536           /* below this many elements, one thread */
#define CHUNK 512               /* bytes of bits (4096 elements) per vote block */
#define STREAM_MIN (1u << 18)   /* outputs of this many floats and more bypass the cache */

/* Byte k of X(b) is bit k of b. */
#define X(b) ((uint64_t)((b) & 1) | ((uint64_t)(((b) >> 1) & 1) << 8) | \
	      ((uint64_t)(((b) >> 2) & 1) << 16) | ((uint64_t)(((b) >> 3) & 1) << 24) | \
	      ((uint64_t)(((b) >> 4) & 1) << 32) | ((uint64_t)(((b) >> 5) & 1) << 40) | \
	      ((uint64_t)(((b) >> 6) & 1) << 48) | ((uint64_t)(((b) >> 7) & 1) << 56))
#define E1(n) X(n), X((n) + 1)
#define E2(n) E1(n), E1((n) + 2)
#define E3(n) E2(n), E2((n) + 4)
#define E4(n) E3(n), E3((n) + 8)
#define E5(n) E4(n), E4((n) + 16)
#define E6(n) E5(n), E5((n) + 32)
#define E7(n) E6(n), E6((n) + 64)
#define E8(n) E7(n), E7((n) + 128)
static const uint64_t spread[256] = { E8(0) };

static gc_rc sg_init(gc_bucket *b, gc_err *e)
{
	struct sg *s = calloc(1, sizeof(*s));

	if (!s)
		return gc_fail(e, GC_E_NOMEM, "out of memory for signsgd state");
	b->st = s;
	s->hdr = b->p.scaled ? 4 * b->nt : 0;
	s->bytes = (b->numel + 7) / 8;
	s->send = gc_cpu_zalloc(s->hdr + s->bytes);
	s->recv = gc_cpu_alloc((s->hdr + s->bytes) * (size_t)b->world);
	s->scales = gc_cpu_alloc(b->nt * sizeof(float));
	s->nth = gc_cpu_threads();
	s->partial = gc_cpu_alloc((size_t)s->nth * b->nt * sizeof(double));
	if (b->p.ef)
		s->e = gc_cpu_zalloc(b->numel * sizeof(float));
	if (!s->send || !s->recv || !s->scales || !s->partial || (b->p.ef && !s->e))
		return gc_fail(e, GC_E_NOMEM, "out of memory for signsgd buffers (%zu elements, "
			       "%d workers)", b->numel, b->world);
	return GC_OK;
}

static void sg_release(gc_bucket *b)
{
	struct sg *s = b->st;

	if (!s)
		return;
	free(s->send);
	free(s->recv);
	free(s->scales);
	free(s->partial);
	free(s->e);
	free(s);
	b->st = NULL;
}

/* bits[j] for j in [j0, j1): bit i of byte j is 1 iff c[8 j + i]'s sign bit is clear.
 * The baseline reads 4 signs per SSE movemask. */
static void pack_bytes_default(const float *c, uint8_t *bits, size_t j0, size_t j1)
{
	for (size_t j = j0; j < j1; j++) {
#ifdef __SSE__
		int lo = _mm_movemask_ps(_mm_loadu_ps(c + 8 * j));
		int hi = _mm_movemask_ps(_mm_loadu_ps(c + 8 * j + 4));
		bits[j] = (uint8_t)~(lo | hi << 4);
#else
		uint32_t v = 0, u;
		for (int i = 0; i < 8; i++) {
			memcpy(&u, c + 8 * j + i, 4);
			v |= (~u >> 31) << i;
		}
		bits[j] = (uint8_t)v;
#endif
	}
}

#if GC_ISA_MAX_N >= 1
GC_TARGET_AVX2 static void pack_bytes_avx2(const float *c, uint8_t *bits, size_t j0, size_t j1)
{
	for (size_t j = j0; j < j1; j++)
		bits[j] = (uint8_t)~_mm256_movemask_ps(_mm256_loadu_ps(c + 8 * j));
}
#else
#define pack_bytes_avx2 pack_bytes_default
#endif

#if GC_ISA_MAX_N >= 2
GC_TARGET_AVX512 static void pack_bytes_avx512(const float *c, uint8_t *bits, size_t j0,
					       size_t j1)
{
	size_t j = j0;

	for (; j + 2 <= j1; j += 2) {
		uint16_t m = (uint16_t)~_mm512_movepi32_mask(_mm512_castps_si512(
			_mm512_loadu_ps(c + 8 * j)));
		memcpy(bits + j, &m, 2);
	}
	for (; j < j1; j++)
		bits[j] = (uint8_t)~_mm256_movemask_ps(_mm256_loadu_ps(c + 8 * j));
}
#else
#define pack_bytes_avx512 pack_bytes_avx2
#endif

static void pack_bytes(const float *c, uint8_t *bits, size_t j0, size_t j1)
{
#if GC_ISA_DISPATCH
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: pack_bytes_avx512(c, bits, j0, j1); return;
	case GC_ISA_AVX2: pack_bytes_avx2(c, bits, j0, j1); return;
	default: break;
	}
#endif
	pack_bytes_default(c, bits, j0, j1);
}

#define PACK_CHUNK 4096          /* bytes of bits per unit of work */

/* bits: bit i%8 of byte i/8 is 1 iff c[i]'s sign bit is clear. */
static void pack_signs(const float *c, size_t n, uint8_t *bits)
{
	size_t nb = n / 8, i;
	long j, nchunk = (long)((nb + PACK_CHUNK - 1) / PACK_CHUNK);

#pragma omp parallel for schedule(static) if (n >= 65536)
	for (j = 0; j < nchunk; j++) {
		size_t j0 = (size_t)j * PACK_CHUNK;
		pack_bytes(c, bits, j0, j0 + PACK_CHUNK < nb ? j0 + PACK_CHUNK : nb);
	}
	if (nb * 8 < n) {
		uint32_t v = 0, u;
		for (i = nb * 8; i < n; i++) {
			memcpy(&u, c + i, 4);
			v |= (~u >> 31) << (i - nb * 8);
		}
		bits[nb] = (uint8_t)v;
	}
}

/* The part [lo, hi) of the bucket that thread th of tn handles, split on byte
 * boundaries (multiples of 8 elements) so that threads never share a byte of bits. */
static void thread_range(size_t n, int th, int tn, size_t *lo, size_t *hi)
{
	*lo = th ? (n * (size_t)th / (size_t)tn) & ~(size_t)7 : 0;
	*hi = th + 1 < tn ? (n * (size_t)(th + 1) / (size_t)tn) & ~(size_t)7 : n;
}

/* The first tensor that holds element i (binary search on the offsets). */
static size_t tensor_at(const gc_bucket *b, size_t i)
{
	size_t lo = 0, hi = b->nt - 1;

	while (lo < hi) {
		size_t mid = (lo + hi + 1) / 2;
		if (b->off[mid] <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

typedef float v8f __attribute__((vector_size(32)));
typedef float v4f __attribute__((vector_size(16)));
typedef double v4d __attribute__((vector_size(32)));
typedef uint32_t v8u __attribute__((vector_size(32)));

/* sum |c| over [a, z); with e, c = e after e[i] += g[i] (error feedback fused in). The
 * order is fixed (8 lanes, each summed in index order, then the lanes in order, then
 * the tail), so every ISA level gives the same bits. The lanes are two 4-double halves:
 * one 8-double vector is lowered through the stack below AVX-512. */
static inline __attribute__((always_inline)) double
abs_sum_body(float *e, const float *g, size_t a, size_t z)
{
	const v8u mask = { 0x7fffffffu, 0x7fffffffu, 0x7fffffffu, 0x7fffffffu,
			   0x7fffffffu, 0x7fffffffu, 0x7fffffffu, 0x7fffffffu };
	v4d acc0 = { 0 }, acc1 = { 0 };
	double sum = 0;
	size_t i = a;

	for (; i + 8 <= z; i += 8) {
		v8f x, y;
		v4f lo, hi;
		v8u u;
		memcpy(&x, g + i, sizeof(x));
		if (e) {
			memcpy(&y, e + i, sizeof(y));
			x += y;
			memcpy(e + i, &x, sizeof(x));
		}
		memcpy(&u, &x, sizeof(u));
		u &= mask;
		memcpy(&lo, &u, sizeof(lo));
		memcpy(&hi, (const char *)&u + sizeof(lo), sizeof(hi));
		acc0 += __builtin_convertvector(lo, v4d);
		acc1 += __builtin_convertvector(hi, v4d);
	}
	for (int l = 0; l < 4; l++)
		sum += acc0[l];
	for (int l = 0; l < 4; l++)
		sum += acc1[l];
	for (; i < z; i++) {
		if (e)
			e[i] += g[i];
		sum += (double)__builtin_fabsf(e ? e[i] : g[i]);
	}
	return sum;
}

/* e = c - s * sign(c) over [a, z), in place (e holds c). */
static inline __attribute__((always_inline)) void
ef_sub_body(float *e, size_t a, size_t z, float sc)
{
#pragma omp simd
	for (size_t i = a; i < z; i++)
		e[i] -= __builtin_copysignf(sc, e[i]);
}

static double abs_sum_default(float *e, const float *g, size_t a, size_t z)
{
	return e ? abs_sum_body(e, g, a, z) : abs_sum_body(NULL, g, a, z);
}

static void ef_sub_default(float *e, size_t a, size_t z, float sc)
{
	ef_sub_body(e, a, z, sc);
}

#if GC_ISA_DISPATCH
GC_TARGET_AVX2 static double abs_sum_avx2(float *e, const float *g, size_t a, size_t z)
{
	return e ? abs_sum_body(e, g, a, z) : abs_sum_body(NULL, g, a, z);
}

GC_TARGET_AVX512 static double abs_sum_avx512(float *e, const float *g, size_t a, size_t z)
{
	return e ? abs_sum_body(e, g, a, z) : abs_sum_body(NULL, g, a, z);
}

GC_TARGET_AVX2 static void ef_sub_avx2(float *e, size_t a, size_t z, float sc)
{
	ef_sub_body(e, a, z, sc);
}

GC_TARGET_AVX512 static void ef_sub_avx512(float *e, size_t a, size_t z, float sc)
{
	ef_sub_body(e, a, z, sc);
}
#endif

static double abs_sum(float *e, const float *g, size_t a, size_t z)
{
#if GC_ISA_DISPATCH
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: return abs_sum_avx512(e, g, a, z);
	case GC_ISA_AVX2: return abs_sum_avx2(e, g, a, z);
	default: break;
	}
#endif
	return abs_sum_default(e, g, a, z);
}

static void ef_sub(float *e, size_t a, size_t z, float sc)
{
#if GC_ISA_DISPATCH
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: ef_sub_avx512(e, a, z, sc); return;
	case GC_ISA_AVX2: ef_sub_avx2(e, a, z, sc); return;
	default: break;
	}
#endif
	ef_sub_default(e, a, z, sc);
}

/* Bit i of bits (bit i % 8 of byte i / 8) set to 1 iff c[i]'s sign bit is clear. */
static inline void set_bit(const float *c, uint8_t *bits, size_t i)
{
	uint32_t u;

	memcpy(&u, c + i, 4);
	bits[i / 8] = (uint8_t)((bits[i / 8] & ~(1u << (i & 7))) | ((~u >> 31) << (i & 7)));
}

/* The bits of c over [a, z), leaving the other bits of the first and last bytes as
 * they are (another tensor's). */
static void pack_range(const float *c, uint8_t *bits, size_t a, size_t z)
{
	size_t i = a, j0, j1;

	for (; i < z && (i & 7); i++)
		set_bit(c, bits, i);
	j0 = i / 8, j1 = z / 8;
	if (j1 > j0) {
		pack_bytes(c, bits, j0, j1);
		i = 8 * j1;
	}
	for (; i < z; i++)
		set_bit(c, bits, i);
}

/* Encode with scales (scaled=1): one pass adds the error feedback and sums |c| per
 * thread range and tensor; a tensor that lies in one thread's range is then packed
 * (and its residual updated) at once, while it is still in the cache; the tensors cut
 * by a range boundary wait for the sums of both threads. The scales are those of
 * tensor_scales: a whole tensor's sum plus the other threads' zeros. */
static void scaled_encode(const gc_bucket *b, struct sg *s, const float *g)
{
	int nth = b->numel >= PAR_MIN ? s->nth : 1;
	uint8_t *bits = s->send + s->hdr;
	float *e = s->e;
	const float *c = e ? e : g;

#pragma omp parallel num_threads(nth)
	{
		int th = omp_get_thread_num(), tn = omp_get_num_threads();
		double *part = s->partial + (size_t)th * b->nt;
		size_t lo, hi, t;

		thread_range(b->numel, th, tn, &lo, &hi);
		memset(part, 0, b->nt * sizeof(double));
		for (t = tensor_at(b, lo); lo < hi && t < b->nt && b->off[t] < hi; t++) {
			size_t a = b->off[t] > lo ? b->off[t] : lo;
			size_t z = b->off[t + 1] < hi ? b->off[t + 1] : hi;
			part[t] = abs_sum(e, g, a, z);
			if (b->off[t] >= lo && b->off[t + 1] <= hi) {
				float sc = (float)(part[t] / (double)(b->off[t + 1] - b->off[t]));
				pack_range(c, bits, a, z);
				if (e)
					ef_sub(e, a, z, sc);
			}
		}
#pragma omp barrier
#pragma omp for schedule(static)
		for (t = 0; t < b->nt; t++) {
			double sum = 0;
			for (int u = 0; u < tn; u++)
				sum += s->partial[(size_t)u * b->nt + t];
			s->scales[t] = (float)(sum / (double)(b->off[t + 1] - b->off[t]));
		}
		for (t = tensor_at(b, lo); lo < hi && t < b->nt && b->off[t] < hi; t++) {
			size_t a = b->off[t] > lo ? b->off[t] : lo;
			size_t z = b->off[t + 1] < hi ? b->off[t + 1] : hi;
			if (b->off[t] >= lo && b->off[t + 1] <= hi)
				continue;
			pack_range(c, bits, a, z);
			if (e)
				ef_sub(e, a, z, s->scales[t]);
		}
	}
}

static gc_rc sg_encode(gc_bucket *b, const float *grad)
{
	struct sg *s = b->st;

	if (b->p.scaled) {              /* ef needs scaled: the ef add is fused in here */
		scaled_encode(b, s, grad);
		memcpy(s->send, s->scales, s->hdr);
	} else {
		pack_signs(grad, b->numel, s->send + s->hdr);
	}
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
	return GC_OK;
}

/* Majority vote over bytes [j0, j1) of every worker's bits into out. */
static inline __attribute__((always_inline)) void vote_body(const struct sg *s, int p, size_t j0, size_t j1, size_t n, float *out)
{
	uint32_t cnt[CHUNK * 8];
	uint64_t acc[CHUNK];
	size_t j, i, nb = j1 - j0, stride = s->hdr + s->bytes, lim;
	int w = 0, w1;

	memset(cnt, 0, sizeof(cnt));
	while (w < p) {
		w1 = w + 255 < p ? w + 255 : p;
		memset(acc, 0, sizeof(acc));
		for (; w < w1; w++) {
			const uint8_t *bits = s->recv + (size_t)w * stride + s->hdr + j0;
			for (j = 0; j < nb; j++)
				acc[j] += spread[bits[j]];
		}
		for (j = 0; j < nb; j++)
			for (i = 0; i < 8; i++)
				cnt[8 * j + i] += (uint32_t)(acc[j] >> (8 * i)) & 0xffu;
	}
	lim = n - 8 * j0 < 8 * nb ? n - 8 * j0 : 8 * nb;
	for (i = 0; i < lim; i++) {
		int v = 2 * (int)cnt[i] - p;
		out[8 * j0 + i] = (float)((v > 0) - (v < 0));
	}
}

static void vote_block_default(const struct sg *s, int p, size_t j0, size_t j1, size_t n,
			       float *out)
{
	vote_body(s, p, j0, j1, n, out);
}

#if GC_ISA_MAX_N >= 1
/* v = 2 cnt - p per lane; (float)((v > 0) - (v < 0)) to out[0..8), streamed past the
 * cache when nt (out 16-byte aligned). */
GC_TARGET_AVX2 static inline __attribute__((always_inline)) void
vote_store8(float *out, __m256i cnt, __m256i pv, int nt)
{
	__m256i v = _mm256_sub_epi32(_mm256_add_epi32(cnt, cnt), pv), z = _mm256_setzero_si256();
	__m256 r = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cmpgt_epi32(z, v),
						       _mm256_cmpgt_epi32(v, z)));
	if (nt) {
		_mm_stream_ps(out, _mm256_castps256_ps128(r));
		_mm_stream_ps(out + 4, _mm256_extractf128_ps(r, 1));
	} else {
		_mm256_storeu_ps(out, r);
	}
}

/* The vote counted in 32-bit lanes, one byte of every worker per eight elements: a
 * bit becomes a lane's -1 by compare, subtracted. The last partial byte by vote_body. */
GC_TARGET_AVX2 static void vote_block_avx2(const struct sg *s, int p, size_t j0, size_t j1,
					   size_t n, float *out)
{
	const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
	const __m256i pv = _mm256_set1_epi32(p);
	size_t stride = s->hdr + s->bytes, j = j0, jv = n / 8 < j1 ? n / 8 : j1;
	const uint8_t *bits = s->recv + s->hdr;
	int nt = !((uintptr_t)out & 15) && n >= STREAM_MIN;

	for (; j < jv; j++) {
		__m256i cnt = _mm256_setzero_si256();
		for (int w = 0; w < p; w++) {
			__m256i x = _mm256_and_si256(_mm256_set1_epi32(bits[(size_t)w * stride + j]), bit);
			cnt = _mm256_sub_epi32(cnt, _mm256_cmpeq_epi32(x, bit));
		}
		vote_store8(out + 8 * j, cnt, pv, nt);
	}
	if (j < j1)
		vote_body(s, p, j, j1, n, out);
}

/* Sixteen elements (two bytes of every worker) a step: each worker's 16 bits as a
 * mask, the lanes counted by masked adds. */
GC_TARGET_AVX512 static void vote_block_avx512(const struct sg *s, int p, size_t j0, size_t j1,
					       size_t n, float *out)
{
	const __m512i one = _mm512_set1_epi32(1);
	const __m256i pv = _mm256_set1_epi32(p);
	size_t stride = s->hdr + s->bytes, j = j0, jv = n / 8 < j1 ? n / 8 : j1;
	const uint8_t *bits = s->recv + s->hdr;
	int nt = !((uintptr_t)out & 15) && n >= STREAM_MIN;

	for (; j + 2 <= jv; j += 2) {
		__m512i cnt = _mm512_setzero_si512();
		for (int w = 0; w < p; w++) {
			uint16_t m;
			memcpy(&m, bits + (size_t)w * stride + j, sizeof(m));
			cnt = _mm512_mask_add_epi32(cnt, (__mmask16)m, cnt, one);
		}
		vote_store8(out + 8 * j, _mm512_castsi512_si256(cnt), pv, nt);
		vote_store8(out + 8 * j + 8, _mm512_extracti64x4_epi64(cnt, 1), pv, nt);
	}
	if (j < j1)
		vote_block_avx2(s, p, j, j1, n, out);
}
#endif

static void vote_block(const struct sg *s, int p, size_t j0, size_t j1, size_t n, float *out)
{
#if GC_ISA_MAX_N >= 1
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: vote_block_avx512(s, p, j0, j1, n, out); return;
	case GC_ISA_AVX2: vote_block_avx2(s, p, j0, j1, n, out); return;
	default: break;
	}
#endif
	vote_block_default(s, p, j0, j1, n, out);
}

/* The signed scale of element i for one worker: +s if its bit is 1, else -s. */
static inline float signed_scale(const uint8_t *bits, size_t i, uint32_t su)
{
	uint32_t u = su | (((~(uint32_t)bits[i / 8] >> (i & 7)) & 1u) << 31);
	float v;
	memcpy(&v, &u, 4);
	return v;
}

/* Worker w's scale for tensor t, as bits. */
static inline uint32_t scale_bits(const struct sg *s, int w, size_t t)
{
	uint32_t u;
	memcpy(&u, s->recv + (size_t)w * (s->hdr + s->bytes) + 4 * t, 4);
	return u;
}

/* out[i] = (sum over workers w = 0..p-1 of +-s_wt) / p for one element. */
static float scaled_one(const struct sg *s, int p, size_t t, size_t i)
{
	float acc = 0.0f;

	for (int w = 0; w < p; w++)
		acc += signed_scale(s->recv + (size_t)w * (s->hdr + s->bytes) + s->hdr, i,
				    scale_bits(s, w, t));
	return acc / (float)p;
}

/* The same for [a, z) of tensor t; workers are the inner loop, so out is written once,
 * 8 elements (one byte of every worker) at a time in the body. */
static inline __attribute__((always_inline)) void
scaled_body(const gc_bucket *b, const struct sg *s, size_t t, size_t a, size_t z, float *out)
{
	size_t stride = s->hdr + s->bytes, i = a;
	float p = (float)b->world;

	for (; i < z && (i & 7); i++)
		out[i] = scaled_one(s, b->world, t, i);
	for (; i + 8 <= z; i += 8) {
		float acc[8] = { 0, 0, 0, 0, 0, 0, 0, 0 };
		for (int w = 0; w < b->world; w++) {
			uint32_t byte = s->recv[(size_t)w * stride + s->hdr + i / 8];
			uint32_t sw = scale_bits(s, w, t);
			for (int k = 0; k < 8; k++) {
				uint32_t u = sw | (((~byte >> k) & 1u) << 31);
				float v;
				memcpy(&v, &u, 4);
				acc[k] += v;
			}
		}
		for (int k = 0; k < 8; k++)
			out[i + (size_t)k] = acc[k] / p;
	}
	for (; i < z; i++)
		out[i] = scaled_one(s, b->world, t, i);
}

static void scaled_range_default(const gc_bucket *b, const struct sg *s, size_t t, size_t a,
				 size_t z, float *out)
{
	scaled_body(b, s, t, a, z, out);
}

#if GC_ISA_MAX_N >= 1
/* The same with 8 lanes of AVX2 (used at the AVX-512 level too). */
GC_TARGET_AVX2 static void scaled_range_avx2(const gc_bucket *b, const struct sg *s, size_t t,
					     size_t a, size_t z, float *out)
{
	size_t stride = s->hdr + s->bytes, i = a;
	const __m256i shifts = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
	const __m256 pv = _mm256_set1_ps((float)b->world);
	int nt = !((uintptr_t)out & 15) && b->numel >= STREAM_MIN;

	for (; i < z && (i & 7); i++)
		out[i] = scaled_one(s, b->world, t, i);
	for (; i + 8 <= z; i += 8) {
		__m256 acc = _mm256_setzero_ps();
		for (int w = 0; w < b->world; w++) {
			uint32_t byte = s->recv[(size_t)w * stride + s->hdr + i / 8];
			__m256i neg = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(
				(int)~byte), shifts), _mm256_set1_epi32(1));
			__m256i u = _mm256_or_si256(_mm256_set1_epi32((int)scale_bits(s, w, t)),
						    _mm256_slli_epi32(neg, 31));
			acc = _mm256_add_ps(acc, _mm256_castsi256_ps(u));
		}
		if (nt) {               /* past the cache (out 16-byte aligned, i % 8 = 0) */
			__m256 r = _mm256_div_ps(acc, pv);
			_mm_stream_ps(out + i, _mm256_castps256_ps128(r));
			_mm_stream_ps(out + i + 4, _mm256_extractf128_ps(r, 1));
		} else {
			_mm256_storeu_ps(out + i, _mm256_div_ps(acc, pv));
		}
	}
	for (; i < z; i++)
		out[i] = scaled_one(s, b->world, t, i);
}
#endif

static void scaled_range(const gc_bucket *b, const struct sg *s, size_t t, size_t a, size_t z,
			 float *out)
{
#if GC_ISA_MAX_N >= 1
	if (gc_isa_active() >= GC_ISA_AVX2) {
		scaled_range_avx2(b, s, t, a, z, out);
		return;
	}
#endif
	scaled_range_default(b, s, t, a, z, out);
}

static void scaled_decode(const gc_bucket *b, const struct sg *s, float *avg)
{
	int nth = b->numel >= PAR_MIN ? s->nth : 1;

#pragma omp parallel num_threads(nth)
	{
		size_t lo, hi, t;

		thread_range(b->numel, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
		for (t = tensor_at(b, lo); lo < hi && t < b->nt && b->off[t] < hi; t++)
			scaled_range(b, s, t, b->off[t] > lo ? b->off[t] : lo,
				     b->off[t + 1] < hi ? b->off[t + 1] : hi, avg);
#ifdef __SSE__
		_mm_sfence();   /* this thread's streamed stores, before avg is read */
#endif
	}
}

static gc_rc sg_decode(gc_bucket *b, float *avg)
{
	struct sg *s = b->st;
	long j;

	if (b->p.scaled) {
		scaled_decode(b, s, avg);
		return GC_OK;
	}
#pragma omp parallel if (b->numel >= 65536)
	{
#pragma omp for schedule(static)
		for (j = 0; j < (long)s->bytes; j += CHUNK) {
			size_t j1 = (size_t)j + CHUNK < s->bytes ? (size_t)j + CHUNK : s->bytes;
			vote_block(s, b->world, (size_t)j, j1, b->numel, avg);
		}
#ifdef __SSE__
		_mm_sfence();   /* this thread's streamed stores, before avg is read */
#endif
	}
	return GC_OK;
}

static gc_rc sg_residual(const gc_bucket *b, float *out)
{
	const struct sg *s = b->st;

	if (s->e)
		memcpy(out, s->e, b->numel * sizeof(float));
	else
		memset(out, 0, b->numel * sizeof(float));
	return GC_OK;
}

const struct gc_method_ops gc_cpu_signsgd_ops = {
	.init = sg_init,
	.encode = sg_encode,
	.round_done = NULL,
	.decode = sg_decode,
	.residual = sg_residual,
	.release = sg_release,
};

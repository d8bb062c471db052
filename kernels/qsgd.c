/* kernels/qsgd.c: QSGD (CPU): per norm bucket the L2 norm, per element a stochastic
 * sign-magnitude level (kernels/qsgd.h); all-gathered payload = nqb float32 norms (norm
 * bucket order: tensors in order, each cut from its start), then ceil(n W / 8) bytes
 * of codes. Decode, per element: acc = 0.0f, acc += value(code_w, r_wj) for w = 0..p-1
 * in float, then acc / p. Threads take parts of QS_PART elements (even, so the two
 * codes of a byte stay with one thread), the tensor and norm bucket found at each
 * part's start. The AVX2 and AVX-512 variants (kernels/isa.h) sum eight norm buckets
 * at once (one double lane each, still in element order), and code and decode eight
 * elements of one norm bucket at a time (the hashes as one vector, rng.h): the same
 * float operations per element as the scalar baseline, so the same bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE__
#include <immintrin.h>
#endif

#include "isa.h"
#include "qsgd.h"
#include "select.h"
#include "simd.h"

#define QS_PART 16384           /* elements per thread's part (even) */
#define QS_STREAM_MIN (1u << 18) /* decode outputs this large bypass the cache */

struct qs {
	uint8_t *send, *recv;   /* payload; world payloads */
	size_t *start;          /* nqb + 1 element offsets of the norm buckets */
	float *nrm;             /* decode: the norms, bucket-major (nqb x world) */
	size_t nqb, bytes;      /* norm buckets; payload bytes */
	unsigned W;             /* bits per code */
};

static gc_rc qsgd_init(gc_bucket *b, gc_err *e)
{
	struct qs *s = calloc(1, sizeof(*s));
	size_t d = (size_t)b->p.bucket_size, j = 0;

	if (!s)
		return gc_fail(e, GC_E_NOMEM, "out of memory for qsgd state");
	b->st = s;
	s->nqb = b->plan.nqb;
	s->W = gc_qsgd_width(b->p.levels);
	s->bytes = gc_plan_payload_bytes(&b->plan);
	s->send = gc_cpu_alloc(s->bytes);
	s->recv = gc_cpu_alloc(s->bytes * (size_t)b->world);
	s->start = malloc((s->nqb + 1) * sizeof(size_t));
	s->nrm = malloc((s->nqb ? s->nqb : 1) * (size_t)b->world * sizeof(float));
	if (!s->send || !s->recv || !s->start || !s->nrm)
		return gc_fail(e, GC_E_NOMEM, "out of memory for qsgd buffers (%zu bytes, %d "
			       "workers)", s->bytes, b->world);
	for (size_t t = 0; t < b->nt; t++)
		for (size_t i = b->off[t]; i < b->off[t + 1]; i += d)
			s->start[j++] = i;
	s->start[j] = b->numel;
	return GC_OK;
}

static void qsgd_release(gc_bucket *b)
{
	struct qs *s = b->st;

	if (!s)
		return;
	free(s->send);
	free(s->recv);
	free(s->start);
	free(s->nrm);
	free(s);
	b->st = NULL;
}

/* The last j < n with a[j] <= i (a[0] <= i). */
static size_t last_le(const size_t *a, size_t n, size_t i)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (a[mid] <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void put(uint8_t *code, unsigned W, size_t i, unsigned c)
{
	if (W == 8) {
		code[i] = (uint8_t)c;
	} else if (W == 16) {
		code[2 * i] = (uint8_t)c;
		code[2 * i + 1] = (uint8_t)(c >> 8);
	} else if (i % 2) {
		code[i / 2] |= (uint8_t)(c << 4);
	} else {
		code[i / 2] = (uint8_t)c;
	}
}

/* The norms of buckets [j0, j1): each the double sum of g^2 in element order. */
static void norms_default(const float *g, const size_t *start, float *nrm, size_t j0,
			  size_t j1)
{
	for (size_t j = j0; j < j1; j++) {
		double acc = 0;
		for (size_t i = start[j]; i < start[j + 1]; i++)
			acc += (double)g[i] * g[i];
		nrm[j] = (float)sqrt(acc);
	}
}

#if GC_ISA_MAX_N >= 1
/* Eight buckets of the same length at once: 8 x 8 blocks transposed so that lane k
 * of column e is element 8 m + e of bucket k; each lane adds its squares in element
 * order (two halves of four doubles), the tail of each bucket after the lanes. */
GC_TARGET_AVX2 static inline __attribute__((always_inline)) void
norms_body(const float *g, const size_t *start, float *nrm, size_t j0, size_t j1)
{
	size_t j = j0;

	for (; j + 8 <= j1; j += 8) {
		size_t len = start[j + 1] - start[j], m, k;
		const float *row[8];
		double acc[8];
		int same = 1;

		for (k = 0; k < 8; k++) {
			row[k] = g + start[j + k];
			same &= start[j + k + 1] - start[j + k] == len;
		}
		if (!same || len < 8) {
			norms_default(g, start, nrm, j, j + 8);
			continue;
		}
		__m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
		for (m = 0; m + 8 <= len; m += 8) {
			__m256 r[8];
			for (k = 0; k < 8; k++)
				r[k] = _mm256_loadu_ps(row[k] + m);
			gc_transpose8_ps(r);
			for (k = 0; k < 8; k++) {
				__m256d a = _mm256_cvtps_pd(_mm256_castps256_ps128(r[k]));
				__m256d b = _mm256_cvtps_pd(_mm256_extractf128_ps(r[k], 1));
				lo = _mm256_add_pd(lo, _mm256_mul_pd(a, a));
				hi = _mm256_add_pd(hi, _mm256_mul_pd(b, b));
			}
		}
		_mm256_storeu_pd(acc, lo);
		_mm256_storeu_pd(acc + 4, hi);
		for (k = 0; k < 8; k++) {
			for (size_t i = m; i < len; i++)
				acc[k] += (double)row[k][i] * row[k][i];
			nrm[j + k] = (float)sqrt(acc[k]);
		}
	}
	norms_default(g, start, nrm, j, j1);
}

GC_TARGET_AVX2 static void norms_avx2(const float *g, const size_t *start, float *nrm,
				      size_t j0, size_t j1)
{
	norms_body(g, start, nrm, j0, j1);
}

GC_TARGET_AVX512 static void norms_avx512(const float *g, const size_t *start, float *nrm,
					  size_t j0, size_t j1)
{
	norms_body(g, start, nrm, j0, j1);
}
#endif

static void norms(const float *g, const size_t *start, float *nrm, size_t j0, size_t j1)
{
#if GC_ISA_MAX_N >= 1
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: norms_avx512(g, start, nrm, j0, j1); return;
	case GC_ISA_AVX2: norms_avx2(g, start, nrm, j0, j1); return;
	default: break;
	}
#endif
	norms_default(g, start, nrm, j0, j1);
}

#if GC_ISA_MAX_N >= 1
/* Codes of elements [a, z) of one norm bucket (norm r > 0), eight at a time: the
 * scalar gc_qsgd_code in float lanes (x = min(x, s) is its "not below s: s", NaN
 * included), packed to W-bit codes; a even when W = 4. Returns where it stopped. */
GC_TARGET_AVX2 static inline __attribute__((always_inline)) size_t
codes_body(const float *g, uint8_t *code, size_t a, size_t z, float r, int lv, unsigned W,
	   uint64_t key, uint64_t wk)
{
	const __m256 rv = _mm256_set1_ps(r), sf = _mm256_set1_ps((float)lv);
	const __m256 sign = _mm256_set1_ps(-0.0f);
	const __m256i one = _mm256_set1_epi32(1);
	size_t i = a;

	for (; i + 8 <= z; i += 8) {
		__m256 x = _mm256_loadu_ps(g + i);
		__m256 q = _mm256_mul_ps(_mm256_div_ps(_mm256_andnot_ps(sign, x), rv), sf);
		q = _mm256_min_ps(q, sf);
		__m256i l = _mm256_cvttps_epi32(q);
		__m256 fl = _mm256_cvtepi32_ps(l);
		gc_rng_v8f u;
		gc_rng_unit24_x8(key, wk | i, &u);
		__m256i up = _mm256_castps_si256(_mm256_cmp_ps((__m256)u, _mm256_sub_ps(q, fl),
							       _CMP_LT_OQ));
		__m256i c = _mm256_add_epi32(l, _mm256_and_si256(up, one));
		c = _mm256_or_si256(c, _mm256_slli_epi32(_mm256_srli_epi32(_mm256_castps_si256(x),
									      31), (int)W - 1));
		__m128i w16 = _mm_packus_epi32(_mm256_castsi256_si128(c),
					       _mm256_extracti128_si256(c, 1));
		if (W == 16) {
			_mm_storeu_si128((__m128i *)(void *)(code + 2 * i), w16);
		} else if (W == 8) {
			_mm_storel_epi64((__m128i *)(void *)(code + i), _mm_packus_epi16(w16, w16));
		} else {        /* byte k: code 2k | code 2k+1 << 4 */
			__m128i b8 = _mm_packus_epi16(w16, w16);        /* 8 bytes */
			__m128i p = _mm_and_si128(_mm_or_si128(b8, _mm_srli_epi16(b8, 4)),
						  _mm_set1_epi16(0xff));
			uint32_t v = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(p, p));
			memcpy(code + i / 2, &v, sizeof(v));
		}
	}
	return i;
}

#define CODES_VARIANT(suffix, attr) \
attr static size_t codes_##suffix(const float *g, uint8_t *code, size_t a, size_t z, float r, \
				  int lv, unsigned W, uint64_t key, uint64_t wk) \
{ \
	if (W == 8) \
		return codes_body(g, code, a, z, r, lv, 8, key, wk); \
	if (W == 4) \
		return codes_body(g, code, a, z, r, lv, 4, key, wk); \
	return codes_body(g, code, a, z, r, lv, 16, key, wk); \
}
CODES_VARIANT(avx2, GC_TARGET_AVX2)
CODES_VARIANT(avx512, GC_TARGET_AVX512)
#endif

/* Codes of [a, z) of one norm bucket by the variants, as far as they go (a even for
 * W = 4); returns the first element not coded. */
static size_t codes_vec(const float *g, uint8_t *code, size_t a, size_t z, float r, int lv,
			unsigned W, uint64_t key, uint64_t wk)
{
	if (!(r > 0))
		return a;
#if GC_ISA_MAX_N >= 1
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: return codes_avx512(g, code, a, z, r, lv, W, key, wk);
	case GC_ISA_AVX2: return codes_avx2(g, code, a, z, r, lv, W, key, wk);
	default: break;
	}
#endif
	(void)g, (void)code, (void)z, (void)lv, (void)W, (void)key, (void)wk;
	return a;
}

static gc_rc qsgd_encode(gc_bucket *b, const float *grad)
{
	struct qs *s = b->st;
	float *nrm = (float *)(void *)s->send;
	uint8_t *code = s->send + 4 * s->nqb;
	size_t n = b->numel;
	unsigned W = s->W;
	int lv = b->p.levels;
	long q;

	/* Per part: the norms of the norm buckets that start in it (stored), then the
	 * codes, while the part is in the cache; a norm bucket begun in the part before
	 * has its norm computed again here (the same operations: the same value). */
#pragma omp parallel for schedule(static) if (n >= 65536)
	for (q = 0; q < (long)((n + QS_PART - 1) / QS_PART); q++) {
		size_t i = (size_t)q * QS_PART, i1 = i + QS_PART < n ? i + QS_PART : n;
		size_t tt = last_le(b->off, b->nt, i), jj = last_le(s->start, s->nqb, i);
		uint64_t key = gc_rng_key(b->p.seed, tt, b->step), wk = (uint64_t)b->worker << 32;
		size_t tend = b->off[tt + 1], jend = s->start[jj + 1];
		size_t jn = s->start[jj] < i ? jj + 1 : jj, jl = last_le(s->start, s->nqb, i1 - 1) + 1;
		float r;

		if (jl > jn)
			norms(grad, s->start, nrm, jn, jl);
		if (jn != jj)
			norms_default(grad, s->start + jj, &r, 0, 1);
		else
			r = nrm[jj];
		for (; i < i1; i++) {
			if (i >= jend) {
				while (i >= s->start[jj + 1])
					jj++;
				jend = s->start[jj + 1];
				r = nrm[jj];
			}
			if (i >= tend) {
				while (i >= b->off[tt + 1])
					tt++;
				tend = b->off[tt + 1];
				key = gc_rng_key(b->p.seed, tt, b->step);
			}
			if (W != 4 || !(i & 1)) {       /* the rest of the norm bucket, vectors */
				size_t z = jend < i1 ? jend : i1;
				i = codes_vec(grad, code, i, z, r, lv, W, key, wk);
				if (i >= z) {
					i--;            /* the loop's i++ */
					continue;
				}
			}
			put(code, W, i, gc_qsgd_code(grad[i], r, lv, W, key, wk | i));
		}
	}
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
	return GC_OK;
}

/* +1.0f or -1.0f for a sign bit: v * SGN(b) is -v or v exactly (zeros too), without
 * a branch on random signs. */
#define SGN(bit) (1.0f - 2.0f * (float)(bit))

/* The code of element i of one worker's codes. */
static inline unsigned get(const uint8_t *cw, unsigned W, size_t i)
{
	if (W == 8)
		return cw[i];
	if (W == 16)
		return cw[2 * i] | (unsigned)cw[2 * i + 1] << 8;
	return (cw[i / 2] >> (4 * (i % 2))) & 15u;
}

/* avg[i] for i in [a, z) of norm bucket j: acc = 0.0f, acc += value_w for w = 0..p-1
 * (v = (r_w level) / s with the sign applied as v * (1 - 2 sign), exact), acc / p.
 * cw: worker 0's codes, stride bytes to the next; r: the bucket's norms, worker-major. */
static void values_default(const uint8_t *cw, size_t stride, const float *r, int world,
			   size_t a, size_t z, int lv, unsigned W, float *avg)
{
	float sf = (float)lv, p = (float)world;
	unsigned mask = (1u << (W - 1)) - 1u;

	for (size_t i = a; i < z; i++) {
		float acc = 0.0f;
		for (int w = 0; w < world; w++) {
			unsigned c = get(cw + (size_t)w * stride, W, i);
			float v = (r[w] * (float)(c & mask)) / sf;
			acc += v * SGN(c >> (W - 1));
		}
		avg[i] = acc / p;
	}
}

#if GC_ISA_MAX_N >= 1
/* Eight elements at a time (a even for W = 4), the tail by values_default. */
GC_TARGET_AVX2 static inline __attribute__((always_inline)) void
values_body(const uint8_t *cw, size_t stride, const float *r, int world, size_t a, size_t z,
	    int lv, unsigned W, float *avg, int nt)
{
	const __m256 sf = _mm256_set1_ps((float)lv), p = _mm256_set1_ps((float)world);
	const __m256 pinv = _mm256_set1_ps(1.0f / (float)world);
	const int p2 = !(world & (world - 1));  /* acc / p is acc * (1 / p), exactly */
	const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
	const __m256i mask = _mm256_set1_epi32((int)((1u << (W - 1)) - 1u));
	const __m256i sh4 = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
	size_t i = a;

	for (; i + 8 <= z; i += 8) {
		__m256 acc = _mm256_setzero_ps();
		for (int w = 0; w < world; w++) {
			const uint8_t *c8 = cw + (size_t)w * stride;
			__m256i c;
			if (W == 8) {
				c = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(c8 + i)));
			} else if (W == 16) {
				c = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)(c8 + 2 * i)));
			} else {
				uint32_t v;
				memcpy(&v, c8 + i / 2, sizeof(v));
				c = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)v), sh4),
						     _mm256_set1_epi32(15));
			}
			__m256 lvl = _mm256_cvtepi32_ps(_mm256_and_si256(c, mask));
			__m256 sg = _mm256_cvtepi32_ps(_mm256_srli_epi32(c, (int)W - 1));
			__m256 v = _mm256_div_ps(_mm256_mul_ps(_mm256_set1_ps(r[w]), lvl), sf);
			acc = _mm256_add_ps(acc, _mm256_mul_ps(v, _mm256_sub_ps(one,
								     _mm256_mul_ps(two, sg))));
		}
		__m256 o = p2 ? _mm256_mul_ps(acc, pinv) : _mm256_div_ps(acc, p);
		if (nt && !((uintptr_t)(avg + i) & 15)) {      /* past the cache */
			_mm_stream_ps(avg + i, _mm256_castps256_ps128(o));
			_mm_stream_ps(avg + i + 4, _mm256_extractf128_ps(o, 1));
		} else {
			_mm256_storeu_ps(avg + i, o);
		}
	}
	values_default(cw, stride, r, world, i, z, lv, W, avg);
}

#define VALUES_VARIANT(suffix, attr) \
attr static void values_##suffix(const uint8_t *cw, size_t stride, const float *r, int world, \
				 size_t a, size_t z, int lv, unsigned W, float *avg, int nt) \
{ \
	if (W == 8) \
		values_body(cw, stride, r, world, a, z, lv, 8, avg, nt); \
	else if (W == 4) \
		values_body(cw, stride, r, world, a, z, lv, 4, avg, nt); \
	else \
		values_body(cw, stride, r, world, a, z, lv, 16, avg, nt); \
}
VALUES_VARIANT(avx2, GC_TARGET_AVX2)
VALUES_VARIANT(avx512, GC_TARGET_AVX512)
#endif

static void values(const uint8_t *cw, size_t stride, const float *r, int world, size_t a,
		   size_t z, int lv, unsigned W, float *avg, int nt)
{
#if GC_ISA_MAX_N >= 1
	if (W != 4 || !(a & 1))
		switch (gc_isa_active()) {
		case GC_ISA_AVX512: values_avx512(cw, stride, r, world, a, z, lv, W, avg, nt); return;
		case GC_ISA_AVX2: values_avx2(cw, stride, r, world, a, z, lv, W, avg, nt); return;
		default: break;
		}
#endif
	(void)nt;
	values_default(cw, stride, r, world, a, z, lv, W, avg);
}

/* Per part, norm bucket by norm bucket: per element the same float operations, in
 * the same order, as acc = 0.0f, acc += value_w for w = 0..p-1, acc / p. */
static gc_rc qsgd_decode(gc_bucket *b, float *avg)
{
	struct qs *s = b->st;
	size_t n = b->numel;
	int world = b->world, lv = b->p.levels;
	unsigned W = s->W;
	long q;

	for (size_t j = 0; j < s->nqb; j++)
		for (int w = 0; w < world; w++)
			memcpy(&s->nrm[j * (size_t)world + (size_t)w],
			       s->recv + (size_t)w * s->bytes + 4 * j, sizeof(float));
#pragma omp parallel for schedule(static) if (n >= 65536)
	for (q = 0; q < (long)((n + QS_PART - 1) / QS_PART); q++) {
		size_t i0 = (size_t)q * QS_PART, i1 = i0 + QS_PART < n ? i0 + QS_PART : n;
		size_t j = last_le(s->start, s->nqb, i0);
		const uint8_t *cw = s->recv + 4 * s->nqb;

		for (size_t a = i0; a < i1; j++) {
			size_t z = s->start[j + 1] < i1 ? s->start[j + 1] : i1;
			if (W == 4 && (a & 1)) {        /* an odd start alone */
				values_default(cw, s->bytes, s->nrm + j * (size_t)world, world, a,
					       a + 1, lv, W, avg);
				a++;
			}
			values(cw, s->bytes, s->nrm + j * (size_t)world, world, a, z, lv, W, avg,
			       n >= QS_STREAM_MIN);
			a = z;
		}
#ifdef __SSE__
		_mm_sfence();   /* this part's streamed stores, before avg is read */
#endif
	}
	return GC_OK;
}

const struct gc_method_ops gc_cpu_qsgd_ops = {
	.init = qsgd_init,
	.encode = qsgd_encode,
	.round_done = NULL,
	.decode = qsgd_decode,
	.residual = NULL,
	.release = qsgd_release,
};

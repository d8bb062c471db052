/* kernels/efsign_ar.c: scaled sign with error feedback through an all-reduce (CPU).
 * c = g + e (ef=1; else g); per tensor t the scale m_t = mean |c| over t (the sum in
 * double in element order, divided by n_t, rounded to float) and h_t = bf16(m_t / p);
 * element i is sent as h_t with the sign bit of (c_i < 0) set: a bf16 all-reduce
 * (kernels/bf16.h; the sum as bf16's) of the per-worker terms m_t sign(c_i) / p.
 * Decode: avg = float(sum). EF: e' = c - sign(c) (p float(h_t)), what this worker's
 * term was short of c (the scale's bf16 rounding included). Threads take tensors for
 * the scales and fixed parts of the bucket for the rest.
 *
 * A scale's sum is one chain of dependent double additions (element order); the AVX2
 * and AVX-512 variants (kernels/isa.h) run sixteen tensors' chains side by side, one
 * double lane each (blocks of 8 x 8 elements transposed), so the chains' latencies
 * overlap: the same additions in the same order per tensor, the same bits. Tensors go
 * to the lanes largest first, and to the threads round robin in that order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE__
#include <immintrin.h>
#endif

#include <omp.h>

#include "bf16.h"
#include "isa.h"
#include "select.h"
#include "simd.h"

#define ES_PART 16384           /* elements per thread's part */
#define ES_STREAM_MIN (1u << 18) /* decode outputs this large bypass the cache */

struct es {
	uint16_t *send, *recv;  /* payload; the sum */
	float *e;               /* residual (ef), numel */
	uint16_t *h;            /* nt scales, bf16 */
	size_t *order;          /* the tensors, largest first */
};

static gc_rc es_init(gc_bucket *b, gc_err *e)
{
	struct es *s = calloc(1, sizeof(*s));

	if (!s)
		return gc_fail(e, GC_E_NOMEM, "out of memory for efsign_ar state");
	b->st = s;
	s->send = gc_cpu_alloc(b->numel * sizeof(uint16_t));
	s->recv = gc_cpu_alloc(b->numel * sizeof(uint16_t));
	s->h = malloc(b->nt * sizeof(uint16_t));
	s->order = malloc(b->nt * sizeof(size_t));
	if (s->order) {                 /* insertion sort: nt is small, init runs once */
		for (size_t t = 0; t < b->nt; t++) {
			size_t u = t, nt_ = b->off[t + 1] - b->off[t];
			for (; u > 0 && b->off[s->order[u - 1] + 1] - b->off[s->order[u - 1]] < nt_; u--)
				s->order[u] = s->order[u - 1];
			s->order[u] = t;
		}
	}
	if (b->p.ef)
		s->e = gc_cpu_zalloc(b->numel * sizeof(float));
	if (!s->send || !s->recv || !s->h || !s->order || (b->p.ef && !s->e))
		return gc_fail(e, GC_E_NOMEM, "out of memory for efsign_ar buffers (%zu "
			       "elements)", b->numel);
	return GC_OK;
}

static void es_release(gc_bucket *b)
{
	struct es *s = b->st;

	if (!s)
		return;
	free(s->send);
	free(s->recv);
	free(s->e);
	free(s->h);
	free(s->order);
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

/* acc + sum |c| over [lo, hi) of a tensor, added in element order in double; with
 * ef, c = g + e is written to e on the way. */
static double abs_sum_one(const float *g, float *e, size_t lo, size_t hi, double acc)
{
	if (e)
		for (size_t i = lo; i < hi; i++) {
			float ci = g[i] + e[i];
			e[i] = ci;
			acc += fabs((double)ci);      /* not a branch: signs are random */
		}
	else
		for (size_t i = lo; i < hi; i++)
			acc += fabs((double)g[i]);
	return acc;
}

static void scale_of(const gc_bucket *b, struct es *s, size_t t, double acc)
{
	s->h[t] = gc_f32_to_bf16_inl((float)(acc / (double)(b->off[t + 1] - b->off[t])) /
				     (float)b->world);
}

#if GC_ISA_MAX_N >= 1
#define NL 16                   /* chains side by side: two sets of eight lanes */

/* The scales of the tensors order[th], order[th + nth], ...: NL lanes, each running
 * one tensor's chain; a lane whose tensor has fewer than 8 elements left finishes it
 * alone and takes the next tensor; lanes with no tensor read and write a dummy block. */
GC_TARGET_AVX2 static inline __attribute__((always_inline)) void
scales_body(const gc_bucket *b, struct es *s, const float *grad, int th, int nth)
{
	float dg[8] = { 0 }, de[8] = { 0 };
	const float *gp[NL];
	float *ep[NL];
	size_t left[NL], tn[NL], next = (size_t)th, inc[NL];
	double acc[NL];
	int ef = b->p.ef, active = 0;
	const __m256 sign = _mm256_set1_ps(-0.0f);

	for (int k = 0; k < NL; k++) {
		gp[k] = dg, ep[k] = de, left[k] = 0, tn[k] = SIZE_MAX, acc[k] = 0, inc[k] = 0;
	}
	for (;;) {
		size_t step = SIZE_MAX;
		for (int k = 0; k < NL; k++) {
			while (tn[k] != SIZE_MAX && left[k] < 8) {      /* finish, refill */
				size_t t = tn[k], hi = b->off[t + 1];
				acc[k] = abs_sum_one(grad, ef ? s->e : NULL, hi - left[k], hi, acc[k]);
				scale_of(b, s, t, acc[k]);
				tn[k] = SIZE_MAX, gp[k] = dg, ep[k] = de, inc[k] = 0, active--;
				if (next < b->nt) {
					t = s->order[next];
					next += (size_t)nth;
					tn[k] = t, left[k] = b->off[t + 1] - b->off[t], acc[k] = 0;
					gp[k] = grad + b->off[t], ep[k] = ef ? s->e + b->off[t] : de;
					inc[k] = 8, active++;
				}
			}
			if (tn[k] == SIZE_MAX && next < b->nt) {        /* an idle lane */
				size_t t = s->order[next];
				next += (size_t)nth;
				tn[k] = t, left[k] = b->off[t + 1] - b->off[t], acc[k] = 0;
				gp[k] = grad + b->off[t], ep[k] = ef ? s->e + b->off[t] : de;
				inc[k] = 8, active++;
				k--;                    /* check its length */
				continue;
			}
			if (tn[k] != SIZE_MAX && left[k] < step)
				step = left[k];
		}
		if (active <= 0)
			break;
		step /= 8;                      /* blocks of 8 every active lane has */
		__m256d a[NL / 4];
		for (int q = 0; q < NL / 4; q++)
			a[q] = _mm256_loadu_pd(acc + 4 * q);
		for (size_t m = 0; m < step; m++) {
			for (int set = 0; set < NL / 8; set++) {
				__m256 r[8];
				for (int k = 0; k < 8; k++) {
					int l = 8 * set + k;
					__m256 x = _mm256_loadu_ps(gp[l]);
					if (ef) {
						x = _mm256_add_ps(x, _mm256_loadu_ps(ep[l]));
						_mm256_storeu_ps(ep[l], x);
					}
					r[k] = _mm256_andnot_ps(sign, x);
					gp[l] += inc[l], ep[l] += inc[l];
				}
				gc_transpose8_ps(r);
				for (int k = 0; k < 8; k++) {
					a[2 * set] = _mm256_add_pd(a[2 * set], _mm256_cvtps_pd(
						_mm256_castps256_ps128(r[k])));
					a[2 * set + 1] = _mm256_add_pd(a[2 * set + 1], _mm256_cvtps_pd(
						_mm256_extractf128_ps(r[k], 1)));
				}
			}
		}
		for (int q = 0; q < NL / 4; q++)
			_mm256_storeu_pd(acc + 4 * q, a[q]);
		for (int k = 0; k < NL; k++)
			if (tn[k] != SIZE_MAX)
				left[k] -= 8 * step;
	}
}

GC_TARGET_AVX2 static void scales_avx2(const gc_bucket *b, struct es *s, const float *grad,
				       int th, int nth)
{
	scales_body(b, s, grad, th, nth);
}

GC_TARGET_AVX512 static void scales_avx512(const gc_bucket *b, struct es *s,
					   const float *grad, int th, int nth)
{
	scales_body(b, s, grad, th, nth);
}

/* Elements [i, z) of one tensor: send = h | sign, e = c - +-v; eight at a time. */
GC_TARGET_AVX2 static inline __attribute__((always_inline)) void
terms_body(const float *c, uint16_t *send, float *e, size_t i, size_t z, uint16_t h, float v)
{
	const __m256 sign = _mm256_set1_ps(-0.0f), zero = _mm256_setzero_ps();
	const __m256 vv = _mm256_andnot_ps(sign, _mm256_set1_ps(v));
	const __m256i hv = _mm256_set1_epi32(h), top = _mm256_set1_epi32(0x8000);

	for (; i + 8 <= z; i += 8) {
		__m256 x = _mm256_loadu_ps(c + i);
		__m256 neg = _mm256_cmp_ps(x, zero, _CMP_LT_OQ);
		__m256i t = _mm256_or_si256(hv, _mm256_and_si256(_mm256_castps_si256(neg), top));
		_mm_storeu_si128((__m128i *)(void *)(send + i),
				 _mm_packus_epi32(_mm256_castsi256_si128(t),
						  _mm256_extracti128_si256(t, 1)));
		if (e)
			_mm256_storeu_ps(e + i, _mm256_sub_ps(x, _mm256_or_ps(vv, _mm256_and_ps(neg,
											    sign))));
	}
	for (; i < z; i++) {
		unsigned ng = c[i] < 0;
		send[i] = (uint16_t)(h | (ng << 15));
		if (e)
			e[i] = c[i] - copysignf(v, ng ? -1.0f : 1.0f);
	}
}

GC_TARGET_AVX2 static void terms_avx2(const float *c, uint16_t *send, float *e, size_t i,
				      size_t z, uint16_t h, float v)
{
	terms_body(c, send, e, i, z, h, v);
}

GC_TARGET_AVX512 static void terms_avx512(const float *c, uint16_t *send, float *e, size_t i,
					  size_t z, uint16_t h, float v)
{
	terms_body(c, send, e, i, z, h, v);
}
#endif

static void terms_default(const float *c, uint16_t *send, float *e, size_t i, size_t z,
			  uint16_t h, float v)
{
	for (; i < z; i++) {
		unsigned neg = c[i] < 0;
		send[i] = (uint16_t)(h | (neg << 15));
		if (e)
			e[i] = c[i] - copysignf(v, neg ? -1.0f : 1.0f);
	}
}

static void terms(const float *c, uint16_t *send, float *e, size_t i, size_t z, uint16_t h,
		  float v)
{
#if GC_ISA_MAX_N >= 1
	switch (gc_isa_active()) {
	case GC_ISA_AVX512: terms_avx512(c, send, e, i, z, h, v); return;
	case GC_ISA_AVX2: terms_avx2(c, send, e, i, z, h, v); return;
	default: break;
	}
#endif
	terms_default(c, send, e, i, z, h, v);
}

static gc_rc es_encode(gc_bucket *b, const float *grad)
{
	struct es *s = b->st;
	const float *c = grad;
	size_t n = b->numel;
	float p = (float)b->world;
	long t, q;

	if (b->p.ef)
		c = s->e;               /* becomes c = g + e in the scale pass, e' in the next */
#if GC_ISA_MAX_N >= 1
	if (gc_isa_active() >= GC_ISA_AVX2) {
		int nth = n >= 65536 ? gc_cpu_threads() : 1;
#pragma omp parallel num_threads(nth)
		{
			int th = omp_get_thread_num(), tn = omp_get_num_threads();
			if (gc_isa_active() == GC_ISA_AVX512)
				scales_avx512(b, s, grad, th, tn);
			else
				scales_avx2(b, s, grad, th, tn);
		}
	} else
#endif
	{
#pragma omp parallel for schedule(dynamic, 1) if (n >= 65536)
		for (t = 0; t < (long)b->nt; t++)
			scale_of(b, s, (size_t)t, abs_sum_one(grad, b->p.ef ? s->e : NULL,
							      b->off[t], b->off[t + 1], 0));
	}
#pragma omp parallel for schedule(static) if (n >= 65536)
	for (q = 0; q < (long)((n + ES_PART - 1) / ES_PART); q++) {
		size_t i = (size_t)q * ES_PART, i1 = i + ES_PART < n ? i + ES_PART : n;
		size_t tt = tensor_of(b, i);
		while (i < i1) {
			size_t z = b->off[tt + 1] < i1 ? b->off[tt + 1] : i1;
			terms(c, s->send, b->p.ef ? s->e : NULL, i, z, s->h[tt],
			      p * gc_bf16_to_f32_inl(s->h[tt]));
			i = z;
			tt++;
		}
	}
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
	return GC_OK;
}

#if GC_ISA_MAX_N >= 1
/* out = float(h) over [a, z), eight at a time; streamed past the cache when nt (where
 * out + i is 16-byte aligned). */
GC_TARGET_AVX2 static void widen_avx2(const uint16_t *h, float *out, size_t a, size_t z, int nt)
{
	size_t i = a;

	for (; i + 8 <= z; i += 8) {
		__m256 o = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(
			_mm_loadu_si128((const __m128i *)(const void *)(h + i))), 16));
		if (nt && !((uintptr_t)(out + i) & 15)) {
			_mm_stream_ps(out + i, _mm256_castps256_ps128(o));
			_mm_stream_ps(out + i + 4, _mm256_extractf128_ps(o, 1));
		} else {
			_mm256_storeu_ps(out + i, o);
		}
	}
	for (; i < z; i++)
		out[i] = gc_bf16_to_f32_inl(h[i]);
}
#endif

static gc_rc es_decode(gc_bucket *b, float *avg)
{
	struct es *s = b->st;
	size_t n = b->numel;
	long q;

#pragma omp parallel for schedule(static) if (n >= 65536)
	for (q = 0; q < (long)((n + ES_PART - 1) / ES_PART); q++) {
		size_t i = (size_t)q * ES_PART, i1 = i + ES_PART < n ? i + ES_PART : n;
#if GC_ISA_MAX_N >= 1
		if (gc_isa_active() >= GC_ISA_AVX2) {
			widen_avx2(s->recv, avg, i, i1, n >= ES_STREAM_MIN);
#ifdef __SSE__
			_mm_sfence();   /* the streamed stores, before avg is read */
#endif
			continue;
		}
#endif
		for (; i < i1; i++)
			avg[i] = gc_bf16_to_f32_inl(s->recv[i]);
	}
	return GC_OK;
}

static gc_rc es_residual(const gc_bucket *b, float *host_out)
{
	const struct es *s = b->st;

	if (s->e)
		memcpy(host_out, s->e, b->numel * sizeof(float));
	else
		memset(host_out, 0, b->numel * sizeof(float));
	return GC_OK;
}

const struct gc_method_ops gc_cpu_efsign_ar_ops = {
	.init = es_init,
	.encode = es_encode,
	.round_done = NULL,
	.decode = es_decode,
	.residual = es_residual,
	.release = es_release,
};

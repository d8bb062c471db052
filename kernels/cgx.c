/* kernels/cgx.c: CGX's max-min quantization with a scatter-reduce of the quantized
 * chunks and an all-gather (kernels/cgx.h), on the CPU. */
#include <stdlib.h>
#include <string.h>

#include "cgx.h"
#include "isa.h"
#include "select.h"

struct cgx_st {
	size_t slot;            /* bytes of one quantized chunk (gc_cgx_slot) */
	uint8_t *send0, *recv0; /* world slots each: my chunks; every worker's chunk `worker` */
	uint8_t *send1, *recv1; /* the requantized sum of my chunk; world of them */
	float *sum;             /* ceil(n / p) floats */
};

static void cgx_release(gc_bucket *b)
{
	struct cgx_st *s = b->st;

	if (!s)
		return;
	free(s->send0);
	free(s->recv0);
	free(s->send1);
	free(s->recv1);
	free(s->sum);
	free(s);
	b->st = NULL;
}

static gc_rc cgx_init(gc_bucket *b, gc_err *e)
{
	struct cgx_st *s = calloc(1, sizeof(*s));
	size_t p = (size_t)b->world, m = (b->numel + p - 1) / p;

	if (!s)
		return gc_fail(e, GC_E_NOMEM, "out of memory for cgx state");
	b->st = s;
	s->slot = gc_cgx_slot(b->numel, b->world, b->p.bits, (size_t)b->p.bucket_size);
	s->send0 = gc_cpu_zalloc(p * s->slot);
	s->recv0 = gc_cpu_zalloc(p * s->slot);
	s->send1 = gc_cpu_zalloc(s->slot);
	s->recv1 = gc_cpu_zalloc(p * s->slot);
	s->sum = gc_cpu_alloc(m * sizeof(float));
	if (!s->send0 || !s->recv0 || !s->send1 || !s->recv1 || !s->sum)
		return gc_fail(e, GC_E_NOMEM, "out of memory for cgx state (%d workers, %zu-byte "
			       "chunks)", b->world, s->slot);
	return GC_OK;
}

#if GC_ISA_DISPATCH
#define DISPATCH(name, args) do { \
		switch (gc_isa_active()) { \
		case GC_ISA_AVX512: name##_avx512 args; return; \
		case GC_ISA_AVX2: name##_avx2 args; return; \
		default: name##_default args; return; \
		} \
	} while (0)
#else
#define DISPATCH(name, args) do { name##_default args; return; } while (0)
#endif

#define PIECE 1024              /* levels computed, then packed, this many at a time */

/* The levels of x[0, m) in a bucket (mn, unit > 0), counter c0 + i: gc_cgx_level with
 * the generator and the clamps written out so that the loop vectorizes (the same
 * values: t is in [0, L] before the floor, L <= 255). */
static inline __attribute__((always_inline)) void
levels_body(const float *x, size_t m, float mn, float unit, int bits, uint64_t key,
	    uint64_t c0, uint8_t *lv)
{
	const float L = (float)((1u << bits) - 1u);

	for (size_t i = 0; i < m; i++) {
		uint64_t z = key + (c0 + i + 1) * GC_RNG_GAMMA;
		float u, t, fl, l;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		u = (float)(int32_t)(z >> 40) * (1.0f / 16777216.0f);
		t = (x[i] - mn) / unit;
		t = t > 0 ? t : 0.0f;           /* also NaN */
		t = t < L ? t : L;
		fl = (float)(int32_t)t;
		l = fl + (u < t - fl ? 1.0f : 0.0f);
		l = l < L ? l : L;
		lv[i] = (uint8_t)(int32_t)l;
	}
}

static void levels_default(const float *x, size_t m, float mn, float unit, int bits,
			   uint64_t key, uint64_t c0, uint8_t *lv)
{
	levels_body(x, m, mn, unit, bits, key, c0, lv);
}

#if GC_ISA_DISPATCH
GC_TARGET_AVX2 static void levels_avx2(const float *x, size_t m, float mn, float unit,
				       int bits, uint64_t key, uint64_t c0, uint8_t *lv)
{
	levels_body(x, m, mn, unit, bits, key, c0, lv);
}

GC_TARGET_AVX512 static void levels_avx512(const float *x, size_t m, float mn, float unit,
					   int bits, uint64_t key, uint64_t c0, uint8_t *lv)
{
	levels_body(x, m, mn, unit, bits, key, c0, lv);
}
#endif

static void levels(const float *x, size_t m, float mn, float unit, int bits, uint64_t key,
		   uint64_t c0, uint8_t *lv)
{
	DISPATCH(levels, (x, m, mn, unit, bits, key, c0, lv));
}

/* Pack m levels of `bits` bits from q[0], least significant bits first; m bits is a
 * multiple of 8 except at a bucket's end. */
static void pack(const uint8_t *lv, size_t m, int bits, uint8_t *q)
{
	uint64_t acc = 0;
	unsigned nb = 0;

	if (bits == 8) {
		memcpy(q, lv, m);
		return;
	}
	if (bits == 4) {                /* the default: two to a byte, a loop that vectorizes */
		for (size_t j = 0; j < m / 2; j++)
			q[j] = (uint8_t)(lv[2 * j] | lv[2 * j + 1] << 4);
		if (m % 2)
			q[m / 2] = lv[m - 1];
		return;
	}
	for (size_t i = 0; i < m; i++) {
		acc |= (uint64_t)lv[i] << nb;
		nb += (unsigned)bits;
		if (nb >= 8) {
			*q++ = (uint8_t)acc;
			acc >>= 8;
			nb -= 8;
		}
	}
	if (nb)
		*q = (uint8_t)acc;
}

/* Quantize x[0, m) (elements base.. of the bucket) into out: the (mn, unit) pairs,
 * then the levels of each quantization bucket; draws under key at counter hi + base +
 * i. */
static void quantize(const float *x, size_t m, size_t base, int bits, size_t d, uint64_t key,
		     uint64_t hi, uint8_t *out)
{
	size_t nb = (m + d - 1) / d, fb = (d * (size_t)bits + 7) / 8;
	uint8_t *codes = out + 8 * nb;

#pragma omp parallel for schedule(static) if (nb >= 64)
	for (size_t k = 0; k < nb; k++) {
		size_t a = k * d, z = a + d < m ? a + d : m;
		uint8_t *q = codes + k * fb, lv[PIECE];
		float mn = x[a], mx = x[a], unit;
		for (size_t i = a + 1; i < z; i++) {
			mn = x[i] < mn ? x[i] : mn;
			mx = x[i] > mx ? x[i] : mx;
		}
		unit = gc_cgx_unit(mn, mx, bits);
		memcpy(out + 8 * k, &mn, 4);
		memcpy(out + 8 * k + 4, &unit, 4);
		for (size_t i = a; i < z; i += PIECE) {
			size_t len = z - i < PIECE ? z - i : PIECE;
			if (unit > 0)
				levels(x + i, len, mn, unit, bits, key, hi + base + i, lv);
			else
				memset(lv, 0, len);
			pack(lv, len, bits, q + (i - a) * (size_t)bits / 8);
		}
	}
}

/* Unpack m levels of `bits` bits from q[0] (pack's layout). */
static void unpack(const uint8_t *q, size_t m, int bits, uint8_t *lv)
{
	uint64_t acc = 0, mask = (1u << bits) - 1u;
	unsigned nb = 0;

	if (bits == 8) {
		memcpy(lv, q, m);
		return;
	}
	if (bits == 4) {
		for (size_t j = 0; j < m / 2; j++) {
			lv[2 * j] = q[j] & 15u;
			lv[2 * j + 1] = q[j] >> 4;
		}
		if (m % 2)
			lv[m - 1] = q[m / 2] & 15u;
		return;
	}
	for (size_t i = 0; i < m; i++) {
		if (nb < (unsigned)bits) {
			acc |= (uint64_t)*q++ << nb;
			nb += 8;
		}
		lv[i] = (uint8_t)(acc & mask);
		acc >>= bits;
		nb -= (unsigned)bits;
	}
}

/* The values of a quantized chunk of m elements: y[i] = value (add = 0), y[i] += value
 * (add = 1), or y[i] = value / div (add = 2). */
static void dequantize(const uint8_t *in, size_t m, int bits, size_t d, float *y, int add,
		       float div)
{
	size_t nb = (m + d - 1) / d, fb = (d * (size_t)bits + 7) / 8;
	const uint8_t *codes = in + 8 * nb;

#pragma omp parallel for schedule(static) if (nb >= 64)
	for (size_t k = 0; k < nb; k++) {
		size_t a = k * d, z = a + d < m ? a + d : m;
		const uint8_t *q = codes + k * fb;
		uint8_t lv[PIECE];
		float mn, unit;
		memcpy(&mn, in + 8 * k, 4);
		memcpy(&unit, in + 8 * k + 4, 4);
		for (size_t i = a; i < z; i += PIECE) {
			size_t len = z - i < PIECE ? z - i : PIECE;
			float *o = y + i;
			unpack(q + (i - a) * (size_t)bits / 8, len, bits, lv);
			if (add == 1)
				for (size_t j = 0; j < len; j++)
					o[j] = o[j] + gc_cgx_value(lv[j], mn, unit);
			else if (add == 2)
				for (size_t j = 0; j < len; j++)
					o[j] = gc_cgx_value(lv[j], mn, unit) / div;
			else
				for (size_t j = 0; j < len; j++)
					o[j] = gc_cgx_value(lv[j], mn, unit);
		}
	}
}

static gc_rc cgx_encode(gc_bucket *b, const float *grad)
{
	struct cgx_st *s = b->st;
	uint64_t key = gc_rng_key(b->p.seed, 0, b->step), hi = (uint64_t)b->worker << 32;
	size_t d = (size_t)b->p.bucket_size;

	for (int j = 0; j < b->world; j++) {
		size_t a, z;
		gc_cgx_chunk(b->numel, b->world, j, &a, &z);
		quantize(grad + a, z - a, a, b->p.bits, d, key, hi, s->send0 + (size_t)j * s->slot);
	}
	gc_round_bind(b, s->send0, s->recv0, s->send1, s->recv1);
	return GC_OK;
}

/* After the all-to-all: the sum of every worker's chunk `worker`, requantized. */
static gc_rc cgx_round_done(gc_bucket *b)
{
	struct cgx_st *s = b->st;
	size_t a, z, d = (size_t)b->p.bucket_size;

	if (b->cur != 0)
		return GC_OK;
	gc_cgx_chunk(b->numel, b->world, b->worker, &a, &z);
	memset(s->sum, 0, (z - a) * sizeof(float));
	for (int w = 0; w < b->world; w++)
		dequantize(s->recv0 + (size_t)w * s->slot, z - a, b->p.bits, d, s->sum, 1, 1);
	quantize(s->sum, z - a, a, b->p.bits, d, gc_rng_key(b->p.seed, 1, b->step), 0, s->send1);
	return GC_OK;
}

static gc_rc cgx_decode(gc_bucket *b, float *avg)
{
	struct cgx_st *s = b->st;

	for (int j = 0; j < b->world; j++) {
		size_t a, z;
		gc_cgx_chunk(b->numel, b->world, j, &a, &z);
		dequantize(s->recv1 + (size_t)j * s->slot, z - a, b->p.bits,
			   (size_t)b->p.bucket_size, avg + a, 2, (float)b->world);
	}
	return GC_OK;
}

const struct gc_method_ops gc_cpu_cgx_ops = {
	.init = cgx_init,
	.encode = cgx_encode,
	.round_done = cgx_round_done,
	.decode = cgx_decode,
	.residual = NULL,
	.release = cgx_release,
};

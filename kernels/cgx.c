/* kernels/cgx.c: CGX's max-min quantization with a scatter-reduce of the quantized
 * chunks and an all-gather (kernels/cgx.h), on the CPU. */
#include <stdlib.h>
#include <string.h>

#include "cgx.h"
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

/* Quantize x[0, m) (elements base.. of the bucket) into out: the (mn, unit) pairs,
 * then the levels of each quantization bucket; draws under key at counter hi + base +
 * i. */
static void quantize(const float *x, size_t m, size_t base, int bits, size_t d, uint64_t key,
		     uint64_t hi, uint8_t *out)
{
	size_t nb = (m + d - 1) / d, fb = (d * (size_t)bits + 7) / 8;
	uint8_t *codes = out + 8 * nb;

	memset(codes, 0, gc_cgx_chunk_bytes(m, bits, d) - 8 * nb);
#pragma omp parallel for schedule(static) if (nb >= 64)
	for (size_t k = 0; k < nb; k++) {
		size_t a = k * d, z = a + d < m ? a + d : m;
		uint8_t *q = codes + k * fb;
		float mn = x[a], mx = x[a], unit;
		for (size_t i = a + 1; i < z; i++) {
			mn = x[i] < mn ? x[i] : mn;
			mx = x[i] > mx ? x[i] : mx;
		}
		unit = gc_cgx_unit(mn, mx, bits);
		memcpy(out + 8 * k, &mn, 4);
		memcpy(out + 8 * k + 4, &unit, 4);
		for (size_t i = a; i < z; i++) {
			float u = gc_rng_unit24(key, hi + base + i);
			unsigned lv = gc_cgx_level(x[i], mn, unit, bits, u);
			size_t pos = (i - a) * (size_t)bits;
			q[pos / 8] |= (uint8_t)(lv << (pos % 8));
			if (pos % 8 + (size_t)bits > 8)
				q[pos / 8 + 1] |= (uint8_t)(lv >> (8 - pos % 8));
		}
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
		float mn, unit;
		memcpy(&mn, in + 8 * k, 4);
		memcpy(&unit, in + 8 * k + 4, 4);
		for (size_t i = a; i < z; i++) {
			float v = gc_cgx_value(gc_cgx_get(q, i - a, bits), mn, unit);
			y[i] = add == 1 ? y[i] + v : add == 2 ? v / div : v;
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

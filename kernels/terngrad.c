/* kernels/terngrad.c: TernGrad (CPU): per tensor the scale max |g|, per element a
 * stochastic ternary code of two bits (kernels/terngrad.h); all-gathered payload = nt
 * float32 scales (tensor order), then ceil(n/4) bytes of codes. Decode, per element:
 * acc = 0.0f, acc += value(code_w, s_wt) for w = 0..p-1 in float, then acc / p.
 * Threads take whole bytes (four elements), the tensor found at each part's start. */
#include <stdlib.h>
#include <string.h>

#include "select.h"
#include "terngrad.h"

#define TG_PART 16384           /* bytes of codes per thread's part */

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
		long i;
#pragma omp parallel for reduction(max:m) schedule(static) if (hi - lo >= 65536)
		for (i = (long)lo; i < (long)hi; i++) {
			float a = grad[i] < 0 ? -grad[i] : grad[i];
			m = a > m ? a : m;
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
		for (size_t y = b0; y < b1; y++)
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

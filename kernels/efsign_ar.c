/* kernels/efsign_ar.c: scaled sign with error feedback through an all-reduce (CPU).
 * c = g + e (ef=1; else g); per tensor t the scale m_t = mean |c| over t (the sum in
 * double in element order, divided by n_t, rounded to float) and h_t = bf16(m_t / p);
 * element i is sent as h_t with the sign bit of (c_i < 0) set: a bf16 all-reduce
 * (kernels/bf16.h; the sum as bf16's) of the per-worker terms m_t sign(c_i) / p.
 * Decode: avg = float(sum). EF: e' = c - sign(c) (p float(h_t)), what this worker's
 * term was short of c (the scale's bf16 rounding included). Threads take tensors for
 * the scales and fixed parts of the bucket for the rest. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bf16.h"
#include "select.h"

#define ES_PART 16384           /* elements per thread's part */

struct es {
	uint16_t *send, *recv;  /* payload; the sum */
	float *e;               /* residual (ef), numel */
	uint16_t *h;            /* nt scales, bf16 */
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
	if (b->p.ef)
		s->e = gc_cpu_zalloc(b->numel * sizeof(float));
	if (!s->send || !s->recv || !s->h || (b->p.ef && !s->e))
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

static gc_rc es_encode(gc_bucket *b, const float *grad)
{
	struct es *s = b->st;
	const float *c = grad;
	size_t n = b->numel;
	float p = (float)b->world;
	long t, q;

	if (b->p.ef)
		c = s->e;               /* becomes c = g + e in the scale pass, e' in the next */
#pragma omp parallel for schedule(dynamic, 1) if (n >= 65536)
	for (t = 0; t < (long)b->nt; t++) {
		double acc = 0;
		size_t lo = b->off[t], hi = b->off[t + 1];
		if (b->p.ef)
			for (size_t i = lo; i < hi; i++) {
				float ci = grad[i] + s->e[i];
				s->e[i] = ci;
				acc += fabs((double)ci);      /* not a branch: signs are random */
			}
		else
			for (size_t i = lo; i < hi; i++)
				acc += fabs((double)c[i]);
		s->h[t] = gc_f32_to_bf16_inl((float)(acc / (double)(hi - lo)) / p);
	}
#pragma omp parallel for schedule(static) if (n >= 65536)
	for (q = 0; q < (long)((n + ES_PART - 1) / ES_PART); q++) {
		size_t i = (size_t)q * ES_PART, i1 = i + ES_PART < n ? i + ES_PART : n;
		size_t tt = tensor_of(b, i), end = b->off[tt + 1];
		uint16_t h = s->h[tt];
		float v = p * gc_bf16_to_f32_inl(h);
		for (; i < i1; i++) {
			unsigned neg;
			if (i >= end) {
				while (i >= b->off[tt + 1])
					tt++;
				end = b->off[tt + 1];
				h = s->h[tt];
				v = p * gc_bf16_to_f32_inl(h);
			}
			neg = c[i] < 0;
			s->send[i] = (uint16_t)(h | (neg << 15));
			if (b->p.ef)
				s->e[i] = c[i] - copysignf(v, neg ? -1.0f : 1.0f);
		}
	}
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
	return GC_OK;
}

static gc_rc es_decode(gc_bucket *b, float *avg)
{
	struct es *s = b->st;
	long i;

#pragma omp parallel for schedule(static) if (b->numel >= 65536)
	for (i = 0; i < (long)b->numel; i++)
		avg[i] = gc_bf16_to_f32_inl(s->recv[i]);
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

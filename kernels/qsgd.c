/* kernels/qsgd.c: QSGD (CPU): per norm bucket the L2 norm, per element a stochastic
 * sign-magnitude level (kernels/qsgd.h); all-gathered payload = nqb float32 norms (norm
 * bucket order: tensors in order, each cut from its start), then ceil(n W / 8) bytes
 * of codes. Decode, per element: acc = 0.0f, acc += value(code_w, r_wj) for w = 0..p-1
 * in float, then acc / p. Threads take parts of QS_PART elements (even, so the two
 * codes of a byte stay with one thread), the tensor and norm bucket found at each
 * part's start. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qsgd.h"
#include "select.h"

#define QS_PART 16384           /* elements per thread's part (even) */

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

static gc_rc qsgd_encode(gc_bucket *b, const float *grad)
{
	struct qs *s = b->st;
	float *nrm = (float *)(void *)s->send;
	uint8_t *code = s->send + 4 * s->nqb;
	size_t n = b->numel;
	unsigned W = s->W;
	int lv = b->p.levels;
	long j, q;

#pragma omp parallel for schedule(static) if (n >= 65536)
	for (j = 0; j < (long)s->nqb; j++) {      /* the norms, each in element order */
		double acc = 0;
		for (size_t i = s->start[j]; i < s->start[j + 1]; i++)
			acc += (double)grad[i] * grad[i];
		nrm[j] = (float)sqrt(acc);
	}
#pragma omp parallel for schedule(static) if (n >= 65536)
	for (q = 0; q < (long)((n + QS_PART - 1) / QS_PART); q++) {
		size_t i = (size_t)q * QS_PART, i1 = i + QS_PART < n ? i + QS_PART : n;
		size_t tt = last_le(b->off, b->nt, i), jj = last_le(s->start, s->nqb, i);
		uint64_t key = gc_rng_key(b->p.seed, tt, b->step), wk = (uint64_t)b->worker << 32;
		size_t tend = b->off[tt + 1], jend = s->start[jj + 1];
		float r = nrm[jj];
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
			put(code, W, i, gc_qsgd_code(grad[i], r, lv, W, key, wk | i));
		}
	}
	gc_round_bind(b, s->send, s->recv, NULL, NULL);
	return GC_OK;
}

/* +1.0f or -1.0f for a sign bit: v * SGN(b) is -v or v exactly (zeros too), without
 * a branch on random signs. */
#define SGN(bit) (1.0f - 2.0f * (float)(bit))

/* out[i] += value of worker code i under norm r, for i in [a, z); W fixed per loop so
 * that each loop is branch-free. */
static void seg_add(float *out, const uint8_t *cw, size_t a, size_t z, float r, int lv,
		    unsigned W)
{
	float sf = (float)lv;

	if (W == 8) {
		for (size_t i = a; i < z; i++) {
			float v = (r * (float)(cw[i] & 127u)) / sf;
			out[i] += v * SGN(cw[i] >> 7);
		}
	} else if (W == 16) {
		for (size_t i = a; i < z; i++) {
			unsigned c = cw[2 * i] | (unsigned)cw[2 * i + 1] << 8;
			float v = (r * (float)(c & 32767u)) / sf;
			out[i] += v * SGN(c >> 15);
		}
	} else {                        /* two codes a byte: the odd ends alone */
		size_t i = a;
		for (; i < z && (i % 2 || i + 1 == z); i++) {
			unsigned c = (cw[i / 2] >> (4 * (i % 2))) & 15u;
			float v = (r * (float)(c & 7u)) / sf;
			out[i] += v * SGN(c >> 3);
		}
		for (; i + 1 < z; i += 2) {
			unsigned by = cw[i / 2];
			float v0 = (r * (float)(by & 7u)) / sf, v1 = (r * (float)((by >> 4) & 7u)) / sf;
			out[i] += v0 * SGN((by >> 3) & 1u);
			out[i + 1] += v1 * SGN(by >> 7);
		}
		if (i < z) {
			unsigned c = cw[i / 2] & 15u;
			float v = (r * (float)(c & 7u)) / sf;
			out[i] += v * SGN(c >> 3);
		}
	}
}

/* Per part: avg = 0.0f, then worker by worker (in order) each norm bucket's values
 * added, then / p: per element the same float operations, in the same order, as
 * acc = 0.0f, acc += value_w for w = 0..p-1, acc / p. */
static gc_rc qsgd_decode(gc_bucket *b, float *avg)
{
	struct qs *s = b->st;
	size_t n = b->numel;
	float p = (float)b->world;
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
		size_t j0 = last_le(s->start, s->nqb, i0);
		for (size_t i = i0; i < i1; i++)
			avg[i] = 0.0f;
		for (int w = 0; w < world; w++) {
			const uint8_t *cw = s->recv + (size_t)w * s->bytes + 4 * s->nqb;
			for (size_t j = j0, a = i0; a < i1; j++) {
				size_t z = s->start[j + 1] < i1 ? s->start[j + 1] : i1;
				seg_add(avg, cw, a, z, s->nrm[j * (size_t)world + (size_t)w], lv, W);
				a = z;
			}
		}
		for (size_t i = i0; i < i1; i++)
			avg[i] /= p;
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

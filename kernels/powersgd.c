/* kernels/powersgd.c: PowerSGD (CPU): rank-r power iteration per matrix, two float32
 * all-reduces (P with the uncompressed tensors, then Q).
 *
 * Memory traffic dominates at small ranks, so the products are fused row loops over the
 * bucket rather than BLAS calls (which would each make a pass of their own): encode
 * forms c = g + e and P = M Q in one pass (Q transposed, so each rank's dot product is
 * contiguous); Q = M^T P reads M once, in units of QCHUNK columns that keep their
 * accumulators in registers and need no other unit (threads share nothing, and each
 * element of Q is summed over the rows in order, whatever the thread count); decode
 * writes P Q^T and the new residual c - P Q^T in the same pass. */
#include <limits.h>
#include <stdint.h>
#ifdef __SSE__
#include <immintrin.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "isa.h"
#include "rng.h"
#include "select.h"

/* The row loops below are compiled for the baseline and for AVX-512 and dispatched at
 * run time (kernels/isa.h); explicit 16-lane vectors fix the order of every float sum,
 * so each level gives the same bits. No AVX2 variant: GCC 12 lowers the 16-lane vectors
 * to AVX2 through the stack, which measured slower than the baseline's SSE (resnet50,
 * one thread: decode 6.1x a memcpy against 2.9x). */
#if GC_ISA_DISPATCH
#define VARIANTS(M) M(default, ) M(avx512, GC_TARGET_AVX512)
#define VDISPATCH(name, args) do { \
		if (gc_isa_active() == GC_ISA_AVX512) { \
			name##_avx512 args; \
			return; \
		} \
		name##_default args; \
		return; \
	} while (0)
#else
#define VARIANTS(M) M(default, )
#define VDISPATCH(name, args) do { name##_default args; return; } while (0)
#endif

struct psgd {
	int *r;                 /* per tensor: r' if compressed, 0 if sent as is */
	size_t *po, *qo;        /* per tensor: offset of its P in send0 (or of its values,
	                         * uncompressed), of its Q in q */
	size_t np, nu, nq;      /* floats of all P, all uncompressed, all Q */
	float *m;               /* numel: c = g + e during a step, then e' (ef) */
	float *send0;           /* np + nu, reduced in place */
	float *q;               /* nq, reduced in place; kept across steps (warm start) */
	float *qt;              /* nq: each tensor's Q transposed (r x cols), for the fused
	                         * row loops (contiguous in the columns) */
	size_t *unit;           /* nunit (tensor, first column) pairs for Q = M^T P */
	size_t nunit;
	int q_ready;
};

#define QCHUNK 512
#define STREAM_MIN (1u << 18)   /* decode streams outputs of this many floats and more */              /* columns per unit of work of Q = M^T P */

typedef float v16f __attribute__((vector_size(64)));
#define VL 16

static gc_rc ps_init(gc_bucket *b, gc_err *e)
{
	struct psgd *s = calloc(1, sizeof(*s));

	if (!s)
		return gc_fail(e, GC_E_NOMEM, "out of memory for powersgd state");
	b->st = s;
	s->r = calloc(b->nt, sizeof(int));
	s->po = calloc(b->nt, sizeof(size_t));
	s->qo = calloc(b->nt, sizeof(size_t));
	if (!s->r || !s->po || !s->qo)
		return gc_fail(e, GC_E_NOMEM, "out of memory for powersgd state");
	for (size_t t = 0; t < b->nt; t++)
		if (b->t[t].rows > INT_MAX || b->t[t].cols > INT_MAX)
			return gc_fail(e, GC_E_INVAL, "powersgd: tensor %zu (%zu x %zu) has a "
				       "dimension above %d, more than it indexes; reshape it",
				       t, b->t[t].rows, b->t[t].cols, INT_MAX);
	gc_powersgd_layout(&b->p, b->t, b->nt, s->r, s->po, s->qo, &s->np, &s->nu, &s->nq);
	s->m = b->p.ef ? gc_cpu_zalloc(b->numel * sizeof(float))
		       : gc_cpu_alloc(b->numel * sizeof(float));
	s->send0 = gc_cpu_alloc((s->np + s->nu) * sizeof(float));
	s->q = gc_cpu_alloc(s->nq * sizeof(float));
	s->qt = gc_cpu_alloc(s->nq * sizeof(float));
	for (size_t t = 0; t < b->nt; t++)
		s->nunit += s->r[t] ? (b->t[t].cols + QCHUNK - 1) / QCHUNK : 0;
	s->unit = calloc(2 * s->nunit + 1, sizeof(size_t));
	for (size_t t = 0, u = 0; s->unit && t < b->nt; t++)
		for (size_t j = 0; s->r[t] && j < b->t[t].cols; j += QCHUNK, u++) {
			s->unit[2 * u] = t;
			s->unit[2 * u + 1] = j;
		}
	if (!s->m || !s->send0 || !s->q || !s->qt || !s->unit)
		return gc_fail(e, GC_E_NOMEM, "out of memory for powersgd buffers (%zu elements)",
			       b->numel);
	return GC_OK;
}

static void ps_release(gc_bucket *b)
{
	struct psgd *s = b->st;

	if (!s)
		return;
	free(s->r);
	free(s->po);
	free(s->qo);
	free(s->m);
	free(s->send0);
	free(s->q);
	free(s->qt);
	free(s->unit);
	free(s);
	b->st = NULL;
}

static void draw_q(const gc_bucket *b, struct psgd *s)
{
	for (size_t t = 0; t < b->nt; t++) {
		uint64_t st;
		if (!s->r[t])
			continue;
		st = gc_rng_key(b->p.seed, t, b->p.warm_start ? 0 : b->step);
		gc_rng_normal_at(st, 0, s->q + s->qo[t], b->t[t].cols * (size_t)s->r[t]);
	}
	s->q_ready = 1;
}

/* qt = each compressed tensor's Q (cols x r, row-major) transposed to r x cols. */
static void transpose_q(const gc_bucket *b, struct psgd *s)
{
	for (size_t t = 0; t < b->nt; t++) {
		size_t cols = b->t[t].cols, r = (size_t)s->r[t];
		const float *q = s->q + s->qo[t];
		float *qt = s->qt + s->qo[t];
		for (size_t j = 0; j < cols; j++)
			for (size_t c = 0; c < r; c++)
				qt[c * cols + j] = q[j * r + c];
	}
}

static inline float hsum(const v16f *a)
{
	float x = 0;
	for (int l = 0; l < VL; l++)
		x += (*a)[l];
	return x;
}

/* out[c] = m . qt[c * n ...] for c < nr (nr 1..4, constant after inlining): float dot
 * products over 16 lanes, then the lanes in order, then the tail. */
static inline __attribute__((always_inline)) void
dots4(const float *m, const float *qt, size_t n, int nr, float *out)
{
	v16f a[4] = { { 0 } };
	float t[4] = { 0 };
	size_t j;
	int c;

	for (j = 0; j + VL <= n; j += VL) {
		v16f x;
		memcpy(&x, m + j, sizeof(x));
		for (c = 0; c < nr; c++) {
			v16f q;
			memcpy(&q, qt + (size_t)c * n + j, sizeof(q));
			a[c] += x * q;
		}
	}
	for (; j < n; j++)
		for (c = 0; c < nr; c++)
			t[c] += m[j] * qt[(size_t)c * n + j];
	for (c = 0; c < nr; c++)
		out[c] = hsum(&a[c]) + t[c];
}

/* P row = M row Q, for r ranks in groups of four. */
static inline __attribute__((always_inline)) void
row_p(const float *m, const float *qt, size_t cols, int r, float *p)
{
	for (int c = 0; c < r; c += 4) {
		const float *q = qt + (size_t)c * cols;
		switch (r - c) {
		case 1: dots4(m, q, cols, 1, p + c); break;
		case 2: dots4(m, q, cols, 2, p + c); break;
		case 3: dots4(m, q, cols, 3, p + c); break;
		default: dots4(m, q, cols, 4, p + c); break;
		}
	}
}

/* One row of a compressed tensor in encode: m = m + g (ef) or m = g, then P = M Q. */
static inline __attribute__((always_inline)) void encode_row_body(float *m, const float *g, const float *qt, size_t cols, int r,
		       int ef, float *p)
{
	size_t j;

	if (ef)
		for (j = 0; j < cols; j++)
			m[j] += g[j];
	else
		memcpy(m, g, cols * sizeof(float));
	row_p(m, qt, cols, r, p);
}

#define ENCODE_ROW(suffix, attr) \
attr static void encode_row_##suffix(float *m, const float *g, const float *qt, size_t cols, \
				     int r, int ef, float *p) \
{ \
	encode_row_body(m, g, qt, cols, r, ef, p); \
}
VARIANTS(ENCODE_ROW)

static void encode_row(float *m, const float *g, const float *qt, size_t cols, int r, int ef,
		       float *p)
{
	VDISPATCH(encode_row, (m, g, qt, cols, r, ef, p));
}

static gc_rc ps_encode(gc_bucket *b, const float *grad)
{
	struct psgd *s = b->st;
	int ef = b->p.ef;

	if (!s->q_ready || !b->p.warm_start)
		draw_q(b, s);
	transpose_q(b, s);
	/* the rows of all compressed tensors, split among the threads tensor by tensor */
#pragma omp parallel if (b->numel >= 65536)
	for (size_t t = 0; t < b->nt; t++) {
		size_t cols = b->t[t].cols;
		int r = s->r[t];
		if (!r)
			continue;
#pragma omp for schedule(static) nowait
		for (size_t i = 0; i < b->t[t].rows; i++) {
			size_t o = b->off[t] + i * cols;
			encode_row(s->m + o, grad + o, s->qt + s->qo[t], cols, r, ef,
				   s->send0 + s->po[t] + i * (size_t)r);
		}
	}
	for (size_t t = 0; t < b->nt; t++)      /* uncompressed: sent as they are (e = 0) */
		if (!s->r[t])
			memcpy(s->send0 + s->po[t], grad + b->off[t],
			       b->t[t].rows * b->t[t].cols * sizeof(float));
	gc_round_bind(b, s->send0, s->send0, s->q, s->q);
	return GC_OK;
}

/* Column j of the row-major rows x r matrix P minus its projection on column i. */
static void project_out(float *P, size_t rows, int r, int i, int j)
{
	double d = 0;
	size_t k;

	for (k = 0; k < rows; k++)
		d += (double)P[k * r + i] * P[k * r + j];
	for (k = 0; k < rows; k++)
		P[k * r + j] -= (float)d * P[k * r + i];
}

/* Orthonormalize the r columns of P: modified Gram-Schmidt with a second projection
 * pass per column (so that a column that is only rounding noise, from a rank-deficient
 * gradient, is still orthogonal to the others); sums in double; columns with norm
 * < 1e-8 become zero. */
static void orthonormalize(float *P, size_t rows, int r)
{
	for (int j = 0; j < r; j++) {
		double nrm = 0;
		size_t k;
		for (int pass = 0; pass < 2; pass++)
			for (int i = 0; i < j; i++)
				project_out(P, rows, r, i, j);
		for (k = 0; k < rows; k++)
			nrm += (double)P[k * r + j] * P[k * r + j];
		nrm = sqrt(nrm);
		for (k = 0; k < rows; k++)
			P[k * r + j] = nrm < 1e-8 ? 0.0f : P[k * r + j] / (float)nrm;
	}
}

/* acc[c][0, n) += sum over rows i0 <= i < i0 + NR of P[i][c0 + c] m[i][0, n), c < NC
 * (constants after inlining, so that the accumulators stay in registers); the rows are
 * added one after the other, in order. */
static inline __attribute__((always_inline)) void
q_block(float *acc, size_t n, const float *m, size_t cols, const float *P, int r, int c0,
	int NC, int NR)
{
	size_t j;
	int c, i;

	for (j = 0; j + VL <= n; j += VL) {
		v16f a[4];
		for (c = 0; c < NC; c++)
			memcpy(&a[c], acc + (size_t)c * n + j, sizeof(v16f));
		for (i = 0; i < NR; i++) {
			v16f x;
			memcpy(&x, m + (size_t)i * cols + j, sizeof(x));
			for (c = 0; c < NC; c++)
				a[c] += P[(size_t)i * (size_t)r + (size_t)(c0 + c)] * x;
		}
		for (c = 0; c < NC; c++)
			memcpy(acc + (size_t)c * n + j, &a[c], sizeof(v16f));
	}
	for (; j < n; j++)
		for (i = 0; i < NR; i++)
			for (c = 0; c < NC; c++)
				acc[(size_t)c * n + j] += P[(size_t)i * (size_t)r + (size_t)(c0 + c)] *
							  m[(size_t)i * cols + j];
}

/* Q[j0, j0 + QCHUNK) of one tensor = M^T P over those columns: float accumulators, rows
 * added in order; one unit needs no other, so threads share nothing. */
static inline __attribute__((always_inline)) void
q_unit_body(const gc_bucket *b, struct psgd *s, size_t t, size_t j0)
{
	float acc[32 * QCHUNK];
	size_t cols = b->t[t].cols, rows = b->t[t].rows, n = cols - j0, i, j;
	const float *P = s->send0 + s->po[t];
	float *q = s->q + s->qo[t];
	int r = s->r[t], c;

	n = n < QCHUNK ? n : QCHUNK;
	memset(acc, 0, (size_t)r * n * sizeof(float));
	for (i = 0; i < rows; i += 4) {
		const float *m = s->m + b->off[t] + i * cols + j0, *Pi = P + i * (size_t)r;
		int nr = rows - i < 4 ? (int)(rows - i) : 4;
		for (c = 0; c < r; c += 4) {
			float *a = acc + (size_t)c * n;
			if (nr == 4 && r - c >= 4)
				q_block(a, n, m, cols, Pi, r, c, 4, 4);
			else if (r - c >= 4)
				q_block(a, n, m, cols, Pi, r, c, 4, nr);
			else
				q_block(a, n, m, cols, Pi, r, c, r - c, nr);
		}
	}
	for (j = 0; j < n; j++)
		for (c = 0; c < r; c++)
			q[(j0 + j) * (size_t)r + (size_t)c] = acc[(size_t)c * n + j];
}

#define Q_UNIT(suffix, attr) \
attr static void q_unit_##suffix(const gc_bucket *b, struct psgd *s, size_t t, size_t j0) \
{ \
	q_unit_body(b, s, t, j0); \
}
VARIANTS(Q_UNIT)

static void q_unit(const gc_bucket *b, struct psgd *s, size_t t, size_t j0)
{
	VDISPATCH(q_unit, (b, s, t, j0));
}

static gc_rc ps_round_done(gc_bucket *b)
{
	struct psgd *s = b->st;
	float p = (float)b->world;
	size_t i;

	if (b->cur == 1) {
		for (i = 0; i < s->nq; i++)
			s->q[i] /= p;
		transpose_q(b, s);
		return GC_OK;
	}
	for (i = 0; i < s->np; i++)
		s->send0[i] /= p;
	for (size_t t = 0; t < b->nt; t++)
		if (s->r[t])
			orthonormalize(s->send0 + s->po[t], b->t[t].rows, s->r[t]);
#pragma omp parallel for schedule(static) if (b->numel >= 65536)
	for (size_t u = 0; u < s->nunit; u++)
		q_unit(b, s, s->unit[2 * u], s->unit[2 * u + 1]);
	return GC_OK;
}

/* out[j] = v[0..16): for a large output (stream: 1), stores that bypass the cache, so
 * the output's lines are not read first (out + j 64-byte aligned); SSE's, which every
 * level has (four to a cache line, combined by the CPU). */
static inline __attribute__((always_inline)) void store16(float *out, const v16f *v,
							 int stream)
{
#ifdef __SSE__
	if (stream) {
		float x[VL];
		memcpy(x, v, sizeof(x));
		for (int l = 0; l < VL; l += 4)
			_mm_stream_ps(out + l, _mm_loadu_ps(x + l));
		return;
	}
#endif
	(void)stream;
	memcpy(out, v, sizeof(*v));
}

/* Element j of decode_row, for the unaligned head and the tail. */
static inline void decode_elem(const float *p, const float *qt, size_t cols, int r, float *out,
			       float *m, int ef, size_t j)
{
	float v = 0;
	int c;

	for (c = 0; c < r; c++)
		v += p[c] * qt[(size_t)c * cols + j];
	out[j] = v;
	if (ef)
		m[j] -= v;
}

/* One row of a compressed tensor in decode: out = P row Q^T, and e' = c - out (ef). */
static inline __attribute__((always_inline)) void decode_row_body(const float *p, const float *qt, size_t cols, int r, float *out,
		       float *m, int ef, int stream)
{
	size_t j = 0;
	int c;

	if (stream)             /* the first elements up to a 64-byte boundary of out */
		for (; j < cols && ((uintptr_t)(out + j) & 63); j++)
			decode_elem(p, qt, cols, r, out, m, ef, j);
	for (; j + VL <= cols; j += VL) {
		v16f v = { 0 };
		for (c = 0; c < r; c++) {
			v16f q;
			memcpy(&q, qt + (size_t)c * cols + j, sizeof(q));
			v += p[c] * q;
		}
		store16(out + j, &v, stream);
		if (ef) {
			v16f x;
			memcpy(&x, m + j, sizeof(x));
			x -= v;
			memcpy(m + j, &x, sizeof(x));
		}
	}
	for (; j < cols; j++)
		decode_elem(p, qt, cols, r, out, m, ef, j);
}

/* Streaming stores only at the AVX-512 level (as before the levels were dispatched). */
#define DECODE_ROW(suffix, attr) \
attr static void decode_row_##suffix(const float *p, const float *qt, size_t cols, int r, \
				     float *out, float *m, int ef, int stream) \
{ \
	if (stream && GC_ISA_##suffix == GC_ISA_AVX512) \
		decode_row_body(p, qt, cols, r, out, m, ef, 1); \
	else \
		decode_row_body(p, qt, cols, r, out, m, ef, 0); \
}
#define GC_ISA_default GC_ISA_DEFAULT
#define GC_ISA_avx512 GC_ISA_AVX512
VARIANTS(DECODE_ROW)

static void decode_row(const float *p, const float *qt, size_t cols, int r, float *out,
		       float *m, int ef, int stream)
{
	VDISPATCH(decode_row, (p, qt, cols, r, out, m, ef, stream));
}

/* M' = P Q^T (e' = c - M'); uncompressed tensors: sum / p (their e stays 0). */
static gc_rc ps_decode(gc_bucket *b, float *avg)
{
	struct psgd *s = b->st;
	float pw = (float)b->world;
	int ef = b->p.ef;

#pragma omp parallel if (b->numel >= 65536)
	{
		for (size_t t = 0; t < b->nt; t++) {
			size_t cols = b->t[t].cols;
			int r = s->r[t], stream = b->t[t].rows * cols >= STREAM_MIN;
			if (!r)
				continue;
#pragma omp for schedule(static) nowait
			for (size_t i = 0; i < b->t[t].rows; i++) {
				size_t o = b->off[t] + i * cols;
				decode_row(s->send0 + s->po[t] + i * (size_t)r,
					   s->qt + s->qo[t], cols, r, avg + o, s->m + o, ef,
					   stream);
			}
		}
#ifdef __SSE__
		_mm_sfence();   /* this thread's streamed stores, before avg is read */
#endif
	}
	for (size_t t = 0; t < b->nt; t++) {
		const float *sum = s->send0 + s->po[t];
		float *out = avg + b->off[t];
		if (s->r[t])
			continue;
		for (size_t i = 0, n = b->t[t].rows * b->t[t].cols; i < n; i++)
			out[i] = sum[i] / pw;
	}
	return GC_OK;
}

static gc_rc ps_residual(const gc_bucket *b, float *out)
{
	const struct psgd *s = b->st;

	if (b->p.ef)
		memcpy(out, s->m, b->numel * sizeof(float));
	else
		memset(out, 0, b->numel * sizeof(float));
	return GC_OK;
}

const struct gc_method_ops gc_cpu_powersgd_ops = {
	.init = ps_init,
	.encode = ps_encode,
	.round_done = ps_round_done,
	.decode = ps_decode,
	.residual = ps_residual,
	.release = ps_release,
};

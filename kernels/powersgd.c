/* kernels/powersgd.c: PowerSGD (CPU): rank-r power iteration per matrix, two float32
 * all-reduces (P with the uncompressed tensors, then Q), products through OpenBLAS. */
#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "select.h"

struct psgd {
	int *r;                 /* per tensor: r' if compressed, 0 if sent as is */
	size_t *po, *qo;        /* per tensor: offset of its P in send0 (or of its values,
	                         * uncompressed), of its Q in q */
	size_t np, nu, nq;      /* floats of all P, all uncompressed, all Q */
	float *m;               /* numel: c = g + e during a step, then e' (ef) */
	float *send0;           /* np + nu, reduced in place */
	float *q;               /* nq, reduced in place; kept across steps (warm start) */
	int q_ready;
};

/* Decide per tensor and lay out P, the uncompressed values and Q. */
static void plan(gc_bucket *b, struct psgd *s)
{
	size_t t;

	for (t = 0; t < b->nt; t++) {
		const gc_tensor_desc *d = &b->t[t];
		size_t r = (size_t)b->p.rank;
		r = r < d->rows ? r : d->rows;
		r = r < d->cols ? r : d->cols;
		s->r[t] = 0;
		if (d->ndim >= 2 && (double)d->rows * (double)d->cols >=
		    b->p.min_compression * (double)(d->rows + d->cols) * (double)r) {
			s->r[t] = (int)r;
			s->po[t] = s->np;
			s->qo[t] = s->nq;
			s->np += d->rows * r;
			s->nq += d->cols * r;
		}
	}
	for (t = 0; t < b->nt; t++) {
		if (s->r[t])
			continue;
		s->po[t] = s->np + s->nu;
		s->nu += b->t[t].rows * b->t[t].cols;
	}
}

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
				       "dimension above %d, which BLAS cannot index; reshape it",
				       t, b->t[t].rows, b->t[t].cols, INT_MAX);
	plan(b, s);
	s->m = b->p.ef ? gc_cpu_zalloc(b->numel * sizeof(float))
		       : gc_cpu_alloc(b->numel * sizeof(float));
	s->send0 = gc_cpu_alloc((s->np + s->nu) * sizeof(float));
	s->q = gc_cpu_alloc(s->nq * sizeof(float));
	if (!s->m || !s->send0 || !s->q)
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
	free(s);
	b->st = NULL;
}

static void draw_q(const gc_bucket *b, struct psgd *s)
{
	for (size_t t = 0; t < b->nt; t++) {
		uint64_t st;
		if (!s->r[t])
			continue;
		st = gc_rng_seed(b->p.seed, t, b->p.warm_start ? 0 : b->step);
		gc_rng_normal(&st, s->q + s->qo[t], b->t[t].cols * (size_t)s->r[t]);
	}
	s->q_ready = 1;
}

static gc_rc ps_encode(gc_bucket *b, const float *grad)
{
	struct psgd *s = b->st;

	if (b->p.ef)
		gc_ef_add(s->m, grad, b->numel);
	else
		memcpy(s->m, grad, b->numel * sizeof(float));
	if (!s->q_ready || !b->p.warm_start)
		draw_q(b, s);
	for (size_t t = 0; t < b->nt; t++) {
		const gc_tensor_desc *d = &b->t[t];
		const float *m = s->m + b->off[t];
		int r = s->r[t];
		if (!r) {
			memcpy(s->send0 + s->po[t], m, d->rows * d->cols * sizeof(float));
			continue;
		}
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)d->rows, r,
			    (int)d->cols, 1.0f, m, (int)d->cols, s->q + s->qo[t], r, 0.0f,
			    s->send0 + s->po[t], r);
	}
	b->round[0] = (gc_round){ GC_COLL_ALLREDUCE, GC_DT_F32, s->send0, s->np + s->nu,
				  s->send0 };
	b->round[1] = (gc_round){ GC_COLL_ALLREDUCE, GC_DT_F32, s->q, s->nq, s->q };
	b->nround = s->nq ? 2 : 1;
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

static gc_rc ps_round_done(gc_bucket *b)
{
	struct psgd *s = b->st;
	float p = (float)b->world;
	size_t i;

	if (b->cur == 1) {
		for (i = 0; i < s->nq; i++)
			s->q[i] /= p;
		return GC_OK;
	}
	for (i = 0; i < s->np; i++)
		s->send0[i] /= p;
	for (size_t t = 0; t < b->nt; t++) {
		const gc_tensor_desc *d = &b->t[t];
		float *P = s->send0 + s->po[t];
		int r = s->r[t];
		if (!r)
			continue;
		orthonormalize(P, d->rows, r);
		cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, (int)d->cols, r,
			    (int)d->rows, 1.0f, s->m + b->off[t], (int)d->cols, P, r, 0.0f,
			    s->q + s->qo[t], r);
	}
	return GC_OK;
}

/* One tensor's decode: M' = P Q^T (e' = c - M'), or the uncompressed sum / p (e' = 0). */
static void decode_tensor(gc_bucket *b, struct psgd *s, size_t t, float *out)
{
	const gc_tensor_desc *d = &b->t[t];
	size_t i, n = d->rows * d->cols;
	float *m = s->m + b->off[t];
	int r = s->r[t];

	if (!r) {
		const float *sum = s->send0 + s->po[t];
		float p = (float)b->world;
		for (i = 0; i < n; i++)
			out[i] = sum[i] / p;
		if (b->p.ef)
			memset(m, 0, n * sizeof(float));
		return;
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)d->rows, (int)d->cols, r,
		    1.0f, s->send0 + s->po[t], r, s->q + s->qo[t], r, 0.0f, out, (int)d->cols);
	if (b->p.ef)
		for (i = 0; i < n; i++)
			m[i] -= out[i];
}

static gc_rc ps_decode(gc_bucket *b, float *avg)
{
	for (size_t t = 0; t < b->nt; t++)
		decode_tensor(b, b->st, t, avg + b->off[t]);
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

static size_t ps_payload(const gc_bucket *b)
{
	const struct psgd *s = b->st;
	return (s->np + s->nu + s->nq) * sizeof(float);
}

const struct gc_method_ops gc_cpu_powersgd_ops = {
	.init = ps_init,
	.encode = ps_encode,
	.round_done = ps_round_done,
	.decode = ps_decode,
	.residual = ps_residual,
	.payload_bytes = ps_payload,
	.release = ps_release,
};

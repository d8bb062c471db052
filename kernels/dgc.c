/* kernels/dgc.c: Deep Gradient Compression on the CPU (kernels/dgc.h): local gradient
 * clipping, momentum correction, the top k of the accumulated velocity with the
 * warm-up schedule of the sparsity, momentum factor masking; sent as topk's sparse
 * payload (select.h) through an all-gather and decoded by its merge. */
#include <stdlib.h>
#include <string.h>

#include "dgc.h"
#include "select.h"

/* The sparse state first, so that gc_sparse_* see it as theirs; sp.e is v. */
struct dgc_st {
	struct gc_sparse sp;
	float *u;               /* momentum, numel floats */
	float *scale;           /* per tensor, this step's clipping factor */
};

static void dgc_release(gc_bucket *b)
{
	struct dgc_st *d = b->st;

	if (!d)
		return;
	free(d->u);
	free(d->scale);
	gc_sparse_release(b);   /* frees the rest and d itself */
}

static gc_rc dgc_init(gc_bucket *b, gc_err *e)
{
	struct dgc_st *d = calloc(1, sizeof(*d));
	struct gc_sparse *s = &d->sp;
	size_t n = b->numel, kmax = gc_dgc_kmax(&b->p, n);

	if (!d)
		return gc_fail(e, GC_E_NOMEM, "out of memory for dgc state");
	b->st = d;
	s->k = b->plan.k;
	s->send = gc_cpu_alloc(8 * kmax);
	s->recv = gc_cpu_alloc(8 * kmax * (size_t)b->world);
	s->hist = gc_cpu_alloc(GC_SEL_BINS * sizeof(uint32_t));
	s->scratch = gc_cpu_alloc((size_t)gc_cpu_threads() * GC_SEL_BINS * sizeof(uint32_t));
	s->fine = gc_cpu_alloc(GC_SEL_FINE * sizeof(uint32_t));
	s->ai = gc_cpu_alloc(kmax * sizeof(uint32_t));
	s->fi = gc_cpu_alloc(kmax * sizeof(uint32_t));
	s->seen = gc_cpu_alloc((n + 7) / 8);
	s->e = gc_cpu_zalloc(n * sizeof(float));
	d->u = gc_cpu_zalloc(n * sizeof(float));
	d->scale = calloc(b->nt, sizeof(float));
	/* the candidate lists are sized for the final k; the warm-up's larger k fall back
	 * to the histograms (the same selection) */
	if (gc_cand_init(&s->cand, n, s->k) || !s->send || !s->recv || !s->hist ||
	    !s->scratch || !s->fine || !s->ai || !s->fi || !s->seen || !s->e || !d->u ||
	    !d->scale)
		return gc_fail(e, GC_E_NOMEM, "out of memory for dgc state (k = %zu, at most "
			       "%zu in the warm-up, of %zu elements, %d workers)", s->k, kmax, n,
			       b->world);
	return GC_OK;
}

/* u = m u + g f per tensor (f: its clipping factor). */
static void momentum_pass(gc_bucket *b, struct dgc_st *d, const float *grad)
{
	float m = (float)b->p.momentum, *u = d->u;

	for (size_t t = 0; t < b->nt; t++) {
		size_t a = b->off[t], z = b->off[t + 1];
		float f;
		if (b->p.clip > 0)
			d->scale[t] = gc_dgc_clip_factor(b->p.clip, b->world,
							 gc_dgc_norm(grad + a, z - a));
		else
			d->scale[t] = 1.0f;
		f = d->scale[t];
#pragma omp parallel for schedule(static) if (z - a >= 65536)
		for (size_t i = a; i < z; i++)
			u[i] = m * u[i] + grad[i] * f;
	}
}

static gc_rc dgc_encode(gc_bucket *b, const float *grad)
{
	struct dgc_st *d = b->st;
	struct gc_sparse *s = &d->sp;
	size_t n = b->numel, k = gc_dgc_k(&b->p, n, b->step), above, na, nf;
	const uint32_t *idx;
	uint32_t bin, x, t, maxkey;
	double sum;

	momentum_pass(b, d, grad);
	s->k = k;
	/* v += u and the top k of |v|, as topk's encode with v as the residual */
	if (gc_sel_pass(&s->cand, s->e, d->u, n, k, s->hist, s->fine, &sum, &maxkey)) {
		t = gc_cand_kth(&s->cand, k, s->hist, s->fine);
		gc_sparse_commit_cand(b, t, t + 1);
	} else {
		gc_sel_hist(NULL, s->e, n, s->hist, s->scratch, NULL, NULL);
		bin = gc_sel_bin(s->hist, k, &above);
		gc_sel_fine(s->e, n, bin, s->fine);
		x = GC_SEL_FINE - 1;
		while (x > 0 && s->fine[x] < k - above)
			x--;
		t = (bin << GC_SEL_SHIFT) | x;
		gc_sel_scan(s->e, n, t, t + 1, k, s->ai, &na, s->fi, &nf);
		gc_sparse_commit(b, s->e, na, nf);
	}
	/* momentum factor masking (v was zeroed where sent by the commit) */
	idx = (const uint32_t *)(const void *)s->send;
	for (size_t o = 0; o < k; o++)
		d->u[idx[o]] = 0;
	b->round[0].count = 8 * k;      /* the warm-up's k, not the plan's final one */
	return GC_OK;
}

const struct gc_method_ops gc_cpu_dgc_ops = {
	.init = dgc_init,
	.encode = dgc_encode,
	.round_done = NULL,
	.decode = gc_sparse_decode,
	.residual = gc_sparse_residual,
	.release = dgc_release,
};

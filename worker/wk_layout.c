/* worker/wk_layout.c: tensors in backward order, DDP-style buckets (kernels/plan.h),
 * byte accounting, checksums and the deterministic gradient fill. */
#include "wk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/plan.h"
#include "strutil.h"

static gc_rc fill_tensors(gc_wk_layout *l, const gc_wk_tensor_in *fwd, size_t nt, gc_err *e)
{
	size_t off = 0;
	for (size_t i = 0; i < nt; i++) {
		const gc_wk_tensor_in *s = &fwd[nt - 1 - i];
		gc_wk_tensor *t = &l->t[i];
		if (s->numel == 0 || s->ndim < 1 || s->ndim > 4 || s->shape[0] == 0)
			return gc_fail(e, GC_E_INVAL, "tensor '%s' has an empty shape", s->name);
		gc_strlcpy(t->name, s->name, sizeof(t->name));
		t->d = gc_tensor_view(s->ndim, s->shape, s->numel);
		t->numel = s->numel;
		t->off = off;
		t->t_bwd = s->t_bwd > 0 ? s->t_bwd : 0;
		off += s->numel;
	}
	l->numel = off;
	return GC_OK;
}

/* DDP's buckets (gc_ddp_buckets) as tensor ranges of the flat buffers. */
static gc_rc group_buckets(gc_wk_layout *l, double first_bytes, double bytes, gc_err *e)
{
	size_t *numel = malloc(l->nt * sizeof(*numel));
	gc_bucket_span *s = malloc(l->nt * sizeof(*s));

	if (!numel || !s) {
		free(numel);
		free(s);
		return gc_fail(e, GC_E_NOMEM, "out of memory for %zu tensors", l->nt);
	}
	for (size_t i = 0; i < l->nt; i++)
		numel[i] = l->t[i].numel;
	l->nb = gc_ddp_buckets(numel, l->nt, first_bytes, bytes, s);
	for (size_t j = 0; j < l->nb; j++)
		l->b[j] = (gc_wk_bucket){ s[j].first, s[j].first + s[j].count,
					  l->t[s[j].first].off, s[j].numel };
	free(numel);
	free(s);
	return GC_OK;
}

gc_rc gc_wk_layout_build(gc_wk_layout *out, const gc_wk_tensor_in *fwd, size_t nt,
			 double first_bytes, double bytes, gc_err *e)
{
	gc_rc rc;
	double tb = 0;
	memset(out, 0, sizeof(*out));
	if (nt == 0)
		return gc_fail(e, GC_E_INVAL, "the model has no parameter tensors");
	out->t = calloc(nt, sizeof(*out->t));
	out->b = calloc(nt, sizeof(*out->b));
	if (!out->t || !out->b) {
		gc_wk_layout_release(out);
		return gc_fail(e, GC_E_NOMEM, "out of memory for %zu tensors", nt);
	}
	out->nt = nt;
	rc = fill_tensors(out, fwd, nt, e);
	if (!rc)
		rc = group_buckets(out, first_bytes, bytes, e);
	if (rc) {
		gc_wk_layout_release(out);
		return rc;
	}
	for (size_t i = 0; i < nt; i++)
		tb += out->t[i].t_bwd;
	out->t_fwd = tb / 2; /* backward costs about twice the forward */
	return GC_OK;
}

void gc_wk_layout_release(gc_wk_layout *l)
{
	if (!l)
		return;
	free(l->t);
	free(l->b);
	memset(l, 0, sizeof(*l));
}

void gc_wk_round_bytes(gc_coll coll, gc_dtype dt, size_t count, int world,
		       uint64_t *sent, uint64_t *recv)
{
	uint64_t s = (uint64_t)count * gc_dtype_size(dt), p = world > 1 ? (uint64_t)world : 1;
	if (coll == GC_COLL_ALLREDUCE)
		*sent = 2 * (p - 1) * s / p;
	else                    /* all-gather; all-to-all: count to each of the others */
		*sent = (p - 1) * s;
	*recv = *sent;
}

/* splitmix64 of the state after i + 1 steps: the state only ever adds the constant, so
 * any element can be drawn on its own, and the fill splits across OpenMP threads with
 * the values of a sequential draw. */
static uint64_t splitmix_at(uint64_t s0, size_t i)
{
	uint64_t z = s0 + ((uint64_t)i + 1) * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void gc_wk_fill_random(float *x, size_t n, uint64_t seed, float scale)
{
	uint64_t s0 = seed * 0x2545f4914f6cdd1dull + 1;
#pragma omp parallel for schedule(static) if (n >= (size_t)1 << 20)
	for (size_t i = 0; i < n; i++) {
		uint64_t r = splitmix_at(s0, i);
		/* sum of four 16-bit uniforms: mean 0, variance 4/12, close to normal
		 * (summed as integers: exact, so the same doubles as four conversions, at a
		 * quarter of the conversions: this fill is most of a ResNet-50 rank's start) */
		double u = (double)((r & 0xffff) + ((r >> 16) & 0xffff) +
				    ((r >> 32) & 0xffff) + (r >> 48));
		x[i] = (float)((u / 65536.0 - 2.0) * 1.7320508 * scale);
	}
}

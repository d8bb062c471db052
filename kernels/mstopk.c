/* kernels/mstopk.c: MSTop-K (CPU): the threshold by `rounds` bisection steps between
 * mean |c| and max |c|, filled to exactly k (compress.h has the rule).
 *
 * Every bisection step asks "#(|c| >= mid) >= k?". The answer is read from two
 * histograms built once, instead of one counting pass per step: a coarse histogram of
 * all keys, and a fine one of the coarse bin B that holds the k-th largest key. For mid
 * above bin B the count is below k, for mid below B it is at least k, and inside B it
 * is exact from the fine counts. So the result equals the counting definition, in three
 * passes over the data whatever `rounds` is.
 *
 * Usually one pass is enough: gc_sel_pass lists every element with key >= tlo (a bound
 * from a sample that at least k keys reach, about 1.3 k of them at 1%), and every step
 * is counted on the lists: below tlo the answer is "enough", above it the listed keys
 * are all the keys. The selection comes from the lists too when the final lo >= tlo
 * (always after enough rounds); else one scan of the bucket. The histograms are the
 * fallback when the sample misjudged tlo. */
#include "select.h"

struct decide {
	const struct gc_cand *cd;       /* non-NULL: count from the candidate lists */
	uint32_t bin;           /* else: coarse bin of the k-th largest key */
	size_t above, k;        /* keys in higher bins; k */
	const uint32_t *fine;   /* suffix counts within bin */
};

/* 1 iff #(key >= x) >= k. Below the lists' bound tlo at least k keys reach x. */
static int enough(const struct decide *d, uint32_t x)
{
	uint32_t bx = x >> GC_SEL_SHIFT;

	if (d->cd)
		return x < d->cd->tlo || gc_cand_count(d->cd, x) >= d->k;
	if (bx != d->bin)
		return bx < d->bin;
	return d->above + d->fine[x & (GC_SEL_FINE - 1)] >= d->k;
}

static gc_rc mstopk_encode(gc_bucket *b, const float *grad)
{
	struct gc_sparse *s = b->st;
	const float *c = s->e ? s->e : grad;
	struct decide d = { NULL, 0, 0, s->k, s->fine };
	double sum;
	uint32_t maxkey;
	size_t na, nf;
	float lo, hi, mid;
	int r;

	if (gc_sel_pass(&s->cand, s->e, grad, b->numel, s->k, s->hist, s->fine, &sum,
			&maxkey)) {
		d.cd = &s->cand;
	} else {
		gc_sel_hist(NULL, c, b->numel, s->hist, s->scratch, NULL, NULL);
		d.bin = gc_sel_bin(s->hist, s->k, &d.above);
		gc_sel_fine(c, b->numel, d.bin, s->fine);
	}
	lo = (float)(sum / (double)b->numel);
	memcpy(&hi, &maxkey, sizeof(hi));
	if (!enough(&d, gc_key(lo)))
		lo = 0.0f;
	for (r = 0; r < b->p.rounds; r++) {
		mid = (lo + hi) * 0.5f;
		if (enough(&d, gc_key(mid)))
			lo = mid;
		else
			hi = mid;
	}
	if (d.cd && gc_key(lo) >= d.cd->tlo) {   /* every key >= lo is listed */
		gc_sparse_commit_cand(b, gc_key(lo), gc_key(hi));
		return GC_OK;
	}
	gc_sel_scan(c, b->numel, gc_key(lo), gc_key(hi), s->k, s->ai, &na, s->fi, &nf);
	gc_sparse_commit(b, c, na, nf);
	return GC_OK;
}

const struct gc_method_ops gc_cpu_mstopk_ops = {
	.init = gc_sparse_init,
	.encode = mstopk_encode,
	.round_done = NULL,
	.decode = gc_sparse_decode,
	.residual = gc_sparse_residual,
	.release = gc_sparse_release,
};

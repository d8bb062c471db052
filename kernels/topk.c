/* kernels/topk.c: exact top-k by magnitude (CPU), by a two-level radix select:
 * a coarse histogram finds the bin of the k-th largest key, a fine one inside that
 * bin gives the exact threshold T; one scan then takes every key > T and the first
 * ties (key == T) by index. Three passes over the data, no sort.
 * Usually one: the same from the candidate lists of gc_sel_pass (select.h), which hold
 * every key >= tlo and at least k of them, so T is among them. */
#include "select.h"

static gc_rc topk_encode(gc_bucket *b, const float *grad)
{
	struct gc_sparse *s = b->st;
	const float *c = s->e ? s->e : grad;
	size_t above, na, nf;
	uint32_t bin, x, t, maxkey;
	double sum;

	if (gc_sel_pass(&s->cand, s->e, grad, b->numel, s->k, s->hist, s->fine, &sum,
			&maxkey)) {
		t = gc_cand_kth(&s->cand, s->k, s->hist, s->fine);
		gc_sparse_commit_cand(b, t, t + 1);
		return GC_OK;
	}
	gc_sel_hist(NULL, c, b->numel, s->hist, s->scratch, NULL, NULL);
	bin = gc_sel_bin(s->hist, s->k, &above);
	gc_sel_fine(c, b->numel, bin, s->fine);
	x = GC_SEL_FINE - 1;
	while (x > 0 && s->fine[x] < s->k - above)
		x--;
	t = (bin << GC_SEL_SHIFT) | x;
	gc_sel_scan(c, b->numel, t, t + 1, s->k, s->ai, &na, s->fi, &nf);
	gc_sparse_commit(b, c, na, nf);
	return GC_OK;
}

const struct gc_method_ops gc_cpu_topk_ops = {
	.init = gc_sparse_init,
	.encode = topk_encode,
	.round_done = NULL,
	.decode = gc_sparse_decode,
	.residual = gc_sparse_residual,
	.release = gc_sparse_release,
};

/* kernels/cuda/topk.cu: exact top-k on the GPU: the rule of radix.cuh (a radix select
 * of the k-th largest magnitude, ties to the lower index), compacted by sparse.cu.
 */
#include <stdlib.h>

#include "radix.cuh"

static void topk_release(gc_bucket *b)
{
	struct gc_cu_sparse *s = (struct gc_cu_sparse *)b->st;
	struct gc_cu_radix *x = s ? (struct gc_cu_radix *)s->ext : NULL;
	if (x) {
		gc_cu_radix_release(x);
		free(x);
	}
	gc_cu_sparse_release(b);
}

static gc_rc topk_init(gc_bucket *b, gc_err *e)
{
	struct gc_cu_radix *x;
	gc_rc rc = gc_cu_sparse_init(b, e);
	if (rc)
		goto fail;
	x = (struct gc_cu_radix *)calloc(1, sizeof(*x));
	((struct gc_cu_sparse *)b->st)->ext = x;
	if (!x) {
		rc = gc_fail(e, GC_E_NOMEM, "cannot allocate the topk state: out of memory");
		goto fail;
	}
	rc = gc_cu_radix_init(x, "topk", e);
	if (!rc)
		return GC_OK;
fail:
	topk_release(b);
	return rc;
}

static gc_rc topk_encode(gc_bucket *b, const float *grad)
{
	struct gc_cu_sparse *s = (struct gc_cu_sparse *)b->st;
	cudaStream_t st = gc_cu_stream(b);
	const float *c = NULL;
	gc_rc rc = gc_cu_sparse_input(b, grad, &c);
	if (rc)
		return rc;
	if (b->numel)
		rc = gc_cu_radix_rule((struct gc_cu_radix *)s->ext, c, b->numel, s->k, s->d_rule, st);
	if (!rc)
		rc = gc_cu_sparse_commit(b, c);
	return rc;
}

const struct gc_method_ops gc_cu_topk_ops = {
	topk_init, topk_encode, NULL, gc_cu_sparse_decode, gc_cu_sparse_residual,
	topk_release,
};

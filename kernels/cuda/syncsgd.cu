/* kernels/cuda/syncsgd.cu: the float32 all-reduce baseline on the GPU.
 * encode copies the gradient into the bucket's own buffer (all-reduced in place);
 * decode divides the sum by the world size. */
#include <stdlib.h>

#include "cu_common.cuh"

struct syncsgd_st {
	float *buf;                    /* numel floats (device), send = recv */
};

static gc_rc syncsgd_init(gc_bucket *b, gc_err *e)
{
	struct syncsgd_st *s = (struct syncsgd_st *)calloc(1, sizeof(*s));
	gc_rc rc;
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "cannot allocate the syncsgd state: out of memory");
	b->st = s;
	rc = gc_cu_malloc((void **)&s->buf, b->numel * sizeof(float), "the syncsgd buffer", e);
	return rc;
}

static gc_rc syncsgd_encode(gc_bucket *b, const float *grad)
{
	struct syncsgd_st *s = (struct syncsgd_st *)b->st;
	gc_rc rc = GC_OK;
	GC_CUDA_CHECK(cudaMemcpyAsync(s->buf, grad, b->numel * sizeof(float),
				      cudaMemcpyDeviceToDevice, gc_cu_stream(b)));
	gc_round_bind(b, s->buf, s->buf, NULL, NULL);
out:
	return rc;
}

static gc_rc syncsgd_round_done(gc_bucket *b)
{
	(void)b;
	return GC_OK;
}

static gc_rc syncsgd_decode(gc_bucket *b, float *avg)
{
	struct syncsgd_st *s = (struct syncsgd_st *)b->st;
	return gc_cu_div(avg, s->buf, (float)b->world, b->numel, gc_cu_stream(b));
}

static void syncsgd_release(gc_bucket *b)
{
	struct syncsgd_st *s = (struct syncsgd_st *)b->st;
	if (!s)
		return;
	gc_cuda_free(s->buf);
	free(s);
	b->st = NULL;
}

const struct gc_method_ops gc_cu_syncsgd_ops = {
	syncsgd_init, syncsgd_encode, syncsgd_round_done, syncsgd_decode, NULL,
	syncsgd_release,
};

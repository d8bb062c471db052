/* kernels/compress.c: the bucket, the round protocol, half precision, back-end lookup.
 * The methods live in kernels/<method>.c (CPU) and kernels/cuda/ (CUDA). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The CUDA back end is linked only when its dispatch table is part of the build
 * (kernels/module.mk sets GC_CUDA_KERNELS); GC_HAVE_CUDA alone means nvcc exists. */
#ifndef GC_CUDA_KERNELS
#define GC_CUDA_KERNELS 0
#endif
#define GC_USE_CUDA (GC_HAVE_CUDA && GC_CUDA_KERNELS)

static const struct gc_method_ops *const cpu_ops[GC_M__COUNT] = {
	&gc_cpu_syncsgd_ops, &gc_cpu_fp16_ops, &gc_cpu_signsgd_ops,
	&gc_cpu_topk_ops, &gc_cpu_mstopk_ops, &gc_cpu_powersgd_ops, &gc_cpu_bf16_ops,
	&gc_cpu_randomk_ops, &gc_cpu_terngrad_ops,
	&gc_cpu_qsgd_ops, &gc_cpu_efsign_ar_ops, &gc_cpu_dgc_ops, &gc_cpu_cgx_ops,
};

int gc_cuda_available(void)
{
#if GC_USE_CUDA
	return gc_cuda_device_count() > 0;
#else
	return 0;
#endif
}

static gc_rc lookup_ops(gc_bucket *b, gc_err *e)
{
	if (b->be == GC_BACKEND_CPU) {
		b->ops = cpu_ops[b->p.method];
		return GC_OK;
	}
#if GC_USE_CUDA
	b->ops = gc_cuda_ops(b->p.method);
	if (!b->ops)
		return gc_fail(e, GC_E_UNSUPPORTED, "method '%s' has no CUDA implementation; "
			       "use the CPU back end", gc_method_name(b->p.method));
	return GC_OK;
#else
	return gc_fail(e, GC_E_UNSUPPORTED, "cannot use the CUDA back end: gcbench was built "
		       "without CUDA (install the CUDA toolkit and rebuild with CUDA=1)");
#endif
}

/* Validate the layout and fill b->t, b->off, b->numel. */
static gc_rc copy_layout(gc_bucket *b, const gc_tensor_desc *t, size_t nt, gc_err *e)
{
	size_t i, n = 0;

	if (!t || nt == 0)
		return gc_fail(e, GC_E_INVAL, "a bucket needs at least one tensor");
	b->t = malloc(nt * sizeof(*t));
	b->off = malloc((nt + 1) * sizeof(size_t));
	if (!b->t || !b->off)
		return gc_fail(e, GC_E_NOMEM, "out of memory for %zu tensor descriptors", nt);
	for (i = 0; i < nt; i++) {
		if (t[i].rows == 0 || t[i].cols == 0 || t[i].ndim < 1)
			return gc_fail(e, GC_E_INVAL, "tensor %zu has an empty shape (%zu x %zu, "
				       "ndim %d); every tensor needs rows, cols >= 1 and ndim >= 1",
				       i, t[i].rows, t[i].cols, t[i].ndim);
		if (t[i].cols > UINT32_MAX / t[i].rows || n + t[i].rows * t[i].cols > UINT32_MAX)
			return gc_fail(e, GC_E_INVAL, "tensor %zu (%zu x %zu) makes the bucket larger "
				       "than 2^32-1 elements; split it into smaller buckets",
				       i, t[i].rows, t[i].cols);
		b->t[i] = t[i];
		b->off[i] = n;
		n += t[i].rows * t[i].cols;
	}
	b->off[nt] = n;
	b->nt = nt;
	b->numel = n;
	return GC_OK;
}

gc_rc gc_bucket_new(gc_bucket **out, const gc_params *p, gc_backend be, void *stream,
		    const gc_tensor_desc *t, size_t nt, int world, int worker, gc_err *e)
{
	gc_bucket *b;
	gc_rc rc;

	*out = NULL;
	rc = gc_params_check(p, e);
	if (rc)
		return rc;
	if (world < 1 || worker < 0 || worker >= world)
		return gc_fail(e, GC_E_INVAL, "worker %d of world %d is out of range; use "
			       "0 <= worker < world", worker, world);
	b = calloc(1, sizeof(*b));
	if (!b)
		return gc_fail(e, GC_E_NOMEM, "out of memory for a bucket");
	b->p = *p;
	b->be = be;
	b->stream = stream;
	b->world = world;
	b->worker = worker;
	b->nround = -1;         /* not encoded */
	rc = copy_layout(b, t, nt, e);
	if (!rc) {
		gc_plan_begin(&b->plan, p);
		b->plan.world = world;
		for (size_t i = 0; i < b->nt; i++)
			gc_plan_add(&b->plan, &b->t[i]);
		gc_plan_end(&b->plan);
		rc = lookup_ops(b, e);
	}
	if (!rc)
		rc = b->ops->init(b, e);
	if (rc) {
		gc_bucket_free(b);      /* release() copes with a partial init */
		return rc;
	}
	*out = b;
	return GC_OK;
}

void gc_bucket_free(gc_bucket *b)
{
	if (!b)
		return;
	if (b->ops && b->ops->release)
		b->ops->release(b);
	free(b->t);
	free(b->off);
	free(b);
}

size_t gc_bucket_numel(const gc_bucket *b)
{
	return b->numel;
}

size_t gc_bucket_payload_bytes(const gc_bucket *b)
{
	return gc_plan_payload_bytes(&b->plan);
}

void gc_round_bind(gc_bucket *b, const void *send0, void *recv0, const void *send1,
		   void *recv1)
{
	const void *send[GC_PLAN_MAX_ROUNDS] = { send0, send1 };
	void *recv[GC_PLAN_MAX_ROUNDS] = { recv0, recv1 };
	int i;

	for (i = 0; i < b->plan.nround; i++)
		b->round[i] = (gc_round){ b->plan.round[i].coll, b->plan.round[i].dtype, send[i],
					  b->plan.round[i].count, recv[i] };
	b->nround = b->plan.nround;
}

gc_rc gc_encode(gc_bucket *b, const float *grad)
{
	gc_rc rc;

	if (!grad)
		return GC_E_INVAL;
	b->nround = 0;
	b->cur = 0;
	rc = b->ops->encode(b, grad);
	if (rc)
		b->nround = -1;
	return rc;
}

int gc_round_get(gc_bucket *b, gc_round *r)
{
	if (b->nround < 0 || b->cur >= b->nround)
		return 0;
	*r = b->round[b->cur];
	return 1;
}

gc_rc gc_round_done(gc_bucket *b)
{
	gc_rc rc = GC_OK;

	if (b->nround < 0 || b->cur >= b->nround)
		return GC_E_STATE;
	if (b->ops->round_done)
		rc = b->ops->round_done(b);
	if (!rc)
		b->cur++;
	return rc;
}

gc_rc gc_decode(gc_bucket *b, float *avg)
{
	gc_rc rc;

	if (b->nround < 0 || b->cur != b->nround || !avg)
		return GC_E_STATE;
	rc = b->ops->decode(b, avg);
	if (rc)
		return rc;
	b->nround = -1;
	b->step++;
	return GC_OK;
}

gc_rc gc_bucket_residual(const gc_bucket *b, float *host_out)
{
	if (b->ops->residual)
		return b->ops->residual(b, host_out);
	memset(host_out, 0, b->numel * sizeof(float));
	return GC_OK;
}

size_t gc_dtype_size(gc_dtype t)
{
	switch (t) {
	case GC_DT_F32: return 4;
	case GC_DT_F16: return 2;
	case GC_DT_BF16: return 2;
	case GC_DT_U8: return 1;
	}
	return 0;
}

static inline uint32_t f2u(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
}

static inline float u2f(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* IEEE binary16, round to nearest even (after F. Giesen's float_to_half_fast3_rtne).
 * NaN keeps its sign and top payload bits, with the quiet bit set (as x86 F16C). */
uint16_t gc_f32_to_f16(float f)
{
	uint32_t x = f2u(f), sign = x & 0x80000000u;
	uint32_t o;

	x ^= sign;
	if (x >= 0x47800000u) {                 /* >= 65536, inf or NaN */
		o = x > 0x7f800000u ? 0x7e00u | ((x >> 13) & 0x3ffu) : 0x7c00u;
	} else if (x < 0x38800000u) {           /* below 2^-14: subnormal or zero */
		o = f2u(u2f(x) + 0.5f) - 0x3f000000u;   /* the FPU rounds to even */
	} else {
		uint32_t odd = (x >> 13) & 1u;
		x += ((uint32_t)(15 - 127) << 23) + 0xfffu + odd;
		o = x >> 13;                    /* 65520 and up carry into inf */
	}
	return (uint16_t)(o | (sign >> 16));
}

float gc_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;

	if (exp == 0x1f)                        /* inf, NaN (payload kept) */
		return u2f(sign | 0x7f800000u | (mant << 13));
	if (exp == 0)                           /* zero, subnormal: mant * 2^-24 exactly */
		return u2f(sign | f2u((float)mant * 5.9604644775390625e-8f));
	return u2f(sign | ((exp + 112u) << 23) | (mant << 13));
}

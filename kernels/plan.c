/* kernels/plan.c: DDP bucketing and the plan of a bucket (plan.h). */
#include <math.h>
#include <string.h>

#include "plan.h"
#include "cgx.h"
#include "qsgd.h"

size_t gc_ddp_buckets(const size_t *numel, size_t nt, double first_bytes, double bytes,
		      gc_bucket_span *out)
{
	size_t i, start = 0, n = 0, nb = 0;
	double have = 0, cap = first_bytes;

	for (i = 0; i < nt; i++) {
		n += numel[i];
		have += 4.0 * (double)numel[i];
		if (have >= cap || i + 1 == nt) {
			out[nb++] = (gc_bucket_span){ start, i + 1 - start, n };
			start = i + 1;
			n = 0;
			have = 0;
			cap = bytes;
		}
	}
	return nb;
}

gc_tensor_desc gc_tensor_view(int ndim, const size_t *shape, size_t numel)
{
	gc_tensor_desc d;

	d.rows = shape[0];
	d.cols = numel / shape[0];
	d.ndim = ndim;
	return d;
}

size_t gc_topk_k(const gc_params *p, size_t n)
{
	double k = ceil(p->ratio * (double)n);

	if (k < 1)
		k = 1;
	return k > (double)n ? n : (size_t)k;
}

int gc_powersgd_rank(const gc_params *p, const gc_tensor_desc *d)
{
	size_t r = (size_t)p->rank;

	r = r < d->rows ? r : d->rows;
	r = r < d->cols ? r : d->cols;
	if (d->ndim >= 2 && (double)d->rows * (double)d->cols >=
	    p->min_compression * (double)(d->rows + d->cols) * (double)r)
		return (int)r;
	return 0;
}

void gc_powersgd_layout(const gc_params *p, const gc_tensor_desc *t, size_t nt, int *r,
			size_t *po, size_t *qo, size_t *np, size_t *nu, size_t *nq)
{
	size_t i;

	*np = *nu = *nq = 0;
	for (i = 0; i < nt; i++) {
		r[i] = gc_powersgd_rank(p, &t[i]);
		if (r[i]) {
			po[i] = *np;
			qo[i] = *nq;
			*np += t[i].rows * (size_t)r[i];
			*nq += t[i].cols * (size_t)r[i];
		}
	}
	for (i = 0; i < nt; i++) {
		if (r[i])
			continue;
		po[i] = *np + *nu;
		*nu += t[i].rows * t[i].cols;
	}
}

void gc_plan_begin(gc_plan *pl, const gc_params *p)
{
	memset(pl, 0, sizeof(*pl));
	pl->p = *p;
	pl->world = 1;
}

void gc_plan_add(gc_plan *pl, const gc_tensor_desc *d)
{
	size_t n = d->rows * d->cols;
	int r;

	pl->nt++;
	pl->numel += n;
	if (pl->p.method == GC_M_QSGD && pl->p.bucket_size > 0)
		pl->nqb += (n + (size_t)pl->p.bucket_size - 1) / (size_t)pl->p.bucket_size;
	if (pl->p.method != GC_M_POWERSGD)
		return;
	r = gc_powersgd_rank(&pl->p, d);
	if (r) {
		pl->np += d->rows * (size_t)r;
		pl->nq += d->cols * (size_t)r;
		pl->ncomp++;
	} else {
		pl->nu += n;
	}
}

static void set_round(gc_plan *pl, gc_coll coll, gc_dtype dtype, size_t count)
{
	pl->round[pl->nround++] = (gc_plan_round){ coll, dtype, count };
}

void gc_plan_end(gc_plan *pl)
{
	pl->nround = 0;
	switch (pl->p.method) {
	case GC_M_FP16:
		set_round(pl, GC_COLL_ALLREDUCE, GC_DT_F16, pl->numel);
		break;
	case GC_M_BF16:
	case GC_M_EFSIGN_AR:      /* +-bf16(mean |c| / p) per element, summed */
		set_round(pl, GC_COLL_ALLREDUCE, GC_DT_BF16, pl->numel);
		break;
	case GC_M_SIGNSGD:        /* per tensor scales (scaled), then the bits */
		set_round(pl, GC_COLL_ALLGATHER, GC_DT_U8,
			  (pl->p.scaled ? 4 * pl->nt : 0) + (pl->numel + 7) / 8);
		break;
	case GC_M_TOPK:
	case GC_M_MSTOPK:         /* k uint32 indices, then k float values */
	case GC_M_DGC:            /* (the final k; the warm-up's steps send more) */
		pl->k = gc_topk_k(&pl->p, pl->numel);
		set_round(pl, GC_COLL_ALLGATHER, GC_DT_U8, 8 * pl->k);
		break;
	case GC_M_TERNGRAD:       /* per tensor scales, then 2 bits per element */
		set_round(pl, GC_COLL_ALLGATHER, GC_DT_U8, 4 * pl->nt + (pl->numel + 3) / 4);
		break;
	case GC_M_QSGD:           /* per norm bucket a float32 norm, then the codes */
		set_round(pl, GC_COLL_ALLGATHER, GC_DT_U8, 4 * pl->nqb +
			  (pl->numel * gc_qsgd_width(pl->p.levels) + 7) / 8);
		break;
	case GC_M_CGX: {          /* quantized chunks: all-to-all, then the requantized sums */
		size_t slot = gc_cgx_slot(pl->numel, pl->world, pl->p.bits,
					  (size_t)pl->p.bucket_size);
		set_round(pl, GC_COLL_ALLTOALL, GC_DT_U8, slot);
		set_round(pl, GC_COLL_ALLGATHER, GC_DT_U8, slot);
		break;
	}
	case GC_M_RANDOMK:        /* the k values at the shared indices, summed */
		pl->k = gc_topk_k(&pl->p, pl->numel);
		set_round(pl, GC_COLL_ALLREDUCE, GC_DT_F32, pl->k);
		break;
	case GC_M_POWERSGD:       /* [all P | uncompressed], then all Q */
		set_round(pl, GC_COLL_ALLREDUCE, GC_DT_F32, pl->np + pl->nu);
		if (pl->nq)
			set_round(pl, GC_COLL_ALLREDUCE, GC_DT_F32, pl->nq);
		break;
	default:
		set_round(pl, GC_COLL_ALLREDUCE, GC_DT_F32, pl->numel);
		break;
	}
}

void gc_plan_bucket(gc_plan *pl, const gc_params *p, const gc_tensor_desc *t, size_t nt)
{
	size_t i;

	gc_plan_begin(pl, p);
	for (i = 0; i < nt; i++)
		gc_plan_add(pl, &t[i]);
	gc_plan_end(pl);
}

size_t gc_plan_round_bytes(const gc_plan *pl, int i)
{
	if (i < 0 || i >= pl->nround)
		return 0;
	return pl->round[i].count * gc_dtype_size(pl->round[i].dtype) *
	       (pl->round[i].coll == GC_COLL_ALLTOALL ? (size_t)pl->world : 1);
}

size_t gc_plan_payload_bytes(const gc_plan *pl)
{
	size_t n = 0;
	int i;

	for (i = 0; i < pl->nround; i++)
		n += gc_plan_round_bytes(pl, i);
	return n;
}

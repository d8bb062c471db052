/* model/codec.c: encode/decode cost of a bucket from its operations (codec.h). */
#include "codec.h"
#include "model.h"

/* What a piece of a codec does: launches, syncs, bytes moved, FLOPs. */
struct ops {
	double launches, syncs, bytes, flops;
};

static double ops_time(const gc_codec_dev *d, const struct ops *o)
{
	double t = 0;

	if (d->launch_s > 0)
		t += o->launches * d->launch_s;
	if (d->sync_s > 0)
		t += o->syncs * d->sync_s;
	if (d->mem_Bps > 0)
		t += o->bytes / d->mem_Bps;
	if (d->flops > 0)
		t += o->flops / d->flops;
	return t;
}

/* torch.powerSGD_hook on one bucket (see codec.h for the counts). */
static void powersgd_ops(const gc_arch *a, const gc_bucket_span *s, const gc_model_method *m,
			 struct ops *enc, struct ops *dec)
{
	double pass = 4.0 * (double)s->numel, c = 0, u = 0, mnr = 0, gs = 0;
	size_t j;

	for (j = 0; j < s->count; j++) {
		gc_tensor_desc t = gc_model_tensor(a, s, j);
		int r = gc_powersgd_rank(&m->p, &t);
		if (r) {
			double rr = (double)r;
			c++;
			enc->launches += 14.0 * rr - 6;
			mnr += (double)t.rows * (double)t.cols * rr;
			/* Gram-Schmidt of P (rows x r) and Q (cols x r): each later column is
			 * read and written 3 times per earlier column */
			gs += 12.0 * (double)(t.rows + t.cols) * rr * (rr + 1) / 2;
		} else {
			u++;
		}
	}
	enc->launches += 3;
	enc->bytes = 7 * pass + gs;
	enc->flops = 4 * mnr;
	dec->launches = 3 + u + c;
	dec->syncs = 1;
	dec->bytes = 4 * pass;
	dec->flops = 2 * mnr;
}

/* Top-K and MSTop-K decode: zero the output, scatter-add every worker's k pairs (each
 * a 32-byte sector read-modify-write plus the 8-byte pair), divide. */
static void sparse_decode(double pass, double k, int p, struct ops *dec)
{
	dec->launches = 2 + (double)p;
	dec->bytes = 3 * pass + 40.0 * k * p;
}

/* The methods of issue 34 in the paper preset's terms (PyTorch eager ops, as GRACE's
 * compressors): randomk encode: error add, index draw, gather, residual zeroing (4
 * launches; read g and e, write e: 3 passes; k values and indices); decode: zero the
 * output, scatter the k sums, divide (3 launches, 1 pass). */
static int newer_ops(const gc_bucket_span *s, const gc_model_method *m, int p,
		     struct ops *enc, struct ops *dec)
{
	double pass = 4.0 * (double)s->numel, k = (double)gc_topk_k(&m->p, s->numel);

	switch (m->p.method) {
	case GC_M_RANDOMK:
		*enc = (struct ops){ 4, 0, 3 * pass + 12 * k, 0 };
		*dec = (struct ops){ 3, 0, pass + 12 * k, 0 };
		return 1;
	case GC_M_TERNGRAD:     /* GRACE's terngrad: abs, max, divide, rand, compare, sign,
	                         * multiply, pack; decode per worker unpack, multiply, add */
		*enc = (struct ops){ 8, 1, 7 * pass, 0 };
		*dec = (struct ops){ 3.0 * p + 1, 0, (2.25 * p + 1) * pass, 0 };
		return 1;
	default:
		return 0;
	}
}

void gc_codec_cost(const gc_codec_dev *d, const gc_arch *a, const gc_bucket_span *s,
		   const gc_model_method *m, int p, double *enc, double *dec)
{
	struct ops e = { 0, 0, 0, 0 }, x = { 0, 0, 0, 0 };
	double pass = 4.0 * (double)s->numel, k = (double)gc_topk_k(&m->p, s->numel);
	double R = m->p.rounds > 0 ? m->p.rounds : 20, radix = 0;

	switch (m->p.method) {
	case GC_M_FP16:
	case GC_M_BF16:         /* the same passes as fp16: read 4n, write 2n; and back */
		e = (struct ops){ 2, 0, 2.5 * pass, 0 };
		x = (struct ops){ 1, 0, 1.5 * pass, 0 };
		break;
	case GC_M_SIGNSGD:
		e = (struct ops){ 3, 0, 2 * pass, 0 };
		x = (struct ops){ 3.0 * p + 2, 0, (2.5 * p + 2) * pass, 0 };
		break;
	case GC_M_TOPK:
		e = (struct ops){ 6, 0, 7 * pass + 16 * k, 0 };
		if (d->topk_mem_frac > 0 && d->mem_Bps > 0)
			radix = d->topk_passes * pass / (d->topk_mem_frac * d->mem_Bps);
		sparse_decode(pass, k, p, &x);
		break;
	case GC_M_MSTOPK:
		e = (struct ops){ 9 + 2 * R, 2 + R, (11 + R) * pass + 16 * k, 0 };
		sparse_decode(pass, k, p, &x);
		break;
	case GC_M_POWERSGD:
		powersgd_ops(a, s, m, &e, &x);
		break;
	default:
		newer_ops(s, m, p, &e, &x);
		break;
	}
	*enc = ops_time(d, &e) + radix;
	*dec = ops_time(d, &x);
}

void gc_codec_dev_scale(gc_codec_dev *d, double speedup)
{
	if (!(speedup > 0))
		return;
	d->launch_s /= speedup;
	d->sync_s /= speedup;
	d->mem_Bps *= speedup;
	d->flops *= speedup;
}

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

/* What one method's codec does to a bucket: its encode and decode operations. A
 * method's entry in the tables below; a new method adds one function and one row. */
struct codec_in {
	const gc_codec_dev *d;
	const gc_arch *a;
	const gc_bucket_span *s;
	const gc_model_method *m;
	int p;
	double pass, k, R;      /* bytes of one pass, kept elements, MSTop-K rounds */
};
typedef void (*codec_fn)(const struct codec_in *in, struct ops *e, struct ops *x);

/* fp16 and bf16: read 4n, write 2n; and back */
static void fp16_ops(const struct codec_in *in, struct ops *e, struct ops *x)
{
	*e = (struct ops){ 2, 0, 2.5 * in->pass, 0 };
	*x = (struct ops){ 1, 0, 1.5 * in->pass, 0 };
}

static void signsgd_ops(const struct codec_in *in, struct ops *e, struct ops *x)
{
	*e = (struct ops){ 3, 0, 2 * in->pass, 0 };
	*x = (struct ops){ 3.0 * in->p + 2, 0, (2.5 * in->p + 2) * in->pass, 0 };
}

static void topk_ops(const struct codec_in *in, struct ops *e, struct ops *x)
{
	*e = (struct ops){ 6, 0, 7 * in->pass + 16 * in->k, 0 };
	sparse_decode(in->pass, in->k, in->p, x);
}

static void mstopk_ops(const struct codec_in *in, struct ops *e, struct ops *x)
{
	*e = (struct ops){ 9 + 2 * in->R, 2 + in->R, (11 + in->R) * in->pass + 16 * in->k, 0 };
	sparse_decode(in->pass, in->k, in->p, x);
}

static void powersgd_fn(const struct codec_in *in, struct ops *e, struct ops *x)
{
	powersgd_ops(in->a, in->s, in->m, e, x);
}

/* The study's signSGD hook (codec.h): pack 32 signs per int32, all-gather, unpack and
 * add every worker's bits, sign. */
static void study_signsgd_ops(const struct codec_in *in, struct ops *e, struct ops *x)
{
	double p = in->p;

	*e = (struct ops){ 5, 0, 7 * in->pass, 0 };
	*x = (struct ops){ p + 7 * p + 1, 0, (12 * p + 2) * in->pass, 0 };
}

/* The study's MSTop-K hook (codec.h): a threshold search of R rounds with a host
 * sync on each comparison, two nonzero selections, dense slice adds to decode. */
static void study_mstopk_ops(const struct codec_in *in, struct ops *e, struct ops *x)
{
	double R = in->R, p = in->p;

	*e = (struct ops){ 3 + 8 * R + 10 + p, 2 * R + 2, (4 + 2 * R + 5) * in->pass + 24 * in->k,
			   0 };
	*x = (struct ops){ 1 + p, 0, in->pass + 12 * in->k * p, 0 };
}

/* The methods of issue 34 in the paper preset's terms (PyTorch eager ops, as GRACE's
 * compressors): randomk encode: error add, index draw, gather, residual zeroing (4
 * launches; read g and e, write e: 3 passes; k values and indices); decode: zero the
 * output, scatter the k sums, divide (3 launches, 1 pass). */
static void randomk_ops(const struct codec_in *in, struct ops *e, struct ops *x)
{
	*e = (struct ops){ 4, 0, 3 * in->pass + 12 * in->k, 0 };
	*x = (struct ops){ 3, 0, in->pass + 12 * in->k, 0 };
}

/* GRACE's terngrad: abs, max, divide, rand, compare, sign, multiply, pack; decode per
 * worker unpack, multiply, add. */
static void terngrad_ops(const struct codec_in *in, struct ops *e, struct ops *x)
{
	*e = (struct ops){ 8, 1, 7 * in->pass, 0 };
	*x = (struct ops){ 3.0 * in->p + 1, 0, (2.25 * in->p + 1) * in->pass, 0 };
}

/* GRACE's qsgd: norm (square, sum, sqrt), abs, divide, multiply by s, floor, rand,
 * compare, add, sign, multiply, pack, per norm bucket a reshape; decode per worker
 * unpack, divide by s, multiply by the norm, add. */
static void qsgd_ops(const struct codec_in *in, struct ops *e, struct ops *x)
{
	*e = (struct ops){ 12, 0, 10 * in->pass, 0 };
	*x = (struct ops){ 4.0 * in->p + 1, 0, (3.25 * in->p + 1) * in->pass, 0 };
}

/* GRACE's efsignsgd with an all-reduce: error add, abs, mean, sign, multiply, cast to
 * bf16, residual subtract (read g and e, write e, the payload: about 4 passes);
 * decode: one cast back (1 pass). */
static void efsign_ar_ops(const struct codec_in *in, struct ops *e, struct ops *x)
{
	*e = (struct ops){ 7, 0, 4.5 * in->pass, 0 };
	*x = (struct ops){ 1, 0, 1.5 * in->pass, 0 };
}

/* GRACE's dgc (momentum correction, clipping, masking) around a top-k: clip (norm,
 * divide, multiply: 3 launches, 3 passes), u = m u + g (2 launches, 3 passes), v += u
 * (1 launch, 3 passes), then topk's selection of |v|, and masking u and v where sent
 * (2 launches, 16 k bytes); decode as topk. */
static void dgc_ops(const struct codec_in *in, struct ops *e, struct ops *x)
{
	*e = (struct ops){ 6 + 8, 0, (7 + 9) * in->pass + 32 * in->k, 0 };
	sparse_decode(in->pass, in->k, in->p, x);
}

/* torch_cgx's fused CUDA kernels: encode min/max per bucket and quantize (read g
 * twice, write the levels), then, after the all-to-all, dequantize the p chunks
 * received, sum and requantize this worker's chunk (read its p chunks' levels, the
 * sum written and read twice: 3 / p passes + the levels); decode dequantizes every
 * chunk (read the levels, write the gradient). 4 launches to encode, 1 to decode. */
static void cgx_ops(const struct codec_in *in, struct ops *e, struct ops *x)
{
	double lv = in->m->p.bits / 32.0, p = in->p > 1 ? in->p : 1;

	*e = (struct ops){ 4, 0, (2 + lv + lv + 3 / p + lv / p) * in->pass, 0 };
	*x = (struct ops){ 1, 0, (1 + lv) * in->pass, 0 };
}

/* Per hooks and method: the function that counts its operations (NULL: free). */
static const codec_fn torch_fns[GC_M__COUNT] = {
	[GC_M_FP16] = fp16_ops, [GC_M_BF16] = fp16_ops, [GC_M_SIGNSGD] = signsgd_ops,
	[GC_M_TOPK] = topk_ops,
	[GC_M_MSTOPK] = mstopk_ops, [GC_M_POWERSGD] = powersgd_fn,
	[GC_M_RANDOMK] = randomk_ops, [GC_M_TERNGRAD] = terngrad_ops,
	[GC_M_QSGD] = qsgd_ops, [GC_M_EFSIGN_AR] = efsign_ar_ops, [GC_M_DGC] = dgc_ops,
	[GC_M_CGX] = cgx_ops,
};
static const codec_fn study_fns[GC_M__COUNT] = {
	[GC_M_SIGNSGD] = study_signsgd_ops, [GC_M_MSTOPK] = study_mstopk_ops,
};

void gc_codec_cost(const gc_codec_dev *d, const gc_arch *a, const gc_bucket_span *s,
		   const gc_model_method *m, int p, double *enc, double *dec)
{
	struct ops e = { 0, 0, 0, 0 }, x = { 0, 0, 0, 0 };
	struct codec_in in = { d, a, s, m, p, 4.0 * (double)s->numel,
			       (double)gc_topk_k(&m->p, s->numel), 20 };
	codec_fn fn = NULL;
	double radix = 0;
	int meth = m->p.method;

	in.R = d->rounds > 0 ? d->rounds : m->p.rounds > 0 ? m->p.rounds : 20;
	if (meth >= 0 && meth < GC_M__COUNT) {
		fn = d->hooks == GC_HOOKS_STUDY ? study_fns[meth] : NULL;
		if (!fn)
			fn = torch_fns[meth];
	}
	if (fn)
		fn(&in, &e, &x);
	if (fn == topk_ops && d->topk_mem_frac > 0 && d->mem_Bps > 0)
		radix = d->topk_passes * in.pass / (d->topk_mem_frac * d->mem_Bps);
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

/* model/whatif.c: argument lists, presets and sweeps of gcbench whatif (whatif.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "whatif.h"
#include "racks.h"
#include "bandwidth.h"
#include "strutil.h"

/* Split s at commas into doubles; what names the option in messages. */
static gc_rc parse_list(const char *s, double *out, size_t max, size_t *n, const char *what,
			gc_err *e)
{
	char buf[2048], *tok, *save = NULL;

	*n = 0;
	if (!s || !*s || gc_strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "%s: empty or too long a list '%.40s'; give "
			       "comma-separated values", what, s ? s : "");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == max)
			return gc_fail(e, GC_E_INVAL, "%s: more than %zu values", what, max);
		if (gc_parse_double(tok, &out[*n]) || !(out[*n] > 0))
			return gc_fail(e, GC_E_INVAL, "%s: '%s' is not a number > 0", what, tok);
		(*n)++;
	}
	if (!*n)
		return gc_fail(e, GC_E_INVAL, "%s: '%s' holds no values", what, s);
	return GC_OK;
}

gc_rc gc_whatif_parse_workers(const char *s, gc_whatif *w, gc_err *e)
{
	double v[GC_WHATIF_MAX_LIST];
	size_t i;
	gc_rc rc = parse_list(s, v, GC_WHATIF_MAX_LIST, &w->nworkers, "--workers", e);

	for (i = 0; !rc && i < w->nworkers; i++) {
		if (v[i] != floor(v[i]) || v[i] < 1 || v[i] > 1e6)
			return gc_fail(e, GC_E_INVAL, "--workers: '%g' is not a whole number of "
				       "workers in 1..1000000", v[i]);
		w->workers[i] = (int)v[i];
	}
	if (rc && strstr(e->msg, "> 0"))
		gc_fail(e, rc, "--workers: '%s' must list worker counts >= 1, like 8,16,32", s);
	return rc;
}

/* One bandwidth of --bandwidth, in tc units (common/bandwidth.h), into Gbit/s. */
static gc_rc parse_one_bw(const char *t, double *gbps, gc_err *e)
{
	uint64_t bps;
	gc_err e2;

	if (gc_bw_parse(t, GC_BW_BARE_GBIT, &bps, &e2))
		return gc_fail(e, GC_E_INVAL, "--bandwidth: %s", e2.msg);
	if (!bps)
		return gc_fail(e, GC_E_INVAL, "--bandwidth: 'unlimited' has no prediction; give "
			       "a rate, e.g. 10gbit");
	*gbps = (double)bps / 1e9;
	return GC_OK;
}

static gc_rc parse_range(const char *s, gc_whatif *w, gc_err *e)
{
	char buf[128], *c1, *c2;
	double lo = 0, hi = 0, step = 1;
	size_t i, n;
	gc_err e2;
	gc_rc rc;

	if (gc_strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "--bandwidth: range '%.40s...' too long", s);
	c1 = strchr(buf, ':');
	*c1 = '\0';
	if ((c2 = strchr(c1 + 1, ':')))
		*c2 = '\0';
	if ((rc = parse_one_bw(buf, &lo, &e2)) || (rc = parse_one_bw(c1 + 1, &hi, &e2)) ||
	    (c2 && (rc = parse_one_bw(c2 + 1, &step, &e2))))
		return gc_fail(e, rc, "%s (a range is LOW:HIGH[:STEP], like 1gbit:30gbit or "
			       "1gbit:30gbit:500mbit; the step defaults to 1gbit)", e2.msg);
	if (hi < lo)
		return gc_fail(e, GC_E_INVAL, "--bandwidth: range '%s' runs backwards (%s > %s); "
			       "write it LOW:HIGH, like %s:%s", s, buf, c1 + 1, c1 + 1, buf);
	n = (size_t)floor((hi - lo) / step + 1e-9) + 1;
	if (n > GC_WHATIF_MAX_LIST)
		return gc_fail(e, GC_E_INVAL, "--bandwidth: range '%s' has %zu points, more "
			       "than %d; use a larger step", s, n, GC_WHATIF_MAX_LIST);
	for (i = 0; i < n; i++)
		w->bw_gbps[i] = lo + step * (double)i;
	w->nbw = n;
	return GC_OK;
}

gc_rc gc_whatif_parse_bw(const char *s, gc_whatif *w, gc_err *e)
{
	char buf[2048], *tok, *save = NULL;
	gc_rc rc;

	if (s && strchr(s, ':'))
		return parse_range(s, w, e);
	w->nbw = 0;
	if (!s || !*s || gc_strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "--bandwidth: empty or too long a list '%.40s'; give "
			       "rates with units, like 1gbit,10gbit,25gbit", s ? s : "");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (w->nbw == GC_WHATIF_MAX_LIST)
			return gc_fail(e, GC_E_INVAL, "--bandwidth: more than %d values",
				       GC_WHATIF_MAX_LIST);
		if ((rc = parse_one_bw(tok, &w->bw_gbps[w->nbw], e)))
			return rc;
		w->nbw++;
	}
	if (!w->nbw)
		return gc_fail(e, GC_E_INVAL, "--bandwidth: '%s' holds no values", s);
	return GC_OK;
}

gc_rc gc_whatif_parse_speedup(const char *s, gc_whatif *w, gc_err *e)
{
	return parse_list(s, w->speedup, GC_WHATIF_MAX_LIST, &w->nspeed, "--compute-speedup", e);
}

gc_rc gc_whatif_parse_codec(const char *s, gc_whatif *w, gc_err *e)
{
	return parse_list(s, w->codec, GC_WHATIF_MAX_LIST, &w->ncodec, "--codec-speedup", e);
}

gc_rc gc_whatif_parse_methods(const char *s, gc_whatif *w, gc_err *e)
{
	char buf[1024], spec[256] = "", *tok, *save = NULL;
	gc_rc rc;

	w->nmethods = 0;
	if (!s || !*s || gc_strlcpy(buf, s, sizeof(buf)) >= sizeof(buf))
		return gc_fail(e, GC_E_INVAL, "--method: empty or too long; use e.g. "
			       "signsgd,topk:ratio=0.01,powersgd:rank=4");
	for (tok = strtok_r(buf, ",", &save);; tok = strtok_r(NULL, ",", &save)) {
		int cont = tok && strchr(tok, '=') && !strchr(tok, ':') && *spec;
		if (cont) {                           /* powersgd:rank=4,min_compression=1 */
			if (strlen(spec) + strlen(tok) + 2 > sizeof(spec))
				return gc_fail(e, GC_E_INVAL, "--method: '%s' too long", spec);
			strcat(spec, ",");
			strcat(spec, tok);
			continue;
		}
		if (*spec) {
			if (w->nmethods == GC_WHATIF_MAX_METHODS)
				return gc_fail(e, GC_E_INVAL, "--method: more than %d methods",
					       GC_WHATIF_MAX_METHODS);
			if ((rc = gc_model_method_parse(spec, &w->methods[w->nmethods++], e)))
				return rc;
		}
		if (!tok)
			break;
		gc_strlcpy(spec, tok, sizeof(spec));
	}
	if (!w->nmethods)
		return gc_fail(e, GC_E_INVAL, "--method: '%s' names no method", s);
	return GC_OK;
}

/* The `paper` preset: every constant, what it is, and where it comes from. lo == hi:
 * measured or read from an implementation (not varied by --sensitivity); lo < hi: an
 * assumption of this project, with the range it could take. None is tuned to a
 * finding of the study. docs/model.md prints the same table. */
static const gc_whatif_const paper_consts[] = {
	{ "device_flops", "TFLOP/s", 9.0, 9.0, 9.0, 1e12,
	  "measured: 367 img/s ResNet-50 fp32 on one V100 (NVIDIA DeepLearningExamples) x "
	  "24.5 GFLOPs per image" },
	{ "fwd_over_bwd", "", 0.5, 0.5, 0.5, 1,
	  "convention: backward = 2x forward FLOPs (as in the device_flops derivation)" },
	{ "lambda", "", 1.05, 1.04, 1.10, 1,
	  "measured by the study: 1.04 to 1.1 (compute slowed by concurrent NCCL)" },
	{ "alpha", "us", 25, 10, 100, 1e-6,
	  "assumption: per-hop latency of NCCL over TCP sockets in a data center" },
	{ "launch", "us", 10, 5, 20, 1e-6,
	  "assumption: one PyTorch eager op (dispatch + kernel launch) on the thread that "
	  "runs the comm hook; a public breakdown gives 5-25 us of CPU work per op on "
	  "H100/CUDA 12 (jiahuanglin.xyz, 'From PyTorch op to kernel launch'); no V100-era "
	  "figure found" },
	{ "sync", "us", 20, 10, 50, 1e-6,
	  "assumption: one host-device round trip (.item(), cuda.synchronize)" },
	{ "mem_bw", "GB/s", 720, 540, 810, 1e9,
	  "V100 HBM2 900 GB/s peak (NVIDIA V100 datasheet) x assumed 0.8 achieved "
	  "(range 0.6-0.9)" },
	{ "gemm_flops", "TFLOP/s", 3.9, 1.6, 7.9, 1e12,
	  "V100 fp32 15.7 TFLOP/s peak (datasheet) x assumed 0.25 for rank-4..16 products "
	  "(range 0.1-0.5)" },
	{ "topk_passes", "", 16, 6, 16, 1,
	  "assumption: radix-select passes of torch.topk over float32 (2-bit digits: 16; "
	  "newer 6-bit multi-block select: 6)" },
	{ "topk_mem_frac", "", 0.05, 0.0125, 1, 1,
	  "assumption: share of mem_bw torch.topk reaches on one large slice (one SM of 80 "
	  "to the whole device)" },
};
#define NPAPER (sizeof(paper_consts) / sizeof(paper_consts[0]))

const gc_whatif_const *gc_whatif_constants(size_t *n)
{
	*n = NPAPER;
	return paper_consts;
}

gc_rc gc_whatif_set_const(gc_whatif *w, const char *name, double v, gc_err *e)
{
	gc_model_params *mp = &w->mp;
	size_t i;

	for (i = 0; i < NPAPER && strcmp(paper_consts[i].name, name); i++)
		;
	if (i == NPAPER)
		return gc_fail(e, GC_E_INVAL, "unknown constant '%s' of the paper preset", name);
	if (!(v > 0))
		return gc_fail(e, GC_E_INVAL, "constant '%s': %g is not > 0", name, v);
	v *= paper_consts[i].scale;
	switch (i) {
	case 0: w->device_flops = v; break;
	case 1: mp->fwd_over_bwd = v; break;
	case 2: mp->lambda = v; break;
	case 3: mp->alpha = v; break;
	case 4: mp->dev.launch_s = v; break;
	case 5: mp->dev.sync_s = v; break;
	case 6: mp->dev.mem_Bps = v; break;
	case 7: mp->dev.flops = v; break;
	case 8: mp->dev.topk_passes = v; break;
	default: mp->dev.topk_mem_frac = v; break;
	}
	return GC_OK;
}

/* The `gcbench` preset: gcbench's own kernels. enc_x / dec_x of `make bench-kernels`
 * (docs/kernels.md, ResNet-50 rows, 2-core CPU, 4 workers: time / time of one memcpy of
 * the gradient), carried to the paper preset's device by assuming the same ratios to
 * a copy there: a copy moves 8 bytes per element at mem_bw (720 GB/s), so encode runs
 * at 720e9 / (8 enc_x) elements/s and decode at decode work (gc_model_decode_elems at
 * 4 workers, per element) x 720e9 / (8 dec_x). No GPU row was measured yet; PowerSGD's
 * rate is rank 4's for every rank; fp16 was not benchmarked (the paper preset's cost). */
static const double gcb_enc_x[GC_M__COUNT] = { 0, 0, 0.26, 1.39, 1.36, 1.78 };
static const double gcb_dec_x[GC_M__COUNT] = { 0, 0, 1.03, 0.54, 0.53, 1.06 };
static const double gcb_dec_work[GC_M__COUNT] = { 0, 0, 4, 1.04, 1.04, 1 };

static void gcbench_rates(gc_model_params *mp)
{
	double copy = 720e9 / 8;               /* elements/s of one memcpy */
	int m;

	for (m = GC_M_SIGNSGD; m <= GC_M_POWERSGD; m++) {   /* the measured rows only */
		mp->enc_rate[m] = copy / gcb_enc_x[m];
		mp->dec_rate[m] = gcb_dec_work[m] * copy / gcb_dec_x[m];
	}
}

gc_rc gc_whatif_preset(gc_whatif *w, const char *name, gc_err *e)
{
	gc_model_params *mp = &w->mp;
	size_t i;

	gc_model_params_default(mp);
	w->paper = 0;
	w->device_flops = GC_V100_FLOPS;
	mp->algo = GC_ALGO_AUTO;
	gc_strlcpy(w->source, name, sizeof(w->source));
	if (!strcmp(name, "ideal"))
		return GC_OK;
	if (strcmp(name, "paper") && strcmp(name, "gcbench"))
		return gc_fail(e, GC_E_INVAL, "unknown preset '%s'; use paper, gcbench or ideal",
			       name);
	w->paper = !strcmp(name, "paper");
	mp->codec_ops = 1;
	for (i = 0; i < NPAPER; i++)
		gc_whatif_set_const(w, paper_consts[i].name, paper_consts[i].value, NULL);
	if (!w->paper) {        /* gcbench: rates; fp16 its passes (codec.h) at mem_bw */
		gcbench_rates(mp);
		mp->codec_ops = 0;
		mp->enc_rate[GC_M_FP16] = mp->dev.mem_Bps / (2.5 * 4);
		mp->dec_rate[GC_M_FP16] = mp->dev.mem_Bps / (1.5 * 4);
		mp->enc_rate[GC_M_BF16] = mp->enc_rate[GC_M_FP16];
		mp->dec_rate[GC_M_BF16] = mp->dec_rate[GC_M_FP16];
	}
	return GC_OK;
}

gc_rc gc_whatif_scale_seq(gc_arch *a, int seq_len, gc_err *e)
{
	const double S0 = GC_ARCH_SEQ_LEN, S = seq_len;
	int max = !strcmp(a->name, "bert-base") ? 512 : !strcmp(a->name, "gpt2-small") ? 1024 : 0;
	size_t i;

	if (!max)
		return gc_fail(e, GC_E_INVAL, "--seq-len applies to bert-base and gpt2-small, "
			       "not '%s'", a->name);
	if (seq_len < 1 || seq_len > max)
		return gc_fail(e, GC_E_INVAL, "--seq-len %d is outside 1..%d (the positions "
			       "of %s)", seq_len, max, a->name);
	a->flops_fwd = 0;
	for (i = 0; i < a->n; i++) {
		gc_arch_tensor *t = &a->t[i];
		double lin = 2.0 * (double)t->numel * S0;   /* 2 in out per token */
		if (t->flops_fwd >= 0.99 * lin)              /* per-token layer (+ attention) */
			t->flops_fwd = lin * S / S0 + (t->flops_fwd - lin) * (S / S0) * (S / S0);
		a->flops_fwd += t->flops_fwd;
	}
	return GC_OK;
}

/* The time a speedup compares: the iteration, or with backward_only what CUDA events
 * around loss.backward() see (backward, exposed exchange, decodes). */
static double timed(const gc_whatif *w, const gc_model_result *r)
{
	return w->backward_only ? r->total - r->forward - r->optimizer : r->total;
}

gc_rc gc_whatif_eval(const gc_whatif *w, gc_arch *a, const gc_model_method *m, int p,
		     double bw_gbps, double s, double c, double *speedup, gc_model_result *rm,
		     gc_model_result *rs, gc_err *e)
{
	gc_model_method sync;
	gc_model_params mp = w->mp, ms;
	double ts, tm;
	gc_rc rc;
	int i;

	if (!(c > 0))
		c = s;
	gc_arch_set_timing(a, w->batch, w->device_flops > 0 ? w->device_flops : GC_V100_FLOPS, s);
	{   /* the ring's bottleneck: the slow host's link, or a share of an uplink, whose
	     * rate follows the nodes' nominal links */
		double slowest = w->slow > 0 && w->slow < 1 ? bw_gbps * w->slow : bw_gbps;
		if (w->racks > 1)
			bw_gbps = gc_racks_even_bps(p, mp.gpus_per_node, w->racks, bw_gbps,
						    w->uplink_gbps, w->oversub);
		bw_gbps = slowest < bw_gbps ? slowest : bw_gbps;
	}
	mp.bw = bw_gbps * 1e9 / 8 * gc_model_bg_share(w->bg_flows, 1.0);
	for (i = 0; i < GC_M__COUNT; i++) {
		mp.enc_rate[i] *= c;
		mp.dec_rate[i] *= c;
	}
	gc_codec_dev_scale(&mp.dev, c);
	ms = mp;
	if (w->sync_bucket_bytes > 0)
		ms.bucket_bytes = w->sync_bucket_bytes;
	if ((rc = gc_model_method_parse("syncsgd", &sync, e)) ||
	    (rc = gc_model_predict(a, &sync, &ms, p, rs, e)) ||
	    (rc = gc_model_predict(a, m, &mp, p, rm, e)))
		return rc;
	ts = timed(w, rs), tm = timed(w, rm);
	if (m->p.method == GC_M_POWERSGD && w->warmup_iters > 0 &&
	    w->timed_iters > w->warmup_iters) {      /* the first iterations all-reduce */
		gc_model_result rw;
		if ((rc = gc_model_predict(a, &sync, &mp, p, &rw, e)))
			return rc;
		tm = (w->warmup_iters * timed(w, &rw) + (w->timed_iters - w->warmup_iters) * tm) /
		     w->timed_iters;
	}
	*speedup = ts / tm;
	return GC_OK;
}

gc_rc gc_whatif_point(const gc_whatif *w, gc_arch *a, const gc_model_method *m, int p,
		      double bw_gbps, double s, double *speedup, gc_model_result *rm,
		      gc_model_result *rs, gc_err *e)
{
	return gc_whatif_eval(w, a, m, p, bw_gbps, s, s, speedup, rm, rs, e);
}

static gc_rc gain(const gc_whatif *w, gc_arch *a, const gc_model_method *m, int p, double s,
		  double c, double gbps, double *g, gc_err *e)
{
	gc_model_result rm, rs;
	gc_rc rc = gc_whatif_eval(w, a, m, p, gbps, s, c, g, &rm, &rs, e);

	*g -= 1;
	return rc;
}

gc_rc gc_whatif_crossover(const gc_whatif *w, gc_arch *a, const gc_model_method *m, int p,
			  double s, double c, double *gbps, gc_err *e)
{
	double lo = -1, hi = 4, g, step = 0.1, x;  /* log10 Gbit/s */
	int i, k, last = -1;
	gc_rc rc;

	for (i = 0; i <= 50; i++) {
		if ((rc = gain(w, a, m, p, s, c, pow(10, lo + step * i), &g, e)))
			return rc;
		if (g > 0)
			last = i;
	}
	if (last < 0 || last == 50) {
		*gbps = last < 0 ? 0 : INFINITY;
		return GC_OK;
	}
	lo = -1 + step * last, hi = lo + step;
	for (k = 0; k < 40; k++) {
		x = (lo + hi) / 2;
		if ((rc = gain(w, a, m, p, s, c, pow(10, x), &g, e)))
			return rc;
		if (g > 0)
			lo = x;
		else
			hi = x;
	}
	*gbps = pow(10, lo);
	return GC_OK;
}

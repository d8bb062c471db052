/* gcbench-bench-kernels: encode and decode time of every compressor at ResNet-50,
 * ResNet-101 and BERT-base size, as ratios to a memcpy of the same buffer measured in
 * the same run (docs/kernels.md defines every figure). A benchmark, not a test: it
 * never fails on time. One worker of a world of 4: decode sees 4 payloads (copies of
 * its own). Tensor shapes: the built-in architectures of formats/arch.c (no data files).
 * With CUDA, --spin adds the emulated compute's accuracy and its contention with an
 * encode on another stream (docs/cuda.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compress.h"
#include "plan.h"
#include "rng.h"
#include "log.h"
#include "opts.h"
#include "strutil.h"
#include "timing.h"
#include "formats/arch.h"

#ifndef GC_CUDA_KERNELS
#define GC_CUDA_KERNELS 0
#endif
#if GC_HAVE_CUDA && GC_CUDA_KERNELS
#include "kernels/cuda/cuda_util.h"
#define BENCH_CUDA 1
#else
#define BENCH_CUDA 0
#endif

#define WORLD 4
#define MAXT 1024
#define NMODELS 3
#define MAXONLY 16

/* --case: rows whose label contains one of these (all rows when none) */
static const char *only_case[MAXONLY];
static int nonly_case;

static int case_wanted(const char *label)
{
	for (int i = 0; i < nonly_case; i++)
		if (strstr(label, only_case[i]))
			return 1;
	return nonly_case == 0;
}

struct model {
	const char *name;
	size_t numel;
	gc_tensor_desc t[MAXT];
	size_t nt;
};

struct mcase {
	const char *label;
	gc_method m;
	const char *params;     /* "k=v,k=v" */
};

static const struct mcase cases[] = {
	{ "syncsgd", GC_M_SYNCSGD, "" },
	{ "fp16", GC_M_FP16, "" },
	{ "bf16", GC_M_BF16, "" },
	{ "randomk 1%", GC_M_RANDOMK, "ratio=0.01" },
	{ "terngrad", GC_M_TERNGRAD, "" },
	{ "qsgd 8-bit", GC_M_QSGD, "" },
	{ "qsgd 4-bit", GC_M_QSGD, "levels=7" },
	{ "efsign_ar (EF)", GC_M_EFSIGN_AR, "" },
	{ "signsgd", GC_M_SIGNSGD, "" },
	{ "signsgd scaled+ef", GC_M_SIGNSGD, "scaled=1,ef=1" },
	{ "topk 1%", GC_M_TOPK, "ratio=0.01" },
	{ "mstopk 1% r20", GC_M_MSTOPK, "ratio=0.01,rounds=20" },
	{ "dgc 1% m0.9", GC_M_DGC, "ratio=0.01" },
	{ "cgx 4-bit", GC_M_CGX, "" },
	{ "cgx 8-bit", GC_M_CGX, "bits=8" },
	{ "powersgd rank 4", GC_M_POWERSGD, "rank=4" },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static double median_ms(uint64_t *ns, int n)
{
	qsort(ns, (size_t)n, sizeof(*ns), cmp_u64);
	return (n % 2 ? (double)ns[n / 2] : 0.5 * (double)(ns[n / 2 - 1] + ns[n / 2])) / 1e6;
}

/* The model's tensors from its built-in definition (formats/arch.c); 0 if usable. */
static int model_layout(struct model *m)
{
	gc_arch a;
	gc_err e = { "" };
	size_t i;
	if (gc_arch_build(m->name, &a, &e)) {
		gc_error("%s", e.msg);
		return -1;
	}
	if (a.n > MAXT) {
		gc_error("%s has %zu tensors, more than %d", m->name, a.n, MAXT);
		gc_arch_release(&a);
		return -1;
	}
	for (i = 0; i < a.n; i++) {
		const gc_arch_tensor *x = &a.t[i];
		m->t[i] = gc_tensor_view(x->ndim, x->shape, x->numel);
	}
	m->nt = a.n;
	m->numel = a.numel;
	gc_arch_release(&a);
	return 0;
}

/* Device (CUDA) or host copies and waits, so that one timing loop serves both. */
static void xcopy(gc_backend be, void *dst, const void *src, size_t bytes)
{
#if BENCH_CUDA
	if (be == GC_BACKEND_CUDA) {
		gc_cuda_copy(dst, src, bytes, 2, NULL);
		return;
	}
#endif
	(void)be;
	memcpy(dst, src, bytes);
}

static void xsync(gc_backend be)
{
#if BENCH_CUDA
	if (be == GC_BACKEND_CUDA)
		gc_cuda_sync(NULL);
#endif
	(void)be;
}

/* The clock of a back end: CUDA events on the default stream (the device's own time of
 * the work between two marks, without the launch and wake-up latencies of a host clock
 * around a synchronization: they pulled the fastest ratios towards 1), or the host
 * clock. Marks are numbered; spans are read once the work is done. */
#define NMARK 10
struct clk {
	gc_backend be;
	uint64_t host[NMARK];
	void *ev[NMARK];
};

static gc_rc clk_init(struct clk *k, gc_backend be)
{
	memset(k, 0, sizeof(*k));
	k->be = be;
#if BENCH_CUDA
	for (int i = 0; be == GC_BACKEND_CUDA && i < NMARK; i++)
		if (gc_cuda_event_new(&k->ev[i]))
			return GC_E_CUDA;
#endif
	return GC_OK;
}

static void clk_release(struct clk *k)
{
#if BENCH_CUDA
	for (int i = 0; i < NMARK; i++)
		gc_cuda_event_free(k->ev[i]);
#endif
	(void)k;
}

static gc_rc clk_mark(struct clk *k, int i)
{
#if BENCH_CUDA
	if (k->be == GC_BACKEND_CUDA)
		return gc_cuda_event_record(k->ev[i], NULL);
#endif
	k->host[i] = gc_now_ns();
	return GC_OK;
}

/* Nanoseconds from mark a to mark b (0 if the events cannot be read). */
static uint64_t clk_ns(struct clk *k, int a, int b)
{
#if BENCH_CUDA
	if (k->be == GC_BACKEND_CUDA) {
		double ms = 0;
		return gc_cuda_event_ms(k->ev[a], k->ev[b], &ms) || ms < 0 ? 0 : (uint64_t)(ms * 1e6 + 0.5);
	}
#endif
	return k->host[b] - k->host[a];
}

/* One copy of bytes, timed on k (marks 0 and 1). */
static uint64_t timed_copy(struct clk *k, void *dst, const void *src, size_t bytes)
{
	clk_mark(k, 0);
	xcopy(k->be, dst, src, bytes);
	clk_mark(k, 1);
	xsync(k->be);
	return clk_ns(k, 0, 1);
}

static double bench_copy(struct clk *k, void *dst, const void *src, size_t bytes, int reps)
{
	uint64_t ns[64];
	int r;

	for (r = 0; r <= reps; r++)              /* rep 0 is a warm-up */
		ns[r ? r - 1 : 0] = timed_copy(k, dst, src, bytes);
	return median_ms(ns, reps);
}

/* The collective for worker 0 of WORLD, faked: every worker sent worker 0's payload
 * (all-gather), or the sum is left as worker 0's own values (all-reduce), or every
 * worker sent worker 0's own blocks (all-to-all). */
static void fake_round(gc_backend be, const gc_round *r)
{
	size_t bytes = r->count * gc_dtype_size(r->dtype);

	for (int w = 0; r->coll == GC_COLL_ALLGATHER && w < WORLD; w++)
		xcopy(be, (char *)r->recv + (size_t)w * bytes, r->send, bytes);
	if (r->coll == GC_COLL_ALLREDUCE && r->recv != r->send)
		xcopy(be, r->recv, r->send, bytes);
	if (r->coll == GC_COLL_ALLTOALL)
		xcopy(be, r->recv, r->send, bytes * WORLD);
	xsync(be);
}

/* One encode (with round_done, without the faked collective) and one decode, timed on
 * k: marks 0-1 the encode, 2i+2 - 2i+3 round i's round_done, 8-9 the decode. */
static gc_rc one_step(gc_bucket *b, struct clk *k, const float *g, float *avg,
		      uint64_t *enc, uint64_t *dec)
{
	gc_round r;
	gc_rc rc;
	int nr = 0;

	clk_mark(k, 0);
	rc = gc_encode(b, g);
	clk_mark(k, 1);
	while (!rc && gc_round_get(b, &r)) {
		if (nr == 3) {
			gc_error("more than 3 rounds in one step");
			return GC_E_STATE;
		}
		fake_round(k->be, &r);
		clk_mark(k, 2 * nr + 2);
		rc = gc_round_done(b);
		clk_mark(k, 2 * nr + 3);
		nr++;
	}
	clk_mark(k, 8);
	if (!rc)
		rc = gc_decode(b, avg);
	clk_mark(k, 9);
	xsync(k->be);
	*enc = clk_ns(k, 0, 1);
	for (int i = 0; i < nr; i++)
		*enc += clk_ns(k, 2 * i + 2, 2 * i + 3);
	*dec = clk_ns(k, 8, 9);
	return rc;
}

struct result {
	double enc_ms, dec_ms;
	double ref_ms;          /* the copy, timed between this case's steps */
	size_t payload;
	double floor_x;         /* the method's floor over memcpy's 8 n bytes */
};

/* The bytes encode + decode must read and write at the least (one worker of WORLD),
 * over memcpy's 8 n (n floats read and written): docs/kernels.md, "Floors". Payload
 * terms: encode writes its payload, decode reads every worker's (all-gather) or the
 * sum (all-reduce). */
static double floor_x(const gc_params *p, const gc_plan *pl)
{
	double n = (double)pl->numel, P = WORLD, pay = (double)gc_plan_payload_bytes(pl);
	double k = (double)pl->k, b = 0;

	switch (p->method) {
	case GC_M_SYNCSGD:      /* all-reduce in place; decode reads the sum, writes avg */
		b = 8 * n;
		break;
	case GC_M_FP16:
	case GC_M_BF16:         /* read c, write half; read the sum, write avg */
		b = 4 * n + pay + pay + 4 * n;
		break;
	case GC_M_EFSIGN_AR:    /* read c (+ e, write e), write the bf16 terms; read the sum,
	                         * write avg */
		b = 4 * n + (p->ef ? 8 * n : 0) + pay + pay + 4 * n;
		break;
	case GC_M_SIGNSGD:      /* read c (+ e, write e); decode reads p payloads, writes avg */
		b = 4 * n + (p->ef ? 8 * n : 0) + pay + P * pay + 4 * n;
		break;
	case GC_M_TERNGRAD:     /* read g for the per-tensor scales, again for the codes
	                         * (a tensor outgrows the cache), write them; decode reads
	                         * p payloads, writes avg */
		b = 8 * n + pay + P * pay + 4 * n;
		break;
	case GC_M_QSGD:         /* read g once (a norm bucket's second read is cached),
	                         * write the codes; decode reads p payloads, writes avg */
		b = 4 * n + pay + P * pay + 4 * n;
		break;
	case GC_M_RANDOMK:      /* read g (+ e, write e) or only the k picked; decode writes
	                         * avg; the k values written and their sum read */
		b = (p->ef ? 12 * n : 4 * k) + 4 * k + 4 * k + 4 * n;
		break;
	case GC_M_TOPK:
	case GC_M_MSTOPK:       /* read c (+ e, write e); write the k pairs; decode writes
	                         * avg and reads p payloads */
		b = 4 * n + (p->ef ? 8 * n : 0) + 8 * k + 4 * n + P * 8 * k;
		break;
	case GC_M_CGX: {        /* read g once (a bucket of 512 stays in cache for its min,
	                         * max and levels), write the p chunks; read the p chunks
	                         * received, write the requantized sum (one chunk: summed in
	                         * cache, bucket by bucket); decode reads p chunks, writes
	                         * avg. pay is the p chunks plus one */
		double chunks = pay * P / (P + 1);
		b = 4 * n + chunks + chunks + chunks / P + chunks + 4 * n;
		break;
	}
	case GC_M_DGC:          /* read g, u, v; write u, v (u = m u + g, v += u); write the
	                         * k pairs; decode as topk; clipping reads g once more */
		b = 20 * n + (p->clip > 0 ? 4 * n : 0) + 8 * k + 4 * n + P * 8 * k;
		break;
	case GC_M_POWERSGD: {   /* matrices with EF: read g and e (P = M Q on the way); M
	                         * again for Q = M^T P (written then read, or g and e read
	                         * again: 8 either way); decode writes avg. e' = M - P Q^T
	                         * need not be written: M, P and Q give it to the next
	                         * step's encode, which reads e anyway. Without EF: g for
	                         * P, again for Q. Uncompressed: as syncsgd; P, Q small */
		double nc = n - (double)pl->nu;
		b = nc * (p->ef ? 8 + 8 : 4 + 4) + 4 * nc + 8 * (double)pl->nu +
		    2 * 4 * (double)(pl->np + pl->nq);
		break;
	}
	default:
		b = 8 * n;
	}
	return b / (8 * n);
}

static gc_rc bench_case(const struct model *m, const struct mcase *c, gc_backend be,
			const float *g, float *avg, int reps, struct result *res)
{
	uint64_t enc[64], dec[64], ref[64];
	gc_params p;
	gc_bucket *b = NULL;
	gc_err e = { "" };
	gc_rc rc = GC_OK;
	struct clk k;
	int r;

	gc_params_default(&p, c->m);
	rc = gc_params_set_list(&p, c->params, &e);
	if (!rc)
		rc = gc_bucket_new(&b, &p, be, NULL, m->t, m->nt, WORLD, 0, &e);
	if (rc) {
		gc_error("%s on %s: %s", c->label, m->name, e.msg);
		return rc;
	}
	if (clk_init(&k, be)) {
		gc_error("%s on %s: cannot create the timing events", c->label, m->name);
		gc_bucket_free(b);
		return GC_E_CUDA;
	}
	for (r = 0; r <= reps && !rc; r++) {    /* rep 0 is a warm-up */
		/* the reference, interleaved */
		ref[r ? r - 1 : 0] = timed_copy(&k, avg, g, m->numel * sizeof(float));
		rc = one_step(b, &k, g, avg, &enc[r ? r - 1 : 0], &dec[r ? r - 1 : 0]);
	}
	res->payload = gc_bucket_payload_bytes(b);
	{
		gc_plan pl;
		gc_plan_begin(&pl, &p);
		pl.world = WORLD;               /* cgx's chunks */
		for (size_t i = 0; i < m->nt; i++)
			gc_plan_add(&pl, &m->t[i]);
		gc_plan_end(&pl);
		res->floor_x = floor_x(&p, &pl);
	}
	res->enc_ms = median_ms(enc, reps);
	res->dec_ms = median_ms(dec, reps);
	res->ref_ms = median_ms(ref, reps);
	clk_release(&k);
	gc_bucket_free(b);
	if (rc)
		gc_error("%s on %s: a step failed: %s", c->label, m->name, gc_strerror(rc));
	return rc;
}

static void print_row(const struct model *m, const char *label, const struct result *r,
		      const char *be)
{
	double gb = (double)m->numel * 4 / 1e9;

	double edx = (r->enc_ms + r->dec_ms) / r->ref_ms;

	printf("%-9s %-4s %-18s %8.2f %8.2f %8.2f %6.2f %6.2f %6.2f %8.2f %7.1f %6.2f %7.2f\n",
	       m->name, be, label, r->ref_ms, r->enc_ms, r->dec_ms, r->enc_ms / r->ref_ms,
	       r->dec_ms / r->ref_ms, edx, gb / (r->enc_ms / 1e3),
	       (double)m->numel * 4 / (double)r->payload, r->floor_x, edx / r->floor_x);
}

static void header(void)
{
	printf("%-9s %-4s %-18s %8s %8s %8s %6s %6s %6s %8s %7s %6s %7s\n", "model", "be",
	       "method", "ref_ms", "enc_ms", "dec_ms", "enc_x", "dec_x", "e+d_x", "enc_GB/s",
	       "ratio", "floor", "/floor");
}

/* Every case on one model and back end; g and avg live where the back end computes. */
static int bench_model(const struct model *m, gc_backend be, const float *g, float *avg,
		       int reps)
{
	const char *bn = be == GC_BACKEND_CPU ? "cpu" : "cuda";
	double copy_ms;
	int fails = 0;
	struct clk k;
	size_t i;

	if (clk_init(&k, be)) {
		gc_error("%s: cannot create the timing events", m->name);
		return 1;
	}
	copy_ms = bench_copy(&k, avg, g, m->numel * sizeof(float), reps);
	clk_release(&k);
	/* the copy's GB/s: bytes read plus written (the copy floor of the other rows) */
	printf("%-9s %-4s %-18s %8.2f %8s %8s %6s %6s %6s %8.2f %7s\n", m->name, bn,
	       be == GC_BACKEND_CPU ? "memcpy (ref)" : "cudaMemcpy d2d", copy_ms, "-", "-", "-",
	       "-", "-", 2.0 * (double)m->numel * 4 / 1e9 / (copy_ms / 1e3), "-");
	fflush(stdout);
	for (i = 0; i < NCASES; i++) {
		struct result r;
		if (!case_wanted(cases[i].label))
			continue;
		if (bench_case(m, &cases[i], be, g, avg, reps, &r)) {
			fails++;
			continue;
		}
		print_row(m, cases[i].label, &r, bn);
		fflush(stdout);
	}
	return fails;
}

#if BENCH_CUDA
static int bench_cuda(const struct model *m, const float *g, int reps)
{
	static int warm;
	void *dg = NULL, *da = NULL;
	size_t bytes = m->numel * sizeof(float);
	int fails = 1;

	if (!warm) {       /* the SM clock idles low (345 MHz on an H200) and ramps under load */
		warm = 1;
		if (gc_cuda_spin(0.3, NULL) || gc_cuda_sync(NULL))
			return 1;
		printf("# cuda: clocks warmed up by a 300 ms spin before the first model\n");
	}
	if (!gc_cuda_alloc(&dg, bytes) && !gc_cuda_alloc(&da, bytes) &&
	    !gc_cuda_copy(dg, g, bytes, 0, NULL) && !gc_cuda_sync(NULL))
		fails = bench_model(m, GC_BACKEND_CUDA, dg, da, reps);
	else
		gc_error("%s: cannot set up device buffers of %zu bytes", m->name, bytes);
	if (dg)
		gc_cuda_free(dg);
	if (da)
		gc_cuda_free(da);
	return fails;
}
#endif

static int run_model(struct model *m, int reps, int cpu)
{
	float *g, *avg;
	uint64_t s = 1;
	int fails = 0;

	if (model_layout(m))
		return 1;
	printf("# %s: %zu elements in %zu tensors (formats/arch.c)\n", m->name, m->numel, m->nt);
	g = malloc(m->numel * sizeof(float));
	avg = malloc(m->numel * sizeof(float));
	if (!g || !avg) {
		gc_error("%s: out of memory for %zu floats", m->name, m->numel);
		free(g);
		free(avg);
		return 1;
	}
	gc_rng_normal(&s, g, m->numel);
	memset(avg, 0, m->numel * sizeof(float));
	if (cpu)
		fails = bench_model(m, GC_BACKEND_CPU, g, avg, reps);
#if BENCH_CUDA
	if (gc_cuda_available())
		fails += bench_cuda(m, g, reps);
#endif
	free(g);
	free(avg);
	return fails;
}

#if BENCH_CUDA
static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Host times (ms) until streams a and b are done, polled together. */
static int wait_two(void *a, void *b, uint64_t t0, double *ta, double *tb)
{
	int da = 0, db = 0;
	while (!da || !db) {
		int qa = da ? 1 : gc_cuda_stream_done(a), qb = db ? 1 : gc_cuda_stream_done(b);
		uint64_t now = gc_now_ns();
		if (qa < 0 || qb < 0)
			return -1;
		if (qa && !da)
			da = 1, *ta = (double)(now - t0) / 1e6;
		if (qb && !db)
			db = 1, *tb = (double)(now - t0) / 1e6;
	}
	return 0;
}

/* The emulated backward as the worker queues it: slices of 0.25 ms back to back. */
static gc_rc spin_sliced(double ms, void *stream)
{
	gc_rc rc = GC_OK;
	for (double left = ms; !rc && left > 1e-9; left -= 0.25)
		rc = gc_cuda_spin((left < 0.25 ? left : 0.25) / 1e3, stream);
	return rc;
}

/* Requested vs measured seconds of gc_cuda_spin, alone, one launch and sliced. */
static int spin_accuracy(int reps)
{
	static const double req[] = { 0.5, 2, 10, 50, 200 };
	void *st = NULL;
	if (gc_cuda_spin_calibrate() || gc_cuda_stream_new(&st))
		return 1;
	printf("# spin: %u blocks of 256 threads (one resident wave); host time to completion, median of %d\n",
	       gc_cuda_spin_blocks(), reps);
	printf("%-12s %10s %10s %8s %12s %8s\n", "spin", "req_ms", "one_ms", "one_x", "sliced_ms", "sliced_x");
	for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
		uint64_t one[64], sl[64];
		for (int r = 0; r < reps; r++) {
			uint64_t t0 = gc_now_ns();
			gc_cuda_spin(req[i] / 1e3, st);
			gc_cuda_sync(st);
			one[r] = gc_now_ns() - t0;
			t0 = gc_now_ns();
			spin_sliced(req[i], st);
			gc_cuda_sync(st);
			sl[r] = gc_now_ns() - t0;
		}
		double a = median_ms(one, reps), b = median_ms(sl, reps);
		printf("%-12s %10.3f %10.3f %8.3f %12.3f %8.3f\n", "spin", req[i], a, a / req[i], b, b / req[i]);
	}
	gc_cuda_stream_free(st);
	return 0;
}

/* One method on ResNet-50 buckets of one stream while the emulated backward (2x the
 * encode's own time, at least 5 ms, sliced) runs on another: both slowdowns. */
static int contention_case(const struct model *m, const struct mcase *c, const float *dg, int reps)
{
	void *sa = NULL, *sb = NULL;
	gc_bucket *b = NULL;
	gc_params p;
	gc_err e = { "" };
	uint64_t alone[64];
	double enc_alone, spin_ms, ta[64], tb[64];
	gc_rc rc = GC_OK;
	int r;

	gc_params_default(&p, c->m);
	rc = gc_params_set_list(&p, c->params, &e);
	if (!rc)
		rc = gc_cuda_stream_new(&sa);
	if (!rc)
		rc = gc_cuda_stream_new(&sb);
	if (!rc)
		rc = gc_bucket_new(&b, &p, GC_BACKEND_CUDA, sb, m->t, m->nt, WORLD, 0, &e);
	for (r = 0; !rc && r <= reps; r++) {   /* rep 0: warm-up */
		uint64_t t0 = gc_now_ns();
		rc = gc_encode(b, dg);
		if (!rc)
			rc = gc_cuda_sync(sb);
		alone[r ? r - 1 : 0] = gc_now_ns() - t0;
	}
	enc_alone = rc ? 0 : median_ms(alone, reps);
	spin_ms = 2 * enc_alone > 5 ? 2 * enc_alone : 5;
	for (r = 0; !rc && r < reps; r++) {
		double t_spin = 0, t_enc = 0;
		uint64_t t0 = gc_now_ns();
		rc = spin_sliced(spin_ms, sa);
		if (!rc)
			rc = gc_encode(b, dg);
		if (!rc && wait_two(sa, sb, t0, &t_spin, &t_enc))
			rc = GC_E_CUDA;
		ta[r] = t_spin, tb[r] = t_enc;
	}
	if (!rc) {
		qsort(ta, (size_t)reps, sizeof(double), cmp_dbl);
		qsort(tb, (size_t)reps, sizeof(double), cmp_dbl);
		printf("%-9s %-18s %9.3f %9.3f %8.3f %9.3f %9.3f %8.3f\n", m->name, c->label, spin_ms,
		       ta[reps / 2], ta[reps / 2] / spin_ms, enc_alone, tb[reps / 2], tb[reps / 2] / enc_alone);
	} else {
		gc_error("contention %s on %s failed: %s%s%s", c->label, m->name, gc_strerror(rc),
			 e.msg[0] ? ": " : "", e.msg);
	}
	gc_bucket_free(b);
	gc_cuda_stream_free(sa);
	gc_cuda_stream_free(sb);
	return rc ? 1 : 0;
}

static int bench_spin(int reps)
{
	struct model *m = calloc(1, sizeof(*m));
	void *dg = NULL;
	float *g = NULL;
	uint64_t s = 1;
	int fails = 1;
	size_t i;

	if (!m || spin_accuracy(reps))
		goto out;
	m->name = "resnet50";
	if (model_layout(m) || !(g = malloc(m->numel * sizeof(float))))
		goto out;
	gc_rng_normal(&s, g, m->numel);
	if (gc_cuda_alloc(&dg, m->numel * sizeof(float)) ||
	    gc_cuda_copy(dg, g, m->numel * sizeof(float), 0, NULL) || gc_cuda_sync(NULL))
		goto out;
	printf("# contention: the emulated backward (spin_ms, 0.25 ms slices) on one stream, an encode "
	       "on another, started together;\n# *_x = time beside the other / time alone\n");
	printf("%-9s %-18s %9s %9s %8s %9s %9s %8s\n", "model", "method", "spin_ms", "spin_with", "spin_x",
	       "enc_ms", "enc_with", "enc_x");
	fails = 0;
	for (i = 0; i < NCASES; i++)
		if (case_wanted(cases[i].label))
			fails += contention_case(m, &cases[i], dg, reps);
out:
	gc_cuda_free(dg);
	free(g);
	free(m);
	return fails;
}
#endif

static const char *only[NMODELS];
static int reps = 5, nonly, cpu = 1, spin;

static gc_rc model_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (nonly == NMODELS)
		return gc_fail(e, GC_E_INVAL, "too many --model options (at most %d)", NMODELS);
	only[nonly++] = v;
	return GC_OK;
}

static gc_rc case_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	if (nonly_case == MAXONLY)
		return gc_fail(e, GC_E_INVAL, "too many --case options (at most %d)", MAXONLY);
	only_case[nonly_case++] = v;
	return GC_OK;
}

static const struct gc_option bench_opts[] = {
	GC_OPTION_INT("--reps", NULL, &reps, 1, 63, "N", "repetitions of each step (1-63); 5"),
	GC_OPTION_CALLBACK("--model", NULL, GC_OPT_ARG, model_cb, "M",
			   "resnet50, resnet101 or bert-base (repeatable); all three"),
	GC_OPTION_CALLBACK("--case", NULL, GC_OPT_ARG, case_cb, "TEXT",
			   "keep the rows whose method label contains TEXT (repeatable)"),
	GC_OPTION_SET("--cuda-only", NULL, &cpu, 0, "leave out the CPU rows"),
	GC_OPTION_FLAG("--spin", NULL, &spin, "(CUDA) the emulated compute's accuracy and its\n"
		       "contention with an encode on another stream"),
	GC_OPTION_DOC("--help", NULL, "this text"),
};

static void usage(FILE *f)
{
	fprintf(f, "usage: gcbench-bench-kernels [--reps N] [--model resnet50|resnet101|bert-base]...\n"
		   "                             [--case TEXT]... [--cuda-only] [--spin]\n\n"
		   "Times encode and decode of every compressor (one worker of a world of %d) at\n"
		   "ResNet-50, ResNet-101 and BERT-base size and prints them as ratios to a memcpy of\n"
		   "the same buffer measured in the same run (see docs/kernels.md). Tensor shapes are\n"
		   "the built-in architectures (formats/arch.c). --case keeps the rows whose method\n"
		   "label contains TEXT (\"qsgd\", \"scaled\"). --cuda-only leaves out the CPU rows;\n"
		   "--spin (CUDA) adds the emulated compute's accuracy and its contention with an\n"
		   "encode on another stream (docs/cuda.md).\n\n", WORLD);
	gc_opts_usage(f, bench_opts, sizeof bench_opts / sizeof bench_opts[0], 16);
	fputs("\nexample:\n  gcbench-bench-kernels --reps 3 --model resnet50\n", f);
}

int main(int argc, char **argv)
{
	static struct model models[NMODELS] = {
		{ .name = "resnet50" }, { .name = "resnet101" }, { .name = "bert-base" },
	};
	int fails = 0, i, j, r;
	gc_opts p;

	gc_log_init("gcbench-bench-kernels", GC_LOG_INFO);
	gc_opts_decl_init(&p, "gcbench-bench-kernels", bench_opts,
			  sizeof bench_opts / sizeof bench_opts[0], argc, argv, NULL);
	r = gc_opts_parse_all(&p);
	if (r == GC_OPTS_HELP) {
		usage(stdout);
		return GC_EXIT_OK;
	}
	if (r != GC_OPTS_END) {
		gc_error("%s", r == GC_OPTS_VERSION ? "unknown option '--version' for "
			 "gcbench-bench-kernels (see 'gcbench-bench-kernels --help')" : p.err.msg);
		usage(stderr);
		return GC_EXIT_USAGE;
	}
	printf("# gcbench-bench-kernels: median of %d reps after a warm-up; world %d; %s\n",
	       reps, WORLD, gc_cuda_available() ? "CUDA available" : "no CUDA device");
	printf("# ref_ms: memcpy of the same bytes, timed between the steps of each row; "
	       "x = time / ref_ms (lower is better);\n# enc_GB/s: float32 input encoded per "
	       "second (the copy rows: bytes read plus written); ratio = float32 bytes / payload\n"
	       "# cuda rows: CUDA events on the stream that runs the work; cpu rows: the host clock\n");
	header();
	for (i = 0; i < nonly; i++) {
		for (j = 0; j < NMODELS && strcmp(only[i], models[j].name); j++)
			;
		if (j == NMODELS) {
			gc_error("unknown model '%s' (resnet50, resnet101, bert-base)", only[i]);
			return GC_EXIT_USAGE;
		}
	}
	if (!cpu && !gc_cuda_available()) {
		gc_error("--cuda-only but no CUDA device is usable");
		return GC_EXIT_FAILED;
	}
	for (j = 0; j < NMODELS; j++) {
		int want = !nonly;
		for (i = 0; i < nonly; i++)
			want |= !strcmp(only[i], models[j].name);
		if (want)
			fails += run_model(&models[j], reps, cpu);
	}
#if BENCH_CUDA
	if (spin && gc_cuda_available())
		fails += bench_spin(reps);
#endif
	if (spin && !BENCH_CUDA)
		gc_warn("--spin needs a CUDA build and device");
	return fails ? GC_EXIT_FAILED : GC_EXIT_OK;
}

/* tests/unit/test_model.c: the performance model against hand-computed cases, the
 * bucketing and payload rules, and the fits on synthetic data with known parameters. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "model/model.h"

/* An arch of nt 1-D tensors of n elements each, every t_bwd = tb. */
static int flat_arch(gc_arch *a, int nt, size_t n, double tb)
{
	char buf[2048];
	int i, off = snprintf(buf, sizeof(buf), "index,name,shape,numel\n");
	gc_err e;

	for (i = 0; i < nt; i++)
		off += snprintf(buf + off, sizeof(buf) - (size_t)off, "%d,t%d,%zu,%zu\n", i, i, n, n);
	if (gc_arch_parse_csv(buf, (size_t)off, "flat", a, &e))
		return -1;
	for (i = 0; i < nt; i++)
		a->t[i].t_bwd = tb;
	return 0;
}

static gc_model_method method(const char *spec)
{
	gc_model_method m;
	gc_err e;
	if (gc_model_method_parse(spec, &m, &e))
		fprintf(stderr, "bad spec %s: %s\n", spec, e.msg);
	return m;
}

static void params(gc_model_params *mp, double alpha, double bw)
{
	gc_model_params_default(mp);
	mp->alpha = alpha;
	mp->bw = bw;
}

static void test_single_bucket(void)
{
	gc_model_method m = method("syncsgd");
	gc_model_params mp;
	gc_model_result r;
	gc_arch a;
	gc_err e;

	CHECK(!flat_arch(&a, 1, 1000000, 0.1));
	params(&mp, 0, 1e9);
	CHECK(!gc_model_predict(&a, &m, &mp, 4, &r, &e));
	gc_arch_release(&a);
	CHECK_EQ_INT(r.nbuckets, 1);
	CHECK_NEAR(r.comm, 2 * 4e6 * 3 / (4 * 1e9), 1e-12);        /* 6 ms */
	CHECK_NEAR(r.total, 0.05 + 0.1 + 0.006, 1e-12);
	CHECK_NEAR(r.exposed, 0.006, 1e-12);
	CHECK_EQ_INT(r.bytes_sent, 4000000);
}

/* 4 buckets of 4 MB, 10 ms backward each, 20 ms per all-reduce: comm-bound chain. */
static void test_many_buckets_comm_bound(void)
{
	gc_model_method m = method("syncsgd");
	gc_model_params mp;
	gc_model_result r;
	gc_arch a;
	gc_err e;

	CHECK(!flat_arch(&a, 4, 1000000, 0.01));
	params(&mp, 0, 2e8);            /* p = 2: T_ar = 4e6 / 2e8 = 20 ms */
	mp.first_bucket_bytes = mp.bucket_bytes = 1;
	CHECK(!gc_model_predict(&a, &m, &mp, 2, &r, &e));
	gc_arch_release(&a);
	CHECK_EQ_INT(r.nbuckets, 4);
	/* exchanges 10-30, 30-50, 50-70, 70-90 ms after backward starts; forward 20 ms */
	CHECK_NEAR(r.total, 0.020 + 0.090, 1e-12);
	CHECK_NEAR(r.comm, 0.080, 1e-12);
	CHECK_NEAR(r.exposed, 0.050, 1e-12);
	/* the study's form lets the first exchange start at 0: 20 + max(40, 80) */
	CHECK_NEAR(r.study, 0.100, 1e-12);
}

static void test_compute_bound(void)
{
	gc_model_method m = method("syncsgd");
	gc_model_params mp;
	gc_model_result r;
	gc_arch a;
	gc_err e;

	CHECK(!flat_arch(&a, 4, 1000000, 0.01));
	params(&mp, 0, 1e12);
	mp.first_bucket_bytes = mp.bucket_bytes = 1;
	mp.lambda = 1.1;
	CHECK(!gc_model_predict(&a, &m, &mp, 2, &r, &e));
	gc_arch_release(&a);
	/* only the last bucket's 4 us exchange is exposed; lambda slows backward */
	CHECK_NEAR(r.total, 0.020 + 1.1 * 0.040 + 4e-6, 1e-12);
	CHECK_NEAR(r.exposed, 4e-6, 1e-12);
	CHECK_NEAR(r.compute, 0.020 + 0.044, 1e-12);
}

static void test_allgather_grows_with_p(void)
{
	gc_model_params mp;

	params(&mp, 0, 1e9);
	CHECK_NEAR(gc_model_allgather(&mp, 16, 1e6) / gc_model_allgather(&mp, 4, 1e6), 5.0, 1e-12);
	CHECK_NEAR(gc_model_allreduce(&mp, 16, 1e6) / gc_model_allreduce(&mp, 4, 1e6), 1.25, 1e-12);
	mp.alpha = 1e-3;
	CHECK_NEAR(gc_model_allgather(&mp, 8, 1e6), 7e-3 + 7e6 / 1e9, 1e-12);
	CHECK_NEAR(gc_model_allreduce(&mp, 8, 1e6), 14e-3 + 2 * 7e6 / 8e9, 1e-12);
	CHECK_NEAR(gc_model_allreduce(&mp, 1, 1e6), 0, 0);
}

static void test_signsgd_event(void)
{
	gc_model_method m = method("signsgd");
	gc_model_params mp;
	gc_model_result r;
	gc_arch a;
	gc_err e;

	CHECK(!flat_arch(&a, 1, 800000, 0.1));
	params(&mp, 0, 1e9);
	mp.enc_rate[GC_M_SIGNSGD] = 8e7;       /* 10 ms */
	mp.dec_rate[GC_M_SIGNSGD] = 3.2e8;     /* n p = 3.2e6 elements: 10 ms */
	CHECK(!gc_model_predict(&a, &m, &mp, 4, &r, &e));
	gc_arch_release(&a);
	CHECK_EQ_INT(r.bytes_sent, 100000);
	CHECK_NEAR(r.comm, 3 * 1e5 / 1e9, 1e-12);
	CHECK_NEAR(r.encode, 0.01, 1e-12);
	CHECK_NEAR(r.decode, 0.01, 1e-12);
	CHECK_NEAR(r.total, 0.05 + 0.1 + 0.01 + 3e-4 + 0.01, 1e-12);
}

static void test_powersgd_two_rounds(void)
{
	static const char csv[] = "index,name,shape,numel\n0,w,1000x1000,1000000\n1,b,1000,1000\n";
	gc_model_method m = method("powersgd:rank=4");
	gc_model_params mp;
	gc_model_result r;
	gc_buckets bk;
	size_t r0, r1;
	gc_arch a;
	gc_err e;

	CHECK(!gc_arch_parse_csv(csv, strlen(csv), "p", &a, &e));
	CHECK(!gc_buckets_make(&a, 1 << 30, 1 << 30, &bk, &e));
	CHECK(gc_model_payload(&a, &bk.b[0], &m, &r0, &r1) == 0);
	CHECK_EQ_INT(r0, 4 * (1000 * 4 + 1000));
	CHECK_EQ_INT(r1, 4 * 1000 * 4);
	gc_buckets_release(&bk);
	params(&mp, 1e-3, 1e9);
	CHECK(!gc_model_predict(&a, &m, &mp, 4, &r, &e));
	gc_arch_release(&a);
	/* two sequential all-reduces: the latency 2 a (p-1) is paid twice */
	CHECK_NEAR(r.comm, 2 * 6e-3 + 2 * (20000.0 + 16000.0) * 3 / (4 * 1e9), 1e-12);
	CHECK_EQ_INT(r.bytes_sent, 36000);
}

static void test_payloads(void)
{
	static const char csv[] = "index,name,shape,numel\n0,m,10x3,30\n1,v,17,17\n";
	gc_model_method m;
	gc_bucket_span s = { 0, 2, 47 };
	size_t r0, r1;
	gc_arch a;
	gc_err e;

	CHECK(!gc_arch_parse_csv(csv, strlen(csv), "p", &a, &e));
	m = method("signsgd");
	CHECK(gc_model_payload(&a, &s, &m, &r0, &r1) == 1 && r0 == 6 && r1 == 0);
	m = method("signsgd:scaled=1");
	CHECK(gc_model_payload(&a, &s, &m, &r0, &r1) == 1 && r0 == 6 + 8);
	m = method("topk:ratio=0.01");        /* k = max(1, ceil(0.47)) = 1 */
	CHECK(gc_model_payload(&a, &s, &m, &r0, &r1) == 1 && r0 == 8);
	m = method("mstopk:ratio=0.1");       /* ceil(4.7) = 5 */
	CHECK(gc_model_payload(&a, &s, &m, &r0, &r1) == 1 && r0 == 40);
	m = method("fp16");
	CHECK(gc_model_payload(&a, &s, &m, &r0, &r1) == 0 && r0 == 94);
	m = method("syncsgd");
	CHECK(gc_model_payload(&a, &s, &m, &r0, &r1) == 0 && r0 == 188);
	/* 10x3 at rank 4: r' = 3, 30 < 2 * 13 * 3, so it is sent whole */
	m = method("powersgd:rank=4");
	CHECK(gc_model_payload(&a, &s, &m, &r0, &r1) == 0 && r0 == 188 && r1 == 0);
	m = method("powersgd:rank=1,min_compression=1");   /* 30 >= 13: P 10, Q 3 */
	CHECK(gc_model_payload(&a, &s, &m, &r0, &r1) == 0 && r0 == 4 * (10 + 17) && r1 == 12);
	/* cgx among 4: chunks of ceil(47 / 4) = 12 elements at 4 bits in buckets of 5: 3
	 * (mn, unit) pairs, 3 + 3 + 1 bytes of levels = 31; an all-reduce of the 4 chunks */
	m = method("cgx:bucket_size=5");
	CHECK(gc_model_payload_p(&a, &s, &m, 4, &r0, &r1) == 0 && r0 == 4 * 31 && r1 == 0);
	m = method("dgc:ratio=0.1");          /* the final k, 5 pairs */
	CHECK(gc_model_payload_p(&a, &s, &m, 4, &r0, &r1) == 1 && r0 == 40);
	gc_arch_release(&a);
}

static void test_limits(void)
{
	gc_model_method sg = method("signsgd"), ss = method("syncsgd");
	gc_model_params mp;
	gc_model_result r;
	gc_arch a;
	gc_err e;

	CHECK(!flat_arch(&a, 3, 1000000, 0.01));
	params(&mp, 1.0, 1.0);               /* a terrible network */
	mp.enc_rate[GC_M_SIGNSGD] = 1e6;
	mp.t_opt = 0.005;
	CHECK(!gc_model_predict(&a, &sg, &mp, 1, &r, &e));  /* p = 1: nothing to exchange */
	CHECK_NEAR(r.total, 0.015 + 0.03 + 0.005, 1e-12);
	CHECK(r.comm == 0 && r.encode == 0 && r.bytes_sent == 0);
	params(&mp, 0, 1e300);               /* infinite bandwidth */
	CHECK(!gc_model_predict(&a, &ss, &mp, 64, &r, &e));
	CHECK_NEAR(r.total, 0.045, 1e-12);
	CHECK_NEAR(r.exposed, 0, 1e-12);
	a.t[0].t_bwd = a.t[1].t_bwd = a.t[2].t_bwd = 0;   /* zero compute: pure chain */
	params(&mp, 0, 1e9);
	mp.first_bucket_bytes = mp.bucket_bytes = 1;
	CHECK(!gc_model_predict(&a, &ss, &mp, 2, &r, &e));
	CHECK_NEAR(r.total, 3 * 4e-3, 1e-12);
	CHECK_EQ_INT(gc_model_predict(&a, &ss, &mp, 0, &r, &e), GC_E_INVAL);
	gc_arch_release(&a);
}

static void test_hierarchical(void)
{
	gc_model_params mp;
	double B = 1e8;

	params(&mp, 1e-4, 1e9);
	mp.gpus_per_node = 4;
	mp.alpha_intra = 1e-5;
	mp.bw_intra = 1e11;
	/* p = 8: 2 nodes of 4 */
	CHECK_NEAR(gc_model_allreduce(&mp, 8, B),
		   2e-4 + 2 * B / (2 * 1e9) + 2 * 3e-5 + 2 * B * 3 / (4 * 1e11), 1e-12);
	CHECK_NEAR(gc_model_allgather(&mp, 8, 1e6),
		   1e-4 + 4e6 / 1e9 + 2 * 3e-5 + 3e6 * 2 / 1e11, 1e-12);
	/* p <= g stays a flat ring on the node's link parameters */
	CHECK_NEAR(gc_model_allreduce(&mp, 4, B), 6e-4 + 2 * B * 3 / (4 * 1e9), 1e-12);
}

static void test_bucketing_resnet50(void)
{
	gc_buckets bk;
	gc_arch a;
	gc_err e;
	size_t i, n = 0, numel = 0, nb;

	CHECK(!gc_arch_build("resnet50", &a, &e));
	CHECK(!gc_buckets_make(&a, GC_DDP_FIRST_BYTES, GC_DDP_BYTES, &bk, &e));
	CHECK_EQ_INT(bk.b[0].count, 2);                 /* fc.bias, fc.weight */
	for (i = 0; i < bk.n; i++) {
		const gc_bucket_span *s = &bk.b[i];
		size_t cap = i ? GC_DDP_BYTES : GC_DDP_FIRST_BYTES;
		size_t last = a.t[a.n - 1 - (s->first + s->count - 1)].numel;
		if (s->first != n || (i + 1 < bk.n && (4 * s->numel < cap ||
						       4 * (s->numel - last) >= cap)))
			break;
		n += s->count;
		numel += s->numel;
	}
	nb = bk.n;
	gc_buckets_release(&bk);
	CHECKF(i == nb && nb > 2, "bucket %zu of %zu breaks the rule", i, nb);
	CHECK_EQ_INT(n, a.n);
	CHECK_EQ_INT(numel, 25557032);
	gc_arch_release(&a);
}

static void test_method_parse_errors(void)
{
	static const struct { const char *spec, *want; } c[] = {
		{ "foo", "unknown method 'foo'" },
		{ "", "empty" },
		{ "topk:ratio=2", "ratio 2 is outside (0, 1]" },
		{ "topk:ratio=x", "value 'x' of 'ratio'" },
		{ "powersgd:rank=0", "rank 0 is not an integer" },
		{ "topk:rank=4", "unknown parameter 'rank=4' for topk" },
		{ "signsgd:scaled", "'scaled' is not key=value" },
		{ "syncsgd:ratio=0.1", "for syncsgd; it takes momentum" },
	};
	gc_model_method m;
	gc_err e;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		CHECKF(gc_model_method_parse(c[i].spec, &m, &e) == GC_E_INVAL, "'%s' accepted", c[i].spec);
		CHECK_CONTAINS(e.msg, c[i].want);
	}
	CHECK(!gc_model_method_parse("mstopk:ratio=0.001", &m, &e));
	CHECK(m.p.method == GC_M_MSTOPK && m.p.ratio == 0.001);
}

/* deterministic noise in [-amp, amp] */
static double noise(unsigned *s, double amp)
{
	*s = *s * 1103515245u + 12345u;
	return amp * (2.0 * ((*s >> 8) & 0xffff) / 65535.0 - 1.0);
}

static void test_fit_link(void)
{
	const double alpha = 30e-6, bw = 1.25e9;
	gc_calib_sample s[60];
	gc_model_params mp;
	double a, b;
	unsigned seed = 7;
	gc_err e;
	int i;

	params(&mp, alpha, bw);
	for (i = 0; i < 60; i++) {
		s[i].coll = i % 2 ? GC_COLL_ALLGATHER : GC_COLL_ALLREDUCE;
		s[i].p = 2 << (i % 3);
		s[i].bytes = pow(10, 3 + (i % 6));
		s[i].seconds = (s[i].coll == GC_COLL_ALLREDUCE ? gc_model_allreduce(&mp, s[i].p, s[i].bytes)
							      : gc_model_allgather(&mp, s[i].p, s[i].bytes)) *
			       (1 + noise(&seed, 0.03));
	}
	CHECKF(!gc_model_fit_link(s, 60, &a, &b, &e), "%s", e.msg);
	CHECK_NEAR(b / bw, 1, 0.03);
	CHECK_NEAR(a / alpha, 1, 0.25);
	CHECK_EQ_INT(gc_model_fit_link(s, 1, &a, &b, &e), GC_E_INVAL);
	for (i = 0; i < 3; i++)
		s[i].bytes = 1000, s[i].p = 4, s[i].coll = GC_COLL_ALLREDUCE;
	CHECK_EQ_INT(gc_model_fit_link(s, 3, &a, &b, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "two different sizes");
}

static void test_fit_lambda_and_rates(void)
{
	double c[40], m[40], el[40], t[40], lam, rate;
	unsigned seed = 11;
	gc_err e;
	int i;

	for (i = 0; i < 40; i++) {
		c[i] = 0.05 + 0.01 * i;
		m[i] = 1.07 * c[i] * (1 + noise(&seed, 0.02));
		el[i] = 1e6 * (i + 1);
		t[i] = el[i] / 2e9 * (1 + noise(&seed, 0.05));
	}
	CHECK(!gc_model_fit_lambda(c, m, 40, &lam, &e));
	CHECK_NEAR(lam, 1.07, 0.01);
	CHECK(!gc_model_fit_rate(el, t, 40, &rate, &e));
	CHECK_NEAR(rate / 2e9, 1, 0.03);
	CHECK_EQ_INT(gc_model_fit_rate(el, t, 0, &rate, &e), GC_E_INVAL);
	t[3] = -1;
	CHECK_EQ_INT(gc_model_fit_rate(el, t, 40, &rate, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "sample 3");
}

/* gcbench-worker's schedule: encode, exchange and decode of each bucket back to back on
 * one channel; the study's: encodes on the device, decodes after backward. */
static void test_pipeline_schedule(void)
{
	gc_model_method m = method("signsgd");
	gc_model_params mp;
	gc_model_result r, d;
	gc_arch a;
	gc_err e;

	CHECK(!flat_arch(&a, 2, 400000, 0.1));     /* 1.6 MB each: two buckets */
	params(&mp, 0.05, 1e9);
	mp.enc_rate[GC_M_SIGNSGD] = 2e6;           /* 0.2 s per bucket */
	mp.dec_rate[GC_M_SIGNSGD] = 1.6e7;         /* n p = 1.6e6: 0.1 s per bucket */
	CHECK(!gc_model_predict(&a, &m, &mp, 4, &d, &e));
	mp.codec_on_comm = 1;
	CHECK(!gc_model_predict(&a, &m, &mp, 4, &r, &e));
	gc_arch_release(&a);
	/* exchange: all-gather of 50 kB, 3 hops of 50 ms + 150 kB / 1 GB/s */
	CHECK_NEAR(r.comm, 2 * (0.15 + 1.5e-4), 1e-12);
	CHECK_NEAR(r.encode, 0.4, 1e-12);
	CHECK_NEAR(r.decode, 0.2, 1e-12);
	/* bucket 0 ready at 0.1, done 0.1 + 0.2 + 0.15015 + 0.1; bucket 1 then; + fwd 0.1 */
	CHECK_NEAR(r.total, 0.1 + 0.1 + 2 * 0.45015, 1e-12);
	/* device: encodes 0.3 and 0.6, exchange 1 ends 0.75015, decodes to 0.85015 */
	CHECK_NEAR(d.total, 0.1 + 0.85015, 1e-12);
}

static void test_host_cost_and_terms(void)
{
	static const char csv[] = "index,name,shape,numel\n0,w,1000x1000,1000000\n";
	gc_model_method ss = method("syncsgd"), sg = method("signsgd"),
			ps = method("powersgd:rank=4");
	gc_model_params mp;
	double st, w;
	gc_arch a;
	gc_err e;

	params(&mp, 0, 1e9);
	mp.host_bw = 5e8;
	/* 1.5 MB on the link: 1.5 ms of wire and 3 ms of host */
	CHECK_NEAR(gc_model_allreduce(&mp, 4, 1e6), 1.5e-3 + 3e-3, 1e-12);
	CHECK_NEAR(gc_model_allgather(&mp, 4, 1e6), 3e-3 + 6e-3, 1e-12);
	CHECK(!flat_arch(&a, 1, 1000000, 0.1));
	CHECK(!gc_model_comm_terms(&a, &ss, &mp, 4, &st, &w, &e));
	CHECK_NEAR(st, 6, 0);
	CHECK_NEAR(w, 2 * 4e6 * 3 / 4, 1e-6);
	CHECK(!gc_model_comm_terms(&a, &sg, &mp, 4, &st, &w, &e));
	CHECK_NEAR(st, 3, 0);
	CHECK_NEAR(w, 3 * 125000.0, 1e-6);
	CHECK(!gc_model_comm_terms(&a, &ps, &mp, 1, &st, &w, &e));
	CHECK_NEAR(st + w, 0, 0);                   /* p = 1: nothing */
	gc_arch_release(&a);
	CHECK(!gc_arch_parse_csv(csv, strlen(csv), "w", &a, &e));
	CHECK(!gc_model_comm_terms(&a, &ps, &mp, 4, &st, &w, &e));
	gc_arch_release(&a);
	CHECK_NEAR(st, 12, 0);                      /* P then Q: two all-reduces */
	CHECK_NEAR(w, 2 * 4.0 * 8000 * 3 / 4, 1e-6);
}

static void test_fit_comm(void)
{
	double st[50], w[50], y[50], a, h;
	unsigned seed = 5;
	gc_err e;
	int i;

	for (i = 0; i < 50; i++) {
		st[i] = 6.0 * (1 + i % 7);
		w[i] = 1e5 * pow(3, i % 9);
		y[i] = (2e-3 * st[i] + w[i] / 4e8) * (1 + noise(&seed, 0.03));
	}
	CHECKF(!gc_model_fit_comm(st, w, y, 50, &a, &h, &e), "%s", e.msg);
	CHECK_NEAR(a / 2e-3, 1, 0.05);
	CHECK_NEAR(h / 4e8, 1, 0.05);
	for (i = 0; i < 50; i++)                    /* no latency: dropped, host alone */
		y[i] = w[i] / 4e8 * (1 + noise(&seed, 0.03)) - 1e-4 * st[i];
	CHECKF(!gc_model_fit_comm(st, w, y, 50, &a, &h, &e), "%s", e.msg);
	CHECK_NEAR(a, 0, 0);
	CHECK_NEAR(h / 4e8, 1, 0.05);
	CHECK(!gc_model_fit_comm(st + 8, w + 8, y + 8, 1, &a, &h, &e)); /* one sample: one term */
	CHECK((a > 0) != (h > 0));
	for (i = 0; i < 50; i++)                    /* faster than the link: nothing fits */
		y[i] = -1e-3;
	CHECK_EQ_INT(gc_model_fit_comm(st, w, y, 50, &a, &h, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "no slower than the link");
	y[2] = NAN;
	CHECK_EQ_INT(gc_model_fit_comm(st, w, y, 50, &a, &h, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "sample 2");
}

int main(void)
{
	GCT_SUITE("model");
	GCT_RUN(test_single_bucket);
	GCT_RUN(test_many_buckets_comm_bound);
	GCT_RUN(test_compute_bound);
	GCT_RUN(test_allgather_grows_with_p);
	GCT_RUN(test_signsgd_event);
	GCT_RUN(test_powersgd_two_rounds);
	GCT_RUN(test_payloads);
	GCT_RUN(test_limits);
	GCT_RUN(test_hierarchical);
	GCT_RUN(test_bucketing_resnet50);
	GCT_RUN(test_method_parse_errors);
	GCT_RUN(test_fit_link);
	GCT_RUN(test_fit_lambda_and_rates);
	GCT_RUN(test_pipeline_schedule);
	GCT_RUN(test_host_cost_and_terms);
	GCT_RUN(test_fit_comm);
	return gct_finish();
}

/* tests/unit/test_worker.c: the MPI-free parts of gcbench-worker: command line,
 * buckets, byte accounting, JSON escaping, the trained models' gradients. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

#include "fnv.h"
#include "json.h"
#include "formats/arch.h"
#include "worker/wk.h"
#include "worker/wk_data.h"

static gc_rc parse(gc_wk_cfg *c, gc_err *e, const char *line)
{
	char buf[1024], *argv[64];
	int argc = 0;
	snprintf(buf, sizeof(buf), "gcbench-worker %s", line);
	for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	e->msg[0] = 0;
	return gc_wk_args_parse(c, argc, argv, e);
}

static void test_args_ok(void)
{
	gc_wk_cfg c;
	gc_err e;
	CHECK_EQ_INT(parse(&c, &e, "--param ratio=0.05 --method topk --workload replay:tiny --iters 7"), GC_OK);
	CHECK_EQ_INT(c.params.method, GC_M_TOPK);
	CHECK_NEAR(c.params.ratio, 0.05, 1e-12);
	CHECK_EQ_INT(c.iters, 7);
	CHECK_EQ_INT(c.warmup, 5);
	CHECK_EQ_INT(c.overlap, 1);
	CHECK_STR(c.model, "tiny");
	CHECK_EQ_INT(c.kind, GC_WK_REPLAY);
	CHECK_EQ_INT(parse(&c, &e, "--workload train:mlp --no-overlap --method signsgd"), GC_OK);
	CHECK_EQ_INT(c.kind, GC_WK_TRAIN);
	CHECK_STR(c.data, "auto");
	CHECK_EQ_INT(c.overlap, 0);
	CHECK_NEAR(c.lr, 0.002, 1e-12);
	CHECK_EQ_INT(parse(&c, &e, "--help"), GC_OK);
	CHECK_EQ_INT(c.mode, GC_WK_HELP);
	CHECK_EQ_INT(parse(&c, &e, "--version"), GC_OK);
	CHECK_EQ_INT(c.mode, GC_WK_VERSION);
	/* the one method syntax, and --opt=value */
	CHECK_EQ_INT(parse(&c, &e, "--method=powersgd:rank=8,ef=0 --workload=replay:tiny "
			   "--deadline 500ms"), GC_OK);
	CHECK_EQ_INT(c.params.method, GC_M_POWERSGD);
	CHECK_EQ_INT(c.params.rank, 8);
	CHECK_EQ_INT(c.params.ef, 0);
	CHECK_NEAR(c.deadline, 0.5, 1e-12);
	CHECK_EQ_INT(parse(&c, &e, "--workload replay:tiny"), GC_OK);
	CHECK_EQ_INT(c.params.method, GC_M_SYNCSGD);
}

static void test_args_errors(void)
{
	static const struct { const char *line, *msg; } cases[] = {
		{ "--method bogus --workload replay:tiny", "unknown method 'bogus'" },
		{ "--iters 0 --workload replay:tiny", "invalid --iters '0'" },
		{ "--iters -3 --workload replay:tiny", "invalid --iters '-3'" },
		{ "--batch x --workload replay:tiny", "invalid --batch 'x'" },
		{ "--compute-scale 0 --workload replay:tiny", "invalid --compute-scale '0'" },
		{ "--workload resnet50", "unknown workload 'resnet50'" },
		{ "--workload train:rnn", "unknown workload 'train:rnn'" },
		{ "--workload replay:tiny --eval-every 5", "apply to training workloads" },
		{ "--workload replay:tiny --data digits", "apply to training workloads" },
		{ "--workload train:cnn --eval-every -1", "invalid --eval-every '-1'" },
		{ "--workload train:cnn --data", "needs a value" },
		{ "--workload train:cnn --data /nonexistent/d.gcbd", "cannot read data set '/nonexistent/d.gcbd'" },
		{ "--iters 3", "missing --workload" },
		{ "--workload replay:tiny --profile /nonexistent/p.csv", "cannot read profile '/nonexistent/p.csv'" },
		{ "--workload train:mlp --profile /etc/hostname", "applies to replay workloads only" },
		{ "--workload replay:tiny --backend gloo", "unknown backend 'gloo'" },
		{ "--workload replay:tiny --param ratio", "invalid --param 'ratio'" },
		{ "--workload replay:tiny --iters", "needs a value" },
		{ "--workload replay:tiny --frobnicate 1", "unknown option '--frobnicate' for gcbench-worker (see 'gcbench-worker --help')" },
		{ "--workload replay:tiny --iter 3", "did you mean '--iters'?" },
		{ "--workload replay:tiny --method topk:ratio=7", "ratio" },
		{ "--workload replay:tiny --method topk:", "ends in ':'" },
		{ "--workload replay:tiny --deadline 1h", "invalid --deadline '1h'" },
		{ "--workload replay:tiny stray", "unexpected argument 'stray'" },
		{ "--workload replay:tiny --iface a;b", "invalid --iface 'a;b'" },
		{ "--workload replay:tiny --mpi-coll fast", "invalid --mpi-coll 'fast'" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		gc_wk_cfg c;
		gc_err e;
		CHECKF(parse(&c, &e, cases[i].line) != GC_OK, "accepted: %s", cases[i].line);
		CHECK_CONTAINS(e.msg, cases[i].msg);
	}
}

static void test_out_path(void)
{
	char p[64];
	gc_err e;
	CHECK_EQ_INT(gc_wk_out_path(p, sizeof(p), "run-r%r/x%r.gcr", 12, &e), GC_OK);
	CHECK_STR(p, "run-r12/x12.gcr");
	CHECK(gc_wk_out_path(p, 8, "abcdefghij", 0, &e) != GC_OK);
}

static void test_layout_resnet50(void)
{
	gc_arch a;
	gc_err e;
	gc_wk_layout l;
	gc_wk_tensor_in *in;
	if (gc_arch_build("resnet50", &a, &e))
		SKIP("resnet50 not buildable: %s", e.msg);
	gc_arch_set_timing(&a, 32, 0, 1);
	in = calloc(a.n, sizeof(*in));
	for (size_t i = 0; i < a.n; i++)
		in[i] = (gc_wk_tensor_in){ a.t[i].name, a.t[i].ndim, a.t[i].shape, a.t[i].numel, a.t[i].t_bwd };
	CHECK_EQ_INT(gc_wk_layout_build(&l, in, a.n, 1048576.0, 25 * 1048576.0, &e), GC_OK);
	free(in);
	CHECK_EQ_INT(l.numel, 25557032);
	CHECK_STR(l.t[0].name, a.t[a.n - 1].name);       /* backward order: fc.bias first */
	CHECK(4 * l.b[0].numel >= 1048576);
	for (size_t i = 1; i + 1 < l.nb; i++)
		CHECK(4 * l.b[i].numel >= 25 * 1048576);
	CHECK_EQ_INT(l.b[l.nb - 1].t1, l.nt);
	for (size_t i = 0; i + 1 < l.nb; i++) {
		CHECK_EQ_INT(l.b[i].t1, l.b[i + 1].t0);
		CHECK_EQ_INT(l.b[i].off + l.b[i].numel, l.b[i + 1].off);
	}
	CHECK_NEAR(l.t_fwd * 2, gc_arch_backward_total(&a), 1e-9);
	gc_wk_layout_release(&l);
	gc_arch_release(&a);
}

static void test_round_bytes(void)
{
	uint64_t s, r;
	gc_wk_round_bytes(GC_COLL_ALLREDUCE, GC_DT_F32, 1000, 4, &s, &r);
	CHECK_EQ_INT(s, 6000);                     /* 2 * 3/4 * 4000 */
	CHECK_EQ_INT(r, 6000);
	gc_wk_round_bytes(GC_COLL_ALLGATHER, GC_DT_U8, 125, 4, &s, &r);
	CHECK_EQ_INT(s, 375);
	gc_wk_round_bytes(GC_COLL_ALLREDUCE, GC_DT_F16, 1000, 1, &s, &r);
	CHECK_EQ_INT(s, 0);
}

/* The record header's JSON (common/json.h, as wk_main.c writes it): control
 * characters as \u00xx, null for a missing string, %.17g numbers. */
static void test_json_escape(void)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;
	char *s;
	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_str_field(&j, "a", "q\"b\\s\n\x01");
	gc_json_int_field(&j, "n", -3);
	gc_json_key(&j, "o");
	gc_json_obj_open(&j);
	gc_json_num_field(&j, "x", 0.5);
	gc_json_str_field(&j, "z", NULL);
	gc_json_obj_close(&j);
	gc_json_obj_close(&j);
	CHECK(gc_json_finish(&j) == GC_OK);
	s = gc_buf_take(&b);
	CHECK(s != NULL);
	CHECK_STR(s, "{\"a\":\"q\\\"b\\\\s\\u000a\\u0001\",\"n\":-3,\"o\":{\"x\":0.5,\"z\":null}}");
	free(s);
}

static size_t seen[4], nseen;
static void on_produced(void *arg, size_t k)
{
	(void)arg;
	if (nseen < 4)
		seen[nseen++] = k;
}

/* A model's backward against central finite differences of its forward, on 4
 * samples of d, probing `per` entries of every tensor; produced() must report the
 * tensors in backward order, two at a time (weight and bias of a layer). */
static void check_gradients(const char *model, const gc_data *d, size_t expect_nt)
{
	gc_wk_layout l;
	gc_wk_net m;
	gc_err e;
	float *param, *grad;
	const int n = 4;
	CHECK_EQ_INT(gc_wk_net_new(&m, model, d, n, &e), GC_OK);
	CHECK_EQ_INT(m.nt, expect_nt);
	CHECK_EQ_INT(gc_wk_layout_build(&l, m.t, m.nt, 1e9, 1e9, &e), GC_OK);
	param = calloc(l.numel, sizeof(float));
	grad = calloc(l.numel, sizeof(float));
	CHECK_EQ_INT(gc_wk_net_bind(&m, &l, param, grad, &e), GC_OK);
	for (size_t t = 0; t < m.nt; t++)   /* nonzero biases, so their gradients show */
		if (m.t[t].ndim == 1)
			gc_wk_fill_random(m.p[t], m.t[t].numel, 50 + t, 0.05f);
	double l0 = m.forward(&m, d->x, d->y, n, NULL);
	CHECK(l0 > 0.1 && l0 < 20);
	nseen = 0;
	m.backward(&m, on_produced, NULL);
	CHECK_EQ_INT(nseen, expect_nt / 2);
	for (size_t i = 0; i < nseen; i++)
		CHECK_EQ_INT(seen[i], 2 * (i + 1));
	for (size_t t = 0; t < m.nt; t++)
		for (size_t k = 0; k < 3; k++) {
			size_t j = (k * 7919 + 13) % m.t[t].numel;
			float *pp = m.p[t] + j, keep = *pp, h = 2e-3f;
			*pp = keep + h;
			double lp = m.forward(&m, d->x, d->y, n, NULL);
			*pp = keep - h;
			double lm = m.forward(&m, d->x, d->y, n, NULL);
			*pp = keep;
			double fd = (lp - lm) / (2.0 * h), g = m.g[t][j];
			CHECKF(fabs(fd - g) <= 0.05 * fabs(fd) + 1e-3, "%s %s[%zu]: backward %g, "
			       "finite difference %g", model, m.t[t].name, j, g, fd);
		}
	gc_wk_net_release(&m);
	free(param);
	free(grad);
	gc_wk_layout_release(&l);
}

/* A small image data set: 2 channels of 6 x 4, 3 classes, random pixels. */
static void small_data(gc_data *d)
{
	memset(d, 0, sizeof(*d));
	d->n_train = 4, d->n_val = 4, d->channels = 2, d->height = 6, d->width = 4;
	d->classes = 3, d->features = 48;
	d->x = malloc(8 * 48 * sizeof(float));
	d->y = malloc(8 * sizeof(int));
	gc_wk_fill_random(d->x, 8 * 48, 5, 1.0f);
	for (int i = 0; i < 8; i++)
		d->y[i] = i % 3;
}

static void test_mlp_gradients(void)
{
	gc_data d;
	gc_err e;
	CHECK_EQ_INT(gc_data_generate(&d, 8, 4, &e), GC_OK);
	check_gradients("mlp", &d, 4);
	gc_data_release(&d);
}

static void test_cnn_gradients(void)
{
	gc_data d;
	small_data(&d);
	check_gradients("cnn", &d, 6);
	gc_data_release(&d);
}

/* The CNN's tensors are the shapes PowerSGD factorises; eval counts hits. */
static void test_net_shapes_eval(void)
{
	gc_wk_layout l;
	gc_wk_net m;
	gc_data d;
	gc_err e;
	double loss, acc;
	small_data(&d);
	CHECK_EQ_INT(gc_wk_net_new(&m, "rnn", &d, 4, &e), GC_E_INVAL);
	CHECK(strstr(e.msg, "unknown trained model 'rnn'") != NULL);
	CHECK_EQ_INT(gc_wk_net_new(&m, "cnn", &d, 3, &e), GC_OK);
	CHECK_EQ_INT(m.shape[2][0], GC_CNN_C2);
	CHECK_EQ_INT(m.t[2].numel, GC_CNN_C2 * GC_CNN_C1 * 9);
	CHECK_EQ_INT(m.t[4].numel, 3 * (6 / 2) * (4 / 2) * GC_CNN_C2);
	CHECK_EQ_INT(gc_wk_layout_build(&l, m.t, m.nt, 1e9, 1e9, &e), GC_OK);
	CHECK_STR(l.t[0].name, "fc.bias");
	CHECK_EQ_INT(l.t[3].d.rows, GC_CNN_C2);
	CHECK_EQ_INT(l.t[3].d.cols, GC_CNN_C1 * 9);
	float *param = calloc(l.numel, sizeof(float)), *grad = calloc(l.numel, sizeof(float));
	CHECK_EQ_INT(gc_wk_net_bind(&m, &l, param, grad, &e), GC_OK);
	memset(m.p[4], 0, m.t[4].numel * sizeof(float));   /* logits = fc bias only */
	m.p[5][1] = 5.0f;                                   /* always predicts class 1 */
	gc_wk_net_eval(&m, &d, 0, 4, &loss, &acc);          /* 4 samples in batches of 3 */
	int want = 0;
	for (int i = 4; i < 8; i++)
		want += d.y[i] == 1;
	CHECK_NEAR(acc, want / 4.0, 1e-12);
	CHECK(loss > 0);
	gc_wk_net_eval(&m, &d, 1, 2, &loss, &acc);          /* validation sample 1 only */
	CHECK_NEAR(acc, d.y[5] == 1, 1e-12);
	gc_wk_net_eval(&m, &d, 3, 9, &loss, &acc);          /* clipped to [3, 4) */
	CHECK_NEAR(acc, d.y[7] == 1, 1e-12);
	gc_wk_net_eval(&m, &d, 4, 4, &loss, &acc);
	CHECK(loss == 0 && acc == 0);
	free(param);
	free(grad);
	gc_wk_net_release(&m);
	gc_wk_layout_release(&l);
	gc_data_release(&d);
}

static void test_fill_deterministic(void)
{
	float a[1000], b[1000], c[1000];
	double mean = 0, var = 0;
	gc_wk_fill_random(a, 1000, 3, 1.0f);
	gc_wk_fill_random(b, 1000, 3, 1.0f);
	gc_wk_fill_random(c, 1000, 4, 1.0f);
	CHECK(!memcmp(a, b, sizeof(a)));
	CHECK(memcmp(a, c, sizeof(a)));
	for (int i = 0; i < 1000; i++)
		mean += a[i] / 1000.0;
	for (int i = 0; i < 1000; i++)
		var += (a[i] - mean) * (a[i] - mean) / 1000.0;
	CHECK_NEAR(mean, 0, 0.15);
	CHECK_NEAR(var, 1, 0.2);
	CHECK(gc_fnv1a64_words(a, sizeof(a)) == gc_fnv1a64_words(b, sizeof(b)));
	CHECK(gc_fnv1a64_words(a, sizeof(a)) != gc_fnv1a64_words(c, sizeof(c)));
}

/* The fill as it was before its conversions were merged: the values must stay the
 * same bit for bit (a rank's gradients and parameters, so checksums and losses). */
static void fill_reference(float *x, size_t n, uint64_t seed, float scale)
{
	uint64_t s = seed * 0x2545f4914f6cdd1dull + 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t z = (s += 0x9e3779b97f4a7c15ull);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		z ^= z >> 31;
		double u = (double)(z & 0xffff) + (double)((z >> 16) & 0xffff) +
			   (double)((z >> 32) & 0xffff) + (double)(z >> 48);
		x[i] = (float)((u / 65536.0 - 2.0) * 1.7320508 * scale);
	}
}

static void test_fill_same_values(void)
{
	enum { N = 100000 };
	static float a[N], b[N];
	const uint64_t seeds[] = { 0, 3, 99, 1000, 1003, UINT64_MAX };
	const float scales[] = { 1.0f, 0.01f, 0.05f };
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		for (size_t j = 0; j < sizeof(scales) / sizeof(scales[0]); j++) {
			gc_wk_fill_random(a, N, seeds[i], scales[j]);
			fill_reference(b, N, seeds[i], scales[j]);
			CHECK(!memcmp(a, b, sizeof(a)));
		}
	/* large enough to be split across OpenMP threads (from 2^20 floats), odd length */
	size_t big = ((size_t)3 << 20) + 7;
	float *c = malloc(big * sizeof(float)), *d = malloc(big * sizeof(float));
	CHECK(c && d);
	if (c && d) {
		gc_wk_fill_random(c, big, 1001, 0.01f);
		fill_reference(d, big, 1001, 0.01f);
		CHECK(!memcmp(c, d, big * sizeof(float)));
	}
	free(c);
	free(d);
}

/* Momentum's velocity against PyTorch's SGD (dampening 0): buf = g at the first step,
 * then buf = m buf + g; with a constant g after t steps buf = g (1 - m^t) / (1 - m),
 * exact in float for m = 0.5 and g a power of two. Which methods the worker applies
 * it for. */
static void test_momentum(void)
{
	float u[3] = { 0, 0, 0 }, g[3] = { 1.0f, -0.25f, 0.0f };
	gc_params p;

	gc_wk_momentum(u, g, 3, 0.5f);
	CHECK(u[0] == 1.0f && u[1] == -0.25f && u[2] == 0.0f);
	gc_wk_momentum(u, g, 3, 0.5f);
	gc_wk_momentum(u, g, 3, 0.5f);
	CHECK(u[0] == 1.75f && u[1] == -0.4375f && u[2] == 0.0f);
	gc_wk_momentum(u, g, 3, 0.0f);      /* m = 0: plain SGD's step */
	CHECK(u[0] == 1.0f && u[1] == -0.25f);
	gc_params_default(&p, GC_M_TOPK);
	CHECK(!gc_wk_uses_momentum(&p));
	p.momentum = 0.9;
	CHECK(gc_wk_uses_momentum(&p));
}

int main(void)
{
	GCT_SUITE("worker");
	GCT_RUN(test_fill_same_values);
	GCT_RUN(test_momentum);
	GCT_RUN(test_args_ok);
	GCT_RUN(test_args_errors);
	GCT_RUN(test_out_path);
	GCT_RUN(test_layout_resnet50);
	GCT_RUN(test_round_bytes);
	GCT_RUN(test_json_escape);
	GCT_RUN(test_mlp_gradients);
	GCT_RUN(test_cnn_gradients);
	GCT_RUN(test_net_shapes_eval);
	GCT_RUN(test_fill_deterministic);
	return gct_finish();
}

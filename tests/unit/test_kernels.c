/* Unit tests: compressor parameters, half precision, the round protocol, payload sizes
 * and signSGD (tests/unit/test_kernels_methods.c has top-k, MSTop-K and PowerSGD). */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "kernels/compress.h"
#include "kernels/rng.h"

static float u2f(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

/* One step for p workers sharing a layout; avg[w] and res[w] (may be NULL) filled. */
static gc_rc step(const gc_params *prm, const gc_tensor_desc *t, size_t nt, int p,
		  const float *const *g, float **avg, float **res)
{
	gc_bucket *b[8] = { 0 };
	gc_err e;
	gc_rc rc = GC_OK;
	int w;

	for (w = 0; w < p && !rc; w++)
		rc = gc_bucket_new(&b[w], prm, GC_BACKEND_CPU, NULL, t, nt, p, w, &e);
	if (!rc)
		rc = gc_simulate_step(b, p, g, avg, NULL, NULL, &e);
	for (w = 0; w < p && !rc && res; w++)
		rc = gc_bucket_residual(b[w], res[w]);
	if (rc)
		printf("# step: %s: %s\n", gc_strerror(rc), e.msg);
	for (w = 0; w < p; w++)
		gc_bucket_free(b[w]);
	return rc;
}

static void test_method_names(void)
{
	gc_method m;
	int i;

	for (i = 0; i < GC_M__COUNT; i++) {
		CHECK_EQ_INT(gc_method_parse(gc_method_name((gc_method)i), &m), GC_OK);
		CHECK_EQ_INT(m, i);
	}
	CHECK_EQ_INT(gc_method_parse("nosuchmethod", &m), GC_E_INVAL);
	CHECK_STR(gc_method_name(GC_M__COUNT), "?");
}

static void test_params_errors(void)
{
	gc_params p;
	gc_err e;

	gc_params_default(&p, GC_M_TOPK);
	CHECK_EQ_INT(gc_params_set(&p, "ratio", "0.05", &e), GC_OK);
	CHECK(p.ratio == 0.05);
	CHECK_EQ_INT(gc_params_set(&p, "ratio", "2", &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "'ratio'");
	CHECK_CONTAINS(e.msg, "(0, 1]");
	CHECK_EQ_INT(gc_params_set(&p, "ratio", "0", &e), GC_E_INVAL);
	CHECK_EQ_INT(gc_params_set(&p, "ratio", "abc", &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "'abc'");
	CHECK_EQ_INT(gc_params_set(&p, "rank", "4", &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "does not take parameter 'rank'");
	CHECK_CONTAINS(e.msg, "ef, ratio");
	CHECK_EQ_INT(gc_params_set(&p, "colour", "4", &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "unknown parameter 'colour'");
	gc_params_default(&p, GC_M_POWERSGD);
	CHECK_EQ_INT(gc_params_set(&p, "rank", "2.5", &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "integer");
	CHECK_EQ_INT(gc_params_set(&p, "rank", "33", &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "1..32");
	CHECK_EQ_INT(gc_params_set(&p, "seed", "18446744073709551615", &e), GC_OK);
	CHECK(p.seed == UINT64_MAX);
	gc_params_default(&p, GC_M_MSTOPK);
	CHECK_EQ_INT(gc_params_set(&p, "rounds", "65", &e), GC_E_INVAL);
	gc_params_default(&p, GC_M_SYNCSGD);
	CHECK_EQ_INT(gc_params_set(&p, "ef", "1", &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "(its parameters: momentum)");
}

static void test_params_check_format(void)
{
	gc_params p;
	gc_err e;
	char buf[256];

	gc_params_default(&p, GC_M_SIGNSGD);
	CHECK_EQ_INT(gc_params_set(&p, "ef", "1", &e), GC_OK);
	CHECK_EQ_INT(gc_params_check(&p, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "scaled=1");
	CHECK_EQ_INT(gc_params_set(&p, "scaled", "1", &e), GC_OK);
	CHECK_EQ_INT(gc_params_check(&p, &e), GC_OK);
	gc_params_format(&p, buf, sizeof(buf));
	CHECK_STR(buf, "ef=1,scaled=1");
	gc_params_default(&p, GC_M_TOPK);
	gc_params_format(&p, buf, sizeof(buf));
	CHECK_STR(buf, "ef=1,ratio=0.01");
	gc_params_default(&p, GC_M_POWERSGD);
	gc_params_format(&p, buf, sizeof(buf));
	CHECK_STR(buf, "ef=1,rank=4,warm_start=1,min_compression=2,seed=42");
	gc_params_default(&p, GC_M_SYNCSGD);
	gc_params_format(&p, buf, sizeof(buf));
	CHECK_STR(buf, "");
}

static void test_f16_known_bits(void)
{
	CHECK_EQ_INT(gc_f32_to_f16(1.0f), 0x3c00);
	CHECK_EQ_INT(gc_f32_to_f16(-2.0f), 0xc000);
	CHECK_EQ_INT(gc_f32_to_f16(65504.0f), 0x7bff);
	CHECK_EQ_INT(gc_f32_to_f16(65519.99f), 0x7bff);
	CHECK_EQ_INT(gc_f32_to_f16(65520.0f), 0x7c00);         /* ties to even: overflow */
	CHECK_EQ_INT(gc_f32_to_f16(1e9f), 0x7c00);
	CHECK_EQ_INT(gc_f32_to_f16(-1e9f), 0xfc00);
	CHECK_EQ_INT(gc_f32_to_f16(u2f(0x7f800000u)), 0x7c00);
	CHECK_EQ_INT(gc_f32_to_f16(2049.0f), 0x6800);          /* 2048: tie to even */
	CHECK_EQ_INT(gc_f32_to_f16(2051.0f), 0x6802);          /* 2052: tie to even */
	CHECK_EQ_INT(gc_f32_to_f16(5.9604644775390625e-8f), 0x0001);   /* 2^-24 */
	CHECK_EQ_INT(gc_f32_to_f16(2.98023223876953125e-8f), 0x0000);  /* 2^-25: tie to 0 */
	CHECK_EQ_INT(gc_f32_to_f16(8.94069671630859375e-8f), 0x0002);  /* 1.5 * 2^-24 */
	CHECK_EQ_INT(gc_f32_to_f16(6.103515625e-05f), 0x0400);         /* 2^-14, normal */
	CHECK_EQ_INT(gc_f32_to_f16(6.0975551605224609375e-05f), 0x03ff); /* largest subnormal */
	CHECK_EQ_INT(gc_f32_to_f16(-0.0f), 0x8000);
	CHECK_EQ_INT(gc_f32_to_f16(1e-30f), 0x0000);
	CHECK_EQ_INT(gc_f32_to_f16(u2f(0x7fc00000u)) & 0x7e00, 0x7e00);  /* NaN stays NaN */
	CHECK_EQ_INT(gc_f32_to_f16(u2f(0xff800001u)) & 0xfe00, 0xfe00);  /* signalling: quieted */
	CHECK(gc_f16_to_f32(0x7bff) == 65504.0f);
	CHECK(gc_f16_to_f32(0x0001) == 5.9604644775390625e-8f);
	CHECK(isnan(gc_f16_to_f32(0x7e00)));
	CHECK(isinf(gc_f16_to_f32(0xfc00)) && gc_f16_to_f32(0xfc00) < 0);
}

/* Every non-NaN half survives float and back; float -> half is monotonic. */
static void test_f16_roundtrip_all(void)
{
	uint32_t h;

	for (h = 0; h < 65536; h++) {
		float f = gc_f16_to_f32((uint16_t)h);
		if (isnan(f))
			continue;
		CHECKF(gc_f32_to_f16(f) == h, "half 0x%04x -> %g -> 0x%04x", h, f, gc_f32_to_f16(f));
	}
	for (h = 0x3c00; h < 0x7bff; h++) {     /* midpoints round to the even neighbour */
		float a = gc_f16_to_f32((uint16_t)h), b = gc_f16_to_f32((uint16_t)(h + 1));
		float mid = (float)(((double)a + (double)b) / 2);
		CHECK_EQ_INT(gc_f32_to_f16(mid), (h & 1) ? h + 1 : h);
	}
}

/* gc_f16_sum (F16C where available) equals the scalar half(float + float) on every
 * pair of one half with all others, odd lengths included (vector body and tail). */
static void test_f16_sum_bits(void)
{
	enum { N = 65536 + 5 };
	static uint16_t acc[N], x[N];
	uint32_t a;

	for (a = 0; a < 65536; a += 257) {
		size_t i;
		for (i = 0; i < N; i++) {
			acc[i] = (uint16_t)a;
			x[i] = (uint16_t)(i * 40503u);
		}
		gc_f16_sum(acc, x, N);
		for (i = 0; i < N; i++) {
			uint16_t want = gc_f32_to_f16(gc_f16_to_f32((uint16_t)a) + gc_f16_to_f32(x[i]));
			if (acc[i] != want && !(isnan(gc_f16_to_f32(acc[i])) && isnan(gc_f16_to_f32(want)))) {
				CHECKF(0, "0x%04x + 0x%04x: 0x%04x, want 0x%04x", a, x[i], acc[i], want);
				break;
			}
		}
		CHECK(i == N);
	}
}

/* The fp16 method's bulk conversion (F16C where available) equals the scalar one. */
static void test_fp16_method_bits(void)
{
	enum { N = 1 << 16 };
	static float g[N], avg[N];
	gc_tensor_desc t = { N, 1, 1 };
	const float *gp[1] = { g };
	float *ap[1] = { avg };
	gc_params p;
	uint64_t s = 7;
	size_t i;

	for (i = 0; i < N; i++) {
		uint32_t u = (uint32_t)gc_splitmix64(&s);
		if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffff))
			u &= ~0x7fffffu;        /* no NaN: its payload rule is not compared */
		if (i % 3 == 0)                 /* many values near half's range */
			u = (u & 0x807fffffu) | ((uint32_t)(100 + (i % 60)) << 23);
		g[i] = u2f(u);
	}
	gc_params_default(&p, GC_M_FP16);
	CHECK_EQ_INT(step(&p, &t, 1, 1, gp, ap, NULL), GC_OK);
	for (i = 0; i < N; i++)
		CHECKF(memcmp(&avg[i], &(float){ gc_f16_to_f32(gc_f32_to_f16(g[i])) }, 4) == 0,
		       "element %zu: %g -> %g", i, g[i], avg[i]);
}

/* bf16 rounding from its definition: the top 16 bits of the float, rounded to nearest
 * even on the 16 dropped; NaN quieted, keeping sign and top payload; inf kept. */
static void test_bf16_convert(void)
{
	CHECK_EQ_INT(gc_f32_to_bf16(1.0f), 0x3f80);
	CHECK_EQ_INT(gc_f32_to_bf16(u2f(0x3f808000u)), 0x3f80);  /* tie, even below */
	CHECK_EQ_INT(gc_f32_to_bf16(u2f(0x3f818000u)), 0x3f82);  /* tie, even above */
	CHECK_EQ_INT(gc_f32_to_bf16(u2f(0x3f808001u)), 0x3f81);  /* above the tie */
	CHECK_EQ_INT(gc_f32_to_bf16(u2f(0x3f807fffu)), 0x3f80);  /* below the tie */
	CHECK_EQ_INT(gc_f32_to_bf16(-0.0f), 0x8000);
	CHECK_EQ_INT(gc_f32_to_bf16(u2f(0x00018000u)), 0x0002);  /* subnormal tie, to even */
	CHECK_EQ_INT(gc_f32_to_bf16(u2f(0x7f7fffffu)), 0x7f80);  /* FLT_MAX rounds to inf */
	CHECK_EQ_INT(gc_f32_to_bf16(u2f(0x7f7f7fffu)), 0x7f7f);  /* largest finite bf16 */
	CHECK_EQ_INT(gc_f32_to_bf16(u2f(0xff800000u)), 0xff80);  /* -inf */
	CHECK_EQ_INT(gc_f32_to_bf16(u2f(0x7f800001u)), 0x7fc0);  /* signalling: quieted */
	CHECK_EQ_INT(gc_f32_to_bf16(u2f(0xffffffffu)), 0xffff);  /* no carry into the sign */
	CHECK_EQ_INT(gc_f32_to_bf16(u2f(0x7fa30000u)), 0x7fe3);
	for (uint32_t h = 0; h < 0x10000u; h++) {              /* every bf16 survives */
		float f = gc_bf16_to_f32((uint16_t)h);
		uint32_t u;
		memcpy(&u, &f, 4);
		CHECK_EQ_INT(u, h << 16);
		if ((h & 0x7f80u) != 0x7f80u || !(h & 0x7fu) || (h & 0x40u))
			CHECK_EQ_INT(gc_f32_to_bf16(f), h);
	}
}

/* bf16 at world 1 is the rounding of each element; world 3 is the bf16 sum of the
 * rounded thirds, addition by addition in worker order. */
static void test_bf16_method_bits(void)
{
	enum { N = 4099, P = 3 };
	static float g[P][N], avg[P][N];
	const float *gp[P] = { g[0], g[1], g[2] };
	float *ap[P] = { avg[0], avg[1], avg[2] };
	gc_tensor_desc t = { N, 1, 1 };
	gc_params p;
	uint64_t s = 11;
	size_t i;
	int w;

	for (w = 0; w < P; w++)
		for (i = 0; i < N; i++) {
			uint32_t u = (uint32_t)gc_splitmix64(&s);
			if ((u & 0x7f800000u) == 0x7f800000u)
				u &= ~0x40000000u;      /* finite */
			g[w][i] = u2f(u);
		}
	gc_params_default(&p, GC_M_BF16);
	CHECK_EQ_INT(step(&p, &t, 1, 1, gp, ap, NULL), GC_OK);
	for (i = 0; i < N; i++)
		CHECKF(memcmp(&avg[0][i], &(float){ gc_bf16_to_f32(gc_f32_to_bf16(g[0][i])) }, 4) == 0,
		       "element %zu: %g -> %g", i, g[0][i], avg[0][i]);
	CHECK_EQ_INT(step(&p, &t, 1, P, gp, ap, NULL), GC_OK);
	for (i = 0; i < N; i++) {
		uint16_t h = gc_f32_to_bf16(g[0][i] / P);
		for (w = 1; w < P; w++)
			h = gc_f32_to_bf16(gc_bf16_to_f32(h) + gc_bf16_to_f32(gc_f32_to_bf16(g[w][i] / P)));
		for (w = 0; w < P; w++)
			CHECKF(memcmp(&avg[w][i], &(float){ gc_bf16_to_f32(h) }, 4) == 0,
			       "worker %d element %zu", w, i);
	}
}

static void test_protocol_states(void)
{
	gc_tensor_desc t = { 10, 1, 1 };
	float g[10] = { 1 }, avg[10];
	gc_params p;
	gc_bucket *b;
	gc_round r;
	gc_err e;

	gc_params_default(&p, GC_M_SYNCSGD);
	CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, &t, 1, 2, 1, &e), GC_OK);
	CHECK_EQ_INT(gc_decode(b, avg), GC_E_STATE);
	CHECK_EQ_INT(gc_round_done(b), GC_E_STATE);
	CHECK_EQ_INT(gc_round_get(b, &r), 0);
	CHECK_EQ_INT(gc_encode(b, g), GC_OK);
	CHECK_EQ_INT(gc_decode(b, avg), GC_E_STATE);    /* a round is pending */
	CHECK_EQ_INT(gc_round_get(b, &r), 1);
	CHECK(r.coll == GC_COLL_ALLREDUCE && r.dtype == GC_DT_F32 && r.count == 10);
	memcpy(r.recv, r.send, sizeof(g));      /* an all-reduce that only this worker joined */
	CHECK_EQ_INT(gc_round_done(b), GC_OK);
	CHECK_EQ_INT(gc_round_get(b, &r), 0);
	CHECK_EQ_INT(gc_decode(b, avg), GC_OK);
	CHECK(avg[0] == 0.5f);                  /* own value / world */
	CHECK_EQ_INT(gc_decode(b, avg), GC_E_STATE);
	gc_bucket_free(b);
	gc_bucket_free(NULL);
}

static void test_bucket_new_errors(void)
{
	gc_tensor_desc t[2] = { { 4, 4, 2 }, { 0, 3, 2 } };
	gc_params p;
	gc_bucket *b;
	gc_err e;

	gc_params_default(&p, GC_M_TOPK);
	CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, t, 2, 2, 0, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "tensor 1");
	CHECK(b == NULL);
	CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, t, 1, 2, 2, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "worker 2 of world 2");
	CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, t, 0, 1, 0, &e), GC_E_INVAL);
	p.ratio = 3;
	CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, t, 1, 1, 0, &e), GC_E_INVAL);
	gc_params_default(&p, GC_M_TOPK);
	if (gc_cuda_available())
		SKIP("a CUDA device is present: the unsupported path is not reachable");
	e.msg[0] = '\0';
	CHECK(gc_bucket_new(&b, &p, GC_BACKEND_CUDA, NULL, t, 1, 1, 0, &e) != GC_OK);
	CHECK(b == NULL && e.msg[0]);
}

/* Payload bytes per method match the theory, on a bucket of mixed tensors. */
static void test_payload_bytes(void)
{
	gc_tensor_desc t[3] = { { 64, 27, 4 }, { 64, 1, 1 }, { 100, 10, 2 } };
	size_t n = 64 * 27 + 64 + 1000, k = (size_t)ceil(0.01 * (double)n);
	struct { gc_method m; int scaled; size_t bytes; } c[] = {
		{ GC_M_SYNCSGD, 0, 4 * n }, { GC_M_FP16, 0, 2 * n }, { GC_M_BF16, 0, 2 * n },
		{ GC_M_SIGNSGD, 0, (n + 7) / 8 }, { GC_M_SIGNSGD, 1, (n + 7) / 8 + 4 * 3 },
		{ GC_M_TOPK, 0, 8 * k }, { GC_M_MSTOPK, 0, 8 * k },
		/* rank 4: 64x27 and 100x10 compressed (P and Q), the 1-D tensor as is */
		{ GC_M_POWERSGD, 0, 4 * ((64 + 27) * 4 + (100 + 10) * 4 + 64) },
	};
	gc_params p;
	gc_bucket *b;
	gc_err e;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		gc_params_default(&p, c[i].m);
		p.scaled = c[i].scaled;
		CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, t, 3, 4, 0, &e), GC_OK);
		CHECKF(gc_bucket_payload_bytes(b) == c[i].bytes, "%s scaled=%d: %zu bytes, "
		       "expected %zu", gc_method_name(c[i].m), c[i].scaled,
		       gc_bucket_payload_bytes(b), c[i].bytes);
		CHECK_EQ_INT(gc_bucket_numel(b), n);
		gc_bucket_free(b);
	}
}

/* Majority vote by hand, 4 workers: ties give 0, +0.0 counts positive, -0.0 negative. */
static void test_signsgd_vote(void)
{
	enum { N = 11 };
	static const float in[4][N] = {
		{ 1, -1, 1, 1, -1, 0.0f, -0.0f, 0.0f, 1, -3, 2 },
		{ 1, -1, 1, -1, -1, 0.0f, -0.0f, -0.0f, -1, -3, 2 },
		{ 1, -1, -1, -1, 1, 0.0f, -0.0f, 0.0f, -1, 3, 2 },
		{ 1, 1, -1, -1, -1, -0.0f, 0.0f, -0.0f, -1, 3, -2 },
	};
	static const float want[N] = { 1, -1, 0, -1, -1, 1, -1, 0, -1, 0, 1 };
	float avg[4][N];
	const float *g[4] = { in[0], in[1], in[2], in[3] };
	float *a[4] = { avg[0], avg[1], avg[2], avg[3] };
	gc_tensor_desc t = { N, 1, 1 };
	gc_params p;
	int i, w;

	gc_params_default(&p, GC_M_SIGNSGD);
	CHECK_EQ_INT(step(&p, &t, 1, 4, g, a, NULL), GC_OK);
	for (w = 0; w < 4; w++)
		for (i = 0; i < N; i++)
			CHECKF(avg[w][i] == want[i], "worker %d element %d: %g, want %g", w, i,
			       avg[w][i], want[i]);
	CHECK_EQ_INT(step(&p, &t, 1, 3, g, a, NULL), GC_OK);  /* odd world: never 0 */
	for (i = 0; i < N; i++)
		CHECK(avg[0][i] == 1 || avg[0][i] == -1);
	CHECK(avg[0][2] == 1 && avg[0][5] == 1 && avg[0][6] == -1);
}

/* Majority vote on a large random input against a direct count (all byte lanes, tails). */
static void test_signsgd_vote_random(void)
{
	enum { N = 10007, P = 6 };
	static float in[P][N], avg[P][N];
	const float *g[P];
	float *a[P];
	gc_tensor_desc t = { N, 1, 1 };
	gc_params p;
	uint64_t s = 3;
	int i, w;

	for (w = 0; w < P; w++) {
		gc_rng_normal(&s, in[w], N);
		g[w] = in[w];
		a[w] = avg[w];
	}
	gc_params_default(&p, GC_M_SIGNSGD);
	CHECK_EQ_INT(step(&p, &t, 1, P, g, a, NULL), GC_OK);
	for (i = 0; i < N; i++) {
		int v = 0;
		for (w = 0; w < P; w++)
			v += signbit(in[w][i]) ? -1 : 1;
		CHECKF(avg[P - 1][i] == (float)((v > 0) - (v < 0)), "element %d", i);
	}
}

/* Scaled sign with error feedback, world 1: decoded = s * sign(c), decoded + e' = c. */
static void test_signsgd_scaled_ef(void)
{
	enum { N = 1000 };
	static float g[N], g2[N], avg[N], res[N];
	gc_tensor_desc t[2] = { { 10, 30, 2 }, { 700, 1, 1 } };
	const float *gp[1] = { g };
	float *ap[1] = { avg }, *rp[1] = { res };
	gc_params p;
	gc_bucket *b[1];
	gc_err e;
	double s0 = 0;
	uint64_t s = 11;
	int i;

	gc_rng_normal(&s, g, N);
	gc_rng_normal(&s, g2, N);
	for (i = 0; i < 300; i++)
		s0 += fabs(g[i]);
	gc_params_default(&p, GC_M_SIGNSGD);
	p.scaled = 1;
	p.ef = 1;
	CHECK_EQ_INT(gc_bucket_new(&b[0], &p, GC_BACKEND_CPU, NULL, t, 2, 1, 0, &e), GC_OK);
	CHECK_EQ_INT(gc_simulate_step(b, 1, gp, ap, NULL, NULL, &e), GC_OK);
	CHECK_EQ_INT(gc_bucket_residual(b[0], res), GC_OK);
	CHECK_NEAR(fabs(avg[0]), s0 / 300, 1e-6);
	for (i = 0; i < N; i++) {
		CHECK(signbit(avg[i]) == signbit(g[i]));
		CHECK_NEAR(avg[i] + res[i], g[i], 1e-6);
	}
	gp[0] = g2;                             /* second step: c = g2 + e */
	CHECK_EQ_INT(gc_simulate_step(b, 1, gp, ap, NULL, NULL, &e), GC_OK);
	for (i = 0; i < N; i++) {
		float c = g2[i] + res[i];
		CHECK(signbit(avg[i]) == signbit(c));
	}
	CHECK_EQ_INT(gc_bucket_residual(b[0], rp[0]), GC_OK);
	gc_bucket_free(b[0]);
}

/* Scaled sign, 3 workers: result = mean over workers of s_w * sign. */
static void test_signsgd_scaled_average(void)
{
	enum { N = 37 };
	static float in[3][N], avg[3][N];
	const float *g[3] = { in[0], in[1], in[2] };
	float *a[3] = { avg[0], avg[1], avg[2] };
	gc_tensor_desc t = { N, 1, 1 };
	gc_params p;
	double sc[3] = { 0, 0, 0 };
	uint64_t s = 5;
	int i, w;

	for (w = 0; w < 3; w++) {
		gc_rng_normal(&s, in[w], N);
		for (i = 0; i < N; i++)
			sc[w] += fabs(in[w][i]) / N;
	}
	gc_params_default(&p, GC_M_SIGNSGD);
	p.scaled = 1;
	CHECK_EQ_INT(step(&p, &t, 1, 3, g, a, NULL), GC_OK);
	for (i = 0; i < N; i++) {
		double want = 0;
		for (w = 0; w < 3; w++)
			want += (signbit(in[w][i]) ? -sc[w] : sc[w]) / 3;
		CHECK_NEAR(avg[1][i], want, 1e-6);
	}
}

/* Large enough for the threaded paths, tensor boundaries inside bytes: scaled average
 * of 3 workers against a direct computation, and EF conservation at world 1. */
static void test_signsgd_scaled_large(void)
{
	enum { N = 200003, P = 3 };
	static float in[P][N], avg[P][N], res[N];
	gc_tensor_desc t[3] = { { 1001, 1, 1 }, { 70001, 1, 1 }, { 129001, 1, 1 } };
	size_t off[4] = { 0, 1001, 71002, 200003 };
	const float *g[P] = { in[0], in[1], in[2] };
	float *a[P] = { avg[0], avg[1], avg[2] }, *r[1] = { res };
	double sc[P][3];
	gc_params p;
	uint64_t s = 99;
	int w, k;
	size_t i;

	for (w = 0; w < P; w++) {
		gc_rng_normal(&s, in[w], N);
		for (k = 0; k < 3; k++) {
			double sum = 0;
			for (i = off[k]; i < off[k + 1]; i++)
				sum += fabs(in[w][i]);
			sc[w][k] = (float)(sum / (double)(off[k + 1] - off[k]));
		}
	}
	gc_params_default(&p, GC_M_SIGNSGD);
	p.scaled = 1;
	CHECK_EQ_INT(step(&p, t, 3, P, g, a, NULL), GC_OK);
	for (k = 0; k < 3; k++)
		for (i = off[k]; i < off[k + 1]; i++) {
			float want = 0.0f;
			for (w = 0; w < P; w++)
				want += signbit(in[w][i]) ? -(float)sc[w][k] : (float)sc[w][k];
			CHECKF(avg[2][i] == want / P, "element %zu: %g vs %g", i, avg[2][i], want / P);
		}
	p.ef = 1;
	CHECK_EQ_INT(step(&p, t, 3, 1, g, a, r), GC_OK);
	for (k = 0; k < 3; k++)
		for (i = off[k]; i < off[k + 1]; i++) {
			CHECK(fabsf(avg[0][i]) == (float)sc[0][k]);
			CHECK_NEAR(avg[0][i] + res[i], in[0][i], 1e-6);
		}
}

/* More than 255 workers: the vote's byte lanes spill; ties exact at 150 of 300. */
static void test_signsgd_vote_many_workers(void)
{
	enum { P = 300, N = 19 };
	static float in[P][N], avg[N];
	static gc_bucket *b[P];
	const float *g[P];
	float *a[P];
	gc_tensor_desc t = { N, 1, 1 };
	gc_params p;
	gc_err e;
	int w, i, ok = 1;

	gc_params_default(&p, GC_M_SIGNSGD);
	for (w = 0; w < P; w++) {
		for (i = 0; i < N; i++)         /* element i: positive at the first 140 + i workers */
			in[w][i] = w < 140 + i ? 1.0f : -1.0f;
		g[w] = in[w];
		a[w] = w == P - 1 ? avg : malloc(N * sizeof(float));
		ok &= a[w] && !gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, &t, 1, P, w, &e);
	}
	ok = ok && !gc_simulate_step(b, P, g, a, NULL, NULL, &e);
	for (w = 0; w < P; w++) {
		gc_bucket_free(b[w]);
		if (w != P - 1)
			free(a[w]);
	}
	CHECK(ok);
	for (i = 0; i < N; i++)
		CHECKF(avg[i] == (140 + i > 150 ? 1.0f : 140 + i < 150 ? -1.0f : 0.0f),
		       "element %d: %g", i, avg[i]);
}

int main(void)
{
	GCT_SUITE("kernels");
	GCT_RUN(test_method_names);
	GCT_RUN(test_params_errors);
	GCT_RUN(test_params_check_format);
	GCT_RUN(test_f16_known_bits);
	GCT_RUN(test_f16_roundtrip_all);
	GCT_RUN(test_f16_sum_bits);
	GCT_RUN(test_fp16_method_bits);
	GCT_RUN(test_bf16_convert);
	GCT_RUN(test_bf16_method_bits);
	GCT_RUN(test_protocol_states);
	GCT_RUN(test_bucket_new_errors);
	GCT_RUN(test_payload_bytes);
	GCT_RUN(test_signsgd_vote);
	GCT_RUN(test_signsgd_vote_random);
	GCT_RUN(test_signsgd_vote_many_workers);
	GCT_RUN(test_signsgd_scaled_ef);
	GCT_RUN(test_signsgd_scaled_average);
	GCT_RUN(test_signsgd_scaled_large);
	return gct_finish();
}

/* tests/unit/test_kernels_cuda.c: the CUDA back end of the compressors.
 *
 * Part 1 runs everywhere: mstopk's multi-level bisection planner (kernels/cuda/bisect.h)
 * against the sequential bisection of kernels/compress.h, with a CPU count.
 * Part 2 needs a GPU: every method on the CUDA back end against the CPU back end, on
 * small layouts, a 4.6M-element one (every grid-stride loop runs more than once),
 * ResNet-50 and BERT-base sized buckets (formats/arch.c), 1 to 5 workers, and once on a
 * non-blocking stream with buffers at odd float offsets. Without a device these SKIP,
 * unless GCBENCH_EXPECT_GPU=1 (tools/gpu-check.sh): then they FAIL with the CUDA error
 * and the driver version. GCBENCH_CUDA_MODELS=0 leaves out the model-sized buckets;
 * GCBENCH_CUDA_QUICK=1 (under compute-sanitizer) also the 4.6M layout and the timing
 * tests of the spin kernel.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels/cuda/bisect.h"

/* ---- part 1: the bisection planner ----------------------------------------- */

static uint64_t t_rng = 88172645463325252ull;

static uint32_t t_rand(void)
{
	t_rng ^= t_rng << 13;
	t_rng ^= t_rng >> 7;
	t_rng ^= t_rng << 17;
	return (uint32_t)(t_rng >> 16);
}

static uint64_t count_ge(const float *a, size_t n, float x)
{
	uint64_t c = 0;
	size_t i;
	for (i = 0; i < n; i++)
		c += a[i] >= x;
	return c;
}

/* The rule of kernels/compress.h, one level at a time. */
static void bisect_seq(const float *a, size_t n, uint64_t k, int rounds, float *lo, float *hi)
{
	double s = 0;
	float mx = 0;
	size_t i;
	int r;
	for (i = 0; i < n; i++) {
		s += a[i];
		mx = a[i] > mx ? a[i] : mx;
	}
	*lo = (float)(s / (double)n);
	*hi = mx;
	if (count_ge(a, n, *lo) < k)
		*lo = 0.0f;
	for (r = 0; r < rounds; r++) {
		float mid = (*lo + *hi) * 0.5f;
		if (count_ge(a, n, mid) >= k)
			*lo = mid;
		else
			*hi = mid;
	}
}

/* The planner driven by a CPU count; returns the number of passes, -1 on error. */
static int bisect_multi(const float *a, size_t n, uint64_t k, int rounds, float *lo, float *hi,
			uint64_t *hi_count)
{
	gc_bisect s;
	uint64_t ge[GC_BISECT_MAXCAND];
	double sum = 0;
	float mx = 0;
	size_t i;
	for (i = 0; i < n; i++) {
		sum += a[i];
		mx = a[i] > mx ? a[i] : mx;
	}
	gc_bisect_start(&s, (float)(sum / (double)n), mx, k, rounds);
	while (gc_bisect_plan(&s)) {
		for (i = 0; i < s.ncand; i++) {
			if (i && !(s.cand[i] > s.cand[i - 1]))
				return -1;             /* not ascending and distinct */
			ge[i] = count_ge(a, n, s.cand[i]);
		}
		if (gc_bisect_apply(&s, ge))
			return -1;
	}
	*lo = s.lo;
	*hi = s.hi;
	*hi_count = s.hi_count;
	return s.passes;
}

/* Magnitudes: kind 0 uniform, 1 few distinct values (ties), 2 wide range, 3 zeros. */
static void fill_abs(float *a, size_t n, int kind)
{
	size_t i;
	for (i = 0; i < n; i++) {
		float u = (float)(t_rand() % 1000000) / 1e6f;
		if (kind == 0)
			a[i] = u;
		else if (kind == 1)
			a[i] = (float)(t_rand() % 4) * 0.25f;
		else if (kind == 2)
			a[i] = expf(40.0f * u - 20.0f);
		else
			a[i] = (t_rand() % 50) ? 0.0f : u;
	}
}

static void test_bisect_matches_sequential(void)
{
	static const size_t ns[] = { 1, 31, 1000, 4099 };
	static const int rounds[] = { 0, 1, 7, 8, 15, 20, 64 };
	float *a = malloc(4099 * sizeof(float));
	size_t in, ir, kind;
	CHECK(a);
	for (in = 0; in < sizeof(ns) / sizeof(ns[0]); in++)
		for (kind = 0; kind < 4; kind++)
			for (ir = 0; ir < sizeof(rounds) / sizeof(rounds[0]); ir++) {
				size_t n = ns[in];
				uint64_t ks[3] = { 1, (n + 99) / 100, n }, hc;
				int j, passes;
				fill_abs(a, n, (int)kind);
				for (j = 0; j < 3; j++) {
					float lo1, hi1, lo2, hi2;
					bisect_seq(a, n, ks[j], rounds[ir], &lo1, &hi1);
					passes = bisect_multi(a, n, ks[j], rounds[ir], &lo2, &hi2, &hc);
					if (passes < 0 || memcmp(&lo1, &lo2, 4) || memcmp(&hi1, &hi2, 4) ||
					    hc != count_ge(a, n, hi2)) {
						free(a);
						CHECKF(0, "n=%zu kind=%zu k=%llu rounds=%d: seq [%a, %a] multi [%a, %a] passes %d",
						       n, kind, (unsigned long long)ks[j], rounds[ir], lo1, hi1, lo2, hi2, passes);
					}
				}
			}
	free(a);
}

static void test_bisect_passes(void)
{
	float a[257], lo, hi;
	uint64_t hc;
	fill_abs(a, 257, 0);
	/* 20 rounds: 7 in the first pass, then 8 and 5 */
	CHECK_EQ_INT(bisect_multi(a, 257, 3, 20, &lo, &hi, &hc), 3);
	CHECK_EQ_INT(bisect_multi(a, 257, 3, 0, &lo, &hi, &hc), 1);
	CHECK_EQ_INT(bisect_multi(a, 257, 3, 64, &lo, &hi, &hc), 9);
}

static void test_bisect_tree(void)
{
	float t[7];
	CHECK_EQ_INT(gc_bisect_tree(0.0f, 8.0f, 3, t), 7);
	CHECK(t[0] == 4.0f && t[1] == 2.0f && t[2] == 1.0f && t[3] == 3.0f);
	CHECK(t[4] == 6.0f && t[5] == 5.0f && t[6] == 7.0f);
	CHECK_EQ_INT(gc_bisect_tree(0.0f, 8.0f, 0, t), 0);
}

/* ---- part 2: CUDA against CPU ---------------------------------------------- */

#if GC_HAVE_CUDA
#include "kernels/compress.h"
#include "kernels/internal.h"
#include "kernels/cuda/cuda_util.h"
#include "kernels/cuda/cublas_load.h"
#include "kernels/rng.h"
#include "timing.h"
#include "formats/arch.h"

#define MAXW 5
#define STEPS 3
#define MAXLT 4

struct layout {
	const char *name;
	size_t nt;
	gc_tensor_desc t[MAXLT];
	int big;                /* 1: workers 2 and 5 only, 2 steps */
};

/* Sizes not a multiple of 32, several tensors, matrices for powersgd, and one large
 * enough for several tiles, chunks and blocks. */
static const struct layout layouts[] = {
	{ "n1", 1, { { 1, 1, 1 } }, 0 },
	{ "n37", 1, { { 37, 1, 1 } }, 0 },
	{ "n1000", 1, { { 1000, 1, 1 } }, 0 },
	{ "mixed", 4, { { 33, 1, 1 }, { 64, 5, 2 }, { 7, 1, 1 }, { 16, 40, 2 } }, 0 },
	{ "large", 3, { { 300, 70, 2 }, { 4099, 1, 1 }, { 257, 129, 4 } }, 0 },
	/* 4,604,909 elements: more than one sweep of every grid-stride loop (8 x SMs
	 * blocks x 256 threads x 4 floats is 1.08M on an H200), odd tail */
	{ "n4.6M", 4, { { 2048, 2048, 2 }, { 1001, 1, 1 }, { 512, 800, 2 }, { 4, 1, 1 } }, 1 },
};
#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

/* Gradients with ties in magnitude (+-x, repeated values), +0.0 and -0.0, values that
 * overflow fp16 after / p = 1, and a smooth random part. */
/* xorshift64 on a local state (fill_grad's blocks run in parallel) */
static uint32_t x_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (uint32_t)(*x >> 16);
}

/* The gradient of worker at step: blocks of 64K elements, each from its own seed, filled
 * in parallel (OpenMP): a ResNet-50 bucket of 4 workers took about 1 s per step on one
 * core. */
#define FILL_BLOCK 65536
static void fill_grad(float *g, size_t n, int worker, int step)
{
	long nb = (long)((n + FILL_BLOCK - 1) / FILL_BLOCK);
#pragma omp parallel for schedule(static)
	for (long bi = 0; bi < nb; bi++) {
		uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(worker * 131 + step * 7 + 1) ^
			     (0xbf58476d1ce4e5b9ull * (uint64_t)(bi + 1));
		size_t lo = (size_t)bi * FILL_BLOCK, hi = lo + FILL_BLOCK < n ? lo + FILL_BLOCK : n;
		if (!x)
			x = 1;
		for (size_t i = lo; i < hi; i++) {
			uint32_t r = x_rand(&x);
			float u = (float)(int)(x_rand(&x) % 2000001 - 1000000) * 1e-6f;
			switch (r % 16) {
			case 0: g[i] = 0.0f; break;
			case 1: g[i] = -0.0f; break;
			case 2: g[i] = (r & 16) ? 0.5f : -0.5f; break;        /* ties */
			case 3: g[i] = (r & 16) ? 0.25f : -0.25f; break;
			case 4: g[i] = (r % 64 == 4) ? 70000.0f : u; break;   /* fp16 overflow */
			default: g[i] = u * (float)(1 + r % 3); break;
			}
		}
	}
}

static int have_device(void)
{
	return gc_cuda_device_count() > 0;
}

static int env_is(const char *name, const char *v)
{
	const char *x = getenv(name);
	return x && !strcmp(x, v);
}

/* Tensors of a real model's bucket (the whole model as one bucket), or NULL. */
static gc_tensor_desc *model_tensors(const char *name, size_t *nt)
{
	gc_arch a;
	gc_err e = { "" };
	gc_tensor_desc *t;
	size_t i;
	if (gc_arch_build(name, &a, &e))
		return NULL;
	t = calloc(a.n, sizeof(*t));
	for (i = 0; t && i < a.n; i++) {
		const gc_arch_tensor *x = &a.t[i];
		t[i].rows = x->shape[0];
		t[i].cols = x->numel / (x->shape[0] ? x->shape[0] : 1);
		t[i].ndim = x->ndim;
	}
	*nt = a.n;
	gc_arch_release(&a);
	return t;
}

struct run {
	gc_bucket *b[2][MAXW];          /* [0] CPU, [1] CUDA */
	float *g[MAXW], *avg[2][MAXW], *res[2];
	unsigned char *pay[2];
	size_t n;
	int p;
};

static void run_free(struct run *r)
{
	int be, w;
	for (be = 0; be < 2; be++) {
		for (w = 0; w < MAXW; w++) {
			gc_bucket_free(r->b[be][w]);
			free(r->avg[be][w]);
		}
		free(r->res[be]);
		free(r->pay[be]);
	}
	for (w = 0; w < MAXW; w++)
		free(r->g[w]);
	memset(r, 0, sizeof(*r));
}

/* Both back ends for p workers over nt tensors t, the CUDA buckets on stream; 0 on
 * success, else a message in e. */
static int run_new(struct run *r, const gc_params *pm, const gc_tensor_desc *t, size_t nt, int p,
		   void *stream, gc_err *e)
{
	int be, w;
	size_t i;
	memset(r, 0, sizeof(*r));
	for (i = 0; i < nt; i++)
		r->n += t[i].rows * t[i].cols;
	r->p = p;
	for (be = 0; be < 2; be++) {
		r->res[be] = malloc(r->n * sizeof(float));
		for (w = 0; w < p; w++) {
			r->avg[be][w] = malloc(r->n * sizeof(float));
			if (gc_bucket_new(&r->b[be][w], pm, be ? GC_BACKEND_CUDA : GC_BACKEND_CPU,
					  be ? stream : NULL, t, nt, p, w, e))
				return -1;
		}
	}
	for (w = 0; w < p; w++)
		r->g[w] = malloc(r->n * sizeof(float));
	return 0;
}

/* The round-0 receive buffer of worker 0 (the gathered payloads) into host memory. */
static unsigned char *gathered(const gc_bucket *b, int cuda, size_t *bytes)
{
	const gc_round *rd = &b->round[0];
	unsigned char *h;
	*bytes = rd->count * gc_dtype_size(rd->dtype) * (rd->coll == GC_COLL_ALLGATHER ? (size_t)b->world : 1);
	h = malloc(*bytes ? *bytes : 1);
	if (!h)
		return NULL;
	if (cuda ? (gc_cuda_copy(h, rd->recv, *bytes, GC_CUDA_D2H, NULL) || gc_cuda_sync(NULL))
		 : (memcpy(h, rd->recv, *bytes), 0)) {
		free(h);
		return NULL;
	}
	return h;
}

/* |a - b| <= tol * scale for every element; tol 0: bit-identical. Returns the first
 * index that fails, or -1. In parallel (OpenMP): the model buckets compare 25-110M
 * elements per worker and step. */
static long cmp_floats(const float *a, const float *b, size_t n, double tol, double scale)
{
	long first = -1;
#pragma omp parallel
	{
		long mine = -1;
#pragma omp for schedule(static)
		for (long i = 0; i < (long)n; i++) {
			if (mine < 0 && (tol == 0 ? memcmp(&a[i], &b[i], sizeof(float)) != 0
					    : !(fabs((double)a[i] - (double)b[i]) <= tol * scale) &&
					      !(isinf(a[i]) && a[i] == b[i])))
				mine = i;
		}
#pragma omp critical
		if (mine >= 0 && (first < 0 || mine < first))
			first = mine;
	}
	return first;
}

static double max_abs(const float *a, size_t n)
{
	double m = 0;
#pragma omp parallel for schedule(static) reduction(max : m)
	for (long i = 0; i < (long)n; i++)
		if (isfinite(a[i]) && fabs(a[i]) > m)
			m = fabs(a[i]);
	return m;
}

#define OFF_G 1                 /* float offsets of the gradient and the average */
#define OFF_A 3

/* Run round rd of every worker in host memory, as kernels/simulate.c does (the sum in
 * worker order, or the payloads side by side), through buffers on b[w]->stream. */
static int host_round(gc_bucket **b, int p, const gc_round *rd, gc_err *e)
{
	size_t bytes = rd[0].count * gc_dtype_size(rd[0].dtype), i;
	size_t rbytes = rd[0].coll == GC_COLL_ALLGATHER ? bytes * (size_t)p : bytes;
	unsigned char *res = malloc(rbytes + 1), *in = malloc(bytes + 1);
	int w, bad = !res || !in;
	for (w = 0; !bad && w < p; w++) {
		unsigned char *dst = rd[0].coll == GC_COLL_ALLGATHER ? res + (size_t)w * bytes : w ? in : res;
		bad = gc_cuda_copy(dst, rd[w].send, bytes, GC_CUDA_D2H, b[w]->stream) || gc_cuda_sync(b[w]->stream);
		if (bad || rd[0].coll == GC_COLL_ALLGATHER || !w)
			continue;
		if (rd[0].dtype == GC_DT_F32)
			for (i = 0; i < rd[0].count; i++)
				((float *)res)[i] += ((const float *)in)[i];
		else
			gc_f16_sum((uint16_t *)res, (const uint16_t *)in, rd[0].count);
	}
	for (w = 0; !bad && w < p; w++)
		bad = gc_cuda_copy(rd[w].recv, res, rbytes, GC_CUDA_H2D, b[w]->stream) || gc_cuda_sync(b[w]->stream);
	free(res);
	free(in);
	return bad ? (gc_fail(e, GC_E_CUDA, "a host round of %zu bytes failed", bytes), 1) : 0;
}

/* gc_simulate_step for CUDA buckets with the gradient at dev + OFF_G and the average at
 * dev + OFF_A floats (not 16-byte aligned: the scalar paths), on the buckets' stream. */
static int step_at_offset(gc_bucket **b, int p, const float *const *g, float **avg, gc_err *e)
{
	size_t n = gc_bucket_numel(b[0]), bytes = n * sizeof(float);
	float *dev[MAXW] = { 0 };
	gc_round rd[MAXW];
	int w, bad = 0;
	for (w = 0; !bad && w < p; w++) {
		bad = gc_cuda_alloc((void **)&dev[w], bytes + 4 * sizeof(float)) ||
		      gc_cuda_copy(dev[w] + OFF_G, g[w], bytes, GC_CUDA_H2D, b[w]->stream) ||
		      gc_encode(b[w], dev[w] + OFF_G);
	}
	while (!bad && gc_round_get(b[0], &rd[0])) {
		for (w = 1; w < p; w++)
			gc_round_get(b[w], &rd[w]);
		bad = host_round(b, p, rd, e);
		for (w = 0; !bad && w < p; w++)
			bad = gc_round_done(b[w]) != GC_OK;
	}
	for (w = 0; !bad && w < p; w++)
		bad = gc_decode(b[w], dev[w] + OFF_A) ||
		      gc_cuda_copy(avg[w], dev[w] + OFF_A, bytes, GC_CUDA_D2H, b[w]->stream) ||
		      gc_cuda_sync(b[w]->stream);
	for (w = 0; w < p; w++)
		gc_cuda_free(dev[w]);
	if (bad && !e->msg[0])
		gc_fail(e, GC_E_CUDA, "a step at odd offsets on a non-blocking stream failed");
	return bad;
}

/* One step on both back ends and the comparisons; 0 if all agree, else a message. */
static int step_compare(struct run *r, int step, double tol, int gather, int offset, char *msg, size_t len)
{
	gc_err e = { "" };
	size_t nb0, nb1;
	long bad;
	int w, be;
	for (w = 0; w < r->p; w++)
		fill_grad(r->g[w], r->n, w, step);
	for (be = 0; be < 2; be++)
		if (be && offset ? step_at_offset(r->b[1], r->p, (const float *const *)r->g, r->avg[1], &e) != 0 :
		    gc_simulate_step(r->b[be], r->p, (const float *const *)r->g, r->avg[be], NULL, NULL, &e) != GC_OK)
			return snprintf(msg, len, "%s step %d: %s", be ? "cuda" : "cpu", step, e.msg), 1;
	if (gather) {
		unsigned char *h0 = gathered(r->b[0][0], 0, &nb0), *h1 = gathered(r->b[1][0], 1, &nb1);
		int diff = !h0 || !h1 || nb0 != nb1 || memcmp(h0, h1, nb0);
		free(h0);
		free(h1);
		if (diff)
			return snprintf(msg, len, "step %d: gathered payloads differ (%zu vs %zu bytes)", step, nb0, nb1), 1;
	}
	for (w = 0; w < r->p; w++) {
		double sc = max_abs(r->avg[0][w], r->n) + 1e-6;
		bad = cmp_floats(r->avg[0][w], r->avg[1][w], r->n, tol, sc);
		if (bad >= 0)
			return snprintf(msg, len, "step %d worker %d: avg[%ld] cpu %.9g cuda %.9g", step, w, bad,
					r->avg[0][w][bad], r->avg[1][w][bad]), 1;
		if (gc_bucket_residual(r->b[0][w], r->res[0]) || gc_bucket_residual(r->b[1][w], r->res[1]))
			return snprintf(msg, len, "step %d worker %d: residual failed", step, w), 1;
		sc = max_abs(r->res[0], r->n) + 1e-6;
		bad = cmp_floats(r->res[0], r->res[1], r->n, tol, sc);
		if (bad >= 0)
			return snprintf(msg, len, "step %d worker %d: residual[%ld] cpu %.9g cuda %.9g", step, w, bad,
					r->res[0][bad], r->res[1][bad]), 1;
	}
	if (gc_bucket_payload_bytes(r->b[0][0]) != gc_bucket_payload_bytes(r->b[1][0]))
		return snprintf(msg, len, "payload bytes %zu vs %zu", gc_bucket_payload_bytes(r->b[0][0]),
				gc_bucket_payload_bytes(r->b[1][0])), 1;
	return 0;
}

/* One layout, p workers, steps steps; offset 1: the CUDA side on a non-blocking
 * stream with buffers at odd float offsets (step_at_offset). */
static int compare_layout(const gc_params *pm, const char *name, const gc_tensor_desc *t, size_t nt,
			  int p, int steps, double tol, int gather, int offset, char *msg, size_t len)
{
	struct run r;
	gc_err e = { "" };
	void *stream = NULL;
	int bad, step;
	memset(&r, 0, sizeof(r));
	bad = offset && gc_cuda_stream_new(&stream);
	if (bad)
		snprintf(msg, len, "cannot create a CUDA stream");
	if (!bad && (bad = run_new(&r, pm, t, nt, p, stream, &e)))
		snprintf(msg, len, "%s p=%d: cannot create buckets: %s", name, p, e.msg);
	for (step = 0; !bad && step < steps; step++)
		if (step_compare(&r, step, tol, gather, offset, msg, len)) {
			size_t m = strlen(msg);
			snprintf(msg + m, len - m, " (layout %s, p=%d, %s%s)", name, p, gc_method_name(pm->method),
				 offset ? ", non-blocking stream, odd offsets" : "");
			bad = 1;
		}
	run_free(&r);
	gc_cuda_stream_free(stream);
	return bad;
}

/* Every layout, 1 to 5 workers (big ones: 2 and 5), STEPS steps (error feedback and
 * warm start carry). */
static int compare_method(const gc_params *pm, double tol, int gather, char *msg, size_t len)
{
	size_t li;
	int p;
	for (li = 0; li < NLAYOUTS; li++)
		for (p = 1; p <= MAXW; p++) {
			const struct layout *l = &layouts[li];
			if (l->big && ((p != 2 && p != MAXW) || env_is("GCBENCH_CUDA_QUICK", "1")))
				continue;
			if (compare_layout(pm, l->name, l->t, l->nt, p, l->big ? 2 : STEPS, tol, gather, 0, msg, len))
				return 1;
		}
	return 0;
}

/* No device: SKIP, or FAIL with the reason when GCBENCH_EXPECT_GPU=1. */
#define NEED_DEVICE() do { char why_[384]; if (gc_cuda_probe(why_, sizeof(why_)) < 1) { \
	CHECKF(!gc_cuda_expected(), "GCBENCH_EXPECT_GPU=1 but no CUDA device: %s", why_); \
	SKIP("no CUDA device: %s", why_); } } while (0)
#define COMPARE(pm, tol, gather) do { char m_[512] = ""; \
	CHECKF(!compare_method(pm, tol, gather, m_, sizeof(m_)), "%s", m_); } while (0)

static void test_cuda_absent_fails_cleanly(void)
{
	gc_params pm;
	gc_tensor_desc t = { 10, 1, 1 };
	gc_bucket *b = NULL;
	gc_err e = { "" };
	if (have_device())
		SKIP("a CUDA device is present (this case is for hosts without one)");
	CHECK_EQ_INT(gc_cuda_available(), 0);
	gc_params_default(&pm, GC_M_TOPK);
	CHECK(gc_bucket_new(&b, &pm, GC_BACKEND_CUDA, NULL, &t, 1, 1, 0, &e) != GC_OK);
	CHECK(b == NULL);
	CHECK(e.msg[0] != '\0');
	CHECK(gc_cuda_spin(0.001, NULL) != GC_OK);
}

/* Runs everywhere: the probe says why there is no device, or names the device. */
static void test_cuda_probe_explains(void)
{
	char why[384] = "";
	int n = gc_cuda_probe(why, sizeof(why));
	CHECK_EQ_INT(n, gc_cuda_device_count());
	CHECK_CONTAINS(why, "driver");
	CHECK_CONTAINS(why, "runtime");
	if (n < 1)
		CHECK_CONTAINS(why, "cudaGetDeviceCount");
	else
		CHECK_CONTAINS(why, "sm_");
}

/* Runs everywhere the toolkit is installed: cuBLAS is not linked (it would cost every
 * process its start-up), it is loaded on first use, once, with every entry point. */
static void test_cuda_cublas_loads(void)
{
	gc_err e = { "" };
	const struct gc_cublas_api *a = gc_cublas(&e), *b = gc_cublas(&e);

	CHECKF(a != NULL, "%s", e.msg);
	CHECK(a == b);
	CHECK(a->create && a->destroy && a->set_stream && a->set_math_mode && a->sgemm_64 &&
	      a->saxpy_64 && a->status_string);
	CHECK_CONTAINS(a->status_string(CUBLAS_STATUS_NOT_INITIALIZED), "not initialized");
}

/* The device's counter-based uniforms are the host's bits (kernels/rng.h), from an
 * odd first index through a grid-stride loop. */
static void test_cuda_rng_matches_host(void)
{
	enum { N = 100003 };
	static float host[N], dev[N];
	uint64_t key = gc_rng_key(42, 5, 9);
	void *d = NULL;
	size_t i;
	NEED_DEVICE();
	for (i = 0; i < N; i++)
		host[i] = gc_rng_unit24(key, 17 + i);
	CHECK(gc_cuda_alloc(&d, sizeof(dev)) == GC_OK);
	CHECK(gc_cuda_rng_unit24(key, 17, d, N, NULL) == GC_OK);
	CHECK(gc_cuda_copy(dev, d, sizeof(dev), GC_CUDA_D2H, NULL) == GC_OK);
	CHECK(gc_cuda_sync(NULL) == GC_OK);
	gc_cuda_free(d);
	CHECK(!memcmp(host, dev, sizeof(dev)));
}

static void test_cuda_copy_and_spin(void)
{
	float h[100], back[100];
	void *d = NULL;
	uint64_t t0, ns;
	int i;
	NEED_DEVICE();
	for (i = 0; i < 100; i++)
		h[i] = (float)i * 0.5f;
	CHECK(gc_cuda_alloc(&d, sizeof(h)) == GC_OK);
	CHECK(gc_cuda_copy(d, h, sizeof(h), GC_CUDA_H2D, NULL) == GC_OK);
	CHECK(gc_cuda_copy(back, d, sizeof(h), GC_CUDA_D2H, NULL) == GC_OK);
	CHECK(gc_cuda_sync(NULL) == GC_OK);
	gc_cuda_free(d);
	CHECK(memcmp(h, back, sizeof(h)) == 0);
	CHECK(gc_cuda_spin_calibrate() == GC_OK);
	CHECK(gc_cuda_spin_blocks() > 0);
	t0 = gc_now_ns();
	CHECK(gc_cuda_spin(0.050, NULL) == GC_OK);
	CHECK(gc_cuda_sync(NULL) == GC_OK);
	ns = gc_now_ns() - t0;
	CHECKF(ns > 49000000ull && ns < 60000000ull, "spin of 50 ms took %.2f ms", ns / 1e6);
}

/* Blocks past the first resident wave (as beside another kernel) end at the same
 * deadline: 1.5 and 3 waves of a 30 ms spin take about 30 ms, not 60 or 90. */
static void test_cuda_spin_second_wave(void)
{
	static const double waves[] = { 1.5, 3.0 };
	int i;
	NEED_DEVICE();
	if (env_is("GCBENCH_CUDA_QUICK", "1"))
		SKIP("GCBENCH_CUDA_QUICK=1 (timing)");
	CHECK(gc_cuda_spin_calibrate() == GC_OK);
	for (i = 0; i < 2; i++) {
		uint64_t t0 = gc_now_ns(), ns;
		CHECK(gc_cuda_spin_waves(0.030, waves[i], NULL) == GC_OK);
		CHECK(gc_cuda_sync(NULL) == GC_OK);
		ns = gc_now_ns() - t0;
		printf("# spin of 30 ms in %.1f waves: %.2f ms\n", waves[i], ns / 1e6);
		CHECKF(ns > 29000000ull && ns < 38000000ull, "spin of 30 ms in %.1f waves took %.2f ms",
		       waves[i], ns / 1e6);
	}
}

/* Many short spins back to back on one stream (the emulated backward of ResNet-50 is
 * 161 of them): the slots are reused and the total stays close to the sum. */
static void test_cuda_spin_many(void)
{
	uint64_t t0, ns;
	int i;
	NEED_DEVICE();
	if (env_is("GCBENCH_CUDA_QUICK", "1"))
		SKIP("GCBENCH_CUDA_QUICK=1 (timing)");
	CHECK(gc_cuda_spin_calibrate() == GC_OK);
	t0 = gc_now_ns();
	for (i = 0; i < 2000; i++)
		CHECK(gc_cuda_spin(0.00005, NULL) == GC_OK);
	CHECK(gc_cuda_sync(NULL) == GC_OK);
	ns = gc_now_ns() - t0;
	printf("# 2000 spins of 50 us back to back: %.2f ms\n", ns / 1e6);
	/* well under 100 ms: some spins ended early (a stale deadline in a reused slot).
	 * %globaltimer may tick only every microsecond or so, so a spin can end up to a tick
	 * early: 45 us each is the bound */
	CHECKF(ns > 90000000ull && ns < 150000000ull, "2000 spins of 50 us took %.2f ms", ns / 1e6);
}

static void test_cuda_syncsgd(void)
{
	gc_params pm;
	NEED_DEVICE();
	gc_params_default(&pm, GC_M_SYNCSGD);
	COMPARE(&pm, 0, 0);
}

static void test_cuda_fp16(void)
{
	gc_params pm;
	NEED_DEVICE();
	gc_params_default(&pm, GC_M_FP16);
	COMPARE(&pm, 0, 0);
}

static void test_cuda_bf16(void)
{
	gc_params pm;
	NEED_DEVICE();
	gc_params_default(&pm, GC_M_BF16);
	COMPARE(&pm, 0, 0);
}

static void test_cuda_signsgd_vote(void)
{
	gc_params pm;
	NEED_DEVICE();
	gc_params_default(&pm, GC_M_SIGNSGD);
	pm.scaled = 0;
	pm.ef = 0;
	COMPARE(&pm, 0, 1);
}

/* Scales are double sums rounded to float: the summation order differs from the CPU
 * but the float results agree unless a sum lies within ~1e-16 of a rounding boundary
 * (about 1e-8 per scale), so bit-identity is asserted. */
static void test_cuda_signsgd_scaled_ef(void)
{
	gc_params pm;
	NEED_DEVICE();
	gc_params_default(&pm, GC_M_SIGNSGD);
	pm.scaled = 1;
	pm.ef = 0;
	COMPARE(&pm, 0, 1);
	pm.ef = 1;
	COMPARE(&pm, 0, 1);
}

static void test_cuda_topk(void)
{
	static const double ratios[] = { 0.01, 0.1, 1.0 };
	gc_params pm;
	size_t i;
	NEED_DEVICE();
	for (i = 0; i < 3; i++) {
		gc_params_default(&pm, GC_M_TOPK);
		pm.ratio = ratios[i];
		pm.ef = i != 2;
		COMPARE(&pm, 0, 1);
	}
}

static void test_cuda_mstopk(void)
{
	static const int rounds[] = { 20, 1, 64, 7 };
	static const double ratios[] = { 0.01, 0.3, 0.05, 1.0 };
	gc_params pm;
	size_t i;
	NEED_DEVICE();
	for (i = 0; i < 4; i++) {
		gc_params_default(&pm, GC_M_MSTOPK);
		pm.rounds = rounds[i];
		pm.ratio = ratios[i];
		pm.ef = i != 3;
		COMPARE(&pm, 0, 1);
	}
}

/* cuBLAS and OpenBLAS add in different orders: agreement to 1e-3 of the largest
 * magnitude, over three steps with error feedback. */
static void test_cuda_powersgd(void)
{
	gc_params pm;
	NEED_DEVICE();
	gc_params_default(&pm, GC_M_POWERSGD);
	pm.rank = 2;
	pm.ef = 1;
	pm.warm_start = 1;
	COMPARE(&pm, 1e-3, 0);
	pm.rank = 4;
	pm.ef = 0;
	pm.warm_start = 0;
	COMPARE(&pm, 1e-3, 0);
}

/* Every method on a non-blocking stream (no implicit ordering with the legacy
 * stream, so init's clears and copies must be on the bucket's stream) with gradient
 * and average at odd float offsets, 3 workers, against the CPU. */
static void test_cuda_stream_offsets(void)
{
	struct mc { gc_method m; const char *kv[3]; double tol; int gather; };
	static const struct mc cs[] = {
		{ GC_M_SYNCSGD, { 0 }, 0, 0 },
		{ GC_M_FP16, { 0 }, 0, 0 },
		{ GC_M_BF16, { 0 }, 0, 0 },
		{ GC_M_RANDOMK, { "ratio=0.01", "ef=1" }, 0, 0 },
		{ GC_M_RANDOMK, { "ratio=0.3", "ef=0" }, 0, 0 },
		{ GC_M_TERNGRAD, { "seed=3" }, 0, 1 },
		{ GC_M_QSGD, { "levels=5", "bucket_size=100" }, 0, 1 },
		{ GC_M_QSGD, { "levels=200", "bucket_size=7" }, 0, 1 },
		{ GC_M_EFSIGN_AR, { "ef=1" }, 0, 0 },
		{ GC_M_EFSIGN_AR, { "ef=0" }, 0, 0 },
		{ GC_M_SIGNSGD, { "scaled=1", "ef=1" }, 0, 1 },
		{ GC_M_SIGNSGD, { "scaled=0", "ef=0" }, 0, 1 },
		{ GC_M_TOPK, { "ratio=0.01", "ef=1" }, 0, 1 },
		{ GC_M_MSTOPK, { "ratio=0.01", "rounds=20", "ef=1" }, 0, 1 },
		{ GC_M_POWERSGD, { "rank=2", "ef=1", "warm_start=1" }, 1e-3, 0 },
	};
	size_t i, j, li;
	NEED_DEVICE();
	for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
		gc_params pm;
		gc_err e = { "" };
		char m[512] = "";
		gc_params_default(&pm, cs[i].m);
		for (j = 0; j < 3 && cs[i].kv[j]; j++) {
			char kv[64], *eq;
			snprintf(kv, sizeof(kv), "%s", cs[i].kv[j]);
			eq = strchr(kv, '=');
			*eq = 0;
			CHECKF(gc_params_set(&pm, kv, eq + 1, &e) == GC_OK, "%s: %s", cs[i].kv[j], e.msg);
		}
		for (li = 3; li < NLAYOUTS; li++) {    /* mixed, large, n4.6M */
			const struct layout *l = &layouts[li];
			if (l->big && env_is("GCBENCH_CUDA_QUICK", "1"))
				continue;
			CHECKF(!compare_layout(&pm, l->name, l->t, l->nt, 3, 2, cs[i].tol, cs[i].gather, 1,
					       m, sizeof(m)), "%s", m);
		}
	}
}

/* ResNet-50 and BERT-base as one bucket each (formats/arch.c shapes), every method, 2
 * steps; ResNet-50 with 4 workers (the benchmark's world), BERT-base with 2 (the CPU
 * reference and the host-side generator dominate the time). GCBENCH_CUDA_MODELS=0
 * leaves it out. */
static void test_cuda_model_buckets(void)
{
	static const char *models[] = { "resnet50", "bert-base" };
	static const int workers[] = { 4, 2 };
	struct mc { gc_method m; double tol; int gather; };
	static const struct mc cs[] = {
		{ GC_M_SYNCSGD, 0, 0 }, { GC_M_FP16, 0, 0 }, { GC_M_BF16, 0, 0 }, { GC_M_RANDOMK, 0, 0 },
		{ GC_M_TERNGRAD, 0, 1 }, { GC_M_QSGD, 0, 1 },
		{ GC_M_EFSIGN_AR, 0, 0 },
		{ GC_M_SIGNSGD, 0, 1 }, { GC_M_TOPK, 0, 1 }, { GC_M_MSTOPK, 0, 1 }, { GC_M_POWERSGD, 1e-3, 0 },
	};
	size_t mi, i, nt = 0;
	NEED_DEVICE();
	if (env_is("GCBENCH_CUDA_MODELS", "0") || env_is("GCBENCH_CUDA_QUICK", "1"))
		SKIP("GCBENCH_CUDA_MODELS=0 or GCBENCH_CUDA_QUICK=1");
	for (mi = 0; mi < 2; mi++) {
		gc_tensor_desc *t = model_tensors(models[mi], &nt);
		CHECKF(t, "cannot build the tensors of %s", models[mi]);
		for (i = 0; i < sizeof(cs) / sizeof(cs[0]); i++) {
			gc_params pm;
			char m[512] = "";
			uint64_t t0 = gc_now_ns();
			int bad;
			gc_params_default(&pm, cs[i].m);
			if (cs[i].m == GC_M_SIGNSGD)
				pm.scaled = 1, pm.ef = 1;
			if (cs[i].m == GC_M_TOPK || cs[i].m == GC_M_MSTOPK)
				pm.ratio = 0.01, pm.ef = 1;
			if (cs[i].m == GC_M_POWERSGD)
				pm.rank = 4, pm.ef = 1;
			bad = compare_layout(&pm, models[mi], t, nt, workers[mi], 2, cs[i].tol, cs[i].gather, 0, m,
					     sizeof(m));
			printf("# %s %s: %.1f s\n", models[mi], gc_method_name(cs[i].m), (gc_now_ns() - t0) / 1e9);
			if (bad)
				free(t);
			CHECKF(!bad, "%s", m);
		}
		free(t);
	}
}

static void run_cuda_tests(void)
{
	GCT_RUN(test_cuda_probe_explains);
	GCT_RUN(test_cuda_cublas_loads);
	GCT_RUN(test_cuda_absent_fails_cleanly);
	GCT_RUN(test_cuda_copy_and_spin);
	GCT_RUN(test_cuda_rng_matches_host);
	GCT_RUN(test_cuda_spin_second_wave);
	GCT_RUN(test_cuda_spin_many);
	GCT_RUN(test_cuda_stream_offsets);
	GCT_RUN(test_cuda_syncsgd);
	GCT_RUN(test_cuda_fp16);
	GCT_RUN(test_cuda_bf16);
	GCT_RUN(test_cuda_signsgd_vote);
	GCT_RUN(test_cuda_signsgd_scaled_ef);
	GCT_RUN(test_cuda_topk);
	GCT_RUN(test_cuda_mstopk);
	GCT_RUN(test_cuda_powersgd);
	GCT_RUN(test_cuda_model_buckets);
}
#else
static void test_cuda_backend(void)
{
	const char *v = getenv("GCBENCH_EXPECT_GPU");
	CHECKF(!(v && !strcmp(v, "1")), "GCBENCH_EXPECT_GPU=1 but this test was built without CUDA (CUDA=0)");
	SKIP("no CUDA device: built without CUDA (CUDA=0)");
}

static void run_cuda_tests(void)
{
	GCT_RUN(test_cuda_backend);
}
#endif

int main(void)
{
	GCT_SUITE("kernels_cuda");
	GCT_RUN(test_bisect_tree);
	GCT_RUN(test_bisect_matches_sequential);
	GCT_RUN(test_bisect_passes);
	run_cuda_tests();
	return gct_finish();
}

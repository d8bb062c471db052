/* Unit tests of efsign_ar (kernels/efsign_ar.c): the bits of the average and of the
 * residual from the definition at 3 workers over three steps (error feedback carried),
 * an all-zero tensor, ef=0, error feedback's conservation (what was not sent is
 * kept), the same bits at any thread count, and the parameters. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "harness.h"
#include "kernels/compress.h"
#include "kernels/rng.h"
#include "kernels_fixture.h"

enum { N = 4099, P = 3 };

static gc_rc step(gc_bucket **b, int p, float (*g)[N], float (*avg)[N])
{
	const float *gp[P];
	float *ap[P];
	gc_err e;

	for (int w = 0; w < p; w++)
		gp[w] = g[w], ap[w] = avg[w];
	return gc_simulate_step(b, p, gp, ap, NULL, NULL, &e);
}

/* Written from compress.h's rule: c = g + e; per tensor m = (float) (double sum |c| /
 * n_t), h = bf16(m / p); worker w's term is h with the sign of (c < 0); the terms
 * summed in bf16 over workers in order (each addition in float), avg = float(sum);
 * e' = c - sign (p float(h)). */
static void check_bits(int ef)
{
	static float g[P][N], avg[P][N], e[P][N], res[N];
	gc_tensor_desc t[3] = { { 1000, 3, 2 }, { 99, 1, 1 }, { 1000, 1, 1 } };
	size_t off[4] = { 0, 3000, 3099, N };
	gc_bucket *b[P];
	gc_params p;
	gc_err er;

	memset(e, 0, sizeof e);
	gc_params_default(&p, GC_M_EFSIGN_AR);
	p.ef = ef;
	for (int w = 0; w < P; w++)
		CHECK_EQ_INT(gc_bucket_new(&b[w], &p, GC_BACKEND_CPU, NULL, t, 3, P, w, &er), GC_OK);
	CHECK_EQ_INT(gc_bucket_payload_bytes(b[0]), 2 * N);
	for (int s = 0; s < 3; s++) {
		static float c[P][N], v[P][3];
		static uint16_t term[P][N];
		for (int w = 0; w < P; w++) {
			fill(g[w], N, 500 + (uint64_t)(s * P + w));
			for (size_t i = off[1]; i < off[2]; i++)
				g[w][i] = 0.0f;
			for (size_t i = 0; i < N; i++)
				c[w][i] = g[w][i] + e[w][i];
			for (int tt = 0; tt < 3; tt++) {
				double acc = 0;
				uint16_t h;
				for (size_t i = off[tt]; i < off[tt + 1]; i++)
					acc += fabs((double)c[w][i]);
				h = gc_f32_to_bf16((float)(acc / (double)(off[tt + 1] - off[tt])) /
						   (float)P);
				v[w][tt] = (float)P * gc_bf16_to_f32(h);
				for (size_t i = off[tt]; i < off[tt + 1]; i++)
					term[w][i] = (uint16_t)(h | (c[w][i] < 0 ? 0x8000u : 0));
			}
		}
		CHECK_EQ_INT(step(b, P, g, avg), GC_OK);
		for (int tt = 0; tt < 3; tt++)
			for (size_t i = off[tt]; i < off[tt + 1]; i++) {
				uint16_t sum = term[0][i];
				float want;
				for (int w = 1; w < P; w++)
					sum = gc_f32_to_bf16(gc_bf16_to_f32(sum) +
							     gc_bf16_to_f32(term[w][i]));
				want = gc_bf16_to_f32(sum);
				for (int w = 0; w < P; w++)
					CHECKF(!memcmp(&avg[w][i], &want, 4), "ef %d step %d worker %d "
					       "element %zu: %g, want %g", ef, s, w, i, avg[w][i], want);
				if (tt == 1)
					CHECK(avg[0][i] == 0.0f);
			}
		for (int w = 0; w < P; w++) {
			CHECK_EQ_INT(gc_bucket_residual(b[w], res), GC_OK);
			for (int tt = 0; tt < 3; tt++)
				for (size_t i = off[tt]; i < off[tt + 1]; i++) {
					float want = ef ? c[w][i] - (c[w][i] < 0 ? -v[w][tt] : v[w][tt])
							: 0.0f;
					CHECKF(!memcmp(&res[i], &want, 4), "ef %d step %d worker %d "
					       "residual %zu: %g, want %g", ef, s, w, i, res[i], want);
					e[w][i] = want;
				}
		}
	}
	for (int w = 0; w < P; w++)
		gc_bucket_free(b[w]);
}

static void test_bits(void)
{
	check_bits(1);
	check_bits(0);
}

/* Error feedback keeps what was not sent: over S steps of one worker, the sum of the
 * averages plus the last residual equals the sum of the gradients (to float rounding:
 * bounded by S n ulp-sized terms, checked at 1e-3 of the gradients' scale). */
static void test_conserves(void)
{
	enum { S = 50 };
	static float g[1][N], avg[1][N], res[N];
	static double sg[N], sa[N];
	gc_tensor_desc t = { N, 1, 1 };
	gc_bucket *b;
	gc_params p;
	gc_err e;
	double worst = 0;

	gc_params_default(&p, GC_M_EFSIGN_AR);
	CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, &t, 1, 1, 0, &e), GC_OK);
	for (int s = 0; s < S; s++) {
		fill(g[0], N, 900 + (uint64_t)s);
		CHECK_EQ_INT(step(&b, 1, g, avg), GC_OK);
		for (size_t i = 0; i < N; i++)
			sg[i] += g[0][i], sa[i] += avg[0][i];
	}
	CHECK_EQ_INT(gc_bucket_residual(b, res), GC_OK);
	gc_bucket_free(b);
	for (size_t i = 0; i < N; i++) {
		double d = fabs(sa[i] + res[i] - sg[i]);
		worst = d > worst ? d : worst;
	}
	CHECKF(worst < 1e-3, "sum of averages + residual is %g from the sum of gradients",
	       worst);
}

static void test_threads(void)
{
#ifdef _OPENMP
	enum { M = 300007 };
	static float g[M], a1[M], a2[M];
	gc_tensor_desc t[2] = { { 200001, 1, 1 }, { 100006, 1, 1 } };
	const float *gp[1] = { g };
	float *ap[1];
	gc_bucket *b;
	gc_params p;
	gc_err err;
	int nt = omp_get_max_threads();

	gc_params_default(&p, GC_M_EFSIGN_AR);
	fill(g, M, 9);
	for (int r = 0; r < 2; r++) {
		omp_set_num_threads(r ? 1 : (nt < 4 ? 4 : nt));
		CHECK_EQ_INT(gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, t, 2, 1, 0, &err), GC_OK);
		ap[0] = r ? a2 : a1;
		CHECK_EQ_INT(gc_simulate_step(&b, 1, gp, ap, NULL, NULL, &err), GC_OK);
		gc_bucket_free(b);
	}
	omp_set_num_threads(nt);
	CHECK(!memcmp(a1, a2, sizeof a1));
#else
	SKIP("built without OpenMP");
#endif
}

static void test_params(void)
{
	gc_params p;
	gc_err e;

	CHECK_EQ_INT(gc_params_parse_method("efsign_ar", &p, &e), GC_OK);
	CHECK(p.method == GC_M_EFSIGN_AR && p.ef == 1);
	CHECK_EQ_INT(gc_params_parse_method("efsign_ar:ef=0", &p, &e), GC_OK);
	CHECK(p.ef == 0);
	CHECK(gc_params_parse_method("efsign_ar:ef=2", &p, &e) != GC_OK);
	CHECK(gc_params_parse_method("efsign_ar:scaled=1", &p, &e) != GC_OK);
	CHECK_CONTAINS(e.msg, "scaled");
	CHECK(gc_params_parse_method("efsign_ar:seed=1", &p, &e) != GC_OK);
}

int main(void)
{
	GCT_SUITE("kernels_efsign_ar");
	GCT_RUN(test_bits);
	GCT_RUN(test_conserves);
	GCT_RUN(test_threads);
	GCT_RUN(test_params);
	return gct_finish();
}

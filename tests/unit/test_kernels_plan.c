/* Unit tests: the method table (kernels/params.h) and the plan of a bucket
 * (kernels/plan.h): defaults, ranges and faults, DDP bucketing, Top-K's k, PowerSGD's
 * compress-or-not rule and layout, each method's rounds and payload, and the CPU
 * compressors running exactly the rounds their plan says. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels/compress.h"
#include "kernels/plan.h"

/* The defaults every method had before the table: ef on for topk, mstopk and powersgd
 * only; the rest the same for every method. */
static void test_table_defaults(void)
{
	for (int m = 0; m < GC_M__COUNT; m++) {
		gc_params p;
		gc_params_default(&p, (gc_method)m);
		CHECK_EQ_INT(p.method, m);
		CHECK_EQ_INT(p.ef, m == GC_M_TOPK || m == GC_M_MSTOPK || m == GC_M_POWERSGD ||
			     m == GC_M_RANDOMK || m == GC_M_EFSIGN_AR);
		CHECK_EQ_INT(p.scaled, 0);
		CHECK(p.ratio == 0.01);
		CHECK_EQ_INT(p.rounds, 20);
		CHECK_EQ_INT(p.rank, 4);
		CHECK_EQ_INT(p.warm_start, 1);
		CHECK(p.min_compression == 2.0);
		CHECK(p.seed == 42);
		CHECK(p.momentum == (m == GC_M_DGC ? 0.9 : 0));
	}
}

static void test_table_lookup(void)
{
	char buf[128];
	size_t n;
	const gc_param_def *t = gc_param_table(&n), *d = gc_param_lookup("ratio");

	CHECK_EQ_INT(n, 14);              /* every field of gc_params but method */
	CHECK(t && d && !strcmp(d->key, "ratio") && d->type == GC_PT_DOUBLE);
	CHECK(gc_method_takes(GC_M_TOPK, d) && gc_method_takes(GC_M_MSTOPK, d));
	CHECK(!gc_method_takes(GC_M_POWERSGD, d) && !gc_method_takes(GC_M_SYNCSGD, d));
	CHECK(!gc_method_takes((gc_method)99, d));
	CHECK(gc_param_lookup("colour") == NULL && gc_param_lookup(NULL) == NULL);
	gc_method_names(buf, sizeof(buf), ", ");
	CHECK_STR(buf, "syncsgd, fp16, signsgd, topk, mstopk, powersgd, bf16, randomk, terngrad, qsgd, efsign_ar, dgc, cgx");
	gc_method_names(buf, 12, " ");   /* cut to fit */
	CHECK_STR(buf, "syncsgd fp1");
	gc_method_keys(GC_M_POWERSGD, buf, sizeof(buf));
	CHECK_STR(buf, "ef, rank, warm_start, min_compression, seed, momentum");
	gc_method_keys(GC_M_SYNCSGD, buf, sizeof(buf));
	CHECK_STR(buf, "momentum");
}

/* momentum: every method takes it, [0, 1) (1 itself refused: the velocity would never
 * decay), and the canonical text names it only when set, so the stored text of a run
 * without it is what it was before momentum existed. */
static void test_momentum_param(void)
{
	char buf[256];
	gc_params p;
	gc_err e;

	for (int m = 0; m < GC_M__COUNT; m++)
		CHECK(gc_method_takes((gc_method)m, gc_param_lookup("momentum")));
	CHECK_EQ_INT(gc_params_parse_method("dgc", &p, &e), GC_OK);   /* dgc: 0.9, always named */
	gc_params_format(&p, buf, sizeof(buf));
	CHECK_STR(buf, "ratio=0.01,momentum=0.9,clip=0,warmup_steps=0");
	CHECK_EQ_INT(gc_params_parse_method("dgc:momentum=0", &p, &e), GC_OK);
	gc_params_format(&p, buf, sizeof(buf));
	CHECK_STR(buf, "ratio=0.01,momentum=0,clip=0,warmup_steps=0");
	CHECK_EQ_INT(gc_params_parse_method("topk:momentum=0.9", &p, &e), GC_OK);
	CHECK(p.momentum == 0.9);
	CHECK_EQ_INT(gc_params_check(&p, &e), GC_OK);
	gc_params_format(&p, buf, sizeof(buf));
	CHECK_STR(buf, "ef=1,ratio=0.01,momentum=0.9");
	CHECK_EQ_INT(gc_params_parse_method("topk", &p, &e), GC_OK);
	gc_params_format(&p, buf, sizeof(buf));
	CHECK_STR(buf, "ef=1,ratio=0.01");
	CHECK_EQ_INT(gc_params_parse_method("syncsgd:momentum=0", &p, &e), GC_OK);
	gc_params_format(&p, buf, sizeof(buf));
	CHECK_STR(buf, "");
	CHECK_EQ_INT(gc_params_parse_method("syncsgd:momentum=0.5", &p, &e), GC_OK);
	gc_params_format(&p, buf, sizeof(buf));
	CHECK_STR(buf, "momentum=0.5");
	CHECK_EQ_INT(gc_params_parse_method("syncsgd:momentum=1", &p, &e), GC_E_INVAL);
	CHECK(strstr(e.msg, "momentum") && strstr(e.msg, "[0, 1)"));
	CHECK_EQ_INT(gc_params_parse_method("syncsgd:momentum=-0.1", &p, &e), GC_E_INVAL);
	CHECK_EQ_INT(gc_params_parse_method("syncsgd:momentum=x", &p, &e), GC_E_INVAL);
	CHECK_EQ_INT(gc_params_parse_method("syncsgd:momentum=0.999", &p, &e), GC_OK);
	gc_params_default(&p, GC_M_FP16);
	p.momentum = 1.5;
	CHECK_EQ_INT(gc_params_check(&p, &e), GC_E_INVAL);
}

static void test_param_put_faults(void)
{
	gc_params p;

	gc_params_default(&p, GC_M_POWERSGD);
	CHECK_EQ_INT(gc_param_put(&p, gc_param_lookup("rank"), "8"), GC_PF_OK);
	CHECK_EQ_INT(p.rank, 8);
	CHECK_EQ_INT(gc_param_put(&p, gc_param_lookup("rank"), "1.5"), GC_PF_SYNTAX);
	CHECK_EQ_INT(gc_param_put(&p, gc_param_lookup("rank"), "x"), GC_PF_SYNTAX);
	CHECK_EQ_INT(gc_param_put(&p, gc_param_lookup("rank"), "1e61"), GC_PF_SYNTAX);
	CHECK_EQ_INT(gc_param_put(&p, gc_param_lookup("rank"), "33"), GC_PF_RANGE);
	CHECK_EQ_INT(p.rank, 8);          /* unchanged by a fault */
	CHECK_EQ_INT(gc_param_put(&p, gc_param_lookup("ratio"), "0"), GC_PF_RANGE);  /* (0, 1] */
	CHECK_EQ_INT(gc_param_put(&p, gc_param_lookup("ratio"), "1"), GC_PF_OK);
	CHECK_EQ_INT(gc_param_put(&p, gc_param_lookup("min_compression"), "0.5"), GC_PF_RANGE);
	CHECK_EQ_INT(gc_param_put(&p, gc_param_lookup("seed"), "-1"), GC_PF_SYNTAX);
	CHECK_EQ_INT(gc_param_put(&p, gc_param_lookup("seed"), "18446744073709551615"),
		     GC_PF_OK);
	CHECK(p.seed == UINT64_MAX);
	CHECK_EQ_INT(gc_param_put(&p, gc_param_lookup("ef"), "2"), GC_PF_RANGE);
}

static void test_params_set_list(void)
{
	gc_params p;
	gc_err e;

	gc_params_default(&p, GC_M_TOPK);
	CHECK_EQ_INT(gc_params_set_list(&p, "ratio=0.5,ef=0", &e), GC_OK);
	CHECK(p.ratio == 0.5 && p.ef == 0);
	CHECK_EQ_INT(gc_params_set_list(&p, NULL, &e), GC_OK);
	CHECK_EQ_INT(gc_params_set_list(&p, "", &e), GC_OK);
	CHECK_EQ_INT(gc_params_set_list(&p, "ratio", &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "'ratio' is not key=value");
	CHECK_EQ_INT(gc_params_set_list(&p, "=3", &e), GC_E_INVAL);
	CHECK_EQ_INT(gc_params_set_list(&p, "ratio=0.2,rank=4", &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "does not take parameter 'rank' (its parameters: ef, ratio, momentum)");
	gc_params_default(&p, GC_M_SYNCSGD);
	CHECK_EQ_INT(gc_params_set_list(&p, "ef=1", &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "(its parameters: momentum)");
}

/* gc_params_check reads the ranges from the table, for the parameters a method takes. */
static void test_params_check_ranges(void)
{
	gc_params p;
	gc_err e;

	gc_params_default(&p, GC_M_TOPK);
	p.ratio = 0;
	CHECK_EQ_INT(gc_params_check(&p, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "topk: ratio 0 is out of range; use (0, 1]");
	p.ratio = 0.1;
	p.rounds = 65;                    /* topk does not take rounds */
	CHECK_EQ_INT(gc_params_check(&p, &e), GC_OK);
	p.method = GC_M_MSTOPK;
	CHECK_EQ_INT(gc_params_check(&p, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "mstopk: rounds 65 is out of range; use 1..64");
	gc_params_default(&p, GC_M_POWERSGD);
	p.min_compression = 0.5;
	CHECK_EQ_INT(gc_params_check(&p, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "powersgd: min_compression 0.5 is out of range; use [1, 1e9]");
	p.min_compression = 2;
	p.rank = 33;
	CHECK_EQ_INT(gc_params_check(&p, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "powersgd: rank 33");
}

/* backward order: 400 KB + 800 KB reach 1 MiB; 20 MB + 8 MB reach 25 MiB; the rest */
static void test_ddp_buckets(void)
{
	static const size_t numel[] = { 100000, 200000, 5000000, 2000000, 10 };
	gc_bucket_span s[5];

	CHECK_EQ_INT(gc_ddp_buckets(numel, 5, GC_DDP_FIRST_BYTES, GC_DDP_BYTES, s), 3);
	CHECK(s[0].first == 0 && s[0].count == 2 && s[0].numel == 300000);
	CHECK(s[1].first == 2 && s[1].count == 2 && s[1].numel == 7000000);
	CHECK(s[2].first == 4 && s[2].count == 1 && s[2].numel == 10);
	/* exactly the cap closes a bucket: 262144 floats = 1 MiB */
	static const size_t exact[] = { 262144, 1, 1 };
	CHECK_EQ_INT(gc_ddp_buckets(exact, 3, GC_DDP_FIRST_BYTES, 8, s), 2);
	CHECK(s[0].count == 1 && s[1].first == 1 && s[1].count == 2);
	CHECK_EQ_INT(gc_ddp_buckets(numel, 5, 0, 0, s), 5);       /* one tensor each */
	CHECK_EQ_INT(gc_ddp_buckets(numel, 5, 1e18, 1e18, s), 1);
	CHECK(s[0].count == 5 && s[0].numel == 7300010);
	CHECK_EQ_INT(gc_ddp_buckets(numel, 0, 1, 1, s), 0);
}

static void test_tensor_view_and_k(void)
{
	static const size_t conv[] = { 64, 3, 7, 7 }, bias[] = { 64 };
	gc_tensor_desc d = gc_tensor_view(4, conv, 64 * 3 * 7 * 7);
	gc_params p;

	CHECK(d.rows == 64 && d.cols == 147 && d.ndim == 4);
	d = gc_tensor_view(1, bias, 64);
	CHECK(d.rows == 64 && d.cols == 1 && d.ndim == 1);
	gc_params_default(&p, GC_M_TOPK);
	CHECK_EQ_INT(gc_topk_k(&p, 47), 1);        /* max(1, ceil(0.47)) */
	CHECK_EQ_INT(gc_topk_k(&p, 1000000), 10000);
	p.ratio = 0.1;
	CHECK_EQ_INT(gc_topk_k(&p, 47), 5);        /* ceil(4.7) */
	p.ratio = 1;
	CHECK_EQ_INT(gc_topk_k(&p, 10), 10);       /* at most n */
	p.ratio = 1e-9;
	CHECK_EQ_INT(gc_topk_k(&p, 10), 1);
}

/* PowerSGD skips 1-D tensors and matrices that would not shrink min_compression-fold. */
static void test_powersgd_rule(void)
{
	gc_tensor_desc vec = { 1000, 1, 1 }, wide = { 1000, 1000, 2 }, small = { 10, 3, 2 };
	gc_tensor_desc row = { 1, 4096, 2 };
	gc_params p;

	gc_params_default(&p, GC_M_POWERSGD);
	CHECK_EQ_INT(gc_powersgd_rank(&p, &vec), 0);
	CHECK_EQ_INT(gc_powersgd_rank(&p, &wide), 4);
	CHECK_EQ_INT(gc_powersgd_rank(&p, &small), 0);     /* r' 3: 30 < 2 * 13 * 3 */
	CHECK_EQ_INT(gc_powersgd_rank(&p, &row), 0);       /* r' 1: 4096 < 2 * 4097 */
	p.rank = 1, p.min_compression = 1;
	CHECK_EQ_INT(gc_powersgd_rank(&p, &small), 1);     /* 30 >= 13 */
	CHECK_EQ_INT(gc_powersgd_rank(&p, &row), 0);       /* 4096 < 4097 */
	p.rank = 32;
	CHECK_EQ_INT(gc_powersgd_rank(&p, &wide), 32);
	CHECK_EQ_INT(gc_powersgd_rank(&p, &small), 0);     /* r' = min(rank, 10, 3) saves nothing */
}

static void test_powersgd_layout(void)
{
	gc_tensor_desc t[] = { { 1000, 1000, 2 }, { 1000, 1, 1 }, { 10, 3, 2 }, { 50, 20, 2 } };
	int r[4];
	size_t po[4], qo[4], np, nu, nq;
	gc_params p;

	gc_params_default(&p, GC_M_POWERSGD);
	gc_powersgd_layout(&p, t, 4, r, po, qo, &np, &nu, &nq);
	CHECK(r[0] == 4 && r[1] == 0 && r[2] == 0 && r[3] == 4);
	CHECK(np == 4000 + 200 && nq == 4000 + 80 && nu == 1000 + 30);
	CHECK(po[0] == 0 && po[3] == 4000 && qo[0] == 0 && qo[3] == 4000);
	CHECK(po[1] == np && po[2] == np + 1000);          /* uncompressed after all P */
}

static void check_round(const gc_plan *pl, int i, gc_coll coll, gc_dtype dt, size_t count)
{
	const char *name = gc_method_name(pl->p.method);

	CHECKF(i < pl->nround, "%s: round %d of %d", name, i, pl->nround);
	CHECKF(pl->round[i].coll == coll && pl->round[i].dtype == dt &&
	       pl->round[i].count == count, "%s round %d: coll %d dtype %d count %zu", name, i,
	       (int)pl->round[i].coll, (int)pl->round[i].dtype, pl->round[i].count);
}

/* Rounds and payload of each method for a bucket [1000x1000 | 1000 | 10x3] (1001030). */
static void test_plan_rounds(void)
{
	gc_tensor_desc t[] = { { 1000, 1000, 2 }, { 1000, 1, 1 }, { 10, 3, 2 } };
	const size_t n = 1001030;
	gc_params p;
	gc_plan pl;

	gc_params_default(&p, GC_M_SYNCSGD);
	gc_plan_bucket(&pl, &p, t, 3);
	CHECK(pl.nround == 1 && pl.nt == 3 && pl.numel == n && pl.k == 0);
	check_round(&pl, 0, GC_COLL_ALLREDUCE, GC_DT_F32, n);
	CHECK_EQ_INT(gc_plan_payload_bytes(&pl), 4 * n);
	gc_params_default(&p, GC_M_FP16);
	gc_plan_bucket(&pl, &p, t, 3);
	check_round(&pl, 0, GC_COLL_ALLREDUCE, GC_DT_F16, n);
	CHECK_EQ_INT(gc_plan_payload_bytes(&pl), 2 * n);
	gc_params_default(&p, GC_M_BF16);
	gc_plan_bucket(&pl, &p, t, 3);
	check_round(&pl, 0, GC_COLL_ALLREDUCE, GC_DT_BF16, n);
	CHECK_EQ_INT(gc_plan_payload_bytes(&pl), 2 * n);
	gc_params_default(&p, GC_M_EFSIGN_AR);
	gc_plan_bucket(&pl, &p, t, 3);
	check_round(&pl, 0, GC_COLL_ALLREDUCE, GC_DT_BF16, n);
	CHECK_EQ_INT(gc_plan_payload_bytes(&pl), 2 * n);
	gc_params_default(&p, GC_M_RANDOMK);
	p.ratio = 0.1;
	gc_plan_bucket(&pl, &p, t, 3);
	CHECK_EQ_INT(pl.k, (size_t)ceil(0.1 * (double)n));
	check_round(&pl, 0, GC_COLL_ALLREDUCE, GC_DT_F32, pl.k);
	CHECK_EQ_INT(gc_plan_payload_bytes(&pl), 4 * pl.k);
	gc_params_default(&p, GC_M_TERNGRAD);
	gc_plan_bucket(&pl, &p, t, 3);
	check_round(&pl, 0, GC_COLL_ALLGATHER, GC_DT_U8, 4 * 3 + (n + 3) / 4);
	gc_params_default(&p, GC_M_QSGD);         /* norms per 128 of each tensor, 8 bits */
	gc_plan_bucket(&pl, &p, t, 3);
	CHECK_EQ_INT(pl.nqb, 7813 + 8 + 1);
	check_round(&pl, 0, GC_COLL_ALLGATHER, GC_DT_U8, 4 * (7813 + 8 + 1) + n);
	p.levels = 7;                             /* 4 bits */
	p.bucket_size = 1000;
	gc_plan_bucket(&pl, &p, t, 3);
	check_round(&pl, 0, GC_COLL_ALLGATHER, GC_DT_U8, 4 * (1000 + 1 + 1) + (n + 1) / 2);
	p.levels = 128;                           /* 16 bits */
	gc_plan_bucket(&pl, &p, t, 3);
	check_round(&pl, 0, GC_COLL_ALLGATHER, GC_DT_U8, 4 * (1000 + 1 + 1) + 2 * n);
	gc_params_default(&p, GC_M_SIGNSGD);
	gc_plan_bucket(&pl, &p, t, 3);
	check_round(&pl, 0, GC_COLL_ALLGATHER, GC_DT_U8, (n + 7) / 8);
	p.scaled = 1;                     /* a float scale per tensor first */
	gc_plan_bucket(&pl, &p, t, 3);
	check_round(&pl, 0, GC_COLL_ALLGATHER, GC_DT_U8, 12 + (n + 7) / 8);
	gc_params_default(&p, GC_M_MSTOPK);
	gc_plan_bucket(&pl, &p, t, 3);
	CHECK_EQ_INT(pl.k, 10011);        /* ceil(10010.3) */
	check_round(&pl, 0, GC_COLL_ALLGATHER, GC_DT_U8, 8 * 10011);
	gc_params_default(&p, GC_M_DGC);         /* the final k, warm-up or not */
	p.warmup_steps = 100;
	gc_plan_bucket(&pl, &p, t, 3);
	CHECK_EQ_INT(pl.k, 10011);
	check_round(&pl, 0, GC_COLL_ALLGATHER, GC_DT_U8, 8 * 10011);
	gc_params_default(&p, GC_M_POWERSGD);
	gc_plan_bucket(&pl, &p, t, 3);
	CHECK(pl.nround == 2 && pl.ncomp == 1 && pl.np == 4000 && pl.nu == 1030 && pl.nq == 4000);
	check_round(&pl, 0, GC_COLL_ALLREDUCE, GC_DT_F32, 5030);
	check_round(&pl, 1, GC_COLL_ALLREDUCE, GC_DT_F32, 4000);
	CHECK_EQ_INT(gc_plan_round_bytes(&pl, 1), 16000);
	CHECK_EQ_INT(gc_plan_round_bytes(&pl, 2), 0);
	CHECK_EQ_INT(gc_plan_payload_bytes(&pl), 4 * 9030);
	gc_plan_bucket(&pl, &p, t + 1, 2);       /* nothing compressed: one round */
	CHECK(pl.nround == 1 && pl.ncomp == 0);
	check_round(&pl, 0, GC_COLL_ALLREDUCE, GC_DT_F32, 1030);
}

/* Every CPU compressor runs exactly the rounds of its plan. */
static void test_buckets_follow_plan(void)
{
	gc_tensor_desc t[] = { { 64, 32, 2 }, { 64, 1, 1 }, { 5, 3, 2 } };
	size_t n = 64 * 32 + 64 + 15;
	float *g = malloc(n * sizeof(float)), *avg = malloc(n * sizeof(float));

	CHECK(g && avg);
	for (size_t i = 0; i < n; i++)
		g[i] = (float)((i * 37) % 101) - 50.0f;
	for (int m = 0; m < GC_M__COUNT; m++) {
		gc_params p;
		gc_plan pl;
		gc_bucket *b = NULL;
		gc_round r;
		gc_err e;
		int i = 0;

		gc_params_default(&p, (gc_method)m);
		gc_plan_bucket(&pl, &p, t, 3);
		CHECKF(!gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, t, 3, 1, 0, &e), "%s", e.msg);
		CHECK_EQ_INT(gc_bucket_payload_bytes(b), gc_plan_payload_bytes(&pl));
		CHECK(!gc_encode(b, g));
		for (; i < GC_PLAN_MAX_ROUNDS && gc_round_get(b, &r); i++) {
			check_round(&pl, i, r.coll, r.dtype, r.count);
			if (r.recv != r.send)     /* world 1: the sum and the gather are a copy */
				memcpy(r.recv, r.send, r.count * gc_dtype_size(r.dtype));
			CHECK(!gc_round_done(b));
		}
		CHECK_EQ_INT(i, pl.nround);
		CHECK(!gc_decode(b, avg));
		gc_bucket_free(b);
	}
	free(g);
	free(avg);
}

int main(void)
{
	GCT_SUITE("kernels_plan");
	GCT_RUN(test_table_defaults);
	GCT_RUN(test_table_lookup);
	GCT_RUN(test_momentum_param);
	GCT_RUN(test_param_put_faults);
	GCT_RUN(test_params_set_list);
	GCT_RUN(test_params_check_ranges);
	GCT_RUN(test_ddp_buckets);
	GCT_RUN(test_tensor_view_and_k);
	GCT_RUN(test_powersgd_rule);
	GCT_RUN(test_powersgd_layout);
	GCT_RUN(test_plan_rounds);
	GCT_RUN(test_buckets_follow_plan);
	return gct_finish();
}

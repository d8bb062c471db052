/* tests/unit/test_model_whatif.c: what-if functions against hand-computed values:
 * ring/tree/auto and two-level collectives, codec costs from operation counts (rank,
 * ratio, rounds, codec speedup), speedup and crossover of one point, BERT sequence
 * length, the study's grid counts, and the errors of each new input. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "model/whatif.h"

static gc_model_method method(const char *spec)
{
	gc_model_method m;
	gc_err e;
	if (gc_model_method_parse(spec, &m, &e))
		fprintf(stderr, "bad spec %s: %s\n", spec, e.msg);
	return m;
}

/* An arch from csv rows "name,shape,numel" (index added). */
static int csv_arch(gc_arch *a, const char *const *rows, size_t n)
{
	char buf[2048];
	int off = snprintf(buf, sizeof(buf), "index,name,shape,numel\n");
	size_t i;
	gc_err e;

	for (i = 0; i < n; i++)
		off += snprintf(buf + off, sizeof(buf) - (size_t)off, "%zu,%s\n", i, rows[i]);
	return gc_arch_parse_csv(buf, (size_t)off, "t", a, &e) ? -1 : 0;
}

static void test_ring_tree_auto(void)
{
	gc_model_params mp;

	gc_model_params_default(&mp);
	mp.alpha = 1e-3, mp.bw = 1e9;
	/* 1024 workers, 1 MB: ring 2 * 1023 ms + 2e6 * 1023/1024 / 1e9; tree 2 * 10 ms + 2 ms */
	mp.algo = GC_ALGO_RING;
	CHECK_NEAR(gc_model_allreduce(&mp, 1024, 1e6), 2.046 + 2e-3 * 1023 / 1024, 1e-12);
	mp.algo = GC_ALGO_TREE;
	CHECK_NEAR(gc_model_allreduce(&mp, 1024, 1e6), 0.022, 1e-12);
	mp.algo = GC_ALGO_AUTO;
	CHECK_NEAR(gc_model_allreduce(&mp, 1024, 1e6), 0.022, 1e-12);
	/* 2 workers: ring 2 ms + 1 ms beats tree 2 ms + 2 ms */
	CHECK_NEAR(gc_model_allreduce(&mp, 2, 1e6), 0.003, 1e-12);
	/* all-gather stays a ring: 1023 ms + 1023 * 1e6 / 1e9 */
	CHECK_NEAR(gc_model_allgather(&mp, 1024, 1e6), 1.023 + 1.023, 1e-12);
}

static void test_two_level(void)
{
	gc_model_params mp;
	double B = 8e6;

	gc_model_params_default(&mp);
	mp.alpha = 1e-4, mp.bw = 1e9, mp.algo = GC_ALGO_RING;
	mp.gpus_per_node = 4, mp.alpha_intra = 1e-5, mp.bw_intra = 1e11;
	/* 16 workers = 4 nodes: ring among nodes 2*3 alpha + 2 B 3/4 / bw; inside the node
	 * 2*3 alpha_intra + 2 B 3/4 / bw_intra */
	CHECK_NEAR(gc_model_allreduce(&mp, 16, B),
		   6e-4 + 2 * B * 0.75 / 1e9 + 6e-5 + 2 * B * 0.75 / 1e11, 1e-12);
	/* p <= g: flat among the 4 GPUs at the inter-node parameters */
	CHECK_NEAR(gc_model_allreduce(&mp, 4, B), 6e-4 + 2 * B * 0.75 / 1e9, 1e-12);
}

static void test_codec_powersgd_counts(void)
{
	static const char *const rows[] = { "w,100x200,20000" };
	gc_codec_dev d = { 1e-5, 0, 1e9, 1e9, 16, 1, GC_HOOKS_TORCH, 0 };
	gc_bucket_span s = { 0, 1, 20000 };
	gc_model_method m = method("powersgd:rank=4"), m8 = method("powersgd:rank=8");
	double enc, dec, enc8, dec8;
	gc_arch a;

	CHECK(!csv_arch(&a, rows, 1));
	gc_codec_cost(&d, &a, &s, &m, 4, &enc, &dec);
	/* launches 3 + 14*4 - 6 = 53; bytes 7 * 80000 + 12 * 300 * 4 * 5 / 2; FLOPs
	 * 4 * 20000 * 4 */
	CHECK_NEAR(enc, 53e-5 + (560000 + 36000) / 1e9 + 320000 / 1e9, 1e-12);
	/* launches 3 + 0 + 1; bytes 4 * 80000; FLOPs 2 * 20000 * 4 */
	CHECK_NEAR(dec, 4e-5 + 320000 / 1e9 + 160000 / 1e9, 1e-12);
	gc_codec_cost(&d, &a, &s, &m8, 4, &enc8, &dec8);
	/* rank 8: 56 more launches, Gram-Schmidt 12*300*(36-10), FLOPs x2 */
	CHECK_NEAR(enc8 - enc, 56e-5 + 12.0 * 300 * 26 / 1e9 + 320000 / 1e9, 1e-12);
	CHECK_NEAR(dec8 - dec, 160000 / 1e9, 1e-12);
	/* a codec twice as fast: every term halves */
	gc_codec_dev_scale(&d, 2);
	gc_codec_cost(&d, &a, &s, &m, 4, &enc8, &dec8);
	CHECK_NEAR(enc8, enc / 2, 1e-12);
	CHECK_NEAR(dec8, dec / 2, 1e-12);
	gc_arch_release(&a);
}

static void test_codec_sparse_counts(void)
{
	static const char *const rows[] = { "v,1000000,1000000" };
	gc_codec_dev d = { 1e-5, 2e-5, 1e9, 1e9, 16, 0.5, GC_HOOKS_TORCH, 0 };
	gc_bucket_span s = { 0, 1, 1000000 };
	gc_model_method t1 = method("topk:ratio=0.01"), t10 = method("topk:ratio=0.1");
	gc_model_method r20 = method("mstopk:ratio=0.01"), r10 = method("mstopk:ratio=0.01,rounds=10");
	double e1, d1, e2, d2, pass = 4e6;
	gc_arch a;

	CHECK(!csv_arch(&a, rows, 1));
	gc_codec_cost(&d, &a, &s, &t1, 8, &e1, &d1);
	/* 6 launches, 7 passes + 16 k, radix 16 passes at half the bandwidth */
	CHECK_NEAR(e1, 6e-5 + (7 * pass + 16 * 1e4) / 1e9 + 16 * pass / 5e8, 1e-12);
	/* 2 + 8 launches, 3 passes + 40 k p */
	CHECK_NEAR(d1, 10e-5 + (3 * pass + 40.0 * 1e4 * 8) / 1e9, 1e-12);
	gc_codec_cost(&d, &a, &s, &t10, 8, &e2, &d2);
	CHECK_NEAR(e2 - e1, 16.0 * 9e4 / 1e9, 1e-12);              /* only k changes */
	CHECK_NEAR(d2 - d1, 40.0 * 9e4 * 8 / 1e9, 1e-12);
	gc_codec_cost(&d, &a, &s, &r20, 8, &e1, &d1);
	gc_codec_cost(&d, &a, &s, &r10, 8, &e2, &d2);
	/* 10 rounds fewer: 20 launches, 10 syncs, 10 passes */
	CHECK_NEAR(e1 - e2, 20e-5 + 10 * 2e-5 + 10 * pass / 1e9, 1e-12);
	CHECK_NEAR(d1, d2, 1e-15);
	gc_arch_release(&a);
}

/* One tensor, one bucket, no compute: sync = 4n / bw, fp16 = 2n / bw + n/R + n/R on 2
 * workers at alpha 0, so fp16 wins below bw = R bytes/s. */
static void test_point_and_crossover(void)
{
	static const char *const rows[] = { "v,1000000,1000000" };
	gc_model_method m = method("fp16");
	gc_model_result rm, rs;
	gc_whatif w;
	double sp, x;
	gc_arch a;
	gc_err e;

	memset(&w, 0, sizeof(w));
	CHECK(!gc_whatif_preset(&w, "ideal", &e));
	w.batch = 1;
	w.mp.alpha = 0;
	w.mp.enc_rate[GC_M_FP16] = w.mp.dec_rate[GC_M_FP16] = 1.25e9;   /* 10 Gbit/s */
	CHECK(!csv_arch(&a, rows, 1));
	CHECK(!gc_whatif_eval(&w, &a, &m, 2, 5, 1, 1, &sp, &rm, &rs, &e));
	CHECK_NEAR(rs.total, 4e6 / 0.625e9, 1e-12);
	CHECK_NEAR(rm.total, 2e6 / 0.625e9 + 2e6 / 1.25e9, 1e-12);
	CHECK_NEAR(sp, 6.4 / 4.8, 1e-9);
	CHECK(!gc_whatif_crossover(&w, &a, &m, 2, 1, 1, &x, &e));
	CHECK_NEAR(x, 10, 1e-6);
	/* the codec 4x faster (compute unchanged): the crossover moves to 40 Gbit/s */
	CHECK(!gc_whatif_crossover(&w, &a, &m, 2, 1, 4, &x, &e));
	CHECK_NEAR(x, 40, 1e-5);
	/* codec speed <= 0 follows the compute speed (2x here: 20 Gbit/s) */
	CHECK(!gc_whatif_crossover(&w, &a, &m, 2, 2, 0, &x, &e));
	CHECK_NEAR(x, 20, 1e-5);
	/* free codec: fp16 halves the bytes, wins everywhere */
	w.mp.enc_rate[GC_M_FP16] = w.mp.dec_rate[GC_M_FP16] = 0;
	CHECK(!gc_whatif_crossover(&w, &a, &m, 2, 1, 1, &x, &e));
	CHECK(isinf(x));
	gc_arch_release(&a);
}

static void test_seq_len(void)
{
	gc_arch a;
	gc_err e;
	double F, att = 12 * 4.0 * 128 * 128 * 768, pool = 2.0 * 768 * 768;

	CHECK(!gc_arch_build("bert-base", &a, &e));
	F = a.flops_fwd;
	CHECK(!gc_whatif_scale_seq(&a, 256, &e));
	/* per-token layers x2, attention scores x4, pooler as it was */
	CHECK_NEAR(a.flops_fwd / (2 * (F - att - pool) + pool + 4 * att), 1, 1e-12);
	CHECK_EQ_INT(gc_whatif_scale_seq(&a, 513, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "--seq-len 513 is outside 1..512");
	gc_arch_release(&a);
	CHECK(!gc_arch_build("resnet50", &a, &e));
	CHECK_EQ_INT(gc_whatif_scale_seq(&a, 256, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "applies to bert-base and gpt2-small, not 'resnet50'");
	gc_arch_release(&a);
}

static void test_grid_counts(void)
{
	gc_whatif_grid g;
	gc_grid_tally sum = { 0, 0, 0, 0 };
	gc_whatif w;
	gc_err e;
	size_t i;

	memset(&w, 0, sizeof(w));
	CHECK(!gc_whatif_preset(&w, "paper", &e));
	CHECK(!gc_whatif_grid_run(&w, 0, 0, &g, &e));
	CHECK_EQ_INT(g.all.n, 2520);
	CHECK_EQ_INT(g.all.n_dc, 1575);
	for (i = 0; i < GC_GRID_MODELS; i++)
		sum.wins += g.model[i].wins, sum.wins_dc += g.model[i].wins_dc;
	CHECK_EQ_INT(sum.wins, g.all.wins);
	CHECK_EQ_INT(sum.wins_dc, g.all.wins_dc);
	for (i = 0, sum.wins = 0; i < GC_GRID_BWS; i++) {
		CHECK_EQ_INT(g.bw[i].n, 315);
		sum.wins += g.bw[i].wins;
	}
	CHECK_EQ_INT(sum.wins, g.all.wins);
	/* wins can only fall as the bandwidth rises (same configurations) */
	for (i = 1; i < GC_GRID_BWS; i++)
		CHECK(g.bw[i].wins <= g.bw[i - 1].wins);
	/* the ideal preset (free codec) wins at least as often */
	{
		gc_whatif_grid gi;
		gc_whatif wi;
		memset(&wi, 0, sizeof(wi));
		CHECK(!gc_whatif_preset(&wi, "ideal", &e));
		CHECK(!gc_whatif_grid_run(&wi, 0, 0, &gi, &e));
		CHECK(gi.all.wins >= g.all.wins);
	}
}

static void test_conclusions(void)
{
	gc_whatif_grid g;

	memset(&g, 0, sizeof(g));
	g.all.n_dc = 200, g.all.wins_dc = 6;
	CHECK_EQ_INT(gc_whatif_conclusion(&g, 0), 1);
	g.all.wins_dc = 21;                      /* > 10% */
	CHECK_EQ_INT(gc_whatif_conclusion(&g, 0), 0);
	g.cross[0][2][0] = 9;
	CHECK_EQ_INT(gc_whatif_conclusion(&g, 1), 1);
	g.cross[0][2][0] = 22;
	CHECK_EQ_INT(gc_whatif_conclusion(&g, 1), 0);
}

static void test_errors(void)
{
	gc_whatif w;
	gc_whatif_sens rows[16];
	gc_model_method m;
	size_t n;
	gc_err e;

	CHECK_EQ_INT(gc_whatif_grid_check("paper", &e), GC_OK);
	CHECK_EQ_INT(gc_whatif_grid_check("papr", &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "unknown grid 'papr'");
	memset(&w, 0, sizeof(w));
	CHECK(!gc_whatif_preset(&w, "paper", &e));
	CHECK_EQ_INT(gc_whatif_set_const(&w, "alpah", 1, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "unknown constant 'alpah'");
	CHECK_EQ_INT(gc_whatif_set_const(&w, "alpha", -1, &e), GC_E_INVAL);
	CHECK(!gc_whatif_set_const(&w, "alpha", 50, &e));
	CHECK_NEAR(w.mp.alpha, 50e-6, 1e-15);
	CHECK(!gc_whatif_preset(&w, "ideal", &e));
	CHECK_EQ_INT(gc_whatif_sensitivity(&w, 0, rows, 16, &n, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "--preset paper");
	CHECK_EQ_INT(gc_whatif_parse_codec("1,0", &w, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "--codec-speedup: '0' is not a number > 0");
	CHECK_EQ_INT(gc_model_method_parse("mstopk:rounds=0", &m, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "rounds 0 is not an integer in 1..64");
	CHECK_EQ_INT(gc_model_method_parse("topk:rounds=5", &m, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "unknown parameter 'rounds=5' for topk");
}

/* Every varied constant has a range around its value and a source. */
static void test_constants_sourced(void)
{
	const gc_whatif_const *c;
	size_t i, n;

	c = gc_whatif_constants(&n);
	CHECK(n >= 8);
	for (i = 0; i < n; i++) {
		CHECK(c[i].lo <= c[i].value && c[i].value <= c[i].hi);
		CHECK(c[i].source && strlen(c[i].source) > 20);
		CHECK(c[i].lo < c[i].hi || !strncmp(c[i].source, "measured", 8) ||
		      !strncmp(c[i].source, "convention", 10));
	}
}


/* The study's hooks (codec.h), by hand: one bucket of 1e6 floats, 4 workers. */
static void test_codec_study_counts(void)
{
	static const char *const rows[] = { "v,1000000,1000000" };
	gc_codec_dev d = { 1e-5, 2e-5, 1e9, 1e9, 16, 0.5, GC_HOOKS_STUDY, 0 };
	gc_bucket_span s = { 0, 1, 1000000 };
	gc_model_method sg = method("signsgd"), ms = method("mstopk:ratio=0.01");
	gc_model_method ps = method("powersgd:rank=4");
	double e1, d1, e2, d2, pass = 4e6;
	gc_arch a;

	CHECK(!csv_arch(&a, rows, 1));
	gc_codec_cost(&d, &a, &s, &sg, 4, &e1, &d1);
	CHECK_NEAR(e1, 5e-5 + 7 * pass / 1e9, 1e-12);                /* 5 launches, 7 passes */
	/* 4 buffers + 4 x 7 unpack-and-add launches + sign; 4 x 12 + 2 passes */
	CHECK_NEAR(d1, 33e-5 + 50 * pass / 1e9, 1e-12);
	gc_codec_cost(&d, &a, &s, &ms, 4, &e1, &d1);
	/* k 1e4, 20 rounds: 3 + 160 + 10 + 4 launches, 42 syncs, 49 passes + 24 k */
	CHECK_NEAR(e1, 177e-5 + 42 * 2e-5 + (49 * pass + 24e4) / 1e9, 1e-12);
	CHECK_NEAR(d1, 5e-5 + (pass + 12e4 * 4) / 1e9, 1e-12);      /* zeros + 4 slice adds */
	d.rounds = 100;                                               /* BERT's N */
	gc_codec_cost(&d, &a, &s, &ms, 4, &e2, &d2);
	CHECK_NEAR(e2 - e1, 80 * (8e-5 + 2 * 2e-5 + 2 * pass / 1e9), 1e-12);
	CHECK_NEAR(d2, d1, 1e-15);
	/* PowerSGD is PyTorch's own hook in both */
	gc_codec_cost(&d, &a, &s, &ps, 4, &e1, &d1);
	d.hooks = GC_HOOKS_TORCH;
	gc_codec_cost(&d, &a, &s, &ps, 4, &e2, &d2);
	CHECK_NEAR(e1, e2, 1e-15);
	CHECK_NEAR(d1, d2, 1e-15);
	gc_arch_release(&a);
}

/* MSTop-K's exchange as the hooks did it: the comm time of one bucket on 4 workers. */
static void test_gathers(void)
{
	static const char *const rows[] = { "v,1000000,1000000" };
	gc_model_method ms = method("mstopk:ratio=0.01");
	gc_model_params mp;
	gc_model_result r0, r1, r2;
	gc_arch a;
	gc_err e;
	double k = 1e4;

	CHECK(!csv_arch(&a, rows, 1));
	gc_arch_set_timing(&a, 1, 1e12, 1);
	gc_model_params_default(&mp);
	mp.alpha = 1e-4, mp.bw = 1e9;
	CHECK(!gc_model_predict(&a, &ms, &mp, 4, &r0, &e));
	mp.gathers = GC_GATHER_VALUES_TWICE;
	CHECK(!gc_model_predict(&a, &ms, &mp, 4, &r1, &e));
	mp.gathers = GC_GATHER_INDEX64_VALUES;
	CHECK(!gc_model_predict(&a, &ms, &mp, 4, &r2, &e));
	/* ring all-gather: 3 alpha + 3 m / bw; plan m = 8k; twice 4k; 8k + 4k */
	CHECK_NEAR(r0.comm, 3e-4 + 3 * 8 * k / 1e9, 1e-12);
	CHECK_NEAR(r1.comm, 2 * (3e-4 + 3 * 4 * k / 1e9), 1e-12);
	CHECK_NEAR(r2.comm, 2 * 3e-4 + 3 * 12 * k / 1e9, 1e-12);
	gc_arch_release(&a);
}

/* --grid study-code and the step table: sizes, the ends of the walk, the variants. */
static void test_study_grid(void)
{
	gc_whatif_step st[GC_GRID_MAX_STEPS];
	gc_whatif_grid gp, gs, g1;
	gc_grid_def d;
	gc_whatif w;
	size_t n, i;
	gc_err e;

	memset(&w, 0, sizeof(w));
	CHECK(!gc_whatif_preset(&w, "paper", &e));
	CHECK(!gc_whatif_grid_def("study-code", 0, &d, &e));
	CHECK(!gc_whatif_grid_run_def(&w, &d, 0, &gs, &e));
	CHECK_EQ_INT(gs.all.n, 315);                 /* 3 x 3 x 7 x 1 node count x 5 rates */
	CHECK_EQ_INT(gs.all.n_dc, 63);               /* only 20gbit, on the 10 Gbit/s NIC */
	CHECK_EQ_INT(d.gpn[0], 4);
	CHECK_EQ_INT(d.gpn[2], 8);
	CHECK_EQ_INT(d.seq_len, 512);
	gc_grid_def_study(&d, 1);
	CHECK_EQ_INT(d.gpn[2], 4);
	CHECK(!gc_whatif_grid_run_def(&w, &d, 0, &g1, &e));
	for (i = 0; i < 2; i++)                      /* the variant moves BERT only */
		CHECK_EQ_INT(g1.model[i].wins, gs.model[i].wins);
	CHECK(!gc_whatif_grid_run(&w, 0, 0, &gp, &e));
	CHECK(!gc_whatif_steps(&w, 0, st, GC_GRID_MAX_STEPS, &n, &e));
	CHECK_EQ_INT(n, 12);
	CHECK_EQ_INT(st[0].wins_dc, gp.all.wins_dc);
	CHECK_EQ_INT(st[0].n_dc, gp.all.n_dc);
	CHECK_EQ_INT(st[n - 1].wins_dc, gs.all.wins_dc);
	CHECK_EQ_INT(st[n - 1].wins, gs.all.wins);
	CHECK_EQ_INT(gc_whatif_steps(&w, 0, st, 3, &n, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "room for 3 steps");
	CHECK_EQ_INT(gc_whatif_grid_def("study", 0, &d, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "'study-code'");
	{
		size_t ns;
		const gc_grid_source *src = gc_whatif_study_sources(&ns);
		CHECK(ns >= 10);
		for (i = 0; i < ns; i++)
			CHECK(src[i].source && strlen(src[i].source) > 10);
	}
}

int main(void)
{
	GCT_RUN(test_ring_tree_auto);
	GCT_RUN(test_two_level);
	GCT_RUN(test_codec_powersgd_counts);
	GCT_RUN(test_codec_sparse_counts);
	GCT_RUN(test_point_and_crossover);
	GCT_RUN(test_seq_len);
	GCT_RUN(test_grid_counts);
	GCT_RUN(test_conclusions);
	GCT_RUN(test_errors);
	GCT_RUN(test_constants_sourced);
	GCT_RUN(test_codec_study_counts);
	GCT_RUN(test_gathers);
	GCT_RUN(test_study_grid);
	return gct_finish();
}

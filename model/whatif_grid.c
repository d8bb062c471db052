/* model/whatif_grid.c: the study's grid predicted whole, its win counts, and how they
 * move when each assumed constant spans its range (whatif.h). */
#include <math.h>
#include <string.h>

#include "whatif.h"
#include "strutil.h"

static const char *const grid_models[GC_GRID_MODELS] = { "resnet50", "resnet101", "bert-base" };
static const int grid_batches[GC_GRID_BATCHES] = { 16, 32, 64 };
static const char *const grid_methods[GC_GRID_METHODS] = {
	"signsgd", "mstopk:ratio=0.001", "mstopk:ratio=0.01", "mstopk:ratio=0.1",
	"powersgd:rank=4", "powersgd:rank=8", "powersgd:rank=16",
};
static const int grid_workers[GC_GRID_WORKERS] = { 8, 16, 32, 64, 96 };
static const double grid_gbps[GC_GRID_BWS] = { 1, 2, 5, 10, 15, 20, 25, 30 };
static const int cross_workers[2] = { 8, 96 };

const char *gc_grid_model(size_t i) { return i < GC_GRID_MODELS ? grid_models[i] : NULL; }
int gc_grid_batch(size_t i) { return i < GC_GRID_BATCHES ? grid_batches[i] : 0; }
const char *gc_grid_method(size_t i) { return i < GC_GRID_METHODS ? grid_methods[i] : NULL; }
int gc_grid_workers(size_t i) { return i < GC_GRID_WORKERS ? grid_workers[i] : 0; }
double gc_grid_gbps(size_t i) { return i < GC_GRID_BWS ? grid_gbps[i] : 0; }
int gc_grid_cross_workers(size_t i) { return i < 2 ? cross_workers[i] : 0; }

void gc_grid_def_paper(gc_grid_def *d, int seq_len)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	gc_strlcpy(d->name, "paper", sizeof(d->name));
	d->nnodes = GC_GRID_WORKERS, d->nbw = GC_GRID_BWS;
	for (i = 0; i < GC_GRID_WORKERS; i++)
		d->nodes[i] = grid_workers[i];
	for (i = 0; i < GC_GRID_BWS; i++)
		d->gbps[i] = grid_gbps[i];
	d->seq_len = seq_len;
}

/* The study's released code (uw-mad-dash/GradCompressionUtility at b73b330); the
 * --constants table cites each line (gc_whatif_study_sources). */
void gc_grid_def_study(gc_grid_def *d, int variant)
{
	static const double rates[] = { 1, 2, 4, 8, 20 };
	size_t i;

	memset(d, 0, sizeof(*d));
	gc_strlcpy(d->name, "study-code", sizeof(d->name));
	d->nnodes = 1, d->nodes[0] = 16;
	d->nbw = sizeof(rates) / sizeof(rates[0]);
	for (i = 0; i < d->nbw; i++)
		d->gbps[i] = rates[i];
	d->nic_gbps = 10;
	for (i = 0; i < GC_GRID_MODELS; i++) {
		d->gpn[i] = 4;
		d->gathers[i] = GC_GATHER_VALUES_TWICE, d->rounds[i] = 20;
	}
	d->gpn[2] = variant ? 4 : 8;      /* 8: one GPU each (cuda:local_rank), not two */
	d->gathers[2] = GC_GATHER_INDEX64_VALUES, d->rounds[2] = 100;
	d->seq_len = 512;
	d->bert_sync_bucket_mb = 45;
	d->hooks = GC_HOOKS_STUDY;
	d->backward_only = 1;
	d->warmup_iters = 3, d->timed_iters = 61;
}

gc_rc gc_whatif_grid_def(const char *name, int seq_len, gc_grid_def *d, gc_err *e)
{
	gc_grid_def tmp;

	if (!d)
		d = &tmp;
	if (name && !strcmp(name, "paper")) {
		gc_grid_def_paper(d, seq_len);
		return GC_OK;
	}
	if (name && !strcmp(name, "study-code")) {
		gc_grid_def_study(d, 0);
		return GC_OK;
	}
	return gc_fail(e, GC_E_INVAL, "unknown grid '%s'; the grids are 'paper' (the "
		       "study's text: resnet50, resnet101, bert-base; batch 16/32/64; signsgd, "
		       "mstopk 0.1/1/10%%, powersgd rank 4/8/16; 8-96 workers; 1-30 Gbit/s) and "
		       "'study-code' (the same on the setup of the study's released code)",
		       name ? name : "");
}

gc_rc gc_whatif_grid_check(const char *name, gc_err *e)
{
	return gc_whatif_grid_def(name, 0, NULL, e);
}

static void count(gc_grid_tally *t, int win, int dc)
{
	t->n++, t->wins += win;
	t->n_dc += dc, t->wins_dc += win && dc;
}

/* w as model im of def d runs it: processes per node, the exchange and codec of the
 * hooks, how the speedup is timed. */
static void setup_model(const gc_whatif *w, const gc_grid_def *d, size_t im, gc_whatif *wb)
{
	*wb = *w;
	if (d->gpn[im] > 0)
		wb->mp.gpus_per_node = d->gpn[im];
	wb->mp.gathers = d->gathers[im];
	wb->mp.dev.hooks = d->hooks;
	wb->mp.dev.rounds = d->rounds[im];
	wb->backward_only = d->backward_only;
	wb->warmup_iters = d->warmup_iters, wb->timed_iters = d->timed_iters;
	if (im == 2 && d->bert_sync_bucket_mb > 0)
		wb->sync_bucket_bytes = (size_t)(d->bert_sync_bucket_mb * 1024 * 1024);
}

static int workers_of(const gc_grid_def *d, size_t im, size_t j)
{
	return d->nodes[j] * (d->gpn[im] > 0 ? d->gpn[im] : 1);
}

/* Every point of one (model, batch). */
static gc_rc grid_one(const gc_whatif *w, const gc_grid_def *d, gc_arch *a, size_t im,
		      size_t ib, const gc_model_method *ms, gc_whatif_grid *g, gc_err *e)
{
	double s = w->nspeed ? w->speedup[0] : 1, c = w->ncodec ? w->codec[0] : 0, sp;
	gc_model_result rm, rs;
	gc_whatif wb;
	size_t k, j, l;
	gc_rc rc;

	setup_model(w, d, im, &wb);
	if (!(c > 0))
		c = s;
	wb.batch = grid_batches[ib];
	for (k = 0; k < GC_GRID_METHODS; k++)
		for (j = 0; j < d->nnodes; j++)
			for (l = 0; l < d->nbw; l++) {
				double bw = d->nic_gbps > 0 ? fmin(d->gbps[l], d->nic_gbps) : d->gbps[l];
				int dc = bw >= GC_GRID_DC_GBPS, win;
				if ((rc = gc_whatif_eval(&wb, a, &ms[k], workers_of(d, im, j), bw, s,
							 c, &sp, &rm, &rs, e)))
					return rc;
				win = sp > 1;
				count(&g->all, win, dc);
				count(&g->model[im], win, dc);
				count(&g->batch[ib], win, dc);
				count(&g->method[k], win, dc);
				count(&g->workers[j], win, dc);
				count(&g->bw[l], win, dc);
				if (sp > g->best) {
					g->best = sp, g->best_model = im, g->best_batch = ib;
					g->best_method = k, g->best_workers = j, g->best_bw = l;
				}
			}
	for (j = 0; g->crossovers && j < 2; j++)        /* PowerSGD rank 4 */
		if ((rc = gc_whatif_crossover(&wb, a, &ms[4],
					      workers_of(d, im, j ? d->nnodes - 1 : 0), s, c,
					      &g->cross[im][ib][j], e)))
			return rc;
	return GC_OK;
}

gc_rc gc_whatif_grid_run_def(const gc_whatif *w, const gc_grid_def *d, int crossovers,
			     gc_whatif_grid *g, gc_err *e)
{
	gc_model_method ms[GC_GRID_METHODS];
	size_t im, ib, k;
	gc_arch a;
	gc_rc rc = GC_OK;

	memset(g, 0, sizeof(*g));
	g->def = *d;
	g->crossovers = crossovers;
	if (!d->nnodes || d->nnodes > GC_GRID_WORKERS || !d->nbw || d->nbw > GC_GRID_BWS)
		return gc_fail(e, GC_E_INVAL, "grid '%s': %zu node counts and %zu bandwidths; "
			       "give 1..%d and 1..%d", d->name, d->nnodes, d->nbw,
			       GC_GRID_WORKERS, GC_GRID_BWS);
	for (k = 0; k < GC_GRID_METHODS; k++)
		if ((rc = gc_model_method_parse(grid_methods[k], &ms[k], e)))
			return rc;
	for (im = 0; !rc && im < GC_GRID_MODELS; im++) {
		if ((rc = gc_arch_build(grid_models[im], &a, e)))
			return rc;
		if (d->seq_len > 0 && !strcmp(grid_models[im], "bert-base"))
			rc = gc_whatif_scale_seq(&a, d->seq_len, e);
		for (ib = 0; !rc && ib < GC_GRID_BATCHES; ib++)
			rc = grid_one(w, d, &a, im, ib, ms, g, e);
		gc_arch_release(&a);
	}
	return rc;
}

gc_rc gc_whatif_grid_run(const gc_whatif *w, int seq_len, int crossovers, gc_whatif_grid *g,
			 gc_err *e)
{
	gc_grid_def d;

	gc_grid_def_paper(&d, seq_len);
	return gc_whatif_grid_run_def(w, &d, crossovers, g, e);
}

/* Does conclusion i hold in g? 0: few wins in the data-center band; 1: PowerSGD rank 4
 * crossover of ResNet-50, batch 64, 8 workers near the study's 9 Gbit/s. */
int gc_whatif_conclusion(const gc_whatif_grid *g, int i)
{
	double x;

	if (i == 0)
		return g->all.n_dc && (double)g->all.wins_dc <= GC_GRID_FEW * (double)g->all.n_dc;
	x = g->cross[0][2][0];
	return x >= GC_GRID_CROSS_LO && x <= GC_GRID_CROSS_HI;
}

/* The crossover conclusion B reads: PowerSGD rank 4, ResNet-50, batch 64, 8 workers. */
static gc_rc r50_cross(gc_whatif *w, double *x, gc_err *e)
{
	double s = w->nspeed ? w->speedup[0] : 1, c = w->ncodec ? w->codec[0] : s;
	gc_model_method m;
	gc_arch a;
	gc_rc rc;

	w->batch = 64;
	if ((rc = gc_model_method_parse("powersgd:rank=4", &m, e)) ||
	    (rc = gc_arch_build("resnet50", &a, e)))
		return rc;
	rc = gc_whatif_crossover(w, &a, &m, 8, s, c, x, e);
	gc_arch_release(&a);
	return rc;
}

gc_rc gc_whatif_sensitivity_def(const gc_whatif *w, const gc_grid_def *d,
				gc_whatif_sens *out, size_t max, size_t *n, gc_err *e)
{
	const gc_whatif_const *cs;
	int paper = !strcmp(d->name, "paper");
	size_t nc, i, side;
	gc_rc rc;

	*n = 0;
	cs = gc_whatif_constants(&nc);
	if (!w->paper)
		return gc_fail(e, GC_E_INVAL, "--sensitivity varies the constants of the paper "
			       "preset; use it with --preset paper (not --db or ideal)");
	for (i = 0; i < nc; i++) {
		gc_whatif_sens *r;
		if (!(cs[i].lo < cs[i].hi))
			continue;
		if (*n == max)
			return gc_fail(e, GC_E_INVAL, "sensitivity: more than %zu constants", max);
		r = &out[(*n)++];
		r->c = &cs[i];
		for (side = 0; side < 2; side++) {
			gc_whatif wv = *w;
			gc_whatif_grid g;
			double v = side ? cs[i].hi : cs[i].lo;
			if ((rc = gc_whatif_set_const(&wv, cs[i].name, v, e)) ||
			    (rc = gc_whatif_grid_run_def(&wv, d, !paper, &g, e)))
				return rc;
			r->wins_dc[side] = g.all.wins_dc;
			r->n_dc = g.all.n_dc;
			r->wins[side] = g.all.wins;
			r->n = g.all.n;
			if (paper && (rc = r50_cross(&wv, &g.cross[0][2][0], e)))
				return rc;
			r->cross[side] = g.cross[0][2][0];
			r->holds[0][side] = gc_whatif_conclusion(&g, 0);
			r->holds[1][side] = gc_whatif_conclusion(&g, 1);
		}
	}
	return GC_OK;
}

gc_rc gc_whatif_sensitivity(const gc_whatif *w, int seq_len, gc_whatif_sens *out,
			    size_t max, size_t *n, gc_err *e)
{
	gc_grid_def d;

	gc_grid_def_paper(&d, seq_len);
	return gc_whatif_sensitivity_def(w, &d, out, max, n, e);
}

/* ---- the step table ---------------------------------------------------------------- */
/* One step: what it moves (and where the study's code says so), and the move: copy
 * the field(s) of that assumption from the study def t into d. */
struct step {
	const char *what;
	void (*apply)(gc_grid_def *d, const gc_grid_def *t);
};

static void st_nodes(gc_grid_def *d, const gc_grid_def *t)
{
	d->nnodes = t->nnodes;
	memcpy(d->nodes, t->nodes, sizeof(d->nodes));
}

static void st_gpn(gc_grid_def *d, const gc_grid_def *t)
{
	size_t i;

	for (i = 0; i < 2; i++)
		d->gpn[i] = t->gpn[i];
	d->gpn[2] = 4;                            /* BERT as the ResNets, first */
}

static void st_bert_gpn(gc_grid_def *d, const gc_grid_def *t)
{
	d->gpn[2] = t->gpn[2];
}

static void st_bw(gc_grid_def *d, const gc_grid_def *t)
{
	d->nbw = t->nbw, d->nic_gbps = t->nic_gbps;
	memcpy(d->gbps, t->gbps, sizeof(d->gbps));
}

static void st_seq(gc_grid_def *d, const gc_grid_def *t) { d->seq_len = t->seq_len; }
static void st_bucket(gc_grid_def *d, const gc_grid_def *t)
{
	d->bert_sync_bucket_mb = t->bert_sync_bucket_mb;
}
static void st_timing(gc_grid_def *d, const gc_grid_def *t)
{
	d->backward_only = t->backward_only;
}
static void st_warmup(gc_grid_def *d, const gc_grid_def *t)
{
	d->warmup_iters = t->warmup_iters, d->timed_iters = t->timed_iters;
}
static void st_rounds(gc_grid_def *d, const gc_grid_def *t)
{
	memcpy(d->rounds, t->rounds, sizeof(d->rounds));
}
static void st_gathers(gc_grid_def *d, const gc_grid_def *t)
{
	memcpy(d->gathers, t->gathers, sizeof(d->gathers));
}
static void st_hooks(gc_grid_def *d, const gc_grid_def *t) { d->hooks = t->hooks; }

static const struct step steps[] = {
	{ "nodes: 8..96 workers -> 16 instances (launch_ec2_run_commands.py 21)", st_nodes },
	{ "ResNets 4 processes per node, NCCL two-level (run_ddp.sh 19; BERT too, here)",
	  st_gpn },
	{ "BERT 8 processes per node, one GPU each (run_ddp_bert.sh 19, main_bert.py 720-722)",
	  st_bert_gpn },
	{ "bandwidth: tc 1,2,4,8 (commented) and 20gbit on a 10 Gbit/s NIC "
	  "(run_ddp_var_bandwidth.sh 19-29)", st_bw },
	{ "BERT 512 tokens (run_ddp_bert.sh 19 --max_seq_length 512)", st_seq },
	{ "BERT sync SGD buckets 45 MB (main_bert.py 755; the hooks keep 25)", st_bucket },
	{ "timed: backward only, CUDA events (main_ddp_final.py 346-354)", st_timing },
	{ "PowerSGD: 3 of 61 timed iterations all-reduce (main_ddp_final.py 333, 359)",
	  st_warmup },
	{ "MSTop-K rounds 20 ResNet, 100 BERT (main_ddp_final.py 547, main_bert.py 1207)",
	  st_rounds },
	{ "MSTop-K exchange: values twice (ResNet), int64 index + values (BERT) "
	  "(main_ddp_final.py 509-516, main_bert.py 1145-1149)", st_gathers },
	{ "codec: the study's signSGD and MSTop-K hooks (codec.h)", st_hooks },
};
#define NSTEPS (sizeof(steps) / sizeof(steps[0]))

static gc_rc step_count(const gc_whatif *w, gc_whatif_step *r, gc_err *e)
{
	gc_whatif_grid g;
	size_t i;
	gc_rc rc;

	if ((rc = gc_whatif_grid_run_def(w, &r->def, 1, &g, e)))
		return rc;
	r->wins_dc = g.all.wins_dc, r->n_dc = g.all.n_dc;
	r->wins = g.all.wins, r->n = g.all.n;
	for (i = 0; i < GC_GRID_MODELS; i++)
		r->wins_dc_model[i] = g.model[i].wins_dc;
	for (i = 0; i < GC_GRID_METHODS; i++)
		r->wins_dc_method[i] = g.method[i].wins_dc;
	r->cross = g.cross[0][2][0];
	return GC_OK;
}

gc_rc gc_whatif_steps(const gc_whatif *w, int variant, gc_whatif_step *out, size_t max,
		      size_t *n, gc_err *e)
{
	gc_grid_def t;
	size_t i;
	gc_rc rc;

	*n = 0;
	if (max < NSTEPS + 1)
		return gc_fail(e, GC_E_INVAL, "step table: room for %zu steps, %zu needed", max,
			       (size_t)NSTEPS + 1);
	gc_grid_def_study(&t, variant);
	out[0].what = "the paper grid (--grid paper)";
	gc_grid_def_paper(&out[0].def, 0);
	for (i = 0; i <= NSTEPS; i++) {
		if (i) {
			out[i].def = out[i - 1].def;
			if (variant && steps[i - 1].apply == st_bert_gpn)
				out[i].what = "BERT 4 processes per node (variant: as the ResNets)";
			else
				out[i].what = steps[i - 1].what;
			steps[i - 1].apply(&out[i].def, &t);
		}
		if ((rc = step_count(w, &out[i], e)))
			return rc;
		(*n)++;
	}
	gc_strlcpy(out[NSTEPS].def.name, "study-code", sizeof(out[NSTEPS].def.name));
	return GC_OK;
}

/* ---- where the study-code grid comes from ------------------------------------------ */
static const gc_grid_source study_sources[] = {
	{ "nodes", "8-96 workers, 1 GPU each", "16 p3.8xlarge",
	  "launch_ec2_run_commands.py 20-21 (instance_type, instance_count)" },
	{ "GPUs per node", "1 (--gpus-per-node)", "4 V100, NCCL two-level",
	  "run_ddp.sh 19 --nproc_per_node=4; p3.8xlarge = 4 V100 (AWS instance types)" },
	{ "BERT processes per node", "1", "8, one GPU each; variant: 4",
	  "run_ddp_bert.sh 19 and run_ddp_var_bandwidth_ddp.sh 20 --nproc_per_node=8; "
	  "main_bert.py 720-722 puts rank local_rank on cuda:local_rank (so 8 GPUs per node, "
	  "not the 4 of launch_ec2_run_commands.py 20's p3.8xlarge) with global_rank = "
	  "node_rank * 8; run_ddp_var_bandwidth.sh 20 launches the ResNets with 8 too, its "
	  "commented lines 23-29 with 4" },
	{ "link", "1,2,5,10,15,20,25,30 Gbit/s", "tc 1,2,4,8,20gbit on a 10 Gbit/s NIC",
	  "run_ddp_var_bandwidth.sh 19 (20gbit active), 21-29 (1, 2, 4, 8 commented out); "
	  "p3.8xlarge: 10 Gigabit network (AWS instance types), so 20gbit does not bind" },
	{ "ResNet batches", "16, 32, 64", "16, 32, 64",
	  "main_ddp_final.py 928-945 (sync SGD and PowerSGD at 16/32/64; the hooks at 64)" },
	{ "BERT tokens", "128", "512", "run_ddp_bert.sh 19 --max_seq_length 512" },
	{ "BERT buckets", "25 MB", "sync SGD 45 MB, hooks 25 MB",
	  "main_bert.py 755 bucket_cap_mb=45 (sync SGD); 975, 1204, 1394 default (hooks)" },
	{ "timing", "iteration", "backward + exchange",
	  "main_ddp_final.py 346-354: CUDA events around loss.backward() only" },
	{ "iterations", "-", "61, first 3 PowerSGD all-reduce",
	  "main_ddp_final.py 333 start_powerSGD_iter=3, 359 batch_idx == 60; mean over all "
	  "61 assumed (how the paper reduced them is not in the code)" },
	{ "PowerSGD", "powerSGD_hook, rank 4/8/16", "the same",
	  "main_ddp_final.py 331-335, 948-954; main_bert.py 978-982" },
	{ "MSTop-K ratios", "0.001, 0.01, 0.1", "the same", "main_ddp_final.py 969-982" },
	{ "MSTop-K rounds", "20", "20 ResNet, 100 BERT",
	  "main_ddp_final.py 547 {'N':20}; main_bert.py 1207 {'N':100}" },
	{ "MSTop-K exchange", "one gather, uint32 index + value", "ResNet: values twice; "
	  "BERT: int64 index + values", "main_ddp_final.py 509-516 (index gather commented "
	  "out, values gathered twice); main_bert.py 1145-1149" },
	{ "MSTop-K codec", "gcbench's count (codec.h)", "the hook's ops (codec.h)",
	  "main_ddp_final.py 460-527: abs, mean, max; per round count_nonzero and two "
	  "Python comparisons (host syncs); two nonzero selections; decode by slice adds" },
	{ "signSGD codec", "gcbench's count (codec.h)", "the hook's ops (codec.h)",
	  "main_ddp_final.py 376-398 + gradient_reducers.py 1283-1316: pack 32 signs per "
	  "int32, all-gather, unpack every worker's bits, add, sign" },
	{ "device constants", "--constants above", "the same",
	  "no public PyTorch-on-V100 figure for one eager op or one .item() round trip was "
	  "found (a newer one for the op: see launch): launch and sync stay assumptions "
	  "with their ranges" },
};

const gc_grid_source *gc_whatif_study_sources(size_t *n)
{
	*n = sizeof(study_sources) / sizeof(study_sources[0]);
	return study_sources;
}

/* tests/unit/test_model_validate.c: the validation table (model/validate.h) of the
 * stored fixture tests/data/model/validate-points.csv against values computed by hand,
 * and its errors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "model/validate.h"

#define FIXTURE "tests/data/model/validate-points.csv"

/* The points of a fixture file into p (at most max); the count, or -1. An optional
 * tenth column is the network. */
static int load_file(const char *path, gc_val_point *p, size_t max)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		long long env;
		double gbit;
		if (line[0] == '#' || !strncmp(line, "env,", 4))
			continue;
		if ((size_t)n == max)
			break;
		memset(&p[n], 0, sizeof(p[n]));
		int got = sscanf(line, "%lld,%63[^,],%31[^,],%d,%d,%d,%lf,%lf,%lf,%47[^,\n]", &env,
				 p[n].model, p[n].method, &p[n].world_size, &p[n].nodes,
				 &p[n].batch, &gbit, &p[n].measured, &p[n].predicted,
				 p[n].network);
		if (got != 9 && got != 10) {
			fclose(f);
			return -1;
		}
		p[n].env_id = env;
		p[n].cap_bps = (uint64_t)(gbit * 1e9);
		n++;
	}
	fclose(f);
	return n;
}

static int load(gc_val_point *p, size_t max)
{
	return load_file(FIXTURE, p, max);
}

static const gc_val_group *find(const gc_val_group *g, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(g[i].name, name))
			return &g[i];
	return NULL;
}

static void test_fixture_table(void)
{
	gc_val_point p[16];
	gc_validation v;
	const gc_val_group *g;
	gc_err e;
	int n = load(p, 16);

	CHECK_EQ_INT(n, 10);
	CHECK(!gc_validate(p, (size_t)n, "syncsgd", &v, &e));
	/* |errors| of the 9 predicted points: .1 .125 .16667 0 .05 .1 .1 0 .2 */
	CHECK_EQ_INT(v.all.n, 9);
	CHECK_NEAR(v.all.median_abs, 0.1, 1e-12);
	CHECK_NEAR(v.all.p95_abs, 0.2, 1e-12);                 /* ceil(8.55) = 9th: the largest */
	CHECK_NEAR(v.all.mean_err, (0.1 + 0.125 - 0.02 / 0.12 + 0 - 0.05 - 0.1 + 0.1 + 0 + 0.2) / 9,
		   1e-12);
	/* verdicts: signsgd 1.25/1.22 and .83/.88 agree; powersgd .83/1.1 and .91/1.01
	 * differ; mstopk on 4 nodes .71/.65 agrees; mstopk on 2 nodes, against the sync
	 * SGD run on 2 nodes (not the one on 4), 1.14/.95 differs; the skipped 8-worker
	 * point has none */
	CHECK_EQ_INT(v.all.verdicts, 6);
	CHECK_EQ_INT(v.all.agree, 3);
	CHECK_EQ_INT(v.ndisagree, 3);
	CHECK_EQ_INT(v.disagree[0], 2);
	CHECK_EQ_INT(v.disagree[1], 5);
	CHECK_EQ_INT(v.disagree[2], 9);
	CHECK_EQ_INT(v.worst, 9);
	CHECK_EQ_INT(v.nmethod, 4);
	CHECK((g = find(v.method, v.nmethod, "powersgd")) != NULL);
	if (g) {
		CHECK_EQ_INT(g->n, 2);
		CHECK_NEAR(g->median_abs, (0.02 / 0.12 + 0.1) / 2, 1e-12);
		CHECK_NEAR(g->p95_abs, 0.02 / 0.12, 1e-12);
		CHECK_EQ_INT(g->verdicts, 2);
		CHECK_EQ_INT(g->agree, 0);
	}
	CHECK((g = find(v.method, v.nmethod, "syncsgd")) != NULL);
	if (g)
		CHECK_EQ_INT(g->verdicts, 0);                    /* the baseline has no verdict */
	CHECK_EQ_INT(v.ncap, 2);
	CHECK((g = find(v.cap, v.ncap, "3 Gbit/s")) != NULL);
	if (g) {
		CHECK_EQ_INT(g->n, 3);
		CHECK_NEAR(g->median_abs, 0.125, 1e-12);
		CHECK_EQ_INT(g->verdicts, 2);
		CHECK_EQ_INT(g->agree, 1);
	}
	CHECK_EQ_INT(v.nworld, 1);                         /* 8 workers: skipped only */
	CHECK_EQ_INT(v.nrpn, 2);                           /* 1 and 2 per node; 4: skipped */
	CHECK((g = find(v.rpn, v.nrpn, "2 per node")) != NULL);
	if (g) {
		CHECK_EQ_INT(g->n, 2);
		CHECK_NEAR(g->median_abs, 0.1, 1e-12);
		CHECK_EQ_INT(g->verdicts, 1);
		CHECK_EQ_INT(g->agree, 0);
	}
	/* another baseline: against signsgd, only the other methods get verdicts */
	CHECK(!gc_validate(p, (size_t)n, "signsgd", &v, &e));
	CHECK_EQ_INT(v.all.verdicts, 5);  /* syncsgd x2, powersgd x2, mstopk on 4 nodes */
}

/* A point is judged against the baseline of its own network, and grouped by it. */
static void test_network_pairing(void)
{
	gc_val_point p[8];
	gc_validation v;
	const gc_val_group *g;
	gc_err e;
	int n = load_file("tests/data/model/validate-network.csv", p, 8);

	CHECK_EQ_INT(n, 4);
	CHECK(!gc_validate(p, (size_t)n, "syncsgd", &v, &e));
	CHECK_EQ_INT(v.all.verdicts, 2);
	CHECK_EQ_INT(v.all.agree, 2);                      /* paired by network: both agree */
	CHECK_EQ_INT(v.ndisagree, 0);
	CHECK_EQ_INT(v.nnet, 2);
	CHECK((g = find(v.net, v.nnet, "slow n3:0.5")) != NULL);
	if (g) {
		/* |errors| .05 and .014/.098 */
		CHECK_EQ_INT(g->n, 2);
		CHECK_NEAR(g->median_abs, (0.05 + 0.014 / 0.098) / 2, 1e-12);
		CHECK_NEAR(g->p95_abs, 0.014 / 0.098, 1e-12);
		CHECK_EQ_INT(g->verdicts, 1);
	}
	/* the same points with no network named all pair with the first sync SGD row */
	for (int i = 0; i < n; i++)
		p[i].network[0] = 0;
	CHECK(!gc_validate(p, (size_t)n, "syncsgd", &v, &e));
	CHECK_EQ_INT(v.nnet, 1);
	CHECK_EQ_INT(v.ndisagree, 1);
}

static void test_errors(void)
{
	gc_val_point p[2];
	gc_validation v;
	gc_err e;
	size_t i;
	gc_val_point many[GC_VAL_MAX_GROUPS + 1];

	memset(p, 0, sizeof(p));
	strcpy(p[0].method, "syncsgd");
	p[0].measured = 0.1;                               /* no prediction */
	CHECK_EQ_INT(gc_validate(p, 1, "syncsgd", &v, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "no held-out run has a prediction");
	CHECK_EQ_INT(gc_validate(p, 0, "syncsgd", &v, &e), GC_E_INVAL);
	memset(many, 0, sizeof(many));
	for (i = 0; i < GC_VAL_MAX_GROUPS + 1; i++) {
		snprintf(many[i].method, sizeof(many[i].method), "m%zu", i);
		many[i].measured = many[i].predicted = 1;
	}
	CHECK_EQ_INT(gc_validate(many, GC_VAL_MAX_GROUPS + 1, "m0", &v, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "more than 32 methods");
	/* one point, no baseline anywhere: statistics but no verdicts */
	CHECK(!gc_validate(many, 1, "syncsgd", &v, &e));
	CHECK_EQ_INT(v.all.n, 1);
	CHECK_EQ_INT(v.all.verdicts, 0);
	CHECK_NEAR(v.all.p95_abs, 0, 1e-15);
}

int main(void)
{
	GCT_RUN(test_fixture_table);
	GCT_RUN(test_errors);
	GCT_RUN(test_network_pairing);
	return gct_finish();
}

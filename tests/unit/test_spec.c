/* tests/unit/test_spec.c: the sweep spec parser, its errors, and sweep expansion. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "orchestrator/spec/spec.h"
#include "orchestrator/run/sweep.h"
#include "test_spec_corpus.h"
#include "spec_fixture.h"

static const char *good =
	"name: t\n"
	"workload: replay\n"
	"models: [resnet50]\n"
	"methods:\n"
	"  - syncsgd\n"
	"  - signsgd\n"
	"  - mstopk: {ratio: 0.01}\n"
	"  - powersgd: {rank: [4, 8]}\n"
	"baseline: syncsgd\n"
	"bandwidth: [1gbit, 2gbit, 5gbit, 10gbit]\n"
	"world_size: [4]\n"
	"batch: [32]\n"
	"iterations: 30\n"
	"warmup: 5\n"
	"repeats: 1\n"
	"timeout: 300\n"
	"compute_scale: 1\n"
	"backend: mpi\n"
	"exclude:\n"
	"  - {method: powersgd, bandwidth: 10gbit}\n"
	"notify:\n"
	"  - {type: webhook, url_env: GCBENCH_WEBHOOK_URL}\n"
	"  - {type: slack, url_env: GCBENCH_SLACK_URL}\n";

static void dump(const struct gc_diags *d)
{
	for (size_t i = 0; i < d->n; i++)
		printf("# %s\n", d->msg[i]);
}

static void test_good(void)
{
	struct gc_spec s;
	struct gc_diags d;
	gc_rc rc = parse(good, &s, &d);

	dump(&d);
	CHECK_EQ_INT(rc, GC_OK);
	CHECK_EQ_INT(s.n_methods, 5);
	CHECK_STR(s.methods[0].label, "syncsgd");
	CHECK_STR(s.methods[3].name, "powersgd");
	CHECK(s.methods[3].params.rank == 4 && s.methods[4].params.rank == 8);
	CHECK_EQ_INT(s.n_bandwidth, 4);
	CHECK(s.bandwidth[0] == 1000000000ull && s.bandwidth[3] == 10000000000ull);
	CHECK_EQ_INT(s.iterations, 30);
	CHECK_EQ_INT(s.warmup, 5);
	CHECK_EQ_INT(s.n_notify, 2);
	CHECK_STR(s.notify[1].url_env, "GCBENCH_SLACK_URL");
	CHECK_EQ_INT(strlen(s.hash), 16);
	CHECK_CONTAINS(s.canonical, "bandwidth=1000000000,2000000000,5000000000,10000000000");
	CHECK(s.n_latency == 1 && s.latency[0] == 0);
	gc_spec_release(&s);
	gc_diags_release(&d);
}

/* workload: train: trained models on the model axis, the target, eval_every and its
 * default; both reach the canonical text (so the hash), which replay specs lack. */
static void test_train_target(void)
{
	const char *base = "name: t\nworkload: train\nmodels: [mlp, cnn]\nmethods: [syncsgd]\n"
			   "bandwidth: 1gbit\nworld_size: 4\nbatch: 16\niterations: 100\n";
	char text[512];
	struct gc_spec s, s2;
	struct gc_diags d;
	snprintf(text, sizeof(text), "%starget: {accuracy: 0.95}\n", base);
	CHECK_EQ_INT(parse(text, &s, &d), GC_OK);
	gc_diags_release(&d);
	CHECK_STR(s.workload, "train");
	CHECK_EQ_INT(s.n_models, 2);
	CHECK_STR(s.models[1], "cnn");
	CHECK_STR(s.target_metric, "accuracy");
	CHECK_NEAR(s.target_value, 0.95, 1e-12);
	CHECK_EQ_INT(s.eval_every, GC_SPEC_EVAL_EVERY);
	CHECK(strstr(s.canonical, "data=digits\neval_every=20\ntarget=accuracy:0.95\n") != NULL);
	snprintf(text, sizeof(text), "%starget: {loss: 0.25}\neval_every: 7\ndata: generated\n", base);
	CHECK_EQ_INT(parse(text, &s2, &d), GC_OK);
	gc_diags_release(&d);
	CHECK_STR(s2.target_metric, "loss");
	CHECK_STR(s2.data, "generated");
	CHECK_EQ_INT(s2.eval_every, 7);
	CHECK(strcmp(s.hash, s2.hash) != 0);
	gc_spec_release(&s2);
	CHECK_EQ_INT(parse(base, &s2, &d), GC_OK);       /* no target: validation only */
	gc_diags_release(&d);
	CHECK_STR(s2.target_metric, "");
	CHECK(strstr(s2.canonical, "target=:\n") != NULL);
	gc_spec_release(&s2);
	gc_spec_release(&s);
	CHECK_EQ_INT(parse(good, &s, &d), GC_OK);        /* replay: no such lines */
	gc_diags_release(&d);
	CHECK(strstr(s.canonical, "eval_every") == NULL && strstr(s.canonical, "target") == NULL);
	gc_spec_release(&s);
}

static void test_hash_stable(void)
{
	struct gc_spec a, b;
	struct gc_diags d1, d2;
	char *alt = malloc(strlen(good) + 64);

	CHECK(alt);
	/* comments, a new name and notify targets do not change what is measured */
	snprintf(alt, strlen(good) + 64, "# a comment\n%s", good);
	memcpy(strstr(alt, "name: t"), "name: u", 7);
	CHECK(parse(good, &a, &d1) == GC_OK);
	CHECK(parse(alt, &b, &d2) == GC_OK);
	CHECK_STR(a.hash, b.hash);
	gc_spec_release(&b);
	/* iterations do */
	memcpy(strstr(alt, "iterations: 30"), "iterations: 31", 14);
	CHECK(parse(alt, &b, &d2) == GC_OK);
	CHECK(strcmp(a.hash, b.hash) != 0);
	gc_spec_release(&a);
	gc_spec_release(&b);
	free(alt);
	gc_diags_release(&d1);
	gc_diags_release(&d2);
}

static const char *bad =
	"name: t\n"
	"models: [resnet51]\n"
	"methods:\n"
	"  - syncsgd\n"
	"  - signsdg\n"
	"  - mstopk: {ratio: 2}\n"
	"  - powersgd: {rank: [4, 0]}\n"
	"baseline: fp16\n"
	"bandwith: [1gbit]\n"
	"bandwidth: [10kbit, 500gbit, 3 apples]\n"
	"world_size: []\n"
	"batch: {a: 1}\n"
	"iterations: 0\n"
	"warmup: -1\n"
	"backend: gloo\n"
	"notify:\n"
	"  - {type: webhook, url: http://secret}\n";

static void test_all_errors_at_once(void)
{
	struct gc_spec s;
	struct gc_diags d;

	CHECK_EQ_INT(parse(bad, &s, &d), GC_E_INVAL);
	dump(&d);
	CHECK(has_diag(&d, "t.yaml:2:10: unknown model; did you mean 'resnet50'?"));
	CHECK(has_diag(&d, "t.yaml:5:5: unknown method; did you mean 'signsgd'?"));
	CHECK(has_diag(&d, "t.yaml:6:21: parameter 'ratio': 2 is out of range"));                    /* ratio 2 */
	CHECK(has_diag(&d, "t.yaml:7:26: parameter 'rank': 0 is out of range"));                    /* rank 0 */
	CHECK(has_diag(&d, "baseline is not among the methods"));
	CHECK(has_diag(&d, "t.yaml:9:1: unknown key in the spec; did you mean 'bandwidth'?"));
	CHECK(has_diag(&d, "t.yaml:10:13: bandwidth is out of range"));
	CHECK(has_diag(&d, "t.yaml:10:21: bandwidth is out of range"));
	CHECK(has_diag(&d, "t.yaml:10:30: bandwidth is not a rate"));                   /* 3 apples */
	CHECK(has_diag(&d, "t.yaml:11:13: 'world_size' is an empty list"));
	CHECK(has_diag(&d, "t.yaml:12:8: 'batch' is a mapping"));
	CHECK(has_diag(&d, "t.yaml:13:13: iterations is not a whole number in 1..1000000"));
	CHECK(has_diag(&d, "t.yaml:14:9: warmup is not a whole number"));
	CHECK(has_diag(&d, "t.yaml:15:10: backend is unknown; use mpi"));
	CHECK(has_diag(&d, "a URL is a secret"));
	CHECK(d.n >= 15);
	/* sorted by position */
	for (size_t i = 1; i < d.n; i++) {
		unsigned l0, c0, l1, c1;
		CHECK(sscanf(d.msg[i - 1], "t.yaml:%u:%u:", &l0, &c0) == 2);
		CHECK(sscanf(d.msg[i], "t.yaml:%u:%u:", &l1, &c1) == 2);
		CHECK(l0 < l1 || (l0 == l1 && c0 <= c1));
	}
	CHECK(s.name == NULL && s.n_methods == 0);   /* nothing is left half-built */
	gc_diags_release(&d);
}

static void test_baseline_ambiguous_and_dup(void)
{
	struct gc_spec s;
	struct gc_diags d;
	const char *t = "name: t\nmodels: resnet50\nmethods: [{topk: {ratio: [0.1, 0.01]}}, "
			"signsgd, signsgd]\nbaseline: topk\nbandwidth: 1gbit\nworld_size: 2\n"
			"batch: 8\niterations: 3\n";

	CHECK_EQ_INT(parse(t, &s, &d), GC_E_INVAL);
	dump(&d);
	CHECK(has_diag(&d, "baseline 'topk' has 2 parameter sets"));
	CHECK(has_diag(&d, "t.yaml:3:50: method signsgd(ef=0,scaled=0) is listed twice"));
	gc_diags_release(&d);
}

/* baseline: [a, b]: both kept in order, the first is the baseline; a list of one is the
 * scalar (same hash); each item is checked like a scalar baseline, once. */
static void test_baseline_list(void)
{
	struct gc_spec s, one, sc;
	struct gc_diags d;
	const char *head = "name: t\nmodels: resnet50\nmethods: [syncsgd, bf16, fp16]\n"
			   "bandwidth: 1gbit\nworld_size: 2\nbatch: 8\niterations: 3\n";
	char t[512];

	snprintf(t, sizeof t, "%sbaseline: [syncsgd, bf16]\n", head);
	CHECK_EQ_INT(parse(t, &s, &d), GC_OK);
	CHECK_STR(s.baseline, "syncsgd");
	CHECK_EQ_INT(s.n_baselines, 2);
	CHECK_STR(s.baselines[0], "syncsgd");
	CHECK_STR(s.baselines[1], "bf16");
	gc_diags_release(&d);
	snprintf(t, sizeof t, "%sbaseline: [syncsgd]\n", head);
	CHECK_EQ_INT(parse(t, &one, &d), GC_OK);
	gc_diags_release(&d);
	snprintf(t, sizeof t, "%sbaseline: syncsgd\n", head);
	CHECK_EQ_INT(parse(t, &sc, &d), GC_OK);
	gc_diags_release(&d);
	CHECK_STR(one.hash, sc.hash);
	CHECK(strcmp(s.hash, sc.hash) != 0);
	CHECK(sc.n_baselines == 0 && sc.baselines == NULL);
	gc_spec_release(&s);
	gc_spec_release(&one);
	gc_spec_release(&sc);

	snprintf(t, sizeof t, "%sbaseline: [syncsgd, bf17, bf16, syncsgd]\n", head);
	CHECK_EQ_INT(parse(t, &s, &d), GC_E_INVAL);
	dump(&d);
	CHECK(has_diag(&d, "t.yaml:8:21: baseline is not among the methods"));
	CHECK(has_diag(&d, "t.yaml:8:33: baseline 'syncsgd' is listed twice"));
	gc_diags_release(&d);
	snprintf(t, sizeof t, "%sbaseline: []\n", head);
	CHECK_EQ_INT(parse(t, &s, &d), GC_E_INVAL);
	CHECK(has_diag(&d, "'baseline' is an empty list"));
	gc_diags_release(&d);
	snprintf(t, sizeof t, "%sbaseline: [syncsgd, [fp16]]\n", head);
	CHECK_EQ_INT(parse(t, &s, &d), GC_E_INVAL);
	CHECK(has_diag(&d, "an item of 'baseline' is a list"));
	gc_diags_release(&d);
}

static void test_yaml_syntax_and_kinds(void)
{
	struct gc_spec s;
	struct gc_diags d;

	CHECK_EQ_INT(parse("name: [unclosed\n", &s, &d), GC_E_INVAL);
	CHECK(has_diag(&d, "not valid YAML"));
	gc_diags_release(&d);
	CHECK_EQ_INT(parse("", &s, &d), GC_E_INVAL);
	CHECK(has_diag(&d, "the file is empty"));
	gc_diags_release(&d);
	CHECK_EQ_INT(parse("- a\n- b\n", &s, &d), GC_E_INVAL);
	CHECK(has_diag(&d, "a spec is a mapping of keys"));
	gc_diags_release(&d);
	CHECK_EQ_INT(parse("local: 4\n", &s, &d), GC_E_INVAL);
	CHECK(has_diag(&d, "looks like an inventory"));
	gc_diags_release(&d);
}

/* ranks_per_node: a whole number or auto, in the hash only when set; allow_single_node
 * a boolean; malformed values are diagnosed at their line. */
static void test_placement_keys(void)
{
	static const char *const cases[][2] = {
		{ "ranks_per_node: 0\n", "ranks_per_node is not a whole number in 1..4096" },
		{ "ranks_per_node: -2\n", "ranks_per_node is not a whole number" },
		{ "ranks_per_node: two\n", "ranks_per_node is not a whole number" },
		{ "ranks_per_node: 2.5\n", "ranks_per_node is not a whole number" },
		{ "ranks_per_node: 99999\n", "ranks_per_node is not a whole number" },
		{ "ranks_per_node: [1, 2]\n", "ranks_per_node is a list" },
		{ "allow_single_node: maybe\n", "allow_single_node is not true or false" },
		{ "allow_single_node: {a: 1}\n", "allow_single_node is a mapping" },
	};
	char buf[2048];
	struct gc_spec a, b;
	struct gc_diags d;

	CHECK(parse(good, &a, &d) == GC_OK);
	CHECK_EQ_INT(a.ranks_per_node, 0);
	CHECK_EQ_INT(a.allow_single_node, 0);
	gc_diags_release(&d);
	snprintf(buf, sizeof(buf), "%sranks_per_node: auto\nallow_single_node: true\n", good);
	CHECK(parse(buf, &b, &d) == GC_OK);
	CHECK_EQ_INT(b.ranks_per_node, 0);
	CHECK_EQ_INT(b.allow_single_node, 1);
	CHECK_STR(a.hash, b.hash);   /* auto is the default; allow_single_node measures nothing */
	gc_spec_release(&b);
	gc_diags_release(&d);
	snprintf(buf, sizeof(buf), "%sranks_per_node: 2\n", good);
	CHECK(parse(buf, &b, &d) == GC_OK);
	CHECK_EQ_INT(b.ranks_per_node, 2);
	CHECK(strcmp(a.hash, b.hash) != 0);
	CHECK(strstr(b.canonical, "\nranks_per_node=2\n"));
	gc_spec_release(&a);
	gc_spec_release(&b);
	gc_diags_release(&d);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", good, cases[i][0]);
		CHECKF(parse(buf, &a, &d) == GC_E_INVAL, "'%s' accepted", cases[i][0]);
		if (!has_diag(&d, cases[i][1]))
			dump(&d);
		CHECKF(has_diag(&d, cases[i][1]), "'%s': no '%s'", cases[i][0], cases[i][1]);
		CHECKF(has_diag(&d, "t.yaml:24:"), "'%s': not at its line", cases[i][0]);
		gc_diags_release(&d);
	}
}

static void test_latency_parse(void)
{
	double v;
	gc_err e;

	CHECK(gc_latency_parse("0", &v, &e) == GC_OK && v == 0);
	CHECK(gc_latency_parse("250us", &v, &e) == GC_OK && fabs(v - 250e-6) < 1e-15);
	CHECK(gc_latency_parse("1.5ms", &v, &e) == GC_OK && fabs(v - 1.5e-3) < 1e-15);
	CHECK(gc_latency_parse("2s", &v, &e) == GC_OK && v == 2);
	CHECK(gc_latency_parse("5", &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "write a number and a unit");
	CHECK(gc_latency_parse("0.1us", &v, &e) == GC_E_INVAL);   /* would round to no delay */
	CHECK_CONTAINS(e.msg, "below 1 us");
	CHECK(gc_latency_parse("1us", &v, &e) == GC_OK && fabs(v - 1e-6) < 1e-15);
	CHECK(gc_latency_parse("11s", &v, &e) == GC_E_INVAL);
	CHECK(gc_latency_parse("-1ms", &v, &e) == GC_E_INVAL);
	CHECK(gc_latency_parse("1 ms", &v, &e) == GC_E_INVAL);
}

/* timeout: a duration as the CLI writes one, whole seconds rounded up; others refused */
static void test_timeout_units(void)
{
	static const struct { const char *v; int want; } ok[] = {
		{ "300", 300 }, { "90s", 90 }, { "2min", 120 }, { "1.5min", 90 }, { "1.2s", 2 },
		{ "1500ms", 2 },
	};
	static const char *const refused[] = { "0", "-5", "500ms", "2 hours", "2h", "abc", "20000min",
					   "[1, 2]" };
	char text[1024];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct gc_spec s;
		struct gc_diags d;
		snprintf(text, sizeof(text), "%.800stimeout: %s\n", good, ok[i].v);
		*strstr(text, "timeout: 300\n") = '#';   /* the first one becomes a comment */
		CHECKF(parse(text, &s, &d) == GC_OK, "timeout: %s refused", ok[i].v);
		dump(&d);
		CHECKF(s.timeout_s == ok[i].want, "timeout: %s gave %d", ok[i].v, s.timeout_s);
		gc_spec_release(&s);
		gc_diags_release(&d);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct gc_spec s;
		struct gc_diags d;
		snprintf(text, sizeof(text), "%.800stimeout: %s\n", good, refused[i]);
		*strstr(text, "timeout: 300\n") = '#';
		CHECKF(parse(text, &s, &d) == GC_E_INVAL, "timeout: %s accepted", refused[i]);
		CHECKF(has_diag(&d, "timeout") || has_diag(&d, "one value"), "timeout: %s", refused[i]);
		gc_diags_release(&d);
	}
}

static void test_fnv(void)
{
	/* published FNV-1a 64 test vectors */
	CHECK(gc_fnv1a64("", 0) == 0xcbf29ce484222325ull);
	CHECK(gc_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
	CHECK(gc_fnv1a64("foobar", 6) == 0x85944171f73967e8ull);
}

/* every spec in experiments/ parses without a problem */
static void test_experiments_parse(void)
{
	DIR *dir = opendir("experiments");
	struct dirent *de;
	int n = 0;

	if (!dir)
		SKIP("run from the repository root (no experiments/ here)");
	while ((de = readdir(dir))) {
		char path[512];
		struct gc_spec s;
		struct gc_diags d;
		gc_err e;
		size_t l = strlen(de->d_name);

		if (l < 5 || strcmp(de->d_name + l - 5, ".yaml") || !strncmp(de->d_name, "inventory", 9))
			continue;
		snprintf(path, sizeof(path), "experiments/%s", de->d_name);
		gc_diags_init(&d, path);
		if (gc_spec_load(path, &s, &d, &e)) {
			dump(&d);
			closedir(dir);
			CHECKF(0, "%s: %s", path, e.msg);
		}
		gc_spec_release(&s);
		gc_diags_release(&d);
		n++;
	}
	closedir(dir);
	CHECKF(n >= 1, "no spec found in experiments/");
}

static gc_rc parse_spec(const char *buf, size_t len, const char *file, struct gc_diags *d)
{
	struct gc_spec s;
	gc_rc rc = gc_spec_parse(buf, len, file, &s, d);

	gc_spec_release(&s);
	return rc;
}

static void test_bad_corpus(void)
{
	char why[1024];
	int n = corpus_check("tests/data/spec", parse_spec, why, sizeof(why));

	CHECKF(n >= 0, "%s", why);
	CHECKF(n >= 15, "only %d bad specs", n);
}

/* No message quotes what the parser refused: S3CR3T stands for a secret (a spec
 * given /etc/shadow, a password pasted in the wrong place). Each case is a spec wrong
 * in one place, with the marker there; every message must name the position instead. */
#define SPEC_HEAD "name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nbandwidth: [1gbit]\n" \
	"world_size: [2]\nbatch: [8]\niterations: 3\n"
static void test_never_quotes(void)
{
	static const char *const cases[] = {
		"root:$y$j9T$S3CR3T:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
		"root:S3CR3T:19000:0:99999:7:::\n",
		"name: t\nmodels: [S3CR3T\n",
		"name: [S3CR3T\n",
		"\"S3CR3T\n",
		SPEC_HEAD "S3CR3T: 1\n",
		SPEC_HEAD "S3CR3T: 1\nS3CR3T: 2\n",
		"name: t;S3CR3T\nmodels: [resnet50]\nmethods: [syncsgd]\nbandwidth: [1gbit]\n"
		"world_size: [2]\nbatch: [8]\niterations: 3\n",
		"name: t\nmodels: [S3CR3T]\nmethods: [syncsgd]\nbandwidth: [1gbit]\n"
		"world_size: [2]\nbatch: [8]\niterations: 3\n",
		"name: t\nmodels: [resnet50]\nmethods: [S3CR3T]\nbandwidth: [1gbit]\n"
		"world_size: [2]\nbatch: [8]\niterations: 3\n",
		"name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nbandwidth: [S3CR3T]\n"
		"world_size: [2]\nbatch: [8]\niterations: 3\n",
		"name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nbandwidth: [1gbit]\n"
		"world_size: [S3CR3T]\nbatch: [8]\niterations: 3\n",
		"name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nbandwidth: [1gbit]\n"
		"world_size: [2]\nbatch: [8]\niterations: S3CR3T\n",
		SPEC_HEAD "latency: [S3CR3T]\n",
		SPEC_HEAD "ranks_per_node: S3CR3T\n",
		SPEC_HEAD "allow_single_node: S3CR3T\n",
		SPEC_HEAD "backend: S3CR3T\n",
		SPEC_HEAD "compute_scale: S3CR3T\n",
		SPEC_HEAD "workload: S3CR3T\n",
		SPEC_HEAD "workload: train:S3CR3T\n",
		SPEC_HEAD "baseline: S3CR3T\n",
		SPEC_HEAD "warmup: S3CR3T\n",
		SPEC_HEAD "exclude:\n  - {bandwidth: S3CR3T}\n",
		SPEC_HEAD "exclude:\n  - {S3CR3T: 1gbit}\n",
		SPEC_HEAD "zip: [[S3CR3T, model]]\n",
		SPEC_HEAD "notify:\n  - {type: S3CR3T, url_env: X}\n",
		SPEC_HEAD "notify:\n  - {type: webhook, url_env: S3CR3T$}\n",
		"name: t\nmodels: [resnet50]\nmethods: [{powersgd: {S3CR3T: 1}}]\n"
		"bandwidth: [1gbit]\nworld_size: [2]\nbatch: [8]\niterations: 3\n",
		"name: t\nmodels: [resnet50]\nmethods: [{powersgd: {rank: S3CR3T}}]\n"
		"bandwidth: [1gbit]\nworld_size: [2]\nbatch: [8]\niterations: 3\n",
		"name: t\nmodels: [resnet50]\nmethods: [{topk: {ratio: S3CR3T}}]\n"
		"bandwidth: [1gbit]\nworld_size: [2]\nbatch: [8]\niterations: 3\n",
		"name: t\nworkload: train\nmodels: [mlp]\nmethods: [syncsgd]\nbandwidth: [1gbit]\n"
		"world_size: [2]\nbatch: [8]\niterations: 3\ndata: S3CR3T\n"
		"target: {accuracy: S3CR3T}\neval_every: S3CR3T\n",
		"name: t\nworkload: train\nmodels: [mlp]\nmethods: [syncsgd]\nbandwidth: [1gbit]\n"
		"world_size: [2]\nbatch: [8]\niterations: 3\ntarget: {S3CR3T: 1}\n",
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gc_spec sp;
		struct gc_diags d;
		int rc = parse(cases[i], &sp, &d);
		if (rc == GC_OK)
			gc_spec_release(&sp);
		CHECKF(rc != GC_OK && d.n > 0, "case %zu accepted", i);
		for (size_t k = 0; k < d.n; k++) {
			CHECKF(!strstr(d.msg[k], "S3CR3T"), "case %zu quotes the file: %s", i,
			       d.msg[k]);
			CHECKF(!strncmp(d.msg[k], "t.yaml:", 7), "case %zu: no position: %s", i,
			       d.msg[k]);
		}
		gc_diags_release(&d);
	}
}

int main(void)
{
	GCT_SUITE("spec");
	GCT_RUN(test_good);
	GCT_RUN(test_timeout_units);
	GCT_RUN(test_hash_stable);
	GCT_RUN(test_train_target);
	GCT_RUN(test_all_errors_at_once);
	GCT_RUN(test_baseline_ambiguous_and_dup);
	GCT_RUN(test_baseline_list);
	GCT_RUN(test_yaml_syntax_and_kinds);
	GCT_RUN(test_latency_parse);
	GCT_RUN(test_placement_keys);
	GCT_RUN(test_fnv);
	GCT_RUN(test_experiments_parse);
	GCT_RUN(test_bad_corpus);
	GCT_RUN(test_never_quotes);
	return gct_finish();
}

/* orchestrator/spec/spec.c: the sweep spec: top level, axes, canonical text and hash. */
#include "spec.h"
#include "spec_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "opts.h"
#include "strutil.h"
#include "netem/rate.h"
#include "formats/arch.h"

static const char *const top_keys[] = {
	"name", "description", "workload", "models", "methods", "baseline", "bandwidth",
	"latency", "world_size", "batch", "iterations", "warmup", "repeats", "timeout",
	"compute_scale", "backend", "exclude", "zip", "notify", "target", "eval_every", "data",
	"ranks_per_node", "allow_single_node", "command", "stacks", "files", "slow", "python",
	"env", "uplink", "oversubscription", "background",
};
#define N_TOP (sizeof(top_keys) / sizeof(top_keys[0]))

static const char *const axis_names[GC_AX__COUNT] = {
	"model", "method", "params", "bandwidth", "latency", "world_size", "batch",
	"backend", "compute_scale", "stack", "uplink", "slow",
};

const char *gc_axis_name(enum gc_axis a)
{
	return (unsigned)a < GC_AX__COUNT ? axis_names[a] : "?";
}

void spec_num(double v, char *buf, size_t n)
{
	snprintf(buf, n, "%.9g", v);
}

gc_rc gc_latency_parse(const char *s, double *out, gc_err *e)
{
	static const struct { const char *u; double mul; } units[] = {
		{ "us", 1e-6 }, { "ms", 1e-3 }, { "s", 1 },
	};
	char num[64];
	size_t i = 0;
	double v;

	while (s[i] && (isdigit((unsigned char)s[i]) || s[i] == '.'))
		i++;
	if (i == 0 || i >= sizeof(num))
		goto bad;
	memcpy(num, s, i);
	num[i] = 0;
	if (gc_parse_double(num, &v))
		goto bad;
	if (!s[i] && v == 0) {
		*out = 0;
		return GC_OK;
	}
	for (size_t k = 0; k < 3; k++) {
		if (strcmp(s + i, units[k].u))
			continue;
		v *= units[k].mul;
		if (v > 10)
			return gc_fail(e, GC_E_INVAL, "latency is over 10 s; use at most 10s");
		if (v > 0 && v < 0.5e-6)   /* netem's delay is whole microseconds */
			return gc_fail(e, GC_E_INVAL, "latency is below 1 us, the resolution of a "
				       "netem delay; write 0 or at least 1us");
		*out = v;
		return GC_OK;
	}
bad:
	return gc_fail(e, GC_E_INVAL, "latency is not a duration; write a number and a "
		       "unit, e.g. 0, 250us, 1.5ms or 2s");
}

size_t spec_items(struct spec_ctx *c, yaml_node_t *v, const char *key, yaml_node_t ***items)
{
	size_t n = v->type == YAML_SEQUENCE_NODE ? gc_yaml_seq_len(v) : 1, k = 0;
	yaml_node_t **out;

	*items = NULL;
	if (v->type == YAML_MAPPING_NODE) {
		gc_diag(c->d, v, "'%s' is a mapping; write a value or a list, e.g. %s: [a, b]",
			key, key);
		return 0;
	}
	if (n == 0) {
		gc_diag(c->d, v, "'%s' is an empty list; give at least one value", key);
		return 0;
	}
	out = calloc(n, sizeof(*out));
	if (!out) {
		c->d->oom = 1;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *it = v->type == YAML_SEQUENCE_NODE ? gc_yaml_seq_at(c->doc, v, i) : v;
		if (!gc_yaml_text(it) || !*gc_yaml_text(it))
			gc_diag(c->d, it, "an item of '%s' is %s; write a plain value", key,
				gc_yaml_text(it) ? "empty" : gc_yaml_kind(it));
		else
			out[k++] = it;
	}
	*items = out;
	return k;
}

/* --- one value of each axis ------------------------------------------------------- */

static int parse_model(struct spec_ctx *c, yaml_node_t *n, const char *t, void *out)
{
	const char *const *names = gc_arch_names();
	const char *hint;
	size_t nn = 0;

	while (names[nn])
		nn++;
	for (size_t i = 0; i < nn; i++)
		if (!strcmp(names[i], t))
			return (*(char **)out = strdup(t)) ? 0 : -1;
	if (!strncmp(t, "csv:", 4) && gc_is_safe_token(t + 4))
		return (*(char **)out = strdup(t)) ? 0 : -1;
	hint = gc_did_you_mean(t, names, nn);
	if (hint)
		gc_diag(c->d, n, "unknown model; did you mean '%s'?", hint);
	else
		gc_diag(c->d, n, "unknown model; use a built-in one (resnet50, resnet101, "
			"vgg16, bert-base, gpt2-small) or csv:PATH to a parameter list");
	return -1;
}

/* workload: train: the models gcbench-worker trains (worker/wk.h) */
static int parse_train_model(struct spec_ctx *c, yaml_node_t *n, const char *t, void *out)
{
	if (!strcmp(t, "mlp") || !strcmp(t, "cnn"))
		return (*(char **)out = strdup(t)) ? 0 : -1;
	gc_diag(c->d, n, "model '%s' is not a trained model; with workload: train use mlp or "
		"cnn (replay models need workload: replay)", t);
	return -1;
}

static int parse_bw(struct spec_ctx *c, yaml_node_t *n, const char *t, void *out)
{
	char hint[160];
	gc_err e;

	if (!strncmp(t, "trace:", 6))
		return spec_parse_trace(c, n, t + 6, out);
	/* not e.msg: it quotes the text, and a spec's text is never quoted */
	if (gc_bw_parse(t, 0, out, &e)) {
		gc_diag(c->d, n, "bandwidth is %s", gc_bw_hint(t, 0, hint, sizeof hint));
		return -1;
	}
	return 0;
}

static int parse_latency(struct spec_ctx *c, yaml_node_t *n, const char *t, void *out)
{
	gc_err e;

	if (gc_latency_parse(t, out, &e)) {
		gc_diag(c->d, n, "%s", e.msg);
		return -1;
	}
	return 0;
}

static int parse_int_range(struct spec_ctx *c, yaml_node_t *n, const char *t, int *out,
			   int64_t lo, int64_t hi, const char *what)
{
	int64_t v;

	if (gc_parse_i64(t, &v) || v < lo || v > hi) {
		gc_diag(c->d, n, "%s is not a whole number in %lld..%lld; write e.g. %lld",
			what, (long long)lo, (long long)hi, (long long)(lo > 1 ? lo : 1));
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_world(struct spec_ctx *c, yaml_node_t *n, const char *t, void *out)
{
	return parse_int_range(c, n, t, out, 1, 65536, "world_size");
}

static int parse_batch(struct spec_ctx *c, yaml_node_t *n, const char *t, void *out)
{
	return parse_int_range(c, n, t, out, 1, 1 << 20, "batch");
}

static int parse_backend(struct spec_ctx *c, yaml_node_t *n, const char *t, void *out)
{
	if (strcmp(t, "mpi") && strcmp(t, "nccl")) {
		gc_diag(c->d, n, "backend is unknown; use mpi (CPU ranks) or nccl (GPUs)");
		return -1;
	}
	return (*(char **)out = strdup(t)) ? 0 : -1;
}

static int parse_scale(struct spec_ctx *c, yaml_node_t *n, const char *t, void *out)
{
	double v;

	if (gc_parse_double(t, &v) || !(v > 0 && v <= 1000)) {
		gc_diag(c->d, n, "compute_scale is not a number in (0, 1000]; write e.g. 1 "
			"(measured speed) or 4 (4x faster compute)");
		return -1;
	}
	*(double *)out = v;
	return 0;
}

/* 1 when key is named in a group of the spec's zip (whose values may repeat: the
 * points are the tuples; gc_run_plan_load checks those for duplicate keys) */
static int zipped(struct spec_ctx *c, const char *key)
{
	yaml_node_t *z = gc_yaml_get(c->doc, c->root, "zip");

	for (size_t g = 0; g < gc_yaml_seq_len(z); g++) {
		yaml_node_t *grp = gc_yaml_seq_at(c->doc, z, g);
		for (size_t k = 0; k < gc_yaml_seq_len(grp); k++) {
			const char *t = gc_yaml_text(gc_yaml_seq_at(c->doc, grp, k));
			if (t && !strcmp(t, key))
				return 1;
		}
	}
	return 0;
}

/* Value number n of an axis (just parsed into out + n * elem from items[i]) equals an
 * earlier one: diagnosed (two values that give the same points, with the same keys)
 * and dropped. Zipped axes may repeat values. */
static int axis_duplicate(struct spec_ctx *c, const char *key, yaml_node_t **items, size_t i,
			  char *out, size_t n, size_t elem, int strings)
{
	char *v = out + n * elem;

	if (zipped(c, key))
		return 0;
	for (size_t j = 0; j < n; j++) {
		char *w = out + j * elem;
		if (strings ? strcmp(*(char **)v, *(char **)w) : memcmp(v, w, elem))
			continue;
		gc_diag(c->d, items[i], "%s '%s' is the same value as an earlier item of '%s', so "
			"every point would run twice under one key; remove one", key,
			gc_yaml_text(items[i]), key);
		if (strings)
			free(*(char **)v);
		return 1;
	}
	return 0;
}

typedef int (*axis_parser)(struct spec_ctx *, yaml_node_t *, const char *, void *);

/* Parse key's values into a malloc'ed array of elem-sized values; a missing key uses
 * dflt (NULL: required). */
static void parse_axis(struct spec_ctx *c, const char *key, const char *dflt, size_t elem,
		       axis_parser fn, void **arr, size_t *n)
{
	yaml_node_t *v = gc_yaml_get(c->doc, c->root, key), **items = NULL, fake;
	size_t k;
	char *out;

	if (!v && !dflt) {
		gc_diag(c->d, c->root, "the spec has no '%s'; add it (see docs/spec.md)", key);
		return;
	}
	if (!v) {
		memset(&fake, 0, sizeof(fake));
		fake.type = YAML_SCALAR_NODE;
		fake.data.scalar.value = (yaml_char_t *)(uintptr_t)dflt;
		fake.start_mark = c->root->start_mark;
		v = &fake;
	}
	k = spec_items(c, v, key, &items);
	out = calloc(k ? k : 1, elem);
	if (!out) {
		c->d->oom = 1;
		free(items);
		return;
	}
	for (size_t i = 0; i < k; i++)
		if (fn(c, items[i], gc_yaml_text(items[i]), out + *n * elem) == 0 &&
		    !axis_duplicate(c, key, items, i, out, *n, elem,
				    fn == parse_model || fn == parse_train_model || fn == parse_backend))
			(*n)++;
	*arr = out;
	free(items);
}

/* --- scalars ---------------------------------------------------------------------- */

static const char *scalar(struct spec_ctx *c, const char *key, int required)
{
	yaml_node_t *v = gc_yaml_get(c->doc, c->root, key);
	const char *t = gc_yaml_text(v);

	if (!v && required)
		gc_diag(c->d, c->root, "the spec has no '%s'; add it (see docs/spec.md)", key);
	else if (v && !t)
		gc_diag(c->d, v, "'%s' is %s; write one value", key, gc_yaml_kind(v));
	return t;
}

static int scalar_int(struct spec_ctx *c, const char *key, int dflt, int lo, int hi)
{
	const char *t = scalar(c, key, dflt < 0);
	int v = dflt;

	if (t)
		parse_int_range(c, gc_yaml_get(c->doc, c->root, key), t, &v, lo, hi, key);
	return v;
}

/* A duration as the CLI writes one (gc_opts_seconds: 90, 90s, 1.5min, 500ms) in whole
 * seconds, rounded up, lo..hi. */
static int scalar_seconds(struct spec_ctx *c, const char *key, int dflt, int lo, int hi)
{
	const char *t = scalar(c, key, 0);
	double x;
	gc_err e;

	if (!t)
		return dflt;
	if (gc_opts_seconds(key, t, lo, hi, &x, &e)) {
		gc_diag(c->d, gc_yaml_get(c->doc, c->root, key), "%s '%.40s' is not a duration "
			"from %ds to %ds; write e.g. %s: 300 (seconds), 90s or 10min", key, t, lo,
			hi, key);
		return dflt;
	}
	return (int)x < x ? (int)x + 1 : (int)x;
}

static void parse_name(struct spec_ctx *c)
{
	const char *t = scalar(c, "name", 1);

	if (t && (!gc_is_safe_token(t) || strchr(t, '/')))
		gc_diag(c->d, gc_yaml_get(c->doc, c->root, "name"), "name has characters "
			"other than letters, digits and ._:@%%+=,-; write e.g. quickstart");
	c->s->name = strdup(t ? t : "");
	t = scalar(c, "description", 0);
	c->s->description = strdup(t ? t : "");
}

static void parse_workload(struct spec_ctx *c)
{
	const char *t = scalar(c, "workload", 0);
	yaml_node_t *n = gc_yaml_get(c->doc, c->root, "workload");

	if (!t)
		t = "replay";
	if (!strcmp(t, "train:mlp") || !strcmp(t, "train:cnn"))
		gc_diag(c->d, n, "workload '%s' is the old form; write workload: train and "
			"models: [%s]", t, t + 6);
	else if (strcmp(t, "replay") && strcmp(t, "train") && strcmp(t, "command") &&
		 strcmp(t, "ddp"))
		gc_diag(c->d, n, "workload is unknown; use replay (real architectures, "
			"emulated compute), train (models mlp, cnn trained on real data), ddp "
			"(PyTorch DDP hooks, yours among them) or command (your own program)");
	c->s->ddp = !strcmp(t, "ddp");
	c->s->workload = strdup(c->s->ddp ? "command" : t);
}

static void parse_counts(struct spec_ctx *c)
{
	struct gc_spec *s = c->s;

	s->iterations = scalar_int(c, "iterations", -1, 1, 1000000);
	s->warmup = scalar_int(c, "warmup", 2, 0, 1000000);
	s->repeats = scalar_int(c, "repeats", 1, 1, 1000);
	s->timeout_s = scalar_seconds(c, "timeout", 600, 1, 7 * 86400);
}

static void parse_axes(struct spec_ctx *c)
{
	struct gc_spec *s = c->s;
	int train = s->workload && !strcmp(s->workload, "train");
	int cmd = s->workload && !strcmp(s->workload, "command");

	parse_axis(c, "models", NULL, sizeof(char *),
		   cmd ? spec_command_model : train ? parse_train_model : parse_model,
		   (void **)&s->models, &s->n_models);
	parse_axis(c, "bandwidth", NULL, sizeof(uint64_t), parse_bw, (void **)&s->bandwidth,
		   &s->n_bandwidth);
	parse_axis(c, "latency", "0", sizeof(double), parse_latency, (void **)&s->latency,
		   &s->n_latency);
	parse_axis(c, "world_size", NULL, sizeof(int), parse_world, (void **)&s->world_size,
		   &s->n_world_size);
	parse_axis(c, "batch", NULL, sizeof(int), parse_batch, (void **)&s->batch,
		   &s->n_batch);
	parse_axis(c, "backend", "mpi", sizeof(char *), parse_backend, (void **)&s->backend,
		   &s->n_backend);
	parse_axis(c, "compute_scale", "1", sizeof(double), parse_scale,
		   (void **)&s->compute_scale, &s->n_compute_scale);
}

/* data: digits | generated (training workloads only; default digits). */
static void parse_data(struct spec_ctx *c, int train)
{
	yaml_node_t *n = gc_yaml_get(c->doc, c->root, "data");
	const char *t = scalar(c, "data", 0);

	snprintf(c->s->data, sizeof(c->s->data), "digits");
	if (!n)
		return;
	if (!train)
		gc_diag(c->d, n, "'data' applies to workload: train only");
	else if (t && strcmp(t, "digits") && strcmp(t, "generated"))
		gc_diag(c->d, n, "data is unknown; use digits (python3-sklearn's, built into "
			"gcbench-worker) or generated (Gaussian clusters)");
	else if (t)
		snprintf(c->s->data, sizeof(c->s->data), "%s", t);
}

/* target: {accuracy: A} or {loss: L}; eval_every: K; data. Training workloads only. */
static void parse_target(struct spec_ctx *c)
{
	yaml_node_t *v = gc_yaml_get(c->doc, c->root, "target");
	yaml_node_t *ev = gc_yaml_get(c->doc, c->root, "eval_every");
	int train = c->s->workload && !strcmp(c->s->workload, "train");
	static const char *const keys[] = { "accuracy", "loss" };
	const char *t;
	double x;

	parse_data(c, train);
	c->s->eval_every = scalar_int(c, "eval_every", GC_SPEC_EVAL_EVERY, 1, 1000000);
	if ((v || ev) && !train)
		gc_diag(c->d, v ? v : ev, "'%s' applies to workload: train only", v ? "target" : "eval_every");
	if (!v || !train)
		return;
	if (v->type != YAML_MAPPING_NODE ||
	    v->data.mapping.pairs.top - v->data.mapping.pairs.start != 1) {
		gc_diag(c->d, v, "target must be a mapping of one key, not %s; write "
			"target: {accuracy: 0.95} or target: {loss: 0.3}",
			v->type == YAML_MAPPING_NODE ? "several" : gc_yaml_kind(v));
		return;
	}
	gc_yaml_check_keys(c->doc, v, keys, 2, "target", c->d);
	for (int i = 0; i < 2; i++) {
		yaml_node_t *n = gc_yaml_get(c->doc, v, keys[i]);
		if (!n)
			continue;
		t = gc_yaml_text(n);
		if (!t || gc_parse_double(t, &x) || !(i ? x > 0 && x < 1e6 : x > 0 && x <= 1)) {
			gc_diag(c->d, n, "target %s%s%s is not a number in %s", keys[i],
				t ? "" : ", ", t ? "" : gc_yaml_kind(n),
				i ? "(0, 1e6)" : "(0, 1], e.g. 0.95");
			return;
		}
		snprintf(c->s->target_metric, sizeof(c->s->target_metric), "%s", keys[i]);
		c->s->target_value = x;
	}
}

/* One baseline t (node n, NULL for the default): among the methods, one variant. */
static void check_one_baseline(struct spec_ctx *c, yaml_node_t *n, const char *t)
{
	size_t found = 0;

	for (size_t i = 0; i < c->s->n_methods; i++)
		found += !strcmp(c->s->methods[i].name, t);
	if (found == 0 && c->s->n_methods)
		gc_diag(c->d, n ? n : c->root, "baseline%s is not among the methods; add it "
			"to 'methods' or name one of them as baseline", n ? "" : " syncsgd (the default)");
	else if (found > 1)
		gc_diag(c->d, n ? n : c->root, "baseline '%s' has %zu parameter sets; give the "
			"baseline method one set of parameters", t, found);
}

/* baseline: [a, b, ...]: the first is s->baseline, all of them s->baselines. */
static void check_baseline_list(struct spec_ctx *c, yaml_node_t *n)
{
	yaml_node_t **items = NULL;
	size_t k = spec_items(c, n, "baseline", &items);

	c->s->baselines = calloc(k ? k : 1, sizeof(char *));
	if (!c->s->baselines) {
		c->d->oom = 1;
		free(items);
		return;
	}
	for (size_t i = 0; i < k; i++) {
		const char *t = gc_yaml_text(items[i]);
		size_t j;
		for (j = 0; j < c->s->n_baselines && strcmp(c->s->baselines[j], t); j++)
			;
		if (j < c->s->n_baselines) {
			gc_diag(c->d, items[i], "baseline '%s' is listed twice; name each once", t);
			continue;
		}
		check_one_baseline(c, items[i], t);
		if (!(c->s->baselines[c->s->n_baselines] = strdup(t)))
			c->d->oom = 1;
		else
			c->s->n_baselines++;
	}
	c->s->baseline = strdup(c->s->n_baselines ? c->s->baselines[0] : "");
	free(items);
}

static void check_baseline(struct spec_ctx *c)
{
	yaml_node_t *n = gc_yaml_get(c->doc, c->root, "baseline");
	const char *t;

	if (n && n->type == YAML_SEQUENCE_NODE) {
		check_baseline_list(c, n);
		return;
	}
	t = scalar(c, "baseline", 0);
	if (!t && c->s->workload && !strcmp(c->s->workload, "command") && !c->s->ddp &&
	    c->s->n_methods) {
		gc_diag(c->d, c->root, "workload: command needs 'baseline', the method label the "
			"others are compared with; add e.g. baseline: %s", c->s->methods[0].name);
		c->s->baseline = strdup("");
		return;
	}
	if (!t)
		t = "syncsgd";
	c->s->baseline = strdup(t);
	check_one_baseline(c, n, t);
}

/* --- validation of the whole --------------------------------------------------- */

/* 0 when the document cannot be a spec at all (then nothing else is checked) */
static int check_root(struct spec_ctx *c)
{
	if (c->root->type != YAML_MAPPING_NODE) {
		gc_diag(c->d, c->root, "a spec is a mapping of keys (name:, models:, ...), not "
			"%s; see experiments/quickstart.yaml", gc_yaml_kind(c->root));
		return 0;
	}
	if (gc_yaml_get(c->doc, c->root, "hosts") || gc_yaml_get(c->doc, c->root, "local")) {
		gc_diag(c->d, c->root, "this looks like an inventory (hosts:/local:), not a sweep "
			"spec; pass the sweep spec here and the inventory with --inventory");
		return 0;
	}
	gc_yaml_check_keys(c->doc, c->root, top_keys, N_TOP, "the spec", c->d);
	return 1;
}

static void parse_all(struct spec_ctx *c)
{
	yaml_node_t *v, *v2, *vs;

	if (!check_root(c))
		return;
	parse_name(c);
	parse_workload(c);
	parse_counts(c);
	parse_axes(c);
	parse_target(c);
	spec_parse_placement(c);
	spec_parse_command(c);
	v = gc_yaml_get(c->doc, c->root, "methods");
	if (!v)
		gc_diag(c->d, c->root, "the spec has no 'methods'; add e.g. methods: [syncsgd, "
			"signsgd]");
	else
		spec_parse_methods(c, v);
	if (v && c->s->ddp)
		spec_ddp_methods(c, v);
	check_baseline(c);
	spec_parse_uplink(c);   /* before exclude: its entries may name uplink values */
	if ((vs = gc_yaml_get(c->doc, c->root, "slow")))   /* likewise slow values */
		spec_parse_slow(c, vs);
	if ((v = gc_yaml_get(c->doc, c->root, "exclude")))
		spec_parse_exclude(c, v);
	if ((v = gc_yaml_get(c->doc, c->root, "zip")))
		spec_parse_zip(c, v);
	if ((v = gc_yaml_get(c->doc, c->root, "notify")))
		spec_parse_notify(c, v);
	for (size_t i = 0; c->s->n_traces && i < c->s->n_latency; i++)
		if (c->s->latency[i] > 0) {   /* the player's cap holds no netem delay */
			gc_diag(c->d, c->root, "a bandwidth trace does not go with a latency yet (the "
				"trace player's cap holds no delay); give the trace's points latency 0");
			break;
		}
	if ((v2 = gc_yaml_get(c->doc, c->root, "background")))
		spec_parse_background(c, v2);
	if (vs && c->s->n_traces && gc_spec_has_slow(c->s))   /* every host plays the same trace */
		gc_diag(c->d, vs, "'slow' and a bandwidth trace do not go together yet (every "
			"host plays the same trace); give 'slow' fixed caps");
}

/* --- canonical text ----------------------------------------------------------- */

static void canon_nums(gc_buf *b, const char *key, const double *v, size_t n)
{
	char num[40];

	gc_buf_addf(b, "%s=", key);
	for (size_t i = 0; i < n; i++) {
		spec_num(v[i], num, sizeof(num));
		gc_buf_addf(b, "%s%s", i ? "," : "", num);
	}
	gc_buf_addf(b, "\n");
}

static void canon_axes(gc_buf *b, const struct gc_spec *s)
{
	gc_buf_addf(b, "models=");
	for (size_t i = 0; i < s->n_models; i++)
		gc_buf_addf(b, "%s%s", i ? "," : "", s->models[i]);
	gc_buf_addf(b, "\nmethods=");
	for (size_t i = 0; i < s->n_methods; i++)
		gc_buf_addf(b, "%s%s", i ? ";" : "", s->methods[i].label);
	gc_buf_addf(b, "\nbandwidth=");
	for (size_t i = 0; i < s->n_bandwidth; i++)
		if (gc_spec_bw_trace(s, s->bandwidth[i]))
			gc_buf_addf(b, "%strace:%s@%s", i ? "," : "",
				    gc_spec_bw_trace(s, s->bandwidth[i])->name,
				    gc_spec_bw_trace(s, s->bandwidth[i])->digest);
		else
			gc_buf_addf(b, "%s%llu", i ? "," : "", (unsigned long long)s->bandwidth[i]);
	gc_buf_addf(b, "\n");
	canon_nums(b, "latency", s->latency, s->n_latency);
	gc_buf_addf(b, "world_size=");
	for (size_t i = 0; i < s->n_world_size; i++)
		gc_buf_addf(b, "%s%d", i ? "," : "", s->world_size[i]);
	gc_buf_addf(b, "\nbatch=");
	for (size_t i = 0; i < s->n_batch; i++)
		gc_buf_addf(b, "%s%d", i ? "," : "", s->batch[i]);
	gc_buf_addf(b, "\nbackend=");
	for (size_t i = 0; i < s->n_backend; i++)
		gc_buf_addf(b, "%s%s", i ? "," : "", s->backend[i]);
	gc_buf_addf(b, "\n");
	canon_nums(b, "compute_scale", s->compute_scale, s->n_compute_scale);
}

static void canon_rest(gc_buf *b, const struct gc_spec *s)
{
	gc_buf_addf(b, "exclude=");
	for (size_t i = 0; i < s->n_exclude; i++) {
		gc_buf_addf(b, "%s", i ? "|" : "");
		for (int a = 0, first = 1; a < GC_AX__COUNT; a++) {
			for (size_t k = 0; k < s->exclude[i].n[a]; k++, first = 0)
				gc_buf_addf(b, "%s%s=%s", first ? "" : "&", axis_names[a],
					    s->exclude[i].vals[a][k]);
		}
	}
	gc_buf_addf(b, "\nzip=");
	for (size_t i = 0; i < s->n_zip; i++) {
		gc_buf_addf(b, "%s", i ? "|" : "");
		for (int a = 0, first = 1; a < GC_AX__COUNT; a++)
			if (s->zip[i] & (1u << a)) {
				gc_buf_addf(b, "%s%s", first ? "" : "+", axis_names[a]);
				first = 0;
			}
	}
	gc_buf_addf(b, "\n");
}

static gc_rc make_canonical(struct gc_spec *s)
{
	gc_buf b = GC_BUF_INIT;
	uint64_t h;
	size_t len;

	gc_buf_addf(&b, "gcbench-spec 1\nworkload=%s\n", s->workload);
	canon_axes(&b, s);
	gc_buf_addf(&b, "baseline=%s", s->baseline);
	for (size_t i = 1; i < s->n_baselines; i++)     /* a list: the others (new hashes) */
		gc_buf_addf(&b, ",%s", s->baselines[i]);
	gc_buf_addf(&b, "\niterations=%d\nwarmup=%d\nrepeats=%d\n",
		    s->iterations, s->warmup, s->repeats);
	if (!strcmp(s->workload, "train")) {   /* replay specs keep their hashes */
		char num[32];
		spec_num(s->target_value, num, sizeof(num));
		gc_buf_addf(&b, "data=%s\neval_every=%d\ntarget=%s:%s\n", s->data, s->eval_every,
			    s->target_metric, *s->target_metric ? num : "");
	}
	canon_rest(&b, s);
	if (s->ranks_per_node)   /* specs without it keep their hashes */
		gc_buf_addf(&b, "ranks_per_node=%d\n", s->ranks_per_node);
	for (size_t i = 0; i < s->n_slow; i++) {   /* likewise; a line per value */
		char slow[GC_SPEC_MAX_SLOW * 80];
		spec_slow_text(&s->slow[i], slow, sizeof(slow));
		gc_buf_addf(&b, "slow=%s\n", slow);
	}
	if (s->n_uplink) {       /* likewise */
		char t[48];
		gc_buf_addf(&b, "uplink=");
		for (size_t i = 0; i < s->n_uplink; i++) {
			spec_uplink_text(&s->uplink[i], t, sizeof(t));
			gc_buf_addf(&b, "%s%s", i ? "," : "", t);
		}
		gc_buf_addf(&b, "\n");
	}
	if (s->bg.flows) {       /* likewise */
		char bg[600];
		spec_bg_text(s, bg, sizeof(bg));
		gc_buf_addf(&b, "background=%s\n", bg);
	}
	if (!strcmp(s->workload, "command")) {   /* arguments have no spaces (spec_command.h) */
		for (size_t k = 0; k < s->n_stacks; k++) {
			const struct gc_spec_stack *st = &s->stacks[k];
			if (*st->name)   /* command: alone keeps the hash it had before stacks: */
				gc_buf_addf(&b, "stack=%s\n", st->name);
			gc_buf_addf(&b, "command=");
			for (size_t i = 0; i < st->n_argv; i++)
				gc_buf_addf(&b, "%s%s", i ? " " : "", st->argv[i]);
			gc_buf_addf(&b, "\n");
		}
		gc_buf_addf(&b, "files=");
		for (size_t i = 0; i < s->n_files; i++)
			gc_buf_addf(&b, "%s%s:%s", i ? "," : "", s->files[i].name, s->files[i].digest);
		gc_buf_addf(&b, "\n");
		if (s->ddp)   /* only where used: other specs keep their hashes */
			gc_buf_addf(&b, "python=%s\n", s->python);
		for (size_t i = 0; i < s->n_env; i++)
			gc_buf_addf(&b, "env=%s\n", s->env[i]);
	}
	len = b.len;
	s->canonical = gc_buf_take(&b);
	if (!s->canonical)
		return GC_E_NOMEM;
	h = gc_fnv1a64(s->canonical, len);
	snprintf(s->hash, sizeof(s->hash), "%016llx", (unsigned long long)h);
	return GC_OK;
}

/* --- entry points --------------------------------------------------------------- */

gc_rc gc_spec_parse(const char *buf, size_t len, const char *file, struct gc_spec *s,
		    struct gc_diags *d)
{
	yaml_document_t doc;
	struct spec_ctx c = { &doc, NULL, d, s };
	gc_rc rc;

	memset(s, 0, sizeof(*s));
	rc = gc_yaml_load(buf, len, &doc, d);
	if (rc)
		return rc;
	c.root = yaml_document_get_root_node(&doc);
	parse_all(&c);
	yaml_document_delete(&doc);
	gc_diags_sort(d);
	if (!d->n && !d->oom) {
		s->text = strndup(buf, len);
		if (!s->text || make_canonical(s))
			d->oom = 1;
	}
	if (d->n || d->oom) {
		gc_spec_release(s);
		return d->n ? GC_E_INVAL : GC_E_NOMEM;
	}
	return GC_OK;
}

gc_rc gc_spec_load(const char *path, struct gc_spec *s, struct gc_diags *d, gc_err *e)
{
	char *buf;
	size_t len;
	gc_rc rc;

	memset(s, 0, sizeof(*s));
	rc = gc_read_file(path, &buf, &len, e);
	if (rc)
		return rc;
	rc = gc_spec_parse(buf, len, path, s, d);
	free(buf);
	if (rc)
		gc_diags_result(d, e);
	return rc;
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void gc_spec_release(struct gc_spec *s)
{
	if (!s)
		return;
	free(s->name);
	free(s->description);
	free(s->workload);
	for (size_t i = 0; s->stacks && i < s->n_stacks; i++)
		free_strs(s->stacks[i].argv, s->stacks[i].n_argv);
	free(s->stacks);
	for (size_t i = 0; s->files && i < s->n_files; i++)
		free(s->files[i].src);
	free(s->files);
	free_strs(s->models, s->n_models);
	free(s->methods);
	free(s->baseline);
	free_strs(s->baselines, s->n_baselines);
	free(s->bandwidth);
	for (size_t i = 0; i < s->n_traces; i++) {
		free(s->traces[i].src);
		free(s->traces[i].text);
	}
	free(s->latency);
	free(s->world_size);
	free(s->batch);
	free_strs(s->backend, s->n_backend);
	free(s->compute_scale);
	for (size_t i = 0; s->slow && i < s->n_slow; i++) {
		for (size_t k = 0; k < s->slow[i].n; k++)
			free(s->slow[i].host[k].host);
		free(s->slow[i].host);
	}
	free(s->slow);
	free(s->uplink);
	free(s->bg.pairs);
	for (size_t i = 0; i < s->n_exclude; i++)
		for (int a = 0; a < GC_AX__COUNT; a++)
			free_strs(s->exclude[i].vals[a], s->exclude[i].n[a]);
	free(s->exclude);
	for (size_t i = 0; i < s->n_notify; i++)
		free((char *)s->notify[i].url_env);
	free(s->notify);
	free(s->canonical);
	free(s->text);
	memset(s, 0, sizeof(*s));
}

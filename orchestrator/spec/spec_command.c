/* orchestrator/spec/spec_command.c: workload: command: the argv template, files: and
 * the free method labels with their parameters (spec_command.h). */
#include "spec.h"
#include "spec_command.h"
#include "spec_internal.h"
#include "envvars_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "strutil.h"

#define MAX_KEYS 8
#define MAX_VARIANTS 4096

static const char *const placeholders[] = {
	"method", "params", "model", "iterations", "warmup", "batch", "world_size", "backend",
	"records", "bin", "method_arg", "python",
};
#define N_PH (sizeof(placeholders) / sizeof(placeholders[0]))

static int in_set(int ch, const char *extra)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       (ch && strchr(extra, ch));
}

int gc_command_placeholder(const char *name, size_t len)
{
	for (size_t i = 0; i < N_PH; i++)
		if (strlen(placeholders[i]) == len && !strncmp(placeholders[i], name, len))
			return 1;
	return 0;
}

const char *gc_command_arg_problem(const char *a, int first)
{
	size_t len = strlen(a);

	if (!len)
		return "is empty; remove it or write a value";
	if (len > GC_COMMAND_MAX_ARG)
		return "is longer than 255 characters; shorten it";
	if (first && a[0] == '-')
		return "starts with '-'; the first argument is the program (e.g. python3)";
	for (size_t i = 0; i < len; i++) {
		if (a[i] == '{') {
			const char *end = strchr(a + i, '}');
			if (!end)
				return "has a '{' without its '}'; close it, e.g. {records}";
			if (!gc_command_placeholder(a + i + 1, (size_t)(end - a - i - 1)))
				return "has an unknown placeholder; the placeholders are "
				       GC_COMMAND_PLACEHOLDERS;
			i = (size_t)(end - a);
		} else if (!in_set((unsigned char)a[i], "._:@%+=,/-")) {
			return "has a character other than letters, digits and ._:@%+=,/- (no "
			       "shell reads it); write each word as an argument of its own, "
			       "without quotes, $ or spaces";
		}
	}
	return NULL;
}

int gc_command_label_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 31 || s[0] == '-' || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!in_set((unsigned char)s[i], "._-"))
			return 0;
	return 1;
}

int gc_command_value_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 63)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!in_set((unsigned char)s[i], "._:@%+/-"))
			return 0;
	return 1;
}

static const char *ph_value(const struct gc_command_vals *v, const char *name, size_t len,
			    char *num, size_t nn)
{
	const int ints[] = { v->iterations, v->warmup, v->batch, v->world_size };
	const char *int_names[] = { "iterations", "warmup", "batch", "world_size" };
	const char *strs[] = { v->method, v->params, v->model, v->backend };
	const char *str_names[] = { "method", "params", "model", "backend" };

	for (int i = 0; i < 4; i++) {
		if (strlen(int_names[i]) == len && !strncmp(name, int_names[i], len)) {
			snprintf(num, nn, "%d", ints[i]);
			return num;
		}
		if (strlen(str_names[i]) == len && !strncmp(name, str_names[i], len))
			return strs[i] ? strs[i] : "";
	}
	if (len == 10 && !strncmp(name, "method_arg", len)) {   /* gcbench's M[:k=v,...] */
		snprintf(num, nn, "%s%s%s", v->method ? v->method : "",
			 v->params && *v->params ? ":" : "", v->params ? v->params : "");
		return num;
	}
	return NULL;   /* {records}, {bin}: the wrapper's */
}

gc_rc gc_command_expand(char *const *tmpl, size_t n, const struct gc_command_vals *v,
			char ***out, gc_err *e)
{
	char **argv = calloc(n + 1, sizeof(char *));
	char buf[GC_COMMAND_MAX_ARG + 2], num[320];

	*out = NULL;
	if (!argv)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		size_t o = 0;
		for (const char *p = tmpl[i]; *p && o <= GC_COMMAND_MAX_ARG; p++) {
			const char *end = *p == '{' ? strchr(p, '}') : NULL, *val;
			if (!end || !(val = ph_value(v, p + 1, (size_t)(end - p - 1), num, sizeof(num)))) {
				buf[o++] = *p;
				continue;
			}
			for (; *val && o <= GC_COMMAND_MAX_ARG; val++) {
				if (!in_set((unsigned char)*val, "._:@%+=,/-")) {
					gc_argv_free(argv);
					return gc_fail(e, GC_E_INVAL, "refusing the value '%.*s' of a "
						       "command placeholder: not a safe token",
						       (int)strcspn(val, "\n"), val);
				}
				buf[o++] = *val;
			}
			p = end;
		}
		if (o > GC_COMMAND_MAX_ARG) {
			gc_argv_free(argv);
			return gc_fail(e, GC_E_INVAL, "argument %zu of the command is longer than %d "
				       "characters once its placeholders are filled in", i + 1,
				       GC_COMMAND_MAX_ARG);
		}
		buf[o] = 0;
		if (!(argv[i] = strdup(buf))) {
			gc_argv_free(argv);
			return gc_fail(e, GC_E_NOMEM, "out of memory");
		}
	}
	*out = argv;
	return GC_OK;
}

/* --- command: and stacks: ---------------------------------------------------------- */

/* what: "'command'" or "stack 'NAME'", for the diagnostics */
static void parse_template(struct spec_ctx *c, yaml_node_t *v, struct gc_spec_stack *st,
			   const char *what)
{
	size_t n = gc_yaml_seq_len(v);

	if (v->type != YAML_SEQUENCE_NODE || n == 0) {
		gc_diag(c->d, v, "%s is %s; write the program and its arguments as a list "
			"(no shell), e.g. [python3, train.py, --out, \"{records}\"]", what,
			v->type == YAML_SEQUENCE_NODE ? "an empty list" : gc_yaml_kind(v));
		return;
	}
	if (n > GC_COMMAND_MAX_ARGS) {
		gc_diag(c->d, v, "%s has %zu arguments; keep it to %d", what, n, GC_COMMAND_MAX_ARGS);
		return;
	}
	st->argv = calloc(n, sizeof(char *));
	if (!st->argv) {
		c->d->oom = 1;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *it = gc_yaml_seq_at(c->doc, v, i);
		const char *t = gc_yaml_text(it), *why;
		if (!t) {
			gc_diag(c->d, it, "argument %zu of %s is %s; write one plain value",
				i + 1, what, gc_yaml_kind(it));
			continue;
		}
		if ((why = gc_command_arg_problem(t, i == 0))) {
			gc_diag(c->d, it, "argument %zu of %s %s", i + 1, what, why);
			continue;
		}
		if (!(st->argv[st->n_argv] = strdup(t))) {
			c->d->oom = 1;
			return;
		}
		st->n_argv++;
	}
}

/* stacks: {NAME: [argv...], ...}: named programs, an axis of the sweep */
static void parse_stacks(struct spec_ctx *c, yaml_node_t *v)
{
	size_t n = v->type == YAML_MAPPING_NODE ?
		   (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start) : 0;

	if (n == 0 || n > GC_SPEC_MAX_STACKS) {
		gc_diag(c->d, v, "'stacks' is %s; write 1 to %d named programs, e.g. stacks: "
			"{pytorch: [python3, train.py, --out, \"{records}\"], gcbench: "
			"[\"{bin}/gcbench-worker\", ...]}", n ? "too long" : v->type ==
			YAML_MAPPING_NODE ? "empty" : gc_yaml_kind(v), GC_SPEC_MAX_STACKS);
		return;
	}
	if (!(c->s->stacks = calloc(n, sizeof(*c->s->stacks)))) {
		c->d->oom = 1;
		return;
	}
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		const char *name = gc_yaml_text(k);
		struct gc_spec_stack *st = &c->s->stacks[c->s->n_stacks];
		char what[64];
		int dup = 0;

		if (!name || !gc_command_label_ok(name)) {
			gc_diag(c->d, k, "a stack's name is 1-31 letters, digits and ._- (not "
				"starting with - or .); write e.g. pytorch");
			continue;
		}
		for (size_t i = 0; i < c->s->n_stacks; i++)
			dup |= !strcmp(c->s->stacks[i].name, name);
		if (dup) {
			gc_diag(c->d, k, "stack '%s' is given twice; keep one", name);
			continue;
		}
		gc_strlcpy(st->name, name, sizeof(st->name));
		snprintf(what, sizeof(what), "stack '%s'", st->name);
		parse_template(c, yaml_document_get_node(c->doc, p->value), st, what);
		c->s->n_stacks++;
	}
}

void spec_parse_command(struct spec_ctx *c)
{
	yaml_node_t *cmd = gc_yaml_get(c->doc, c->root, "command");
	yaml_node_t *stacks = gc_yaml_get(c->doc, c->root, "stacks");
	yaml_node_t *files = gc_yaml_get(c->doc, c->root, "files");
	int is_cmd = c->s->workload && !strcmp(c->s->workload, "command");

	yaml_node_t *py = gc_yaml_get(c->doc, c->root, "python");
	yaml_node_t *env = gc_yaml_get(c->doc, c->root, "env");

	if (py && !c->s->ddp)
		gc_diag(c->d, py, "'python' applies to workload: ddp only; remove it (with "
			"workload: command, the program is the first argument of 'command')");
	if (env && !is_cmd)
		gc_diag(c->d, env, "'env' applies to workloads command and ddp only; remove it");
	else if (env)
		c->s->n_env = gc_env_parse(c->doc, env, "env", c->s->env, c->d);
	if (!is_cmd) {
		yaml_node_t *n = cmd ? cmd : stacks ? stacks : files;
		if (n)
			gc_diag(c->d, n, "'%s' applies to workload: command only; add workload: "
				"command or remove it", n == cmd ? "command" : n == stacks ? "stacks" :
				"files");
		return;
	}
	if (c->s->ddp) {
		if (cmd || stacks)
			gc_diag(c->d, cmd ? cmd : stacks, "workload: ddp runs gcbench's own DDP runner; "
				"remove '%s', or write workload: command to run your own program",
				cmd ? "command" : "stacks");
		spec_ddp_command(c);
		if (files)
			spec_parse_files(c, files);
		return;
	}
	if (cmd && stacks) {
		gc_diag(c->d, stacks, "give either 'command' (one program) or 'stacks' (several, "
			"each run at every point), not both");
		return;
	}
	if (!cmd && !stacks) {
		gc_diag(c->d, c->root, "workload: command needs 'command', the program and its "
			"arguments as a list, e.g. command: [python3, train.py, --out, \"{records}\"]");
	} else if (cmd) {
		if (!(c->s->stacks = calloc(1, sizeof(*c->s->stacks)))) {
			c->d->oom = 1;
			return;
		}
		c->s->n_stacks = 1;
		parse_template(c, cmd, c->s->stacks, "'command'");
	} else {
		parse_stacks(c, stacks);
	}
	if (files)
		spec_parse_files(c, files);
}

/* --- methods: free labels with free parameters ----------------------------------------- */

struct kv {
	const char *key;
	yaml_node_t **vals;
	size_t n;
};

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->key, ((const struct kv *)b)->key);
}

static void push(struct spec_ctx *c, yaml_node_t *at, const char *label, const char *params)
{
	struct gc_spec *s = c->s;
	struct gc_spec_method *nv = realloc(s->methods, (s->n_methods + 1) * sizeof(*nv)), *v;

	if (!nv) {
		c->d->oom = 1;
		return;
	}
	s->methods = nv;
	v = &nv[s->n_methods];
	memset(v, 0, sizeof(*v));
	gc_strlcpy(v->name, label, sizeof(v->name));
	gc_strlcpy(v->params_text, params, sizeof(v->params_text));
	if (*params)
		snprintf(v->label, sizeof(v->label), "%s(%s)", label, params);
	else
		snprintf(v->label, sizeof(v->label), "%s", label);
	for (size_t i = 0; i < s->n_methods; i++)
		if (!strcmp(s->methods[i].label, v->label)) {
			gc_diag(c->d, at, "method %s is listed twice; remove one", v->label);
			return;
		}
	s->n_methods++;
}

static void expand(struct spec_ctx *c, yaml_node_t *at, const char *label, struct kv *kv,
		   size_t nk)
{
	size_t idx[MAX_KEYS] = { 0 }, total = 1;

	for (size_t k = 0; k < nk; k++)
		total *= kv[k].n;
	if (total > MAX_VARIANTS) {
		gc_diag(c->d, at, "these parameter lists make %zu variants; keep it under %d",
			total, MAX_VARIANTS);
		return;
	}
	for (size_t t = 0; t < total && !c->d->oom; t++) {
		char params[256];
		size_t o = 0;
		for (size_t k = 0; k < nk && o < sizeof(params); k++)
			o += (size_t)snprintf(params + o, sizeof(params) - o, "%s%s=%s", k ? "," : "",
					      kv[k].key, gc_yaml_text(kv[k].vals[idx[k]]));
		if (o >= sizeof(params)) {
			gc_diag(c->d, at, "the parameters of '%s' are longer than 255 characters "
				"together; use shorter names or values", label);
			return;
		}
		params[o] = 0;
		push(c, at, label, params);
		for (size_t k = 0; k < nk && ++idx[k] == kv[k].n; k++)
			idx[k] = 0;
	}
}

void spec_command_method(struct spec_ctx *c, yaml_node_t *it)
{
	yaml_node_t *kn, *pv;
	const char *label = spec_method_item(c, it, "label", &kn, &pv);
	struct kv kv[MAX_KEYS];
	size_t nk = 0;
	int bad = 0;

	if (!label)
		return;
	if (!gc_command_label_ok(label)) {
		gc_diag(c->d, kn, "this method label is not 1-31 letters, digits and ._- (not "
			"starting with - or .); write e.g. powersgd");
		return;
	}
	for (yaml_node_pair_t *p = pv ? pv->data.mapping.pairs.start : NULL;
	     pv && p < pv->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(c->doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(c->doc, p->value);
		const char *kt = gc_yaml_text(k);
		if (!kt || nk == MAX_KEYS || !gc_command_label_ok(kt)) {
			gc_diag(c->d, k, "method parameters are name: value pairs (at most %d), each "
				"name 1-31 letters, digits and ._-; write e.g. rank: 4", MAX_KEYS);
			bad = 1;
			continue;
		}
		for (size_t i = 0; i < nk; i++)
			if (!strcmp(kv[i].key, kt)) {
				gc_diag(c->d, k, "parameter '%s' of '%s' is given twice; keep one",
					kt, label);
				bad = 1;
			}
		kv[nk].key = kt;
		kv[nk].n = spec_items(c, vn, kt, &kv[nk].vals);
		bad |= kv[nk].n == 0;
		for (size_t i = 0; i < kv[nk].n; i++)
			if (!gc_command_value_ok(gc_yaml_text(kv[nk].vals[i]))) {
				gc_diag(c->d, kv[nk].vals[i], "this value of parameter '%s' is not "
					"1-63 letters, digits and ._:@%%+/-; write e.g. %s: 4", kt, kt);
				bad = 1;
			}
		nk++;
	}
	qsort(kv, nk, sizeof(kv[0]), kv_cmp);
	if (!bad)
		expand(c, kn, label, kv, nk);
	for (size_t i = 0; i < nk; i++)
		free(kv[i].vals);
}

/* A model of a command workload: a free label, passed as {model}. */
int spec_command_model(struct spec_ctx *c, yaml_node_t *n, const char *t, void *out)
{
	if (c->s->ddp && t && !strncmp(t, "csv:", 4)) {   /* ddp: a parameter list, shipped */
		char dest[128], model[140];
		if (spec_files_add_model(c, n, t + 4, dest, sizeof(dest)))
			return -1;
		snprintf(model, sizeof(model), "csv:%s", dest);   /* the runner's path, files/ */
		return (*(char **)out = strdup(model)) ? 0 : -1;
	}
	if (!gc_command_label_ok(t)) {
		gc_diag(c->d, n, "this model is not 1-31 letters, digits and ._- (with workload: "
			"command it is a label passed as {model}); write e.g. mlp");
		return -1;
	}
	return (*(char **)out = strdup(t)) ? 0 : -1;
}

/* orchestrator/spec/spec_ddp.c: workload: ddp (docs/hooks.md): gcbench's own DDP runner
 * (python/gcbench_ddp.py, in every command build's python/) on every rank. The spec
 * becomes a command workload whose one program is the runner:
 *
 *   {python} {bin}/python/gcbench_ddp.py --hook {method} --params {params} --model {model}
 *          --worker {bin}/gcbench-worker --backend {backend} --out {records}
 *          --iters {iterations} --warmup {warmup} --batch {batch}
 *
 * {python} is each host's interpreter: the inventory host's python:, else the spec's
 * python:, else python3 (orchestrator/remote/launch.h). Methods are PyTorch's
 * hooks under gcbench's names, with the parameters the runner takes, or a label of the
 * user's with hook: FILE.py:FUNCTION and any other parameters (passed to FUNCTION as
 * keyword arguments), or a label with grace: FILE.py:CLASS, a GRACE-style compressor
 * run through python/gcbench_grace.py; the file is shipped with its modules
 * (spec_files.c). */
#include "spec.h"
#include "spec_command.h"
#include "spec_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"

static const struct builtin {
	const char *name, *keys;   /* keys: the parameters it takes, space-separated */
} builtins[] = {
	{ "syncsgd", "" }, { "fp16", "" }, { "bf16", "" },
	{ "powersgd", "rank ef warm_start min_compression seed start" },
	{ "batched_powersgd", "rank ef warm_start min_compression seed start" },
};
#define N_BUILTIN (sizeof(builtins) / sizeof(builtins[0]))
#define BUILTIN_NAMES "syncsgd, fp16, bf16, powersgd or batched_powersgd"

static const char *const runner_argv[] = {
	"{bin}/python/gcbench_ddp.py", "--hook", "{method}", "--params", "{params}",
	"--model", "{model}", "--worker", "{bin}/gcbench-worker", "--backend", "{backend}",
	"--out", "{records}", "--iters", "{iterations}", "--warmup", "{warmup}",
	"--batch", "{batch}",
};
#define N_RUNNER (sizeof(runner_argv) / sizeof(runner_argv[0]))

void spec_ddp_command(struct spec_ctx *c)
{
	yaml_node_t *py = gc_yaml_get(c->doc, c->root, "python");
	const char *p = py ? gc_yaml_text(py) : "", *why = NULL;
	struct gc_spec_stack *st;

	if (py && (!p || !*p || *p == '-' || (why = gc_env_value_problem(p))))
		gc_diag(c->d, py, "python is the interpreter that runs gcbench's DDP runner on "
			"every host (a host's own python: in the inventory comes first)%s%s; write "
			"e.g. python: /usr/bin/python3 or python: ~/venv/bin/python", why ? ": it " : "",
			why ? why : "");
	else
		gc_strlcpy(c->s->python, p, sizeof(c->s->python));
	if (!(c->s->stacks = calloc(1, sizeof(*c->s->stacks))) ||
	    !(c->s->stacks->argv = calloc(N_RUNNER + 1, sizeof(char *)))) {
		c->d->oom = 1;
		return;
	}
	c->s->n_stacks = 1;
	st = c->s->stacks;
	if (!(st->argv[0] = strdup("{python}"))) {
		c->d->oom = 1;
		return;
	}
	st->n_argv = 1;
	for (size_t i = 0; i < N_RUNNER; i++, st->n_argv++)
		if (!(st->argv[st->n_argv] = strdup(runner_argv[i]))) {
			c->d->oom = 1;
			return;
		}
}

static const struct builtin *builtin(const char *name)
{
	for (size_t i = 0; i < N_BUILTIN; i++)
		if (!strcmp(builtins[i].name, name))
			return &builtins[i];
	return NULL;
}

/* 1 when word is one of the space-separated keys */
static int has_key(const char *keys, const char *word, size_t n)
{
	for (const char *k = keys; *k; k += strcspn(k, " "), k += *k == ' ')
		if (strcspn(k, " ") == n && !strncmp(k, word, n))
			return 1;
	return 0;
}

/* the value of key in "k=v,k2=v2" into out ("" when absent) */
static void param(const char *text, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);

	out[0] = 0;
	for (const char *p = text; *p; p += strcspn(p, ","), p += *p == ',')
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(out, n, "%.*s", (int)strcspn(p + kl + 1, ","), p + kl + 1);
			return;
		}
}

static void check_variant(struct spec_ctx *c, yaml_node_t *at, const struct gc_spec_method *m,
			  char (*hooks)[128], size_t *nh)
{
	const struct builtin *b = builtin(m->name);
	char hook[128];
	const char *colon, *fn;

	param(m->params_text, "hook", hook, sizeof(hook));
	if (!*hook)   /* a GRACE compressor (python/gcbench_grace.py): FILE.py:CLASS */
		param(m->params_text, "grace", hook, sizeof(hook));
	if (b && *hook) {
		gc_diag(c->d, at, "'%s' is PyTorch's hook under gcbench's name; give your hook a "
			"label of its own, e.g. - my_%s: {hook: %s}", m->name, m->name, hook);
		return;
	}
	if (b) {
		for (const char *p = m->params_text; *p; p += strcspn(p, ","), p += *p == ',') {
			size_t kl = strcspn(p, "=");
			if (!has_key(b->keys, p, kl))
				gc_diag(c->d, at, "method %s takes no parameter '%.*s'%s%s", m->name,
					(int)kl, p, *b->keys ? "; it takes " : "", b->keys);
		}
		return;
	}
	colon = strrchr(hook, ':');
	fn = colon ? colon + 1 : "";
	if (!*hook) {
		gc_diag(c->d, at, "method '%s' is not one of PyTorch's hooks by gcbench's name (%s); "
			"for your own hook write - %s: {hook: my_hook.py:make_hook}, for a GRACE "
			"compressor - %s: {grace: my_compressor.py:MyCompressor}", m->name,
			BUILTIN_NAMES, m->name, m->name);
		return;
	}
	if (!colon || colon - hook < 4 || strncmp(colon - 3, ".py", 3) || !*fn ||
	    (*fn >= '0' && *fn <= '9') || strspn(fn, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						 "0123456789_") != strlen(fn)) {
		gc_diag(c->d, at, "hook '%s' of '%s' is not FILE.py:FUNCTION, the file (relative to "
			"the spec's folder) and the function that returns (state, hook); write e.g. "
			"hook: %s_hook.py:make_hook", hook, m->name, m->name);
		return;
	}
	*(char *)colon = 0;
	for (size_t i = 0; i < *nh; i++)
		if (!strcmp(hooks[i], hook))
			return;
	if (*nh < 16) {
		gc_strlcpy(hooks[(*nh)++], hook, sizeof(hooks[0]));
		spec_files_add_hook(c, at, hook);
	}
}

/* bf16 on the CPU: gloo (Debian 12's torch 1.13) cannot all-reduce bfloat16, so every
 * bf16 point of backend mpi would fail on its first bucket; refused here, before a
 * sweep starts (backends are parsed before methods). */
static void check_bf16(struct spec_ctx *c, yaml_node_t *methods)
{
	int mpi = 0;

	for (size_t i = 0; i < c->s->n_backend; i++)
		mpi |= c->s->backend[i] && !strcmp(c->s->backend[i], "mpi");
	for (size_t i = 0; mpi && i < c->s->n_methods; i++)
		if (!strcmp(c->s->methods[i].name, "bf16")) {
			gc_diag(c->d, methods, "method bf16 cannot run on backend mpi: gloo (torch 1.13) "
				"has no bfloat16 all-reduce; use backend: nccl, or fp16 on the CPU");
			return;
		}
}

void spec_ddp_methods(struct spec_ctx *c, yaml_node_t *methods)
{
	char hooks[16][128];
	size_t nh = 0;

	for (size_t i = 0; i < c->s->n_methods && !c->d->oom; i++)
		check_variant(c, methods, &c->s->methods[i], hooks, &nh);
	check_bf16(c, methods);
}

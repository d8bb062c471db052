/* orchestrator/spec/spec_command.h: `workload: command` (docs/spec.md, Your own
 * program): the argv template, its placeholders, and the values a point gives them.
 *
 * A template is a list of arguments, never a shell line. Each argument is literal text
 * of the characters [A-Za-z0-9._:@%+=,/-] (the first argument, the program, does not
 * start with '-') with placeholders {NAME} in it. The placeholders are
 * GC_COMMAND_PLACEHOLDERS; all but {records}, {bin} and {python} are filled in on the
 * controller for each point (gc_command_expand), those three by the rank's wrapper on
 * its host: {records} the path that rank writes (also in $GCBENCH_RECORDS), {bin} the
 * folder of gcbench's provisioned binaries there (also in $GCBENCH_BIN), {python} the
 * host's Python ($GCBENCH_PYTHON: the host's python:, else the ddp spec's, else
 * python3;
 * orchestrator/remote/launch.h). A spec gives one template (command:) or several
 * named ones (stacks:, an axis of the sweep; struct gc_spec_stack in spec.h).
 */
#ifndef GC_SPEC_COMMAND_H
#define GC_SPEC_COMMAND_H

#include <stddef.h>

#include "result.h"

#define GC_COMMAND_MAX_ARGS 64
#define GC_COMMAND_MAX_ARG 255
#define GC_COMMAND_PLACEHOLDERS "{method}, {params}, {method_arg}, {model}, " \
	"{iterations}, {warmup}, {batch}, {world_size}, {backend}, {records}, {bin} and " \
	"{python}"

/* What a point gives the placeholders. */
struct gc_command_vals {
	const char *method;        /* the method's label */
	const char *params;        /* its parameters, "k=v,k2=v2" by key ("" none) */
	const char *model, *backend;
	int iterations, warmup, batch, world_size;
};

/* 1 when text is a known placeholder name (without braces). */
int gc_command_placeholder(const char *name, size_t len);

/* A template argument as text: NULL when valid, else a static sentence saying what is
 * wrong (for a diagnostic; first: it is the program). */
const char *gc_command_arg_problem(const char *arg, int first);

/* The template with every placeholder but {records}, {bin} and {python} filled in from v: a
 * NULL-terminated argv (free with gc_argv_free). GC_E_INVAL when a result is longer
 * than GC_COMMAND_MAX_ARG or a value has characters outside the literal set. */
gc_rc gc_command_expand(char *const *tmpl, size_t n, const struct gc_command_vals *v,
			char ***out, gc_err *e);

/* A label (method, parameter name, model of a command workload): 1..31 characters of
 * [A-Za-z0-9._-], not starting with '-' or '.'. */
int gc_command_label_ok(const char *s);

/* A parameter value: 1..63 characters of [A-Za-z0-9._:@%+/-] (no ',' or '='). */
int gc_command_value_ok(const char *s);

#endif

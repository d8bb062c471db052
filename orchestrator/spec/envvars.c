/* orchestrator/spec/envvars.c: env: names and values, checked (envvars.h). */
#include "envvars_parse.h"

#include <stdio.h>
#include <string.h>

#include "strutil.h"

static const char *const reserved[] = {
	"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "GLOO_SOCKET_IFNAME",
	"NCCL_SOCKET_IFNAME", "PYTHONPATH",
};

const char *gc_env_name_problem(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 63 || (s[0] >= '0' && s[0] <= '9') ||
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != n)
		return "is not a variable name (1-63 letters, digits and _, not starting with a "
		       "digit)";
	if (!strcmp(s, "PYTHONPATH"))
		return "is set by gcbench for every rank (docs/spec.md); remove it, and ship "
		       "your modules with files: (the ranks start in that folder)";
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (!strcmp(s, reserved[i]))
			return "is set by gcbench for every rank (docs/spec.md); remove it";
	if (!strncmp(s, "GCBENCH_", 8) || !strncmp(s, "OMPI_", 5))
		return "is gcbench's or Open MPI's own (GCBENCH_*, OMPI_*); remove it";
	return NULL;
}

const char *gc_env_value_problem(const char *v)
{
	const char *rest = v;

	if (v[0] == '~') {
		if (v[1] && v[1] != '/')
			return "starts with ~NAME, another login's home; write ~/PATH (this "
			       "login's home on each host) or the full path";
		rest = v[1] ? v + 2 : "";
	}
	if (strlen(v) > 255)
		return "is longer than 255 characters; shorten it";
	if (*rest && !gc_is_safe_token(rest) && !(rest[0] == '-' && gc_is_safe_token(rest + 1)))
		return "has a character other than letters, digits and ._:@%+=,/- (no shell "
		       "reads it: no spaces, quotes or $; ~ only as a leading ~/, which each "
		       "host expands to its login's home)";
	if (strchr(rest, '~'))
		return "has a ~ after its start; write ~/ only at the start, or the full path";
	return NULL;
}

size_t gc_env_parse(yaml_document_t *doc, yaml_node_t *v, const char *what,
		    char out[][GC_ENV_LEN], struct gc_diags *d)
{
	size_t n = 0;

	if (v->type != YAML_MAPPING_NODE) {
		gc_diag(d, v, "%s is %s; write a mapping of variables, e.g. env: {OMP_PROC_BIND: "
			"close, PATH: \"~/venv/bin:/usr/bin:/bin\"}", what, gc_yaml_kind(v));
		return 0;
	}
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *val = yaml_document_get_node(doc, p->value);
		const char *name = gc_yaml_text(k), *value = gc_yaml_text(val), *why;
		if (!name || (why = gc_env_name_problem(name))) {
			gc_diag(d, k, "%s: '%s' %s", what, name ? name : "(not a scalar)",
				name ? why : "is not a variable name");
			continue;
		}
		if (!value || (why = gc_env_value_problem(value))) {
			gc_diag(d, val, "%s: the value of %s %s", what, name,
				value ? why : "is not one plain value");
			continue;
		}
		if (n == GC_ENV_MAX) {
			gc_diag(d, k, "%s has more than %d variables; keep it to %d", what,
				GC_ENV_MAX, GC_ENV_MAX);
			break;
		}
		for (size_t i = 0; i < n; i++)
			if (!strncmp(out[i], name, strlen(name)) && out[i][strlen(name)] == '=')
				gc_diag(d, k, "%s: %s is given twice; keep one", what, name);
		snprintf(out[n++], GC_ENV_LEN, "%s=%s", name, value);
	}
	return n;
}

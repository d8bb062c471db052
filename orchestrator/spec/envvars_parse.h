/* orchestrator/spec/envvars_parse.h: an env: mapping read from YAML (envvars.h has
 * the rules; the spec and the inventory use it). */
#ifndef GC_ENVVARS_PARSE_H
#define GC_ENVVARS_PARSE_H

#include "envvars.h"
#include "yamlutil.h"

/* A mapping NAME: VALUE (what: "env" or "host 'n1' env", for the messages) into
 * out[..GC_ENV_MAX] as "NAME=VALUE"; every problem diagnosed at its node. Returns the
 * count kept. */
size_t gc_env_parse(yaml_document_t *doc, yaml_node_t *v, const char *what,
		    char out[][GC_ENV_LEN], struct gc_diags *d);

#endif

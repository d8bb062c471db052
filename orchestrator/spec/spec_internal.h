/* orchestrator/spec/spec_internal.h: shared by spec.c and spec_{methods,axes,exclude,zip,notify}.c (not an API). */
#ifndef GC_SPEC_INTERNAL_H
#define GC_SPEC_INTERNAL_H

#include "spec.h"

struct spec_ctx {
	yaml_document_t *doc;
	yaml_node_t *root;
	struct gc_diags *d;
	struct gc_spec *s;
};

/* The scalar items of an axis value (one scalar, or a list of scalars). Diagnoses a
 * wrong kind or an empty list (naming key). Returns the count; *items is malloc'ed
 * (caller frees) or NULL. */
size_t spec_items(struct spec_ctx *c, yaml_node_t *v, const char *key, yaml_node_t ***items);

/* Canonical text of a point field value given as text (exclude entries): 1 and
 * writes out on success, else diagnoses at n and returns 0. */
int spec_axis_value(struct spec_ctx *c, enum gc_axis a, yaml_node_t *n, char *out,
		    size_t len);

/* The axes' names, indexed by enum gc_axis (a static array), and the axis called name
 * (-1 for none, or for NULL: a key that is not a scalar). */
const char *const *spec_axis_list(void);
int spec_axis_of(const char *name);

void spec_parse_methods(struct spec_ctx *c, yaml_node_t *v);
void spec_parse_exclude(struct spec_ctx *c, yaml_node_t *v);
void spec_parse_zip(struct spec_ctx *c, yaml_node_t *v);
void spec_parse_notify(struct spec_ctx *c, yaml_node_t *v);
void spec_parse_slow(struct spec_ctx *c, yaml_node_t *v);        /* spec_slow.c */
/* uplink: or oversubscription: (spec_uplink.c), after the axes; and an exclude entry's
 * uplink value as its canonical text (1, or 0 diagnosed at n). */
void spec_parse_uplink(struct spec_ctx *c);
int spec_uplink_normalize(struct spec_ctx *c, yaml_node_t *n, char *out, size_t len);
void spec_parse_background(struct spec_ctx *c, yaml_node_t *v);  /* spec_background.c */
/* bandwidth: trace:FILE (spec_trace.c): loads and checks the trace (diagnosed at n with
 * the trace's FILE:LINE message), writes GC_SPEC_BW_TRACE | index to *out; -1 on error. */
int spec_parse_trace(struct spec_ctx *c, yaml_node_t *n, const char *t, uint64_t *out);
void spec_parse_placement(struct spec_ctx *c);   /* ranks_per_node, allow_single_node */

/* workload: command (spec_command.c): command:, stacks: and files: (diagnosed under other
 * workloads), one methods entry (a free label with free parameters), and a model. */
void spec_parse_command(struct spec_ctx *c);
/* A methods: item, `NAME` or `NAME: {params}` (what: "name" or "label", for the
 * message): the name, its node in *kn and the parameters' mapping in *pv (NULL for none,
 * ~ or null); NULL, diagnosed, when the item is neither or the parameters are not a
 * mapping (spec_methods.c). */
const char *spec_method_item(struct spec_ctx *c, yaml_node_t *it, const char *what,
			     yaml_node_t **kn, yaml_node_t **pv);
void spec_command_method(struct spec_ctx *c, yaml_node_t *it);
/* files: (spec_files.c): each entry a file or a folder, with where it lands on the hosts */
void spec_parse_files(struct spec_ctx *c, yaml_node_t *v);
/* A ddp hook's file (as written in the spec) shipped with its modules: its folder,
 * whole, when it has one; else it and the *.py files beside it (spec_files.c). */
void spec_files_add_hook(struct spec_ctx *c, yaml_node_t *at, const char *file);
/* A ddp csv: model's parameter list (FILE as written) shipped like a files: entry; dest
 * (n bytes) gets where it lands under the hosts' files/. 0, or -1 with a diagnostic. */
int spec_files_add_model(struct spec_ctx *c, yaml_node_t *at, const char *file, char *dest,
			 size_t n);
/* workload: ddp (spec_ddp.c): the runner's argv, python:, and its methods checked
 * (PyTorch's hooks by gcbench's names, or a label with hook: FILE.py:FUNC) */
void spec_ddp_command(struct spec_ctx *c);
void spec_ddp_methods(struct spec_ctx *c, yaml_node_t *methods);
int spec_command_model(struct spec_ctx *c, yaml_node_t *n, const char *t, void *out);

/* "%.9g" of v, the one way numbers are written in canonical texts and point keys. */
void spec_num(double v, char *buf, size_t n);

#endif

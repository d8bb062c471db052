/* orchestrator/spec/yamlutil.h: what the spec and inventory parsers share: a libyaml
 * document loaded from memory, typed access to its nodes, and diagnostics of the form
 *     FILE:LINE:COL: what is wrong; what to write instead
 * collected so that every problem of a file is reported at once.
 */
#ifndef GC_YAMLUTIL_H
#define GC_YAMLUTIL_H

#include <stddef.h>
#include <stdio.h>
#include <yaml.h>

#include "result.h"

#define GC_YAML_MAX_BYTES (1u << 20)   /* a spec or inventory larger than 1 MiB is refused */

/* The problems found in one file. Caller owns it: gc_diags_init, then release. */
struct gc_diags {
	char file[256];
	char **msg;
	size_t n, cap;
	int oom;                 /* a message was lost for lack of memory */
};
void gc_diags_init(struct gc_diags *d, const char *file);
void gc_diags_release(struct gc_diags *d);      /* accepts NULL */

/* Add "FILE:LINE:COL: <fmt>" at node n (n NULL: line 0). Messages follow the house
 * style: what is wrong, then after "; " what to write instead. */
void gc_diag(struct gc_diags *d, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void gc_diag_at(struct gc_diags *d, size_t line, size_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Sort the messages by line, then column (stable), so users read them in file order. */
void gc_diags_sort(struct gc_diags *d);

/* Print every message, one per line, to f. */
void gc_diags_print(const struct gc_diags *d, FILE *f);

/* GC_OK when d is empty, else GC_E_INVAL with "N problems in FILE (first: ...)" in e. */
gc_rc gc_diags_result(const struct gc_diags *d, gc_err *e);

/* Parse buf (len bytes, need not be NUL-terminated) into doc. A syntax error, an
 * empty document or an input over GC_YAML_MAX_BYTES adds a diagnostic and returns
 * GC_E_INVAL (doc then needs no release). On GC_OK, the caller deletes doc with
 * yaml_document_delete(). */
gc_rc gc_yaml_load(const char *buf, size_t len, yaml_document_t *doc, struct gc_diags *d);

/* Read a whole file (at most GC_YAML_MAX_BYTES) into a malloc'ed, NUL-terminated
 * buffer (caller frees). Errors name the path. */
gc_rc gc_read_file(const char *path, char **buf, size_t *len, gc_err *e);

/* The text of a scalar node, or NULL when n is not a scalar. */
const char *gc_yaml_text(const yaml_node_t *n);

/* "a mapping", "a list", "a value" (for messages). */
const char *gc_yaml_kind(const yaml_node_t *n);

/* The value of key in mapping map, or NULL. */
yaml_node_t *gc_yaml_get(yaml_document_t *doc, const yaml_node_t *map, const char *key);

/* Diagnose every key of map that is not in allowed (n names): "unknown key 'x' in
 * WHERE; did you mean 'y'?" (or "keys here are: ..."), non-scalar keys, and duplicate
 * keys. */
void gc_yaml_check_keys(yaml_document_t *doc, const yaml_node_t *map,
			const char *const *allowed, size_t n, const char *where,
			struct gc_diags *d);

/* The candidate closest to word by edit distance, if close enough to be a likely typo
 * (distance <= max(1, strlen(word) / 3), case-insensitive); else NULL. */
const char *gc_did_you_mean(const char *word, const char *const *cands, size_t n);

/* Items of a sequence node: the first item and the count (NULL/0 if not a sequence). */
size_t gc_yaml_seq_len(const yaml_node_t *n);
yaml_node_t *gc_yaml_seq_at(yaml_document_t *doc, const yaml_node_t *n, size_t i);

/* Where the node at path is in the YAML text buf: path is keys and list indexes
 * separated by '/' ("hosts/2/identity", "models/0", "exclude"); an index 0 of a
 * scalar is the scalar itself (an axis written as one value). Sets *line and *col
 * (1-based) and returns 1, or returns 0 (line and col 0) when the text does not parse
 * or has no such node. For messages about values checked after parsing. */
int gc_yaml_locate(const char *buf, size_t len, const char *path, size_t *line, size_t *col);

#endif

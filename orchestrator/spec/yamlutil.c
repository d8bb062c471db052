/* orchestrator/spec/yamlutil.c: libyaml documents and FILE:LINE:COL diagnostics. */
#include "yamlutil.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "grow.h"
#include "strutil.h"

void gc_diags_init(struct gc_diags *d, const char *file)
{
	memset(d, 0, sizeof(*d));
	gc_strlcpy(d->file, file ? file : "<input>", sizeof(d->file));
}

void gc_diags_release(struct gc_diags *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free(d->msg[i]);
	free(d->msg);
	d->msg = NULL;
	d->n = d->cap = 0;
}

static void vdiag(struct gc_diags *d, size_t line, size_t col, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
static void vdiag(struct gc_diags *d, size_t line, size_t col, const char *fmt, va_list ap)
{
	char body[768], *m;
	int len;

	vsnprintf(body, sizeof(body), fmt, ap);
	if (GC_GROW(d->msg, d->cap, d->n + 1, 8)) {
		d->oom = 1;
		return;
	}
	len = snprintf(NULL, 0, "%s:%zu:%zu: %s", d->file, line, col, body);
	m = malloc((size_t)len + 1);
	if (!m) {
		d->oom = 1;
		return;
	}
	snprintf(m, (size_t)len + 1, "%s:%zu:%zu: %s", d->file, line, col, body);
	d->msg[d->n++] = m;
}

void gc_diag_at(struct gc_diags *d, size_t line, size_t col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(d, line, col, fmt, ap);
	va_end(ap);
}

void gc_diag(struct gc_diags *d, const yaml_node_t *n, const char *fmt, ...)
{
	size_t line = n ? n->start_mark.line + 1 : 0, col = n ? n->start_mark.column + 1 : 0;
	va_list ap;

	va_start(ap, fmt);
	vdiag(d, line, col, fmt, ap);
	va_end(ap);
}

/* line and column of a message "FILE:LINE:COL: ..." (FILE may contain ':') */
static void msg_pos(const char *m, size_t flen, unsigned long *line, unsigned long *col)
{
	*line = *col = 0;
	sscanf(m + flen, ":%lu:%lu:", line, col);
}

void gc_diags_sort(struct gc_diags *d)
{
	size_t fl = strlen(d->file);

	/* insertion sort: stable, and the lists are short */
	for (size_t i = 1; i < d->n; i++) {
		char *m = d->msg[i];
		unsigned long l, c, l2, c2;
		size_t j = i;

		msg_pos(m, fl, &l, &c);
		while (j > 0) {
			msg_pos(d->msg[j - 1], fl, &l2, &c2);
			if (l2 < l || (l2 == l && c2 <= c))
				break;
			d->msg[j] = d->msg[j - 1];
			j--;
		}
		d->msg[j] = m;
	}
}

void gc_diags_print(const struct gc_diags *d, FILE *f)
{
	for (size_t i = 0; i < d->n; i++)
		fprintf(f, "%s\n", d->msg[i]);
	if (d->oom)
		fprintf(f, "%s: (more problems were lost: out of memory)\n", d->file);
}

gc_rc gc_diags_result(const struct gc_diags *d, gc_err *e)
{
	if (!d->n && !d->oom)
		return GC_OK;
	if (!d->n)
		return gc_fail(e, GC_E_NOMEM, "%s: out of memory while checking it", d->file);
	return gc_fail(e, GC_E_INVAL, "%zu problem%s in %s (first: %s)", d->n,
		       d->n == 1 ? "" : "s", d->file, d->msg[0]);
}

gc_rc gc_yaml_load(const char *buf, size_t len, yaml_document_t *doc, struct gc_diags *d)
{
	yaml_parser_t p;
	int ok;

	memset(doc, 0, sizeof(*doc));
	if (len > GC_YAML_MAX_BYTES) {
		gc_diag_at(d, 1, 1, "file is %zu bytes, over the limit of %u; split it", len,
			   GC_YAML_MAX_BYTES);
		return GC_E_INVAL;
	}
	if (!yaml_parser_initialize(&p)) {
		d->oom = 1;
		return GC_E_NOMEM;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	ok = yaml_parser_load(&p, doc);
	if (!ok)
		gc_diag_at(d, p.problem_mark.line + 1, p.problem_mark.column + 1,
			   "not valid YAML: %s%s%s; fix the syntax (indentation, ':' after keys, "
			   "closed quotes and brackets)", p.problem ? p.problem : "syntax error",
			   p.context ? " " : "", p.context ? p.context : "");
	yaml_parser_delete(&p);
	if (!ok)
		return GC_E_INVAL;
	if (!yaml_document_get_root_node(doc)) {
		yaml_document_delete(doc);
		gc_diag_at(d, 1, 1, "the file is empty; write the keys of the file (see docs)");
		return GC_E_INVAL;
	}
	return GC_OK;
}

gc_rc gc_read_file(const char *path, char **buf, size_t *len, gc_err *e)
{
	FILE *f = fopen(path, "rb");
	char *b;
	size_t n;

	*buf = NULL;
	if (!f)
		return gc_fail(e, errno == ENOENT ? GC_E_NOTFOUND : GC_E_IO, "cannot open '%s': "
			       "%s", path, strerror(errno));
	b = malloc(GC_YAML_MAX_BYTES + 2);
	if (!b) {
		fclose(f);
		return gc_fail(e, GC_E_NOMEM, "out of memory reading '%s'", path);
	}
	n = fread(b, 1, GC_YAML_MAX_BYTES + 1, f);
	if (ferror(f) || n > GC_YAML_MAX_BYTES) {
		int err = ferror(f);
		fclose(f);
		free(b);
		return err ? gc_fail(e, GC_E_IO, "cannot read '%s'", path)
			   : gc_fail(e, GC_E_INVAL, "'%s' is larger than %u bytes; it cannot "
				     "be a spec or inventory", path, GC_YAML_MAX_BYTES);
	}
	fclose(f);
	b[n] = 0;
	*buf = b;
	*len = n;
	return GC_OK;
}

const char *gc_yaml_text(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

const char *gc_yaml_kind(const yaml_node_t *n)
{
	if (!n)
		return "nothing";
	if (n->type == YAML_MAPPING_NODE)
		return "a mapping";
	if (n->type == YAML_SEQUENCE_NODE)
		return "a list";
	return "a value";
}

yaml_node_t *gc_yaml_get(yaml_document_t *doc, const yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *k = gc_yaml_text(yaml_document_get_node(doc, p->key));
		if (k && !strcmp(k, key))
			return yaml_document_get_node(doc, p->value);
	}
	return NULL;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64], i, j;

	if (la >= 63 || lb >= 63)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j], cost = tolower((unsigned char)a[i - 1]) !=
						   tolower((unsigned char)b[j - 1]);
			size_t best = diag + cost;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

const char *gc_did_you_mean(const char *word, const char *const *cands, size_t n)
{
	size_t best = 99, lim = strlen(word) / 3;
	const char *pick = NULL;

	if (lim < 1)
		lim = 1;
	for (size_t i = 0; i < n; i++) {
		size_t dist = edit_distance(word, cands[i]);
		if (dist < best) {
			best = dist;
			pick = cands[i];
		}
	}
	return best <= lim ? pick : NULL;
}

static void list_keys(const char *const *allowed, size_t n, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (size_t i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", allowed[i]);
}

static void check_key(yaml_document_t *doc, const yaml_node_t *map, yaml_node_pair_t *p,
		      const char *const *allowed, size_t n, const char *where,
		      struct gc_diags *d)
{
	yaml_node_t *kn = yaml_document_get_node(doc, p->key);
	const char *k = gc_yaml_text(kn), *hint;
	char keys[512];

	if (!k) {
		gc_diag(d, kn, "a key in %s is %s; keys are plain words", where, gc_yaml_kind(kn));
		return;
	}
	/* a key is named only when it is one of ours: the text of a file that is not what
	 * it should be (a spec given /etc/shadow) is never quoted, the position says where */
	const char *known = NULL;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(allowed[i], k))
			known = allowed[i];
	for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
		const char *k2 = gc_yaml_text(yaml_document_get_node(doc, q->key));
		if (k2 && !strcmp(k, k2)) {
			if (known)
				gc_diag(d, kn, "duplicate key '%s' in %s; keep one of them", known,
					where);
			else
				gc_diag(d, kn, "duplicate key in %s; keep one of them", where);
			return;
		}
	}
	if (known)
		return;
	hint = gc_did_you_mean(k, allowed, n);
	if (hint) {
		gc_diag(d, kn, "unknown key in %s; did you mean '%s'?", where, hint);
		return;
	}
	list_keys(allowed, n, keys, sizeof(keys));
	gc_diag(d, kn, "unknown key in %s; the keys here are: %s", where, keys);
}

void gc_yaml_check_keys(yaml_document_t *doc, const yaml_node_t *map,
			const char *const *allowed, size_t n, const char *where,
			struct gc_diags *d)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++)
		check_key(doc, map, p, allowed, n, where, d);
}

size_t gc_yaml_seq_len(const yaml_node_t *n)
{
	if (!n || n->type != YAML_SEQUENCE_NODE)
		return 0;
	return (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

yaml_node_t *gc_yaml_seq_at(yaml_document_t *doc, const yaml_node_t *n, size_t i)
{
	if (i >= gc_yaml_seq_len(n))
		return NULL;
	return yaml_document_get_node(doc, n->data.sequence.items.start[i]);
}

/* the child of n named by one path component (a key, or an index in a list) */
static yaml_node_t *locate_step(yaml_document_t *doc, yaml_node_t *n, const char *comp)
{
	char *end;
	unsigned long i;

	if (n->type == YAML_MAPPING_NODE)
		return gc_yaml_get(doc, n, comp);
	i = strtoul(comp, &end, 10);
	if (end == comp || *end)
		return NULL;
	if (n->type == YAML_SCALAR_NODE)
		return i == 0 ? n : NULL;
	return gc_yaml_seq_at(doc, n, i);
}

int gc_yaml_locate(const char *buf, size_t len, const char *path, size_t *line, size_t *col)
{
	struct gc_diags d;
	yaml_document_t doc;
	yaml_node_t *n;
	char comp[128];
	const char *p = path;
	int found = 0;

	*line = *col = 0;
	gc_diags_init(&d, "");
	if (gc_yaml_load(buf, len, &doc, &d)) {
		gc_diags_release(&d);
		return 0;
	}
	n = yaml_document_get_root_node(&doc);
	while (n && *p) {
		size_t k = strcspn(p, "/");
		if (k >= sizeof(comp)) {
			n = NULL;
			break;
		}
		memcpy(comp, p, k);
		comp[k] = 0;
		n = locate_step(&doc, n, comp);
		p += k + (p[k] == '/');
	}
	if (n) {
		*line = n->start_mark.line + 1;
		*col = n->start_mark.column + 1;
		found = 1;
	}
	yaml_document_delete(&doc);
	gc_diags_release(&d);
	return found;
}

/* formats/arch_csv.c: parameter lists from CSV (csv:PATH) and measured backward
 * profiles. Both are untrusted input (csv:/etc/shadow is one keystroke away): every
 * line is checked and every error names the source, the line, the column and the
 * field expected there, never the bytes found (they may be a secret). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "grow.h"
#include "strutil.h"
#include "arch.h"

#define LINE_MAX_LEN 512
#define MAX_TENSORS (1u << 20)
#define MAX_NUMEL (1ull << 40)

/* A cursor over a memory buffer, one line at a time. */
struct lines {
	const char *p, *end;
	int no;
};

/* Copy the next line (without "\n" / "\r\n") into buf. Returns 1 with a line, 0 at the
 * end, -1 if the line is too long or holds a NUL byte (lineno is set either way). */
static int next_line(struct lines *L, char buf[LINE_MAX_LEN])
{
	const char *nl;
	size_t n;

	if (L->p >= L->end)
		return 0;
	nl = memchr(L->p, '\n', (size_t)(L->end - L->p));
	n = (size_t)((nl ? nl : L->end) - L->p);
	L->no++;
	if (n && L->p[n - 1] == '\r')
		n--;
	if (n >= LINE_MAX_LEN || memchr(L->p, '\0', n)) {
		L->p = nl ? nl + 1 : L->end;
		return -1;
	}
	memcpy(buf, L->p, n);
	buf[n] = '\0';
	L->p = nl ? nl + 1 : L->end;
	return 1;
}

static int skippable(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '\0' || *s == '#';
}

/* Split s in place at commas into at most max fields; returns the count (max + 1 if
 * there were more). */
static int split(char *s, char **f, int max)
{
	int n = 0;

	for (;;) {
		char *c = strchr(s, ',');
		if (n == max)
			return max + 1;
		f[n++] = s;
		if (!c)
			return n;
		*c = '\0';
		s = c + 1;
	}
}

static int valid_name(const char *s)
{
	if (!*s || strlen(s) >= sizeof(((gc_arch_tensor *)0)->name))
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 127)
			return 0;
	return 1;
}

/* "AxBxC" -> t->ndim, shape, numel. */
static gc_rc parse_shape(char *s, gc_arch_tensor *t)
{
	char *dims[5];
	int i, nd = 0;

	for (char *c = s;; c++) {
		if (nd == 5)
			return GC_E_FORMAT;
		dims[nd++] = c;
		c = strchr(c, 'x');
		if (!c)
			break;
		*c = '\0';
	}
	if (nd > 4)
		return GC_E_FORMAT;
	t->ndim = nd;
	t->numel = 1;
	for (i = 0; i < nd; i++) {
		uint64_t v;
		if (gc_parse_u64(dims[i], &v) || v == 0 || v > MAX_NUMEL)
			return GC_E_FORMAT;
		t->shape[i] = (size_t)v;
		if (v > MAX_NUMEL / (uint64_t)t->numel)
			return GC_E_FORMAT;
		t->numel *= (size_t)v;
	}
	return GC_OK;
}

static gc_rc append(gc_arch *a, size_t *cap, const gc_arch_tensor *t)
{
	if (GC_GROW(a->t, *cap, a->n + 1, 64))
		return GC_E_NOMEM;
	a->t[a->n++] = *t;
	a->numel += t->numel;
	a->flops_fwd += t->flops_fwd;
	return GC_OK;
}

/* One data row "I,NAME,SHAPE,NUMEL[,FLOPS]" into *t; nf fields expected. */
static gc_rc parse_row(char *line, int nf, size_t want_index, gc_arch_tensor *t,
		       const char *label, int no, gc_err *e)
{
	char *f[6] = { 0 };
	uint64_t idx, numel;
	int got = split(line, f, 5);
#define COL(i) (int)(f[i] - line + 1)

	memset(t, 0, sizeof(*t));
	if (got != nf)
		return gc_fail(e, GC_E_FORMAT, "%s:%d: expected %d comma-separated fields "
			       "(index,name,shape,numel%s), found %s%d", label, no, nf,
			       nf == 5 ? ",flops_fwd" : "", got > 5 ? "more than " : "",
			       got > 5 ? 5 : got);
	if (gc_parse_u64(f[0], &idx) || idx != want_index)
		return gc_fail(e, GC_E_FORMAT, "%s:%d:%d: field 1 (index) should be %zu (rows "
			       "are numbered 0, 1, 2, ... in order)", label, no, COL(0),
			       want_index);
	if (!valid_name(f[1]))
		return gc_fail(e, GC_E_FORMAT, "%s:%d:%d: field 2 (name) is empty, longer than "
			       "127 bytes, or holds spaces/control bytes", label, no, COL(1));
	gc_strlcpy(t->name, f[1], sizeof(t->name));
	if (parse_shape(f[2], t))
		return gc_fail(e, GC_E_FORMAT, "%s:%d:%d: field 3 (shape) is not 1 to 4 "
			       "positive integers joined by 'x' (like 64x3x7x7)", label, no,
			       COL(2));
	if (gc_parse_u64(f[3], &numel) || numel != t->numel)
		return gc_fail(e, GC_E_FORMAT, "%s:%d:%d: field 4 (numel) is not the product of "
			       "the shape (%zu)", label, no, COL(3), t->numel);
	if (nf == 5 && (gc_parse_double(f[4], &t->flops_fwd) || t->flops_fwd < 0))
		return gc_fail(e, GC_E_FORMAT, "%s:%d:%d: field 5 (flops_fwd) is not a finite "
			       "number >= 0", label, no, COL(4));
	return GC_OK;
#undef COL
}

/* The header line: 4 or 5 fields, or 0 if it is not a header. */
static int header_fields(const char *line)
{
	if (!strcmp(line, "index,name,shape,numel"))
		return 4;
	if (!strcmp(line, "index,name,shape,numel,flops_fwd"))
		return 5;
	return 0;
}

static int cmp_tensor_ptr(const void *x, const void *y)
{
	const gc_arch_tensor *a = *(const gc_arch_tensor *const *)x;
	const gc_arch_tensor *b = *(const gc_arch_tensor *const *)y;
	return strcmp(a->name, b->name);
}

/* Pointers to a's tensors sorted by name (caller frees); NULL if out of memory. */
static const gc_arch_tensor **sorted_index(const gc_arch *a)
{
	const gc_arch_tensor **ix = malloc((a->n ? a->n : 1) * sizeof(*ix));
	size_t i;

	if (!ix)
		return NULL;
	for (i = 0; i < a->n; i++)
		ix[i] = &a->t[i];
	qsort(ix, a->n, sizeof(*ix), cmp_tensor_ptr);
	return ix;
}

static gc_rc check_unique(const gc_arch *a, const char *label, gc_err *e)
{
	const gc_arch_tensor **ix = sorted_index(a);
	gc_rc rc = GC_OK;
	size_t i;

	if (!ix)
		return gc_fail(e, GC_E_NOMEM, "%s: out of memory", label);
	for (i = 1; i < a->n && !rc; i++)
		if (!strcmp(ix[i - 1]->name, ix[i]->name))
			rc = gc_fail(e, GC_E_FORMAT, "%s: rows %zu and %zu have the same tensor "
				     "name; every parameter appears once", label,
				     (size_t)(ix[i - 1] - a->t), (size_t)(ix[i] - a->t));
	free(ix);
	return rc;
}

static gc_rc parse_rows(struct lines *L, gc_arch *out, const char *label, gc_err *e)
{
	char line[LINE_MAX_LEN];
	size_t cap = 0;
	int nf = 0, r;
	gc_rc rc;

	while ((r = next_line(L, line)) != 0) {
		gc_arch_tensor t;
		if (r < 0)
			return gc_fail(e, GC_E_FORMAT, "%s:%d: line longer than %d bytes or "
				       "holding a NUL byte", label, L->no, LINE_MAX_LEN - 1);
		if (skippable(line))
			continue;
		if (!nf) {
			if (!(nf = header_fields(line)))
				return gc_fail(e, GC_E_FORMAT, "%s:%d:1: expected the header "
					       "'index,name,shape,numel' (optionally ',flops_fwd') "
					       "as the first line that is not blank or a # comment; "
					       "is this a model CSV?", label, L->no);
			continue;
		}
		if (out->n >= MAX_TENSORS)
			return gc_fail(e, GC_E_FORMAT, "%s:%d: more than %u tensors", label,
				       L->no, MAX_TENSORS);
		if ((rc = parse_row(line, nf, out->n, &t, label, L->no, e)))
			return rc;
		if (out->numel + t.numel > MAX_NUMEL)
			return gc_fail(e, GC_E_FORMAT, "%s:%d: more than 2^40 parameters in all",
				       label, L->no);
		if (append(out, &cap, &t))
			return gc_fail(e, GC_E_NOMEM, "%s: out of memory", label);
	}
	if (!out->n)
		return gc_fail(e, GC_E_FORMAT, "%s: no tensors (%s); expected a header "
			       "'index,name,shape,numel' and one row per parameter tensor",
			       label, nf ? "only a header" : "no header either");
	return GC_OK;
}

gc_rc gc_arch_parse_csv(const char *buf, size_t len, const char *label, gc_arch *out,
			gc_err *e)
{
	struct lines L = { buf, buf + len, 0 };
	const char *base;
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	if (!label)
		label = "(csv)";
	rc = parse_rows(&L, out, label, e);
	if (!rc)
		rc = check_unique(out, label, e);
	if (rc) {
		gc_arch_release(out);
		return rc;
	}
	base = strrchr(label, '/');
	gc_strlcpy(out->name, base ? base + 1 : label, sizeof(out->name));
	return GC_OK;
}

/* Read a whole file (at most 256 MiB) into a malloc'd buffer. */
/* The most a model CSV or profile may hold: it is untrusted input. */
#define GC_ARCH_FILE_MAX (256u << 20)

/* Read path whole (NUL-terminated) within GC_ARCH_FILE_MAX. */
static gc_rc slurp(const char *path, char **buf, size_t *len, gc_err *e)
{
	unsigned char *b;
	gc_rc rc = gc_read_whole(path, NULL, GC_ARCH_FILE_MAX, &b, len, e);

	*buf = (char *)b;
	return rc;
}

gc_rc gc_arch_load_csv(const char *path, gc_arch *out, gc_err *e)
{
	char *buf;
	size_t len;
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	if (!path || !*path)
		return gc_fail(e, GC_E_INVAL, "csv: needs a path, like csv:models/mine.csv");
	if ((rc = slurp(path, &buf, &len, e)))
		return rc;
	rc = gc_arch_parse_csv(buf, len, path, out, e);
	free(buf);
	return rc;
}

/* ---- measured backward profiles -------------------------------------------- */

struct profile {
	const gc_arch *a;
	const gc_arch_tensor **ix;   /* a's tensors sorted by name */
	double *t;                   /* new t_bwd, by tensor index */
	int *line;                   /* line that set it, 0 if not yet */
};

static gc_rc profile_line(struct profile *P, char *line, const char *path, int no, gc_err *e)
{
	gc_arch_tensor key, *kp = &key;
	const gc_arch_tensor **hit;
	char *f[3] = { 0 };
	double v;
	size_t i;

	int nf = split(line, f, 2);

	if (nf != 2)
		return gc_fail(e, GC_E_FORMAT, "%s:%d: expected 2 comma-separated fields "
			       "'name,seconds' (after an optional header 'name,t_bwd_seconds'), "
			       "found %s%d", path, no, nf > 2 ? "more than " : "", nf > 2 ? 2 : nf);
	if (gc_strlcpy(key.name, f[0], sizeof(key.name)) >= sizeof(key.name) ||
	    !(hit = bsearch(&kp, P->ix, P->a->n, sizeof(*P->ix), cmp_tensor_ptr)))
		return gc_fail(e, GC_E_NOTFOUND, "%s:%d:1: field 1 (name) is not a parameter of "
			       "'%s'; names must match the architecture's (gcbench whatif uses "
			       "the names of data/models/*.csv)", path, no, P->a->name);
	i = (size_t)(*hit - P->a->t);
	if (P->line[i])
		return gc_fail(e, GC_E_FORMAT, "%s:%d:1: tensor '%s' of '%s' appears again "
			       "(first on line %d); give each tensor once", path, no,
			       (*hit)->name, P->a->name, P->line[i]);
	if (gc_parse_double(f[1], &v) || v < 0)
		return gc_fail(e, GC_E_FORMAT, "%s:%d:%d: field 2 (seconds) of tensor '%s' is "
			       "not a number >= 0", path, no, (int)(f[1] - line + 1),
			       (*hit)->name);
	P->t[i] = v;
	P->line[i] = no;
	return GC_OK;
}

static gc_rc profile_parse(struct profile *P, const char *buf, size_t len, const char *path,
			   gc_err *e)
{
	struct lines L = { buf, buf + len, 0 };
	char line[LINE_MAX_LEN];
	int r, first = 1;
	size_t i;
	gc_rc rc;

	while ((r = next_line(&L, line)) != 0) {
		if (r < 0)
			return gc_fail(e, GC_E_FORMAT, "%s:%d: line longer than %d bytes or "
				       "holding a NUL byte", path, L.no, LINE_MAX_LEN - 1);
		if (skippable(line))
			continue;
		if (first && !strcmp(line, "name,t_bwd_seconds")) {
			first = 0;
			continue;
		}
		first = 0;
		if ((rc = profile_line(P, line, path, L.no, e)))
			return rc;
	}
	for (i = 0; i < P->a->n; i++)
		if (!P->line[i])
			return gc_fail(e, GC_E_FORMAT, "%s: tensor '%s' (index %zu) has no time; "
				       "every tensor of '%s' must appear once", path,
				       P->a->t[i].name, i, P->a->name);
	return GC_OK;
}

gc_rc gc_arch_load_profile(gc_arch *a, const char *path, gc_err *e)
{
	struct profile P = { a, NULL, NULL, NULL };
	char *buf = NULL;
	size_t len, i;
	gc_rc rc;

	if ((rc = slurp(path, &buf, &len, e)))
		return rc;
	P.ix = sorted_index(a);
	P.t = calloc(a->n + 1, sizeof(*P.t));
	P.line = calloc(a->n + 1, sizeof(*P.line));
	if (!P.ix || !P.t || !P.line)
		rc = gc_fail(e, GC_E_NOMEM, "cannot load profile '%s': out of memory", path);
	else
		rc = profile_parse(&P, buf, len, path, e);
	if (!rc)
		for (i = 0; i < a->n; i++)
			a->t[i].t_bwd = P.t[i];
	free(P.ix);
	free(P.t);
	free(P.line);
	free(buf);
	return rc;
}

#include "table.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>

void gc_table_init(gc_table *t, int ncol, const char *const *head, const char *align, int wrap)
{
	memset(t, 0, sizeof(*t));
	t->ncol = ncol < GC_TABLE_MAX_COLS ? ncol : GC_TABLE_MAX_COLS;
	t->wrap = wrap < t->ncol ? wrap : -1;
	for (int i = 0; i < t->ncol; i++) {
		t->head[i] = head[i];
		t->align[i] = align && align[i] == 'l' ? 'l' : 'r';
	}
}

int gc_table_add(gc_table *t, const char *const *row)
{
	size_t base = t->n * (size_t)t->ncol;

	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 16;
		char **c = realloc(t->cells, nc * (size_t)t->ncol * sizeof(*c));
		if (!c)
			return t->oom = 1, -1;
		t->cells = c;
		t->cap = nc;
	}
	for (int i = 0; i < t->ncol; i++) {
		if (!(t->cells[base + (size_t)i] = strdup(row[i] ? row[i] : "-"))) {
			while (i--)
				free(t->cells[base + (size_t)i]);
			return t->oom = 1, -1;
		}
	}
	t->n++;
	return 0;
}

static const char *cell(const gc_table *t, size_t r, int i)
{
	return t->cells[r * (size_t)t->ncol + (size_t)i];
}

static void widths(const gc_table *t, int width, int *w)
{
	int others = t->ncol - 1, longest = 0, k = t->wrap;

	for (int i = 0; i < t->ncol; i++)
		w[i] = (int)strlen(t->head[i]);
	for (size_t r = 0; r < t->n; r++)
		for (int i = 0; i < t->ncol; i++) {
			int l = (int)strlen(cell(t, r, i));
			w[i] = l > w[i] ? l : w[i];
		}
	if (k < 0)
		return;
	for (int i = 0; i < t->ncol; i++)
		others += i == k ? 0 : w[i];
	longest = (int)strlen(t->head[k]);
	for (size_t r = 0; r < t->n; r++)
		for (const char *p = cell(t, r, k); *p;) {
			int l = (int)strcspn(p, ",");
			longest = l > longest ? l : longest;
			p += l + (p[l] == ',');
		}
	if (w[k] > width - others) {
		w[k] = width - others;
		w[k] = w[k] < GC_TABLE_WRAP_MIN ? GC_TABLE_WRAP_MIN : w[k];
		w[k] = w[k] < longest ? longest : w[k];
	}
}

/* The next line of s for width w: its length (ending after a comma when wrapped);
 * *next gets where the following line starts. */
static int wrap_line(const char *s, int w, const char **next)
{
	int len = (int)strlen(s), cut = 0;

	if (len <= w) {
		*next = s + len;
		return len;
	}
	for (int i = 0; i < len && i < w; i++)
		if (s[i] == ',')
			cut = i + 1;
	if (!cut)   /* one item longer than w: cannot happen (w >= longest item) */
		cut = (int)strcspn(s, ",") + (s[strcspn(s, ",")] == ',');
	*next = s + cut;
	return cut;
}

static void print_line(const gc_table *t, FILE *f, const char *const *v, const int *w)
{
	const char *rest = t->wrap >= 0 ? v[t->wrap] : "";
	int pl = t->wrap >= 0 ? wrap_line(rest, w[t->wrap], &rest) : 0, indent = 0;

	for (int i = 0; i < t->ncol; i++) {
		const char *sep = i ? " " : "";
		int last = i == t->ncol - 1;
		if (i < t->wrap)
			indent += w[i] + 1;
		if (i == t->wrap && last)
			fprintf(f, "%s%.*s", sep, pl, v[i]);
		else if (i == t->wrap)
			fprintf(f, "%s%-*.*s", sep, w[i], pl, v[i]);
		else if (last && t->align[i] == 'l')
			fprintf(f, "%s%s", sep, v[i]);
		else
			fprintf(f, t->align[i] == 'l' ? "%s%-*s" : "%s%*s", sep, w[i], v[i]);
	}
	fputc('\n', f);
	while (*rest) {   /* continuation lines: the wrapping column only */
		const char *line = rest;
		pl = wrap_line(line, w[t->wrap], &rest);
		fprintf(f, "%*s%.*s\n", indent, "", pl, line);
	}
}

void gc_table_print(const gc_table *t, FILE *f, int width)
{
	int w[GC_TABLE_MAX_COLS];

	widths(t, width, w);
	print_line(t, f, t->head, w);
	for (size_t r = 0; r < t->n; r++)
		print_line(t, f, (const char *const *)&t->cells[r * (size_t)t->ncol], w);
}

static void md_row(const gc_table *t, FILE *f, const char *const *v)
{
	for (int i = 0; i < t->ncol; i++)
		fprintf(f, "| %s ", v[i]);
	fputs("|\n", f);
}

void gc_table_markdown(const gc_table *t, FILE *f)
{
	md_row(t, f, t->head);
	for (int i = 0; i < t->ncol; i++)
		fputs(t->align[i] == 'l' ? "|---" : "|--:", f);
	fputs("|\n", f);
	for (size_t r = 0; r < t->n; r++)
		md_row(t, f, (const char *const *)&t->cells[r * (size_t)t->ncol]);
}

void gc_table_release(gc_table *t)
{
	for (size_t i = 0; i < t->n * (size_t)t->ncol; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

/* A plain decimal number: optional '-', digits, optional '.' and digits. */
static int is_number(const char *c, double *v)
{
	const char *p = c + (*c == '-');
	size_t d = strspn(p, "0123456789");
	char *end;

	if (!d || (p[d] && (p[d] != '.' || !p[d + 1] ||
			    p[d + 1 + strspn(p + d + 1, "0123456789")])))
		return 0;
	*v = strtod(c, &end);
	return !*end && isfinite(*v);
}

void gc_table_json(const gc_table *t, gc_json *j)
{
	double v;

	gc_json_arr_open(j);
	for (size_t r = 0; r < t->n; r++) {
		gc_json_obj_open(j);
		for (int i = 0; i < t->ncol; i++) {
			const char *c = cell(t, r, i);
			gc_json_key(j, t->head[i]);
			if (!strcmp(c, "-"))
				gc_json_null(j);
			else if (is_number(c, &v))
				gc_json_numg(j, v, 15);
			else
				gc_json_str(j, c);
		}
		gc_json_obj_close(j);
	}
	gc_json_arr_close(j);
}

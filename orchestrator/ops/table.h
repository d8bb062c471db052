/* orchestrator/ops/table.h: the text tables of the CLI (run's summary, regress, history,
 * status), sized to their content and kept within a width.
 *
 * Every column is as wide as its widest cell; one column (the params) may wrap at its
 * commas onto continuation lines, so that the table fits `width` columns: it gets what
 * the others leave, but never less than GC_TABLE_WRAP_MIN nor its longest item. A
 * table whose other columns alone exceed the width is printed wider rather than cut.
 */
#ifndef GC_TABLE_H
#define GC_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "json.h"

#define GC_TABLE_MAX_COLS 16
#define GC_TABLE_WRAP_MIN 16

typedef struct gc_table {
	int ncol;
	int wrap;                           /* the column that wraps at commas, or -1 */
	const char *head[GC_TABLE_MAX_COLS];
	char align[GC_TABLE_MAX_COLS];      /* 'l' or 'r' */
	char **cells;                       /* n rows of ncol owned strings */
	size_t n, cap;
	int oom;                            /* a row could not be stored */
} gc_table;

/* align: one 'l' or 'r' per column ("llrr"). */
void gc_table_init(gc_table *t, int ncol, const char *const *head, const char *align, int wrap);
/* Copy one row of ncol cells (NULL prints as "-"). Returns -1 (and sets oom) when out of
 * memory. */
int gc_table_add(gc_table *t, const char *const *row);
/* The header and every row, within width columns. */
void gc_table_print(const gc_table *t, FILE *f, int width);
/* As a markdown table (no wrapping). */
void gc_table_markdown(const gc_table *t, FILE *f);
/* As JSON into j: an array with one object per row, keyed by the header; a cell "-"
 * is null, a cell that is a plain decimal number is a number, any other a string. */
void gc_table_json(const gc_table *t, gc_json *j);
void gc_table_release(gc_table *t);

#endif

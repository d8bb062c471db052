/* orchestrator/run_summary.c: the speedup table `gcbench run` prints after a sweep.
 * Column widths come from the content; the params column shows only what differs from
 * the method's defaults and wraps at commas so the table fits GC_SUMMARY_WIDTH. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db/db.h"
#include "kernels/compress.h"
#include "log.h"
#include "orchestrator/run.h"
#include "orchestrator/table.h"
#include "strutil.h"

#define NCOL 8
#define PCOL 2            /* the params column */

static const char *const head[NCOL] = { "model", "method", "params", "bandwidth", "world",
					"iter_ms", "base_ms", "speedup" };

/* 1 if "k=v" (len bytes at tok) is one of the comma-separated items of list */
static int has_item(const char *list, const char *tok, size_t len)
{
	for (const char *p = list; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == len && !strncmp(p, tok, len))
			return 1;
		p += n + (end ? 1 : 0);
	}
	return 0;
}

void gc_params_brief(const char *method, const char *params, char *out, size_t n)
{
	gc_method m;
	gc_params d;
	char def[256];
	size_t o = 0;

	if (!n)
		return;
	out[0] = '\0';
	if (!params || !*params || gc_method_parse(method, &m)) {
		gc_strlcpy(out, params && *params ? params : "-", n);
		return;
	}
	gc_params_default(&d, m);
	gc_params_format(&d, def, sizeof(def));
	for (const char *p = params; *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (!has_item(def, p, len) && o + len + 2 <= n) {
			if (o)
				out[o++] = ',';
			memcpy(out + o, p, len);
			o += len;
			out[o] = '\0';
		}
		p += len + (end ? 1 : 0);
	}
	if (!o)
		gc_strlcpy(out, "defaults", n);
}

/* sqlite3_exec callback: one row of the speedup view, params shortened */
static int add_row(void *arg, int ncol, char **v, char **col)
{
	gc_table *t = arg;
	char brief[256];
	const char *row[NCOL];

	(void)col;
	if (ncol != NCOL)
		return 1;
	gc_params_brief(v[1] ? v[1] : "", v[2], brief, sizeof(brief));
	for (int i = 0; i < NCOL; i++)
		row[i] = i == PCOL ? brief : v[i];
	return gc_table_add(t, row) ? 1 : 0;
}

int gc_run_summary_print(struct gc_db *db, int64_t sweep_id, FILE *f)
{
	char sql[1024], *err = NULL;
	gc_table t;
	int n;

	gc_table_init(&t, NCOL, head, "lllrrrrr", PCOL);
	snprintf(sql, sizeof(sql),
		 "SELECT model, method, params, CASE WHEN bw_cap_bps = 0 THEN 'unlimited' ELSE "
		 "printf('%%.3gGbit', bw_cap_bps / 1e9) END, world_size, printf('%%.1f', t_iter * 1e3), "
		 "printf('%%.1f', t_iter_baseline * 1e3), printf('%%.2fx', speedup) FROM speedup "
		 "WHERE (model, method, params, bw_cap_bps, world_size, batch) IN (SELECT model, method, "
		 "params, bw_cap_bps, world_size, batch FROM runs WHERE sweep_id = %lld) "
		 "ORDER BY model, bw_cap_bps, method, params", (long long)sweep_id);
	if (sqlite3_exec(gc_db_handle(db), sql, add_row, &t, &err) != SQLITE_OK) {
		gc_warn("cannot print the summary: %s", t.oom ? "out of memory" : err ? err : "?");
		sqlite3_free(err);
		gc_table_release(&t);
		return -1;
	}
	fprintf(f, "\n");
	gc_table_print(&t, f, GC_SUMMARY_WIDTH);
	if (!t.n)
		fprintf(f, "(no point finished with its baseline)\n");
	fprintf(f, "\nparams: only those that differ from the method's defaults "
		"(docs/kernels.md); runs.params has all\n"
		"speedup = baseline median iteration time / method's (> 1: the method is faster)\n");
	n = (int)t.n;
	gc_table_release(&t);
	return n;
}

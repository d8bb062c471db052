/* gcbench report: a self-contained HTML page and a markdown file with the plots and
 * tables of a results database (report/report.h, docs/report.md). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "report/report.h"

static const char *db_path = "gcbench.db", *out = "gcbench-report";
static const struct gc_option report_opts[] = {
	GC_OPTION_STRING("--db", NULL, &db_path, "FILE",
			 "results database (default gcbench.db), opened read-only"),
	GC_OPTION_STRING("--out", NULL, &out, "DIR",
			 "output directory (default gcbench-report, in the current directory;\n"
			 "created if missing; files in it are replaced)"),
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench report [--db FILE] [--out DIR]\n\n"
		"Write DIR/index.html (one page, inline SVG, no scripts or external resources),\n"
		"DIR/report.md (the same tables) and one SVG file per chart, from a results database:\n"
		"  - speedup over sync SGD vs bandwidth, one chart per model, the 1.0 line marked;\n"
		"  - training sweeps: validation accuracy vs training seconds per model and cap,\n"
		"    the target marked, iteration and time-to-target speedups, who never got there;\n"
		"  - the iteration-time breakdown per method at each bandwidth (compute, encode,\n"
		"    exposed communication, decode, optimizer);\n"
		"  - predicted vs measured iteration time with y = x (run `gcbench model` first);\n"
		"  - win/lose maps over bandwidth x workers: measured when the database has several\n"
		"    world sizes, else the performance model's what-if.\n\n"
		"options:\n");
	gc_opts_usage(f, report_opts, sizeof report_opts / sizeof report_opts[0], 14);
	fprintf(f, "\n"
		"example:\n"
		"  gcbench model --db q.db && gcbench report --db q.db --out q-report &&\n"
		"      xdg-open q-report/index.html\n");
}

int cmd_report(int argc, char **argv)
{
	gc_report_stats st;
	gc_db *db = NULL;
	gc_err e = { "" };
	gc_opts o;
	int c;

	gc_opts_decl_init(&o, "gcbench report", report_opts,
			  sizeof report_opts / sizeof report_opts[0], argc, argv, NULL);
	if ((c = gc_opts_parse_all(&o)) != GC_OPTS_END)
		return gc_cli_opts_stop(&o, c, usage);
	if (!*out) {
		gc_error("empty --out DIR; see 'gcbench report --help'");
		return GC_EXIT_USAGE;
	}
	if (gc_db_open(db_path, GC_DB_READONLY, &db, &e) ||
	    gc_report_write(db, db_path, out, &st, &e)) {
		gc_error("cannot write the report of '%s' to '%s': %s", db_path, out, e.msg);
		gc_db_close(db);
		return GC_EXIT_ENV;
	}
	gc_db_close(db);
	printf("wrote %s/index.html, %s/report.md and %zu charts (%zu ok runs, %zu predictions%s)\n",
	       out, out, st.charts, st.ok_runs, st.predictions,
	       st.predictions ? "" : ": run 'gcbench model' for the predicted vs measured plot");
	return GC_EXIT_OK;
}

/* tests/unit/test_report.c: the SVG writer (report/svg.h) and the report
 * (report/report.h): escaping, empty charts, coordinates of known data, and whole
 * reports of small databases built through db/db.h.
 *
 * `test_report --make-db PATH [WORLD_SIZES]` writes a small database (resnet50, sync
 * SGD, signSGD and PowerSGD at 1 and 10 Gbit/s, a model name that needs escaping) and
 * exits: used by tests/integration/test_report_page.sh. */
#include <dirent.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/db.h"
#include "db/db_internal.h"   /* gc_db_handle, gc_db_exec: the fixtures' SQL */
#include "harness.h"
#include "model/predict_db.h"
#include "report/report.h"
#include "report/svg.h"
#include "model/whatif.h"
#include "strutil.h"

static void test_escape(void)
{
	gc_buf b = { 0 };

	gc_svg_esc(&b, "<a href='x'>&\"</a>");
	CHECK_STR(b.p, "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
	gc_buf_release(&b);
	gc_svg_esc(&b, "ctl\x01z");
	CHECK_STR(b.p, "ctl?z");
	gc_buf_release(&b);
}

static void test_nice_axes(void)
{
	gc_svg_axis ax = { 0, 0, 0, 100, 0 };
	double t[32];
	size_t n;

	n = gc_svg_nice(0, 10, 0, &ax, t, 32);
	CHECK_NEAR(ax.lo, 0, 1e-12);
	CHECK_NEAR(ax.hi, 10, 1e-12);
	CHECK_EQ_INT(n, 6);                 /* 0 2 4 6 8 10 */
	CHECK_NEAR(gc_svg_map(&ax, 5), 50, 1e-9);
	n = gc_svg_nice(0.13, 1.87, 0, &ax, t, 32);
	CHECK(ax.lo <= 0.13 && ax.hi >= 1.87 && n >= 3);
	n = gc_svg_nice(1, 30, 1, &ax, t, 32);
	CHECK(ax.log);
	CHECK_NEAR(ax.lo, 1, 1e-12);
	CHECK_NEAR(ax.hi, 100, 1e-9);
	CHECK_NEAR(gc_svg_map(&ax, 10), 50, 1e-9);
	CHECK(n >= 3);
	n = gc_svg_nice(3, 3, 0, &ax, t, 32);       /* one value: a range around it */
	CHECK(ax.lo < 3 && ax.hi > 3 && n >= 2);
}

/* Known data: x 0..10 and y 0..2 fill the plot area exactly, so (5, 1) is its centre. */
static void test_xy_coordinates(void)
{
	static const double x[] = { 0, 5, 10 }, y[] = { 0, 1, 2 };
	gc_svg_series s = { "m<1>", x, y, 3 };
	gc_svg_xy c = { 0 };
	gc_buf b = { 0 };
	char want[64];

	c.title = "T & t", c.xlabel = "bw (Gbit/s)", c.ylabel = "speedup (x)";
	c.s = &s, c.ns = 1, c.hline_on = 1, c.hline = 1, c.hline_label = "1.0 = sync SGD";
	gc_svg_xy_chart(&b, &c);
	CHECK(b.p && !b.oom);
	snprintf(want, sizeof want, "cx=\"%.1f\" cy=\"%.1f\"", (GC_SVG_PL + GC_SVG_PR) / 2,
		 (GC_SVG_PT + GC_SVG_PB) / 2);
	CHECK_CONTAINS(b.p, want);
	snprintf(want, sizeof want, "M%.1f %.1f L", GC_SVG_PL, GC_SVG_PB);
	CHECK_CONTAINS(b.p, want);
	snprintf(want, sizeof want, "y1=\"%.1f\"", (GC_SVG_PT + GC_SVG_PB) / 2);   /* y = 1 */
	CHECK_CONTAINS(strstr(b.p, "class=\"hline\""), want);
	CHECK_CONTAINS(b.p, "<title>T &amp; t</title>");
	CHECK_CONTAINS(b.p, ">m&lt;1&gt;</text>");             /* legend, escaped */
	CHECK(!strstr(b.p, "m<1>"));
	CHECK_CONTAINS(b.p, "bw (Gbit/s)");
	CHECK(!strstr(b.p, "no data"));
	CHECK(!strncmp(b.p, "<svg ", 5) && strstr(b.p, "</svg>\n") == b.p + b.len - 7);
	gc_buf_release(&b);
}

static void test_scatter_diag(void)
{
	static const double x[] = { 100, 200 }, y[] = { 110, 190 };
	gc_svg_series s = { "syncsgd", x, y, 2 };
	gc_svg_xy c = { 0 };
	gc_buf b = { 0 };

	c.title = "P", c.xlabel = "measured (ms)", c.ylabel = "predicted (ms)";
	c.scatter = 1, c.diag = 1, c.s = &s, c.ns = 1;
	gc_svg_xy_chart(&b, &c);
	CHECK_CONTAINS(b.p, "class=\"diag\"");
	CHECK_CONTAINS(b.p, "y = x");
	CHECK(!strstr(b.p, "<path class=\"series\""));        /* markers only */
	CHECK_CONTAINS(b.p, "<circle");
	gc_buf_release(&b);
}

static void test_empty_charts_say_so(void)
{
	gc_svg_xy c = { 0 };
	gc_svg_bars bars = { 0 };
	gc_svg_heat h = { 0 };
	gc_svg_series s = { "all NaN", (const double[]){ NAN }, (const double[]){ 1 }, 1 };
	gc_buf b = { 0 };

	c.title = "Empty", c.xlabel = "x", c.ylabel = "y", c.empty_hint = "run <gcbench model>";
	gc_svg_xy_chart(&b, &c);
	CHECK_CONTAINS(b.p, ">no data</text>");
	CHECK_CONTAINS(b.p, "run &lt;gcbench model&gt;");
	CHECK_CONTAINS(b.p, "</svg>");
	gc_buf_release(&b);
	c.s = &s, c.ns = 1, c.xlog = 1;
	gc_svg_xy_chart(&b, &c);
	CHECK_CONTAINS(b.p, ">no data</text>");
	gc_buf_release(&b);
	bars.title = "Bars", bars.nstacks = 2;
	gc_svg_bar_chart(&b, &bars);
	CHECK_CONTAINS(b.p, ">no data</text>");
	gc_buf_release(&b);
	h.title = "Heat";
	gc_svg_heat_map(&b, &h);
	CHECK_CONTAINS(b.p, ">no data</text>");
	CHECK_CONTAINS(b.p, "<title>Heat</title>");
	gc_buf_release(&b);
}

/* Two groups of two bars of two segments: heights proportional to the values. */
static void test_bars(void)
{
	static const char *const g[] = { "1 Gbit/s", "10 Gbit/s" }, *const m[] = { "a", "b&c" },
			  *const s[] = { "compute", "comm" };
	static const double v[] = { 1, 1, 0.5, 0.5, 1, 0, NAN, NAN };
	gc_svg_bars c = { "B", "bw", "s", "", 2, 2, 2, g, m, s, v };
	gc_buf b = { 0 };
	char want[80];

	gc_svg_bar_chart(&b, &c);
	CHECK(b.p && !strstr(b.p, "no data"));
	/* max stack 2 -> axis 0..2; the first segment of bar a (1 s) is half the height */
	snprintf(want, sizeof want, "height=\"%.1f\"", (GC_SVG_PB - GC_SVG_PT) / 2);
	CHECK_CONTAINS(b.p, want);
	CHECK_CONTAINS(b.p, "2 = b&amp;c");
	CHECK_CONTAINS(b.p, "b&amp;c @ 1 Gbit/s: comm 0.5");
	CHECK(!strstr(b.p, "b&amp;c @ 10 Gbit/s"));         /* NaN: the bar is missing */
	CHECK(!strstr(b.p, "b&c"));
	gc_buf_release(&b);
}

static void test_heat(void)
{
	static const char *const x[] = { "1", "10" }, *const y[] = { "4", "8" };
	static const double v[] = { 1.5, 0.5, NAN, 1.0 };
	gc_svg_heat h = { "H", "bw", "p", "", 2, 2, x, y, v, 1 };
	gc_buf b = { 0 };

	gc_svg_heat_map(&b, &h);
	CHECK_CONTAINS(b.p, ">1.50</text>");
	CHECK_CONTAINS(b.p, ">0.50</text>");
	CHECK_CONTAINS(b.p, "8, 1: no data");
	CHECK_CONTAINS(b.p, "compression wins");
	gc_buf_release(&b);
}

static void test_labels(void)
{
	char s[96];

	gc_report_short_label("powersgd", "ef=1,rank=4,warm_start=1,min_compression=2,seed=42", s,
			      sizeof s);
	CHECK_STR(s, "powersgd rank=4");
	gc_report_short_label("mstopk", "ef=1,ratio=0.01,rounds=20", s, sizeof s);
	CHECK_STR(s, "mstopk ratio=0.01");
	gc_report_short_label("signsgd", "ef=1,scaled=1", s, sizeof s);
	CHECK_STR(s, "signsgd scaled");
	gc_report_short_label("syncsgd", "", s, sizeof s);
	CHECK_STR(s, "syncsgd");
	gc_report_slug("../a b/<x>", s, sizeof s);
	CHECK_STR(s, "_._a_b__x_");
}

#define GBIT 1000000000ull

/* One ok run with 2 ranks x 4 post-warmup iterations of iteration time t. */
static gc_rc add_run(gc_db *db, int64_t sweep, const char *model, const char *method,
		     const char *params, int p, uint64_t cap, double t)
{
	struct gc_db_run r = { sweep, "key", "replay", model, method, params, p, p, 32, cap, 0,
			       "mpi", 1, 4, 1, 0, 0, NULL, NULL };
	sqlite3_stmt *st = NULL;
	int64_t id;
	int rank, it;
	gc_rc rc;

	if ((rc = gc_db_run_begin(db, &r, &id, NULL)))
		return rc;
	if (sqlite3_prepare_v2(gc_db_handle(db), "INSERT INTO iterations VALUES (?1, ?2, ?3, ?4, "
			       "0, ?5, ?6, ?7, ?7, ?8, ?8, 0.002, ?9, 0, 0, 1000, 1000)", -1, &st, NULL))
		return GC_E_DB;
	for (rank = 0; rank < 2; rank++)
		for (it = 0; it < 5; it++) {
			sqlite3_bind_int64(st, 1, id);
			sqlite3_bind_int(st, 2, rank);
			sqlite3_bind_int(st, 3, it);
			sqlite3_bind_int(st, 4, it < 1);
			sqlite3_bind_double(st, 5, 0.03);
			sqlite3_bind_double(st, 6, 0.06);
			sqlite3_bind_double(st, 7, strcmp(method, "syncsgd") ? 0.01 * t : 0);
			sqlite3_bind_double(st, 8, t * 0.5);
			sqlite3_bind_double(st, 9, t * (1 + 0.01 * it));
			if (sqlite3_step(st) != SQLITE_DONE)
				rc = GC_E_DB;
			sqlite3_reset(st);
		}
	sqlite3_finalize(st);
	if (!rc)
		rc = gc_db_link_add(db, id, "n1", "n2", cap, 0.95 * (double)cap, 40e-6, NULL);
	return rc ? rc : gc_db_run_end(db, id, GC_RUN_OK, NULL, NULL, NULL);
}

/* resnet50 x {syncsgd, signsgd, powersgd rank 4} x {1, 10} Gbit/s x world sizes, plus
 * a model whose name needs escaping and a failed run. */
static gc_rc make_db(const char *path, int nworld)
{
	static const char *const m[][2] = { { "syncsgd", "" }, { "signsgd", "ef=0,scaled=0" },
		{ "powersgd", "ef=1,rank=4,warm_start=1,min_compression=2,seed=42" } };
	gc_db *db = NULL;
	int64_t s, id;
	int i, c, w;
	gc_rc rc;
	struct gc_db_run bad = { 0, "k", "replay", "resnet50", "topk", "ratio=0.01", 4, 4, 32,
				 GBIT, 0, "mpi", 1, 4, 1, 0, 0, NULL, NULL };

	unlink(path);
	if ((rc = gc_db_open(path, 0, &db, NULL)))
		return rc;
	if ((rc = gc_db_sweep_begin(db, "t", "spec", "hash", "syncsgd", &s, NULL)))
		goto out;
	for (w = 0; w < nworld && !rc; w++)
		for (i = 0; i < 3 && !rc; i++)
			for (c = 0; c < 2 && !rc; c++)
				rc = add_run(db, s, "resnet50", m[i][0], m[i][1], 4 << w,
					     c ? 10 * GBIT : GBIT,
					     (c ? 0.3 : 1.2) * (i ? 0.6 + 0.2 * c * i : 1) * (1 + 0.2 * w));
	if (!rc)
		rc = add_run(db, s, "<b>&\"evil'", "syncsgd", "", 4, GBIT, 1.0);
	if (!rc)
		rc = add_run(db, s, "<b>&\"evil'", "signsgd", "x=<i>", 4, GBIT, 0.5);
	bad.sweep_id = s;
	if (!rc && !(rc = gc_db_run_begin(db, &bad, &id, NULL)))
		rc = gc_db_run_end(db, id, GC_RUN_FAILED, "boom", NULL, NULL);
out:
	gc_db_close(db);
	return rc;
}

static char tmpdir[256];

static char *slurp(const char *dir, const char *name)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "rb")))
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

static size_t occurrences(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; hay && (hay = strstr(hay, needle)); hay += strlen(needle))
		n++;
	return n;
}

/* Build the database, optionally predict, then write the report into tmpdir/NAME. */
static gc_rc report_of(int nworld, int predict, const char *name, gc_report_stats *st,
		       char *dir, size_t n)
{
	char db_path[512];
	gc_db *db = NULL;
	gc_pdb p;
	gc_rc rc;

	snprintf(db_path, sizeof db_path, "%s/%s.db", tmpdir, name);
	snprintf(dir, n, "%s/%s", tmpdir, name);
	if ((rc = make_db(db_path, nworld)) || (rc = gc_db_open(db_path, 0, &db, NULL)))
		return rc;
	memset(&p, 0, sizeof p);
	if (predict)
		rc = gc_pdb_run(db, 1, &p, NULL);
	gc_pdb_release(&p);
	if (!rc)
		rc = gc_report_write(db, "test <db>", dir, st, NULL);
	gc_db_close(db);
	return rc;
}

/* Every figure is inlined once, written as a file and linked from the markdown. */
static void check_figures(const char *dir, const char *html, const char *md, size_t n)
{
	struct dirent *d;
	size_t files = 0;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp)))
		if (!strncmp(d->d_name, "fig-", 4)) {
			char link[300];
			files++;
			snprintf(link, sizeof link, "](%s)", d->d_name);
			if (!strstr(md, link))
				printf("# %s not linked from report.md\n", d->d_name), files += 1000;
		}
	closedir(dp);
	if (files != n || occurrences(html, "<svg ") != n)
		printf("# %zu files, %zu inline svg, %zu charts\n", files,
		       occurrences(html, "<svg "), n);
}

static void test_report_model_whatif(void)
{
	gc_report_stats st;
	char dir[512], *html, *md;

	CHECK_EQ_INT(report_of(1, 1, "one", &st, dir, sizeof dir), GC_OK);
	html = slurp(dir, "index.html"), md = slurp(dir, "report.md");
	CHECK(html && md);
	/* 2 speedup (resnet50, escaped model), 2 breakdown, 1 scatter, 2 what-if maps,
	 * what-if speedup: 4 of the paper preset, 4 of the fit (1x, 4x x 4, 64 workers) */
	CHECK_EQ_INT(st.charts, 15);
	CHECK_EQ_INT(st.winlose_measured, 0);
	CHECK_EQ_INT(occurrences(html, "<svg "), 15);
	check_figures(dir, html, md, 15);
	CHECK_CONTAINS(html, "<title>Speedup vs bandwidth: resnet50</title>");
	CHECK_CONTAINS(html, "<title>Predicted vs measured iteration time</title>");
	CHECK_CONTAINS(html, "<title>Iteration time breakdown: resnet50, 4 workers</title>");
	CHECK_CONTAINS(html, "Win/lose map (model, environment 0): resnet50 powersgd rank=4");
	CHECK_CONTAINS(html, "&lt;b&gt;&amp;&quot;evil&#39;");
	CHECK(!strstr(html, "<b>") && !strstr(html, "<i>") && !strstr(html, "<script"));
	CHECK_CONTAINS(html, "test &lt;db&gt;");
	CHECK(!strstr(html, "no predictions"));
	CHECK_CONTAINS(md, "| resnet50 | powersgd rank=4 | 4 | 10gbit |");
	CHECK_CONTAINS(md, "\\<b\\>&\"evil'");
	CHECK_CONTAINS(md, "![Predicted vs measured iteration time](fig-");
	free(html);
	free(md);
}

/* The crossover row "| Sx | P | ... |" the what-if table of the paper preset should hold,
 * from gc_whatif_crossover itself; *x8 gets powersgd rank 4's crossover. */
static void paper_cross_row(double s, int p, char *row, size_t n, double *xp)
{
	gc_whatif w;
	gc_arch a;
	size_t k;
	double x;

	memset(&w, 0, sizeof w);
	gc_strlcpy(w.model, "resnet50", sizeof w.model);
	w.batch = 64;
	row[0] = '\0';
	if (gc_whatif_preset(&w, "paper", NULL) || gc_whatif_parse_methods(
		    "signsgd,topk:ratio=0.01,mstopk:ratio=0.01,powersgd:rank=4", &w, NULL) ||
	    gc_arch_build("resnet50", &a, NULL))
		return;
	snprintf(row, n, "| %gx | %d |", s, p);
	for (k = 0; k < w.nmethods; k++) {
		if (gc_whatif_crossover(&w, &a, &w.methods[k], p, s, s, &x, NULL))
			x = -1;
		if (x == 0)
			snprintf(row + strlen(row), n - strlen(row), " never |");
		else if (isinf(x))
			snprintf(row + strlen(row), n - strlen(row), " still wins at 10000 |");
		else
			snprintf(row + strlen(row), n - strlen(row), " %.3g |", x);
		if (k == 3)
			*xp = x;
	}
	gc_arch_release(&a);
}

/* The what-if section: the paper preset's charts and crossovers (the same numbers as
 * gc_whatif_crossover), and the fit's charts at the measured and 64 workers with the
 * measured methods' short labels. */
static void test_report_whatif_section(void)
{
	gc_report_stats st;
	char dir[512], row[400], *html, *md;
	double x1 = 0, x4 = 0;

	CHECK_EQ_INT(report_of(1, 0, "wi", &st, dir, sizeof dir), GC_OK);
	html = slurp(dir, "index.html"), md = slurp(dir, "report.md");
	CHECK(html && md);
	CHECK_CONTAINS(html, "<h2>What-if: speedup vs bandwidth</h2>");
	CHECK_CONTAINS(html, "<title>Predicted speedup over sync SGD: resnet50, batch 64, 8 "
		       "workers, compute 1x, codec 1x (paper)</title>");
	CHECK_CONTAINS(html, "batch 64, 96 workers, compute 4x, codec 4x (paper)");
	CHECK_CONTAINS(html, "resnet50, batch 32, 4 workers, compute 1x, codec 1x (fit of "
		       "environment 0)");
	CHECK_CONTAINS(html, "resnet50, batch 32, 64 workers, compute 4x, codec 4x (fit of "
		       "environment 0)");
	CHECK_CONTAINS(md, "-whatif-paper-resnet50-8w-1x.svg)");
	CHECK_CONTAINS(md, "-whatif-env0-resnet50-64w-4x.svg)");
	CHECK_CONTAINS(md, "| compute | workers | signsgd | topk:ratio=0.01 | "
		       "mstopk:ratio=0.01 | powersgd:rank=4 |");
	CHECK_CONTAINS(md, "| compute | workers | signsgd | powersgd rank=4 |");
	paper_cross_row(1, 8, row, sizeof row, &x1);
	CHECK_CONTAINS(md, row);
	paper_cross_row(4, 96, row, sizeof row, &x4);
	CHECK_CONTAINS(md, row);
	paper_cross_row(4, 8, row, sizeof row, &x4);
	CHECK_CONTAINS(md, row);
	/* PowerSGD wins somewhere at 1x, and 4x faster compute moves its crossover up */
	CHECKF(x1 > 0 && isfinite(x1) && x4 > x1, "crossovers 1x %g, 4x %g", x1, x4);
	check_figures(dir, html, md, st.charts);
	free(html);
	free(md);
}

static void test_report_measured_maps_and_no_predictions(void)
{
	gc_report_stats st;
	char dir[512], *html, *md;

	CHECK_EQ_INT(report_of(2, 0, "two", &st, dir, sizeof dir), GC_OK);
	html = slurp(dir, "index.html"), md = slurp(dir, "report.md");
	CHECK(html && md);
	CHECK_EQ_INT(st.winlose_measured, 1);
	CHECK_EQ_INT(st.predictions, 0);
	CHECK_CONTAINS(html, "Win/lose map (measured): resnet50 signsgd");
	CHECK_CONTAINS(html, "Iteration time breakdown: resnet50, 8 workers");
	CHECK_CONTAINS(html, "run &#39;gcbench model --db test &lt;db&gt;&#39; first");
	CHECK_CONTAINS(md, "gcbench model --db test \\<db\\>");
	check_figures(dir, html, md, st.charts);
	CHECK_EQ_INT(occurrences(html, "<svg "), st.charts);
	free(html);
	free(md);
}

/* A slow-host point beside the uniform one at the same cap: rows of their own with
 * the network column, each against the baseline of its own network (uniform: syncsgd
 * 1.2 s, signsgd 0.72 s; n2 at 0.5: 2.4 s and 1.2 s, each iteration 1.025 t as add_run
 * writes them; merged, the speedup would be 1.875). */
static void test_report_network(void)
{
	char db_path[512], dir[512], *md = NULL;
	gc_report_stats st;
	gc_db *db = NULL;
	int64_t s;

	snprintf(db_path, sizeof db_path, "%s/net.db", tmpdir);
	snprintf(dir, sizeof dir, "%s/net", tmpdir);
	CHECK_EQ_INT(make_db(db_path, 1), GC_OK);
	CHECK_EQ_INT(gc_db_open(db_path, 0, &db, NULL), GC_OK);
	if (!db)
		return;
	CHECK_EQ_INT(gc_db_sweep_begin(db, "t2", "spec", "hash2", "syncsgd", &s, NULL), GC_OK);
	CHECK_EQ_INT(add_run(db, s, "resnet50", "syncsgd", "", 4, GBIT, 2.4), GC_OK);
	CHECK_EQ_INT(add_run(db, s, "resnet50", "signsgd", "ef=0,scaled=0", 4, GBIT, 1.2), GC_OK);
	CHECK(sqlite3_exec(gc_db_handle(db), "UPDATE runs SET point_key = 'key;slow=n2:0.5' "
			   "WHERE sweep_id = (SELECT max(id) FROM sweeps)", NULL, NULL, NULL) == SQLITE_OK);
	CHECK_EQ_INT(gc_report_write(db, "net.db", dir, &st, NULL), GC_OK);
	gc_db_close(db);
	md = slurp(dir, "report.md");
	CHECK(md);
	CHECK_CONTAINS(md, "| network | iteration ms | baseline ms | speedup |");
	CHECK_CONTAINS(md, "| resnet50 | signsgd | 4 | 1gbit | uniform | 738.0 | 1230.0 | 1.667 |");
	CHECK_CONTAINS(md, "| resnet50 | signsgd | 4 | 1gbit | slow n2:0.5 | 1230.0 | 2460.0 | 2.000 |");
	CHECK_CONTAINS(md, "| resnet50 | syncsgd | 4 | 1gbit | slow n2:0.5 | 2460.0 |");   /* the breakdown's row */
	free(md);
}

static void test_report_empty_database(void)
{
	gc_report_stats st;
	char dir[512], path[512], *html;
	gc_db *db = NULL;

	snprintf(path, sizeof path, "%s/empty.db", tmpdir);
	snprintf(dir, sizeof dir, "%s/empty", tmpdir);
	CHECK(!gc_db_open(path, 0, &db, NULL));
	CHECK_EQ_INT(gc_report_write(db, "empty", dir, &st, NULL), GC_OK);
	gc_db_close(db);
	html = slurp(dir, "index.html");
	CHECK(html);
	/* 4 empty charts; the paper preset's 4 what-if charts need no data */
	CHECK_EQ_INT(st.charts, 8);
	CHECK_EQ_INT(occurrences(html, ">no data</text>"), 4);
	CHECK_CONTAINS(html, "No environment of this database has a compression run");
	free(html);
}

/* One ok training run (2 ranks, 21 iterations of t s, the first warmup), validated at
 * iterations 9 and 20 with accuracies a9 and a20. */
static gc_rc add_train_run(gc_db *db, int64_t sweep, const char *method, uint64_t cap,
			   double t, double a9, double a20)
{
	struct gc_db_run r = { sweep, "key", "train", "cnn", method, "", 2, 2, 16, cap, 0,
			       "mpi", 1, 20, 1, 0, 0, NULL, NULL };
	struct gc_iter_rec rec[42];
	gc_rec_file f = { .recs = rec, .n = 42, .complete = 1 };
	int64_t id;
	gc_rc rc;

	memset(rec, 0, sizeof rec);
	for (int i = 0; i < 42; i++) {
		rec[i].rank = (uint32_t)(i / 21), rec[i].iter = (uint32_t)(i % 21);
		rec[i].warmup = i % 21 == 0, rec[i].t_iter = t;
		if (i % 21 == 9 || i % 21 == 20) {
			rec[i].flags = GC_REC_F_EVAL | 50u << 8;
			rec[i].val_acc = (float)(i % 21 == 9 ? a9 : a20);
			rec[i].val_loss = 1 - rec[i].val_acc;
		}
	}
	if ((rc = gc_db_run_begin(db, &r, &id, NULL)) || (rc = gc_db_ingest(db, id, &f, NULL)))
		return rc;
	return gc_db_run_end(db, id, GC_RUN_OK, NULL, NULL, NULL);
}

/* A training sweep with a target: an accuracy chart per cap with the target line, the
 * table with both speedups, and the run that never reached the target named. */
static void test_report_accuracy(void)
{
	gc_report_stats st;
	char path[512], dir[512], *html, *md;
	gc_db *db = NULL;
	int64_t s;

	snprintf(path, sizeof path, "%s/acc.db", tmpdir);
	snprintf(dir, sizeof dir, "%s/acc", tmpdir);
	unlink(path);
	CHECK(!gc_db_open(path, 0, &db, NULL));
	CHECK(!gc_db_sweep_begin(db, "acc", "spec", "h", "syncsgd", &s, NULL));
	CHECK(!gc_db_sweep_target(db, s, "accuracy", 0.9, NULL));
	CHECK(!add_train_run(db, s, "syncsgd", GBIT, 0.02, 0.95, 0.97));
	CHECK(!add_train_run(db, s, "powersgd", GBIT, 0.01, 0.5, 0.92));
	CHECK(!add_train_run(db, s, "topk", GBIT, 0.005, 0.3, 0.6));
	CHECK(!add_train_run(db, s, "syncsgd", 10 * GBIT, 0.01, 0.95, 0.97));
	CHECK_EQ_INT(gc_report_write(db, "acc", dir, &st, NULL), GC_OK);
	gc_db_close(db);
	html = slurp(dir, "index.html"), md = slurp(dir, "report.md");
	CHECK(html && md);
	CHECK_CONTAINS(html, "<h2>Time to accuracy</h2>");
	CHECK_CONTAINS(html, "Validation accuracy vs training time: cnn at 1gbit");
	CHECK_CONTAINS(html, "Validation accuracy vs training time: cnn at 10gbit");
	CHECK_CONTAINS(md, "| cnn | powersgd | 2 | 1gbit | 21 | 0.210 | 2.00x | 0.95x |");
	CHECK_CONTAINS(md, "| cnn | topk | 2 | 1gbit | never (1 of 1 runs) | - | 4.00x | - |");
	CHECK_CONTAINS(md, "Never reached the target within their iterations: cnn topk at 1gbit.");
	check_figures(dir, html, md, st.charts);
	free(html);
	free(md);
}

static void test_report_unwritable_dir(void)
{
	gc_report_stats st;
	gc_err e = { "" };
	gc_db *db = NULL;
	char path[512];

	snprintf(path, sizeof path, "%s/x.db", tmpdir);
	CHECK(!gc_db_open(path, 0, &db, NULL));
	CHECK(gc_report_write(db, "x", "/proc/no/such/dir", &st, &e) != GC_OK);
	gc_db_close(db);
	CHECK_CONTAINS(e.msg, "/proc/no/such/dir");
}

int main(int argc, char **argv)
{

	if (argc >= 3 && !strcmp(argv[1], "--make-db"))
		return make_db(argv[2], argc > 3 ? atoi(argv[3]) : 1) ? 1 : 0;
	GCT_SUITE("report");
	snprintf(tmpdir, sizeof tmpdir, "/tmp/gct-report-%d", (int)getpid());
	mkdir(tmpdir, 0700);
	GCT_RUN(test_escape);
	GCT_RUN(test_nice_axes);
	GCT_RUN(test_xy_coordinates);
	GCT_RUN(test_scatter_diag);
	GCT_RUN(test_empty_charts_say_so);
	GCT_RUN(test_bars);
	GCT_RUN(test_heat);
	GCT_RUN(test_labels);
	GCT_RUN(test_report_model_whatif);
	GCT_RUN(test_report_whatif_section);
	GCT_RUN(test_report_measured_maps_and_no_predictions);
	GCT_RUN(test_report_empty_database);
	GCT_RUN(test_report_network);
	GCT_RUN(test_report_unwritable_dir);
	GCT_RUN(test_report_accuracy);
	gct_rmtree(tmpdir);
	return gct_finish();
}

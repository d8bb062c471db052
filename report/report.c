/* report/report.c: the page and the markdown of gcbench report, their tables and
 * files (report.h); the sections are in report_data.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bandwidth.h"
#include "db/q_report.h"
#include "report_int.h"
#include "strutil.h"

void gc_report_slug(const char *s, char *out, size_t n)
{
	size_t i;

	for (i = 0; s && s[i] && i + 1 < n; i++) {
		char c = s[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '.' || c == '_' || c == '-';
		out[i] = ok && !(i == 0 && c == '.') ? c : '_';
	}
	out[i] = '\0';
}

/* value of key in "k=v,k=v" into out (empty when absent) */
static void param(const char *params, const char *key, char *out, size_t n)
{
	size_t kl = strlen(key);
	const char *p = params;

	out[0] = '\0';
	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t l = strcspn(p + kl + 1, ",");
			snprintf(out, n, "%.*s", (int)(l < n ? l : n - 1), p + kl + 1);
			return;
		}
		p = strchr(p, ',');
		p = p ? p + 1 : NULL;
	}
}

void gc_report_short_label(const char *method, const char *params, char *out, size_t n)
{
	char v[32];

	snprintf(out, n, "%s", method);
	param(params, "rank", v, sizeof v);
	if (*v)
		snprintf(out + strlen(out), n - strlen(out), " rank=%s", v);
	param(params, "ratio", v, sizeof v);
	if (*v)
		snprintf(out + strlen(out), n - strlen(out), " ratio=%s", v);
	param(params, "scaled", v, sizeof v);
	if (!strcmp(v, "1"))
		snprintf(out + strlen(out), n - strlen(out), " scaled");
}

void gc_rep_h2(struct gc_rep *r, const char *title)
{
	gc_buf_puts(&r->html, "<h2>");
	gc_svg_esc(&r->html, title);
	gc_buf_puts(&r->html, "</h2>\n");
	gc_buf_addf(&r->md, "\n## %s\n\n", title);
}

/* Markdown text: escape the characters that would start markup or break a table. */
static void md_text(gc_buf *b, const char *s)
{
	for (; s && *s; s++) {
		char c[3] = { '\\', *s, 0 };
		if (strchr("|*_`<>[]\\", *s))
			gc_buf_puts(b, c);
		else if (*s == '\n')
			gc_buf_puts(b, " ");
		else
			gc_buf_puts(b, c + 1);
	}
}

void gc_rep_p(struct gc_rep *r, const char *text)
{
	gc_buf_puts(&r->html, "<p>");
	gc_svg_esc(&r->html, text);
	gc_buf_puts(&r->html, "</p>\n");
	md_text(&r->md, text);
	gc_buf_puts(&r->md, "\n\n");
}

static gc_rc write_file(const char *dir, const char *name, const gc_buf *b, gc_err *e)
{
	char path[4096];
	FILE *f;
	int bad;

	if (b->oom)
		return gc_fail(e, GC_E_NOMEM, "out of memory building '%s'", name);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "w")))
		return gc_fail(e, GC_E_IO, "cannot write '%s': %s", path, strerror(errno));
	bad = b->len && fwrite(b->p, 1, b->len, f) != b->len;
	if (fclose(f) || bad)
		return gc_fail(e, GC_E_IO, "cannot write '%s': %s (disk full?)", path,
			       strerror(errno));
	return GC_OK;
}

void gc_rep_figure(struct gc_rep *r, const char *slug, const gc_buf *svg, const char *title)
{
	char name[200], s[120];
	gc_rc rc;

	gc_report_slug(slug, s, sizeof s);
	snprintf(name, sizeof name, "fig-%02zu-%s.svg", r->st->charts + 1, s);
	if ((rc = write_file(r->dir, name, svg, r->e)) && !r->rc)
		r->rc = rc;
	r->st->charts++;
	gc_buf_puts(&r->html, "<figure>\n");
	gc_buf_puts(&r->html, svg->p ? svg->p : "");
	gc_buf_puts(&r->html, "</figure>\n");
	gc_buf_puts(&r->md, "![");
	md_text(&r->md, title);
	gc_buf_addf(&r->md, "](%s)\n\n", name);
}

void gc_rep_table(struct gc_rep *r, const char *const *head, size_t ncol)
{
	size_t i;

	gc_buf_puts(&r->html, "<table>\n<tr>");
	for (i = 0; i < ncol; i++) {
		gc_buf_puts(&r->html, "<th>");
		gc_svg_esc(&r->html, head[i]);
		gc_buf_puts(&r->html, "</th>");
		gc_buf_puts(&r->md, "| ");
		md_text(&r->md, head[i]);
		gc_buf_puts(&r->md, " ");
	}
	gc_buf_puts(&r->html, "</tr>\n");
	gc_buf_puts(&r->md, "|\n");
	for (i = 0; i < ncol; i++)
		gc_buf_puts(&r->md, i ? "|---:" : "|---");
	gc_buf_puts(&r->md, "|\n");
}

void gc_rep_row(struct gc_rep *r, const char *const *cells, size_t ncol)
{
	size_t i;

	gc_buf_puts(&r->html, "<tr>");
	for (i = 0; i < ncol; i++) {
		gc_buf_puts(&r->html, "<td>");
		gc_svg_esc(&r->html, cells[i]);
		gc_buf_puts(&r->html, "</td>");
		gc_buf_puts(&r->md, "| ");
		md_text(&r->md, cells[i]);
		gc_buf_puts(&r->md, " ");
	}
	gc_buf_puts(&r->html, "</tr>\n");
	gc_buf_puts(&r->md, "|\n");
}

void gc_rep_table_end(struct gc_rep *r)
{
	gc_buf_puts(&r->html, "</table>\n");
	gc_buf_puts(&r->md, "\n");
}

static const char css[] =
	"body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
	"figure{margin:1em 0}svg{max-width:100%;height:auto;border:1px solid #ddd}"
	"table{border-collapse:collapse;margin:1em 0;font-size:13px}"
	"th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}"
	"th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}"
	".meta{color:#555}";

static void head(struct gc_rep *r)
{
	char when[64], line[512];
	time_t now = time(NULL);
	struct gc_db_counts n;
	struct tm tm;

	strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime_r(&now, &tm));
	gc_db_counts(r->db, &n, NULL);     /* a count that cannot be read shows 0 */
	r->st->ok_runs = (size_t)n.runs_ok;
	r->st->predictions = (size_t)n.predictions;
	snprintf(line, sizeof line, "%lld sweeps, %zu ok runs, %lld not ok (failed, timed out "
		 "or interrupted), %zu model predictions. Generated %s.",
		 (long long)n.sweeps, r->st->ok_runs, (long long)n.runs_not_ok,
		 r->st->predictions, when);
	gc_buf_addf(&r->html, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		    "<title>gcbench report</title><style>%s</style></head><body>\n"
		    "<h1>gcbench report: ", css);
	gc_svg_esc(&r->html, r->db_label);
	gc_buf_puts(&r->html, "</h1>\n<p class=\"meta\">");
	gc_svg_esc(&r->html, line);
	gc_buf_puts(&r->html, "</p>\n");
	gc_buf_puts(&r->md, "# gcbench report: ");
	md_text(&r->md, r->db_label);
	gc_buf_puts(&r->md, "\n\n");
	md_text(&r->md, line);
	gc_buf_puts(&r->md, "\n");
}

const gc_pdb *gc_rep_fits(struct gc_rep *r)
{
	if (!r->pdb_state)
		r->pdb_state = gc_pdb_run(r->db, 0, &r->pdb, NULL) ? -1 : 1;
	return r->pdb_state > 0 ? &r->pdb : NULL;
}

gc_rc gc_report_write(gc_db *db, const char *db_label, const char *out_dir,
		      gc_report_stats *st, gc_err *e)
{
	struct gc_rep r;
	gc_rc rc;

	memset(st, 0, sizeof(*st));
	memset(&r, 0, sizeof(r));
	r.db = db, r.db_label = db_label, r.dir = out_dir, r.st = st, r.e = e;
	if (mkdir(out_dir, 0755) && errno != EEXIST)
		return gc_fail(e, GC_E_IO, "cannot create the report directory '%s': %s",
			       out_dir, strerror(errno));
	head(&r);
	gc_rep_speedup(&r);
	gc_rep_accuracy(&r);
	gc_rep_breakdown(&r);
	gc_rep_predictions(&r);
	gc_rep_winlose(&r);
	gc_rep_whatif(&r);
	gc_buf_puts(&r.html, "</body></html>\n");
	rc = r.rc;
	if (!rc)
		rc = write_file(out_dir, "index.html", &r.html, e);
	if (!rc)
		rc = write_file(out_dir, "report.md", &r.md, e);
	gc_buf_release(&r.html);
	gc_buf_release(&r.md);
	gc_pdb_release(&r.pdb);
	return rc;
}

void gc_rep_cap(char *buf, size_t n, double gbps)
{
	gc_bw_format(gbps > 0 ? (uint64_t)llround(gbps * 1e9) : 0, buf, n);
}

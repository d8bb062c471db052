/* report/whatif_svg.c: what-if charts, speedup over sync SGD against bandwidth, one line
 * per method, one chart per (compute speed, codec speed, workers) (whatif_svg.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "whatif_svg.h"

#include "svg.h"

/* The points of method k at (s, c, p) over w's bandwidths into y. */
static gc_rc series(const gc_whatif *w, gc_arch *a, size_t k, int p, double s, double c,
		    double *y, gc_err *e)
{
	gc_model_result rm, rs;
	size_t l;
	gc_rc rc;

	for (l = 0; l < w->nbw; l++)
		if ((rc = gc_whatif_eval(w, a, &w->methods[k], p, w->bw_gbps[l], s, c, &y[l], &rm,
					 &rs, e)))
			return rc;
	return GC_OK;
}

static gc_rc write_file(const char *path, const gc_buf *b, gc_err *e)
{
	FILE *f;
	int bad;

	if (b->oom)
		return gc_fail(e, GC_E_NOMEM, "what-if chart '%s': out of memory", path);
	if (!(f = fopen(path, "w")))
		return gc_fail(e, GC_E_IO, "cannot write '%s': %s", path, strerror(errno));
	bad = fputs(b->p ? b->p : "", f) < 0;
	bad |= fclose(f) != 0;
	return bad ? gc_fail(e, GC_E_IO, "cannot write '%s': %s", path, strerror(errno)) : GC_OK;
}

gc_rc gc_whatif_svg_chart(const gc_whatif *w, gc_arch *a, int p, double s, double c,
			  gc_buf *b, char *title, size_t titlesz, gc_err *e)
{
	double y[GC_WHATIF_MAX_METHODS * GC_WHATIF_MAX_LIST];
	gc_svg_series ser[GC_WHATIF_MAX_METHODS];
	gc_svg_xy xy;
	size_t k;
	gc_rc rc;

	for (k = 0; k < w->nmethods; k++) {
		if ((rc = series(w, a, k, p, s, c, &y[k * w->nbw], e)))
			return rc;
		ser[k] = (gc_svg_series){ w->methods[k].label, w->bw_gbps, &y[k * w->nbw], w->nbw };
	}
	snprintf(title, titlesz, "Predicted speedup over sync SGD: %s, batch %d, %d "
		 "workers, compute %gx, codec %gx (%s)", w->model, w->batch, p, s, c > 0 ? c : s,
		 w->source);
	memset(&xy, 0, sizeof(xy));
	xy.title = title, xy.xlabel = "link bandwidth (Gbit/s)";
	xy.ylabel = "speedup over sync SGD (x)";
	xy.empty_hint = "no bandwidths";
	xy.hline_on = 1, xy.hline = 1, xy.hline_label = "sync SGD";
	xy.s = ser, xy.ns = w->nmethods;
	gc_svg_xy_chart(b, &xy);
	return GC_OK;
}

/* One chart file: every method at (s, c, p). */
static gc_rc chart(const gc_whatif *w, gc_arch *a, const char *dir, int p, double s,
		   double c, char *path, size_t pathsz, gc_err *e)
{
	char title[400], slug[64];
	gc_buf b = { 0 };
	size_t k;
	gc_rc rc;

	if ((rc = gc_whatif_svg_chart(w, a, p, s, c, &b, title, sizeof(title), e)))
		goto out;
	for (k = 0; k < sizeof(slug) - 1 && w->model[k]; k++)   /* csv:PATH -> csv_PATH */
		slug[k] = isalnum((unsigned char)w->model[k]) || w->model[k] == '-' ?
			  w->model[k] : '_';
	slug[k] = '\0';
	if ((size_t)snprintf(path, pathsz, "%s/whatif-%s-b%d-%dw-%gx-codec%gx.svg", dir, slug,
			     w->batch, p, s, c) >= pathsz)
		rc = gc_fail(e, GC_E_INVAL, "--svg: directory '%s' is too long a path", dir);
	else
		rc = write_file(path, &b, e);
out:
	gc_buf_release(&b);
	return rc;
}

gc_rc gc_whatif_svg(const gc_whatif *w, gc_arch *a, const char *dir, size_t *nfiles,
		    gc_err *e)
{
	char path[1024];
	size_t i, n, j, nc = w->ncodec ? w->ncodec : 1;
	gc_rc rc;

	*nfiles = 0;
	for (i = 0; i < w->nspeed; i++)
		for (n = 0; n < nc; n++)
			for (j = 0; j < w->nworkers; j++) {
				double s = w->speedup[i], c = w->ncodec ? w->codec[n] : s;
				if ((rc = chart(w, a, dir, w->workers[j], s, c, path,
						sizeof(path), e)))
					return rc;
				(*nfiles)++;
			}
	return GC_OK;
}

/* report/whatif_svg.h: the what-if answers of model/whatif.h drawn as SVG charts
 * (gcbench whatif --svg, and the what-if section of gcbench report). */
#ifndef GC_REPORT_WHATIF_SVG_H
#define GC_REPORT_WHATIF_SVG_H

#include <stddef.h>

#include "buf.h"
#include "model/whatif.h"

/* One chart of speedup over sync SGD against w's bandwidths, a line per method, at p
 * workers, compute speed s and codec speed c (<= 0: = s), appended to b;
 * its title into title (size titlesz). An error of the model (gc_whatif_eval) is
 * returned and b is left as it was up to then. */
gc_rc gc_whatif_svg_chart(const gc_whatif *w, gc_arch *a, int p, double s, double c,
			  struct gc_buf *b, char *title, size_t titlesz, gc_err *e);

/* Charts of speedup over sync SGD against w's bandwidths, one line per method, one
 * SVG file per (compute speed, codec speed, workers) in the existing directory dir:
 * DIR/whatif-MODEL-bBATCH-Pw-Sx-codecCx.svg (MODEL with other characters than
 * letters, digits and '-' as '_'). *nfiles: how many were written. GC_E_IO names the
 * file that could not be written. */
gc_rc gc_whatif_svg(const gc_whatif *w, gc_arch *a, const char *dir, size_t *nfiles,
		    gc_err *e);

#endif

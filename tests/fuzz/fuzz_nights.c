/* Fuzz target: the measured-nights CSV (gc_series_set_parse, the input of gcbench
 * regress --evaluate) must reject, not crash on, any input; what it accepts has
 * finite log medians, offsets in order, and evaluates without failing. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/ops/series.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	gc_series_set s;
	gc_series_eval ev;
	gc_err e;
	gc_rc rc;

	if (gc_series_set_parse((const char *)data, size, &s, &e) != GC_OK) {
		if (strlen(e.msg) >= sizeof(e.msg) || s.y || s.npoints)
			abort();
		return 0;
	}
	for (size_t p = 0; p < s.npoints; p++)
		if (s.off[p] >= s.off[p + 1] || !memchr(s.name[p], 0, sizeof s.name[p]))
			abort();
	for (size_t i = 0; i < s.n; i++)
		if (!isfinite(s.y[i]))
			abort();
	rc = gc_series_evaluate(&s, 20, 6, 3, 0.05, 0.01, 0.05, 1, &ev, &e);
	if (rc != GC_OK && rc != GC_E_INVAL)
		abort();
	if (!rc && (ev.one.false_alerts > 20 || ev.confirmed.detected > 20 ||
		    ev.steps.detected > 20))
		abort();
	gc_series_set_release(&s);
	return 0;
}

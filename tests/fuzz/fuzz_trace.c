/* tests/fuzz/fuzz_trace.c: the bandwidth trace parser (gcbench-netem play --trace) on
 * arbitrary bytes. Properties checked (abort on violation): a parsed trace starts at
 * 0, its times increase by at least 10 ms, its period passes its last time and is at
 * most a day, every rate lies in 1mbit..400gbit, the rate at each step's time is that
 * step's, and the mean over any window lies between the lowest and highest rate;
 * every rejection names the file and explains itself, and leaves nothing allocated. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"
#include "netem/trace.h"

static void check(const struct gc_trace *t)
{
	size_t i;
	double m;

	if (!t->n || t->steps[0].t_us != 0 || t->period_us <= t->steps[t->n - 1].t_us ||
	    t->period_us > GC_TRACE_MAX_PERIOD_US)
		abort();
	for (i = 0; i < t->n; i++) {
		if (t->steps[i].rate_bps < GC_BW_MIN || t->steps[i].rate_bps > GC_BW_MAX)
			abort();
		if (i && t->steps[i].t_us < t->steps[i - 1].t_us + GC_TRACE_MIN_STEP_US)
			abort();
		if (gc_trace_rate_at(t, t->steps[i].t_us + 3 * t->period_us) != t->steps[i].rate_bps)
			abort();
	}
	m = gc_trace_mean(t, 123456, 123456 + 2 * t->period_us + 777);
	if (m < (double)t->min_bps * 0.999999 || m > (double)t->max_bps * 1.000001)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gc_trace t;
	gc_err e;

	e.msg[0] = 0;
	if (gc_trace_parse((const char *)data, size, "f", &t, &e) == GC_OK) {
		check(&t);
		gc_trace_release(&t);
	} else if (strncmp(e.msg, "f:", 2) || t.steps || t.n) {
		abort();
	}
	return 0;
}

/* tests/fuzz/fuzz_rate.c: the rate and size parsers on arbitrary bytes.
 * Properties checked (abort on violation): a parsed rate is within [8, GC_RATE_MAX]
 * and formats to a string that parses back to the same value; likewise for sizes and
 * for caps (gc_bw_parse: 0 or [GC_BW_MIN, GC_BW_MAX]; a refusal has a hint). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netem/rate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[128], f[64];
	uint64_t v, w;
	struct gc_qdisc_plan p;
	gc_err e;

	e.msg[0] = 0;
	if (size >= sizeof(s))
		size = sizeof(s) - 1;
	memcpy(s, data, size);
	s[size] = 0;
	if (gc_rate_parse_flags(s, GC_RATE_ALLOW_BYTES, &v, &e) == GC_OK) {
		if (v < 8 || v > GC_RATE_MAX)
			abort();
		gc_rate_format(v, f, sizeof(f));
		if (gc_rate_parse(f, &w, &e) != GC_OK || w != v)
			abort();
		if (gc_qdisc_plan_make(v, 0, &p, &e) != GC_OK || p.burst < 65536)
			abort();
	} else if (!e.msg[0]) {
		abort();   /* every rejection explains itself */
	}
	e.msg[0] = 0;
	for (unsigned fl = 0; fl <= GC_BW_BARE_GBIT; fl += GC_BW_BARE_GBIT) {
		if (gc_bw_parse(s, fl, &v, &e) == GC_OK) {
			if (v && (v < GC_BW_MIN || v > GC_BW_MAX))
				abort();
			gc_bw_format(v, f, sizeof(f));
			if (gc_bw_parse(f, 0, &w, &e) != GC_OK || w != v)
				abort();
		} else if (!e.msg[0] || !gc_bw_hint(s, fl, f, sizeof(f))[0]) {
			abort();
		}
	}
	if (gc_size_parse(s, &v, &e) == GC_OK) {
		if (v < 1 || v > UINT32_MAX)
			abort();
		gc_size_format(v, f, sizeof(f));
		if (gc_size_parse(f, &w, &e) != GC_OK || w != v)
			abort();
	}
	return 0;
}

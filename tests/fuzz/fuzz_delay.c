/* tests/fuzz/fuzz_delay.c: the delay parser (gcbench-netem --delay, --jitter) on
 * arbitrary bytes. Properties checked (abort on violation): a parsed time is at most
 * 60 s, formats to a string that parses back to the same value, and is 0 only for a
 * zero input; every rejection explains itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netem/rate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[128], f[32];
	uint32_t us, back;
	gc_err e;

	e.msg[0] = 0;
	if (size >= sizeof(s))
		size = sizeof(s) - 1;
	memcpy(s, data, size);
	s[size] = 0;
	if (gc_time_parse(s, &us, &e) == GC_OK) {
		if (us > 60000000u)
			abort();
		gc_time_format(us, f, sizeof(f));
		if (gc_time_parse(f, &back, &e) != GC_OK || back != us)
			abort();
		if (us == 0 && strspn(s, "0.") != strcspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
			abort();   /* only a written zero means no delay */
	} else if (!e.msg[0]) {
		abort();
	}
	return 0;
}

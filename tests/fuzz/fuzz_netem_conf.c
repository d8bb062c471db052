/* tests/fuzz/fuzz_netem_conf.c: the installed helper's allowlist parser
 * (/etc/gcbench/netem.conf, netem/policy.h) on arbitrary bytes. Properties checked
 * (abort on violation): a parsed file holds at most GC_NETEM_CONF_MAX patterns, each
 * 1-15 bytes of the allowed characters, each allowing itself when it has no wildcard;
 * every rejection explains itself by line number. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "netem/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char s[4096];
	struct gc_netem_conf c;
	gc_err e;
	size_t i, n;

	e.msg[0] = 0;
	if (size >= sizeof(s))
		size = sizeof(s) - 1;
	memcpy(s, data, size);
	s[size] = 0;
	if (gc_netem_conf_parse(s, &c, &e) == GC_OK) {
		if (c.n > GC_NETEM_CONF_MAX)
			abort();
		for (i = 0; i < c.n; i++) {
			n = strlen(c.allow[i]);
			if (n < 1 || n > 15 || c.allow[i][0] == '-' ||
			    strspn(c.allow[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789._-*?") != n)
				abort();
			if (!strpbrk(c.allow[i], "*?") && !gc_netem_conf_allows(&c, c.allow[i]))
				abort();
		}
	} else if (!strstr(e.msg, "line ")) {
		abort();
	}
	return 0;
}

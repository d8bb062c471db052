/* tests/fuzz/fuzz_opts.c: the shared option parser (common/opts.h) on arbitrary argv.
 * The input is split at newlines into words. Properties checked (abort on violation):
 * the parser ends (every call moves on or stops), an option's value is one of the words
 * or the text after its '=', a mistake always carries a message, and a duration that
 * parses lies in its range. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

static const struct gc_opt tab[] = {
	{ "--db", NULL, GC_OPT_ARG, 1 }, { "--dry-run", NULL, 0, 2 },
	{ "--workers", "-n", GC_OPT_ARG, 3 }, { "--bench", NULL, GC_OPT_OPTARG, 4 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[512], *argv[64];
	int argc = 0, r, steps = 0;
	gc_opts o;
	double d;

	if (size >= sizeof(buf))
		size = sizeof(buf) - 1;
	memcpy(buf, data, size);
	buf[size] = 0;
	argv[argc++] = "fuzz";
	for (char *p = buf; argc < 63; ) {
		char *nl = strchr(p, '\n');
		argv[argc++] = p;
		if (!nl)
			break;
		*nl = 0;
		p = nl + 1;
	}
	argv[argc] = NULL;
	gc_opts_init(&o, "gcbench fuzz", tab, sizeof tab / sizeof tab[0], argc, argv);
	o.positional = data[0] & 1;
	while ((r = gc_opts_next(&o)) >= 0) {
		if (++steps > argc)
			abort();   /* each call takes at least one word */
		if (r > 0 && o.val && !(o.val >= buf && o.val <= buf + size))
			abort();
		if (o.val && !gc_opts_seconds("--t", o.val, 0, 3600, &d, NULL) && !(d >= 0 && d <= 3600))
			abort();
	}
	if (r == GC_OPTS_ERR && !o.err.msg[0])
		abort();
	return 0;
}

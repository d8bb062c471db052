/* tests/fuzz/fuzz_opts.c: the shared option parser (common/opts.h) on arbitrary argv.
 * The input is split at newlines into words. Properties checked (abort on violation):
 * the parser ends (every call moves on or stops), an option's value is one of the words
 * or the text after its '=', a mistake always carries a message, and a duration that
 * parses lies in its range. The same words then go through a table of declarations
 * (gc_opts_decl_init): every filled target holds a value its declaration allows. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

static const struct gc_opt tab[] = {
	{ "--db", NULL, GC_OPT_ARG, 1 }, { "--dry-run", NULL, 0, 2 },
	{ "--workers", "-n", GC_OPT_ARG, 3 }, { "--bench", NULL, GC_OPT_OPTARG, 4 },
};

static struct { int reps, flag; const char *db; double scale, t; int ncb; } dv;

static gc_rc cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	(void)opt;
	if (ctx != &dv)
		abort();
	if (v && v[0] == 'x')
		return gc_fail(e, GC_E_NOTFOUND, "invalid '%s'", v);
	dv.ncb++;
	return GC_OK;
}

static const struct gc_option decl[] = {
	GC_OPTION_INT("--reps", "-r", &dv.reps, 1, 63, "N", "reps"),
	GC_OPTION_FLAG("--spin", NULL, &dv.flag, "spin"),
	GC_OPTION_STRING("--db", NULL, &dv.db, "FILE", "db"),
	GC_OPTION_POSITIVE("--scale", NULL, &dv.scale, "S", "scale"),
	GC_OPTION_SECONDS("--deadline", NULL, &dv.t, 0, 60, "T", "deadline"),
	GC_OPTION_CALLBACK("--bench", NULL, GC_OPT_OPTARG, cb, "[N]", "bench"),
	GC_OPTION_ID("--id", NULL, GC_OPT_ARG, 9, "X", "id"),
	GC_OPTION_DOC("--help, --version", NULL, "help"),
};

static void fuzz_decl(int argc, char **argv, int positional)
{
	gc_opts o;
	int r, steps = 0;

	memset(&dv, 0, sizeof dv);
	dv.reps = 5;
	dv.scale = 1;
	gc_opts_decl_init(&o, "gcbench fuzz", decl, sizeof decl / sizeof decl[0], argc, argv, &dv);
	o.positional = positional;
	while ((r = gc_opts_next(&o)) >= 0)
		if (++steps > argc || (r > 0 && r != 9))
			abort();
	if (r == GC_OPTS_ERR && (!o.err.msg[0] || o.rc == GC_OK))
		abort();
	if (dv.reps < 1 || dv.reps > 63 || !(dv.scale > 0) || !(dv.t >= 0 && dv.t <= 60) ||
	    (dv.flag != 0 && dv.flag != 1))
		abort();
}

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
	fuzz_decl(argc, argv, data[0] & 1);
	return 0;
}

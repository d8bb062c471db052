/* gcbench: the command-line front end, a table of subcommands (commands.def). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "opts.h"

struct gc_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct gc_cmd cmds[] = {
#define GC_CMD(name, fn, summary) { #name, fn, summary },
#include "commands.def"
#undef GC_CMD
	{ NULL, NULL, NULL },
};

static void usage(FILE *f)
{
	const struct gc_cmd *c;

	fprintf(f, "usage: gcbench <command> [options]\n\n"
		   "Benchmark gradient compression against synchronous SGD on a real or\n"
		   "emulated cluster, with bandwidth caps, and keep every timing in SQLite.\n\n"
		   "commands:\n");
	for (c = cmds; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f, "\n'gcbench <command> --help' explains each command.\n\n%s", GC_EXIT_HELP);
}

/* Every --help ends with the exit status table (the same for every command). */
static int with_exit_help(int rc, int argc, char **argv)
{
	for (int i = 2; rc == 0 && i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(GC_EXIT_HELP, stdout);
			break;
		}
	return rc;
}

int gc_cli_opts_stop(gc_opts *o, int r, void (*help_fn)(FILE *))
{
	if (r == GC_OPTS_HELP) {
		help_fn(stdout);
		return GC_EXIT_OK;
	}
	if (r == GC_OPTS_VERSION) {
		printf("gcbench %s\n", GC_VERSION);
		return GC_EXIT_OK;
	}
	if (r == GC_OPTS_ERR)
		gc_error("%s", o->err.msg);
	return GC_EXIT_USAGE;
}

int gc_cli_json_print(gc_buf *b, const gc_json *j)
{
	gc_rc rc = gc_json_finish(j);

	if (rc)
		gc_error("cannot write the JSON: %s", gc_strerror(rc));
	else
		printf("%s\n", gc_buf_str(b));
	gc_buf_release(b);
	return rc ? GC_EXIT_ENV : GC_EXIT_OK;
}

int gc_cli_unknown_sub(const char *cmd, const char *word, const char *const *subs, size_t n)
{
	char help[96];
	gc_err e;

	snprintf(help, sizeof help, "%s --help", cmd);
	gc_opts_unknown(&e, "command", word, cmd, gc_suggest(word, subs, n), help);
	gc_error("%s", e.msg);
	return GC_EXIT_USAGE;
}

static const struct gc_cmd *find_cmd(const char *name)
{
	const char *names[64];
	size_t n = 0;
	gc_err e;

	for (const struct gc_cmd *c = cmds; c->name; c++) {
		if (!strcmp(c->name, name))
			return c;
		if (n < 64)
			names[n++] = c->name;
	}
	gc_opts_unknown(&e, "command", name, NULL, gc_suggest(name, names, n), "gcbench --help");
	gc_error("%s", e.msg);
	return NULL;
}

/* gcbench help [CMD]: the top-level usage, or CMD's --help. */
static int help(int argc, char **argv)
{
	const struct gc_cmd *c;
	char *av[4];

	if (argc < 3) {
		usage(stdout);
		return GC_EXIT_OK;
	}
	if (argc > 3) {
		gc_error("help takes one command, not %d words; see 'gcbench --help'", argc - 2);
		return GC_EXIT_USAGE;
	}
	if (!(c = find_cmd(argv[2])))
		return GC_EXIT_USAGE;
	av[0] = argv[0];
	av[1] = argv[2];
	av[2] = "--help";
	av[3] = NULL;
	return with_exit_help(c->fn(2, av + 1), 3, av);
}

int main(int argc, char **argv)
{
	const struct gc_cmd *c;

	gc_log_init("gcbench", GC_LOG_INFO);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? GC_EXIT_USAGE : GC_EXIT_OK;
	}
	if (!strcmp(argv[1], "help"))
		return help(argc, argv);
	if (!strcmp(argv[1], "--version")) {
		printf("gcbench %s\n", GC_VERSION);
		return GC_EXIT_OK;
	}
	if (argv[1][0] == '-') {
		gc_opts o;
		gc_opts_init(&o, "gcbench", NULL, 0, argc, argv);
		return gc_cli_opts_stop(&o, gc_opts_next(&o), usage);
	}
	if (!(c = find_cmd(argv[1])))
		return GC_EXIT_USAGE;
	return with_exit_help(c->fn(argc - 1, argv + 1), argc, argv);
}

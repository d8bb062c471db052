/* gcbench: the command-line front end, a table of subcommands (commands.def). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "log.h"

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

int main(int argc, char **argv)
{
	const struct gc_cmd *c;

	gc_log_init("gcbench", GC_LOG_INFO);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? GC_EXIT_USAGE : GC_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("gcbench %s\n", GC_VERSION);
		return 0;
	}
	for (c = cmds; c->name; c++)
		if (!strcmp(c->name, argv[1]))
			return with_exit_help(c->fn(argc - 1, argv + 1), argc, argv);
	gc_error("unknown command '%s'; see 'gcbench --help'", argv[1]);
	return GC_EXIT_USAGE;
}

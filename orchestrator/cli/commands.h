/* orchestrator/cli/commands.h: the subcommand table of the gcbench CLI.
 *
 * A subcommand is `int cmd_<name>(int argc, char **argv)`: argv[0] is the subcommand
 * name; it returns the process exit status, one of enum gc_exit (common/result.h: 0 ok,
 * 1 regression or failed points, 2 usage or bad input, 3 cannot compare or environment
 * error, 130 interrupted; gc_exit_code() maps a gc_rc) and prints its own --help.
 * Register it with one line in commands.def.
 */
#ifndef GC_COMMANDS_H
#define GC_COMMANDS_H

#include <stdio.h>

#include "json.h"
#include "opts.h"
#include "result.h"

/* The exit status table, printed at the end of every --help (docs/spec.md has it too). */
#define GC_EXIT_HELP \
	"exit status (every gcbench command):\n" \
	"  0    ok; no regression\n" \
	"  1    a regression, or points that failed\n" \
	"  2    usage error or bad input (spec, inventory, options, --db path)\n" \
	"  3    cannot compare, or an environment error (unreachable host, unreadable\n" \
	"       database, missing privilege)\n" \
	"  130  interrupted (Ctrl-C, SIGTERM)\n"

/* The end of a command's option loop: r is what gc_opts_next returned that is not an
 * option (GC_OPTS_HELP: usage(stdout), 0; GC_OPTS_VERSION: "gcbench VERSION", 0;
 * GC_OPTS_ERR: the message, 2). Returns the exit status. */
int gc_cli_opts_stop(gc_opts *o, int r, void (*usage)(FILE *));

/* Finish j (written into b), print it and a newline to stdout, release b. 0, or
 * GC_EXIT_ENV with a message when the document is not whole. */
int gc_cli_json_print(gc_buf *b, const gc_json *j);

/* "unknown command 'word' for CMD; did you mean 'x'? (see 'CMD --help')" for a
 * subcommand of cmd (cluster up, schedule list, notify test); returns 2. */
int gc_cli_unknown_sub(const char *cmd, const char *word, const char *const *subs, size_t n);

#define GC_CMD(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef GC_CMD

#endif

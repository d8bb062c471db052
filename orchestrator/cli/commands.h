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

#define GC_CMD(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef GC_CMD

#endif

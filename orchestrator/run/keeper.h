/* orchestrator/run/keeper.h: a keeper, a remote shell held open for the length of a
 * point (the trace players of run_trace.h, the background flows of run_bg.h).
 *
 * The keeper is a local command line (an ssh or srun child from gc_node_argv) whose
 * stdin is a pipe the controller holds: it ends when the controller closes that pipe or
 * dies, even by SIGKILL (the pipe closes with the process, ssh forwards the end of its
 * input), so whatever the remote shell started can be ended by the shell itself. The
 * remote shell says words on its stdout ("started") when it reaches a step.
 */
#ifndef GC_RUN_KEEPER_H
#define GC_RUN_KEEPER_H

#include "result.h"

struct gc_keeper {
	int pid;       /* the local child; 0: none */
	int wfd;       /* the write end of its stdin; -1: closed */
	int rfd;       /* the read end of its stdout; -1: closed */
};

/* Start argv (a local command line) as a keeper and wait up to timeout_s for word on
 * its stdout. k is filled even on failure (end it with gc_keeper_end). GC_E_IO when it
 * cannot start, GC_E_COMM "... did not start" (what names it) when word never came. */
gc_rc gc_keeper_spawn(char **argv, const char *word, double timeout_s, const char *what,
		      struct gc_keeper *k, gc_err *e);

/* Send line (with its newline) to the keeper's stdin and wait up to timeout_s for word
 * on its stdout. GC_E_COMM when it did not come. */
gc_rc gc_keeper_say(struct gc_keeper *k, const char *line, const char *word, double timeout_s,
		    const char *what, gc_err *e);

/* Close the keeper's stdin and stdout (the remote shell sees its input end), then reap
 * it, waiting up to wait_s before SIGTERM. Accepts a keeper already ended. */
void gc_keeper_end(struct gc_keeper *k, double wait_s);

#endif

/* orchestrator/run/interrupt.h: how a sweep is stopped. SIGINT, SIGTERM and SIGHUP set
 * a flag (a second one changes nothing: cleanup goes on, links are never left capped),
 * interrupt the child process in flight (common/proc.h) and say so on stderr; the
 * sweep's steps ask gc_run_interrupted() between steps. SIGPIPE is ignored.
 */
#ifndef GC_RUN_INTERRUPT_H
#define GC_RUN_INTERRUPT_H

/* Install the handlers (once, at the start of a sweep). */
void gc_run_install_signals(void);

/* 1 once the handler ran. */
int gc_run_interrupted(void);

#endif

/* orchestrator/run/interrupt.c: a sweep's SIGINT/SIGTERM/SIGHUP (interrupt.h). */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"
#include "proc.h"

static volatile sig_atomic_t run_stop;

int gc_run_interrupted(void)
{
	return run_stop != 0;
}

static void on_signal(int sig)
{
	static const char msg[] = "\ngcbench: stopping: finishing cleanup (links restored, point marked interrupted)\n";
	(void)sig;
	if (run_stop) {
		/* a second Ctrl-C: still never leave links capped; cleanup continues */
		return;
	}
	run_stop = 1;
	gc_proc_interrupt();
	if (write(2, msg, sizeof(msg) - 1) < 0) {
	}
}

void gc_run_install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

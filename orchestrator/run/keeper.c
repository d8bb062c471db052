/* orchestrator/run/keeper.c: a remote shell held open for a point (keeper.h). */
#include "keeper.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "timing.h"

/* Read k->rfd until word has come (within the bytes read since this call) or the
 * deadline; 1 when it came. */
static int wait_word(struct gc_keeper *k, const char *word, double timeout_s)
{
	char buf[256];
	size_t n = 0, wl = strlen(word);
	uint64_t end = gc_now_ns() + (uint64_t)(timeout_s * 1e9);

	while (k->rfd >= 0 && n < sizeof(buf) - 1 && !memmem(buf, n, word, wl)) {
		struct pollfd p = { k->rfd, POLLIN, 0 };
		uint64_t now = gc_now_ns();
		ssize_t r;
		if (now >= end || poll(&p, 1, (int)((end - now) / 1000000 + 1)) <= 0)
			break;
		r = read(k->rfd, buf + n, sizeof(buf) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	return memmem(buf, n, word, wl) != NULL;
}

gc_rc gc_keeper_spawn(char **argv, const char *word, double timeout_s, const char *what,
		      struct gc_keeper *k, gc_err *e)
{
	int in[2], out[2], null;
	pid_t pid;

	k->pid = 0;
	k->wfd = k->rfd = -1;
	if (pipe2(in, O_CLOEXEC))
		return gc_fail(e, GC_E_IO, "cannot make a pipe: %s", strerror(errno));
	if (pipe2(out, O_CLOEXEC)) {
		close(in[0]);
		close(in[1]);
		return gc_fail(e, GC_E_IO, "cannot make a pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid == 0) {
		null = open("/dev/null", O_WRONLY);
		dup2(in[0], 0);
		dup2(out[1], 1);
		if (null >= 0)
			dup2(null, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	if (pid < 0) {
		close(in[1]);
		close(out[0]);
		return gc_fail(e, GC_E_IO, "cannot start '%s': %s", argv[0], strerror(errno));
	}
	k->pid = pid;
	k->wfd = in[1];
	k->rfd = out[0];
	if (!wait_word(k, word, timeout_s))
		return gc_fail(e, GC_E_COMM, "%s did not start", what);
	return GC_OK;
}

gc_rc gc_keeper_say(struct gc_keeper *k, const char *line, const char *word, double timeout_s,
		    const char *what, gc_err *e)
{
	size_t n = strlen(line);
	struct sigaction old, ign;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;   /* a keeper gone: write fails instead of SIGPIPE */
	sigaction(SIGPIPE, &ign, &old);
	if (k->wfd < 0 || write(k->wfd, line, n) != (ssize_t)n || write(k->wfd, "\n", 1) != 1) {
		sigaction(SIGPIPE, &old, NULL);
		return gc_fail(e, GC_E_COMM, "%s: its shell is gone", what);
	}
	sigaction(SIGPIPE, &old, NULL);
	return wait_word(k, word, timeout_s) ? GC_OK
					      : gc_fail(e, GC_E_COMM, "%s did not answer", what);
}

void gc_keeper_end(struct gc_keeper *k, double wait_s)
{
	int st;

	if (k->wfd >= 0)
		close(k->wfd);
	if (k->rfd >= 0)
		close(k->rfd);
	k->wfd = k->rfd = -1;
	if (k->pid <= 0)
		return;
	for (int i = 0; i < (int)(wait_s * 10); i++) {
		if (waitpid(k->pid, &st, WNOHANG) != 0) {
			k->pid = 0;
			return;
		}
		usleep(100000);
	}
	kill(k->pid, SIGTERM);
	waitpid(k->pid, &st, 0);
	k->pid = 0;
}

#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "timing.h"

static volatile sig_atomic_t proc_stop;

void gc_proc_interrupt(void)
{
	proc_stop = 1;
}

int gc_proc_interrupted(void)
{
	return proc_stop != 0;
}

void gc_proc_clear_interrupt(void)
{
	proc_stop = 0;
}

static void child_exec(char *const argv[], const char *const *env_extra, pid_t parent, int in,
		       int out, int err)
{
	setpgid(0, 0);
	/* if we are killed (even with SIGKILL) the child goes too: mpirun then takes its
	 * remote daemons and ranks down, and nothing keeps running behind a dead sweep */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	dup2(in, 0);
	dup2(out, 1);
	dup2(err, 2);
	for (; env_extra && *env_extra; env_extra++)
		putenv((char *)*env_extra);
	execvp(argv[0], argv);
	dprintf(2, "cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

struct capture {
	gc_buf out;                 /* stdout, up to GC_PROC_MAX_OUT bytes */
	char tail[GC_PROC_TAIL];
	size_t tail_len;
	const char *const *marks;   /* stall marks, or NULL */
	int marked;                 /* one was seen */
};

/* Has a stall mark appeared in the stderr tail? (A mark split across reads is found
 * once its second half arrives: the tail keeps the bytes before it.) */
static int saw_mark(const struct capture *c)
{
	char buf[GC_PROC_TAIL + 1];
	const char *const *m;

	if (!c->marks)
		return 0;
	memcpy(buf, c->tail, c->tail_len);
	buf[c->tail_len] = 0;
	for (m = c->marks; *m; m++)
		if (strstr(buf, *m))
			return 1;
	return 0;
}

static void keep_out(struct capture *c, const char *b, size_t n)
{
	if (n > GC_PROC_MAX_OUT - c->out.len)
		n = GC_PROC_MAX_OUT - c->out.len;
	gc_buf_add(&c->out, b, n);
}

static void keep_tail(struct capture *c, const char *b, size_t n)
{
	if (n >= GC_PROC_TAIL) {
		memcpy(c->tail, b + n - GC_PROC_TAIL, GC_PROC_TAIL);
		c->tail_len = GC_PROC_TAIL;
		return;
	}
	if (c->tail_len + n > GC_PROC_TAIL) {
		size_t drop = c->tail_len + n - GC_PROC_TAIL;
		memmove(c->tail, c->tail + drop, c->tail_len - drop);
		c->tail_len -= drop;
	}
	memcpy(c->tail + c->tail_len, b, n);
	c->tail_len += n;
}

static void kill_group(pid_t pid)
{
	uint64_t until = gc_now_ns() + 2000000000ull;
	kill(-pid, SIGTERM);
	while (gc_now_ns() < until) {
		if (waitpid(pid, NULL, WNOHANG) == pid) {
			kill(-pid, SIGKILL);   /* stragglers in the group */
			return;
		}
		usleep(20000);
	}
	kill(-pid, SIGKILL);
}

/* Read both pipes until they close, the deadline passes or we are interrupted.
 * Returns 0 (closed), 1 (deadline), 2 (interrupted) or 3 (stalled: grace_ns after a
 * stall mark). */
static int pump(int fo, int fe, struct capture *c, uint64_t deadline, uint64_t grace_ns, int echo)
{
	uint64_t stall_at = 0;
	struct pollfd p[2] = { { fo, POLLIN, 0 }, { fe, POLLIN, 0 } };
	char buf[65536];
	int open_fds = 2;

	while (open_fds) {
		int i, r = poll(p, 2, 100);
		if (proc_stop)
			return 2;
		if (deadline && gc_now_ns() > deadline)
			return 1;
		if (stall_at && gc_now_ns() > stall_at)
			return 3;
		if (r <= 0)
			continue;
		for (i = 0; i < 2; i++) {
			ssize_t n;
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				p[i].fd = -1;
				open_fds--;
				continue;
			}
			if (i == 0) {
				keep_out(c, buf, (size_t)n);
			} else {
				keep_tail(c, buf, (size_t)n);
				if (!c->marked && saw_mark(c)) {
					c->marked = 1;
					stall_at = gc_now_ns() + grace_ns;
				}
				if (echo && write(2, buf, (size_t)n) < 0) {
				}
			}
		}
	}
	return 0;
}

static gc_rc start_child(char *const argv[], const char *const *env_extra, const char *stdin_data,
			 int fo[2], int fe[2], pid_t *pid, gc_err *e)
{
	int fi[2] = { -1, -1 };

	pid_t parent = getpid();

	if (pipe2(fo, O_CLOEXEC) || pipe2(fe, O_CLOEXEC) || pipe2(fi, O_CLOEXEC))
		return gc_fail(e, GC_E_IO, "cannot create pipes: %s", strerror(errno));
	*pid = fork();
	if (*pid < 0) {
		close(fi[0]);
		close(fi[1]);
		return gc_fail(e, GC_E_IO, "cannot fork: %s", strerror(errno));
	}
	if (*pid == 0)
		child_exec(argv, env_extra, parent, fi[0], fo[1], fe[1]);
	setpgid(*pid, *pid);
	close(fi[0]);
	close(fo[1]);
	close(fe[1]);
	if (stdin_data) {
		signal(SIGPIPE, SIG_IGN);
		if (write(fi[1], stdin_data, strlen(stdin_data)) < 0) {
		}
	}
	close(fi[1]);
	return GC_OK;
}

gc_rc gc_proc_run(char *const argv[], const char *const *env_extra, const char *stdin_data,
		  double timeout_s, int echo_stderr, gc_proc_result *res, gc_err *e)
{
	gc_proc_opts o = { timeout_s, echo_stderr, NULL, 0 };
	return gc_proc_run_opts(argv, env_extra, stdin_data, &o, res, e);
}

gc_rc gc_proc_run_opts(char *const argv[], const char *const *env_extra, const char *stdin_data,
		       const gc_proc_opts *o, gc_proc_result *res, gc_err *e)
{
	struct capture c = { 0 };
	double timeout_s = o->timeout_s;
	uint64_t deadline = timeout_s > 0 ? gc_now_ns() + (uint64_t)(timeout_s * 1e9) : 0;
	uint64_t grace_ns = o->stall_grace_s > 0 ? (uint64_t)(o->stall_grace_s * 1e9) : 0;
	int fo[2], fe[2], st = 0, why;
	pid_t pid = -1;
	gc_rc rc;

	memset(res, 0, sizeof(*res));
	res->status = -1;
	rc = start_child(argv, env_extra, stdin_data, fo, fe, &pid, e);
	if (rc)
		return rc;
	c.marks = o->stall_marks;
	why = pump(fo[0], fe[0], &c, deadline, grace_ns, o->echo_stderr);
	if (why)
		kill_group(pid);
	close(fo[0]);
	close(fe[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st))
		res->status = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		res->signal = WTERMSIG(st);
	res->timed_out = why == 1;
	res->interrupted = why == 2;
	res->stalled = why == 3;
	res->out_len = c.out.oom ? 0 : c.out.len;
	res->out = gc_buf_take(&c.out);
	memcpy(res->err_tail, c.tail, c.tail_len);
	res->err_tail[c.tail_len] = 0;
	if (res->status == 127 && strstr(res->err_tail, "cannot run"))
		return gc_fail(e, GC_E_NOTFOUND, "%s", res->err_tail);
	if (why == 1)
		return gc_fail(e, GC_E_TIMEOUT, "'%s' timed out after %.0f s", argv[0], timeout_s);
	if (why == 2)
		return gc_fail(e, GC_E_INTERRUPTED, "'%s' interrupted", argv[0]);
	if (why == 3)
		return gc_fail(e, GC_E_TIMEOUT, "'%s' was still running %.0f s after the job failed",
			       argv[0], o->stall_grace_s);
	if (!res->out)
		return gc_fail(e, GC_E_NOMEM, "out of memory for the output of '%s'", argv[0]);
	return GC_OK;
}

void gc_argv_free(char **argv)
{
	size_t i;
	if (!argv)
		return;
	for (i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

void gc_proc_result_release(gc_proc_result *res)
{
	if (!res)
		return;
	free(res->out);
	res->out = NULL;
}

void gc_proc_describe(const gc_proc_result *res, double timeout_s, char *buf, size_t n)
{
	if (res->stalled)
		snprintf(buf, n, "hung after the job failed (killed)");
	else if (res->timed_out)
		snprintf(buf, n, "timed out after %.0f s", timeout_s);
	else if (res->interrupted)
		snprintf(buf, n, "interrupted");
	else if (res->signal)
		snprintf(buf, n, "killed by signal %d (%s)", res->signal, strsignal(res->signal));
	else
		snprintf(buf, n, "exited %d", res->status);
}

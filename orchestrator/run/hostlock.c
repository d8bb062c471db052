/* The holders of the host lock, over ssh (orchestrator/run/hostlock.h).
 *
 * A holder outlives the call that starts it and keeps its stdin open for as long as
 * the lock is held, which common/proc.h's runner (run to completion, stdin from data)
 * does not do: the ssh child is started here, in a process group of its own (a Ctrl-C
 * at the terminal must not end it before the links are restored), with both pipe ends
 * on this side close-on-exec (no later child may keep the holder's stdin open after
 * this process dies). */
#include "hostlock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "proc.h"
#include "strutil.h"

#define HOLD_ANSWER_S 30.0   /* the ssh connect timeout (10 s) and slack */
#define HOLD_RELEASE_S 5.0

/* Where the lock is (shared by HOLDER and BREAKER): f, the file host@INODE in d.
 * d is GC_HOSTLOCK_DIR for every login, root or not, so that all of them lock the
 * same file: the package makes it (1777, tmpfiles.d), else the first login does
 * (mkdir -m 1777, as /tmp). Only where it cannot be made (no /run/lock), a login's own
 * ~/.cache/gcbench/hostlock, which other logins do not see.
 * GCBENCH_HOSTLOCK_DIR replaces d (tests: ssh does not carry it to a host). */
#define LOCATE \
	"n=$(readlink /proc/$$/ns/net 2>/dev/null | tr -cd 0-9); n=${n:-0}; r=" GC_HOSTLOCK_DIR "; " \
	"if [ -n \"${GCBENCH_HOSTLOCK_DIR:-}\" ]; then d=$GCBENCH_HOSTLOCK_DIR; " \
	"elif { [ -e \"$r\" ] || mkdir -m 1777 \"$r\" 2>/dev/null || [ -e \"$r\" ]; } && " \
	"[ -d \"$r\" ] && [ -w \"$r\" ]; then d=$r; " \
	"else d=${HOME:-/nonexistent}/.cache/gcbench/hostlock; fi; f=$d/host@$n; "

/* $1: the owner record without since. Exit 3: held by someone else (the record
 * follows "busy"); 4: this host cannot hold the lock (the reason follows
 * "gcbench-hostlock:"). The record is written into the locked file itself (the
 * flock is on the file, whatever its content) and emptied at the end. The file is
 * made 0666 by whoever makes it, and opened read-only for the flock and written
 * without O_CREAT (dd conv=nocreat): fs.protected_regular refuses an O_CREAT open of
 * another login's file in a sticky directory. `( : 9<F )` tests the open first: a
 * failed redirection of exec ends a POSIX shell. */
static const char HOLDER[] =
	LOCATE
	"command -v flock >/dev/null 2>&1 || { echo 'gcbench-hostlock: no-flock'; exit 4; }; "
	"mkdir -p \"$d\" 2>/dev/null; "
	"if [ \"$d\" = \"$r\" ]; then [ -e \"$f\" ] || ( umask 0; : >>\"$f\" ); "
	"[ -O \"$f\" ] && chmod 0666 \"$f\"; else [ -e \"$f\" ] || : >>\"$f\"; fi 2>/dev/null; "
	"( : 9<\"$f\" ) 2>/dev/null || { echo \"gcbench-hostlock: no-open $f\"; exit 4; }; "
	"exec 9<\"$f\"; "
	"if ! flock -n 9; then echo busy; cat \"$f\" 2>/dev/null; exit 3; fi; "
	"printf '%ssince=%s\\nholder=%s\\n' \"$1\" \"$(date +%s)\" \"$$\" 2>/dev/null | "
	"dd of=\"$f\" conv=nocreat status=none 2>/dev/null || "
	"{ echo \"gcbench-hostlock: no-write $f\"; exit 4; }; "
	"echo locked; cat >/dev/null 9<&-; dd if=/dev/null of=\"$f\" conv=nocreat status=none 2>/dev/null";

/* $1: the pid of a holder whose owner is gone. Ended only when it is still the holder
 * that the record names and it has the lock file open (fd 9, or where the shell saved
 * fd 9 while it waits for cat: dash moves it); exit 5 otherwise. */
static const char BREAKER[] =
	LOCATE
	"grep -qx \"holder=$1\" \"$f\" 2>/dev/null || exit 5; "
	"for p in /proc/$1/fd/*; do "
	"[ \"$(readlink \"$p\" 2>/dev/null)\" = \"$f\" ] && exec kill -KILL \"$1\"; done; exit 5";

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static gc_rc spawn(gc_node *nd, const char *record, pid_t *pid, int *in, int *out, gc_err *e)
{
	char *argv[] = { "sh", "-c", (char *)HOLDER, "gcbench-hostlock", (char *)record, NULL };
	char **sv = NULL;
	int pi[2], po[2];
	gc_rc rc;

	if ((rc = gc_node_argv(nd, argv, &sv, e)))   /* ssh, or a step of the allocation */
		return rc;
	if (pipe2(pi, O_CLOEXEC)) {
		gc_argv_free(sv);
		return gc_fail(e, GC_E_IO, "cannot make a pipe: %s", strerror(errno));
	}
	if (pipe2(po, O_CLOEXEC)) {
		close(pi[0]), close(pi[1]);
		gc_argv_free(sv);
		return gc_fail(e, GC_E_IO, "cannot make a pipe: %s", strerror(errno));
	}
	*pid = fork();
	if (*pid == 0) {
		setpgid(0, 0);
		if (dup2(pi[0], 0) < 0 || dup2(po[1], 1) < 0 || dup2(po[1], 2) < 0)
			_exit(127);
		execvp(sv[0], sv);
		_exit(127);
	}
	gc_argv_free(sv);
	close(pi[0]);
	close(po[1]);
	if (*pid < 0) {
		close(pi[1]), close(po[0]);
		return gc_fail(e, GC_E_IO, "cannot start ssh: %s", strerror(errno));
	}
	setpgid(*pid, *pid);
	*in = pi[1];
	*out = po[0];
	return GC_OK;
}

/* the holder's output until "locked" or end of file; 1 locked, 0 ended, -1 no answer */
static int await(int fd, double deadline, char *buf, size_t n)
{
	size_t len = 0;
	ssize_t r;

	buf[0] = 0;
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		double left = deadline - now_s();
		int k;
		if (!strncmp(buf, "locked\n", 7) || strstr(buf, "\nlocked\n"))
			return 1;
		if (left <= 0 || gc_proc_interrupted())
			return -1;
		k = poll(&p, 1, (int)(left * 1000) + 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			continue;
		if (len + 1 >= n)
			return 0;   /* more than any answer: read as ended */
		r = read(fd, buf + len, n - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		len += (size_t)r;
		buf[len] = 0;
	}
}

static int reap(pid_t pid, double wait_s)
{
	double end = now_s() + wait_s;
	int st = 0;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
		if (w < 0 && errno != EINTR)
			return -1;
		if (now_s() >= end) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
			}
			return -1;
		}
		usleep(20000);
	}
}

static void last_line(const char *s, char *out, size_t n)
{
	const char *end = s + strlen(s), *p;

	while (end > s && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	for (p = end; p > s && p[-1] != '\n'; p--) {
	}
	snprintf(out, n, "%.*s", (int)(end - p), p);
}

/* What a holder that did not lock said, as an error. */
static gc_rc refused(const gc_node *nd, int status, const char *said, long long *stale,
		     gc_err *e)
{
	const char *busy = NULL;
	char line[256], desc[2048];
	struct gc_hostlock_owner o;
	gc_err pe;

	if (!strncmp(said, "busy\n", 5))
		busy = said + 5;
	else if ((busy = strstr(said, "\nbusy\n")))
		busy += 6;
	if (status == 3 && busy) {
		if (gc_hostlock_owner_parse(busy, &o, &pe) == GC_OK) {
			gc_hostlock_owner_describe(&o, time(NULL), desc, sizeof(desc));
			*stale = gc_hostlock_owner_gone(&o) ? o.holder : 0;
			return gc_fail(e, GC_E_BUSY, "host '%s' (%s) is held by another gcbench run: %s; "
				       "nothing was changed on any host: wait for that run to end or stop it "
				       "(its lock goes with it)", nd->name, nd->address, desc);
		}
		return gc_fail(e, GC_E_BUSY, "host '%s' (%s) is held by another gcbench run whose owner "
			       "record (" GC_HOSTLOCK_DIR "/host@N there) cannot be read: %s; nothing was "
			       "changed on any host: wait for that run to end or stop it", nd->name,
			       nd->address, *busy ? pe.msg : "it is not written yet, or was removed");
	}
	last_line(said, line, sizeof(line));
	if (status == 4 && strstr(said, "gcbench-hostlock: no-flock"))
		return gc_fail(e, GC_E_UNSUPPORTED, "host '%s' (%s) has no flock(1), which holds the "
			       "gcbench host lock: install util-linux there", nd->name, nd->address);
	if (status == 4)
		return gc_fail(e, GC_E_IO, "host '%s' (%s) cannot hold the gcbench host lock (%s): "
			       "every login locks in " GC_HOSTLOCK_DIR " (mode 1777, made by the "
			       "gcbench package or the first login; docs/spec.md, \"Who holds a "
			       "host\"); where that cannot be made, a writable home directory", nd->name, nd->address, line);
	return gc_fail(e, GC_E_COMM, "cannot lock host '%s' (%s): ssh ended (%s)%s%s", nd->name,
		       nd->address, status == 255 ? "cannot connect" : "unexpected end",
		       *line ? ": " : "", line);
}

/* End the holder hpid of a lock whose owner is gone (BREAKER). */
static int break_stale(gc_node *nd, long long hpid)
{
	char pid[32], *argv[] = { "sh", "-c", (char *)BREAKER, "gcbench-hostlock", pid, NULL };
	char **sv;
	gc_proc_result r;
	gc_err e;
	int ok;

	snprintf(pid, sizeof(pid), "%lld", hpid);
	if (gc_node_argv(nd, argv, &sv, &e))
		return 0;
	ok = gc_proc_run(sv, NULL, NULL, HOLD_ANSWER_S, 0, &r, &e) == GC_OK && r.status == 0;
	gc_argv_free(sv);
	gc_proc_result_release(&r);
	return ok;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The holder i ended without locking: its error, or GC_OK once a lock whose owner is
 * provably gone (gc_hostlock_owner_gone) was taken over. */
static gc_rc settle(gc_node *nd, const char *record, struct gc_hostlocks *hl, size_t i,
		    char *said, size_t n, gc_err *e)
{
	long long stale = 0;
	gc_rc rc = refused(nd, reap(hl->pid[i], HOLD_RELEASE_S), said, &stale, e);
	int tries;

	hl->pid[i] = 0;   /* reaped */
	for (tries = 0; rc == GC_E_BUSY && stale > 0 && tries < 3; tries++) {
		if (!break_stale(nd, stale))
			return rc;
		gc_info("host '%s': its lock belonged to a gcbench run of this machine that is gone: "
			"taken over", nd->name);
		close_fd(&hl->in[i]);
		close_fd(&hl->out[i]);
		usleep(100000);
		if ((rc = spawn(nd, record, &hl->pid[i], &hl->in[i], &hl->out[i], e)))
			return rc;
		if (await(hl->out[i], now_s() + HOLD_ANSWER_S, said, n) == 1)
			return GC_OK;
		stale = 0;
		rc = refused(nd, reap(hl->pid[i], HOLD_RELEASE_S), said, &stale, e);
		hl->pid[i] = 0;
	}
	return rc;
}

static int by_address(const void *a, const void *b)
{
	const gc_node *x = *(gc_node *const *)a, *y = *(gc_node *const *)b;
	int c = strcmp(x->address, y->address);

	return c ? c : x->port - y->port;
}

static gc_rc hl_alloc(struct gc_hostlocks *hl, size_t n, gc_err *e)
{
	memset(hl, 0, sizeof(*hl));
	hl->pid = calloc(n ? n : 1, sizeof(pid_t));
	hl->in = calloc(n ? n : 1, sizeof(int));
	hl->out = calloc(n ? n : 1, sizeof(int));
	if (!hl->pid || !hl->in || !hl->out) {
		gc_hostlock_release(hl);
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	}
	return GC_OK;
}

gc_rc gc_hostlock_acquire(gc_node *nodes, size_t n, const struct gc_hostlock_owner *me,
			  struct gc_hostlocks *hl, gc_err *e)
{
	struct gc_hostlock_owner rec = *me;
	char record[4096], said[8192];
	gc_node **order;
	double deadline;
	size_t i;
	gc_rc rc;

	if ((rc = hl_alloc(hl, n, e)))
		return rc;
	order = calloc(n ? n : 1, sizeof(*order));
	if (!order) {
		gc_hostlock_release(hl);
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	}
	for (i = 0; i < n; i++)
		order[i] = &nodes[i];
	qsort(order, n, sizeof(*order), by_address);   /* one order for every controller */
	rec.since = 0;
	gc_hostlock_owner_format(&rec, record, sizeof(record));
	for (i = 0; !rc && i < n; i++) {
		rc = spawn(order[i], record, &hl->pid[i], &hl->in[i], &hl->out[i], e);
		hl->n += !rc;
	}
	deadline = now_s() + HOLD_ANSWER_S;
	for (i = 0; !rc && i < n; i++) {
		int got = await(hl->out[i], deadline, said, sizeof(said));
		if (got == 1)
			continue;
		if (gc_proc_interrupted())
			rc = gc_fail(e, GC_E_INTERRUPTED, "interrupted while locking the hosts");
		else if (got < 0)
			rc = gc_fail(e, GC_E_TIMEOUT, "host '%s' (%s) did not answer within %.0f s while "
				     "being locked", order[i]->name, order[i]->address, HOLD_ANSWER_S);
		else
			rc = settle(order[i], record, hl, i, said, sizeof(said), e);
	}
	free(order);
	if (rc)
		gc_hostlock_release(hl);
	return rc;
}

void gc_hostlock_release(struct gc_hostlocks *hl)
{
	size_t i;
	double end = now_s() + HOLD_RELEASE_S;

	for (i = 0; i < hl->n; i++)
		close_fd(&hl->in[i]);   /* the holder reads end of file, removes its record, ends */
	for (i = 0; i < hl->n; i++) {
		double left = end - now_s();
		if (hl->pid[i] > 0 && waitpid(hl->pid[i], NULL, WNOHANG) != hl->pid[i])
			reap(hl->pid[i], left > 0 ? left : 0);
		close_fd(&hl->out[i]);
	}
	free(hl->pid);
	free(hl->in);
	free(hl->out);
	memset(hl, 0, sizeof(*hl));
}

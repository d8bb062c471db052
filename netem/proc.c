/* netem/proc.c: fork/exec with a deadline; end a namespace's processes. */
#include "netem/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "netem/netns.h"
#include "timing.h"

static void child_exec(const char *const argv[], int errfd)
{
	int nul = open("/dev/null", O_RDWR);

	if (nul >= 0) {
		dup2(nul, 0);
		dup2(nul, 1);
	}
	dup2(errfd, 2);
	execvp(argv[0], (char *const *)argv);
	fprintf(stderr, "cannot run '%s': %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Wait for pid up to timeout_s; kill it after. Returns the wait status, or -1 on timeout. */
static int wait_deadline(pid_t pid, int timeout_s)
{
	uint64_t end = gc_now_ns() + (uint64_t)timeout_s * 1000000000ull;
	int st;

	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return st;
		if (r < 0 && errno != EINTR)
			return -1;
		if (gc_now_ns() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			return -1;
		}
		usleep(5000);
	}
}

gc_rc gc_run(const char *const argv[], int timeout_s, gc_err *e)
{
	char buf[1024], *last;
	ssize_t n;
	int p[2], st;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return gc_fail(e, GC_E_IO, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return gc_fail(e, GC_E_CHILD, "fork: %s", strerror(errno));
	}
	if (pid == 0)
		child_exec(argv, p[1]);
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	st = wait_deadline(pid, timeout_s);
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	buf[n > 0 ? n : 0] = 0;
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = 0;
	last = strrchr(buf, '\n');
	last = last ? last + 1 : buf;
	if (st == -1)
		return gc_fail(e, GC_E_TIMEOUT, "'%s %s' did not finish within %d s", argv[0],
			       argv[1] ? argv[1] : "", timeout_s);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return gc_fail(e, GC_E_CHILD, "'%s %s %s' failed: %s", argv[0], argv[1] ? argv[1] : "",
			       argv[1] && argv[2] ? argv[2] : "", *last ? last : "no message");
	return GC_OK;
}

int gc_pid_matches(pid_t pid, const char *needle)
{
	char path[64], buf[4096];
	ssize_t n, i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = 0;
	return strstr(buf, needle) != NULL;
}

static int signal_ns(const struct stat *ns, int sig)
{
	char path[64];
	struct dirent *d;
	struct stat s;
	DIR *dp = opendir("/proc");
	int n = 0;

	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		pid_t pid = (pid_t)atoi(d->d_name);
		if (pid <= 1 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
		if (stat(path, &s) || s.st_ino != ns->st_ino || s.st_dev != ns->st_dev)
			continue;
		if (!kill(pid, sig))
			n++;
	}
	closedir(dp);
	return n;
}

int gc_netns_kill_all(const char *name)
{
	char path[512];
	struct stat ns;
	int n, i;

	snprintf(path, sizeof(path), "%s/%s", GC_NETNS_DIR, name);
	if (stat(path, &ns))
		return 0;
	n = signal_ns(&ns, SIGTERM);
	for (i = 0; i < 40 && n && signal_ns(&ns, 0); i++)
		usleep(50000);
	if (n)
		signal_ns(&ns, SIGKILL);
	return n;
}

static int signal_matching(const char *needle, int sig)
{
	struct dirent *d;
	DIR *dp = opendir("/proc");
	int n = 0;

	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		pid_t pid = (pid_t)atoi(d->d_name);
		if (pid <= 1 || pid == getpid() || !gc_pid_matches(pid, needle))
			continue;
		if (!kill(pid, sig))
			n++;
	}
	closedir(dp);
	return n;
}

int gc_kill_matching(const char *needle)
{
	int n = signal_matching(needle, SIGTERM), i;

	for (i = 0; i < 40 && n && signal_matching(needle, 0); i++)
		usleep(50000);
	if (n)
		signal_matching(needle, SIGKILL);
	return n;
}

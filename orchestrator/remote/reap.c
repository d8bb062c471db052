#include "reap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "timing.h"

#define REAP_MAX 256
#define REAP_BUF 65536

/* The value after "--mca gcbench_run" / "-mca gcbench_run" in an argv. */
static const char *mark_in_argv(const char *a, size_t n, size_t *len)
{
	const char *end = a + n, *prev = NULL;
	while (a < end) {
		size_t l = strnlen(a, (size_t)(end - a));
		if (prev && (!strcmp(prev, "--mca") || !strcmp(prev, "-mca")) && l == strlen(GC_REAP_MCA) &&
		    !memcmp(a, GC_REAP_MCA, l) && a + l + 1 < end) {
			const char *v = a + l + 1;
			*len = strnlen(v, (size_t)(end - v));
			return v;
		}
		prev = a;
		a += l + 1;
	}
	return NULL;
}

static const char *mark_in_env(const char *a, size_t n, size_t *len)
{
	const char *end = a + n;
	size_t k = strlen(GC_REAP_ENV);
	while (a < end) {
		size_t l = strnlen(a, (size_t)(end - a));
		if (l > k && !memcmp(a, GC_REAP_ENV, k)) {
			*len = l - k;
			return a + k;
		}
		a += l + 1;
	}
	return NULL;
}

const char *gc_reap_mark(const char *cmdline, size_t cmdline_len, const char *env,
			 size_t env_len, size_t *len)
{
	const char *v = cmdline ? mark_in_argv(cmdline, cmdline_len, len) : NULL;
	return v ? v : env ? mark_in_env(env, env_len, len) : NULL;
}

static size_t slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	ssize_t r;
	if (fd < 0)
		return 0;
	while (n < cap && (r = read(fd, buf + n, cap - n)) > 0)
		n += (size_t)r;
	close(fd);
	return n;
}

static int same_netns(pid_t pid, const char *mine)
{
	char path[64], ns[128];
	ssize_t n;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	n = readlink(path, ns, sizeof(ns) - 1);
	if (n <= 0)
		return 0;
	ns[n] = 0;
	return !strcmp(ns, mine);
}

static int owned(pid_t pid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	return !stat(path, &st) && st.st_uid == geteuid();
}

/* Marked processes of ours in our namespace, with a line each to log. */
static int find_marked(pid_t *pids, const char *mine, FILE *log, int dry_run)
{
	static char cmd[REAP_BUF], env[REAP_BUF];
	char path[64], comm[64];
	struct dirent *d;
	DIR *dir = opendir("/proc");
	int n = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < REAP_MAX) {
		pid_t pid = (pid_t)atoi(d->d_name);
		size_t cl, el, vl;
		const char *v;
		if (pid <= 1 || pid == getpid() || !owned(pid) || !same_netns(pid, mine))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		cl = slurp(path, cmd, sizeof(cmd));
		snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
		el = slurp(path, env, sizeof(env));
		v = gc_reap_mark(cmd, cl, env, el, &vl);
		if (!v)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		comm[slurp(path, comm, sizeof(comm) - 1)] = 0;
		comm[strcspn(comm, "\n")] = 0;
		if (log)
			fprintf(log, "%s %s (pid %d) of run %.*s\n", dry_run ? "would end" : "ending", comm,
				(int)pid, (int)(vl > 32 ? 32 : vl), v);
		pids[n++] = pid;
	}
	closedir(dir);
	return n;
}

gc_rc gc_reap(int dry_run, double grace_s, FILE *log, int *n, gc_err *e)
{
	pid_t pids[REAP_MAX];
	char mine[128];
	ssize_t l = readlink("/proc/self/ns/net", mine, sizeof(mine) - 1);
	uint64_t until;
	int i, left;

	*n = 0;
	if (l <= 0)
		return gc_fail(e, GC_E_IO, "cannot read /proc/self/ns/net: %s", strerror(errno));
	mine[l] = 0;
	*n = find_marked(pids, mine, log, dry_run);
	if (dry_run || !*n)
		return GC_OK;
	for (i = 0; i < *n; i++)
		kill(pids[i], SIGTERM);
	until = gc_now_ns() + (uint64_t)(grace_s * 1e9);
	do {
		for (i = 0, left = 0; i < *n; i++)
			left += pids[i] && kill(pids[i], 0) == 0;
		if (left)
			usleep(20000);
	} while (left && gc_now_ns() < until);
	for (i = 0; i < *n; i++)
		if (kill(pids[i], 0) == 0)
			kill(pids[i], SIGKILL);
	return GC_OK;
}

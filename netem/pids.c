/* netem/pids.c: identify processes through /proc and end them (see pids.h). */
#include "pids.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netns.h"

ssize_t gc_pid_read(pid_t pid, const char *file, char *buf, size_t n)
{
	char path[64];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	r = read(fd, buf, n - 1);
	close(fd);
	if (r <= 0)
		return -1;
	buf[r] = 0;
	return r;
}

unsigned long long gc_proc_start_time(pid_t pid)
{
	char buf[1024], *p;
	unsigned long long start = 0;
	int field;

	if (gc_pid_read(pid, "stat", buf, sizeof(buf)) < 0)
		return 0;
	p = strrchr(buf, ')');     /* the command name may hold spaces */
	if (!p)
		return 0;
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	/* a zombie (state Z) is gone for our purposes */
	return strstr(buf, ") Z ") ? 0 : start;
}

int gc_pid_matches(pid_t pid, const char *needle)
{
	char buf[4096];
	ssize_t n = gc_pid_read(pid, "cmdline", buf, sizeof(buf)), i;

	for (i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	return n > 0 && strstr(buf, needle) != NULL;
}

/* Which processes to end: a predicate on a pid and its argument. */
typedef int (*pid_pred)(pid_t pid, const void *arg);

/* Send sig to every process (but 1 and this one) the predicate picks; how many took it. */
static int signal_where(pid_pred pick, const void *arg, int sig)
{
	struct dirent *d;
	DIR *dp = opendir("/proc");
	int n = 0;

	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		pid_t pid = (pid_t)atoi(d->d_name);
		if (pid <= 1 || pid == getpid() || !pick(pid, arg))
			continue;
		if (!kill(pid, sig))
			n++;
	}
	closedir(dp);
	return n;
}

/* SIGTERM, up to 2 s for them to go, then SIGKILL; how many got SIGTERM. */
static int end_where(pid_pred pick, const void *arg)
{
	int n = signal_where(pick, arg, SIGTERM), i;

	for (i = 0; i < 40 && n && signal_where(pick, arg, 0); i++)
		usleep(50000);
	if (n)
		signal_where(pick, arg, SIGKILL);
	return n;
}

static int in_netns(pid_t pid, const void *arg)
{
	const struct stat *ns = arg;
	char path[64];
	struct stat s;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	return !stat(path, &s) && s.st_ino == ns->st_ino && s.st_dev == ns->st_dev;
}

static int cmdline_has(pid_t pid, const void *arg)
{
	return gc_pid_matches(pid, arg);
}

int gc_netns_kill_all(const char *name)
{
	char path[512];
	struct stat ns;

	snprintf(path, sizeof(path), "%s/%s", GC_NETNS_DIR, name);
	if (stat(path, &ns))
		return 0;
	return end_where(in_netns, &ns);
}

int gc_kill_matching(const char *needle)
{
	return end_where(cmdline_has, needle);
}

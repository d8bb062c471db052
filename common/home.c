/* Where gcbench keeps its state, and where it runs from (common/home.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "home.h"
#include "strutil.h"

const char *gc_home(void)
{
	static char buf[PATH_MAX];
	const char *h = getenv("GCBENCH_HOME");

	if (h && *h)
		return h;
	if (getuid() == 0)
		return "/var/lib/gcbench";
	snprintf(buf, sizeof(buf), "%s/.local/share/gcbench", getenv("HOME") ? getenv("HOME") : "/tmp");
	return buf;
}

void gc_self_dir(char *buf, size_t n)
{
	ssize_t len = readlink("/proc/self/exe", buf, n - 1);
	char *slash;

	if (len <= 0) {
		gc_strlcpy(buf, "/usr/local/bin", n);
		return;
	}
	buf[len] = 0;
	slash = strrchr(buf, '/');
	if (slash)
		*slash = 0;
}

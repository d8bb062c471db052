/* netem/policy.c: the installed helper's rules for the gcbench group (netem/policy.h). */
#include "policy.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "log.h"
#include "strutil.h"

/* Who asks: the real uid, or under sudo (the package's fallback where setcap is
 * missing: a sudoers line by path for %gcbench) the login that ran sudo. */
static uid_t caller_uid(void)
{
	const char *s = getuid() == 0 ? getenv("SUDO_UID") : NULL;
	char *end;
	unsigned long v;

	if (!s || !*s)
		return getuid();
	v = strtoul(s, &end, 10);
	return *end || v > 0x7fffffff ? getuid() : (uid_t)v;
}

static void caller(char *buf, size_t n)
{
	struct passwd *pw = getpwuid(caller_uid());

	snprintf(buf, n, "uid %d (%s)", (int)caller_uid(), pw && pw->pw_name ? pw->pw_name : "?");
}

static void log_line(int prio, const char *what)
{
	char who[96];

	caller(who, sizeof(who));
	openlog("gcbench-netem", LOG_PID, LOG_DAEMON);
	syslog(prio, "%s: %s", who, what);
	closelog();
}

/* refuse: print and log; the exit status */
static int refuse(const char *cmd, const char *dev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int refuse(const char *cmd, const char *dev, const char *fmt, ...)
{
	char msg[600], line[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	gc_error("%s: %s", cmd, msg);
	snprintf(line, sizeof(line), "refused %s of '%s': %s", cmd, dev ? dev : "-", msg);
	log_line(LOG_WARNING, line);
	return GC_EXIT_FAILED;   /* refused */
}

static gc_rc read_conf(struct gc_netem_conf *c, gc_err *e)
{
	char text[8192];
	size_t len;
	FILE *f = fopen(GC_POLICY_CONF, "r");

	if (!f)
		return gc_fail(e, GC_E_NOTFOUND, "cannot read %s: %s", GC_POLICY_CONF,
			       strerror(errno));
	len = fread(text, 1, sizeof(text) - 1, f);
	text[len] = 0;
	if (!feof(f)) {
		fclose(f);
		return gc_fail(e, GC_E_FORMAT, "%s is over %zu bytes", GC_POLICY_CONF,
			       sizeof(text) - 1);
	}
	fclose(f);
	return gc_netem_conf_parse(text, c, e);
}

/* The uid the process pid runs as (real), or -1. */
static long long proc_uid(long long pid)
{
	char path[64], line[256];
	long long uid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%lld/status", pid);
	if (!(f = fopen(path, "r")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Uid:", 4))
			uid = strtoll(line + 4, NULL, 10);
	fclose(f);
	return uid;
}

/* This namespace's host lock: 0 free, else the holder's uid (1 + uid) or -1 unknown */
static long long lock_holder(long long *holder)
{
	char path[128], text[4096], *h;
	struct stat sb;
	ssize_t r;
	int fd;

	*holder = 0;
	if (stat("/proc/self/ns/net", &sb))
		return -1;
	snprintf(path, sizeof(path), GC_POLICY_LOCK_DIR "/host@%llu",
		 (unsigned long long)sb.st_ino);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!flock(fd, LOCK_SH | LOCK_NB)) {
		close(fd);     /* nobody holds it */
		return 0;
	}
	r = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[r > 0 ? r : 0] = 0;
	h = strstr(text, "\nholder=");
	if (!h)
		return -1;
	*holder = strtoll(h + 8, NULL, 10);
	if (*holder <= 0)
		return -1;
	r = proc_uid(*holder);
	return r < 0 ? -1 : 1 + r;
}

/* Commands that change nothing: every other one, including commands added later, goes
 * through the checks (default deny). */
static int read_only(const char *cmd)
{
	return !strcmp(cmd, "show") || !strcmp(cmd, "check") || !strcmp(cmd, "version") ||
	       !strcmp(cmd, "help");
}

int gc_netem_policy_before(const char *cmd, const char *dev, const char *netns, int all)
{
	struct gc_netem_conf c;
	gc_err e = { { 0 } };
	char allow[64];
	long long held, holder;

	/* every caller, root too: one state directory that the purge reads */
	setenv("GCBENCH_NETEM_STATE_DIR", GC_POLICY_STATE_DIR, 1);
	if (caller_uid() == 0 || read_only(cmd))
		return 0;
	if (!strcmp(cmd, "restore-all"))
		return all ? refuse(cmd, dev, "only root restores the links of every login "
				    "(restore-all --all); without --all, links whose owner "
				    "is gone are restored") : 0;
	if (!dev)   /* every command that changes a link names it */
		return refuse(cmd, dev, "the installed helper changes only a link it is given "
			      "(--dev IFACE)");
	if (netns)
		return refuse(cmd, dev, "the installed helper shapes only the network namespace "
			      "it runs in; run it there (ip netns exec %s ...) instead of "
			      "--netns", netns);
	if (read_conf(&c, &e))
		return refuse(cmd, dev, "%s; the admin lists the interfaces the gcbench group "
			      "may shape there ('allow eth0')", e.msg);
	if (!gc_netem_conf_allows(&c, dev)) {
		snprintf(allow, sizeof(allow), "allow %s", dev);
		return refuse(cmd, dev, "interface '%s' is not in the admin's allowlist "
			      "(" GC_POLICY_CONF "); ask an admin to add the line '%s' if "
			      "gcbench may shape it", dev, allow);
	}
	held = lock_holder(&holder);
	if (held < 0)
		return refuse(cmd, dev, "this host's lock (" GC_POLICY_LOCK_DIR ") is held, "
			      "but not by a gcbench holder this helper can identify; wait "
			      "for that sweep to end");
	if (held > 0 && (uid_t)(held - 1) != caller_uid()) {
		return refuse(cmd, dev, "another login holds this host's lock (uid %lld, holder "
			      "pid %lld); only the lock holder shapes this host: wait for its "
			      "sweep to end", held - 1, holder);
	}
	return 0;
}

void gc_netem_policy_after(const char *cmd, int argc, char **argv, int status)
{
	char line[600];
	size_t o = 0;
	int i;

	if (read_only(cmd))
		return;
	for (i = 1; i < argc && o < sizeof(line) - 1; i++) {
		int k = snprintf(line + o, sizeof(line) - o, "%s%s", i > 1 ? " " : "", argv[i]);
		o += k > 0 ? (size_t)k : 0;
	}
	if (o >= sizeof(line))
		o = sizeof(line) - 1;
	line[o] = 0;
	for (char *p = line; *p; p++)    /* a caller's argv: printable only */
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	if (status == 0) {
		char msg[700];
		snprintf(msg, sizeof(msg), "%s (ok)", line);
		log_line(LOG_NOTICE, msg);
	} else {
		char msg[700];
		snprintf(msg, sizeof(msg), "%s (failed, exit %d)", line, status);
		log_line(LOG_WARNING, msg);
	}
}

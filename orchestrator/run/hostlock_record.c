/* The host lock's owner record, and the local cluster's probe (orchestrator/run/hostlock.h). */
#include "hostlock.h"

#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "netem/pids.h"
#include "home.h"
#include "strutil.h"

/* dst = src with control characters as '?', cut to fit */
static void clean_copy(char *dst, size_t n, const char *src)
{
	size_t i;

	gc_strlcpy(dst, src && *src ? src : "-", n);
	for (i = 0; dst[i]; i++)
		if ((unsigned char)dst[i] < 0x20 || dst[i] == 0x7f)
			dst[i] = '?';
}

/* path made absolute when it exists (the other controller's working directory means
 * nothing here) */
static const char *absolute(const char *path, char *buf, size_t n)
{
	char tmp[PATH_MAX];

	if (!path || !realpath(path, tmp))
		return path;
	gc_strlcpy(buf, tmp, n);
	return buf;
}

/* the first line of a small file, [0-9a-f-] only; "" when unreadable */
static void read_id(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t i;

	buf[0] = 0;
	if (!f)
		return;
	if (!fgets(buf, (int)n, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	for (i = 0; buf[i]; i++)
		if (!strchr("0123456789abcdef-", buf[i]))
			buf[0] = 0;
}

void gc_hostlock_owner_self(struct gc_hostlock_owner *o, const char *inventory,
			    const char *spec, const char *db)
{
	char host[256] = "", abs[PATH_MAX];
	struct stat st;
	struct passwd *pw = getpwuid(getuid());

	memset(o, 0, sizeof(*o));
	if (gethostname(host, sizeof(host) - 1))
		host[0] = 0;
	clean_copy(o->controller, sizeof(o->controller), host);
	clean_copy(o->user, sizeof(o->user), pw ? pw->pw_name : NULL);
	if (!pw)
		snprintf(o->user, sizeof(o->user), "uid %ld", (long)getuid());
	clean_copy(o->home, sizeof(o->home), gc_home());
	clean_copy(o->inventory, sizeof(o->inventory), absolute(inventory, abs, sizeof(abs)));
	clean_copy(o->spec, sizeof(o->spec), absolute(spec, abs, sizeof(abs)));
	clean_copy(o->db, sizeof(o->db), absolute(db, abs, sizeof(abs)));
	o->pid = (long long)getpid();
	read_id("/etc/machine-id", o->machine, sizeof(o->machine));
	read_id("/proc/sys/kernel/random/boot_id", o->boot, sizeof(o->boot));
	if (!stat("/proc/self/ns/pid", &st))
		o->pidns = (long long)st.st_ino;
	o->start = (long long)gc_proc_start_time(getpid());
}

int gc_hostlock_owner_gone(const struct gc_hostlock_owner *o)
{
	struct gc_hostlock_owner me;
	unsigned long long start;

	gc_hostlock_owner_self(&me, NULL, NULL, NULL);
	/* only a process this machine's kernel would show, in the same pid namespace */
	if (!*o->machine || strcmp(o->machine, me.machine) || !*o->boot ||
	    strcmp(o->boot, me.boot) || !o->pidns || o->pidns != me.pidns || !o->start ||
	    strcmp(o->controller, me.controller))
		return 0;
	if (o->pid == me.pid)
		return 0;
	start = o->pid > 0 && o->pid <= INT_MAX ? gc_proc_start_time((pid_t)o->pid) : 0;
	return start != (unsigned long long)o->start;
}

int gc_hostlock_owner_format(const struct gc_hostlock_owner *o, char *buf, size_t n)
{
	int len = snprintf(buf, n, "# gcbench host lock: who shapes this host\nversion=1\n"
			   "controller=%s\nuser=%s\nhome=%s\ninventory=%s\nspec=%s\ndb=%s\npid=%lld\n"
			   "machine=%s\nboot=%s\npidns=%lld\nstart=%lld\n",
			   o->controller, o->user, o->home, o->inventory, o->spec, o->db, o->pid,
			   o->machine, o->boot, o->pidns, o->start);

	if (len >= 0 && o->since)
		len += snprintf(buf + ((size_t)len < n ? (size_t)len : n), (size_t)len < n ? n - (size_t)len : 0,
				"since=%lld\n", o->since);
	return len;
}

static int printable(const char *v)
{
	for (; *v; v++)
		if ((unsigned char)*v < 0x20 || *v == 0x7f)
			return 0;
	return 1;
}

/* one key=value into o: 0, or -1 (bad value), or 1 (unknown key: ignored) */
static int owner_set(struct gc_hostlock_owner *o, const char *k, const char *v, int *version)
{
	static const struct { const char *key; size_t off, size; } str[] = {
#define S(f) { #f, offsetof(struct gc_hostlock_owner, f), sizeof(((struct gc_hostlock_owner *)0)->f) }
		S(controller), S(user), S(home), S(inventory), S(spec), S(db), S(machine), S(boot),
#undef S
		{ NULL, 0, 0 }
	};
	static const struct { const char *key; size_t off; } num[] = {
#define N(f) { #f, offsetof(struct gc_hostlock_owner, f) }
		N(pid), N(since), N(pidns), N(start), N(holder),
#undef N
		{ NULL, 0 }
	};
	uint64_t u;
	size_t i;

	if (!printable(v))
		return -1;
	for (i = 0; str[i].size; i++)
		if (!strcmp(k, str[i].key))
			return *v && gc_strlcpy((char *)o + str[i].off, v, str[i].size) < str[i].size ? 0 : -1;
	for (i = 0; num[i].key && strcmp(k, num[i].key); i++) {
	}
	if (!num[i].key && strcmp(k, "version"))
		return 1;
	if (gc_parse_u64(v, &u) || u == 0 || u > (uint64_t)1 << 62)
		return -1;
	if (!num[i].key)
		*version = (int)(u < 100 ? u : 100);
	else
		*(long long *)((char *)o + num[i].off) = (long long)u;
	return 0;
}

gc_rc gc_hostlock_owner_parse(const char *text, struct gc_hostlock_owner *o, gc_err *e)
{
	const char *p = text, *nl;
	char line[1024], *eq;
	int ln = 0, version = 0;

	memset(o, 0, sizeof(*o));
	while (p && *p) {
		size_t len;
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		ln++;
		if (len >= sizeof(line))
			return gc_fail(e, GC_E_FORMAT, "line %d is too long", ln);
		memcpy(line, p, len);
		line[len] = 0;
		p = nl ? nl + 1 : NULL;
		if (!line[0] || line[0] == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq)
			return gc_fail(e, GC_E_FORMAT, "line %d is not key=value", ln);
		*eq = 0;
		if (owner_set(o, line, eq + 1, &version) < 0)
			return gc_fail(e, GC_E_FORMAT, "line %d: the value of '%.20s' is not valid", ln,
				       printable(line) ? line : "?");
	}
	if (!version)
		return gc_fail(e, GC_E_FORMAT, "no 'version=1' line");
	if (version != 1)
		return gc_fail(e, GC_E_FORMAT, "record version %d: this gcbench reads version 1",
			       version);
	if (!*o->controller || !o->pid || !o->since)
		return gc_fail(e, GC_E_FORMAT, "no %s line", !*o->controller ? "controller" :
			       !o->pid ? "pid" : "since");
	return GC_OK;
}

void gc_hostlock_owner_describe(const struct gc_hostlock_owner *o, time_t now, char *buf,
				size_t n)
{
	char when[64] = "?", ago[48] = "";
	time_t t = (time_t)o->since;
	struct tm tm;
	long long d = (long long)now - o->since;

	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	if (d >= 0 && d < 120)
		snprintf(ago, sizeof(ago), ", %lld s ago", d);
	else if (d >= 120 && d < 7200)
		snprintf(ago, sizeof(ago), ", %lld min ago", d / 60);
	else if (d >= 7200)
		snprintf(ago, sizeof(ago), ", %lld h ago", d / 3600);
	snprintf(buf, n, "user '%s' on '%s' (gcbench run pid %lld, since %s%s; GCBENCH_HOME %s, "
		 "inventory %s, spec %s, database %s)", *o->user ? o->user : "?", o->controller,
		 o->pid, when, ago, *o->home ? o->home : "-", *o->inventory ? o->inventory : "-",
		 *o->spec ? o->spec : "-", *o->db ? o->db : "-");
}

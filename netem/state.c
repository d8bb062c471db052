/* netem/state.c: state files, written atomically (see state.h). */
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "pids.h"
#include "shape.h"
#include "strutil.h"

const char *gc_shape_state_dir(void)
{
	static char own[PATH_MAX];
	const char *d = getenv("GCBENCH_NETEM_STATE_DIR");
	struct passwd *pw;

	if (d && *d)
		return d;
	if (geteuid() == 0)
		return "/run/gcbench/netem";
	/* a login that shapes through the cap_net_admin file capability cannot write
	 * /run/gcbench: its own directory, from the password database (not $HOME) */
	pw = getpwuid(getuid());
	if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/')
		return "/run/gcbench/netem";
	snprintf(own, sizeof(own), "%s/.cache/gcbench/netem-state", pw->pw_dir);
	return own;
}

/* Namespaces share the file system (the local cluster's nodes all see one /run), so
 * a link of the caller's own namespace is keyed by that namespace's inode: "@INODE". */
void gc_state_self_ns(char *buf, size_t n)
{
	struct stat sb;
	if (stat("/proc/self/ns/net", &sb))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "@%llu", (unsigned long long)sb.st_ino);
}

gc_rc gc_state_path(const char *dev, const char *netns, char *buf, size_t n, gc_err *e)
{
	char self[32];
	int len;

	gc_state_self_ns(self, sizeof(self));
	len = snprintf(buf, n, "%s/%s_%s.state", gc_shape_state_dir(), netns ? netns : self, dev);
	if (len < 0 || (size_t)len >= n)
		return gc_fail(e, GC_E_INVAL, "state file path too long for '%s'", dev);
	return GC_OK;
}

static gc_rc mkdir_p(const char *dir, gc_err *e)
{
	gc_rc rc = gc_mkdir_p(dir, 0700, e);

	if ((rc == GC_E_PERM || rc == GC_E_IO) && e) {
		char why[sizeof(e->msg)];
		gc_strlcpy(why, e->msg, sizeof(why));
		gc_fail(e, rc, "state directory: %s (run as root, or set "
			"GCBENCH_NETEM_STATE_DIR)", why);
	}
	return rc;
}

gc_rc gc_state_write(const struct gc_netem_state *st, gc_err *e)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16];
	FILE *f;
	gc_rc rc;

	if ((rc = mkdir_p(gc_shape_state_dir(), e)) ||
	    (rc = gc_state_path(st->dev, st->netns[0] ? st->netns : NULL, path, sizeof(path), e)))
		return rc;
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return gc_fail(e, GC_E_IO, "cannot write state file '%s': %s", tmp, strerror(errno));
	fprintf(f, "# gcbench-netem state: what to restore on this link\nversion=1\n"
		"dev=%s\nnetns=%s\norig_kind=%s\norig_handle=%u\nowner_pid=%d\n"
		"owner_start=%llu\nkind=%s\nrate_bps=%llu\nburst=%u\n",
		st->dev, st->netns[0] ? st->netns : "-", st->orig_kind, st->orig_handle,
		(int)st->owner, st->owner_start, st->kind, (unsigned long long)st->rate_bps,
		st->burst);
	if (st->delay_us)
		fprintf(f, "delay_us=%u\n", st->delay_us);
	if (fflush(f) || fsync(fileno(f)) || fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return gc_fail(e, GC_E_IO, "cannot write state file '%s': %s", path, strerror(errno));
	}
	return GC_OK;
}

/* Store one key=value into st; returns 0, or -1 for an unknown key or bad value. */
static int state_set(struct gc_netem_state *st, const char *k, const char *v)
{
	uint64_t u = 0;
	int num = gc_parse_u64(v, &u) == GC_OK;

	if (!strcmp(k, "version"))
		return num && u == 1 ? 0 : -1;
	if (!strcmp(k, "dev"))
		return gc_strlcpy(st->dev, v, sizeof(st->dev)) < sizeof(st->dev) ? 0 : -1;
	if (!strcmp(k, "netns"))
		return gc_strlcpy(st->netns, strcmp(v, "-") ? v : "", sizeof(st->netns)) <
		       sizeof(st->netns) ? 0 : -1;
	if (!strcmp(k, "orig_kind"))
		return gc_strlcpy(st->orig_kind, v, sizeof(st->orig_kind)) < sizeof(st->orig_kind) ? 0 : -1;
	if (!strcmp(k, "kind"))
		return gc_strlcpy(st->kind, v, sizeof(st->kind)) < sizeof(st->kind) ? 0 : -1;
	if (!num)
		return -1;
	if (!strcmp(k, "orig_handle") && u <= UINT32_MAX)
		st->orig_handle = (uint32_t)u;
	else if (!strcmp(k, "owner_pid") && u <= INT_MAX)
		st->owner = (pid_t)u;
	else if (!strcmp(k, "owner_start"))
		st->owner_start = u;
	else if (!strcmp(k, "rate_bps"))
		st->rate_bps = u;
	else if (!strcmp(k, "burst") && u <= UINT32_MAX)
		st->burst = (uint32_t)u;
	else if (!strcmp(k, "delay_us") && u <= UINT32_MAX)
		st->delay_us = (uint32_t)u;
	else
		return -1;
	return 0;
}

gc_rc gc_state_read(const char *path, struct gc_netem_state *st, gc_err *e)
{
	char line[256], *eq;
	FILE *f = fopen(path, "r");
	int ln = 0;

	memset(st, 0, sizeof(*st));
	if (!f)
		return gc_fail(e, errno == ENOENT ? GC_E_NOTFOUND : GC_E_IO,
			       "cannot read state file '%s': %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		ln++;
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq || (*eq = 0, state_set(st, line, eq + 1))) {
			/* the line is not quoted: whatever the file holds stays out of logs */
			fclose(f);
			return gc_fail(e, GC_E_FORMAT, "%s:%d:%d: expected KEY=VALUE with a key "
				       "and value this gcbench-netem writes (version=1, dev=, "
				       "rate_bps=, ...); remove the file if the link is already "
				       "restored", path, ln, eq ? (int)(eq - line) + 2 : 1);
		}
	}
	fclose(f);
	if (!gc_shape_valid_dev(st->dev) || !st->orig_kind[0])
		return gc_fail(e, GC_E_FORMAT, "%s: incomplete state file (no dev or orig_kind)", path);
	return GC_OK;
}

int gc_state_owner_alive(const struct gc_netem_state *st)
{
	unsigned long long s;

	if (st->owner <= 0)
		return 0;
	s = gc_proc_start_time(st->owner);
	return s && s == st->owner_start;
}

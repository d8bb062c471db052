/* orchestrator/ops/schedule.c: --at parsing, systemd/cron files for scheduled sweeps. */
#include "schedule.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "strutil.h"

/* ---- cron fields -------------------------------------------------------------- */

struct cfield {
	const char *what;
	int lo, hi;
	const char *const *names;   /* NULL, or names for lo.. (3 letters) */
};

static const char *const mon_names[] = { "jan", "feb", "mar", "apr", "may", "jun", "jul",
					 "aug", "sep", "oct", "nov", "dec", NULL };
static const char *const dow_names[] = { "sun", "mon", "tue", "wed", "thu", "fri", "sat",
					 NULL };
static const char *const dow_sd[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };

static const struct cfield fields[5] = {
	{ "minute", 0, 59, NULL },
	{ "hour", 0, 23, NULL },
	{ "day-of-month", 1, 31, NULL },
	{ "month", 1, 12, mon_names },
	{ "day-of-week", 0, 7, dow_names },
};

/* One value of field f: digits or a name; -1 when invalid. */
static int cron_value(const struct cfield *f, const char *s, size_t n)
{
	size_t i;
	int v = 0;

	if (n == 0 || n > 3)
		return -1;
	if (isdigit((unsigned char)s[0])) {
		for (i = 0; i < n; i++) {
			if (!isdigit((unsigned char)s[i]))
				return -1;
			v = v * 10 + (s[i] - '0');
		}
		return v >= f->lo && v <= f->hi ? v : -1;
	}
	for (i = 0; f->names && f->names[i]; i++)
		if (n == 3 && !strncasecmp(s, f->names[i], 3))
			return (int)i + (f == &fields[3] ? 1 : 0);
	return -1;
}

/* Parse one list item "*", "*\/S", "A", "A-B", "A-B/S" into the mask; append the
 * numeric form to out. */
static gc_rc cron_item(const struct cfield *f, const char *s, size_t n, uint64_t *mask,
		       char *out, size_t outn, gc_err *e)
{
	const char *slash = memchr(s, '/', n), *dash;
	size_t rn = slash ? (size_t)(slash - s) : n;
	int lo, hi, step = 1, v;
	char tmp[32];

	if (slash && (n - rn - 1 == 0 || n - rn - 1 > 2 || !isdigit((unsigned char)slash[1]) ||
		      !isdigit((unsigned char)slash[n - rn - 1]) || (step = atoi(slash + 1)) < 1))
		return gc_fail(e, GC_E_INVAL, "invalid step in %s field '%.*s'", f->what, (int)n, s);
	dash = memchr(s, '-', rn);
	if (rn == 1 && s[0] == '*') {
		lo = f->lo;
		hi = f->hi == 7 ? 6 : f->hi;
		snprintf(tmp, sizeof tmp, slash ? "*/%d" : "*", step);
	} else {
		lo = cron_value(f, s, dash ? (size_t)(dash - s) : rn);
		hi = dash ? cron_value(f, dash + 1, rn - (size_t)(dash - s) - 1) : lo;
		if (lo < 0 || hi < 0 || hi < lo || (slash && !dash))
			return gc_fail(e, GC_E_INVAL, "invalid %s field '%.*s': use %d-%d, a "
				       "range a-b, a step */n or a-b/n, or a list a,b", f->what,
				       (int)n, s, f->lo, f->hi);
		snprintf(tmp, sizeof tmp, dash ? (slash ? "%d-%d/%d" : "%d-%d") : "%d", lo, hi, step);
	}
	for (v = lo; v <= hi; v += step)
		*mask |= 1ull << (f->hi == 7 && v == 7 ? 0 : v);
	if (out[0])
		strncat(out, ",", outn - strlen(out) - 1);
	strncat(out, tmp, outn - strlen(out) - 1);
	return GC_OK;
}

static gc_rc cron_field(const struct cfield *f, const char *s, size_t n, uint64_t *mask,
			char *out, size_t outn, gc_err *e)
{
	const char *p = s, *end = s + n, *comma;
	gc_rc rc;

	*mask = 0;
	out[0] = '\0';
	while (p <= end) {
		comma = memchr(p, ',', (size_t)(end - p));
		if (!comma)
			comma = end;
		rc = cron_item(f, p, (size_t)(comma - p), mask, out, outn, e);
		if (rc)
			return rc;
		p = comma + 1;
	}
	return GC_OK;
}

static uint64_t full_mask(const struct cfield *f)
{
	int hi = f->hi == 7 ? 6 : f->hi;
	return ((hi == 63 ? 0 : (1ull << (hi + 1))) - 1) & ~((1ull << f->lo) - 1);
}

/* A systemd calendar component from a mask: "*" or "00,15,30". */
static void sd_component(const struct cfield *f, uint64_t mask, char *out, size_t n)
{
	int v, hi = f->hi == 7 ? 6 : f->hi;
	char tmp[8];

	out[0] = '\0';
	if (mask == full_mask(f)) {
		gc_strlcpy(out, "*", n);
		return;
	}
	for (v = f->lo; v <= hi; v++) {
		if (!(mask & (1ull << v)))
			continue;
		if (f->hi == 7)
			snprintf(tmp, sizeof tmp, "%s%s", out[0] ? "," : "", dow_sd[v]);
		else
			snprintf(tmp, sizeof tmp, "%s%02d", out[0] ? "," : "", v);
		strncat(out, tmp, n - strlen(out) - 1);
	}
}

/* Returns the length snprintf wanted (>= n: truncated). */
static int sd_calendar(const uint64_t m[5], char *out, size_t n)
{
	char c[5][200];
	int i;

	for (i = 0; i < 5; i++)
		sd_component(&fields[i], m[i], c[i], sizeof c[i]);
	if (!strcmp(c[4], "*"))
		return snprintf(out, n, "*-%s-%s %s:%s:00", c[3], c[2], c[1], c[0]);
	return snprintf(out, n, "%s *-%s-%s %s:%s:00", c[4], c[3], c[2], c[1], c[0]);
}

/* A 5-field cron expression into out. */
static gc_rc parse_cron(const char *at, gc_sched_at *out, gc_err *e)
{
	const char *p = at, *start;
	uint64_t m[5];
	char norm[5][100];
	int i;
	gc_rc rc;

	for (i = 0; i < 5; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		start = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (p == start)
			return gc_fail(e, GC_E_INVAL, "invalid --at '%s': a cron expression has 5 "
				       "fields (minute hour day-of-month month day-of-week), "
				       "found %d", at, i);
		rc = cron_field(&fields[i], start, (size_t)(p - start), &m[i], norm[i],
				sizeof norm[i], e);
		if (rc)
			return rc;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p)
		return gc_fail(e, GC_E_INVAL, "invalid --at '%s': more than 5 fields (a cron "
			       "expression is minute hour day-of-month month day-of-week)", at);
	if (m[2] != full_mask(&fields[2]) && m[4] != full_mask(&fields[4]))
		return gc_fail(e, GC_E_INVAL, "invalid --at '%s': restrict day-of-month or "
			       "day-of-week, not both (cron ORs them, systemd ANDs them)", at);
	if (snprintf(out->cron, sizeof out->cron, "%s %s %s %s %s", norm[0], norm[1],
		     norm[2], norm[3], norm[4]) >= (int)sizeof out->cron ||
	    sd_calendar(m, out->oncalendar, sizeof out->oncalendar) >= (int)sizeof out->oncalendar)
		return gc_fail(e, GC_E_INVAL, "invalid --at '%s': too long; simplify the "
			       "lists", at);
	return GC_OK;
}

/* "HH:MM" (H or HH, MM) -> h, m. */
static int parse_hhmm(const char *s, int *h, int *m)
{
	size_t n = strlen(s);

	if (n < 4 || n > 5 || s[n - 3] != ':' || !isdigit((unsigned char)s[0]) ||
	    !isdigit((unsigned char)s[n - 4]) || !isdigit((unsigned char)s[n - 2]) ||
	    !isdigit((unsigned char)s[n - 1]))
		return -1;
	*h = atoi(s);
	*m = atoi(s + n - 2);
	return *h <= 23 && *m <= 59 ? 0 : -1;
}

gc_rc gc_sched_parse_at(const char *at, gc_sched_at *out, gc_err *e)
{
	char cron[64], w1[16], w2[16], w3[16], extra[2];
	int h, m, d, n;

	memset(out, 0, sizeof *out);
	if (!at || strlen(at) > 200 || strpbrk(at, "\n\r%\"'\\$;`"))
		return gc_fail(e, GC_E_INVAL, "invalid --at: say 'hourly', 'daily HH:MM', "
			       "'weekly Mon HH:MM' or a 5-field cron expression");
	n = sscanf(at, "%15s %15s %15s %1s", w1, w2, w3, extra);
	if (n == 1 && !strcmp(w1, "hourly"))
		return parse_cron("0 * * * *", out, e);
	if (n == 2 && !strcmp(w1, "daily")) {
		if (parse_hhmm(w2, &h, &m))
			return gc_fail(e, GC_E_INVAL, "invalid time '%s' in --at '%s': write "
				       "HH:MM, 00:00 to 23:59", w2, at);
		snprintf(cron, sizeof cron, "%d %d * * *", m, h);
		return parse_cron(cron, out, e);
	}
	if (n == 3 && !strcmp(w1, "weekly")) {
		d = cron_value(&fields[4], w2, strlen(w2));
		if (d < 0 || isdigit((unsigned char)w2[0]))
			return gc_fail(e, GC_E_INVAL, "invalid day '%s' in --at '%s': write "
				       "Mon, Tue, Wed, Thu, Fri, Sat or Sun", w2, at);
		if (parse_hhmm(w3, &h, &m))
			return gc_fail(e, GC_E_INVAL, "invalid time '%s' in --at '%s': write "
				       "HH:MM, 00:00 to 23:59", w3, at);
		snprintf(cron, sizeof cron, "%d %d * * %d", m, h, d);
		return parse_cron(cron, out, e);
	}
	if (!strcmp(w1, "hourly") || !strcmp(w1, "daily") || !strcmp(w1, "weekly"))
		return gc_fail(e, GC_E_INVAL, "invalid --at '%s': write 'hourly', 'daily HH:MM' "
			       "or 'weekly Mon HH:MM'", at);
	if (at[0] == '@')
		return gc_fail(e, GC_E_INVAL, "invalid --at '%s': '@' forms are not supported; "
			       "write 'hourly', 'daily HH:MM', 'weekly Mon HH:MM' or 5 fields", at);
	return parse_cron(at, out, e);
}

/* ---- jobs ----------------------------------------------------------------------- */

int gc_sched_name_ok(const char *s)
{
	size_t i, n = s ? strlen(s) : 0;

	if (n == 0 || n > 64 || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return 0;
	return 1;
}

gc_sched_backend gc_sched_detect(const char *root)
{
	char p[4096];
	struct stat st;

	snprintf(p, sizeof p, "%s/run/systemd/system", root ? root : "");
	return !stat(p, &st) && S_ISDIR(st.st_mode) ? GC_SCHED_SYSTEMD : GC_SCHED_CRON;
}

const char *gc_sched_backend_name(gc_sched_backend b)
{
	return b == GC_SCHED_SYSTEMD ? "systemd" : b == GC_SCHED_CRON ? "cron" : "auto";
}

/* A value for a unit file or a cron line: a safe token without '%'. */
static gc_rc check_token(const char *what, const char *v, int absolute, gc_err *e)
{
	if (!v || !gc_is_safe_token(v) || strchr(v, '%'))
		return gc_fail(e, GC_E_INVAL, "cannot schedule with %s '%s': only letters, "
			       "digits and . _ : @ + = , / - are allowed (no spaces, quotes, "
			       "'%%' or '$'); rename or move it", what, v ? v : "");
	if (absolute && v[0] != '/')
		return gc_fail(e, GC_E_INVAL, "cannot schedule with %s '%s': the path must "
			       "be absolute", what, v);
	return GC_OK;
}

gc_rc gc_sched_job_check(const gc_sched_job *j, gc_err *e)
{
	gc_sched_at at;
	gc_rc rc;

	if (!gc_sched_name_ok(j->name))
		return gc_fail(e, GC_E_INVAL, "invalid schedule name '%s': 1 to 64 letters, "
			       "digits, '_' or '-'", j->name ? j->name : "");
	if ((rc = gc_sched_parse_at(j->at, &at, e)) ||
	    (rc = check_token("the gcbench binary", j->gcbench, 1, e)) ||
	    (rc = check_token("spec", j->spec, 1, e)) ||
	    (rc = check_token("inventory", j->inventory, 1, e)) ||
	    (rc = check_token("database", j->db, 1, e)) ||
	    (rc = check_token("working directory", j->workdir, 1, e)) ||
	    (j->tag && (rc = check_token("tag", j->tag, 0, e))) ||
	    (j->env_file && (rc = check_token("env file", j->env_file, 1, e))) ||
	    (j->user && (rc = check_token("user", j->user, 0, e))) ||
	    (j->home && (rc = check_token("home directory", j->home, 1, e))) ||
	    (j->path && (rc = check_token("PATH", j->path, 0, e))) ||
	    (j->slurm_partition && (rc = check_token("partition", j->slurm_partition, 0, e))) ||
	    (j->slurm_time && (rc = check_token("time limit", j->slurm_time, 0, e))))
		return rc;
	if (j->slurm_nodes < 0 || j->slurm_gpus_per_node < 0 ||
	    (!j->slurm_nodes && (j->slurm_partition || j->slurm_time || j->slurm_gpus_per_node)))
		return gc_fail(e, GC_E_INVAL, "the SLURM options of schedule '%s' need --slurm "
			       "--nodes N", j->name);
	return GC_OK;
}

/* The command, unquoted (every part is a checked token). */
static void job_command(const gc_sched_job *j, char *buf, size_t n)
{
	char sl[512] = "", t[160];

	if (!j->slurm_nodes) {
		snprintf(buf, n, "%s run %s --inventory %s --db %s%s%s", j->gcbench, j->spec,
			 j->inventory, j->db, j->tag ? " --tag " : "", j->tag ? j->tag : "");
		return;
	}
	snprintf(sl, sizeof sl, " --nodes %d", j->slurm_nodes);
	if (j->slurm_partition) {
		snprintf(t, sizeof t, " --partition %s", j->slurm_partition);
		strncat(sl, t, sizeof sl - strlen(sl) - 1);
	}
	if (j->slurm_time) {
		snprintf(t, sizeof t, " --time %s", j->slurm_time);
		strncat(sl, t, sizeof sl - strlen(sl) - 1);
	}
	if (j->slurm_gpus_per_node) {
		snprintf(t, sizeof t, " --gpus-per-node %d", j->slurm_gpus_per_node);
		strncat(sl, t, sizeof sl - strlen(sl) - 1);
	}
	snprintf(buf, n, "%s submit %s%s --inventory %s --db %s%s%s --wait", j->gcbench,
		 j->spec, sl, j->inventory, j->db, j->tag ? " --tag " : "", j->tag ? j->tag : "");
}

static char *dup_text(const char *s)
{
	return strdup(s);
}

/* The job's user, HOME and PATH lines in a backend's syntax (each prefix, the value,
 * a newline; a NULL prefix or value: no line), into out. */
static void user_lines(const gc_sched_job *j, const char *user_pre, const char *home_pre,
		       const char *path_pre, char *out, size_t n)
{
	const char *pre[3] = { user_pre, home_pre, path_pre };
	const char *val[3] = { j->user, j->home, j->path };
	size_t o = 0;
	int i, k;

	out[0] = 0;
	for (i = 0; i < 3 && o < n; i++)
		if (pre[i] && val[i] && (k = snprintf(out + o, n - o, "%s%s\n", pre[i], val[i])) > 0)
			o += (size_t)k < n - o ? (size_t)k : n - o - 1;
}

gc_rc gc_sched_systemd_texts(const gc_sched_job *j, char **service, char **timer,
			     gc_err *e)
{
	char cmd[2048], envl[400] = "", buf[8192], who[1400];
	gc_sched_at at;
	gc_rc rc;

	*service = *timer = NULL;
	if ((rc = gc_sched_job_check(j, e)) || (rc = gc_sched_parse_at(j->at, &at, e)))
		return rc;
	job_command(j, cmd, sizeof cmd);
	if (j->env_file)
		snprintf(envl, sizeof envl, "EnvironmentFile=%s\n", j->env_file);
	user_lines(j, "User=", "Environment=HOME=", "Environment=PATH=", who,
		   sizeof who);
	snprintf(buf, sizeof buf,
		 "# gcbench-schedule: %s (written by 'gcbench schedule install')\n"
		 "# logs: journalctl -u gcbench-%s.service\n"
		 "[Unit]\nDescription=gcbench scheduled sweep %s\n"
		 "Wants=network-online.target\nAfter=network-online.target\n\n"
		 "[Service]\nType=oneshot\n%sWorkingDirectory=%s\n%s"
		 "SyslogIdentifier=gcbench-%s\nExecStart=%s\n",
		 j->name, j->name, j->name, who, j->workdir, envl, j->name, cmd);
	*service = dup_text(buf);
	snprintf(buf, sizeof buf,
		 "# gcbench-schedule: %s\n# at: %s\n# command: %s\n"
		 "[Unit]\nDescription=gcbench scheduled sweep %s (%s)\n\n"
		 "[Timer]\nOnCalendar=%s\nPersistent=true\nUnit=gcbench-%s.service\n\n"
		 "[Install]\nWantedBy=timers.target\n",
		 j->name, j->at, cmd, j->name, j->at, at.oncalendar, j->name);
	*timer = dup_text(buf);
	if (!*service || !*timer) {
		free(*service);
		free(*timer);
		*service = *timer = NULL;
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	}
	return GC_OK;
}

gc_rc gc_sched_cron_text(const gc_sched_job *j, char **text, gc_err *e)
{
	char cmd[2048], envl[400] = "", buf[8192], who[1400] = "";
	gc_sched_at at;
	gc_rc rc;

	*text = NULL;
	if ((rc = gc_sched_job_check(j, e)) || (rc = gc_sched_parse_at(j->at, &at, e)))
		return rc;
	job_command(j, cmd, sizeof cmd);
	if (j->env_file)
		snprintf(envl, sizeof envl, "set -a && . %s && set +a && ", j->env_file);
	if (!j->path)
		gc_strlcpy(who, "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\n",
			   sizeof who);
	user_lines(j, NULL, "HOME=", "PATH=", who + strlen(who), sizeof who - strlen(who));
	snprintf(buf, sizeof buf,
		 "# gcbench-schedule: %s (written by 'gcbench schedule install')\n"
		 "# at: %s\n# command: %s\n# logs: /var/log/gcbench/%s.log\n"
		 "SHELL=/bin/sh\n%s"
		 "%s %s cd %s && %sflock -n /run/lock/gcbench-%s.lock %s >> /var/log/gcbench/%s.log 2>&1\n",
		 j->name, j->at, cmd, j->name, who, at.cron, j->user ? j->user : "root",
		 j->workdir, envl, j->name, cmd, j->name);
	*text = dup_text(buf);
	return *text ? GC_OK : gc_fail(e, GC_E_NOMEM, "out of memory");
}

/* ---- files ---------------------------------------------------------------------- */


/* Write text to dir/file through dir/.file.tmp and rename. */
static gc_rc write_file(const char *dir, const char *file, const char *text, gc_err *e)
{
	char tmp[4096], dst[4096];
	size_t len = strlen(text);
	int fd;
	gc_rc rc;

	if ((rc = gc_mkdir_p(dir, 0755, e)))
		return rc;
	snprintf(dst, sizeof dst, "%s/%s", dir, file);
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, file);
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return gc_fail(e, GC_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) || close(fd)) {
		rc = gc_fail(e, GC_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		return rc;
	}
	if (rename(tmp, dst)) {
		rc = gc_fail(e, GC_E_IO, "cannot rename '%s' to '%s': %s", tmp, dst,
			     strerror(errno));
		unlink(tmp);
		return rc;
	}
	return GC_OK;
}

static void job_paths(const char *root, const char *name, char *timer, char *service,
		      char *cron, size_t n)
{
	root = root ? root : "";
	snprintf(timer, n, "%s/etc/systemd/system/gcbench-%s.timer", root, name);
	snprintf(service, n, "%s/etc/systemd/system/gcbench-%s.service", root, name);
	snprintf(cron, n, "%s/etc/cron.d/gcbench-%s", root, name);
}

static int exists(const char *p)
{
	struct stat st;
	return !stat(p, &st);
}

/* dir/NAME.log, owned by the job's user (cron opens it as that user) */
static gc_rc user_log(const gc_sched_job *j, const char *dir, gc_err *e)
{
	struct passwd *pw = getpwnam(j->user);
	char p[4200];
	int fd;

	if (!pw)
		return gc_fail(e, GC_E_NOTFOUND, "no user '%s' on this machine", j->user);
	snprintf(p, sizeof p, "%s/%s.log", dir, j->name);
	fd = open(p, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0640);
	if (fd < 0)
		return gc_fail(e, GC_E_IO, "cannot make the log '%s': %s", p, strerror(errno));
	if (fchown(fd, pw->pw_uid, pw->pw_gid)) {
		int err = errno;
		close(fd);
		return gc_fail(e, GC_E_IO, "cannot give the log '%s' to '%s': %s", p, j->user,
			       strerror(err));
	}
	close(fd);
	return GC_OK;
}

static gc_rc install_files(const gc_sched_job *j, const char *root, gc_sched_backend b,
			   gc_err *e)
{
	char dir[4096], name[128];
	char *a = NULL, *t = NULL;
	gc_rc rc;

	if (b == GC_SCHED_SYSTEMD) {
		if ((rc = gc_sched_systemd_texts(j, &a, &t, e)))
			return rc;
		snprintf(dir, sizeof dir, "%s/etc/systemd/system", root);
		snprintf(name, sizeof name, "gcbench-%s.service", j->name);
		rc = write_file(dir, name, a, e);
		snprintf(name, sizeof name, "gcbench-%s.timer", j->name);
		if (!rc)
			rc = write_file(dir, name, t, e);
	} else {
		if ((rc = gc_sched_cron_text(j, &a, e)))
			return rc;
		snprintf(dir, sizeof dir, "%s/var/log/gcbench", root);
		rc = gc_mkdir_p(dir, 0755, e);
		if (!rc && j->user && strcmp(j->user, "root"))
			rc = user_log(j, dir, e);   /* the job appends to it as its user */
		snprintf(dir, sizeof dir, "%s/etc/cron.d", root);
		snprintf(name, sizeof name, "gcbench-%s", j->name);
		if (!rc)
			rc = write_file(dir, name, a, e);
	}
	free(a);
	free(t);
	return rc;
}

gc_rc gc_sched_install(const gc_sched_job *j, const char *root, gc_sched_backend b,
		       int replace, gc_err *e)
{
	char tp[4096], sp[4096], cp[4096];
	gc_rc rc;

	root = root ? root : "";
	if ((rc = gc_sched_job_check(j, e)))
		return rc;
	if (b == GC_SCHED_AUTO)
		b = gc_sched_detect(root);
	job_paths(root, j->name, tp, sp, cp, sizeof tp);
	if (!replace && (exists(tp) || exists(sp) || exists(cp)))
		return gc_fail(e, GC_E_BUSY, "a schedule named '%s' is already installed; "
			       "remove it first ('gcbench schedule remove %s') or pass --replace",
			       j->name, j->name);
	rc = install_files(j, root, b, e);
	if (rc)
		return rc;
	/* a replaced job may have moved backend: drop the other one's files */
	if (b == GC_SCHED_SYSTEMD)
		unlink(cp);
	else {
		unlink(tp);
		unlink(sp);
	}
	return GC_OK;
}

gc_rc gc_sched_remove(const char *root, const char *name, gc_sched_backend *b, gc_err *e)
{
	char tp[4096], sp[4096], cp[4096];
	int found = 0;

	if (!gc_sched_name_ok(name))
		return gc_fail(e, GC_E_INVAL, "invalid schedule name '%s': 1 to 64 letters, "
			       "digits, '_' or '-'", name ? name : "");
	job_paths(root, name, tp, sp, cp, sizeof tp);
	if (exists(tp) || exists(sp)) {
		found = 1;
		if (b)
			*b = GC_SCHED_SYSTEMD;
	}
	if ((exists(tp) && unlink(tp)) || (exists(sp) && unlink(sp)))
		return gc_fail(e, GC_E_IO, "cannot remove '%s': %s", tp, strerror(errno));
	if (exists(cp)) {
		if (b)
			*b = found ? GC_SCHED_SYSTEMD : GC_SCHED_CRON;
		found = 1;
		if (unlink(cp))
			return gc_fail(e, GC_E_IO, "cannot remove '%s': %s", cp, strerror(errno));
	}
	if (!found)
		return gc_fail(e, GC_E_NOTFOUND, "no schedule named '%s' is installed; see "
			       "'gcbench schedule list'", name);
	return GC_OK;
}

/* Fill en from the "# gcbench-schedule:", "# at:" and "# command:" lines of path. */
static int read_entry(const char *path, const char *backend, gc_sched_entry *en)
{
	FILE *f = fopen(path, "r");
	char line[2048];
	size_t n;

	if (!f)
		return -1;
	memset(en, 0, sizeof *en);
	gc_strlcpy(en->backend, backend, sizeof en->backend);
	gc_strlcpy(en->file, path, sizeof en->file);
	while (fgets(line, sizeof line, f)) {
		n = strcspn(line, "\n");
		line[n] = '\0';
		if (!strncmp(line, "# gcbench-schedule: ", 20))
			sscanf(line + 20, "%79s", en->name);
		else if (!strncmp(line, "# at: ", 6))
			gc_strlcpy(en->at, line + 6, sizeof en->at);
		else if (!strncmp(line, "# command: ", 11))
			gc_strlcpy(en->command, line + 11, sizeof en->command);
	}
	fclose(f);
	return en->name[0] ? 0 : -1;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const gc_sched_entry *)a)->name, ((const gc_sched_entry *)b)->name);
}

/* Append the entries of one directory (files gcbench-*SUFFIX) to *v. */
static gc_rc scan_dir(const char *dir, const char *suffix, const char *backend,
		      gc_sched_entry **v, size_t *n, gc_err *e)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096];
	size_t sl = strlen(suffix), l;
	gc_sched_entry *nv;

	if (!d)
		return GC_OK;
	while ((de = readdir(d))) {
		l = strlen(de->d_name);
		if (strncmp(de->d_name, "gcbench-", 8) || l < sl + 9 ||
		    strcmp(de->d_name + l - sl, suffix) || (!sl && strchr(de->d_name, '.')))
			continue;
		nv = realloc(*v, (*n + 1) * sizeof **v);
		if (!nv) {
			closedir(d);
			return gc_fail(e, GC_E_NOMEM, "out of memory");
		}
		*v = nv;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (!read_entry(path, backend, &(*v)[*n]))
			(*n)++;
	}
	closedir(d);
	return GC_OK;
}

gc_rc gc_sched_list(const char *root, void (*fn)(const gc_sched_entry *en, void *arg),
		    void *arg, gc_err *e)
{
	char dir[4096];
	gc_sched_entry *v = NULL;
	size_t n = 0, i;
	gc_rc rc;

	root = root ? root : "";
	snprintf(dir, sizeof dir, "%s/etc/systemd/system", root);
	rc = scan_dir(dir, ".timer", "systemd", &v, &n, e);
	snprintf(dir, sizeof dir, "%s/etc/cron.d", root);
	if (!rc)
		rc = scan_dir(dir, "", "cron", &v, &n, e);
	if (!rc && n) {
		qsort(v, n, sizeof *v, cmp_entry);
		for (i = 0; i < n; i++)
			fn(&v[i], arg);
	}
	free(v);
	return rc;
}

int gc_sched_in_build_tree(const char *exe, char *root, size_t n)
{
	char real[PATH_MAX], top[PATH_MAX + 64], probe[PATH_MAX + 128];
	char *bin, *build;

	if (!realpath(exe, real))
		return 0;
	bin = dirname(real);                 /* ROOT/BUILD/bin */
	if (strcmp(basename(bin), "bin"))
		return 0;
	build = dirname(bin);                /* ROOT/BUILD */
	snprintf(top, sizeof(top), "%s", dirname(build));
	snprintf(probe, sizeof(probe), "%s/Makefile", top);
	if (access(probe, F_OK))
		return 0;
	snprintf(probe, sizeof(probe), "%s/orchestrator/cli/main.c", top);
	if (access(probe, F_OK))
		return 0;
	gc_strlcpy(root, top, n);
	return 1;
}

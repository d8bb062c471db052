/* tests/unit/test_schedule.c: --at parsing, injection checks, and the files written
 * under a temporary root (no real timer is ever installed). */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "orchestrator/ops/schedule.h"

static void check_at(const char *at, const char *cron, const char *cal, int *ok)
{
	gc_sched_at a;
	gc_err e;

	*ok = 0;
	if (gc_sched_parse_at(at, &a, &e)) {
		printf("  '%s': %s\n", at, e.msg);
		return;
	}
	if (strcmp(a.cron, cron) || strcmp(a.oncalendar, cal)) {
		printf("  '%s': got cron '%s' calendar '%s'\n", at, a.cron, a.oncalendar);
		return;
	}
	*ok = 1;
}

static void test_friendly_forms(void)
{
	int ok;

	check_at("daily 02:00", "0 2 * * *", "*-*-* 02:00:00", &ok);
	CHECK(ok);
	check_at("daily 9:05", "5 9 * * *", "*-*-* 09:05:00", &ok);
	CHECK(ok);
	check_at("hourly", "0 * * * *", "*-*-* *:00:00", &ok);
	CHECK(ok);
	check_at("weekly Mon 03:00", "0 3 * * 1", "Mon *-*-* 03:00:00", &ok);
	CHECK(ok);
	check_at("weekly sun 23:59", "59 23 * * 0", "Sun *-*-* 23:59:00", &ok);
	CHECK(ok);
}

static void test_cron_forms(void)
{
	int ok;

	check_at("*/15 8-18 * * mon-fri", "*/15 8-18 * * 1-5",
		 "Mon,Tue,Wed,Thu,Fri *-*-* 08,09,10,11,12,13,14,15,16,17,18:00,15,30,45:00", &ok);
	CHECK(ok);
	check_at("0  0 1,15 jan-mar *", "0 0 1,15 1-3 *", "*-01,02,03-01,15 00:00:00", &ok);
	CHECK(ok);
	check_at("30 2 * * 7", "30 2 * * 7", "Sun *-*-* 02:30:00", &ok);
	CHECK(ok);
	check_at("0 0-23/6 * * *", "0 0-23/6 * * *", "*-*-* 00,06,12,18:00:00", &ok);
	CHECK(ok);
	check_at("0 * * * */1", "0 * * * */1", "*-*-* *:00:00", &ok);
	CHECK(ok);
}

static void test_rejected(void)
{
	static const char *bad[] = {
		"", "daily", "daily 24:00", "daily 2:0", "daily 02:00 x", "daily 02:60",
		"weekly Funday 03:00", "weekly 1 03:00", "hourly 5", "60 * * * *",
		"* * * *", "* * * * * *", "*/0 * * * *", "5/10 * * * *", "1-0 * * * *",
		"@daily", "0 0 1 * 1", "0 0 * * *; rm -rf /", "0 0 * * *\nx", "0 0 32 * *",
		"0 0 * 13 *", "0 0 * * 8", "0 0 * * $(id)", "a b c d e", "0,,1 * * * *",
		"0 0 * foo *", "0 0 % * *", NULL };
	gc_sched_at a;
	gc_err e;
	int i;

	for (i = 0; bad[i]; i++)
		CHECKF(gc_sched_parse_at(bad[i], &a, &e) == GC_E_INVAL, "accepted '%s'", bad[i]);
	gc_sched_parse_at("0 0 1 * 1", &a, &e);
	CHECK_CONTAINS(e.msg, "not both");
	gc_sched_parse_at("61 * * * *", &a, &e);
	CHECK_CONTAINS(e.msg, "minute");
}

/* systemd's own parser agrees with the OnCalendar values we write */
static void test_systemd_analyze_accepts(void)
{
	static const char *ats[] = { "daily 02:00", "hourly", "weekly Fri 18:30",
				     "*/15 8-18 * * mon-fri", "0 0 1,15 jan-mar *", NULL };
	char cmd[1024];
	gc_sched_at a;
	int i;

	if (system("systemd-analyze --version >/dev/null 2>&1"))
		SKIP("systemd-analyze is not installed");
	for (i = 0; ats[i]; i++) {
		CHECK_EQ_INT(gc_sched_parse_at(ats[i], &a, NULL), GC_OK);
		snprintf(cmd, sizeof cmd, "systemd-analyze calendar '%s' >/dev/null 2>&1",
			 a.oncalendar);
		CHECKF(system(cmd) == 0, "systemd-analyze rejects '%s'", a.oncalendar);
	}
}

static gc_sched_job good_job(void)
{
	gc_sched_job j = { "nightly", "daily 02:00", "/usr/bin/gcbench", "/srv/specs/n.yaml",
			   "/srv/inv.yaml", "/srv/gc.db", "/srv", "nccl-2.19", NULL, NULL,
			   0, 0, NULL, NULL, NULL, NULL };
	return j;
}

/* the job runs as its user with that login's HOME and PATH; both backends say so,
 * and a HOME or PATH that is not a plain token is refused */
static void test_user_env(void)
{
	gc_sched_job j = good_job();
	char *svc = NULL, *tim = NULL, *cron = NULL;
	gc_err e;

	j.user = "alice";
	j.home = "/home/alice";
	j.path = "/opt/gc/bin:/usr/bin:/bin";
	CHECKF(gc_sched_systemd_texts(&j, &svc, &tim, &e) == GC_OK, "%s", e.msg);
	CHECK(svc && strstr(svc, "\nUser=alice\nEnvironment=HOME=/home/alice\n"
			    "Environment=PATH=/opt/gc/bin:/usr/bin:/bin\n"));
	CHECKF(gc_sched_cron_text(&j, &cron, &e) == GC_OK, "%s", e.msg);
	CHECK(cron && strstr(cron, "\nHOME=/home/alice\nPATH=/opt/gc/bin:/usr/bin:/bin\n"));
	CHECK(cron && strstr(cron, "02 * * * alice cd /srv") == NULL &&
	      strstr(cron, " alice cd /srv && "));
	free(svc);
	free(tim);
	free(cron);
	j.home = "/home/alice\nUser=root";
	CHECK(gc_sched_systemd_texts(&j, &svc, &tim, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "home directory");
	j.home = "/home/alice";
	j.path = "/bin:$(reboot)";
	CHECK(gc_sched_cron_text(&j, &cron, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "PATH");
	j = good_job();   /* no user given: root's cron line, no User= */
	CHECKF(gc_sched_systemd_texts(&j, &svc, &tim, &e) == GC_OK, "%s", e.msg);
	CHECK(svc && !strstr(svc, "User="));
	free(svc);
	free(tim);
}

/* --slurm: the job submits the sweep and waits for it; SLURM values are tokens too. */
static void test_slurm_job(void)
{
	gc_sched_job j = good_job();
	char *svc = NULL, *tim = NULL, *cron = NULL;
	gc_err e;

	j.slurm_nodes = 4;
	j.slurm_partition = "gpu";
	j.slurm_time = "2:00:00";
	j.slurm_gpus_per_node = 8;
	CHECKF(gc_sched_systemd_texts(&j, &svc, &tim, &e) == GC_OK, "%s", e.msg);
	CHECK(svc && strstr(svc, "\nExecStart=/usr/bin/gcbench submit /srv/specs/n.yaml "
			    "--nodes 4 --partition gpu --time 2:00:00 --gpus-per-node 8 "
			    "--inventory /srv/inv.yaml --db /srv/gc.db --tag nccl-2.19 --wait\n"));
	CHECKF(gc_sched_cron_text(&j, &cron, &e) == GC_OK, "%s", e.msg);
	CHECK(cron && strstr(cron, "/usr/bin/gcbench submit /srv/specs/n.yaml --nodes 4 "
			     "--partition gpu --time 2:00:00 --gpus-per-node 8 --inventory "
			     "/srv/inv.yaml --db /srv/gc.db --tag nccl-2.19 --wait >>"));
	free(svc);
	free(tim);
	free(cron);
	j.slurm_partition = NULL;
	j.slurm_time = NULL;
	j.slurm_gpus_per_node = 0;
	j.tag = NULL;
	CHECKF(gc_sched_systemd_texts(&j, &svc, &tim, &e) == GC_OK, "%s", e.msg);
	CHECK(svc && strstr(svc, "\nExecStart=/usr/bin/gcbench submit /srv/specs/n.yaml "
			    "--nodes 4 --inventory /srv/inv.yaml --db /srv/gc.db --wait\n"));
	free(svc);
	free(tim);
	j = good_job();
	j.slurm_nodes = 2;
	j.slurm_partition = "gpu;reboot";
	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_E_INVAL);
	j.slurm_partition = NULL;
	j.slurm_time = "1 day";
	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_E_INVAL);
	j = good_job();
	j.slurm_partition = "gpu";     /* without --slurm --nodes */
	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "--slurm --nodes N");
	j = good_job();
	j.slurm_nodes = -1;
	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_E_INVAL);
}

static void test_injection_refused(void)
{
	gc_sched_job j = good_job();
	gc_err e;

	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_OK);
	j.spec = "/srv/my spec.yaml";
	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "spec '/srv/my spec.yaml'");
	j = good_job();
	j.spec = "/srv/x.yaml;reboot";
	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_E_INVAL);
	j = good_job();
	j.db = "/srv/%h.db";
	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_E_INVAL);
	j = good_job();
	j.inventory = "inv.yaml";
	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "absolute");
	j = good_job();
	j.tag = "x\nExecStartPre=/bin/sh";
	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_E_INVAL);
	j = good_job();
	j.tag = "$HOME";
	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_E_INVAL);
	j = good_job();
	j.name = "a.b";
	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_E_INVAL);
	j = good_job();
	j.at = "daily 25:00";
	CHECK_EQ_INT(gc_sched_job_check(&j, &e), GC_E_INVAL);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[16384];
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void count_entry(const gc_sched_entry *en, void *arg)
{
	int *n = arg;
	(*n)++;
	if (strcmp(en->name, "nightly") || strcmp(en->at, "daily 02:00"))
		*n += 100;
}

static char root[256];

static void path_of(char *buf, size_t n, const char *rel)
{
	snprintf(buf, n, "%s%s", root, rel);
}

static void test_install_systemd(void)
{
	gc_sched_job j = good_job();
	char p[512], *t;
	gc_err e;
	int n = 0;

	CHECK_EQ_INT(gc_sched_install(&j, root, GC_SCHED_SYSTEMD, 0, &e), GC_OK);
	path_of(p, sizeof p, "/etc/systemd/system/gcbench-nightly.service");
	t = slurp(p);
	CHECK(t != NULL);
	CHECK_CONTAINS(t, "\nExecStart=/usr/bin/gcbench run /srv/specs/n.yaml --inventory "
		       "/srv/inv.yaml --db /srv/gc.db --tag nccl-2.19\n");
	CHECK_CONTAINS(t, "Type=oneshot\nWorkingDirectory=/srv\n");
	path_of(p, sizeof p, "/etc/systemd/system/gcbench-nightly.timer");
	t = slurp(p);
	CHECK(t != NULL);
	CHECK_CONTAINS(t, "\nOnCalendar=*-*-* 02:00:00\nPersistent=true\n");
	CHECK_CONTAINS(t, "WantedBy=timers.target");
	CHECK_EQ_INT(gc_sched_list(root, count_entry, &n, &e), GC_OK);
	CHECK_EQ_INT(n, 1);
	CHECK_EQ_INT(gc_sched_install(&j, root, GC_SCHED_SYSTEMD, 0, &e), GC_E_BUSY);
	CHECK_EQ_INT(gc_sched_install(&j, root, GC_SCHED_SYSTEMD, 1, &e), GC_OK);
}

static void test_install_cron_replaces(void)
{
	gc_sched_job j = good_job();
	char p[512], *t;
	struct stat st;
	gc_err e;
	int n = 0;

	j.env_file = "/etc/gcbench/hooks.env";
	CHECK_EQ_INT(gc_sched_install(&j, root, GC_SCHED_CRON, 1, &e), GC_OK);
	path_of(p, sizeof p, "/etc/systemd/system/gcbench-nightly.timer");
	CHECK(stat(p, &st) != 0);      /* moved from systemd to cron */
	path_of(p, sizeof p, "/etc/cron.d/gcbench-nightly");
	t = slurp(p);
	CHECK(t != NULL);
	CHECK_CONTAINS(t, "\n0 2 * * * root cd /srv && set -a && . /etc/gcbench/hooks.env && "
		       "set +a && flock -n /run/lock/gcbench-nightly.lock /usr/bin/gcbench run "
		       "/srv/specs/n.yaml --inventory /srv/inv.yaml --db /srv/gc.db --tag "
		       "nccl-2.19 >> /var/log/gcbench/nightly.log 2>&1\n");
	path_of(p, sizeof p, "/var/log/gcbench");
	CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode));
	CHECK_EQ_INT(gc_sched_list(root, count_entry, &n, &e), GC_OK);
	CHECK_EQ_INT(n, 1);
}

static void test_remove(void)
{
	gc_sched_backend b = GC_SCHED_AUTO;
	gc_err e;
	int n = 0;

	CHECK_EQ_INT(gc_sched_remove(root, "nightly", &b, &e), GC_OK);
	CHECK_EQ_INT(b, GC_SCHED_CRON);
	CHECK_EQ_INT(gc_sched_list(root, count_entry, &n, &e), GC_OK);
	CHECK_EQ_INT(n, 0);
	CHECK_EQ_INT(gc_sched_remove(root, "nightly", &b, &e), GC_E_NOTFOUND);
	CHECK_EQ_INT(gc_sched_remove(root, "../x", &b, &e), GC_E_INVAL);
}

static void test_detect(void)
{
	char p[512];

	CHECK_EQ_INT(gc_sched_detect(root), GC_SCHED_CRON);
	path_of(p, sizeof p, "/run");
	mkdir(p, 0755);
	path_of(p, sizeof p, "/run/systemd");
	mkdir(p, 0755);
	path_of(p, sizeof p, "/run/systemd/system");
	CHECK(mkdir(p, 0755) == 0);
	CHECK_EQ_INT(gc_sched_detect(root), GC_SCHED_SYSTEMD);
}

int main(void)
{
	char cmd[300];
	int rc;

	GCT_SUITE("schedule");
	snprintf(root, sizeof root, "%s/gct-sched.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root))
		return printf("FAIL schedule/setup: mkdtemp\n"), 1;
	GCT_RUN(test_friendly_forms);
	GCT_RUN(test_cron_forms);
	GCT_RUN(test_rejected);
	GCT_RUN(test_systemd_analyze_accepts);
	GCT_RUN(test_injection_refused);
	GCT_RUN(test_slurm_job);
	GCT_RUN(test_user_env);
	GCT_RUN(test_install_systemd);
	GCT_RUN(test_install_cron_replaces);
	GCT_RUN(test_remove);
	GCT_RUN(test_detect);
	rc = gct_finish();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd))
		printf("warning: could not remove %s\n", root);
	return rc;
}

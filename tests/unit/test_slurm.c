/* The SLURM module (orchestrator/remote/slurm.h) without SLURM: the allocation from an
 * environment, node lists, host names and job records as scontrol prints them (and
 * malformed ones), the sbatch script, and the scontrol calls through a stand-in
 * scontrol on PATH that checks its arguments. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "orchestrator/remote/backend.h"
#include "orchestrator/remote/slurm.h"
#include "proc.h"

/* a record scontrol 22.05 printed for `salloc -N2 --exclusive` on the emulated cluster */
static const char job_excl[] =
	"JobId=3 JobName=interactive UserId=root(0) GroupId=root(0) MCS_label=N/A "
	"Priority=4294901757 Nice=0 Account=(null) QOS=(null) JobState=RUNNING Reason=None "
	"Dependency=(null) Requeue=1 Restarts=0 BatchFlag=0 Reboot=0 ExitCode=0:0 "
	"RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A SubmitTime=2026-12-04T05:09:28 "
	"Partition=gcb AllocNode:Sid=localhost:9956 ReqNodeList=(null) ExcNodeList=(null) "
	"NodeList=n[1-2] BatchHost=n1 NumNodes=2 NumCPUs=4 NumTasks=2 CPUs/Task=1 "
	"ReqB:S:C:T=0:0:*:* TRES=cpu=4,node=2,billing=4 Socks/Node=* "
	"NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=1 MinMemoryNode=0 MinTmpDiskNode=0 "
	"Features=(null) DelayBoot=00:00:00 OverSubscribe=NO Contiguous=0 Licenses=(null) "
	"Network=(null) Command=(null) WorkDir=/work/slurm Power= \n";

static void test_alloc_env(void)
{
	const char *env[] = { "PATH=/bin", "SLURM_JOB_ID=42", "SLURM_JOB_NODELIST=gpu[01-04],x7",
			      "SLURM_JOB_PARTITION=gpu", "SLURM_JOB_NUM_NODES=5",
			      "SLURM_CLUSTER_NAME=lab", "SLURM_GPUS_PER_NODE=a100:2",
			      "SLURM_JOB_GPUS=0,1,2,3", NULL };
	gc_slurm_alloc a;
	gc_err e;

	CHECK(gc_slurm_alloc_from_env(env, &a, &e) == GC_OK);
	CHECK_STR(a.job_id, "42");
	CHECK_STR(a.nodelist, "gpu[01-04],x7");
	CHECK_STR(a.partition, "gpu");
	CHECK_STR(a.cluster, "lab");
	CHECK_EQ_INT(a.num_nodes, 5);
	CHECK_EQ_INT(a.gpus_per_node, 2);   /* the per-node request wins over the list */
	CHECK_STR(a.gpus_from, "SLURM_GPUS_PER_NODE");
}

static void test_alloc_gpus(void)
{
	const char *on[] = { "SLURM_JOB_ID=1", "SLURM_JOB_NODELIST=n1", "SLURM_GPUS_ON_NODE=4", NULL };
	const char *list[] = { "SLURM_JOB_ID=1", "SLURM_JOB_NODELIST=n1", "SLURM_JOB_GPUS=0,1,3", NULL };
	const char *none[] = { "SLURM_JOB_ID=1", "SLURM_JOB_NODELIST=n1", NULL };
	gc_slurm_alloc a;
	gc_err e;

	CHECK(gc_slurm_alloc_from_env(on, &a, &e) == GC_OK);
	CHECK_EQ_INT(a.gpus_per_node, 4);
	CHECK(gc_slurm_alloc_from_env(list, &a, &e) == GC_OK);
	CHECK_EQ_INT(a.gpus_per_node, 3);
	CHECK_STR(a.gpus_from, "SLURM_JOB_GPUS");
	list[2] = "SLURM_JOB_GPUS=0-3,6";
	CHECK(gc_slurm_alloc_from_env(list, &a, &e) == GC_OK);
	CHECK_EQ_INT(a.gpus_per_node, 5);
	CHECK(gc_slurm_alloc_from_env(none, &a, &e) == GC_OK);
	CHECK_EQ_INT(a.gpus_per_node, 0);
	CHECK_STR(a.gpus_from, "");
	CHECK_STR(a.partition, "");
}

static void test_alloc_outside(void)
{
	const char *env[] = { "HOME=/root", "SLURM_NODELIST=n1", NULL };
	gc_slurm_alloc a;
	gc_err e;

	CHECK(gc_slurm_alloc_from_env(env, &a, &e) == GC_E_NOTFOUND);
	CHECK_CONTAINS(e.msg, "not in a SLURM allocation");
}

static void test_alloc_malformed(void)
{
	static const struct { const char *var, *val; } bad[] = {
		{ "SLURM_JOB_ID", "12a" }, { "SLURM_JOB_ID", "$(id)" }, { "SLURM_JOB_ID", "-1" },
		{ "SLURM_JOB_NODELIST", "n1;reboot" }, { "SLURM_JOB_NODELIST", "n[1-" },
		{ "SLURM_JOB_NODELIST", "-n1" }, { "SLURM_JOB_NODELIST", "n 1" },
		{ "SLURM_JOB_PARTITION", "gpu q" }, { "SLURM_JOB_PARTITION", "`id`" },
		{ "SLURM_JOB_NUM_NODES", "0" }, { "SLURM_JOB_NUM_NODES", "four" },
		{ "SLURM_GPUS_PER_NODE", "x" }, { "SLURM_GPUS_PER_NODE", "a b:2" },
		{ "SLURM_GPUS_ON_NODE", "-2" }, { "SLURM_JOB_GPUS", "0,,1" }, { "SLURM_JOB_GPUS", "0,1," },
		{ "SLURM_JOB_GPUS", "3-1" }, { "SLURM_JOB_GPUS", "0--1" }, { "SLURM_JOB_GPUS", "-1" },
		{ "SLURM_JOB_GPUS", "1-" }, { "SLURM_JOB_GPUS", ",0" },
		{ "SLURM_CLUSTER_NAME", "a/b" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char id[64], list[64], v[128];
		const char *env[] = { id, list, v, NULL };
		gc_slurm_alloc a;
		gc_err e = { { 0 } };

		snprintf(id, sizeof(id), "SLURM_JOB_ID=7");
		snprintf(list, sizeof(list), "SLURM_JOB_NODELIST=n[1-2]");
		snprintf(v, sizeof(v), "%s=%s", bad[i].var, bad[i].val);
		if (!strcmp(bad[i].var, "SLURM_JOB_ID"))
			env[0] = "X=1";
		if (!strcmp(bad[i].var, "SLURM_JOB_NODELIST"))
			env[1] = "Y=1";
		CHECKF(gc_slurm_alloc_from_env(env, &a, &e) == GC_E_INVAL, "%s accepted", v);
		CHECKF(strstr(e.msg, bad[i].var) != NULL, "message for %s: %s", v, e.msg);
	}
	{
		const char *env[] = { "SLURM_JOB_ID=7", NULL };
		gc_slurm_alloc a;
		gc_err e;
		CHECK(gc_slurm_alloc_from_env(env, &a, &e) == GC_E_INVAL);
		CHECK_CONTAINS(e.msg, "SLURM_JOB_NODELIST is not");
	}
}

static void test_nodelist(void)
{
	const char *good[] = { "n1", "n[1-4]", "n[1-4,7],gpu01", "a.b-c_d", "r[01-02]n[1-3]", "x,y" };
	const char *bad[] = { "", "[1-2]", "n[]", "n[1-2", "n1-2]", "n[a-b]", "n[1[2]]", ",n1", "-n",
			      "n;1", "n 1", "n$(id)", "n\n1", NULL };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECKF(gc_slurm_valid_nodelist(good[i]), "'%s' refused", good[i]);
	for (size_t i = 0; bad[i]; i++)
		CHECKF(!gc_slurm_valid_nodelist(bad[i]), "'%s' accepted", bad[i]);
	CHECK(!gc_slurm_valid_nodelist(NULL));
}

static void test_hostnames(void)
{
	char **h;
	int n;
	gc_err e;

	CHECK(gc_slurm_parse_hostnames("n1\nn2\nn3\n", &h, &n, &e) == GC_OK);
	CHECK_EQ_INT(n, 3);
	CHECK_STR(h[0], "n1");
	CHECK_STR(h[2], "n3");
	CHECK(h[3] == NULL);
	gc_argv_free(h);
	CHECK(gc_slurm_parse_hostnames("gpu01", &h, &n, &e) == GC_OK);   /* no final newline */
	CHECK_EQ_INT(n, 1);
	gc_argv_free(h);
}

static void test_hostnames_malformed(void)
{
	static const char *bad[] = { "", "\n", "n1\n\nn2\n", "n1\nn1\n", "n1 n2\n", "$(id)\n",
				     "-oProxyCommand\n", "n1\n.hidden\n", "n1\r\n" };
	char **h = (char **)1, big[400];
	int n = -1;
	gc_err e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e.msg[0] = 0;
		CHECKF(gc_slurm_parse_hostnames(bad[i], &h, &n, &e) == GC_E_FORMAT, "case %zu accepted", i);
		CHECK(h == NULL && n == 0);
		CHECK(e.msg[0]);
	}
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	CHECK(gc_slurm_parse_hostnames(big, &h, &n, &e) == GC_E_FORMAT);
	CHECK(gc_slurm_parse_hostnames(NULL, &h, &n, &e) == GC_E_FORMAT);
	CHECK(gc_slurm_parse_hostnames("n1\nn1\n", &h, &n, &e) == GC_E_FORMAT);
	CHECK_CONTAINS(e.msg, "'n1' twice");
}

static void test_job_exclusive(void)
{
	gc_slurm_job j;
	gc_err e;

	CHECK(gc_slurm_parse_job(job_excl, &j, &e) == GC_OK);
	CHECK_STR(j.job_id, "3");
	CHECK_STR(j.state, "RUNNING");
	CHECK_STR(j.partition, "gcb");
	CHECK_STR(j.nodelist, "n[1-2]");
	CHECK_EQ_INT(j.num_nodes, 2);
	CHECK_STR(j.oversubscribe, "NO");
	CHECK_EQ_INT(j.exclusive, 1);
}

static void test_job_shared(void)
{
	static const char *shared[] = { "OK", "YES", "USER", "MCS", "FORCE" };
	char line[sizeof(job_excl) + 16], *p;
	gc_slurm_job j;
	gc_err e;

	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		p = strstr(strcpy(line, job_excl), "OverSubscribe=NO");
		snprintf(p, sizeof(line) - (size_t)(p - line), "OverSubscribe=%s Contiguous=0\n",
			 shared[i]);
		CHECK(gc_slurm_parse_job(line, &j, &e) == GC_OK);
		CHECKF(j.exclusive == 0, "OverSubscribe=%s read as exclusive", shared[i]);
		CHECK_STR(j.oversubscribe, shared[i]);
	}
}

static void test_require_exclusive(void)
{
	gc_slurm_job j = { .job_id = "12", .oversubscribe = "OK", .exclusive = 0 };
	gc_err e;

	CHECK(gc_slurm_require_exclusive(&j, &e) == GC_E_PERM);
	CHECK_CONTAINS(e.msg, "job 12 shares its nodes");
	CHECK_CONTAINS(e.msg, "OverSubscribe=OK");
	CHECK_CONTAINS(e.msg, "--exclusive");
	CHECK(gc_slurm_parse_job(job_excl, &j, &e) == GC_OK);
	CHECK(gc_slurm_require_exclusive(&j, &e) == GC_OK);
}

static void test_job_values_with_spaces(void)
{
	gc_slurm_job j;
	gc_err e;

	CHECK(gc_slurm_parse_job("JobId=17 JobName=my job Command=/a b/run.sh --x=1 "
				 "Partition=p1 NodeList=(null) NumNodes=2-4 OverSubscribe=OK "
				 "Comment=a  b\n", &j, &e) == GC_OK);
	CHECK_STR(j.job_id, "17");
	CHECK_STR(j.partition, "p1");
	CHECK_STR(j.nodelist, "");   /* pending: (null) */
	CHECK_EQ_INT(j.num_nodes, 2);
	CHECK_EQ_INT(j.exclusive, 0);
}

static void test_job_malformed(void)
{
	static const struct { const char *text, *want; } bad[] = {
		{ "", "printed nothing" },
		{ "slurm_load_jobs error: Invalid job id specified\n", "no Key=Value" },
		{ "JobName=x OverSubscribe=NO\n", "no JobId" },
		{ "JobId=x1 OverSubscribe=NO\n", "no JobId" },
		{ "JobId=3 JobState=RUNNING\n", "no OverSubscribe" },
		{ "JobId=3 OverSubscribe=\n", "no OverSubscribe" },
		{ "JobId=3 OverSubscribe=NO OverSubscribe=OK\n", "OverSubscribe twice" },
		{ "JobId=3 JobId=4 OverSubscribe=NO\n", "JobId twice" },
		{ "JobId=3 OverSubscribe=NO\nJobId=4 OverSubscribe=NO\n", "more than one record" },
		{ "JobId=3 OverSubscribe=NO NodeList=n[1-\n", "NodeList" },
		{ "JobId=3 OverSubscribe=NO NodeList=n1;id\n", "NodeList" },
		{ "JobId=3 OverSubscribe=NO NumNodes=x\n", "NumNodes" },
		{ "JobId=3 OverSubscribe=NO NumNodes=2-\n", "NumNodes" },
		{ "JobId=3 OverSubscribe=NO Partition=a b\n", "Partition" },
		{ "JobId=3 OverSubscribe=N$O\n", "no OverSubscribe" },
		{ "=3 OverSubscribe=NO\n", "no Key=Value" },
	};
	gc_slurm_job j;
	gc_err e;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		e.msg[0] = 0;
		CHECKF(gc_slurm_parse_job(bad[i].text, &j, &e) == GC_E_FORMAT, "case %zu accepted", i);
		CHECKF(strstr(e.msg, bad[i].want) != NULL, "case %zu: '%s' lacks '%s'", i, e.msg,
		       bad[i].want);
	}
	CHECK(gc_slurm_parse_job(NULL, &j, &e) == GC_E_FORMAT);
}

static void test_time(void)
{
	const char *good[] = { "30", "30:00", "02:00:00", "1-0", "1-12", "2-12:30", "2-12:30:00",
			       "UNLIMITED", "INFINITE" };
	const char *bad[] = { "", "1:2:3:4", "1--2", "-1", "1-", "a", "12:3x", "1-123", ":30",
			      "30:", "1-2-3", "now", "12345678", NULL };
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECKF(gc_slurm_valid_time(good[i]), "'%s' refused", good[i]);
	for (size_t i = 0; bad[i]; i++)
		CHECKF(!gc_slurm_valid_time(bad[i]), "'%s' accepted", bad[i]);
}

static void test_sbatch_script(void)
{
	const char *cmd[] = { "/usr/bin/gcbench", "run", "/home/u/my spec.yaml", "--db", "it's.db", NULL };
	const char *env[] = { "GCBENCH_HOME=/var/lib/gcbench", "X=$(id)", NULL };
	gc_slurm_submit s = { .nodes = 4, .partition = "gpu", .time = "02:00:00",
			      .gpus_per_node = 2, .begin = "2026-12-05T02:00", .caps = 1,
			      .output = "/home/u/gcbench-%j.out", .env = env, .command = cmd };
	gc_buf b = GC_BUF_INIT;
	gc_err e;

	CHECK(gc_slurm_sbatch_script(&s, &b, &e) == GC_OK);
	CHECK(!strncmp(gc_buf_str(&b), "#!/bin/bash\n", 12));
	CHECK_CONTAINS(gc_buf_str(&b), "#SBATCH --job-name=gcbench\n#SBATCH --nodes=4\n"
			"#SBATCH --ntasks-per-node=1\n#SBATCH --partition=gpu\n"
			"#SBATCH --time=02:00:00\n#SBATCH --gpus-per-node=2\n"
			"#SBATCH --begin=2026-12-05T02:00\n#SBATCH --exclusive");
	CHECK_CONTAINS(gc_buf_str(&b), "#SBATCH --output=/home/u/gcbench-%j.out\n");
	CHECK_CONTAINS(gc_buf_str(&b), "export GCBENCH_HOME='/var/lib/gcbench'\nexport X='$(id)'\n");
	CHECK_CONTAINS(gc_buf_str(&b), "exec '/usr/bin/gcbench' 'run' '/home/u/my spec.yaml' "
			"'--db' 'it'\\''s.db'\n");
	gc_buf_release(&b);
	/* no caps, no options: no --exclusive, no partition, time, gpus or begin */
	s = (gc_slurm_submit){ .nodes = 2, .command = cmd };
	CHECK(gc_slurm_sbatch_script(&s, &b, &e) == GC_OK);
	CHECK(!strstr(gc_buf_str(&b), "--exclusive") && !strstr(gc_buf_str(&b), "--partition") &&
	      !strstr(gc_buf_str(&b), "--time") && !strstr(gc_buf_str(&b), "--gpus") &&
	      !strstr(gc_buf_str(&b), "--begin"));
	gc_buf_release(&b);
	s.exclusive = 1;
	CHECK(gc_slurm_sbatch_script(&s, &b, &e) == GC_OK);
	CHECK_CONTAINS(gc_buf_str(&b), "#SBATCH --exclusive\n");
	CHECK(!strstr(gc_buf_str(&b), "what the job needs"));
	gc_buf_release(&b);
}

/* a site's options as #SBATCH lines; sbatch's own arguments recorded; the paths the
 * job needs checked before its command, each failure a line for the job's log */
static void test_sbatch_site_options(void)
{
	const char *cmd[] = { "/opt/gcb/bin/gcbench", "run", NULL };
	const char *need[] = { "/opt/gcb/bin/gcbench", "/home/u/my spec.yaml", NULL };
	const char *extra[] = { "--comment=a b", "--mail-type=END", NULL };
	gc_slurm_submit s = { .nodes = 2, .account = "proj-7", .qos = "high",
			      .constraint = "[rack1|rack2]&a100", .reservation = "maint",
			      .need = need, .write_dir = "/shared/db", .extra = extra,
			      .command = cmd };
	gc_buf b = GC_BUF_INIT;
	gc_err e;
	const char *t, *chk, *ex;

	CHECK(gc_slurm_sbatch_script(&s, &b, &e) == GC_OK);
	t = gc_buf_str(&b);
	CHECK_CONTAINS(t, "#SBATCH --account=proj-7\n#SBATCH --qos=high\n"
		       "#SBATCH --constraint=[rack1|rack2]&a100\n#SBATCH --reservation=maint\n");
	CHECK_CONTAINS(t, "# sbatch's own arguments (on its command line): '--comment=a b' "
		       "'--mail-type=END'\n");
	CHECK_CONTAINS(t, "for p in '/opt/gcb/bin/gcbench' '/home/u/my spec.yaml'; do\n");
	CHECK_CONTAINS(t, "cannot read $p here; it must be on a file system");
	CHECK_CONTAINS(t, "d='/shared/db'\n[ -w \"$d\" ] ||");
	CHECK_CONTAINS(t, "command -v mpirun >/dev/null ||");
	chk = strstr(t, "for p in");
	ex = strstr(t, "\nexec ");
	CHECK(chk && ex && chk < ex);   /* checked before it runs */
	gc_buf_release(&b);
}

static void test_sbatch_refuses(void)
{
	const char *cmd[] = { "gcbench", "run", NULL };
	const char *badenv[] = { "A B=1", NULL }, *noeq[] = { "A", NULL };
	const char *badextra[] = { "--comment=x", "--x\nrm -rf /", NULL };
	gc_slurm_submit ok = { .nodes = 1, .command = cmd }, s;
	gc_buf b = GC_BUF_INIT;
	gc_err e;

#define REFUSED(field, value, want) do { s = ok; s.field = value; e.msg[0] = 0; \
	CHECKF(gc_slurm_sbatch_script(&s, &b, &e) == GC_E_INVAL, #field " accepted"); \
	CHECK_CONTAINS(e.msg, want); CHECK(b.len == 0); } while (0)
	REFUSED(nodes, 0, "--nodes 0");
	REFUSED(gpus_per_node, -1, "--gpus-per-node");
	REFUSED(partition, "gpu\n#SBATCH --uid=0", "partition");
	REFUSED(partition, "a b", "partition");
	REFUSED(time, "2h", "time limit '2h'");
	REFUSED(begin, "now; reboot", "begin time");
	REFUSED(begin, "-1", "begin time");
	REFUSED(output, "/tmp/a b", "output file");
	REFUSED(chdir, "relative/dir", "working directory");
	REFUSED(job_name, "x$(id)", "job name");
	REFUSED(env, badenv, "environment entry");
	REFUSED(env, noeq, "environment entry");
	REFUSED(command, NULL, "no command");
	REFUSED(account, "a\n#SBATCH --uid=0", "account");
	REFUSED(qos, "x y", "qos");
	REFUSED(reservation, "$(id)", "reservation");
	REFUSED(constraint, "a100;reboot", "constraint");
	REFUSED(constraint, "-x", "constraint");
	REFUSED(extra, badextra, "control character");
#undef REFUSED
}

/* a stand-in scontrol on PATH: answers only the exact argument lists gcbench must give */
static int fake_scontrol(char *dir, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(dir, n, "/tmp/gcbench-test-slurm.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/scontrol", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "#!/bin/sh\n"
		"if [ \"$1 $2\" = 'show hostnames' ] && [ \"$3\" = 'n[1-3]' ] && [ $# = 3 ]; then\n"
		"  printf 'n1\\nn2\\nn3\\n'; exit 0; fi\n"
		"if [ \"$1 $2 $3\" = 'show job -o' ] && [ \"$4\" = 9 ]; then\n"
		"  echo 'JobId=9 JobState=RUNNING Partition=main NodeList=n[1-3] NumNodes=3 "
		"OverSubscribe=NO Command=x'; exit 0; fi\n"
		"if [ \"$1 $2 $3\" = 'show job -o' ] && [ \"$4\" = 10 ]; then\n"
		"  echo 'JobId=9 OverSubscribe=NO'; exit 0; fi\n"
		"echo \"scontrol: error: Invalid job id specified ($*)\" >&2; exit 1\n");
	fclose(f);
	chmod(path, 0755);
	return 0;
}

static void test_scontrol_calls(void)
{
	char dir[64], path[2048], rm[128];
	const char *old = getenv("PATH");
	char **h;
	int n;
	gc_slurm_job j;
	gc_err e;

	if (fake_scontrol(dir, sizeof(dir)))
		SKIP("cannot write a stand-in scontrol in /tmp");
	snprintf(path, sizeof(path), "%s:%s", dir, old ? old : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	int ok = gc_slurm_expand_nodelist("n[1-3]", &h, &n, &e) == GC_OK && n == 3 &&
		 !strcmp(h[1], "n2");
	if (ok)
		gc_argv_free(h);
	int refused = gc_slurm_expand_nodelist("n1;reboot", &h, &n, &e) == GC_E_INVAL;
	int info = gc_slurm_job_info("9", &j, &e) == GC_OK && j.exclusive && j.num_nodes == 3;
	int other = gc_slurm_job_info("10", &j, &e) == GC_E_FORMAT;
	int missing = gc_slurm_job_info("11", &j, &e) == GC_E_CHILD &&
		      strstr(e.msg, "Invalid job id") != NULL;
	int badid = gc_slurm_job_info("9 10", &j, &e) == GC_E_INVAL;
	setenv("PATH", old ? old : "/usr/bin:/bin", 1);
	snprintf(rm, sizeof(rm), "%s/scontrol", dir);
	unlink(rm);
	rmdir(dir);
	CHECK(ok);
	CHECK(refused);
	CHECK(info);
	CHECK(other);
	CHECK(missing);
	CHECK(badid);
}

/* The launcher back end's step: srun's options first, then argv exactly (no shell) */
static void test_step_argv(void)
{
	char *argv[] = { "/opt/gc/gcbench-netem", "set", "a b;c", "-x", NULL };
	char *dash[] = { "-n", NULL }, *empty[] = { "", NULL };
	const char *want[] = { "srun", "--mpi=none", "--nodes=1", "--ntasks=1", "--nodelist=gpu-01",
			       "--overlap", "--chdir=/", "--kill-on-bad-exit=1", "--quiet",
			       "/opt/gc/gcbench-netem", "set", "a b;c", "-x", NULL };
	char **v = NULL, why[256];
	gc_err e;
	int i;

	CHECK(gc_backend_slurm_step_argv("gpu-01", argv, &v, &e) == GC_OK);
	for (i = 0; want[i]; i++)
		CHECK_STR(v[i], want[i]);
	CHECK(v[i] == NULL);
	gc_argv_free(v);
	CHECK(gc_backend_slurm_step_argv("n1,n2", argv, &v, &e) == GC_E_INVAL);
	CHECK(v == NULL);
	CHECK(gc_backend_slurm_step_argv("-w", argv, &v, &e) == GC_E_INVAL);
	CHECK(gc_backend_slurm_step_argv("n1 n2", argv, &v, &e) == GC_E_INVAL);
	CHECK(gc_backend_slurm_step_argv("", argv, &v, &e) == GC_E_INVAL);
	CHECK(gc_backend_slurm_step_argv("n1", dash, &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "starts with '-'");
	CHECK(gc_backend_slurm_step_argv("n1", empty, &v, &e) == GC_E_INVAL);
	CHECK(gc_backend_slurm_step_failed("srun: error: Slurm job 2 has expired\nmore", why,
					   sizeof(why)) == 1);
	CHECK_STR(why, "srun: error: Slurm job 2 has expired");
	CHECK(gc_backend_slurm_step_failed("tc: error: no such device\n", why, sizeof(why)) == 0);
	CHECK(gc_backend_slurm_step_failed(NULL, why, sizeof(why)) == 0);
	CHECK(gc_backend_slurm_step_failed("connect: refused\nsrun: error: n1: task 0: Exited "
					   "with exit code 1\n", why, sizeof(why)) == 0);
	CHECK(gc_backend_slurm_step_failed("x srun: error: y\n", why, sizeof(why)) == 0);
	gc_backend_slurm_last_line("connect: refused\nsrun: error: n1: task 0: Exited with "
				   "exit code 1\nslurmstepd-n1: error: *** STEP\n", why, sizeof(why));
	CHECK_STR(why, "connect: refused");
	gc_backend_slurm_last_line("srun: error: x\n", why, sizeof(why));
	CHECK_STR(why, "");
	CHECK_STR(gc_launcher_name(GC_LAUNCHER_SLURM), "slurm");
	CHECK_STR(gc_launcher_name(GC_LAUNCHER_SSH), "ssh");
}

int main(void)
{
	GCT_SUITE("slurm");
	GCT_RUN(test_alloc_env);
	GCT_RUN(test_alloc_gpus);
	GCT_RUN(test_alloc_outside);
	GCT_RUN(test_alloc_malformed);
	GCT_RUN(test_nodelist);
	GCT_RUN(test_hostnames);
	GCT_RUN(test_hostnames_malformed);
	GCT_RUN(test_job_exclusive);
	GCT_RUN(test_job_shared);
	GCT_RUN(test_require_exclusive);
	GCT_RUN(test_job_values_with_spaces);
	GCT_RUN(test_job_malformed);
	GCT_RUN(test_time);
	GCT_RUN(test_sbatch_script);
	GCT_RUN(test_sbatch_site_options);
	GCT_RUN(test_sbatch_refuses);
	GCT_RUN(test_scontrol_calls);
	GCT_RUN(test_step_argv);
	return gct_finish();
}

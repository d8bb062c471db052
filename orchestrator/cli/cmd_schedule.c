/* gcbench schedule: install, list and remove scheduled sweeps (systemd or cron). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "commands.h"
#include "json.h"
#include "log.h"
#include "proc.h"
#include "orchestrator/ops/schedule.h"
#include "orchestrator/remote/slurm.h"
#include "orchestrator/run/validate.h"
#include "orchestrator/spec/inventory.h"
#include "strutil.h"

static void schedule_opt_lines(FILE *f, int slurm);

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench schedule install SPEC --inventory INV --at WHEN [options]\n"
		"       gcbench schedule list [--root DIR] [--json]\n"
		"       gcbench schedule remove NAME [--root DIR]\n\n"
		"Run a sweep on a schedule: 'gcbench run SPEC --inventory INV --db DB' from a\n"
		"systemd timer (where systemd runs) or a line in /etc/cron.d. The run takes the\n"
		"sweep lock and resumes an interrupted sweep instead of starting over.\n\n"
		"Before it installs anything it checks the spec, the inventory and the database\n"
		"as 'gcbench run --dry-run' does, and refuses (exit 2) a job that would fail\n"
		"every night. It schedules an installed gcbench: 'sudo make install' puts the\n"
		"binaries in /usr/local/bin (PREFIX=DIR for another place); a gcbench in a build\n"
		"tree is refused, because 'make clean' removes it and every rebuild changes what\n"
		"the job runs (--allow-build-tree schedules it anyway, with a warning).\n\n"
		"WHEN: 'hourly', 'daily HH:MM', 'weekly Mon HH:MM', or a 5-field cron expression\n"
		"      ('30 2 * * 1-5': minute hour day-of-month month day-of-week)\n\n"
		"install options:\n");
	schedule_opt_lines(f, 0);
	fprintf(f, "\n"
		"SLURM (docs/slurm.md): with --slurm the job runs 'gcbench submit SPEC --nodes N\n"
		"... --wait' instead of 'gcbench run': the sweep runs as a batch job on the\n"
		"cluster, not on this login node, and the job ends with the sweep's status.\n");
	schedule_opt_lines(f, 1);
	fprintf(f, "\n"
		"logs: systemd: journalctl -u gcbench-NAME.service\n"
		"      cron:    /var/log/gcbench/NAME.log\n\n"
		"example:\n"
		"  sudo gcbench schedule install nightly.yaml --inventory lab.yaml \\\n"
		"       --db /srv/gcbench.db --at 'daily 02:00' --tag nccl-2.19\n"
		"  gcbench schedule install nightly.yaml --inventory slurm.yaml --slurm \\\n"
		"       --nodes 4 --partition gpu --time 2:00:00 --db ~/gc/results.db \\\n"
		"       --at 'daily 02:00'\n\n");
}

struct opts {
	const char *root, *backend, *name, *tag, *env_file, *db, *inventory, *at;
	const char *gcbench, *spec, *user;
	const char *nodes, *partition, *time, *gpus;   /* --slurm's, as given */
	int replace, allow_build_tree, slurm, json;
};

static struct opts sc;   /* the declarations' targets */

#define SLURM_FIRST 10   /* schedule_opts[SLURM_FIRST..]: the SLURM group of the usage */
#define SLURM_END 15     /* then the options the synopsis names */
static const struct gc_option schedule_opts[] = {
	GC_OPTION_STRING("--db", NULL, &sc.db, "PATH", "the results database (default ./gcbench.db)"),
	GC_OPTION_STRING("--name", NULL, &sc.name, "NAME",
			 "the job's name (default: the spec's file name)"),
	GC_OPTION_STRING("--tag", NULL, &sc.tag, "TAG",
			 "passed to 'gcbench run --tag' (e.g. nccl-2.19)"),
	GC_OPTION_STRING("--env-file", NULL, &sc.env_file, "PATH",
			 "KEY=value lines for the run (notification hook URLs)"),
	GC_OPTION_STRING("--backend", NULL, &sc.backend, "B",
			 "systemd, cron or auto (default: systemd if it runs)"),
	GC_OPTION_FLAG("--replace", NULL, &sc.replace, "overwrite a job of the same name"),
	GC_OPTION_STRING("--gcbench", NULL, &sc.gcbench, "PATH",
			 "the binary to run (default: this one)"),
	GC_OPTION_STRING("--user", NULL, &sc.user, "NAME",
			 "the login the job runs as, with its HOME, PATH, ssh keys\n"
			 "and known_hosts (default: who ran sudo, from SUDO_USER;\n"
			 "else this login); a 'local:' inventory needs root"),
	GC_OPTION_FLAG("--allow-build-tree", NULL, &sc.allow_build_tree,
		       "schedule a gcbench in a build tree (see above)"),
	GC_OPTION_STRING("--root", NULL, &sc.root, "DIR",
			 "write the files under DIR instead of / and activate\n"
			 "nothing (tests, packaging); also $GCBENCH_SCHEDULE_ROOT"),
	GC_OPTION_FLAG("--slurm", NULL, &sc.slurm, "submit through sbatch (needs --nodes)"),
	GC_OPTION_STRING("--nodes", NULL, &sc.nodes, "N", "nodes of the batch job"),
	GC_OPTION_STRING("--partition", NULL, &sc.partition, "P",
			 "its partition (default: the site's)"),
	GC_OPTION_STRING("--time", NULL, &sc.time, "T",
			 "its time limit (MM, HH:MM:SS, D-HH:MM, ...)"),
	GC_OPTION_STRING("--gpus-per-node", NULL, &sc.gpus, "G", "GPUs per node"),
	GC_OPTION_STRING("--inventory", NULL, &sc.inventory, "INV", NULL),
	GC_OPTION_STRING("--at", NULL, &sc.at, "WHEN", NULL),
	GC_OPTION_FLAG("--json", NULL, &sc.json, NULL),
};

static void schedule_opt_lines(FILE *f, int slurm)
{
	if (slurm)
		gc_opts_usage(f, schedule_opts + SLURM_FIRST, SLURM_END - SLURM_FIRST, 21);
	else
		gc_opts_usage(f, schedule_opts, SLURM_FIRST, 21);
}

/* 0 to go on, -1 for a mistake (reported), 1 when help or version was printed. */
static int parse_args(int argc, char **argv, struct opts *o)
{
	gc_opts p;
	int r;

	gc_opts_decl_init(&p, "gcbench schedule", schedule_opts,
			  sizeof schedule_opts / sizeof schedule_opts[0], argc - 1, argv + 1, NULL);
	p.positional = 1;
	while ((r = gc_opts_next(&p)) == GC_OPTS_POS) {
		if (sc.spec) {
			gc_error("unexpected argument '%s': one spec or job name at a time; see "
				 "'gcbench schedule --help'", p.val);
			return -1;
		}
		sc.spec = p.val;
	}
	*o = sc;
	if (r != GC_OPTS_END)
		return gc_cli_opts_stop(&p, r, usage) ? -1 : 1;
	if (!o->root)
		o->root = getenv("GCBENCH_SCHEDULE_ROOT");
	if (o->root && (o->root[0] != '/' || !gc_is_safe_token(o->root))) {
		gc_error("invalid --root '%s': give an absolute directory", o->root);
		return -1;
	}
	return 0;
}

/* An absolute path for p; must_exist 0 allows a missing last component. */
static int abs_path(const char *what, const char *p, int must_exist, char *out)
{
	char tmp[PATH_MAX], dir[PATH_MAX];

	if (realpath(p, out))
		return 0;
	if (must_exist || errno != ENOENT) {
		gc_error("cannot use %s '%s': %s", what, p, strerror(errno));
		return -1;
	}
	gc_strlcpy(tmp, p, sizeof tmp);
	if (!realpath(dirname(tmp), dir)) {
		gc_error("cannot use %s '%s': its directory: %s", what, p, strerror(errno));
		return -1;
	}
	gc_strlcpy(tmp, p, sizeof tmp);
	if (snprintf(out, PATH_MAX, "%s/%s", dir, basename(tmp)) >= PATH_MAX)
		return -1;
	return 0;
}

/* The default name: the spec's file name without .yaml/.yml. */
static void default_name(const char *spec, char *out, size_t n)
{
	const char *b = strrchr(spec, '/');
	char *dot;

	gc_strlcpy(out, b ? b + 1 : spec, n);
	dot = strrchr(out, '.');
	if (dot && (!strcmp(dot, ".yaml") || !strcmp(dot, ".yml")))
		*dot = '\0';
}

static int run_systemctl(const char *a1, const char *a2, const char *a3)
{
	char *argv[] = { "systemctl", (char *)a1, (char *)a2, (char *)a3, NULL };
	gc_proc_result res;
	gc_err e = { "" };
	int ok;

	memset(&res, 0, sizeof res);
	ok = !gc_proc_run(argv, NULL, NULL, 60, 0, &res, &e) && res.status == 0;
	if (!ok)
		gc_error("'systemctl %s %s %s' failed: %s", a1, a2 ? a2 : "", a3 ? a3 : "",
			 res.err_tail[0] ? res.err_tail : e.msg);
	gc_proc_result_release(&res);
	return ok ? 0 : -1;
}

/* Absolute paths and defaults for the job; bufs holds the strings. */
struct jobbufs {
	char spec[PATH_MAX], inv[PATH_MAX], db[PATH_MAX], wd[PATH_MAX], exe[PATH_MAX];
	char env[PATH_MAX], name[256], user[64], home[PATH_MAX], path[PATH_MAX + 64];
};

/* Who the job runs as: --user, else the login that ran sudo, else this one; its home
 * and PATH (this environment's for this login; else the system's, with gcbench's
 * directory first). 0 or -1 (reported). */
static int fill_user(const struct opts *o, struct jobbufs *b)
{
	const char *sudo_user = geteuid() == 0 ? getenv("SUDO_USER") : NULL;
	const char *name = o->user ? o->user : sudo_user && *sudo_user ? sudo_user : NULL;
	struct passwd *pw = name ? getpwnam(name) : getpwuid(geteuid());
	char dir[PATH_MAX], *slash;

	if (!pw) {
		gc_error("no user '%s' on this machine: give --user an existing login",
			 name ? name : "(this process)");
		return -1;
	}
	gc_strlcpy(b->user, pw->pw_name, sizeof b->user);
	gc_strlcpy(b->home, pw->pw_dir ? pw->pw_dir : "/", sizeof b->home);
	gc_strlcpy(dir, b->exe, sizeof dir);
	if ((slash = strrchr(dir, '/')))
		*slash = '\0';
	if (!name && getenv("PATH") && gc_is_safe_token(getenv("PATH")))
		gc_strlcpy(b->path, getenv("PATH"), sizeof b->path);
	else
		snprintf(b->path, sizeof b->path, "%s:/usr/local/sbin:/usr/local/bin:/usr/sbin:"
			 "/usr/bin:/sbin:/bin", dir);
	return 0;
}

/* A `local:` inventory builds namespaces: only root can run it. 0 or the exit status. */
static int check_local(const gc_sched_job *j)
{
	struct gc_inventory inv;
	struct gc_diags d;
	gc_err e = { "" };
	int local;

	memset(&inv, 0, sizeof inv);
	gc_diags_init(&d, j->inventory);
	if (gc_inventory_load(j->inventory, &inv, &d, &e)) {
		gc_diags_release(&d);
		return 0;   /* check_job says what is wrong with it */
	}
	local = inv.local;
	gc_inventory_release(&inv);
	gc_diags_release(&d);
	if (!local || !strcmp(j->user, "root"))
		return 0;
	gc_error("refusing to schedule '%s' as '%s': its inventory '%s' is 'local: %d', the "
		 "emulated cluster, which needs root (CAP_SYS_ADMIN to make network namespaces, "
		 "CAP_NET_ADMIN to shape them), and '%s' has neither. The gcbench package's "
		 "group (usermod -aG gcbench %s) gives a login the right to shape the "
		 "interfaces an admin allows on real hosts, not to make namespaces: schedule "
		 "this job with --user root, or give an inventory of hosts", j->name, j->user,
		 j->inventory, local, j->user, j->user);
	return GC_EXIT_ENV;
}

/* --slurm and its options into j, checked as `gcbench submit` checks them; 0 or -1
 * (reported). */
static int fill_slurm(const struct opts *o, gc_sched_job *j)
{
	gc_slurm_submit s;
	gc_err e = { "" };

	if (!o->slurm) {
		if (o->nodes || o->partition || o->time || o->gpus) {
			gc_error("--nodes, --partition, --time and --gpus-per-node are options of "
				 "--slurm; add --slurm to run the sweep as a SLURM batch job");
			return -1;
		}
		return 0;
	}
	if (!o->nodes) {
		gc_error("--slurm needs the job's size: add --nodes N; see 'gcbench schedule "
			 "--help'");
		return -1;
	}
	if (gc_slurm_parse_count(o->nodes, 1, &j->slurm_nodes)) {
		gc_error("--nodes needs a whole number of nodes, 1 or more; see 'gcbench "
			 "schedule --help'");
		return -1;
	}
	if (o->gpus && gc_slurm_parse_count(o->gpus, 0, &j->slurm_gpus_per_node)) {
		gc_error("--gpus-per-node needs a whole number, 0 or more; see 'gcbench "
			 "schedule --help'");
		return -1;
	}
	memset(&s, 0, sizeof s);
	s.nodes = j->slurm_nodes;
	s.gpus_per_node = j->slurm_gpus_per_node;
	s.partition = o->partition;
	s.time = o->time;
	if (gc_slurm_submit_options_check(&s, &e)) {
		gc_error("invalid --slurm option: %s; see 'gcbench schedule --help'", e.msg);
		return -1;
	}
	j->slurm_partition = o->partition;
	j->slurm_time = o->time;
	return 0;
}

static int fill_job(const struct opts *o, struct jobbufs *b, gc_sched_job *j)
{
	ssize_t n;

	if (!o->spec || !o->inventory || !o->at) {
		gc_error("schedule install needs SPEC, --inventory and --at; see "
			 "'gcbench schedule --help'");
		return -1;
	}
	if (abs_path("spec", o->spec, 1, b->spec) ||
	    abs_path("inventory", o->inventory, 1, b->inv) ||
	    abs_path("database", o->db ? o->db : "gcbench.db", 0, b->db) ||
	    (o->env_file && abs_path("env file", o->env_file, 1, b->env)) ||
	    !getcwd(b->wd, sizeof b->wd))
		return -1;
	if (o->gcbench) {
		if (abs_path("gcbench binary", o->gcbench, 1, b->exe))
			return -1;
	} else if ((n = readlink("/proc/self/exe", b->exe, sizeof b->exe - 1)) <= 0) {
		gc_error("cannot find this program's path: pass --gcbench PATH");
		return -1;
	} else {
		b->exe[n] = '\0';
	}
	default_name(b->spec, b->name, sizeof b->name);
	if (fill_user(o, b))
		return -1;
	*j = (gc_sched_job){ o->name ? o->name : b->name, o->at, b->exe, b->spec, b->inv,
			     b->db, b->wd, o->tag, o->env_file ? b->env : NULL, b->user,
			     0, 0, NULL, NULL, b->home, b->path };
	return fill_slurm(o, j);
}

static int parse_backend(const char *s, gc_sched_backend *b)
{
	if (!s || !strcmp(s, "auto"))
		*b = GC_SCHED_AUTO;
	else if (!strcmp(s, "systemd"))
		*b = GC_SCHED_SYSTEMD;
	else if (!strcmp(s, "cron"))
		*b = GC_SCHED_CRON;
	else
		return gc_error("invalid --backend '%s': systemd, cron or auto", s), -1;
	return 0;
}

static int activate(const gc_sched_job *j, gc_sched_backend b)
{
	char unit[128];

	if (b != GC_SCHED_SYSTEMD)
		return 0;   /* cron reads /etc/cron.d by itself */
	snprintf(unit, sizeof unit, "gcbench-%s.timer", j->name);
	if (run_systemctl("daemon-reload", NULL, NULL) ||
	    run_systemctl("enable", "--now", unit))
		return -1;
	return 0;
}

/* What the job will run: the sweep as 'gcbench run --dry-run' checks it, and an
 * installed gcbench. 0, or the exit status of the refusal. */
static int check_job(const gc_sched_job *j, int allow_build_tree)
{
	struct gc_run_opts ro = { .spec_path = j->spec, .inventory_path = j->inventory,
				  .db_path = j->db };
	char root[PATH_MAX];
	size_t n = 0;
	gc_err e = { "" };
	gc_rc rc = gc_run_check(&ro, &n, &e);

	if (rc) {
		gc_error("%s", e.msg);
		gc_error("refusing to schedule '%s': 'gcbench run' would stop on this every time; "
			 "fix it, check with 'gcbench run %s --inventory %s --db %s --dry-run', "
			 "and install again", j->name, j->spec, j->inventory, j->db);
		return gc_exit_code(rc);
	}
	if (gc_sched_in_build_tree(j->gcbench, root, sizeof(root))) {
		if (!allow_build_tree) {
			gc_error("refusing to schedule '%s' with '%s', a gcbench in the build tree "
				 "'%s': 'make clean' removes it and a rebuild changes what runs; run "
				 "'sudo make install' there (gcbench in /usr/local/bin; PREFIX=DIR for "
				 "another place) and install the schedule with that gcbench, or pass "
				 "--allow-build-tree", j->name, j->gcbench, root);
			return GC_EXIT_USAGE;
		}
		gc_warn("scheduling '%s' from the build tree '%s': 'make clean' there stops the "
			"job; 'make install' and --gcbench PREFIX/bin/gcbench avoid that",
			j->gcbench, root);
	}
	gc_info("checked: %zu points, as 'gcbench run --dry-run' checks them", n);
	return 0;
}

static int do_install(const struct opts *o)
{
	struct jobbufs b;
	gc_sched_job j;
	gc_sched_backend be;
	gc_err e;
	int r;
	const char *root = o->root ? o->root : "";

	if (parse_backend(o->backend, &be) || fill_job(o, &b, &j))
		return GC_EXIT_USAGE;
	if (gc_sched_job_check(&j, &e))
		return gc_error("%s", e.msg), GC_EXIT_USAGE;
	if ((r = check_job(&j, o->allow_build_tree)) || (r = check_local(&j)))
		return r;
	if (be == GC_SCHED_AUTO)
		be = gc_sched_detect(root);
	if (!o->root && geteuid() != 0) {
		gc_error("cannot install schedule '%s': writing /etc needs root; run with "
			 "sudo, or use --root DIR to write the files elsewhere", j.name);
		return GC_EXIT_ENV;
	}
	if (gc_sched_install(&j, root, be, o->replace, &e))
		return gc_error("cannot install schedule '%s': %s", j.name, e.msg), GC_EXIT_ENV;
	if (o->root)
		printf("installed '%s' (%s, runs as %s) under %s; not activated (--root)\n",
		       j.name, gc_sched_backend_name(be), j.user, o->root);
	else if (activate(&j, be))
		return GC_EXIT_ENV;
	else
		printf("installed '%s' (%s, %s, runs as %s); logs: %s%s%s\n", j.name,
		       gc_sched_backend_name(be), j.at, j.user,
		       be == GC_SCHED_SYSTEMD ? "journalctl -u gcbench-" : "/var/log/gcbench/",
		       j.name, be == GC_SCHED_SYSTEMD ? ".service" : ".log");
	return 0;
}

static void print_entry(const gc_sched_entry *en, void *arg)
{
	int *n = arg;

	if ((*n)++ == 0)
		printf("%-20s %-8s %-20s %s\n", "NAME", "BACKEND", "AT", "COMMAND");
	printf("%-20s %-8s %-20s %s\n", en->name, en->backend, en->at, en->command);
}

static void json_entry(const gc_sched_entry *en, void *arg)
{
	gc_json *j = arg;

	gc_json_obj_open(j);
	gc_json_str_field(j, "name", en->name);
	gc_json_str_field(j, "backend", en->backend);
	gc_json_str_field(j, "at", en->at);
	gc_json_str_field(j, "command", en->command);
	gc_json_str_field(j, "file", en->file);
	gc_json_obj_close(j);
}

static int do_list(const struct opts *o)
{
	gc_err e;
	int n = 0;

	if (o->json) {   /* [{"name", "backend", "at", "command", "file"}, ...] */
		gc_buf b;
		gc_json j;
		gc_buf_init(&b);
		gc_json_init(&j, &b, 0);
		gc_json_arr_open(&j);
		if (gc_sched_list(o->root ? o->root : "", json_entry, &j, &e)) {
			gc_buf_release(&b);
			return gc_error("cannot list schedules: %s", e.msg), GC_EXIT_ENV;
		}
		gc_json_arr_close(&j);
		return gc_cli_json_print(&b, &j);
	}
	if (gc_sched_list(o->root ? o->root : "", print_entry, &n, &e))
		return gc_error("cannot list schedules: %s", e.msg), GC_EXIT_ENV;
	if (!n)
		printf("no scheduled sweeps; add one with 'gcbench schedule install'\n");
	return 0;
}

static int do_remove(const struct opts *o)
{
	gc_sched_backend b = GC_SCHED_CRON;
	char unit[128];
	gc_err e;
	gc_rc rc;

	if (!o->spec || !gc_sched_name_ok(o->spec)) {
		gc_error("schedule remove needs a valid NAME; see 'gcbench schedule list'");
		return GC_EXIT_USAGE;
	}
	snprintf(unit, sizeof unit, "gcbench-%s.timer", o->spec);
	if (!o->root && gc_sched_detect("") == GC_SCHED_SYSTEMD)
		run_systemctl("disable", "--now", unit);   /* fine if it was not enabled */
	rc = gc_sched_remove(o->root ? o->root : "", o->spec, &b, &e);
	if (rc)
		return gc_error("cannot remove schedule '%s': %s", o->spec, e.msg),
		       rc == GC_E_NOTFOUND ? GC_EXIT_USAGE : GC_EXIT_ENV;   /* not installed: 2 */
	if (!o->root && b == GC_SCHED_SYSTEMD)
		run_systemctl("daemon-reload", NULL, NULL);
	printf("removed '%s' (%s)\n", o->spec, gc_sched_backend_name(b));
	return 0;
}

int cmd_schedule(int argc, char **argv)
{
	static const char *const subs[] = { "install", "list", "remove" };
	struct opts o = { 0 };
	int r;

	if (argc < 2) {
		usage(stderr);
		return GC_EXIT_USAGE;
	}
	if (argv[1][0] == '-') {   /* --help, --version, or an option before the action */
		gc_opts p;
		gc_opts_decl_init(&p, "gcbench schedule", schedule_opts, 0, argc, argv, NULL);
		return gc_cli_opts_stop(&p, gc_opts_next(&p), usage);
	}
	if (strcmp(argv[1], "install") && strcmp(argv[1], "list") && strcmp(argv[1], "remove"))
		return gc_cli_unknown_sub("gcbench schedule", argv[1], subs, 3);
	if ((r = parse_args(argc, argv, &o)))
		return r > 0 ? GC_EXIT_OK : GC_EXIT_USAGE;
	if (o.json && strcmp(argv[1], "list")) {
		gc_error("--json applies to 'gcbench schedule list'; install and remove print one "
			 "line (drop --json)");
		return GC_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "install"))
		return do_install(&o);
	if (!strcmp(argv[1], "list"))
		return do_list(&o);
	if (!strcmp(argv[1], "remove"))
		return do_remove(&o);
	return gc_cli_unknown_sub("gcbench schedule", argv[1], subs, 3);
}

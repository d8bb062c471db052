/* orchestrator/ops/schedule.h: scheduled sweeps as systemd timers or cron.d lines.
 *
 * A job runs `gcbench run SPEC --inventory INV --db DB [--tag TAG]` (or, with
 * --slurm, `gcbench submit ... --wait`, which runs it as a SLURM batch job) at the times
 * of its --at: `gcbench run` is resumable and takes the sweep lock, so a run that finds
 * the previous one interrupted continues it. Where it goes:
 *   systemd  ROOT/etc/systemd/system/gcbench-NAME.{service,timer}
 *            logs: journalctl -u gcbench-NAME.service
 *   cron     ROOT/etc/cron.d/gcbench-NAME (one line, under flock -n so two starts
 *            never overlap); logs: /var/log/gcbench/NAME.log
 * ROOT is "" for the real system, or a directory (like DESTDIR: files go under it,
 * their contents name the real paths), for tests and packaging.
 *
 * What it runs: `gcbench schedule install` refuses a spec, inventory or database
 * that `gcbench run --dry-run` would refuse (orchestrator/run/validate.h), and a
 * gcbench binary in a build tree (gc_sched_in_build_tree) unless --allow-build-tree.
 *
 * Who it runs as: j->user (`sudo gcbench schedule install` by alice: alice, from
 * SUDO_USER; --user NAME), with that login's HOME and PATH, so the job uses its keys,
 * known_hosts and ~/.ssh/config, never root's; the cron log file is made the user's.
 *
 * Injection: every path and the tag must be absolute/safe tokens (gc_is_safe_token)
 * without '%' (a specifier in systemd, a newline in cron); the name is [A-Za-z0-9_-].
 * Anything else is refused with a message, never escaped into a unit file.
 */
#ifndef GC_SCHEDULE_H
#define GC_SCHEDULE_H

#include <stddef.h>

#include "result.h"

/* A parsed --at: the systemd OnCalendar= value and the 5 cron fields. */
typedef struct gc_sched_at {
	char oncalendar[512];
	char cron[256];
} gc_sched_at;

/* Parse --at, strictly: "hourly", "daily HH:MM", "weekly Mon HH:MM" (Mon..Sun), or
 * a 5-field cron expression (minute hour day-of-month month day-of-week; each field
 * '*', numbers, names jan..dec / sun..sat, ranges a-b, steps /n, lists). Refuses
 * (GC_E_INVAL, message in e naming the field and value) anything else, including a
 * day-of-month AND a day-of-week restriction together (cron ORs them, systemd ANDs). */
gc_rc gc_sched_parse_at(const char *at, gc_sched_at *out, gc_err *e);

typedef enum gc_sched_backend {
	GC_SCHED_AUTO, GC_SCHED_SYSTEMD, GC_SCHED_CRON
} gc_sched_backend;

/* systemd when ROOT/run/systemd/system exists (sd_booted()), else cron. */
gc_sched_backend gc_sched_detect(const char *root);
const char *gc_sched_backend_name(gc_sched_backend b);   /* "systemd", "cron" */

/* A job. All strings borrowed. Paths absolute. tag and env_file may be NULL. */
typedef struct gc_sched_job {
	const char *name;       /* [A-Za-z0-9_-]{1,64} */
	const char *at;         /* as given; parsed with gc_sched_parse_at */
	const char *gcbench;    /* the gcbench binary */
	const char *spec, *inventory, *db, *workdir;
	const char *tag;        /* passed as --tag */
	const char *env_file;   /* KEY=value lines (hook URLs): systemd EnvironmentFile=,
				   sourced by the cron line */
	const char *user;       /* who the job runs as: systemd User=, the cron.d user
				   field (NULL: root) */
	/* --slurm: the job runs `gcbench submit SPEC --nodes N [--partition P] [--time T]
	 * [--gpus-per-node G] --inventory INV --db DB [--tag TAG] --wait` instead of
	 * `gcbench run`: the sweep runs in a SLURM batch job, the nightly job waits for it
	 * and ends with the sweep's status. slurm_nodes 0: not a SLURM job. The values
	 * are checked by the caller (gc_slurm_submit_options_check) and again here as
	 * tokens. */
	int slurm_nodes, slurm_gpus_per_node;   /* gpus 0: not asked */
	const char *slurm_partition, *slurm_time;   /* NULL: the site's default */
	const char *home, *path;  /* its HOME and PATH (NULL: none set; systemd
				   Environment=, cron.d variables) */
} gc_sched_job;

/* Check every field of j (messages name the field and say what to do). */
gc_rc gc_sched_job_check(const gc_sched_job *j, gc_err *e);

/* The texts that install writes (malloc'ed, caller frees). */
gc_rc gc_sched_systemd_texts(const gc_sched_job *j, char **service, char **timer,
			     gc_err *e);
gc_rc gc_sched_cron_text(const gc_sched_job *j, char **text, gc_err *e);

/* Write the job's files under root (directories created). Refuses (GC_E_BUSY) a name
 * already installed unless replace. Files are written to a temporary name, then
 * renamed. Does not run systemctl: see cmd_schedule.c. */
gc_rc gc_sched_install(const gc_sched_job *j, const char *root, gc_sched_backend b,
		       int replace, gc_err *e);

/* One installed job, as gc_sched_list reports it. */
typedef struct gc_sched_entry {
	char name[80];
	char backend[16];
	char at[128];
	char command[1024];
	char file[1024];
} gc_sched_entry;

/* Call fn for every job installed under root (both backends), sorted by name. */
gc_rc gc_sched_list(const char *root, void (*fn)(const gc_sched_entry *en, void *arg),
		    void *arg, gc_err *e);

/* Remove the job's files under root. GC_E_NOTFOUND when none. *b gets the backend
 * that held it (may be NULL). */
gc_rc gc_sched_remove(const char *root, const char *name, gc_sched_backend *b, gc_err *e);

/* 1 if s is a valid job name. */
int gc_sched_name_ok(const char *s);

/* 1 when the binary exe sits in a gcbench build tree (ROOT/BUILD/bin/gcbench, with
 * ROOT/Makefile and ROOT/orchestrator/), which the next 'make clean' removes and the
 * next build replaces under the schedule; *root gets ROOT. A schedule should run an
 * installed gcbench ('make install', PREFIX/bin). */
int gc_sched_in_build_tree(const char *exe, char *root, size_t n);

#endif

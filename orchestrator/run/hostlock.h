/* orchestrator/run/hostlock.h: the lock on the hosts a sweep shapes (docs/spec.md,
 * "Who holds a host").
 *
 * Each host holds its own lock: the file GC_HOSTLOCK_DIR/host@INODE on the host (INODE:
 * its network namespace's, so nodes that share one file system still have one each),
 * which a holder process keeps under flock(2) and in which it writes who holds it (an
 * owner record, below). The holder is a small POSIX shell script that `gcbench run`
 * starts on every host over ssh before it changes anything; it prints "locked" and
 * then reads its stdin until end of file. When the controller ends (also by SIGKILL)
 * its ssh sees end of file on its stdin, the holder exits and the kernel drops the
 * flock: a lock whose owner is gone is free by construction. Hosts are locked all at
 * once without waiting; when one is held, every lock taken is given back and the run
 * stops with the owner's description (GC_E_BUSY). Every login, root or not, locks in
 * GC_HOSTLOCK_DIR (1777, made by the package's tmpfiles.d or by the first login; the
 * file 0666), so alice and bob see each other's locks; only where that directory
 * cannot be made does a login lock in its own ~/.cache/gcbench/hostlock.
 *
 * The owner record is text, one "key=value" a line (# comments allowed):
 *   version=1, controller (host name), user, home (GCBENCH_HOME), inventory, spec,
 *   db, pid (of gcbench run), machine, boot, pidns, start (which process pid is),
 *   and, written by the holder, since (seconds since the epoch) and holder (its pid)
 * Values are printable (no control characters) and short; unknown keys are ignored.
 */
#ifndef GC_HOSTLOCK_H
#define GC_HOSTLOCK_H

#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "orchestrator/remote/nodes.h"
#include "result.h"

#define GC_HOSTLOCK_DIR "/run/lock/gcbench"       /* netem/policy.h reads it too */
#define GC_HOSTLOCK_OLD_DIR "/run/gcbench/hostlock"  /* before 2026-12: root's only */

struct gc_hostlock_owner {
	char controller[128];
	char user[64];
	char home[512];
	char inventory[512];
	char spec[512];
	char db[512];
	long long pid;
	long long since;       /* 0: not written yet (a record about to be sent) */
	/* which process pid is: its machine (/etc/machine-id), boot (boot_id), pid
	 * namespace inode and start time (clock ticks after boot); "" or 0 when unknown */
	char machine[64];
	char boot[64];
	long long pidns;
	long long start;
	long long holder;      /* the holder's pid on the host (written by the holder) */
};

/* This process as an owner: host name, login, gc_home(), pid; the three paths as
 * given (NULL: "-"). Control characters become '?'; long values are cut. */
void gc_hostlock_owner_self(struct gc_hostlock_owner *o, const char *inventory,
			    const char *spec, const char *db);

/* 1 when o's gcbench run is provably gone: it ran on this machine, in this boot and
 * pid namespace, and its pid is not running or is another process now. 0 otherwise
 * (another machine, or not known: then it is not taken over). */
int gc_hostlock_owner_gone(const struct gc_hostlock_owner *o);

/* The record text of o (without since when o->since is 0), into buf; the number of
 * bytes it needs (like snprintf). */
int gc_hostlock_owner_format(const struct gc_hostlock_owner *o, char *buf, size_t n);

/* Parse a record. GC_E_FORMAT when it is not one; e then says what is wrong by line
 * number and key, never quoting the text. */
gc_rc gc_hostlock_owner_parse(const char *text, struct gc_hostlock_owner *o, gc_err *e);

/* For people: "user 'root' on 'ctl' (gcbench run pid 812, since 2026-12-04 05:30:00 UTC,
 * 12 min ago; GCBENCH_HOME /x, inventory /y, spec /z, database /w)". */
void gc_hostlock_owner_describe(const struct gc_hostlock_owner *o, time_t now, char *buf,
				size_t n);

/* The holders of a sweep, one per node (the ssh processes on this side). */
struct gc_hostlocks {
	size_t n;
	pid_t *pid;            /* ssh, in a process group of its own */
	int *in;               /* its stdin (close: the holder ends) */
	int *out;              /* its stdout and stderr */
};

/* Lock every node for the owner me (its since is ignored). GC_OK: all are held until
 * gc_hostlock_release. GC_E_BUSY: a node is held by someone else; e names the node and
 * describes the owner, and nothing is held. GC_E_COMM: a node could not be reached;
 * GC_E_UNSUPPORTED/GC_E_IO: a node cannot hold the lock (no flock(1), no /tmp);
 * GC_E_INTERRUPTED. */
gc_rc gc_hostlock_acquire(gc_node *nodes, size_t n, const struct gc_hostlock_owner *me,
			  struct gc_hostlocks *hl, gc_err *e);

/* Give every lock back and wait (a few seconds at most) until the holders ended;
 * accepts an empty or released hl. */
void gc_hostlock_release(struct gc_hostlocks *hl);

/* The local emulated cluster, from this machine: whether the node whose network
 * namespace is /var/run/netns/NETNS is locked now. 1: it is; *o is its owner when
 * *readable is 1 (its record could be parsed). 0: it is not (or no such namespace). */
int gc_hostlock_probe_netns(const char *netns, struct gc_hostlock_owner *o, int *readable);

/* Before the local cluster NAME is brought up or rebuilt: GC_E_BUSY, describing the
 * owner, when any of its nodes (its network namespaces, whoever's GCBENCH_HOME made
 * them) is locked; GC_OK when none is, or there is no such cluster. */
gc_rc gc_hostlock_check_cluster(const char *name, gc_err *e);

#endif

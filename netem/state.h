/* netem/state.h: the state file that lets gcbench undo a cap (see shape.h).
 *
 * One file per link, <dir>/<netns or "-">_<dev>.state, lines of key=value, written to
 * a temporary file and renamed (atomic). Internal to netem/.
 */
#ifndef GC_NETEM_STATE_H
#define GC_NETEM_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "result.h"

struct gc_netem_state {
	char dev[16];
	char netns[65];          /* "" for the caller's namespace */
	char orig_kind[16];      /* the root qdisc before gcbench ("noqueue"...) */
	uint32_t orig_handle;    /* 0: the kernel's default */
	pid_t owner;
	unsigned long long owner_start;  /* /proc/<pid>/stat starttime, against pid reuse */
	char kind[8];            /* what gcbench installed at the root: tbf, htb or netem */
	uint64_t rate_bps;       /* 0 for netem alone */
	uint32_t burst;
	uint32_t delay_us;       /* netem delay (0: none; written only when set) */
};

/* The path of the state file for (dev, netns) into buf (size n). */
/* "@<inode of /proc/self/ns/net>": the key of the caller's own namespace in state
 * file names (namespaces share /run). */
void gc_state_self_ns(char *buf, size_t n);

gc_rc gc_state_path(const char *dev, const char *netns, char *buf, size_t n, gc_err *e);

/* Write st atomically (creating the directory, mode 0700). */
gc_rc gc_state_write(const struct gc_netem_state *st, gc_err *e);

/* Read the file at path into st. GC_E_NOTFOUND when absent, GC_E_FORMAT when
 * malformed (the message names the file and line). */
gc_rc gc_state_read(const char *path, struct gc_netem_state *st, gc_err *e);

/* 1 when the owner recorded in st still runs (same pid and start time). */
int gc_state_owner_alive(const struct gc_netem_state *st);

#endif

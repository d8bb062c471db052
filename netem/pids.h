/* netem/pids.h: processes by pid, seen through /proc: who they are (command line,
 * start time) and ending them (every process in a namespace, or whose command line
 * holds a string). Not a runner: child processes go through common/proc.h.
 */
#ifndef GC_NETEM_PIDS_H
#define GC_NETEM_PIDS_H

#include <stddef.h>
#include <sys/types.h>

/* Read /proc/PID/FILE ("stat", "cmdline") into buf (size n >= 2), NUL-terminated.
 * Returns the bytes read (> 0), or -1 when the process or file is gone or empty. */
ssize_t gc_pid_read(pid_t pid, const char *file, char *buf, size_t n);

/* The start time of pid (field 22 of /proc/pid/stat), 0 when the process is gone
 * (a zombie counts as gone). */
unsigned long long gc_proc_start_time(pid_t pid);

/* 1 when pid runs and its /proc/pid/cmdline (arguments joined by spaces) contains
 * needle. */
int gc_pid_matches(pid_t pid, const char *needle);

/* Send SIGTERM, then after up to 2 s SIGKILL, to every process whose network
 * namespace is /var/run/netns/NAME. Returns how many were signalled. */
int gc_netns_kill_all(const char *name);

/* SIGTERM, then after up to 2 s SIGKILL, every process (but this one) whose command
 * line contains needle. Returns how many were signalled. */
int gc_kill_matching(const char *needle);

#endif

/* netem/proc.h: child processes for the cluster: run a program from an argv array
 * (never a shell string), with a deadline, and end every process in a namespace.
 */
#ifndef GC_NETEM_PROC_H
#define GC_NETEM_PROC_H

#include <sys/types.h>

#include "result.h"

/* Run argv[0] (a path, or a name looked up in PATH) with argv, stdin from /dev/null,
 * stdout discarded, stderr captured. Kills it after timeout_s. GC_OK on exit status 0;
 * else GC_E_CHILD with the command and the last line of its stderr in e. */
gc_rc gc_run(const char *const argv[], int timeout_s, gc_err *e);

/* Send SIGTERM, then after up to 2 s SIGKILL, to every process whose network
 * namespace is /var/run/netns/NAME. Returns how many were signalled. */
int gc_netns_kill_all(const char *name);

/* SIGTERM, then after up to 2 s SIGKILL, every process (but this one) whose command
 * line contains needle. Returns how many were signalled. */
int gc_kill_matching(const char *needle);

/* 1 when pid runs and its /proc/pid/cmdline contains needle. */
int gc_pid_matches(pid_t pid, const char *needle);

#endif

/* netem/play.h: the trace player, one process per host that plays a bandwidth trace
 * (netem/trace.h) on one link by changing its cap in place (gc_shape_link_rate).
 *
 * gc_play_run, in order:
 *   1. sets the cap (gc_shape_set) at the trace's highest rate, owned by this process,
 *      so that 'gcbench-netem restore-all' undoes it if the player is killed (SIGKILL),
 *      as an htb class at any rate: a tbf's change refills its bucket, one burst
 *      (rate x 4 ms) more per change, 4% above the trace at 10 changes a second;
 *      an htb class keeps its tokens;
 *   2. waits for the start instant (CLOCK_REALTIME: every host given the same instant
 *      starts together, as far as their clocks agree), puts the rate of the trace's
 *      first step in place and notes how late that was (start_lag_us);
 *   3. changes the rate at each of the trace's times (the trace repeats), sleeping
 *      until the next one (clock_nanosleep, absolute), and at each whole second after
 *      the start reads the qdisc's counters and writes one JSON line to out:
 *        {"window":K,"t_s":K+1,"phase_s":P,"trace_mean_bps":M,"rate_bps":R,
 *         "sent_bytes":B,"achieved_bps":A,"drops":D}
 *      (the trace's time-weighted mean over the window [K, K+1) s, the rate the kernel
 *      holds at its end (read before a change due then), the bytes the qdisc sent in
 *      the window with layer-2 headers, 8 B / the window's measured length, and the
 *      packets dropped in it); a player stopped for longer (SIGSTOP, a stalled host)
 *      jumps to the step and window in force when it runs again, so the window
 *      written then spans the stop and the ones missed are not written;
 *   4. stops at the deadline (duration_s after the start), when *stop becomes nonzero
 *      (a signal handler), when the owner process is gone, or on an error, and on
 *      every one of these paths clears the cap (gc_shape_clear) before returning;
 *      and stops at once, leaving the link alone, when another set or clear replaced
 *      its state file ("taken", "cleared": the next sweep of a controller that was
 *      killed took the link, so a stale player never fights a new cap);
 *   5. writes a last line {"summary":1,...} (the fields of struct gc_play_result).
 * Needs CAP_NET_ADMIN; stays in one thread. Errors: those of gc_shape_set /
 * gc_shape_link_*, GC_E_INVAL for options; a stop by *stop or the owner is GC_OK with
 * the reason in result->stopped. */
#ifndef GC_NETEM_PLAY_H
#define GC_NETEM_PLAY_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "result.h"
#include "trace.h"

#define GC_PLAY_MAX_DURATION_S (7 * 86400.0)

struct gc_play_opts {
	const char *dev, *netns;
	const struct gc_trace *trace;
	double start_s;                   /* CLOCK_REALTIME seconds; 0 or past: now */
	double duration_s;                /* (0, GC_PLAY_MAX_DURATION_S] from the start */
	pid_t owner;                      /* stop once this process is gone; 0: none */
	FILE *out;                        /* the JSON lines; NULL: none */
	volatile sig_atomic_t *stop;      /* may be NULL */
};

struct gc_play_result {
	uint64_t changes;        /* netlink changes made (steps whose rate differs) */
	uint64_t windows;        /* 1-s windows written */
	int64_t start_lag_us;    /* first rate in place, after the asked start instant */
	int64_t late_max_us;     /* the latest change, after its scheduled time */
	double late_mean_us;
	double cpu_pct;          /* this process's user + system CPU over its wall time */
	double wall_s;
	const char *stopped;     /* "deadline", "signal", "owner", "taken", "cleared",
				    "error" */
};

gc_rc gc_play_run(const struct gc_play_opts *o, struct gc_play_result *r, gc_err *e);

#endif

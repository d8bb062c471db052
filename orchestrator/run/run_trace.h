/* orchestrator/run/run_trace.h: a point's bandwidth trace (bandwidth: trace:FILE,
 * docs/spec.md "Traces in a run") played on its hosts.
 *
 * gc_run_trace_start starts `gcbench-netem play` in the background on every used host
 * (through sudo -n where the inventory says so), on the host's link, with the trace the
 * build shipped (files/trace-DIGEST.txt beside the binaries, gc_spec_trace_file), one
 * shared --start instant 0.5 s + 0.2 s a host after now (the controller's clock) and
 * --duration the point's timeout (the player outlives the point by nothing); it then
 * waits for that instant, so the workers start under the trace. Each player writes its
 * per-second lines to play.out in the point's folder on its host. The player sets the
 * cap itself (its own state, owned by the player: restore-all undoes it after SIGKILL).
 * Each host's player runs under a keeper: the remote shell that started it, held open
 * by the controller (a local ssh or srun child whose stdin is a pipe) and given to the
 * player as --owner. The keeper ends when its stdin closes, that is when the controller
 * ends it or dies (even by SIGKILL), and the player then stops and restores the link.
 *
 * gc_run_trace_stop ends them (SIGTERM to all, then waits for each; a player started through sudo, which the user
 * may not signal, is stopped by clearing its link: gcbench-netem clear, which it obeys
 * at once), reads every host's lines and stores in runs.network_json "trace":
 *   {"name","digest","mean_bps","period_s","start_s","duration_s",
 *    "start_spread_us": the largest minus the smallest start_lag_us of the players'
 *    summaries (null unless every host wrote one),
 *    "hosts": {"HOST": [the player's JSON lines: one per 1-s window, then its summary]}}
 * A window's t_s is seconds after start_s, so an iteration at wall time T ran under the
 * window floor(T - start_s) (records do not carry T yet). Always call stop after a
 * start, even a failed one. */
#ifndef GC_RUN_TRACE_H
#define GC_RUN_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "keeper.h"
#include "placement.h"
#include "sweep_ctx.h"

struct gc_trace_run {
	double start_s;       /* the players' shared start (epoch seconds) */
	double duration_s;
	size_t started;       /* hosts whose player was started (the first ones) */
	struct gc_keeper keeper[GC_PLACE_MAX_HOSTS];   /* each host's (keeper.h) */
};

gc_rc gc_run_trace_start(struct gc_sweep_ctx *c, int64_t run_id, size_t used,
			 const struct gc_exec_point *p, struct gc_trace_run *t, gc_err *e);
void gc_run_trace_stop(struct gc_sweep_ctx *c, int64_t run_id, const struct gc_exec_point *p,
		       struct gc_trace_run *t);

#endif

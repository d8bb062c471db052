/* orchestrator/run/run_bg.h: a point's background flows (background: in the spec,
 * docs/spec.md "Cross traffic"): bulk TCP flows that compete with the ranks' traffic.
 *
 * Pairs: the spec's pairs:, else each used host to the next one in the ranks' ring
 * order (host i to host i+1 of the used hosts, the last to the first). Each pair runs
 * `flows` bulk TCP flows from its sender to its receiver's address on the data
 * interface, so they leave through the same cap as the ranks' traffic. The tool is
 * iperf3 where both ends have it (pattern constant), else gcbench-probe (spec tool:
 * forces one); pair k's server listens on port GC_BG_PORT + k.
 *
 * gc_run_bg_start (after calibration, which measures the clean link) starts on every
 * host with a role a keeper (keeper.h): a remote shell that starts the host's servers,
 * says "started", and on the controller's "go" (once every host's servers listen)
 * starts its clients, whose duration is the point's timeout. Every flow process carries
 * the run's reap mark (OMPI_MCA_gcbench_run=RUN, orchestrator/remote/reap.h) and its pid
 * goes to bg.spids / bg.cpids in the point's folder. Ends, each stopping them all:
 *   - gc_run_bg_stop at the point's end (ok, failed or SIGINT): SIGTERM to the clients,
 *     which then report their goodput (gcbench-probe: the receiver's count; iperf3:
 *     its JSON), up to 12 s, then SIGKILL; then the servers; then every pid is checked
 *     gone (a zombie counts as gone), and the outputs are read;
 *   - the controller's death, even by SIGKILL: the keeper's input ends and it kills
 *     its flows (SIGTERM, SIGKILL a second later);
 *   - `gcbench reap` (every sweep's first point, and after a failed point): the mark.
 * Stored in runs.network_json "background" (gc_run_bg_json at the run's start, the full
 * record at the end):
 *   {"flows","pattern","on_s","off_s","queue","share","pairs":[{"from","to","tool",
 *    "port","goodput_bps"}],"goodput_bps","left"}
 * queue is the spec's ("fair" or "fifo"): how the shape step caps a sending host
 * (gc_run_bg_sent; docs/netem.md, "Background flows").
 * share is the model's (gc_model_bg_share) for the host with the most competing flows;
 * goodput_bps per pair is its flows' mean over their life (null when unknown), the
 * top-level one their sum; left counts flow processes still alive after the stop
 * (0 when all went). Always call stop after a start, even a failed one. */
#ifndef GC_RUN_BG_H
#define GC_RUN_BG_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"
#include "keeper.h"
#include "placement.h"
#include "sweep_ctx.h"

#define GC_BG_PORT 5310

struct gc_bg_pair_run {
	size_t from, to;          /* indices into the sweep's nodes */
	int iperf;                /* 1: iperf3, 0: gcbench-probe */
	double goodput_bps;       /* -1: unknown */
};

struct gc_bg_run {
	size_t used;              /* the point's used hosts */
	size_t n_pairs;
	struct gc_bg_pair_run pair[GC_SPEC_BG_MAX_PAIRS];
	size_t n_hosts;           /* keepers tried: the used hosts, in order */
	struct gc_keeper keeper[GC_PLACE_MAX_HOSTS];
	int left;                 /* flow processes found alive after the stop */
};

/* net (a JSON object, owned) with "background":{flows, pattern, on_s, off_s, share,
 * pairs} added when the spec has background flows; net itself otherwise; NULL when
 * out of memory (net freed). */
char *gc_run_bg_json(char *net, const struct gc_sweep_ctx *c, const struct gc_spec *s,
		     size_t used);

/* The point's pairs (as start resolves them) in *n_pairs, and in sent[i] (i < used) the
 * background flows host i sends: flows x the pairs it sends, 0 for none (all 0 without
 * background). The shape step gives a host with sent[i] > 0 a class for the ranks and
 * one for pairs' ports GC_BG_PORT .. GC_BG_PORT + *n_pairs - 1 under its cap (queue:
 * fair). GC_E_INVAL as start when a pair names a host the point does not use. */
gc_rc gc_run_bg_sent(const struct gc_sweep_ctx *c, const struct gc_spec *s, size_t used,
		     int *sent, size_t *n_pairs, gc_err *e);

gc_rc gc_run_bg_start(struct gc_sweep_ctx *c, int64_t run_id, size_t used,
		      const struct gc_exec_point *p, struct gc_bg_run *b, gc_err *e);
void gc_run_bg_stop(struct gc_sweep_ctx *c, int64_t run_id, const struct gc_exec_point *p,
		    struct gc_bg_run *b);

/* Read one host's stop output (out is modified, then restored): each "alive=PID" line
 * adds 1 to b->left; each "== bg-cPORT.out" section (up to the next one) is the client
 * output of pair PORT - GC_BG_PORT (ignored when that is not a pair of b), whose goodput
 * goes to that pair: gcbench-probe's goodput_bps=, or iperf3's JSON "sum_received"
 * bits_per_second, its "sum_sent" when that is missing or 0; -1 when none parses. */
void gc_run_bg_read_stop(char *out, struct gc_bg_run *b);

#endif

/* worker/wk_exchange.h: one bucket's exchange (encode -> rounds -> decode) and its
 * timing, on the clock of whatever runs the work.
 *
 * Host back ends (MPI) time each span with the host clock around calls that complete
 * before they return. Device back ends (NCCL) queue the compressor's kernels on their
 * communication stream, which first waits (asynchronously) for the bucket's gradients
 * from the compute stream: a host clock started before that wait would count the rest
 * of the emulated backward as encode time. There every span is two timing events
 * recorded on the communication stream around the work (c->tmark), read after the
 * stream has drained (c->tspan). MPI-free: unit tests drive it with a stub back end. */
#ifndef GC_WK_EXCHANGE_H
#define GC_WK_EXCHANGE_H

#include <stdint.h>

#include "wk_run.h"

/* Timing event slots of one bucket exchange (c->tmark / c->tspan). */
enum { GC_WK_T_ENC0, GC_WK_T_ENC1, GC_WK_T_RD0, GC_WK_T_RD1, GC_WK_T_DEC0, GC_WK_T_DEC1,
       GC_WK_T_SLOTS };

/* What one exchange adds up: nanoseconds of encode (round_done's work included),
 * collectives and decode; bytes sent and received. */
typedef struct gc_wk_xfig {
	uint64_t enc_ns, dec_ns, comm_ns, sent, recv;
} gc_wk_xfig;

/* Exchange bucket i of c: wait for its gradients (c->wait_mark), encode grad, run every
 * round with c->run, decode into avg; add the figures to *f. Returns non-zero with the
 * reason in e. */
gc_rc gc_wk_exchange(gc_wk_comm *c, gc_bucket *bk, int i, const float *grad, float *avg,
		     gc_wk_xfig *f, gc_err *e);

#endif

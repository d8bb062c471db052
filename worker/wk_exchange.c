/* worker/wk_exchange.c: one bucket's exchange and its timing (see wk_exchange.h). */
#include "wk_exchange.h"

#include "timing.h"

/* A span of work on the communication thread: the host clock, or c's timing events. */
typedef struct span {
	int a;              /* the start slot (device) */
	uint64_t t0;        /* the start (host) */
} span;

static gc_rc span_begin(gc_wk_comm *c, span *sp, int slot)
{
	sp->a = slot;
	sp->t0 = gc_now_ns();
	return c->tmark ? c->tmark(c, slot) : GC_OK;
}

/* End the span at slot b once its work is queued: wait for the stream (c->flush), then
 * add its length to *acc. */
static gc_rc span_end(gc_wk_comm *c, span *sp, int b, uint64_t *acc)
{
	uint64_t ns = 0;
	gc_rc rc = c->tmark ? c->tmark(c, b) : GC_OK;
	if (!rc && c->flush)
		rc = c->flush(c);
	if (rc)
		return rc;
	if (!c->tmark) {
		*acc += gc_now_ns() - sp->t0;
		return GC_OK;
	}
	rc = c->tspan(c, sp->a, b, &ns);
	if (!rc)
		*acc += ns;
	return rc;
}

static gc_rc exchange_rounds(gc_wk_comm *c, gc_bucket *bk, int i, gc_wk_xfig *f, gc_err *e)
{
	gc_round r;
	gc_rc rc;
	span sp;
	while (gc_round_get(bk, &r)) {
		uint64_t t0 = gc_now_ns(), snt, rcv;
		rc = c->run(c, &r, i, e);
		if (rc)
			return rc;
		f->comm_ns += gc_now_ns() - t0;
		gc_wk_round_bytes(r.coll, r.dtype, r.count, c->world, &snt, &rcv);
		f->sent += snt, f->recv += rcv;
		/* a device back end queues round_done's work (PowerSGD: orthogonalization, Q
		 * products): it counts as encode, and span_end waits for it, or the next
		 * round's t_comm would hold it */
		rc = span_begin(c, &sp, GC_WK_T_RD0);
		if (!rc)
			rc = gc_round_done(bk);
		if (!rc)
			rc = span_end(c, &sp, GC_WK_T_RD1, &f->enc_ns);
		if (rc)
			return gc_fail(e, rc, "round_done of bucket %d: %s", i, gc_strerror(rc));
	}
	return GC_OK;
}

gc_rc gc_wk_exchange(gc_wk_comm *c, gc_bucket *bk, int i, const float *grad, float *avg,
		     gc_wk_xfig *f, gc_err *e)
{
	gc_rc rc;
	span sp;
	/* the wait for the gradients first: on a device it only queues the wait, and the
	 * encode's span starts on the stream behind it */
	if (c->wait_mark && (rc = c->wait_mark(c, i)))
		return gc_fail(e, rc, "waiting for the gradients of bucket %d failed", i);
	rc = span_begin(c, &sp, GC_WK_T_ENC0);
	if (!rc)
		rc = gc_encode(bk, grad);
	if (!rc)
		rc = span_end(c, &sp, GC_WK_T_ENC1, &f->enc_ns);
	if (rc)
		return gc_fail(e, rc, "encode of bucket %d: %s", i, gc_strerror(rc));
	rc = exchange_rounds(c, bk, i, f, e);
	if (rc)
		return rc;
	rc = span_begin(c, &sp, GC_WK_T_DEC0);
	if (!rc)
		rc = gc_decode(bk, avg);
	if (!rc)
		rc = span_end(c, &sp, GC_WK_T_DEC1, &f->dec_ns);
	if (rc)
		return gc_fail(e, rc, "decode of bucket %d: %s", i, gc_strerror(rc));
	return GC_OK;
}

/* tests/unit/test_wk_exchange.c: one bucket's exchange and its timing
 * (worker/wk_exchange.c) against stub back ends of world size 1, no MPI and no GPU:
 *   - a host back end whose wait for the gradients blocks: t_encode excludes the wait;
 *   - a device-like back end (a virtual stream on the host clock): the wait for the
 *     gradients is only queued (40 ms of backward still to run), encode and decode are
 *     timed by events on that stream, so t_encode is not the rest of the backward;
 *   - a timing event that fails is reported, with the bucket. */
#include "harness.h"

#include <string.h>
#include <time.h>

#include "timing.h"
#include "worker/wk_exchange.h"

#define WAIT_NS 40000000ull    /* the backward still to run when the bucket is taken */
#define RUN_NS 3000000ull      /* one collective */

/* The stub: a stream is a time on the host clock at which its queued work completes. */
typedef struct stub {
	int device;                /* 1: waits are queued, spans are events */
	uint64_t busy;             /* the stream completes its queued work at this time */
	uint64_t ev[GC_WK_T_SLOTS];
	int nwait, nrun, fail_mark;
} stub;
static stub st;

static void sleep_ns(uint64_t ns)
{
	gc_sleep_until_ns(gc_now_ns() + ns);
}

static gc_rc s_wait_mark(gc_wk_comm *c, int bucket)
{
	uint64_t t = gc_now_ns() + WAIT_NS;
	st.nwait++;
	if (!st.device)
		sleep_ns(WAIT_NS);                       /* a host wait blocks */
	else if (st.busy < t)
		st.busy = t;                             /* a device wait is queued */
	return GC_OK;
}

static gc_rc s_run(gc_wk_comm *c, const gc_round *r, int bucket, gc_err *e)
{
	size_t n = r->count * gc_dtype_size(r->dtype);
	if (r->recv != r->send)
		memmove(r->recv, r->send, n);            /* world 1: the sum is the input */
	st.nrun++;
	sleep_ns(RUN_NS);
	return GC_OK;
}

static gc_rc s_flush(gc_wk_comm *c)
{
	gc_sleep_until_ns(st.busy);
	return GC_OK;
}

static gc_rc s_tmark(gc_wk_comm *c, int slot)
{
	uint64_t now = gc_now_ns();
	if (st.fail_mark)
		return GC_E_CUDA;
	st.ev[slot] = st.busy > now ? st.busy : now; /* completes when the stream gets there */
	st.busy = st.ev[slot];
	return GC_OK;
}

static gc_rc s_tspan(gc_wk_comm *c, int a, int b, uint64_t *ns)
{
	*ns = st.ev[b] - st.ev[a];
	return GC_OK;
}

static void s_abort(gc_wk_comm *c, int code)
{
}

static void comm_init(gc_wk_comm *c, int device)
{
	memset(c, 0, sizeof(*c));
	memset(&st, 0, sizeof(st));
	st.device = device;
	c->name = "stub", c->world = 1, c->deadline = 10, c->run = s_run, c->abort = s_abort;
	c->wait_mark = s_wait_mark;
	if (device)
		c->flush = s_flush, c->tmark = s_tmark, c->tspan = s_tspan;
}

/* One exchange of a 4096-element bucket of method m; the figures in *f. */
static gc_rc exchange(gc_wk_comm *c, gc_method m, gc_wk_xfig *f, gc_err *e)
{
	static float g[4096], avg[4096];
	gc_tensor_desc t = { 64, 64, 2 };
	gc_params p;
	gc_bucket *b = NULL;
	gc_rc rc;
	for (int i = 0; i < 4096; i++)
		g[i] = (float)((i * 37) % 101) - 50.0f;
	gc_params_default(&p, m);
	memset(f, 0, sizeof(*f));
	rc = gc_bucket_new(&b, &p, GC_BACKEND_CPU, NULL, &t, 1, 1, 0, e);
	if (!rc)
		rc = gc_wk_exchange(c, b, 3, g, avg, f, e);
	gc_bucket_free(b);
	return rc;
}

static void test_host_wait_not_encode(void)
{
	gc_wk_comm c;
	gc_wk_xfig f;
	gc_err e = { "" };
	comm_init(&c, 0);
	CHECKF(exchange(&c, GC_M_SYNCSGD, &f, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(st.nwait, 1);
	CHECK_EQ_INT(st.nrun, 1);
	CHECKF(f.enc_ns < WAIT_NS / 2, "t_encode %.1f ms holds the 40 ms wait", f.enc_ns * 1e-6);
	CHECKF(f.comm_ns >= RUN_NS, "t_comm %.1f ms, want >= 3 ms", f.comm_ns * 1e-6);
	{
		uint64_t snt, rcv;
		gc_wk_round_bytes(GC_COLL_ALLREDUCE, GC_DT_F32, 4096, 1, &snt, &rcv);
		CHECK(f.sent == snt && f.recv == rcv);
	}
}

static void test_device_events_exclude_backward(void)
{
	gc_wk_comm c;
	gc_wk_xfig f;
	gc_err e = { "" };
	uint64_t t0 = gc_now_ns(), wall;
	comm_init(&c, 1);
	CHECKF(exchange(&c, GC_M_POWERSGD, &f, &e) == GC_OK, "%s", e.msg);
	wall = gc_now_ns() - t0;
	CHECKF(wall >= WAIT_NS, "the stub's queued wait did not happen (%.1f ms)", wall * 1e-6);
	CHECKF(st.nrun >= 1, "no collective ran");
	CHECKF(f.enc_ns < WAIT_NS / 2, "t_encode %.1f ms holds the queued wait for the gradients (40 ms)",
	       f.enc_ns * 1e-6);
	CHECKF(f.dec_ns < WAIT_NS / 2, "t_decode %.1f ms", f.dec_ns * 1e-6);
	CHECKF(f.comm_ns >= RUN_NS * (uint64_t)st.nrun, "t_comm %.1f ms for %d rounds", f.comm_ns * 1e-6,
	       st.nrun);
}

static void test_event_failure_reported(void)
{
	gc_wk_comm c;
	gc_wk_xfig f;
	gc_err e = { "" };
	comm_init(&c, 1);
	st.fail_mark = 1;
	CHECK_EQ_INT(exchange(&c, GC_M_SYNCSGD, &f, &e), GC_E_CUDA);
	CHECK_CONTAINS(e.msg, "encode of bucket 3");
}

int main(void)
{
	GCT_SUITE("wk_exchange");
	GCT_RUN(test_host_wait_not_encode);
	GCT_RUN(test_device_events_exclude_backward);
	GCT_RUN(test_event_failure_reported);
	return gct_finish();
}

/* worker/wk_train.c: the training loop and its communication thread.
 *
 * The main thread runs forward and backward (emulated by sleeping to absolute
 * deadlines, or a real model: wk_mlp.c, wk_cnn.c) and posts a bucket as soon as its last tensor's gradient
 * exists; the communication thread, the only thread that calls MPI during the run,
 * takes posted buckets in order and runs encode -> rounds -> decode for each. With
 * --no-overlap every bucket is posted once backward has finished. Every buffer is
 * allocated before the first iteration; records stay in memory. */
#include "wk_run.h"
#include "wk_fill.h"
#include "wk_mem.h"

#include <cblas.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fnv.h"
#include "log.h"
#include "strutil.h"
#include "timing.h"
#include "formats/arch.h"
#include "wk_data.h"
#include "wk_exchange.h"

typedef struct wk_state {
	const gc_wk_cfg *cfg;
	gc_wk_comm *comm;
	gc_wk_layout lay;
	gc_bucket **bk;
	float *grad, *avg, *param;
	float *vel;                    /* momentum's velocity (gc_wk_uses_momentum), else NULL */
	gc_data data;                  /* training workloads: the data set, */
	gc_data_shard shard;           /* this rank's share of it, */
	gc_wk_net net;                 /* and the model */
	int have_net;
	int comm_threads;              /* OpenMP threads of the communication thread */
	pthread_t thr;
	int have_thr;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	size_t posted, done;           /* buckets posted / finished in this iteration */
	int quit;
	/* per-iteration figures, written by the communication thread */
	uint64_t enc_ns, dec_ns, comm_ns, sent, recv, last_done_ns;
} wk_state;

static void post(wk_state *s, size_t nposted)
{
	pthread_mutex_lock(&s->mu);
	if (nposted > s->posted) {
		s->posted = nposted;
		pthread_cond_broadcast(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
}

static gc_rc exchange_bucket(wk_state *s, size_t i, gc_err *e)
{
	const gc_wk_bucket *b = &s->lay.b[i];
	gc_wk_xfig f = { 0 };
	gc_rc rc = gc_wk_exchange(s->comm, s->bk[i], (int)i, s->grad + b->off, s->avg + b->off, &f, e);
	if (rc)
		return rc;
	pthread_mutex_lock(&s->mu);
	s->enc_ns += f.enc_ns, s->comm_ns += f.comm_ns, s->dec_ns += f.dec_ns;
	s->sent += f.sent, s->recv += f.recv;
	s->last_done_ns = gc_now_ns();
	s->done++;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	return GC_OK;
}

/* The kernels run here, and OpenMP's thread count is per thread: a thread started
 * with pthread_create gets the process default (OMP_NUM_THREADS, else every core), not
 * what main set. 4 ranks of 2 spinning OpenMP threads on 2 cores made PowerSGD 3.6x
 * slower (ResNet-50: 0.343 s/iter, 0.094 s with this); so the resolved --threads is set
 * again here, and reported. */
static void *comm_thread(void *arg)
{
	wk_state *s = arg;
	gc_err e = { "" };
	if (s->cfg->threads > 0)
		omp_set_num_threads(s->cfg->threads);
	s->comm_threads = omp_get_max_threads();
	for (;;) {
		size_t i;
		pthread_mutex_lock(&s->mu);
		while (!s->quit && s->done == s->posted)
			pthread_cond_wait(&s->cv, &s->mu);
		i = s->done;
		if (s->quit) {
			pthread_mutex_unlock(&s->mu);
			return NULL;
		}
		pthread_mutex_unlock(&s->mu);
		if (exchange_bucket(s, i, &e)) {
			gc_error("rank %d: the gradient exchange failed: %s; aborting the job",
				 s->comm->rank, e.msg);
			s->comm->abort(s->comm, 3);
		}
	}
}

static gc_rc arch_layout(wk_state *s, gc_err *e)
{
	const gc_wk_cfg *c = s->cfg;
	gc_wk_tensor_in *in = NULL;
	gc_arch a;
	gc_rc rc = gc_arch_build(c->model, &a, e);
	if (rc)
		return rc;
	gc_arch_set_timing(&a, c->batch, c->device_flops, c->compute_scale);
	if (c->profile[0]) {
		rc = gc_arch_load_profile(&a, c->profile, e);
		for (size_t i = 0; !rc && i < a.n; i++)
			a.t[i].t_bwd /= c->compute_scale;
	}
	in = rc ? NULL : calloc(a.n ? a.n : 1, sizeof(*in));
	if (!rc && !in)
		rc = gc_fail(e, GC_E_NOMEM, "out of memory for %zu tensors", a.n);
	for (size_t i = 0; !rc && i < a.n; i++)
		in[i] = (gc_wk_tensor_in){ a.t[i].name, a.t[i].ndim, a.t[i].shape, a.t[i].numel,
					   a.t[i].t_bwd };
	if (!rc)
		rc = gc_wk_layout_build(&s->lay, in, a.n, c->bucket_first_mb * 1048576.0,
					c->bucket_mb * 1048576.0, e);
	free(in);
	gc_arch_release(&a);
	return rc;
}

extern const unsigned char gc_wk_digits_start[], gc_wk_digits_end[];

const void *gc_data_builtin(size_t *len)
{
	*len = (size_t)(gc_wk_digits_end - gc_wk_digits_start);
	return *len ? gc_wk_digits_start : NULL;
}

/* --data: auto (the built-in digits, else generated), digits, generated, or a file.
 * Generated: 64 batches per rank for training, 1000 samples for validation. */
static gc_rc load_data(wk_state *s, gc_err *e)
{
	const char *d = s->cfg->data;
	size_t len;
	const void *blob = gc_data_builtin(&len);
	if (!strcmp(d, "generated") || (!strcmp(d, "auto") && !blob)) {
		if (!strcmp(d, "auto") && s->comm->rank == 0)
			gc_warn("this gcbench-worker has no built-in digits (python3-sklearn was not "
				"installed at build time): training on generated clusters");
		return gc_data_generate(&s->data, (size_t)s->comm->world * (size_t)s->cfg->batch * 64,
					1000, e);
	}
	if (!strcmp(d, "digits") || !strcmp(d, "auto")) {
		if (!blob)
			return gc_fail(e, GC_E_NOTFOUND, "--data digits: this gcbench-worker was built "
				       "without them (apt-get install python3-sklearn, then make)");
		return gc_data_parse(blob, len, &s->data, e);
	}
	return gc_data_read(d, &s->data, e);
}

static gc_rc net_layout(wk_state *s, gc_err *e)
{
	const gc_wk_cfg *c = s->cfg;
	gc_rc rc = load_data(s, e);
	if (!rc)
		rc = gc_data_shard_init(&s->shard, &s->data, s->comm->rank, s->comm->world, c->batch, e);
	if (!rc)
		rc = gc_wk_net_new(&s->net, c->model, &s->data, c->batch, e);
	if (rc)
		return rc;
	s->have_net = 1;
	return gc_wk_layout_build(&s->lay, s->net.t, s->net.nt, c->bucket_first_mb * 1048576.0,
				  c->bucket_mb * 1048576.0, e);
}

static gc_rc build_layout(wk_state *s, gc_err *e)
{
	return s->cfg->kind == GC_WK_REPLAY ? arch_layout(s, e) : net_layout(s, e);
}

static gc_rc new_buckets(wk_state *s, gc_err *e)
{
	gc_backend be = s->comm->on_device ? GC_BACKEND_CUDA : GC_BACKEND_CPU;
	gc_tensor_desc *d = calloc(s->lay.nt, sizeof(*d));
	gc_rc rc = GC_OK;
	s->bk = calloc(s->lay.nb, sizeof(*s->bk));
	if (!s->bk || !d) {
		free(d);
		return gc_fail(e, GC_E_NOMEM, "out of memory for %zu buckets", s->lay.nb);
	}
	for (size_t k = 0; k < s->lay.nt; k++)
		d[k] = s->lay.t[k].d;
	for (size_t i = 0; !rc && i < s->lay.nb; i++) {
		const gc_wk_bucket *b = &s->lay.b[i];
		rc = gc_bucket_new(&s->bk[i], &s->cfg->params, be, s->comm->stream, d + b->t0,
				   b->t1 - b->t0, s->comm->world, s->comm->rank, e);
	}
	free(d);
	return rc;
}

static float *host_floats(size_t n)
{
	size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
	return aligned_alloc(64, bytes ? bytes : 64);
}

/* Gradients: pseudo-random per rank (replay: wk_fill.h) or written by the model;
 * parameters: the same on every rank (a model's from a fixed seed; replay's zero: only
 * the SGD step reads them); avg zero. grad, avg and param (on the host, or the
 * device's staging copies) come zeroed and mapped (wk_mem.h): no page is first
 * touched in the loop. */
static gc_rc init_host(wk_state *s, float *grad, float *avg, float *param, gc_err *e)
{
	size_t n = s->lay.numel;
	if (s->have_net)
		gc_wk_fill_random(param, n, 99, 0.01f);
	if (s->have_net)
		gc_wk_fill_random(grad, n, 1000 + (uint64_t)s->comm->rank, 0.01f);
	else
		gc_wk_fill_gradient(grad, n, 1000 + (uint64_t)s->comm->rank, 0.01f);
	return s->have_net ? gc_wk_net_bind(&s->net, &s->lay, param, grad, e) : GC_OK;
}

static gc_rc alloc_device(wk_state *s, gc_err *e)
{
	size_t bytes = s->lay.numel * sizeof(float);
	float *h[3] = { gc_wk_zeroed(s->lay.numel), gc_wk_zeroed(s->lay.numel), gc_wk_zeroed(s->lay.numel) };
	float **d[3] = { &s->grad, &s->avg, &s->param };
	gc_rc rc = (h[0] && h[1] && h[2]) ? init_host(s, h[0], h[1], h[2], e) :
		gc_fail(e, GC_E_NOMEM, "out of memory for %zu parameters", s->lay.numel);
	for (int i = 0; !rc && i < 3; i++) {
		rc = s->comm->dalloc(s->comm, (void **)d[i], bytes);
		if (!rc)
			rc = s->comm->dcopy(s->comm, *d[i], h[i], bytes, 0);
		if (rc)
			gc_fail(e, rc, "cannot place %zu bytes on the device", bytes);
	}
	for (int i = 0; i < 3; i++)
		gc_wk_unzeroed(h[i], s->lay.numel);
	return rc;
}

/* Momentum's velocity, zeroed, where the worker applies momentum. */
static gc_rc alloc_velocity(wk_state *s, gc_err *e)
{
	size_t n = s->lay.numel, bytes = n * sizeof(float);
	float *h;
	gc_rc rc;

	if (!gc_wk_uses_momentum(&s->cfg->params))
		return GC_OK;
	h = host_floats(n);
	if (!h)
		return gc_fail(e, GC_E_NOMEM, "out of memory for momentum's %zu floats", n);
	memset(h, 0, bytes);
	if (!s->comm->on_device) {
		s->vel = h;
		return GC_OK;
	}
	rc = s->comm->dalloc(s->comm, (void **)&s->vel, bytes);
	if (!rc)
		rc = s->comm->dcopy(s->comm, s->vel, h, bytes, 0);
	free(h);
	return rc ? gc_fail(e, rc, "cannot place momentum's %zu bytes on the device", bytes) : GC_OK;
}

static gc_rc alloc_buffers(wk_state *s, gc_err *e)
{
	gc_rc rc = alloc_velocity(s, e);
	if (rc)
		return rc;
	if (s->comm->on_device)
		return alloc_device(s, e);
	s->grad = gc_wk_zeroed(s->lay.numel);
	s->avg = gc_wk_zeroed(s->lay.numel);
	s->param = gc_wk_zeroed(s->lay.numel);
	if (!s->grad || !s->avg || !s->param)
		return gc_fail(e, GC_E_NOMEM, "out of memory for 3 x %zu floats", s->lay.numel);
	return init_host(s, s->grad, s->avg, s->param, e);
}

static void free_buffers(wk_state *s)
{
	float *b[4] = { s->grad, s->avg, s->param, s->vel };
	for (int i = 0; i < 4; i++) {
		if (s->comm->on_device && b[i])
			s->comm->dfree(s->comm, b[i]);
		else if (i < 3)
			gc_wk_unzeroed(b[i], s->lay.numel);
		else
			free(b[i]);
	}
	s->grad = s->avg = s->param = s->vel = NULL;
}

static void net_produced(void *arg, size_t k)
{
	wk_state *s = arg;
	size_t nb = 0;
	while (nb < s->lay.nb && s->lay.b[nb].t1 <= k)
		nb++;
	if (s->cfg->overlap)
		post(s, nb);
}

static gc_rc replay_backward(wk_state *s)
{
	uint64_t dl = gc_now_ns();
	size_t nb = 0;
	gc_rc rc;
	for (size_t i = 0; i < s->lay.nt; i++) {
		double t = s->lay.t[i].t_bwd;
		dl += (uint64_t)(t * 1e9);
		if (s->comm->compute && (rc = s->comm->compute(s->comm, t)))
			return rc;
		if (!s->comm->compute && t > 0)
			gc_sleep_until_ns(dl);
		if (i + 1 == s->lay.b[nb].t1) {
			if (s->comm->mark && (rc = s->comm->mark(s->comm, (int)nb)))
				return rc;
			nb++;
			if (s->cfg->overlap)
				post(s, nb);
		}
	}
	return s->comm->sync_compute ? s->comm->sync_compute(s->comm) : GC_OK;
}

static gc_rc forward(wk_state *s, double *loss)
{
	*loss = 0;
	if (s->have_net) {
		gc_data_shard_next(&s->shard);
		*loss = s->net.forward(&s->net, s->shard.xb, s->shard.yb, s->cfg->batch, NULL);
		return GC_OK;
	}
	if (s->comm->compute) {
		gc_rc rc = s->comm->compute(s->comm, s->lay.t_fwd);
		return rc ? rc : s->comm->sync_compute(s->comm);
	}
	gc_sleep_until_ns(gc_now_ns() + (uint64_t)(s->lay.t_fwd * 1e9));
	return GC_OK;
}

/* Wait for the communication thread to finish the iteration; collect its figures. */
static void wait_exchange(wk_state *s, struct gc_iter_rec *r, uint64_t *last_done)
{
	pthread_mutex_lock(&s->mu);
	while (s->done < s->lay.nb)
		pthread_cond_wait(&s->cv, &s->mu);
	r->t_encode = (double)s->enc_ns * 1e-9;
	r->t_decode = (double)s->dec_ns * 1e-9;
	r->t_comm = (double)s->comm_ns * 1e-9;
	r->bytes_sent = s->sent;
	r->bytes_recv = s->recv;
	*last_done = s->last_done_ns;
	s->posted = s->done = 0;
	s->enc_ns = s->dec_ns = s->comm_ns = s->sent = s->recv = s->last_done_ns = 0;
	pthread_mutex_unlock(&s->mu);
}

/* param -= lr * avg; with momentum (gc_wk_uses_momentum) u = m u + avg first and
 * param -= lr * u (PyTorch's SGD, dampening 0). */
static gc_rc optimizer(wk_state *s)
{
	float a = (float)-s->cfg->lr, m = (float)s->cfg->params.momentum;
	const float *step = s->vel ? s->vel : s->avg;
	size_t n = s->lay.numel;
	gc_rc rc;
	if (s->vel && s->comm->scal) {
		rc = s->comm->scal(s->comm, n, m, s->vel);
		if (!rc)
			rc = s->comm->axpy(s->comm, n, 1.0f, s->avg, s->vel);
		if (rc)
			return rc;
	} else if (s->vel) {
		gc_wk_momentum(s->vel, s->avg, n, m);
	}
	if (s->comm->axpy)
		return s->comm->axpy(s->comm, n, a, step, s->param);
	cblas_saxpy((int)n, a, step, 1, s->param, 1);
	return GC_OK;
}

static gc_rc one_iter(wk_state *s, struct gc_iter_rec *r, gc_err *e)
{
	uint64_t t0 = gc_now_ns(), t1, t2, t3, t4, t5, last = 0;
	gc_rc rc;
	if (s->comm->iter_gpu)
		s->comm->iter_gpu(s->comm, 0);
	rc = forward(s, &r->loss);
	t1 = gc_now_ns();
	if (!rc && s->have_net)
		s->net.backward(&s->net, net_produced, s);
	else if (!rc)
		rc = replay_backward(s);
	if (rc)
		return gc_fail(e, rc, "compute emulation failed: %s", gc_strerror(rc));
	t2 = gc_now_ns();
	if (!s->cfg->overlap)
		post(s, s->lay.nb);
	wait_exchange(s, r, &last);
	t3 = last > t2 ? last : t2;
	t4 = gc_now_ns();
	rc = optimizer(s);
	if (rc)
		return gc_fail(e, rc, "optimizer step failed: %s", gc_strerror(rc));
	if (s->comm->iter_gpu)
		r->t_iter_gpu = s->comm->iter_gpu(s->comm, 1);
	t5 = gc_now_ns();
	r->t_forward = (double)(t1 - t0) * 1e-9;
	r->t_backward = (double)(t2 - t1) * 1e-9;
	r->t_exposed = (double)(t3 - t2) * 1e-9;
	r->t_optimizer = (double)(t5 - t4) * 1e-9;
	r->t_iter = (double)(t5 - t0) * 1e-9;
	return GC_OK;
}

static gc_rc setup(wk_state *s, gc_err *e)
{
	gc_rc rc = build_layout(s, e);
	if (!rc)
		rc = alloc_buffers(s, e);
	if (!rc)
		rc = new_buckets(s, e);
	if (rc)
		return rc;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	if (pthread_create(&s->thr, NULL, comm_thread, s))
		return gc_fail(e, GC_E_STATE, "cannot start the communication thread");
	s->have_thr = 1;
	return GC_OK;
}

static void teardown(wk_state *s)
{
	if (s->have_thr) {
		pthread_mutex_lock(&s->mu);
		s->quit = 1;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->thr, NULL);
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
	}
	for (size_t i = 0; s->bk && i < s->lay.nb; i++)
		gc_bucket_free(s->bk[i]);
	free(s->bk);
	gc_wk_net_release(&s->net);
	gc_data_shard_release(&s->shard);
	gc_data_release(&s->data);
	free_buffers(s);
	gc_wk_layout_release(&s->lay);
}

static gc_rc checksums(wk_state *s, gc_wk_result *res, gc_err *e)
{
	size_t bytes = s->lay.numel * sizeof(float);
	float *h = s->avg, *p = s->param;
	gc_rc rc = GC_OK;
	if (s->comm->on_device) {
		h = host_floats(s->lay.numel), p = host_floats(s->lay.numel);
		rc = (h && p) ? s->comm->dcopy(s->comm, h, s->avg, bytes, 1) : GC_E_NOMEM;
		if (!rc)
			rc = s->comm->dcopy(s->comm, p, s->param, bytes, 1);
	}
	if (!rc) {
		res->sum_grad = gc_fnv1a64_words(h, bytes);
		res->sum_param = gc_fnv1a64_words(p, bytes);
	}
	if (s->comm->on_device)
		free(h), free(p);
	return rc ? gc_fail(e, rc, "cannot read the final gradient back: %s", gc_strerror(rc)) : GC_OK;
}

/* Every rank validates its slice of the validation samples at the same iterations
 * (the parameters are the same everywhere), so no rank waits for another in the next
 * iteration's collectives and the cost is 1/world of the whole set. Outside t_iter. */
static void evaluate(wk_state *s, int it, int total, struct gc_iter_rec *r)
{
	int k = s->cfg->eval_every;
	size_t nv = s->data.n_val, w = (size_t)s->comm->world, rk = (size_t)s->comm->rank;
	size_t lo = nv * rk / w, hi = nv * (rk + 1) / w;
	double loss, acc;
	uint64_t t0;
	if (!s->have_net || k <= 0 || ((it + 1) % k && it + 1 != total))
		return;
	t0 = gc_now_ns();
	gc_wk_net_eval(&s->net, &s->data, lo, hi, &loss, &acc);
	r->val_loss = loss;
	r->val_acc = (float)acc;
	r->t_eval = (float)((double)(gc_now_ns() - t0) * 1e-9);
	r->flags |= GC_REC_F_EVAL | (uint32_t)(hi - lo) << 8;
}

static void heartbeat(const wk_state *s, int it, int total, const struct gc_iter_rec *r)
{
	int k = s->cfg->heartbeat;
	if (k > 0 && ((it + 1) % k == 0 || it + 1 == total))
		fprintf(stderr, "gcbench-worker: rank %d iter %d/%d iter_ms %.1f\n", s->comm->rank,
			it + 1, total, r->t_iter * 1e3);
}

static void summarize(const wk_state *s, gc_wk_result *res)
{
	size_t k = res->n < 10 ? res->n : 10;
	double sum = 0, tb = 0;
	for (size_t i = res->n - k; i < res->n; i++)
		sum += res->recs[i].loss;
	for (size_t i = 0; i < s->lay.nt; i++)
		tb += s->lay.t[i].t_bwd;
	res->final_loss = k ? sum / (double)k : 0;
	res->numel = s->lay.numel;
	res->nbuckets = s->lay.nb;
	res->ntensors = s->lay.nt;
	res->t_backward_model = tb;
	res->bucket_numel = calloc(s->lay.nb ? s->lay.nb : 1, sizeof(size_t));
	for (size_t i = 0; res->bucket_numel && i < s->lay.nb; i++)
		res->bucket_numel[i] = s->lay.b[i].numel;
}

gc_rc gc_wk_train(const gc_wk_cfg *cfg, gc_wk_comm *comm, gc_wk_result *res, gc_err *e)
{
	wk_state s = { .cfg = cfg, .comm = comm };
	int total = cfg->iters + cfg->warmup;
	gc_rc rc;

	memset(res, 0, sizeof(*res));
	res->recs = calloc((size_t)total, sizeof(*res->recs));
	if (!res->recs)
		return gc_fail(e, GC_E_NOMEM, "out of memory for %d records", total);
	rc = setup(&s, e);
	for (int it = 0; !rc && it < total; it++) {
		struct gc_iter_rec *r = &res->recs[it];
		r->rank = (uint32_t)comm->rank;
		r->iter = (uint32_t)it;
		r->warmup = it < cfg->warmup;
		rc = one_iter(&s, r, e);
		if (!rc)
			evaluate(&s, it, total, r);
		res->n = (size_t)it + 1;
		heartbeat(&s, it, total, r);
	}
	if (!rc)
		rc = checksums(&s, res, e);
	summarize(&s, res);
	snprintf(res->data, sizeof(res->data), "%s", s.data.name);
	teardown(&s);
	res->threads = s.comm_threads;
	return rc;
}

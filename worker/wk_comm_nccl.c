/* worker/wk_comm_nccl.c: the NCCL back end (built with USE_CUDA=1 and nccl.h).
 *
 * One GPU per rank (device = local rank % device count; the local rank is the rank in
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), so it needs no launcher's variable). Every
 * thread that queues work sets that device first: the main thread in init, the
 * communication thread on its first call (it runs the compressor kernels and cuBLAS,
 * and a new thread starts on device 0). The NCCL unique id travels by MPI_Bcast from
 * rank 0; a watchdog thread gives ncclCommInitRank the --deadline. Two streams: compute (emulated backward: gc_cuda_spin
 * kernels that really occupy the SMs) and communication (compressor kernels and NCCL
 * collectives). A bucket's gradients are marked with an event on the compute stream;
 * the communication stream waits for it. Deadlines: the communication thread polls
 * cudaStreamQuery and ncclCommGetAsyncError; on expiry ncclCommAbort, a message naming
 * rank, bucket and collective, then MPI_Abort. t_encode and t_decode are CUDA events on
 * the communication stream around the compressor's work (tmark/tspan, wk_exchange.h),
 * so the wait for a bucket's gradients queued before them is not counted. */
#include "wk_run.h"
#include "wk_exchange.h"

#include <cuda_runtime_api.h>
#include <mpi.h>
/* nccl.h declares a few functions without prototypes: a third-party header, so the
 * warning is silenced for it alone. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels/cuda/cuda_util.h"
#include "kernels/cuda/cublas_load.h"
#include "log.h"
#include "timing.h"

#define MAX_MARKS 4096

struct nccl_st {
	int dev;                       /* the CUDA device of this rank */
	ncclComm_t comm;
	cudaStream_t compute, cs;
	cudaEvent_t mark[MAX_MARKS];
	int nmark;
	cudaEvent_t it0, it1;
	cudaEvent_t tev[GC_WK_T_SLOTS];  /* encode/decode spans on the communication stream */
	const struct gc_cublas_api *cb;   /* set with blas */
	cublasHandle_t blas;
};

/* The device this thread last set (-1: none yet); threads start on device 0. */
static _Thread_local int tl_dev = -1;

/* Make s->dev current for the calling thread (cheap after the first call). */
static gc_rc use_device(gc_wk_comm *c)
{
	struct nccl_st *s = c->st;
	cudaError_t ce;
	if (tl_dev == s->dev)
		return GC_OK;
	ce = cudaSetDevice(s->dev);
	if (ce != cudaSuccess) {
		gc_error("rank %d: cannot use GPU %d from this thread: %s", c->rank, s->dev,
			 cudaGetErrorString(ce));
		return GC_E_CUDA;
	}
	tl_dev = s->dev;
	return GC_OK;
}

/* Log a failed CUDA call of the back end and give GC_E_CUDA (GC_OK if ce succeeded). */
static gc_rc cuda_err(const gc_wk_comm *c, cudaError_t ce, const char *what)
{
	if (ce == cudaSuccess)
		return GC_OK;
	gc_error("rank %d: %s failed: %s", c->rank, what, cudaGetErrorString(ce));
	return GC_E_CUDA;
}

static gc_rc poll_stream(gc_wk_comm *c, const char *what, int bucket)
{
	struct nccl_st *s = c->st;
	uint64_t t0 = gc_now_ns(), lim = t0 + (uint64_t)(c->deadline * 1e9);
	for (;;) {
		ncclResult_t ar = ncclSuccess;
		cudaError_t q = cudaStreamQuery(s->cs);
		if (q == cudaSuccess)
			return GC_OK;
		if (q != cudaErrorNotReady) {
			gc_error("rank %d: %s of bucket %d failed: %s", c->rank, what, bucket, cudaGetErrorString(q));
			return GC_E_CUDA;
		}
		ncclCommGetAsyncError(s->comm, &ar);
		if (ar != ncclSuccess && ar != ncclInProgress) {
			gc_error("rank %d: %s of bucket %d failed: %s", c->rank, what, bucket, ncclGetErrorString(ar));
			return GC_E_NCCL;
		}
		if (gc_now_ns() > lim) {
			gc_error("rank %d: %s of bucket %d did not finish within the deadline (%.1f s elapsed, "
				 "--deadline %g): a peer is gone or the network stalled; aborting the job",
				 c->rank, what, bucket, (double)(gc_now_ns() - t0) * 1e-9, c->deadline);
			ncclCommAbort(s->comm);
			MPI_Abort(MPI_COMM_WORLD, GC_EXIT_ENV);
			_exit(GC_EXIT_ENV);
		}
		sched_yield();
	}
}

static gc_rc nccl_run(gc_wk_comm *c, const gc_round *r, int bucket, gc_err *e)
{
	struct nccl_st *s = c->st;
	ncclResult_t nr;
	const char *what = r->coll == GC_COLL_ALLREDUCE ? "ncclAllReduce" : "ncclAllGather";
	if (use_device(c))
		return gc_fail(e, GC_E_CUDA, "rank %d: cannot select GPU %d for bucket %d", c->rank,
			       s->dev, bucket);
	if (r->coll == GC_COLL_ALLTOALL) {    /* cgx: block j to rank j, NCCL's send/recv */
		size_t sz = r->count;           /* U8 */
		what = "ncclSend/ncclRecv (all-to-all)";
		nr = ncclGroupStart();
		for (int peer = 0; nr == ncclSuccess && peer < c->world; peer++) {
			nr = ncclSend((const char *)r->send + (size_t)peer * sz, sz, ncclUint8, peer,
				      s->comm, s->cs);
			if (nr == ncclSuccess)
				nr = ncclRecv((char *)r->recv + (size_t)peer * sz, sz, ncclUint8, peer,
					      s->comm, s->cs);
		}
		if (nr == ncclSuccess)
			nr = ncclGroupEnd();
		else
			ncclGroupEnd();
	} else if (r->coll == GC_COLL_ALLREDUCE)
		nr = ncclAllReduce(r->send, r->recv, r->count, r->dtype == GC_DT_F16 ? ncclHalf :
				   r->dtype == GC_DT_BF16 ? ncclBfloat16 : ncclFloat,
				   ncclSum, s->comm, s->cs);
	else
		nr = ncclAllGather(r->send, r->recv, r->count, ncclUint8, s->comm, s->cs);
	if (nr != ncclSuccess)
		return gc_fail(e, GC_E_NCCL, "rank %d: %s of bucket %d failed: %s", c->rank, what,
			       bucket, ncclGetErrorString(nr));
	if (poll_stream(c, what, bucket))
		return gc_fail(e, GC_E_NCCL, "rank %d: %s of bucket %d failed", c->rank, what, bucket);
	return GC_OK;
}

static gc_rc nccl_compute(gc_wk_comm *c, double seconds)
{
	struct nccl_st *s = c->st;
	gc_rc rc = use_device(c);
	if (!rc && seconds > 0 && (rc = gc_cuda_spin(seconds, s->compute)))
		gc_error("rank %d: cannot queue %.6f s of emulated compute on GPU %d", c->rank, seconds, s->dev);
	return rc;
}

static gc_rc nccl_mark(gc_wk_comm *c, int b)
{
	struct nccl_st *s = c->st;
	if (b >= MAX_MARKS) {
		gc_error("rank %d: bucket %d: more than %d buckets", c->rank, b, MAX_MARKS);
		return GC_E_INVAL;
	}
	return cuda_err(c, cudaEventRecord(s->mark[b], s->compute), "cudaEventRecord (gradients done)");
}

static gc_rc nccl_wait_mark(gc_wk_comm *c, int b)
{
	struct nccl_st *s = c->st;
	gc_rc rc = use_device(c);      /* the communication thread's first call */
	if (rc)
		return rc;
	if (b >= MAX_MARKS) {
		gc_error("rank %d: bucket %d: more than %d buckets", c->rank, b, MAX_MARKS);
		return GC_E_INVAL;
	}
	return cuda_err(c, cudaStreamWaitEvent(s->cs, s->mark[b], 0), "cudaStreamWaitEvent (gradients)");
}

static gc_rc nccl_sync_compute(gc_wk_comm *c)
{
	struct nccl_st *s = c->st;
	return cuda_err(c, cudaStreamSynchronize(s->compute), "the emulated compute (compute stream)");
}

static gc_rc nccl_flush(gc_wk_comm *c)
{
	gc_rc rc = use_device(c);
	return rc ? rc : poll_stream(c, "a compressor kernel", -1);
}

static gc_rc nccl_axpy(gc_wk_comm *c, size_t n, float alpha, const float *x, float *y)
{
	struct nccl_st *s = c->st;
	cublasStatus_t bs = s->cb->saxpy_64(s->blas, (int64_t)n, &alpha, x, 1, y, 1);
	if (bs != CUBLAS_STATUS_SUCCESS) {
		gc_error("rank %d: cublasSaxpy of %zu floats (the SGD step) failed: %s", c->rank, n,
			 s->cb->status_string(bs));
		return GC_E_CUDA;
	}
	return cuda_err(c, cudaStreamSynchronize(s->compute), "the SGD step (compute stream)");
}

static gc_rc nccl_scal(gc_wk_comm *c, size_t n, float alpha, float *x)
{
	struct nccl_st *s = c->st;
	cublasStatus_t bs = s->cb->sscal_64(s->blas, (int64_t)n, &alpha, x, 1);
	if (bs != CUBLAS_STATUS_SUCCESS) {
		gc_error("rank %d: cublasSscal of %zu floats (momentum) failed: %s", c->rank, n,
			 s->cb->status_string(bs));
		return GC_E_CUDA;
	}
	return GC_OK;
}

static double nccl_iter_gpu(gc_wk_comm *c, int phase)
{
	struct nccl_st *s = c->st;
	cudaError_t ce;
	float ms = 0;
	if (phase == 0) {
		cuda_err(c, cudaEventRecord(s->it0, s->compute), "cudaEventRecord (iteration start)");
		return 0;
	}
	ce = cudaEventRecord(s->it1, s->compute);
	if (ce == cudaSuccess)
		ce = cudaEventSynchronize(s->it1);
	if (ce == cudaSuccess)
		ce = cudaEventElapsedTime(&ms, s->it0, s->it1);
	if (cuda_err(c, ce, "the CUDA-event iteration time (t_iter_gpu is 0)"))
		return 0;
	return ms * 1e-3;
}

static gc_rc nccl_tmark(gc_wk_comm *c, int slot)
{
	struct nccl_st *s = c->st;
	gc_rc rc = use_device(c);
	if (rc)
		return rc;
	return cuda_err(c, cudaEventRecord(s->tev[slot], s->cs), "cudaEventRecord (encode/decode time)");
}

static gc_rc nccl_tspan(gc_wk_comm *c, int a, int b, uint64_t *ns)
{
	struct nccl_st *s = c->st;
	float ms = 0;
	cudaError_t ce = cudaEventSynchronize(s->tev[b]);
	if (ce == cudaSuccess)
		ce = cudaEventElapsedTime(&ms, s->tev[a], s->tev[b]);
	if (cuda_err(c, ce, "the CUDA-event encode/decode time"))
		return GC_E_CUDA;
	*ns = ms > 0 ? (uint64_t)((double)ms * 1e6 + 0.5) : 0;
	return GC_OK;
}

static gc_rc nccl_dalloc(gc_wk_comm *c, void **p, size_t bytes)
{
	(void)c;
	return gc_cuda_alloc(p, bytes);
}

static void nccl_dfree(gc_wk_comm *c, void *p)
{
	(void)c;
	gc_cuda_free(p);
}

static gc_rc nccl_dcopy(gc_wk_comm *c, void *dst, const void *src, size_t bytes, int kind)
{
	struct nccl_st *s = c->st;
	gc_rc rc = use_device(c);
	if (!rc)
		rc = gc_cuda_copy(dst, src, bytes, kind, s->compute);
	return rc ? rc : gc_cuda_sync(s->compute);
}

static void nccl_abort(gc_wk_comm *c, int code)
{
	struct nccl_st *s = c->st;
	if (s && s->comm)
		ncclCommAbort(s->comm);
	MPI_Abort(MPI_COMM_WORLD, code);
	_exit(code);
}

static void nccl_release(gc_wk_comm *c)
{
	struct nccl_st *s = c->st;
	if (!s)
		return;
	if (s->comm)
		ncclCommDestroy(s->comm);
	for (int i = 0; i < s->nmark; i++)
		cudaEventDestroy(s->mark[i]);
	cudaEventDestroy(s->it0);
	cudaEventDestroy(s->it1);
	for (int i = 0; i < GC_WK_T_SLOTS; i++)
		if (s->tev[i])
			cudaEventDestroy(s->tev[i]);
	if (s->blas)
		s->cb->destroy(s->blas);
	cudaStreamDestroy(s->compute);
	cudaStreamDestroy(s->cs);
	free(s);
	c->st = NULL;
}

static gc_rc cuda_setup(gc_wk_comm *c, struct nccl_st *s, gc_err *e)
{
	char why[256];
	cudaError_t ce;
	cublasStatus_t bs;
	const struct gc_cublas_api *cb;
	int ndev = gc_cuda_probe(why, sizeof(why));
	if (ndev < 1)
		return gc_fail(e, GC_E_CUDA, "rank %d (local rank %d): no CUDA device visible (%s): run "
			       "--backend mpi, or check CUDA_VISIBLE_DEVICES and the driver", c->rank,
			       c->local_rank, why);
	s->dev = c->local_rank % ndev;
	if ((ce = cudaSetDevice(s->dev)) != cudaSuccess)
		return gc_fail(e, GC_E_CUDA, "rank %d (local rank %d): cannot use GPU %d: %s", c->rank,
			       c->local_rank, s->dev, cudaGetErrorString(ce));
	tl_dev = s->dev;
	if ((ce = cudaStreamCreateWithFlags(&s->compute, cudaStreamNonBlocking)) != cudaSuccess ||
	    (ce = cudaStreamCreateWithFlags(&s->cs, cudaStreamNonBlocking)) != cudaSuccess ||
	    (ce = cudaEventCreate(&s->it0)) != cudaSuccess || (ce = cudaEventCreate(&s->it1)) != cudaSuccess)
		return gc_fail(e, GC_E_CUDA, "rank %d: cannot create CUDA streams/events on GPU %d: %s",
			       c->rank, s->dev, cudaGetErrorString(ce));
	for (int i = 0; i < GC_WK_T_SLOTS; i++)
		if ((ce = cudaEventCreate(&s->tev[i])) != cudaSuccess)
			return gc_fail(e, GC_E_CUDA, "rank %d: cannot create the timing events on GPU %d: %s",
				       c->rank, s->dev, cudaGetErrorString(ce));
	for (; s->nmark < MAX_MARKS; s->nmark++)
		if ((ce = cudaEventCreateWithFlags(&s->mark[s->nmark], cudaEventDisableTiming)) != cudaSuccess)
			return gc_fail(e, GC_E_CUDA, "rank %d: cannot create CUDA event %d of %d: %s", c->rank,
				       s->nmark, MAX_MARKS, cudaGetErrorString(ce));
	if (!(cb = gc_cublas(e)))
		return GC_E_CUDA;
	if ((bs = cb->create(&s->blas)) == CUBLAS_STATUS_SUCCESS)
		s->cb = cb, bs = cb->set_stream(s->blas, s->compute);
	if (bs != CUBLAS_STATUS_SUCCESS)
		return gc_fail(e, GC_E_CUDA, "rank %d: cannot create a cuBLAS handle on GPU %d: %s", c->rank,
			       s->dev, cb->status_string(bs));
	if (gc_cuda_spin_calibrate())
		return gc_fail(e, GC_E_CUDA, "rank %d: cannot set up the compute-emulation kernel on GPU %d "
			       "(see the CUDA error above)", c->rank, s->dev);
	return GC_OK;
}

/* The rank on this host: the rank in the communicator of the processes that share
 * memory with this one (no launcher variable needed). -1 on an MPI error. */
static int local_rank(void)
{
	MPI_Comm node;
	int r = -1;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
		return -1;
	MPI_Comm_rank(node, &r);
	MPI_Comm_free(&node);
	return r;
}

/* A deadline for ncclCommInitRank, which blocks and has none: a watchdog thread that,
 * unless init finishes first, names the rank and the wait and aborts the job. */
struct init_dog {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done, rank, world;
	double deadline;
};

static void *init_watchdog(void *arg)
{
	struct init_dog *d = arg;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)d->deadline;
	ts.tv_nsec += (long)((d->deadline - (double)(time_t)d->deadline) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_sec++, ts.tv_nsec -= 1000000000L;
	pthread_mutex_lock(&d->mu);
	while (!d->done)
		if (pthread_cond_timedwait(&d->cv, &d->mu, &ts) == ETIMEDOUT && !d->done) {
			gc_error("rank %d: ncclCommInitRank of %d ranks did not finish within the deadline "
				 "(--deadline %g s): a rank is missing or NCCL cannot reach its peers (try "
				 "NCCL_SOCKET_IFNAME, NCCL_DEBUG=INFO); aborting the job", d->rank, d->world,
				 d->deadline);
			MPI_Abort(MPI_COMM_WORLD, GC_EXIT_ENV);
			_exit(GC_EXIT_ENV);
		}
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

static ncclResult_t init_comm(gc_wk_comm *c, struct nccl_st *s, ncclUniqueId id)
{
	struct init_dog d = { .done = 0, .rank = c->rank, .world = c->world, .deadline = c->deadline };
	pthread_t thr;
	ncclResult_t nr;
	int have = 0;
	pthread_mutex_init(&d.mu, NULL);
	pthread_cond_init(&d.cv, NULL);
	have = c->deadline > 0 && !pthread_create(&thr, NULL, init_watchdog, &d);
	nr = ncclCommInitRank(&s->comm, c->world, id, c->rank);
	if (have) {
		pthread_mutex_lock(&d.mu);
		d.done = 1;
		pthread_cond_signal(&d.cv);
		pthread_mutex_unlock(&d.mu);
		pthread_join(thr, NULL);
	}
	pthread_mutex_destroy(&d.mu);
	pthread_cond_destroy(&d.cv);
	return nr;
}

static gc_rc nccl_setup(gc_wk_comm *c, struct nccl_st *s, gc_err *e)
{
	ncclUniqueId id;
	ncclResult_t nr = ncclSuccess;
	int v = 0;
	memset(&id, 0, sizeof(id));
	if (c->rank == 0)
		nr = ncclGetUniqueId(&id);
	/* every rank must reach the broadcast, or the others would wait for rank 0 forever */
	MPI_Bcast(&nr, (int)sizeof(nr), MPI_BYTE, 0, MPI_COMM_WORLD);
	if (nr != ncclSuccess)
		return gc_fail(e, GC_E_NCCL, "ncclGetUniqueId on rank 0 failed: %s", ncclGetErrorString(nr));
	MPI_Bcast(&id, (int)sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
	nr = init_comm(c, s, id);
	if (nr != ncclSuccess) {
		s->comm = NULL;
		return gc_fail(e, GC_E_NCCL, "rank %d: ncclCommInitRank failed: %s (%s; two ranks on one "
			       "GPU? NCCL needs one GPU per rank)", c->rank, ncclGetErrorString(nr),
			       ncclGetLastError(NULL));
	}
	ncclGetVersion(&v);
	snprintf(c->nccl_version, sizeof(c->nccl_version), "%d.%d.%d", v / 10000, (v % 10000) / 100, v % 100);
	snprintf(c->algo_allreduce, sizeof(c->algo_allreduce), "nccl:%s",
		 getenv("NCCL_ALGO") ? getenv("NCCL_ALGO") : "default");
	snprintf(c->algo_allgather, sizeof(c->algo_allgather), "nccl:%s",
		 getenv("NCCL_ALGO") ? getenv("NCCL_ALGO") : "default");
	return GC_OK;
}

gc_rc gc_wk_comm_nccl_init(gc_wk_comm *c, const gc_wk_cfg *cfg, gc_err *e)
{
	struct nccl_st *s = calloc(1, sizeof(*s));
	int len = 0;
	gc_rc rc;
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	memset(c, 0, sizeof(*c));
	*c = (gc_wk_comm){ .name = "nccl", .on_device = 1, .deadline = cfg->deadline, .st = s,
		.run = nccl_run, .abort = nccl_abort, .release = nccl_release,
		.compute = nccl_compute, .mark = nccl_mark, .wait_mark = nccl_wait_mark,
		.sync_compute = nccl_sync_compute, .flush = nccl_flush, .axpy = nccl_axpy,
		.scal = nccl_scal,
		.dalloc = nccl_dalloc, .dfree = nccl_dfree, .dcopy = nccl_dcopy,
		.iter_gpu = nccl_iter_gpu, .tmark = nccl_tmark, .tspan = nccl_tspan };
	MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c->world);
	c->local_rank = local_rank();
	if (c->local_rank < 0) {
		free(s);
		c->st = NULL;
		return gc_fail(e, GC_E_STATE, "rank %d: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed: "
			       "cannot tell this rank's GPU", c->rank);
	}
	MPI_Get_library_version(c->lib_version, &len);
	c->lib_version[strcspn(c->lib_version, "\r\n")] = 0;
	rc = cuda_setup(c, s, e);
	if (!rc)
		rc = nccl_setup(c, s, e);
	if (rc) {
		nccl_release(c);
		return rc;
	}
	c->stream = s->cs;
	return GC_OK;
}

/* worker/wk_comm_nccl.c: the NCCL back end (built with USE_CUDA=1 and nccl.h).
 *
 * One GPU per rank (device = local rank % device count). The NCCL unique id travels
 * by MPI_Bcast from rank 0. Two streams: compute (emulated backward: gc_cuda_spin
 * kernels that really occupy the SMs) and communication (compressor kernels and NCCL
 * collectives). A bucket's gradients are marked with an event on the compute stream;
 * the communication stream waits for it. Deadlines: the communication thread polls
 * cudaStreamQuery and ncclCommGetAsyncError; on expiry ncclCommAbort, a message naming
 * rank, bucket and collective, then MPI_Abort. */
#include "wk_run.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
/* nccl.h declares a few functions without prototypes: a third-party header, so the
 * warning is silenced for it alone. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#include <nccl.h>
#pragma GCC diagnostic pop
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/cuda/cuda_util.h"
#include "log.h"
#include "timing.h"

#define MAX_MARKS 4096

struct nccl_st {
	ncclComm_t comm;
	cudaStream_t compute, cs;
	cudaEvent_t mark[MAX_MARKS];
	int nmark;
	cudaEvent_t it0, it1;
	cublasHandle_t blas;
};

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
			MPI_Abort(MPI_COMM_WORLD, 3);
			_exit(3);
		}
		sched_yield();
	}
}

static gc_rc nccl_run(gc_wk_comm *c, const gc_round *r, int bucket, gc_err *e)
{
	struct nccl_st *s = c->st;
	ncclResult_t nr;
	const char *what = r->coll == GC_COLL_ALLREDUCE ? "ncclAllReduce" : "ncclAllGather";
	if (r->coll == GC_COLL_ALLREDUCE)
		nr = ncclAllReduce(r->send, r->recv, r->count, r->dtype == GC_DT_F16 ? ncclHalf : ncclFloat,
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
	return seconds > 0 ? gc_cuda_spin(seconds, s->compute) : GC_OK;
}

static gc_rc nccl_mark(gc_wk_comm *c, int b)
{
	struct nccl_st *s = c->st;
	if (b >= MAX_MARKS)
		return GC_E_INVAL;
	return cudaEventRecord(s->mark[b], s->compute) ? GC_E_CUDA : GC_OK;
}

static gc_rc nccl_wait_mark(gc_wk_comm *c, int b)
{
	struct nccl_st *s = c->st;
	if (b >= MAX_MARKS)
		return GC_E_INVAL;
	return cudaStreamWaitEvent(s->cs, s->mark[b], 0) ? GC_E_CUDA : GC_OK;
}

static gc_rc nccl_sync_compute(gc_wk_comm *c)
{
	struct nccl_st *s = c->st;
	return cudaStreamSynchronize(s->compute) ? GC_E_CUDA : GC_OK;
}

static gc_rc nccl_flush(gc_wk_comm *c)
{
	return poll_stream(c, "a compressor kernel", -1);
}

static gc_rc nccl_axpy(gc_wk_comm *c, size_t n, float alpha, const float *x, float *y)
{
	struct nccl_st *s = c->st;
	if (cublasSaxpy(s->blas, (int)n, &alpha, x, 1, y, 1) != CUBLAS_STATUS_SUCCESS)
		return GC_E_CUDA;
	return cudaStreamSynchronize(s->compute) ? GC_E_CUDA : GC_OK;
}

static double nccl_iter_gpu(gc_wk_comm *c, int phase)
{
	struct nccl_st *s = c->st;
	float ms = 0;
	if (phase == 0) {
		cudaEventRecord(s->it0, s->compute);
		return 0;
	}
	cudaEventRecord(s->it1, s->compute);
	cudaEventSynchronize(s->it1);
	cudaEventElapsedTime(&ms, s->it0, s->it1);
	return ms * 1e-3;
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
	gc_rc rc = gc_cuda_copy(dst, src, bytes, kind, s->compute);
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
	if (s->blas)
		cublasDestroy(s->blas);
	cudaStreamDestroy(s->compute);
	cudaStreamDestroy(s->cs);
	free(s);
	c->st = NULL;
}

static gc_rc cuda_setup(gc_wk_comm *c, struct nccl_st *s, gc_err *e)
{
	int ndev = 0;
	if (cudaGetDeviceCount(&ndev) || ndev < 1)
		return gc_fail(e, GC_E_CUDA, "rank %d: no CUDA device visible: run --backend mpi, "
			       "or check CUDA_VISIBLE_DEVICES and the driver", c->rank);
	if (cudaSetDevice(c->local_rank % ndev))
		return gc_fail(e, GC_E_CUDA, "rank %d: cannot use GPU %d", c->rank, c->local_rank % ndev);
	if (cudaStreamCreateWithFlags(&s->compute, cudaStreamNonBlocking) ||
	    cudaStreamCreateWithFlags(&s->cs, cudaStreamNonBlocking) ||
	    cudaEventCreate(&s->it0) || cudaEventCreate(&s->it1))
		return gc_fail(e, GC_E_CUDA, "rank %d: cannot create CUDA streams/events", c->rank);
	for (; s->nmark < MAX_MARKS; s->nmark++)
		if (cudaEventCreateWithFlags(&s->mark[s->nmark], cudaEventDisableTiming))
			return gc_fail(e, GC_E_CUDA, "rank %d: cannot create CUDA events", c->rank);
	if (cublasCreate(&s->blas) || cublasSetStream(s->blas, s->compute))
		return gc_fail(e, GC_E_CUDA, "rank %d: cannot create a cuBLAS handle", c->rank);
	if (gc_cuda_spin_calibrate())
		return gc_fail(e, GC_E_CUDA, "rank %d: cannot calibrate the compute-emulation kernel", c->rank);
	return GC_OK;
}

static gc_rc nccl_setup(gc_wk_comm *c, struct nccl_st *s, gc_err *e)
{
	ncclUniqueId id;
	ncclResult_t nr;
	int v = 0;
	if (c->rank == 0 && (nr = ncclGetUniqueId(&id)) != ncclSuccess)
		return gc_fail(e, GC_E_NCCL, "ncclGetUniqueId failed: %s", ncclGetErrorString(nr));
	MPI_Bcast(&id, (int)sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
	nr = ncclCommInitRank(&s->comm, c->world, id, c->rank);
	if (nr != ncclSuccess)
		return gc_fail(e, GC_E_NCCL, "rank %d: ncclCommInitRank failed: %s (two ranks on one GPU? "
			       "NCCL needs one GPU per rank)", c->rank, ncclGetErrorString(nr));
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
	const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
	int len = 0;
	gc_rc rc;
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	memset(c, 0, sizeof(*c));
	*c = (gc_wk_comm){ .name = "nccl", .on_device = 1, .deadline = cfg->deadline, .st = s,
		.run = nccl_run, .abort = nccl_abort, .release = nccl_release,
		.compute = nccl_compute, .mark = nccl_mark, .wait_mark = nccl_wait_mark,
		.sync_compute = nccl_sync_compute, .flush = nccl_flush, .axpy = nccl_axpy,
		.dalloc = nccl_dalloc, .dfree = nccl_dfree, .dcopy = nccl_dcopy,
		.iter_gpu = nccl_iter_gpu };
	MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c->world);
	c->local_rank = lr ? atoi(lr) : 0;
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

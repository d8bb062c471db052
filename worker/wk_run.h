/* worker/wk_run.h: the program-side contract of gcbench-worker (needs MPI): the
 * communication back ends and the training loop. Not part of libgcbench.a. */
#ifndef GC_WK_RUN_H
#define GC_WK_RUN_H

#include "formats/records.h"
#include "wk.h"

/* A communication back end. All its calls happen on the communication thread after
 * init (MPI_THREAD_SERIALIZED: one thread at a time; see docs/worker.md). */
typedef struct gc_wk_comm gc_wk_comm;
struct gc_wk_comm {
	const char *name;              /* "mpi" or "nccl" */
	int rank, world, local_rank;
	int on_device;                 /* 1: buffers are device memory (NCCL) */
	double deadline;               /* seconds per collective */
	/* Run one round to completion. On expiry of the deadline it prints which rank,
	 * bucket and collective and how long, then aborts the job (never returns). On a
	 * failure it returns non-zero with the reason in e. */
	gc_rc (*run)(gc_wk_comm *c, const gc_round *r, int bucket, gc_err *e);
	void (*abort)(gc_wk_comm *c, int code);   /* tear the whole job down */
	void (*release)(gc_wk_comm *c);
	/* Device back ends only (NULL otherwise): queue `seconds` of compute on the compute
	 * stream (main thread); mark bucket b's gradients complete on the compute stream
	 * (main); make the communication stream wait for that mark (communication thread);
	 * wait for the compute stream (main); wait for the communication stream
	 * (communication thread, after each decode); SGD step param -= lr * avg (axpy;
 * scal for momentum's u = m u + avg). */
	gc_rc (*compute)(gc_wk_comm *c, double seconds);
	gc_rc (*mark)(gc_wk_comm *c, int bucket);
	gc_rc (*wait_mark)(gc_wk_comm *c, int bucket);
	gc_rc (*sync_compute)(gc_wk_comm *c);
	gc_rc (*flush)(gc_wk_comm *c);
	gc_rc (*axpy)(gc_wk_comm *c, size_t n, float alpha, const float *x, float *y);
	gc_rc (*scal)(gc_wk_comm *c, size_t n, float alpha, float *x);   /* x *= alpha */
	/* device memory: allocate, free, copy (kind 0 host->device, 1 device->host) */
	gc_rc (*dalloc)(gc_wk_comm *c, void **p, size_t bytes);
	void (*dfree)(gc_wk_comm *c, void *p);
	gc_rc (*dcopy)(gc_wk_comm *c, void *dst, const void *src, size_t bytes, int kind);
	/* CUDA-event iteration time: phase 0 marks the start, phase 1 the end and returns
	 * the seconds between (device back ends only). */
	double (*iter_gpu)(gc_wk_comm *c, int phase);
	/* Timing events on the communication stream (device back ends; NULL: the host
	 * clock, wk_exchange.h): record event slot (GC_WK_T_*) on it; the nanoseconds
	 * between slots a and b, both recorded and the stream drained. */
	gc_rc (*tmark)(gc_wk_comm *c, int slot);
	gc_rc (*tspan)(gc_wk_comm *c, int a, int b, uint64_t *ns);
	void *stream;                  /* the communication stream (cudaStream_t) */
	void *st;                      /* the back end's state */
	char algo_allreduce[96], algo_allgather[96];
	char lib_version[256];         /* MPI library version string */
	char nccl_version[32];         /* "2.28.3" with NCCL, else "" */
};

/* MPI must be initialised (MPI_Init_thread, SERIALIZED) before either init. */
gc_rc gc_wk_comm_mpi_init(gc_wk_comm *c, const gc_wk_cfg *cfg, gc_err *e);
#if GC_WK_HAVE_NCCL
gc_rc gc_wk_comm_nccl_init(gc_wk_comm *c, const gc_wk_cfg *cfg, gc_err *e);
#endif

/* What a run produced, for the header and the record file. */
typedef struct gc_wk_result {
	struct gc_iter_rec *recs;      /* n records (warmup included) */
	size_t n;
	size_t numel, nbuckets, ntensors;
	size_t *bucket_numel;          /* nbuckets entries, in exchange order (caller frees) */
	uint64_t sum_grad, sum_param;  /* gc_fnv1a64_words of the final averaged
					 * gradient, parameters (common/fnv.h) */
	double final_loss;             /* mean loss of the last (up to) 10 iterations */
	double t_backward_model;       /* emulated backward seconds per iteration */
	int threads;                   /* OpenMP threads the kernels ran with */
	char data[17];                 /* training: the data set's name ("digits") */
} gc_wk_result;

/* Build the workload, run warmup + iters iterations with the communication thread,
 * fill res (caller frees res->recs and
 * res->bucket_numel). */
gc_rc gc_wk_train(const gc_wk_cfg *cfg, gc_wk_comm *comm, gc_wk_result *res, gc_err *e);

#endif

/* worker/wk_comm_mpi.c: collectives over MPI with a deadline.
 *
 * nb (default): MPI_Iallreduce / MPI_Iallgather (OpenMPI's coll/libnbc), polled with
 * MPI_Testall and sched_yield() until done or the deadline. An all-reduce of RING_MIN
 * bytes or more goes out as --mpi-rings concurrent MPI_Iallreduce on consecutive slices:
 * libnbc's ring reduces a step's chunk only once that step's send and receive are both
 * done, and the link idles meanwhile; another ring's transfer fills those gaps.
 * blocking: MPI_Allreduce / MPI_Allgather (coll/tuned, where the ring algorithms are
 * selectable) while a watchdog thread checks the deadline. F16 sums use a user-defined,
 * commutative MPI_Op that adds in float and rounds to half (gc_f16_sum). */
#include "wk_run.h"

#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "timing.h"

#define RING_MIN (4u << 20)

struct mpi_st {
	MPI_Op half_sum, bf16_sum;     /* the 16-bit sums: the kernels' rounding */
	int blocking, rings;
	pthread_t dog;
	int have_dog;
	atomic_int dog_quit;
	atomic_ullong busy_since;     /* ns; 0 when no collective is running */
	atomic_int busy_bucket, busy_coll;
};

static void half_sum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	gc_f16_sum(inout, in, (size_t)*len);
}

static void bf16_sum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
	(void)dt;
	gc_bf16_sum(inout, in, (size_t)*len);
}

static const char *coll_name(int coll, int blocking)
{
	if (coll == GC_COLL_ALLREDUCE)
		return blocking ? "MPI_Allreduce" : "MPI_Iallreduce";
	if (coll == GC_COLL_ALLTOALL)
		return blocking ? "MPI_Alltoall" : "MPI_Ialltoall";
	return blocking ? "MPI_Allgather" : "MPI_Iallgather";
}

static void expire(gc_wk_comm *c, int bucket, int coll, int blocking, uint64_t t0)
{
	char host[256] = "?";
	gethostname(host, sizeof(host) - 1);
	gc_error("rank %d on '%s': %s of bucket %d did not finish within the deadline "
		 "(%.1f s elapsed, --deadline %g): a peer is gone or the network stalled; aborting the job",
		 c->rank, host, coll_name(coll, blocking), bucket, (double)(gc_now_ns() - t0) * 1e-9,
		 c->deadline);
	MPI_Abort(MPI_COMM_WORLD, GC_EXIT_ENV);
	_exit(GC_EXIT_ENV);
}

static void *watchdog(void *arg)
{
	gc_wk_comm *c = arg;
	struct mpi_st *s = c->st;
	while (!atomic_load(&s->dog_quit)) {
		uint64_t t0 = atomic_load(&s->busy_since);
		if (t0 && (double)(gc_now_ns() - t0) * 1e-9 > c->deadline)
			expire(c, atomic_load(&s->busy_bucket), atomic_load(&s->busy_coll), 1, t0);
		gc_sleep_until_ns(gc_now_ns() + 20000000ull);
	}
	return NULL;
}

static void dt_op(gc_dtype t, struct mpi_st *s, MPI_Datatype *dt, MPI_Op *op)
{
	*op = MPI_SUM;
	if (t == GC_DT_F32)
		*dt = MPI_FLOAT;
	else if (t == GC_DT_F16)
		*dt = MPI_UINT16_T, *op = s->half_sum;
	else if (t == GC_DT_BF16)
		*dt = MPI_UINT16_T, *op = s->bf16_sum;
	else
		*dt = MPI_BYTE;
}

/* Start round r (blocking: run it); *nreq requests to wait for (nb). */
static int start(gc_wk_comm *c, const gc_round *r, MPI_Request *req, int *nreq)
{
	struct mpi_st *s = c->st;
	MPI_Datatype dt;
	MPI_Op op;
	size_t esz = gc_dtype_size(r->dtype), n = r->count;
	int k = 1, err = MPI_SUCCESS;

	dt_op(r->dtype, s, &dt, &op);
	*nreq = 0;
	if (r->coll == GC_COLL_ALLTOALL) {
		if (s->blocking)
			return MPI_Alltoall(r->send, (int)n, dt, r->recv, (int)n, dt, MPI_COMM_WORLD);
		*nreq = 1;
		return MPI_Ialltoall(r->send, (int)n, dt, r->recv, (int)n, dt, MPI_COMM_WORLD, req);
	}
	if (r->coll != GC_COLL_ALLREDUCE) {
		if (s->blocking)
			return MPI_Allgather(r->send, (int)n, dt, r->recv, (int)n, dt, MPI_COMM_WORLD);
		*nreq = 1;
		return MPI_Iallgather(r->send, (int)n, dt, r->recv, (int)n, dt, MPI_COMM_WORLD, req);
	}
	if (s->blocking)
		return MPI_Allreduce(r->send == r->recv ? MPI_IN_PLACE : r->send, r->recv, (int)n,
				     dt, op, MPI_COMM_WORLD);
	if (n * esz >= RING_MIN)
		k = s->rings;
	for (int i = 0; i < k && err == MPI_SUCCESS; i++) {
		size_t a = n * (size_t)i / (size_t)k, b = n * (size_t)(i + 1) / (size_t)k;
		const void *snd = r->send == r->recv ? MPI_IN_PLACE : (const char *)r->send + a * esz;
		err = MPI_Iallreduce(snd, (char *)r->recv + a * esz, (int)(b - a), dt, op,
				     MPI_COMM_WORLD, &req[i]);
		if (err == MPI_SUCCESS)
			*nreq = i + 1;
	}
	return err;
}

static gc_rc mpi_fail(gc_wk_comm *c, int err, const gc_round *r, int bucket, const char *where,
		      gc_err *e)
{
	char msg[MPI_MAX_ERROR_STRING] = "";
	int len = 0;
	MPI_Error_string(err, msg, &len);
	return gc_fail(e, GC_E_MPI, "rank %d: %s of bucket %d (%zu x %zu bytes) failed in %s: %s",
		       c->rank, coll_name(r->coll, ((struct mpi_st *)c->st)->blocking), bucket,
		       r->count, gc_dtype_size(r->dtype), where, msg);
}

static gc_rc mpi_run(gc_wk_comm *c, const gc_round *r, int bucket, gc_err *e)
{
	struct mpi_st *s = c->st;
	MPI_Request req[GC_WK_MAX_RINGS];
	uint64_t t0 = gc_now_ns(), lim = t0 + (uint64_t)(c->deadline * 1e9);
	int err, flag = 0, nreq = 0;

	if (r->count > (size_t)2147483647)
		return gc_fail(e, GC_E_INVAL, "a round of %zu elements exceeds MPI's int count", r->count);
	if (s->blocking) {
		atomic_store(&s->busy_bucket, bucket);
		atomic_store(&s->busy_coll, (int)r->coll);
		atomic_store(&s->busy_since, t0);
	}
	err = start(c, r, req, &nreq);
	atomic_store(&s->busy_since, 0);
	if (err != MPI_SUCCESS)
		return mpi_fail(c, err, r, bucket, "the call", e);
	while (nreq) {
		err = MPI_Testall(nreq, req, &flag, MPI_STATUSES_IGNORE);
		if (err != MPI_SUCCESS)
			return mpi_fail(c, err, r, bucket, "MPI_Testall", e);
		if (flag)
			break;
		if (gc_now_ns() > lim)
			expire(c, bucket, (int)r->coll, 0, t0);
		sched_yield();
	}
	return GC_OK;
}

static void mpi_abort(gc_wk_comm *c, int code)
{
	(void)c;
	MPI_Abort(MPI_COMM_WORLD, code);
	_exit(code);
}

static void mpi_release(gc_wk_comm *c)
{
	struct mpi_st *s = c->st;
	if (!s)
		return;
	if (s->have_dog) {
		atomic_store(&s->dog_quit, 1);
		pthread_join(s->dog, NULL);
	}
	MPI_Op_free(&s->half_sum);
	MPI_Op_free(&s->bf16_sum);
	free(s);
	c->st = NULL;
}

static const char *algo_name(const char *v, const char *const *names, int n)
{
	char *end;
	long i = v ? strtol(v, &end, 10) : -1;
	if (!v || *end || i < 0 || i >= n)
		return v ? v : "default";
	return names[i];
}

/* Which algorithm the run asked for, from the OMPI_MCA_* environment that mpirun --mca
 * (or the user) set; "default" means OpenMPI's own decision rules. */
static void describe_algos(gc_wk_comm *c, int blocking, int rings)
{
	static const char *const tuned_ar[] = { "default", "basic_linear", "nonoverlapping",
		"recursive_doubling", "ring", "segmented_ring", "rabenseifner" };
	static const char *const tuned_ag[] = { "default", "linear", "bruck", "recursive_doubling",
		"ring", "neighbor_exchange", "two_proc" };
	static const char *const nbc_ar[] = { "default", "ring", "binomial", "rabenseifner",
		"recursive_doubling" };
	static const char *const nbc_ag[] = { "default", "linear", "recursive_doubling" };
	const char *dyn = getenv("OMPI_MCA_coll_tuned_use_dynamic_rules");
	int on = dyn && strcmp(dyn, "0") && strcmp(dyn, "false");

	if (!blocking) {
		const char *ar = algo_name(getenv("OMPI_MCA_coll_libnbc_iallreduce_algorithm"),
					   nbc_ar, 5);
		if (rings > 1)
			snprintf(c->algo_allreduce, sizeof(c->algo_allreduce),
				 "libnbc:%s, %d rings from %u MiB", ar, rings, RING_MIN >> 20);
		else
			snprintf(c->algo_allreduce, sizeof(c->algo_allreduce), "libnbc:%s", ar);
		snprintf(c->algo_allgather, sizeof(c->algo_allgather), "libnbc:%s",
			 algo_name(getenv("OMPI_MCA_coll_libnbc_iallgather_algorithm"), nbc_ag, 3));
		return;
	}
	snprintf(c->algo_allreduce, sizeof(c->algo_allreduce), "tuned:%s", on ?
		 algo_name(getenv("OMPI_MCA_coll_tuned_allreduce_algorithm"), tuned_ar, 7) : "default");
	snprintf(c->algo_allgather, sizeof(c->algo_allgather), "tuned:%s", on ?
		 algo_name(getenv("OMPI_MCA_coll_tuned_allgather_algorithm"), tuned_ag, 7) : "default");
}

gc_rc gc_wk_comm_mpi_init(gc_wk_comm *c, const gc_wk_cfg *cfg, gc_err *e)
{
	struct mpi_st *s = calloc(1, sizeof(*s));
	const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
	int len = 0;

	if (!s)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	memset(c, 0, sizeof(*c));
	c->name = "mpi";
	c->st = s;
	c->deadline = cfg->deadline;
	MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &c->world);
	c->local_rank = lr ? atoi(lr) : 0;
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Op_create(half_sum_fn, 1, &s->half_sum);
	MPI_Op_create(bf16_sum_fn, 1, &s->bf16_sum);
	MPI_Get_library_version(c->lib_version, &len);
	c->lib_version[strcspn(c->lib_version, "\r\n")] = 0;
	s->blocking = cfg->blocking;
	s->rings = cfg->rings > 0 ? cfg->rings : 1;
	describe_algos(c, s->blocking, s->rings);
	c->run = mpi_run;
	c->abort = mpi_abort;
	c->release = mpi_release;
	if (s->blocking) {
		if (pthread_create(&s->dog, NULL, watchdog, c)) {
			mpi_release(c);
			return gc_fail(e, GC_E_STATE, "cannot start the watchdog thread");
		}
		s->have_dog = 1;
	}
	return GC_OK;
}

/* tools/gpu-check/mpi/mpi_stub.c: see mpi.h beside it. */
#include "mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t dt_size(MPI_Datatype dt)
{
	return (size_t)dt / 16;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	(void)argc, (void)argv;
	*provided = required;
	return MPI_SUCCESS;
}

int MPI_Finalize(void) { return MPI_SUCCESS; }

int MPI_Abort(MPI_Comm comm, int code)
{
	(void)comm;
	fprintf(stderr, "MPI_Abort (one-process stub): exit %d\n", code);
	fflush(NULL);
	exit(code);
}

int MPI_Comm_rank(MPI_Comm comm, int *rank) { (void)comm; *rank = 0; return MPI_SUCCESS; }
int MPI_Comm_size(MPI_Comm comm, int *size) { (void)comm; *size = 1; return MPI_SUCCESS; }

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out)
{
	(void)comm, (void)type, (void)key, (void)info;
	*out = MPI_COMM_WORLD;
	return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm *comm) { *comm = 0; return MPI_SUCCESS; }
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler h) { (void)comm, (void)h; return MPI_SUCCESS; }

int MPI_Get_library_version(char *version, int *len)
{
	*len = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "gcbench one-process MPI stub "
			"(tools/gpu-check/mpi)");
	return MPI_SUCCESS;
}

int MPI_Error_string(int code, char *msg, int *len)
{
	*len = snprintf(msg, MPI_MAX_ERROR_STRING, "MPI stub error %d", code);
	return MPI_SUCCESS;
}

double MPI_Wtime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int MPI_Barrier(MPI_Comm comm) { (void)comm; return MPI_SUCCESS; }

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
	(void)buf, (void)count, (void)dt, (void)comm;
	return root == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* One rank: the reduction of one contribution is that contribution. */
int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
	(void)op, (void)comm;
	if (send != MPI_IN_PLACE && count > 0)
		memmove(recv, send, (size_t)count * dt_size(dt));
	return MPI_SUCCESS;
}

int MPI_Iallreduce(const void *send, void *recv, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
		   MPI_Request *req)
{
	*req = 0;
	return MPI_Allreduce(send, recv, count, dt, op, comm);
}

int MPI_Allgather(const void *send, int scount, MPI_Datatype sdt, void *recv, int rcount,
		  MPI_Datatype rdt, MPI_Comm comm)
{
	(void)rcount, (void)rdt, (void)comm;
	if (send != MPI_IN_PLACE && scount > 0)
		memmove(recv, send, (size_t)scount * dt_size(sdt));
	return MPI_SUCCESS;
}

int MPI_Iallgather(const void *send, int scount, MPI_Datatype sdt, void *recv, int rcount,
		   MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req)
{
	*req = 0;
	return MPI_Allgather(send, scount, sdt, recv, rcount, rdt, comm);
}

int MPI_Wait(MPI_Request *req, MPI_Status *st) { (void)req, (void)st; return MPI_SUCCESS; }

int MPI_Testall(int n, MPI_Request *req, int *flag, MPI_Status *st)
{
	(void)n, (void)req, (void)st;
	*flag = 1;
	return MPI_SUCCESS;
}

int MPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op)
{
	(void)fn, (void)commute;
	*op = 3;
	return MPI_SUCCESS;
}

int MPI_Op_free(MPI_Op *op) { *op = 0; return MPI_SUCCESS; }

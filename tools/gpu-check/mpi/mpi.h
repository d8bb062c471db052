/* tools/gpu-check/mpi/mpi.h: a one-process MPI (world size 1) with the calls
 * gcbench-worker makes, for a GPU machine without MPI: tools/gpu-check.sh builds the
 * worker with MPI_STUB=1 and runs it without mpirun. Collectives of one rank are
 * copies; MPI_Abort exits. Not an MPI: no second rank can ever join. */
#ifndef GC_MPI_STUB_H
#define GC_MPI_STUB_H

#include <stddef.h>

typedef int MPI_Comm;
typedef int MPI_Datatype;              /* the element size in bytes, times 16, plus a tag */
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Info;
typedef int MPI_Errhandler;
typedef struct MPI_Status { int MPI_SOURCE, MPI_TAG, MPI_ERROR; } MPI_Status;
typedef void MPI_User_function(void *in, void *inout, int *len, MPI_Datatype *dt);

#define MPI_SUCCESS 0
#define MPI_ERR_OTHER 15
#define MPI_COMM_WORLD 1
#define MPI_COMM_TYPE_SHARED 1
#define MPI_INFO_NULL 0
#define MPI_ERRORS_RETURN 1
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_IN_PLACE ((void *)1)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_BYTE (1 * 16 + 0)
#define MPI_UINT16_T (2 * 16 + 1)
#define MPI_FLOAT (4 * 16 + 2)
#define MPI_DOUBLE (8 * 16 + 3)
#define MPI_SUM 1
#define MPI_MAX 2

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Finalize(void);
int MPI_Abort(MPI_Comm comm, int code);
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);
int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out);
int MPI_Comm_free(MPI_Comm *comm);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler h);
int MPI_Get_library_version(char *version, int *len);
int MPI_Error_string(int code, char *msg, int *len);
double MPI_Wtime(void);
int MPI_Barrier(MPI_Comm comm);
int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int MPI_Allreduce(const void *send, void *recv, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm);
int MPI_Iallreduce(const void *send, void *recv, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
		   MPI_Request *req);
int MPI_Allgather(const void *send, int scount, MPI_Datatype sdt, void *recv, int rcount,
		  MPI_Datatype rdt, MPI_Comm comm);
int MPI_Iallgather(const void *send, int scount, MPI_Datatype sdt, void *recv, int rcount,
		   MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req);
int MPI_Wait(MPI_Request *req, MPI_Status *st);
int MPI_Testall(int n, MPI_Request *req, int *flag, MPI_Status *st);
int MPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op);
int MPI_Op_free(MPI_Op *op);

#endif

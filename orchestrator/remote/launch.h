/* orchestrator/remote/launch.h: the mpirun command line for one sweep point.
 *
 * Keeps the workers' traffic on the shaped interface (DESIGN.md): OpenMPI with
 * `pml ob1`, `btl tcp,self` and `btl_tcp_if_include <iface>` so neither UCX nor shared
 * memory bypasses tc; ring algorithms for all-reduce and all-gather (the defaults
 * reach only 0.5-0.7 of a cap here); `mpi_yield_when_idle` when ranks outnumber cores;
 * a raised MALLOC_MMAP_THRESHOLD_ so per-call buffers do not page-fault; for NCCL,
 * NCCL_IB_DISABLE=1 and NCCL_SOCKET_IFNAME=<iface> (RDMA would bypass tc). Every value
 * is validated as a safe token before it reaches the command line.
 */
#ifndef GC_LAUNCH_H
#define GC_LAUNCH_H

#include <stddef.h>

#include "result.h"

#define GC_LAUNCH_MAX_HOSTS 256
#define GC_LAUNCH_MAX_PARAMS 16

typedef struct gc_launch {
	const char *mpirun;            /* "mpirun" if NULL */
	const char *worker;            /* path of gcbench-worker on the nodes */
	const char *hosts[GC_LAUNCH_MAX_HOSTS]; /* host names as ssh knows them */
	size_t nhosts;
	int slots_per_host;            /* ranks per host (1 for one GPU or CPU rank per node) */
	int world;                     /* ranks; uses the first ceil(world/slots) hosts */
	const char *ssh_config;        /* for plm_rsh_agent, or NULL */
	const char *iface;             /* data interface (or CIDR) for btl_tcp_if_include */
	const char *oob_include;       /* interface or CIDR for OpenMPI's control channel, or NULL */
	const char *backend;           /* "mpi" or "nccl" */
	const char *method;
	const char *params[GC_LAUNCH_MAX_PARAMS]; /* "key=value" */
	size_t nparams;
	const char *workload;          /* "replay:resnet50", "train:mlp" */
	int iters, warmup, batch;
	double compute_scale;
	double deadline_s;             /* per-collective deadline for the worker */
	int threads;                   /* worker --threads; 0: the worker decides */
	int eval_every;                /* worker --eval-every (training workloads); 0: none */
	const char *data;              /* worker --data (training workloads), or NULL */
	const char *out_pattern;       /* record file pattern on the nodes (%r = rank) */
	int allow_root;                /* add --allow-run-as-root */
	int oversubscribe;             /* ranks may exceed cores (emulated cluster) */
	long long run_id;              /* > 0: the job's mark, --mca gcbench_run ID
	                                * (orchestrator/remote/reap.h) */
} gc_launch;

/* The argv (NULL-terminated, owned: free with gc_argv_free). GC_E_INVAL names
 * the unsafe or missing value. */
gc_rc gc_launch_argv(const gc_launch *l, char ***out, gc_err *e);

/* The network settings the launch applies, as a JSON object (owned string), for the
 * runs table. */
char *gc_launch_settings_json(const gc_launch *l);

#endif

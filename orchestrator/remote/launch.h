/* orchestrator/remote/launch.h: the mpirun command line for one sweep point, its
 * hostfile and the ssh configuration mpirun reaches the hosts with.
 *
 * Reach (docs/spec.md, Reaching the hosts): mpirun gets a hostfile (`NAME slots=K`,
 * each host's own ranks) and, as its rsh agent, `ssh -F FILE` where FILE is an
 * ssh_config written for the run from the inventory: per host its address, user,
 * port, key and gcbench's ControlMaster socket, the options gcbench's own ssh uses,
 * and the inventory's ssh_config (or the user's and the system's) included after
 * them, so mpirun reaches every host exactly as provisioning and shaping do. Tree
 * spawn is off: only the controller runs ssh.
 *
 * Keeps the workers' traffic on the shaped interface (DESIGN.md): OpenMPI with
 * `pml ob1`, `btl tcp,self` and `btl_tcp_if_include <data subnet CIDR>` (or an
 * interface name) so neither UCX nor shared memory bypasses tc; ring algorithms for
 * all-reduce and all-gather (the defaults reach only 0.5-0.7 of a cap here);
 * `mpi_yield_when_idle` when ranks outnumber cores; a raised MALLOC_MMAP_THRESHOLD_ so
 * per-call buffers do not page-fault; for NCCL, NCCL_IB_DISABLE=1 (RDMA would bypass
 * tc) and NCCL_SOCKET_IFNAME set per host: with a data subnet each rank starts
 * through `/bin/sh -c` with a fixed script that finds the host's interface on that
 * subnet (`ip -o -4 addr show to CIDR`), exports NCCL_SOCKET_IFNAME and passes it as
 * the worker's --iface. Every value is validated as a safe token before it reaches
 * the command line.
 *
 * Your own program (workload: command, orchestrator/spec/spec_command.h): the same
 * mpirun line, network settings and mark, but each rank starts through a fixed
 * `/bin/sh -c` script (gcbench-command) that maps Open MPI's OMPI_COMM_WORLD_RANK,
 * _SIZE and _LOCAL_RANK to RANK, WORLD_SIZE and LOCAL_RANK, exports MASTER_ADDR,
 * MASTER_PORT, NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME (the host's data interface,
 * found as above), GCBENCH_RECORDS (RECORDS_DIR/records-rRANK.gcr) and, with files,
 * GCBENCH_FILES, changes into that folder, exports GCBENCH_BIN (bin_dir) and puts
 * bin_dir/python (gcbench's Python modules, provision.h) first on PYTHONPATH, replaces
 * {records} in the arguments with the rank's path and {bin} with GCBENCH_BIN, and
 * execs the program. Before all that it exports the variables of env (the spec's
 * env:, the inventory host's env: and python:, this host's entries picked by its data
 * address), and {python} becomes $GCBENCH_PYTHON (python3 when unset). With threads,
 * OMP_NUM_THREADS is set; with
 * deadline_s, GCBENCH_DEADLINE_S (the program's own collective timeout, if it has one).
 */
#ifndef GC_LAUNCH_H
#define GC_LAUNCH_H

#include <stddef.h>

#include "buf.h"
#include "kernels/params.h"
#include "nodes.h"
#include "result.h"

#define GC_LAUNCH_MAX_HOSTS 256
#define GC_LAUNCH_MAX_ENV 64
#define GC_LAUNCH_ENV_LEN 360

typedef struct gc_launch {
	const char *mpirun;            /* "mpirun" if NULL */
	const char *worker;            /* path of gcbench-worker on the nodes; relative: to each
	                                * host's $HOME (needs data_cidr: the wrapper resolves it) */
	const char *hosts[GC_LAUNCH_MAX_HOSTS]; /* host names as the agent's ssh knows them */
	int slots[GC_LAUNCH_MAX_HOSTS];         /* ranks on each host (0: unused) */
	size_t nhosts;
	int world;                     /* ranks: the sum of slots */
	const char *hostfile;          /* --hostfile PATH (gc_launch_hostfile), or NULL: --host */
	const char *ssh_config;        /* for plm_rsh_agent (gc_launch_ssh_config), or NULL */
	const char *iface;             /* data interface (first host's; without data_cidr, all) */
	const char *data_cidr;         /* the hosts' data subnet, "10.0.0.0/24", or NULL */
	const char *oob_include;       /* interface or CIDR for OpenMPI's control channel, or NULL */
	const char *backend;           /* "mpi" or "nccl" */
	const char *method;
	const gc_params *params;       /* the method's parameters, or NULL (none): written
	                                * once, by gc_params_format, into --method NAME:k=v,... */
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
	/* workload: command: run this instead of gcbench-worker (worker, method, params,
	 * workload, out_pattern and the worker's options are then not used) */
	char *const *command;          /* expanded argv ({records} left for the wrapper) */
	size_t n_command;
	const char *files_dir;         /* the spec's files on the hosts (relative: to $HOME),
	                                * or NULL */
	const char *records_dir;       /* rank R writes RECORDS_DIR/records-rR.gcr */
	const char *bin_dir;           /* gcbench's binaries on the hosts (relative: to $HOME),
	                                * for {bin} and $GCBENCH_BIN */
	const char *master_addr;       /* rank 0's host on the data subnet */
	int master_port;
	/* workload: command: variables the wrapper exports, in order (a later one wins):
	 * "*\/NAME=VALUE" on every host, "ADDR/NAME=VALUE" on the host whose address on the
	 * data subnet is ADDR (needs data_cidr). NAME passes gc_env_name_problem, or is
	 * GCBENCH_PYTHON ({python}); VALUE gc_env_value_problem (a leading ~/ is expanded
	 * to the host's $HOME there) */
	char env[GC_LAUNCH_MAX_ENV][GC_LAUNCH_ENV_LEN];
	size_t n_env;
} gc_launch;

/* The argv (NULL-terminated, owned: free with gc_argv_free). GC_E_INVAL names
 * the unsafe or missing value. */
gc_rc gc_launch_argv(const gc_launch *l, char ***out, gc_err *e);

/* The hostfile's text: "NAME slots=K" for each host with ranks. GC_E_INVAL when a
 * name is not a safe token. */
gc_rc gc_launch_hostfile(const gc_launch *l, gc_buf *out, gc_err *e);

/* The ssh_config mpirun's agent uses for these nodes: a Host block per node with what
 * gc_node_target gives gcbench's own ssh (HostName, Port, User, IdentityFile,
 * ControlPath; with an ssh_config, HostName only for an address other than the name,
 * Port only when written), then BatchMode, strict host keys
 * and timeouts for every host, then `Include` of the inventory's ssh_config, or of
 * ~/.ssh/config and /etc/ssh/ssh_config (where jump hosts are set). GC_E_INVAL names
 * an unsafe value. */
gc_rc gc_launch_ssh_config(const gc_node *nodes, size_t n, gc_buf *out, gc_err *e);

/* The network settings the launch applies, as a JSON object (owned string), for the
 * runs table. */
char *gc_launch_settings_json(const gc_launch *l);

#endif

/* orchestrator/remote/provision.h: put this build on every node over ssh, check that it runs
 * there, and compare the nodes' environments (`gcbench provision`, and the first step
 * of `gcbench run` unless --no-provision).
 *
 * A build is the controller's own gcbench, gcbench-worker, gcbench-netem and
 * gcbench-probe (GC_PROVISION_FILES). Its content hash is the SHA-256 of its manifest
 * (the `sha256sum` lines of those files, by base name); a node keeps it in
 * ~/.cache/gcbench/<first 16 hex digits>/ with the manifest as SHA256SUMS. Per node:
 *   1. one ssh round trip: is the directory there and does `sha256sum -c` pass? If so,
 *      `--help` of every binary is run there in the same command and nothing is copied;
 *   2. else one tar stream over the same (multiplexed) ssh connection into a temporary
 *      directory, verified with `sha256sum -c`, renamed into place, then checked;
 *   3. a binary that does not run: the missing shared library is named with the Debian
 *      package that has it and the apt-get line (with install_deps and a root login,
 *      installed there, then checked again);
 *   4. the node's CPU: its /proc/cpuinfo flags must hold every flag the build's
 *      baseline needs (kernels/isa.h, gc_build_cpu_flags), and `gcbench-worker
 *      --self-test` (every kernel executed there, against the baseline variant) must
 *      pass; else the node is refused naming its CPU model and the missing flags (or
 *      SIGILL). An ARCH=native build is warned about once per provisioning.
 * On success each node's bin_dir is its build directory. Nothing of an inventory
 * reaches a shell unquoted: remote scripts are constant and take values as "$1".
 */
#ifndef GC_PROVISION_H
#define GC_PROVISION_H

#include <stddef.h>
#include <stdio.h>

#include "formats/envinfo.h"
#include "nodes.h"
#include "result.h"

#define GC_PROVISION_FILES { "gcbench", "gcbench-worker", "gcbench-netem", "gcbench-probe" }
#define GC_PROVISION_NFILES 4

#define GC_PROVISION_MAX_DATA 16
#define GC_PROVISION_MAX_FILES 80   /* a spec's files: (GC_SPEC_MAX_FILES) and gcbench's
                                     * Python modules */
/* gcbench's Python modules (python/ in the source tree, PREFIX/share/gcbench/python
 * installed): every command workload's build has them in python/, on the ranks'
 * PYTHONPATH (orchestrator/remote/launch.h); gcbench_ddp.py is workload: ddp's runner,
 * gcbench_grace.py its adapter for GRACE-style compressors */
#define GC_PROVISION_PYTHON { "gcbench_records.py", "gcbench_ddp.py", "gcbench_grace.py" }
#define GC_PROVISION_NPYTHON 3

struct gc_build {
	char bin_dir[1024];      /* where the files are on the controller */
	char hash[65];           /* SHA-256 of the manifest, hex */
	char short_hash[17];     /* its first 16 digits: the directory name on the nodes */
	char manifest[16384];    /* "HEX  gcbench\n..." as sha256sum prints it */
	unsigned long long bytes;
	char interp[256];        /* the binaries' ELF interpreter ("" if unknown) */
	/* data the workers read (a spec's csv: models), as models/<digest16>.csv */
	size_t n_data;
	char data_src[GC_PROVISION_MAX_DATA][1024];   /* on the controller */
	char data_name[GC_PROVISION_MAX_DATA][32];    /* "<first 16 digits of its sha256>.csv" */
	/* a command workload's files: (orchestrator/spec/spec.h), as files/<name>, and
	 * gcbench's Python modules, as python/<name> */
	size_t n_files;
	char file_src[GC_PROVISION_MAX_FILES][1024];  /* on the controller */
	char file_name[GC_PROVISION_MAX_FILES][160];  /* in the build: "files/pkg/util.py" */
};

/* Hash the build in bin_dir (sha256sum of each file, then of the manifest), with the
 * n_data parameter lists in data (may be NULL): each must be a regular file of at most
 * 16 MiB that reads as a parameter list (formats/arch.h csv: format); else it is
 * refused without quoting it. GC_E_NOTFOUND naming the file when one is missing. */
gc_rc gc_build_init(struct gc_build *b, const char *bin_dir, const char *const *data,
		    size_t n_data, gc_err *e);

/* Add files (a spec's files:, each a regular file of at most 16 MiB, names distinct
 * relative paths without "." or ".." components: "pkg/util.py") to an initialised build
 * as files/<name>: each is hashed into the manifest and the build's hash is computed
 * again, so a changed file is a new build on the nodes. GC_E_NOTFOUND names a missing
 * file, GC_E_INVAL a name that is not such a path or given twice. */
gc_rc gc_build_add_files(struct gc_build *b, const char *const *src, const char *const *names,
			 size_t n, gc_err *e);

/* The folder of gcbench's Python modules beside the program in self_dir (the source
 * tree's python/ for build/bin, PREFIX/share/gcbench/python for PREFIX/bin) into out:
 * GC_OK when it has every GC_PROVISION_PYTHON file, else GC_E_NOTFOUND naming the
 * folders looked in. */
gc_rc gc_build_python_dir(const char *self_dir, char *out, size_t n, gc_err *e);

/* Add gcbench's Python modules from dir to an initialised build as python/<name>, as
 * gc_build_add_files does. */
gc_rc gc_build_add_python(struct gc_build *b, const char *dir, gc_err *e);

struct gc_provision_opts {
	int install_deps;        /* apt-get install a missing library's package (root login) */
	int quiet;               /* no per-node info lines */
	int check_shape;         /* also gc_node_check each node (may the login shape?) */
};

/* What provisioning did on one node. */
struct gc_provision_result {
	int copied;              /* 0: the node had the build already */
	double seconds;          /* wall time for this node */
	char kernels[16];        /* the kernel ISA level its self-test ran ("avx2") */
};

/* Provision one node (steps 1-3); sets n->bin_dir on success. */
gc_rc gc_provision_node(gc_node *n, const struct gc_build *b, const struct gc_provision_opts *o,
			struct gc_provision_result *r, gc_err *e);

/* Step 4 from the node's check output `out` (cpu_model=, cpu_flags=, selftest_rc=,
 * selftest= lines): GC_E_UNSUPPORTED naming the node, its CPU model and the flags of
 * `needs` (space-separated, /proc/cpuinfo names) it lacks, or SIGILL (status 132) in
 * the self-test; GC_E_CHILD for another self-test failure (its verdict line); GC_OK
 * otherwise, with the self-test's kernel level in isa ("" if not given). arch names the
 * build in messages. A node without cpu_flags is judged by its self-test alone. */
gc_rc gc_provision_check_cpu(const char *node, const char *out, const char *needs,
			     const char *arch, char *isa, size_t in, gc_err *e);

/* The Debian package that ships shared library `lib` ("libyaml-0.so.2" ->
 * "libyaml-0-2"): a table of what gcbench links, else `dpkg-query -S` on this machine;
 * "" when unknown. */
void gc_provision_lib_package(const char *lib, char *pkg, size_t n);

/* Compare the nodes' environments: a different MPI major.minor or NCCL version across
 * nodes is refused (GC_E_MISMATCH) after a table of who has what is written to out;
 * other differences (kernel, driver, CUDA, libraries, TCP congestion control, GPU)
 * are warned about, with the same table. */
gc_rc gc_provision_compare_envs(const gc_node *nodes, const struct gc_envinfo *envs, size_t n,
				FILE *out, gc_err *e);

/* Everything above for a sweep's nodes: build b onto every node (all at once: one
 * process per node, each over its own ssh connection, which also reads the node's
 * environment and, with o->check_shape, runs gc_node_check there), then their
 * environments compared. Per-node lines and the total time go to the log. */
gc_rc gc_provision_nodes(gc_node *nodes, size_t n, const struct gc_build *b,
			 const struct gc_provision_opts *o, gc_err *e);

#endif

/* orchestrator/remote/env_probe.c: probe this host's versions into its environment
 * record (no hard dependency on any of CUDA, NCCL or MPI: they are looked up at run
 * time; SQLite's and libnl's versions are asked of db/ and netem/, which own them). */
#include "env_probe.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "db/engine.h"
#include "netem/shape.h"
#include "proc.h"
#include "strutil.h"

/* how long `ompi_info --version` may take */
#define GC_ENV_PROBE_TIMEOUT_S 5.0

/* First line of a file, without the newline; "" if unreadable. */
static void read_line(const char *path, char *dst, size_t n)
{
	FILE *f = fopen(path, "r");

	dst[0] = 0;
	if (!f)
		return;
	if (fgets(dst, (int)n, f))
		dst[strcspn(dst, "\n")] = 0;
	fclose(f);
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug ..." */
static void probe_driver(struct gc_envinfo *in)
{
	char line[512], *p;

	read_line("/proc/driver/nvidia/version", line, sizeof(line));
	p = strstr(line, "Kernel Module");
	if (!p)
		return;
	p += strlen("Kernel Module");
	while (*p == ' ')
		p++;
	p[strcspn(p, " ")] = 0;
	gc_strlcpy(in->driver, p, sizeof(in->driver));
}

/* /proc/driver/nvidia/gpus/<bus>/information: "Model: \t\t NVIDIA H100 ..." */
static void probe_gpus(struct gc_envinfo *in)
{
	DIR *d = opendir("/proc/driver/nvidia/gpus");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[512], line[256];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		in->gpu_count++;
		snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			char *p = line + strlen("Model:");
			if (strncmp(line, "Model:", 6) || in->gpu_model[0])
				continue;
			p += strspn(p, " \t");
			p[strcspn(p, "\n")] = 0;
			gc_strlcpy(in->gpu_model, p, sizeof(in->gpu_model));
		}
		if (f)
			fclose(f);
	}
	closedir(d);
}

/* call int fn(int *) from a shared library; 0 on success */
static int dl_int_version(const char *lib, const char *sym, int *v)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	int (*fn)(int *);
	int rc = -1;

	if (!h)
		return -1;
	*(void **)(&fn) = dlsym(h, sym);
	if (fn && fn(v) == 0)
		rc = 0;
	dlclose(h);
	return rc;
}

static void probe_cuda_nccl(struct gc_envinfo *in)
{
	int v;

	if (!dl_int_version("libcuda.so.1", "cuDriverGetVersion", &v))
		snprintf(in->cuda, sizeof(in->cuda), "%d.%d", v / 1000, (v % 1000) / 10);
	/* NCCL >= 2.9 encodes major*10000 + minor*100 + patch; older major*1000 + ... */
	if (!dl_int_version("libnccl.so.2", "ncclGetVersion", &v)) {
		if (v >= 10000)
			snprintf(in->nccl, sizeof(in->nccl), "%d.%d.%d", v / 10000,
				 (v % 10000) / 100, v % 100);
		else
			snprintf(in->nccl, sizeof(in->nccl), "%d.%d.%d", v / 1000,
				 (v % 1000) / 100, v % 100);
	}
}

/* `ompi_info --version` prints "Open MPI v4.1.4" first; a few seconds at most */
static void probe_mpi(struct gc_envinfo *in)
{
	char prog[] = "ompi_info", opt[] = "--version";
	char *argv[] = { prog, opt, NULL };
	gc_proc_result res;

	if (gc_proc_run(argv, NULL, NULL, GC_ENV_PROBE_TIMEOUT_S, 0, &res, NULL) == GC_OK &&
	    res.out && !strncmp(res.out, "Open MPI", 8)) {
		res.out[strcspn(res.out, "\n")] = 0;
		gc_strlcpy(in->mpi, res.out, sizeof(in->mpi));
	}
	gc_proc_result_release(&res);
}

void gc_envinfo_probe(struct gc_envinfo *in, const char *gcbench_version)
{
	struct utsname u;

	memset(in, 0, sizeof(*in));
	if (gethostname(in->host, sizeof(in->host) - 1))
		gc_strlcpy(in->host, "unknown", sizeof(in->host));
	if (!uname(&u))
		gc_strlcpy(in->kernel, u.release, sizeof(in->kernel));
	probe_driver(in);
	probe_gpus(in);
	probe_cuda_nccl(in);
	probe_mpi(in);
	gc_strlcpy(in->libnl, gc_netem_libnl_version(), sizeof(in->libnl));
	gc_strlcpy(in->sqlite, gc_db_engine_version(), sizeof(in->sqlite));
	gc_strlcpy(in->gcbench, gcbench_version ? gcbench_version : "", sizeof(in->gcbench));
	read_line("/proc/sys/net/ipv4/tcp_congestion_control", in->tcp_cc, sizeof(in->tcp_cc));
}

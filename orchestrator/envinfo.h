/* orchestrator/envinfo.h: the software and hardware a host runs, as stored with every
 * run (db/ table environments). `gcbench env` prints it for this host.
 *
 * Versions are text as the component reports them ("2.18.3", "535.104.05",
 * "6.1.0-18-amd64") plus a sortable integer (gc_version_num). Unknown fields are "".
 */
#ifndef GC_ENVINFO_H
#define GC_ENVINFO_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define GC_ENV_FIELD 128

struct gc_envinfo {
	char host[GC_ENV_FIELD];
	char gpu_model[GC_ENV_FIELD];   /* "" without a GPU */
	int gpu_count;
	char driver[GC_ENV_FIELD];      /* NVIDIA driver */
	char cuda[GC_ENV_FIELD];        /* CUDA runtime the driver supports */
	char nccl[GC_ENV_FIELD];
	char mpi[GC_ENV_FIELD];         /* "Open MPI 4.1.4" style name + version */
	char kernel[GC_ENV_FIELD];      /* uname -r */
	char libnl[GC_ENV_FIELD];
	char sqlite[GC_ENV_FIELD];
	char gcbench[GC_ENV_FIELD];
	char tcp_cc[GC_ENV_FIELD];      /* net.ipv4.tcp_congestion_control */
	char tag[GC_ENV_FIELD];         /* free-form label the user chose ("" if none) */
};

/* Sortable integer of a version string: the first three numbers found, as
 * major*1000000 + minor*1000 + patch (each clamped to 999); "Open MPI 4.1.4" ->
 * 4001004, "535.104.05" -> 535104005, "6.1.0-18-amd64" -> 6001000. 0 when s holds no
 * digit. */
int64_t gc_version_num(const char *s);

/* Fill *info for this host. gcbench_version is stored as given (the caller passes
 * GC_VERSION). Probes never fail the call: what cannot be found stays "" (GPU via
 * nvidia-smi's files in /proc/driver/nvidia, NCCL by dlopen of libnccl.so.2, MPI by
 * `ompi_info --version` or dlopen of libmpi.so, libnl by dlopen). */
void gc_envinfo_probe(struct gc_envinfo *info, const char *gcbench_version);

/* Write *info as a JSON object (one line, no newline) into buf of size n; returns
 * GC_E_INVAL if it does not fit. Version integers are included as "<field>_num". */
gc_rc gc_envinfo_json(const struct gc_envinfo *info, char *buf, size_t n);

/* Write *info as aligned "field: value" lines to f (a FILE *). */
void gc_envinfo_print(const struct gc_envinfo *info, void *f);

#endif

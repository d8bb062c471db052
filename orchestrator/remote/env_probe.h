/* orchestrator/remote/env_probe.h: this host's environment record, probed. `gcbench env`
 * prints it; the controller runs that on every node and reads its JSON back
 * (formats/envinfo.h). */
#ifndef GC_ENV_PROBE_H
#define GC_ENV_PROBE_H

#include "formats/envinfo.h"

/* Fill *info for this host. gcbench_version is stored as given (the caller passes
 * GC_VERSION). Probes never fail the call: what cannot be found stays "" (GPU via
 * nvidia-smi's files in /proc/driver/nvidia, NCCL by dlopen of libnccl.so.2, MPI by
 * `ompi_info --version` (run without a shell, killed after 5 s), libnl and SQLite as linked). */
void gc_envinfo_probe(struct gc_envinfo *info, const char *gcbench_version);

#endif

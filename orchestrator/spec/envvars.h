/* orchestrator/spec/envvars.h: environment variables a spec (`env:`) or an inventory
 * host (`env:`, `python:`) gives the ranks of a command or ddp workload (docs/spec.md,
 * Environment). No shell reads them: each is passed to the rank's wrapper as an
 * argument and exported there (orchestrator/remote/launch.h).
 *
 * A name is 1-63 of [A-Za-z0-9_], not starting with a digit, and not one gcbench sets
 * itself (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT, GLOO_SOCKET_IFNAME,
 * NCCL_SOCKET_IFNAME, PYTHONPATH, GCBENCH_*, OMPI_*). A value is 0-255 characters of
 * letters, digits and ._:@%+=,/-, or such text after a leading "~/" (or "~" alone),
 * which each host's wrapper expands to that login's home. */
#ifndef GC_ENVVARS_H
#define GC_ENVVARS_H

#include <stddef.h>

#define GC_ENV_MAX 8           /* variables per spec, and per host */
#define GC_ENV_LEN 320         /* "NAME=VALUE" with its terminator */

/* NULL when name may be set; else a static sentence saying why not (for a message). */
const char *gc_env_name_problem(const char *name);

/* NULL when value may be given; else a static sentence with what to write instead. */
const char *gc_env_value_problem(const char *value);

#endif

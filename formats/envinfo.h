/* formats/envinfo.h: the software and hardware a host runs, as stored with every
 * run (db/ table environments). `gcbench env` prints it for this host
 * (orchestrator/remote/env_probe.h fills it); a node sends its record to the
 * controller as JSON.
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


/* The text field called name ("kernel", "nccl", ...) of *info; NULL for no such field. */
const char *gc_envinfo_field(const struct gc_envinfo *info, const char *name);

/* Write *info as a JSON object (one line, no newline; common/json.h) into buf of size
 * n; returns GC_E_INVAL if it does not fit, GC_E_NOMEM when out of memory. Version
 * integers are included as "<field>_num". */
gc_rc gc_envinfo_json(const struct gc_envinfo *info, char *buf, size_t n);

/* Read back what gc_envinfo_json wrote (the output of `gcbench env --json` on a host):
 * the one format in which environments travel between hosts; there is no parser of
 * the text form. text holds len bytes (no NUL needed); surrounding whitespace is
 * allowed. The "<field>_num" integers are not read (gc_version_num recomputes them);
 * keys this build does not know are skipped when their value is a string or an
 * integer (a newer gcbench on the host). Fills *out (zeroed first) and returns GC_OK,
 * or GC_E_FORMAT with e saying where (byte offset) and what, quoting at most a short
 * printable excerpt of the input: not one object, a string longer than a field
 * (GC_ENV_FIELD - 1 bytes), a bad escape or a raw control character, a text field
 * that is not a string, a key given twice, trailing bytes, or no "host". */
gc_rc gc_envinfo_parse_json(const char *text, size_t len, struct gc_envinfo *out, gc_err *e);

/* Write *info for people to f (a FILE *): one "field  value" line per field, the values
 * aligned in one column; what was not found reads "(not found)". Not parsed back:
 * programs read gcbench env --json. */
void gc_envinfo_print(const struct gc_envinfo *info, void *f);

#endif

/* worker/wk_selftest.h: `gcbench-worker --self-test` and `--build-info`, which
 * provisioning runs on every node after copying the build (orchestrator/remote/
 * provision.c). No MPI: they run before MPI_Init.
 *
 * --build-info prints key=value lines: arch (the -march of the build), needs (the CPU
 * flags its baseline code uses, /proc/cpuinfo names), built_on (the build machine's
 * CPU), native (1 when the baseline is tied to that CPU), isa (the dispatched kernels'
 * level on this CPU), version.
 * --self-test runs one step of every method on a small bucket (2 workers, about 70 k
 * elements in 4 tensors, two steps so that error feedback and warm starts run) at this
 * CPU's kernel level and at the baseline level, and checks that the outputs and
 * residuals are bit-identical, and the signSGD vote and fp16 conversion against plain
 * scalar code. Under a second; prints the build info, then "self-test: ok ..." and
 * exits 0, or "self-test: FAILED ..." and exits 1. A CPU without the build's baseline
 * dies with SIGILL (exit 132 through a shell), which provisioning reports.
 */
#ifndef GC_WK_SELFTEST_H
#define GC_WK_SELFTEST_H

#include <stdio.h>

/* The --build-info lines (version: the build's version string). */
void gc_wk_build_info(FILE *out, const char *version);

/* The self-test; returns the process exit status (0 ok, 1 a mismatch or failure). */
int gc_wk_self_test(FILE *out, const char *version);

#endif

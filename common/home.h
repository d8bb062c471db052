/* common/home.h: where gcbench keeps its state on this host, and where it runs from.
 *
 * One definition of $GCBENCH_HOME's default for every program: the orchestrator's
 * host locks, provisioning stage and SLURM files, and netem's local clusters
 * (clusters/NAME, nodes/NAME) all live below gc_home().
 */
#ifndef GC_HOME_H
#define GC_HOME_H

#include <stddef.h>

/* $GCBENCH_HOME when set and not empty, else /var/lib/gcbench for root and
 * ~/.local/share/gcbench (HOME unset: /tmp/.local/share/gcbench) for anyone else.
 * The string is borrowed: the environment's, a literal, or a static buffer that the
 * next call rewrites. */
const char *gc_home(void);

/* The directory of this program (/proc/self/exe) into buf (n bytes), "/usr/local/bin"
 * if unknown. */
void gc_self_dir(char *buf, size_t n);

#endif

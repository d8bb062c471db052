/* orchestrator/run/progress.h: the live progress line of a sweep, with an ETA.
 *
 * One line per point on stderr: "[3/16 19%, 1 failed, eta 4m10s] resnet50 powersgd
 * rank=4 @ 1gbit x4: shaping". The ETA is the mean time of the points finished in
 * this invocation times the points left (resumed points do not count).
 */
#ifndef GC_PROGRESS_H
#define GC_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct gc_progress {
	size_t total, done, failed, skipped;
	double spent_s;          /* time of the points finished in this invocation */
	size_t timed;            /* how many of them */
	uint64_t point_t0;
	char label[256];
} gc_progress;

void gc_progress_init(gc_progress *p, size_t total, size_t skipped);
/* Start a point: remember its label and print the line. */
void gc_progress_start(gc_progress *p, const char *label);
/* Say what the current point is doing now ("shaping", "running"). */
void gc_progress_step(gc_progress *p, const char *what);
/* Finish the current point. */
void gc_progress_end(gc_progress *p, int ok, const char *outcome);
/* "4m10s", "1h02m", "12s" into buf; "?" for a negative value. */
void gc_format_duration(double s, char *buf, size_t n);

#endif

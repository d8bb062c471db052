/* common/timing.h: monotonic clocks in nanoseconds. */
#ifndef GC_TIMING_H
#define GC_TIMING_H

#include <stdint.h>
#include <time.h>

/* Monotonic time in nanoseconds (CLOCK_MONOTONIC). */
static inline uint64_t gc_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Wall-clock seconds since the epoch, for timestamps in records. */
static inline double gc_wall_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleep until the monotonic deadline (absolute ns); returns early only on error. */
static inline void gc_sleep_until_ns(uint64_t deadline)
{
	struct timespec ts = { (time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == 4 /* EINTR */)
		;
}

#endif

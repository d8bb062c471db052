/* netem/rate.h: rates and sizes in tc's units, parsed strictly, and the pure mapping
 * from a requested cap to qdisc parameters (no root, no kernel: unit-testable).
 *
 * Rates and caps: common/bandwidth.h (gc_rate_parse, gc_bw_parse, gc_rate_format).
 *
 * Sizes (gc_size_parse), as tc's get_size: a bare number or 'b' is bytes; k/kb,
 * m/mb, g/gb are KiB, MiB, GiB; kbit, mbit, gbit are 2^10, 2^20, 2^30 BITS (/8).
 * The result must lie in [1, UINT32_MAX] bytes (the kernel's burst field is 32-bit).
 */
#ifndef GC_NETEM_RATE_H
#define GC_NETEM_RATE_H

#include <stddef.h>
#include <stdint.h>

#include "bandwidth.h"
#include "result.h"

/* The largest rate TBF can hold through libnl 3.7: its setter takes an int of
 * bytes/s that the kernel reads as u32, so UINT32_MAX bytes/s = 34.36 Gbit/s. */
#define GC_TBF_MAX_BYTES_PER_S 4294967295ull

/* Parse s into bytes (strict, see above). Errors as gc_rate_parse. */
gc_rc gc_size_parse(const char *s, uint64_t *bytes, gc_err *e);

/* Format a size exactly with tc's units ("64kb", "1mb", "1500b"); round-trips. */
char *gc_size_format(uint64_t bytes, char *buf, size_t n);

/* Parse a time as tc does: a decimal number (as for rates) with unit s, ms, us (or
 * tc's sec, secs, msec, msecs, usec, usecs; case-insensitive) into microseconds,
 * rounded. A bare number is rejected (tc would read it as microseconds), except a bare
 * 0. Range [0, 60 s]; a nonzero time under 0.5 us (which would round to no delay) is
 * rejected. Errors as gc_rate_parse. */
gc_rc gc_time_parse(const char *s, uint32_t *usec, gc_err *e);

/* Format a time exactly with the largest unit that divides it ("10ms", "1s",
 * "250us", "0us"); gc_time_parse reads it back to the same value. */
char *gc_time_format(uint32_t usec, char *buf, size_t n);

/* Parse a loss probability: a decimal number in [0, 100] with an optional '%'. */
gc_rc gc_percent_parse(const char *s, double *pct, gc_err *e);

/* Default burst for a rate: max(64 KiB, rate x 4 ms) in bytes, rounded up. */
uint32_t gc_burst_default(uint64_t bits_per_s);

enum gc_qdisc_kind { GC_QDISC_TBF = 1, GC_QDISC_HTB = 2 };

/* What gcbench installs for a cap: the root qdisc kind and its parameters. */
struct gc_qdisc_plan {
	enum gc_qdisc_kind kind;
	uint64_t rate_bytes;    /* bytes/s the kernel holds (rate / 8, rounded) */
	uint32_t burst;         /* bytes: TBF bucket, or HTB rbuffer = cbuffer */
	uint32_t limit;         /* TBF queue limit in bytes (burst + 10 ms at rate) */
	uint32_t quantum;       /* HTB class quantum in bytes */
};

/* Map a rate (bits/s) and burst (bytes; 0 = gc_burst_default) to a plan: TBF when
 * rate/8 fits in 32 bits (<= 34.36 Gbit/s), else HTB with rate64/ceil64 and the
 * buffers set. Fails with GC_E_INVAL (message in e) for a rate outside
 * [8, GC_RATE_MAX] or a burst below one MTU (1514 bytes) or above UINT32_MAX. */
gc_rc gc_qdisc_plan_make(uint64_t bits_per_s, uint64_t burst, struct gc_qdisc_plan *p,
			 gc_err *e);

/* "tbf" or "htb". */
const char *gc_qdisc_kind_name(enum gc_qdisc_kind k);

#endif

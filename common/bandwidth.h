/* common/bandwidth.h: the one bandwidth syntax of every gcbench tool (spec files,
 * gcbench whatif, history, gcbench-netem): tc's units, strictly, and one way of
 * printing a cap.
 *
 * Rates (gc_rate_parse): a positive decimal number (digits, optionally '.' and
 * digits; no sign, exponent, spaces, hex, inf or nan) immediately followed by a unit,
 * case-insensitive, as tc spells them:
 *   bit  kbit  mbit  gbit  tbit        SI: 1, 1e3, 1e6, 1e9, 1e12 bits/s
 *   kibit mibit gibit tibit            IEC: 2^10, 2^20, 2^30, 2^40 bits/s
 *   bps kbps mbps gbps tbps            BYTES/s in tc (x8), SI
 *   kibps mibps gibps tibps            BYTES/s in tc (x8), IEC
 * The bps family is the trap: '30gbps' is 30 gigaBYTES/s (240 Gbit/s) in tc. It is
 * rejected with an explanation unless GC_RATE_ALLOW_BYTES is given. A bare number
 * (tc reads it as bytes/s) is rejected too: write the unit. The result, in bits/s,
 * is rounded to the nearest bit and must lie in [8, GC_RATE_MAX].
 *
 * Caps (gc_bw_parse): what a user writes for a link's bandwidth anywhere: a rate as
 * above in [GC_BW_MIN, GC_BW_MAX] (1mbit to 400gbit), or 'unlimited' (0). A bare
 * number is refused with the spelling it most likely meant: '10' -> '10gbit' where
 * Gbit/s numbers were the old habit (GC_BW_BARE_GBIT), else bits/s: '1000000000' ->
 * '1gbit', '0' -> 'unlimited'. gc_bw_format prints a cap the one way: "100mbit",
 * "10gbit", "unlimited".
 */
#ifndef GC_BANDWIDTH_H
#define GC_BANDWIDTH_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define GC_RATE_MAX 1000000000000000ull       /* 1000 tbit: far above any NIC */
#define GC_RATE_ALLOW_BYTES 1u                /* accept the bps (bytes/s) family */
#define GC_BW_BARE_GBIT 2u                    /* gc_bw_*: a bare number meant Gbit/s */

#define GC_BW_MIN 1000000ull                  /* 1 Mbit/s: the smallest cap */
#define GC_BW_MAX 400000000000ull             /* 400 Gbit/s: the largest cap */

/* Parse s into bits/s (strict, see above). On error returns GC_E_INVAL and writes a
 * message naming the value and what to write instead into e (may be NULL). */
gc_rc gc_rate_parse(const char *s, uint64_t *bits_per_s, gc_err *e);
gc_rc gc_rate_parse_flags(const char *s, unsigned flags, uint64_t *bits_per_s, gc_err *e);

/* Format a rate exactly, with the largest SI bit unit that divides it ("30gbit",
 * "1500mbit", "123bit"); gc_rate_parse reads it back to the same value. Writes at
 * most n bytes (always NUL-terminated); returns buf. */
char *gc_rate_format(uint64_t bits_per_s, char *buf, size_t n);

/* Parse a cap: 'unlimited' (0) or a rate in [GC_BW_MIN, GC_BW_MAX]. flags:
 * GC_RATE_ALLOW_BYTES, GC_BW_BARE_GBIT. The message in e names the value (the caller
 * that must not quote its input uses gc_bw_hint instead). */
gc_rc gc_bw_parse(const char *s, unsigned flags, uint64_t *bits_per_s, gc_err *e);

/* What to write instead of s, without quoting s: "write 10gbit", "write unlimited
 * for no cap", "write a number and a unit (...)", "use 1mbit to 400gbit, or
 * 'unlimited'". For a value gc_bw_parse refuses; writes into buf, returns buf. */
char *gc_bw_hint(const char *s, unsigned flags, char *buf, size_t n);

/* Print a cap: 0 as "unlimited", else as gc_rate_format. */
char *gc_bw_format(uint64_t bits_per_s, char *buf, size_t n);

/* The number prefix of s ([0-9]+(.[0-9]+)?, at most 18 digits) into *v; *end after it.
 * Returns 0, or -1 when there is no well-formed number (shared with netem/rate.c). */
int gc_decimal_parse(const char *s, long double *v, const char **end);

#endif

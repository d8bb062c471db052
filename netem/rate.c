/* netem/rate.c: tc units, strictly (see rate.h for what is accepted and why). */
#include "rate.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

struct unit {
	const char *name;
	uint64_t scale;   /* bits/s per unit (rates) or bytes per unit (sizes) */
	int bytes;        /* rates: 1 for the bps (bytes/s) family */
};

#define KI 1024ull
static const struct unit size_units[] = {
	{ "", 1, 0 }, { "b", 1, 0 }, { "k", KI, 0 }, { "kb", KI, 0 }, { "m", KI * KI, 0 },
	{ "mb", KI * KI, 0 }, { "g", KI * KI * KI, 0 }, { "gb", KI * KI * KI, 0 },
	{ "kbit", KI / 8, 0 }, { "mbit", KI * KI / 8, 0 }, { "gbit", KI * KI * KI / 8, 0 },
	{ NULL, 0, 0 },
};

#define parse_number gc_decimal_parse

static const struct unit *find_unit(const struct unit *t, const char *name)
{
	for (; t->name; t++)
		if (!strcasecmp(t->name, name))
			return t;
	return NULL;
}

gc_rc gc_size_parse(const char *s, uint64_t *bytes, gc_err *e)
{
	const struct unit *u;
	const char *end;
	long double v, b;

	if (!s || !*s)
		return gc_fail(e, GC_E_INVAL, "empty size; write e.g. 64kb or 1mb");
	if (parse_number(s, &v, &end))
		return gc_fail(e, GC_E_INVAL, "invalid size '%.64s': expected a positive decimal "
			       "number with an optional unit (b, kb, mb, gb, kbit, mbit, gbit)", s);
	u = find_unit(size_units, end);
	if (!u)
		return gc_fail(e, GC_E_INVAL, "size '%.64s' has an unknown unit '%.32s'; use b, "
			       "k/kb, m/mb, g/gb (powers of 1024 bytes) or kbit, mbit, gbit", s, end);
	b = v * (long double)u->scale;
	if (b > (long double)UINT32_MAX)
		return gc_fail(e, GC_E_INVAL, "size '%.64s' is too large (maximum 4294967295 "
			       "bytes, the kernel's 32-bit field)", s);
	if (b < 0.5L)
		return gc_fail(e, GC_E_INVAL, "size '%.64s' is zero; give at least 1 byte", s);
	*bytes = (uint64_t)llroundl(b);
	return GC_OK;
}

char *gc_size_format(uint64_t bytes, char *buf, size_t n)
{
	if (bytes && bytes % (KI * KI * KI) == 0)
		snprintf(buf, n, "%llugb", (unsigned long long)(bytes / (KI * KI * KI)));
	else if (bytes && bytes % (KI * KI) == 0)
		snprintf(buf, n, "%llumb", (unsigned long long)(bytes / (KI * KI)));
	else if (bytes && bytes % KI == 0)
		snprintf(buf, n, "%llukb", (unsigned long long)(bytes / KI));
	else
		snprintf(buf, n, "%llub", (unsigned long long)bytes);
	return buf;
}

gc_rc gc_time_parse(const char *s, uint32_t *usec, gc_err *e)
{
	static const struct unit t[] = { { "s", 1000000, 0 }, { "sec", 1000000, 0 },
		{ "secs", 1000000, 0 }, { "ms", 1000, 0 }, { "msec", 1000, 0 },
		{ "msecs", 1000, 0 }, { "us", 1, 0 }, { "usec", 1, 0 }, { "usecs", 1, 0 },
		{ NULL, 0, 0 } };
	const struct unit *u;
	const char *end;
	long double v;

	if (!s || !*s || parse_number(s, &v, &end))
		return gc_fail(e, GC_E_INVAL, "invalid time '%.64s': write e.g. 10ms, 500us, 1s",
			       s ? s : "");
	if (!*end && v == 0.0L) {        /* a bare 0 is 0 in every unit */
		*usec = 0;
		return GC_OK;
	}
	u = find_unit(t, end);
	if (!u)
		return gc_fail(e, GC_E_INVAL, "time '%.64s' needs a unit: s, ms or us (tc's "
			       "sec, msec, usec also work)", s);
	v *= (long double)u->scale;
	if (v > 60000000.0L)
		return gc_fail(e, GC_E_INVAL, "time '%.64s' is above 60 s", s);
	if (v > 0 && v < 0.5L)
		return gc_fail(e, GC_E_INVAL, "time '%.64s' is below 1 us, the resolution of a "
			       "netem delay; write 0 or at least 1us", s);
	*usec = (uint32_t)llroundl(v);
	return GC_OK;
}

char *gc_time_format(uint32_t usec, char *buf, size_t n)
{
	if (usec && usec % 1000000 == 0)
		snprintf(buf, n, "%us", usec / 1000000);
	else if (usec && usec % 1000 == 0)
		snprintf(buf, n, "%ums", usec / 1000);
	else
		snprintf(buf, n, "%uus", usec);
	return buf;
}

gc_rc gc_percent_parse(const char *s, double *pct, gc_err *e)
{
	const char *end;
	long double v;

	if (!s || !*s || parse_number(s, &v, &end) || (*end && strcmp(end, "%")) || v > 100.0L)
		return gc_fail(e, GC_E_INVAL, "invalid percentage '%.64s': write a number from 0 "
			       "to 100, e.g. 0.1%%", s ? s : "");
	*pct = (double)v;
	return GC_OK;
}

uint32_t gc_burst_default(uint64_t bps)
{
	/* rate x 4 ms in bytes = bps / 8 * 0.004 = bps / 2000, rounded up */
	uint64_t b = (bps + 1999) / 2000;

	if (b < 65536)
		b = 65536;
	return b > UINT32_MAX ? UINT32_MAX : (uint32_t)b;
}

const char *gc_qdisc_kind_name(enum gc_qdisc_kind k)
{
	return k == GC_QDISC_HTB ? "htb" : k == GC_QDISC_TBF ? "tbf" : "none";
}

gc_rc gc_qdisc_plan_make(uint64_t bps, uint64_t burst, struct gc_qdisc_plan *p, gc_err *e)
{
	uint64_t limit;

	if (bps < 8 || bps > GC_RATE_MAX)
		return gc_fail(e, GC_E_INVAL, "rate %llu bit/s is outside [8bit, 1000tbit]",
			       (unsigned long long)bps);
	if (!burst)
		burst = gc_burst_default(bps);
	if (burst < 1514 || burst > UINT32_MAX)
		return gc_fail(e, GC_E_INVAL, "burst %llu bytes is outside [1514, 4294967295]: "
			       "a burst must hold at least one full frame; the default is "
			       "max(64kb, rate x 4 ms)", (unsigned long long)burst);
	memset(p, 0, sizeof(*p));
	p->rate_bytes = (bps + 4) / 8;
	p->burst = (uint32_t)burst;
	p->kind = p->rate_bytes <= GC_TBF_MAX_BYTES_PER_S ? GC_QDISC_TBF : GC_QDISC_HTB;
	limit = burst + p->rate_bytes / 100;             /* burst + 10 ms of queue */
	p->limit = limit > UINT32_MAX ? UINT32_MAX : (uint32_t)limit;
	p->quantum = 200000;                              /* HTB's upper quantum */
	return GC_OK;
}

/* common/bandwidth.c: tc's rate units, strictly, and the one cap syntax (bandwidth.h). */
#include "bandwidth.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

struct unit {
	const char *name;
	uint64_t scale;   /* bits/s per unit */
	int bytes;        /* 1 for the bps (bytes/s) family */
};

#define KI 1024ull

static const struct unit rate_units[] = {
	{ "bit", 1, 0 }, { "kbit", 1000ull, 0 }, { "mbit", 1000000ull, 0 },
	{ "gbit", 1000000000ull, 0 }, { "tbit", 1000000000000ull, 0 },
	{ "kibit", KI, 0 }, { "mibit", KI * KI, 0 }, { "gibit", KI * KI * KI, 0 },
	{ "tibit", KI * KI * KI * KI, 0 },
	{ "bps", 8, 1 }, { "kbps", 8000ull, 1 }, { "mbps", 8000000ull, 1 },
	{ "gbps", 8000000000ull, 1 }, { "tbps", 8000000000000ull, 1 },
	{ "kibps", 8 * KI, 1 }, { "mibps", 8 * KI * KI, 1 }, { "gibps", 8 * KI * KI * KI, 1 },
	{ "tibps", 8 * KI * KI * KI * KI, 1 },
	{ NULL, 0, 0 },
};


#define MAX_DIGITS 18

/* Parse the number prefix of s ([0-9]+(.[0-9]+)?) into a long double; *end points
 * after it. Returns 0, or -1 when there is no well-formed number or too many digits. */
int gc_decimal_parse(const char *s, long double *v, const char **end)
{
	uint64_t mant = 0;
	int ndig = 0, frac = 0, in_frac = 0;
	const char *p = s;

	for (;; p++) {
		if (*p == '.' && !in_frac && p > s && isdigit((unsigned char)p[1])) {
			in_frac = 1;
			continue;
		}
		if (!isdigit((unsigned char)*p))
			break;
		if (mant == 0 && *p == '0' && !in_frac)
			; /* leading zeros do not count as digits */
		else if (++ndig > MAX_DIGITS)
			return -1;
		mant = mant * 10 + (uint64_t)(*p - '0');
		frac += in_frac;
	}
	if (p == s)
		return -1;
	*v = (long double)mant;
	while (frac--)
		*v /= 10.0L;
	*end = p;
	return 0;
}



static const struct unit *find_unit(const struct unit *t, const char *name)
{
	for (; t->name; t++)
		if (!strcasecmp(t->name, name))
			return t;
	return NULL;
}

static const char *prefix_word(const char *unit)
{
	static const char *const w[][2] = { { "k", "kilo" }, { "m", "mega" }, { "g", "giga" },
		{ "t", "tera" }, { "ki", "kibi" }, { "mi", "mebi" }, { "gi", "gibi" }, { "ti", "tebi" } };
	size_t i, n = strlen(unit) - 3;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (strlen(w[i][0]) == n && !strncasecmp(unit, w[i][0], n))
			return w[i][1];
	return "";
}

static gc_rc rate_bytes_trap(const char *s, long double v, const struct unit *u, gc_err *e)
{
	char bitunit[8];
	size_t n = strlen(u->name);
	const char *pw = prefix_word(u->name);

	/* "gbps" -> "gbit": the same prefix with bit instead of bps */
	snprintf(bitunit, sizeof(bitunit), "%.*sbit", (int)(n - 3), u->name);
	return gc_fail(e, GC_E_INVAL,
		       "rate '%.32s' means %Lg %sBYTES/s in tc (the bps units count bytes); "
		       "write %Lg%s for %Lg %sbits/s, or %Lg%s if you meant bytes "
		       "(or opt in to bps units explicitly)",
		       s, v, pw, v, bitunit, v, pw, v * 8, bitunit);
}

gc_rc gc_rate_parse_flags(const char *s, unsigned flags, uint64_t *bits_per_s, gc_err *e)
{
	const struct unit *u;
	const char *end;
	long double v, bits;

	if (!s || !*s)
		return gc_fail(e, GC_E_INVAL, "empty rate; write a number with a unit, e.g. 10gbit");
	if (gc_decimal_parse(s, &v, &end))
		return gc_fail(e, GC_E_INVAL, "invalid rate '%.64s': expected a positive decimal "
			       "number with a unit, e.g. 10gbit, 500mbit, 1.5gbit", s);
	if (!*end)
		return gc_fail(e, GC_E_INVAL, "rate '%.64s' has no unit (tc would read it as "
			       "bytes/s); write e.g. %sbit or %smbit", s, s, s);
	u = find_unit(rate_units, end);
	if (!u)
		return gc_fail(e, GC_E_INVAL, "rate '%.64s' has an unknown unit '%.32s'; use bit, "
			       "kbit, mbit, gbit, tbit (or kibit, mibit, gibit, tibit)", s, end);
	if (u->bytes && !(flags & GC_RATE_ALLOW_BYTES))
		return rate_bytes_trap(s, v, u, e);
	bits = v * (long double)u->scale;
	if (bits > (long double)GC_RATE_MAX)
		return gc_fail(e, GC_E_INVAL, "rate '%.64s' is too large (maximum 1000tbit)", s);
	if (bits < 7.5L)
		return gc_fail(e, GC_E_INVAL, "rate '%.64s' is zero or below one byte per second; "
			       "a cap must be at least 8bit", s);
	*bits_per_s = (uint64_t)llroundl(bits);
	return GC_OK;
}

gc_rc gc_rate_parse(const char *s, uint64_t *bits_per_s, gc_err *e)
{
	return gc_rate_parse_flags(s, 0, bits_per_s, e);
}


char *gc_rate_format(uint64_t bps, char *buf, size_t n)
{
	static const struct unit fmt[] = {
		{ "tbit", 1000000000000ull, 0 }, { "gbit", 1000000000ull, 0 },
		{ "mbit", 1000000ull, 0 }, { "kbit", 1000ull, 0 }, { "bit", 1, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++)
		if (bps && bps % fmt[i].scale == 0)
			break;
	if (i == sizeof(fmt) / sizeof(fmt[0]))
		i--;
	snprintf(buf, n, "%llu%s", (unsigned long long)(bps / fmt[i].scale), fmt[i].name);
	return buf;
}


/* s is all digits and at most one '.': a bare number. */
static int is_bare_number(const char *s, long double *v)
{
	const char *end;

	return s && *s && !gc_decimal_parse(s, v, &end) && !*end;
}

char *gc_bw_hint(const char *s, unsigned flags, char *buf, size_t n)
{
	long double v;
	uint64_t bps;
	char r[32];

	if (is_bare_number(s, &v)) {
		/* the likelier meaning first: Gbit/s (whatif's old habit) or bits/s (tc) */
		long double g = v * 1e9L, b = v;
		int gfirst = !!(flags & GC_BW_BARE_GBIT);
		long double first = gfirst ? g : b, second = gfirst ? b : g;
		long double pick = first >= GC_BW_MIN && first <= GC_BW_MAX ? first :
				   second >= GC_BW_MIN && second <= GC_BW_MAX ? second : -1;

		if (v == 0)
			snprintf(buf, n, "not a rate: a number needs a unit; write unlimited for no cap");
		else if (pick < 0)
			snprintf(buf, n, "not a rate: a number needs a unit; write e.g. 10gbit or 500mbit");
		else if (pick == g)
			snprintf(buf, n, "not a rate: a number needs a unit; write %sgbit for %s Gbit/s",
				 s, s);
		else
			snprintf(buf, n, "not a rate: a number needs a unit; write %s for %s bits/s",
				 gc_rate_format((uint64_t)llroundl(b), r, sizeof r), s);
		return buf;
	}
	if (!gc_rate_parse_flags(s, flags & GC_RATE_ALLOW_BYTES, &bps, NULL)) {
		snprintf(buf, n, "out of range; use 1mbit to 400gbit, or unlimited");
		return buf;
	}
	snprintf(buf, n, "not a rate; write a number and a unit (bit, kbit, mbit, gbit, tbit; bps is "
		 "bytes/s), e.g. 10gbit or 500mbit, or unlimited");
	return buf;
}

gc_rc gc_bw_parse(const char *s, unsigned flags, uint64_t *bits_per_s, gc_err *e)
{
	char hint[160];
	long double v;
	uint64_t bps;

	if (s && !strcasecmp(s, "unlimited")) {
		*bits_per_s = 0;
		return GC_OK;
	}
	if (is_bare_number(s, &v))
		return gc_fail(e, GC_E_INVAL, "bandwidth '%.32s' is %s", s,
			       gc_bw_hint(s, flags, hint, sizeof hint));
	if (gc_rate_parse_flags(s, flags & GC_RATE_ALLOW_BYTES, &bps, e))
		return GC_E_INVAL;
	if (bps < GC_BW_MIN || bps > GC_BW_MAX)
		return gc_fail(e, GC_E_INVAL, "bandwidth '%.32s' is out of range; use 1mbit to "
			       "400gbit, or unlimited", s);
	*bits_per_s = bps;
	return GC_OK;
}

char *gc_bw_format(uint64_t bits_per_s, char *buf, size_t n)
{
	if (!bits_per_s) {
		snprintf(buf, n, "unlimited");
		return buf;
	}
	return gc_rate_format(bits_per_s, buf, n);
}

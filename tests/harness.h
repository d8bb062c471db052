/* tests/harness.h: a small unit-test harness (after redis's testhelp.h).
 *
 * A test program defines `static void test_x(void)` functions and a main that calls
 * GCT_RUN(test_x) for each and returns gct_finish(). Each test prints exactly one line:
 *   PASS <suite>/<test>
 *   FAIL <suite>/<test>: <file>:<line>: <what>
 *   SKIP <suite>/<test>: <reason>
 * tests/run.sh counts these lines. A failed CHECK returns from the test at once.
 */
#ifndef GC_TEST_HARNESS_H
#define GC_TEST_HARNESS_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *gct_suite = "test";
static const char *gct_name;
static int gct_state;   /* 0 running/pass, 1 failed, 2 skipped */
static int gct_nfail;

static void gct_failf(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), unused));
static void gct_failf(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	if (gct_state)
		return;
	gct_state = 1;
	gct_nfail++;
	printf("FAIL %s/%s: %s:%d: ", gct_suite, gct_name, file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void gct_skipf(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void gct_skipf(const char *fmt, ...)
{
	va_list ap;
	if (gct_state)
		return;
	gct_state = 2;
	printf("SKIP %s/%s: ", gct_suite, gct_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void gct_run(const char *name, void (*fn)(void)) __attribute__((unused));
static void gct_run(const char *name, void (*fn)(void))
{
	gct_name = name;
	gct_state = 0;
	fn();
	if (!gct_state)
		printf("PASS %s/%s\n", gct_suite, name);
	fflush(stdout);
}

static int gct_finish(void) __attribute__((unused));
static int gct_finish(void)
{
	return gct_nfail ? 1 : 0;
}

/* Remove a test's temporary folder (a mkdtemp path: no quote in it) and what it holds;
 * a failure is a '#' line, not a test result. */
static void gct_rmtree(const char *dir) __attribute__((unused));
static void gct_rmtree(const char *dir)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (strchr(dir, '\'') || system(cmd))
		printf("# could not remove %s\n", dir);
}

#define GCT_SUITE(s) (gct_suite = (s))
#define GCT_RUN(fn) gct_run(#fn, fn)

#define CHECK(c) do { if (!(c)) { gct_failf(__FILE__, __LINE__, "%s", #c); return; } } while (0)
#define CHECKF(c, ...) do { if (!(c)) { gct_failf(__FILE__, __LINE__, __VA_ARGS__); return; } } while (0)
#define CHECK_EQ_INT(a, b) do { long long _a = (long long)(a), _b = (long long)(b); \
	if (_a != _b) { gct_failf(__FILE__, __LINE__, "%s == %s (%lld != %lld)", #a, #b, _a, _b); return; } } while (0)
#define CHECK_STR(a, b) do { const char *_a = (a), *_b = (b); \
	if (!_a || !_b || strcmp(_a, _b)) { gct_failf(__FILE__, __LINE__, "%s == \"%s\" (got \"%s\")", #a, _b ? _b : "(null)", _a ? _a : "(null)"); return; } } while (0)
#define CHECK_CONTAINS(hay, needle) do { const char *_h = (hay), *_n = (needle); \
	if (!_h || !strstr(_h, _n)) { gct_failf(__FILE__, __LINE__, "\"%s\" contains \"%s\"", _h ? _h : "(null)", _n); return; } } while (0)
#define CHECK_NEAR(a, b, tol) do { double _a = (double)(a), _b = (double)(b); \
	if (!(fabs(_a - _b) <= (tol))) { gct_failf(__FILE__, __LINE__, "%s ~ %s (%.9g vs %.9g, tol %g)", #a, #b, _a, _b, (double)(tol)); return; } } while (0)
#define SKIP(...) do { gct_skipf(__VA_ARGS__); return; } while (0)

#endif

/* Unit tests for common/npy: round trip and every malformed input we can think of. */
#include <unistd.h>

#include "harness.h"
#include "npy.h"

static char tmpdir[] = "/tmp/gcbench-npy.XXXXXX";

static void path_of(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

static void write_raw(const char *name, const void *b, size_t len)
{
	char p[256];
	FILE *f;
	path_of(p, sizeof(p), name);
	f = fopen(p, "wb");
	fwrite(b, 1, len, f);
	fclose(f);
}

static size_t make_npy(unsigned char *buf, const char *dict, const void *data, size_t dlen)
{
	size_t hl = strlen(dict), o = 0;
	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (unsigned char)(hl & 0xff);
	buf[9] = (unsigned char)(hl >> 8);
	o = 10;
	memcpy(buf + o, dict, hl);
	o += hl;
	memcpy(buf + o, data, dlen);
	return o + dlen;
}

static void test_roundtrip(void)
{
	float d[6] = { 1, -2, 3.5f, 0, -0.0f, 1e30f };
	size_t shape[2] = { 2, 3 };
	char p[256];
	gc_npy a;
	gc_err e;

	path_of(p, sizeof(p), "rt.npy");
	CHECK(gc_npy_write(p, d, 6, 2, shape, &e) == GC_OK);
	CHECK(gc_npy_read(p, &a, &e) == GC_OK);
	CHECK_EQ_INT(a.ndim, 2);
	CHECK_EQ_INT(a.shape[0], 2);
	CHECK_EQ_INT(a.shape[1], 3);
	CHECK_EQ_INT(a.numel, 6);
	CHECK(memcmp(a.data, d, sizeof(d)) == 0);
	gc_npy_release(&a);
	gc_npy_release(&a);
}

static void test_1d_and_scalar(void)
{
	float d[1] = { 7 };
	size_t s1[1] = { 1 };
	char p[256];
	gc_npy a;
	gc_err e;

	path_of(p, sizeof(p), "one.npy");
	CHECK(gc_npy_write(p, d, 1, 1, s1, &e) == GC_OK);
	CHECK(gc_npy_read(p, &a, &e) == GC_OK);
	CHECK_EQ_INT(a.ndim, 1);
	CHECK_EQ_INT(a.numel, 1);
	gc_npy_release(&a);
	path_of(p, sizeof(p), "scalar.npy");
	CHECK(gc_npy_write(p, d, 1, 0, NULL, &e) == GC_OK);
	CHECK(gc_npy_read(p, &a, &e) == GC_OK);
	CHECK_EQ_INT(a.ndim, 0);
	CHECK_EQ_INT(a.numel, 1);
	CHECK(a.data[0] == 7);
	gc_npy_release(&a);
}

static void expect_error(const char *name, const void *buf, size_t len, const char *needle)
{
	char p[256];
	gc_npy a;
	gc_err e = { "" };
	gc_rc rc;

	write_raw(name, buf, len);
	path_of(p, sizeof(p), name);
	rc = gc_npy_read(p, &a, &e);
	CHECKF(rc == GC_E_FORMAT, "%s: rc %d (%s)", name, rc, e.msg);
	CHECK(a.data == NULL);
	CHECK_CONTAINS(e.msg, name);
	CHECK_CONTAINS(e.msg, needle);
	CHECKF(!strstr(e.msg, "S3CR3T"), "%s: the message quotes the file: '%s'", name, e.msg);
}

/* S3CR3T stands for a secret in a file that is not a valid .npy: never quoted */
static void test_never_quotes(void)
{
	unsigned char b[512];
	size_t n;

	expect_error("shadow.npy", "root:$y$S3CR3T:19000:0:99999:7:::\n", 34, "not a .npy file");
	n = make_npy(b, "{'descr': 'S3CR3T', 'fortran_order': False, 'shape': (2,), }\n", "", 0);
	expect_error("descr.npy", b, n, "'descr' is not a numpy type code");
	n = make_npy(b, "{'descr': '<S3CR3T', 'fortran_order': False, 'shape': (2,), }\n", "", 0);
	expect_error("descr2.npy", b, n, "'descr' is not a numpy type code");
	n = make_npy(b, "{'descr': '<f4', 'fortran_order': S3CR3T, 'shape': (2,), }\n", "", 0);
	expect_error("order.npy", b, n, "Fortran order");
	n = make_npy(b, "{'descr': '<f4', 'fortran_order': False, 'shape': (S3CR3T,), }\n", "", 0);
	expect_error("shape2.npy", b, n, "non-integer");
	n = make_npy(b, "{'S3CR3T': '<f4', 'fortran_order': False, 'shape': (2,), }\n", "", 0);
	expect_error("nodescr.npy", b, n, "header lacks 'descr'");
}

static void test_not_npy(void)
{
	expect_error("text.npy", "hello world, not numpy", 22, "not a .npy file");
}

static void test_empty_file(void)
{
	expect_error("empty.npy", "", 0, "not a .npy file");
}

static void test_wrong_dtype(void)
{
	unsigned char b[256];
	double d[2] = { 1, 2 };
	size_t n = make_npy(b, "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n", d, 16);
	expect_error("f8.npy", b, n, "'<f8'");
}

static void test_fortran(void)
{
	unsigned char b[256];
	float d[4] = { 0 };
	size_t n = make_npy(b, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }\n", d, 16);
	expect_error("fortran.npy", b, n, "Fortran order");
}

static void test_truncated_data(void)
{
	unsigned char b[256];
	float d[4] = { 0 };
	size_t n = make_npy(b, "{'descr': '<f4', 'fortran_order': False, 'shape': (8,), }\n", d, 16);
	expect_error("short.npy", b, n, "truncated data");
}

static void test_truncated_header(void)
{
	unsigned char b[256];
	size_t n = make_npy(b, "{'descr': '<f4', 'fortran_order': False, 'shape': (8,), }\n", "", 0);
	expect_error("hdr.npy", b, n - 20, "truncated header");
}

static void test_bad_shape(void)
{
	unsigned char b[256];
	size_t n = make_npy(b, "{'descr': '<f4', 'fortran_order': False, 'shape': (a,), }\n", "", 0);
	expect_error("shape.npy", b, n, "non-integer");
	n = make_npy(b, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }\n", "", 0);
	expect_error("huge.npy", b, n, "too large");
}

static void test_missing_file(void)
{
	gc_npy a;
	gc_err e;
	CHECK(gc_npy_read("/nonexistent/x.npy", &a, &e) == GC_E_NOTFOUND);
	CHECK_CONTAINS(e.msg, "/nonexistent/x.npy");
}

int main(void)
{
	GCT_SUITE("npy");
	if (!mkdtemp(tmpdir))
		return 1;
	GCT_RUN(test_roundtrip);
	GCT_RUN(test_1d_and_scalar);
	GCT_RUN(test_not_npy);
	GCT_RUN(test_empty_file);
	GCT_RUN(test_wrong_dtype);
	GCT_RUN(test_fortran);
	GCT_RUN(test_truncated_data);
	GCT_RUN(test_truncated_header);
	GCT_RUN(test_bad_shape);
	GCT_RUN(test_missing_file);
	GCT_RUN(test_never_quotes);
	gct_rmtree(tmpdir);
	return gct_finish();
}

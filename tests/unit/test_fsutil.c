/* tests/unit/test_fsutil.c: gc_mkdir_p and gc_read_whole (common/fsutil.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "home.h"
#include "harness.h"

static void test_mkdir_p(void)
{
	char root[] = "/tmp/gcbench-fsutil.XXXXXX", p[256], f[256], big[5000];
	struct stat st;
	gc_err e = { "" };

	CHECK(mkdtemp(root));
	snprintf(p, sizeof p, "%s/a/b/c/", root);
	CHECKF(gc_mkdir_p(p, 0700, &e) == GC_OK, "%s", e.msg);
	CHECK(stat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	snprintf(f, sizeof f, "%s/a/b", root);
	mode_t um = umask(0);
	umask(um);
	CHECK(stat(f, &st) == 0 && (st.st_mode & 0777) == (0755 & ~um));
	CHECK(gc_mkdir_p(p, 0700, &e) == GC_OK);                /* exists: fine */
	snprintf(f, sizeof f, "%s/file", root);
	fclose(fopen(f, "w"));
	snprintf(p, sizeof p, "%s/file/sub", root);
	CHECK(gc_mkdir_p(p, 0755, &e) == GC_E_IO);
	CHECK_CONTAINS(e.msg, "cannot create directory");
	CHECK_CONTAINS(e.msg, "/file/sub");
	memset(big, 'x', sizeof big - 1);
	big[0] = '/', big[sizeof big - 1] = '\0';
	CHECK(gc_mkdir_p(big, 0755, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "too long");
	unlink(f);
	snprintf(p, sizeof p, "rm -rf '%s'", root);
	CHECK(system(p) == 0);
}

/* a regular file whole, NUL-terminated; the limit; a missing file; a /proc file (its
 * size reads as 0) and a pipe, read to their end without seeking */
static void test_read_whole(void)
{
	char path[] = "/tmp/gcbench-fsutil-read.XXXXXX";
	unsigned char *b = NULL;
	size_t n = 0;
	gc_err e = { "" };
	int fd = mkstemp(path), p[2];

	CHECK(fd >= 0 && write(fd, "abc\0def", 7) == 7);
	close(fd);
	CHECKF(gc_read_whole(path, "test file", 0, &b, &n, &e) == GC_OK, "%s", e.msg);
	CHECK(n == 7 && b && !memcmp(b, "abc\0def", 7) && b[7] == 0);
	free(b);
	CHECK(gc_read_whole(path, NULL, 7, &b, &n, &e) == GC_OK && n == 7);
	free(b);
	CHECK(gc_read_whole(path, "test file", 6, &b, &n, &e) == GC_E_IO && !b && n == 0);
	CHECK_CONTAINS(e.msg, "larger than 6 bytes");
	CHECK_CONTAINS(e.msg, "test file '/tmp/gcbench-fsutil-read.");
	unlink(path);
	CHECK(gc_read_whole(path, "test file", 0, &b, &n, &e) == GC_E_NOTFOUND && !b);
	CHECK_CONTAINS(e.msg, "cannot open test file");
	CHECKF(gc_read_whole("/proc/self/status", NULL, 0, &b, &n, &e) == GC_OK, "%s", e.msg);
	CHECK(n > 0 && b && strstr((char *)b, "Pid:") && strlen((char *)b) == n);
	free(b);
	CHECK(pipe(p) == 0);
	CHECK(write(p[1], "through a pipe", 14) == 14);
	close(p[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", p[0]);
	CHECKF(gc_read_whole(path, NULL, 0, &b, &n, &e) == GC_OK, "%s", e.msg);
	CHECK(n == 14 && b && !strcmp((char *)b, "through a pipe"));
	free(b);
	close(p[0]);
}

/* gc_home (common/home.h): $GCBENCH_HOME, else the one default of every program */
static void test_home(void)
{
	char want[4200], self[4096];
	const char *home = getenv("HOME");

	setenv("GCBENCH_HOME", "/srv/gcb-test", 1);
	CHECK_STR(gc_home(), "/srv/gcb-test");
	setenv("GCBENCH_HOME", "", 1);
	if (geteuid() == 0) {
		CHECK_STR(gc_home(), "/var/lib/gcbench");
	} else {
		snprintf(want, sizeof(want), "%s/.local/share/gcbench", home ? home : "/tmp");
		CHECK_STR(gc_home(), want);
	}
	unsetenv("GCBENCH_HOME");
	CHECK(gc_home()[0] == '/');
	gc_self_dir(self, sizeof(self));
	CHECK(self[0] == '/' && !strstr(self, "test_fsutil"));
	snprintf(want, sizeof(want), "%s/test_fsutil", self);
	CHECKF(access(want, X_OK) == 0, "'%s' is not this program", want);
}

int main(void)
{
	GCT_SUITE("fsutil");
	GCT_RUN(test_home);
	GCT_RUN(test_mkdir_p);
	GCT_RUN(test_read_whole);
	return gct_finish();
}

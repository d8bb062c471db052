/* tests/unit/test_fsutil.c: gc_mkdir_p (common/fsutil.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
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

int main(void)
{
	GCT_SUITE("fsutil");
	GCT_RUN(test_mkdir_p);
	return gct_finish();
}

/* tests/unit/test_buf.c: the growable string buffer (common/buf.h). */
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "harness.h"

static void test_empty(void)
{
	gc_buf b = GC_BUF_INIT;
	char *s;

	CHECK(b.p == NULL && b.len == 0);
	CHECK_STR(gc_buf_str(&b), "");
	CHECK(gc_buf_rc(&b) == GC_OK);
	s = gc_buf_take(&b);                 /* an empty buffer hands over "" */
	CHECK_STR(s, "");
	free(s);
	gc_buf_release(&b);
	gc_buf_release(NULL);
}

static void test_add(void)
{
	gc_buf b;
	char *s;

	gc_buf_init(&b);
	CHECK(gc_buf_puts(&b, "ab") == GC_OK);
	CHECK(gc_buf_putc(&b, 'c') == GC_OK);
	CHECK(gc_buf_add(&b, "dexx", 2) == GC_OK);
	CHECK(gc_buf_addf(&b, "-%d-%s-%.2f", 42, "x", 0.5) == GC_OK);
	CHECK(gc_buf_add(&b, "", 0) == GC_OK);
	CHECK_STR(gc_buf_str(&b), "abcde-42-x-0.50");
	CHECK_EQ_INT(b.len, 15);
	s = gc_buf_take(&b);
	CHECK(b.p == NULL && b.len == 0 && b.cap == 0);   /* released by take */
	CHECK_STR(s, "abcde-42-x-0.50");
	free(s);
}

/* Growing through many reallocations keeps every byte and the NUL. */
static void test_growth(void)
{
	gc_buf b = GC_BUF_INIT;
	size_t i;

	for (i = 0; i < 10000; i++)
		CHECK(gc_buf_addf(&b, "%zu,", i % 10) == GC_OK);
	CHECK_EQ_INT(b.len, 20000);
	CHECK(b.cap > b.len && b.p[b.len] == '\0');
	for (i = 0; i < 10000; i++)
		CHECK(b.p[2 * i] == (char)('0' + i % 10) && b.p[2 * i + 1] == ',');
	gc_buf_add(&b, "a\0b", 3);                         /* NUL bytes are kept */
	CHECK_EQ_INT(b.len, 20003);
	CHECK(!memcmp(b.p + 20000, "a\0b", 4));
	gc_buf_release(&b);
	CHECK(b.p == NULL && b.len == 0);
}

/* A long formatted piece (longer than the first allocation) arrives whole. */
static void test_addf_long(void)
{
	gc_buf b = GC_BUF_INIT;
	char big[3000];

	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	CHECK(gc_buf_puts(&b, "<") == GC_OK);
	CHECK(gc_buf_addf(&b, "%s>", big) == GC_OK);
	CHECK_EQ_INT(b.len, 3001);
	CHECK(b.p[0] == '<' && b.p[2999] == 'z' && b.p[3000] == '>' && !b.p[3001]);
	gc_buf_release(&b);
}

/* A length that would overflow fails like an allocation: sticky, contents kept,
 * nothing added afterwards, take gives NULL; release makes the buffer usable again. */
static void test_overflow_sticky(void)
{
	gc_buf b = GC_BUF_INIT;

	CHECK(gc_buf_puts(&b, "kept") == GC_OK);
	CHECK(gc_buf_add(&b, "x", SIZE_MAX) == GC_E_NOMEM);
	CHECK(b.oom && gc_buf_rc(&b) == GC_E_NOMEM);
	CHECK_STR(gc_buf_str(&b), "kept");
	CHECK(gc_buf_puts(&b, "more") == GC_E_NOMEM);
	CHECK(gc_buf_putc(&b, 'c') == GC_E_NOMEM);
	CHECK(gc_buf_addf(&b, "%d", 1) == GC_E_NOMEM);
	CHECK_STR(gc_buf_str(&b), "kept");
	CHECK(gc_buf_take(&b) == NULL);
	CHECK(!b.oom && b.p == NULL);
	CHECK(gc_buf_puts(&b, "again") == GC_OK);
	CHECK_STR(gc_buf_str(&b), "again");
	gc_buf_release(&b);
}

#if !defined(__SANITIZE_ADDRESS__)
/* In a child limited to a little more address space than it uses: add until malloc
 * really fails; then the failure is sticky and what was added is intact. */
static int oom_child(void)
{
	static char chunk[1 << 20];
	struct rlimit rl;
	unsigned long pages = 0;
	gc_buf b = GC_BUF_INIT;
	size_t len;
	FILE *f = fopen("/proc/self/statm", "r");
	int i;

	if (!f || fscanf(f, "%lu", &pages) != 1)
		return 2;
	fclose(f);
	rl.rlim_cur = rl.rlim_max = pages * (rlim_t)sysconf(_SC_PAGESIZE) + (64u << 20);
	if (setrlimit(RLIMIT_AS, &rl))
		return 2;
	memset(chunk, 'q', sizeof(chunk));
	for (i = 0; i < 1024 && gc_buf_add(&b, chunk, sizeof(chunk)) == GC_OK; i++)
		;
	len = b.len;
	if (i == 1024 || !b.oom || gc_buf_puts(&b, "x") != GC_E_NOMEM || b.len != len)
		return 1;
	if (len && (b.p[0] != 'q' || b.p[len - 1] != 'q' || b.p[len]))
		return 1;
	return gc_buf_take(&b) == NULL ? 0 : 1;
}
#endif

static void test_real_oom(void)
{
#if defined(__SANITIZE_ADDRESS__)
	SKIP("address sanitizer: its shadow memory does not fit an address-space limit");
#else
	int st = 0;
	pid_t pid = fork();

	CHECK(pid >= 0);
	if (pid == 0)
		_exit(oom_child());
	CHECK(waitpid(pid, &st, 0) == pid);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 2)
		SKIP("cannot limit the address space here");
	CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
#endif
}

int main(void)
{
	GCT_SUITE("buf");
	GCT_RUN(test_empty);
	GCT_RUN(test_add);
	GCT_RUN(test_growth);
	GCT_RUN(test_addf_long);
	GCT_RUN(test_overflow_sticky);
	GCT_RUN(test_real_oom);
	return gct_finish();
}

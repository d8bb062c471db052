/* Resume or a new sweep (orchestrator/run/resume.h). */
#include "harness.h"
#include "orchestrator/run/resume.h"

static struct gc_db_sweep_brief sw(int64_t id, const char *status, const char *key, int ok)
{
	struct gc_db_sweep_brief b = { .id = id, .n_ok = ok };
	snprintf(b.status, sizeof(b.status), "%s", status);
	snprintf(b.env_key, sizeof(b.env_key), "%s", key);
	return b;
}

static void test_env_key(void)
{
	const char *names[] = { "n1", "n2" };
	int64_t ids[] = { 3, 14 };
	char k[64], small[12];
	CHECK(gc_env_key("a", names, ids, 2, k, sizeof(k)) == 0);
	CHECK_STR(k, "tag=a;n1=3,n2=14");
	CHECK(gc_env_key(NULL, names, ids, 1, k, sizeof(k)) == 0);
	CHECK_STR(k, "tag=;n1=3");
	CHECK(gc_env_key("a", names, ids, 2, small, sizeof(small)) == -1);
}

static void test_auto(void)
{
	const char *A = "tag=;n1=1,n2=1", *B = "tag=;n1=2,n2=2";
	struct gc_db_sweep_brief v[3] = { { 0 } };
	char why[512];

	CHECK(gc_resume_choose(GC_RESUME_AUTO, v, 0, A, "", why, sizeof(why)) == -1);
	CHECK_CONTAINS(why, "no earlier sweep");
	v[0] = sw(5, "interrupted", A, 3);
	CHECK(gc_resume_choose(GC_RESUME_AUTO, v, 1, A, "", why, sizeof(why)) == 0);
	CHECK_CONTAINS(why, "continuing sweep 5 (interrupted, 3 points ok)");
	v[0] = sw(5, "done", A, 8);    /* the next night: measure again */
	CHECK(gc_resume_choose(GC_RESUME_AUTO, v, 1, A, "", why, sizeof(why)) == -1);
	CHECK_CONTAINS(why, "finished");
	v[0] = sw(5, "failed", A, 7);  /* an upgrade: other environments */
	CHECK(gc_resume_choose(GC_RESUME_AUTO, v, 1, B, "", why, sizeof(why)) == -1);
	CHECK_CONTAINS(why, "none of the 1 earlier sweeps");
	/* newest on these environments decides, even behind a sweep on others */
	v[0] = sw(7, "done", B, 8);
	v[1] = sw(6, "failed", A, 7);
	v[2] = sw(4, "done", A, 8);
	CHECK(gc_resume_choose(GC_RESUME_AUTO, v, 3, A, "", why, sizeof(why)) == 1);
	v[1] = sw(6, "done", A, 8);
	v[2] = sw(4, "failed", A, 2);  /* an older unfinished one behind a finished one */
	CHECK(gc_resume_choose(GC_RESUME_AUTO, v, 3, A, "", why, sizeof(why)) == -1);
	v[0] = sw(3, "interrupted", "", 2);  /* before migration 4: never continued */
	CHECK(gc_resume_choose(GC_RESUME_AUTO, v, 1, A, "", why, sizeof(why)) == -1);
	CHECK_CONTAINS(why, "not recorded");
}

static void test_forced_and_dry(void)
{
	const char *A = "tag=a;n1=1", *B = "tag=b;n1=1";
	struct gc_db_sweep_brief v[2] = { sw(9, "done", A, 4), sw(8, "interrupted", B, 1) };
	char why[512];

	CHECK(gc_resume_choose(GC_RESUME_FORCE, v, 2, A, "a", why, sizeof(why)) == 1);
	CHECK_CONTAINS(why, "although the environments differ");
	CHECK(gc_resume_choose(GC_RESUME_FORCE, v, 1, A, "a", why, sizeof(why)) == -2);
	CHECK_CONTAINS(why, "no unfinished sweep");
	CHECK(gc_resume_choose(GC_RESUME_NEW, v + 1, 1, B, "b", why, sizeof(why)) == -1);
	CHECK_CONTAINS(why, "--new");
	/* a dry run knows only the tag */
	CHECK(gc_resume_choose(GC_RESUME_AUTO, v + 1, 1, NULL, "b", why, sizeof(why)) == 0);
	CHECK_CONTAINS(why, "if the nodes report the environments it ran on");
	CHECK(gc_resume_choose(GC_RESUME_AUTO, v + 1, 1, NULL, "c", why, sizeof(why)) == -1);
	CHECK(gc_resume_choose(GC_RESUME_AUTO, v + 1, 1, NULL, NULL, why, sizeof(why)) == -1);
}

int main(void)
{
	GCT_SUITE("resume");
	GCT_RUN(test_env_key);
	GCT_RUN(test_auto);
	GCT_RUN(test_forced_and_dry);
	return gct_finish();
}

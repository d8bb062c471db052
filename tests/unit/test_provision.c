/* tests/unit/test_provision.c: the build's content hash, library -> Debian package, and
 * the comparison of the nodes' environments (refused on MPI major.minor or NCCL). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "orchestrator/remote/provision.h"

static char dir[64];

static int put(const char *name, const char *text)
{
	char p[200];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_build_hash(void)
{
	static const char *const names[] = GC_PROVISION_FILES;
	static struct gc_build a, b;
	gc_err e;

	snprintf(dir, sizeof(dir), "/tmp/gcbench-prov.XXXXXX");
	CHECK(mkdtemp(dir));
	for (int i = 0; i < GC_PROVISION_NFILES - 1; i++)
		CHECK(put(names[i], names[i]) == 0);
	/* a missing file is named */
	CHECK(gc_build_init(&a, dir, NULL, 0, &e) == GC_E_NOTFOUND);
	CHECK_CONTAINS(e.msg, "gcbench-probe' is missing");
	CHECK(put("gcbench-probe", "v1") == 0);
	CHECKF(gc_build_init(&a, dir, NULL, 0, &e) == GC_OK, "%s", e.msg);
	CHECKF(gc_build_init(&b, dir, NULL, 0, &e) == GC_OK, "%s", e.msg);
	CHECK_EQ_INT(strlen(a.hash), 64);
	CHECK_EQ_INT(strlen(a.short_hash), 16);
	CHECK(!strncmp(a.hash, a.short_hash, 16));
	CHECK_STR(a.hash, b.hash);
	CHECK_CONTAINS(a.manifest, "  gcbench-worker\n");
	CHECK_EQ_INT(a.bytes, strlen("gcbench") + strlen("gcbench-worker") + strlen("gcbench-netem") + 2);
	/* one byte of one file changes the hash */
	CHECK(put("gcbench-probe", "v2") == 0);
	CHECK(gc_build_init(&b, dir, NULL, 0, &e) == GC_OK);
	CHECK(strcmp(a.hash, b.hash));
	/* a csv: model is data of the build: checked, named by its digest, in the hash */
	{
		char good[200], bad[200];
		const char *data[1] = { good };
		CHECK(put("m.csv", "index,name,shape,numel\n0,a.weight,4x3,12\n1,a.bias,4,4\n") == 0);
		CHECK(put("shadow", "root:*:20228:0:99999:7:::SECRET\n") == 0);
		snprintf(good, sizeof(good), "%s/m.csv", dir);
		snprintf(bad, sizeof(bad), "%s/shadow", dir);
		CHECKF(gc_build_init(&b, dir, data, 1, &e) == GC_OK, "%s", e.msg);
		CHECK_EQ_INT(b.n_data, 1);
		CHECK_EQ_INT(strlen(b.data_name[0]), 20);
		CHECK_CONTAINS(b.manifest, "  models/");
		CHECK(strcmp(a.hash, b.hash));
		data[0] = bad;
		CHECK(gc_build_init(&b, dir, data, 1, &e) == GC_E_FORMAT);
		CHECK_CONTAINS(e.msg, "is not a parameter list");
		CHECK_CONTAINS(e.msg, "shadow:1:1: expected the header");   /* where, not what */
		CHECK(!strstr(e.msg, "root:") && !strstr(e.msg, "SECRET"));
		snprintf(bad, sizeof(bad), "%s/none.csv", dir);
		CHECK(gc_build_init(&b, dir, data, 1, &e) == GC_E_NOTFOUND);
		unlink(good);
		snprintf(bad, sizeof(bad), "%s/shadow", dir);
		unlink(bad);
	}
	/* a spec's files keep their folders; names with . or .. components, absolute, or
	 * twice, are refused; gcbench's Python modules go to python/; all in the hash */
	{
		char src[200];
		const char *srcs[2] = { src, src };
		const char *good[2] = { "pkg/util.py", "t.py" }, *bad[] = { "../x.py", "/x.py",
			"a/./b.py", "a//b.py", "a/", "a/..", "a b.py", "" };
		char h0[65];
		CHECK(put("u.py", "X = 1\n") == 0);
		snprintf(src, sizeof(src), "%s/u.py", dir);
		CHECK(gc_build_init(&b, dir, NULL, 0, &e) == GC_OK);
		strcpy(h0, b.hash);
		CHECKF(gc_build_add_files(&b, srcs, good, 2, &e) == GC_OK, "%s", e.msg);
		CHECK_EQ_INT(b.n_files, 2);
		CHECK_STR(b.file_name[0], "files/pkg/util.py");
		CHECK_CONTAINS(b.manifest, "  files/pkg/util.py\n");
		CHECK(strcmp(h0, b.hash));
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			CHECK(gc_build_init(&b, dir, NULL, 0, &e) == GC_OK);
			CHECKF(gc_build_add_files(&b, srcs, bad + k, 1, &e) == GC_E_INVAL, "'%s'", bad[k]);
		}
		CHECK(gc_build_init(&b, dir, NULL, 0, &e) == GC_OK);
		good[1] = good[0];
		CHECK(gc_build_add_files(&b, srcs, good, 2, &e) == GC_E_INVAL);
		CHECK_CONTAINS(e.msg, "two files land on files/pkg/util.py");
		unlink(src);
	}
	/* the Python modules: found beside PREFIX/bin or build/bin, else named where */
	{
		char self[200], py[300], got[1400];
		snprintf(self, sizeof(self), "%s/bin", dir);
		CHECK(mkdir(self, 0755) == 0);
		CHECK(gc_build_python_dir(self, got, sizeof(got), &e) == GC_E_NOTFOUND);
		CHECK_CONTAINS(e.msg, "gcbench_records.py is not beside this program");
		CHECK_CONTAINS(e.msg, "/bin/../share/gcbench/python");
		snprintf(py, sizeof(py), "%s/share", dir);
		mkdir(py, 0755);
		snprintf(py, sizeof(py), "%s/share/gcbench", dir);
		mkdir(py, 0755);
		snprintf(py, sizeof(py), "%s/share/gcbench/python", dir);
		mkdir(py, 0755);
		CHECK(put("share/gcbench/python/gcbench_records.py", "# m\n") == 0);
		CHECK(gc_build_python_dir(self, got, sizeof(got), &e) == GC_E_NOTFOUND);
		CHECK(put("share/gcbench/python/gcbench_ddp.py", "# r\n") == 0);
		CHECK(put("share/gcbench/python/gcbench_grace.py", "# g\n") == 0);
		CHECKF(gc_build_python_dir(self, got, sizeof(got), &e) == GC_OK, "%s", e.msg);
		CHECK_CONTAINS(got, "/bin/../share/gcbench/python");
		CHECK(gc_build_init(&b, dir, NULL, 0, &e) == GC_OK);
		CHECKF(gc_build_add_python(&b, got, &e) == GC_OK, "%s", e.msg);
		CHECK_STR(b.file_name[0], "python/gcbench_records.py");
		CHECK_CONTAINS(b.manifest, "  python/gcbench_records.py\n");
		CHECK_CONTAINS(b.manifest, "  python/gcbench_ddp.py\n");
		snprintf(got, sizeof(got), "%s/share/gcbench/python/gcbench_records.py", dir);
		unlink(got);
		snprintf(got, sizeof(got), "%s/share/gcbench/python/gcbench_ddp.py", dir);
		unlink(got);
		snprintf(got, sizeof(got), "%s/share/gcbench/python/gcbench_grace.py", dir);
		unlink(got), rmdir(py);
		snprintf(py, sizeof(py), "%s/share/gcbench", dir);
		rmdir(py);
		snprintf(py, sizeof(py), "%s/share", dir);
		rmdir(py), rmdir(self);
	}
	for (int i = 0; i < GC_PROVISION_NFILES; i++) {
		char p[200];
		snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
		unlink(p);
	}
	rmdir(dir);
}

static void test_lib_package(void)
{
	char pkg[64];

	gc_provision_lib_package("libyaml-0.so.2", pkg, sizeof(pkg));
	CHECK_STR(pkg, "libyaml-0-2");
	gc_provision_lib_package("libnl-route-3.so.200", pkg, sizeof(pkg));
	CHECK_STR(pkg, "libnl-route-3-200");
	gc_provision_lib_package("libmpi.so.40", pkg, sizeof(pkg));
	CHECK_STR(pkg, "libopenmpi3");
	/* not in the table: dpkg's answer on this machine, or "" */
	gc_provision_lib_package("libz.so.1", pkg, sizeof(pkg));
	CHECK(!pkg[0] || !strcmp(pkg, "zlib1g"));
	/* never a pattern or a path into dpkg-query */
	gc_provision_lib_package("../x;rm", pkg, sizeof(pkg));
	CHECK_STR(pkg, "");
	gc_provision_lib_package("libnothere-gcbench.so.9", pkg, sizeof(pkg));
	CHECK_STR(pkg, "");
}

static void env(struct gc_envinfo *i, const char *host, const char *mpi, const char *nccl,
		const char *kernel)
{
	memset(i, 0, sizeof(*i));
	strcpy(i->host, host);
	strcpy(i->mpi, mpi);
	strcpy(i->nccl, nccl);
	strcpy(i->kernel, kernel);
}

static void test_compare_envs(void)
{
	gc_node nodes[3];
	struct gc_envinfo envs[3];
	char buf[4096];
	FILE *f;
	gc_err e;

	memset(nodes, 0, sizeof(nodes));
	strcpy(nodes[0].name, "gpu1");
	strcpy(nodes[1].name, "gpu2");
	strcpy(nodes[2].name, "gpu3");
	env(&envs[0], "a", "Open MPI v4.1.4", "2.18.3", "6.1.0");
	env(&envs[1], "b", "Open MPI v4.1.6", "2.18.3", "6.1.0");
	env(&envs[2], "c", "Open MPI v4.1.2", "2.18.3", "6.1.0");
	/* same major.minor, same NCCL: accepted, nothing printed */
	memset(buf, 0, sizeof(buf));
	f = fmemopen(buf, sizeof(buf), "w");
	CHECK(gc_provision_compare_envs(nodes, envs, 3, f, &e) == GC_OK);
	CHECKF(ftell(f) == 0, "printed %ld bytes", ftell(f));
	fclose(f);
	/* another kernel: accepted with a table */
	strcpy(envs[2].kernel, "6.5.0");
	f = fmemopen(buf, sizeof(buf), "w");
	CHECK(gc_provision_compare_envs(nodes, envs, 3, f, &e) == GC_OK);
	fclose(f);
	CHECK_CONTAINS(buf, "kernel");
	CHECK_CONTAINS(buf, "6.5.0");
	/* MPI 4.0 on one node and another NCCL: refused, the table names who has what */
	strcpy(envs[1].mpi, "Open MPI v4.0.3");
	strcpy(envs[2].nccl, "2.19.3");
	f = fmemopen(buf, sizeof(buf), "w");
	CHECK(gc_provision_compare_envs(nodes, envs, 3, f, &e) == GC_E_MISMATCH);
	fclose(f);
	CHECK_CONTAINS(e.msg, "different MPI versions and NCCL versions");
	CHECK_CONTAINS(buf, "MPI (major.minor) and NCCL");
	CHECK_CONTAINS(buf, "gpu2");
	CHECK_CONTAINS(buf, "Open MPI v4.0.3");
	CHECK_CONTAINS(buf, "2.19.3");
	CHECK_CONTAINS(buf, "kernel");
}

/* Step 4: the node's CPU against the build's needs, and the self-test's outcome. */
static void test_check_cpu(void)
{
	static const char nehalem[] = "fpu sse sse2 pni ssse3 cx16 sse4_1 sse4_2 popcnt lahf_lm";
	static const char v2[] = "pni ssse3 sse4_1 sse4_2 popcnt cx16 lahf_lm";
	char out[1024], isa[16];
	gc_err e;

	snprintf(out, sizeof(out), "uid=0\ncpu_model=Intel Core i7 950\ncpu_flags=%s\n"
		 "selftest_rc=0\nselftest=self-test: ok: 7 methods on 69922 elements, kernels "
		 "at level default (this CPU's best: default) identical\n", nehalem);
	CHECKF(gc_provision_check_cpu("n1", out, v2, "x86-64-v2", isa, sizeof(isa), &e) == GC_OK,
	       "%s", e.msg);
	CHECK_STR(isa, "default");
	/* a native build with AVX-512 on that node: refused with the node, model and flags */
	CHECK(gc_provision_check_cpu("n1", out, "sse4_2 avx2 avx512f avx512bw", "native", isa,
				     sizeof(isa), &e) == GC_E_UNSUPPORTED);
	CHECK_CONTAINS(e.msg, "node 'n1'");
	CHECK_CONTAINS(e.msg, "Intel Core i7 950");
	CHECK_CONTAINS(e.msg, "lacks avx2 avx512f avx512bw");
	CHECK_CONTAINS(e.msg, "ARCH=native");
	/* flags unknown (no /proc/cpuinfo): the self-test decides; SIGILL is named */
	snprintf(out, sizeof(out), "cpu_model=\ncpu_flags=\nselftest_rc=132\n");
	CHECK(gc_provision_check_cpu("n2", out, v2, "native", isa, sizeof(isa), &e) ==
	      GC_E_UNSUPPORTED);
	CHECK_CONTAINS(e.msg, "node 'n2'");
	CHECK_CONTAINS(e.msg, "SIGILL");
	CHECK_CONTAINS(e.msg, "unknown model");
	/* a self-test that ran and failed: its verdict, not a CPU story */
	snprintf(out, sizeof(out), "cpu_model=AMD EPYC\ncpu_flags=%s\nselftest_rc=1\n"
		 "selftest=self-test: FAILED: topk at level avx2 differs\n", nehalem);
	CHECK(gc_provision_check_cpu("n3", out, v2, "x86-64-v2", isa, sizeof(isa), &e) ==
	      GC_E_CHILD);
	CHECK_CONTAINS(e.msg, "topk at level avx2 differs");
	CHECK_CONTAINS(e.msg, "exit status 1");
	/* malformed output: no lines at all passes on to the other checks; a level that is
	 * not a token is dropped */
	CHECK(gc_provision_check_cpu("n4", "", v2, "x86-64-v2", isa, sizeof(isa), &e) == GC_OK);
	CHECK_STR(isa, "");
	snprintf(out, sizeof(out), "selftest_rc=0\nselftest=kernels at level $(x)\n");
	CHECK(gc_provision_check_cpu("n4", out, v2, "x86-64-v2", isa, sizeof(isa), &e) == GC_OK);
	CHECK_STR(isa, "");
}

int main(void)
{
	GCT_SUITE("provision");
	GCT_RUN(test_build_hash);
	GCT_RUN(test_lib_package);
	GCT_RUN(test_compare_envs);
	GCT_RUN(test_check_cpu);
	return gct_finish();
}

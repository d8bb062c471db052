/* tests/unit/test_spec_command.c: workload: command: the spec's template, labels,
 * parameters and files; the placeholders filled in; the launch line it makes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "proc.h"
#include "orchestrator/remote/launch.h"
#include "orchestrator/spec/spec.h"
#include "orchestrator/spec/spec_command.h"
#include "orchestrator/run/sweep.h"

static char dir[] = "/tmp/gcbench-test-spec-command.XXXXXX";
static char spec_path[256];

static const char *good =
	"name: hooks\n"
	"workload: command\n"
	"command: [python3, train.py, --hook, \"{method}\", \"--params={params}\",\n"
	"          --out, \"{records}\", --iters, \"{iterations}\", -w, \"{warmup}\",\n"
	"          \"b{batch}x{world_size}\", \"{model}\", \"{backend}\"]\n"
	"files: [train.py, lib/util.txt]\n"
	"models: [mlp]\n"
	"methods:\n"
	"  - allreduce\n"
	"  - fp16\n"
	"  - powersgd: {rank: [2, 4], iters: 1}\n"
	"baseline: allreduce\n"
	"bandwidth: [1gbit, 2gbit]\n"
	"world_size: 2\n"
	"batch: 16\n"
	"iterations: 7\n"
	"warmup: 1\n";

static void write_file(const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static int load(struct gc_spec *s, struct gc_diags *d)
{
	gc_diags_init(d, spec_path);
	return gc_spec_parse(good, strlen(good), spec_path, s, d);
}

static void dump(const struct gc_diags *d)
{
	for (size_t i = 0; i < d->n; i++)
		printf("# %s\n", d->msg[i]);
}

static void test_parse_good(void)
{
	struct gc_spec s;
	struct gc_diags d;
	gc_rc rc = load(&s, &d);

	if (rc)
		dump(&d);
	CHECK_EQ_INT(rc, GC_OK);
	CHECK_STR(s.workload, "command");
	CHECK_EQ_INT(s.n_stacks, 1);
	CHECK_STR(s.stacks[0].name, "");
	CHECK_EQ_INT(s.stacks[0].n_argv, 14);
	CHECK_STR(s.stacks[0].argv[4], "--params={params}");
	CHECK_EQ_INT(s.n_methods, 4);
	CHECK_STR(s.methods[0].label, "allreduce");
	CHECK_STR(s.methods[2].name, "powersgd");
	CHECK_STR(s.methods[2].params_text, "iters=1,rank=2");   /* sorted by key */
	CHECK_STR(s.methods[3].label, "powersgd(iters=1,rank=4)");
	CHECK_STR(s.baseline, "allreduce");
	CHECK_EQ_INT(s.n_files, 2);
	CHECK_STR(s.files[1].name, "lib/util.txt");   /* its folder kept */
	CHECK_EQ_INT(strlen(s.files[0].digest), 16);
	CHECK(strstr(s.canonical, "command=python3 train.py --hook {method}") != NULL);
	CHECK(strstr(s.canonical, "files=train.py:") != NULL);
	CHECK(strstr(s.canonical, "stack=") == NULL);   /* command: keeps its old hash */
	gc_spec_release(&s);
	gc_diags_release(&d);
}

static const char *stacked =
	"name: side-by-side\n"
	"workload: command\n"
	"stacks:\n"
	"  pytorch: [python3, bench.py, --hook, \"{method}\", --out, \"{records}\"]\n"
	"  gcbench: [\"{bin}/gcbench-worker\", --method, \"{method}\", --out, \"{records}\"]\n"
	"models: [tiny]\n"
	"methods: [syncsgd, fp16]\n"
	"baseline: syncsgd\n"
	"bandwidth: [1gbit, 2gbit]\n"
	"exclude: [{stack: gcbench, method: fp16}]\n"
	"world_size: 2\nbatch: 8\niterations: 3\n";

/* stacks: an axis, innermost: a method's stacks run back to back, keyed ;stack=NAME */
static void test_stacks(void)
{
	struct gc_spec s;
	struct gc_sweep sw;
	struct gc_diags d;
	gc_err e;
	gc_rc rc;

	gc_diags_init(&d, spec_path);
	rc = gc_spec_parse(stacked, strlen(stacked), spec_path, &s, &d);
	if (rc)
		dump(&d);
	CHECK_EQ_INT(rc, GC_OK);
	gc_diags_release(&d);
	if (rc)
		return;
	CHECK_EQ_INT(s.n_stacks, 2);
	CHECK_STR(s.stacks[0].name, "pytorch");
	CHECK_STR(s.stacks[1].argv[0], "{bin}/gcbench-worker");
	CHECK_EQ_INT(gc_spec_axis_len(&s, GC_AX_STACK), 2);
	CHECK(strstr(s.canonical, "stack=pytorch\ncommand=python3 bench.py") != NULL);
	CHECK(strstr(s.canonical, "stack=gcbench\ncommand={bin}/gcbench-worker") != NULL);
	CHECK_EQ_INT(gc_sweep_expand(&s, &sw, &e), GC_OK);
	CHECK_EQ_INT(sw.n_product, 8);
	CHECK_EQ_INT(sw.n, 6);   /* gcbench's fp16 excluded at both caps */
	CHECK(sw.n == 6 && sw.pts[0].stack == &s.stacks[0] && sw.pts[1].stack == &s.stacks[1]);
	CHECK(sw.n == 6 && !strcmp(sw.pts[0].method->name, sw.pts[1].method->name));
	CHECKF(sw.n == 6 && strstr(sw.pts[1].key, ";repeat=0;stack=gcbench") != NULL, "key %s",
	       sw.pts[1].key);
	gc_sweep_release(&sw);
	gc_spec_release(&s);
}

/* one diagnostic each, at its place, and no spec */
static void test_stacks_bad(void)
{
	static const struct { const char *body, *want; } cases[] = {
		{ "command: [a]\nstacks: {x: [b]}\n", "either 'command'" },
		{ "stacks: []\n", "'stacks' is a list; write 1 to 8 named" },
		{ "stacks: {}\n", "'stacks' is empty" },
		{ "stacks: {-x: [a]}\n", "a stack's name" },
		{ "stacks: {x: [a], x: [b]}\n", "stack 'x' is given twice" },
		{ "stacks: {x: []}\n", "stack 'x' is an empty list" },
		{ "stacks: {x: [a, \"{nope}\"]}\n", "argument 2 of stack 'x' has an unknown" },
		{ "stacks: {x: [a, \"$(id)\"]}\n", "argument 2 of stack 'x' has a character" },
		{ "stacks: {a: [a], b: [b], c: [c], d: [d], e: [e], f: [f], g: [g], h: [h], "
		  "i: [i]}\n", "'stacks' is too long" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[1024];
		struct gc_spec s;
		struct gc_diags d;
		int found = 0;

		snprintf(text, sizeof(text), "name: x\nworkload: command\n%smodels: [m]\n"
			 "methods: [a]\nbaseline: a\nworld_size: 2\nbatch: 8\niterations: 3\n"
			 "bandwidth: 1gbit\n", cases[i].body);
		gc_diags_init(&d, "s.yaml");
		CHECKF(gc_spec_parse(text, strlen(text), "s.yaml", &s, &d) == GC_E_INVAL,
		       "case %zu parsed", i);
		for (size_t k = 0; k < d.n; k++)
			found |= strstr(d.msg[k], cases[i].want) != NULL;
		CHECKF(found, "case %zu: no '%s' in %zu messages (first: %s)", i, cases[i].want,
		       d.n, d.n ? d.msg[0] : "");
		gc_diags_release(&d);
	}
	{   /* stacks: belongs to workload: command */
		const char *t = "name: x\nmodels: [resnet50]\nstacks: {x: [a]}\n";
		struct gc_spec s;
		struct gc_diags d;
		int found = 0;
		gc_diags_init(&d, "s.yaml");
		CHECK_EQ_INT(gc_spec_parse(t, strlen(t), "s.yaml", &s, &d), GC_E_INVAL);
		for (size_t k = 0; k < d.n; k++)
			found |= strstr(d.msg[k], "s.yaml:3:9: 'stacks' applies to workload: "
					"command only") != NULL;
		CHECKF(found, "no such message among %zu", d.n);
		gc_diags_release(&d);
	}
}

/* a file's content is part of the spec hash: an edited script is a new spec */
static void test_files_in_hash(void)
{
	struct gc_spec a, b;
	struct gc_diags d;

	CHECK_EQ_INT(load(&a, &d), GC_OK);
	gc_diags_release(&d);
	write_file("train.py", "print('changed')\n");
	CHECK_EQ_INT(load(&b, &d), GC_OK);
	gc_diags_release(&d);
	CHECKF(strcmp(a.hash, b.hash) != 0, "hash %s did not change with the file", a.hash);
	CHECK(strcmp(a.files[0].digest, b.files[0].digest) != 0);
	gc_spec_release(&a);
	gc_spec_release(&b);
}

/* files: with the given list; the parsed spec in *s, GC_OK or not */
static gc_rc parse_files(const char *list, struct gc_spec *s, struct gc_diags *d)
{
	char text[1024];

	snprintf(text, sizeof(text), "name: f\nworkload: command\ncommand: [python3, t.py]\n"
		 "files: %s\nmodels: [m]\nmethods: [a]\nbaseline: a\nbandwidth: 1gbit\n"
		 "world_size: 2\nbatch: 1\niterations: 1\n", list);
	gc_diags_init(d, spec_path);
	return gc_spec_parse(text, strlen(text), spec_path, s, d);
}

static int has_diag(const struct gc_diags *d, const char *text)
{
	for (size_t k = 0; k < d->n; k++)
		if (strstr(d->msg[k], text))
			return 1;
	dump(d);
	return 0;
}

/* files: keeps folders (a package stays a package); outside the spec's folder, the
 * base name; a folder entry ships its files without hidden ones and __pycache__ */
static void test_files_paths(void)
{
	struct gc_spec s;
	struct gc_diags d;
	char out[300];
	gc_rc rc;

	snprintf(out, sizeof(out), "[train.py, ./pkg, ../%s/lib/util.txt, %s/train.py]",
		 strrchr(dir, '/') + 1, dir);
	/* the same file twice (by two spellings): shipped once */
	rc = parse_files(out, &s, &d);
	CHECK_EQ_INT(rc, GC_OK);
	CHECK_EQ_INT(s.n_files, 5);
	gc_spec_release(&s);
	gc_diags_release(&d);

	snprintf(out, sizeof(out), "[train.py, ./pkg/, ../%s/lib/util.txt]", strrchr(dir, '/') + 1);
	rc = parse_files(out, &s, &d);
	if (rc)
		dump(&d);
	CHECK_EQ_INT(rc, GC_OK);
	CHECK_EQ_INT(s.n_files, 5);
	if (s.n_files == 5) {
		CHECK_STR(s.files[0].name, "train.py");
		CHECK_STR(s.files[1].name, "pkg/__init__.py");   /* name order */
		CHECK_STR(s.files[2].name, "pkg/sub/deep.py");
		CHECK_STR(s.files[3].name, "pkg/util.py");
		CHECK_STR(s.files[4].name, "util.txt");          /* outside: its base name */
	}
	CHECK(strstr(s.canonical, "pkg/util.py:") != NULL);
	gc_spec_release(&s);
	gc_diags_release(&d);

	/* a second util.txt; an empty folder; ".",
	 * "..", spaces, "": refused */
	write_file("util.txt", "y\n");
	snprintf(out, sizeof(out), "[pkg/util.py, util.txt, ../%s/lib/util.txt]", strrchr(dir, '/') + 1);
	rc = parse_files(out, &s, &d);
	CHECK_EQ_INT(rc, GC_E_INVAL);
	CHECK(has_diag(&d, "lib/util.txt' would both land on files/util.txt"));
	gc_diags_release(&d);
	rc = parse_files("[pkg, pkg/util.py]", &s, &d);   /* a file and its folder: once */
	CHECK_EQ_INT(rc, GC_OK);
	CHECK_EQ_INT(s.n_files, 3);
	gc_spec_release(&s);
	gc_diags_release(&d);
	rc = parse_files("[lib/util.txt, lib/util.txt/x]", &s, &d);
	CHECK_EQ_INT(rc, GC_E_INVAL);
	gc_diags_release(&d);
	rc = parse_files("[empty]", &s, &d);
	CHECK_EQ_INT(rc, GC_E_INVAL);
	CHECK(has_diag(&d, "folder 'empty' has no file to ship"));
	gc_diags_release(&d);
	rc = parse_files("[\".\", \"..\", \"a b\", \"\"]", &s, &d);
	CHECK_EQ_INT(rc, GC_E_INVAL);
	CHECK_EQ_INT(d.n, 4);
	CHECK(has_diag(&d, "naming a file or a folder; write e.g. files: [train.py, my_pkg]"));
	gc_diags_release(&d);
}

/* files/x a file for one entry and a folder for another (../DIR/lib/x lands as x/) */
static void test_files_file_and_folder(void)
{
	struct gc_spec s;
	struct gc_diags d;
	char p[300], list[300];

	write_file("x", "1\n");
	snprintf(p, sizeof(p), "%s/lib/x", dir);
	mkdir(p, 0755);
	write_file("lib/x/y", "2\n");
	write_file("lib/x/.hidden", "3\n");
	snprintf(list, sizeof(list), "[x, ../%s/lib/x]", strrchr(dir, '/') + 1);
	CHECK_EQ_INT(parse_files(list, &s, &d), GC_E_INVAL);
	CHECK(has_diag(&d, "files/x on the hosts would be both a file and a folder"));
	gc_diags_release(&d);
	snprintf(list, sizeof(list), "[../%s/lib/x]", strrchr(dir, '/') + 1);
	CHECK_EQ_INT(parse_files(list, &s, &d), GC_OK);
	CHECK_EQ_INT(s.n_files, 1);   /* .hidden left out */
	CHECK_STR(s.n_files ? s.files[0].name : "", "x/y");
	gc_spec_release(&s);
	gc_diags_release(&d);
}

static gc_rc parse_text(const char *text, struct gc_spec *s, struct gc_diags *d)
{
	gc_diags_init(d, spec_path);
	return gc_spec_parse(text, strlen(text), spec_path, s, d);
}

/* workload: ddp: the runner's argv, PyTorch's hooks by name, a hook of the user's with
 * its parameters and its file shipped (with the .py files beside it); syncsgd the
 * default baseline */
static void test_ddp(void)
{
	static const char *good_ddp =
		"name: own\nworkload: ddp\npython: /usr/bin/python3\nmodels: [tiny]\n"
		"methods:\n  - syncsgd\n  - fp16\n  - powersgd: {rank: 2}\n"
		"  - int8: {hook: train.py:make_hook, bits: [4, 8]}\n"
		"bandwidth: 1gbit\nworld_size: 2\nbatch: 1\niterations: 1\n";
	struct gc_spec s;
	struct gc_diags d;
	gc_rc rc = parse_text(good_ddp, &s, &d);

	if (rc)
		dump(&d);
	CHECK_EQ_INT(rc, GC_OK);
	CHECK_STR(s.workload, "command");
	CHECK_EQ_INT(s.ddp, 1);
	CHECK_STR(s.baseline, "syncsgd");
	CHECK_EQ_INT(s.n_methods, 5);
	CHECK_STR(s.methods[4].params_text, "bits=8,hook=train.py:make_hook");
	CHECK_EQ_INT(s.n_stacks, 1);
	CHECK_STR(s.stacks[0].argv[0], "{python}");   /* the wrapper's, per host */
	CHECK_STR(s.python, "/usr/bin/python3");
	CHECK_STR(s.stacks[0].argv[1], "{bin}/python/gcbench_ddp.py");
	CHECK(s.n_files >= 1);   /* train.py and the .py files beside it */
	for (size_t i = 0; i < s.n_files; i++)
		CHECKF(strstr(s.files[i].name, ".py") != NULL, "shipped %s", s.files[i].name);
	CHECK(strstr(s.canonical, "command={python} {bin}/python/gcbench_ddp.py") != NULL);
	CHECK(strstr(s.canonical, "python=/usr/bin/python3\n") != NULL);
	gc_spec_release(&s);
	gc_diags_release(&d);

	/* a hook in a folder: that folder, whole */
	rc = parse_text("name: own\nworkload: ddp\nmodels: [tiny]\nmethods:\n  - syncsgd\n"
			"  - p: {hook: pkg/util.py:make}\nbandwidth: 1gbit\nworld_size: 2\n"
			"batch: 1\niterations: 1\n", &s, &d);
	CHECK_EQ_INT(rc, GC_OK);
	CHECK_EQ_INT(s.n_files, 3);
	CHECK_STR(s.n_files ? s.files[0].name : "", "pkg/__init__.py");
	CHECK_STR(s.python, "");   /* the host's python:, else python3 */
	gc_spec_release(&s);
	gc_diags_release(&d);

	/* bf16 on the CPU (gloo cannot all-reduce bfloat16): refused; on nccl it runs */
	rc = parse_text("name: own\nworkload: ddp\nmodels: [tiny]\nmethods: [syncsgd, bf16]\n"
			"bandwidth: 1gbit\nworld_size: 2\nbatch: 1\niterations: 1\n", &s, &d);
	CHECK_EQ_INT(rc, GC_E_INVAL);
	CHECK(has_diag(&d, "method bf16 cannot run on backend mpi: gloo (torch 1.13) has no "
		       "bfloat16 all-reduce; use backend: nccl, or fp16 on the CPU"));
	gc_spec_release(&s);
	gc_diags_release(&d);
	rc = parse_text("name: own\nworkload: ddp\nmodels: [tiny]\nmethods: [syncsgd, bf16]\n"
			"backend: [mpi, nccl]\nbandwidth: 1gbit\nworld_size: 2\nbatch: 1\n"
			"iterations: 1\n", &s, &d);
	CHECK_EQ_INT(rc, GC_E_INVAL);
	gc_spec_release(&s);
	gc_diags_release(&d);
	rc = parse_text("name: own\nworkload: ddp\nmodels: [tiny]\nmethods: [syncsgd, bf16]\n"
			"backend: nccl\nbandwidth: 1gbit\nworld_size: 2\nbatch: 1\niterations: 1\n",
			&s, &d);
	CHECK_EQ_INT(rc, GC_OK);
	gc_spec_release(&s);
	gc_diags_release(&d);

	/* every mistake at once */
	rc = parse_text("name: own\nworkload: ddp\npython: ~bob/python\n"
			"command: [python3, x.py]\nmodels: [tiny]\nmethods:\n  - syncsgd\n"
			"  - int9\n  - fp16: {hook: a.py:f}\n  - q: {hook: a.txt:f}\n"
			"  - r: {hook: \"a.py:1f\"}\n  - powersgd: {rnak: 2}\n  - m: {hook: none.py:f}\n"
			"bandwidth: 1gbit\nworld_size: 2\nbatch: 1\niterations: 1\n", &s, &d);
	CHECK_EQ_INT(rc, GC_E_INVAL);
	CHECK(has_diag(&d, "write e.g. python: /usr/bin/python3 or python: ~/venv/bin/python"));
	CHECK(has_diag(&d, "workload: ddp runs gcbench's own DDP runner; remove 'command'"));
	CHECK(has_diag(&d, "method 'int9' is not one of PyTorch's hooks by gcbench's name"));
	CHECK(has_diag(&d, "'fp16' is PyTorch's hook under gcbench's name; give your hook a label"));
	CHECK(has_diag(&d, "hook 'a.txt:f' of 'q' is not FILE.py:FUNCTION"));
	CHECK(has_diag(&d, "hook 'a.py:1f' of 'r' is not FILE.py:FUNCTION"));
	CHECK(has_diag(&d, "method powersgd takes no parameter 'rnak'; it takes rank"));
	CHECK(has_diag(&d, "file 'none.py'"));
	gc_diags_release(&d);
	/* python: belongs to ddp */
	rc = parse_text("name: c\nworkload: command\npython: python3\ncommand: [python3, t.py]\n"
			"models: [m]\nmethods: [a]\nbaseline: a\nbandwidth: 1gbit\nworld_size: 2\n"
			"batch: 1\niterations: 1\n", &s, &d);
	CHECK_EQ_INT(rc, GC_E_INVAL);
	CHECK(has_diag(&d, "'python' applies to workload: ddp only"));
	gc_diags_release(&d);
}

static void test_arg_problem(void)
{
	CHECK(gc_command_arg_problem("python3", 1) == NULL);
	CHECK(gc_command_arg_problem("--out={records}", 0) == NULL);
	CHECK(gc_command_arg_problem("{method}{params}", 0) == NULL);
	CHECK(gc_command_arg_problem("--x", 1) != NULL);
	CHECK(gc_command_arg_problem("", 0) != NULL);
	CHECK(gc_command_arg_problem("a b", 0) != NULL);
	CHECK(gc_command_arg_problem("$(id)", 0) != NULL);
	CHECK(gc_command_arg_problem("a;b", 0) != NULL);
	CHECK(gc_command_arg_problem("'q'", 0) != NULL);
	CHECK(gc_command_arg_problem("{nope}", 0) != NULL);
	CHECK(gc_command_arg_problem("{records", 0) != NULL);
	CHECK(gc_command_arg_problem("records}", 0) != NULL);
	CHECK(gc_command_label_ok("powerSGD_r4.v2"));
	CHECK(!gc_command_label_ok("-x"));
	CHECK(!gc_command_label_ok("a,b"));
	CHECK(!gc_command_label_ok("a(b)"));
	CHECK(gc_command_value_ok("0.01"));
	CHECK(!gc_command_value_ok("a=b"));
	CHECK(!gc_command_value_ok("a,b"));
}

static void test_expand(void)
{
	char *tmpl[] = { "python3", "--hook={method}", "{params}", "{records}", "i{iterations}w{warmup}",
			 "{batch}/{world_size}", "{model}-{backend}", "--method={method_arg}" };
	struct gc_command_vals v = { "powersgd", "rank=4", "mlp", "mpi", 30, 2, 16, 4 };
	struct gc_command_vals bad = { "x y", "", "m", "mpi", 1, 0, 1, 1 };
	char **argv;
	gc_err e;

	struct gc_command_vals plain = { "syncsgd", "", "mlp", "mpi", 30, 2, 16, 4 };

	CHECK_EQ_INT(gc_command_expand(tmpl, 8, &v, &argv, &e), GC_OK);
	CHECK_STR(argv[1], "--hook=powersgd");
	CHECK_STR(argv[2], "rank=4");
	CHECK_STR(argv[3], "{records}");     /* the wrapper's, per rank */
	CHECK_STR(argv[4], "i30w2");
	CHECK_STR(argv[5], "16/4");
	CHECK_STR(argv[6], "mlp-mpi");
	CHECK_STR(argv[7], "--method=powersgd:rank=4");   /* gcbench's own --method */
	CHECK(argv[8] == NULL);
	gc_argv_free(argv);
	CHECK_EQ_INT(gc_command_expand(tmpl, 8, &plain, &argv, &e), GC_OK);
	CHECK_STR(argv[7], "--method=syncsgd");
	gc_argv_free(argv);
	CHECK_EQ_INT(gc_command_expand(tmpl, 2, &bad, &argv, &e), GC_E_INVAL);
	CHECK(argv == NULL);
}

static int has_arg(char **argv, const char *s)
{
	for (size_t i = 0; argv[i]; i++)
		if (!strcmp(argv[i], s))
			return 1;
	return 0;
}

static void test_launch(void)
{
	char *cmd[] = { "python3", "train.py", "--out", "{records}", NULL };
	char *evil[] = { "python3", "a;rm", NULL };
	gc_launch l = { 0 };
	char **argv, *script = NULL;
	gc_err e;
	size_t i;

	l.hosts[0] = "n1", l.hosts[1] = "n2";
	l.slots[0] = l.slots[1] = 1;
	l.nhosts = 2, l.world = 2;
	l.iface = "eth0", l.data_cidr = "10.9.0.0/24";
	l.command = cmd, l.n_command = 4;
	l.files_dir = ".cache/gcbench/0123456789abcdef/files";
	l.records_dir = "/tmp/gcbench-records-x/run-3";
	l.bin_dir = ".cache/gcbench/0123456789abcdef";
	l.master_addr = "10.9.0.2", l.master_port = 20003;
	l.threads = 1, l.run_id = 3, l.deadline_s = 30;
	CHECKF(gc_launch_argv(&l, &argv, &e) == GC_OK, "%s", e.msg);
	CHECK(has_arg(argv, "gcbench-command"));
	CHECK(has_arg(argv, "OMP_NUM_THREADS=1") && has_arg(argv, "GCBENCH_DEADLINE_S=30"));
	CHECK(has_arg(argv, "10.9.0.2") && has_arg(argv, "20003"));
	CHECK(!has_arg(argv, "--method"));   /* not the worker's options */
	for (i = 0; argv[i]; i++)
		if (strstr(argv[i], "OMPI_COMM_WORLD_LOCAL_RANK"))
			script = argv[i];
	CHECK(script != NULL);
	CHECK(strstr(script, "GLOO_SOCKET_IFNAME") && strstr(script, "MASTER_PORT") &&
	      strstr(script, "GCBENCH_RECORDS=$d/records-r$RANK.gcr"));
	CHECK_STR(argv[i - 1], "{records}");
	CHECK_STR(argv[i - 4], "python3");
	CHECK_STR(argv[i - 5], "0");   /* no environment entries */
	CHECK_STR(argv[i - 6], ".cache/gcbench/0123456789abcdef");
	gc_argv_free(argv);
	l.bin_dir = NULL;
	CHECK_EQ_INT(gc_launch_argv(&l, &argv, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "binaries' folder");
	l.bin_dir = "a b";
	CHECK_EQ_INT(gc_launch_argv(&l, &argv, &e), GC_E_INVAL);
	l.bin_dir = ".cache/gcbench/0123456789abcdef";
	l.command = evil, l.n_command = 2;
	CHECK_EQ_INT(gc_launch_argv(&l, &argv, &e), GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "argument 2");
	l.command = cmd, l.n_command = 4, l.master_addr = "$(x)";
	CHECK_EQ_INT(gc_launch_argv(&l, &argv, &e), GC_E_INVAL);
}

/* the wrapper itself: Open MPI's variables mapped, {records} replaced, the folder
 * entered, gcbench's Python modules first on PYTHONPATH; run with /bin/sh as mpirun
 * would (no data subnet: the iface given) */
static void test_wrapper_runs(void)
{
	char *cmd[] = { "/bin/sh", "show.sh", "--out={records}", "{bin}/w:{bin}", NULL };
	const char *env[] = { "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2",
			      "OMPI_COMM_WORLD_LOCAL_RANK=0", "PYTHONPATH=/u/lib" };
	gc_launch l = { 0 };
	char **argv, want[1024];
	gc_proc_result r;
	gc_err e;
	size_t i;

	l.hosts[0] = "n1";
	l.slots[0] = 1;
	l.nhosts = 1, l.world = 1;
	l.iface = "lo";
	l.command = cmd, l.n_command = 4;
	l.files_dir = dir;   /* show.sh is found there: the rank runs in it */
	l.records_dir = "/tmp/recs";
	l.bin_dir = "/opt/gcb/bin";
	l.master_addr = "10.1.2.3", l.master_port = 2000;
	CHECKF(gc_launch_argv(&l, &argv, &e) == GC_OK, "%s", e.msg);
	for (i = 0; argv[i] && strcmp(argv[i], "/bin/sh"); i++)
		;
	CHECK(argv[i] != NULL);
	for (size_t k = 0; k < 4; k++)
		putenv((char *)env[k]);
	CHECK_EQ_INT(gc_proc_run(argv + i, NULL, NULL, 10, 0, &r, &e), GC_OK);
	snprintf(want, sizeof(want), "1 2 0 10.1.2.3:2000 lo lo /tmp/recs/records-r1.gcr %s "
		 "--out=/tmp/recs/records-r1.gcr /opt/gcb/bin/w:/opt/gcb/bin /opt/gcb/bin "
		 "/opt/gcb/bin/python:/u/lib\n", dir);   /* gcbench's modules first */
	CHECKF(r.status == 0 && r.out && !strcmp(r.out, want), "got '%s' (%s), want '%s'",
	       r.out ? r.out : "", r.err_tail, want);
	gc_proc_result_release(&r);
	gc_argv_free(argv);
}

/* the environment: the spec's entries on every host, a host's by its data address,
 * ~/ expanded to the host's $HOME, {python} from GCBENCH_PYTHON; bad entries refused */
static void test_wrapper_env(void)
{
	char *cmd[] = { "/bin/sh", "env.sh", "{python}", NULL };
	gc_launch l = { 0 };
	char **argv, want[512];
	gc_proc_result r;
	gc_err e;
	size_t i;
	const char *home = getenv("HOME");

	write_file("env.sh", "echo \"$FOO|$BAR|$1|$GLOO_SOCKET_IFNAME\"\n");
	l.hosts[0] = "n1";
	l.slots[0] = 1;
	l.nhosts = 1, l.world = 1;
	l.iface = "lo";
	l.data_cidr = "127.0.0.0/8";   /* this host is 127.0.0.1 on it */
	l.command = cmd, l.n_command = 3;
	l.files_dir = dir;
	l.records_dir = "/tmp/recs";
	l.bin_dir = "/opt/gcb/bin";
	l.master_addr = "127.0.0.1", l.master_port = 2000;
	strcpy(l.env[0], "*/FOO=~/x");
	strcpy(l.env[1], "*/BAR=all");
	strcpy(l.env[2], "127.0.0.1/BAR=mine");
	strcpy(l.env[3], "10.9.9.9/BAR=other");
	strcpy(l.env[4], "127.0.0.1/GCBENCH_PYTHON=/usr/bin/python3");
	l.n_env = 5;
	CHECKF(gc_launch_argv(&l, &argv, &e) == GC_OK, "%s", e.msg);
	for (i = 0; argv[i] && strcmp(argv[i], "/bin/sh"); i++)
		;
	CHECK(argv[i] != NULL);
	CHECK_EQ_INT(gc_proc_run(argv + i, NULL, NULL, 10, 0, &r, &e), GC_OK);
	snprintf(want, sizeof(want), "%s/x|mine|/usr/bin/python3|lo\n", home ? home : "");
	CHECKF(r.status == 0 && r.out && !strcmp(r.out, want), "got '%s' (%s), want '%s'",
	       r.out ? r.out : "", r.err_tail, want);
	gc_proc_result_release(&r);
	gc_argv_free(argv);
	/* refused before any shell: a reserved name, a value with $, ~bob, a bad key */
	{
		const char *bad[] = { "*/RANK=1", "*/X=$(id)", "*/X=~bob/x", "a b/X=1", "*/X",
				      "*/GCBENCH_BIN=/x", "*/1X=1" };
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			strcpy(l.env[0], bad[k]);
			l.n_env = 1;
			CHECKF(gc_launch_argv(&l, &argv, &e) == GC_E_INVAL, "accepted '%s'", bad[k]);
		}
	}
}

/* env: in a spec and python:/env: of an inventory host: checked, named in messages */
static void test_env_parse(void)
{
	struct gc_spec s;
	struct gc_diags d;
	gc_rc rc = parse_text("name: e\nworkload: ddp\npython: ~/venv/bin/python3\n"
			      "env: {OMP_PROC_BIND: close, PATH: \"~/conda/bin:/usr/bin\"}\n"
			      "models: [tiny]\nmethods: [syncsgd]\nbandwidth: 1gbit\n"
			      "world_size: 2\nbatch: 1\niterations: 1\n", &s, &d);

	if (rc)
		dump(&d);
	CHECK_EQ_INT(rc, GC_OK);
	CHECK_EQ_INT(s.n_env, 2);
	CHECK_STR(s.env[1], "PATH=~/conda/bin:/usr/bin");
	CHECK_STR(s.python, "~/venv/bin/python3");
	CHECK_STR(s.stacks[0].argv[0], "{python}");
	CHECK(strstr(s.canonical, "env=OMP_PROC_BIND=close\n") != NULL);
	gc_spec_release(&s);
	gc_diags_release(&d);
	rc = parse_text("name: e\nworkload: ddp\npython: ~bob/python\n"
			"env: {RANK: 1, GCBENCH_FILES: 1, \"1A\": 2, A: \"$(id)\", B: [1], C: \"a b\"}\n"
			"models: [tiny]\nmethods: [syncsgd]\nbandwidth: 1gbit\n"
			"world_size: 2\nbatch: 1\niterations: 1\n", &s, &d);
	CHECK_EQ_INT(rc, GC_E_INVAL);
	CHECK_EQ_INT(d.n, 7);
	CHECK(has_diag(&d, "another login's home; write ~/PATH"));
	CHECK(has_diag(&d, "env: 'RANK' is set by gcbench for every rank"));
	CHECK(has_diag(&d, "env: 'GCBENCH_FILES' is gcbench's or Open MPI's own"));
	CHECK(has_diag(&d, "env: '1A' is not a variable name"));
	CHECK(has_diag(&d, "env: the value of A has a character other than"));
	CHECK(has_diag(&d, "env: the value of B is not one plain value"));
	gc_diags_release(&d);
	rc = parse_text("name: e\nworkload: replay\nenv: {A: 1}\nmodels: [tiny]\n"
			"methods: [syncsgd]\nbandwidth: 1gbit\nworld_size: 2\nbatch: 1\n"
			"iterations: 1\n", &s, &d);
	CHECK_EQ_INT(rc, GC_E_INVAL);
	CHECK(has_diag(&d, "'env' applies to workloads command and ddp only"));
	gc_diags_release(&d);
}

/* workload: ddp with csv: models: the parameter list shipped, {model} its landed path;
 * a missing file, a folder and a path with a space refused */
static void test_ddp_csv(void)
{
	struct gc_spec s;
	struct gc_diags d;
	gc_rc rc;

	rc = parse_text("name: own\nworkload: ddp\nmodels: [tiny, csv:lib/m.csv]\n"
			"methods: [syncsgd]\nbandwidth: 1gbit\nworld_size: 2\nbatch: 1\n"
			"iterations: 1\n", &s, &d);
	if (rc)
		dump(&d);
	CHECK_EQ_INT(rc, GC_OK);
	CHECK_EQ_INT(s.n_models, 2);
	CHECK_STR(s.n_models == 2 ? s.models[1] : "", "csv:lib/m.csv");
	CHECK_EQ_INT(s.n_files, 1);
	CHECK_STR(s.n_files ? s.files[0].name : "", "lib/m.csv");
	gc_spec_release(&s);
	gc_diags_release(&d);

	rc = parse_text("name: own\nworkload: ddp\nmodels: [csv:none.csv, csv:lib, \"csv:a b\"]\n"
			"methods: [syncsgd]\nbandwidth: 1gbit\nworld_size: 2\nbatch: 1\n"
			"iterations: 1\n", &s, &d);
	CHECK_EQ_INT(rc, GC_E_INVAL);
	CHECK_EQ_INT(d.n, 3);
	CHECK(has_diag(&d, "csv: model 'none.csv' is not a file"));
	CHECK(has_diag(&d, "csv: model 'lib' is not a file"));
	CHECK(has_diag(&d, "a csv: model of workload: ddp is a parameter list's path"));
	gc_spec_release(&s);
	gc_diags_release(&d);
}

int main(void)
{
	char lib[300];

	GCT_SUITE("spec_command");
	if (!mkdtemp(dir))
		return 1;
	snprintf(spec_path, sizeof(spec_path), "%s/spec.yaml", dir);
	snprintf(lib, sizeof(lib), "%s/lib", dir);
	mkdir(lib, 0755);
	write_file("train.py", "print('hello')\n");
	write_file("lib/util.txt", "x\n");
	write_file("lib/m.csv", "index,name,shape,numel\n0,w,4x2,8\n");
	snprintf(lib, sizeof(lib), "%s/pkg", dir);
	mkdir(lib, 0755);
	snprintf(lib, sizeof(lib), "%s/pkg/sub", dir);
	mkdir(lib, 0755);
	snprintf(lib, sizeof(lib), "%s/pkg/__pycache__", dir);
	mkdir(lib, 0755);
	snprintf(lib, sizeof(lib), "%s/empty", dir);
	mkdir(lib, 0755);
	write_file("pkg/__init__.py", "");
	write_file("pkg/util.py", "X = 1\n");
	write_file("pkg/util.pyc", "junk");
	write_file("pkg/sub/deep.py", "Y = 2\n");
	write_file("pkg/__pycache__/util.cpython-311.pyc", "junk");
	write_file("show.sh", "echo \"$RANK $WORLD_SIZE $LOCAL_RANK $MASTER_ADDR:$MASTER_PORT "
		   "$GLOO_SOCKET_IFNAME $NCCL_SOCKET_IFNAME $GCBENCH_RECORDS $(pwd) $1 $2 "
		   "$GCBENCH_BIN $PYTHONPATH\"\n");
	GCT_RUN(test_parse_good);
	GCT_RUN(test_files_in_hash);
	GCT_RUN(test_files_paths);
	GCT_RUN(test_files_file_and_folder);
	GCT_RUN(test_ddp);
	GCT_RUN(test_ddp_csv);
	GCT_RUN(test_stacks);
	GCT_RUN(test_stacks_bad);
	GCT_RUN(test_arg_problem);
	GCT_RUN(test_expand);
	GCT_RUN(test_launch);
	GCT_RUN(test_wrapper_runs);
	GCT_RUN(test_wrapper_env);
	GCT_RUN(test_env_parse);
	gct_rmtree(dir);
	return gct_finish();
}

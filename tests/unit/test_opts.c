/* tests/unit/test_opts.c: common/opts, the shared option parser, with malformed argv. */
#include "harness.h"

#include "opts.h"

enum { O_DB = 1, O_DRY, O_N, O_BENCH };
static const struct gc_opt tab[] = {
	{ "--db", NULL, GC_OPT_ARG, O_DB },
	{ "--dry-run", NULL, 0, O_DRY },
	{ "--workers", "-n", GC_OPT_ARG, O_N },
	{ "--bench", NULL, GC_OPT_OPTARG, O_BENCH },
};
#define NTAB (sizeof tab / sizeof tab[0])

/* Parse v (NULL-terminated) and return the first result that is not an option id;
 * the last value of --db in *db. */
static int parse(char **v, gc_opts *o, const char **db)
{
	int argc = 0, r;

	while (v[argc])
		argc++;
	gc_opts_init(o, "gcbench t", tab, NTAB, argc, v);
	while ((r = gc_opts_next(o)) > 0)
		if (r == O_DB)
			*db = o->val;
	return r;
}

static void test_both_forms(void)
{
	char *a[] = { "t", "--db", "x.db", NULL }, *b[] = { "t", "--db=x.db", NULL };
	const char *d1 = NULL, *d2 = NULL;
	gc_opts o;

	CHECK_EQ_INT(parse(a, &o, &d1), GC_OPTS_END);
	CHECK_EQ_INT(parse(b, &o, &d2), GC_OPTS_END);
	CHECK_STR(d1, "x.db");
	CHECK_STR(d2, "x.db");
}

static void test_value_with_equals_and_dash(void)
{
	char *a[] = { "t", "--db=a=b", NULL }, *b[] = { "t", "--db", "-x", NULL };
	const char *d = NULL;
	gc_opts o;

	CHECK_EQ_INT(parse(a, &o, &d), GC_OPTS_END);
	CHECK_STR(d, "a=b");
	CHECK_EQ_INT(parse(b, &o, &d), GC_OPTS_END);
	CHECK_STR(d, "-x");
}

static void test_unknown_suggests(void)
{
	char *a[] = { "t", "--dry-rn", NULL }, *b[] = { "t", "--zzzzzz", NULL };
	const char *d = NULL;
	gc_opts o;

	CHECK_EQ_INT(parse(a, &o, &d), GC_OPTS_ERR);
	CHECK_STR(o.err.msg, "unknown option '--dry-rn' for gcbench t; did you mean '--dry-run'? "
		  "(see 'gcbench t --help')");
	CHECK_EQ_INT(parse(b, &o, &d), GC_OPTS_ERR);
	CHECK_STR(o.err.msg, "unknown option '--zzzzzz' for gcbench t (see 'gcbench t --help')");
}

static void test_missing_value(void)
{
	char *a[] = { "t", "--db", NULL }, *b[] = { "t", "--db=", NULL };
	const char *d = NULL;
	gc_opts o;

	CHECK_EQ_INT(parse(a, &o, &d), GC_OPTS_ERR);
	CHECK_STR(o.err.msg, "option '--db' of gcbench t needs a value (see 'gcbench t --help')");
	CHECK_EQ_INT(parse(b, &o, &d), GC_OPTS_ERR);
	CHECK_CONTAINS(o.err.msg, "needs a value");
}

static void test_flag_with_value(void)
{
	char *a[] = { "t", "--dry-run=1", NULL }, *b[] = { "t", "--help=x", NULL };
	const char *d = NULL;
	gc_opts o;

	CHECK_EQ_INT(parse(a, &o, &d), GC_OPTS_ERR);
	CHECK_STR(o.err.msg, "option '--dry-run' of gcbench t takes no value (see 'gcbench t --help')");
	CHECK_EQ_INT(parse(b, &o, &d), GC_OPTS_ERR);
}

static void test_help_version_alias(void)
{
	char *a[] = { "t", "-h", NULL }, *b[] = { "t", "--version", NULL };
	char *c[] = { "t", "-n", "4", NULL }, *e[] = { "t", "-n=4", NULL };
	const char *d = NULL;
	gc_opts o;
	int r;

	CHECK_EQ_INT(parse(a, &o, &d), GC_OPTS_HELP);
	CHECK_EQ_INT(parse(b, &o, &d), GC_OPTS_VERSION);
	gc_opts_init(&o, "gcbench t", tab, NTAB, 3, c);
	r = gc_opts_next(&o);
	CHECK_EQ_INT(r, O_N);
	CHECK_STR(o.val, "4");
	CHECK_STR(o.opt, "--workers");
	CHECK_EQ_INT(parse(e, &o, &d), GC_OPTS_ERR);   /* -n=4 is not a form */
}

static void test_positional(void)
{
	char *a[] = { "t", "up", "--db", "x", "--", "--db", NULL };
	gc_opts o;

	gc_opts_init(&o, "gcbench t", tab, NTAB, 6, a);
	CHECK_EQ_INT(gc_opts_next(&o), GC_OPTS_ERR);     /* words refused by default */
	CHECK_STR(o.err.msg, "unexpected argument 'up' for gcbench t (see 'gcbench t --help')");
	gc_opts_init(&o, "gcbench t", tab, NTAB, 6, a);
	o.positional = 1;
	CHECK_EQ_INT(gc_opts_next(&o), GC_OPTS_POS);
	CHECK_STR(o.val, "up");
	CHECK_EQ_INT(gc_opts_next(&o), O_DB);
	CHECK_EQ_INT(gc_opts_next(&o), GC_OPTS_POS);     /* after -- */
	CHECK_STR(o.val, "--db");
	CHECK_EQ_INT(gc_opts_next(&o), GC_OPTS_END);
	CHECK_EQ_INT(gc_opts_next(&o), GC_OPTS_END);
}

static void test_optarg(void)
{
	char *a[] = { "t", "--bench", "--dry-run", NULL }, *b[] = { "t", "--bench", "12", NULL };
	gc_opts o;

	gc_opts_init(&o, "gcbench t", tab, NTAB, 3, a);
	CHECK_EQ_INT(gc_opts_next(&o), O_BENCH);
	CHECK(o.val == NULL);
	CHECK_EQ_INT(gc_opts_next(&o), O_DRY);
	gc_opts_init(&o, "gcbench t", tab, NTAB, 3, b);
	CHECK_EQ_INT(gc_opts_next(&o), O_BENCH);
	CHECK_STR(o.val, "12");
}

static void test_odd_words(void)
{
	char long_opt[300];
	char *a[] = { "t", "-", NULL }, *b[] = { "t", "---", NULL }, *c[] = { "t", "--=x", NULL };
	char *e[] = { "t", long_opt, NULL };
	const char *d = NULL;
	gc_opts o;

	memset(long_opt, 'x', sizeof long_opt - 1);
	long_opt[0] = long_opt[1] = '-';
	long_opt[sizeof long_opt - 1] = 0;
	CHECK_EQ_INT(parse(a, &o, &d), GC_OPTS_ERR);      /* "-" is a word */
	CHECK_EQ_INT(parse(b, &o, &d), GC_OPTS_ERR);
	CHECK_CONTAINS(o.err.msg, "unknown option '---'");
	CHECK_EQ_INT(parse(c, &o, &d), GC_OPTS_ERR);
	CHECK_EQ_INT(parse(e, &o, &d), GC_OPTS_ERR);
	CHECK_CONTAINS(o.err.msg, "unknown option '--xxx");
}

static void test_suggest(void)
{
	static const char *const cmds[] = { "run", "status", "report", "reap", "regress" };

	CHECK_STR(gc_suggest("rn", cmds, 5), "run");
	CHECK_STR(gc_suggest("stauts", cmds, 5), "status");
	CHECK_STR(gc_suggest("regres", cmds, 5), "regress");
	CHECK(gc_suggest("xyzzy", cmds, 5) == NULL);
	CHECK(gc_suggest("", cmds, 5) == NULL);
	CHECK(gc_suggest("r", cmds, 5) == NULL);            /* ambiguous */
	CHECK_EQ_INT(gc_edit_distance("kitten", "sitting"), 3);
	CHECK_EQ_INT(gc_edit_distance("tset", "test"), 1);
}

static void test_seconds(void)
{
	static const char *const bad[] = { "", "-1", "1h", "10 s", "s", "1e9", "nan", "inf",
		"0x10", "5sec", "100000" };
	double x;
	gc_err e;

	CHECK(!gc_opts_seconds("--deadline", "60", 0, 3600, &x, &e) && x == 60);
	CHECK(!gc_opts_seconds("--deadline", "60s", 0, 3600, &x, &e) && x == 60);
	CHECK(!gc_opts_seconds("--deadline", "500ms", 0, 3600, &x, &e) && x == 0.5);
	CHECK(!gc_opts_seconds("--deadline", "2min", 0, 3600, &x, &e) && x == 120);
	CHECK(!gc_opts_seconds("--deadline", "1.5", 0, 3600, &x, &e) && x == 1.5);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECKF(gc_opts_seconds("--deadline", bad[i], 0, 3600, &x, &e) == GC_E_INVAL,
		       "'%s' accepted", bad[i]);
	CHECK_STR(e.msg, "invalid --deadline '100000': give a duration from 0s to 3600s (a number "
		  "with s, ms or min; a bare number is seconds)");
	CHECK(gc_opts_seconds("--deadline", NULL, 0, 1, &x, &e) == GC_E_INVAL);
}

/* Declarations: targets filled by the parser, the usage generated from them. */
struct dcfg {
	int reps, spin, mode;
	const char *db;
	double scale, deadline;
	char seen[32];
};

static gc_rc d_case(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	struct dcfg *c = ctx;

	if (!strcmp(v, "bad"))
		return gc_fail(e, GC_E_NOTFOUND, "invalid %s '%s': no such case", opt->o.name, v);
	strncat(c->seen, v, sizeof c->seen - strlen(c->seen) - 1);
	return GC_OK;
}

enum { D_POS = 7 };
static void d_method_usage(FILE *f)
{
	fputs("  --method M     (custom lines)\n", f);
}

static struct dcfg dc;
static const struct gc_option decl[] = {
	GC_OPTION_INT("--reps", "-r", &dc.reps, 1, 63, "N", "repetitions; 5"),
	GC_OPTION_FLAG("--spin", NULL, &dc.spin, "time the spin\nsecond line"),
	GC_OPTION_SET("--slow", NULL, &dc.mode, 3, NULL),
	GC_OPTION_STRING("--db", NULL, &dc.db, "FILE", "results database"),
	GC_OPTION_POSITIVE("--compute-scale-factor", NULL, &dc.scale, "S", "scale (>0)"),
	GC_OPTION_SECONDS("--deadline", NULL, &dc.deadline, 0.001, 60, "T", "deadline"),
	GC_OPTION_CALLBACK("--case", NULL, GC_OPT_ARG, d_case, "TEXT", "rows with TEXT"),
	GC_OPTION_ID("--pos", NULL, 0, D_POS, NULL, "handled by the caller"),
	{ .o = { "--method", NULL, GC_OPT_ARG, 0 }, .type = GC_OT_STRING, .target = &dc.db,
	  .usage = d_method_usage },
	GC_OPTION_DOC("--help, --version", NULL, "this text; the version"),
	GC_OPTION_DOC("--a, --b", NULL, "\nthe help below the names"),
};
#define NDECL (sizeof decl / sizeof decl[0])

static int dparse(char **v, gc_opts *o)
{
	int argc = 0;

	while (v[argc])
		argc++;
	memset(&dc, 0, sizeof dc);
	dc.reps = 5;
	gc_opts_decl_init(o, "gcbench-d", decl, NDECL, argc, v, &dc);
	return gc_opts_parse_all(o);
}

static void test_decl_targets(void)
{
	char *a[] = { "t", "--reps", "7", "--spin", "--db=x.db", "--compute-scale-factor", "2.5",
		      "--deadline=500ms", "--case", "ab", "--case=cd", "--slow", NULL };
	char *b[] = { "t", "-r", "9", "--reps=3", "--reps", "4", NULL };   /* last one wins */
	gc_opts o;

	CHECK_EQ_INT(dparse(a, &o), GC_OPTS_END);
	CHECK_EQ_INT(dc.reps, 7);
	CHECK_EQ_INT(dc.spin, 1);
	CHECK_EQ_INT(dc.mode, 3);
	CHECK_STR(dc.db, "x.db");
	CHECK(dc.scale == 2.5 && dc.deadline == 0.5);
	CHECK_STR(dc.seen, "abcd");
	CHECK_EQ_INT(dparse(b, &o), GC_OPTS_END);
	CHECK_EQ_INT(dc.reps, 4);
}

static void test_decl_malformed(void)
{
	static const struct { const char *argv[4]; const char *msg; int rc; } cases[] = {
		{ { "--x" }, "unknown option '--x' for gcbench-d (see 'gcbench-d --help')", GC_E_INVAL },
		{ { "--rep", "3" }, "unknown option '--rep' for gcbench-d; did you mean '--reps'?",
		  GC_E_INVAL },
		{ { "--reps" }, "option '--reps' of gcbench-d needs a value", GC_E_INVAL },
		{ { "--reps=" }, "option '--reps' of gcbench-d needs a value", GC_E_INVAL },
		{ { "--reps", "x" }, "invalid --reps 'x': expected an integer from 1 to 63", GC_E_INVAL },
		{ { "--reps=64" }, "invalid --reps '64': expected an integer from 1 to 63", GC_E_INVAL },
		{ { "-r", "0" }, "invalid --reps '0': expected an integer from 1 to 63", GC_E_INVAL },
		{ { "--reps", "3x" }, "expected an integer", GC_E_INVAL },
		{ { "--compute-scale-factor", "0" }, "expected a number greater than 0", GC_E_INVAL },
		{ { "--compute-scale-factor=nan" }, "expected a number greater than 0", GC_E_INVAL },
		{ { "--deadline", "61" }, "invalid --deadline '61'", GC_E_INVAL },
		{ { "--deadline", "0" }, "invalid --deadline '0': give a duration from 0.001s",
		  GC_E_INVAL },   /* a bound below 1 s is kept, not rounded to 0 */
		{ { "--spin=1" }, "option '--spin' of gcbench-d takes no value", GC_E_INVAL },
		{ { "--case", "bad" }, "invalid --case 'bad': no such case", GC_E_NOTFOUND },
		{ { "word" }, "unexpected argument 'word' for gcbench-d", GC_E_INVAL },
		{ { "--pos" }, "option '--pos' of gcbench-d is not handled here", GC_E_INVAL },
		{ { "--help, --version" }, "unknown option '--help, --version'", GC_E_INVAL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *v[6] = { "t" };
		gc_opts o;
		int k;

		for (k = 0; k < 4 && cases[i].argv[k]; k++)
			v[k + 1] = (char *)cases[i].argv[k];
		v[k + 1] = NULL;
		CHECKF(dparse(v, &o) == GC_OPTS_ERR, "case %zu (%s) accepted", i, cases[i].argv[0]);
		CHECK_CONTAINS(o.err.msg, cases[i].msg);
		CHECK_EQ_INT(o.rc, cases[i].rc);
	}
}

static void test_decl_help_and_id(void)
{
	char *a[] = { "t", "--reps", "2", "--help", NULL }, *b[] = { "t", "--pos", "w", NULL };
	gc_opts o;

	CHECK_EQ_INT(dparse(a, &o), GC_OPTS_HELP);
	CHECK_EQ_INT(dc.reps, 2);
	gc_opts_decl_init(&o, "gcbench-d", decl, NDECL, 3, b, &dc);
	o.positional = 1;
	CHECK_EQ_INT(gc_opts_next(&o), D_POS);
	CHECK_EQ_INT(gc_opts_next(&o), GC_OPTS_POS);
	CHECK_STR(o.val, "w");
	CHECK_EQ_INT(gc_opts_next(&o), GC_OPTS_END);
}

static void test_decl_usage(void)
{
	char out[2048] = "";
	FILE *f = fmemopen(out, sizeof out - 1, "w");

	CHECK(f != NULL);
	gc_opts_usage(f, decl, NDECL, 16);
	fclose(f);
	CHECK_STR(out,
		  "  -r, --reps N  repetitions; 5\n"
		  "  --spin        time the spin\n"
		  "                second line\n"
		  "  --db FILE     results database\n"
		  "  --compute-scale-factor S  scale (>0)\n"
		  "  --deadline T  deadline\n"
		  "  --case TEXT   rows with TEXT\n"
		  "  --pos         handled by the caller\n"
		  "  --method M     (custom lines)\n"
		  "  --help, --version  this text; the version\n"
		  "  --a, --b\n"
		  "                the help below the names\n");
}

int main(void)
{
	GCT_SUITE("opts");
	GCT_RUN(test_both_forms);
	GCT_RUN(test_value_with_equals_and_dash);
	GCT_RUN(test_unknown_suggests);
	GCT_RUN(test_missing_value);
	GCT_RUN(test_flag_with_value);
	GCT_RUN(test_help_version_alias);
	GCT_RUN(test_positional);
	GCT_RUN(test_optarg);
	GCT_RUN(test_odd_words);
	GCT_RUN(test_suggest);
	GCT_RUN(test_seconds);
	GCT_RUN(test_decl_targets);
	GCT_RUN(test_decl_malformed);
	GCT_RUN(test_decl_help_and_id);
	GCT_RUN(test_decl_usage);
	return gct_finish();
}

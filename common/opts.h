/* common/opts.h: the one command-line option parser of gcbench, gcbench-worker and
 * gcbench-netem, table-driven, so that every tool reads options and words its
 * mistakes the same way.
 *
 * A tool lists its options in a table of struct gc_opt and calls gc_opts_next() until
 * it returns GC_OPTS_END. Accepted forms:
 *   --opt value   --opt=value         an option with a value (GC_OPT_ARG)
 *   --flag                            a flag (no GC_OPT_ARG); --flag=x is an error
 *   --opt[=value]                     GC_OPT_OPTARG: a value only with '=', or the
 *                                     next word when it does not start with '-'
 *   -x value                          a one-dash alias (struct gc_opt.alias)
 *   --                                every later word is an argument
 * -h, --help and --version are answered by every tool: unless the table has them, the
 * parser returns GC_OPTS_HELP or GC_OPTS_VERSION for them.
 *
 * Mistakes return GC_OPTS_ERR with the message in o->err, in one wording everywhere:
 *   unknown option '--modle' for gcbench history; did you mean '--model'? (see 'gcbench history --help')
 *   option '--db' of gcbench history needs a value (see 'gcbench history --help')
 *   option '--dry-run' of gcbench reap takes no value (see 'gcbench reap --help')
 *   unexpected argument 'x' for gcbench reap (see 'gcbench reap --help')
 * The "did you mean" names the closest option (edit distance) when one is close.
 */
#ifndef GC_OPTS_H
#define GC_OPTS_H

#include <stddef.h>
#include <stdio.h>

#include "result.h"

#define GC_OPT_ARG 1u      /* takes a value: --opt v or --opt=v */
#define GC_OPT_OPTARG 2u   /* value optional: --opt=v, or a next word not starting with '-' */

struct gc_opt {
	const char *name;    /* "--db" */
	const char *alias;   /* "-n", or NULL */
	unsigned flags;      /* GC_OPT_ARG, GC_OPT_OPTARG or 0 for a flag */
	int id;              /* > 0: what gc_opts_next returns for it */
};

enum {
	GC_OPTS_POS = 0,        /* a word that is not an option: o->val */
	GC_OPTS_END = -1,       /* no more arguments */
	GC_OPTS_ERR = -2,       /* a mistake: o->err.msg */
	GC_OPTS_HELP = -3,      /* -h or --help */
	GC_OPTS_VERSION = -4,   /* --version */
};

typedef struct gc_opts {
	const char *cmd;                /* the command as users type it: "gcbench history" */
	const struct gc_opt *tab;
	size_t n;
	int argc;
	char **argv;
	int i;                          /* next argv index (starts at 1) */
	int positional;                 /* 1: words are returned as GC_OPTS_POS, else errors */
	int dashdash;                   /* after "--" */
	const char *opt;                /* the option's table name (after a match) */
	const char *val;                /* its value (NULL for a flag), or the word */
	char buf[64];                   /* the option as written, for --opt=value */
	gc_err err;
	gc_rc rc;                       /* after GC_OPTS_ERR: GC_E_INVAL, or a callback's rc */
	/* with gc_opts_decl_init: */
	const struct gc_option *decl;   /* the declarations (tab points into them) */
	void *ctx;                      /* handed to callbacks */
	int id;                         /* after a GC_OT_ID option: its id */
	int count;                      /* options met so far (either kind of table) */
} gc_opts;

/* The declaration of an option: its names, its value's name, its help line and where
 * its value goes. Declared with the GC_OPTION_* macros below, one line per option, it
 * is the only place the option is written: gc_opts_decl_init() parses against it
 * (filling the target), gc_opts_usage() prints the option lines of the --help from it. */
enum gc_opt_type {
	GC_OT_ID = 0,    /* returned by gc_opts_next as o.id, for the caller to handle */
	GC_OT_SET,       /* a flag: *(int *)target = set */
	GC_OT_STRING,    /* *(const char **)target = the value (points into argv) */
	GC_OT_INT,       /* *(int *)target = an integer in [lo, hi] */
	GC_OT_POSITIVE,  /* *(double *)target = a number > 0 */
	GC_OT_SECONDS,   /* *(double *)target = a duration in [lo, hi] s (gc_opts_seconds) */
	GC_OT_CALLBACK,  /* cb(ctx, opt, value, e) */
	GC_OT_DOC,       /* a usage line only (e.g. "--help, --version"); never matched */
};

struct gc_option;
/* A callback target: ctx is gc_opts.ctx; value is NULL for a flag or an absent
 * optional value. A failure's message goes into e; its rc into gc_opts.rc. */
typedef gc_rc (*gc_opt_cb)(void *ctx, const struct gc_option *opt, const char *value, gc_err *e);

struct gc_option {
	struct gc_opt o;         /* names, GC_OPT_ARG/OPTARG, id (GC_OT_ID) */
	const char *arg;         /* the value's name in the usage ("FILE", "[N]"), or NULL */
	const char *help;        /* the help text; '\n' starts a continuation line (a
				  * leading one: the text starts below the names); NULL:
				  * left out of the usage (a deprecated spelling) */
	enum gc_opt_type type;
	void *target;
	long long lo, hi;        /* GC_OT_INT (and callbacks that want one): the range */
	double min_s, max_s;     /* GC_OT_SECONDS: the range in seconds */
	int set;                 /* GC_OT_SET: the value stored */
	gc_opt_cb cb;            /* GC_OT_CALLBACK */
	void (*usage)(FILE *f);  /* prints this option's usage lines instead of help */
};

#define GC_OPTION_ID(l, s, fl, idv, a, h) \
	{ .o = { l, s, fl, idv }, .arg = a, .help = h, .type = GC_OT_ID }
#define GC_OPTION_FLAG(l, s, var, h) \
	{ .o = { l, s, 0, 0 }, .help = h, .type = GC_OT_SET, .target = (var), .set = 1 }
#define GC_OPTION_SET(l, s, var, v, h) \
	{ .o = { l, s, 0, 0 }, .help = h, .type = GC_OT_SET, .target = (var), .set = v }
#define GC_OPTION_STRING(l, s, var, a, h) \
	{ .o = { l, s, GC_OPT_ARG, 0 }, .arg = a, .help = h, .type = GC_OT_STRING, \
	  .target = (var) }
#define GC_OPTION_INT(l, s, var, low, high, a, h) \
	{ .o = { l, s, GC_OPT_ARG, 0 }, .arg = a, .help = h, .type = GC_OT_INT, \
	  .target = (var), .lo = low, .hi = high }
#define GC_OPTION_POSITIVE(l, s, var, a, h) \
	{ .o = { l, s, GC_OPT_ARG, 0 }, .arg = a, .help = h, .type = GC_OT_POSITIVE, \
	  .target = (var) }
#define GC_OPTION_SECONDS(l, s, var, low, high, a, h) \
	{ .o = { l, s, GC_OPT_ARG, 0 }, .arg = a, .help = h, .type = GC_OT_SECONDS, \
	  .target = (var), .min_s = low, .max_s = high }
#define GC_OPTION_CALLBACK(l, s, fl, fn, a, h) \
	{ .o = { l, s, fl, 0 }, .arg = a, .help = h, .type = GC_OT_CALLBACK, .cb = fn }
#define GC_OPTION_DOC(l, a, h) \
	{ .o = { l, NULL, 0, 0 }, .arg = a, .help = h, .type = GC_OT_DOC }

/* Start parsing argv[1..argc-1] against tab[0..n-1] for the command cmd. */
void gc_opts_init(gc_opts *o, const char *cmd, const struct gc_opt *tab, size_t n, int argc,
		  char **argv);

/* The same against declarations: gc_opts_next() fills the target of each option it
 * meets and moves on; it returns an option only for GC_OT_ID (its id), and reports a
 * value its target cannot take as GC_OPTS_ERR ("invalid --iters 'x': expected an
 * integer from 1 to 100"). ctx goes to the callbacks. */
void gc_opts_decl_init(gc_opts *o, const char *cmd, const struct gc_option *decl, size_t n,
		       int argc, char **argv, void *ctx);

/* The option lines of a --help, from the declarations: "  --name ARG" padded to column
 * col (or two spaces past it when longer), then the help, its continuation lines
 * indented to col. Declarations without help are left out. */
void gc_opts_usage(FILE *f, const struct gc_option *decl, size_t n, int col);

/* Parse everything: gc_opts_next() until the end. GC_OPTS_END, GC_OPTS_HELP,
 * GC_OPTS_VERSION or GC_OPTS_ERR (a GC_OT_ID option or a word is an error here). */
int gc_opts_parse_all(gc_opts *o);

/* The next option's id (> 0), GC_OPTS_POS, GC_OPTS_END, GC_OPTS_ERR, GC_OPTS_HELP or
 * GC_OPTS_VERSION. After GC_OPTS_ERR the parser stays at the mistake. */
int gc_opts_next(gc_opts *o);

/* The closest of cands[0..n-1] to word (edit distance, ignoring leading dashes, at most
 * 2 edits and fewer than half of word's letters; or word a prefix of exactly one), or
 * NULL when none is close. */
const char *gc_suggest(const char *word, const char *const *cands, size_t n);

/* The message for an unknown name (option or command) in the one wording:
 * "unknown KIND 'word' for CMD; did you mean 'x'? (see 'HELP')"; what may be NULL
 * (then " for CMD" is left out). Writes into e and returns GC_E_INVAL. */
gc_rc gc_opts_unknown(gc_err *e, const char *kind, const char *word, const char *cmd,
		      const char *suggestion, const char *help);

/* A duration in seconds, as every time option reads it: a decimal number with an
 * optional unit s, ms or min ("60", "60s", "500ms", "2min"); a bare number is seconds.
 * Must lie in [lo, hi] seconds. On error GC_E_INVAL with a message naming opt and v. */
gc_rc gc_opts_seconds(const char *opt, const char *v, double lo, double hi, double *out,
		      gc_err *e);

/* Edit distance of a and b (Levenshtein, a swap of neighbours counting one), capped
 * at 99. */
int gc_edit_distance(const char *a, const char *b);

#endif

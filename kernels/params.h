/* kernels/params.h: the method table. The compression methods by name, and for each
 * parameter: the methods that take it, its type, default and valid range. Every rule
 * about a method's name or parameters is here (kernels/params.c); the worker, the
 * model, the experiment spec and the tools read this table rather than restate it.
 * The layout rules of a method (which tensors it compresses, k, its rounds) are in
 * kernels/plan.h. */
#ifndef GC_KERNELS_PARAMS_H
#define GC_KERNELS_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gc_method {
	GC_M_SYNCSGD,
	GC_M_FP16,
	GC_M_SIGNSGD,
	GC_M_TOPK,
	GC_M_MSTOPK,
	GC_M_POWERSGD,
	GC_M_BF16,
	GC_M_RANDOMK,
	GC_M_TERNGRAD,
	GC_M_QSGD,
	GC_M_EFSIGN_AR,
	GC_M_DGC,
	GC_M_CGX,
	GC_M__COUNT
} gc_method;

#define GC_METHOD_BIT(m) (1u << (m))

/* Method parameters. gc_params_default() fills the defaults for a method. */
typedef struct gc_params {
	gc_method method;
	int ef;                 /* error feedback: signsgd (needs scaled), topk, mstopk, powersgd,
	                         * randomk, efsign_ar */
	int scaled;             /* signsgd: scaled sign (EF-signSGD) instead of majority vote */
	double ratio;           /* topk, mstopk, randomk, dgc: fraction kept, (0, 1]; default 0.01 */
	int rounds;             /* mstopk: bisection rounds, 1..64; default 20 */
	int rank;               /* powersgd: 1..32; default 4 */
	int warm_start;         /* powersgd: reuse Q across steps; default 1 */
	double min_compression; /* powersgd: compress a matrix only if it shrinks this much; default 2 */
	uint64_t seed;          /* powersgd's Q, randomk's indices, terngrad's and qsgd's
	                         * rounding; default 42 */
	int levels;             /* qsgd: quantization levels s, 2..256; default 127 */
	int bucket_size;        /* qsgd: elements per norm, 1..1048576; default 128; cgx:
	                         * elements per (min, unit), default 512 */
	double momentum;        /* every method: momentum SGD in the worker, u = m u + avg,
	                         * param -= lr u; [0, 1), default 0 (plain SGD); dgc: its
	                         * momentum correction (kernels/dgc.h), default 0.9 */
	double clip;            /* dgc: local gradient clipping threshold, [0, 1e9]; 0: off */
	int warmup_steps;       /* dgc: steps of the sparsity warm-up, 0..100000000; 0 */
	int bits;               /* cgx: bits per level, 1..8; default 4 */
} gc_params;

typedef enum gc_param_type { GC_PT_BOOL, GC_PT_INT, GC_PT_DOUBLE, GC_PT_U64 } gc_param_type;

/* One parameter of the table; every field of gc_params but method has one. */
typedef struct gc_param_def {
	const char *key;        /* "ratio" */
	unsigned methods;       /* GC_METHOD_BIT of each method that takes it */
	gc_param_type type;     /* the field is an int (bool, int), double or uint64_t */
	double def;             /* its default, set for every method (so a syncsgd gc_params
	                         * still holds ratio 0.01) ... */
	unsigned def_zero;      /* ... except these methods, for which it is 0 (ef) */
	double min, max;        /* valid values (GC_PT_U64: every uint64_t) */
	int min_open;           /* min itself is not valid */
	const char *range;      /* the valid values in words, for messages: "1..32" */
	size_t off;             /* offsetof(gc_params, the field) */
	int max_open;           /* max itself is not valid */
	unsigned quiet;         /* methods whose canonical text (gc_params_format) leaves
	                         * it out while it is 0, so that adding it changed no
	                         * stored text (momentum) */
	unsigned alt;           /* methods whose default is alt_def instead (dgc's
	                         * momentum 0.9, cgx's bucket_size 512) */
	double alt_def;
} gc_param_def;

/* The table, *n entries, in canonical order (that of gc_params_format). Static. */
const gc_param_def *gc_param_table(size_t *n);

/* The entry for key, NULL if there is no such parameter. */
const gc_param_def *gc_param_lookup(const char *key);

/* 1 if method m takes parameter d. */
int gc_method_takes(gc_method m, const gc_param_def *d);

/* What is wrong with a value (gc_param_put). */
typedef enum gc_param_fault { GC_PF_OK, GC_PF_SYNTAX, GC_PF_RANGE } gc_param_fault;

/* Read text as a value of d into its field of p. GC_PF_SYNTAX: not a number (bool and
 * int: not a whole number within int64; u64: not an unsigned integer); GC_PF_RANGE:
 * outside [min, max] (or (min, max]). p is unchanged unless GC_PF_OK. Does not look at
 * p->method: callers that need it check gc_method_takes first. For callers that word
 * their own messages (gc_params_set words the usual ones). */
gc_param_fault gc_param_put(gc_params *p, const gc_param_def *d, const char *text);

const char *gc_method_name(gc_method m);                 /* "syncsgd", ...; "?" if invalid */
gc_rc gc_method_parse(const char *name, gc_method *out); /* GC_E_INVAL if unknown */

/* Every method name in order, joined by sep ("syncsgd, fp16, ..."), cut to len. */
void gc_method_names(char *buf, size_t len, const char *sep);

/* The keys method m takes, joined by ", " ("ef, ratio"); "" if none. Cut to len. */
void gc_method_keys(gc_method m, char *buf, size_t len);

/* Every parameter at its default for m (see gc_param_def.def). */
void gc_params_default(gc_params *p, gc_method m);

/* Set one parameter from text ("ratio", "0.01"). Unknown keys, parameters the method
 * does not take, and out-of-range values fail with a message naming the key, the value
 * and the valid range. */
gc_rc gc_params_set(gc_params *p, const char *key, const char *value, gc_err *e);

/* Set the parameters of a list "key=value[,key=value...]" in order (NULL or "": none).
 * Errors as gc_params_set's, or GC_E_INVAL naming an entry that is not key=value or a
 * list longer than 255 bytes. */
gc_rc gc_params_set_list(gc_params *p, const char *list, gc_err *e);

/* Parse a method as every command names it: "NAME" or "NAME:key=value[,key=value...]"
 * (topk:ratio=0.01, powersgd:rank=4,min_compression=1): p gets NAME's defaults, then
 * the parameters in order. Does not call gc_params_check. GC_E_INVAL naming the
 * unknown method or parameter. */
gc_rc gc_params_parse_method(const char *spec, gc_params *p, gc_err *e);

/* Check the combination (e.g. signsgd ef without scaled) and that every parameter the
 * method takes (int and double ones) is within its range. */
gc_rc gc_params_check(const gc_params *p, gc_err *e);

/* Canonical text "key=value,..." of the parameters that matter for p->method (empty
 * for syncsgd); stored in the database and used to compare runs. */
void gc_params_format(const gc_params *p, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif

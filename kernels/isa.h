/* kernels/isa.h: which instruction set the CPU kernels run with, and what this build
 * needs from the CPU it runs on.
 *
 * The library is compiled for a baseline (the Makefile's ARCH, x86-64-v2 unless set:
 * SSE4.2 and POPCNT, no AVX). The hot CPU kernels (fp16 conversion, sign packing and
 * vote, the top-k/MSTop-K selection pass, the sparse decode, PowerSGD's row loops) are
 * compiled three times: for the baseline, for x86-64-v3 (AVX2, F16C) and for
 * x86-64-v4 (AVX-512 F/BW/DQ/VL), and each call picks the best level this CPU has
 * (__builtin_cpu_supports). Variant functions are named <kernel>_avx2 and
 * <kernel>_avx512 (with their OpenMP bodies, <kernel>_avx512._omp_fn.N): outside those
 * names the portable build holds no AVX or AVX-512 instruction (tests/integration/
 * test_portable.sh checks it with objdump). Every level gives bit-identical results:
 * the kernels are integer work, or float work whose order is fixed by the code (explicit
 * vector types, no FMA contraction under -std=c11), so a mixed cluster computes the
 * same payloads (tests/unit/test_kernels_isa.c checks each variant against the
 * baseline).
 *
 * GC_CPU_ISA=default|avx2|avx512 in the environment caps the level (for benchmarks and
 * tests); a level the CPU lacks is never used.
 */
#ifndef GC_KERNELS_ISA_H
#define GC_KERNELS_ISA_H

#include <stddef.h>

typedef enum gc_isa { GC_ISA_DEFAULT = 0, GC_ISA_AVX2 = 1, GC_ISA_AVX512 = 2 } gc_isa;

/* The variants. GC_ISA_MAX_N: the highest level compiled in (0, 1, 2). A baseline
 * without AVX (the default) compiles the avx2 and avx512 variants with target
 * attributes and dispatches; a baseline with AVX (ARCH=native, x86-64-v3, ...) compiles
 * every variant for that baseline (no attribute: nothing to gain, and code of the
 * baseline cannot be inlined into a narrower target) and tops out at what it has. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define GC_ISA_DISPATCH 1
#if !defined(__AVX__)
/* the features without FMA, so that no compiler contracts a * b + c differently per
 * level (clang contracts within an expression by default) */
#define GC_ISA_F2 "avx2,f16c,bmi,bmi2,lzcnt,popcnt"
#define GC_ISA_F512 GC_ISA_F2 ",avx512f,avx512bw,avx512dq,avx512vl,avx512cd"
#define GC_TARGET_AVX2 __attribute__((target(GC_ISA_F2)))
/* No prefer-vector-width=512: loops vectorize at the width GCC's tuning picks, as in an
 * -march=native build, so the two builds differ in the instruction set only;
 * intrinsics keep their 512-bit width (docs/kernels.md). */
#define GC_TARGET_AVX512 __attribute__((target(GC_ISA_F512)))
#define GC_ISA_MAX_N 2
#else
#define GC_TARGET_AVX2
#define GC_TARGET_AVX512
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512DQ__) && \
	defined(__AVX512VL__) && defined(__F16C__)
#define GC_ISA_MAX_N 2
#elif defined(__AVX2__) && defined(__F16C__)
#define GC_ISA_MAX_N 1
#else
#define GC_ISA_MAX_N 0
#endif
#endif
#else
#define GC_ISA_DISPATCH 0
#define GC_ISA_MAX_N 0
#endif

/* The level the kernels use now: the CPU's best, capped by GC_ISA_MAX_N, GC_CPU_ISA
 * and gc_isa_cap. */
gc_isa gc_isa_active(void);
/* The best level this CPU supports. */
gc_isa gc_isa_cpu(void);
/* Cap the level (tests, the self-test); GC_ISA_AVX512 removes the cap set here. */
void gc_isa_cap(gc_isa max);
const char *gc_isa_name(gc_isa l);   /* "default", "avx2", "avx512" */
/* Parse a level name; -1 if unknown. */
int gc_isa_parse(const char *s);

/* How this build was made: the -march it was compiled with ("x86-64-v2", "native"),
 * the CPU flags (as /proc/cpuinfo names them, space-separated) its baseline code needs,
 * and the CPU model of the build machine (meaningful for ARCH=native). */
const char *gc_build_arch(void);
const char *gc_build_cpu_flags(void);
const char *gc_build_host_cpu(void);
/* 1 when the baseline is tied to the build machine's CPU (ARCH=native or a CPU name),
 * not a portable x86-64-vN level (nor "unknown": built without the Makefile's rule). */
int gc_build_is_native(void);

/* The flags of `need` (space-separated) missing from `have` (a /proc/cpuinfo "flags"
 * value), space-separated into out (empty when none). Returns their number. */
int gc_isa_missing(const char *need, const char *have, char *out, size_t n);

#endif

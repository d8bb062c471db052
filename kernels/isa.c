/* kernels/isa.c: the kernels' ISA level and what this build needs from a CPU (isa.h). */
#include "isa.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GC_BUILD_ARCH
#define GC_BUILD_ARCH "unknown"
#endif
#ifndef GC_BUILD_HOST_CPU
#define GC_BUILD_HOST_CPU "unknown"
#endif

static int cpu_level = -1;      /* the CPU's best level, once known */
static int cap_level = -1;      /* GC_CPU_ISA and gc_isa_cap together */
static int api_cap = GC_ISA_AVX512;

static const char *const names[] = { "default", "avx2", "avx512" };

const char *gc_isa_name(gc_isa l)
{
	return (unsigned)l < 3 ? names[l] : "?";
}

int gc_isa_parse(const char *s)
{
	for (int i = 0; s && i < 3; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

gc_isa gc_isa_cpu(void)
{
	int l = __atomic_load_n(&cpu_level, __ATOMIC_RELAXED);

	if (l < 0) {
#if GC_ISA_DISPATCH
		__builtin_cpu_init();
#ifdef __clang__
		int v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
			 __builtin_cpu_supports("fma");
		int v4 = v3 && __builtin_cpu_supports("avx512f") &&
			 __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
			 __builtin_cpu_supports("avx512vl");
#else
		int v3 = __builtin_cpu_supports("x86-64-v3");
		int v4 = __builtin_cpu_supports("x86-64-v4");
#endif
		l = v4 ? GC_ISA_AVX512 : v3 ? GC_ISA_AVX2 : GC_ISA_DEFAULT;
#else
		l = GC_ISA_DEFAULT;
#endif
		__atomic_store_n(&cpu_level, l, __ATOMIC_RELAXED);
	}
	return (gc_isa)l;
}

static int env_cap(void)
{
	const char *v = getenv("GC_CPU_ISA");
	int l = gc_isa_parse(v);

	if (v && *v && l < 0) {
		fprintf(stderr, "gcbench: warning: GC_CPU_ISA='%.20s' is not default, avx2 or "
			"avx512; ignored\n", v);
		return GC_ISA_AVX512;
	}
	return l < 0 ? GC_ISA_AVX512 : l;
}

gc_isa gc_isa_active(void)
{
	int c = __atomic_load_n(&cap_level, __ATOMIC_RELAXED);

	if (c < 0) {
		c = env_cap();
		c = c < api_cap ? c : api_cap;
		__atomic_store_n(&cap_level, c, __ATOMIC_RELAXED);
	}
	gc_isa l = gc_isa_cpu();
	c = c < GC_ISA_MAX_N ? c : GC_ISA_MAX_N;
	return (int)l < c ? l : (gc_isa)c;
}

void gc_isa_cap(gc_isa max)
{
	int c = env_cap();

	api_cap = max;
	__atomic_store_n(&cap_level, c < (int)max ? c : (int)max, __ATOMIC_RELAXED);
}

/* The CPU flags the compiler may use in baseline code, as /proc/cpuinfo names them. */
static const char build_flags[] = ""
#ifdef __SSE3__
	" pni"
#endif
#ifdef __SSSE3__
	" ssse3"
#endif
#ifdef __SSE4_1__
	" sse4_1"
#endif
#ifdef __SSE4_2__
	" sse4_2"
#endif
#ifdef __POPCNT__
	" popcnt"
#endif
#ifdef __GCC_HAVE_SYNC_COMPARE_AND_SWAP_16
	" cx16"
#endif
#ifdef __LAHF_SAHF__
	" lahf_lm"
#endif
#ifdef __AVX__
	" avx"
#endif
#ifdef __AVX2__
	" avx2"
#endif
#ifdef __FMA__
	" fma"
#endif
#ifdef __F16C__
	" f16c"
#endif
#ifdef __BMI__
	" bmi1"
#endif
#ifdef __BMI2__
	" bmi2"
#endif
#ifdef __LZCNT__
	" abm"
#endif
#ifdef __MOVBE__
	" movbe"
#endif
#ifdef __AES__
	" aes"
#endif
#ifdef __PCLMUL__
	" pclmulqdq"
#endif
#ifdef __ADX__
	" adx"
#endif
#ifdef __SHA__
	" sha_ni"
#endif
#ifdef __AVX512F__
	" avx512f"
#endif
#ifdef __AVX512CD__
	" avx512cd"
#endif
#ifdef __AVX512BW__
	" avx512bw"
#endif
#ifdef __AVX512DQ__
	" avx512dq"
#endif
#ifdef __AVX512VL__
	" avx512vl"
#endif
#ifdef __AVX512IFMA__
	" avx512ifma"
#endif
#ifdef __AVX512VBMI__
	" avx512vbmi"
#endif
#ifdef __AVX512VBMI2__
	" avx512_vbmi2"
#endif
#ifdef __AVX512VNNI__
	" avx512_vnni"
#endif
#ifdef __AVX512BITALG__
	" avx512_bitalg"
#endif
#ifdef __AVX512VPOPCNTDQ__
	" avx512_vpopcntdq"
#endif
#ifdef __AVX512BF16__
	" avx512_bf16"
#endif
#ifdef __GFNI__
	" gfni"
#endif
#ifdef __VAES__
	" vaes"
#endif
#ifdef __VPCLMULQDQ__
	" vpclmulqdq"
#endif
	;

const char *gc_build_arch(void)
{
	return GC_BUILD_ARCH;
}

const char *gc_build_cpu_flags(void)
{
	return build_flags[0] ? build_flags + 1 : build_flags;
}

const char *gc_build_host_cpu(void)
{
	return GC_BUILD_HOST_CPU;
}

int gc_build_is_native(void)
{
	/* "unknown": compiled outside the Makefile's rule; the flags list still holds */
	return strncmp(GC_BUILD_ARCH, "x86-64", 6) != 0 && strcmp(GC_BUILD_ARCH, "unknown") != 0;
}

/* 1 if the space-separated list `list` holds the word w (length wn). */
static int has_word(const char *list, const char *w, size_t wn)
{
	const char *p = list;

	while (*p) {
		size_t n;
		p += strspn(p, " \t");
		n = strcspn(p, " \t\n");
		if (n == wn && !memcmp(p, w, n))
			return 1;
		p += n;
		if (*p == '\n')
			break;
	}
	return 0;
}

int gc_isa_missing(const char *need, const char *have, char *out, size_t n)
{
	const char *p = need ? need : "";
	size_t o = 0;
	int cnt = 0;

	if (n)
		out[0] = 0;
	while (*p) {
		size_t wn;
		p += strspn(p, " \t");
		wn = strcspn(p, " \t\n");
		if (wn && !has_word(have ? have : "", p, wn)) {
			cnt++;
			if (o < n) {
				int k = snprintf(out + o, n - o, "%s%.*s", o ? " " : "", (int)wn, p);
				o += k > 0 ? (size_t)k : 0;
			}
		}
		p += wn;
		if (*p == '\n')
			break;
	}
	if (n && o >= n)
		out[n - 1] = 0;
	return cnt;
}

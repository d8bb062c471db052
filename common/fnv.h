/* common/fnv.h: the FNV-1a hashes of gcbench (Fowler, Noll, Vo; 64-bit offset basis
 * 14695981039346656037, prime 1099511628211), header-only.
 *
 * Three definitions, never interchangeable:
 * - gc_fnv1a64 / gc_fnv1a64_more: plain FNV-1a 64, byte by byte (the published test
 *   vectors). The spec's hash, its files' and traces' digests are stored (runs, the
 *   spec hash that resume and regress compare), so this one must never change.
 * - gc_fnv1a64_words: the worker's checksum of gradients and parameters (the record
 *   header's checksum_grad and checksum_param, compared across the ranks of one run and
 *   between back ends of one build): FNV-1a's step over little-endian 64-bit words in
 *   four chains, much faster over 100 MB, equal to plain FNV-1a 64 only below 8 bytes.
 * - gc_fnv1a32: plain FNV-1a 32 of a string (a cluster's default subnet from its name,
 *   netem/cluster.c: a changed value would move existing clusters' addresses).
 */
#ifndef GC_FNV_H
#define GC_FNV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GC_FNV64_BASIS 0xcbf29ce484222325ull /* 14695981039346656037 */
#define GC_FNV64_PRIME 0x100000001b3ull      /* 1099511628211 */

/* Continue plain FNV-1a 64 from h over len more bytes: hashing a stream piece by piece
 * from GC_FNV64_BASIS gives gc_fnv1a64 of the whole. */
static inline uint64_t gc_fnv1a64_more(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = (const unsigned char *)p;
	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * GC_FNV64_PRIME;
	return h;
}

/* Plain FNV-1a 64 of len bytes. */
static inline uint64_t gc_fnv1a64(const void *p, size_t len)
{
	return gc_fnv1a64_more(GC_FNV64_BASIS, p, len);
}

#define GC_FNV32_BASIS 2166136261u
#define GC_FNV32_PRIME 16777619u

/* Plain FNV-1a 32 of the NUL-terminated s. */
static inline uint32_t gc_fnv1a32(const char *s)
{
	uint32_t h = GC_FNV32_BASIS;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * GC_FNV32_PRIME;
	return h;
}

/* The 8 bytes at b as a little-endian word, on any host. */
static inline uint64_t gc_fnv_word_le(const unsigned char *b)
{
	uint64_t w;
	memcpy(&w, b, 8); /* one load, where byte shifts were not merged */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* FNV-1a's step over 64-bit words, not bytes, in four interleaved chains: the xor and
 * multiply of one chain is the cost (about 4 cycles a step, 0.2 s for the final 200 MB
 * of a ResNet-50 rank a byte at a time), four independent ones overlap. From 64 bytes
 * on, word k of each 32-byte block goes to chain k, the chains are folded in order
 * into one (each a word of FNV-1a from the basis), the rest follows word by word and
 * byte by byte; below 64 bytes there is one chain (under 8 bytes: plain FNV-1a 64).
 * Words are read little-endian so every host gets the same value. Compare values within
 * one definition (gcbench 0.x: docs/measurements.md, "The ranks' start"). */
static inline uint64_t gc_fnv1a64_words(const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	uint64_t h = GC_FNV64_BASIS;
	size_t i = 0;
	if (n >= 64) {
		uint64_t c[4] = { GC_FNV64_BASIS, GC_FNV64_BASIS, GC_FNV64_BASIS, GC_FNV64_BASIS };
		for (; i + 32 <= n; i += 32)
			for (int k = 0; k < 4; k++)
				c[k] = (c[k] ^ gc_fnv_word_le(b + i + 8 * k)) * GC_FNV64_PRIME;
		for (int k = 0; k < 4; k++)
			h = (h ^ c[k]) * GC_FNV64_PRIME;
	}
	for (; i + 8 <= n; i += 8)
		h = (h ^ gc_fnv_word_le(b + i)) * GC_FNV64_PRIME;
	for (; i < n; i++)
		h = (h ^ b[i]) * GC_FNV64_PRIME;
	return h;
}

#endif

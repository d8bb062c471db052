/* tests/unit/test_fnv.c: the FNV-1a 64 hashes (common/fnv.h): plain byte-wise FNV-1a
 * (the spec hash and digests, stored) and the worker's word-wise checksum. */
#include <stdint.h>
#include <string.h>

#include "fnv.h"
#include "harness.h"

/* The published FNV-1a 64 test vectors; a stream hashed piece by piece with
 * gc_fnv1a64_more equals the hash of the whole, at every cut. */
static void test_plain(void)
{
	const char *s = "the quick brown fox jumps over the lazy dog";
	size_t n = strlen(s);
	uint64_t whole;

	CHECK(gc_fnv1a64("", 0) == 0xcbf29ce484222325ull);
	CHECK(gc_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
	CHECK(gc_fnv1a64("foobar", 6) == 0x85944171f73967e8ull);
	CHECK(GC_FNV64_BASIS == 14695981039346656037ull);
	CHECK(GC_FNV64_PRIME == 1099511628211ull);
	whole = gc_fnv1a64(s, n);
	for (size_t cut = 0; cut <= n; cut++)
		CHECK(gc_fnv1a64_more(gc_fnv1a64_more(GC_FNV64_BASIS, s, cut), s + cut, n - cut) ==
		      whole);
	/* FNV-1a 32's published vectors */
	CHECK(gc_fnv1a32("") == 0x811c9dc5u);
	CHECK(gc_fnv1a32("a") == 0xe40c292cu);
	CHECK(gc_fnv1a32("foobar") == 0xbf9cf968u);
	/* the word-wise checksum is another definition from 8 bytes on */
	CHECK(gc_fnv1a64_words(s, n) != whole);
	CHECK(gc_fnv1a64_words(s, 7) == gc_fnv1a64(s, 7));
}

/* Plain FNV-1a 64 under 8 bytes (the published vectors), words after, four chains
 * from 64 bytes; the 8-, 9-, 64- and 100-byte values were computed apart (Python, the
 * definition in common/fnv.h). */
static void test_fnv_words(void)
{
	unsigned char buf[128];
	CHECK(gc_fnv1a64_words("", 0) == 0xcbf29ce484222325ull);
	CHECK(gc_fnv1a64_words("a", 1) == 0xaf63dc4c8601ec8cull);
	CHECK(gc_fnv1a64_words("foobar", 6) == 0x85944171f73967e8ull);
	CHECK(gc_fnv1a64_words("abcdefgh", 8) == 0x3919eeb00ee1e68cull);
	CHECK(gc_fnv1a64_words("abcdefghi", 9) == 0xe8f77a2949db571full);
	/* a change in any byte, in a word or in the tail, changes the hash; an unaligned
	 * start gives the same value as an aligned copy */
	for (int i = 0; i < 128; i++)
		buf[i] = (unsigned char)(i * 37 + 1);
	CHECK(gc_fnv1a64_words(buf, 100) == 0x5d2781f1a87dd9edull);
	CHECK(gc_fnv1a64_words(buf, 64) == 0xe2c26217167f0b61ull);
	for (int i = 0; i < 100; i++) {   /* every byte of blocks and tail counts */
		uint64_t h0 = gc_fnv1a64_words(buf, 100);
		buf[i] ^= 0x01;
		CHECK(gc_fnv1a64_words(buf, 100) != h0);
		buf[i] ^= 0x01;
	}
	uint64_t h = gc_fnv1a64_words(buf, 61);
	for (int i = 0; i < 61; i++) {
		buf[i] ^= 0x10;
		CHECK(gc_fnv1a64_words(buf, 61) != h);
		buf[i] ^= 0x10;
	}
	memmove(buf + 1, buf, 61);
	CHECK(gc_fnv1a64_words(buf + 1, 61) == h);
}

int main(void)
{
	GCT_SUITE("fnv");
	GCT_RUN(test_plain);
	GCT_RUN(test_fnv_words);
	return gct_finish();
}

/* tests/fuzz/replay.c: run a libFuzzer target without libFuzzer, as a unit test.
 *
 * Feeds the target every file of its corpus directory, then a fixed number of
 * deterministic mutations of them (bit flips, truncations, byte insertions, random
 * bytes). Under SANITIZE=address,undefined a memory error aborts the program, which
 * tests/run.sh reports as a failure. Real coverage-guided fuzzing: `make fuzz`.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int load(const char *path, uint8_t **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long sz;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	*buf = malloc((size_t)sz + 1);
	*len = fread(*buf, 1, (size_t)sz, f);
	fclose(f);
	return 0;
}

static void mutate_and_run(const uint8_t *seed, size_t len, int iters)
{
	uint8_t *m = malloc(len + 64);
	for (int i = 0; i < iters; i++) {
		size_t n = len;
		memcpy(m, seed, len);
		switch (next_rand() % 4) {
		case 0: if (n) m[next_rand() % n] ^= (uint8_t)(1u << (next_rand() % 8)); break;
		case 1: n = n ? next_rand() % n : 0; break;
		case 2: if (n) { size_t at = next_rand() % n; memmove(m + at + 1, m + at, n - at); m[at] = (uint8_t)next_rand(); n++; } break;
		default: for (size_t j = 0; j < n && j < 8; j++) m[next_rand() % n] = (uint8_t)next_rand(); break;
		}
		LLVMFuzzerTestOneInput(m, n);
	}
	free(m);
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	char defdir[4096];
	const char *dir = argc > 1 ? argv[1] : defdir;
	int iters = getenv("GCBENCH_FUZZ_ITERS") ? atoi(getenv("GCBENCH_FUZZ_ITERS")) : 300;
	DIR *d;
	struct dirent *de;
	int files = 0;

	snprintf(defdir, sizeof(defdir), "tests/fuzz/corpus/%s", name);
	d = opendir(dir);
	if (!d) {
		printf("SKIP fuzz/%s: no corpus directory '%s'\n", name, dir);
		return 0;
	}
	while ((de = readdir(d))) {
		char path[4608];
		uint8_t *buf;
		size_t len;
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (load(path, &buf, &len))
			continue;
		LLVMFuzzerTestOneInput(buf, len);
		mutate_and_run(buf, len, iters);
		free(buf);
		files++;
	}
	closedir(d);
	for (int i = 0; i < iters; i++) {
		uint8_t junk[256];
		size_t n = next_rand() % sizeof(junk);
		for (size_t j = 0; j < n; j++)
			junk[j] = (uint8_t)next_rand();
		LLVMFuzzerTestOneInput(junk, n);
	}
	printf("PASS fuzz/%s (%d corpus files, %d mutations each, no crash)\n", name, files, iters);
	return 0;
}

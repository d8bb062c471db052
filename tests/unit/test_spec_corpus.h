/* tests/unit/test_spec_corpus.h: run a parser over every file of a bad-input corpus.
 *
 * Each file in DIR starts with one or more lines "# expect: TEXT"; the parser must
 * refuse the file and some diagnostic must contain "FILE" + ":" prefix-free TEXT for
 * every expect line. Used by test_spec.c and test_inventory.c.
 */
#ifndef GC_TEST_CORPUS_CHECK_H
#define GC_TEST_CORPUS_CHECK_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "orchestrator/spec/yamlutil.h"

typedef gc_rc (*corpus_parse_fn)(const char *buf, size_t len, const char *file,
				 struct gc_diags *d);

/* Returns the number of files checked, or -1 (with *why set) on the first mismatch. */
static int corpus_check(const char *dir, corpus_parse_fn fn, char *why, size_t whylen)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	int files = 0;

	if (!dp) {
		snprintf(why, whylen, "no directory %s (run from the repository root)", dir);
		return -1;
	}
	while ((de = readdir(dp))) {
		char path[512], *buf = NULL, *line, *save = NULL, *copy;
		struct gc_diags d;
		size_t len;
		gc_err e;
		int bad = 0;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (gc_read_file(path, &buf, &len, &e)) {
			snprintf(why, whylen, "%s", e.msg);
			bad = 1;
		}
		gc_diags_init(&d, path);
		if (!bad && fn(buf, len, path, &d) == GC_OK) {
			snprintf(why, whylen, "%s was accepted", path);
			bad = 1;
		}
		copy = bad ? NULL : strdup(buf);
		for (line = copy ? strtok_r(copy, "\n", &save) : NULL; line && !bad;
		     line = strtok_r(NULL, "\n", &save)) {
			int hit = 0;
			if (strncmp(line, "# expect: ", 10))
				continue;
			for (size_t i = 0; i < d.n && !hit; i++)
				hit = strstr(d.msg[i], line + 10) != NULL;
			if (!hit) {
				snprintf(why, whylen, "%s: no message contains \"%s\"; got: %s", path,
					 line + 10, d.n ? d.msg[0] : "(none)");
				bad = 1;
			}
		}
		free(copy);
		free(buf);
		gc_diags_release(&d);
		if (bad) {
			closedir(dp);
			return -1;
		}
		files++;
	}
	closedir(dp);
	return files;
}

#endif

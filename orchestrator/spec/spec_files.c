/* orchestrator/spec/spec_files.c: workload: command's files: (struct gc_spec_file in
 * spec.h). An entry is a file or a folder. Below the spec's folder it lands on the hosts
 * at the path it has there (files: [pkg] or [pkg/util.py] gives files/pkg/util.py, so a
 * package stays a package); outside it (absolute, or through ..) under its base name
 * (../lib/util.py gives files/util.py, ../lib/pkg gives files/pkg/...). A folder ships
 * its files and subfolders, without hidden names, __pycache__ and *.pyc, in name order.
 * Two entries landing on one path, or a path that is a file for one entry and a folder
 * for another, are refused. */
#include "spec.h"
#include "spec_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strutil.h"

#define MAX_DEPTH 8

static int read_digest(const char *path, char out[17], int *too_big)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);   /* a FIFO must not block */
	uint64_t h = GC_FNV64_BASIS;
	unsigned char b[8192];
	size_t total = 0;
	struct stat st;
	ssize_t k;

	*too_big = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > GC_SPEC_FILE_MAX_BYTES) {
		*too_big = S_ISREG(st.st_mode) && st.st_size > GC_SPEC_FILE_MAX_BYTES;
		errno = 0;
		close(fd);
		return -1;
	}
	while ((k = read(fd, b, sizeof(b))) > 0) {
		total += (size_t)k;
		if (total > GC_SPEC_FILE_MAX_BYTES) {
			*too_big = 1;
			close(fd);
			return -1;
		}
		h = gc_fnv1a64_more(h, b, (size_t)k);
	}
	close(fd);
	if (k < 0)
		return -1;
	snprintf(out, 17, "%016llx", (unsigned long long)h);
	return 0;
}

/* Where entry t lands under files/: its components without "." and empty ones, or only
 * the last when t is absolute or has a ".." component. 0 when nothing (or "..") is left. */
static int dest_of(const char *t, char *out, size_t n)
{
	char buf[256], *comp[64], *save = NULL;
	size_t nc = 0, o = 0;
	int outside = t[0] == '/';

	if (strlen(t) >= sizeof(buf))
		return 0;
	strcpy(buf, t);
	for (char *p = strtok_r(buf, "/", &save); p; p = strtok_r(NULL, "/", &save)) {
		if (!strcmp(p, "."))
			continue;
		outside |= !strcmp(p, "..");
		if (nc == 64)
			return 0;
		comp[nc++] = p;
	}
	if (!nc || !strcmp(comp[nc - 1], ".."))
		return 0;
	for (size_t i = outside ? nc - 1 : 0; i < nc; i++) {
		int k = snprintf(out + o, n - o, "%s%s", o ? "/" : "", comp[i]);
		if (k < 0 || (size_t)k >= n - o)
			return 0;
		o += (size_t)k;
	}
	return 1;
}

/* 1 when a is b's folder or above ("pkg" of "pkg/util.py") */
static int is_above(const char *a, const char *b)
{
	size_t n = strlen(a);

	return !strncmp(a, b, n) && b[n] == '/';
}

static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* One file, src on the controller, landing on files/DEST; t is the entry as written. */
static void add_one(struct spec_ctx *c, yaml_node_t *it, const char *t, const char *src,
		    const char *dest, int *full)
{
	struct gc_spec_file *f;
	int big;

	if (!gc_is_safe_token(dest) || strlen(dest) >= sizeof(f->name)) {
		gc_diag(c->d, it, "file '%.200s' of '%s' would land on files/%.200s, which is not "
			"a path of at most 127 letters, digits and ._:@%%+=,/-; rename it", src, t,
			dest);
		return;
	}
	for (size_t i = 0; i < c->s->n_files; i++) {
		const char *o = c->s->files[i].name;
		if (!strcmp(o, dest) && same_file(c->s->files[i].src, src))
			return;   /* listed twice, or a hook's file listed too: once */
		if (!strcmp(o, dest)) {
			gc_diag(c->d, it, "'%.200s' and '%.200s' would both land on files/%s on the "
				"hosts; rename one, or list one of them only", c->s->files[i].src,
				src, dest);
			return;
		}
		if (is_above(o, dest) || is_above(dest, o)) {
			gc_diag(c->d, it, "files/%s on the hosts would be both a file and a folder "
				"('%.200s' and '%.200s'); rename one", is_above(o, dest) ? o : dest,
				c->s->files[i].src, src);
			return;
		}
	}
	if (c->s->n_files == GC_SPEC_MAX_FILES) {
		if (!(*full)++)
			gc_diag(c->d, it, "'files' ships more than %d files; ship fewer (a folder's "
				"hidden files, __pycache__ and *.pyc are left out already)",
				GC_SPEC_MAX_FILES);
		return;
	}
	f = &c->s->files[c->s->n_files];
	errno = 0;
	if (read_digest(src, f->digest, &big)) {
		if (big)
			gc_diag(c->d, it, "file '%.300s' is larger than 16 MiB; ship data another way "
				"(files: are for scripts and small inputs)", src);
		else
			gc_diag(c->d, it, "file '%s' (%.300s) cannot be read: %s; give its path "
				"relative to the spec's folder", t, src,
				errno ? strerror(errno) : "not a regular file");
		return;
	}
	gc_strlcpy(f->name, dest, sizeof(f->name));
	if (!(f->src = strdup(src))) {
		c->d->oom = 1;
		return;
	}
	c->s->n_files++;
}

static int skipped(const char *name)
{
	size_t n = strlen(name);

	return name[0] == '.' || !strcmp(name, "__pycache__") ||
	       (n > 4 && !strcmp(name + n - 4, ".pyc"));
}

/* A folder's files, in name order; returns how many it added */
static size_t add_folder(struct spec_ctx *c, yaml_node_t *it, const char *t, const char *dir,
			 const char *dest, int depth, int *full)
{
	struct dirent **list = NULL;
	int n = scandir(dir, &list, NULL, alphasort);
	size_t added = 0;

	if (n < 0) {
		gc_diag(c->d, it, "folder '%s' (%.300s) cannot be read: %s", t, dir, strerror(errno));
		return 0;
	}
	for (int i = 0; i < n; i++) {
		char src[1200], to[300];
		struct stat st;
		if (!skipped(list[i]->d_name) && !c->d->oom && !*full &&
		    (size_t)snprintf(src, sizeof(src), "%s/%s", dir, list[i]->d_name) < sizeof(src) &&
		    (size_t)snprintf(to, sizeof(to), "%s/%s", dest, list[i]->d_name) < sizeof(to) &&
		    !stat(src, &st)) {
			if (S_ISDIR(st.st_mode) && depth < MAX_DEPTH) {
				added += add_folder(c, it, t, src, to, depth + 1, full);
			} else if (S_ISREG(st.st_mode)) {
				size_t before = c->s->n_files;
				add_one(c, it, t, src, to, full);
				added += c->s->n_files - before;
			}
		}
		free(list[i]);
	}
	free(list);
	return added;
}

static void add_entry(struct spec_ctx *c, yaml_node_t *it, const char *t, int *full)
{
	const char *slash = strrchr(c->d->file, '/');
	char path[1200], dest[256];
	struct stat st;

	if (!t || !gc_is_safe_token(t) || !dest_of(t, dest, sizeof(dest))) {
		gc_diag(c->d, it, "this entry is not a path of letters, digits and ._:@%%+=,/- "
			"naming a file or a folder; write e.g. files: [train.py, my_pkg]");
		return;
	}
	if (t[0] == '/' || !slash)
		snprintf(path, sizeof(path), "%s", t);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - c->d->file), c->d->file, t);
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		if (!add_folder(c, it, t, path, dest, 0, full) && !*full)
			gc_diag(c->d, it, "folder '%s' has no file to ship (hidden files, __pycache__ "
				"and *.pyc are left out); list its files or remove it", t);
		return;
	}
	add_one(c, it, t, path, dest, full);
}

static int alloc_files(struct spec_ctx *c)
{
	if (!c->s->files && !(c->s->files = calloc(GC_SPEC_MAX_FILES, sizeof(*c->s->files))))
		c->d->oom = 1;
	return c->s->files != NULL;
}

void spec_parse_files(struct spec_ctx *c, yaml_node_t *v)
{
	yaml_node_t **items = NULL;
	size_t n = spec_items(c, v, "files", &items);
	int full = 0;

	for (size_t i = 0; alloc_files(c) && i < n; i++)
		add_entry(c, items[i], gc_yaml_text(items[i]), &full);
	free(items);
}

void spec_files_add_hook(struct spec_ctx *c, yaml_node_t *at, const char *file)
{
	const char *slash = strrchr(file, '/'), *sf = strrchr(c->d->file, '/');
	char folder[256], top[1200];
	struct dirent **list = NULL;
	int full = 0, n;

	if (!alloc_files(c))
		return;
	if (slash) {   /* its folder, whole: a package stays a package */
		snprintf(folder, sizeof(folder), "%.*s", (int)(slash - file), file);
		if (*folder && strcmp(folder, ".")) {
			add_entry(c, at, folder, &full);
			return;
		}
	}
	add_entry(c, at, file, &full);
	/* at the top of the spec's folder: the modules beside it */
	snprintf(top, sizeof(top), "%.*s", sf ? (int)(sf - c->d->file) : 1, sf ? c->d->file : ".");
	if ((n = scandir(top, &list, NULL, alphasort)) < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *nm = list[i]->d_name;
		size_t len = strlen(nm);
		char src[1500];
		struct stat st;
		snprintf(src, sizeof(src), "%s/%s", top, nm);
		if (nm[0] != '.' && len > 3 && !strcmp(nm + len - 3, ".py") && !full &&
		    !c->d->oom && !stat(src, &st) && S_ISREG(st.st_mode) && gc_is_safe_token(nm))
			add_one(c, at, nm, src, nm, &full);
		free(list[i]);
	}
	free(list);
}

int spec_files_add_model(struct spec_ctx *c, yaml_node_t *at, const char *file, char *dest,
			 size_t n)
{
	const char *slash = strrchr(c->d->file, '/');
	char path[1200];
	size_t before = c->d->n;
	struct stat st;
	int full = 0;

	if (!alloc_files(c))
		return -1;
	if (!gc_is_safe_token(file) || !dest_of(file, dest, n)) {
		gc_diag(c->d, at, "a csv: model of workload: ddp is a parameter list's path of "
			"letters, digits and ._:@%%+=,/- (relative to the spec's folder); write e.g. "
			"csv:models/my_model.csv");
		return -1;
	}
	if (file[0] == '/' || !slash)
		snprintf(path, sizeof(path), "%s", file);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - c->d->file), c->d->file, file);
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		gc_diag(c->d, at, "csv: model '%s' is not a file; give the parameter list's path "
			"relative to the spec's folder (gcbench-worker --print-model's format)", file);
		return -1;
	}
	add_entry(c, at, file, &full);
	return c->d->n == before ? 0 : -1;
}

/* orchestrator/remote/provision.c: this build onto the nodes, content-hashed (provision.h). */
#include "provision.h"

#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "kernels/isa.h"
#include "log.h"
#include "formats/arch.h"
#include "home.h"
#include "ssh.h"
#include "proc.h"
#include "strutil.h"
#include "timing.h"

static const char *const files[GC_PROVISION_NFILES] = GC_PROVISION_FILES;

/* Run each binary's --help in "$d"; a failure prints broken=NAME and err= lines. The
 * binaries run through their ELF interpreter "$2" when it is there (the loader of this
 * build: ld-linux-x86-64.so.2), so that no process of the check is named gcbench-worker
 * (a monitor, or a test, looking for a sweep's workers by name must not see them);
 * a missing library is reported the same way. Then the node's CPU (cpu_model=,
 * cpu_flags= from /proc/cpuinfo) and `gcbench-worker --self-test`, which executes every
 * kernel there (selftest_rc=, 132 for SIGILL, and its verdict line as selftest=). */
#define CHECK_SH \
	"for p in gcbench gcbench-worker gcbench-netem gcbench-probe; do " \
	"if [ -n \"$2\" ] && [ -x \"$2\" ]; then o=$(\"$2\" \"$d/$p\" --help 2>&1 >/dev/null); " \
	"else o=$(\"$d/$p\" --help 2>&1 >/dev/null); fi || { echo \"broken=$p\"; " \
	"printf '%s\\n' \"$o\" | tr -cd '[:print:]\\n' | head -c 600 | sed 's/^/err=/'; }; done; " \
	"echo uid=$(id -u); " \
	"echo \"cpu_model=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo " \
	"2>/dev/null | head -n 1 | tr -cd '[:alnum:] ._@()-' | head -c 100)\"; " \
	"echo \"cpu_flags=$(sed -n 's/^flags[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo " \
	"2>/dev/null | head -n 1 | tr -cd 'a-z0-9_ ' | head -c 3000)\"; " \
	"if [ -n \"$2\" ] && [ -x \"$2\" ]; then o=$(\"$2\" \"$d/gcbench-worker\" --self-test 2>&1); " \
	"else o=$(\"$d/gcbench-worker\" --self-test 2>&1); fi; echo \"selftest_rc=$?\"; " \
	"printf '%s\\n' \"$o\" | grep '^self-test:' | tr -cd '[:print:]\\n' | head -c 400 | " \
	"sed 's/^/selftest=/'"

/* $1 = short hash, $2 = ELF interpreter: is a verified copy there? */
static const char probe_sh[] =
	"d=\"$HOME/.cache/gcbench/$1\"; echo \"dir=$d\"; "
	"if [ -f \"$d/.complete\" ] && (cd \"$d\" && sha256sum -c --quiet --status SHA256SUMS) "
	">/dev/null 2>&1; then echo state=have; " CHECK_SH "; else echo state=need; fi";

/* $1 = short hash, $2 = ELF interpreter; stdin: a tar of SHA256SUMS and the files.
 * Nodes that share a home (a shared file system: a SLURM cluster) receive the same
 * build into the same $d at once, so a copy never removes a verified $d another node
 * may be checking or running: it unpacks into a folder of its own (mktemp: $$ may
 * repeat across the nodes' PID namespaces), marks it .complete, and renames it into
 * place in one step (mv -T fails on a folder already there). If another node got there
 * first with a copy that verifies, that copy is used (same hash, same content); only a
 * $d that fails its check is moved aside and replaced. */
static const char receive_sh[] =
	"d=\"$HOME/.cache/gcbench/$1\"; echo \"dir=$d\"; "
	"ok() { [ -f \"$d/.complete\" ] && (cd \"$d\" && sha256sum -c --quiet --status SHA256SUMS) "
	">/dev/null 2>&1; }; "
	"mkdir -p \"${d%/*}\" && t=$(mktemp -d \"$d.part.XXXXXX\") && chmod 755 \"$t\" || exit 4; "
	"tar --no-same-owner -xf - -C \"$t\" || { rm -rf \"$t\"; exit 4; }; "
	"(cd \"$t\" && sha256sum -c --quiet SHA256SUMS) >&2 || { rm -rf \"$t\"; echo verify=failed; exit 5; }; "
	": >\"$t/.complete\" || { rm -rf \"$t\"; exit 6; }; "
	"if ! mv -T \"$t\" \"$d\" 2>/dev/null; then "
	"if ok; then rm -rf \"$t\"; "
	"else o=\"$d.old.${t##*.}\"; mv -T \"$d\" \"$o\" 2>/dev/null; rm -rf \"$o\"; "
	"mv -T \"$t\" \"$d\" 2>/dev/null || { rm -rf \"$t\"; ok || exit 6; }; fi; fi; "
	"echo state=copied; "
	CHECK_SH;

/* The ELF interpreter (PT_INTERP) of a 64-bit binary into out ("" if none or not a
 * safe path). */
static void elf_interp(const char *path, char *out, size_t n)
{
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	out[0] = 0;
	if (!f)
		return;
	if (fread(&eh, sizeof(eh), 1, f) == 1 && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
	    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(ph)) {
		for (int i = 0; i < eh.e_phnum && i < 64; i++) {
			if (fseek(f, (long)(eh.e_phoff + (Elf64_Off)i * sizeof(ph)), SEEK_SET) ||
			    fread(&ph, sizeof(ph), 1, f) != 1)
				break;
			if (ph.p_type != PT_INTERP || ph.p_filesz == 0 || ph.p_filesz >= n)
				continue;
			if (fseek(f, (long)ph.p_offset, SEEK_SET) == 0 &&
			    fread(out, 1, ph.p_filesz, f) == ph.p_filesz)
				out[ph.p_filesz - 1] = 0;
			break;
		}
	}
	fclose(f);
	if (!gc_is_safe_token(out) || out[0] != '/')
		out[0] = 0;
}

/* sha256sum of one file into hex[65] */
static gc_rc file_sha256(const char *path, char *hex, gc_err *e)
{
	char *argv[] = { "sha256sum", "--", (char *)path, NULL };
	gc_proc_result r;
	gc_rc rc = gc_proc_run(argv, NULL, NULL, 60, 0, &r, e);

	if (!rc && (r.status || !r.out || sscanf(r.out, "%64[0-9a-f]", hex) != 1 || strlen(hex) != 64))
		rc = gc_fail(e, GC_E_IO, "cannot hash '%s'", path);
	gc_proc_result_release(&r);
	return rc;
}

/* A spec's csv: model as data of the build: checked, hashed, named by its digest. */
static gc_rc add_data(struct gc_build *b, const char *path, size_t *o, gc_err *e)
{
	struct stat st;
	gc_arch a;
	gc_err pe;
	char hex[65];
	gc_rc rc;

	if (b->n_data >= GC_PROVISION_MAX_DATA)
		return gc_fail(e, GC_E_INVAL, "more than %d csv: models in one sweep",
			       GC_PROVISION_MAX_DATA);
	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return gc_fail(e, GC_E_NOTFOUND, "model 'csv:%.300s': no such file on this machine",
			       path);
	if (st.st_size > 16 << 20)
		return gc_fail(e, GC_E_INVAL, "model 'csv:%.300s' is larger than 16 MiB", path);
	/* read here, as a parameter list; its messages name the line and column, never
	 * what the file holds (formats/arch_csv.c) */
	if (gc_arch_load_csv(path, &a, &pe))
		return gc_fail(e, GC_E_FORMAT, "model 'csv:%.300s' is not a parameter list (a header "
			       "index,name,shape,numel and one row per tensor; docs/spec.md): %s",
			       path, pe.msg);
	gc_arch_release(&a);
	if ((rc = file_sha256(path, hex, e)))
		return rc;
	gc_strlcpy(b->data_src[b->n_data], path, sizeof(b->data_src[0]));
	snprintf(b->data_name[b->n_data], sizeof(b->data_name[0]), "%.16s.csv", hex);
	for (size_t k = 0; k < b->n_data; k++)
		if (!strcmp(b->data_name[k], b->data_name[b->n_data]))
			return GC_OK;   /* the same content under two names */
	*o += (size_t)snprintf(b->manifest + *o, sizeof(b->manifest) - *o, "%s  models/%s\n", hex,
			       b->data_name[b->n_data]);
	b->bytes += (unsigned long long)st.st_size;
	b->n_data++;
	return *o < sizeof(b->manifest) ? GC_OK : gc_fail(e, GC_E_INVAL, "manifest too long");
}

gc_rc gc_build_init(struct gc_build *b, const char *bin_dir, const char *const *data,
		    size_t n_data, gc_err *e)
{
	char paths[GC_PROVISION_NFILES][1100];
	char *argv[GC_PROVISION_NFILES + 3] = { "sha256sum", "--" };
	char *sum[] = { "sha256sum", NULL };
	gc_proc_result r;
	struct stat st;
	const char *line;
	size_t i, o = 0;
	gc_rc rc;

	memset(b, 0, sizeof(*b));
	gc_strlcpy(b->bin_dir, bin_dir, sizeof(b->bin_dir));
	for (i = 0; i < GC_PROVISION_NFILES; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", bin_dir, files[i]);
		if (stat(paths[i], &st) || !S_ISREG(st.st_mode))
			return gc_fail(e, GC_E_NOTFOUND, "cannot provision: '%s' is missing (build it: make)",
				       paths[i]);
		b->bytes += (unsigned long long)st.st_size;
		argv[2 + i] = paths[i];
	}
	elf_interp(paths[1], b->interp, sizeof(b->interp));
	rc = gc_proc_run(argv, NULL, NULL, 60, 0, &r, e);
	if (!rc && r.status)
		rc = gc_fail(e, GC_E_CHILD, "sha256sum of the build failed: %s", r.err_tail);
	for (i = 0, line = rc ? NULL : r.out; !rc && i < GC_PROVISION_NFILES; i++) {
		char hex[65];
		if (!line || sscanf(line, "%64[0-9a-f]", hex) != 1 || strlen(hex) != 64) {
			rc = gc_fail(e, GC_E_FORMAT, "unexpected sha256sum output for '%s'", paths[i]);
			break;
		}
		o += (size_t)snprintf(b->manifest + o, sizeof(b->manifest) - o, "%s  %s\n", hex, files[i]);
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	gc_proc_result_release(&r);
	for (i = 0; !rc && i < n_data; i++)
		rc = add_data(b, data[i], &o, e);
	if (rc)
		return rc;
	rc = gc_proc_run(sum, NULL, b->manifest, 30, 0, &r, e);
	if (!rc && (r.status || sscanf(r.out, "%64[0-9a-f]", b->hash) != 1 || strlen(b->hash) != 64))
		rc = gc_fail(e, GC_E_CHILD, "cannot hash the manifest of the build");
	gc_proc_result_release(&r);
	gc_strlcpy(b->short_hash, b->hash, sizeof(b->short_hash));
	return rc;
}

/* 1 when name is a relative path of safe components, none "." or "..", no "//" */
static int relpath_ok(const char *name)
{
	size_t n = strlen(name);

	if (!gc_is_safe_token(name) || name[0] == '/' || name[n - 1] == '/' || strstr(name, "//"))
		return 0;
	for (const char *p = name; p; p = strchr(p, '/'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "./", 2) || !strcmp(p, ".") || !strncmp(p, "../", 3) ||
		    !strcmp(p, ".."))
			return 0;
	return 1;
}

static gc_rc hash_manifest(struct gc_build *b, gc_err *e)
{
	char *sum[] = { "sha256sum", NULL };
	gc_proc_result r;
	gc_rc rc = gc_proc_run(sum, NULL, b->manifest, 30, 0, &r, e);

	if (!rc && (r.status || sscanf(r.out, "%64[0-9a-f]", b->hash) != 1 || strlen(b->hash) != 64))
		rc = gc_fail(e, GC_E_CHILD, "cannot hash the manifest of the build");
	gc_proc_result_release(&r);
	gc_strlcpy(b->short_hash, b->hash, sizeof(b->short_hash));
	return rc;
}

/* src as SUB/name in the build: checked, hashed into the manifest */
static gc_rc add_file(struct gc_build *b, const char *sub, const char *src, const char *name,
		      gc_err *e)
{
	size_t o = strlen(b->manifest);
	struct stat st;
	char hex[65], to[200];
	gc_rc rc;

	if (b->n_files >= GC_PROVISION_MAX_FILES)
		return gc_fail(e, GC_E_INVAL, "more than %d files in one sweep",
			       GC_PROVISION_MAX_FILES);
	if (stat(src, &st) || !S_ISREG(st.st_mode))
		return gc_fail(e, GC_E_NOTFOUND, "file '%.300s' of the spec: no such file on "
			       "this machine", src);
	if (st.st_size > 16 << 20)
		return gc_fail(e, GC_E_INVAL, "file '%.300s' is larger than 16 MiB", src);
	if (!relpath_ok(name) || (size_t)snprintf(to, sizeof(to), "%s/%s", sub, name) >=
	    sizeof(b->file_name[0]))
		return gc_fail(e, GC_E_INVAL, "refusing file name '%.200s': not a relative path "
			       "of safe tokens", name);
	for (size_t i = 0; i < b->n_files; i++)
		if (!strcmp(b->file_name[i], to))
			return gc_fail(e, GC_E_INVAL, "two files land on %s in the build", to);
	if ((rc = file_sha256(src, hex, e)))
		return rc;
	gc_strlcpy(b->file_src[b->n_files], src, sizeof(b->file_src[0]));
	gc_strlcpy(b->file_name[b->n_files], to, sizeof(b->file_name[0]));
	o += (size_t)snprintf(b->manifest + o, sizeof(b->manifest) - o, "%s  %s\n", hex, to);
	if (o >= sizeof(b->manifest))
		return gc_fail(e, GC_E_INVAL, "manifest too long");
	b->bytes += (unsigned long long)st.st_size;
	b->n_files++;
	return GC_OK;
}

gc_rc gc_build_add_files(struct gc_build *b, const char *const *src, const char *const *names,
			 size_t n, gc_err *e)
{
	gc_rc rc = GC_OK;

	for (size_t i = 0; !rc && i < n; i++)
		rc = add_file(b, "files", src[i], names[i], e);
	return rc ? rc : hash_manifest(b, e);
}

gc_rc gc_build_python_dir(const char *self_dir, char *out, size_t n, gc_err *e)
{
	static const char *const mods[GC_PROVISION_NPYTHON] = GC_PROVISION_PYTHON;
	const char *const under[] = { "../share/gcbench/python", "../../python" };
	char p[1400];
	struct stat st;

	for (size_t k = 0; k < 2; k++) {
		size_t m = 0;
		for (; m < GC_PROVISION_NPYTHON; m++) {
			snprintf(p, sizeof(p), "%s/%s/%s", self_dir, under[k], mods[m]);
			if (stat(p, &st) || !S_ISREG(st.st_mode))
				break;
		}
		if (m == GC_PROVISION_NPYTHON) {
			snprintf(out, n, "%s/%s", self_dir, under[k]);
			return GC_OK;
		}
	}
	return gc_fail(e, GC_E_NOTFOUND, "gcbench's Python module %s is not beside this "
		       "program (looked in %.300s/%s and %s); reinstall gcbench, or run the "
		       "gcbench of a source tree's build/bin", mods[0], self_dir, under[0], under[1]);
}

gc_rc gc_build_add_python(struct gc_build *b, const char *dir, gc_err *e)
{
	static const char *const mods[GC_PROVISION_NPYTHON] = GC_PROVISION_PYTHON;
	char p[1400];
	gc_rc rc = GC_OK;

	for (size_t m = 0; !rc && m < GC_PROVISION_NPYTHON; m++) {
		snprintf(p, sizeof(p), "%s/%s", dir, mods[m]);
		rc = add_file(b, "python", p, mods[m], e);
	}
	return rc ? rc : hash_manifest(b, e);
}

void gc_provision_lib_package(const char *lib, char *pkg, size_t n)
{
	static const struct { const char *lib, *pkg; } known[] = {
		{ "libnl-3.so", "libnl-3-200" }, { "libnl-route-3.so", "libnl-route-3-200" },
		{ "libsqlite3.so", "libsqlite3-0" }, { "libyaml-0.so", "libyaml-0-2" },
		{ "libcurl.so", "libcurl4" }, { "libopenblas.so", "libopenblas0" },
		{ "libmpi.so", "libopenmpi3" }, { "libgomp.so", "libgomp1" },
		{ "libgfortran.so", "libgfortran5" }, { "libnccl.so", "libnccl2" },
		{ "libstdc++.so", "libstdc++6" },
	};
	char pattern[300];
	char *argv[] = { "dpkg-query", "-S", pattern, NULL };
	gc_proc_result r;
	gc_err e;

	pkg[0] = 0;
	if (!gc_is_safe_token(lib) || strchr(lib, '/'))
		return;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strncmp(lib, known[i].lib, strlen(known[i].lib))) {
			gc_strlcpy(pkg, known[i].pkg, n);
			return;
		}
	snprintf(pattern, sizeof(pattern), "*/%s", lib);
	if (!gc_proc_run(argv, NULL, NULL, 10, 0, &r, &e) && r.status == 0 && r.out)
		snprintf(pkg, n, "%.*s", (int)strcspn(r.out, ":,\n"), r.out);
	gc_proc_result_release(&r);
	if (!gc_is_safe_token(pkg))
		pkg[0] = 0;
}

/* "... error while loading shared libraries: libX.so.1: cannot open ..." -> libX.so.1 */
static int missing_lib(const char *err, char *lib, size_t n)
{
	const char *p = strstr(err, "error while loading shared libraries: ");

	if (!p)
		return 0;
	p += strlen("error while loading shared libraries: ");
	snprintf(lib, n, "%.*s", (int)strcspn(p, ": \n"), p);
	if (strrchr(lib, '/'))   /* "/lib/x86_64-linux-gnu/libyaml-0.so.2: file too short" */
		memmove(lib, strrchr(lib, '/') + 1, strlen(strrchr(lib, '/')));
	return lib[0] != 0;
}

/* What the check found wrong, as an error; GC_OK when every binary ran. *pkg gets the
 * package of a missing library ("" if none or unknown). */
static gc_rc check_result(const gc_node *n, const char *out, char *pkg, size_t pn, gc_err *e)
{
	char broken[64], err[400], lib[128] = "";

	pkg[0] = 0;
	gc_kv_line(out, "broken", broken, sizeof(broken));
	if (!broken[0])
		return GC_OK;
	gc_kv_line(out, "err", err, sizeof(err));
	if (!missing_lib(out, lib, sizeof(lib)))
		return gc_fail(e, GC_E_CHILD, "'%s --help' does not run on node '%s': %.200s",
			       broken, n->name, err[0] ? err : "(no message)");
	gc_provision_lib_package(lib, pkg, pn);
	if (!pkg[0])
		return gc_fail(e, GC_E_NOTFOUND, "%s does not run on node '%s': the shared library "
			       "%s is missing there (no Debian package known for it)", broken,
			       n->name, lib);
	return gc_fail(e, GC_E_NOTFOUND, "%s does not run on node '%s': the shared library %s is "
		       "missing; install it there: apt-get install -y %s (or rerun with "
		       "--install-deps, as root on the node)", broken, n->name, lib, pkg);
}

gc_rc gc_provision_check_cpu(const char *node, const char *out, const char *needs,
			     const char *arch, char *isa, size_t in, gc_err *e)
{
	char model[128], flags[3100], miss[256], rcs[16], st[420];
	const char *lv;

	isa[0] = 0;
	gc_kv_line(out, "cpu_model", model, sizeof(model));
	gc_kv_line(out, "cpu_flags", flags, sizeof(flags));
	gc_kv_line(out, "selftest_rc", rcs, sizeof(rcs));
	gc_kv_line(out, "selftest", st, sizeof(st));
	if (!model[0])
		gc_strlcpy(model, "unknown model", sizeof(model));
	if (flags[0] && gc_isa_missing(needs, flags, miss, sizeof(miss)))
		return gc_fail(e, GC_E_UNSUPPORTED, "node '%s' cannot run this build: its CPU (%s) "
			       "lacks %s, which the build (ARCH=%s) needs; rebuild for a baseline "
			       "every node has (make ARCH=x86-64-v2, the default; docs/kernels.md)",
			       node, model, miss, arch);
	if (rcs[0] && !strcmp(rcs, "132"))
		return gc_fail(e, GC_E_UNSUPPORTED, "node '%s' cannot run this build: gcbench-worker "
			       "--self-test died with SIGILL (an instruction its CPU, %s, lacks; "
			       "the build is ARCH=%s); rebuild for a baseline every node has (make "
			       "ARCH=x86-64-v2, the default; docs/kernels.md)", node, model, arch);
	if (rcs[0] && strcmp(rcs, "0"))
		return gc_fail(e, GC_E_CHILD, "gcbench-worker --self-test failed on node '%s' (CPU "
			       "%s, exit status %s): %.300s", node, model, rcs,
			       st[0] ? st : "(no verdict line)");
	if ((lv = strstr(st, "kernels at level ")))
		snprintf(isa, in, "%.*s", (int)strcspn(lv + 17, " "), lv + 17);
	if (!gc_is_safe_token(isa))
		isa[0] = 0;
	return GC_OK;
}

static gc_rc check_cpu(const gc_node *n, const char *out, char *isa, size_t in, gc_err *e)
{
	return gc_provision_check_cpu(n->name, out, gc_build_cpu_flags(), gc_build_arch(), isa,
				      in, e);
}

/* Copy src[0..n) into stage/SUB/ under name[i] (each to a file of its own, then
 * renamed; its folders made): the models' data files (SUB models); a command workload's
 * files and gcbench's Python modules (SUB "", names files/... and python/...). The
 * folders models, files and python always exist: tar names them. */
static gc_rc stage_copy(const char *stage, const char *sub, const char *const *src,
			const char *const *name, size_t n, gc_err *e)
{
	char dir[1200], to[1400], tmp[1500];
	gc_proc_result r;
	gc_rc rc;

	snprintf(dir, sizeof(dir), "%s/%s", stage, sub);
	if ((rc = gc_mkdir_p(dir, 0755, e)))
		return rc;
	for (size_t i = 0; i < n; i++) {
		char *cp[] = { "cp", "--", (char *)src[i], tmp, NULL };
		snprintf(to, sizeof(to), "%s/%s", dir, name[i]);
		snprintf(tmp, sizeof(tmp), "%s", to);
		*strrchr(tmp, '/') = 0;
		if ((rc = gc_mkdir_p(tmp, 0755, e)))
			return rc;
		snprintf(tmp, sizeof(tmp), "%s.%ld", to, (long)getpid());
		rc = gc_proc_run(cp, NULL, NULL, 60, 0, &r, e);
		if (!rc && r.status)
			rc = gc_fail(e, GC_E_IO, "cannot copy '%s' to '%s'", src[i], tmp);
		gc_proc_result_release(&r);
		if (!rc && rename(tmp, to))
			rc = gc_fail(e, GC_E_IO, "cannot write '%s'", to);
		if (rc)
			return rc;
	}
	return GC_OK;
}

/* The models' data files in stage/models/, a command workload's files in stage/files/,
 * gcbench's Python modules in stage/python/. */
static gc_rc stage_build_files(const struct gc_build *b, const char *stage, gc_err *e)
{
	const char *src[GC_PROVISION_MAX_FILES], *name[GC_PROVISION_MAX_FILES];
	char d[1200];
	size_t i;
	gc_rc rc;

	for (i = 0; i < b->n_data; i++)
		src[i] = b->data_src[i], name[i] = b->data_name[i];
	rc = stage_copy(stage, "models", src, name, b->n_data, e);
	for (const char *sub = "files"; !rc && sub; sub = strcmp(sub, "files") ? NULL : "python") {
		snprintf(d, sizeof(d), "%s/%s", stage, sub);
		rc = gc_mkdir_p(d, 0755, e);
	}
	for (i = 0; !rc && i < b->n_files; i++)
		src[i] = b->file_src[i], name[i] = b->file_name[i];
	return rc ? rc : stage_copy(stage, ".", src, name, b->n_files, e);
}

/* Copy the build to n: tar on this side, piped into ssh. */
static gc_rc copy_build(gc_node *n, const struct gc_build *b, gc_proc_result *res, gc_err *e)
{
	static const char pipe_sh[] =
		"s=$1 b=$2; shift 2; tar -cf - -C \"$s\" SHA256SUMS models files python -C \"$b\" "
		"gcbench gcbench-worker gcbench-netem gcbench-probe | \"$@\"";
	char stage[1100], sums[1200], tmp[1300], hash[32];
	char *remote[] = { "sh", "-c", (char *)receive_sh, "sh", hash, (char *)b->interp, NULL };
	char **ssh = NULL, *argv[64] = { "sh", "-c", (char *)pipe_sh, "sh", stage, (char *)b->bin_dir };
	FILE *f;
	size_t i;
	int ok;
	gc_rc rc;

	gc_strlcpy(hash, b->short_hash, sizeof(hash));
	snprintf(stage, sizeof(stage), "%s/provision/%s", gc_home(), b->short_hash);
	snprintf(sums, sizeof(sums), "%s/SHA256SUMS", stage);
	if ((rc = gc_mkdir_p(stage, 0755, e)) || (rc = stage_build_files(b, stage, e)))
		return rc;
	/* nodes are provisioned at once: each writes its own file and renames it into
	 * place, so that no tar ever reads a half-written manifest */
	snprintf(tmp, sizeof(tmp), "%s.%ld", sums, (long)getpid());
	f = fopen(tmp, "w");
	ok = f && fputs(b->manifest, f) >= 0;
	if (f && fclose(f))
		ok = 0;
	if (!ok || rename(tmp, sums)) {
		unlink(tmp);
		return gc_fail(e, GC_E_IO, "cannot write '%s'", sums);
	}
	if ((rc = gc_node_argv(n, remote, &ssh, e)))   /* ssh, or a step of the allocation */
		return rc;
	for (i = 0; ssh[i] && i < 56; i++)
		argv[6 + i] = ssh[i];
	argv[6 + i] = NULL;
	rc = gc_proc_run(argv, NULL, NULL, 300, 0, res, e);
	gc_argv_free(ssh);
	if (!rc && res->status) {
		char v[32];
		gc_kv_line(res->out, "verify", v, sizeof(v));
		rc = gc_fail(e, res->status == 255 ? GC_E_COMM : GC_E_IO,
			     "copying the build to node '%s' %s: %.200s", n->name,
			     v[0] ? "failed its sha256 check" : "failed", res->err_tail);
	}
	return rc;
}

static gc_rc install_pkg(gc_node *n, const char *pkg, gc_err *e)
{
	char *argv[] = { "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q",
			 "--no-install-recommends", (char *)pkg, NULL };
	gc_proc_result r;
	gc_rc rc;

	gc_info("provision: node '%s': apt-get install %s", n->name, pkg);
	rc = gc_node_exec(n, argv, 600, &r, e);
	gc_proc_result_release(&r);
	return rc;
}

gc_rc gc_provision_node(gc_node *n, const struct gc_build *b, const struct gc_provision_opts *o,
			struct gc_provision_result *r, gc_err *e)
{
	char hash[32], state[16], dir[1024], pkg[64], uid[16];
	char *probe[] = { "sh", "-c", (char *)probe_sh, "sh", hash, (char *)b->interp, NULL };
	uint64_t t0 = gc_now_ns();
	gc_proc_result res;
	gc_rc rc;

	memset(r, 0, sizeof(*r));
	pkg[0] = uid[0] = 0;
	gc_strlcpy(hash, b->short_hash, sizeof(hash));
	rc = gc_node_exec(n, probe, 30, &res, e);
	gc_kv_line(rc ? "" : res.out, "state", state, sizeof(state));
	if (!rc && strcmp(state, "have")) {
		gc_proc_result_release(&res);
		rc = copy_build(n, b, &res, e);
		r->copied = 1;
	}
	gc_kv_line(rc ? "" : res.out, "dir", dir, sizeof(dir));
	if (!rc && !gc_is_safe_token(dir))
		rc = gc_fail(e, GC_E_INVAL, "node '%s': its build directory '%.100s' is not a safe "
			     "path (a home directory with spaces?)", n->name, dir);
	rc = rc ? rc : check_result(n, res.out, pkg, sizeof(pkg), e);
	rc = rc ? rc : check_cpu(n, res.out, r->kernels, sizeof(r->kernels), e);
	gc_kv_line(res.out ? res.out : "", "uid", uid, sizeof(uid));
	gc_proc_result_release(&res);
	if (rc == GC_E_NOTFOUND && pkg[0] && o->install_deps) {
		if (strcmp(uid, "0")) {
			char why[GC_ERRLEN];
			gc_strlcpy(why, e->msg, sizeof(why));
			return gc_fail(e, GC_E_PERM, "%.400s; --install-deps needs a root login there",
				       why);
		}
		rc = install_pkg(n, pkg, e);
		if (!rc) {
			rc = gc_node_exec(n, probe, 30, &res, e);
			rc = rc ? rc : check_result(n, res.out, pkg, sizeof(pkg), e);
			rc = rc ? rc : check_cpu(n, res.out, r->kernels, sizeof(r->kernels), e);
			gc_proc_result_release(&res);
		}
	}
	if (!rc)
		gc_strlcpy(n->bin_dir, dir, sizeof(n->bin_dir));
	r->seconds = (double)(gc_now_ns() - t0) / 1e9;
	return rc;
}

/* ---- the nodes' environments, side by side ------------------------------------------ */

/* "Open MPI v4.1.4" -> 4001 (major*1000 + minor); 0 when unknown */
static long mpi_minor(const char *v)
{
	return (long)(gc_version_num(v) / 1000);
}

static void env_table(const gc_node *nodes, const struct gc_envinfo *envs, size_t n,
		      const char *const *cols, size_t nc, FILE *out)
{
	fprintf(out, "  %-12s", "node");
	for (size_t c = 0; c < nc; c++)
		fprintf(out, "  %-20s", cols[c]);
	fprintf(out, "\n");
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "  %-12s", nodes[i].name);
		for (size_t c = 0; c < nc; c++) {
			const char *v = gc_envinfo_field(&envs[i], cols[c]);
			fprintf(out, "  %-20.40s", v && *v ? v : "-");
		}
		fprintf(out, "\n");
	}
}

gc_rc gc_provision_compare_envs(const gc_node *nodes, const struct gc_envinfo *envs, size_t n,
				FILE *out, gc_err *e)
{
	static const char *const warn_fields[] = { "kernel", "driver", "cuda", "gpu_model", "libnl",
						    "sqlite", "gcbench", "tcp_cc" };
	const char *cols[12];
	size_t nc = 0, i, k;
	int mpi_diff = 0, nccl_diff = 0;

	for (i = 1; i < n; i++) {
		mpi_diff |= mpi_minor(envs[i].mpi) != mpi_minor(envs[0].mpi);
		nccl_diff |= strcmp(envs[i].nccl, envs[0].nccl) != 0;
	}
	if (mpi_diff)
		cols[nc++] = "mpi";
	if (nccl_diff)
		cols[nc++] = "nccl";
	for (k = 0; k < sizeof(warn_fields) / sizeof(warn_fields[0]); k++)
		for (i = 1; i < n; i++)
			if (strcmp(gc_envinfo_field(&envs[i], warn_fields[k]),
				   gc_envinfo_field(&envs[0], warn_fields[k]))) {
				cols[nc++] = warn_fields[k];
				break;
			}
	if (!nc)
		return GC_OK;
	if (mpi_diff || nccl_diff) {
		fprintf(out, "gcbench: error: the nodes run different %s%s%s; collectives across "
			"them are not comparable (install one version everywhere):\n",
			mpi_diff ? "MPI (major.minor)" : "", mpi_diff && nccl_diff ? " and " : "",
			nccl_diff ? "NCCL" : "");
		env_table(nodes, envs, n, cols, nc, out);
		return gc_fail(e, GC_E_MISMATCH, "the nodes run different %s%s%s (table above)",
			       mpi_diff ? "MPI versions" : "", mpi_diff && nccl_diff ? " and " : "",
			       nccl_diff ? "NCCL versions" : "");
	}
	gc_warn("the nodes' environments differ (each node's is stored with every run):");
	env_table(nodes, envs, n, cols, nc, out);
	return GC_OK;
}

/* what one node's provisioning sends back to the parent */
struct node_report {
	gc_rc rc;
	struct gc_provision_result r;
	char bin_dir[1024];
	char tcp_cc[32];
	char netem_path[64];   /* gc_node_check's choice of helper */
	int netem_sudo;
	struct gc_envinfo env;
	gc_err e;
};

/* Provision node i and read its environment, in a child; the report goes to fd. */
static void node_child(gc_node *nd, const struct gc_build *b, const struct gc_provision_opts *o,
		       int fd)
{
	struct node_report rep;

	memset(&rep, 0, sizeof(rep));
	rep.rc = gc_provision_node(nd, b, o, &rep.r, &rep.e);
	rep.rc = rep.rc ? rep.rc : gc_node_env(nd, NULL, &rep.env, &rep.e);
	if (!rep.rc && o->check_shape)
		rep.rc = gc_node_check(nd, &rep.e);
	gc_strlcpy(rep.bin_dir, nd->bin_dir, sizeof(rep.bin_dir));
	gc_strlcpy(rep.tcp_cc, nd->tcp_cc, sizeof(rep.tcp_cc));
	gc_strlcpy(rep.netem_path, nd->netem_path, sizeof(rep.netem_path));
	rep.netem_sudo = nd->netem_sudo;
	_exit(write(fd, &rep, sizeof(rep)) == (ssize_t)sizeof(rep) ? 0 : 1);
}

static ssize_t read_full(int fd, void *buf, size_t n)
{
	size_t o = 0;

	while (o < n) {
		ssize_t r = read(fd, (char *)buf + o, n - o);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		o += (size_t)r;
	}
	return (ssize_t)o;
}

/* Every node at once (each in its own process, over its own ssh connection). */
static gc_rc provision_parallel(gc_node *nodes, size_t n, const struct gc_build *b,
				const struct gc_provision_opts *o, struct gc_envinfo *envs,
				size_t *copied, gc_err *e)
{
	struct node_report rep;
	int *fds = calloc(n, sizeof(int));
	pid_t *pids = calloc(n, sizeof(pid_t));
	gc_rc rc = GC_OK;
	size_t i;

	if (!fds || !pids) {
		free(fds);
		free(pids);
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		int p[2];
		fds[i] = -1;
		pids[i] = -1;
		if (pipe(p))
			continue;
		fflush(NULL);
		pids[i] = fork();
		if (pids[i] == 0) {
			close(p[0]);
			node_child(&nodes[i], b, o, p[1]);
		}
		close(p[1]);
		fds[i] = p[0];
	}
	for (i = 0; i < n; i++) {
		ssize_t got = fds[i] >= 0 ? read_full(fds[i], &rep, sizeof(rep)) : -1;
		if (fds[i] >= 0)
			close(fds[i]);
		if (pids[i] > 0)
			while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
				;
		if (got != (ssize_t)sizeof(rep)) {
			memset(&rep, 0, sizeof(rep));
			rep.rc = gc_fail(&rep.e, GC_E_CHILD, "provisioning node '%s' failed (its process "
					 "ended early)", nodes[i].name);
		}
		if (rep.rc) {
			if (!rc)
				*e = rep.e, rc = rep.rc;
			continue;
		}
		gc_strlcpy(nodes[i].bin_dir, rep.bin_dir, sizeof(nodes[i].bin_dir));
		gc_strlcpy(nodes[i].tcp_cc, rep.tcp_cc, sizeof(nodes[i].tcp_cc));
		gc_strlcpy(nodes[i].netem_path, rep.netem_path, sizeof(nodes[i].netem_path));
		nodes[i].netem_sudo = rep.netem_sudo;
		envs[i] = rep.env;
		*copied += (size_t)rep.r.copied;
		if (!o->quiet)
			gc_info("provision: %s: %s build %s in %.2f s (self-test ok, kernels: %s)",
				nodes[i].name, rep.r.copied ? "copied" : "has", b->short_hash,
				rep.r.seconds, rep.r.kernels[0] ? rep.r.kernels : "?");
		if (!o->quiet && rep.netem_path[0])
			gc_info("provision: %s: shapes with %s%s (the gcbench package's helper: no "
				"admin step for this build)", nodes[i].name, rep.netem_path,
				rep.netem_sudo ? " through sudo" : "");
	}
	free(fds);
	free(pids);
	return rc;
}

gc_rc gc_provision_nodes(gc_node *nodes, size_t n, const struct gc_build *bp,
			 const struct gc_provision_opts *o, gc_err *e)
{
	const struct gc_build *b = bp;
	struct gc_envinfo *envs;
	uint64_t t0 = gc_now_ns();
	size_t copied = 0;
	gc_rc rc;

	envs = calloc(n ? n : 1, sizeof(*envs));
	if (!envs)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	if (gc_build_is_native())
		gc_warn("provision: this build is ARCH=%s, compiled for the CPU it was built on "
			"(%s): a node whose CPU lacks any of its flags is refused; for a cluster, "
			"build with the default ARCH=x86-64-v2 (its kernels are chosen per CPU at "
			"run time; docs/kernels.md)", gc_build_arch(), gc_build_host_cpu());
	rc = provision_parallel(nodes, n, b, o, envs, &copied, e);
	rc = rc ? rc : gc_provision_compare_envs(nodes, envs, n, stderr, e);
	free(envs);
	if (!rc && !o->quiet)
		gc_info("provision: build %s on %zu node%s (%zu copied, %.1f MB each) in %.2f s",
			b->short_hash, n, n == 1 ? "" : "s", copied, (double)b->bytes / 1e6,
			(double)(gc_now_ns() - t0) / 1e9);
	return rc;
}

/* orchestrator/envinfo.c: probe this host's versions (no hard dependency on any of
 * CUDA, NCCL or MPI: they are looked up at run time). */
#include "envinfo.h"

#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <netlink/version.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "strutil.h"

int64_t gc_version_num(const char *s)
{
	int64_t part[3] = { 0, 0, 0 };
	int k = 0;

	while (*s && !isdigit((unsigned char)*s))
		s++;
	if (!*s)
		return 0;
	while (k < 3 && isdigit((unsigned char)*s)) {
		int64_t v = 0;
		while (isdigit((unsigned char)*s)) {
			if (v < 1000)
				v = v * 10 + (*s - '0');
			s++;
		}
		part[k++] = v > 999 ? 999 : v;
		if (*s != '.' || !isdigit((unsigned char)s[1]))
			break;
		s++;
	}
	return part[0] * 1000000 + part[1] * 1000 + part[2];
}

/* First line of a file, without the newline; "" if unreadable. */
static void read_line(const char *path, char *dst, size_t n)
{
	FILE *f = fopen(path, "r");

	dst[0] = 0;
	if (!f)
		return;
	if (fgets(dst, (int)n, f))
		dst[strcspn(dst, "\n")] = 0;
	fclose(f);
}

/* "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug ..." */
static void probe_driver(struct gc_envinfo *in)
{
	char line[512], *p;

	read_line("/proc/driver/nvidia/version", line, sizeof(line));
	p = strstr(line, "Kernel Module");
	if (!p)
		return;
	p += strlen("Kernel Module");
	while (*p == ' ')
		p++;
	p[strcspn(p, " ")] = 0;
	gc_strlcpy(in->driver, p, sizeof(in->driver));
}

/* /proc/driver/nvidia/gpus/<bus>/information: "Model: \t\t NVIDIA H100 ..." */
static void probe_gpus(struct gc_envinfo *in)
{
	DIR *d = opendir("/proc/driver/nvidia/gpus");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[512], line[256];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		in->gpu_count++;
		snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			char *p = line + strlen("Model:");
			if (strncmp(line, "Model:", 6) || in->gpu_model[0])
				continue;
			p += strspn(p, " \t");
			p[strcspn(p, "\n")] = 0;
			gc_strlcpy(in->gpu_model, p, sizeof(in->gpu_model));
		}
		if (f)
			fclose(f);
	}
	closedir(d);
}

/* call int fn(int *) from a shared library; 0 on success */
static int dl_int_version(const char *lib, const char *sym, int *v)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	int (*fn)(int *);
	int rc = -1;

	if (!h)
		return -1;
	*(void **)(&fn) = dlsym(h, sym);
	if (fn && fn(v) == 0)
		rc = 0;
	dlclose(h);
	return rc;
}

static void probe_cuda_nccl(struct gc_envinfo *in)
{
	int v;

	if (!dl_int_version("libcuda.so.1", "cuDriverGetVersion", &v))
		snprintf(in->cuda, sizeof(in->cuda), "%d.%d", v / 1000, (v % 1000) / 10);
	/* NCCL >= 2.9 encodes major*10000 + minor*100 + patch; older major*1000 + ... */
	if (!dl_int_version("libnccl.so.2", "ncclGetVersion", &v)) {
		if (v >= 10000)
			snprintf(in->nccl, sizeof(in->nccl), "%d.%d.%d", v / 10000,
				 (v % 10000) / 100, v % 100);
		else
			snprintf(in->nccl, sizeof(in->nccl), "%d.%d.%d", v / 1000,
				 (v % 1000) / 100, v % 100);
	}
}

/* `ompi_info --version` prints "Open MPI v4.1.4" first */
static void probe_mpi(struct gc_envinfo *in)
{
	FILE *p = popen("ompi_info --version 2>/dev/null", "r");
	char line[256] = "";

	if (!p)
		return;
	if (fgets(line, sizeof(line), p) && !strncmp(line, "Open MPI", 8)) {
		line[strcspn(line, "\n")] = 0;
		gc_strlcpy(in->mpi, line, sizeof(in->mpi));
	}
	pclose(p);
}

void gc_envinfo_probe(struct gc_envinfo *in, const char *gcbench_version)
{
	struct utsname u;

	memset(in, 0, sizeof(*in));
	if (gethostname(in->host, sizeof(in->host) - 1))
		gc_strlcpy(in->host, "unknown", sizeof(in->host));
	if (!uname(&u))
		gc_strlcpy(in->kernel, u.release, sizeof(in->kernel));
	probe_driver(in);
	probe_gpus(in);
	probe_cuda_nccl(in);
	probe_mpi(in);
	snprintf(in->libnl, sizeof(in->libnl), "%d.%d.%d", nl_ver_maj, nl_ver_min, nl_ver_mic);
	gc_strlcpy(in->sqlite, sqlite3_libversion(), sizeof(in->sqlite));
	gc_strlcpy(in->gcbench, gcbench_version ? gcbench_version : "", sizeof(in->gcbench));
	read_line("/proc/sys/net/ipv4/tcp_congestion_control", in->tcp_cc, sizeof(in->tcp_cc));
}

/* the text fields in output order, with whether a sortable number goes with them */
struct field { const char *name; size_t off; int num; };
#define F(n, num) { #n, offsetof(struct gc_envinfo, n), num }
static const struct field fields[] = {
	F(host, 0), F(gpu_model, 0), F(driver, 1), F(cuda, 1), F(nccl, 1), F(mpi, 1),
	F(kernel, 1), F(libnl, 1), F(sqlite, 1), F(gcbench, 0), F(tcp_cc, 0), F(tag, 0),
};
#undef F
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static int json_str(char *buf, size_t n, size_t o, const char *s)
{
	int w = 0;

	for (; *s && o + (size_t)w + 8 < n; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			w += snprintf(buf + o + w, n - o - (size_t)w, "\\%c", c);
		else if (c < 0x20)
			w += snprintf(buf + o + w, n - o - (size_t)w, "\\u%04x", c);
		else
			buf[o + (size_t)w++] = (char)c;
	}
	return *s ? -1 : w;
}

gc_rc gc_envinfo_json(const struct gc_envinfo *in, char *buf, size_t n)
{
	size_t o = 0;
	int w;

	for (size_t i = 0; i < NFIELDS; i++) {
		const char *v = (const char *)in + fields[i].off;
		w = snprintf(buf + o, n - o, "%s\"%s\":\"", i ? "," : "{", fields[i].name);
		if (w < 0 || (size_t)w >= n - o)
			return GC_E_INVAL;
		o += (size_t)w;
		if ((w = json_str(buf, n, o, v)) < 0)
			return GC_E_INVAL;
		o += (size_t)w;
		w = fields[i].num ? snprintf(buf + o, n - o, "\",\"%s_num\":%lld", fields[i].name,
					     (long long)gc_version_num(v))
				  : snprintf(buf + o, n - o, "\"");
		if (w < 0 || (size_t)w >= n - o)
			return GC_E_INVAL;
		o += (size_t)w;
	}
	w = snprintf(buf + o, n - o, ",\"gpu_count\":%d}", in->gpu_count);
	return (w < 0 || (size_t)w >= n - o) ? GC_E_INVAL : GC_OK;
}

void gc_envinfo_print(const struct gc_envinfo *in, void *fp)
{
	FILE *f = fp;

	for (size_t i = 0; i < NFIELDS; i++) {
		const char *v = (const char *)in + fields[i].off;
		fprintf(f, "%-10s %s\n", fields[i].name,
			*v ? v : strcmp(fields[i].name, "tag") ? "(not found)" : "(none)");
	}
	fprintf(f, "%-10s %d\n", "gpu_count", in->gpu_count);
}

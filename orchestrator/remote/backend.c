/* orchestrator/remote/backend.c: the srun side of the launcher back end. */
#include "backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"

const char *gc_launcher_name(int launcher)
{
	return launcher == GC_LAUNCHER_SLURM ? "slurm" : "ssh";
}

static int host_ok(const char *h)
{
	size_t n = strlen(h);

	if (!n || n > 255 || *h == '-' || *h == '.')
		return 0;
	for (; *h; h++)
		if (!((*h >= 'a' && *h <= 'z') || (*h >= 'A' && *h <= 'Z') ||
		      (*h >= '0' && *h <= '9') || *h == '.' || *h == '-' || *h == '_'))
			return 0;
	return 1;
}

gc_rc gc_backend_slurm_step_argv(const char *host, char *const argv[], char ***out, gc_err *e)
{
	static const char *const head[] = { "srun", "--mpi=none", "--nodes=1", "--ntasks=1",
		NULL /* --nodelist= */, "--overlap", "--chdir=/", "--kill-on-bad-exit=1",
		"--quiet" };
	enum { NHEAD = sizeof(head) / sizeof(head[0]) };
	size_t n = 0, i;
	char **v;

	*out = NULL;
	if (!host_ok(host))
		return gc_fail(e, GC_E_INVAL, "refusing node name '%.80s' for srun: not a host name",
			       host);
	if (!argv || !argv[0] || !*argv[0] || argv[0][0] == '-')
		return gc_fail(e, GC_E_INVAL, "refusing a step on '%s': the command is empty or "
			       "starts with '-'", host);
	while (argv[n])
		n++;
	v = calloc(NHEAD + n + 1, sizeof(char *));
	if (!v)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	for (i = 0; i < NHEAD; i++) {
		if (head[i]) {
			v[i] = strdup(head[i]);
		} else if ((v[i] = malloc(strlen(host) + 12))) {
			strcpy(v[i], "--nodelist=");
			strcat(v[i], host);
		}
	}
	for (i = 0; i < n; i++)
		v[NHEAD + i] = strdup(argv[i]);
	for (i = 0; i < NHEAD + n; i++)
		if (!v[i]) {
			for (size_t k = 0; k < NHEAD + n; k++)
				free(v[k]);
			free(v);
			return gc_fail(e, GC_E_NOMEM, "out of memory");
		}
	*out = v;
	return GC_OK;
}

int gc_backend_slurm_step_failed(const char *err_tail, char *why, size_t n)
{
	const char *p = err_tail;

	/* "srun: error: n1: task 0: Exited with exit code 1" is the command's own end */
	while (p && (p = strstr(p, "srun: error: "))) {
		size_t len = strcspn(p, "\n");
		if ((p == err_tail || p[-1] == '\n') && !memmem(p, len, ": task ", 7)) {
			snprintf(why, n, "%.*s", (int)len, p);
			return 1;
		}
		p += len;
	}
	return 0;
}

void gc_backend_slurm_last_line(const char *err_tail, char *out, size_t n)
{
	const char *s = err_tail ? err_tail : "", *best = NULL, *p = s;
	size_t best_len = 0;

	/* the last line that is not srun's or slurmstepd's own */
	while (*p) {
		size_t len = strcspn(p, "\n");
		if (len && strncmp(p, "srun: ", 6) && strncmp(p, "slurmstepd", 10)) {
			best = p;
			best_len = len;
		}
		p += len + (p[len] == '\n');
	}
	snprintf(out, n, "%.*s", (int)best_len, best ? best : "");
}

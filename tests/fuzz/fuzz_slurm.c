/* tests/fuzz/fuzz_slurm.c: the SLURM parsers (orchestrator/remote/slurm.h) on arbitrary
 * bytes: the job record of `scontrol show job -o`, the host names of `scontrol show
 * hostnames`, the allocation's variables (GPU counts and lists, node list), node lists
 * and time limits.
 * Properties checked (abort on violation): every rejection explains itself; an accepted
 * record has a numeric job id, exclusive exactly when OverSubscribe=NO, and a node list
 * that is valid or empty; accepted host names are 1..max distinct safe tokens. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/remote/slurm.h"
#include "proc.h"
#include "strutil.h"

static void check_job(const char *s)
{
	gc_slurm_job j;
	gc_err e;

	e.msg[0] = 0;
	if (gc_slurm_parse_job(s, &j, &e) != GC_OK) {
		if (!e.msg[0])
			abort();
		return;
	}
	if (!j.job_id[0] || strspn(j.job_id, "0123456789") != strlen(j.job_id))
		abort();
	if (j.exclusive != !strcmp(j.oversubscribe, "NO"))
		abort();
	if (j.nodelist[0] && !gc_slurm_valid_nodelist(j.nodelist))
		abort();
}

static void check_hosts(const char *s)
{
	char **h = NULL;
	int n = 0;
	gc_err e;

	e.msg[0] = 0;
	if (gc_slurm_parse_hostnames(s, &h, &n, &e) != GC_OK) {
		if (!e.msg[0] || h || n)
			abort();
		return;
	}
	if (n < 1 || n > GC_SLURM_MAX_HOSTS || h[n])
		abort();
	for (int i = 0; i < n; i++) {
		if (!gc_is_safe_token(h[i]) || strchr(h[i], '/'))
			abort();
		for (int k = 0; k < i; k++)
			if (!strcmp(h[i], h[k]))
				abort();
	}
	gc_argv_free(h);
}

/* the input as the value of each GPU variable and of the node list */
static void check_env(const char *s)
{
	static const char *const vars[] = { "SLURM_GPUS_PER_NODE=", "SLURM_GPUS_ON_NODE=",
					    "SLURM_JOB_GPUS=", "SLURM_JOB_NODELIST=" };
	char v[512];
	const char *env[] = { "SLURM_JOB_ID=1", v, NULL, NULL };
	gc_slurm_alloc a;
	gc_err e;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		snprintf(v, sizeof(v), "%s%.400s", vars[i], s);
		env[2] = i < 3 ? "SLURM_JOB_NODELIST=n1" : NULL;
		e.msg[0] = 0;
		if (gc_slurm_alloc_from_env(env, &a, &e) != GC_OK) {
			if (!e.msg[0])
				abort();
			continue;
		}
		if (a.gpus_per_node < 0 || a.gpus_per_node > 4096 || !gc_slurm_valid_nodelist(a.nodelist))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	check_job(s);
	check_hosts(s);
	check_env(s);
	if (gc_slurm_valid_nodelist(s) && (strpbrk(s, " ;$`'\"\n\\") || s[0] == '-'))
		abort();
	if (gc_slurm_valid_time(s) && strpbrk(s, " ;$`'\"\n\\"))
		abort();
	free(s);
	return 0;
}

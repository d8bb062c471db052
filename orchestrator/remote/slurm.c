/* orchestrator/remote/slurm.c: the allocation from the environment, node lists through
 * scontrol, the job's record, and the sbatch script (see slurm.h). */
#include "slurm.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "strutil.h"

extern char **environ;

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

/* ---- validation ---- */

static int all_digits(const char *s, size_t max)
{
	size_t n = strlen(s);
	return n >= 1 && n <= max && strspn(s, "0123456789") == n;
}

/* a host or partition name: [A-Za-z0-9._-], 1..max bytes, not starting with - or . */
static int valid_name(const char *s, size_t max)
{
	size_t n = strlen(s);
	return n >= 1 && n <= max && strspn(s, NAME_CHARS) == n && s[0] != '-' && s[0] != '.';
}

int gc_slurm_valid_nodelist(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	int in = 0;

	if (n < 1 || n > 4095 || s[0] == '-' || s[0] == ',' || s[0] == '[')
		return 0;
	for (; *s; s++) {
		if (*s == '[') {
			if (in || !isdigit((unsigned char)s[1]))
				return 0;
			in = 1;
		} else if (*s == ']') {
			if (!in || !isdigit((unsigned char)s[-1]))
				return 0;
			in = 0;
		} else if (in ? !strchr("0123456789,-", *s) : !strchr(NAME_CHARS ",", *s)) {
			return 0;
		}
	}
	return !in;
}

/* MM | MM:SS | HH:MM:SS | D-HH | D-HH:MM | D-HH:MM:SS | UNLIMITED | INFINITE */
int gc_slurm_valid_time(const char *t)
{
	const char *p = t, *dash;
	int parts = 0;

	if (!t || !*t)
		return 0;
	if (!strcmp(t, "UNLIMITED") || !strcmp(t, "INFINITE") || !strcmp(t, "unlimited") ||
	    !strcmp(t, "infinite"))
		return 1;
	if (strlen(t) > 16 || strspn(t, "0123456789:-") != strlen(t))
		return 0;
	dash = strchr(t, '-');
	if (dash) {
		if (dash == t || strchr(dash + 1, '-') || (size_t)(dash - t) > 4)
			return 0;
		p = dash + 1;
	}
	for (;;) {
		size_t d = strspn(p, "0123456789");
		if (d < 1 || d > (parts == 0 && !dash ? 7 : 2))
			return 0;
		parts++;
		p += d;
		if (!*p)
			break;
		if (*p != ':')
			return 0;
		p++;
	}
	return parts <= 3;
}

/* --begin: SLURM's forms (2026-12-05T02:00, now+1hour, tomorrow, 16:00, 12/05/26) */
static int valid_begin(const char *b)
{
	size_t n = strlen(b);
	return n >= 1 && n <= 64 && isalnum((unsigned char)b[0]) &&
	       strspn(b, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789:+-/T") == n;
}

/* ---- the allocation ---- */

static const char *env_get(const char *const *envp, const char *name)
{
	size_t n = strlen(name);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, n) && (*envp)[n] == '=')
			return *envp + n + 1;
	return NULL;
}

static gc_rc bad_var(gc_err *e, const char *name, const char *why)
{
	return gc_fail(e, GC_E_INVAL, "the SLURM variable %s is not %s: is this a SLURM "
		       "allocation? unset it or run inside salloc/sbatch", name, why);
}

/* "[type:]N" -> N; -1 when malformed */
static int gpus_count(const char *v)
{
	const char *colon = strrchr(v, ':');
	const char *num = colon ? colon + 1 : v;
	char type[64];
	uint64_t n;

	if (colon) {   /* the GPU type: a name */
		if ((size_t)(colon - v) >= sizeof(type))
			return -1;
		memcpy(type, v, (size_t)(colon - v));
		type[colon - v] = 0;
		if (!valid_name(type, sizeof(type) - 1))
			return -1;
	}
	if (gc_parse_u64(num, &n) || n > 4096)
		return -1;
	return (int)n;
}

/* a list of GPU indices and ranges "0,1,3" or "0-3,6" -> 3 or 5; -1 when malformed */
static int gpus_in_list(const char *v)
{
	int n = 0;

	if (!*v || strspn(v, "0123456789,-") != strlen(v))
		return -1;
	while (*v) {
		char *end;
		unsigned long a = strtoul(v, &end, 10), b = a;

		if (end == v || a > 4096)
			return -1;
		if (*end == '-') {
			v = end + 1;
			b = strtoul(v, &end, 10);
			if (end == v || b < a || b > 4096)
				return -1;
		}
		n += (int)(b - a + 1);
		if (n > 4096 || (*end && (*end != ',' || !end[1])))
			return -1;
		v = *end ? end + 1 : end;
	}
	return n;
}

static gc_rc alloc_gpus(const char *const *envp, gc_slurm_alloc *a, gc_err *e)
{
	static const char *const vars[] = { "SLURM_GPUS_PER_NODE", "SLURM_GPUS_ON_NODE",
					    "SLURM_JOB_GPUS" };
	const char *v;
	int n;

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		if (!(v = env_get(envp, vars[i])) || !*v)
			continue;
		n = i == 2 ? gpus_in_list(v) : gpus_count(v);
		if (n < 0)
			return bad_var(e, vars[i], i == 2 ? "a list of GPU indices (0,1)"
							  : "a GPU count ([type:]N)");
		a->gpus_per_node = n;
		gc_strlcpy(a->gpus_from, vars[i], sizeof(a->gpus_from));
		return GC_OK;
	}
	return GC_OK;
}

gc_rc gc_slurm_alloc_from_env(const char *const *envp, gc_slurm_alloc *a, gc_err *e)
{
	const char *v;
	uint64_t n;

	memset(a, 0, sizeof(*a));
	if (!envp)
		envp = (const char *const *)environ;
	if (!(v = env_get(envp, "SLURM_JOB_ID")) || !*v)
		return gc_fail(e, GC_E_NOTFOUND, "not in a SLURM allocation (SLURM_JOB_ID is not "
			       "set): run inside salloc or sbatch");
	if (!all_digits(v, 20))
		return bad_var(e, "SLURM_JOB_ID", "a job number");
	gc_strlcpy(a->job_id, v, sizeof(a->job_id));
	if (!(v = env_get(envp, "SLURM_JOB_NODELIST")) || !*v)
		return gc_fail(e, GC_E_INVAL, "SLURM_JOB_ID is set but SLURM_JOB_NODELIST is not: "
			       "run gcbench in the allocation's shell or batch script, not in a "
			       "step of another job");
	if (!gc_slurm_valid_nodelist(v))
		return bad_var(e, "SLURM_JOB_NODELIST", "a node list (n[1-4],gpu01)");
	gc_strlcpy(a->nodelist, v, sizeof(a->nodelist));
	if ((v = env_get(envp, "SLURM_JOB_PARTITION")) && *v) {
		if (!valid_name(v, sizeof(a->partition) - 1))
			return bad_var(e, "SLURM_JOB_PARTITION", "a partition name");
		gc_strlcpy(a->partition, v, sizeof(a->partition));
	}
	if ((v = env_get(envp, "SLURM_CLUSTER_NAME")) && *v) {
		if (!valid_name(v, sizeof(a->cluster) - 1))
			return bad_var(e, "SLURM_CLUSTER_NAME", "a cluster name");
		gc_strlcpy(a->cluster, v, sizeof(a->cluster));
	}
	if ((v = env_get(envp, "SLURM_JOB_NUM_NODES")) && *v) {
		if (gc_parse_u64(v, &n) || n < 1 || n > GC_SLURM_MAX_HOSTS)
			return bad_var(e, "SLURM_JOB_NUM_NODES", "a node count");
		a->num_nodes = (int)n;
	}
	return alloc_gpus(envp, a, e);
}

/* ---- host names ---- */

gc_rc gc_slurm_parse_hostnames(const char *text, char ***hosts, int *n, gc_err *e)
{
	char **v = NULL, line[300];
	const char *p = text, *nl;
	int count = 0, lineno = 0;
	size_t len;

	*hosts = NULL;
	*n = 0;
	if (!text)
		return gc_fail(e, GC_E_FORMAT, "scontrol show hostnames printed nothing");
	v = calloc(GC_SLURM_MAX_HOSTS + 1, sizeof(*v));
	if (!v)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	for (; *p; p = nl ? nl + 1 : p + len) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		if (len == 0 && !nl)
			break;
		if (len >= sizeof(line) || (memcpy(line, p, len), line[len] = 0, !valid_name(line, 255))) {
			gc_argv_free(v);
			return gc_fail(e, GC_E_FORMAT, "line %d of scontrol show hostnames is not a "
				       "host name ([A-Za-z0-9._-]): check the node list", lineno);
		}
		for (int i = 0; i < count; i++)
			if (!strcmp(v[i], line)) {
				gc_argv_free(v);
				return gc_fail(e, GC_E_FORMAT, "scontrol show hostnames named '%s' twice",
					       line);
			}
		if (count == GC_SLURM_MAX_HOSTS || !(v[count] = strdup(line))) {
			gc_argv_free(v);
			return count == GC_SLURM_MAX_HOSTS ?
			       gc_fail(e, GC_E_FORMAT, "more than %d hosts in the allocation",
				       GC_SLURM_MAX_HOSTS) :
			       gc_fail(e, GC_E_NOMEM, "out of memory");
		}
		count++;
		if (!nl)
			break;
	}
	if (count == 0) {
		gc_argv_free(v);
		return gc_fail(e, GC_E_FORMAT, "scontrol show hostnames printed no host");
	}
	*hosts = v;
	*n = count;
	return GC_OK;
}

/* Run scontrol with argv; its stdout in *out (owned by res). */
static gc_rc run_scontrol(char *const argv[], const char *what, gc_proc_result *res, gc_err *e)
{
	char how[64];
	gc_rc rc = gc_proc_run(argv, NULL, NULL, GC_SLURM_T_CMD, 0, res, e);

	if (rc == GC_E_NOTFOUND)
		return gc_fail(e, GC_E_NOTFOUND, "cannot run scontrol for %s: is slurm-client "
			       "installed? (apt-get install slurm-client)", what);
	if (!rc && res->status != 0) {
		gc_proc_describe(res, GC_SLURM_T_CMD, how, sizeof(how));
		res->err_tail[strcspn(res->err_tail, "\n")] = 0;
		rc = gc_fail(e, GC_E_CHILD, "scontrol for %s %s: %.200s", what, how,
			     res->err_tail[0] ? res->err_tail : "no message");
	}
	return rc;
}

gc_rc gc_slurm_expand_nodelist(const char *list, char ***hosts, int *n, gc_err *e)
{
	char *argv[] = { "scontrol", "show", "hostnames", (char *)list, NULL };
	gc_proc_result r;
	gc_rc rc;

	*hosts = NULL;
	*n = 0;
	if (!gc_slurm_valid_nodelist(list))
		return gc_fail(e, GC_E_INVAL, "'%.64s' is not a SLURM node list (n[1-4],gpu01)",
			       list ? list : "");
	memset(&r, 0, sizeof(r));
	rc = run_scontrol(argv, "the node list", &r, e);
	if (!rc)
		rc = gc_slurm_parse_hostnames(r.out, hosts, n, e);
	gc_proc_result_release(&r);
	return rc;
}

/* ---- the job's record ---- */

/* The length of the key when the word at p is Key=... (a letter, then letters, digits
 * and _ / : . up to '='), else 0. */
static size_t key_len(const char *p)
{
	size_t k = 0;

	if (!isalpha((unsigned char)p[0]))
		return 0;
	while (p[k] && (isalnum((unsigned char)p[k]) || strchr("_/:.", p[k])))
		k++;
	return p[k] == '=' && k <= 64 ? k : 0;
}

struct job_field {
	const char *key;
	char *dst;
	size_t n;
	int seen;
};

static gc_rc job_fields_check(gc_slurm_job *j, gc_err *e)
{
	if (!all_digits(j->job_id, 20))
		return gc_fail(e, GC_E_FORMAT, "the job record has no JobId=NUMBER");
	if (!j->oversubscribe[0] || !valid_name(j->oversubscribe, sizeof(j->oversubscribe) - 1))
		return gc_fail(e, GC_E_FORMAT, "the job record of job %s has no OverSubscribe=VALUE",
			       j->job_id);
	if (!strcmp(j->nodelist, "(null)") || !strcmp(j->nodelist, "None assigned"))
		j->nodelist[0] = 0;
	if (j->nodelist[0] && !gc_slurm_valid_nodelist(j->nodelist))
		return gc_fail(e, GC_E_FORMAT, "the NodeList of job %s is not a node list", j->job_id);
	if (j->partition[0] && !valid_name(j->partition, sizeof(j->partition) - 1))
		return gc_fail(e, GC_E_FORMAT, "the Partition of job %s is not a partition name",
			       j->job_id);
	if (j->state[0] && !valid_name(j->state, sizeof(j->state) - 1))
		return gc_fail(e, GC_E_FORMAT, "the JobState of job %s is not a state", j->job_id);
	j->exclusive = !strcmp(j->oversubscribe, "NO");
	return GC_OK;
}

/* the lower bound of NumNodes ("4" or "2-4") */
static int num_nodes_of(const char *v)
{
	char lo[16];
	uint64_t n;
	size_t k = strcspn(v, "-");

	if (k == 0 || k >= sizeof(lo))
		return -1;
	memcpy(lo, v, k);
	lo[k] = 0;
	if (gc_parse_u64(lo, &n) || n > GC_SLURM_MAX_HOSTS)
		return -1;
	if (v[k] && (!v[k + 1] || strspn(v + k + 1, "0123456789") != strlen(v + k + 1)))
		return -1;
	return (int)n;
}

/* store value [v, v+len) into the field of key, if it is one we keep */
static gc_rc job_store(struct job_field *f, size_t nf, const char *key, size_t klen,
		       const char *v, size_t len, gc_err *e)
{
	for (size_t i = 0; i < nf; i++) {
		if (strlen(f[i].key) != klen || strncmp(f[i].key, key, klen))
			continue;
		if (f[i].seen++)
			return gc_fail(e, GC_E_FORMAT, "the job record has %s twice", f[i].key);
		while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\t'))
			len--;   /* scontrol ends the line with a space */
		if (len >= f[i].n)
			return gc_fail(e, GC_E_FORMAT, "the %s of the job record is too long (%zu "
				       "bytes)", f[i].key, len);
		memcpy(f[i].dst, v, len);
		f[i].dst[len] = 0;
	}
	return GC_OK;
}

gc_rc gc_slurm_parse_job(const char *text, gc_slurm_job *j, gc_err *e)
{
	char nn[32] = "";
	struct job_field f[] = {
		{ "JobId", j->job_id, sizeof(j->job_id), 0 },
		{ "JobState", j->state, sizeof(j->state), 0 },
		{ "Partition", j->partition, sizeof(j->partition), 0 },
		{ "NodeList", j->nodelist, sizeof(j->nodelist), 0 },
		{ "NumNodes", nn, sizeof(nn), 0 },
		{ "OverSubscribe", j->oversubscribe, sizeof(j->oversubscribe), 0 },
	};
	const char *q, *end, *key, *val;
	size_t klen, k = 0;
	gc_rc rc;

	memset(j, 0, sizeof(*j));
	if (!text || !*text)
		return gc_fail(e, GC_E_FORMAT, "scontrol show job printed nothing");
	end = text + strcspn(text, "\n");
	if (*end && end[1 + strspn(end + 1, " \t\n")])
		return gc_fail(e, GC_E_FORMAT, "scontrol show job printed more than one record (a "
			       "heterogeneous job?): give one job");
	if (!(klen = key_len(text)))
		return gc_fail(e, GC_E_FORMAT, "scontrol show job printed no Key=Value record");
	key = text;
	val = key + klen + 1;
	/* a space followed by Key= ends a value; any other space is part of it */
	for (q = val; q <= end; q++) {
		if (q < end && (*q != ' ' || !(k = key_len(q + 1))))
			continue;
		if ((rc = job_store(f, sizeof(f) / sizeof(f[0]), key, klen, val, (size_t)(q - val), e)))
			return rc;
		if (q == end)
			break;
		key = q + 1;
		klen = k;
		val = key + klen + 1;
		q = val - 1;
	}
	if (nn[0] && (j->num_nodes = num_nodes_of(nn)) < 0)
		return gc_fail(e, GC_E_FORMAT, "the NumNodes of the job record is not a count");
	return job_fields_check(j, e);
}

gc_rc gc_slurm_job_info(const char *job_id, gc_slurm_job *j, gc_err *e)
{
	char *argv[] = { "scontrol", "show", "job", "-o", (char *)job_id, NULL };
	gc_proc_result r;
	gc_rc rc;

	memset(j, 0, sizeof(*j));
	if (!job_id || !all_digits(job_id, 20))
		return gc_fail(e, GC_E_INVAL, "'%.32s' is not a SLURM job id (a number)",
			       job_id ? job_id : "");
	memset(&r, 0, sizeof(r));
	rc = run_scontrol(argv, "the job record", &r, e);
	if (!rc)
		rc = gc_slurm_parse_job(r.out, j, e);
	if (!rc && strcmp(j->job_id, job_id))
		rc = gc_fail(e, GC_E_FORMAT, "scontrol show job %s described job %s", job_id,
			     j->job_id);
	gc_proc_result_release(&r);
	return rc;
}

gc_rc gc_slurm_require_exclusive(const gc_slurm_job *j, gc_err *e)
{
	if (j->exclusive)
		return GC_OK;
	return gc_fail(e, GC_E_PERM, "job %s shares its nodes with other jobs (OverSubscribe=%s): "
		       "a cap would shape their traffic too; ask for whole nodes with "
		       "'salloc --exclusive' or '#SBATCH --exclusive', or sweep without caps",
		       j->job_id, j->oversubscribe[0] ? j->oversubscribe : "unknown");
}

/* ---- the sbatch script ---- */

int gc_slurm_parse_count(const char *s, int min, int *out)
{
	char *end;
	long n;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || *end || n < min || n > GC_SLURM_MAX_HOSTS)
		return -1;
	*out = (int)n;
	return 0;
}

/* SLURM's feature expressions: a100&ib, [rack1|rack2], gpu*2, (a|b)&c */
static int valid_constraint(const char *c)
{
	size_t n = strlen(c);
	return n >= 1 && n <= 255 && strspn(c, NAME_CHARS "&|,[]()*") == n && c[0] != '-';
}

gc_rc gc_slurm_submit_options_check(const gc_slurm_submit *s, gc_err *e)
{
	if (s->nodes < 1 || s->nodes > GC_SLURM_MAX_HOSTS)
		return gc_fail(e, GC_E_INVAL, "--nodes %d: give 1 to %d", s->nodes, GC_SLURM_MAX_HOSTS);
	if (s->tasks_per_node < 0 || s->tasks_per_node > 1024)
		return gc_fail(e, GC_E_INVAL, "--ntasks-per-node %d: give 1 to 1024", s->tasks_per_node);
	if (s->gpus_per_node < 0 || s->gpus_per_node > 64)
		return gc_fail(e, GC_E_INVAL, "--gpus-per-node %d: give 0 to 64", s->gpus_per_node);
	if (s->job_name && !valid_name(s->job_name, 64))
		return gc_fail(e, GC_E_INVAL, "job name '%.64s': use 1-64 of [A-Za-z0-9._-]",
			       s->job_name);
	if (s->partition && !valid_name(s->partition, 127))
		return gc_fail(e, GC_E_INVAL, "partition '%.64s': use [A-Za-z0-9._-]", s->partition);
	if (s->time && !gc_slurm_valid_time(s->time))
		return gc_fail(e, GC_E_INVAL, "time limit '%.32s': use MM, HH:MM:SS or D-HH:MM:SS",
			       s->time);
	if (s->begin && !valid_begin(s->begin))
		return gc_fail(e, GC_E_INVAL, "begin time '%.64s': use SLURM's forms "
			       "(2026-12-05T02:00, now+1hour, tomorrow)", s->begin);
	if (s->account && !valid_name(s->account, 127))
		return gc_fail(e, GC_E_INVAL, "account '%.64s': use [A-Za-z0-9._-]", s->account);
	if (s->qos && !valid_name(s->qos, 127))
		return gc_fail(e, GC_E_INVAL, "qos '%.64s': use [A-Za-z0-9._-]", s->qos);
	if (s->reservation && !valid_name(s->reservation, 127))
		return gc_fail(e, GC_E_INVAL, "reservation '%.64s': use [A-Za-z0-9._-]",
			       s->reservation);
	if (s->constraint && !valid_constraint(s->constraint))
		return gc_fail(e, GC_E_INVAL, "constraint '%.64s': use features of [A-Za-z0-9._-] "
			       "joined by & | , with [ ] ( ) * and counts", s->constraint);
	if (s->output && !gc_is_safe_token(s->output))
		return gc_fail(e, GC_E_INVAL, "output file '%.64s': use a path of "
			       "[A-Za-z0-9._:@%%+=,/-]", s->output);
	if (s->chdir && (!gc_is_safe_token(s->chdir) || s->chdir[0] != '/'))
		return gc_fail(e, GC_E_INVAL, "working directory '%.64s': use an absolute path "
			       "of [A-Za-z0-9._:@%%+=,/-]", s->chdir);
	return GC_OK;
}

static gc_rc submit_check(const gc_slurm_submit *s, gc_err *e)
{
	gc_rc rc = gc_slurm_submit_options_check(s, e);

	if (rc)
		return rc;
	if (!s->command || !s->command[0] || !s->command[0][0])
		return gc_fail(e, GC_E_INVAL, "the job has no command");
	for (const char *const *v = s->extra; v && *v; v++)
		for (const char *c = *v; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				return gc_fail(e, GC_E_INVAL, "sbatch argument '%.32s' holds a control "
					       "character (a line break?); write it on one line", *v);
	for (const char *const *v = s->env; v && *v; v++) {
		size_t k = strcspn(*v, "=");
		if (!(*v)[k] || k == 0 || k > 64 || !(isalpha((unsigned char)**v) || **v == '_') ||
		    strspn(*v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != k)
			return gc_fail(e, GC_E_INVAL, "environment entry '%.32s': use NAME=value, "
				       "NAME of [A-Za-z0-9_]", *v);
	}
	return GC_OK;
}

/* append s shell-quoted */
static void add_quoted(gc_buf *b, const char *s)
{
	size_t n = strlen(s) * 4 + 3;
	char *q = malloc(n);

	if (!q || gc_shell_quote((q[0] = 0, q), n, s)) {
		b->oom = 1;   /* sticky: the caller sees GC_E_NOMEM */
	} else {
		gc_buf_puts(b, q);
	}
	free(q);
}

/* The batch host sees what the job needs, or the log says what it lacks (exit 2). */
static void add_checks(const gc_slurm_submit *s, gc_buf *b)
{
	static const char say[] = "{ echo \"gcbench: error: job ${SLURM_JOB_ID:-?} on "
		"$(hostname): ";

	if (!s->need && !s->write_dir)
		return;
	gc_buf_puts(b, "# what the job needs, at the same paths as where it was submitted\n");
	if (s->need) {
		gc_buf_puts(b, "for p in");
		for (const char *const *v = s->need; *v; v++) {
			gc_buf_putc(b, ' ');
			add_quoted(b, *v);
		}
		gc_buf_addf(b, "; do\n\t[ -r \"$p\" ] || %scannot read $p here; it must be on a "
			    "file system this node shares with the host that submitted the job, at "
			    "the same path\" >&2; exit 2; }\ndone\n", say);
	}
	if (s->write_dir) {
		gc_buf_puts(b, "d=");
		add_quoted(b, s->write_dir);
		gc_buf_addf(b, "\n[ -w \"$d\" ] || %scannot write the database's folder $d here; "
			    "put the database on a shared file system the job may write\" >&2; "
			    "exit 2; }\n", say);
	}
	gc_buf_addf(b, "command -v mpirun >/dev/null || %smpirun is not on the PATH of the "
		    "batch host; load its module or set PATH in the script\" >&2; exit 2; }\n",
		    say);
}

gc_rc gc_slurm_sbatch_script(const gc_slurm_submit *s, gc_buf *out, gc_err *e)
{
	gc_buf b = GC_BUF_INIT;
	gc_rc rc;

	if ((rc = submit_check(s, e)))
		return rc;
	gc_buf_addf(&b, "#!/bin/bash\n# A gcbench sweep as a SLURM batch job: submit it with "
		    "'sbatch FILE'. Every step\n# of the sweep runs inside this one allocation "
		    "(docs/slurm.md).\n");
	gc_buf_addf(&b, "#SBATCH --job-name=%s\n#SBATCH --nodes=%d\n#SBATCH --ntasks-per-node=%d\n",
		    s->job_name ? s->job_name : "gcbench", s->nodes,
		    s->tasks_per_node ? s->tasks_per_node : 1);
	if (s->partition)
		gc_buf_addf(&b, "#SBATCH --partition=%s\n", s->partition);
	if (s->time)
		gc_buf_addf(&b, "#SBATCH --time=%s\n", s->time);
	if (s->gpus_per_node)
		gc_buf_addf(&b, "#SBATCH --gpus-per-node=%d\n", s->gpus_per_node);
	if (s->begin)
		gc_buf_addf(&b, "#SBATCH --begin=%s\n", s->begin);
	if (s->account)
		gc_buf_addf(&b, "#SBATCH --account=%s\n", s->account);
	if (s->qos)
		gc_buf_addf(&b, "#SBATCH --qos=%s\n", s->qos);
	if (s->constraint)
		gc_buf_addf(&b, "#SBATCH --constraint=%s\n", s->constraint);
	if (s->reservation)
		gc_buf_addf(&b, "#SBATCH --reservation=%s\n", s->reservation);
	if (s->exclusive || s->caps)
		gc_buf_addf(&b, "#SBATCH --exclusive%s\n", s->caps ? "   # caps shape the "
			    "nodes' links: no other job may share them" : "");
	if (s->output)
		gc_buf_addf(&b, "#SBATCH --output=%s\n", s->output);
	if (s->chdir)
		gc_buf_addf(&b, "#SBATCH --chdir=%s\n", s->chdir);
	for (const char *const *v = s->extra; v && *v; v++) {
		gc_buf_puts(&b, v == s->extra ? "# sbatch's own arguments (on its command line):" : "");
		gc_buf_putc(&b, ' ');
		add_quoted(&b, *v);
		gc_buf_puts(&b, v[1] ? "" : "\n");
	}
	gc_buf_puts(&b, "\nset -eu\n");
	for (const char *const *v = s->extra; v && *v; v++)
		for (const char *c = *v; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				return gc_fail(e, GC_E_INVAL, "sbatch argument '%.32s' holds a control "
					       "character (a line break?); write it on one line", *v);
	for (const char *const *v = s->env; v && *v; v++) {
		size_t k = strcspn(*v, "=");
		gc_buf_addf(&b, "export %.*s=", (int)k, *v);
		add_quoted(&b, *v + k + 1);
		gc_buf_putc(&b, '\n');
	}
	add_checks(s, &b);
	gc_buf_puts(&b, "exec");
	for (const char *const *v = s->command; *v; v++) {
		gc_buf_putc(&b, ' ');
		add_quoted(&b, *v);
	}
	gc_buf_putc(&b, '\n');
	if ((rc = gc_buf_rc(&b))) {
		gc_buf_release(&b);
		return gc_fail(e, rc, "out of memory writing the sbatch script");
	}
	rc = gc_buf_add(out, b.p, b.len);
	gc_buf_release(&b);
	return rc ? gc_fail(e, rc, "out of memory writing the sbatch script") : GC_OK;
}

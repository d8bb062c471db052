#include "resume.h"

#include <stdio.h>
#include <string.h>

int gc_env_key(const char *tag, const char *const *names, const int64_t *env_ids, size_t n_nodes,
	       char *out, size_t n)
{
	size_t i, len;
	int w = snprintf(out, n, "tag=%s;", tag ? tag : "");

	if (w < 0 || (size_t)w >= n)
		return -1;
	len = (size_t)w;
	for (i = 0; i < n_nodes; i++) {
		w = snprintf(out + len, n - len, "%s%s=%lld", i ? "," : "", names[i],
			     (long long)env_ids[i]);
		if (w < 0 || (size_t)w >= n - len)
			return -1;
		len += (size_t)w;
	}
	return 0;
}

/* The tag part of an env key ("tag=T;..."), into out. */
static void key_tag(const char *key, char *out, size_t n)
{
	const char *semi = strchr(key, ';');
	size_t l;

	*out = 0;
	if (strncmp(key, "tag=", 4) || !semi)
		return;
	l = (size_t)(semi - key - 4);
	snprintf(out, n, "%.*s", (int)(l < n ? l : n - 1), key + 4);
}

static int same_env(const struct gc_db_sweep_brief *s, const char *env_key, const char *tag)
{
	char t[128];
	if (env_key)
		return *s->env_key && !strcmp(s->env_key, env_key);
	key_tag(s->env_key, t, sizeof(t));
	return *s->env_key && !strcmp(t, tag ? tag : "");
}

static int unfinished(const struct gc_db_sweep_brief *s)
{
	return strcmp(s->status, "done") != 0;
}

int gc_resume_choose(enum gc_resume_mode mode, const struct gc_db_sweep_brief *sw, size_t n,
		     const char *env_key, const char *tag, char *why, size_t whylen)
{
	const char *cond = env_key ? "" : " (if the nodes report the environments it ran on)";
	size_t i;

	if (mode == GC_RESUME_NEW) {
		snprintf(why, whylen, "new sweep (--new)");
		return -1;
	}
	if (mode == GC_RESUME_FORCE) {
		for (i = 0; i < n && !unfinished(&sw[i]); i++)
			;
		if (i == n) {
			snprintf(why, whylen, "--resume: no unfinished sweep of this spec to continue "
				 "(%zu finished); run without --resume to start a new one", n);
			return -2;
		}
		snprintf(why, whylen, "continuing sweep %lld (%s, %d points ok; --resume%s)",
			 (long long)sw[i].id, sw[i].status, sw[i].n_ok,
			 same_env(&sw[i], env_key, tag) ? "" : ", although the environments differ");
		return (int)i;
	}
	/* the newest sweep on the same environments decides */
	for (i = 0; i < n && !same_env(&sw[i], env_key, tag); i++)
		;
	if (i == n) {
		if (n)
			snprintf(why, whylen, "new sweep: none of the %zu earlier sweeps of this spec ran "
				 "on these environments (newest: sweep %lld, %s)", n,
				 (long long)sw[0].id, *sw[0].env_key ? sw[0].env_key : "not recorded");
		else
			snprintf(why, whylen, "new sweep: no earlier sweep of this spec");
		return -1;
	}
	if (!unfinished(&sw[i])) {
		snprintf(why, whylen, "new sweep: sweep %lld of this spec on these environments "
			 "finished; every point is measured again", (long long)sw[i].id);
		return -1;
	}
	snprintf(why, whylen, "continuing sweep %lld (%s, %d points ok): same spec, same "
		 "environments%s", (long long)sw[i].id, sw[i].status, sw[i].n_ok, cond);
	return (int)i;
}

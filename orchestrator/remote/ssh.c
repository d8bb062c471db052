#include "ssh.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"

#define SSH_MAX_ARGS 40

static gc_rc push(char **v, int *n, const char *s)
{
	if (*n >= SSH_MAX_ARGS - 1)
		return GC_E_INVAL;
	v[*n] = strdup(s);
	if (!v[*n])
		return GC_E_NOMEM;
	(*n)++;
	v[*n] = NULL;
	return GC_OK;
}

/* "-o" "key=val" */
static gc_rc push_opt(char **v, int *n, const char *key, const char *val)
{
	char buf[2304];
	gc_rc rc = push(v, n, "-o");
	if (rc)
		return rc;
	snprintf(buf, sizeof(buf), "%s=%s", key, val);
	return push(v, n, buf);
}

static gc_rc check_target(const gc_ssh_target *t, gc_err *e)
{
	const char *vals[] = { t->address, t->user, t->identity, t->ssh_config, t->control_dir,
			       t->name, t->hostname };
	const char *what[] = { "address", "user", "identity", "ssh_config", "control_dir", "name",
			       "HostName" };
	size_t i;

	if (!t->address)
		return gc_fail(e, GC_E_INVAL, "ssh target has no address");
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (vals[i] && !gc_is_safe_token(vals[i]))
			return gc_fail(e, GC_E_INVAL,
				       "refusing ssh %s '%s': only letters, digits and ._:@%%+=,/- are allowed, and it must not start with '-'",
				       what[i], vals[i]);
	if (t->port < 0 || t->port > 65535)
		return gc_fail(e, GC_E_INVAL, "ssh port %d is out of range 1..65535", t->port);
	return GC_OK;
}

/* The remote command: each argument single-quoted, joined by spaces. */
static gc_rc remote_command(char *const remote_argv[], char **out, gc_err *e)
{
	size_t cap = 64, i;
	char *s;

	for (i = 0; remote_argv[i]; i++)
		cap += 4 * strlen(remote_argv[i]) + 3;
	s = calloc(1, cap);
	if (!s)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	for (i = 0; remote_argv[i]; i++) {
		if (i)
			strcat(s, " ");
		if (gc_shell_quote(s, cap, remote_argv[i])) {
			free(s);
			return gc_fail(e, GC_E_INVAL, "remote command too long");
		}
	}
	*out = s;
	return GC_OK;
}

static gc_rc add_options(const gc_ssh_target *t, char **v, int *n)
{
	char buf[64];
	gc_rc rc = GC_OK;

	if (t->ssh_config)
		rc = rc ? rc : push(v, n, "-F"), rc = rc ? rc : push(v, n, t->ssh_config);
	if (t->hostname)
		rc = rc ? rc : push_opt(v, n, "HostName", t->hostname);
	rc = rc ? rc : push_opt(v, n, "BatchMode", "yes");
	rc = rc ? rc : push_opt(v, n, "StrictHostKeyChecking", t->insecure_host_keys ? "accept-new" : "yes");
	snprintf(buf, sizeof(buf), "%d", t->connect_timeout > 0 ? (int)t->connect_timeout : 10);
	rc = rc ? rc : push_opt(v, n, "ConnectTimeout", buf);
	rc = rc ? rc : push_opt(v, n, "ServerAliveInterval", "5");
	rc = rc ? rc : push_opt(v, n, "ServerAliveCountMax", "3");
	if (t->control_dir) {
		char cpath[1100];
		snprintf(cpath, sizeof(cpath), "%s/cm-%%C", t->control_dir);
		rc = rc ? rc : push_opt(v, n, "ControlMaster", "auto");
		rc = rc ? rc : push_opt(v, n, "ControlPath", cpath);
		rc = rc ? rc : push_opt(v, n, "ControlPersist", "60");
	}
	if (t->identity) {
		rc = rc ? rc : push(v, n, "-i");
		rc = rc ? rc : push(v, n, t->identity);
		rc = rc ? rc : push_opt(v, n, "IdentitiesOnly", "yes");
	}
	if (t->user)
		rc = rc ? rc : push(v, n, "-l"), rc = rc ? rc : push(v, n, t->user);
	if (t->port) {
		snprintf(buf, sizeof(buf), "%d", t->port);
		rc = rc ? rc : push(v, n, "-p");
		rc = rc ? rc : push(v, n, buf);
	}
	return rc;
}

gc_rc gc_ssh_argv(const gc_ssh_target *t, char *const remote_argv[], char ***out, gc_err *e)
{
	char **v = calloc(SSH_MAX_ARGS, sizeof(char *));
	char *cmd = NULL;
	int n = 0;
	gc_rc rc;

	*out = NULL;
	if (!v)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	rc = check_target(t, e);
	if (rc)
		goto fail;
	rc = push(v, &n, "ssh");
	rc = rc ? rc : add_options(t, v, &n);
	rc = rc ? rc : push(v, &n, t->address);
	if (!rc && remote_argv && remote_argv[0]) {
		rc = remote_command(remote_argv, &cmd, e);
		rc = rc ? rc : push(v, &n, "--");
		rc = rc ? rc : push(v, &n, cmd);
	}
	free(cmd);
	if (rc) {
		gc_fail(e, rc, "cannot build the ssh command for '%s'", t->address);
		goto fail;
	}
	*out = v;
	return GC_OK;
fail:
	gc_argv_free(v);
	return rc;
}

gc_rc gc_ssh_run(const gc_ssh_target *t, char *const remote_argv[], const char *stdin_data,
		 double timeout_s, gc_proc_result *res, gc_err *e)
{
	char **argv;
	gc_rc rc = gc_ssh_argv(t, remote_argv, &argv, e);

	if (rc) {
		memset(res, 0, sizeof(*res));
		return rc;
	}
	rc = gc_proc_run(argv, NULL, stdin_data, timeout_s, 0, res, e);
	gc_argv_free(argv);
	return rc;
}

void gc_ssh_close(const gc_ssh_target *t)
{
	char **argv;
	gc_proc_result res;
	gc_err e;
	int n = 0;

	if (!t->control_dir || gc_ssh_argv(t, NULL, &argv, &e))
		return;
	while (argv[n])
		n++;
	/* insert "-O exit" before the address */
	argv = realloc(argv, (size_t)(n + 3) * sizeof(char *));
	if (!argv)
		return;
	argv[n + 2] = NULL;
	argv[n + 1] = argv[n - 1];
	argv[n - 1] = strdup("-O");
	argv[n] = strdup("exit");
	gc_proc_run(argv, NULL, NULL, 5, 0, &res, &e);
	gc_proc_result_release(&res);
	gc_argv_free(argv);
}

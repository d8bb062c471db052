/* orchestrator/remote/ssh.h: commands on remote nodes through the system OpenSSH client.
 *
 * The system client is used so that ~/.ssh/config, agents, jump hosts and
 * ControlMaster multiplexing work. Every connection uses BatchMode=yes (never a
 * password prompt), strict host-key checking unless the target says otherwise, a
 * connect timeout, and a ControlMaster socket per host so repeated commands reuse one
 * connection. Every value is checked with gc_is_safe_token() before it is put on the
 * ssh command line, and every remote argument is shell-quoted: the remote side sees
 * exactly the argv given, whatever it contains.
 */
#ifndef GC_SSH_H
#define GC_SSH_H

#include "proc.h"
#include "result.h"

typedef struct gc_ssh_target {
	const char *name;          /* host alias (used with ssh_config) or NULL */
	const char *address;       /* address or host name to connect to (with ssh_config:
	                            * the alias its Host blocks match) */
	const char *hostname;      /* -o HostName= (overrides the ssh_config's) or NULL */
	const char *user;          /* NULL: ssh's default */
	int port;                  /* 0: ssh's default */
	const char *identity;      /* key file or NULL */
	const char *ssh_config;    /* -F file or NULL */
	const char *control_dir;   /* directory for ControlMaster sockets or NULL (none) */
	double connect_timeout;    /* seconds; 0: 10 */
	int insecure_host_keys;    /* 1: StrictHostKeyChecking=accept-new (never 'no') */
} gc_ssh_target;

/* Build the argv of `ssh ... -- <quoted remote command>` into *out (NULL-terminated;
 * free with gc_argv_free of common/proc.h). Fails with GC_E_INVAL naming the unsafe value. */
gc_rc gc_ssh_argv(const gc_ssh_target *t, char *const remote_argv[], char ***out, gc_err *e);

/* Run remote_argv on t with a deadline (see gc_proc_run). GC_OK means ssh ran: the
 * remote status is res->status; ssh's own failure to connect is status 255. */
gc_rc gc_ssh_run(const gc_ssh_target *t, char *const remote_argv[], const char *stdin_data,
		 double timeout_s, gc_proc_result *res, gc_err *e);

/* Close the ControlMaster connection of t, if any (ssh -O exit). */
void gc_ssh_close(const gc_ssh_target *t);

#endif

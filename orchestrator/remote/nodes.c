#include "nodes.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netem/protocol.h"
#include "strutil.h"

void gc_node_target(const gc_node *n, gc_ssh_target *t)
{
	memset(t, 0, sizeof(*t));
	t->name = n->name;
	/* with an ssh_config the alias picks its Host block; the address and port override */
	t->address = *n->ssh_config ? n->name : n->address;
	t->hostname = *n->ssh_config && strcmp(n->address, n->name) ? n->address : NULL;
	t->user = *n->user ? n->user : NULL;
	t->port = n->port;
	t->identity = *n->identity ? n->identity : NULL;
	t->ssh_config = *n->ssh_config ? n->ssh_config : NULL;
	t->control_dir = *n->control_dir ? n->control_dir : NULL;
	t->connect_timeout = n->connect_timeout > 0 ? n->connect_timeout : 10;
}

void gc_node_describe(const gc_node *n, char *buf, size_t len)
{
	gc_ssh_target t;
	char port[16] = "";

	if (n->launcher == GC_LAUNCHER_SLURM) {
		snprintf(buf, len, "srun step, shapes %s", *n->iface ? n->iface : "?");
		return;
	}
	gc_node_target(n, &t);
	if (t.port)
		snprintf(port, sizeof(port), ":%d", t.port);
	if (!t.ssh_config)
		snprintf(buf, len, "ssh %s%s%s%s", t.user ? t.user : "", t.user ? "@" : "",
			 t.address, port);
	else if (t.hostname)
		snprintf(buf, len, "ssh %s%s%s%s (Host %s of %s%s)", t.user ? t.user : "",
			 t.user ? "@" : "", t.hostname, port, n->name, t.ssh_config,
			 t.port ? "" : ", its Port");
	else
		snprintf(buf, len, "ssh %s%s%s%s (HostName%s from %s)", t.user ? t.user : "",
			 t.user ? "@" : "", n->name, port, t.port ? "" : " and Port", t.ssh_config);
}

static void last_line(const char *s, char *out, size_t n)
{
	size_t len = strlen(s);
	const char *p;

	while (len && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	p = s + len;
	while (p > s && p[-1] != '\n')
		p--;
	snprintf(out, n, "%.*s", (int)(s + len - p), p);
}

gc_rc gc_node_argv(const gc_node *n, char *const argv[], char ***out, gc_err *e)
{
	gc_ssh_target t;

	if (n->launcher == GC_LAUNCHER_SLURM)
		return gc_backend_slurm_step_argv(n->name, argv, out, e);
	gc_node_target(n, &t);
	return gc_ssh_argv(&t, argv, out, e);
}

/* gc_node_exec through a step of the allocation */
static gc_rc exec_step(gc_node *n, char *const argv[], double timeout_s, gc_proc_result *res,
		       gc_err *e)
{
	char how[128], tail[400], **sv;
	gc_rc rc = gc_backend_slurm_step_argv(n->name, argv, &sv, e);

	if (rc) {
		memset(res, 0, sizeof(*res));
		return rc;
	}
	rc = gc_proc_run(sv, NULL, NULL, timeout_s, 0, res, e);
	gc_argv_free(sv);
	if (rc == GC_E_INTERRUPTED || (!rc && res->status == 0))
		return rc;
	if (rc == GC_E_TIMEOUT)
		n->down = 1;
	if (!rc && gc_backend_slurm_step_failed(res->err_tail, tail, sizeof(tail))) {
		n->down = 1;
		return gc_fail(e, GC_E_COMM, "cannot start a step on node '%s' with srun: %s",
			       n->name, tail);
	}
	gc_proc_describe(res, timeout_s, how, sizeof(how));
	gc_backend_slurm_last_line(res->err_tail, tail, sizeof(tail));
	return gc_fail(e, rc ? rc : GC_E_CHILD, "'%s' on node '%s' %s%s%s", argv[0], n->name, how,
		       *tail ? ": " : "", tail);
}

gc_rc gc_node_exec(gc_node *n, char *const argv[], double timeout_s, gc_proc_result *res,
		   gc_err *e)
{
	gc_ssh_target t;
	char how[128], tail[400];
	gc_rc rc;

	if (n->down) {
		memset(res, 0, sizeof(*res));
		return gc_fail(e, GC_E_COMM, "node '%s' (%s) is unreachable (an earlier command failed); skipped '%s'",
			       n->name, n->address, argv[0]);
	}
	if (n->launcher == GC_LAUNCHER_SLURM)
		return exec_step(n, argv, timeout_s, res, e);
	gc_node_target(n, &t);
	rc = gc_ssh_run(&t, argv, NULL, timeout_s, res, e);
	if (rc == GC_E_INVAL || rc == GC_E_INTERRUPTED)
		return rc;
	if (!rc && res->status == 0)
		return GC_OK;
	gc_proc_describe(res, timeout_s, how, sizeof(how));
	last_line(res->err_tail, tail, sizeof(tail));
	if (rc == GC_E_TIMEOUT)
		n->down = 1;
	if (!rc && res->status == 255) {
		n->down = 1;
		return gc_fail(e, GC_E_COMM, "cannot reach node '%s' (%s) over ssh: %s", n->name,
			       n->address, *tail ? tail : "ssh failed");
	}
	return gc_fail(e, rc ? rc : GC_E_CHILD, "'%s' on node '%s' %s%s%s", argv[0], n->name, how,
		       *tail ? ": " : "", tail);
}

static void bin(const gc_node *n, const char *prog, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", n->bin_dir, prog);
}

/* sudo's own reason among the netem= lines, past its warnings ("unable to resolve host") */
static void sudo_reason(const char *out, char *msg, size_t n)
{
	const char *p = out;

	msg[0] = 0;
	if (strstr(out, "password is required")) {
		gc_strlcpy(msg, "password is required", n);
		return;
	}
	while ((p = strstr(p, "netem=")) && (p == out || p[-1] == '\n')) {
		p += 6;
		if (strncmp(p, "sudo: unable to resolve", 23) && strncmp(p, "uid=", 4)) {
			snprintf(msg, n, "%.*s", (int)strcspn(p, "\n"), p);
			return;
		}
	}
}

/* Why the user on n may not shape, from the check script's output, into e. */
static gc_rc perm_error(gc_node *n, const char *out, const char *netem_path, gc_err *e)
{
	char user[64], sha[80], msg[300], pkg[16], proto[16], pkgnote[160] = "";

	gc_kv_line(out, "user", user, sizeof(user));
	gc_kv_line(out, "sha", sha, sizeof(sha));
	sudo_reason(out, msg, sizeof(msg));
	/* what the node printed goes into a message: only plain values */
	if (!gc_is_safe_token(user))
		gc_strlcpy(user, *n->user ? n->user : "USER", sizeof(user));
	if (strlen(sha) != 64 || strspn(sha, "0123456789abcdef") != 64)
		gc_strlcpy(sha, "DIGEST", sizeof(sha));
	gc_kv_line(out, "pkg", pkg, sizeof(pkg));
	gc_kv_line(out, "pkg_protocol", proto, sizeof(proto));
	if (!strcmp(pkg, "noexec"))   /* the package is there: its group is the fix */
		return gc_fail(e, GC_E_PERM,
			       "user '%s' on node '%s' cannot run " GC_NETEM_INSTALLED_PATH " "
			       "(installed by the gcbench package): the user is not in the group "
			       "'gcbench' there; an admin adds it once with: usermod -aG gcbench %s "
			       "(it counts from the next login); nothing was changed",
			       user, n->name, user);
	if (!strcmp(pkg, "nocap"))    /* in the group, but the helper may not shape */
		return gc_fail(e, GC_E_PERM,
			       "user '%s' on node '%s' runs " GC_NETEM_INSTALLED_PATH " but it "
			       "may not shape there: it lacks the cap_net_admin file capability "
			       "(an admin installs libcap2-bin and reinstalls the gcbench package, "
			       "or runs: setcap cap_net_admin+ep " GC_NETEM_INSTALLED_PATH ") and "
			       "'sudo -n' refuses it; nothing was changed", user, n->name);
	if (!strcmp(pkg, "protocol"))
		snprintf(pkgnote, sizeof(pkgnote), "; the helper the gcbench package installed "
			 "there speaks protocol %s, this gcbench %d: upgrade the package there",
			 gc_is_safe_token(proto) && *proto ? proto : "?", GC_NETEM_PROTOCOL);
	if (!n->sudo)
		return gc_fail(e, GC_E_PERM,
			       "user '%s' on node '%s' cannot shape '%s': operation not permitted "
			       "(need root or CAP_NET_ADMIN: install the gcbench package there "
			       "(make deb) and add the user to its group, set 'sudo: true' for "
			       "the host in the inventory, or give the binary the file "
			       "capability: setcap cap_net_admin+ep %s)%s", user, n->name, n->iface,
			       netem_path, pkgnote);
	if (strstr(out, "nosudo=1"))
		return gc_fail(e, GC_E_PERM,
			       "the inventory says 'sudo: true' for node '%s', but sudo is not "
			       "installed there: apt-get install sudo", n->name);
	return gc_fail(e, GC_E_PERM,
		       "user '%s' on node '%s' cannot run gcbench-netem through 'sudo -n' (%s); "
		       "nothing was changed. Add this line on '%s' (visudo -f "
		       "/etc/sudoers.d/gcbench):\n    %s ALL=(root) NOPASSWD: sha256:%s %s\n"
		       "(it names this build: the gcbench package's helper needs no new line "
		       "per build; install it there and add the user to its group)%s",
		       user, n->name,
		       strstr(msg, "password is required") ? "sudo would ask for a password" :
		       *msg ? msg : "sudo refused", n->name, user, sha, netem_path, pkgnote);
}

gc_rc gc_node_check(gc_node *n, gc_err *e)
{
	/* $1 netem, $2 worker, $3 gcbench, $4 probe, $5 "sudo" or "", $6 the installed
	 * helper, $7 its protocol. pkg=cap|sudo: use $6; noexec: not in its group;
	 * nocap: runs but may not shape; protocol: another protocol (pkg_protocol says
	 * which). */
	static const char script[] =
		"for p in \"$1\" \"$2\" \"$3\" \"$4\"; do test -x \"$p\" || { echo \"missing $p\" >&2; exit 3; }; done; "
		"\"$3\" --help >/dev/null 2>&1 || { echo \"$3 does not run (missing libraries? run make deps there)\" >&2; exit 4; }; "
		"echo user=$(id -un); "
		"echo cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control 2>/dev/null); "
		"echo sha=$(sha256sum \"$1\" 2>/dev/null | cut -d' ' -f1); "
		"pkg=; if [ \"$(id -u)\" != 0 ] && [ -e \"$6\" ]; then "
		"if [ ! -x \"$6\" ]; then pkg=noexec; "
		"else v=$(\"$6\" version --json 2>/dev/null </dev/null | sed -n 's/.*\"protocol\": *\\([0-9]*\\).*/\\1/p' | head -c 8); "
		"echo pkg_protocol=$v; "
		"if [ \"$v\" != \"$7\" ]; then pkg=protocol; "
		"elif \"$6\" check >/dev/null 2>&1 </dev/null; then pkg=cap; "
		"elif command -v sudo >/dev/null 2>&1 && sudo -n -- \"$6\" check >/dev/null 2>&1 </dev/null; then pkg=sudo; "
		"else pkg=nocap; fi; fi; echo pkg=$pkg; fi; "
		"if [ \"$pkg\" = cap ] || [ \"$pkg\" = sudo ]; then echo netem_rc=0; echo netem=cap_net_admin=1; exit 0; fi; "
		"if [ \"$5\" = sudo ]; then "
		"command -v sudo >/dev/null 2>&1 || { echo nosudo=1; exit 0; }; "
		"o=$(sudo -n -- \"$1\" check 2>&1 </dev/null); r=$?; "
		"else o=$(\"$1\" check 2>&1); r=$?; fi; "
		"echo netem_rc=$r; printf '%s\\n' \"$o\" | tr -cd '[:print:]\\n' | head -c 300 | sed 's/^/netem=/'";
	char w[1100], nm[1100], g[1100], pr[1100], sudo[8], proto[16], pkg[16];
	char *argv[] = { "sh", "-c", (char *)script, "sh", nm, w, g, pr, sudo,
			 GC_NETEM_INSTALLED_PATH, proto, NULL };
	gc_proc_result res;
	char rcs[16];
	gc_rc rc;

	snprintf(proto, sizeof(proto), "%d", GC_NETEM_PROTOCOL);
	n->netem_path[0] = 0;
	n->netem_sudo = 0;
	bin(n, "gcbench-netem", nm, sizeof(nm));
	bin(n, "gcbench-worker", w, sizeof(w));
	bin(n, "gcbench", g, sizeof(g));
	bin(n, "gcbench-probe", pr, sizeof(pr));
	gc_strlcpy(sudo, n->sudo ? "sudo" : "", sizeof(sudo));
	rc = gc_node_exec(n, argv, 30, &res, e);
	if (!rc) {
		gc_kv_line(res.out, "netem_rc", rcs, sizeof(rcs));
		gc_kv_line(res.out, "pkg", pkg, sizeof(pkg));
		if (!strcmp(pkg, "cap") || !strcmp(pkg, "sudo")) {
			gc_strlcpy(n->netem_path, GC_NETEM_INSTALLED_PATH, sizeof(n->netem_path));
			n->netem_sudo = !strcmp(pkg, "sudo");
		}
		if (strcmp(rcs, "0") || !strstr(res.out, "cap_net_admin=1"))
			rc = perm_error(n, res.out, nm, e);
		gc_kv_line(res.out, "cc", n->tcp_cc, sizeof(n->tcp_cc));
	}
	gc_proc_result_release(&res);
	return rc;
}

/* gcbench-netem ARGS on the node (through sudo -n with n->sudo); res is released by
 * the caller. */
static gc_rc netem_res(gc_node *n, char *const args[], gc_proc_result *res, gc_err *e)
{
	char prog[1100];
	char *argv[20] = { "sudo", "-n", "--" };   /* without sudo, prog goes first */
	size_t i, k = (n->netem_path[0] ? n->netem_sudo : n->sudo) ? 3 : 0;

	if (n->netem_path[0])      /* the package's helper (gc_node_check) */
		gc_strlcpy(prog, n->netem_path, sizeof(prog));
	else
		bin(n, "gcbench-netem", prog, sizeof(prog));
	argv[k] = prog;
	for (i = 0; args[i] && i < 14; i++)
		argv[k + i + 1] = args[i];
	argv[k + i + 1] = NULL;
	return gc_node_exec(n, argv, 15, res, e);
}

static gc_rc netem(gc_node *n, char *const args[], gc_err *e)
{
	gc_proc_result res;
	gc_rc rc = netem_res(n, args, &res, e);

	gc_proc_result_release(&res);
	return rc;
}

/* The "delay_us" of gcbench-netem's `set --json` line (0 when it holds no netem);
 * -1 when the line is not there. */
static long long json_delay_us(const char *out)
{
	const char *netem = out ? strstr(out, "\"netem\":") : NULL;
	const char *d = out ? strstr(out, "\"delay_us\":") : NULL;
	char *end;
	long long v;

	if (!netem || !d)
		return -1;
	if (!strncmp(netem + 8, "false", 5))
		return 0;
	v = strtoll(d + 11, &end, 10);
	return end == d + 11 || v < 0 ? -1 : v;
}

gc_rc gc_node_shape(gc_node *n, uint64_t rate_bps, uint32_t delay_us, uint32_t *applied_us,
		    gc_err *e)
{
	char rate[64], delay[32];
	char *args[12] = { "set", "--dev", (char *)n->iface };
	gc_proc_result res;
	long long got;
	size_t k = 3;
	gc_rc rc;

	if (applied_us)
		*applied_us = 0;
	if (!rate_bps && !delay_us)
		return gc_node_unshape(n, e);
	snprintf(rate, sizeof(rate), "%llubit", (unsigned long long)rate_bps);
	snprintf(delay, sizeof(delay), "%uus", delay_us);
	if (rate_bps) {
		args[k++] = "--rate";
		args[k++] = rate;
	}
	if (delay_us) {             /* with no delay, the same command as rate-only shaping */
		args[k++] = "--delay";
		args[k++] = delay;
	}
	args[k++] = "--json";       /* only changes what set prints: the read-back */
	args[k] = NULL;
	rc = netem_res(n, args, &res, e);
	got = rc ? 0 : json_delay_us(res.out);
	gc_proc_result_release(&res);
	if (rc)
		return rc;
	/* gcbench-netem verified it within 1 us; a read-back missing or far off is a bug */
	if (got < 0 || got + 1 < (long long)delay_us || got > (long long)delay_us + 1)
		return gc_fail(e, GC_E_MISMATCH, "node '%s': gcbench-netem set a delay of %u us on "
			       "'%s' but reads back %lld us; the link is restored after the point",
			       n->name, delay_us, n->iface, got);
	if (applied_us)
		*applied_us = (uint32_t)got;
	return GC_OK;
}

gc_rc gc_node_classes(gc_node *n, uint64_t rate_bps, const char *dests, uint64_t class_bps,
		      gc_err *e)
{
	char rate[64], *cls;
	size_t len = strlen(dests) + 64;
	gc_rc rc;

	if (!(cls = malloc(len)))
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	snprintf(rate, sizeof(rate), "%llubit", (unsigned long long)rate_bps);
	snprintf(cls, len, "%s=%llubit", dests, (unsigned long long)class_bps);
	{
		char *args[] = { "classes", "--dev", (char *)n->iface, "--rate", rate, "--class",
				 cls, NULL };
		rc = netem(n, args, e);
	}
	free(cls);
	return rc;
}

gc_rc gc_node_shares(gc_node *n, uint64_t rate_bps, uint16_t port_lo, uint16_t port_hi,
		     uint64_t bg_bps, gc_err *e)
{
	char rate[64], ranks[96], bg[96];
	char *args[] = { "shares", "--dev", (char *)n->iface, "--rate", rate, "--leaf", ranks,
			 "--leaf", bg, NULL };

	if (!bg_bps || bg_bps >= rate_bps || !port_lo || port_hi < port_lo)
		return gc_fail(e, GC_E_INVAL, "node '%s': background flows' class of %llu bit/s "
			       "under a cap of %llu bit/s on ports %u-%u is not a share; this is "
			       "a bug", n->name, (unsigned long long)bg_bps,
			       (unsigned long long)rate_bps, port_lo, port_hi);
	snprintf(rate, sizeof(rate), "%llubit", (unsigned long long)rate_bps);
	snprintf(ranks, sizeof(ranks), "default=%llubit", (unsigned long long)(rate_bps - bg_bps));
	snprintf(bg, sizeof(bg), "port:%u-%u=%llubit", port_lo, port_hi, (unsigned long long)bg_bps);
	return netem(n, args, e);
}

/* The reason gcbench-netem gave on the node: its last stderr line without the
 * "gcbench-netem: error: " prefix and the "the kernel has no netem qdisc (...): " that
 * the caller says itself. */
static void netem_reason(const char *err_tail, char *out, size_t n)
{
	static const char *const skip[] = { "gcbench-netem: error: ",
		"the kernel has no netem qdisc (module sch_netem): " };
	const char *p;
	size_t i;

	last_line(err_tail, out, n);
	p = out;
	for (i = 0; i < 2; i++)
		if (!strncmp(p, skip[i], strlen(skip[i])))
			p += strlen(skip[i]);
	memmove(out, p, strlen(p) + 1);
	if ((p = strstr(out, "; load it with")))   /* the caller says what to do */
		out[p - out] = 0;
	for (char *c = out; *c; c++)      /* what the node printed: printable only */
		if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e)
			*c = '?';
}

gc_rc gc_node_check_netem(gc_node *n, gc_err *e)
{
	char *args[] = { "check", "--netem", NULL };
	char why[300];
	gc_proc_result res;
	gc_err ne = { "" };
	gc_rc rc = netem_res(n, args, &res, &ne);
	int absent = rc && res.out && strstr(res.out, "netem=0");

	netem_reason(res.err_tail, why, sizeof(why));
	gc_proc_result_release(&res);
	if (!rc)
		return GC_OK;
	if (absent)
		return gc_fail(e, GC_E_UNSUPPORTED, "node '%s' (%s) has no netem qdisc (kernel "
			       "module sch_netem): %s", n->name, n->address, why);
	return gc_fail(e, rc, "node '%s' (%s): cannot tell whether the kernel has netem "
		       "(module sch_netem): %s", n->name, n->address, ne.msg);
}

gc_rc gc_node_unshape(gc_node *n, gc_err *e)
{
	char *args[] = { "clear", "--dev", (char *)n->iface, NULL };
	return netem(n, args, e);
}

gc_rc gc_node_restore_all(gc_node *n, gc_err *e)
{
	char *args[] = { "restore-all", NULL };
	return netem(n, args, e);
}

gc_rc gc_node_env(gc_node *n, const char *tag, struct gc_envinfo *out, gc_err *e)
{
	char prog[1100];
	char *argv[] = { prog, "env", "--json", NULL };
	gc_proc_result res;
	gc_err pe;
	gc_rc rc;

	memset(out, 0, sizeof(*out));
	bin(n, "gcbench", prog, sizeof(prog));
	rc = gc_node_exec(n, argv, 30, &res, e);
	if (!rc && (rc = gc_envinfo_parse_json(res.out ? res.out : "", res.out ? res.out_len : 0, out, &pe)))
		gc_fail(e, rc, "cannot read the environment of node '%s' ('%s env --json' there): %s",
			n->name, prog, pe.msg);
	if (!rc && tag)
		gc_strlcpy(out->tag, tag, sizeof(out->tag));
	gc_proc_result_release(&res);
	return rc;
}

/* One probe connection: a server on b (in a child process, over ssh) and the client
 * on a; returns the client's key=value line in out. */
static gc_rc probe_round(gc_node *a, gc_node *b, char *const client_tail[],
			 double timeout_s, char *out, size_t outlen, gc_err *e)
{
	char sprog[1100], cprog[1100];
	char *server[] = { sprog, "server", "--bind", (char *)b->address, "--port", "5301", "--once", NULL };
	char *client[12] = { cprog, "client", "--connect", (char *)b->address, "--port", "5301" };
	gc_proc_result r;
	int i, st, tries;
	pid_t pid;
	gc_rc rc = GC_OK;

	bin(b, "gcbench-probe", sprog, sizeof(sprog));
	bin(a, "gcbench-probe", cprog, sizeof(cprog));
	for (i = 0; client_tail[i] && i < 5; i++)
		client[6 + i] = client_tail[i];
	client[6 + i] = NULL;
	pid = fork();
	if (pid < 0)
		return gc_fail(e, GC_E_IO, "cannot fork the probe server");
	if (pid == 0) {
		gc_err ce;
		gc_rc crc = gc_node_exec(b, server, timeout_s + 10, &r, &ce);
		_exit(crc ? 1 : 0);
	}
	/* the server needs one ssh round trip to listen: ask early, retry on 'refused'
	 * every 50 ms for 3 s (a fixed 150 ms wait cost 0.3 s per point) */
	for (tries = 0; tries < 60; tries++) {
		usleep(tries ? 50000 : 30000);
		rc = gc_node_exec(a, client, timeout_s + 10, &r, e);
		if (!rc)
			snprintf(out, outlen, "%s", r.out);
		gc_proc_result_release(&r);
		if (!rc || !strstr(e->msg, "refused"))
			break;
	}
	if (rc)
		kill(pid, SIGTERM);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return rc;
}

gc_rc gc_node_probe(gc_node *a, gc_node *b, double seconds, double *goodput_bps,
		    double *rtt_s, gc_err *e)
{
	char secs[32], line[512] = "";
	char *g[] = { "--time", secs, NULL };
	char *r[] = { "--rtt", "20", NULL };
	const char *p;
	gc_rc rc;

	*goodput_bps = -1;
	*rtt_s = -1;
	snprintf(secs, sizeof(secs), "%.3f", seconds);
	rc = probe_round(a, b, g, seconds, line, sizeof(line), e);
	if (rc)
		return rc;
	p = strstr(line, "goodput_bps=");
	if (p)
		*goodput_bps = strtod(p + 12, NULL);
	rc = probe_round(a, b, r, 5, line, sizeof(line), e);
	if (rc)
		return rc;
	p = strstr(line, "rtt_s=");
	if (p)
		*rtt_s = strtod(p + 6, NULL);
	return GC_OK;
}

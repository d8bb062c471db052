#include "launch.h"
#include "orchestrator/spec/envvars.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "orchestrator/spec/spec_command.h"
#include "proc.h"
#include "reap.h"
#include "strutil.h"

#define LAUNCH_MAX_ARGS 256

struct argv_buf {
	char **v;
	int n;
	gc_rc rc;
};

static void add(struct argv_buf *a, const char *s)
{
	if (a->rc)
		return;
	if (a->n >= LAUNCH_MAX_ARGS - 1) {
		a->rc = GC_E_INVAL;
		return;
	}
	a->v[a->n] = strdup(s);
	if (!a->v[a->n])
		a->rc = GC_E_NOMEM;
	else
		a->n++;
}

static void addf(struct argv_buf *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct argv_buf *a, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	add(a, buf);
}

static void mca(struct argv_buf *a, const char *k, const char *v)
{
	add(a, "--mca");
	add(a, k);
	add(a, v);
}

/* Every value a safe token (what[i] names vals[i] in the message), and every host. */
static gc_rc check_tokens(const gc_launch *l, const char *const *vals, const char *const *what,
			  size_t n, gc_err *e)
{
	for (size_t i = 0; i < n; i++)
		if (vals[i] && !gc_is_safe_token(vals[i]))
			return gc_fail(e, GC_E_INVAL, "refusing %s '%s': not a safe token", what[i], vals[i]);
	for (size_t i = 0; i < l->nhosts; i++)
		if (!gc_is_safe_token(l->hosts[i]))
			return gc_fail(e, GC_E_INVAL, "refusing host '%s': not a safe token", l->hosts[i]);
	return GC_OK;
}

/* The hosts' slots add up to the world (placement came first). */
static gc_rc check_slots(const gc_launch *l, gc_err *e)
{
	long long sum = 0;

	for (size_t i = 0; i < l->nhosts; i++)
		sum += l->slots[i] > 0 ? l->slots[i] : 0;
	if (l->world < 1 || sum != l->world)
		return gc_fail(e, GC_E_INVAL, "%d ranks but the hosts' slots add up to %lld; place "
			       "the ranks first (orchestrator/run/placement.h)", l->world, sum);
	return GC_OK;
}

static gc_rc check_values(const gc_launch *l, gc_err *e)
{
	const char *vals[] = { l->worker, l->ssh_config, l->iface, l->oob_include, l->backend,
			       l->method, l->workload, l->out_pattern, l->mpirun, l->hostfile,
			       l->data_cidr };
	const char *what[] = { "worker path", "ssh_config", "iface", "oob interface", "backend",
			       "method", "workload", "output path", "mpirun", "hostfile",
			       "data subnet" };
	gc_rc rc = check_tokens(l, vals, what, sizeof(vals) / sizeof(vals[0]), e);

	if (rc)
		return rc;
	if (!l->worker || !l->method || !l->workload || !l->out_pattern || !l->iface)
		return gc_fail(e, GC_E_INVAL, "launch lacks worker, method, workload, iface or output");
	if (l->worker[0] != '/' && !l->data_cidr)
		return gc_fail(e, GC_E_INVAL, "worker path '%s' is relative: it needs the data subnet's "
			       "wrapper (data_cidr)", l->worker);
	return check_slots(l, e);
}

static void add_hosts(struct argv_buf *a, const gc_launch *l)
{
	char list[8192] = "";
	size_t i, o = 0;

	if (l->hostfile) {
		add(a, "--hostfile");
		add(a, l->hostfile);
		return;
	}
	for (i = 0; i < l->nhosts && o < sizeof(list); i++)
		if (l->slots[i] > 0)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s:%d", o ? "," : "",
					      l->hosts[i], l->slots[i]);
	if (o >= sizeof(list))
		a->rc = GC_E_INVAL;
	add(a, "--host");
	add(a, list);
}

static void add_network(struct argv_buf *a, const gc_launch *l)
{
	if (l->run_id > 0) {   /* the mark gcbench reap finds on the nodes */
		add(a, "--mca");
		add(a, GC_REAP_MCA);
		addf(a, "%lld", l->run_id);
	}
	mca(a, "pml", "ob1");
	mca(a, "btl", "tcp,self");
	mca(a, "btl_tcp_if_include", l->data_cidr ? l->data_cidr : l->iface);
	if (l->oob_include)
		mca(a, "oob_tcp_if_include", l->oob_include);
	mca(a, "coll_tuned_use_dynamic_rules", "1");
	mca(a, "coll_tuned_allreduce_algorithm", "4");
	mca(a, "coll_tuned_allgather_algorithm", "4");
	mca(a, "coll_libnbc_iallreduce_algorithm", "1");   /* ring for the workers' non-blocking all-reduce */
	if (l->oversubscribe)
		mca(a, "mpi_yield_when_idle", "1");
	if (l->ssh_config) {
		char agent[1200];
		snprintf(agent, sizeof(agent), "ssh -F %s -o BatchMode=yes", l->ssh_config);
		mca(a, "plm_rsh_agent", agent);
		mca(a, "plm_rsh_no_tree_spawn", "1");   /* the config exists only here */
	}
	add(a, "-x");
	add(a, "MALLOC_MMAP_THRESHOLD_=1073741824");
	add(a, "-x");
	add(a, "NCCL_IB_DISABLE=1");
	if (!l->data_cidr) {   /* else per host, by the wrapper */
		add(a, "-x");
		addf(a, "NCCL_SOCKET_IFNAME=%s", l->iface);
	}
}

/* Each rank's wrapper: $1 the data subnet, the worker's argv after it. A fixed text:
 * the values are arguments, never part of the script. */
static const char iface_script[] =
	"c=$1; w=$2; shift 2; case $w in /*) ;; *) w=$HOME/$w ;; esac; PATH=$PATH:/usr/sbin:/sbin; "
	"i=$(ip -o -4 addr show to \"$c\" 2>/dev/null | awk '{ print $2; exit }'); "
	"if [ -z \"$i\" ]; then echo \"gcbench-worker: error: no interface on $(hostname) has an "
	"address in the data subnet $c (ip -o -4 addr)\" >&2; exit 3; fi; "
	"NCCL_SOCKET_IFNAME=$i; export NCCL_SOCKET_IFNAME; exec \"$w\" \"$@\" --iface \"$i\"";

static void add_wrapper(struct argv_buf *a, const gc_launch *l)
{
	if (!l->data_cidr)
		return;
	add(a, "/bin/sh");
	add(a, "-c");
	add(a, iface_script);
	add(a, "gcbench-iface");
	add(a, l->data_cidr);
}

/* The worker's path: absolute, or (only through the wrapper) relative to each host's
 * home, where provisioning puts the build (~/.cache/gcbench/HASH) for every login. */
static void add_program(struct argv_buf *a, const gc_launch *l)
{
	add(a, l->worker);
}

static void add_worker(struct argv_buf *a, const gc_launch *l)
{
	char params[256] = "";

	add_program(a, l);
	add(a, "--backend");
	add(a, l->backend ? l->backend : "mpi");
	add(a, "--method");   /* NAME[:k=v,...], the one method syntax */
	if (l->params)
		gc_params_format(l->params, params, sizeof(params));
	if (params[0])
		addf(a, "%s:%s", l->method, params);
	else
		add(a, l->method);
	add(a, "--workload");
	add(a, l->workload);
	add(a, "--iters");
	addf(a, "%d", l->iters);
	add(a, "--warmup");
	addf(a, "%d", l->warmup);
	add(a, "--batch");
	addf(a, "%d", l->batch);
	add(a, "--compute-scale");
	addf(a, "%.17g", l->compute_scale);
	if (l->deadline_s > 0) {
		add(a, "--deadline");
		addf(a, "%.17g", l->deadline_s);
	}
	if (l->threads > 0) {
		add(a, "--threads");
		addf(a, "%d", l->threads);
	}
	if (l->eval_every > 0) {
		add(a, "--eval-every");
		addf(a, "%d", l->eval_every);
	}
	if (l->data) {
		add(a, "--data");
		add(a, l->data);
	}
	if (!l->data_cidr) {
		add(a, "--iface");
		add(a, l->iface);
	}
	add(a, "--out");
	add(a, l->out_pattern);
}

/* workload: command: each rank's wrapper. $1 the data subnet or "-", $2 the interface
 * (without a subnet), $3 the files' folder or "-", $4 the records folder, $5 and $6
 * MASTER_ADDR and MASTER_PORT, $7 gcbench's binaries' folder, the program's argv after
 * them. A fixed text: the values are arguments, never part of the script. */
static const char command_script[] =
	"c=$1; i=$2; f=$3; d=$4; MASTER_ADDR=$5; MASTER_PORT=$6; b=$7; ne=$8; shift 8; PATH=$PATH:/usr/sbin:/sbin; me=; "
	"if [ \"$c\" != - ]; then i=$(ip -o -4 addr show to \"$c\" 2>/dev/null | awk '{ print $2; exit }'); "
	"me=$(ip -o -4 addr show to \"$c\" 2>/dev/null | awk '{ split($4, a, \"/\"); print a[1]; exit }'); "
	"if [ -z \"$i\" ]; then echo \"gcbench-command: error: no interface on $(hostname) has an "
	"address in the data subnet $c (ip -o -4 addr)\" >&2; exit 3; fi; fi; "
	"while [ \"$ne\" -gt 0 ]; do e=$1; shift; ne=$((ne-1)); a=${e%%/*}; kv=${e#*/}; "
	"if [ \"$a\" = '*' ] || [ \"$a\" = \"$me\" ]; then k=${kv%%=*}; v=${kv#*=}; "
	"case $v in '~') v=$HOME;; '~/'*) v=$HOME/${v#'~/'};; esac; export \"$k=$v\"; fi; done; "
	"RANK=$OMPI_COMM_WORLD_RANK; WORLD_SIZE=$OMPI_COMM_WORLD_SIZE; LOCAL_RANK=$OMPI_COMM_WORLD_LOCAL_RANK; "
	"if [ -z \"$RANK\" ] || [ -z \"$WORLD_SIZE\" ]; then echo \"gcbench-command: error: "
	"OMPI_COMM_WORLD_RANK/SIZE are not set on $(hostname): start it with Open MPI's mpirun\" >&2; exit 3; fi; "
	"GCBENCH_RECORDS=$d/records-r$RANK.gcr; NCCL_SOCKET_IFNAME=$i; GLOO_SOCKET_IFNAME=$i; "
	"export RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT GCBENCH_RECORDS NCCL_SOCKET_IFNAME "
	"GLOO_SOCKET_IFNAME; case $b in /*) ;; *) b=$HOME/$b ;; esac; GCBENCH_BIN=$b; export GCBENCH_BIN; "
	"PYTHONPATH=$b/python${PYTHONPATH:+:$PYTHONPATH}; export PYTHONPATH; "
	"if [ \"$f\" != - ]; then case $f in /*) ;; *) f=$HOME/$f ;; esac; "
	"cd \"$f\" || { echo \"gcbench-command: error: the spec's files are not in $f on $(hostname) "
	"(provision them: gcbench run without --bin-dir)\" >&2; exit 3; }; GCBENCH_FILES=$f; export GCBENCH_FILES; fi; "
	"n=$#; while [ $n -gt 0 ]; do x=$1; shift; while :; do case $x in *'{python}'*) "
	"x=${x%%'{python}'*}${GCBENCH_PYTHON:-python3}${x#*'{python}'};; *'{records}'*) "
	"x=${x%%'{records}'*}$GCBENCH_RECORDS${x#*'{records}'};; *'{bin}'*) "
	"x=${x%%'{bin}'*}$GCBENCH_BIN${x#*'{bin}'};; *) break;; esac; done; "
	"set -- \"$@\" \"$x\"; n=$((n-1)); done; exec \"$@\"";

/* "*\/NAME=VALUE" or "ADDR/NAME=VALUE" (gc_launch.env) */
static gc_rc check_env(const char *ent, gc_err *e)
{
	char key[64], name[64];
	const char *slash = strchr(ent, '/'), *eq = slash ? strchr(slash, '=') : NULL, *why;

	if (!slash || !eq || slash - ent >= (long)sizeof(key) || eq - slash - 1 >= (long)sizeof(name))
		return gc_fail(e, GC_E_INVAL, "refusing environment entry '%.80s': not KEY/NAME=VALUE",
			       ent);
	snprintf(key, sizeof(key), "%.*s", (int)(slash - ent), ent);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - slash - 1), slash + 1);
	if (strcmp(key, "*") && (!gc_is_safe_token(key) || strchr(key, '/')))
		return gc_fail(e, GC_E_INVAL, "refusing environment entry for host '%.60s'", key);
	if (strcmp(name, "GCBENCH_PYTHON") && (why = gc_env_name_problem(name)))
		return gc_fail(e, GC_E_INVAL, "refusing variable '%s': it %s", name, why);
	if ((why = gc_env_value_problem(eq + 1)))
		return gc_fail(e, GC_E_INVAL, "refusing the value of %s: it %s", name, why);
	return GC_OK;
}

static gc_rc check_command(const gc_launch *l, gc_err *e)
{
	const char *vals[] = { l->ssh_config, l->iface, l->oob_include, l->mpirun, l->hostfile,
			       l->data_cidr, l->files_dir, l->records_dir, l->master_addr,
			       l->bin_dir };
	const char *what[] = { "ssh_config", "iface", "oob interface", "mpirun", "hostfile",
			       "data subnet", "files folder", "records folder", "master address",
			       "binaries' folder" };
	size_t i;
	gc_rc rc = check_tokens(l, vals, what, sizeof(vals) / sizeof(vals[0]), e);

	if (rc)
		return rc;
	for (i = 0; i < l->n_command; i++)   /* empty: a placeholder with no value ({params}) */
		if ((i == 0 || *l->command[i]) && gc_command_arg_problem(l->command[i], i == 0))
			return gc_fail(e, GC_E_INVAL, "refusing argument %zu of the command: it %s", i + 1,
				       gc_command_arg_problem(l->command[i], i == 0));
	if (!l->n_command || !l->records_dir || !l->iface || !l->master_addr || !l->bin_dir)
		return gc_fail(e, GC_E_INVAL, "launch lacks the command, records folder, iface, "
			       "master address or binaries' folder");
	if (l->master_port < 1024 || l->master_port > 65535)
		return gc_fail(e, GC_E_INVAL, "master port %d is not in 1024..65535", l->master_port);
	if (l->n_env > GC_LAUNCH_MAX_ENV)
		return gc_fail(e, GC_E_INVAL, "more than %d environment variables", GC_LAUNCH_MAX_ENV);
	for (i = 0; i < l->n_env; i++)
		if ((rc = check_env(l->env[i], e)))
			return rc;
	return check_slots(l, e);
}

static void add_command(struct argv_buf *a, const gc_launch *l)
{
	if (l->threads > 0) {
		add(a, "-x");
		addf(a, "OMP_NUM_THREADS=%d", l->threads);
	}
	if (l->deadline_s > 0) {   /* the worker's --deadline, for the program to apply */
		add(a, "-x");
		addf(a, "GCBENCH_DEADLINE_S=%.17g", l->deadline_s);
	}
	add(a, "/bin/sh");
	add(a, "-c");
	add(a, command_script);
	add(a, "gcbench-command");
	add(a, l->data_cidr ? l->data_cidr : "-");
	add(a, l->iface);
	add(a, l->files_dir ? l->files_dir : "-");
	add(a, l->records_dir);
	add(a, l->master_addr);
	addf(a, "%d", l->master_port);
	add(a, l->bin_dir);
	addf(a, "%zu", l->n_env);
	for (size_t i = 0; i < l->n_env; i++)
		add(a, l->env[i]);
	for (size_t i = 0; i < l->n_command; i++)
		add(a, l->command[i]);
}

gc_rc gc_launch_argv(const gc_launch *l, char ***out, gc_err *e)
{
	struct argv_buf a = { calloc(LAUNCH_MAX_ARGS, sizeof(char *)), 0, GC_OK };
	gc_rc rc;

	*out = NULL;
	if (!a.v)
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	rc = l->command ? check_command(l, e) : check_values(l, e);
	if (rc) {
		free(a.v);
		return rc;
	}
	add(&a, l->mpirun ? l->mpirun : "mpirun");
	if (l->allow_root)
		add(&a, "--allow-run-as-root");
	if (l->oversubscribe)
		add(&a, "--oversubscribe");
	add(&a, "-np");
	addf(&a, "%d", l->world);
	add_hosts(&a, l);
	add(&a, "--map-by");
	add(&a, "node");
	add_network(&a, l);
	if (l->command) {
		add_command(&a, l);
	} else {
		add_wrapper(&a, l);
		add_worker(&a, l);
	}
	if (a.rc) {
		gc_argv_free(a.v);
		return gc_fail(e, a.rc, "mpirun command line too long");
	}
	*out = a.v;
	return GC_OK;
}

char *gc_launch_settings_json(const gc_launch *l)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;

	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_str_field(&j, "pml", "ob1");
	gc_json_str_field(&j, "btl", "tcp,self");
	gc_json_str_field(&j, "btl_tcp_if_include", l->data_cidr ? l->data_cidr : l->iface);
	gc_json_str_field(&j, "allreduce_algorithm", "ring");
	gc_json_str_field(&j, "allgather_algorithm", "ring");
	gc_json_int_field(&j, "mpi_yield_when_idle", l->oversubscribe);
	gc_json_str_field(&j, "NCCL_IB_DISABLE", "1");
	gc_json_str_field(&j, "NCCL_SOCKET_IFNAME", l->data_cidr ? "per host: its interface on btl_tcp_if_include" : l->iface);
	gc_json_str_field(&j, "backend", l->backend ? l->backend : "mpi");
	gc_json_obj_close(&j);
	if (gc_json_finish(&j)) {
		gc_buf_release(&b);
		return NULL;
	}
	return gc_buf_take(&b);
}

gc_rc gc_launch_hostfile(const gc_launch *l, gc_buf *out, gc_err *e)
{
	for (size_t i = 0; i < l->nhosts; i++) {
		if (l->slots[i] <= 0)
			continue;
		if (!gc_is_safe_token(l->hosts[i]))
			return gc_fail(e, GC_E_INVAL, "refusing host '%s': not a safe token", l->hosts[i]);
		if (gc_buf_addf(out, "%s slots=%d\n", l->hosts[i], l->slots[i]))
			return gc_fail(e, GC_E_NOMEM, "out of memory");
	}
	return GC_OK;
}

static gc_rc host_block(const gc_node *nd, gc_buf *b, gc_err *e)
{
	const char *vals[] = { nd->name, nd->address, nd->user, nd->identity, nd->control_dir };
	const char *what[] = { "host name", "address", "user", "identity", "control directory" };
	gc_ssh_target t;

	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		if (*vals[i] && !gc_is_safe_token(vals[i]))
			return gc_fail(e, GC_E_INVAL, "refusing %s '%s' of host '%s': not a safe token",
				       what[i], vals[i], nd->name);
	gc_node_target(nd, &t);
	gc_buf_addf(b, "Host %s\n", nd->name);
	if (!t.ssh_config || t.hostname)
		gc_buf_addf(b, "  HostName %s\n", t.hostname ? t.hostname : t.address);
	if (t.port > 0)
		gc_buf_addf(b, "  Port %d\n", t.port);
	if (t.user)
		gc_buf_addf(b, "  User %s\n", t.user);
	if (t.identity)
		gc_buf_addf(b, "  IdentityFile %s\n  IdentitiesOnly yes\n", t.identity);
	if (t.connect_timeout != 10)   /* before Host *'s 10 */
		gc_buf_addf(b, "  ConnectTimeout %d\n", (int)t.connect_timeout);
	if (t.control_dir)
		gc_buf_addf(b, "  ControlMaster auto\n  ControlPath %s/cm-%%C\n  ControlPersist 60\n",
			    t.control_dir);
	return GC_OK;
}

gc_rc gc_launch_ssh_config(const gc_node *nodes, size_t n, gc_buf *out, gc_err *e)
{
	const char *inc = n && *nodes[0].ssh_config ? nodes[0].ssh_config : NULL;
	gc_rc rc;

	gc_buf_addf(out, "# written by gcbench for mpirun's ssh: the inventory's hosts\n");
	for (size_t i = 0; i < n; i++)
		if ((rc = host_block(&nodes[i], out, e)))
			return rc;
	if (inc && !gc_is_safe_token(inc))
		return gc_fail(e, GC_E_INVAL, "refusing ssh_config '%s': not a safe token", inc);
	gc_buf_addf(out, "Host *\n  BatchMode yes\n  StrictHostKeyChecking yes\n"
		    "  ConnectTimeout 10\n  ServerAliveInterval 5\n  ServerAliveCountMax 3\n");
	if (inc)
		gc_buf_addf(out, "  Include %s\n", inc);
	else
		gc_buf_addf(out, "  Include ~/.ssh/config\n  Include /etc/ssh/ssh_config\n");
	return out->oom ? gc_fail(e, GC_E_NOMEM, "out of memory") : GC_OK;
}

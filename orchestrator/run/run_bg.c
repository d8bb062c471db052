/* orchestrator/run/run_bg.c: a point's background flows (run_bg.h). */
#include "run_bg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "db/db.h"
#include "log.h"
#include "model/model.h"
#include "orchestrator/remote/nodes.h"
#include "orchestrator/remote/subnet.h"
#include "orchestrator/spec/spec.h"
#include "each_node.h"

#define MAX_FLOW_S 86400   /* iperf3's and gcbench-probe's longest --time */
#define MAX_BPS 1e15       /* a goodput above (or inf, nan) is not one */

/* The keeper: $1 the point's folder, $2 the run (the reap mark), $3 the binaries, $4
 * flows per pair, $5 seconds, $6/$7 on/off seconds (0: constant), then items
 * s:PORT:TOOL (a server) and c:ADDR:PORT:TOOL (a client). Starts the servers, waits up
 * to 5 s for them to listen, says "started"; on a line starts the clients and says
 * "clients"; at the end of its input kills every flow it started. */
static const char keeper_script[] =
	"d=$1; export OMPI_MCA_gcbench_run=$2; b=$3; n=$4; t=$5; on=$6; off=$7; shift 7; "
	"end() { kill -TERM $(cat \"$d/bg.cpids\" \"$d/bg.spids\" 2>/dev/null) 2>/dev/null; "
	"sleep 1; kill -KILL $(cat \"$d/bg.cpids\" \"$d/bg.spids\" 2>/dev/null) 2>/dev/null; "
	"exit 0; }; "
	": >\"$d/bg.spids\"; : >\"$d/bg.cpids\"; ports=; "
	"for x in \"$@\"; do case $x in s:*) ;; *) continue ;; esac; "
	"y=${x#s:}; p=${y%%:*}; ports=\"$ports $p\"; "
	"if [ \"${y#*:}\" = iperf3 ]; then iperf3 -s -p \"$p\" </dev/null >\"$d/bg-s$p.out\" 2>&1 & "
	"else \"$b/gcbench-probe\" server --port \"$p\" </dev/null >\"$d/bg-s$p.out\" 2>&1 & fi; "
	"echo $! >>\"$d/bg.spids\"; done; "
	"i=0; while [ -n \"$ports\" ] && [ $i -lt 50 ]; do ok=1; "
	"l=$(ss -ltn 2>/dev/null) || { sleep 0.5; break; }; "
	"for p in $ports; do case $l in *\":$p \"*) ;; *) ok=0 ;; esac; done; "
	"[ $ok = 1 ] && break; sleep 0.1; i=$((i+1)); done; "
	"echo started; read _ || end; "
	"for x in \"$@\"; do case $x in c:*) ;; *) continue ;; esac; "
	"y=${x#c:}; a=${y%%:*}; y=${y#*:}; p=${y%%:*}; o=\"$d/bg-c$p.out\"; "
	"if [ \"${y#*:}\" = iperf3 ]; then "
	"iperf3 -c \"$a\" -p \"$p\" -P \"$n\" -t \"$t\" --json </dev/null >\"$o\" 2>&1 & "
	"elif [ \"$on\" = 0 ]; then \"$b/gcbench-probe\" client --connect \"$a\" --port \"$p\" "
	"--parallel \"$n\" --time \"$t\" </dev/null >\"$o\" 2>&1 & "
	"else \"$b/gcbench-probe\" client --connect \"$a\" --port \"$p\" --parallel \"$n\" "
	"--time \"$t\" --on \"$on\" --off \"$off\" </dev/null >\"$o\" 2>&1 & fi; "
	"echo $! >>\"$d/bg.cpids\"; done; "
	"echo clients; read _; end";

/* $1 the point's folder; $2 "clients": SIGTERM the clients, wait up to 12 s, SIGKILL;
 * "servers": the same for the servers (3 s), then "alive=PID" for each flow process
 * still there (a zombie is gone), then each client's output after "== bg-cPORT.out",
 * and the pid files go. */
static const char stop_script[] =
	"d=$1; pids() { cat \"$d/bg.$1\" 2>/dev/null; }; "
	"alive() { a=; for p in $(pids $1); do s=$(sed 's/.*) //' /proc/$p/stat 2>/dev/null | "
	"cut -c1); [ -n \"$s\" ] && [ \"$s\" != Z ] && a=\"$a $p\"; done; }; "
	"stop() { kill -TERM $(pids $1) 2>/dev/null; i=0; alive $1; "
	"while [ -n \"$a\" ] && [ $i -lt $2 ]; do sleep 0.1; i=$((i+1)); alive $1; done; "
	"[ -n \"$a\" ] && kill -KILL $a 2>/dev/null; }; "
	"if [ \"$2\" = clients ]; then stop cpids 120; exit 0; fi; "
	"stop spids 30; sleep 0.1; "
	"for f in cpids spids; do alive $f; for p in $a; do echo \"alive=$p\"; done; done; "
	"for f in \"$d\"/bg-c*.out; do [ -f \"$f\" ] && { echo \"== ${f##*/}\"; cat \"$f\"; echo; }; "
	"done; rm -f \"$d/bg.cpids\" \"$d/bg.spids\"; exit 0";

static size_t node_index(const struct gc_sweep_ctx *c, size_t used, const char *name)
{
	for (size_t i = 0; i < used; i++)
		if (!strcmp(c->nodes[i].name, name))
			return i;
	return (size_t)-1;
}

/* The point's pairs as node indices; GC_E_INVAL when a pair names a host the point does
 * not use. */
static gc_rc resolve_pairs(const struct gc_sweep_ctx *c, const struct gc_spec *s, size_t used,
			   struct gc_bg_run *b, gc_err *e)
{
	b->n_pairs = 0;
	if (!s->bg.n_pairs) {
		for (size_t i = 0; used >= 2 && i < used && i < GC_SPEC_BG_MAX_PAIRS; i++) {
			b->pair[b->n_pairs].from = i;
			b->pair[b->n_pairs++].to = (i + 1) % used;
		}
		return GC_OK;
	}
	for (size_t k = 0; k < s->bg.n_pairs; k++) {
		size_t f = node_index(c, used, s->bg.pairs[k].from);
		size_t t = node_index(c, used, s->bg.pairs[k].to);
		if (f == (size_t)-1 || t == (size_t)-1)
			return gc_fail(e, GC_E_INVAL, "background: pair [%s, %s]: host '%s' runs "
				       "no rank of this point (its hosts are the first %zu of the "
				       "inventory); name hosts the point uses", s->bg.pairs[k].from,
				       s->bg.pairs[k].to, f == (size_t)-1 ? s->bg.pairs[k].from :
				       s->bg.pairs[k].to, used);
		b->pair[b->n_pairs].from = f;
		b->pair[b->n_pairs++].to = t;
	}
	return GC_OK;
}

/* The model's share for the host that sends the most pairs. */
static double pairs_share(const struct gc_spec *s, const struct gc_bg_run *b, size_t used)
{
	size_t most = 0;
	double duty = s->bg.onoff ? s->bg.on_s / (s->bg.on_s + s->bg.off_s) : 1.0;

	for (size_t i = 0; i < used; i++) {
		size_t k = 0;
		for (size_t j = 0; j < b->n_pairs; j++)
			k += b->pair[j].from == i;
		most = k > most ? k : most;
	}
	return gc_model_bg_share((int)most * s->bg.flows, duty);
}

/* {"flows":..,"pattern":..,"on_s":..,"off_s":..,"queue":..,"share":..,"pairs":[ into o
 * (open) */
static void json_head(gc_buf *o, const struct gc_spec *s, const struct gc_bg_run *b,
		      size_t used)
{
	gc_buf_addf(o, "{\"flows\":%d,\"pattern\":\"%s\",\"on_s\":%.9g,\"off_s\":%.9g,"
		    "\"queue\":\"%s\",\"share\":%.9g,\"pairs\":[", s->bg.flows,
		    s->bg.onoff ? "onoff" : "constant", s->bg.onoff ? s->bg.on_s : 0,
		    s->bg.onoff ? s->bg.off_s : 0, gc_spec_bg_queue_name(s->bg.queue),
		    pairs_share(s, b, used));
}

gc_rc gc_run_bg_sent(const struct gc_sweep_ctx *c, const struct gc_spec *s, size_t used,
		     int *sent, size_t *n_pairs, gc_err *e)
{
	struct gc_bg_run *b;
	gc_rc rc;

	for (size_t i = 0; i < used; i++)
		sent[i] = 0;
	*n_pairs = 0;
	if (!s->bg.flows)
		return GC_OK;
	if (!(b = calloc(1, sizeof(*b))))
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	rc = resolve_pairs(c, s, used, b, e);
	for (size_t k = 0; !rc && k < b->n_pairs; k++)
		sent[b->pair[k].from] += s->bg.flows;
	*n_pairs = rc ? 0 : b->n_pairs;
	free(b);
	return rc;
}

char *gc_run_bg_json(char *net, const struct gc_sweep_ctx *c, const struct gc_spec *s,
		     size_t used)
{
	struct gc_bg_run *b;
	gc_buf o = GC_BUF_INIT;
	size_t n = net ? strlen(net) : 0;
	gc_err e;

	if (!net || !s->bg.flows || n < 2 || net[n - 1] != '}')
		return net;
	if (!(b = calloc(1, sizeof(*b)))) {
		free(net);
		return NULL;
	}
	if (resolve_pairs(c, s, used, b, &e))
		b->n_pairs = 0;   /* the start says why */
	gc_buf_addf(&o, "%.*s%s\"background\":", (int)(n - 1), net, n > 2 ? "," : "");
	json_head(&o, s, b, used);
	for (size_t i = 0; i < b->n_pairs; i++)
		gc_buf_addf(&o, "%s{\"from\":\"%s\",\"to\":\"%s\"}", i ? "," : "",
			    c->nodes[b->pair[i].from].name, c->nodes[b->pair[i].to].name);
	gc_buf_addf(&o, "]}}");
	free(b);
	free(net);
	return gc_buf_take(&o);
}

/* What start asks of each used host: its data address and whether it has iperf3. */
struct probe_job {
	struct gc_sweep_ctx *c;
	char addr[GC_PLACE_MAX_HOSTS][48];
	int iperf[GC_PLACE_MAX_HOSTS];
	int needed[GC_PLACE_MAX_HOSTS];
};

static gc_rc probe_host(size_t i, void *arg, gc_err *e)
{
	struct probe_job *j = arg;
	char *argv[] = { "sh", "-c", "command -v iperf3 >/dev/null 2>&1 && echo iperf3=1; exit 0",
			 NULL };
	gc_proc_result r;
	uint32_t addr;
	int prefix;
	gc_rc rc;

	if (!j->needed[i])
		return GC_OK;
	rc = gc_node_data_addr(&j->c->nodes[i], &addr, &prefix, e);
	if (!rc) {
		gc_subnet_addr_text(addr, prefix, j->addr[i], sizeof(j->addr[i]));
		j->addr[i][strcspn(j->addr[i], "/")] = 0;
		rc = gc_node_exec(&j->c->nodes[i], argv, 15, &r, e);
		j->iperf[i] = !rc && r.out && strstr(r.out, "iperf3=1");
		gc_proc_result_release(&r);
	}
	return rc;
}

/* Each pair's tool, by the spec's tool: and what both ends have. */
static gc_rc pick_tools(const struct gc_sweep_ctx *c, const struct gc_spec *s,
			const struct probe_job *j, struct gc_bg_run *b, gc_err *e)
{
	for (size_t k = 0; k < b->n_pairs; k++) {
		struct gc_bg_pair_run *p = &b->pair[k];
		int both = j->iperf[p->from] && j->iperf[p->to];
		if (s->bg.tool == GC_BG_TOOL_IPERF3 && !both)
			return gc_fail(e, GC_E_INVAL, "background: tool iperf3, but node '%s' has "
				       "no iperf3 on its PATH; install it there or write tool: probe",
				       c->nodes[j->iperf[p->from] ? p->to : p->from].name);
		p->iperf = s->bg.tool != GC_BG_TOOL_PROBE && !s->bg.onoff && both;
		p->goodput_bps = -1;
	}
	return GC_OK;
}

/* Host i's keeper: its servers (pairs that end there) and clients (pairs it sends). */
static gc_rc start_keeper(struct gc_sweep_ctx *c, int64_t run_id, const struct gc_spec *s,
			  const struct probe_job *j, struct gc_bg_run *b, size_t i, gc_err *e)
{
	char rdir[1200], run[32], flows[16], secs[32], on[32], off[32];
	char items[2 * GC_SPEC_BG_MAX_PAIRS][80];
	char *argv[16 + 2 * GC_SPEC_BG_MAX_PAIRS] = { "sh", "-c", (char *)keeper_script, "sh",
						       rdir, run, c->nodes[i].bin_dir, flows, secs,
						       on, off };
	char **cmd = NULL;
	size_t k, n = 11, m = 0;
	int t = s->timeout_s > 0 && s->timeout_s < MAX_FLOW_S ? s->timeout_s : MAX_FLOW_S;
	gc_rc rc;

	snprintf(rdir, sizeof(rdir), "%s/run-%lld", c->remote_work, (long long)run_id);
	snprintf(run, sizeof(run), "%lld", (long long)run_id);
	snprintf(flows, sizeof(flows), "%d", s->bg.flows);
	snprintf(secs, sizeof(secs), "%d", t);
	snprintf(on, sizeof(on), "%.6g", s->bg.onoff ? s->bg.on_s : 0);
	snprintf(off, sizeof(off), "%.6g", s->bg.onoff ? s->bg.off_s : 0);
	for (k = 0; k < b->n_pairs; k++) {
		const struct gc_bg_pair_run *p = &b->pair[k];
		const char *tool = p->iperf ? "iperf3" : "probe";
		if (p->to == i)
			snprintf(items[m], sizeof(items[m]), "s:%d:%s", GC_BG_PORT + (int)k, tool);
		else if (p->from == i)
			snprintf(items[m], sizeof(items[m]), "c:%s:%d:%s", j->addr[p->to],
				 GC_BG_PORT + (int)k, tool);
		else
			continue;
		argv[n++] = items[m++];
	}
	argv[n] = NULL;
	rc = gc_node_argv(&c->nodes[i], argv, &cmd, e);
	rc = rc ? rc : gc_keeper_spawn(cmd, "started", 15, "the background flows' servers",
				       &b->keeper[i], e);
	gc_argv_free(cmd);
	return rc ? gc_fail(e, rc, "node '%s': %s", c->nodes[i].name, e->msg) : GC_OK;
}

gc_rc gc_run_bg_start(struct gc_sweep_ctx *c, int64_t run_id, size_t used,
		      const struct gc_exec_point *p, struct gc_bg_run *b, gc_err *e)
{
	const struct gc_spec *s = p->spec;
	struct probe_job *j;
	size_t i;
	gc_rc rc;

	memset(b, 0, sizeof(*b));
	for (i = 0; i < GC_PLACE_MAX_HOSTS; i++)
		b->keeper[i] = (struct gc_keeper){ 0, -1, -1 };
	used = used < GC_PLACE_MAX_HOSTS ? used : GC_PLACE_MAX_HOSTS;
	b->used = used;
	if ((rc = resolve_pairs(c, s, used, b, e)) || !b->n_pairs)
		return rc;
	if (!(j = calloc(1, sizeof(*j))))
		return gc_fail(e, GC_E_NOMEM, "out of memory");
	j->c = c;
	for (i = 0; i < b->n_pairs; i++)
		j->needed[b->pair[i].from] = j->needed[b->pair[i].to] = 1;
	rc = gc_each_node(used, probe_host, j, e);
	rc = rc ? rc : pick_tools(c, s, j, b, e);
	for (i = 0; !rc && i < used; i++) {
		if (!j->needed[i])
			continue;
		b->n_hosts = i + 1;   /* stop ends a keeper even when it did not start */
		rc = start_keeper(c, run_id, s, j, b, i, e);
	}
	for (i = 0; !rc && i < b->n_hosts; i++)   /* every server listens: the clients go */
		if (j->needed[i] && gc_keeper_say(&b->keeper[i], "go", "clients", 15,
						  "the background flows", e))
			rc = gc_fail(e, GC_E_COMM, "node '%s': %s", c->nodes[i].name, e->msg);
	free(j);
	return rc;
}

/* The number after key (up to the next '}' from from), or -1. */
static double json_num_in(const char *from, const char *key)
{
	const char *end = strchr(from, '}'), *k = strstr(from, key);
	double v;

	if (!k || (end && k > end))
		return -1;
	k += strlen(key);
	while (*k == ' ' || *k == '\t' || *k == ':' || *k == '\n')
		k++;
	v = strtod(k, NULL);
	return v > 0 && v < MAX_BPS ? v : -1;
}

/* The goodput (bits/s) in a client's output: gcbench-probe's goodput_bps=, iperf3's
 * JSON "end" "sum_received" (its "sum_sent" when the receiver's count is missing, as
 * after SIGTERM); -1 when there is none. */
static double out_goodput(const char *s, int iperf)
{
	const char *p;
	double v;

	if (!iperf)
		return (p = strstr(s, "goodput_bps=")) && (v = strtod(p + 12, NULL)) > 0 &&
		       v < MAX_BPS ? v : -1;
	v = (p = strstr(s, "\"sum_received\"")) ? json_num_in(p, "\"bits_per_second\"") : -1;
	if (v <= 0 && (p = strstr(s, "\"sum_sent\"")))
		v = json_num_in(p, "\"bits_per_second\"");
	return v;
}

void gc_run_bg_read_stop(char *out, struct gc_bg_run *b)
{
	char *p = out;

	for (char *a = strstr(out, "alive="); a; a = strstr(a + 6, "alive="))
		b->left++;
	while ((p = strstr(p, "== bg-c"))) {
		long port = strtol(p + 7, NULL, 10);
		char *next = strstr(p + 7, "\n== bg-c"), save = 0;
		if (next)
			save = *next, *next = 0;
		if (port >= GC_BG_PORT && (size_t)(port - GC_BG_PORT) < b->n_pairs) {
			struct gc_bg_pair_run *x = &b->pair[port - GC_BG_PORT];
			x->goodput_bps = out_goodput(p, x->iperf);
		}
		if (!next)
			break;
		*next = save;
		p = next + 1;
	}
}

struct stop_job {
	struct gc_sweep_ctx *c;
	struct gc_bg_run *b;
	char *rdir;
	const char *phase;
	gc_proc_result res[GC_PLACE_MAX_HOSTS];
	int ok[GC_PLACE_MAX_HOSTS];
};

static gc_rc stop_host(size_t i, void *arg, gc_err *e)
{
	struct stop_job *j = arg;
	char *argv[] = { "sh", "-c", (char *)stop_script, "sh", j->rdir, (char *)j->phase, NULL };

	if (j->b->keeper[i].pid <= 0)
		return GC_OK;
	j->ok[i] = !gc_node_exec(&j->c->nodes[i], argv, 30, &j->res[i], e);
	if (!j->ok[i])
		gc_warn("node '%s': cannot stop the background flows: %s", j->c->nodes[i].name,
			e->msg);
	return GC_OK;
}

static void stop_phase(struct stop_job *j, const char *phase)
{
	gc_err e;

	memset(j->res, 0, sizeof(j->res));
	memset(j->ok, 0, sizeof(j->ok));
	j->phase = phase;
	gc_each_node(j->b->n_hosts, stop_host, j, &e);
}

void gc_run_bg_stop(struct gc_sweep_ctx *c, int64_t run_id, const struct gc_exec_point *p,
		    struct gc_bg_run *b)
{
	struct stop_job *j = calloc(1, sizeof(*j));
	char rdir[1200];
	gc_buf o = GC_BUF_INIT;
	int verified = 1;
	double sum = 0;
	gc_err e;

	if (!b->n_hosts || !j) {
		free(j);
		return;
	}
	snprintf(rdir, sizeof(rdir), "%s/run-%lld", c->remote_work, (long long)run_id);
	j->c = c, j->b = b, j->rdir = rdir;
	stop_phase(j, "clients");   /* first, so that each still gets its server's count */
	for (size_t i = 0; i < b->n_hosts; i++)
		gc_proc_result_release(&j->res[i]);
	stop_phase(j, "servers");
	for (size_t i = 0; i < b->n_hosts; i++) {
		if (b->keeper[i].pid > 0 && (!j->ok[i] || !j->res[i].out))
			verified = 0;
		else if (j->ok[i])
			gc_run_bg_read_stop(j->res[i].out, b);
		gc_proc_result_release(&j->res[i]);
		gc_keeper_end(&b->keeper[i], 3);
	}
	free(j);
	if (b->left)
		gc_warn("%d background flow process%s still ran after the stop; 'gcbench reap' on "
			"the nodes ends them (they carry the run's mark)", b->left,
			b->left == 1 ? "" : "es");
	json_head(&o, p->spec, b, b->used);
	for (size_t i = 0; i < b->n_pairs; i++) {
		const struct gc_bg_pair_run *x = &b->pair[i];
		gc_buf_addf(&o, "%s{\"from\":\"%s\",\"to\":\"%s\",\"tool\":\"%s\",\"port\":%d,"
			    "\"goodput_bps\":", i ? "," : "", c->nodes[x->from].name,
			    c->nodes[x->to].name, x->iperf ? "iperf3" : "gcbench-probe",
			    GC_BG_PORT + (int)i);
		if (x->goodput_bps > 0)
			gc_buf_addf(&o, "%.0f}", x->goodput_bps);
		else
			gc_buf_addf(&o, "null}");
		sum = sum >= 0 && x->goodput_bps > 0 ? sum + x->goodput_bps : -1;
	}
	if (sum > 0)
		gc_buf_addf(&o, "],\"goodput_bps\":%.0f", sum);
	else
		gc_buf_addf(&o, "],\"goodput_bps\":null");
	if (verified)
		gc_buf_addf(&o, ",\"left\":%d}", b->left);
	else
		gc_buf_addf(&o, ",\"left\":null}");
	if (!o.p || gc_db_run_set_network(c->db, run_id, "background", o.p, &e))
		gc_warn("cannot store the background flows' record: %s", o.p ? e.msg : "out of memory");
	gc_buf_release(&o);
}

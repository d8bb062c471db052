/* orchestrator/run/run_trace.c: a point's bandwidth trace played on its hosts. */
#include "run_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "interrupt.h"
#include "db/db.h"
#include "log.h"
#include "timing.h"
#include "orchestrator/remote/nodes.h"
#include "orchestrator/spec/spec.h"

#define LEAD_S 0.5           /* the start instant: now + LEAD_S + PER_HOST_S a host */
#define PER_HOST_S 0.2

/* The keeper: $1 the point's folder, then the player's argv (its --owner is this shell);
 * starts the player in the background (lines to play.out, pid to play.pid), says
 * "started", and waits for its stdin to close. */
static const char start_script[] =
	"d=$1; shift; \"$@\" --owner $$ </dev/null >\"$d/play.out\" 2>\"$d/play.err\" & "
	"echo $! >\"$d/play.pid\"; echo started; read _; exit 0";

/* $1 the point's folder; $2 "kill": signal the player and return; "wait": wait up to
 * 3 s for it to end, say alive=1 when it did not, then print its lines */
static const char stop_script[] =
	"d=$1; p=$(cat \"$d/play.pid\" 2>/dev/null) || exit 0; "
	"if [ \"$2\" = kill ]; then kill -TERM \"$p\" 2>/dev/null; exit 0; fi; i=0; "
	"while [ -d \"/proc/$p\" ] && [ $i -lt 30 ]; do sleep 0.1; i=$((i+1)); done; "
	"[ -d \"/proc/$p\" ] && echo alive=1; cat \"$d/play.out\" 2>/dev/null; exit 0";

static void rdir_of(struct gc_sweep_ctx *c, int64_t run_id, char *out, size_t n)
{
	snprintf(out, n, "%s/run-%lld", c->remote_work, (long long)run_id);
}

gc_rc gc_run_trace_start(struct gc_sweep_ctx *c, int64_t run_id, size_t used,
			 const struct gc_exec_point *p, struct gc_trace_run *t, gc_err *e)
{
	const struct gc_spec_trace *tr = p->pt->trace;
	char rdir[1200], netem[1100], file[1300], fname[64], start[32], dur[32];
	gc_rc rc = GC_OK;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < GC_PLACE_MAX_HOSTS; i++)
		t->keeper[i] = (struct gc_keeper){ 0, -1, -1 };
	t->start_s = gc_wall_s() + LEAD_S + PER_HOST_S * (double)used;
	t->duration_s = p->spec->timeout_s;
	rdir_of(c, run_id, rdir, sizeof(rdir));
	gc_spec_trace_file(tr, fname, sizeof(fname));
	snprintf(start, sizeof(start), "%.6f", t->start_s);
	snprintf(dur, sizeof(dur), "%.3f", t->duration_s);
	for (size_t i = 0; i < used && i < GC_PLACE_MAX_HOSTS && !rc; i++) {
		gc_node *n = &c->nodes[i];
		char *argv[24] = { "sh", "-c", (char *)start_script, "sh", rdir };
		char **cmd = NULL;
		size_t k = 5;

		snprintf(netem, sizeof(netem), "%s/gcbench-netem", n->bin_dir);
		snprintf(file, sizeof(file), "%s/files/%s", n->bin_dir, fname);
		if (n->sudo) {
			argv[k++] = "sudo";
			argv[k++] = "-n";
			argv[k++] = "--";
		}
		argv[k++] = netem;
		argv[k++] = "play";
		argv[k++] = "--dev";
		argv[k++] = (char *)n->iface;
		argv[k++] = "--trace";
		argv[k++] = file;
		argv[k++] = "--start";
		argv[k++] = start;
		argv[k++] = "--duration";
		argv[k++] = dur;
		argv[k] = NULL;
		rc = gc_node_argv(n, argv, &cmd, e);
		rc = rc ? rc : gc_keeper_spawn(cmd, "started", 15, "the trace player",
					       &t->keeper[i], e);
		gc_argv_free(cmd);
		t->started = i + 1;   /* stop ends a keeper even when its player did not start */
		if (rc)
			rc = gc_fail(e, rc, "node '%s': %s", n->name, e->msg);
	}
	if (rc)
		return rc;
	if (gc_wall_s() > t->start_s)
		gc_warn("the trace players start late: starting them took longer than %.1f s",
			LEAD_S + PER_HOST_S * (double)used);
	while (gc_wall_s() < t->start_s && !gc_run_interrupted())   /* workers start under it */
		usleep(20000);
	return GC_OK;
}

/* the "start_lag_us" of a summary line; 0 when absent */
static int start_lag(const char *line, long long *v)
{
	const char *s = strstr(line, "\"summary\":1");
	const char *l = s ? strstr(line, "\"start_lag_us\":") : NULL;
	return l && sscanf(l + 15, "%lld", v) == 1;
}

/* host's lines (JSON objects, one a line) into b as a JSON array; the lag of its summary */
static int add_lines(gc_buf *b, char *out, long long *lag)
{
	char *save = NULL, *line;
	int first = 1, has = 0;

	gc_buf_addf(b, "[");
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(line);
		if (n < 2 || line[0] != '{' || line[n - 1] != '}')
			continue;   /* alive=1, or a torn last line */
		gc_buf_addf(b, "%s%s", first ? "" : ",", line);
		first = 0;
		has |= start_lag(line, lag);
	}
	gc_buf_addf(b, "]");
	return has;
}

void gc_run_trace_stop(struct gc_sweep_ctx *c, int64_t run_id, const struct gc_exec_point *p,
		       struct gc_trace_run *t)
{
	const struct gc_spec_trace *tr = p->pt->trace;
	char rdir[1200];
	gc_buf b = GC_BUF_INIT;
	long long lo = 0, hi = 0;
	int all = t->started > 0, seen = 0;
	gc_err e;

	rdir_of(c, run_id, rdir, sizeof(rdir));
	gc_buf_addf(&b, "{\"name\":\"%s\",\"digest\":\"%s\",\"mean_bps\":%llu,\"period_s\":%.6f,"
		    "\"start_s\":%.6f,\"duration_s\":%.3f,\"hosts\":{", tr->name, tr->digest,
		    (unsigned long long)tr->mean_bps, tr->period_us / 1e6, t->start_s,
		    t->duration_s);
	for (size_t i = 0; i < t->started; i++) {   /* every player stops at about once */
		char *argv[] = { "sh", "-c", (char *)stop_script, "sh", rdir, "kill", NULL };
		gc_proc_result r;
		if (gc_node_exec(&c->nodes[i], argv, 20, &r, &e))
			gc_warn("%s", e.msg);
		gc_proc_result_release(&r);
	}
	for (size_t i = 0; i < t->started; i++) {
		gc_node *n = &c->nodes[i];
		char *argv[] = { "sh", "-c", (char *)stop_script, "sh", rdir, "wait", NULL };
		gc_proc_result r;
		long long lag = 0;
		int ok;

		ok = !gc_node_exec(n, argv, 20, &r, &e);
		if (ok && r.out && strstr(r.out, "alive=1")) {
			/* started through sudo: clearing the link stops it (it was "cleared") */
			gc_proc_result_release(&r);
			if (gc_node_unshape(n, &e))
				gc_warn("%s", e.msg);
			ok = !gc_node_exec(n, argv, 20, &r, &e);
			if (ok && r.out && strstr(r.out, "alive=1"))
				gc_warn("node '%s': the trace player did not stop; it ends at its "
					"--duration, or at the next point's cap", n->name);
		}
		if (!ok)
			gc_warn("node '%s': cannot read the trace player's lines: %s", n->name, e.msg);
		gc_buf_addf(&b, "%s\"%s\":", i ? "," : "", n->name);
		if (ok && r.out ? add_lines(&b, r.out, &lag) : (gc_buf_addf(&b, "[]"), 0)) {
			lo = !seen || lag < lo ? lag : lo;
			hi = !seen || lag > hi ? lag : hi;
			seen = 1;
		} else {
			all = 0;
		}
		gc_proc_result_release(&r);
		gc_keeper_end(&t->keeper[i], 5);   /* the player sees its owner gone */
	}
	if (all)
		gc_buf_addf(&b, "},\"start_spread_us\":%lld}", hi - lo);
	else
		gc_buf_addf(&b, "},\"start_spread_us\":null}");
	if (!b.p || gc_db_run_set_network(c->db, run_id, "trace", b.p, &e))
		gc_warn("cannot store the trace's record: %s", b.p ? e.msg : "out of memory");
	gc_buf_release(&b);
}

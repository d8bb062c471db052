/* netem/main.c: gcbench-netem, the privileged helper: cap a link's egress (set, show,
 * clear, change, play, classes, shares, restore-all, check, version; netem/protocol.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <signal.h>

#include "classes.h"
#include "json.h"
#include "log.h"
#include "opts.h"
#include "play.h"
#ifdef GC_NETEM_POLICY
#include "policy.h"
#endif
#include "protocol.h"
#include "rate.h"
#include "shape.h"
#include "shares.h"
#include "strutil.h"
#include "trace.h"

static const char usage_text[] =
"usage: gcbench-netem set   --dev IFACE [--netns NAME] [--rate RATE [--burst SIZE]]\n"
"                           [--delay TIME [--jitter TIME]] [--loss PCT] [--owner PID]\n"
"       gcbench-netem show  --dev IFACE [--netns NAME] [--json]\n"
"       gcbench-netem clear --dev IFACE [--netns NAME]\n"
"       gcbench-netem change --dev IFACE [--netns NAME] --rate RATE [--json]\n"
"       gcbench-netem play  --dev IFACE [--netns NAME] --trace FILE --duration SECONDS\n"
"                           [--start EPOCH_SECONDS] [--owner PID]\n"
"       gcbench-netem classes --dev IFACE [--netns NAME] --rate RATE\n"
"                           --class DEST[,DEST...]=RATE [--owner PID]\n"
"       gcbench-netem shares --dev IFACE [--netns NAME] --rate CAP --leaf SPEC\n"
"                           [--leaf SPEC ...] [--owner PID] [--json]\n"
"       gcbench-netem restore-all [--all]\n"
"       gcbench-netem check [--netem]\n"
"       gcbench-netem version [--json]\n"
"\n"
"Caps the egress of IFACE (inside network namespace NAME, from 'ip netns list') through\n"
"libnl, reads the kernel back to check it holds what was asked, and remembers what was\n"
"there before so 'clear' restores it. Needs CAP_NET_ADMIN (root).\n"
"\n"
"RATE is in BITS per second with tc's units: bit, kbit, mbit, gbit, tbit (powers of\n"
"1000) or kibit, mibit, gibit, tibit (powers of 1024); e.g. 10gbit, 1.5gbit, 500mbit;\n"
"1mbit to 400gbit, as in a sweep spec and gcbench whatif.\n"
"  The trap: in tc, 'gbps' means gigaBYTES per second, so '30gbps' is 240 Gbit/s.\n"
"  gcbench-netem rejects the bps units; write 30gbit (or pass --bytes-ok to accept\n"
"  them with tc's meaning). A bare number is rejected too.\n"
"  Up to 34.36 Gbit/s the cap is a tbf qdisc; above, an htb class (64-bit rates).\n"
"  The cap counts layer-2 bytes: TCP goodput at MTU 1500 tops out near 95.6%.\n"
"SIZE (burst) in bytes, or b, kb, mb, gb (powers of 1024), kbit, mbit, gbit.\n"
"  Default: max(64kb, rate x 4 ms). Smaller bursts lose throughput (15 kB at 5 Gbit/s\n"
"  gave 65% of the cap on veth).\n"
"TIME: 10ms, 500us, 1.5s (also tc's sec, msec, usec; a bare number other than 0 is\n"
"  rejected). PCT: 0.1% or 0.1. Delay, jitter and loss add a netem qdisc (module\n"
"  sch_netem): under the rate's tbf/htb class 1:1 as handle 10:, or alone at the\n"
"  root when there is no --rate. Without sch_netem they fail, nothing is left, and\n"
"  rate caps still work. set needs --rate, --delay or --loss.\n"
"--owner PID: restore-all undoes this cap once PID has exited (default: the parent\n"
"  process, i.e. the shell or program that ran gcbench-netem).\n"
"change: changes the rate of a cap 'set' installed, in place (tc's change: the queue\n"
"  and its counters survive), and reads it back.\n"
"play: plays a bandwidth trace (FILE: 'SECONDS RATE' lines, repeated; see\n"
"  docs/netem.md) on IFACE: sets the cap at the trace's highest rate, waits for the\n"
"  start instant (wall clock, seconds since the epoch with decimals; default now),\n"
"  changes the rate in place at each of the trace's times, prints one JSON line per\n"
"  second (the trace's mean, the bytes the qdisc sent, the rate achieved) and a\n"
"  summary line, and restores the link at the end of --duration, on SIGINT/SIGTERM/\n"
"  SIGHUP, or once --owner PID has exited. Killed (SIGKILL), it leaves the cap to\n"
"  'restore-all', as it owns it.\n"
"version: this build and the helper protocol it speaks (--json: one object with\n"
"  \"protocol\" and the \"operations\" it implements).\n"
"classes: per-destination classes, the approximation of a rack's shared uplink on\n"
"  real hosts: an htb cap at --rate for everything, and a class at the --class RATE for\n"
"  the listed destinations (IPv4 addresses or prefixes, 10.0.0.3 or 10.0.0.0/24: the\n"
"  other racks' hosts), owned and restored like a cap ('clear', 'restore-all').\n"
"shares: fair leaves under one cap: an htb at --rate CAP whose leaves each get their\n"
"  own queue, at least their RATE, and up to the whole cap when the others are idle\n"
"  (the link never sends above CAP; leftover bandwidth is split equally among the\n"
"  leaves that want it). One --leaf SPEC per leaf, the rates summing to at most CAP:\n"
"    default=RATE                 everything no other leaf matches (ARP too); exactly one\n"
"    src:ADDR[,ADDR...]=RATE      IPv4 source address or prefix (10.0.0.3, 10.0.0.0/24)\n"
"    dst:ADDR[,ADDR...]=RATE      IPv4 destination address or prefix\n"
"    port:LO[-HI]=RATE            TCP packets whose source OR destination port is in LO..HI\n"
"  A rack's uplink, two hosts each guaranteed half, 1% for the rest:\n"
"    gcbench-netem shares --dev gc5-u1 --rate 1gbit --leaf default=10mbit\n"
"      --leaf src:10.213.5.2=495mbit --leaf src:10.213.5.3=495mbit\n"
"  The ranks against background flows on a host's egress (each gets half when both\n"
"  send, all of it when alone):\n"
"    gcbench-netem shares --dev eth0 --rate 1gbit --leaf default=500mbit\n"
"      --leaf port:5310-5317=500mbit\n"
"  Owned and restored like a cap ('clear', 'restore-all' remove the leaves with it).\n"
"restore-all: restores every link whose owner is gone (--all: every link).\n"
"check: prints 'uid=N cap_net_admin=0|1' for this process (root, sudo, or the\n"
"  cap_net_admin file capability: setcap cap_net_admin+ep gcbench-netem) and exits 0\n"
"  when it may shape, 1 when not; it changes nothing. check --netem also tests that\n"
"  the kernel has the netem qdisc (adds one in a private network namespace that ends\n"
"  at once) and prints 'netem=1' or 'netem=0' with the reason; exit 1 when absent.\n"
"State files: $GCBENCH_NETEM_STATE_DIR (default /run/gcbench/netem; for a user that is\n"
"  not root, ~/.cache/gcbench/netem-state).\n"
"\n"
"version: this build and the helper protocol it speaks (--json: one object with\n"
"  \"protocol\" and the \"operations\" it implements; a controller uses the helper\n"
"  the package installed only when its protocol is the controller's).\n"
"\n"
"--version prints the version; 'gcbench-netem help CMD' this text.\n"
"\n";

struct opts {
	const char *dev, *netns, *rate, *burst, *delay, *jitter, *loss, *owner;
	const char *trace, *start, *duration, *cls;
	int json, all, bytes_ok, netem;
	size_t n_leaf;          /* shares: the --leaf options, parsed into leaves[] */
};

static struct gc_share_leaf leaves[GC_SHARES_MAX_LEAVES];
static gc_rc leaf_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e);

static struct opts parsed;   /* the declarations' targets; parse_opts copies it out */
static const struct gc_option netem_opts[] = {
	GC_OPTION_STRING("--dev", "-d", &parsed.dev, "IFACE", "the interface to shape"),
	GC_OPTION_STRING("--netns", "-n", &parsed.netns, "NAME",
			 "the network namespace IFACE is in ('ip netns list')"),
	GC_OPTION_STRING("--rate", "-r", &parsed.rate, "RATE", "the cap, in bits per second (10gbit)"),
	GC_OPTION_STRING("--burst", "-b", &parsed.burst, "SIZE", "the bucket; max(64kb, rate x 4 ms)"),
	GC_OPTION_STRING("--delay", NULL, &parsed.delay, "TIME", "added one-way delay (netem)"),
	GC_OPTION_STRING("--jitter", NULL, &parsed.jitter, "TIME", "variation of the delay"),
	GC_OPTION_STRING("--loss", NULL, &parsed.loss, "PCT", "packets dropped (0.1%)"),
	GC_OPTION_STRING("--owner", NULL, &parsed.owner, "PID",
			 "restore-all undoes the cap once PID has exited"),
	GC_OPTION_FLAG("--json", NULL, &parsed.json, "one JSON object"),
	GC_OPTION_FLAG("--all", NULL, &parsed.all, "restore-all: every link, owner alive or not"),
	GC_OPTION_FLAG("--bytes-ok", NULL, &parsed.bytes_ok,
		       "accept tc's bytes-per-second units (30gbps = 240 Gbit/s)"),
	GC_OPTION_FLAG("--netem", NULL, &parsed.netem, "check: also test the netem qdisc"),
	GC_OPTION_STRING("--trace", NULL, &parsed.trace, "FILE", "play: 'SECONDS RATE' lines"),
	GC_OPTION_STRING("--start", NULL, &parsed.start, "EPOCH_SECONDS",
			 "play: when the trace starts; now"),
	GC_OPTION_STRING("--duration", NULL, &parsed.duration, "SECONDS",
			 "play: how long the trace plays"),
	GC_OPTION_STRING("--class", NULL, &parsed.cls, "DEST[,DEST...]=RATE",
			 "classes: the cap for the listed destinations"),
	GC_OPTION_CALLBACK("--leaf", NULL, GC_OPT_ARG, leaf_cb, "SPEC",
			   "shares: one leaf (default=RATE, src:ADDR=RATE, dst:ADDR=RATE,\n"
			   "port:LO-HI=RATE); repeat it"),
};

/* --leaf SPEC: parsed at once, so a malformed one is a usage error (exit 2) */
static gc_rc leaf_cb(void *ctx, const struct gc_option *opt, const char *v, gc_err *e)
{
	(void)ctx, (void)opt;
	if (parsed.n_leaf == GC_SHARES_MAX_LEAVES)
		return gc_fail(e, GC_E_INVAL, "--leaf: at most %d leaves on one link",
			       GC_SHARES_MAX_LEAVES);
	if (gc_share_leaf_parse(v, &leaves[parsed.n_leaf], e))
		return GC_E_INVAL;
	parsed.n_leaf++;
	return GC_OK;
}

static void usage(FILE *f)
{
	fputs(usage_text, f);
	fputs("options:\n", f);
	gc_opts_usage(f, netem_opts, sizeof netem_opts / sizeof netem_opts[0], 20);
	fputs("\nexample: gcbench-netem set --dev eth0 --netns gcb-gcb-n1 --rate 10gbit\n", f);
}

/* --version: "NAME VERSION", as every gcbench program prints it; the protocol is
 * `gcbench-netem version`'s */
static void print_version(void)
{
	printf("gcbench-netem %s\n", GC_VERSION);
}

/* 0 to go on, 1 when help or version was printed, 2 on a mistake (reported). */
static int parse_opts(const char *cmd, int argc, char **argv, struct opts *o)
{
	char name[48];
	gc_opts p;
	int c;

	memset(o, 0, sizeof(*o));
	snprintf(name, sizeof name, "gcbench-netem %s", cmd);
	memset(&parsed, 0, sizeof parsed);
	gc_opts_decl_init(&p, name, netem_opts, sizeof netem_opts / sizeof netem_opts[0], argc,
			  argv, NULL);
	c = gc_opts_parse_all(&p);
	*o = parsed;
	if (c == GC_OPTS_HELP)
		return usage(stdout), 1;
	if (c == GC_OPTS_VERSION)
		return print_version(), 1;
	if (c != GC_OPTS_END)
		return gc_error("%s", p.err.msg), GC_EXIT_USAGE;
	return 0;
}

static gc_rc build_req(const struct opts *o, struct gc_shape_req *r, gc_err *e)
{
	gc_err te;
	uint64_t v;
	gc_rc rc;

	memset(r, 0, sizeof(*r));
	r->dev = o->dev;
	r->netns = o->netns;
	if (!o->rate && !o->delay && !o->loss)
		return gc_fail(e, GC_E_INVAL, "set needs --rate, --delay or --loss (e.g. --rate "
			       "10gbit --delay 10ms)");
	if (o->rate && (rc = gc_bw_parse(o->rate, GC_BW_BARE_GBIT |
					 (o->bytes_ok ? GC_RATE_ALLOW_BYTES : 0), &r->rate_bps, e)))
		return rc;
	if (o->rate && !r->rate_bps)
		return gc_fail(e, GC_E_INVAL, "--rate unlimited sets no cap; to remove one, run "
			       "'gcbench-netem clear --dev %s'", o->dev);
	if (o->burst && !o->rate)
		return gc_fail(e, GC_E_INVAL, "--burst needs --rate");
	if (o->burst && (rc = gc_size_parse(o->burst, &r->burst, e)))
		return rc;
	if (o->delay && (rc = gc_time_parse(o->delay, &r->delay_us, &te)))
		return gc_fail(e, rc, "--delay: %s", te.msg);
	if (o->jitter && (rc = gc_time_parse(o->jitter, &r->jitter_us, &te)))
		return gc_fail(e, rc, "--jitter: %s", te.msg);
	if (o->loss && (rc = gc_percent_parse(o->loss, &r->loss_pct, e)))
		return rc;
	r->owner = getppid();
	if (o->owner) {
		if (gc_parse_u64(o->owner, &v) || v == 0 || v > 4194304)
			return gc_fail(e, GC_E_INVAL, "invalid --owner '%s': give a process id", o->owner);
		r->owner = (pid_t)v;
	}
	return GC_OK;
}

static void info_json(gc_json *j, const char *dev, const char *netns,
		      const struct gc_shape_info *s)
{
	gc_json_obj_open(j);
	gc_json_str_field(j, "dev", dev);
	gc_json_str_field(j, "netns", netns);
	gc_json_str_field(j, "kind", s->kind);
	gc_json_uint_field(j, "handle", s->handle >> 16);
	gc_json_key(j, "managed");
	gc_json_bool(j, s->managed);
	gc_json_int_field(j, "owner", (int)s->owner);
	gc_json_uint_field(j, "rate_bps", s->rate_bps);
	gc_json_uint_field(j, "burst", s->burst);
	gc_json_uint_field(j, "bytes", s->bytes);
	gc_json_uint_field(j, "packets", s->packets);
	gc_json_uint_field(j, "drops", s->drops);
	gc_json_uint_field(j, "overlimits", s->overlimits);
	gc_json_key(j, "netem");
	gc_json_bool(j, s->netem);
	gc_json_uint_field(j, "delay_us", s->delay_us);
	gc_json_uint_field(j, "jitter_us", s->jitter_us);
	gc_json_obj_close(j);
}

/* One JSON object on a line; GC_OK or GC_E_NOMEM (e says so; nothing printed). */
static gc_rc print_json(const char *dev, const char *netns, const struct gc_shape_info *s,
			gc_err *e)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;
	gc_rc rc;

	gc_json_init(&j, &b, 0);
	info_json(&j, dev, netns, s);
	rc = gc_json_finish(&j);
	if (rc)
		gc_fail(e, rc, "cannot write JSON: %s", gc_strerror(rc));
	else
		printf("%s\n", b.p);
	gc_buf_release(&b);
	return rc;
}

static void print_text(const char *dev, const char *netns, const struct gc_shape_info *s)
{
	char rate[32], burst[32];

	gc_bw_format(s->rate_bps, rate, sizeof(rate));
	gc_size_format(s->burst, burst, sizeof(burst));
	printf("%s%s%s: %s", dev, netns ? "@" : "", netns ? netns : "", s->kind);
	if (s->rate_bps)
		printf(" rate %s burst %s", rate, burst);
	if (s->netem)
		printf(" netem delay %uus jitter %uus", s->delay_us, s->jitter_us);
	printf("%s\n  sent %llu bytes %llu pkts, dropped %llu, overlimits %llu\n",
	       s->managed ? " (set by gcbench)" : "", (unsigned long long)s->bytes,
	       (unsigned long long)s->packets, (unsigned long long)s->drops,
	       (unsigned long long)s->overlimits);
}

static gc_rc print_info(const struct opts *o, const struct gc_shape_info *s, gc_err *e)
{
	if (o->json)
		return print_json(o->dev, o->netns, s, e);
	print_text(o->dev, o->netns, s);
	return GC_OK;
}

static int done(const char *cmd, gc_rc rc, const gc_err *e)
{
	if (rc)
		gc_error("%s: %s", cmd, e->msg[0] ? e->msg : gc_strerror(rc));
	return rc ? (rc == GC_E_INVAL ? 2 : 1) : 0;
}

static int op_set(const struct opts *o)
{
	struct gc_shape_info info;
	struct gc_shape_req r;
	gc_err e = { { 0 } };
	gc_rc rc = build_req(o, &r, &e);

	if (!rc)
		rc = gc_shape_set(&r, &e);
	if (!rc)
		rc = gc_shape_show(o->dev, o->netns, &info, &e);
	if (!rc)
		rc = print_info(o, &info, &e);
	return done("set", rc, &e);
}

static int op_show(const struct opts *o)
{
	struct gc_shape_info info;
	gc_err e = { { 0 } };
	gc_rc rc = gc_shape_show(o->dev, o->netns, &info, &e);

	if (!rc)
		rc = print_info(o, &info, &e);
	return done("show", rc, &e);
}

static int op_clear(const struct opts *o)
{
	gc_err e = { { 0 } };

	return done("clear", gc_shape_clear(o->dev, o->netns, &e), &e);
}

static int op_restore_all(const struct opts *o)
{
	gc_err e = { { 0 } };
	int n = 0;
	gc_rc rc = gc_shape_restore_all(o->all, &n, &e);

	printf("restored %d link%s\n", n, n == 1 ? "" : "s");
	return done("restore-all", rc, &e);
}

static int op_change(const struct opts *o)
{
	struct gc_shape_info info;
	gc_err e = { { 0 } };
	uint64_t bps = 0;
	gc_rc rc;

	if (!o->rate || o->burst || o->delay || o->jitter || o->loss || o->trace)
		return gc_error("change takes --rate only (and --dev, --netns, --json); see "
				"'gcbench-netem --help'"), GC_EXIT_USAGE;
	rc = gc_bw_parse(o->rate, GC_BW_BARE_GBIT | (o->bytes_ok ? GC_RATE_ALLOW_BYTES : 0),
			 &bps, &e);
	if (!rc && !bps)
		rc = gc_fail(&e, GC_E_INVAL, "--rate unlimited is no rate to change to; to remove "
			     "the cap, run 'gcbench-netem clear --dev %s'", o->dev);
	if (!rc)
		rc = gc_shape_change_rate(o->dev, o->netns, bps, &e);
	if (!rc)
		rc = gc_shape_show(o->dev, o->netns, &info, &e);
	if (!rc)
		rc = print_info(o, &info, &e);
	return done("change", rc, &e);
}

/* classes --rate HOST --class DEST,...=RATE (netem/classes.h) */
static int op_classes(const struct opts *o)
{
	struct gc_class_dest *d = calloc(GC_CLASSES_MAX_DEST, sizeof(*d));
	const char *eq = o->cls ? strrchr(o->cls, '=') : NULL;
	uint64_t host = 0, rate = 0, v;
	char item[64];
	gc_err e = { { 0 } };
	size_t n = 0;
	pid_t owner = getppid();
	gc_rc rc = d ? GC_OK : gc_fail(&e, GC_E_NOMEM, "out of memory");

	if (!rc && (!o->rate || !eq || o->burst || o->delay || o->jitter || o->loss || o->trace))
		rc = gc_fail(&e, GC_E_INVAL, "classes takes --rate RATE and --class DEST[,DEST...]=RATE "
			     "(and --dev, --netns, --owner); see 'gcbench-netem --help'");
	if (!rc)
		rc = gc_bw_parse(o->rate, GC_BW_BARE_GBIT, &host, &e);
	if (!rc && !host)
		rc = gc_fail(&e, GC_E_INVAL, "--rate: classes need a cap for the other traffic");
	if (!rc)
		rc = gc_bw_parse(eq + 1, GC_BW_BARE_GBIT, &rate, &e);
	if (!rc && !rate)
		rc = gc_fail(&e, GC_E_INVAL, "--class: the class needs a rate, not unlimited");
	for (const char *p = o->cls; !rc && p < eq; n++) {
		size_t len = strcspn(p, ",=");
		if (n == GC_CLASSES_MAX_DEST || len >= sizeof(item)) {
			rc = gc_fail(&e, GC_E_INVAL, "--class: too many destinations, or one too long");
			break;
		}
		snprintf(item, sizeof(item), "%.*s", (int)len, p);
		rc = gc_class_dest_parse(item, &d[n], &e);
		p += len + (p[len] == ',');
	}
	if (!rc && o->owner) {
		if (gc_parse_u64(o->owner, &v) || v == 0 || v > 4194304)
			rc = gc_fail(&e, GC_E_INVAL, "invalid --owner '%s': give a process id", o->owner);
		owner = (pid_t)v;
	}
	if (!rc)
		rc = gc_shape_classes(o->dev, o->netns, host, d, n, rate, owner, &e);
	free(d);
	if (!rc)
		printf("%s: class 1:2 at %llu bit/s for %zu destination%s, the rest at %llu bit/s "
		       "(set by gcbench)\n", o->dev, (unsigned long long)rate, n, n == 1 ? "" : "s",
		       (unsigned long long)host);
	return done("classes", rc, &e);
}

static void shares_json(const struct opts *o, uint64_t cap)
{
	gc_buf b = GC_BUF_INIT;
	gc_json j;
	static const char *const kind[] = { "default", "src", "dst", "port" };

	gc_json_init(&j, &b, 0);
	gc_json_obj_open(&j);
	gc_json_str_field(&j, "dev", o->dev);
	gc_json_str_field(&j, "netns", o->netns);
	gc_json_uint_field(&j, "rate_bps", cap);
	gc_json_key(&j, "leaves");
	gc_json_arr_open(&j);
	for (size_t i = 0; i < o->n_leaf; i++) {
		char h[16];
		snprintf(h, sizeof(h), "1:%x", GC_SHARES_MINOR0 + (unsigned)i);
		gc_json_obj_open(&j);
		gc_json_str_field(&j, "class", h);
		gc_json_str_field(&j, "match", kind[leaves[i].match]);
		gc_json_uint_field(&j, "rate_bps", leaves[i].rate_bps);
		gc_json_uint_field(&j, "ceil_bps", cap);
		gc_json_obj_close(&j);
	}
	gc_json_arr_close(&j);
	gc_json_obj_close(&j);
	if (!gc_json_finish(&j))
		printf("%s\n", b.p);
	gc_buf_release(&b);
}

/* shares --rate CAP --leaf SPEC... (netem/shares.h) */
static int op_shares(const struct opts *o)
{
	uint64_t cap = 0, v;
	gc_err e = { { 0 } };
	pid_t owner = getppid();
	char r1[32], r2[32];
	gc_rc rc = GC_OK;

	if (!o->rate || !o->n_leaf || o->burst || o->delay || o->jitter || o->loss || o->trace ||
	    o->cls)
		rc = gc_fail(&e, GC_E_INVAL, "shares takes --rate CAP and one --leaf SPEC per leaf "
			     "(and --dev, --netns, --owner, --json); see 'gcbench-netem --help'");
	if (!rc)
		rc = gc_bw_parse(o->rate, GC_BW_BARE_GBIT, &cap, &e);
	if (!rc && !cap)
		rc = gc_fail(&e, GC_E_INVAL, "--rate: the leaves share a cap; give one, not "
			     "unlimited");
	if (!rc && o->owner) {
		if (gc_parse_u64(o->owner, &v) || v == 0 || v > 4194304)
			rc = gc_fail(&e, GC_E_INVAL, "invalid --owner '%s': give a process id", o->owner);
		owner = (pid_t)v;
	}
	if (!rc)
		rc = gc_shape_shares(o->dev, o->netns, cap, leaves, o->n_leaf, owner, &e);
	if (!rc && o->json)
		shares_json(o, cap);
	else if (!rc)
		for (size_t i = 0; i < o->n_leaf; i++)
			printf("%s: leaf 1:%x rate %s ceil %s%s\n", o->dev,
			       GC_SHARES_MINOR0 + (unsigned)i,
			       gc_rate_format(leaves[i].rate_bps, r1, sizeof(r1)),
			       gc_rate_format(cap, r2, sizeof(r2)),
			       leaves[i].match == GC_SHARE_DEFAULT ? " (default)" : "");
	return done("shares", rc, &e);
}

static volatile sig_atomic_t play_stop;

static void on_stop_signal(int sig)
{
	(void)sig;
	play_stop = 1;
}

/* SIGINT, SIGTERM, SIGHUP end the player through its loop (no SA_RESTART: the
 * sleep returns at once). */
static void catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static gc_rc play_opts(const struct opts *o, struct gc_play_opts *po, gc_err *e)
{
	uint64_t v;

	memset(po, 0, sizeof(*po));
	if (o->rate || o->burst || o->delay || o->jitter || o->loss)
		return gc_fail(e, GC_E_INVAL, "play takes its rates from --trace; drop --rate, "
			       "--burst, --delay, --jitter and --loss");
	if (!o->trace || !o->duration)
		return gc_fail(e, GC_E_INVAL, "play needs --trace FILE and --duration SECONDS (the "
			       "point's deadline: the player outlives nothing)");
	if (gc_parse_double(o->duration, &po->duration_s) || !(po->duration_s > 0) ||
	    po->duration_s > GC_PLAY_MAX_DURATION_S)
		return gc_fail(e, GC_E_INVAL, "invalid --duration '%.40s': give seconds, more "
			       "than 0 and at most 604800 (7 days)", o->duration);
	if (o->start && (gc_parse_double(o->start, &po->start_s) || !(po->start_s > 0) ||
			 po->start_s >= 1e11))
		return gc_fail(e, GC_E_INVAL, "invalid --start '%.40s': give seconds since the "
			       "epoch, as 'date +%%s.%%N' prints them", o->start);
	if (o->owner && (gc_parse_u64(o->owner, &v) || v == 0 || v > 4194304))
		return gc_fail(e, GC_E_INVAL, "invalid --owner '%.40s': give a process id", o->owner);
	po->owner = o->owner ? (pid_t)v : 0;
	po->dev = o->dev;
	po->netns = o->netns;
	po->out = stdout;
	po->stop = &play_stop;
	return GC_OK;
}

static int op_play(const struct opts *o)
{
	struct gc_play_result res;
	struct gc_play_opts po;
	struct gc_trace t = { 0 };
	gc_err e = { { 0 } };
	gc_rc rc = play_opts(o, &po, &e);

	if (!rc && !(rc = gc_trace_load(o->trace, &t, &e))) {
		po.trace = &t;
		catch_stop_signals();
		rc = gc_play_run(&po, &res, &e);
	}
	gc_trace_release(&t);
	if (rc == GC_E_FORMAT)
		rc = GC_E_INVAL;          /* a trace that does not parse: exit 2 */
	return done("play", rc, &e);
}

static int op_version(const struct opts *o);


/* CAP_NET_ADMIN (bit 12) in this process's effective set, from /proc/self/status */
static int have_net_admin(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long cap = 0;
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7))
			cap = strtoull(line + 7, NULL, 16);
	if (f)
		fclose(f);
	return (cap >> 12) & 1;
}

/* netem=1 or netem=0 on stdout, with how it was decided; 0 when present */
static int check_netem(void)
{
	char how[600] = "";
	gc_err e = { { 0 } };
	gc_rc rc = gc_netem_available(how, sizeof(how), &e);

	if (!rc) {
		printf("netem=1 (%s)\n", how);
		return 0;
	}
	printf("netem=0\n");
	gc_error("%s", e.msg);
	return GC_EXIT_FAILED;
}

static int check(int netem)
{
	int cap = have_net_admin();

	printf("uid=%d euid=%d cap_net_admin=%d\n", (int)getuid(), (int)geteuid(), cap);
	if (cap)
		return netem ? check_netem() : 0;
	gc_error("cannot shape: this process lacks CAP_NET_ADMIN (run it as root, through "
		 "sudo, or give the binary the file capability: setcap cap_net_admin+ep %s)",
		 "gcbench-netem");
	return GC_EXIT_FAILED;
}

static int op_check(const struct opts *o)
{
	if (o->dev || o->netns || o->rate || o->burst || o->delay || o->jitter || o->loss ||
	    o->owner || o->json || o->all || o->bytes_ok || o->trace || o->start || o->duration ||
	    o->n_leaf) {
		gc_error("check takes no option but --netem; see 'gcbench-netem --help'");
		return GC_EXIT_USAGE;
	}
	return check(o->netem);
}

/* Every operation of the helper protocol (netem/protocol.h, docs/netem.md "Helper
 * protocol"), in the order of gc_netem_operations. */
struct netem_op {
	const char *name;
	int needs_dev;                       /* --dev IFACE is required */
	int (*fn)(const struct opts *o);
};

static const struct netem_op ops[] = {
	{ "set", 1, op_set }, { "show", 1, op_show }, { "clear", 1, op_clear },
	{ "change", 1, op_change }, { "play", 1, op_play }, { "classes", 1, op_classes },
	{ "shares", 1, op_shares },
	{ "restore-all", 0, op_restore_all }, { "check", 0, op_check },
	{ "version", 0, op_version },
};
#define N_OPS (sizeof(ops) / sizeof(ops[0]))

static int op_version(const struct opts *o)
{
	size_t i;

	if (!o->json) {
		printf("gcbench-netem %s (helper protocol %d)\n", GC_VERSION, GC_NETEM_PROTOCOL);
		return 0;
	}
	printf("{\"program\":\"gcbench-netem\",\"version\":\"%s\",\"protocol\":%d,"
	       "\"libnl\":\"%s\",\"operations\":[", GC_VERSION, GC_NETEM_PROTOCOL,
	       gc_netem_libnl_version());
	for (i = 0; i < N_OPS; i++)
		printf("%s\"%s\"", i ? "," : "", ops[i].name);
	printf("],\"reserved\":[\"flows\"]}\n");
	return 0;
}

static const struct netem_op *find_op(const char *name)
{
	size_t i;

	for (i = 0; i < N_OPS; i++)
		if (!strcmp(name, ops[i].name))
			return &ops[i];
	return NULL;
}

/* The one place every operation runs through, after its options parsed: where a
 * site's policy check (which devices, which rates, who) wraps them all. */
static int run_op(const struct netem_op *op, const struct opts *o)
{
	if (op->needs_dev && !o->dev) {
		gc_error("%s needs --dev IFACE; see 'gcbench-netem --help'", op->name);
		return GC_EXIT_USAGE;
	}
	return op->fn(o);
}

static int unknown_command(const char *word)
{
	const char *all[N_OPS + 1];
	gc_err e;
	size_t i;

	for (i = 0; i < N_OPS; i++)
		all[i] = ops[i].name;
	all[N_OPS] = "help";
	gc_opts_unknown(&e, "command", word, NULL, gc_suggest(word, all, N_OPS + 1),
			"gcbench-netem --help");
	gc_error("%s", e.msg);
	return GC_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	const struct netem_op *op;
	struct opts o;
	int r;

	gc_log_init("gcbench-netem", GC_LOG_INFO);
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? GC_EXIT_USAGE : GC_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		print_version();
		return GC_EXIT_OK;
	}
	if (argv[1][0] == '-') {
		gc_opts p;
		gc_opts_init(&p, "gcbench-netem", NULL, 0, argc, argv);
		gc_opts_next(&p);
		gc_error("%s", p.err.msg);
		return GC_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help"))     /* help CMD: the usage covers every command */
		return find_op(argv[2]) ? (usage(stdout), GC_EXIT_OK) : unknown_command(argv[2]);
	if (!(op = find_op(argv[1])))
		return unknown_command(argv[1]);
	if ((r = parse_opts(argv[1], argc - 1, argv + 1, &o)))
		return r == 1 ? GC_EXIT_OK : GC_EXIT_USAGE;
#ifdef GC_NETEM_POLICY   /* the package's build: netem/policy.h wraps every operation */
	if ((r = gc_netem_policy_before(op->name, o.dev, o.netns, o.all)))
		return r;
	r = run_op(op, &o);
	gc_netem_policy_after(op->name, argc, argv, r);
	return r;
#else
	return run_op(op, &o);
#endif
}

/* gcbench provision: this build onto every host of an inventory (orchestrator/remote/provision.h). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "orchestrator/remote/provision.h"
#include "orchestrator/run/run_opts.h"
#include "orchestrator/run/run_setup.h"
#include "home.h"

static const char provision_usage[] =
"usage: gcbench provision [--inventory INV.yaml] [--install-deps] [--json]\n"
"\n"
"Copy this build (gcbench, gcbench-worker, gcbench-netem, gcbench-probe) to every host\n"
"of the inventory over ssh, into ~/.cache/gcbench/HASH/ (HASH: the build's content\n"
"hash), verify the copy with sha256sum, and check that each binary runs there. A host\n"
"that has the build already is only verified (one ssh round trip). A missing shared\n"
"library is named with its Debian package. Then the hosts' environments are compared:\n"
"different MPI (major.minor) or NCCL versions are refused with a table, other\n"
"differences are warned about. Last, whether the login may shape on each host (root,\n"
"CAP_NET_ADMIN, 'sudo: true' with a sudoers line, or the cap_net_admin file\n"
"capability). 'gcbench run' does all this first (unless --no-provision).\n"
"\n"
"  --inventory FILE  hosts (default: 'local: 4', the local emulated cluster; root)\n"
"  --install-deps    apt-get install a missing library's package (needs a root login)\n"
"  --json            the hosts as a JSON array of {\"host\", \"bin_dir\"}\n"
"\n"
"example:\n"
"  gcbench provision --inventory experiments/inventory-cluster.example.yaml\n";

static void provision_help(FILE *f)
{
	fputs(provision_usage, f);
}

static const struct gc_opt provision_opts[] = {
	{ "--install-deps", NULL, 0, 1 }, { "--inventory", NULL, GC_OPT_ARG, 2 },
	{ "--json", NULL, 0, 3 },
};

static int print_hosts(const struct gc_sweep_ctx *c, int json)
{
	gc_buf b;
	gc_json j;

	if (!json) {
		for (size_t i = 0; i < c->n_nodes; i++)
			printf("%s %s\n", c->nodes[i].name, c->nodes[i].bin_dir);
		return 0;
	}
	gc_buf_init(&b);
	gc_json_init(&j, &b, 0);
	gc_json_arr_open(&j);
	for (size_t i = 0; i < c->n_nodes; i++) {
		gc_json_obj_open(&j);
		gc_json_str_field(&j, "host", c->nodes[i].name);
		gc_json_str_field(&j, "bin_dir", c->nodes[i].bin_dir);
		gc_json_obj_close(&j);
	}
	gc_json_arr_close(&j);
	return gc_cli_json_print(&b, &j);
}

int cmd_provision(int argc, char **argv)
{
	struct gc_run_opts o = { 0 };
	struct gc_provision_opts po = { .check_shape = 1 };   /* may the login shape there? */
	struct gc_sweep_ctx c = { .o = &o };
	char lockpath[1200], self[PATH_MAX];
	static struct gc_build b;
	gc_err e = { "" };
	gc_opts p;
	int r, json = 0;
	gc_rc rc;

	gc_opts_init(&p, "gcbench provision", provision_opts, 3, argc, argv);
	while ((r = gc_opts_next(&p)) > 0) {
		if (r == 1)
			po.install_deps = 1;
		else if (r == 2)
			o.inventory_path = p.val;
		else
			json = 1;
	}
	if (r != GC_OPTS_END)
		return gc_cli_opts_stop(&p, r, provision_help);
	rc = gc_run_setup_nodes(&o, &c, NULL, lockpath, sizeof(lockpath), &e);
	gc_self_dir(self, sizeof(self));
	rc = rc ? rc : gc_build_init(&b, self, NULL, 0, &e);
	rc = rc ? rc : gc_provision_nodes(c.nodes, c.n_nodes, &b, &po, &e);

	if (!rc && print_hosts(&c, json))
		rc = GC_E_NOMEM;
	if (rc)
		gc_error("%s", e.msg);
	gc_run_release_nodes(&c);
	return gc_exit_code(rc);
}

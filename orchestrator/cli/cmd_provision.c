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
"\n";

static const char *inventory;
static int install_deps, json;
static const struct gc_option provision_opts[] = {
	GC_OPTION_STRING("--inventory", NULL, &inventory, "FILE",
			 "hosts (default: 'local: 4', the local emulated cluster; root)"),
	GC_OPTION_FLAG("--install-deps", NULL, &install_deps,
		       "apt-get install a missing library's package (needs a root login)"),
	GC_OPTION_FLAG("--json", NULL, &json, "the hosts as a JSON array of {\"host\", \"bin_dir\"}"),
};

static void provision_help(FILE *f)
{
	fputs(provision_usage, f);
	gc_opts_usage(f, provision_opts, sizeof provision_opts / sizeof provision_opts[0], 20);
	fputs("\nexample:\n"
	      "  gcbench provision --inventory experiments/inventory-cluster.example.yaml\n", f);
}

static int print_hosts(const struct gc_sweep_ctx *c)
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
	int r;
	gc_rc rc;

	gc_opts_decl_init(&p, "gcbench provision", provision_opts,
			  sizeof provision_opts / sizeof provision_opts[0], argc, argv, NULL);
	if ((r = gc_opts_parse_all(&p)) != GC_OPTS_END)
		return gc_cli_opts_stop(&p, r, provision_help);
	po.install_deps = install_deps;
	o.inventory_path = inventory;
	rc = gc_run_setup_nodes(&o, &c, NULL, lockpath, sizeof(lockpath), &e);
	gc_self_dir(self, sizeof(self));
	rc = rc ? rc : gc_build_init(&b, self, NULL, 0, &e);
	rc = rc ? rc : gc_provision_nodes(c.nodes, c.n_nodes, &b, &po, &e);

	if (!rc && print_hosts(&c))
		rc = GC_E_NOMEM;
	if (rc)
		gc_error("%s", e.msg);
	gc_run_release_nodes(&c);
	return gc_exit_code(rc);
}

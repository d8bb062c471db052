/* gcbench provision: this build onto every host of an inventory (orchestrator/remote/provision.h). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "orchestrator/remote/provision.h"
#include "orchestrator/run/run.h"
#include "orchestrator/run/run_setup.h"

static const char provision_usage[] =
"usage: gcbench provision [--inventory INV.yaml] [--install-deps]\n"
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
"\n"
"example:\n"
"  gcbench provision --inventory experiments/inventory-cluster.example.yaml\n";

int cmd_provision(int argc, char **argv)
{
	struct gc_run_opts o = { 0 };
	struct gc_provision_opts po = { .check_shape = 1 };   /* may the login shape there? */
	struct gc_sweep_ctx c = { .o = &o };
	char lockpath[1200], self[PATH_MAX];
	static struct gc_build b;
	gc_err e = { "" };
	gc_rc rc;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(provision_usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "--install-deps")) {
			po.install_deps = 1;
		} else if (!strcmp(argv[i], "--inventory") && i + 1 < argc) {
			o.inventory_path = argv[++i];
		} else {
			gc_error("unknown option '%s' for provision; see 'gcbench provision --help'",
				 argv[i]);
			return 2;
		}
	}
	rc = gc_run_setup_nodes(&o, &c, lockpath, sizeof(lockpath), &e);
	gc_self_dir(self, sizeof(self));
	rc = rc ? rc : gc_build_init(&b, self, NULL, 0, &e);
	rc = rc ? rc : gc_provision_nodes(c.nodes, c.n_nodes, &b, &po, &e);

	for (size_t i = 0; !rc && i < c.n_nodes; i++)
		printf("%s %s\n", c.nodes[i].name, c.nodes[i].bin_dir);
	if (rc)
		gc_error("%s", e.msg);
	gc_run_release_nodes(&c);
	return gc_exit_code(rc);
}

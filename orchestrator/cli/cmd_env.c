/* gcbench env: this host's versions, as stored with every run. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "orchestrator/remote/env_probe.h"
#include "log.h"
#include "strutil.h"

#ifndef GC_VERSION
#define GC_VERSION "unknown"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench env [--json] [--tag TAG]\n\n"
		"Print this host's GPU model and count, NVIDIA driver, CUDA, NCCL, MPI, kernel,\n"
		"libnl, SQLite and gcbench versions and its TCP congestion control: the record\n"
		"gcbench stores with every run (table 'environments'), so that speedups can be\n"
		"compared across driver and NCCL versions. Nothing is required: what is not\n"
		"installed prints as '(not found)' (NCCL and CUDA are looked up at run time).\n\n"
		"options:\n"
		"  --json       one JSON object, with sortable integers (<field>_num =\n"
		"               major*1000000 + minor*1000 + patch) beside each version\n"
		"  --tag TAG    a label to store with the environment (e.g. 'after-upgrade')\n\n"
		"example:\n"
		"  gcbench env --json | jq .nccl\n");
}

int cmd_env(int argc, char **argv)
{
	struct gc_envinfo info;
	const char *tag = "";
	int json = 0;
	char buf[4096];

	static const struct gc_opt env_opts[] = {
		{ "--json", NULL, 0, 1 }, { "--tag", NULL, GC_OPT_ARG, 2 },
	};
	gc_opts o;
	int r;

	gc_opts_init(&o, "gcbench env", env_opts, 2, argc, argv);
	while ((r = gc_opts_next(&o)) > 0) {
		if (r == 1)
			json = 1;
		else
			tag = o.val;
	}
	if (r != GC_OPTS_END)
		return gc_cli_opts_stop(&o, r, usage);
	gc_envinfo_probe(&info, GC_VERSION);
	gc_strlcpy(info.tag, tag, sizeof(info.tag));
	if (!json) {
		gc_envinfo_print(&info, stdout);
		return 0;
	}
	if (gc_envinfo_json(&info, buf, sizeof(buf))) {
		gc_error("cannot format the environment as JSON: it is longer than %zu bytes",
			 sizeof(buf));
		return GC_EXIT_ENV;
	}
	printf("%s\n", buf);
	return 0;
}

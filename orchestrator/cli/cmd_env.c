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

static const char *tag = "";
static int json;
static const struct gc_option env_opts[] = {
	GC_OPTION_FLAG("--json", NULL, &json,
		       "one JSON object, with sortable integers (<field>_num =\n"
		       "major*1000000 + minor*1000 + patch) beside each version"),
	GC_OPTION_STRING("--tag", NULL, &tag, "TAG",
			 "a label to store with the environment (e.g. 'after-upgrade')"),
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench env [--json] [--tag TAG]\n\n"
		"Print this host's GPU model and count, NVIDIA driver, CUDA, NCCL, MPI, kernel,\n"
		"libnl, SQLite and gcbench versions and its TCP congestion control: the record\n"
		"gcbench stores with every run (table 'environments'), so that speedups can be\n"
		"compared across driver and NCCL versions. Nothing is required: what is not\n"
		"installed prints as '(not found)' (NCCL and CUDA are looked up at run time).\n\n"
		"options:\n");
	gc_opts_usage(f, env_opts, sizeof env_opts / sizeof env_opts[0], 15);
	fputs("\nexample:\n"
	      "  gcbench env --json | jq .nccl\n", f);
}

int cmd_env(int argc, char **argv)
{
	struct gc_envinfo info;
	char buf[4096];
	gc_opts o;
	int r;

	gc_opts_decl_init(&o, "gcbench env", env_opts, sizeof env_opts / sizeof env_opts[0], argc,
			  argv, NULL);
	if ((r = gc_opts_parse_all(&o)) != GC_OPTS_END)
		return gc_cli_opts_stop(&o, r, usage);
	gc_envinfo_probe(&info, GC_VERSION);
	gc_strlcpy(info.tag, tag, sizeof(info.tag));
	if (!json) {
		gc_envinfo_print(&info, stdout);
		return GC_EXIT_OK;
	}
	if (gc_envinfo_json(&info, buf, sizeof(buf))) {
		gc_error("cannot format the environment as JSON: it is longer than %zu bytes",
			 sizeof(buf));
		return GC_EXIT_ENV;
	}
	printf("%s\n", buf);
	return GC_EXIT_OK;
}

/* gcbench reap: end the MPI daemons and ranks an earlier gcbench run left on this host. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "orchestrator/remote/reap.h"

static int dry;
static const struct gc_option reap_opts[] = {
	GC_OPTION_FLAG("--dry-run", NULL, &dry, "list them, end nothing"),
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench reap [--dry-run]\n\n"
		"End the processes an earlier sweep left on this host: OpenMPI daemons (orted)\n"
		"and gcbench-worker ranks of a job whose mpirun is gone, typically because this\n"
		"host's link went down mid-point. gcbench run marks every job it launches\n"
		"(--mca " GC_REAP_MCA " <run id>) and runs 'gcbench reap' on each node when a\n"
		"sweep starts and after a point that failed, so you rarely need it by hand.\n\n"
		"Only your own processes in this host's network namespace that carry the mark are\n"
		"touched: SIGTERM, then SIGKILL 2 s later. Each prints one line.\n\n"
		"options:\n");
	gc_opts_usage(f, reap_opts, sizeof reap_opts / sizeof reap_opts[0], 15);
}

int cmd_reap(int argc, char **argv)
{
	int n = 0, r;
	gc_opts o;
	gc_err e;

	gc_opts_decl_init(&o, "gcbench reap", reap_opts, sizeof reap_opts / sizeof reap_opts[0],
			  argc, argv, NULL);
	if ((r = gc_opts_parse_all(&o)) != GC_OPTS_END)
		return gc_cli_opts_stop(&o, r, usage);
	if (gc_reap(dry, 2.0, stdout, &n, &e)) {
		gc_error("%s", e.msg);
		return GC_EXIT_ENV;
	}
	return GC_EXIT_OK;
}

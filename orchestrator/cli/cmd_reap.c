/* gcbench reap: end the MPI daemons and ranks an earlier gcbench run left on this host. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "log.h"
#include "orchestrator/remote/reap.h"

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
		"options:\n"
		"  --dry-run    list them, end nothing\n");
}

int cmd_reap(int argc, char **argv)
{
	int dry = 0, n = 0;
	gc_err e;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--dry-run")) {
			dry = 1;
		} else {
			gc_error("unknown option '%s' for reap; see 'gcbench reap --help'", argv[i]);
			return 2;
		}
	}
	if (gc_reap(dry, 2.0, stdout, &n, &e)) {
		gc_error("%s", e.msg);
		return GC_EXIT_ENV;
	}
	return 0;
}

/* tests/tools/slurm_probe.c: the SLURM module (orchestrator/remote/slurm.h) against the
 * allocation it runs in, for tests/integration/test_slurm.sh. Prints key=value lines:
 * the allocation from the environment, its host names (scontrol show hostnames LIST)
 * and whether the job is exclusive (scontrol show job -o ID). Exit 0, 1 on an error
 * (the message on stderr), 3 outside an allocation.
 *   slurm_probe script NODES TIME OUTPUT CMD [ARG...]: print the sbatch script of a sweep
 *   with caps (gc_slurm_sbatch_script) that runs CMD ARG... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/remote/slurm.h"
#include "proc.h"

static int script(int argc, char **argv)
{
	gc_slurm_submit s = { 0 };
	gc_buf b = GC_BUF_INIT;
	gc_err e = { { 0 } };

	if (argc < 6) {
		fprintf(stderr, "usage: slurm_probe script NODES TIME OUTPUT CMD [ARG...]\n");
		return 2;
	}
	s.nodes = atoi(argv[2]);
	s.time = argv[3];
	s.output = argv[4];
	s.caps = 1;
	s.job_name = "gcbench-test";
	s.command = (const char *const *)argv + 5;
	if (gc_slurm_sbatch_script(&s, &b, &e)) {
		fprintf(stderr, "slurm_probe: %s\n", e.msg);
		return 1;
	}
	fputs(gc_buf_str(&b), stdout);
	gc_buf_release(&b);
	return 0;
}

int main(int argc, char **argv)
{
	gc_slurm_alloc a;
	gc_slurm_job j;
	gc_err e = { { 0 } };
	char **hosts = NULL;
	int n = 0;
	gc_rc rc;

	if (argc > 1 && !strcmp(argv[1], "script"))
		return script(argc, argv);
	if ((rc = gc_slurm_alloc_from_env(NULL, &a, &e))) {
		fprintf(stderr, "slurm_probe: %s\n", e.msg);
		return rc == GC_E_NOTFOUND ? 3 : 1;
	}
	printf("job_id=%s\nnodelist=%s\npartition=%s\nnum_nodes=%d\ngpus_per_node=%d\n"
	       "gpus_from=%s\n", a.job_id, a.nodelist, a.partition, a.num_nodes, a.gpus_per_node,
	       a.gpus_from);
	if ((rc = gc_slurm_expand_nodelist(a.nodelist, &hosts, &n, &e))) {
		fprintf(stderr, "slurm_probe: %s\n", e.msg);
		return 1;
	}
	printf("hosts=");
	for (int i = 0; i < n; i++)
		printf("%s%s", i ? "," : "", hosts[i]);
	printf("\n");
	gc_argv_free(hosts);
	if ((rc = gc_slurm_job_info(a.job_id, &j, &e))) {
		fprintf(stderr, "slurm_probe: %s\n", e.msg);
		return 1;
	}
	printf("job_partition=%s\njob_nodelist=%s\nstate=%s\noversubscribe=%s\nexclusive=%d\n",
	       j.partition, j.nodelist, j.state, j.oversubscribe, j.exclusive);
	return 0;
}

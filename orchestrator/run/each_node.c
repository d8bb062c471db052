/* One operation on several nodes at once (orchestrator/run/each_node.h). */
#include "each_node.h"

#include <pthread.h>
#include <stdlib.h>

struct job {
	size_t i;
	gc_rc (*fn)(size_t i, void *arg, gc_err *e);
	void *arg;
	gc_rc rc;
	gc_err e;
	pthread_t t;
	int started;
};

static void *job_main(void *p)
{
	struct job *j = p;

	j->rc = j->fn(j->i, j->arg, &j->e);
	return NULL;
}

gc_rc gc_each_node(size_t n, gc_rc (*fn)(size_t i, void *arg, gc_err *e), void *arg,
		   gc_err *e)
{
	struct job *jobs = n > 1 ? calloc(n, sizeof(*jobs)) : NULL;
	gc_rc rc = GC_OK;
	size_t i;

	if (!jobs) {   /* one node (or no memory): in this thread */
		for (i = 0; i < n; i++) {
			gc_err ie;
			gc_rc r = fn(i, arg, &ie);
			if (r && !rc) {
				rc = r;
				*e = ie;
			}
		}
		return rc;
	}
	for (i = 0; i < n; i++) {
		jobs[i] = (struct job){ .i = i, .fn = fn, .arg = arg };
		if (i >= GC_EACH_NODE_MAX) {   /* a wave ends before the next starts */
			struct job *w = &jobs[i - GC_EACH_NODE_MAX];
			if (w->started)
				pthread_join(w->t, NULL);
			else
				job_main(w);
			w->started = -1;
		}
		jobs[i].started = !pthread_create(&jobs[i].t, NULL, job_main, &jobs[i]);
	}
	for (i = 0; i < n; i++) {
		if (jobs[i].started == 1)
			pthread_join(jobs[i].t, NULL);
		else if (jobs[i].started == 0)
			job_main(&jobs[i]);
		if (jobs[i].rc && !rc) {
			rc = jobs[i].rc;
			*e = jobs[i].e;
		}
	}
	free(jobs);
	return rc;
}

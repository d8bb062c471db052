/* Per-phase timing of a point (orchestrator/run/phases.h). */
#include "phases.h"

#include <string.h>

#include "timing.h"

static const char *const setup_names[GC_SETUP__N] = { "setup_lock", "setup_provision",
						       "setup_restore", "setup_check",
						       "setup_env" };

void gc_phase_init(struct gc_phase_clock *k)
{
	int i;

	gc_phase_reset(k);
	for (i = 0; i < GC_SETUP__N; i++)
		k->setup[i] = -1;
	k->setup_pending = 0;
}

void gc_phase_reset(struct gc_phase_clock *k)
{
	memset(k->s, 0, sizeof(k->s));
	memset(k->timed, 0, sizeof(k->timed));
	k->cur = GC_PH_NONE;
	k->t0 = 0;
}

void gc_phase_to(struct gc_phase_clock *k, int ph)
{
	uint64_t now = gc_now_ns();

	if (k->cur >= 0 && k->cur < GC_PH__N) {
		k->s[k->cur] += (double)(now - k->t0) * 1e-9;
		k->timed[k->cur] = 1;
	}
	k->cur = ph >= 0 && ph < GC_PH__N ? ph : GC_PH_NONE;
	k->t0 = now;
}

void gc_setup_mark(struct gc_phase_clock *k, enum gc_setup_phase ph, uint64_t *t0)
{
	uint64_t now = gc_now_ns();

	if (!*t0) {
		*t0 = now;
		return;
	}
	k->setup[ph] = (k->setup[ph] > 0 ? k->setup[ph] : 0) + (double)(now - *t0) * 1e-9;
	k->setup_pending = 1;
	*t0 = 0;
}

gc_rc gc_phase_store(struct gc_phase_clock *k, gc_db *db, int64_t run_id, gc_err *e)
{
	gc_rc rc = GC_OK;
	int i;

	for (i = 0; !rc && i < GC_PH__N; i++)
		if (k->timed[i])
			rc = gc_db_run_phase_add(db, run_id, gc_db_phases[i], k->s[i], e);
	for (i = 0; !rc && k->setup_pending && i < GC_SETUP__N; i++)
		if (k->setup[i] >= 0)
			rc = gc_db_run_phase_add(db, run_id, setup_names[i], k->setup[i], e);
	if (!rc)
		k->setup_pending = 0;
	return rc;
}

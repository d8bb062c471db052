/* orchestrator/run/phases.h: where a point's time goes (docs/database.md, "Overhead").
 *
 * A point passes the phases of enum gc_phase in order; gc_phase_to() ends the current
 * phase and starts the next, on the monotonic clock, and gc_phase_store() writes the
 * timed ones with the run (run_phases, through db/). A sweep's setup (host locks,
 * provisioning, restore, the provisioning check, the environments) is timed once per
 * `gcbench run` process into the setup_* phases and stored with the first run it starts.
 */
#ifndef GC_PHASES_H
#define GC_PHASES_H

#include <stdint.h>

#include "db/db.h"
#include "result.h"

/* In db/'s gc_db_phases order: the stored names are gc_db_phases[phase]. */
enum gc_phase { GC_PH_REAP, GC_PH_PREPARE, GC_PH_SHAPE, GC_PH_CALIBRATE, GC_PH_LAUNCH,
		GC_PH_COLLECT, GC_PH_INGEST, GC_PH_CLEANUP, GC_PH_RECORD, GC_PH__N,
		GC_PH_NONE = -1 };

enum gc_setup_phase { GC_SETUP_LOCK, GC_SETUP_PROVISION, GC_SETUP_RESTORE, GC_SETUP_CHECK,
		      GC_SETUP_ENV, GC_SETUP__N };

struct gc_phase_clock {
	double s[GC_PH__N];      /* seconds per phase, accumulated */
	int timed[GC_PH__N];     /* 1 when the phase ran (0 s is a time too) */
	int cur;                 /* enum gc_phase or GC_PH_NONE */
	uint64_t t0;             /* when cur began (ns, monotonic) */
	double setup[GC_SETUP__N];   /* a process's setup, < 0 when not timed */
	int setup_pending;       /* 1 until the setup is stored with a run */
};

/* Nothing timed, no setup (once per process). */
void gc_phase_init(struct gc_phase_clock *k);

/* Nothing timed yet; setup untouched (before each point). */
void gc_phase_reset(struct gc_phase_clock *k);

/* End the current phase (if any) and start ph (GC_PH_NONE: only end). */
void gc_phase_to(struct gc_phase_clock *k, int ph);

/* Time one setup phase: *t0 = 0 starts it; the call after adds the seconds since. */
void gc_setup_mark(struct gc_phase_clock *k, enum gc_setup_phase ph, uint64_t *t0);

/* Every timed phase of k with run_id, and the setup once (then setup_pending = 0). */
gc_rc gc_phase_store(struct gc_phase_clock *k, gc_db *db, int64_t run_id, gc_err *e);

#endif

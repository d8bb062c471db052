/* db/q_calibration.h: an earlier sweep's calibration, found to reuse it by reference
 * (`gcbench run --calibration-max-age`, docs/spec.md "Calibration").
 *
 * A probe measures the goodput and RTT of a link at a cap. A later sweep may reuse it
 * when nothing about that link can have changed: the same hosts (by name) with the
 * same environments (run_hosts: hostname, kernel, versions, tcp_cc, tag, gcbench
 * build), the same cap per sender and the same delay, no bandwidth trace or background
 * load in either run, and a probe younger than the age limit.
 */
#ifndef GC_Q_CALIBRATION_H
#define GC_Q_CALIBRATION_H

#include <stddef.h>
#include <stdint.h>

#include "db.h"

struct gc_db_cal_pair {
	const char *src, *dst;        /* host names, as in links */
	uint64_t cap_bps;             /* the sender's cap */
	double bps, rtt;              /* out: what the probe measured */
};

/* For run_id (begun, its hosts added): the newest run that probed every pair at its
 * cap, with run_id's latency_s, at or after not_before (seconds since the epoch), on
 * hosts whose environments equal run_id's, neither run with a trace or background
 * load. *probe_run = that run (it probed: its calibration_run is itself or NULL) and
 * each pair's bps and rtt; *probe_run = 0 when there is none. */
gc_rc gc_db_calibration_find(gc_db *db, int64_t run_id, struct gc_db_cal_pair *pairs,
			     size_t n, double not_before, int64_t *probe_run, gc_err *e);

#endif

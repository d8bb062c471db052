#!/usr/bin/env bash
# tools/demo-overhead.sh: the demo's per-point overhead (issue #30, docs/measurements.md).
#
#   sudo tools/demo-overhead.sh [--bin DIR] [--spec SPEC] [--keep DB] [--twice]
#
# Runs SPEC (default experiments/quickstart.yaml, the demo's sweep) with DIR/gcbench
# (default build/bin) on a private 4-node local cluster into a fresh database, then
# prints the sweep's wall time, the points' mean overhead (runs.finished - started -
# rank 0's summed t_iter) and, where the database has run_phases, the mean of each
# phase. The cluster is brought down at the end. DIR may be another checkout's build
# (the "before" of a comparison): the overhead needs nothing newer than runs and
# iterations. --twice runs the sweep a second time into the same database, as a
# user's second `make demo` would (a new sweep, whose caps reuse the first one's
# calibrations), and prints both. Needs root (namespaces, tc); give it a quiet machine.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/bin spec=$root/experiments/quickstart.yaml keep= twice=
while [ $# -gt 0 ]; do
	case $1 in
	--bin) bin=${2:?--bin needs a folder}; shift 2 ;;
	--spec) spec=${2:?--spec needs a file}; shift 2 ;;
	--keep) keep=${2:?--keep needs a path}; shift 2 ;;
	--twice) twice=1; shift ;;
	-h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo-overhead: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[ "$(id -u)" -eq 0 ] || { echo "demo-overhead: needs root (network namespaces and tc): run it with sudo" >&2; exit 2; }
[ -x "$bin/gcbench" ] || { echo "demo-overhead: no '$bin/gcbench': build first (make) or give --bin DIR" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "demo-overhead: needs the sqlite3 command (apt-get install sqlite3)" >&2; exit 2; }

work=$(mktemp -d /tmp/gcbench-ovh.XXXXXX)
name=ovh$(( $$ % 100000 ))
export GCBENCH_HOME=$work/home
cleanup() {
	"$bin/gcbench" cluster down --name "$name" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
printf 'local: 4\nname: %s\n' "$name" >"$work/inv.yaml"
db=${keep:-$work/o.db}
rm -f "$db" "$db-wal" "$db-shm"
"$bin/gcbench" cluster up 4 --name "$name" >/dev/null || exit 3   # not timed, as in a warm demo
# one sweep: run it, then its figures (sweep id $1)
sweep() {
	local start end rc sid=$1
	start=$(date +%s.%N)
	"$bin/gcbench" run "$spec" --inventory "$work/inv.yaml" --db "$db" >"$work/run.log" 2>&1
	rc=$?
	end=$(date +%s.%N)
	if [ $rc -ne 0 ]; then
		grep -E 'error|failed in' "$work/run.log" | tail -8 >&2
		echo "demo-overhead: the sweep did not end ok (exit $rc); the figures below are its ok points'" >&2
		[ "$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status = 'ok' AND sweep_id = $sid" 2>/dev/null)" -gt 0 ] 2>/dev/null || exit 3
	fi
	sqlite3 "$db" "PRAGMA query_only = 1;
	SELECT printf('sweep %d: wall %.1f s, %d ok points, mean overhead %.2f s per point (min %.2f, max %.2f, first %.2f), iterations %.1f s in all',
		$sid, $end - $start, count(*), avg(o), min(o), max(o),
		(SELECT o FROM (SELECT id, finished - started - (SELECT sum(t_iter) FROM iterations i
		  WHERE i.run_id = r2.id AND i.rank = 0) AS o FROM runs r2 WHERE sweep_id = $sid
		  ORDER BY id LIMIT 1)), sum(it))
	FROM (SELECT r.finished - r.started - t.it AS o, t.it
	      FROM runs r JOIN (SELECT run_id, sum(t_iter) AS it FROM iterations WHERE rank = 0
				GROUP BY run_id) t ON t.run_id = r.id WHERE r.status = 'ok' AND r.sweep_id = $sid);"
	if [ "$(sqlite3 "$db" "SELECT count(*) FROM sqlite_master WHERE name = 'run_overhead'")" = 1 ]; then
		sqlite3 "$db" "PRAGMA query_only = 1;
			SELECT printf('mean per point (s): reap %.3f, prepare %.3f, shape %.3f, calibrate %.3f, ranks %.3f (mpirun and the ranks'' start and end: launch less the iterations), collect %.3f, ingest %.3f, cleanup %.3f, record %.3f',
			       sum(coalesce(reap_s, 0)) / count(*), avg(prepare_s), avg(shape_s), avg(calibrate_s), avg(ranks_s),
			       avg(collect_s), avg(ingest_s), avg(cleanup_s), avg(record_s)) FROM run_overhead WHERE sweep_id = $sid;
			SELECT 'setup before the first point (s): ' || group_concat(printf('%s %.2f', phase, seconds), ', ')
			FROM run_phases WHERE phase LIKE 'setup%' AND run_id IN (SELECT id FROM runs WHERE sweep_id = $sid);"
	fi
}
sweep 1
[ -z "$twice" ] || sweep 2

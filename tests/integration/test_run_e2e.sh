#!/usr/bin/env bash
# End to end: a short sweep on its own 3-node local cluster (tiny workload, two
# bandwidths, two methods) lands the expected rows, with caps measured and restored,
# and a rerun continues a sweep with a failed point, never a finished one.
. "$(dirname "$0")/../lib.sh"
cases="sweep_ok iteration_rows links_measured caps_restored phases_stored env_captured resume security_spec model_predicts"
need_sweep $cases || exit 0

name=e2e$(( $$ % 100000 ))
work=$(mktemp -d /tmp/gcbench-e2e.XXXXXX)
export GCBENCH_HOME=$work/home
state_dir=/run/gcbench/netem   # gcbench-netem runs on the nodes with its default
cleanup() { "$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT

cluster_up 3 $cases || exit 0
cat >"$work/spec.yaml" <<YAML
name: e2e
workload: replay
models: [tiny]
methods: [syncsgd, signsgd]
baseline: syncsgd
bandwidth: [1gbit, 2gbit]
world_size: 3
batch: 8
iterations: 4
warmup: 1
timeout: 120
YAML
db=$work/e2e.db
q() { sqlite3 "$db" "$1"; }

if "$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" >"$work/out" 2>&1; then
	n=$(q "SELECT count(*) FROM runs WHERE status='ok'")
	[ "$n" = 4 ] && pass sweep_ok || fail sweep_ok "$n ok runs, expected 4: $(tail -5 "$work/out")"
else
	fail sweep_ok "gcbench run failed: $(tail -8 "$work/out" | tr '\n' ' ')"
fi

# every node's environment row equals what `gcbench env --json` prints on that node
# (its own hostname, kernel, MPI, gcbench), field by field
env_cmp='
import json, sqlite3, sys
db, node = sys.argv[1], sys.argv[2]
want = json.loads(sys.stdin.read())
con = sqlite3.connect(db)
con.row_factory = sqlite3.Row
rows = con.execute("SELECT DISTINCT e.* FROM environments e JOIN run_hosts h ON h.env_id = e.id "
                   "WHERE h.node = ?", (node,)).fetchall()
assert len(rows) == 1, "%d environment rows for %s" % (len(rows), node)
row = dict(rows[0])
for k, v in want.items():
    assert row.get(k) == v, "%s: %s stored %r, the node says %r" % (node, k, row.get(k), v)
for k in ("host", "kernel", "mpi", "gcbench"):
    assert row[k], "%s: %s is empty" % (node, k)
'
bad=""
command -v python3 >/dev/null 2>&1 || bad="skip"
empty=$(q "SELECT count(*) FROM environments WHERE host = '' OR kernel = '' OR mpi = '' OR gcbench = ''")
[ "$empty" = 0 ] && [ "$(q 'SELECT count(*) FROM environments')" -ge 1 ] || bad="$bad rows with empty fields: $empty;"
# where each node has this build: what gcbench provision says (it copies nothing now)
dirs=$("$BIN/gcbench" provision --inventory "$inv" 2>/dev/null)
for i in 1 2 3; do
	[ "$bad" = skip ] && break
	out=""
	d=$(awk -v n="n$i" '$1 == n { print $2 }' <<<"$dirs")
	j=$(ssh -F "$GCBENCH_HOME/clusters/$name/ssh_config" "n$i" "${d:-/nonexistent}/gcbench env --json" 2>&1) &&
		out=$(python3 -c "$env_cmp" "$db" "n$i" <<<"$j" 2>&1) || bad="$bad $(tail -n 1 <<<"${out:-$j}");"
done
if [ "$bad" = skip ]; then skip env_captured "'python3' is not installed"
elif [ -z "$bad" ]; then pass env_captured
else fail env_captured "$bad $(q 'SELECT host, kernel, mpi, gcbench FROM environments' | tr '\n' ' ')"; fi

# 4 runs x 3 ranks x (4 + 1) iterations
n=$(q "SELECT count(*) FROM iterations")
[ "$n" = 60 ] && pass iteration_rows || fail iteration_rows "$n rows, expected 60"

# calibration: one link row per run, goodput within 70-100% of the cap's 95.6%
bad=$(q "SELECT count(*) FROM links WHERE goodput_bps IS NULL OR goodput_bps < 0.7 * 0.956 * cap_bps OR goodput_bps > 1.02 * cap_bps")
n=$(q "SELECT count(*) FROM links")
if [ "$n" = 4 ] && [ "$bad" = 0 ]; then pass links_measured
else fail links_measured "$n link rows, $bad outside 70-102% of the cap: $(q 'SELECT cap_bps, goodput_bps FROM links' | tr '\n' ' ')"; fi

left=""
for i in 1 2 3; do
	if tc -n "gcb-$name-n$i" qdisc show dev eth0 | grep -Eq 'tbf|htb'; then left="$left n$i"; fi
done
# state files: the host's, and each node's own (a node has its own /run/gcbench)
states=$(ls "$state_dir" 2>/dev/null | grep "gcb-$name-"
	for i in 1 2 3; do ssh -F "$GCBENCH_HOME/clusters/$name/ssh_config" "n$i" ls "$state_dir" 2>/dev/null; done)
# and no record directory is left on the nodes (each run's after ingest, the sweep's at
# its end)
recs=$(for i in 1 2 3; do ssh -F "$GCBENCH_HOME/clusters/$name/ssh_config" "n$i" ls /tmp 2>/dev/null; done |
	grep gcbench-records)
[ -z "$left" ] && [ -z "$states" ] && [ -z "$recs" ] && pass caps_restored ||
	fail caps_restored "still capped:$left; state files: $states; record dirs left: $recs"

# where each point's time went (docs/database.md, "Overhead"): every run has its
# phases, the first also the sweep's setup; a cap's later runs name its first as
# their calibration; status shows the mean per sweep
ph=$(q "SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM run_phases p WHERE p.run_id = r.id
	AND p.phase IN ('prepare', 'shape', 'calibrate', 'launch', 'collect', 'ingest', 'cleanup', 'record')) = 8")
setup=$(q "SELECT group_concat(DISTINCT run_id) FROM run_phases WHERE phase = 'setup_check'")
cal=$(q "SELECT group_concat(r.calibration_run = (SELECT min(id) FROM runs f WHERE f.bw_cap_bps = r.bw_cap_bps), '')
	FROM runs r")
ovh=$(q "SELECT count(*) FROM run_overhead WHERE overhead_s > 0 AND ranks_s > 0 AND overhead_s < wall_s")
st=$("$BIN/gcbench" status --db "$db" 2>&1)
js=$("$BIN/gcbench" status --db "$db" --json 2>&1 | python3 -c 'import json, sys
d = json.load(sys.stdin); o = d["sweeps"][0]["overhead"]
print(o["runs"], o["phases_s"]["ranks"] > 0, all(r["overhead_s"] > 0 for r in d["runs"]))' 2>&1)
if [ "$ph" = 4 ] && [ "$setup" = 1 ] && [ "$cal" = 1111 ] && [ "$ovh" = 4 ] &&
   grep -q "overhead per point .* (mean of 4 runs): .*ranks" <<<"$st" && [ "$js" = "4 True True" ]; then
	pass phases_stored
else
	fail phases_stored "runs with all phases: $ph; setup on: $setup; calibration refs: $cal; overheads: $ovh; json: $js; status: $(grep overhead <<<"$st")"
fi

# resume: a sweep with a failed point is continued (only that point runs, in the same
# sweep; the other process's probe of its cap is reused, --calibration-max-age); a
# finished sweep is not: the next run measures every point again
q "UPDATE runs SET status = 'failed' WHERE id = (SELECT max(id) FROM runs); UPDATE sweeps SET status = 'failed'"
dry=$("$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --dry-run 2>&1)
if "$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" >"$work/out2" 2>&1 &&
   grep -q "continuing sweep 1 (failed, 3 points ok)" "$work/out2" && grep -q "3 of 4 points already done" "$work/out2" &&
   [[ "$dry" == *"resume: continuing sweep 1"* ]] && [[ "$dry" == *"(done: skipped)"* ]] &&
   [ "$(q 'SELECT count(*) FROM runs')" = 5 ] && [ "$(q 'SELECT group_concat(status) FROM sweeps')" = done ] &&
   grep -q "probe, reused" "$work/out2" && [ "$(q 'SELECT r.calibration_run = (SELECT min(id) FROM runs f
	WHERE f.bw_cap_bps = r.bw_cap_bps) AND r.calibration_run < r.id FROM runs r WHERE id = 5')" = 1 ]; then
	dry=$("$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --dry-run 2>&1)
	"$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --resume >"$work/out4" 2>&1; r1=$?
	"$BIN/gcbench" run "$work/spec.yaml" --inventory "$inv" --db "$db" --resume --new >/dev/null 2>&1; r2=$?
	if [[ "$dry" == *"resume: new sweep: sweep 1 of this spec on these environments finished"* ]] &&
	   [ "$r1" = 3 ] && grep -q "no unfinished sweep of this spec" "$work/out4" && [ "$r2" = 2 ] &&
	   [ "$(q 'SELECT count(*) FROM sweeps')" = 1 ]; then pass resume
	else fail resume "after the sweep finished: dry run '$(head -1 <<<"$dry")', --resume exit $r1 ($(tail -1 "$work/out4")), --resume --new exit $r2"; fi
else
	fail resume "the rerun did not continue the failed sweep (reusing its probe): dry run: $(head -1 <<<"$dry"); $(tail -5 "$work/out2" | tr '\n' ' '); calibration of run 5: $(q 'SELECT calibration_run FROM runs WHERE id = 5'); sweeps $(q 'SELECT group_concat(status) FROM sweeps'), $(q 'SELECT count(*) FROM runs') runs"
fi

# the performance model predicts every ok run of this sweep, and stores it
if "$BIN/gcbench" model --db "$db" >"$work/model" 2>&1 &&
   [ "$(q "SELECT count(*) FROM predictions p JOIN runs r ON r.id = p.run_id WHERE r.status = 'ok' AND p.t_iter > 0")" = 4 ] &&
   grep -q "^syncsgd  *2 " "$work/model" && grep -q "^signsgd  *2 " "$work/model"; then
	pass model_predicts
else
	fail model_predicts "$(q 'SELECT count(*) FROM predictions') predictions for 4 ok runs: $(tail -8 "$work/model" | tr '\n' ' ')"
fi

# a spec whose values try to reach a shell is refused before anything runs
sed 's/^models: \[tiny\]/models: ["tiny; touch \/tmp\/gcbench-pwned"]/' "$work/spec.yaml" >"$work/bad.yaml"
rm -f /tmp/gcbench-pwned
if ! "$BIN/gcbench" run "$work/bad.yaml" --inventory "$inv" --db "$db" >"$work/out3" 2>&1 &&
   [ ! -e /tmp/gcbench-pwned ] && [ "$(q 'SELECT count(*) FROM runs')" = 5 ]; then
	pass security_spec
else
	fail security_spec "unsafe model name was not refused: $(tail -3 "$work/out3" | tr '\n' ' ')"
fi

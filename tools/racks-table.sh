#!/usr/bin/env bash
# tools/racks-table.sh: sync SGD under an oversubscribed uplink, measured against the
# model (docs/netem.md, "Racks"). Brings up its own emulated cluster of 4 nodes in 2
# racks (removed at the end), runs one sweep per ring order, contiguous (n1 n2 n3 n4:
# one flow each way over the uplink) and alternating (n1 n3 n2 n4: every hop crosses, two
# flows each way), at oversubscription 1:1, 2:1 and 4:1 of hosts capped at RATE, and
# prints a markdown table: each run's uplink, the ring's share of it, the measured and
# the predicted iteration time (gcbench model fitted to all of these runs), and each
# time over its order's 1:1 time. Needs root. Take figures on a quiet machine.
# Usage: tools/racks-table.sh [RATE (1gbit)] [ITERATIONS (6)] [MODEL (resnet50)]
set -uo pipefail
rate=${1:-1gbit} iters=${2:-6} model=${3:-resnet50}
BUILD=${BUILD:-build}
G=$BUILD/bin/gcbench
[ "$(id -u)" = 0 ] || { echo "racks-table: needs root (namespaces, qdiscs)" >&2; exit 2; }
[ -x "$G" ] || { echo "racks-table: build first ('make'): $G" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "racks-table: needs sqlite3" >&2; exit 2; }
export GCBENCH_HOME=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-rackt.XXXXXX")
name=rkt-$(( $$ % 10000 ))
cleanup() { "$G" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$GCBENCH_HOME"; }
trap cleanup EXIT
"$G" cluster up 4 --racks 2 --name "$name" >/dev/null || { echo "racks-table: cluster up failed" >&2; exit 1; }
inv=$GCBENCH_HOME/clusters/$name/inventory.yaml
db=$GCBENCH_HOME/racks.db
for order in "n1 n2 n3 n4" "n1 n3 n2 n4"; do
	alt=$GCBENCH_HOME/inv-${order// /}.yaml
	"$(dirname "$0")"/inventory-order.py "$inv" $order >"$alt" ||
		{ echo "racks-table: cannot reorder '$inv'" >&2; exit 1; }
	cat >"$GCBENCH_HOME/spec.yaml" <<YAML
name: racks-table
workload: replay
models: [$model]
methods: [syncsgd]
bandwidth: [$rate]
world_size: [4]
batch: 8
compute_scale: 50
iterations: $iters
warmup: 1
timeout: 600
oversubscription: [1, 2, 4]
YAML
	"$G" run "$GCBENCH_HOME/spec.yaml" --inventory "$alt" --db "$db" >/dev/null 2>&1 ||
		echo "racks-table: the sweep over $order failed (see 'gcbench status')" >&2
done
"$G" model --db "$db" --no-store --json >"$GCBENCH_HOME/model.json" 2>/dev/null
sqlite3 -separator ' ' "$db" "SELECT r.id, r.placement, json_extract(r.network_json, '\$.uplink.ratio'),
	json_extract(r.network_json, '\$.uplink.rack_bps[0]'), COALESCE(json_extract(r.network_json,
	'\$.uplink.ring_bps'), 0), json_extract(r.network_json, '\$.uplink.max_flows')
	FROM runs r WHERE r.status = 'ok' ORDER BY r.id" >"$GCBENCH_HOME/runs.txt"
python3 - "$GCBENCH_HOME/model.json" "$GCBENCH_HOME/runs.txt" "$rate" "$iters" "$model" <<'PY'
import json, sys
runs = {r["run_id"]: r for r in json.load(open(sys.argv[1]))["runs"]}
print("| ring (hosts in rank order) | oversubscription | uplink | flows per uplink | ring's share | measured ms | model ms | error | measured / 1:1 | model / 1:1 |")
print("|---|---|---|---|---|---|---|---|---|---|")
base = {}
for line in open(sys.argv[2]):
    rid, place, ratio, up, share, flows = line.split()
    r = runs.get(int(rid))
    if not r or "predicted_s" not in r:
        continue
    order = " ".join(h.split(":")[0] for h in place.split(","))
    m, p = r["measured_s"], r["predicted_s"]
    if float(ratio) == 1:
        base[order] = (m, p)
    b = base.get(order, (m, p))
    print("| %s | %g:1 | %.0f Mbit/s | %s | %s | %.0f | %.0f | %+.1f%% | %.2f | %.2f |" % (
        order, float(ratio), float(up) / 1e6, flows,
        "%.0f Mbit/s" % (float(share) / 1e6) if float(share) else "-",
        m * 1e3, p * 1e3, (p / m - 1) * 100, m / b[0], p / b[1]))
print("\n(%s hosts, %s, sync SGD, 4 ranks, %s iterations; `sudo tools/racks-table.sh %s`)" % (
    sys.argv[3], sys.argv[5], sys.argv[4], " ".join(sys.argv[3:6])))
PY

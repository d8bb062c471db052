#!/usr/bin/env bash
# tools/trace-accuracy.sh: how closely gcbench-netem play follows a bandwidth trace, and
# what the player costs. For each trace, on a veth pair between two namespaces it makes
# (and removes), it runs a saturating TCP flow (iperf3 -P 4 where present, else
# gcbench-probe) while the player plays the trace, and compares the bytes the qdisc
# sent in each 1-s window (its own counters, layer-2 headers included) with the
# trace's mean over that window. Prints a markdown table (docs/netem.md, "Bandwidth
# traces"). Needs root. Take figures on a quiet machine.
# Environment: BUILD (default build), TRACES (default: the four rows below), KEEP_OUT
# (a path prefix: keep each run's JSON lines as PREFIX.TRACE.jsonl).
set -uo pipefail
secs=${1:-10}
BUILD=${BUILD:-build}
N=$BUILD/bin/gcbench-netem P=$BUILD/bin/gcbench-probe
here=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "trace-accuracy: needs root (namespaces, qdiscs)" >&2; exit 2; }
[ -x "$N" ] && [ -x "$P" ] || { echo "trace-accuracy: build first ('make'): $N, $P" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-tracc.XXXXXX")
n1=gcbacc1-$$ n2=gcbacc2-$$ a=gcacca$$ b=gcaccb$$
export GCBENCH_NETEM_STATE_DIR=$tmp/state
cleanup() { ip netns del "$n1" 2>/dev/null; ip netns del "$n2" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
ip netns add "$n1" && ip netns add "$n2" &&
	ip link add "$a" netns "$n1" type veth peer name "$b" netns "$n2" &&
	ip -n "$n1" addr add 10.232.0.1/24 dev "$a" && ip -n "$n2" addr add 10.232.0.2/24 dev "$b" &&
	ip -n "$n1" link set "$a" up && ip -n "$n2" link set "$b" up &&
	ip -n "$n1" link set lo up && ip -n "$n2" link set lo up || { echo "trace-accuracy: cannot make namespaces" >&2; exit 1; }
for ns in "$n1" "$n2"; do   # reno: bbr's pacing costs CPU the flow needs (docs/design.md)
	ip netns exec "$ns" sysctl -qw net.ipv4.tcp_congestion_control=reno 2>/dev/null
done

# flow SECONDS: saturate n1 -> n2 in the background
flow() {
	if command -v iperf3 >/dev/null; then
		ip netns exec "$n2" iperf3 -s -1 -B 10.232.0.2 -p 5302 >/dev/null 2>&1 &
		sleep 0.3
		ip netns exec "$n1" iperf3 -c 10.232.0.2 -p 5302 -P 4 -t "$1" >/dev/null 2>&1 &
	else
		ip netns exec "$n2" "$P" server --bind 10.232.0.2 --port 5302 --once >/dev/null 2>&1 &
		sleep 0.3
		ip netns exec "$n1" "$P" client --connect 10.232.0.2 --port 5302 --time "$1" >/dev/null 2>&1 &
	fi
}

# unshaped rate of the flow, for the table's last column
flow 3; sleep 1
u0=$(ip netns exec "$n1" cat /sys/class/net/"$a"/statistics/tx_bytes); sleep 1
u1=$(ip netns exec "$n1" cat /sys/class/net/"$a"/statistics/tx_bytes); wait
unshaped=$(awk -v d=$((u1 - u0)) 'BEGIN { printf "%.2f", d * 8 / 1e9 }')

traces=${TRACES:-"$here/experiments/traces/square-500m-1g.trace $here/experiments/traces/square-5g-10g.trace $here/experiments/traces/walk-200m-2g.trace $here/experiments/traces/square-1g-10g.trace"}
echo "| trace | windows | within 5% | worst window | mean abs. error | drops | changes | player CPU | latest change | unshaped flow |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for tr in $traces; do
	flow $((secs + 3))
	start=$(awk -v t="$(date +%s.%N)" 'BEGIN { printf "%.3f", t + 1 }')
	"$N" play --dev "$a" --netns "$n1" --trace "$tr" --duration "$secs.5" --start "$start" >"$tmp/out" 2>"$tmp/err"
	rc=$?; [ -n "${KEEP_OUT:-}" ] && cp "$tmp/out" "$KEEP_OUT.$(basename "$tr").jsonl"; (exit $rc)
	rc=$?
	wait
	if [ $rc -ne 0 ]; then echo "| $(basename "$tr") | failed: $(tr '\n' ' ' <"$tmp/err") |"; continue; fi
	awk -F'[:,}]' -v name="$(basename "$tr")" -v unsh="$unshaped" '
		function get(k,   i) { for (i = 1; i < NF; i++) if ($i == "\"" k "\"") return $(i + 1); return 0 }
		/"window"/ { m = get("trace_mean_bps"); b = get("sent_bytes") * 8; e = (b - m) / m
			n++; if (e < 0) e = -e; s += e; if (e <= 0.05) ok++; if (e > w) w = e; d += get("drops") }
		/"summary"/ { ch = get("changes"); cpu = get("cpu_pct"); late = get("late_max_us") }
		END { printf "| %s | %d | %d | %.1f%% | %.2f%% | %d | %d | %.2f%% | %.1f ms | %s Gbit/s |\n",
			name, n, ok, 100 * w, n ? 100 * s / n : 0, d, ch, cpu, late / 1000, unsh }' "$tmp/out"
done

#!/usr/bin/env bash
# tests/integration/test_run_pytorch_hooks.sh: the shipped experiments/pytorch-hooks.yaml
# (workload: ddp, gcbench's DDP runner with DDP's all-reduce, fp16_compress_hook,
# powerSGD_hook rank 4 and examples/topk_hook.py as a hook of the user's, on tiny's
# shapes) swept at two caps on its own
# 2-node local cluster, with fewer iterations: every run ok, nonzero encode, comm and
# decode in every measured iteration of the compressing hooks, the speedup view pairing
# each hook with the all-reduce baseline, both replicas of every run ending with equal
# parameters (their headers' checksums); the same spec again under another tag is a
# second sweep, and `gcbench regress` compares the two point by point; caps restored.
# SKIPs without torch. Time: about 2-4 minutes on 2 cores (torch's start-up dominates).
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cases="sweep_ok phases_nonzero speedup_pairs replicas_equal regress_tags caps_restored"
need_sweep $cases || exit 0
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import torch, torch.distributed' 2>/dev/null; then PY=$(command -v "$p"); break; fi
done
if [ -z "$PY" ]; then
	for n in $cases; do skip "$n" "no python3 imports torch (apt-get install python3-torch)"; done
	exit 0
fi

name=hooks$(( $$ % 100000 ))
work=$(mktemp -d /tmp/gcbench-hooks.XXXXXX)
export GCBENCH_HOME=$work/home
cleanup() { "$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$work"; }
trap cleanup EXIT

cluster_up 2 $cases || exit 0
# the shipped spec in its folder (its hook is ../examples/topk_hook.py), with this
# machine's python (the nodes share its file system), two low caps and few iterations
mkdir -p "$work/experiments"
ln -s "$ROOT/examples" "$work/examples"
sed -e "s|^workload: ddp\$|workload: ddp\npython: $PY|" -e 's/^bandwidth: .*/bandwidth: [100mbit, 200mbit]/' \
	-e 's/^iterations: .*/iterations: 5/' -e 's/^warmup: .*/warmup: 3/' -e 's/^timeout: .*/timeout: 120/' \
	"$ROOT/experiments/pytorch-hooks.yaml" >"$work/experiments/spec.yaml"
spec=$work/experiments/spec.yaml
db=$work/h.db
q() { sqlite3 "$db" "$1"; }

if "$BIN/gcbench" run "$spec" --inventory "$inv" --db "$db" --tag a >"$work/out" 2>&1; then
	n=$(q "SELECT count(*) FROM runs WHERE status = 'ok' AND workload = 'ddp'")
	[ "$n" = 8 ] && pass sweep_ok || fail sweep_ok "$n ok runs, expected 8: $(tail -5 "$work/out")"
else
	fail sweep_ok "gcbench run failed: $(tail -8 "$work/out" | tr '\n' ' ') $(q "SELECT error, substr(stderr_tail, 1, 400) FROM runs WHERE status <> 'ok' LIMIT 1")"
fi

# the compressing hooks: every measured iteration of both ranks has its encode, comm and
# decode (8 runs x 2 ranks x 8 iterations in all)
n=$(q "SELECT count(*) FROM iterations")
z=$(q "SELECT count(*) FROM iterations i JOIN runs r ON r.id = i.run_id WHERE r.method <> 'syncsgd' AND i.warmup = 0 AND (i.t_encode <= 0 OR i.t_comm <= 0 OR i.t_decode <= 0)")
m=$(q "SELECT count(*) FROM iterations i JOIN runs r ON r.id = i.run_id WHERE r.method <> 'syncsgd' AND i.warmup = 0")
[ "$n" = 128 ] && [ "$m" = 60 ] && [ "$z" = 0 ] && pass phases_nonzero ||
	fail phases_nonzero "$n rows (expected 128), $m measured rows of compressing hooks (expected 60), $z without encode, comm or decode"

pairs=$(q "SELECT count(*) FROM speedup WHERE baseline = 'syncsgd' AND method IN ('fp16', 'powersgd', 'topk') AND speedup > 0")
[ "$pairs" = 6 ] && pass speedup_pairs ||
	fail speedup_pairs "$pairs pairs, expected 6: $(q 'SELECT method, bw_cap_bps, speedup FROM speedup' | tr '\n' ' ')"

# each run: both ranks' headers, one parameter checksum
eq=$(q "SELECT count(*) FROM (SELECT run_id FROM run_headers GROUP BY run_id HAVING count(*) = 2 AND count(DISTINCT json_extract(header, '\$.checksum_param')) = 1 AND min(json_extract(header, '\$.checksum_param')) IS NOT NULL)" 2>&1)
[ "$eq" = 8 ] && pass replicas_equal || fail replicas_equal "$eq of 8 runs have one parameter checksum on both ranks"

# the same spec under tag b: a second sweep; regress pairs every hook at both caps
"$BIN/gcbench" run "$spec" --inventory "$inv" --db "$db" --tag b >"$work/out2" 2>&1
rc=0
"$BIN/gcbench" regress --db "$db" --baseline tag=a --candidate tag=b --json >"$work/reg" 2>"$work/reg.err" || rc=$?
sweeps=$(q "SELECT count(*) FROM sweeps WHERE status = 'done'")
pts=$("$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(" ".join(sorted("%s@%d:%s" % (p["method"], p["bw_cap_bps"] // 1000000, "y" if p["n_base"] and p["n_cand"] else "n") for p in r["points"])))' "$work/reg" 2>&1)
want="fp16@100:y fp16@200:y powersgd@100:y powersgd@200:y syncsgd@100:y syncsgd@200:y topk@100:y topk@200:y"
[ "$sweeps" = 2 ] && [ "$rc" -le 1 ] && [ "$pts" = "$want" ] && pass regress_tags ||
	fail regress_tags "$sweeps done sweeps (want 2), regress exit $rc ($(head -c 300 "$work/reg.err")), points: $pts"

left=""
for i in 1 2; do
	if tc -n "gcb-$name-n$i" qdisc show dev eth0 | grep -Eq 'tbf|htb'; then left="$left n$i"; fi
done
procs=$(pgrep -f "gcbench_ddp.py --hook" || true)
[ -z "$left" ] && [ -z "$procs" ] && pass caps_restored || fail caps_restored "still capped:$left; programs left: $procs"

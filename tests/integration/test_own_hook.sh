#!/usr/bin/env bash
# tests/integration/test_own_hook.sh: docs/hooks.md as a hook author follows it, word for
# word: `gcbench init hook int8` (its int8.yaml must be the page's), the page's
# int8_hook.py over the scaffold's, swept on the test's own 2-node local cluster in one
# `gcbench run` (the spec's caps, model and counts lowered, and python: set to this
# machine's python that imports torch); every run ok, the speedup
# view pairs the hook and fp16 with syncsgd at both caps, the hook's encode, comm and
# decode nonzero in every measured iteration, its label, file and function stored. Then a
# second spec: a hook in a package of two modules (one imports the other relatively),
# a GRACE-shaped compressor through the adapter (all-gather, residual memory), and a hook
# that raises: the package hook and the compressor run ok, the raising one is stored failed
# naming its file, line and exception, the baseline point ok, and no rank is left; that
# sweep's hosts find their Python differently (n1 by the inventory's python:, n2 through
# its env: PATH, the spec giving none), as each rank's header shows. A hook that hangs on
# one rank: its run ends at the workers' deadline (gcbench run --deadline 15) well
# before the point's timeout, stored failed with gloo's timeout, the next point ok. A
# csv: model (a parameter list beside the spec, shipped by gcbench) runs ok.
# SKIPs without torch. Time: about 2-4 minutes on 2 cores (torch's start-up dominates).
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cases="doc_files sweep_ok speedup_pairs phases_nonzero hook_stored package_hook grace_adapter raising_hook host_python csv_model hanging_hook no_rank_left"
need_sweep $cases || exit 0
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import torch, torch.distributed' 2>/dev/null; then PY=$(command -v "$p"); break; fi
done
if [ -z "$PY" ]; then
	for n in $cases; do skip "$n" "no python3 imports torch (apt-get install python3-torch)"; done
	exit 0
fi

name=ownhook$(( $$ % 100000 ))
work=$(mktemp -d /tmp/gcbench-ownhook.XXXXXX)
export GCBENCH_HOME=$work/home
# the two hosts' pythons (the nodes have their own /tmp)
side=$(mktemp -d /var/tmp/gcbench-ownhook-py.XXXXXX)
cleanup() { "$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$work" "$side"; }
trap cleanup EXIT

# docs/hooks.md's steps: the scaffold, then the page's hook over its own
"$BIN/gcbench" init hook int8 --dir "$work" >"$work/init.out" 2>&1
mkdir -p "$work/doc"
awk -v dir="$work/doc" '/^<!-- file: [A-Za-z0-9._-]+ -->$/ { f = dir "/" $3; next }
	f && /^```/ { if (open) { close(f); f = ""; open = 0 } else open = 1; next }
	f && open { print > f }' "$ROOT/docs/hooks.md"
lines=$(wc -l <"$work/doc/int8_hook.py" 2>/dev/null || echo 0)
if [ "$lines" -ge 15 ] && [ "$lines" -le 25 ] && cmp -s "$work/doc/int8.yaml" "$work/int8.yaml" &&
	grep -q "def make_hook" "$work/int8_hook.py"; then
	cp "$work/doc/int8_hook.py" "$work/int8_hook.py"
	pass doc_files
else
	fail doc_files "the page's hook has $lines lines; the scaffold's spec and the page's differ: $(diff "$work/doc/int8.yaml" "$work/int8.yaml" 2>&1 | head -5 | tr '\n' ' ') $(cat "$work/init.out")"
fi

cluster_up 2 $cases || exit 0
GCB=$(cd "$BIN" && pwd)/gcbench   # the runs start in the spec's folder
db=$work/h.db
q() { sqlite3 "$db" "$1"; }
sed -e "s|^workload: ddp$|workload: ddp\npython: $PY|" -e 's/^models: .*/models: [tiny]/' \
	-e 's/^bandwidth: .*/bandwidth: [100mbit, 200mbit]/' -e 's/^iterations: .*/iterations: 4/' \
	-e 's/^warmup: .*/warmup: 2/' "$work/int8.yaml" >"$work/spec.yaml"
cp "$work/spec.yaml" "$work/int8.yaml"
if (cd "$work" && "$GCB" run int8.yaml --inventory "$inv" --db "$db") >"$work/out" 2>&1; then
	n=$(q "SELECT count(*) FROM runs WHERE status = 'ok' AND workload = 'ddp'")
	[ "$n" = 6 ] && pass sweep_ok || fail sweep_ok "$n ok runs, expected 6: $(tail -5 "$work/out")"
else
	fail sweep_ok "gcbench run failed: $(tail -8 "$work/out" | tr '\n' ' ') $(q "SELECT error, substr(stderr_tail, 1, 600) FROM runs WHERE status <> 'ok' LIMIT 1")"
fi

pairs=$(q "SELECT count(*) FROM speedup WHERE baseline = 'syncsgd' AND method IN ('int8', 'fp16') AND speedup > 0")
[ "$pairs" = 4 ] && pass speedup_pairs ||
	fail speedup_pairs "$pairs pairs, expected 4: $(q 'SELECT method, bw_cap_bps, speedup FROM speedup' | tr '\n' ' ')"

m=$(q "SELECT count(*) FROM iterations i JOIN runs r ON r.id = i.run_id WHERE r.method = 'int8' AND i.warmup = 0")
z=$(q "SELECT count(*) FROM iterations i JOIN runs r ON r.id = i.run_id WHERE r.method = 'int8' AND i.warmup = 0 AND (i.t_encode <= 0 OR i.t_comm <= 0 OR i.t_decode <= 0)")
[ "$m" = 16 ] && [ "$z" = 0 ] && pass phases_nonzero ||
	fail phases_nonzero "$m measured rows of the hook (expected 16: 2 runs x 2 ranks x 4), $z without encode, comm or decode"

st=$(q "SELECT DISTINCT r.params || ' ' || json_extract(h.header, '\$.hook_file') || ':' || json_extract(h.header, '\$.hook_function') || ' ' || json_extract(h.header, '\$.replicas_equal') FROM runs r JOIN run_headers h ON h.run_id = r.id WHERE r.method = 'int8'")
[ "$st" = "hook=int8_hook.py:make_hook int8_hook.py:make_hook 1" ] && pass hook_stored ||
	fail hook_stored "stored: '$st'"

# a package of two modules and a hook that raises, in one sweep with the baseline
mkdir -p "$work/hooks/int8pkg"
cat >"$work/hooks/int8pkg/codec.py" <<'PY'
import torch


def quantize(g, scale):
    return (g / scale).round().to(torch.int8)
PY
cat >"$work/hooks/int8pkg/hook.py" <<'PY'
import torch.distributed as dist
from .codec import quantize


def make_hook():
    def hook(state, bucket):
        g, world = bucket.buffer(), dist.get_world_size()
        scale = g.abs().max().clamp(min=1e-12) / (127 // world)
        dist.all_reduce(scale, op=dist.ReduceOp.MAX)
        fut = dist.all_reduce(quantize(g, scale), async_op=True).get_future()
        return fut.then(lambda f: f.value()[0].float().mul_(scale / world))
    return None, hook
PY
# a compressor in GRACE's shape (compress/decompress; not GRACE's code), through the adapter
cat >"$work/grace_topk.py" <<'PY'
import torch


class TopKCompressor:
    def __init__(self, compress_ratio=0.01):
        self.average, self.tensors_size_are_same, self.ratio = True, True, compress_ratio

    def compress(self, tensor, name):
        flat = tensor.flatten()
        _, idx = flat.abs().topk(max(1, int(flat.numel() * self.ratio)))
        return [flat[idx], idx], (flat.numel(), tensor.size())

    def decompress(self, tensors, ctx):
        out = torch.zeros(ctx[0], dtype=tensors[0].dtype)
        return out.scatter_(0, tensors[1], tensors[0]).view(ctx[1])
PY
cat >"$work/raising_hook.py" <<'PY'
def make_hook(at=1):
    def hook(state, bucket):
        raise ValueError("this hook fails at bucket %d" % bucket.index())
    return None, hook
PY
sed -e 's/^name: .*/name: my-hooks-2/' -e 's/^bandwidth: .*/bandwidth: 100mbit/' \
	-e '/^  - fp16$/d' -e 's|^  - int8: .*|  - pkg: {hook: hooks/int8pkg/hook.py:make_hook}\n  - bad: {hook: raising_hook.py:make_hook}\n  - grc: {grace: grace_topk.py:TopKCompressor, comm: allgather, memory: residual, compress_ratio: 0.1}|' \
	"$work/spec.yaml" >"$work/two.yaml"
# n1: python: a venv-like path; n2: python3 found on its env: PATH (both this python)
mkdir -p "$side/venv-a/bin" "$side/conda-b/bin"
ln -s "$PY" "$side/venv-a/bin/python3"
ln -s "$PY" "$side/conda-b/bin/python3"
awk -v a="$side/venv-a/bin/python3" -v b="$side/conda-b/bin:/usr/bin:/bin" '{ print }
	/^    netns: gcb-.*-n1$/ { print "    python: " a }
	/^    netns: gcb-.*-n2$/ { print "    env: {PATH: \"" b "\"}" }' "$inv" >"$work/inv2.yaml"
sed -i '/^python: /d' "$work/two.yaml"
(cd "$work" && "$GCB" run two.yaml --inventory "$work/inv2.yaml" --db "$work/two.db") >"$work/out2" 2>&1
q2() { sqlite3 "$work/two.db" "$1"; }
st=$(q2 "SELECT method || ':' || status FROM runs ORDER BY method" | tr '\n' ' ')
eq=$(q2 "SELECT count(*) FROM run_headers h JOIN runs r ON r.id = h.run_id WHERE r.method = 'pkg' AND json_extract(h.header, '\$.replicas_equal') = 1")
[ "$st" = "bad:failed grc:ok pkg:ok syncsgd:ok " ] && [ "$eq" = 2 ] && pass package_hook ||
	fail package_hook "statuses: $st, replicas equal on $eq of 2 ranks: $(tail -3 "$work/out2" | tr '\n' ' ') $(q2 "SELECT substr(stderr_tail, 1, 500) FROM runs WHERE method = 'pkg'")"
g=$(q2 "SELECT r.status || ' ' || count(*) || ' ' || sum(json_extract(h.header, '\$.replicas_equal')) FROM runs r JOIN run_headers h ON h.run_id = r.id WHERE r.method = 'grc'")
z=$(q2 "SELECT count(*) FROM iterations i JOIN runs r ON r.id = i.run_id WHERE r.method = 'grc' AND i.warmup = 0 AND (i.t_encode <= 0 OR i.t_comm <= 0 OR i.t_decode <= 0)")
[ "$g" = "ok 2 2" ] && [ "$z" = 0 ] && pass grace_adapter ||
	fail grace_adapter "run, ranks, replicas equal: '$g'; $z measured rows without encode, comm or decode; $(q2 "SELECT substr(stderr_tail, 1, 400) FROM runs WHERE method = 'grc'")"
err=$(q2 "SELECT error || ' ' || stderr_tail FROM runs WHERE method = 'bad'")
grep -q "raising_hook.py:3 (in hook): ValueError: this hook fails at bucket" <<<"$err" && pass raising_hook ||
	fail raising_hook "stored: $(head -c 600 <<<"$err")"

pys=$(q2 "SELECT json_extract(h.header, '\$.python_executable') FROM run_headers h JOIN runs r ON r.id = h.run_id WHERE r.method = 'pkg' ORDER BY 1" | tr '\n' ' ')
[ "$pys" = "$side/conda-b/bin/python3 $side/venv-a/bin/python3 " ] && pass host_python ||
	fail host_python "the ranks ran: '$pys'; inventory: $(grep -E 'python:|env:' "$work/inv2.yaml" | tr '\n' ' ')"

# a csv: model: the parameter list beside the spec goes to the hosts with the build
mkdir -p "$work/models"
printf '# two tensors\nindex,name,shape,numel\n0,w,300x200,60000\n1,b,300,300\n' >"$work/models/two.csv"
sed -e 's/^name: .*/name: my-hooks-csv/' -e 's|^models: .*|models: [csv:models/two.csv]|' \
	-e 's/^bandwidth: .*/bandwidth: 100mbit/' -e '/^  - fp16$/d' -e '/^  - int8: /d' \
	"$work/spec.yaml" >"$work/csv.yaml"
(cd "$work" && "$GCB" run csv.yaml --inventory "$inv" --db "$work/csv.db") >"$work/out3" 2>&1
c=$(sqlite3 "$work/csv.db" "SELECT r.model || ' ' || r.status || ' ' || count(DISTINCT h.run_id) || ' ' || sum(json_extract(h.header, '\$.replicas_equal')) FROM runs r JOIN run_headers h ON h.run_id = r.id" 2>&1)
[ "$c" = "csv:models/two.csv ok 1 2" ] && pass csv_model ||
	fail csv_model "model, status, runs, replicas equal: '$c': $(tail -3 "$work/out3" | tr '\n' ' ') $(sqlite3 "$work/csv.db" "SELECT substr(stderr_tail, 1, 400) FROM runs" 2>&1)"

# a hook that never issues its collective on rank 1: rank 0 waits at the deadline
cat >"$work/hanging_hook.py" <<'PY'
import time
import torch.distributed as dist


def make_hook():
    def hook(state, bucket):
        if dist.get_rank() == 1:
            time.sleep(3600)
        return dist.all_reduce(bucket.buffer(), async_op=True).get_future().then(lambda f: f.value()[0])
    return None, hook
PY
sed -e 's/^name: .*/name: my-hooks-3/' -e '/^  - fp16$/d' -e 's/^bandwidth: .*/bandwidth: 100mbit/' \
	-e 's|^  - int8: .*|  - hang: {hook: hanging_hook.py:make_hook}|' "$work/spec.yaml" >"$work/hang.yaml"
sed -i 's/^methods:$/timeout: 90\nmethods:/' "$work/hang.yaml"
t0=$(date +%s)
(cd "$work" && "$GCB" run hang.yaml --inventory "$inv" --db "$work/hang.db" --deadline 15) >"$work/out3" 2>&1
took=$(( $(date +%s) - t0 ))
st=$(sqlite3 "$work/hang.db" "SELECT method || ':' || status FROM runs ORDER BY id" | tr '\n' ' ')
err=$(sqlite3 "$work/hang.db" "SELECT error || ' ' || stderr_tail FROM runs WHERE method = 'hang'")
[ "$st" = "syncsgd:ok hang:failed " ] && [ "$took" -lt 85 ] && grep -qi "timed out\|timeout" <<<"$err" &&
	pass hanging_hook || fail hanging_hook "statuses: $st in $took s: $(head -c 500 <<<"$err")"

procs=$(pgrep -f "gcbench_ddp.py --hook" || true)
left=""
for i in 1 2; do
	if tc -n "gcb-$name-n$i" qdisc show dev eth0 | grep -Eq 'tbf|htb'; then left="$left n$i"; fi
done
[ -z "$procs" ] && [ -z "$left" ] && pass no_rank_left || fail no_rank_left "ranks left: $procs; still capped:$left"

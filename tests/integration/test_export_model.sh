#!/usr/bin/env bash
# tests/integration/test_export_model.sh: tools/export_model.py against the reference
# parameter lists ($GCBENCH_SHARED/data/models), a --module model, a backward profile that
# gcbench-worker loads, and the errors. SKIPs without torch/torchvision. No root needed.
# Time: about 1-2 minutes (python + torch start-up dominates).
. "$(dirname "$0")/../lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=${GCBENCH_SHARED:-$ROOT/../shared}
EXP=$ROOT/tools/export_model.py
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-export.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cases_tv="reference_resnet50 reference_resnet101 reference_vgg16 profile_loads_in_worker"
cases_all="help module_callable bad_torchvision_name bad_module_spec $cases_tv"

PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import torch' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then
	for n in $cases_all; do skip "$n" "no python3 imports torch (apt-get install python3-torch python3-torchvision)"; done
	exit 0
fi

# --help teaches: it names both sources, the profile option and an example
out=$("$PY" "$EXP" --help 2>&1)
if grep -q -- '--torchvision' <<<"$out" && grep -q -- '--module' <<<"$out" && grep -q -- '--profile' <<<"$out" &&
	grep -q 'Examples:' <<<"$out" && grep -q 'replay:csv:' <<<"$out"; then pass help
else fail help "usage lacks --torchvision/--module/--profile/Examples: $(head -n 3 <<<"$out" | tr '\n' ' ')"; fi

# --module PKG.MOD:CALLABLE from PYTHONPATH; exact rows in named_parameters() order (a
# module's own parameters before its children's), a 0-d parameter as shape 1
mkdir -p "$tmp/mypkg"
: >"$tmp/mypkg/__init__.py"
cat >"$tmp/mypkg/mymodel.py" <<'EOF'
import torch
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3)
        self.fc = torch.nn.Linear(8, 5, bias=False)
        self.scale = torch.nn.Parameter(torch.ones(()))
    def forward(self, x):
        return self.fc(self.conv(x).mean((2, 3))) * self.scale
def build():
    return Net()
EOF
cat >"$tmp/expect_mod.csv" <<'EOF'
index,name,shape,numel
0,scale,1,1
1,conv.weight,8x3x3x3,216
2,conv.bias,8,8
3,fc.weight,5x8,40
EOF
if (cd "$tmp" && PYTHONPATH=$tmp "$PY" "$EXP" --module mypkg.mymodel:build --out "$tmp/mod.csv" >/dev/null 2>"$tmp/mod.err"); then
	first=$(head -n 1 "$tmp/mod.csv")
	if ! grep -q '^# build: 4 tensors, 265 parameters' <<<"$first"; then fail module_callable "comment line: $first"
	elif ! d=$(tail -n +2 "$tmp/mod.csv" | diff - "$tmp/expect_mod.csv"); then fail module_callable "rows differ: $d"
	else pass module_callable; fi
else fail module_callable "$(tail -n 2 "$tmp/mod.err" | tr '\n' ' ')"; fi

# errors name the subject and exit 2
"$PY" "$EXP" --module nocolon --out "$tmp/x.csv" >/dev/null 2>"$tmp/e1"; rc=$?
if [ "$rc" = 2 ] && grep -q "'nocolon' must be PKG.MOD:CALLABLE" "$tmp/e1"; then pass bad_module_spec
else fail bad_module_spec "rc $rc: $(cat "$tmp/e1")"; fi

if ! "$PY" -c 'import torchvision' 2>/dev/null; then
	for n in bad_torchvision_name $cases_tv; do skip "$n" "torchvision is not importable (apt-get install python3-torchvision)"; done
	exit 0
fi
"$PY" "$EXP" --torchvision resnet5O --out "$tmp/x.csv" >/dev/null 2>"$tmp/e2"; rc=$?
if [ "$rc" = 2 ] && grep -q "no model 'resnet5O'" "$tmp/e2" && [ ! -s "$tmp/x.csv" ]; then pass bad_torchvision_name
else fail bad_torchvision_name "rc $rc: $(cat "$tmp/e2")"; fi

# the reference lists, exactly: the comment line too (torchvision 0.14 writes the same
# text); with another torchvision version only the comment's version may differ, and the
# comparison then ignores the comment line and says so
for m in resnet50 resnet101 vgg16; do
	ref=$SHARED/data/models/$m.csv
	if [ ! -r "$ref" ]; then skip "reference_$m" "no reference list $ref (set GCBENCH_SHARED)"; continue; fi
	if ! "$PY" "$EXP" --torchvision "$m" --out "$tmp/$m.csv" 2>"$tmp/$m.err"; then
		fail "reference_$m" "export failed: $(tail -n 2 "$tmp/$m.err" | tr '\n' ' ')"; continue; fi
	if cmp -s "$tmp/$m.csv" "$ref"; then pass "reference_$m"
	elif d=$(diff <(tail -n +2 "$tmp/$m.csv") <(grep -v '^#' "$ref")); then
		echo "note: $m: identical rows; the comment line differs (torchvision version): $(head -n 1 "$tmp/$m.csv")"
		pass "reference_$m"
	else fail "reference_$m" "rows differ from $ref: $(head -n 6 <<<"$d" | tr '\n' ' ')"; fi
done

# a profile of a small model at a small input: every tensor once, times >= 0, and
# gcbench-worker (one rank, singleton MPI) loads it: its header's emulated backward equals
# the profile's sum
W=$(cd "$BIN" 2>/dev/null && pwd)/gcbench-worker
if [ ! -x "$W" ]; then skip profile_loads_in_worker "$W is not built (needs libopenmpi-dev)"; exit 0; fi
if ! "$PY" "$EXP" --torchvision resnet18 --out "$tmp/r18.csv" --profile "$tmp/r18p.csv" --batch 2 \
	--input 3x64x64 --repeat 1 --device cpu --threads 1 2>"$tmp/p.err"; then
	fail profile_loads_in_worker "profile failed: $(tail -n 2 "$tmp/p.err" | tr '\n' ' ')"; exit 0; fi
rows=$(grep -vc '^#\|^name,' "$tmp/r18p.csv")
sum=$(awk -F, '!/^#/ && !/^name,/ { s += $2; if ($2 < 0) neg = 1 } END { if (neg) print "neg"; else printf "%.9f", s }' "$tmp/r18p.csv")
if [ "$rows" != 62 ] || [ "$sum" = neg ]; then
	fail profile_loads_in_worker "profile has $rows rows (want 62) or a negative time"; exit 0; fi
if ! (cd "$tmp" && timeout 120 "$W" --workload "replay:csv:$tmp/r18.csv" --profile "$tmp/r18p.csv" \
	--iters 1 --warmup 0 --out "$tmp/w-r%r.gcr" >"$tmp/w.out" 2>&1); then
	fail profile_loads_in_worker "gcbench-worker rejected it: $(grep -m1 error "$tmp/w.out" || tail -n 2 "$tmp/w.out")"; exit 0; fi
model=$("$W" --dump "$tmp/w-r0.gcr" | sed -n 's/.*"t_backward_model":\([0-9.e+-]*\).*/\1/p')
if awk -v a="$model" -v b="$sum" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b > 0 && d <= 1e-6 + 1e-6 * b) }'; then
	pass profile_loads_in_worker
else fail profile_loads_in_worker "worker's t_backward_model '$model' != profile sum $sum"; fi

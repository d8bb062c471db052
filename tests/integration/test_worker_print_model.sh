#!/usr/bin/env bash
# tests/integration/test_worker_print_model.sh: gcbench-worker --print-model MODEL prints
# the csv that --workload replay:csv:FILE reads, for every built-in model: one iteration
# of each (mpirun -np 1) reports the same tensors, parameters, buckets and modelled
# backward time. Also: the printed csv round-trips through --print-model csv:FILE
# unchanged (but for the comment line), and an unknown model, another option beside it,
# or a file that is not a model csv exit 2 with a message.
source "$(dirname "$0")/../lib.sh"
W=$BIN/gcbench-worker
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-printmodel.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
models="resnet50 resnet101 vgg16 bert-base gpt2-small tiny"

if [ ! -x "$W" ]; then
	for n in print_csv_roundtrip replay_same bad_name not_alone not_csv; do
		skip "$n" "$W is not built (needs libopenmpi-dev)"; done
	exit 0
fi

# ---- the csv: header, rows numbered from 0, numel the product of the shape
bad=""
for m in $models; do
	if ! "$W" --print-model "$m" >"$tmp/$m.csv" 2>"$tmp/$m.err"; then
		bad="$bad $m(rc $?: $(head -c 200 "$tmp/$m.err"))"; continue; fi
	awk -F, -v m="$m" 'NR == 1 { ok = $0 ~ "^# " m ": [0-9]+ tensors, [0-9]+ parameters"; next }
		NR == 2 { ok = ok && $0 == "index,name,shape,numel,flops_fwd"; next }
		{ n = split($3, d, "x"); p = 1; for (i = 1; i <= n; i++) p *= d[i]
		  if ($1 != NR - 3 || p != $4 || NF != 5) ok = 0; rows++; total += $4 }
		END { exit !(ok && rows > 0) }' "$tmp/$m.csv" || bad="$bad $m(format)"
	# printing the printed file gives the same rows
	"$W" --print-model "csv:$tmp/$m.csv" >"$tmp/$m.again.csv" 2>&1 &&
		cmp -s <(tail -n +2 "$tmp/$m.csv") <(tail -n +2 "$tmp/$m.again.csv") ||
		bad="$bad $m(csv:FILE differs)"
done
if [ -z "$bad" ]; then pass print_csv_roundtrip; else fail print_csv_roundtrip "$bad"; fi

# ---- replay:MODEL and replay:csv:FILE run the same model
if need_cmd mpirun replay_same; then
	hdr() { "$W" --dump "$1" | sed -n 's/^header //p' |
		grep -o '"\(numel\|tensors\|buckets\|t_backward_model\)":[^,}]*\|"bucket_numel":"[^"]*"' | sort; }
	bad=""
	for m in $models; do
		for w in "replay:$m" "replay:csv:$tmp/$m.csv"; do
			k=$([ "$w" = "replay:$m" ] && echo a || echo b)
			timeout 300 mpirun --oversubscribe --mca btl self,tcp -np 1 "$W" --workload "$w" \
				--iters 1 --warmup 0 --batch 1 --out "$tmp/$m.$k.gcr" >"$tmp/$m.$k.out" 2>&1 ||
				bad="$bad $m/$k(rc $?: $(tail -n 2 "$tmp/$m.$k.out" | tr '\n' ' '))"
		done
		[ -s "$tmp/$m.a.gcr" ] && [ -s "$tmp/$m.b.gcr" ] || continue
		a=$(hdr "$tmp/$m.a.gcr"); b=$(hdr "$tmp/$m.b.gcr")
		want=$(sed -n 's/^# [^:]*: \([0-9]*\) tensors, \([0-9]*\) parameters.*/"tensors":\1 "numel":\2/p' "$tmp/$m.csv")
		for f in $want; do grep -qx -- "$f" <<<"$a" || bad="$bad $m(header lacks $f)"; done
		[ "$(wc -l <<<"$a")" = 5 ] && [ "$a" = "$b" ] || bad="$bad $m($(echo $a) vs $(echo $b))"
	done
	if [ -z "$bad" ]; then pass replay_same; else fail replay_same "$bad"; fi
fi

# ---- mistakes: exit 2, a message that says what is wrong
badarg() { # NAME EXPECTED_TEXT ARGS...
	local name=$1 want=$2 out rc; shift 2
	out=$("$W" "$@" 2>&1); rc=$?
	if [ "$rc" -eq 2 ] && grep -q -- "$want" <<<"$out"; then pass "$name"
	else fail "$name" "rc=$rc, wanted '$want' in: $out"; fi
}
badarg bad_name "unknown architecture 'resnet5'" --print-model resnet5
badarg not_alone "takes no other option" --print-model tiny --iters 3
printf 'secret line one\n' >"$tmp/notcsv"
badarg not_csv "expected the header 'index,name,shape,numel'" --print-model "csv:$tmp/notcsv"

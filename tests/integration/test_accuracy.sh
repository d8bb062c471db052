#!/usr/bin/env bash
# tests/integration/test_accuracy.sh: training on the real digits (python3-sklearn's,
# built into gcbench-worker) over MPI on loopback, 4 ranks: sync SGD, PowerSGD with
# error feedback and Top-K 1% with error feedback reach the validation target, and Top-K
# at 0.1% without error feedback (a method known to struggle) needs measurably more
# iterations (at least 1.5 times the slowest of those three) or never reaches it. The
# ordering is checked, not exact numbers. Also: the validation records are consistent
# (every rank evaluated the same iterations, slices add up to the validation set).
source "$(dirname "$0")/../lib.sh"
W=$BIN/gcbench-worker
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-accuracy.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cases="eval_records mlp_ordering cnn_ordering"
TARGET=0.9 ITERS=300 EVERY=10 NVAL=297

if [ ! -x "$W" ]; then
	for n in $cases; do skip "$n" "$W is not built (needs libopenmpi-dev)"; done
	exit 0
fi
if "$W" --workload train:mlp --data digits --iters 1 --out "$tmp/probe-r%r.gcr" 2>&1 | grep -q "built without them"; then
	for n in $cases; do skip "$n" "this gcbench-worker has no built-in digits (apt-get install python3-sklearn, then make)"; done
	exit 0
fi
need_cmd mpirun $cases || exit 0
MPI=(mpirun --oversubscribe --mca btl self,tcp --mca mpi_yield_when_idle 1)

# train MODEL TAG METHOD-ARGS...: 4 ranks, records in $tmp/TAG-r*.gcr
train() {
	local model=$1 tag=$2; shift 2
	timeout 300 "${MPI[@]}" -np 4 "$W" --workload "train:$model" --data digits --iters $ITERS \
		--warmup 0 --batch 16 --threads 1 --eval-every $EVERY --deadline 60 \
		--out "$tmp/$tag-r%r.gcr" "$@" >"$tmp/$tag.out" 2>&1
}

# evals TAG: "iter val_n val_acc" of every rank's validation records
evals() { for f in "$tmp/$1"-r*.gcr; do "$W" --dump "$f"; done | awk 'NF == 19 { print $2, $19, $17 }'; }

# to_target TAG: the first iteration (1-based) whose accuracy over all ranks, weighted
# by their slices, is >= TARGET; "never" if none
to_target() {
	evals "$1" | awk -v t=$TARGET '{ if (!($1 in n)) o[++m] = $1; n[$1] += $2; c[$1] += $2 * $3 }
		END { for (j = 1; j <= m; j++) if (c[o[j]] / n[o[j]] >= t) { print o[j] + 1; exit }
		      print "never" }'
}

# ordering MODEL: the three methods reach the target; the struggler needs 1.5x more
ordering() {
	local model=$1 m tag it worst=0 why="" got=""
	local -a methods=("syncsgd" "powersgd:rank=2,ef=1" "topk:ratio=0.01,ef=1")
	for m in "${methods[@]}" "topk:ratio=0.001,ef=0"; do
		tag="$model-${m%% *}-$(tr -dc '0-9a-z' <<<"${m#* }" | head -c 24)"
		if ! train "$model" "$tag" --method $m; then
			why="$why; '$m' failed: $(tail -n 3 "$tmp/$tag.out" | tr '\n' ' ')"; continue
		fi
		it=$(to_target "$tag")
		got="$got [$m]:$it"
		case $m in
		*ratio=0.001*)
			if [ "$it" != never ] && [ "$worst" -gt 0 ] && [ $((it * 2)) -lt $((worst * 3)) ]; then
				why="$why; the struggler reached the target at $it, under 1.5 x $worst"
			fi ;;
		*)
			if [ "$it" = never ]; then why="$why; '$m' never reached $TARGET in $ITERS iterations"
			elif [ "$it" -gt "$worst" ]; then worst=$it; fi ;;
		esac
	done
	if [ -z "$why" ]; then pass "${model}_ordering"; echo "# $model to $TARGET:$got"
	else fail "${model}_ordering" "${why#; } (got:$got)"; fi
}

# every rank evaluated the same iterations (every EVERY-th and the last), and the
# slices of each evaluation add up to the validation set
train mlp eval --method syncsgd --iters 25 --eval-every 10 || true
out=$(evals eval | awk '{ n[$1] += $2; r[$1]++ } END { for (i in n) print i, r[i], n[i] }' | sort -n | tr '\n' ' ')
if [ "$out" = "9 4 $NVAL 19 4 $NVAL 24 4 $NVAL " ]; then pass eval_records
else fail eval_records "wanted iterations 9, 19, 24 with 4 ranks and $NVAL samples each, got '$out' ($(tail -n 3 "$tmp/eval.out" | tr '\n' ' '))"; fi

ordering mlp
ordering cnn

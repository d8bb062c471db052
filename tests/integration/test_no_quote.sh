#!/usr/bin/env bash
# tests/integration/test_no_quote.sh: no tool quotes a file it could not parse. Each
# case hands a program a file in the wrong format holding a marker that stands for a
# secret (a shadow line with a password hash) and checks that the program fails, names
# the file, and that the marker appears neither on stderr nor on stdout.
. "$(dirname "$0")/../lib.sh"
G=$BIN/gcbench
W=$BIN/gcbench-worker
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-noquote.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
MARK=S3CR3TMARK
printf 'root:$y$j9T$%s:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n' "$MARK" >"$tmp/shadow"
printf 'index,name,shape,numel\n0,conv1.weight,%s,1\n' "$MARK" >"$tmp/row.csv"
printf '\x93NUMPY\x01\x00\x40\x00{'"'"'descr'"'"': '"'"'%s'"'"', '"'"'fortran_order'"'"': False, '"'"'shape'"'"': (2,), }   \n' "$MARK" >"$tmp/bad.npy"
printf 'name: t\nmodels: [%s]\nmethods: [syncsgd]\nbandwidth: [1gbit]\nworld_size: [2]\nbatch: [8]\niterations: 3\n' "$MARK" >"$tmp/spec.yaml"
printf 'name: t\nmodels: [resnet50]\nmethods: [syncsgd]\nbandwidth: [1gbit]\nworld_size: [2]\nbatch: [8]\niterations: 3\n' >"$tmp/good.yaml"

# case NAME FILE WANT CMD...: CMD fails, its output names FILE and WANT, and lacks MARK
case_() {
	local name=$1 file=$2 want=$3 out rc; shift 3
	out=$("$@" 2>&1); rc=$?
	if [ $rc -eq 0 ]; then fail "$name" "exit 0: $(head -c 300 <<<"$out")"
	elif grep -q "$MARK" <<<"$out"; then fail "$name" "quotes the file: $(grep -m1 "$MARK" <<<"$out" | head -c 300)"
	elif ! grep -qF -- "$file" <<<"$out"; then fail "$name" "does not name '$file': $(head -c 300 <<<"$out")"
	elif ! grep -qF -- "$want" <<<"$out"; then fail "$name" "lacks '$want': $(head -c 300 <<<"$out")"
	else pass "$name"; fi
}

if [ ! -x "$G" ]; then
	for n in whatif_csv whatif_csv_row run_spec run_spec_value run_inventory compress_npy; do
		skip "$n" "$G is not built (make)"; done
else
	case_ whatif_csv "$tmp/shadow:1:1:" "expected the header" "$G" whatif --model "csv:$tmp/shadow"
	case_ whatif_csv_row "$tmp/row.csv:2:16:" "field 3 (shape)" "$G" whatif --model "csv:$tmp/row.csv"
	GCBENCH_HOME=$tmp/home case_ run_spec "$tmp/shadow:1:1:" "unknown key in the spec" \
		"$G" run "$tmp/shadow" --dry-run --db "$tmp/x.db"
	GCBENCH_HOME=$tmp/home case_ run_spec_value "$tmp/spec.yaml:2:10:" "unknown model" \
		"$G" run "$tmp/spec.yaml" --dry-run --db "$tmp/x.db"
	GCBENCH_HOME=$tmp/home case_ run_inventory "$tmp/shadow:1:1:" "unknown key in the inventory" \
		"$G" run "$tmp/good.yaml" --inventory "$tmp/shadow" --dry-run --db "$tmp/x.db"
	case_ compress_npy "$tmp/bad.npy" "'descr' is not a numpy type code" \
		"$G" compress --method signsgd --in "$tmp/bad.npy" --in "$tmp/bad.npy"
fi

if [ ! -x "$W" ]; then
	for n in worker_replay_csv worker_profile; do skip "$n" "$W is not built (make)"; done
else
	case_ worker_replay_csv "$tmp/shadow:1:1:" "expected the header" \
		"$W" --workload "replay:csv:$tmp/shadow" --method syncsgd
	case_ worker_profile "$tmp/shadow:1:" "expected 2 comma-separated fields" \
		"$W" --workload replay:resnet50 --method syncsgd --profile "$tmp/shadow"
fi

# the Python tools read the same kinds of files
if ! command -v python3 >/dev/null 2>&1; then
	for n in digits_convert ddp_bench_csv; do skip "$n" "python3 is not installed"; done
else
	python3 -B -c 'import gzip, sys; gzip.open(sys.argv[1], "wt").write(",".join(["1"] * 64 + [sys.argv[2]]) + "\n")' \
		"$tmp/digits.csv.gz" "$MARK"
	case_ digits_convert "$tmp/digits.csv.gz" "line 1: a column is not a number" \
		python3 -B tools/digits_convert.py --csv "$tmp/digits.csv.gz" --out "$tmp/d.bin"
	if python3 -B -c 'import sys; sys.path.insert(0, "python"); import gcbench_ddp' 2>/dev/null; then
		case_ ddp_bench_csv "$tmp/row.csv:2:16:" "field 3 (shape)" python3 -B -c \
			'import sys; sys.path.insert(0, "python"); import gcbench_ddp; gcbench_ddp.load_rows(sys.argv[1])' \
			"csv:$tmp/row.csv"
	else
		skip ddp_bench_csv "python/gcbench_ddp.py does not import here (torch missing?)"
	fi
fi

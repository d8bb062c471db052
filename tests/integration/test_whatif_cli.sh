#!/usr/bin/env bash
# tests/integration/test_whatif_cli.sh: gcbench whatif end to end: a sweep, its JSON,
# and every class of input error (exit status 2 and a message that names the problem).
. "$(dirname "$0")/../lib.sh"
G=$BIN/gcbench

if [ ! -x "$G" ]; then
	skip whatif "$G is not built (make)"
	exit 0
fi

# expect_err NAME WANT ARGS...: exit status 2 and stderr containing WANT
expect_err() {
	local name=$1 want=$2 out rc; shift 2
	out=$("$G" whatif "$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" -eq 2 ] && grep -qF -- "$want" <<<"$out"; then pass "$name"
	else fail "$name" "rc $rc, stderr '$out' lacks '$want'"; fi
}

out=$("$G" whatif --model resnet50 --workers 8,96 --bandwidth 1:30:29 --compute-speedup 1,4 \
	--method signsgd,topk:ratio=0.01,powersgd:rank=4 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^summary: [0-9]* of 24 configurations gain' <<<"$out" &&
   grep -q 'powersgd:rank=4 *wins below' <<<"$out"; then pass sweep_text
else fail sweep_text "rc $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi

# at 1 Gbit/s PowerSGD must beat sync SGD on ResNet-50; at 30 Gbit/s and 1x it must not
row1=$(grep -E '^1x +8 +1 ' <<<"$out" | awk '{print $NF}')
row30=$(grep -E '^1x +8 +30 ' <<<"$out" | awk '{print $NF}')
if awk -v a="$row1" -v b="$row30" 'BEGIN { exit !(a > 1 && b < 1) }'; then pass powersgd_direction
else fail powersgd_direction "speedup at 1 Gbit/s '$row1', at 30 Gbit/s '$row30'"; fi

json=$("$G" whatif --model bert-base --workers 16 --bandwidth 10 --method powersgd:rank=8 --json 2>&1)
if command -v python3 >/dev/null 2>&1; then
	if python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["points"]) == 1 and d["summary"]["configurations"] == 1' <<<"$json"
	then pass json_valid; else fail json_valid "not the expected JSON: ${json:0:200}"; fi
else
	skip json_valid "python3 is not installed"
fi

expect_err unknown_model "unknown architecture 'resnet5'" --model resnet5
expect_err zero_workers "--workers" --workers 0
expect_err empty_workers "--workers" --workers ""
expect_err reversed_range "runs backwards" --bandwidth 30:1
expect_err empty_bandwidth "--bandwidth" --bandwidth ""
expect_err bad_bandwidth "'abc' is not a number" --bandwidth 1,abc
expect_err unknown_method "unknown method 'qsgd'" --method qsgd
expect_err unknown_param "unknown parameter 'rank=4' for topk" --method topk:rank=4
expect_err bad_ratio "ratio 5 is outside" --method topk:ratio=5
expect_err bad_speedup "--compute-speedup" --compute-speedup 0
expect_err unknown_option "unknown or incomplete option '--bogus'" --bogus
expect_err unknown_preset "unknown preset 'fast'" --preset fast
if "$G" whatif --help | grep -q 'example:'; then pass help; else fail help "no usage"; fi

# --db: the model fitted to a results database (the synthetic one of test_model_db,
# whose environment 1 has the most runs) instead of a preset
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-whatif.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -x "$BUILD/tests/test_model_db" ] && "$BUILD/tests/test_model_db" --make-db "$tmp/w.db" >/dev/null 2>&1; then
	out=$("$G" whatif --db "$tmp/w.db" --workers 4,16 --bandwidth 1,10 --method powersgd:rank=4,signsgd 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q "parameters: $tmp/w.db, environment 1 " <<<"$out" &&
	   grep -q '^summary: [0-9]* of 8 configurations gain' <<<"$out"; then pass from_db
	else fail from_db "rc $rc: $(head -n 2 <<<"$out" | tr '\n' ' ') $(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
	out=$("$G" whatif --db "$tmp/w.db" --env 2 --workers 4 --bandwidth 1 --method signsgd 2>&1)
	grep -q "environment 2 " <<<"$out" && pass from_db_env || fail from_db_env "$(head -n 2 <<<"$out" | tr '\n' ' ')"
	expect_err db_unknown_env "no ok runs of environment 99" --db "$tmp/w.db" --env 99
else
	for n in from_db from_db_env db_unknown_env; do skip "$n" "$BUILD/tests/test_model_db is not built"; done
fi
expect_err env_without_db "--env needs --db" --env 1
expect_err db_missing "$tmp/none.db" --db "$tmp/none.db"

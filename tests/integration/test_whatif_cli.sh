#!/usr/bin/env bash
# tests/integration/test_whatif_cli.sh: gcbench whatif end to end: a sweep, its JSON,
# and every class of input error (exit status 2 and a message that names the problem).
. "$(dirname "$0")/../lib.sh"
G=$BIN/gcbench
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-whatif.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

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

out=$("$G" whatif --model resnet50 --workers 8,96 --bandwidth 1gbit:30gbit:29gbit --compute-speedup 1,4 \
	--method signsgd,topk:ratio=0.01,powersgd:rank=4 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^summary: [0-9]* of 24 configurations gain' <<<"$out" &&
   grep -q 'powersgd:rank=4 *wins below' <<<"$out"; then pass sweep_text
else fail sweep_text "rc $rc: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi

# at 1 Gbit/s PowerSGD must beat sync SGD on ResNet-50; at 30 Gbit/s and 1x it must not
row1=$(grep -E '^1x +1x +8 +1gbit ' <<<"$out" | awk '{print $NF}')
row30=$(grep -E '^1x +1x +8 +30gbit ' <<<"$out" | awk '{print $NF}')
if awk -v a="$row1" -v b="$row30" 'BEGIN { exit !(a > 1 && b < 1) }'; then pass powersgd_direction
else fail powersgd_direction "speedup at 1 Gbit/s '$row1', at 30 Gbit/s '$row30'"; fi

json=$("$G" whatif --model bert-base --workers 16 --bandwidth 10gbit --method powersgd:rank=8 --json 2>&1)
if command -v python3 >/dev/null 2>&1; then
	if python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["points"]) == 1 and d["summary"]["configurations"] == 1' <<<"$json"
	then pass json_valid; else fail json_valid "not the expected JSON: ${json:0:200}"; fi
else
	skip json_valid "python3 is not installed"
fi

expect_err unknown_model "unknown architecture 'resnet5'" --model resnet5
expect_err zero_workers "--workers" --workers 0
expect_err empty_workers "--workers" --workers ""
expect_err reversed_range "runs backwards" --bandwidth 30gbit:1gbit
expect_err empty_bandwidth "--bandwidth" --bandwidth ""
expect_err bad_bandwidth "invalid rate 'abc'" --bandwidth 1gbit,abc
expect_err unknown_method "unknown method 'nosuchmethod'" --method nosuchmethod
expect_err unknown_param "unknown parameter 'rank=4' for topk" --method topk:rank=4
expect_err bad_ratio "ratio 5 is outside" --method topk:ratio=5
expect_err bad_speedup "--compute-speedup" --compute-speedup 0
expect_err unknown_option "unknown option '--bogus' for gcbench whatif" --bogus
expect_err bare_bandwidth "write 10gbit for 10 Gbit/s" --bandwidth 10
expect_err unlimited_bandwidth "'unlimited' has no prediction" --bandwidth unlimited
expect_err grid_json "--json does not apply to --grid" --grid paper --json
expect_err unknown_preset "unknown preset 'fast'" --preset fast
expect_err unknown_grid "unknown grid 'study'" --grid study
expect_err sens_without_grid "--sensitivity needs --grid paper" --sensitivity
expect_err sens_not_paper "use it with --preset paper" --grid paper --sensitivity --preset ideal
expect_err bad_codec "--codec-speedup: 'abc' is not a number > 0" --codec-speedup abc

# --grid study-code: the study's released setup; --grid-steps: the walk from the paper
# grid to it, whose first and last rows must be the two grids' own counts
sc=$("$G" whatif --grid study-code 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '= 315 predictions, parameters: paper, BERT at 512 tokens' <<<"$sc" &&
   grep -q '^  20 (NIC: 10) ' <<<"$sc" && grep -q "^the study's findings here: A .* B " <<<"$sc" &&
   grep -q '^BERT as run_ddp.sh launches the ResNets (4 processes per node' <<<"$sc"
then pass study_code_grid; else fail study_code_grid "rc $rc: $(head -n 3 <<<"$sc" | tr '\n' ' ')"; fi
pg=$("$G" whatif --grid paper 2>&1)
st=$("$G" whatif --grid-steps 2>&1); rc=$?
first=$(awk '$1 == "0" {print $2 " of " $4}' <<<"$st")
last=$(awk '$1 ~ /^[0-9]+$/ {r = $2 " of " $4} END {print r}' <<<"$st")
want_first=$(sed -n 's/^wins (speedup > 1 over sync SGD): \([0-9]* of [0-9]*\) at >= 10.*/\1/p' <<<"$pg")
want_last=$(sed -n 's/^wins (speedup > 1 over sync SGD): \([0-9]* of [0-9]*\) at >= 10.*/\1/p' <<<"$sc")
nrows=$(awk '$1 ~ /^[0-9]+$/' <<<"$st" | wc -l)
if [ $rc -eq 0 ] && [ -n "$first" ] && [ "$first" = "$want_first" ] && [ "$last" = "$want_last" ] &&
   [ "$nrows" -eq 12 ]; then pass grid_steps_ends
else fail grid_steps_ends "rc $rc, $nrows rows, first '$first' (grid paper '$want_first'), last '$last' (study-code '$want_last')"; fi
if "$G" whatif --constants | grep -q 'source: launch_ec2_run_commands.py 20-21'; then pass study_sources
else fail study_sources "--constants does not cite the study's launch configuration"; fi
expect_err steps_with_grid "--grid-steps runs both grids; drop --grid" --grid-steps --grid paper
expect_err steps_json "--json does not apply to --grid or --grid-steps" --grid-steps --json
expect_err study_db "use them with a preset (drop --db)" --grid study-code --db "$tmp/none.db"
expect_err study_seq "drop --seq-len and --gpus-per-node" --grid study-code --seq-len 128
expect_err steps_gpn "drop --seq-len and --gpus-per-node" --grid-steps --gpus-per-node 8
expect_err zero_codec "--codec-speedup: '0' is not a number > 0" --codec-speedup 1,0
expect_err bad_seq "--seq-len 'x'" --model bert-base --seq-len x
expect_err zero_seq "--seq-len '0'" --model bert-base --seq-len 0
expect_err seq_too_long "--seq-len 600 is outside 1..512" --model bert-base --seq-len 600
expect_err seq_resnet "applies to bert-base and gpt2-small, not 'resnet50'" --seq-len 256
expect_err bad_collective "--collective 'star': use ring, tree or auto" --collective star
expect_err bad_intra_bw "--intra-bw (GB/s) 'fast' is not a number" --intra-bw fast
expect_err neg_intra_lat "--intra-latency (us) '-1' is not a number" --intra-latency -1
expect_err free_codec_no_db "--assume-free-codec needs --db" --assume-free-codec
expect_err bad_rounds "rounds 0 is not an integer in 1..64" --method mstopk:rounds=0

# new options change what they should: a faster codec helps PowerSGD rank 16, faster
# compute alone does not; a longer BERT sequence raises sync SGD's compute
sp() { "$G" whatif --workers 8 --bandwidth 25gbit --method powersgd:rank=16 "$@" 2>&1 | grep -E '^[0-9.]+x ' | awk '{print $NF}'; }
c1=$(sp); c4=$(sp --codec-speedup 4); s4=$(sp --compute-speedup 4 --codec-speedup 1)
if awk -v a="$c1" -v b="$c4" -v c="$s4" 'BEGIN { exit !(b > a && c < a) }'; then pass codec_speedup
else fail codec_speedup "rank 16 at 25 Gbit/s: ${c1} (1x), ${c4} (codec 4x), ${s4} (compute 4x)"; fi
t128=$("$G" whatif --model bert-base --workers 8 --bandwidth 100gbit --method signsgd | awk '/^1x/ {print $5}')
t512=$("$G" whatif --model bert-base --seq-len 512 --workers 8 --bandwidth 100gbit --method signsgd | awk '/^1x/ {print $5}')
if awk -v a="$t128" -v b="$t512" 'BEGIN { exit !(b > 4 * a) }'; then pass seq_len
else fail seq_len "sync SGD at 128 tokens ${t128} ms, at 512 ${t512} ms"; fi
# NCCL's pick: at 4096 GPUs the tree keeps sync SGD near its compute, the ring does not
r=$("$G" whatif --workers 4096 --bandwidth 100gbit --method powersgd --collective ring | awk '/^1x/ {print $5}')
t=$("$G" whatif --workers 4096 --bandwidth 100gbit --method powersgd | awk '/^1x/ {print $5}')
if awk -v a="$r" -v b="$t" 'BEGIN { exit !(a > 1000 && b < 200) }'; then pass collective_auto
else fail collective_auto "sync SGD at 4096 GPUs: ring ${r} ms, auto ${t} ms"; fi
if "$G" whatif --constants | grep -q '^launch .*assumption'; then pass constants
else fail constants "no launch row marked as an assumption"; fi
if "$G" whatif --constants --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert any(c["name"]=="launch" for c in d)'; then
	pass constants_json
else fail constants_json "not a JSON array of constants with launch"; fi

# the figures docs/model.md quotes: each block between '<!-- pin: ARGS -->' and
# '<!-- /pin -->' holds lines (indented 4) that `gcbench ARGS` must print verbatim
doc=$(dirname "$0")/../../docs/model.md
if [ -f "$doc" ]; then
	npin=0
	while IFS= read -r args; do
		npin=$((npin + 1))
		got=$("$G" $args 2>&1)
		miss=$(awk -v a="<!-- pin: $args -->" '$0 == a {on = 1; next} /^<!-- \/pin -->/ {on = 0}
			on && /^    / {print substr($0, 5)}' "$doc" | while IFS= read -r l; do
				grep -qxF -- "$l" <<<"$got" || echo "$l"; done)
		if [ -z "$miss" ]; then pass "docs_pin_$npin"
		else fail "docs_pin_$npin" "'gcbench $args' no longer prints: $(head -n 2 <<<"$miss" | tr '\n' '|')"; fi
	done < <(sed -n 's/^<!-- pin: \(.*\) -->$/\1/p' "$doc")
	[ "$npin" -gt 0 ] && pass docs_pins_found || fail docs_pins_found "no pin blocks in $doc"
else
	skip docs_pins "$doc not found"
fi
if "$G" whatif --help | grep -q 'example:'; then pass help; else fail help "no usage"; fi

# --svg: one chart per compute speed and worker count
mkdir -p "$tmp/svg"
out=$("$G" whatif --workers 8,96 --bandwidth 1gbit:30gbit:5gbit --compute-speedup 1,4 --method signsgd,powersgd:rank=4 --svg "$tmp/svg" 2>&1); rc=$?
n=$(ls "$tmp/svg"/whatif-resnet50-b64-*w-*x-codec*x.svg 2>/dev/null | wc -l)
if [ $rc -eq 0 ] && [ "$n" -eq 4 ] && grep -q 'charts: 4 SVG files' <<<"$out" &&
   grep -q '<title>Predicted speedup over sync SGD: resnet50, batch 64, 96 workers, compute 4x' "$tmp/svg/whatif-resnet50-b64-96w-4x-codec4x.svg"
then pass svg_charts; else fail svg_charts "rc $rc, $n files: $(tail -n 1 <<<"$out")"; fi
expect_err svg_no_dir "--svg: '$tmp/nodir' is not an existing directory" --workers 8 --bandwidth 1gbit --method signsgd --svg "$tmp/nodir"
expect_err svg_grid "--svg draws sweeps" --grid paper --svg "$tmp/svg"
expect_err svg_json "--svg and --json exclude each other" --json --svg "$tmp/svg"

# --db: the model fitted to a results database (the synthetic one of test_model_db,
# whose environment 1 has the most runs) instead of a preset
if [ -x "$BUILD/tests/test_model_db" ] && "$BUILD/tests/test_model_db" --make-db "$tmp/w.db" >/dev/null 2>&1; then
	out=$("$G" whatif --db "$tmp/w.db" --workers 4,16 --bandwidth 1gbit,10gbit --method powersgd:rank=4,signsgd 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q "parameters: $tmp/w.db, environment 1 " <<<"$out" &&
	   grep -q '^summary: [0-9]* of 8 configurations gain' <<<"$out"; then pass from_db
	else fail from_db "rc $rc: $(head -n 2 <<<"$out" | tr '\n' ' ') $(tail -n 2 <<<"$out" | tr '\n' ' ')"; fi
	out=$("$G" whatif --db "$tmp/w.db" --env 2 --workers 4 --bandwidth 1gbit --method signsgd 2>&1)
	grep -q "environment 2 " <<<"$out" && pass from_db_env || fail from_db_env "$(head -n 2 <<<"$out" | tr '\n' ' ')"
	expect_err db_unknown_env "no ok runs of environment 99" --db "$tmp/w.db" --env 99
	expect_err db_unmeasured "method 'fp16' was never measured in $tmp/w.db" --db "$tmp/w.db" --method fp16
	expect_err db_and_preset "--preset and --db exclude each other" --db "$tmp/w.db" --preset paper
	out=$("$G" whatif --db "$tmp/w.db" --workers 4 --bandwidth 1gbit --method fp16,signsgd --assume-free-codec 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q "never measured .*free" <<<"$out"; then pass db_assume_free
	else fail db_assume_free "rc $rc: $(head -n 2 <<<"$out" | tr '\n' ' ')"; fi
	# gcbench model --predict: the fit of one database on the runs of another (here a
	# second database from the same known parameters: errors of the noise only)
	if "$BUILD/tests/test_model_db" --make-db "$tmp/w2.db" >/dev/null 2>&1; then
		out=$("$G" model --db "$tmp/w.db" --env 1 --predict "$tmp/w2.db" 2>&1); rc=$?
		med=$(awk '$1 == "syncsgd" && $3 ~ /%$/ {sub("%", "", $3); print $3}' <<<"$out")
		if [ $rc -eq 0 ] && grep -q "out of sample, the fit of '$tmp/w.db' (environment 1)" <<<"$out" &&
		   awk -v m="$med" 'BEGIN { exit !(m != "" && m < 5) }'; then pass model_predict
		else fail model_predict "rc $rc, syncsgd median '$med': $(head -n 1 <<<"$out")"; fi
	else
		fail model_predict "cannot make a second database"
	fi
	# --validate: the validation table of the same pair; its "all" row must agree with
	# the per-run errors --predict prints (median of their |error|, computed here)
	if [ -f "$tmp/w2.db" ]; then
		val=$("$G" model --db "$tmp/w.db" --env 1 --validate "$tmp/w2.db" 2>&1); rc=$?
		pred=$("$G" model --db "$tmp/w.db" --env 1 --predict "$tmp/w2.db" 2>&1)
		want=$(awk '$1 ~ /^[0-9]+$/ && $(NF-1) ~ /%$/ {e = $(NF-1); sub("%", "", e); e += 0; if (e < 0) e = -e; print e}' <<<"$pred" |
			sort -g | awk '{a[NR] = $1} END {if (NR % 2) m = a[(NR + 1) / 2]; else m = (a[NR / 2] + a[NR / 2 + 1]) / 2; printf "%.1f", m}')
		got=$(awk '$1 == "all" {sub("%", "", $3); print $3}' <<<"$val")
		if [ $rc -eq 0 ] && grep -q '^by method:' <<<"$val" && grep -q '^by bandwidth cap:' <<<"$val" &&
		   grep -q '^goals (a quiet machine): median' <<<"$val" && [ -n "$got" ] &&
		   awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d < 0.11 && d > -0.11) }'
		then pass model_validate; else fail model_validate "rc $rc, median '$got' vs runs '$want': $(head -n 1 <<<"$val")"; fi
	else
		fail model_validate "no second database"
	fi
	out=$("$G" model --db "$tmp/w.db" --baseline syncsgd 2>&1); rc=$?
	[ $rc -eq 2 ] && grep -q -- "--baseline needs --validate" <<<"$out" && pass model_baseline_needs_validate ||
		fail model_baseline_needs_validate "rc $rc: $out"
	out=$("$G" model --db "$tmp/w.db" --validate "$tmp/w.db" --json 2>&1); rc=$?
	[ $rc -eq 2 ] && grep -q -- "--validate prints a table; drop --json" <<<"$out" && pass model_validate_json ||
		fail model_validate_json "rc $rc: $out"
	out=$("$G" model --db "$tmp/w.db" --predict "$tmp/none.db" 2>&1); rc=$?
	[ $rc -eq 3 ] && grep -q "cannot predict the runs of '$tmp/none.db'" <<<"$out" && pass model_predict_missing ||
		fail model_predict_missing "rc $rc: $out"
	out=$("$G" model --db "$tmp/w.db" --env 1 2>&1); rc=$?
	[ $rc -eq 2 ] && grep -q -- "--env needs --predict" <<<"$out" && pass model_env_needs_predict ||
		fail model_env_needs_predict "rc $rc: $(head -n 1 <<<"$out")"
	out=$("$G" model --db "$tmp/w.db" --env x --predict "$tmp/w.db" 2>&1); rc=$?
	[ $rc -eq 2 ] && grep -q -- "--env 'x' is not an environment id" <<<"$out" && pass model_bad_env ||
		fail model_bad_env "rc $rc: $(head -n 1 <<<"$out")"
	out=$("$G" whatif --db "$tmp/w.db" --workers 4 --bandwidth 1gbit 2>&1)
	if grep -q 'syncsgd_ms *signsgd *topk *mstopk *powersgd$' <<<"$out"; then pass db_default_methods
	else fail db_default_methods "$(sed -n 4p <<<"$out")"; fi
else
	for n in from_db from_db_env db_unknown_env db_unmeasured db_and_preset db_assume_free model_predict model_validate model_baseline_needs_validate model_validate_json model_predict_missing model_env_needs_predict model_bad_env db_default_methods; do skip "$n" "$BUILD/tests/test_model_db is not built"; done
fi
expect_err env_without_db "--env needs --db" --env 1
expect_err db_missing "$tmp/none.db" --db "$tmp/none.db"
# racks (model/racks.h): 4 workers at 1gbit in 2 racks at 4:1 run at the ring's share,
# half a node's link, exactly as 4 workers at 500mbit; at 2:1 (one flow each way over a
# 1gbit uplink) nothing changes; the options' mistakes are refused
sync_ms() { "$G" whatif --model resnet50 --workers 4 --method signsgd --preset ideal "$@" 2>&1 | sed -n 5p | awk '{print $5}'; }
a=$(sync_ms --bandwidth 1gbit --racks 2 --oversubscription 4); b=$(sync_ms --bandwidth 500mbit)
c=$(sync_ms --bandwidth 1gbit --racks 2 --oversubscription 2); d=$(sync_ms --bandwidth 1gbit)
u=$(sync_ms --bandwidth 1gbit --racks 2 --uplink 500mbit)
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$c" = "$d" ] && [ "$u" = "$b" ] && [ "$a" != "$d" ]; then pass racks_bottleneck
else fail racks_bottleneck "4:1 $a vs 500mbit $b; 2:1 $c vs 1gbit $d; uplink 500mbit $u"; fi
j=$("$G" whatif --model resnet50 --workers 4 --bandwidth 1gbit --method signsgd --preset ideal --racks 2 --uplink 500mbit --json 2>&1)
if grep -q '"racks": 2, "uplink_gbps": 0.5, "points"' <<<"$j"; then pass racks_json
else fail racks_json "$(head -c 200 <<<"$j")"; fi
expect_err racks_needs_uplink "--racks needs the uplinks' rate" --racks 2
expect_err uplink_needs_racks "--oversubscription needs --racks R" --oversubscription 2
expect_err racks_range "--racks '1' is not a number of racks in 2..64" --racks 1 --uplink 1gbit

# --slow F: the ring runs at its slowest hop, F x the bandwidth; with racks the slower of
# the slow link and the uplink's share, the uplink sized from the nominal links (4:1 of
# two 1gbit nodes: 500mbit, one flow each way)
a=$(sync_ms --bandwidth 1gbit --slow 0.5); b=$(sync_ms --bandwidth 500mbit)
c=$(sync_ms --bandwidth 1gbit --slow 0.5 --racks 2 --oversubscription 4)
e=$(sync_ms --bandwidth 1gbit --slow 0.9 --racks 2 --oversubscription 4)
f=$(sync_ms --bandwidth 1gbit --slow 0.25 --racks 2 --oversubscription 4); g=$(sync_ms --bandwidth 250mbit)
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$c" = "$b" ] && [ "$e" = "$b" ] && [ "$f" = "$g" ] && [ "$a" != "$d" ]; then pass slow_bottleneck
else fail slow_bottleneck "slow 0.5 $a vs 500mbit $b; with 4:1 racks $c, slow 0.9 with them $e, slow 0.25 $f vs 250mbit $g; 1gbit $d"; fi
j=$("$G" whatif --model resnet50 --workers 4 --bandwidth 1gbit --method signsgd --preset ideal --slow 0.875 --json 2>&1)
if grep -q '"slow": 0.875' <<<"$j"; then pass slow_json; else fail slow_json "$(head -c 200 <<<"$j")"; fi
expect_err slow_range "--slow (the slow node's factor on --bandwidth) '1.5' is not a number" --slow 1.5
expect_err slow_zero "--slow (the slow node's factor on --bandwidth) '0' is not a number" --slow 0
expect_err slow_grid "--slow applies to sweeps" --slow 0.5 --grid paper

# --bandwidth trace:FILE: the trace at its time-weighted mean (a square wave of 500mbit
# and 2gbit, 1 s each: 1250mbit); a malformed trace is refused with its FILE:LINE
tr=$(mktemp); printf '# square\n0 500mbit\n1 2gbit\n' >"$tr"
a=$(sync_ms --bandwidth "trace:$tr"); b=$(sync_ms --bandwidth 1250mbit)
h=$("$G" whatif --model resnet50 --workers 4 --method signsgd --preset ideal --bandwidth "trace:$tr,1gbit" 2>&1 | head -n 1)
if [ -n "$a" ] && [ "$a" = "$b" ] && grep -qF "bandwidth trace:$tr at its mean 1250mbit" <<<"$h"; then pass trace_mean
else fail trace_mean "trace $a vs 1250mbit $b; header '$h'"; fi
printf '0 500mbit\nbogus\n' >"$tr"
expect_err trace_malformed "$tr:2:" --bandwidth "trace:$tr"
expect_err trace_missing "cannot open trace" --bandwidth "trace:$tr.none"
rm -f "$tr"

#!/usr/bin/env bash
# tests/integration/test_regress.sh: `gcbench regress` and `gcbench history` on the
# synthetic database of tests/unit/test_regress.c (a 10% slowdown of powersgd between
# nccl 2.18.3 and 2.19.1, noise elsewhere): output formats and exit statuses.
. "$(dirname "$0")/../lib.sh"
GC=$BIN/gcbench
MK=$BUILD/tests/test_regress
names="exit1_on_regression exit0_without json_valid markdown previous usage_exit2 history notify_on_regression speedup_metric width slurm_job series_cli"
need_cmd python3 $names || exit 0
[ -x "$GC" ] && [ -x "$MK" ] || { for n in $names; do skip "$n" "$GC or $MK not built"; done; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gc-regress.XXXXXX")
sink_pid=""
trap '[ -n "$sink_pid" ] && kill "$sink_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
db=$tmp/r.db
"$MK" --make-db "$db" || { for n in $names; do fail "$n" "cannot build the synthetic database"; done; exit 0; }

out=$("$GC" regress --db "$db" --baseline nccl=2.18 --candidate nccl=2.19 2>&1); rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -E '^resnet50 +powersgd .*REGRESSION$' >/dev/null &&
   echo "$out" | grep -q "1 regressions" && echo "$out" | grep -q "baseline only"; then pass exit1_on_regression
else fail exit1_on_regression "rc=$rc out=$out"; fi

out=$("$GC" regress --db "$db" --baseline nccl=2.19 --candidate nccl=2.18 2>&1); rc=$?
if [ $rc -eq 0 ] && echo "$out" | grep -q "0 regressions, 1 improvements"; then pass exit0_without
else fail exit0_without "rc=$rc out=$out"; fi

"$GC" regress --db "$db" --baseline nccl=2.18 --candidate nccl=2.19 --format json >"$tmp/o.json" 2>/dev/null; rc=$?
v=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["regressions"], len(d["points"]), [p["verdict"] for p in d["points"] if p["method"]=="powersgd"][0])' "$tmp/o.json" 2>&1)
if [ $rc -eq 1 ] && [ "$v" = "1 6 REGRESSION" ]; then pass json_valid
else fail json_valid "rc=$rc parsed: $v"; fi

out=$("$GC" regress --db "$db" --baseline nccl=2.18 --candidate nccl=2.19 --format markdown 2>&1)
if echo "$out" | grep -q '^| model | method |' && echo "$out" | grep -q '^|---|'; then pass markdown
else fail markdown "$out"; fi

out=$("$GC" regress --db "$db" --baseline previous 2>&1); rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -q "candidate: latest (sweep 2)" && echo "$out" | grep -q "baseline:  previous (sweep 1)"; then pass previous
else fail previous "rc=$rc out=$out"; fi

"$GC" regress --db "$db" --baseline 'color=red' --candidate nccl=2.19 >/dev/null 2>&1; r1=$?
"$GC" regress --db "$db" --baseline nccl=2.18 --candidate nccl=2.19 --min-effect x >/dev/null 2>&1; r2=$?
"$GC" regress --db "$db" --baseline nccl=2.18 >/dev/null 2>&1; r3=$?
"$GC" regress --db "$db" --baseline nccl=2.18 --candidate nccl=2.19 --format xml >/dev/null 2>&1; r4=$?
"$GC" regress --db "$db" --baseline nccl=2.18 --candidate nccl=2.19 --metric fast >"$tmp/m.out" 2>&1; r5=$?
"$GC" regress --db "$db" --baseline sweep=x --candidate nccl=2.19 >/dev/null 2>&1; r6=$?
if [ "$r1$r2$r3$r4$r5$r6" = 222222 ] && grep -q "time or speedup" "$tmp/m.out"; then pass usage_exit2
else fail usage_exit2 "exit codes $r1 $r2 $r3 $r4 $r5 $r6, want 2 2 2 2 2 2: $(cat "$tmp/m.out")"; fi

# by SLURM job: sweep 1 ran in job 101, sweep 2 in job 202 (partition gpu), set as
# `gcbench run` inside an allocation sets them
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("UPDATE runs SET slurm_job = CASE sweep_id WHEN 1 THEN \x27101\x27 ELSE \x27202\x27 END, slurm_partition = \x27gpu\x27, slurm_nodes = \x27n[1-4]\x27"); c.commit()' "$db"
out=$("$GC" regress --db "$db" --baseline job=101 --candidate job=202,partition=gpu 2>&1); rc=$?
"$GC" regress --db "$db" --baseline job=x --candidate job=202 >/dev/null 2>"$tmp/j.err"; j1=$?
"$GC" regress --db "$db" --baseline job=101 --candidate 'partition=g;pu' >/dev/null 2>&1; j2=$?
"$GC" regress --db "$db" --baseline job=101,job=202 --candidate job=202 >/dev/null 2>&1; j3=$?
"$GC" regress --db "$db" --baseline job=999 --candidate job=202 >/dev/null 2>"$tmp/j3.err"; j4=$?
"$GC" regress --db "$db" --baseline job=101 --candidate partition=cpu >/dev/null 2>&1; j5=$?
h1=$("$GC" history --db "$db" --model resnet50 --method powersgd --job 202 2>&1 | grep -c ' 10gbit ')
h2=$("$GC" history --db "$db" --model resnet50 --method powersgd --partition gpu 2>&1 | grep -c ' 10gbit ')
"$GC" history --db "$db" --model resnet50 --method powersgd --job 2x >/dev/null 2>&1; j6=$?
"$GC" history --db "$db" --model resnet50 --method powersgd --partition 'g pu' >/dev/null 2>&1; j7=$?
if [ $rc -eq 1 ] && echo "$out" | grep -E '^resnet50 +powersgd .*REGRESSION$' >/dev/null &&
   echo "$out" | grep -q "baseline:  job=101" && [ "$j1$j2$j3$j4$j5$j6$j7" = 2223322 ] &&
   [ "$h1$h2" = 12 ] &&
   grep -q "job=ID" "$tmp/j.err" && grep -q "no ok run matches 'job=999'" "$tmp/j3.err"; then pass slurm_job
else fail slurm_job "rc=$rc exits $j1 $j2 $j3 $j4 $j5 $j6 $j7 (want 2 2 2 3 3 2 2) history rows $h1 $h2 (want 1 2) out=$out $(cat "$tmp/j.err" "$tmp/j3.err")"; fi

# --metric speedup: powersgd's speedup fell 10% (1.25 -> 1.14): flagged; the baseline
# method has no row of its own
out=$("$GC" regress --db "$db" --baseline nccl=2.18 --candidate nccl=2.19 --metric speedup 2>&1); rc=$?
if [ $rc -eq 1 ] && echo "$out" | grep -E '^resnet50 +powersgd .* 1\.25 +1\.1[0-9] .*REGRESSION$' >/dev/null &&
   ! echo "$out" | grep -E '^resnet50 +sync ' >/dev/null && echo "$out" | grep -q "metric:    speedup"; then pass speedup_metric
else fail speedup_metric "rc=$rc out=$out"; fi

# every table within 100 columns
long=$( { "$GC" regress --db "$db" --baseline nccl=2.18 --candidate nccl=2.19
	  "$GC" regress --db "$db" --baseline nccl=2.18 --candidate nccl=2.19 --metric speedup
	  "$GC" history --db "$db" --model resnet50 --method powersgd; } 2>&1 | awk 'length > 100')
[ -z "$long" ] && pass width || fail width "lines over 100 columns: $long"

out=$("$GC" history --db "$db" --model resnet50 --method powersgd --bandwidth 10gbit 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(echo "$out" | grep -c ' 10gbit ')" -eq 2 ] && echo "$out" | grep -q ' 1\.2[0-9][0-9]$' &&
   echo "$out" | grep -q '2\.19\.1'; then pass history
else fail history "rc=$rc out=$out"; fi

# a regression posts a 'regression' event to the hook (python3 sink on 127.0.0.1)
mkdir -p "$tmp/sink"
python3 "$(dirname "$0")/../tools/http_sink.py" ok "$tmp/sink" 30 & sink_pid=$!
for _ in $(seq 100); do [ -s "$tmp/sink/port" ] && break; sleep 0.1; done
export GCT_REG_HOOK="http://127.0.0.1:$(cat "$tmp/sink/port" 2>/dev/null)/h"
"$GC" regress --db "$db" --baseline nccl=2.18 --candidate nccl=2.19 --notify-env GCT_REG_HOOK >/dev/null 2>"$tmp/err"; rc=$?
"$GC" regress --db "$db" --baseline nccl=2.19 --candidate nccl=2.18 --notify-env GCT_REG_HOOK >/dev/null 2>&1
ev=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["event"], "regress --db" in d["details"], "1 of 6" in d["summary"])' "$tmp/sink/body.1" 2>&1)
nb=$(ls "$tmp/sink" | grep -c '^body\.')
if [ $rc -eq 1 ] && [ "$ev" = "regression True True" ] && [ "$nb" -eq 1 ]; then pass notify_on_regression
else fail notify_on_regression "rc=$rc event=$ev bodies=$nb err=$(cat "$tmp/err")"; fi

# --series (the synthetic database: 2 nights) and --evaluate: formats, csv round trip,
# and the usage errors (2), a missing file (3)
out=$("$GC" regress --db "$db" --series 2>&1); rc=$?
"$GC" regress --db "$db" --series --format csv >"$tmp/n.csv" 2>&1; rc2=$?
"$GC" regress --db "$db" --series --format json >"$tmp/s.json" 2>&1; rc3=$?
js=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["sweeps"]), len(d["points"][0]["median_s"]))' "$tmp/s.json" 2>&1)
printf 'point,night,median_s\na,1,0.1\na,2,-1\n' >"$tmp/bad.csv"
bad=$("$GC" regress --evaluate "$tmp/bad.csv" 2>&1); rcb=$?
"$GC" regress --evaluate "$tmp/none.csv" >/dev/null 2>&1; rcn=$?
"$GC" regress --db "$db" --series --baseline previous >/dev/null 2>&1; rcu=$?
"$GC" regress --db "$db" --series --format xml >/dev/null 2>&1; rcf=$?
"$GC" regress --evaluate "$tmp/n.csv" --trials 0 >/dev/null 2>&1; rct=$?
if [ $rc -eq 0 ] && grep -q "2 nights (sweeps 1..2)" <<<"$out" && [ $rc2 -eq 0 ] &&
   [ "$(head -1 "$tmp/n.csv")" = "point,night,median_s" ] && [ "$(grep -c ',2,' "$tmp/n.csv")" -ge 4 ] &&
   [ $rc3 -eq 0 ] && [ "$js" = "2 2" ] && [ $rcb -eq 2 ] &&
   grep -q "line 3: median_s '-1' is not a positive number" <<<"$bad" && [ $rcn -eq 3 ] &&
   [ $rcu -eq 2 ] && [ $rcf -eq 2 ] && [ $rct -eq 2 ]; then pass series_cli
else fail series_cli "rc=$rc/$rc2/$rc3 json=$js bad=$rcb:$bad none=$rcn usage=$rcu/$rcf/$rct out=$out"; fi

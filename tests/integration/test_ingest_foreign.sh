#!/usr/bin/env bash
# tests/integration/test_ingest_foreign.sh: record files written by a 20-line Perl
# script (docs/records.md is the only thing it knows) are ingested by `gcbench ingest`
# into one sweep, and the speedup view pairs the compressed run with the baseline; a
# truncated file, a missing rank and disagreeing headers are refused with the file
# named and nothing written.
. "$(dirname "$0")/../lib.sh"
GC=$BIN/gcbench
names="help perl_writer dump ingest_baseline ingest_method speedup headers truncated_refused missing_rank_refused disagree_refused"
need_cmd perl $names || exit 0
need_cmd sqlite3 $names || exit 0
[ -x "$GC" ] || { for n in $names; do skip "$n" "$GC not built"; done; exit 0; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gc-ingest-foreign.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
db=$tmp/f.db

# the writer: perl writer.pl OUT METHOD WORLD RANK T_ITER T_ENCODE [ITERS]
cat >"$tmp/writer.pl" <<'EOF'
use strict; use warnings;
my ($out, $method, $world, $rank, $t, $enc, $iters) = @ARGV; $iters //= 6;
my $head = qq({"producer": "perl-writer 1", "method": "$method", "params": "",)
  . qq( "workload": "synthetic", "model": "toy", "world": $world, "rank": $rank,)
  . qq( "backend": "gloo", "batch": 4, "versions": {"perl": "$^V"}});
open(my $f, '>:raw', "$out.tmp") or die "cannot write $out.tmp: $!";
print $f "GCBREC1\n", pack('V', length $head), $head;
for my $i (0 .. $iters - 1) {
  my $warm = $i < 2 ? 1 : 0;
  # rank iter warmup flags | forward backward encode decode comm exposed optimizer
  # iter iter_gpu loss | bytes_sent bytes_recv | val_loss val_acc t_eval
  print $f pack('V4 d<10 Q<2 d< f<2', $rank, $i, $warm, 0,
    $t * 0.2, $t * 0.4, $enc, $enc / 2, $t * 0.3, $t * 0.1, $t * 0.05, $t, 0, 1.5,
    4096, 4096, 0, 0, 0);
}
print $f pack('Q<Q<', ~0, $iters);
close $f or die; rename "$out.tmp", $out or die;
EOF

out=$("$GC" ingest --help 2>&1)
if echo "$out" | grep -q '^example:' && echo "$out" | grep -q 'gcbench ingest .*--sweep'; then pass help
else fail help "$out"; fi

ok=1
for r in 0 1; do
	perl "$tmp/writer.pl" "$tmp/base$r.rec" allreduce 2 $r 0.2 0 || ok=0
	perl "$tmp/writer.pl" "$tmp/topk$r.rec" topk 2 $r 0.1 0.01 || ok=0
done
size=$(stat -c %s "$tmp/base0.rec" 2>/dev/null)
hl=$(perl -e 'open my $f, "<:raw", $ARGV[0]; read $f, my $b, 12; print unpack("V", substr $b, 8)' "$tmp/base0.rec")
if [ $ok = 1 ] && [ "$size" = $((12 + hl + 6 * 128 + 16)) ]; then pass perl_writer
else fail perl_writer "size $size, header $hl"; fi

if [ -x "$BIN/gcbench-worker" ]; then
	out=$("$BIN/gcbench-worker" --dump "$tmp/topk1.rec" 2>&1)
	if echo "$out" | grep -q '^complete 1 records 6$' && echo "$out" | grep -q '"producer": "perl-writer 1"'; then pass dump
	else fail dump "$out"; fi
else skip dump "gcbench-worker not built (no MPI)"; fi

out=$("$GC" ingest "$tmp/base1.rec" "$tmp/base0.rec" --sweep foreign --baseline allreduce --db "$db" --tag t1 2>&1)
if [ $? -eq 0 ] && echo "$out" | grep -q "new sweep" &&
   [ "$(sqlite3 "$db" "SELECT count(*) FROM iterations i JOIN runs r ON r.id = i.run_id WHERE r.method = 'allreduce'")" = 12 ]; then pass ingest_baseline
else fail ingest_baseline "$out"; fi

out=$("$GC" ingest "$tmp/topk0.rec" "$tmp/topk1.rec" --sweep foreign --db "$db" --tag t1 2>&1)
if [ $? -eq 0 ] && echo "$out" | grep -q "existing sweep" &&
   [ "$(sqlite3 "$db" "SELECT iterations || '/' || warmup || '/' || status FROM runs WHERE method = 'topk'")" = "4/2/ok" ]; then pass ingest_method
else fail ingest_method "$out"; fi

# --json: the stored run as one object (a repeat of the same point, in a copy)
cp "$db" "$tmp/json.db"
out=$("$GC" ingest "$tmp/topk0.rec" "$tmp/topk1.rec" --sweep foreign --db "$tmp/json.db" --tag t1 --json)
if [ $? -eq 0 ] && python3 -c 'import json, sys; d = json.load(sys.stdin); assert d["method"] == "topk" and d["world_size"] == 2 and d["sweep_created"] is False and d["rows"] > 0' <<<"$out"
then pass ingest_json; else fail ingest_json "$out"; fi

v=$(sqlite3 "$db" "SELECT method || ' ' || printf('%.3f', speedup) FROM speedup WHERE method <> baseline")
e=$(sqlite3 "$db" "SELECT printf('%.4f', t_encode_median) FROM run_summary WHERE method = 'topk'")
if [ "$v" = "topk 2.000" ] && [ "$e" = "0.0100" ]; then pass speedup
else fail speedup "speedup rows '$v', encode '$e'"; fi

v=$(sqlite3 "$db" "SELECT count(*) || ' ' || min(producer) || ' ' || count(DISTINCT json_extract(header, '\$.versions.perl')) FROM run_headers")
p=$(sqlite3 "$db" "SELECT group_concat(DISTINCT producer) FROM runs")
if [ "$v" = "4 perl-writer 1 1" ] && [ "$p" = "perl-writer 1" ]; then pass headers
else fail headers "run_headers '$v', runs.producer '$p'"; fi

# a truncated file: refused, named, and nothing written (a fresh database stays empty)
head -c $((size - 40)) "$tmp/base1.rec" >"$tmp/cut1.rec"
db2=$tmp/empty.db
out=$("$GC" ingest "$tmp/base0.rec" "$tmp/cut1.rec" --sweep cut --baseline allreduce --db "$db2" 2>&1); rc=$?
n=$(sqlite3 "$db2" "SELECT (SELECT count(*) FROM sweeps) + (SELECT count(*) FROM runs) + (SELECT count(*) FROM iterations)" 2>&1)
before=$(sqlite3 "$db" "SELECT count(*) FROM runs"); "$GC" ingest "$tmp/base0.rec" "$tmp/cut1.rec" --sweep foreign --db "$db" >/dev/null 2>&1
after=$(sqlite3 "$db" "SELECT count(*) FROM runs")
if [ $rc -eq 2 ] && echo "$out" | grep -q "cut1.rec' is incomplete" && echo "$out" | grep -q "nothing was stored" &&
   { [ "$n" = 0 ] || [ ! -s "$db2" ]; } && [ "$before" = "$after" ]; then pass truncated_refused
else fail truncated_refused "rc=$rc n=$n runs $before->$after: $out"; fi

out=$("$GC" ingest "$tmp/topk1.rec" --sweep foreign --db "$db" 2>&1); rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "world 2 but 1 file was given: rank 0 is missing" && [ "$(sqlite3 "$db" "SELECT count(*) FROM runs")" = "$after" ]; then pass missing_rank_refused
else fail missing_rank_refused "rc=$rc: $out"; fi

out=$("$GC" ingest "$tmp/topk0.rec" "$tmp/base1.rec" --sweep foreign --db "$db" 2>&1); rc=$?
if [ $rc -eq 2 ] && echo "$out" | grep -q "base1.rec' says method 'allreduce'" && [ "$(sqlite3 "$db" "SELECT count(*) FROM runs")" = "$after" ]; then pass disagree_refused
else fail disagree_refused "rc=$rc: $out"; fi

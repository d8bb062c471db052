#!/usr/bin/env bash
# tests/integration/test_cli_vocab.sh: one option and output vocabulary across
# gcbench, gcbench-worker and gcbench-netem (docs/options.md). For each program and
# every gcbench command: --version, --help, `help CMD`, --opt=value equal to --opt value,
# an unknown option in the one wording with a suggestion and exit 2; unknown commands
# get a suggestion; one bandwidth syntax accepted and refused alike by a spec, whatif
# and gcbench-netem; every --json output parses (or is refused with exit 2).
. "$(dirname "$0")/../lib.sh"
G=$BIN/gcbench
W=$BIN/gcbench-worker
N=$BIN/gcbench-netem
MK=$BUILD/tests/test_regress

if [ ! -x "$G" ] || [ ! -x "$N" ]; then
	skip cli_vocab "$G or $N is not built (make)"
	exit 0
fi
need_cmd python3 cli_vocab || exit 0
work=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-vocab.XXXXXX")
export GCBENCH_HOME=$work/home
trap 'rm -rf "$work"' EXIT

json_ok() { python3 -m json.tool >/dev/null 2>&1; }

# ---- --version and --help of the three programs ---------------------------------
ver=$("$G" --version)
for p in "$G" "$W" "$N"; do
	name=$(basename "$p")
	if [ ! -x "$p" ]; then skip "version_$name" "$p is not built"; continue; fi
	out=$("$p" --version 2>&1); rc=$?
	# "NAME VERSION" (each binary's version is the tree it was compiled from)
	if [ $rc -eq 0 ] && [[ $out =~ ^$name\ [^\ ]+$ ]]; then
		pass "version_$name"
	else fail "version_$name" "rc $rc: '$out'"; fi
	out=$("$p" --help 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q "^usage: $name" <<<"$out"; then pass "help_$name"
	else fail "help_$name" "rc $rc: $(head -n 2 <<<"$out")"; fi
done

# ---- every gcbench command -------------------------------------------------------
cmds=$("$G" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }')
[ "$(wc -w <<<"$cmds")" -ge 14 ] && pass command_list || fail command_list "commands: $cmds"

# a near miss of one option per command, and the option it must suggest
declare -A typo=(
	[run]="--dry-rn --dry-run" [status]="--jsn --json" [provision]="--inventry --inventory"
	[env]="--jsn --json" [notify]="--url-nv --url-env" [schedule]="--roo --root"
	[regress]="--baselin --baseline" [history]="--modl --model" [compress]="--methd --method"
	[cluster]="--nme --name" [whatif]="--worker --workers" [model]="--jsn --json"
	[report]="--ot --out" [reap]="--dry-rn --dry-run" [ingest]="--swep --sweep"
	[submit]="--partiton --partition" [init]="--forc --force"
)
# the words a command needs before its options (its action)
declare -A pre=([notify]="test" [schedule]="list" [cluster]="status")

bad_help="" bad_helpcmd="" bad_ver="" bad_unknown="" bad_typo="" unlisted=""
for c in $cmds; do
	h=$("$G" "$c" --help 2>/dev/null); rc=$?
	[ $rc -eq 0 ] && grep -q "^usage: gcbench $c" <<<"$h" && grep -q "^exit status" <<<"$h" ||
		bad_help="$bad_help $c(rc $rc)"
	hc=$("$G" help "$c" 2>/dev/null); rc=$?
	[ $rc -eq 0 ] && [ "$hc" = "$h" ] || bad_helpcmd="$bad_helpcmd $c(rc $rc)"
	v=$("$G" "$c" ${pre[$c]:-} --version 2>&1); rc=$?
	[ $rc -eq 0 ] && [ "$v" = "$ver" ] || bad_ver="$bad_ver $c(rc $rc: $v)"
	# the one wording: program: error: unknown option 'X' for CMD (see 'CMD --help')
	cmd="gcbench $c"
	[ "$c" = notify ] && cmd="gcbench notify test"
	[ "$c" = schedule ] && cmd="gcbench schedule"
	e=$("$G" "$c" ${pre[$c]:-} --zzqx-bogus 2>&1 >/dev/null); rc=$?
	[ $rc -eq 2 ] && [ "$e" = "gcbench: error: unknown option '--zzqx-bogus' for $cmd (see '$cmd --help')" ] ||
		bad_unknown="$bad_unknown [$c rc $rc: $e]"
	if [ -n "${typo[$c]:-}" ]; then
		set -- ${typo[$c]}
		e=$("$G" "$c" ${pre[$c]:-} "$1" x 2>&1 >/dev/null); rc=$?
		[ $rc -eq 2 ] && [ "$e" = "gcbench: error: unknown option '$1' for $cmd; did you mean '$2'? (see '$cmd --help')" ] ||
			bad_typo="$bad_typo [$c rc $rc: $e]"
	else
		unlisted="$unlisted $c"
	fi
done
[ -z "$bad_help" ] && pass cmd_help || fail cmd_help "no usage or exit table:$bad_help"
[ -z "$bad_helpcmd" ] && pass help_cmd || fail help_cmd "'gcbench help CMD' differs from CMD --help:$bad_helpcmd"
[ -z "$bad_ver" ] && pass cmd_version || fail cmd_version "$bad_ver"
[ -z "$bad_unknown" ] && pass cmd_unknown_option || fail cmd_unknown_option "$bad_unknown"
[ -z "$bad_typo" ] && pass cmd_did_you_mean || fail cmd_did_you_mean "$bad_typo"
[ -z "$unlisted" ] || skip cmd_did_you_mean_unlisted "no near miss listed in this test for:$unlisted (add one to 'typo')"

# ---- the same wording in the worker and gcbench-netem ------------------------------
e=$("$N" set --dev x --rat 1gbit 2>&1 >/dev/null); rc=$?
want="gcbench-netem: error: unknown option '--rat' for gcbench-netem set; did you mean '--rate'? (see 'gcbench-netem set --help')"
[ $rc -eq 2 ] && [ "$e" = "$want" ] && pass netem_unknown_option || fail netem_unknown_option "rc $rc: $e"
if [ -x "$W" ]; then
	e=$("$W" --workload replay:tiny --iter 3 2>&1 >/dev/null); rc=$?
	want="gcbench-worker: error: unknown option '--iter' for gcbench-worker; did you mean '--iters'? (see 'gcbench-worker --help')"
	[ $rc -eq 2 ] && [ "$e" = "$want" ] && pass worker_unknown_option || fail worker_unknown_option "rc $rc: $e"
	e=$("$W" --workload replay:tiny --iters 2>&1 >/dev/null); rc=$?
	want="gcbench-worker: error: option '--iters' of gcbench-worker needs a value (see 'gcbench-worker --help')"
	[ $rc -eq 2 ] && [ "$e" = "$want" ] && pass worker_missing_value || fail worker_missing_value "rc $rc: $e"
else
	skip worker_unknown_option "$W is not built"
	skip worker_missing_value "$W is not built"
fi
K=$BIN/gcbench-bench-kernels
if [ -x "$K" ]; then
	# the kernels benchmark reads its argv with the same parser: the message, then the usage
	e=$("$K" --reps 2>&1 >/dev/null); rc=$?
	first=$(printf '%s\n' "$e" | head -1)
	want="gcbench-bench-kernels: error: option '--reps' of gcbench-bench-kernels needs a value (see 'gcbench-bench-kernels --help')"
	[ $rc -eq 2 ] && [ "$first" = "$want" ] && printf '%s' "$e" | grep -q '^  --reps N  ' &&
		pass kernels_missing_value || fail kernels_missing_value "rc $rc: $e"
	e=$("$K" --reps=64 2>&1 >/dev/null | head -1); rc=$("$K" --reps=64 >/dev/null 2>&1; echo $?)
	want="gcbench-bench-kernels: error: invalid --reps '64': expected an integer from 1 to 63"
	[ "$rc" -eq 2 ] && [ "$e" = "$want" ] && pass kernels_bad_number || fail kernels_bad_number "rc $rc: $e"
	out=$("$K" --help); rc=$?
	[ $rc -eq 0 ] && printf '%s' "$out" | grep -q '^  --cuda-only   leave out the CPU rows$' &&
		pass kernels_help || fail kernels_help "rc $rc: $out"
else
	skip kernels_missing_value "$K is not built"
	skip kernels_bad_number "$K is not built"
	skip kernels_help "$K is not built"
fi
P=$BIN/gcbench-probe
e=$("$P" client --connect 127.0.0.1 --port 0 2>&1 >/dev/null); rc=$?
want="gcbench-probe: error: invalid --port '0': expected a whole number from 1 to 65535; see 'gcbench-probe --help'"
[ $rc -eq 2 ] && [ "$e" = "$want" ] && pass probe_bad_number || fail probe_bad_number "rc $rc: $e"
e=$("$P" server --once=1 2>&1 >/dev/null); rc=$?
want="gcbench-probe: error: option '--once' of gcbench-probe takes no value (see 'gcbench-probe --help')"
[ $rc -eq 2 ] && [ "$e" = "$want" ] && pass probe_flag_value || fail probe_flag_value "rc $rc: $e"
out=$("$P" server --help); rc=$?
[ $rc -eq 0 ] && printf '%s' "$out" | grep -q '^  --port P       the TCP port; 5301$' &&
	pass probe_help || fail probe_help "rc $rc: $out"
e=$("$G" history --model m --method x --db 2>&1 >/dev/null); rc=$?
want="gcbench: error: option '--db' of gcbench history needs a value (see 'gcbench history --help')"
[ $rc -eq 2 ] && [ "$e" = "$want" ] && pass missing_value || fail missing_value "rc $rc: $e"

# ---- unknown commands get a suggestion ------------------------------------------------
e=$("$G" rn 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$e" = "gcbench: error: unknown command 'rn'; did you mean 'run'? (see 'gcbench --help')" ] &&
	pass unknown_command || fail unknown_command "rc $rc: $e"
e=$("$G" help stauts 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF "did you mean 'status'?" <<<"$e" && pass help_unknown_command ||
	fail help_unknown_command "rc $rc: $e"
e=$("$G" cluster stauts 2>&1); rc=$?
[ $rc -eq 2 ] && grep -qF "unknown command 'stauts' for gcbench cluster; did you mean 'status'?" <<<"$e" &&
	pass unknown_subcommand || fail unknown_subcommand "rc $rc: $e"
e=$("$N" clera 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$e" = "gcbench-netem: error: unknown command 'clera'; did you mean 'clear'? (see 'gcbench-netem --help')" ] &&
	pass netem_unknown_command || fail netem_unknown_command "rc $rc: $e"
out=$("$N" help set); rc=$?
[ $rc -eq 0 ] && [ "$out" = "$("$N" --help)" ] && pass netem_help_cmd || fail netem_help_cmd "rc $rc"

# ---- --opt=value is --opt value ---------------------------------------------------------
same() { # NAME CMD1 -- CMD2: the same stdout, stderr and exit status
	local name=$1 a b ra rb; shift
	local -a one=() two=()
	while [ "$1" != -- ]; do one+=("$1"); shift; done; shift; two=("$@")
	a=$("${one[@]}" 2>&1); ra=$?
	b=$("${two[@]}" 2>&1); rb=$?
	if [ $ra -eq $rb ] && [ "$a" = "$b" ] && [ -n "$a" ]; then pass "$name"
	else fail "$name" "rc $ra vs $rb: '${a:0:200}' vs '${b:0:200}'"; fi
}
same eq_whatif "$G" whatif --workers=8 --bandwidth=10gbit --method=topk:ratio=0.01 -- \
	"$G" whatif --workers 8 --bandwidth 10gbit --method topk:ratio=0.01
same eq_history "$G" history --model=resnet50 --method=powersgd --db="$work/none.db" -- \
	"$G" history --model resnet50 --method powersgd --db "$work/none.db"
same eq_netem "$N" set --dev=nosuch0 --rate=10 -- "$N" set --dev nosuch0 --rate 10
same eq_status "$G" status --db="$work/none.db" --runs=3 -- "$G" status --db "$work/none.db" --runs 3
if [ -x "$W" ]; then
	same eq_worker "$W" --workload=replay:tiny --iters=0 -- "$W" --workload replay:tiny --iters 0
else skip eq_worker "$W is not built"; fi

# ---- one bandwidth syntax: a spec, whatif and gcbench-netem agree ----------------------
spec() { printf 'name: vocab\nmodels: [resnet50]\nworld_size: 4\nbatch: 32\niterations: 5\nmethods: [syncsgd]\nbandwidth: [%s]\n' "$1" >"$work/s.yaml"; }
printf 'hosts: []\n' >"$work/inv.yaml"
bad=""
for b in 100mbit 10gbit 1.5gbit 400gbit 10Gbit 1mbit; do
	spec "$b"
	e=$("$G" run "$work/s.yaml" --dry-run --inventory "$work/inv.yaml" 2>&1)
	grep -q "bandwidth" <<<"$e" && bad="$bad [spec refused $b: $e]"
	"$G" whatif --workers 8 --bandwidth "$b" --method signsgd >/dev/null 2>&1 || bad="$bad [whatif refused $b]"
	e=$("$N" set --dev nosuch0 --rate "$b" 2>&1)
	grep -qiE "rate|bandwidth" <<<"$e" && bad="$bad [netem refused $b: $e]"
done
[ -z "$bad" ] && pass bandwidth_accepted || fail bandwidth_accepted "$bad"
bad=""
for b in 10 0 0bit 500kbit 401gbit 1tbit 10gbps abc 1e9bit; do
	spec "$b"
	e=$("$G" run "$work/s.yaml" --dry-run --inventory "$work/inv.yaml" 2>&1); r1=$?
	{ [ $r1 -eq 2 ] && grep -q "bandwidth is" <<<"$e"; } || bad="$bad [spec accepted $b: rc $r1]"
	e=$("$G" whatif --workers 8 --bandwidth "$b" --method signsgd 2>&1); r2=$?
	{ [ $r2 -eq 2 ] && grep -q "\-\-bandwidth" <<<"$e"; } || bad="$bad [whatif accepted $b: rc $r2]"
	e=$("$N" set --dev nosuch0 --rate "$b" 2>&1); r3=$?
	{ [ $r3 -eq 2 ] && grep -qiE "rate|bandwidth" <<<"$e"; } || bad="$bad [netem accepted $b: rc $r3 $e]"
done
[ -z "$bad" ] && pass bandwidth_refused || fail bandwidth_refused "$bad"
# the suggestions: what a bare number most likely meant
e=$("$G" whatif --bandwidth 10 2>&1); spec 10
s=$("$G" run "$work/s.yaml" --dry-run --inventory "$work/inv.yaml" 2>&1)
n=$("$N" set --dev nosuch0 --rate 10 2>&1)
if grep -q "write 10gbit" <<<"$e" && grep -q "write 10gbit" <<<"$s" && grep -q "write 10gbit" <<<"$n"; then
	pass bare_10_suggests_10gbit
else fail bare_10_suggests_10gbit "whatif: $e | spec: $s | netem: $n"; fi
spec 0; s=$("$G" run "$work/s.yaml" --dry-run --inventory "$work/inv.yaml" 2>&1)
grep -q "write unlimited" <<<"$s" && ! grep -q "0bit" <<<"$s" && pass bare_0_suggests_unlimited ||
	fail bare_0_suggests_unlimited "$s"
spec 1000000000; s=$("$G" run "$work/s.yaml" --dry-run --inventory "$work/inv.yaml" 2>&1)
grep -q "write 1gbit" <<<"$s" && pass bare_bits_suggests_1gbit || fail bare_bits_suggests_1gbit "$s"
# one way of printing a cap
out=$("$G" whatif --workers 8 --bandwidth 100mbit,10gbit --method signsgd 2>&1)
grep -qE ' 100mbit ' <<<"$out" && grep -qE ' 10gbit ' <<<"$out" && pass cap_printed_tc ||
	fail cap_printed_tc "$out"

# ---- --json parses everywhere it is offered; refused (exit 2) where it is not --------
out=$("$G" env --json); [ $? -eq 0 ] && json_ok <<<"$out" && pass json_env || fail json_env "${out:0:200}"
out=$("$G" whatif --workers 8 --bandwidth 1gbit:3gbit --method topk:ratio=0.01 --json)
[ $? -eq 0 ] && json_ok <<<"$out" && pass json_whatif || fail json_whatif "${out:0:200}"
out=$("$G" whatif --constants --json)
[ $? -eq 0 ] && json_ok <<<"$out" && pass json_whatif_constants || fail json_whatif_constants "${out:0:200}"
"$G" whatif --grid paper --json >"$work/o" 2>&1; rc=$?
[ $rc -eq 2 ] && ! grep -q '^{' "$work/o" && pass json_whatif_grid_refused || fail json_whatif_grid_refused "rc $rc"
out=$("$G" cluster status --name vocab-none --json 2>/dev/null)
json_ok <<<"$out" && pass json_cluster_status || fail json_cluster_status "${out:0:200}"
"$G" cluster up 2 --name vocab-none --json >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass json_cluster_up_refused || fail json_cluster_up_refused "rc $rc"
out=$("$G" schedule list --root "$work/sched" --json); rc=$?
[ $rc -eq 0 ] && json_ok <<<"$out" && [ "$(tr -d ' \n' <<<"$out")" = "[]" ] && pass json_schedule_list ||
	fail json_schedule_list "rc $rc: ${out:0:200}"
"$G" schedule remove nothing --root "$work/sched" --json >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass json_schedule_remove_refused || fail json_schedule_remove_refused "rc $rc"
"$G" run "$work/s.yaml" --dry-run --json >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && pass json_run_dry_refused || fail json_run_dry_refused "rc $rc"
python3 - "$work/g.npy" <<'EOF'
import struct, sys
hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }"
hdr += " " * (118 - len(hdr)) + "\n"
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode()
                              + struct.pack("<6f", 0.5, -4, 1, 3, -0.25, 2))
EOF
out=$("$G" compress --method topk:ratio=0.5 --in "$work/g.npy" --json)
[ $? -eq 0 ] && json_ok <<<"$out" && pass json_compress || fail json_compress "${out:0:200}"
if [ -x "$MK" ] && "$MK" --make-db "$work/r.db" >/dev/null 2>&1; then
	out=$("$G" status --db "$work/r.db" --json)
	[ $? -eq 0 ] && python3 -c 'import json,sys,re; d=json.load(sys.stdin); assert d["sweeps"] and d["runs"] and "bandwidth" in d["runs"][0]
t = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")   # one time form in every --json
assert all(t.match(x["started"]) for x in d["sweeps"] + d["runs"])
assert all(x["finished"] is None or t.match(x["finished"]) for x in d["sweeps"])' <<<"$out" &&
		pass json_status || fail json_status "${out:0:200}"
	out=$("$G" history --db "$work/r.db" --model resnet50 --method powersgd --json)
	[ $? -eq 0 ] && python3 -c 'import json,sys,re; d=json.load(sys.stdin); assert d and d[0]["bandwidth"].endswith("bit")
assert all(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", x["started"]) for x in d)' <<<"$out" &&
		pass json_history || fail json_history "${out:0:200}"
	out=$("$G" regress --db "$work/r.db" --baseline nccl=2.18 --candidate nccl=2.19 --json); rc=$?
	[ $rc -le 1 ] && json_ok <<<"$out" && pass json_regress || fail json_regress "rc $rc ${out:0:200}"
	out=$("$G" model --db "$work/r.db" --json --no-store)
	[ $? -eq 0 ] && json_ok <<<"$out" && pass json_model || fail json_model "${out:0:200}"
else
	for n in json_status json_history json_regress json_model; do skip $n "$MK cannot build the synthetic database"; done
fi

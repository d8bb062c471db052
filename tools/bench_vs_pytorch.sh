#!/usr/bin/env bash
# tools/bench_vs_pytorch.sh (make bench-vs-pytorch): gcbench-worker against the study's
# own stack, PyTorch DDP with its communication hooks, on the same nodes, the same
# parameter shapes and the same bandwidth caps, in one run.
#
#   PyTorch: DDP, gloo, bucket_cap_mb 25, one thread per rank: default all-reduce,
#            fp16_compress_hook, powerSGD_hook (rank 4, error feedback, warm start,
#            compressing from iteration 2) - tools/ddp_bench.py, one process per node.
#   gcbench: gcbench-worker --method syncsgd | fp16 | powersgd:rank=4 --threads 1 under
#            mpirun (TCP BTL on the data interface, ring algorithms, yield when idle).
# Both on a module with exactly the model's parameter tensors and negligible compute
# (ddp_bench: forward x * sum <p,p>/2; gcbench: a csv: parameter list has no FLOPs, so
# the emulated backward takes 0 s): the exchange dominates. Figure: the median over the
# timed iterations of rank 0's iteration wall time; ratio = gcbench / PyTorch per cell.
# Then, per stack, the lowest cap at which its PowerSGD is no longer faster than its own
# all-reduce (where compression stops paying).
#
# Usage: tools/bench_vs_pytorch.sh [options]
#   --models "resnet50 bert-base"  parameter lists: $GCBENCH_SHARED/data/models/M.csv when
#                                  present, else gcbench-worker --print-model M (its
#                                  FLOPs column dropped), or csv:PATH
#   --caps "0.5 1 2 5 0"           Gbit/s on every node's egress; 0 = uncapped
#   --iters N (10) --warmup W (3)  timed and untimed iterations per cell (W >= 2)
#   --max-load L (1.5)             refuse to report when the 1-minute load average
#                                  exceeds L before the run, or other work keeps more
#                                  than L CPUs busy before a cell; --force reports anyway
#   --inventory FILE               run on the hosts of a gcbench inventory (real cluster)
#                                  instead of a local 4-node cluster; see docs/pytorch.md
#   --remote-dir DIR               inventory: the gcbench checkout on every host ($PWD)
#   PYTHON=...                     the python with torch (default: the first of python3,
#                                  /usr/bin/python3 that imports it; python3 on hosts)
#   --keep DIR                     keep logs and record files in DIR
# Exit: 0 reported; 1 refused (busy machine) or setup failed; 0 with "skipped" when
# not root or torch is missing. A benchmark: it never fails on the figures.
set -u
BUILD=${BUILD:-build}
BIN=$(cd "$(dirname "$0")/.." && pwd)/$BUILD/bin
case $BUILD in /*) BIN=$BUILD/bin ;; esac
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SHARED=${GCBENCH_SHARED:-$ROOT/../shared}
models="resnet50 bert-base" caps="0.5 1 2 5 0" iters=10 warmup=3 max_load=1.5 force=0
inventory="" remote_dir=$ROOT keep="" world=4
hooks="allreduce fp16 powersgd"

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in --models|--caps|--iters|--warmup|--max-load|--inventory|--remote-dir|--keep)
		[ $# -ge 2 ] || { echo "bench-vs-pytorch: $1 needs a value (see --help)" >&2; exit 2; } ;;
	esac
	case $1 in
	--models) models=$2; shift ;;
	--caps) caps=$2; shift ;;
	--iters) iters=$2; shift ;;
	--warmup) warmup=$2; shift ;;
	--max-load) max_load=$2; shift ;;
	--force) force=1 ;;
	--inventory) inventory=$2; shift ;;
	--remote-dir) remote_dir=$2; shift ;;
	--keep) keep=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "bench-vs-pytorch: unknown option '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
case "$iters$warmup" in *[!0-9]*) echo "bench-vs-pytorch: --iters and --warmup take integers" >&2; exit 2 ;; esac
[ "$warmup" -ge 2 ] || { echo "bench-vs-pytorch: --warmup must be >= 2 (PowerSGD compresses from iteration 2)" >&2; exit 2; }
for c in $caps; do
	awk -v c="$c" 'BEGIN { exit !(c ~ /^[0-9]+(\.[0-9]+)?$/) }' ||
		{ echo "bench-vs-pytorch: cap '$c' is not a number of Gbit/s (0 = uncapped)" >&2; exit 2; }
done

say() { echo "bench-vs-pytorch: $*"; }
if [ -z "$inventory" ] && [ "$(id -u)" -ne 0 ]; then
	say "skipped: needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) for the local cluster and its caps"; exit 0
fi
# the first python that imports torch (a pyenv or venv python3 may shadow Debian's)
PY=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
	if "$p" -c 'import torch, torch.distributed' 2>/dev/null; then PY=$(command -v "$p"); break; fi
done
if [ -z "$PY" ]; then
	say "skipped: no python3 can import torch (apt-get install python3-torch, or tools/deps.sh --extra --install; or set PYTHON)"; exit 0
fi
[ -n "$inventory" ] && PY=${PYTHON:-python3}   # on an inventory: the hosts' python
for b in gcbench gcbench-netem gcbench-worker; do
	[ -x "$BIN/$b" ] || { say "$BIN/$b is not built (run make; gcbench-worker needs libopenmpi-dev)" >&2; exit 1; }
done
command -v mpirun >/dev/null || { say "mpirun is missing (apt-get install openmpi-bin)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

busy() { awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v m="$max_load" 'BEGIN { exit !(l > m) }'; }
# others: CPUs kept busy by everything else, sampled over 1 s between cells while no rank
# of this benchmark runs (the load average would count the benchmark's own ranks)
others() {
	local a b
	a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat); sleep 1
	b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
	awk -v a="$a" -v b="$b" -v n="$(nproc)" 'BEGIN { split(a, x, " "); split(b, y, " ");
		t = (y[1] - x[1]) + (y[2] - x[2]); printf "%.2f", (t > 0 ? n * (y[1] - x[1]) / t : 0) }'
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
say "load average $load0 on $(nproc) cores before measuring (limit $max_load)"
if busy; then
	if [ "$force" = 1 ]; then
		say "WARNING: the machine is busy (load ${load0%% *} > $max_load): figures measure the CPU as much as the network (--force)"
	else
		say "WARNING: the machine is busy (load ${load0%% *} > $max_load): refusing to report; wait, or pass --force" >&2
		exit 1
	fi
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gcbench-vspt.XXXXXX")
name=pt$$
cleanup() {
	local i
	for i in $(seq 1 "$world"); do unshape "$i"; done 2>/dev/null
	[ -z "$inventory" ] && "$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1
	[ -n "$keep" ] && { mkdir -p "$keep" && cp -r "$tmp"/. "$keep"/; }
	rm -rf "$tmp"
	if [ -z "$inventory" ]; then rm -rf "${GCBENCH_HOME:-/nonexistent}"
	else for i in $(seq 1 "$world"); do run_on "$i" rm -rf "$rdir"; done 2>/dev/null; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# RBIN: the binaries as the nodes see them (here: shared file system; inventory: the
# checkout under --remote-dir, or an absolute BUILD)
case $BUILD in /*) RBIN=$BUILD/bin ;; *) RBIN=$remote_dir/$BUILD/bin ;; esac
[ -z "$inventory" ] && RBIN=$BIN

# ---- nodes: addr[i], iface[i], run_on i CMD..., shape i GBIT, unshape i ------------------
declare -a addr iface netns sshhost
ssh_cfg=""
inv_field() {   # inv_field FILE KEY: the KEY of every host, in order
	awk -v k="$2" '/^hosts:/ { h = 1; next } h && $0 ~ "^ *(- )?" k ":" { sub("^ *(- )?" k ": *", ""); sub(/ *#.*/, ""); print }' "$1"
}
load_inventory() {
	local f=$1 i=0 a
	ssh_cfg=$(sed -n 's/^ssh_config: *\([^ #]*\).*/\1/p' "$f")
	mapfile -t _a < <(inv_field "$f" address)
	mapfile -t _i < <(inv_field "$f" iface)
	mapfile -t _n < <(inv_field "$f" netns)
	mapfile -t _u < <(inv_field "$f" user)
	[ "${#_a[@]}" -ge "$world" ] || { say "inventory '$f' lists ${#_a[@]} hosts; this benchmark needs $world" >&2; exit 1; }
	for i in $(seq 1 "$world"); do
		a=${_a[$((i - 1))]}
		case $a in ''|*[!A-Za-z0-9._:-]*) say "inventory '$f': host $i address '$a' is not a safe token" >&2; exit 1 ;; esac
		addr[$i]=$a iface[$i]=${_i[$((i - 1))]:-eth0} netns[$i]=${_n[$((i - 1))]:-}
		sshhost[$i]=${_u[$((i - 1))]:+${_u[$((i - 1))]}@}$a
	done
}
ssh_args() { if [ -n "$ssh_cfg" ]; then echo "-F $ssh_cfg -o BatchMode=yes"; else echo "-o BatchMode=yes"; fi; }
run_on() {      # run_on I CMD...: in node I's namespace (local) or over ssh (inventory)
	local i=$1; shift
	if [ -z "$inventory" ]; then ip netns exec "${netns[$i]}" "$@"
	else
		local q="" w; for w in "$@"; do q="$q $(printf '%q' "$w")"; done
		# shellcheck disable=SC2046
		ssh $(ssh_args) "${sshhost[$i]}" "cd $(printf '%q' "$remote_dir") &&$q"
	fi
}
shape() {
	local i=$1 g=$2 rate
	rate=$(awk -v g="$g" 'BEGIN { printf "%dmbit", g * 1000 }')
	if [ -z "$inventory" ]; then
		"$BIN/gcbench-netem" set --dev "${iface[$i]}" --netns "${netns[$i]}" --rate "$rate" --owner $$ >/dev/null
	else run_on "$i" "$RBIN/gcbench-netem" set --dev "${iface[$i]}" --rate "$rate" >/dev/null
	fi
}
unshape() {
	local i=$1
	[ -n "${iface[$i]:-}" ] || return 0
	if [ -z "$inventory" ]; then "$BIN/gcbench-netem" clear --dev "${iface[$i]}" --netns "${netns[$i]}" >/dev/null
	else run_on "$i" "$RBIN/gcbench-netem" clear --dev "${iface[$i]}" >/dev/null
	fi
}

if [ -z "$inventory" ]; then
	export GCBENCH_HOME=$tmp/home GCBENCH_NETEM_STATE_DIR=$tmp/home/netem-state
	say "bringing up a local $world-node cluster '$name'"
	"$BIN/gcbench" cluster up "$world" --name "$name" --shared-fs >"$tmp/cluster.log" 2>&1 ||
		{ say "cluster up failed: $(tail -n 2 "$tmp/cluster.log")" >&2; exit 1; }
	inventory_file=$GCBENCH_HOME/clusters/$name/inventory.yaml
	load_inventory "$inventory_file"
	oob=$(echo "${addr[1]}" | sed 's/\.[0-9]*$/.0\/24/')
	inventory=""
else
	[ -r "$inventory" ] || { say "cannot read inventory '$inventory'" >&2; exit 1; }
	load_inventory "$inventory"
	oob=""
fi
# rdir: where nodes read the parameter list and write record files (shared here; on an
# inventory, a directory on every host, removed at exit)
if [ -z "$inventory" ]; then rdir=$tmp; else rdir=/tmp/gcbench-vspt-$name-$(hostname -s); fi
push() {        # push FILE: make FILE readable on every node as $rdir/NAME; prints that path
	local f=$1 i
	[ -z "$inventory" ] && { cp "$f" "$rdir/$(basename "$f")" 2>/dev/null; echo "$rdir/$(basename "$f")"; return; }
	for i in $(seq 1 "$world"); do run_on "$i" mkdir -p "$rdir" && run_on "$i" sh -c "cat > $rdir/$(basename "$f")" <"$f" || return 1; done
	echo "$rdir/$(basename "$f")"
}
fetch() {       # fetch NODE PATH LOCAL
	if [ -z "$inventory" ]; then cp "$2" "$3"; else run_on "$1" cat "$2" >"$3"; fi
}
for i in $(seq 2 "$world"); do
	[ "${iface[$i]}" = "${iface[1]}" ] || say "WARNING: hosts use different data interfaces; mpirun gets ${iface[1]}"
done

# ---- the parameter lists ----------------------------------------------------------------
model_csv() {   # model_csv M: a parameter-list file for model M
	local m=$1 f
	case $m in csv:*) echo "${m#csv:}"; return ;; esac
	f=$SHARED/data/models/$m.csv
	if [ -r "$f" ]; then echo "$f"; return; fi
	# without the flops_fwd column: the replayed backward takes 0 s, as ddp_bench's does
	"$BIN/gcbench-worker" --print-model "$m" 2>/dev/null | grep -v '^#' | cut -d, -f1-4 >"$tmp/$m.csv" &&
		[ -s "$tmp/$m.csv" ] && echo "$tmp/$m.csv"
}

# ---- one cell of each stack: prints the median iteration seconds, or nothing ----------
port=29400
run_pytorch() { # run_pytorch CSV HOOK LOGPREFIX
	local csv=$1 hook=$2 log=$3 i pids=() rc=0
	port=$((port + 1))
	local out=$rdir/$(basename "$log").p-r0.gcr
	for i in $(seq 1 "$world"); do
		run_on "$i" env OMP_NUM_THREADS=1 GLOO_SOCKET_IFNAME="${iface[$i]}" RANK=$((i - 1)) \
			WORLD_SIZE="$world" MASTER_ADDR="${addr[1]}" MASTER_PORT="$port" GCBENCH_DEADLINE_S=800 \
			timeout --kill-after=10 900 "$PY" "$remote_dir/tools/ddp_bench.py" \
			--model "csv:$csv" --hook "$(pt_method "$hook")" --out "${out%r0.gcr}r$((i - 1)).gcr" \
			--iters "$iters" --warmup "$warmup" --batch 32 --threads 1 \
			>"$log.r$((i - 1)).out" 2>"$log.r$((i - 1)).err" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	if [ "$rc" != 0 ]; then
		say "PyTorch $hook failed: $(cat "$log".r*.err | grep -v Warning | tail -n 2 | tr '\n' ' ')" >&2; return
	fi
	fetch 1 "$out" "$log.r0.pt.gcr" && median_iter "$log.r0.pt.gcr"
}
pt_method() { case $1 in allreduce) echo syncsgd ;; powersgd) echo powersgd:rank=4 ;; *) echo "$1" ;; esac; }
median_iter() { # median_iter RECORDS: the median t_iter of the timed iterations
	"$BIN/gcbench-worker" --dump "$1" | awk 'NR > 3 && $3 == 0 { n++; it[n] = $11 }
		END { if (!n) exit 1; for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (it[j] < it[i]) { t = it[i]; it[i] = it[j]; it[j] = t }
			printf "%.6f\n", n % 2 ? it[(n + 1) / 2] : (it[n / 2] + it[n / 2 + 1]) / 2 }'
}
run_gcbench() { # run_gcbench CSV METHOD LOGPREFIX
	local csv=$1 m=$2 log=$3 hosts="" i
	for i in $(seq 1 "$world"); do hosts="$hosts${hosts:+,}${addr[$i]}:1"; done
	local mpi=(mpirun --allow-run-as-root --oversubscribe -np "$world" --host "$hosts" --map-by node
		--mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include "${iface[1]}"
		--mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_allreduce_algorithm 4
		--mca coll_tuned_allgather_algorithm 4 --mca coll_libnbc_iallreduce_algorithm 1
		--mca mpi_yield_when_idle 1 --mca plm_rsh_agent "ssh $(ssh_args)"
		-x MALLOC_MMAP_THRESHOLD_=1073741824)
	[ -n "$oob" ] && mpi+=(--mca oob_tcp_if_include "$oob")
	local out=$rdir/$(basename "$log").g-r%r.gcr
	# shellcheck disable=SC2086
	if ! timeout --kill-after=10 900 "${mpi[@]}" "$RBIN/gcbench-worker" $m \
		--workload "replay:csv:$csv" --iters "$iters" --warmup "$warmup" --batch 32 \
		--iface "${iface[1]}" --deadline 600 --threads 1 --out "$out" >"$log.out" 2>&1; then
		say "gcbench $m failed: $( (grep 'error' "$log.out" || tail -n 2 "$log.out") | head -n 2 | tr '\n' ' ')" >&2; return
	fi
	fetch 1 "${out/\%r/0}" "$log.r0.gcr" && median_iter "$log.r0.gcr"
}

# ---- the sweep -----------------------------------------------------------------------------
gc_method() { case $1 in allreduce) echo "--method syncsgd" ;; fp16) echo "--method fp16" ;;
	powersgd) echo "--method powersgd:rank=4" ;; esac; }
res=$tmp/results.tsv
: >"$res"; : >"$tmp/numel.tsv"
for m in $models; do
	src=$(model_csv "$m")
	[ -n "$src" ] && [ -r "$src" ] || { say "no parameter list for '$m' (no $SHARED/data/models/$m.csv, and gcbench-worker --print-model does not know it)" >&2; continue; }
	say "$m: $(grep -vc '^#\|^index' "$src") tensors from $src"
	awk -F, -v m="$m" '!/^#/ && $1 != "index" { s += $4 } END { printf "%s\t%d\n", m, s }' "$src" >>"$tmp/numel.tsv"
	cp "$src" "$tmp/model-${m##*/}" && csv=$(push "$tmp/model-${m##*/}") || { say "cannot copy '$src' to the nodes" >&2; continue; }
	for c in $caps; do
		for i in $(seq 1 "$world"); do unshape "$i"; done
		if [ "$c" != 0 ] && [ "$c" != 0.0 ]; then
			for i in $(seq 1 "$world"); do shape "$i" "$c" || { say "cannot cap node $i at $c Gbit/s" >&2; exit 1; }; done
		fi
		for h in $hooks; do
			o=$(others)
			lg=$tmp/${m##*/}-$c-$h
			pt=$(run_pytorch "$csv" "$h" "$lg.pt")
			gc=$(run_gcbench "$csv" "$(gc_method "$h")" "$lg.gc")
			printf "%s\t%s\t%s\t%s\t%s\t%s\n" "$m" "$c" "$h" "${pt:--}" "${gc:--}" "$o" | tee -a "$res" |
				awk -F'\t' '{ printf "bench-vs-pytorch:   %-10s cap %-4s %-10s pytorch %-9s gcbench %-9s others %s CPUs\n", $1, $2, $3, $4, $5, $6 }'
		done
	done
	for i in $(seq 1 "$world"); do unshape "$i"; done
done

# ---- the table --------------------------------------------------------------------------
load1=$(cut -d' ' -f1-3 /proc/loadavg)
echo
echo "median iteration time, seconds (rank 0, $iters timed after $warmup warmup; $world nodes; torch $("$PY" -c 'import torch; print(torch.__version__)' 2>/dev/null))"
echo "load average before $load0, after $load1 (the benchmark's own ranks count in it)"
omax=$(awk -F'\t' '$6 > m { m = $6 } END { printf "%.2f", m }' "$res")
echo "CPUs busy with other work, sampled for 1 s before each cell: at most $omax (limit $max_load)"
awk -F'\t' '
function cap(c) { return c + 0 == 0 ? "none" : c }
function f(v) { return (v == "" || v == "-") ? "-" : sprintf("%.3f", v) }
function r(a, b) { return (a == "-" || b == "-" || b + 0 == 0) ? "-" : sprintf("%.2f", a / b) }
# ring: the all-reduce bound at the cap, 2 (p-1)/p x 4 bytes x numel through each node'"'"'s
# egress at TCP'"'"'s goodput (1448 payload bytes per 1514-byte frame that tc counts)
function ring(m, c) { return (c + 0 == 0 || !(m in nu)) ? "-" : 2 * (world - 1) / world * 32 * nu[m] / (c * 1e9 * 1448 / 1514) }
FNR == NR { nu[$1] = $2; next }
{ k = $1 SUBSEP $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k }
  pt[k, $3] = $4; gc[k, $3] = $5 }
END {
  printf "%-10s %-6s | %-27s | %-27s | %-17s | %-18s\n", "", "", "PyTorch DDP (gloo)", "gcbench-worker (MPI)", "gcbench / PyTorch", "all-reduce / ring"
  printf "%-10s %-6s | %8s %8s %9s | %8s %8s %9s | %5s %5s %5s | %6s %5s %5s\n", "model", "gbit", "allred", "fp16", "psgd-r4", "syncsgd", "fp16", "psgd-r4", "ar", "fp16", "psgd", "ring", "pt", "gc"
  for (i = 1; i <= n; i++) { k = order[i]; split(k, p, SUBSEP); b = ring(p[1], p[2])
    printf "%-10s %-6s | %8s %8s %9s | %8s %8s %9s | %5s %5s %5s | %6s %5s %5s\n", p[1], cap(p[2]),
      f(pt[k, "allreduce"]), f(pt[k, "fp16"]), f(pt[k, "powersgd"]), f(gc[k, "allreduce"]), f(gc[k, "fp16"]), f(gc[k, "powersgd"]),
      r(gc[k, "allreduce"], pt[k, "allreduce"]), r(gc[k, "fp16"], pt[k, "fp16"]), r(gc[k, "powersgd"], pt[k, "powersgd"]),
      f(b), r(pt[k, "allreduce"], b), r(gc[k, "allreduce"], b) }
  print ""
  print "ring: seconds the all-reduce'"'"'s bytes need at the cap (2 (p-1)/p x 4 B x numel per node at TCP goodput,"
  print "1448/1514 of the cap); no all-reduce of float32 can take less; pt, gc: each stack'"'"'s all-reduce / ring"
  # where PowerSGD stops beating the all-reduce of its own stack: the lowest cap from which
  # on it is never faster (caps in increasing order, uncapped last), and where it won
  print ""
  for (i = 1; i <= n; i++) { k = order[i]; split(k, p, SUBSEP); if (!(p[1] in mdl)) { mdl[p[1]] = 1; mo[++nm] = p[1] } }
  for (j = 1; j <= nm; j++) for (s = 1; s <= 2; s++) { m = mo[j]; c = 0
    stack = s == 1 ? "PyTorch" : "gcbench"
    for (i = 1; i <= n; i++) { k = order[i]; split(k, p, SUBSEP); if (p[1] != m) continue
      a = s == 1 ? pt[k, "allreduce"] : gc[k, "allreduce"]; q = s == 1 ? pt[k, "powersgd"] : gc[k, "powersgd"]
      if (a == "-" || q == "-") continue
      c++; bw[c] = p[2] + 0 == 0 ? 1e12 : p[2] + 0; win[c] = q + 0 < a + 0 }
    for (x = 1; x <= c; x++) for (y = x + 1; y <= c; y++) if (bw[y] < bw[x]) {
      t = bw[x]; bw[x] = bw[y]; bw[y] = t; t = win[x]; win[x] = win[y]; win[y] = t }
    stop = ""; wins = ""
    for (x = c; x >= 1 && !win[x]; x--) stop = bw[x]
    for (x = 1; x <= c; x++) if (win[x]) wins = wins " " (bw[x] == 1e12 ? "uncapped" : bw[x])
    printf "%-10s %-8s PowerSGD r4 stops beating its all-reduce from: %-20s faster at:%s\n", m, stack,
      c == 0 ? "-" : stop == "" ? "not up to the top cap" : stop == 1e12 ? "uncapped" : stop " Gbit/s", wins == "" ? " none" : wins
  }
}' world="$world" "$tmp/numel.tsv" "$res"
if awk -v o="$omax" -v m="$max_load" 'BEGIN { exit !(o > m) }'; then
	if [ "$force" != 1 ]; then
		say "WARNING: other work kept $omax CPUs busy during the run (> $max_load): the figures above are not a report; rerun on a quiet machine, or pass --force" >&2
		exit 1
	fi
	say "WARNING: other work kept $omax CPUs busy during the run (> $max_load): figures measure the CPU as much as the network (--force)"
fi
exit 0

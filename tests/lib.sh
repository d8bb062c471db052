# tests/lib.sh: helpers for shell tests. Source it; then call pass/fail/skip once per
# test case with a name. Output lines match tests/harness.h (counted by tests/run.sh).
#   BUILD  the build directory (default: build), BIN=$BUILD/bin
suite=$(basename "${BASH_SOURCE[1]:-$0}" .sh)
BUILD=${BUILD:-build}
BIN=$BUILD/bin
SHARED=${GCBENCH_SHARED:-../shared}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

pass() { echo "PASS $suite/$1"; }
fail() { echo "FAIL $suite/$1: ${2:-}"; }
skip() { echo "SKIP $suite/$1: $2"; }

# check NAME COMMAND...: PASS if the command succeeds, FAIL with its output otherwise
check() {
	local name=$1 out; shift
	if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "command failed: $* :: $(echo "$out" | tail -n 5 | tr '\n' ' ')"; fi
}

# need_root NAME...: print SKIP for every named case and return 1 when not root
need_root() {
	if [ "$(id -u)" -ne 0 ]; then
		for n in "$@"; do skip "$n" "needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN)"; done
		return 1
	fi
}

# need_cmd CMD NAME...: SKIP every named case when CMD is missing
need_cmd() {
	local c=$1; shift
	if ! command -v "$c" >/dev/null 2>&1; then
		for n in "$@"; do skip "$n" "'$c' is not installed"; done
		return 1
	fi
}

# need_sweep NAME...: root, mpirun and sqlite3 (what a sweep on a local cluster needs),
# else SKIP every named case and return 1
need_sweep() {
	need_root "$@" && need_cmd mpirun "$@" && need_cmd sqlite3 "$@"
}

# cluster_up N CASES...: bring up the test's own local cluster of N nodes named $name
# under $GCBENCH_HOME and set inv to its inventory; on failure FAIL every case and
# return 1
cluster_up() {
	local n=$1 out c; shift
	if ! out=$("$BIN/gcbench" cluster up "$n" --name "$name" 2>&1); then
		for c in "$@"; do fail "$c" "cluster up failed: $out"; done
		return 1
	fi
	inv=$GCBENCH_HOME/clusters/$name/inventory.yaml
}

#!/usr/bin/env bash
# tests/integration/test_ssh_config.sh: an inventory written by hand, with its own
# ssh_config next to each host's address and port, on a private 2-node cluster. The
# ssh_config sends n1 to n2's address and both to a port where nothing listens; the
# inventory's address and port must win, for gcbench's own ssh (provision) and for
# mpirun's (a sweep), while the config's other settings (key, known hosts) still apply.
# A host whose address is its name is left to the config (and fails there, naming it).
. "$(dirname "$0")/../lib.sh"
cases="provision_honours_address sweep_honours_address dry_run_names_target config_decides_alias"
need_sweep $cases || exit 0

name=sc$(( $$ % 100000 ))
work=$(mktemp -d /tmp/gcbench-sshcfg.XXXXXX)
export GCBENCH_HOME=$work/home
cleanup() { "$BIN/gcbench" cluster down --name "$name" >/dev/null 2>&1; rm -rf "$work"; }
trap cleanup EXIT
cluster_up 2 $cases || exit 0
D=$GCBENCH_HOME/clusters/$name
a1=$(awk '$1 == "HostName" { print $2; exit }' "$D/ssh_config")
a2=$(awk '$1 == "HostName" { n++ } n == 2 && $1 == "HostName" { print $2; exit }' "$D/ssh_config")

# the user's own ssh_config: n1 -> n2's address, every host on port 2299 (closed);
# the cluster's key and known_hosts from its own file
{
	printf 'Host n1\n  HostName %s\nHost n1 n2\n  Port 2299\n' "$a2"
	sed -n '/^Host \*/,$p' "$D/ssh_config" | grep -v '^  Port '
} >"$work/ssh_config"
inventory() {   # inventory ADDRESS1 [PORT-LINE]
	cat >"$work/inv.yaml" <<YAML
ssh_config: $work/ssh_config
connect_timeout: 5s
hosts:
  - {name: n1, address: $1, $2 iface: eth0, netns: gcb-$name-n1}
  - {name: n2, address: $a2, port: 22, iface: eth0, netns: gcb-$name-n2}
YAML
}

inventory "$a1" "port: 22,"
out=$("$BIN/gcbench" provision --inventory "$work/inv.yaml" 2>&1); rc=$?
dir1=$(awk '$1 == "n1" { print $2 }' <<<"$out")
# the build reached n1 itself (the config would have sent n1's copy to n2)
seen=$(ssh -F "$D/ssh_config" n1 "hostname; test -x '$dir1/gcbench-worker' && echo yes" 2>&1)
if [ $rc -eq 0 ] && [ -n "$dir1" ] && [ "$(tr '\n' ' ' <<<"$seen")" = "n1 yes " ]; then pass provision_honours_address
else fail provision_honours_address "rc $rc, n1's build dir '$dir1' on n1: '$seen': $(tail -n 5 <<<"$out" | tr '\n' ' ')"; fi

cat >"$work/spec.yaml" <<YAML
name: sshcfg
workload: replay
models: [tiny]
methods: [syncsgd]
baseline: syncsgd
bandwidth: [1gbit]
world_size: 2
batch: 8
iterations: 3
warmup: 1
timeout: 90
YAML
out=$("$BIN/gcbench" run "$work/spec.yaml" --inventory "$work/inv.yaml" --db "$work/r.db" \
	--calibrate 0 2>&1); rc=$?
ok=$(sqlite3 "$work/r.db" "SELECT count(*) FROM runs WHERE status = 'ok'" 2>&1)
if [ $rc -eq 0 ] && [ "$ok" = 1 ]; then pass sweep_honours_address
else fail sweep_honours_address "rc $rc, ok runs '$ok': $(tail -n 5 <<<"$out" | tr '\n' ' ')"; fi

out=$("$BIN/gcbench" run "$work/spec.yaml" --inventory "$work/inv.yaml" --db "$work/d.db" \
	--dry-run 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q "^  n1 .*$a1:22 (Host n1 of" <<<"$out" && grep -q "^  n2 .*$a2:22" <<<"$out" &&
   grep -q "placement 2 nodes x 1 rank (n1:1,n2:1)" <<<"$out"
then pass dry_run_names_target
else fail dry_run_names_target "rc $rc: $(tr '\n' ' ' <<<"$out")"; fi

# address = name, no port: the config decides (n2's address, closed port), and the
# failure names the host and the config, not an address gcbench did not use
inventory n1 ""
out=$("$BIN/gcbench" provision --inventory "$work/inv.yaml" 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q "n1" <<<"$out" && grep -qi "2299\|refused" <<<"$out"
then pass config_decides_alias
else fail config_decides_alias "rc $rc: $(tail -n 5 <<<"$out" | tr '\n' ' ')"; fi

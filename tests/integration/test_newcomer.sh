#!/usr/bin/env bash
# tests/integration/test_newcomer.sh: the README's "your own cluster in five steps", as a
# newcomer follows them, against an emulated cluster of 3 nodes (its own GCBENCH_HOME and
# name) standing in for real hosts: an inventory written by hand the way docs/guide.md
# says (addresses, user, identity, iface, an ssh_config with the known_hosts the guide
# asks for; not the generated inventory), provision, a first (tiny) sweep after its
# --dry-run, the first query (the README's SQL block, taken from README.md), status with
# the spec hash, report into the default folder, and the nightly job installed under a
# scratch root.
. "$(dirname "$0")/../lib.sh"
cases="inventory_by_hand provision dry_run first_sweep first_query status_hash report_default nightly_job"
need_sweep $cases || exit 0
need_cmd ssh-keyscan $cases || exit 0

top=$(cd "$(dirname "$0")/../.." && pwd)
GC=$top/$BIN/gcbench
name=docs-nc$(( $$ % 1000 ))
work=$(mktemp -d /tmp/gcbench-newcomer.XXXXXX)
export GCBENCH_HOME=$work/home
cleanup() {
	"$GC" cluster down --name "$name" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
if ! out=$("$GC" cluster up 3 --name "$name" 2>&1); then
	for c in $cases; do fail "$c" "cluster up failed: $out"; done
	exit 0
fi
cdir=$GCBENCH_HOME/clusters/$name
addrs=$(sed -n 's/^ *address: //p' "$cdir/inventory.yaml")

# 1. the inventory, by hand: known_hosts from ssh-keyscan, checked against the host key
#    the cluster made (the guide: "after checking its fingerprint"), an ssh_config
#    that uses it, one entry per host
hostkey=$(awk '{print $1" "$2}' "$cdir/host_key.pub")
: >"$work/known_hosts"
ok=1
for a in $addrs; do
	k=$(ssh-keyscan -t ed25519 "$a" 2>/dev/null | awk '{print $2" "$3}')
	[ "$k" = "$hostkey" ] || ok=0
	echo "$a $k" >>"$work/known_hosts"
done
# with an inventory ssh_config, hosts are reached by name through it (docs/guide.md)
i=0
for a in $addrs; do
	i=$((i + 1))
	printf 'Host node%d\n  HostName %s\n' "$i" "$a"
done >"$work/ssh_config"
cat >>"$work/ssh_config" <<CFG
Host *
  UserKnownHostsFile $work/known_hosts
  GlobalKnownHostsFile /dev/null
CFG
{
	echo "name: lab"
	echo "ssh_config: $work/ssh_config"
	echo "hosts:"
	i=0
	for a in $addrs; do
		i=$((i + 1))
		printf '  - name: node%d\n    address: %s\n    user: root\n    identity: %s\n    iface: eth0\n    gpus: 0\n' \
			"$i" "$a" "$cdir/id_ed25519"
	done
} >"$work/lab.yaml"
if [ "$ok" = 1 ] && [ "$i" = 3 ] &&
   ssh -F "$work/ssh_config" -o BatchMode=yes -i "$cdir/id_ed25519" root@node1 true 2>"$work/ssh.err"; then
	pass inventory_by_hand
else
	fail inventory_by_hand "keys match: $ok, hosts: $i, ssh: $(cat "$work/ssh.err")"
fi

# the README's commands run from a folder of the user's, not the source tree
mkdir -p "$work/me" && cd "$work/me" || exit 1

# 2. provision
if out=$("$GC" provision --inventory "$work/lab.yaml" 2>&1); then
	pass provision
else
	fail provision "$(tail -n 5 <<<"$out" | tr '\n' ' ')"
fi

# 3. a first sweep: tiny, checked with --dry-run first
cat >first.yaml <<YAML
name: first
workload: replay
models: [tiny]
methods: [syncsgd, {powersgd: {rank: 2}}]
baseline: syncsgd
bandwidth: [1gbit]
world_size: 3
batch: 8
iterations: 3
warmup: 1
timeout: 120
YAML
dry=$("$GC" run first.yaml --inventory "$work/lab.yaml" --db lab.db --dry-run 2>&1)
hash=$(sed -n 's/^spec: first, hash \([0-9a-f]\{16\}\) .*/\1/p' <<<"$dry")
if [ -n "$hash" ] && grep -q "placement 3 nodes x 1 rank" <<<"$dry" && [ ! -e lab.db ]; then
	pass dry_run
else
	fail dry_run "$(head -n 6 <<<"$dry" | tr '\n' ' ')"
fi
if out=$("$GC" run first.yaml --inventory "$work/lab.yaml" --db lab.db --calibrate 0 2>&1); then
	pass first_sweep
else
	fail first_sweep "$(tail -n 6 <<<"$out" | tr '\n' ' ')"
fi

# 4. the first query: the README's block, as the README has it
sql=$(awk '/^ *```sql runnable/ { on = 1; next } on && /^ *```/ { exit } on { sub(/^   /, ""); print }' "$top/README.md")
rows=$(sqlite3 -bail lab.db "$sql" 2>&1)
if grep -q '^tiny|powersgd|.*|1\.0|[0-9.]*$' <<<"$rows"; then
	pass first_query
else
	fail first_query "query: $sql :: $rows"
fi
st=$("$GC" status --db lab.db 2>&1)
if grep -A1 -E '^ +1  first ' <<<"$st" | grep -qx "       spec_hash $hash"; then
	pass status_hash
else
	fail status_hash "$st"
fi
if "$GC" report --db lab.db >"$work/report.out" 2>&1 && [ -s gcbench-report/index.html ]; then
	pass report_default
else
	fail report_default "$(cat "$work/report.out")"
fi

# 5. the nightly job, under a scratch root (a build-tree gcbench needs --allow-build-tree)
out=$("$GC" schedule install first.yaml --inventory "$work/lab.yaml" --db "$work/me/lab.db" \
	--at 'daily 02:00' --root "$work/root" --backend cron --allow-build-tree 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -rqs -- "run .*first.yaml" "$work/root" &&
   "$GC" schedule list --root "$work/root" 2>&1 | grep -q first; then
	pass nightly_job
else
	fail nightly_job "rc $rc: $(tr '\n' ' ' <<<"$out") :: $(find "$work/root" -type f 2>/dev/null)"
fi

#!/usr/bin/env bash
# tests/integration/test_schedule_user.sh: `sudo gcbench schedule install` run by a
# login writes a job that runs as that login (SUDO_USER, as sudo sets it), with its
# HOME and PATH: systemd User=/Environment=, the cron line's user and variables, a log
# file the login can append to; --user NAME picks another; a `local:` inventory,
# which needs root, is refused naming the rights it lacks and the package's group.
# Files go under a temporary --root; a login gcbs<PID> is made and deleted.
. "$(dirname "$0")/../lib.sh"
cases="systemd_user cron_user user_option local_needs_root"
need_root $cases || exit 0
need_cmd useradd $cases || exit 0
GC=$(cd "$(dirname "$BIN/gcbench")" 2>/dev/null && pwd)/gcbench
[ -x "$GC" ] || { for c in $cases; do skip "$c" "$GC not built"; done; exit 0; }
u=gcbs$$ v=gcbt$$
tmp=$(mktemp -d /tmp/gc-sched-user.XXXXXX)
cleanup() { userdel -r "$u" >/dev/null 2>&1; userdel -r "$v" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
useradd -m "$u" && useradd -m "$v" || { for c in $cases; do fail "$c" "useradd failed"; done; exit 0; }
chmod 0755 "$tmp"
cd "$tmp" || exit 1
printf 'name: nightly\nmodels: [tiny]\nmethods: [syncsgd]\nbandwidth: [1gbit]\nworld_size: 2\nbatch: 8\niterations: 5\n' >n.yaml
printf 'hosts:\n  - {name: a, address: 10.255.0.1, iface: eth0}\n  - {name: b, address: 10.255.0.2, iface: eth0}\n' >hosts.yaml
printf 'local: 2\n' >local.yaml
mkdir -p sd/run/systemd/system cr

out=$(SUDO_USER=$u "$GC" schedule install n.yaml --inventory hosts.yaml --at 'daily 02:00' --root "$tmp/sd" --allow-build-tree 2>&1); rc=$?
svc=$tmp/sd/etc/systemd/system/gcbench-n.service
if [ $rc -eq 0 ] && grep -qx "User=$u" "$svc" && grep -qx "Environment=HOME=/home/$u" "$svc" &&
   grep -q "^Environment=PATH=$(dirname "$GC"):" "$svc" && grep -q "runs as $u" <<<"$out"
then pass systemd_user
else fail systemd_user "rc $rc: $out :: $(grep -E 'User|Environment' "$svc" 2>/dev/null | tr '\n' ' ')"; fi

out=$(SUDO_USER=$u "$GC" schedule install n.yaml --inventory hosts.yaml --at 'daily 02:00' --backend cron --root "$tmp/cr" --allow-build-tree 2>&1); rc=$?
line=$(grep -v '^#' "$tmp/cr/etc/cron.d/gcbench-n" 2>/dev/null | tail -n 1)
log=$tmp/cr/var/log/gcbench/n.log
if [ $rc -eq 0 ] && [ "$(awk '{ print $6 }' <<<"$line")" = "$u" ] &&
   grep -qx "HOME=/home/$u" "$tmp/cr/etc/cron.d/gcbench-n" && [ "$(stat -c %U "$log" 2>/dev/null)" = "$u" ] &&
   setpriv --reuid "$u" --regid "$u" --clear-groups sh -c "echo ok >>'$log'" 2>/dev/null
then pass cron_user
else fail cron_user "rc $rc: $out :: $line :: $(ls -l "$log" 2>&1)"; fi

out=$(SUDO_USER=$u "$GC" schedule install n.yaml --inventory hosts.yaml --at hourly --user "$v" --name other --root "$tmp/sd" --allow-build-tree 2>&1); rc=$?
out2=$(SUDO_USER=$u "$GC" schedule install n.yaml --inventory hosts.yaml --at hourly --user nosuch$$ --name x --root "$tmp/sd" --allow-build-tree 2>&1); rc2=$?
if [ $rc -eq 0 ] && grep -qx "User=$v" "$tmp/sd/etc/systemd/system/gcbench-other.service" &&
   [ $rc2 -eq 2 ] && grep -q "no user 'nosuch$$'" <<<"$out2"
then pass user_option
else fail user_option "rc $rc/$rc2: $out :: $out2"; fi

out=$(SUDO_USER=$u "$GC" schedule install n.yaml --inventory local.yaml --at hourly --name loc --root "$tmp/sd" --allow-build-tree 2>&1); rc=$?
loc_first=$(ls "$tmp/sd/etc/systemd/system/gcbench-loc.service" 2>/dev/null)
out2=$(SUDO_USER=$u "$GC" schedule install n.yaml --inventory local.yaml --at hourly --name loc --user root --root "$tmp/sd" --allow-build-tree 2>&1); rc2=$?
if [ $rc -ne 0 ] && [ -z "$loc_first" ] && grep -q "needs root (CAP_SYS_ADMIN" <<<"$out" && grep -q "usermod -aG gcbench $u" <<<"$out" &&
   [ $rc2 -eq 0 ] && grep -qx "User=root" "$tmp/sd/etc/systemd/system/gcbench-loc.service"
then pass local_needs_root
else fail local_needs_root "rc $rc/$rc2: $out :: $out2"; fi

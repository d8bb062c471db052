#!/usr/bin/env bash
# tests/integration/test_notify.sh: `gcbench notify test` against a python3 HTTP server
# on 127.0.0.1 (tests/tools/http_sink.py): body format, retries on 500, timeouts on a
# hanging server, a closed port, and that the secret URL never reaches the output.
. "$(dirname "$0")/../lib.sh"
GC=$BIN/gcbench
SINK=$(dirname "$0")/../tools/http_sink.py
names="webhook_body slack_body http500_retried hang_bounded refused unset_var usage"
need_cmd python3 $names || exit 0
[ -x "$GC" ] || { for n in $names; do skip "$n" "$GC not built"; done; exit 0; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gc-notify.XXXXXX")
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT

# start_sink MODE DIR: start a server, set $port
start_sink() {
	mkdir -p "$2"
	python3 "$SINK" "$1" "$2" 30 & pids="$pids $!"
	for _ in $(seq 100); do [ -s "$2/port" ] && break; sleep 0.1; done
	port=$(cat "$2/port" 2>/dev/null)
}
secret=S3CR3T-tok
elapsed() { echo $(( $(date +%s%N) / 1000000 - $1 )); }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d[sys.argv[2]])' "$@"; }

start_sink ok "$tmp/ok"
export GCT_HOOK="http://127.0.0.1:$port/hooks/$secret"
out=$("$GC" notify test --type webhook --url-env GCT_HOOK --message "hello \"x\"" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(json_get "$tmp/ok/body.1" event)" = test ] &&
   [ "$(json_get "$tmp/ok/body.1" summary)" = 'hello "x"' ] &&
   json_get "$tmp/ok/body.1" details | grep -q gcbench &&
   grep -q "/hooks/$secret application/json" "$tmp/ok/hits" && ! echo "$out" | grep -q "$secret"; then
	pass webhook_body
else fail webhook_body "rc=$rc out=$out body=$(cat "$tmp/ok/body.1" 2>&1)"; fi

out=$("$GC" notify test --type slack --url-env GCT_HOOK 2>&1); rc=$?
if [ $rc -eq 0 ] && json_get "$tmp/ok/body.2" text | grep -q "test notification" &&
   [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/ok/body.2")" = 1 ]; then
	pass slack_body
else fail slack_body "rc=$rc out=$out body=$(cat "$tmp/ok/body.2" 2>&1)"; fi

start_sink fail "$tmp/fail"
export GCT_HOOK="http://127.0.0.1:$port/x/$secret"
t0=$(now_ms)
out=$("$GC" notify test --type webhook --url-env GCT_HOOK --backoff 100ms 2>&1); rc=$?
dt=$(elapsed "$t0"); hits=$(wc -l < "$tmp/fail/hits" 2>/dev/null || echo 0)
if [ $rc -eq 3 ] && [ "$hits" -eq 3 ] && echo "$out" | grep -q "HTTP 500" &&
   echo "$out" | grep -q "gave up after 3 tries" && ! echo "$out" | grep -q "$secret" && [ "$dt" -lt 10000 ]; then
	pass http500_retried
else fail http500_retried "rc=$rc hits=$hits dt=${dt}ms out=$out"; fi

start_sink hang "$tmp/hang"
export GCT_HOOK="http://127.0.0.1:$port/"
t0=$(now_ms)
out=$("$GC" notify test --type slack --url-env GCT_HOOK --timeout 500ms --tries 2 --backoff=0.1s 2>&1); rc=$?
dt=$(elapsed "$t0")
if [ $rc -eq 3 ] && [ "$dt" -ge 1000 ] && [ "$dt" -lt 5000 ] && echo "$out" | grep -qi "timeout"; then
	pass hang_bounded
else fail hang_bounded "rc=$rc dt=${dt}ms (want 1.1 s to 5 s) out=$out"; fi

# a port nobody listens on: bind one, note it, close it
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
export GCT_HOOK="http://127.0.0.1:$port/"
t0=$(now_ms)
out=$("$GC" notify test --type webhook --url-env GCT_HOOK --backoff-ms 100 2>&1); rc=$?
dt=$(elapsed "$t0")
# (the old -ms spelling still works, and says what to write instead)
if [ $rc -eq 3 ] && [ "$dt" -lt 5000 ] && echo "$out" | grep -q "connect" &&
   echo "$out" | grep -q -- "--backoff-ms is deprecated: write --backoff 100ms"; then
	pass refused
else fail refused "rc=$rc dt=${dt}ms out=$out"; fi

unset GCT_HOOK
out=$("$GC" notify test --type webhook --url-env GCT_HOOK 2>&1); rc=$?
if [ $rc -eq 3 ] && echo "$out" | grep -q 'GCT_HOOK (unset)'; then pass unset_var
else fail unset_var "rc=$rc out=$out"; fi

"$GC" notify test --type email --url-env X >/dev/null 2>&1; r1=$?
"$GC" notify test --type webhook >/dev/null 2>&1; r2=$?
"$GC" notify --help | grep -q "url-env"; r3=$?
if [ $r1 -eq 2 ] && [ $r2 -eq 2 ] && [ $r3 -eq 0 ]; then pass usage
else fail usage "exit codes $r1 $r2 (want 2 2), help $r3"; fi

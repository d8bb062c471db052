#!/bin/sh
# pkg/deb/depends.sh BINARY...: the Debian packages that hold the shared libraries
# the binaries link to, as a Depends: value (dpkg -S on each library ldd resolves).
set -eu
for b in "$@"; do ldd "$b"; done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
while read -r lib; do
	dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib" 2>/dev/null || true
done | cut -d: -f1 | sort -u | paste -sd, - | sed 's/,/, /g'

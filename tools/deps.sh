#!/usr/bin/env bash
# tools/deps.sh: the Debian packages gcbench needs (python3-sklearn for the handwritten
# digits the training workloads learn: tools/digits_convert.py, docs/worker.md; sudo
# for the nodes that shape through `sudo -n`, which test_hosts.sh logs in to).
#   --print    print the apt-get line for what is missing (nothing if complete)
#   --install  install what is missing (root), else print the line and fail
#   --ensure   like --install, quietly when nothing is missing (used by make test/demo)
#   --extra    also consider the optional packages (clang for fuzzing, chromium for
#              the report test, python3-torch for the PyTorch comparison, SLURM and
#              munge for the emulated cluster's batch system: docs/slurm.md);
#              `make deps-extra` installs them
#   --list-extra  print the optional packages' names, one a line (tests/run.sh
#              counts the tests skipped for one of them)
set -u
pkgs="build-essential pkg-config libnl-3-dev libnl-route-3-dev libsqlite3-dev sqlite3
libyaml-dev libcurl4-openssl-dev libopenblas-dev libopenmpi-dev openmpi-bin
openssh-server openssh-client iperf3 iproute2 procps python3 util-linux
python3-sklearn sudo"
extra="clang chromium python3-torch python3-torchvision slurmctld slurmd slurm-client munge"

mode=--print
for a in "$@"; do
	case $a in
	--extra) pkgs="$pkgs $extra" ;;
	--list-extra) printf '%s\n' $extra; exit 0 ;;
	--print|--install|--ensure) mode=$a ;;
	-h|--help) sed -n '2,13p' "$0"; exit 0 ;;
	*) echo "deps.sh: unknown option '$a'" >&2; exit 2 ;;
	esac
done

missing=""
for p in $pkgs; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case $st in *" installed") ;; *) missing="$missing $p" ;; esac
done
missing=${missing# }
line="apt-get install -y --no-install-recommends $missing"

case $mode in
--print)
	[ -n "$missing" ] && echo "$line"
	exit 0 ;;
esac
[ -z "$missing" ] && { [ "$mode" = --install ] && echo "deps: all packages present"; exit 0; }
if [ "$(id -u)" -ne 0 ]; then
	echo "gcbench: missing Debian packages: $missing" >&2
	echo "gcbench: run as root: apt-get update && $line" >&2
	exit 1
fi
echo "deps: installing $missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2 && apt-get install -y -q --no-install-recommends $missing >&2

#!/bin/sh
# Install what rocestat needs on Debian 12 (run as root; uses sudo otherwise).
#   sh scripts/deps.sh build    compiler and libraries to build rocestat
#   sh scripts/deps.sh deb      what dpkg-buildpackage needs to build the Debian package
#   sh scripts/deps.sh test     everything the test suite uses as well
#   sh scripts/deps.sh --list build|deb|test   print the packages, install nothing
# Packages already installed are left alone; nothing is installed twice.
# tests/check_build_deps.py holds BUILD to the headers the product includes.
set -eu
list=0
[ "${1:-}" = "--list" ] && { list=1; shift; }
want=${1:-build}

# libibumad-dev: <infiniband/umad_cm.h>, <umad_types.h>; libibverbs-dev: <infiniband/opcode.h>.
# The Debian package: dpkg-buildpackage and debhelper build it (debian/control's Build-Depends
# are BUILD's, tests/installcheck.sh holds them equal); in TEST, make deb-test's lintian judges
# it, bash-completion loads its completion, git copies the tree (and make same BASE=REV builds a baseline from a revision) and apt-get installs it.
BUILD="build-essential pkg-config libpcap-dev libglib2.0-dev libibumad-dev libibverbs-dev libmicrohttpd-dev"
DEB="$BUILD dpkg-dev debhelper"
TEST="$BUILD check tshark python3 python3-jsonschema tcpdump tcpreplay iproute2 librdmacm-dev
      clang libclang-rt-14-dev valgrind qemu-system-x86 busybox-static cpio xz-utils kmod nvme-cli jq sqlite3 man-db fontconfig fonts-dejavu-core
      ca-certificates file tmux prometheus python3-prometheus-client curl
      dpkg-dev debhelper lintian bash-completion apt git"

case "$want" in
build) pkgs=$BUILD ;;
deb) pkgs=$DEB ;;
test) pkgs=$TEST ;;
*) echo "usage: sh scripts/deps.sh [--list] build|deb|test" >&2; exit 2 ;;
esac
if [ $list = 1 ]; then
	# shellcheck disable=SC2086
	printf '%s\n' $pkgs
	exit 0
fi

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
echo "rocestat: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer for it.
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null

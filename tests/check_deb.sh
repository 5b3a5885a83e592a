#!/bin/sh
# check_deb.sh — the Debian package, built, installed, used and purged.
#
# NEEDS ROOT (it installs the package with apt-get); without root it FAILS
# with the reason, it never skips. The tree (tracked files and new ones git
# does not ignore, as they are in the working tree) is copied into a new
# temporary directory, where `dpkg-buildpackage -b -us -uc` builds it, so
# nothing lands beside the project. Then:
#   - lintian on the .changes and the .deb: no tag at all (pedantic and
#     informational ones included), overrides aside;
#   - the .deb holds the binary, the man page, the completion, the schema,
#     the copyright and changelog, and nothing else;
#   - apt-get install -y ./rocestat_*.deb; rocestat --version is the
#     changelog's version; the installed binary summarises a sample as
#     tshark counts it; its JSON is valid against the installed schema;
#   - man -w / man rocestat find and render the page, which names the schema
#     where the package put it;
#   - the completion, loaded by bash-completion's loader
#     (tests/check_completion.py --installed) and in an interactive bash in
#     tmux: rocestat --fo<TAB> becomes rocestat --format=;
#   - apt-get remove --purge -y rocestat: every file it installed is gone.
# It refuses to run where rocestat is installed already, by dpkg or by hand
# under /usr, so that it neither removes nor overwrites anything of yours.
#
# Debian packages (scripts/deps.sh test): dpkg-dev debhelper lintian
# bash-completion man-db tmux python3 python3-jsonschema, and the
# Build-Depends of debian/control.
#   sh tests/check_deb.sh          (make deb-test)
# Ends with "N passed, M failed"; exit status 1 if any check failed.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
start=$(date +%s)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "check_deb: FAIL: $*"; fail=$((fail + 1)); }
on_path() { command -v "$1"; }
die() { echo "check_deb: FAIL: $*"; echo "check_deb: $pass passed, $((fail + 1)) failed"; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root: it installs and purges the package with apt-get (CI runs as root)"
for t in dpkg-buildpackage dpkg-parsechangelog dh lintian apt-get man tmux python3 git; do
	command -v "$t" >/dev/null || die "$t is not installed (sh scripts/deps.sh test)"
done
[ -f /usr/share/bash-completion/bash_completion ] || die "bash-completion is not installed (sh scripts/deps.sh test)"
if dpkg-query -W -f='${Status}' rocestat 2>/dev/null | grep -q ' ok installed$'; then
	die "the rocestat package is installed already; remove it first (apt-get remove --purge rocestat)"
fi
for f in /usr/bin/rocestat /usr/share/man/man1/rocestat.1.gz /usr/share/man/man1/rocestat.1 \
	/usr/share/bash-completion/completions/rocestat /usr/share/rocestat /usr/share/doc/rocestat; do
	[ -e "$f" ] && die "$f exists outside the package (make install PREFIX=/usr?); remove it first"
done

version=$(dpkg-parsechangelog -l debian/changelog -S Version) || die "debian/changelog does not parse"
tmp=$(mktemp -d /tmp/rocestat-deb.XXXXXX)
installed=0
cleanup() {
	if [ $installed = 1 ]; then apt-get remove --purge -y -qq rocestat >/dev/null 2>&1; fi
	tmux -L rsdeb kill-server 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
# apt-get reads the .deb as the _apt user.
chmod 0755 "$tmp"
src=$tmp/rocestat-$version
mkdir "$src"
# The working tree as git sees it: tracked files that are still there, and
# new ones not ignored; none of build/ or ./rocestat.
git ls-files -z --cached --others --exclude-standard |
	xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
	tar --null -T - -cf - | tar -xf - -C "$src" || die "could not copy the tree into $src"

# ---- build --------------------------------------------------------------
t0=$(date +%s)
if ! (cd "$src" && dpkg-buildpackage -b -us -uc -j2) >"$tmp/build.log" 2>&1; then
	tail -40 "$tmp/build.log"
	die "dpkg-buildpackage -b -us -uc failed (its last lines above)"
fi
echo "check_deb: built in $(($(date +%s) - t0)) s"
arch=$(dpkg --print-architecture)
deb=$tmp/rocestat_${version}_$arch.deb
changes=$tmp/rocestat_${version}_$arch.changes
[ -f "$deb" ] && [ -f "$changes" ] && ok || die "no $deb and $changes after the build: $(ls "$tmp")"
grep -q '^installcheck: [0-9]* passed, 0 failed' "$tmp/build.log" && ok ||
	bad "the build did not run its tests (dh_auto_test: make truth installcheck)"

# ---- lintian --------------------------------------------------------------
lintian -I -E --pedantic --fail-on error,warning,info,pedantic "$changes" "$deb" >"$tmp/lintian.out" 2>&1
rc=$?
tags=$(grep -v '^running with root privileges is not recommended!$' "$tmp/lintian.out")
[ $rc = 0 ] && [ -z "$tags" ] && ok || bad "lintian (exit $rc) on the .changes and .deb: $tags"

# ---- the package's files ----------------------------------------------------
want="./usr/bin/rocestat
./usr/share/bash-completion/completions/rocestat
./usr/share/doc/rocestat/changelog.gz
./usr/share/doc/rocestat/copyright
./usr/share/man/man1/rocestat.1.gz
./usr/share/rocestat/rocestat.schema.json"
got=$(dpkg-deb --fsys-tarfile "$deb" | tar -tvf - | awk '$1 !~ /^d/ {print $6}' | sort)
[ "$got" = "$want" ] && ok || bad "the .deb holds otherwise than the six files it should: $got"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] && ok || bad "the .deb's version is not the changelog's $version"

# ---- install ----------------------------------------------------------------
if (cd "$tmp" && apt-get install -y -qq "./rocestat_${version}_$arch.deb") >"$tmp/install.log" 2>&1; then
	installed=1
	ok
else
	cat "$tmp/install.log"
	die "apt-get install ./rocestat_${version}_$arch.deb failed"
fi
dpkg-query -W -f='${Status} ${Version}' rocestat | grep -qx "install ok installed $version" && ok ||
	bad "dpkg does not record rocestat $version as installed: $(dpkg-query -W -f='${Status} ${Version}' rocestat)"
files=$(dpkg -L rocestat)

# The version the binary reports is the changelog's, less a Debian
# revision or epoch if it ever has one.
upstream=${version#*:}
upstream=${upstream%-*}
[ "$(on_path rocestat)" = /usr/bin/rocestat ] && ok || bad "rocestat on PATH is '$(on_path rocestat)', not /usr/bin/rocestat"
v=$(/usr/bin/rocestat --version 2>&1)
[ "$v" = "rocestat $upstream" ] && ok || bad "rocestat --version says '$v', debian/changelog $version"

sample=$ROOT/samples/rping_s64.pcap
got=$(cd / && /usr/bin/rocestat -n "$sample" 2>&1) || true
case "$got" in
*"RoCE v2 125 "*) ok ;; # tshark -Y infiniband counts 125 RoCE frames in rping_s64.pcap
*) bad "the installed rocestat did not summarise $sample: $(echo "$got" | head -3)" ;;
esac
schema=/usr/share/rocestat/rocestat.schema.json
(cd / && /usr/bin/rocestat -n --format json "$sample") >"$tmp/report.json" 2>/dev/null
python3 - "$schema" "$tmp/report.json" <<'EOF' && ok || bad "the installed rocestat's JSON is not valid against $schema"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.Draft202012Validator(schema).validate(json.load(open(sys.argv[2])))
EOF

# ---- man ---------------------------------------------------------------------
page=$(man -w rocestat 2>&1)
[ "$page" = /usr/share/man/man1/rocestat.1.gz ] && ok || bad "man -w rocestat: $page"
head=$(MANWIDTH=80 man rocestat 2>/dev/null | head -8)
echo "$head" | grep -Eq '^ *rocestat +- capture' && ok || bad "man rocestat does not start with its NAME line: $head"
w=$(MANWIDTH=80 man --warnings rocestat 2>&1 >/dev/null)
[ -z "$w" ] && ok || bad "man warns on the installed page: $w"
MANWIDTH=200 man rocestat 2>/dev/null | grep -q "$schema" && ok || bad "the installed man page does not name $schema"

# ---- completion --------------------------------------------------------------
if ROCESTAT=/usr/bin/rocestat python3 tests/check_completion.py --installed >"$tmp/completion.out" 2>&1; then
	ok
else
	cat "$tmp/completion.out"
	bad "the installed completion (tests/check_completion.py --installed)"
fi
# As a user gets it: an interactive bash with Debian's default ~/.bashrc
# (which loads bash-completion), in a terminal, typing rocestat --fo<TAB>.
mkdir "$tmp/home"
cp /etc/skel/.bashrc "$tmp/home/.bashrc"
echo "PS1='rsdeb\$ '" >>"$tmp/home/.bashrc"
tmux -L rsdeb kill-server 2>/dev/null
tmux -L rsdeb new-session -d -x 100 -y 10 "env -i HOME=$tmp/home TERM=screen PATH=/usr/bin:/bin bash -i"
for _ in $(seq 100); do tmux -L rsdeb capture-pane -p | grep -q 'rsdeb\$' && break; sleep 0.05; done
tmux -L rsdeb send-keys 'rocestat --fo' Tab
line=""
for _ in $(seq 100); do
	line=$(tmux -L rsdeb capture-pane -p | grep 'rsdeb\$' | tail -1)
	case "$line" in *"rocestat --format="*) break ;; esac
	sleep 0.05
done
tmux -L rsdeb send-keys Tab Tab
sleep 0.3
screen=$(tmux -L rsdeb capture-pane -p)
tmux -L rsdeb kill-server 2>/dev/null
[ "$line" = 'rsdeb$ rocestat --format=' ] && ok || bad "in bash -i, rocestat --fo<TAB> gave '$line', not 'rocestat --format='"
echo "$screen" | grep -q 'json-compact' && ok || bad "in bash -i, rocestat --format=<TAB><TAB> listed no formats: $screen"

# ---- purge ----------------------------------------------------------------------
if apt-get remove --purge -y -qq rocestat >"$tmp/remove.log" 2>&1; then
	installed=0
	ok
else
	cat "$tmp/remove.log"
	bad "apt-get remove --purge -y rocestat failed"
fi
st=$(dpkg-query -W -f='${Status}' rocestat 2>/dev/null)
case "$st" in "" | *" not-installed") ok ;; *) bad "dpkg lists rocestat as '$st' after the purge" ;; esac
left=""
for f in $files; do
	# the directories other packages share (/usr/share/man/man1...) stay
	if [ -d "$f" ]; then
		case "$f" in /usr/share/rocestat | /usr/share/doc/rocestat) [ -e "$f" ] && left="$left $f" ;; esac
	elif [ -e "$f" ] || [ -L "$f" ]; then
		left="$left $f"
	fi
done
[ -z "$left" ] && ok || bad "the purge left:$left"
[ -n "$(echo "$files" | grep -x /usr/bin/rocestat)" ] && ok || bad "dpkg -L rocestat did not list /usr/bin/rocestat: $files"
on_path rocestat >/dev/null && bad "rocestat is still on PATH after the purge: $(on_path rocestat)" || ok

echo "check_deb: $pass passed, $fail failed ($(($(date +%s) - start)) s)"
[ $fail = 0 ]

#!/bin/sh
# make install into a new directory, then use what it installed as a user
# would: the binary on a bundled sample (same report as the built one, and
# it needs nothing from the source tree) and the man page where man(1)
# looks for it. The README's quick start ends with these steps.
#   BIN=path/to/built/rocestat MAKE=make sh tests/installcheck.sh
set -eu
cd "$(dirname "$0")/.."
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail=0 pass=0
ok() { pass=$((pass + 1)); }
bad() { echo "installcheck: FAIL: $*"; fail=$((fail + 1)); }

${MAKE:-make} -s --no-print-directory install PREFIX="$prefix" >/dev/null
inst=$prefix/bin/rocestat
[ -x "$inst" ] && ok || bad "make install left no $inst"
[ -f "$prefix/share/man/man1/rocestat.1" ] && ok || bad "make install left no man page"
[ -f "$prefix/share/bash-completion/completions/rocestat" ] && ok || bad "make install left no bash completion"
grep -q "$prefix/share/rocestat/rocestat.schema.json" "$prefix/share/man/man1/rocestat.1" && ok ||
	bad "the installed man page does not name the schema where make install put it"
[ -f "$prefix/share/rocestat/rocestat.schema.json" ] && python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$prefix/share/rocestat/rocestat.schema.json" && ok || bad "make install left no readable JSON schema"

# From another directory: the installed binary must not look for the tree.
sample=$(pwd)/samples/rping_s64.pcap
want=$("$BIN" -n "$sample" 2>&1) || true
got=$(cd / && "$inst" -n "$sample" 2>&1) || true
[ -n "$got" ] && [ "$got" = "$want" ] && ok || bad "the installed rocestat reports otherwise than the built one"
case "$got" in
*"RoCE v2 125 "*) ok ;; # tshark -Y infiniband counts 125 RoCE frames in rping_s64.pcap
*) bad "the installed rocestat did not summarise $sample: $(echo "$got" | head -3)" ;;
esac
if command -v man >/dev/null; then
	MANPATH=$prefix/share/man man -w rocestat 2>/dev/null | grep -q "^$prefix/share/man/man1/rocestat.1" && ok ||
		bad "man -w rocestat does not find the installed page under MANPATH=$prefix/share/man"
	w=$(MANWIDTH=80 MANPATH=$prefix/share/man man --warnings rocestat 2>&1 >/dev/null) || true
	[ -z "$w" ] && ok || bad "man warns on the installed page: $w"
fi
# The Debian package's version (debian/changelog) is the one rocestat
# reports, less a Debian revision or epoch if it ever has one.
deb=$(dpkg-parsechangelog -l debian/changelog -S Version 2>&1) || deb="(debian/changelog does not parse: $deb)"
up=${deb#*:}
[ "$("$inst" --version)" = "rocestat ${up%-*}" ] && ok ||
	bad "rocestat --version says '$("$inst" --version)', debian/changelog $deb: give debian/changelog an entry for the new version"
# debian/control builds with what `deps.sh build` installs, and no more
# than that (debhelper aside, and python3 for the tests the build runs).
drift=$(python3 - <<'EOF'
import re, subprocess
ctl = open("debian/control").read()
field = re.search(r"^Build-Depends:(.*?)^(?=\S)", ctl, re.S | re.M).group(1)
deps = {re.split(r"[\s(<\[]", d.strip())[0] for d in field.split(",") if d.strip()}
build = set(subprocess.run(["sh", "scripts/deps.sh", "--list", "build"], capture_output=True, text=True).stdout.split())
missing = sorted(build - deps - {"build-essential"})
extra = sorted(deps - build - {"debhelper-compat", "python3"})
print("; ".join(["missing: " + " ".join(missing)] * bool(missing) + ["not in deps.sh build: " + " ".join(extra)] * bool(extra)))
EOF
)
[ -z "$drift" ] && ok || bad "debian/control's Build-Depends and scripts/deps.sh build differ: $drift"
echo "installcheck: $pass passed, $fail failed"
[ $fail = 0 ]

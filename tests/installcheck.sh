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
echo "installcheck: $pass passed, $fail failed"
[ $fail = 0 ]

#!/bin/sh
# Golden tests, in tcpdump's style: each line of tests/TESTLIST is
#   name  capture  expected-output  arguments...
# rocestat runs as `rocestat ARGS CAPTURE` from the project root, and its
# standard output must equal tests/golden/EXPECTED byte for byte.
#
#   sh tests/golden.sh            run them all (exit 1 on any difference)
#   sh tests/golden.sh --update   rewrite the expected outputs (make golden-update)
#
# The counts inside the expected outputs are not trusted for being ours:
# tests/check_reports.py checks the JSON goldens against tshark's decode and
# the tools' console logs.
set -u
cd "$(dirname "$0")/.." || exit 2
ROCESTAT=${ROCESTAT:-./rocestat}
update=0
[ "${1:-}" = "--update" ] && update=1
pass=0 fail=0
out=$(mktemp -d) || exit 2
trap 'rm -rf "$out"' EXIT

while read -r name capture expected args; do
	case "$name" in ''|'#'*) continue ;; esac
	if [ ! -f "$capture" ]; then
		echo "golden: $name: capture $capture is missing" >&2
		fail=$((fail + 1))
		continue
	fi
	# shellcheck disable=SC2086 # the arguments are split on purpose
	"$ROCESTAT" $args "$capture" > "$out/$name.out" 2> "$out/$name.err"
	rc=$?
	if [ $rc -ge 2 ]; then
		echo "golden: $name: rocestat exited $rc: $(head -3 "$out/$name.err")" >&2
		fail=$((fail + 1))
		continue
	fi
	if [ $update = 1 ]; then
		cp "$out/$name.out" "tests/golden/$expected"
		continue
	fi
	if cmp -s "$out/$name.out" "tests/golden/$expected"; then
		pass=$((pass + 1))
	else
		echo "golden: $name: output differs from tests/golden/$expected:" >&2
		diff -u "tests/golden/$expected" "$out/$name.out" | head -40 >&2
		fail=$((fail + 1))
	fi
done < tests/TESTLIST

if [ $update = 1 ]; then
	echo "golden: expected outputs rewritten; review them with git diff"
	exit 0
fi
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]

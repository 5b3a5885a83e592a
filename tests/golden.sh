#!/bin/sh
# Golden tests, in tcpdump's style: each line of a test list is
#   name  capture  expected-output  arguments...
# rocestat runs as `rocestat ARGS CAPTURE` from the project root, and its
# standard output must equal tests/golden/EXPECTED byte for byte.
#
# Two lists: tests/TESTLIST holds the tests on this repository's own
# captures (samples/), which any clone can run; tests/TESTLIST.shared those
# on the data set in ../shared, which a clone may not have.
#
#   sh tests/golden.sh                  the tests of tests/TESTLIST (make golden)
#   sh tests/golden.sh --shared         those of tests/TESTLIST.shared (make golden-shared);
#                                       without ../shared: exit 1, saying so
#   sh tests/golden.sh NAME...          the tests NAME, from either list (make golden T=NAME)
#   sh tests/golden.sh --update [--shared|NAME...]
#                                       rewrite their expected outputs (make golden-update)
# Exit status: 0 all passed, 1 a difference or a test not run, 2 a name in
# no list.
#
# The counts inside the expected outputs are not trusted for being ours:
# tests/check_reports.py checks the JSON goldens against tshark's decode and
# the tools' console logs, and the text summaries against the JSON.
set -u
cd "$(dirname "$0")/.." || exit 2
ROCESTAT=${ROCESTAT:-./rocestat}
update=0 list=tests/TESTLIST
while [ $# -gt 0 ]; do
	case "$1" in
	--update) update=1 ;;
	--shared) list=tests/TESTLIST.shared ;;
	*) break ;;
	esac
	shift
done
pass=0 fail=0
out=$(mktemp -d) || exit 2
trap 'rm -rf "$out"' EXIT

# The lines to run: the list's, or the named tests' from both lists.
if [ $# -gt 0 ]; then
	: > "$out/lines"
	for want in "$@"; do
		if ! awk -v n="$want" '$1 == n { print; found = 1 } END { exit !found }' \
		    tests/TESTLIST tests/TESTLIST.shared >> "$out/lines"; then
			echo "golden: no test named $want in tests/TESTLIST or tests/TESTLIST.shared" >&2
			exit 2
		fi
	done
else
	grep -v '^[[:space:]]*\(#\|$\)' "$list" > "$out/lines"
	if [ "$list" = tests/TESTLIST.shared ] && [ ! -d ../shared ]; then
		echo "golden: ../shared is absent ($(cd .. && pwd)/shared): the $(wc -l < "$out/lines") golden tests" \
		    "of tests/TESTLIST.shared were not run. That is a failure, not a pass; make golden runs the" \
		    "tests of tests/TESTLIST, which need nothing outside this repository." >&2
		exit 1
	fi
fi

while read -r name capture expected args; do
	if [ "$list" = tests/TESTLIST ] && [ $# -eq 0 ] && [ "${capture#../}" != "$capture" ]; then
		echo "golden: $name: tests/TESTLIST is for captures in this repository; $capture belongs in tests/TESTLIST.shared" >&2
		fail=$((fail + 1))
		continue
	fi
	if [ "${capture#../shared/}" != "$capture" ] && [ ! -d ../shared ]; then
		echo "golden: $name: not run: its capture is in ../shared, which is absent" >&2
		fail=$((fail + 1))
		continue
	fi
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
		pass=$((pass + 1))
		continue
	fi
	if cmp -s "$out/$name.out" "tests/golden/$expected"; then
		pass=$((pass + 1))
	else
		echo "golden: $name: output differs from tests/golden/$expected:" >&2
		diff -u "tests/golden/$expected" "$out/$name.out" | head -40 >&2
		fail=$((fail + 1))
	fi
done < "$out/lines"

if [ $update = 1 ]; then
	echo "golden: $pass expected outputs rewritten, $fail not; review them with git diff"
else
	echo "golden: $pass passed, $fail failed"
fi
[ $fail -eq 0 ]

#!/bin/sh
# Run each libFuzzer target for FUZZ_SECONDS (default 60) on a corpus under
# build-fuzz/corpus/<target>, seeded from the shared and sample captures
# (tests/fuzz/mkseeds.py), the committed seeds (tests/fuzz/seeds/<target>) and
# the regression inputs (tests/regress/<target>). The corpus directories are
# kept between runs, so fuzzing builds on what earlier runs found.
#
#   FUZZ_SECONDS=N sh tests/fuzz/run.sh [target...]
#   FUZZ_FLAGS="..." adds libFuzzer flags (e.g. -fork=1 -ignore_crashes=1)
#
# Crash, leak, timeout and out-of-memory inputs land in
# build-fuzz/artifacts/<target>-*; the script exits 1 if any target failed.
set -u
cd "$(dirname "$0")/../.."
secs=${FUZZ_SECONDS:-60}
bdir=${FUZZ_BUILD:-build-fuzz}
[ $# -gt 0 ] || set -- fuzz_frame fuzz_capture fuzz_cm
captures=$(ls ../shared/captures/*.pcap ../shared/public-captures/*.pcap samples/*.pcap 2>/dev/null)
mkdir -p "$bdir/seeds" "$bdir/corpus" "$bdir/artifacts" "$bdir/logs"
# shellcheck disable=SC2086
python3 tests/fuzz/mkseeds.py "$bdir/seeds" $captures || exit 1
cat tests/fuzz/fuzz_frame.dict tests/fuzz/fuzz_capture.dict > "$bdir/fuzz_capture.dict"

fail=0
for t in "$@"; do
	bin=$bdir/fuzz/$t
	if [ ! -x "$bin" ]; then
		echo "fuzz: $bin is missing (make FUZZ=1 fuzz-build)" >&2
		exit 1
	fi
	dict=tests/fuzz/$t.dict
	[ "$t" = fuzz_capture ] && dict=$bdir/fuzz_capture.dict
	mkdir -p "$bdir/corpus/$t"
	extra=""
	for d in "$bdir/seeds/$t" "tests/fuzz/seeds/$t" "tests/regress/$t"; do
		[ -d "$d" ] && extra="$extra $d"
	done
	case $t in
	fuzz_capture) maxlen=65536 ;;
	fuzz_frame) maxlen=9216 ;;
	*) maxlen=600 ;;
	esac
	log=$bdir/logs/$t.log
	echo "fuzz: $t for ${secs}s (log $log)"
	# The first corpus directory receives new inputs; the others only seed.
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=$maxlen \
		-dict="$dict" -artifact_prefix="$bdir/artifacts/$t-" -print_final_stats=1 \
		${FUZZ_FLAGS:-} "$bdir/corpus/$t" $extra >"$log" 2>&1
	rc=$?
	# The last status line and the final statistics.
	grep -E '^#[0-9]+.*(pulse|DONE|NEW|REDUCE)' "$log" | tail -1
	grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" |
		tr '\n' ' '
	echo
	if [ $rc -ne 0 ]; then
		echo "fuzz: $t FAILED (exit $rc); the report:" >&2
		grep -E -A30 '^==[0-9]+==ERROR|runtime error|^SUMMARY|Test unit written' "$log" | head -60 >&2
		fail=1
	fi
done
exit $fail

#!/bin/sh
# valgrind memcheck over the unit tests, the replayed regression and seed
# inputs, and representative rocestat runs (summary, JSON, --fields, --ladder,
# --timeline, --plot; the shared captures and the hostile files). Any error,
# or any "definitely lost" block, fails the run.
#
#   ROCESTAT=./rocestat TEST_BINS="..." REPLAY_BINS="..." sh tests/valgrind.sh
set -u
cd "$(dirname "$0")/.."
ROCESTAT=${ROCESTAT:-./rocestat}
# rocestat leaves its analyzer to the exit to free unless told otherwise
# (cli/summary.c): here every block is freed, so memcheck checks that too.
export ROCESTAT_FREE_AT_EXIT=1
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite --track-origins=yes"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocestat-valgrind.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
runs=0
fails=0

# vg NAME EXPECTED_STATUSES CMD...: run under memcheck; 99 means a memcheck error.
vg() {
	name=$1 ok=$2
	shift 2
	runs=$((runs + 1))
	$VG "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	case " $ok " in
	*" $rc "*) ;;
	*)
		fails=$((fails + 1))
		echo "FAIL valgrind: $name (exit $rc; expected $ok)"
		grep -E '^==[0-9]+== ' "$tmp/err" | head -40
		;;
	esac
}

# Unit tests: CK_FORK=no so memcheck follows the test bodies themselves.
for t in ${TEST_BINS:-}; do
	CK_FORK=no vg "$t" 0 "$t"
done

# Regression inputs and a sample of the seed corpora through the fuzz entry points.
seeds=$tmp/seeds
captures=$(ls ../shared/captures/*.pcap ../shared/public-captures/*.pcap samples/*.pcap 2>/dev/null)
# shellcheck disable=SC2086
python3 tests/fuzz/mkseeds.py "$seeds" $captures >/dev/null
for r in ${REPLAY_BINS:-}; do
	t=fuzz_${r##*/replay_}
	# every 8th seed keeps the run short; regression inputs all
	sample=$(ls "$seeds/$t" | awk 'NR % 8 == 1' | sed "s|^|$seeds/$t/|")
	# shellcheck disable=SC2086
	vg "$r" 0 "$r" tests/regress/$t tests/fuzz/seeds/$t $sample
done

# rocestat itself over the shared captures, every report kind.
for c in $captures; do
	b=$(basename "$c" .pcap)
	vg "$b summary" "0 1" "$ROCESTAT" -n "$c"
	vg "$b json+timeline+plot" "0 1" "$ROCESTAT" -n --format json -o "$tmp/r.json" --timeline "$tmp/t.csv" \
		--plot "$tmp/p.svg" "$c"
	vg "$b fields" "0 1" "$ROCESTAT" -n --fields "$c"
	vg "$b ladder" "0 1" "$ROCESTAT" -n --ladder "$c"
done
vg "walk" "0 1" "$ROCESTAT" -n --walk ../shared/captures/cm_reject.pcap
# The walk's own analyzer and its verdicts: a go-back-N whose requests were
# sent before the first frame walked (unpaired flows), and two files.
vg "walk go-back-N" "0 1" "$ROCESTAT" -n --walk --frames 150-450 ../shared/captures/loss_write_bw.pcap
vg "walk two files" "0 1" "$ROCESTAT" -n --walk --frames 1-300 ../shared/captures/ib_read_bw_cm.pcap \
	../shared/captures/rc_pingpong.pcap
vg "max-flows" "0 1" "$ROCESTAT" -n --max-flows 2 --format json ../shared/captures/ib_write_bw_cm.pcap \
	../shared/captures/rc_pingpong.pcap
vg "filter" "0 1" "$ROCESTAT" -n --qp 0x11 --frames 2-50 ../shared/captures/rping_s64.pcap udp

# The hostile inputs (tests/hostile/run.py writes them with --keep DIR).
python3 tests/hostile/run.py --write-only "$tmp/hostile" >/dev/null
for h in "$tmp"/hostile/*.pcap; do
	b=$(basename "$h" .pcap)
	vg "hostile $b" "0 1 3" "$ROCESTAT" -n --format json --timeline "$tmp/t.csv" "$h"
	vg "hostile $b fields" "0 1 3" "$ROCESTAT" -n --fields "$h"
	vg "hostile $b ladder" "0 1 3" "$ROCESTAT" -n --ladder --max-flows 4 "$h"
	vg "hostile $b walk" "0 1 3" "$ROCESTAT" -n --walk "$h"
done

echo "valgrind: $((runs - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]

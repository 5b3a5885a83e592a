#!/bin/sh
# pgo-train.sh GEN_DIR — the training run of the profile-guided build
# (Makefile, PGO=1).
#
# GEN_DIR holds rocestat built with -fprofile-generate and the bench
# generator. This runs that rocestat over the traffic it is made for: a
# generated capture of many interleaved RC connections (every opcode the
# generator writes: SEND/WRITE/READ/atomics, UD, CM handshakes, CNPs,
# retransmissions), read as the summary, the timeline and --fields do, and
# then every committed sample (real Soft-RoCE captures: the CM exchanges,
# NAKs, RNR, rejects). Each object's counts land beside it (GEN_DIR/x/y.gcda),
# where the optimised build's gcc -fprofile-use reads them (the Makefile
# gives it GEN_DIR/x/ as -dumpdir).
#
# The capture is not the bench's (other seed, 500 connections, 100 000
# frames): the profile says which paths are hot, not what one file holds.
set -eu
gen_dir=$1

find "$gen_dir" -name '*.gcda' -exec rm -f {} +
cap="$gen_dir/train.pcap"
trap 'rm -f "$cap" "$gen_dir/train.csv"' EXIT
"$gen_dir/bench/gen" -n 100000 --conns 500 --seed 99 -o "$cap" 2>/dev/null

# Exit status 1 says anomalies were found (the capture has retransmissions
# on purpose); anything else is a failure of the run.
# One thread (-j 1): the profile is the same code's either way, and counts
# from one thread are the same from one training to the next.
run() {
	rc=0
	"$gen_dir/rocestat" -j 1 "$@" >/dev/null || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "pgo-train.sh: rocestat $* exited with $rc" >&2
		exit 1
	fi
}
run "$cap"
run --timeline="$gen_dir/train.csv" "$cap"
run --fields "$cap"
for f in samples/*.pcap; do
	run "$f"
done

# The generator, built in the same tree, leaves counts of its own under
# bench/: only rocestat's say the run worked.
if [ -z "$(find "$gen_dir" -path "$gen_dir/bench" -prune -o -name '*.gcda' -print)" ]; then
	echo "pgo-train.sh: the training run left no profile in $gen_dir" >&2
	exit 1
fi

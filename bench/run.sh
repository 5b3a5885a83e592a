#!/bin/sh
# bench/run.sh — rocestat's benchmark (issue 6), run by `make bench`:
#
#   sh bench/run.sh [FRAMES [DIR]]      defaults: 10000000 frames, a new temporary directory
#
# Environment: ROCESTAT, BENCH_BIN (the bench tools), REPEAT (runs per case,
# the fastest is reported; default 5), TSHARK_FRAMES (default 1000000),
# DISTINCT_CONNS (default 500000 connections = 1 M distinct QPs),
# MAX_FLOWS (default 100000), FEW_CONNS (default 40: the locality line),
# KEEP=1 keeps the generated files,
# BENCH_NICE=-10 gives this session's scheduler group that nice value while
# the bench runs (Linux autogroups share the CPUs equally between sessions
# whatever the nice of their processes, so on a machine where another
# session keeps both cores busy, -j 2 could not get more than one; needs
# root; restored at exit).
#
# Generates a capture with bench/gen.c, reads it once to warm the page
# cache, then times on the same file: (a) the bare libpcap loop (and (a2),
# the same with a 256 KiB stdio buffer, for context), (b)
# `rocestat FILE`, (c) `rocestat --timeline`, (d) `rocestat --fields`,
# (e) `tshark -q -z conv,udp` on the first TSHARK_FRAMES frames (scaled), and
# prints frames/s, MB/s, user CPU and peak RSS for each plus the ratios; b/a
# once more on the same mix over FEW_CONNS connections (what the flow
# state's cache misses cost); then the peak RSS for a capture of one million distinct QPs with and without
# --max-flows (also with a CM handshake per connection), and the -j
# speed-up on two files. Never a timed test: it
# prints figures and the targets, it does not fail on them.
#
# Reusing a DIR from an earlier run saves generating the files; the figures
# hold for a file left in the page cache as for a fresh one, since rocestat
# reads files with pread() (a mapping, rocestat's reader until 2026-11, was
# slowed by a page cache split into small folios: these VMs' DAMON pageout
# splits it within the hour).
#
# (a2), beside (a): the same libpcap loop given a 256 KiB stdio buffer
# (rocestat's read size) instead of glibc's 4 KiB, the fastest libpcap
# hands over a file here. Shown for context with its ratio; the targets
# are the issue's, against (a).

set -eu
cd "$(dirname "$0")/.."
FRAMES=${1:-10000000}
ROCESTAT=${ROCESTAT:-./rocestat}
BIN=${BENCH_BIN:-build/bench}
# Five rounds: on these shared VMs one binary's time drifts by 5-10% from
# minute to minute, and with three the best-of ratios moved by as much
# between two runs of the same commit.
REPEAT=${REPEAT:-5}
TSHARK_FRAMES=${TSHARK_FRAMES:-1000000}
DISTINCT_CONNS=${DISTINCT_CONNS:-500000}
MAX_FLOWS=${MAX_FLOWS:-100000}
FEW_CONNS=${FEW_CONNS:-40}
if [ -n "${2:-}" ]; then
	DIR=$2
	mkdir -p "$DIR"
else
	DIR=$(mktemp -d "${TMPDIR:-/tmp}/rocestat-bench.XXXXXX")
fi
BIG=$DIR/bench.pcap
SMALL=$DIR/bench-tshark.pcap
DISTINCT=$DIR/bench-distinct.pcap
J1=$DIR/bench-j1.pcap
J2=$DIR/bench-j2.pcap
FEW=$DIR/bench-few.pcap
AUTOGROUP_NICE=""
if [ -n "${BENCH_NICE:-}" ] && [ -w /proc/self/autogroup ]; then
	AUTOGROUP_NICE=$(sed -n 's/.* nice //p' /proc/self/autogroup)
	echo "$BENCH_NICE" > /proc/self/autogroup || AUTOGROUP_NICE=""
fi
cleanup() {
	[ -n "$AUTOGROUP_NICE" ] && echo "$AUTOGROUP_NICE" > /proc/self/autogroup
	[ "${KEEP:-0}" = 1 ] && return
	rm -f "$BIG" "$SMALL" "$DISTINCT" "$FEW" "$J1" "$J2" "$DIR"/rs.* "$DIR"/all.* "$DIR"/*.csv "$DIR"/*.json
	rmdir "$DIR" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

# gen [-q] OUT ARGS...: write a capture and print the generator's summary
# (-q: not); on failure (a full disk, say) say why and stop, rather than
# leave set -e to end the run without a word. Its messages are kept in
# memory: on a full disk a file for them could not be written either.
gen() {
	quiet=0
	if [ "$1" = -q ]; then
		quiet=1
		shift
	fi
	out=$1
	shift
	if ! msg=$("$BIN/gen" "$@" -o "$out" 2>&1 > /dev/null); then
		echo "bench: generating $out failed: $msg" >&2
		echo "bench: free space there: $(df -h "$DIR" | awk 'NR == 2 {print $4}')" >&2
		exit 1
	fi
	[ "$quiet" = 1 ] || echo "$msg" >&2
}

[ -f "$BIG" ] || gen "$BIG" -n "$FRAMES"
if [ "$TSHARK_FRAMES" -lt "$FRAMES" ]; then
	[ -f "$SMALL" ] || gen "$SMALL" -n "$TSHARK_FRAMES" # the same seed: the first frames of $BIG
	TFRAMES=$TSHARK_FRAMES
else
	SMALL=$BIG
	TFRAMES=$FRAMES
fi
cat "$BIG" > /dev/null # warm-up read

# once NAME CMD...: run it once; $DIR/rs.NAME keeps the run with the least
# CPU time so far ("wall user sys rss_kib status"), or wall time if BY=wall.
once() {
	name=$1
	shift
	"$BIN/rusage" "$DIR/rs.try" "$@" > /dev/null 2> "$DIR/rs.err" || true
	st=$(awk '{print $5}' "$DIR/rs.try")
	if [ "$st" -ge 2 ]; then
		echo "bench: $name: exit status $st: $(head -3 "$DIR/rs.err")" >&2
		exit 1
	fi
	cost='{print $2 + $3}'
	[ "${BY:-cpu}" = wall ] && cost='{print $1}'
	t=$(awk "$cost" "$DIR/rs.try")
	echo "$t" >> "$DIR/all.$name" # every run, in order (per-round ratios)
	if [ ! -f "$DIR/rs.$name" ] || awk -v a="$t" -v b="$(awk "$cost" "$DIR/rs.$name")" 'BEGIN{exit !(a<b)}'; then
		cp "$DIR/rs.try" "$DIR/rs.$name"
	fi
}
# measure NAME CMD...: the best of REPEAT runs.
measure() {
	i=0
	while [ $i -lt "$REPEAT" ]; do
		once "$@"
		i=$((i + 1))
	done
}

# (a)-(d) take turns, so that each sees the same background load.
rm -f "$DIR"/rs.* "$DIR"/all.*
i=0
while [ $i -lt "$REPEAT" ]; do
	once a "$BIN/pcaploop" "$BIG"
	once a2 "$BIN/pcaploop" "$BIG" 262144
	once b "$ROCESTAT" "$BIG"
	once c "$ROCESTAT" --timeline "$DIR/timeline.csv" "$BIG"
	once d "$ROCESTAT" --fields "$BIG"
	i=$((i + 1))
done
# tshark as often as the others and its best run too: one run alone let
# its system time (1.3 s in one run, 0.3 s in another, for 1 M frames) decide
# whether b/e met its target.
measure e tshark -q -z conv,udp -r "$SMALL"

SIZE=$(stat -c %s "$BIG")
CPU=$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')
echo
echo "rocestat bench: $FRAMES frames, $(awk -v s="$SIZE" 'BEGIN{printf "%.2f GB (%.0f bytes)", s/1e9, s}'), nproc $(nproc), $CPU"
echo "page cache warm, best of $REPEAT runs; (e) ran on the first $TFRAMES frames, scaled."
echo "Rates are per CPU second (user+sys) of the one process: the machine is shared, so wall"
echo "time includes waiting for a core; the wall time is shown too.$([ -n "$AUTOGROUP_NICE" ] && echo " Session autogroup nice $BENCH_NICE.")"
printf '%-34s %10s %9s %8s %7s %7s %12s\n' "case" "frames/s" "MB/s" "user s" "sys s" "wall s" "peak RSS MiB"
row() { # label name frames bytes
	awk -v l="$1" -v f="$3" -v b="$4" '{t=$2+$3; printf "%-34s %9.3fM %9.0f %8.2f %7.2f %7.2f %12.1f\n", l, f/t/1e6, b/t/1e6, $2, $3, $1, $4/1024}' "$DIR/rs.$2"
}
TSIZE=$(stat -c %s "$SMALL")
row "(a) libpcap pcap_next_ex loop" a "$FRAMES" "$SIZE"
row "(a2) the same, 256 KiB stdio buffer" a2 "$FRAMES" "$SIZE"
row "(b) rocestat FILE" b "$FRAMES" "$SIZE"
row "(c) rocestat --timeline" c "$FRAMES" "$SIZE"
row "(d) rocestat --fields >/dev/null" d "$FRAMES" "$SIZE"
row "(e) tshark -q -z conv,udp" e "$TFRAMES" "$TSIZE"
wall() { cut -d' ' -f1 "$DIR/rs.$1"; }
cpu() { awk '{print $2 + $3}' "$DIR/rs.$1"; }
awk -v a="$(cpu a)" -v b="$(cpu b)" -v c="$(cpu c)" -v d="$(cpu d)" -v e="$(cpu e)" -v n="$FRAMES" -v tn="$TFRAMES" 'BEGIN{
	ra = a / b; re = (n / b) / (tn / e); rc = c / b; fl = n / d / 1e6;
	printf "ratios: b/a = %.2f (target >= 0.75 %s)   b/e = %.1f (target >= 30 %s)   c/b = %.2f (target <= 1.15 %s)\n",
		ra, ((ra >= 0.75) ? "met" : "NOT met"), re, ((re >= 30) ? "met" : "NOT met"), rc, ((rc <= 1.15) ? "met" : "NOT met");
	printf "--fields: %.2f M lines/s (target >= 1 M %s)\n", fl, ((fl >= 1) ? "met" : "NOT met") }'
awk -v a2="$(cpu a2)" -v b="$(cpu b)" 'BEGIN{printf "context: b/a2 = %.2f (against libpcap reading 256 KiB a system call; not a target)\n", a2 / b}'
# The same ratios round by round: (a)-(d) of one round ran seconds apart, so
# a slow drift of the machine (other tenants) cancels out of each ratio,
# while the best-of-N figures above may come from different minutes.
# Shown beside the verdicts above, not instead of them.
round_ratios() { # NUM DEN: the median, least and greatest of NUM_i / DEN_i
	paste "$DIR/all.$1" "$DIR/all.$2" | awk '{print $2 / $1}' | sort -n |
		awk '{v[NR] = $1} END {printf "%.2f (%.2f-%.2f)", v[int((NR + 1) / 2)], v[1], v[NR]}'
}
echo "per round (median, range of $REPEAT): b/a = $(round_ratios b a)   c/b = $(round_ratios b c)"

# Where b/a goes: the same traffic mix over FEW_CONNS connections instead of
# the default 4000, on a tenth of the frames. Its (b) state stays in the
# caches; the 8000 half-flows of the default 4000 connections, interleaved
# frame by frame, do not, and each frame waits on its flow's lines. The gap between
# this b/a and the one above is that cost, not the per-frame work.
gen -q "$FEW" -n $((FRAMES / 10)) --conns "$FEW_CONNS"
cat "$FEW" > /dev/null
i=0
while [ $i -lt "$REPEAT" ]; do
	once fa "$BIN/pcaploop" "$FEW"
	once fb "$ROCESTAT" "$FEW"
	i=$((i + 1))
done
awk -v a="$(cpu fa)" -v b="$(cpu fb)" -v n="$FEW_CONNS" 'BEGIN{printf "locality: the same mix over %d connections (%d frames): b/a = %.2f (best of '"$REPEAT"'), per round %s\n", n, '"$FRAMES"' / 10, a / b, "'"$(round_ratios fb fa)"'" }'
rm -f "$FEW"

# Memory: one million distinct QPs (DISTINCT_CONNS connections, two QPs each).
gen -q "$DISTINCT" -n $((DISTINCT_CONNS * 4)) --conns "$DISTINCT_CONNS" --no-cm --rr --max-msg 256
REPEAT=1 measure m1 "$ROCESTAT" --format json -o "$DIR/distinct.json" "$DISTINCT"
HF=$(sed -n 's/.*"half_flows": \([0-9]*\).*/\1/p' "$DIR/distinct.json" | head -1)
REPEAT=1 measure m2 "$ROCESTAT" --max-flows "$MAX_FLOWS" --format json -o "$DIR/distinct-cap.json" "$DISTINCT"
EV=$(sed -n 's/.*"half_flows_evicted": \([0-9]*\).*/\1/p' "$DIR/distinct-cap.json" | head -1)
rss() { awk '{printf "%.1f MiB", $4/1024}' "$DIR/rs.$1"; }
# 1 GB taken strictly: 10^9 bytes (rusage counts KiB).
GB=$(awk '{printf "%.3f GB (target <= 1 GB %s)", $4*1024/1e9, ($4*1024 <= 1e9) ? "met" : "NOT met"}' "$DIR/rs.m1")
echo "memory: $FRAMES frames: peak RSS $(rss b); $HF distinct half-flows ($((DISTINCT_CONNS * 4)) frames, JSON report): $(rss m1) = $GB"
echo "        the same with --max-flows $MAX_FLOWS: $(rss m2), $EV half-flows evicted (and reported)"
# The same connections, each opening with a CM handshake: connections are
# capped too (at MAX_FLOWS / 2).
rm -f "$DISTINCT"
gen -q "$DISTINCT" -n $((DISTINCT_CONNS * 4)) --conns "$DISTINCT_CONNS" --rr --max-msg 256
REPEAT=1 measure m3 "$ROCESTAT" --max-flows "$MAX_FLOWS" --format json -o "$DIR/distinct-cm.json" "$DISTINCT"
CE=$(sed -n 's/.*"connections_evicted": \([0-9]*\).*/\1/p' "$DIR/distinct-cm.json" | head -1)
echo "        with a CM handshake each, --max-flows $MAX_FLOWS: $(rss m3), $CE connections evicted (and reported)"

# -j: two captures of FRAMES/2 frames each, sequential (-j 1) against parallel (-j 2).
# The big file is done with: without it the pair needs no more room than it
# took (a 10 M-frame run peaked at 15 GB with both there).
rm -f "$DISTINCT"
[ "${KEEP:-0}" = 1 ] || rm -f "$SMALL" "$BIG"
gen -q "$J1" -n $((FRAMES / 2)) --seed 11
gen -q "$J2" -n $((FRAMES / 2)) --seed 12 --qpn-base 0x400000
cat "$J1" "$J2" > /dev/null
i=0
while [ $i -lt "$REPEAT" ]; do
	BY=wall once j1 "$ROCESTAT" -j 1 "$J1" "$J2"
	BY=wall once j2 "$ROCESTAT" -j 2 "$J1" "$J2"
	i=$((i + 1))
done
awk -v x="$(wall j1)" -v y="$(wall j2)" -v n="$(nproc)" 'BEGIN{printf "-j: two files of %d frames, wall time (best of '"$REPEAT"'): -j 1 %.2f s, -j 2 %.2f s: speed-up %.2f on %d cores\n", '"$FRAMES"'/2, x, y, x/y, n}'

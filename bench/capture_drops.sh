#!/usr/bin/env bash
# capture_drops.sh — frames lost by rocestat and by tcpdump on the same
# top-speed replay. A measurement, not a test: it prints a table and exits 0.
#
# NEEDS ROOT (network namespaces). Debian packages: iproute2 tcpreplay tcpdump
# wireshark-common (capinfos). Installs nothing.
#
#   bench/capture_drops.sh [LOOPS [RUNS]]  (default 50 loops: 50 x ib_send_bw_cm = 87,800 frames;
#                                           3 runs of every tool, interleaved: the numbers vary)
#
# Between two namespaces joined by a veth pair, tcpreplay --topspeed sends
# ib_send_bw_cm.pcap LOOPS times while one capture tool runs:
#   rocestat -j 1 -i RX -w FILE           (one thread: capture, write, decode, analyse)
#   rocestat -i RX -w FILE                (the default -j: the analysis in a second thread)
#   rocestat -j 1 -i RX, rocestat -i RX   (the summary alone, no file)
#   tcpdump  -i RX -w FILE FILTER         (tcpdump's default: buffered delivery)
#   tcpdump  --immediate-mode ... FILTER  (each frame at once)
#   and all again with -B 65536 (64 MiB kernel buffer).
# rocestat and tcpdump's default both take frames in ring blocks. FILTER is
# the expression rocestat builds by default (capture/filter.c), so both
# tools get the same kernel filter. Each run reports the frames the file
# holds ("-": none written) and the tool's own pcap_stats lines.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROCESTAT=$(realpath "${ROCESTAT:-$HERE/../rocestat}")
CAPTURES=$(realpath -m "${CAPTURES:-$HERE/../../shared/captures}")
LOOPS=${1:-50}
RUNS=${2:-3}
SRC=$CAPTURES/ib_send_bw_cm.pcap
die() { echo "capture_drops.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (network namespaces)"
for t in ip tcpreplay tcpdump capinfos; do command -v "$t" >/dev/null || die "$t is not installed"; done
[ -x "$ROCESTAT" ] || die "no rocestat at $ROCESTAT (set ROCESTAT)"
. "$HERE/../tests/netns_pair.sh"

R='ether proto 0x8915 or udp dst port 4791'
FILTER="($R) or (vlan and (($R) or (vlan and ($R))))"
SENT=$(( $(capinfos -c -M "$SRC" | awk '/Number of packets/ {print $NF}') * LOOPS ))
ROCE=$(( $(tcpdump -nr "$SRC" "$FILTER" 2>/dev/null | wc -l) * LOOPS ))

# run NAME READY-WORD WRITE CMD...: capture while the replay runs, then
# SIGINT. WRITE: w to add -w FILE, - for none.
run() {
	local name=$1 ready=$2 write=$3 out="$TMP/cap.pcap"
	shift 3
	rm -f "$out"
	[ "$write" = w ] && set -- "$@" -w "$out"
	ip netns exec "$NS_RX" "$@" >/dev/null 2>"$TMP/err" &
	RS_PID=$!
	for _ in $(seq 100); do grep -q "$ready" "$TMP/err" && break; sleep 0.05; done
	ip netns exec "$NS_TX" tcpreplay -i "$TX" --topspeed --loop="$LOOPS" "$SRC" >"$TMP/replay" 2>&1
	sleep 1
	kill -INT "$RS_PID"
	wait "$RS_PID"
	RS_PID=
	local infile=-
	[ "$write" = w ] && infile=$(capinfos -c -M "$out" 2>/dev/null | awk '/Number of packets/ {print $NF}')
	local recv=$(awk '/received by filter/ {print $1}' "$TMP/err")
	local drop=$(awk '/dropped by kernel/ {print $1}' "$TMP/err")
	local rate=$(grep -o 'Rated: [0-9.]* Bps, [0-9.]* Mbps, [0-9.]* pps' "$TMP/replay" | awk '{print $6}')
	printf '%-36s %9s %9s %9s %9s %9s %10s\n' "$name" "$SENT" "$ROCE" "${infile:-?}" "${recv:-?}" "${drop:-?}" "${rate:-?}"
}

echo "replay: $SRC x $LOOPS, tcpreplay --topspeed, veth between two namespaces"
printf '%-36s %9s %9s %9s %9s %9s %10s\n' tool sent roce in-file received dropped replay-pps
for B in "" "-B 65536"; do
	for _ in $(seq "$RUNS"); do
		run "rocestat -j 1 -w $B" "capturing on" w "$ROCESTAT" -j 1 -i "$RX" $B
		run "rocestat -w $B" "capturing on" w "$ROCESTAT" -i "$RX" $B
		run "rocestat -j 1 (summary) $B" "capturing on" - "$ROCESTAT" -j 1 -i "$RX" $B
		run "rocestat (summary) $B" "capturing on" - "$ROCESTAT" -i "$RX" $B
		run "tcpdump -w $B" "listening on" w tcpdump -i "$RX" -n $B "$FILTER"
		run "tcpdump --immediate-mode -w $B" "listening on" w tcpdump -i "$RX" -n --immediate-mode $B "$FILTER"
	done
done

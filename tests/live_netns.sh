#!/usr/bin/env bash
# live_netns.sh — rocestat's live capture, end to end, on test hosts of its own.
#
# NEEDS ROOT: it creates two network namespaces joined by a veth pair,
# replays the shared Soft-RoCE captures into one end with tcpreplay and
# captures on the other end with `rocestat -i`. Without root, or when a
# namespace cannot be made, it FAILS with the reason (CI runs as root); it
# never skips.
#
# Debian packages: iproute2 tcpreplay tshark (tshark, capinfos) python3 tmux
# The script installs nothing.
#
# Environment: ROCESTAT (the binary, default ./rocestat), CAPTURES (default
# ../shared/captures). Ends with "N passed, M failed"; exit status 1 if any
# check failed.
#
# Every check compares with something rocestat did not produce: the source
# capture's own bytes (tests/framecmp.py reads pcap and pcapng by itself and
# picks the RoCE frames from the bytes), tshark and capinfos reading the
# written files, and `rocestat --fields` of the source file for the decode.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
ROCESTAT=$(realpath "${ROCESTAT:-./rocestat}")
CAPTURES=$(realpath -m "${CAPTURES:-$HERE/../../shared/captures}")
FRAMECMP="python3 $HERE/framecmp.py"
PASSED=0
FAILED=0

die() { echo "live_netns.sh: FAIL: $*" >&2; echo "0 passed, 1 failed"; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root to create network namespaces and capture (CI runs as root)"
for t in ip tcpreplay tshark capinfos python3; do
	command -v "$t" >/dev/null || die "$t is not installed (Debian: iproute2 tcpreplay tshark python3)"
done
[ -x "$ROCESTAT" ] || die "no rocestat binary at $ROCESTAT (set ROCESTAT)"
[ -f "$CAPTURES/rping_s64.pcap" ] || die "no captures in $CAPTURES (set CAPTURES)"

netns_extra_cleanup() { [ -n "${BG_PID:-}" ] && kill "$BG_PID" 2>/dev/null; umount "$TMP/ro" "$TMP/full" 2>/dev/null; }
. "$HERE/netns_pair.sh"

in_rx() { ip netns exec "$NS_RX" "$@"; }

ok() { PASSED=$((PASSED + 1)); echo "ok - $1"; }
not_ok() { FAILED=$((FAILED + 1)); echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
check() { # check NAME COMMAND...: passes when the command succeeds
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else not_ok "$name" "$out"; fi
}

# start_capture ARGS...: rocestat in the receiving namespace, in the
# background, stderr to $TMP/err; returns once it says it is capturing.
start_capture() {
	: >"$TMP/err"
	# Not through a shell function: $! must be rocestat itself (ip netns
	# exec execs it) for the signals sent to it.
	ip netns exec "$NS_RX" "$ROCESTAT" "$@" >"$TMP/out" 2>"$TMP/err" &
	RS_PID=$!
	wait_capturing "$TMP/err" "$RS_PID"
}

# wait_capturing ERR PID: true once the rocestat of PID says in ERR that
# its capture is open; false if it ends first or takes over 5 s. An RDMA
# device's resolution ("rxe0 is a Soft-RoCE device on X; capturing on X")
# comes before that line and must not start the replay.
wait_capturing() {
	for _ in $(seq 100); do
		grep -q "^rocestat: capturing on" "$1" && return 0
		kill -0 "$2" 2>/dev/null || break
		sleep 0.05
	done
	return 1
}

# start_second NAME ARGS...: another rocestat beside the one of
# start_capture, stdout to $TMP/NAME.out and stderr to $TMP/NAME.err, its pid
# in $BG_PID; returns once it says it is capturing.
start_second() {
	local name=$1
	shift
	: >"$TMP/$name.err"
	ip netns exec "$NS_RX" "$ROCESTAT" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	BG_PID=$!
	wait_capturing "$TMP/$name.err" "$BG_PID"
}

# same_json A B: two summaries in JSON agree in everything but the input's
# name (an interface or a file), and count frames.
same_json() {
	python3 - "$1" "$2" <<'EOF2'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    for f in d["capture"]["files"]:
        f.pop("name")
assert a["capture"]["frames"] > 0, "no frames"
if a != b:
    ka = {k for k in a if a[k] != b.get(k)}
    sys.exit("the summaries differ in %s" % sorted(ka))
print("%d frames, %d QPs, %d connections" % (a["capture"]["frames"], len(a["qps"]), len(a["connections"])))
EOF2
}

# stop_capture: SIGINT, then the exit status in $RS_RC.
stop_capture() {
	sleep 0.3 # the last frames are through the veth; let them be read
	kill -INT "$RS_PID" 2>/dev/null
	wait "$RS_PID"
	RS_RC=$?
	RS_PID=
}

no_temp_files() { ! ls -A "$1" | grep -q '^\.'; }

SRC=$CAPTURES/rping_s5000.pcap # RoCE v2 with CM, ARP and multi-packet messages
BIG=$CAPTURES/ib_send_bw_cm.pcap

# ---- every RoCE frame arrives byte-identical, nothing else does -------------
for src in "$SRC" "$CAPTURES/ipv6_rping.pcap" "$CAPTURES/rc_pingpong.pcap"; do
	name=$(basename "$src" .pcap)
	if start_capture -i "$RX" -B 65536 -w "$TMP/$name.pcap"; then
		replay --pps=3000 "$src"
		stop_capture
		# SIGINT ends a capture normally: the status is the summary's verdict,
		# the same as for the recorded file read offline (1 = anomalies found).
		"$ROCESTAT" -n "$TMP/$name.pcap" >/dev/null 2>&1
		offline_rc=$?
		check "$name: exit status after SIGINT ($RS_RC) is the offline verdict ($offline_rc)" \
			test "$RS_RC" = "$offline_rc" -a "$RS_RC" -le 1
		check "$name: every RoCE frame byte-identical, in order, nothing else" \
			$FRAMECMP roce "$src" "$TMP/$name.pcap"
		check "$name: tshark reads the file" tshark -r "$TMP/$name.pcap" -c 1
		check "$name: the counts on stderr" grep -q "frames received by filter" "$TMP/err"
	else
		not_ok "$name: rocestat started" "$(cat "$TMP/err")"
	fi
done
check "rc_pingpong has TCP and the source has non-RoCE frames to filter out" \
	test "$($FRAMECMP count "$CAPTURES/rc_pingpong.pcap")" -gt "$($FRAMECMP count "$TMP/rc_pingpong.pcap")"

# ---- pcapng, read back by tshark and by our own reader -----------------------
if start_capture -i "$RX" -B 65536 -w "$TMP/ng.pcapng"; then
	replay --pps=3000 "$SRC"
	stop_capture
	check "pcapng: RoCE frames byte-identical" $FRAMECMP roce "$SRC" "$TMP/ng.pcapng"
	check "pcapng: capinfos says pcapng with nanosecond timestamps" \
		sh -c "capinfos -t -i '$TMP/ng.pcapng' | grep -q pcapng && capinfos '$TMP/ng.pcapng' | grep -qi 'nanoseconds'"
	check "pcapng: tshark decodes every frame as RoCE (InfiniBand)" \
		sh -c "test \"\$(tshark -r '$TMP/ng.pcapng' -Y infiniband 2>/dev/null | wc -l)\" = \"\$($FRAMECMP count '$TMP/ng.pcapng')\""
else
	not_ok "pcapng: rocestat started" "$(cat "$TMP/err")"
fi

# ---- VLAN: one tag and two (802.1ad + 802.1Q), kept byte-identical ------------
for tags in 1 2; do
	$FRAMECMP vlan "$SRC" "$TMP/vlan$tags-src.pcap" "$tags"
	if start_capture -i "$RX" -B 65536 -w "$TMP/vlan$tags.pcap"; then
		replay --pps=3000 "$TMP/vlan$tags-src.pcap"
		stop_capture
		check "$tags VLAN tag(s): every RoCE frame byte-identical, nothing else" \
			$FRAMECMP roce "$TMP/vlan$tags-src.pcap" "$TMP/vlan$tags.pcap"
	else
		not_ok "vlan$tags: rocestat started" "$(cat "$TMP/err")"
	fi
done

# ---- --all and a user filter --------------------------------------------------
if start_capture -i "$RX" -B 65536 --all -w "$TMP/all.pcap"; then
	replay --pps=3000 "$CAPTURES/rc_pingpong.pcap"
	stop_capture
	check "--all: every frame of the source, TCP and ARP included" $FRAMECMP all "$CAPTURES/rc_pingpong.pcap" "$TMP/all.pcap"
fi
if start_capture -i "$RX" -B 65536 -w "$TMP/user.pcap" src host 192.0.2.1; then
	replay --pps=3000 "$SRC"
	stop_capture
	check "user filter narrows the RoCE filter: only frames from 192.0.2.1" \
		sh -c "test \"\$(tshark -r '$TMP/user.pcap' -Y 'ip.src==192.0.2.1 && udp.dstport==4791' | wc -l)\" = \"\$($FRAMECMP count '$TMP/user.pcap')\" && test \"\$($FRAMECMP count '$TMP/user.pcap')\" -gt 0 && test \"\$(tshark -r '$SRC' -Y 'ip.src==192.0.2.1 && udp.dstport==4791' | wc -l)\" = \"\$($FRAMECMP count '$TMP/user.pcap')\""
fi

# ---- live --fields = offline --fields of the same frames ---------------------
# Frame numbers and times differ by nature (live numbers count captured
# frames; times are arrival times), so columns 1 and 2 are left out.
if start_capture -i "$RX" -B 65536 --fields; then
	replay --pps=3000 "$SRC"
	stop_capture
	"$ROCESTAT" --fields "$SRC" >"$TMP/offline.csv" 2>/dev/null
	check "live --fields equals offline --fields of the source (all but frame and time)" \
		sh -c "cut -d, -f3- '$TMP/out' >'$TMP/a'; cut -d, -f3- '$TMP/offline.csv' >'$TMP/b'; test -s '$TMP/a' && diff -q '$TMP/a' '$TMP/b'"
fi

# ---- the live summary = the offline summary of the frames it recorded ----------
# Ctrl-C prints what `rocestat FILE` prints for the same frames: the JSON of
# the live run and of the file it wrote must agree in everything but the
# input's name (the interface vs the file).
if start_capture -i "$RX" -B 65536 -n --format json --refresh 0.1 -w "$TMP/sum.pcap"; then
	replay --pps=3000 "$SRC"
	stop_capture
	"$ROCESTAT" -n --format json "$TMP/sum.pcap" >"$TMP/sum-offline.json" 2>/dev/null
	check "live summary (JSON) equals the offline summary of the recorded frames" python3 - "$TMP/out" "$TMP/sum-offline.json" <<'EOF'
import json, sys
live, off = (json.load(open(p)) for p in sys.argv[1:3])
for d in (live, off):
    for f in d["capture"]["files"]:
        f.pop("name")
assert live["capture"]["frames"] > 0
assert live == off, "live and offline summaries differ"
print("%d frames, %d QPs, %d connections" % (live["capture"]["frames"], len(live["qps"]), len(live["connections"])))
EOF
	check "live summary: rping's CM handshake was stitched (an established or closed connection)" \
		python3 -c "import json,sys; d=json.load(open('$TMP/out')); sys.exit(0 if any(c['state'] in ('established','closed') for c in d['connections']) else 1)"
	check "live view: one key=value line per interval on stderr (not a terminal)" grep -q '^time=.* frames=' "$TMP/err"
fi

# ---- two threads at a high rate: the analysis of the file it wrote -----------
# -j 2: one thread captures, writes -w and decodes, the other analyses
# (cli/livefeed.c through cli/pipeline.c), full batches through the ring. A
# frame the kernel drops at this rate is neither written nor analysed, so
# the live summary must be the offline one (-j 1: one thread) of the file.
if start_capture -i "$RX" -n -j 2 --format json --refresh 0.1 -w "$TMP/fast.pcap"; then
	replay --topspeed --loop=5 "$BIG"
	stop_capture
	"$ROCESTAT" -n -j 1 --format json "$TMP/fast.pcap" >"$TMP/fast-offline.json" 2>/dev/null
	n=$($FRAMECMP count "$TMP/fast.pcap" 2>&1)
	check "-j 2 at top speed: the live summary (JSON) is the offline one of the -w file ($n frames; $(grep -h 'dropped by kernel' "$TMP/err"))" \
		same_json "$TMP/out" "$TMP/fast-offline.json"
	check "-j 2 at top speed: more frames than one batch (256) went through ($n)" test "$n" -gt 1024
	check "-j 2 at top speed: exit status ($RS_RC) is the offline verdict" \
		sh -c "'$ROCESTAT' -n -j 1 '$TMP/fast.pcap' >/dev/null 2>&1; test \$? = '$RS_RC'"
fi

# ---- -j 1 and -j 2 at once on the same replay: the same summary --------------
# Two captures on one interface get the same frames with the same kernel
# timestamps: one thread (-j 1) and two (-j 2) must say the same, and what
# each says is the offline summary of what it wrote.
if start_second j1 -i "$RX" -B 65536 -n -j 1 --format json --refresh 0.1 -w "$TMP/j1.pcap" &&
	start_capture -i "$RX" -B 65536 -n -j 2 --format json --refresh 0.1 -w "$TMP/j2.pcap"; then
	replay --pps=20000 "$BIG"
	sleep 0.3 # the last frames are through the veth; let them be read
	kill -INT "$BG_PID" 2>/dev/null
	wait "$BG_PID"
	J1_RC=$?
	BG_PID=
	stop_capture
	"$ROCESTAT" -n -j 1 --format json "$TMP/j1.pcap" >"$TMP/j1-offline.json" 2>/dev/null
	check "-j 1 live: the summary is the offline one of its -w file" same_json "$TMP/j1.out" "$TMP/j1-offline.json"
	check "-j 1 and -j 2 captured the same frames, every RoCE frame of the replay" \
		sh -c "$FRAMECMP roce '$BIG' '$TMP/j1.pcap' && $FRAMECMP roce '$BIG' '$TMP/j2.pcap'"
	check "-j 1 and -j 2 on the same replay: the same summary (JSON)" same_json "$TMP/j1.out" "$TMP/out"
	check "-j 1 and -j 2: the same exit status ($J1_RC, $RS_RC)" test "$J1_RC" = "$RS_RC"
else
	not_ok "-j 1 and -j 2 at once: both started" "$(cat "$TMP/j1.err" "$TMP/err" 2>/dev/null)"
	[ -n "${BG_PID:-}" ] && kill "$BG_PID" 2>/dev/null
	[ -n "${RS_PID:-}" ] && stop_capture
fi

# ---- --fields live: the lines come while the capture runs -------------------
# A few frames, then a quiet link: their lines must be out before the
# capture ends (each round of capture is handed on at once, and --fields
# writes out what it holds at every --refresh tick), in two threads and in
# one. tshark counts the RoCE frames among the first 7 of the source.
want=$(( $(tshark -r "$SRC" -c 7 -Y 'udp.dstport==4791' 2>/dev/null | wc -l) + 1 ))
for j in 2 1; do
	if start_capture -i "$RX" -B 65536 -j "$j" --fields --refresh 0.2; then
		replay --pps=3000 --limit=7 "$SRC"
		sleep 1.5
		got=$(wc -l <"$TMP/out")
		running=no
		kill -0 "$RS_PID" 2>/dev/null && running=yes
		stop_capture
		check "--fields -j $j, a quiet link after 7 frames: the header and $((want - 1)) lines before the end (got $got, still capturing: $running)" \
			test "$running" = yes -a "$got" = "$want"
		check "--fields -j $j: nothing more at the end" test "$(wc -l <"$TMP/out")" = "$want"
	fi
done

# ---- a replayed capture: two connections, nothing re-sent, a wire rate -----
# samples/impair/replay_loop.pcap holds the same test twice (the same QP
# numbers, CM IDs and PSNs): live, the second round is a second
# connection, not thousands of re-sends, and the wire rate is never 0
# while frames arrive.
LOOP=$(dirname "$0")/../samples/impair/replay_loop.pcap
if start_capture -i "$RX" -B 65536 -n --format json --refresh 0.1; then
	replay --pps=300 "$LOOP"
	stop_capture
	check "replayed capture live: 2 connections, 0 re-sent requests" python3 -c "
import json, sys
d = json.load(open('$TMP/out'))
conns = [c for c in d['connections'] if c['kind'] == 'connected']
resent = sum(q['request_psn']['retransmitted'] for q in d['qps'] if q['request_psn'])
print(len(conns), 'connections,', resent, 're-sent')
sys.exit(0 if len(conns) == 2 and resent == 0 else 1)"
	check "replayed capture live: the key=value lines give a wire rate above 0 while frames come" \
		sh -c "grep -o 'wire_Bps=[0-9]*' '$TMP/err' | grep -qv 'wire_Bps=0\$'"
fi

# ---- -c N stops by itself at N --------------------------------------------------
if start_capture -i "$RX" -B 65536 -c 17 -w "$TMP/c17.pcap"; then
	replay --pps=3000 "$SRC"
	for _ in $(seq 50); do kill -0 "$RS_PID" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$RS_PID" 2>/dev/null; then stop_capture; not_ok "-c 17: rocestat stopped by itself"; else
		wait "$RS_PID"; RS_RC=$?; RS_PID=
		check "-c 17: exit status 0" test "$RS_RC" = 0
		check "-c 17: exactly the first 17 RoCE frames" $FRAMECMP roce "$SRC" "$TMP/c17.pcap" --first 17
	fi
fi

# ---- --frames N-M: the same frames as offline; the capture ends after M -----
if start_capture -i "$RX" -B 65536 --frames 5-12 -w "$TMP/f5.pcap"; then
	replay --pps=3000 "$SRC"
	for _ in $(seq 50); do kill -0 "$RS_PID" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$RS_PID" 2>/dev/null; then stop_capture; not_ok "--frames 5-12: rocestat stopped by itself"; else
		wait "$RS_PID"; RS_RC=$?; RS_PID=
		check "--frames 5-12: exit status 0 (got $RS_RC)" test "$RS_RC" = 0
		check "--frames 5-12: exactly RoCE frames 5 to 12" $FRAMECMP roce "$SRC" "$TMP/f5.pcap" --skip 4 --first 8
	fi
fi

# ---- --until T ends a live capture on time, frames or not ---------------------
if start_capture -i "$RX" -B 65536 --until 1 -w "$TMP/u1.pcap"; then
	replay --pps=3000 --limit=7 "$SRC" # 2 ARP + 5 RoCE, well within the second from the start
	for _ in $(seq 50); do kill -0 "$RS_PID" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$RS_PID" 2>/dev/null; then stop_capture; not_ok "--until 1: rocestat stopped by itself"; else
		wait "$RS_PID"; RS_RC=$?; RS_PID=
		check "--until 1: exit status 0 (got $RS_RC)" test "$RS_RC" = 0
		check "--until 1: the 5 RoCE frames sent" $FRAMECMP roce "$SRC" "$TMP/u1.pcap" --first 5
	fi
fi
# ... and on a quiet link too: a relative window counts from the capture's
# start (it waited for a first frame, forever, before).
if start_capture -i "$RX" -B 65536 --until 1 -w "$TMP/u1q.pcap"; then
	for _ in $(seq 50); do kill -0 "$RS_PID" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$RS_PID" 2>/dev/null; then stop_capture; not_ok "--until 1, no traffic: rocestat stopped by itself"; else
		wait "$RS_PID"; RS_RC=$?; RS_PID=
		check "--until 1, no traffic: exit status 0 (got $RS_RC)" test "$RS_RC" = 0
		check "--until 1, no traffic: an empty capture file" test "$($FRAMECMP count "$TMP/u1q.pcap")" = 0
	fi
fi

# ---- --since T picks frames by time: those sent before T are left out ------
if start_capture -i "$RX" -B 65536 --since 1 -w "$TMP/s1.pcap"; then
	replay --pps=3000 --limit=7 "$SRC" # 2 ARP + 5 RoCE, within the first second: before the window
	sleep 1.5
	replay --pps=3000 --limit=12 "$SRC" # 2 ARP + 10 RoCE, in the window
	stop_capture
	check "--since 1: only the 10 RoCE frames sent after the first second" \
		$FRAMECMP roce "$SRC" "$TMP/s1.pcap" --first 10
fi

# ---- -s 128 keeps headers; the decode still uses wire lengths ---------------------
if start_capture -i "$RX" -B 65536 -s 128 -w "$TMP/s128.pcap"; then
	replay --pps=3000 "$SRC"
	stop_capture
	check "-s 128: 128 bytes of each RoCE frame, wire lengths kept" $FRAMECMP roce "$SRC" "$TMP/s128.pcap" --snap 128
	"$ROCESTAT" --fields "$TMP/s128.pcap" >"$TMP/s128.csv" 2>/dev/null
	"$ROCESTAT" --fields "$SRC" >"$TMP/full.csv" 2>/dev/null
	check "-s 128: same opcode, PSN, payload_len as the full frames; ICRC unchecked where cut" python3 - "$TMP/full.csv" "$TMP/s128.csv" "$SRC" <<'EOF'
import csv, struct, sys
full = list(csv.DictReader(open(sys.argv[1])))
cut = list(csv.DictReader(open(sys.argv[2])))
assert len(full) == len(cut) > 0, (len(full), len(cut))
for a, b in zip(full, cut):
    for col in ("opcode", "opname", "destqp", "psn", "payload_len", "reth_dmalen", "aeth_msn"):
        assert a[col] == b[col], (col, a, b)
    assert a["icrc_status"] == "ok", a
unchecked = sum(b["icrc_status"] == "unchecked" for b in cut)
assert unchecked > 0 and all(b["icrc_status"] in ("unchecked", "ok") for b in cut)
print(f"{len(cut)} frames, {unchecked} cut")
EOF
fi

# ---- -C rotation: several valid files that together are the stream -------------
if start_capture -i "$RX" -B 65536 -C 100k -w "$TMP/rot.pcap"; then
	replay --pps=5000 "$BIG"
	stop_capture
	parts=("$TMP/rot.pcap")
	k=1
	while [ -e "$TMP/rot.pcap$k" ]; do parts+=("$TMP/rot.pcap$k"); k=$((k + 1)); done
	check "-C 100k: several files (got ${#parts[@]})" test "${#parts[@]}" -ge 5
	check "-C 100k: every file at most 100000 bytes" sh -c "! find '$TMP' -name 'rot.pcap*' -size +100000c | grep -q ."
	check "-C 100k: capinfos reads every file" capinfos "${parts[@]}"
	check "-C 100k: the files in order are the RoCE stream" $FRAMECMP roce "$BIG" "${parts[@]}"
	check "-C 100k: no temporary file left" no_temp_files "$TMP"
fi

# ---- SIGINT mid-capture: a complete file under its final name --------------------
if start_capture -i "$RX" -B 65536 -w "$TMP/int.pcapng"; then
	# tcpreplay itself in the background (not a function's subshell), so
	# that killing it really stops the replay before the next check.
	ip netns exec "$NS_TX" tcpreplay -q -i "$TX" --pps=200 "$BIG" >/dev/null 2>&1 &
	REPLAY_PID=$!
	sleep 1.5
	check "SIGINT: nothing under the final name while capturing" test ! -e "$TMP/int.pcapng"
	kill -INT "$RS_PID"
	wait "$RS_PID"
	RS_RC=$?
	RS_PID=
	kill "$REPLAY_PID" 2>/dev/null
	wait "$REPLAY_PID" 2>/dev/null
	n=$($FRAMECMP count "$TMP/int.pcapng" 2>&1)
	check "SIGINT: exit status 0 (got $RS_RC)" test "$RS_RC" = 0
	check "SIGINT: capinfos reads the file ($n frames)" capinfos "$TMP/int.pcapng"
	check "SIGINT: at least one frame, fewer than the whole replay" sh -c "test '$n' -ge 1 && test '$n' -lt 5000"
	check "SIGINT: the frames are the first RoCE frames of the source" $FRAMECMP roce "$BIG" "$TMP/int.pcapng" --first "$n"
	check "SIGINT: no temporary file left" no_temp_files "$TMP"
	check "SIGINT: the counts are printed" grep -q "frames dropped by kernel" "$TMP/err"
fi

# ---- -G: the periodic tick completes an idle period; SIGTERM ends cleanly ------
mkdir -p "$TMP/g"
if start_capture -i "$RX" -B 65536 -G 1 -w "$TMP/g/cap-%H%M%S.pcap"; then
	replay --pps=3000 "$SRC"
	sleep 2.5 # idle: the 1 s period has ended, the tick must finish its file
	n_idle=$(ls "$TMP/g" | grep -c '^cap-')
	kill -TERM "$RS_PID"
	wait "$RS_PID"
	RS_RC=$?
	RS_PID=
	check "-G 1: the file of an ended period is complete before the capture ends (tick)" test "$n_idle" -ge 1
	check "SIGTERM: exit status 0 (got $RS_RC)" test "$RS_RC" = 0
	check "-G 1: the files in order are the RoCE stream" sh -c "$FRAMECMP roce '$SRC' \$(ls '$TMP'/g/cap-* | sort)"
	check "-G 1: no temporary file left" no_temp_files "$TMP/g"
fi

# ---- -i of an RDMA device, resolved through a fake sysfs ---------------------------
mkdir -p "$TMP/sys/class/infiniband/rxe0/ports/1"
echo "$RX" >"$TMP/sys/class/infiniband/rxe0/parent"
echo Ethernet >"$TMP/sys/class/infiniband/rxe0/ports/1/link_layer"
if start_capture --sysfs "$TMP/sys" -i rxe0 -B 65536 -c 5 -w "$TMP/rxe.pcap"; then
	replay --pps=3000 "$SRC"
	for _ in $(seq 50); do kill -0 "$RS_PID" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$RS_PID" 2>/dev/null && stop_capture
	wait "$RS_PID" 2>/dev/null
	RS_PID=
	check "-i rxe0: says it resolved rxe0 to $RX" grep -q "rxe0 is a Soft-RoCE device on $RX" "$TMP/err"
	check "-i rxe0: captured on $RX" $FRAMECMP roce "$SRC" "$TMP/rxe.pcap" --first 5
else
	not_ok "-i rxe0: rocestat started" "$(cat "$TMP/err")"
fi

# ---- -Z: the output belongs to the user we became --------------------------------
mkdir -m 1777 "$TMP/z"
if start_capture -i "$RX" -Z nobody -c 3 -w "$TMP/z/z.pcap"; then
	replay --pps=3000 "$SRC"
	for _ in $(seq 50); do kill -0 "$RS_PID" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$RS_PID" 2>/dev/null && stop_capture
	wait "$RS_PID" 2>/dev/null
	RS_PID=
	check "-Z nobody: the file is owned by nobody" test "$(stat -c %U "$TMP/z/z.pcap" 2>&1)" = nobody
	check "-Z nobody: 3 frames" $FRAMECMP roce "$SRC" "$TMP/z/z.pcap" --first 3
fi

# ---- errors: one line, naming what is wrong, with the documented status ------------
one_line_error() { # one_line_error STATUS WORD ARGS...: fails with STATUS, one stderr line containing WORD
	local want=$1 word=$2 rc
	shift 2
	in_rx timeout 10 "$ROCESTAT" "$@" >/dev/null 2>"$TMP/e"
	rc=$?
	[ "$rc" = "$want" ] || { echo "exit status $rc, expected $want: $(cat "$TMP/e")"; return 1; }
	[ "$(wc -l <"$TMP/e")" = 1 ] || { echo "not one line:"; cat "$TMP/e"; return 1; }
	grep -qF -- "$word" "$TMP/e" || { echo "does not name $word: $(cat "$TMP/e")"; return 1; }
}
check "-i nosuchdev: exit 3, one line naming it, hint -D" one_line_error 3 "nosuchdev" -i nosuchdev -w "$TMP/x.pcap"
check "-i nosuchdev: the hint" grep -qF "rocestat -D" "$TMP/e"
check "bad filter: exit 2, one line quoting it" one_line_error 2 '"tcp port"' -i "$RX" tcp port
mkdir -p "$TMP/ro" && mount -t tmpfs -o ro,size=64k tmpfs "$TMP/ro"
check "-w into a read-only directory: exit 3, one line naming the file" \
	one_line_error 3 "$TMP/ro/x.pcap" -i "$RX" -w "$TMP/ro/x.pcap"
check "-Z nosuchuser: exit 2, one line naming the user" one_line_error 2 "nosuchuser" -i "$RX" -Z nosuchuser
mkdir -p "$TMP/sys/class/infiniband/mlx5_9"
check "-i of an RDMA device without a netdev: exit 3, one line naming it" \
	one_line_error 3 "mlx5_9" --sysfs "$TMP/sys" -i mlx5_9

# ---- the live view in a real terminal (tmux) at 80 and 120 columns ---------------
# 32 QPs with three-digit QP numbers (a ConnectX capture): every row names its
# QP whole (the numbers from tshark), and no line is wider than the terminal.
HW=$(realpath -m "$CAPTURES/../hw-captures/magnate3__linux-riscv-dev__rocev2_test.pcap")
if command -v tmux >/dev/null && [ -f "$HW" ]; then
	tshark -n -r "$HW" -Y infiniband.bth -T fields -e infiniband.bth.destqp 2>/dev/null | sort -u >"$TMP/qpns"
	for w in 80 120; do
		tmux -L rslive kill-server 2>/dev/null
		# The screen is drawn on standard error, the terminal.
		tmux -L rslive new-session -d -x "$w" -y 60 "ip netns exec $NS_RX $ROCESTAT -i $RX --refresh 0.2; sleep 60"
		for _ in $(seq 100); do tmux -L rslive capture-pane -p | grep -q "rocestat live" && break; sleep 0.05; done
		replay --pps=400 "$HW"
		sleep 1
		tmux -L rslive capture-pane -p >"$TMP/lv$w.txt"
		tmux -L rslive kill-server 2>/dev/null
		check "live view at $w columns: no line wider than the terminal" \
			python3 -c "import sys; sys.exit(max(len(l.rstrip('\n')) for l in open('$TMP/lv$w.txt')) > $w)"
		check "live view at $w columns: every row's QP number whole (tshark's)" python3 - "$TMP/lv$w.txt" "$TMP/qpns" <<'EOF2'
import re, sys
screen = open(sys.argv[1]).read()
rows = [l for l in screen.splitlines() if " → " in l and re.search(r" (RC|UC|UD) ", l)]
want = {int(x, 16) for x in open(sys.argv[2]).read().split() if x}
got = [int(m.group(1), 16) for m in (re.search(r" 0x([0-9a-f]+) +(RC|UC|UD) ", l) for l in rows) if m]
assert len(rows) >= 10 and len(got) == len(rows), "%d rows, %d with a QP number: %s" % (len(rows), len(got), rows[:3])
bad = [q for q in got if q not in want]
assert not bad, "QP numbers not in the capture (cut?): %s" % [hex(q) for q in bad]
print("%d rows, all QP numbers whole" % len(rows))
EOF2
	done
else
	not_ok "live view in tmux: tmux or $HW missing (scripts/deps.sh test installs tmux)"
fi

# ---- a full disk during capture: an error naming the file, the frames kept ---------
mkdir -p "$TMP/full" && mount -t tmpfs -o size=256k tmpfs "$TMP/full"
if start_capture -i "$RX" -B 65536 -w "$TMP/full/f.pcap"; then
	replay --pps=5000 "$BIG"
	for _ in $(seq 50); do kill -0 "$RS_PID" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$RS_PID" 2>/dev/null && stop_capture
	wait "$RS_PID" 2>/dev/null
	RS_RC=$?
	RS_PID=
	check "full disk: exit 3 (got $RS_RC)" test "$RS_RC" = 3
	check "full disk: the error names the file and the cause" grep -q "$TMP/full/f.pcap: write failed: No space left on device" "$TMP/err"
	n=$($FRAMECMP count "$TMP/full/f.pcap" 2>&1)
	check "full disk: the frames written are readable ($n)" $FRAMECMP roce "$BIG" "$TMP/full/f.pcap" --first "$n"
fi
umount "$TMP/full" 2>/dev/null

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]

#!/bin/sh
# rxe-host.sh SCENARIO [-6] [--name NAME] [--out DIR] [--topology T] [-- rocegen options]
#
# For a Linux host whose kernel has rdma_rxe: a veth pair, an rxe device on
# each end, the rocegen server on one end and the client on the other, and
# `rocestat -i` recording the server's end of the wire. Writes NAME.pcap and
# the ground truth (NAME.truth.json when python3 is there to merge the two
# sides, else NAME.server.json and NAME.client.json). Removes everything it
# created, also on failure. Plain POSIX sh, so it also runs under busybox
# (rxe-vm.sh --host runs it inside one guest).
#
# --topology netns: each veth end in its own network namespace, server in
#   one, client in the other. Needs an rxe that is namespace aware; up to
#   at least Linux 6.1 it opens its UDP port 4791 in the initial namespace
#   only, so nothing reaches a device in another namespace.
# --topology rules: both ends in the initial namespace; policy routing sends
#   traffic between the two addresses out through the veth instead of the
#   local shortcut (the "local" rule moves behind two specific ones for the
#   run, then back). Works with any rxe; IPv4 only.
# --no-capture: run the scenario and write the truth only (to check the
#   RDMA plumbing where rocestat cannot capture).
# --topology auto (default): netns if the loaded rdma_rxe has per-namespace
#   sockets (rxe_ns_* in /proc/kallsyms), else rules.
#
# Needs root, iproute2 (ip, rdma), rocegen and rocestat: taken from PATH,
# else from this tree (samples/rocegen/rocegen, ./rocestat).
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")

SCENARIO="" NAME="" OUT=$HERE FAMILY=-4 GEN_ARGS="" TOPOLOGY=auto CAPTURE=1
while [ $# -gt 0 ]; do
    case "$1" in
        --name) NAME=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --topology) TOPOLOGY=$2; shift 2 ;;
        --no-capture) CAPTURE=0; shift ;;
        -4|--ipv4) FAMILY=-4; shift ;;
        -6|--ipv6) FAMILY=-6; shift ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        --) shift; GEN_ARGS="$*"; break ;;
        -*) echo "rxe-host: unknown option $1" >&2; exit 2 ;;
        *) SCENARIO=$1; shift ;;
    esac
done
[ -n "$SCENARIO" ] || { echo "usage: rxe-host.sh SCENARIO [-6] [--name NAME] [--out DIR] [-- rocegen options]" >&2; exit 2; }
[ -n "$NAME" ] || NAME=rxe_$(echo "$SCENARIO" | tr - _)
mkdir -p "$OUT"

say() { echo "[rxe-host] $*" >&2; }
die() { echo "rxe-host: error: $*" >&2; exit 1; }

find_tool() {
    if command -v "$1" >/dev/null 2>&1; then command -v "$1"
    elif [ -x "$2" ]; then echo "$2"
    else die "$1 not found (PATH or $2)"; fi
}
ROCEGEN=$(find_tool rocegen "$ROOT/samples/rocegen/rocegen")
ROCESTAT=""
[ "$CAPTURE" = 0 ] || ROCESTAT=$(find_tool rocestat "$ROOT/rocestat")
# iproute2's ip, not a busybox applet of the same name (no netns there).
IP=""
for c in /usr/bin/ip /sbin/ip /usr/sbin/ip /bin/ip; do
    [ -x "$c" ] && ! [ -L "$c" ] && { IP=$c; break; }
done
[ -n "$IP" ] || IP=$(command -v ip) || die "iproute2 ip is missing"
command -v rdma >/dev/null 2>&1 || die "the rdma tool (iproute2) is missing"
[ "$(id -u)" = 0 ] || die "needs root (namespaces, rdma link add)"
if [ ! -d /sys/module/rdma_rxe ]; then
    modprobe rdma_rxe 2>/dev/null || die "this kernel has no rdma_rxe module (use rxe-vm.sh)"
fi

case "$TOPOLOGY" in
    auto) if grep -q ' rxe_ns_pernet_sk4' /proc/kallsyms 2>/dev/null; then TOPOLOGY=netns
          else TOPOLOGY=rules; fi ;;
    netns|rules) ;;
    *) die "--topology is auto, netns or rules" ;;
esac
# Tried on Linux 6.1: over IPv6 the server's rdma_cm rejects the REQ
# (reason 28) under the moved local rule; IPv4 works.
[ "$TOPOLOGY" = netns ] || [ "$FAMILY" = -4 ] ||
    die "the rules topology carries IPv4 only (use rxe-vm.sh -6, or a namespace-aware rxe)"

# Names carry the PID so that parallel runs do not collide.
TAG=$$
NS_S=rgs$TAG NS_C=rgc$TAG
IF_S=rgs$TAG IF_C=rgc$TAG
RXE_S=rxes$TAG RXE_C=rxec$TAG
WORK=$(mktemp -d /tmp/rxe-host.XXXXXX)
CAP_PID="" SRV_PID="" RULES_MOVED=""
T_S=$((20000 + TAG % 10000)) T_C=$((30000 + TAG % 10000))

cleanup() {
    rc=$?
    trap - EXIT INT TERM
    [ -n "$CAP_PID" ] && kill -TERM "$CAP_PID" 2>/dev/null && wait "$CAP_PID" 2>/dev/null
    [ -n "$SRV_PID" ] && kill "$SRV_PID" 2>/dev/null && wait "$SRV_PID" 2>/dev/null
    rdma link del "$RXE_S" 2>/dev/null || true
    rdma link del "$RXE_C" 2>/dev/null || true
    if [ "$TOPOLOGY" = netns ]; then
        "$IP" netns del "$NS_S" 2>/dev/null || true
        "$IP" netns del "$NS_C" 2>/dev/null || true
    fi
    "$IP" link del "$IF_S" 2>/dev/null || true
    if [ -n "$RULES_MOVED" ]; then
        for fam in -4 -6; do
            [ $fam = -4 ] && a=192.0.2.1 b=192.0.2.2 || a=2001:db8::1 b=2001:db8::2
            "$IP" $fam rule del pref 100 to "$a" iif lo lookup $T_S 2>/dev/null || true
            "$IP" $fam rule del pref 100 to "$b" iif lo lookup $T_C 2>/dev/null || true
            "$IP" $fam rule add pref 0 lookup local 2>/dev/null || true
            "$IP" $fam rule del pref 1000 lookup local 2>/dev/null || true
            "$IP" $fam route flush table $T_S 2>/dev/null || true
            "$IP" $fam route flush table $T_C 2>/dev/null || true
        done
    fi
    rm -rf "$WORK"
    [ $rc -eq 0 ] || say "failed (status $rc); everything created was removed"
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Command prefixes, not functions: a backgrounded function is a subshell
# whose PID is not the program's, and signalling it would orphan the program
# (`ip netns exec` execs, so its PID is the program's).
if [ "$TOPOLOGY" = netns ]; then
    IN_S="$IP netns exec $NS_S"
    IN_C="$IP netns exec $NS_C"
else
    IN_S="" IN_C=""
fi

say "topology $TOPOLOGY: veth $IF_S (server) <-> $IF_C (client)"
"$IP" link add "$IF_S" type veth peer name "$IF_C"
if [ "$TOPOLOGY" = netns ]; then
    "$IP" netns add "$NS_S"
    "$IP" netns add "$NS_C"
    "$IP" link set "$IF_S" netns "$NS_S"
    "$IP" link set "$IF_C" netns "$NS_C"
fi
setup_end() { # run-prefix ifname ip4 ip6
    $1 "$IP" link set lo up
    $1 sysctl -qw "net.ipv6.conf.$2.router_solicitations=0" 2>/dev/null || true
    $1 "$IP" addr add "$3/24" dev "$2"
    $1 "$IP" -6 addr add "$4/64" dev "$2" nodad
    $1 "$IP" link set "$2" up
}
setup_end "$IN_S" "$IF_S" 192.0.2.1 2001:db8::1
setup_end "$IN_C" "$IF_C" 192.0.2.2 2001:db8::2
if [ "$TOPOLOGY" = rules ]; then
    # The two addresses are both local here: without this, traffic between
    # them would take the loopback path and never touch the veth.
    for i in all "$IF_S" "$IF_C"; do
        sysctl -qw "net.ipv4.conf.$i.accept_local=1" "net.ipv4.conf.$i.rp_filter=0"
    done
    RULES_MOVED=1
    for fam in -4 -6; do
        "$IP" $fam rule add pref 1000 lookup local
        "$IP" $fam rule del pref 0 lookup local
    done
    "$IP" route add 192.0.2.1 dev "$IF_C" src 192.0.2.2 table $T_S
    "$IP" route add 192.0.2.2 dev "$IF_S" src 192.0.2.1 table $T_C
    "$IP" -6 route add 2001:db8::1 dev "$IF_C" src 2001:db8::2 table $T_S
    "$IP" -6 route add 2001:db8::2 dev "$IF_S" src 2001:db8::1 table $T_C
    for fam in -4 -6; do
        [ $fam = -4 ] && a=192.0.2.1 b=192.0.2.2 || a=2001:db8::1 b=2001:db8::2
        "$IP" $fam rule add pref 100 to "$a" iif lo lookup $T_S
        "$IP" $fam rule add pref 100 to "$b" iif lo lookup $T_C
    done
fi
# rdma link add resolves the netdev in the caller's namespace.
$IN_S rdma link add "$RXE_S" type rxe netdev "$IF_S" || die "rdma link add $RXE_S failed"
$IN_C rdma link add "$RXE_C" type rxe netdev "$IF_C" || die "rdma link add $RXE_C failed"
sleep 1

if [ "$FAMILY" = -6 ]; then S_ADDR=2001:db8::1; else S_ADDR=192.0.2.1; fi

if [ "$CAPTURE" = 1 ]; then
    $IN_S "$ROCESTAT" -i "$IF_S" -w "$WORK/capture.pcap" >"$WORK/rocestat.out" 2>"$WORK/rocestat.err" &
    CAP_PID=$!
    sleep 1
    kill -0 "$CAP_PID" 2>/dev/null || die "rocestat capture failed: $(cat "$WORK/rocestat.err")"
fi

say "server: rocegen --server $S_ADDR $FAMILY $GEN_ARGS $SCENARIO"
# shellcheck disable=SC2086
$IN_S "$ROCEGEN" --server "$S_ADDR" $FAMILY $GEN_ARGS --truth "$WORK/server.json" \
    --ready-file "$WORK/ready" "$SCENARIO" &
SRV_PID=$!
i=0
while [ ! -e "$WORK/ready" ]; do
    kill -0 "$SRV_PID" 2>/dev/null || die "the server exited before listening"
    i=$((i + 1)); [ $i -lt 200 ] || die "the server did not start listening"
    sleep 0.1
done
say "client: rocegen --client $S_ADDR $FAMILY $GEN_ARGS $SCENARIO"
C_STATUS=0
# shellcheck disable=SC2086
$IN_C "$ROCEGEN" --client "$S_ADDR" $FAMILY $GEN_ARGS --truth "$WORK/client.json" "$SCENARIO" ||
    C_STATUS=$?
S_STATUS=0
wait "$SRV_PID" || S_STATUS=$?
SRV_PID=""
CAP_STATUS=0
if [ "$CAPTURE" = 1 ]; then
    sleep 0.5
    kill -TERM "$CAP_PID"
    wait "$CAP_PID" || CAP_STATUS=$?
    CAP_PID=""
fi
[ "$C_STATUS" = 0 ] && [ "$S_STATUS" = 0 ] ||
    die "rocegen failed: server status $S_STATUS, client status $C_STATUS"
# rocestat exits 1 when its analysis found anomalies (a REJ, NAKs): still
# a complete capture. 2 and up is a failure.
[ "$CAP_STATUS" -le 1 ] || die "rocestat exited with $CAP_STATUS: $(cat "$WORK/rocestat.err")"

if [ "$CAPTURE" = 1 ]; then
    cp "$WORK/capture.pcap" "$OUT/$NAME.pcap"
    say "wrote $OUT/$NAME.pcap"
fi
if command -v python3 >/dev/null 2>&1; then
    python3 "$HERE/lib/truth-merge.py" --name "$NAME" --kernel "$(uname -r)" --capture rocestat \
        "$WORK/server.json" "$WORK/client.json" > "$OUT/$NAME.truth.json"
    say "wrote $OUT/$NAME.truth.json"
else
    cp "$WORK/server.json" "$OUT/$NAME.server.json"
    cp "$WORK/client.json" "$OUT/$NAME.client.json"
    say "wrote $OUT/$NAME.server.json and $NAME.client.json (no python3 to merge them)"
fi

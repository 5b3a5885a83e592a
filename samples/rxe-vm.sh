#!/usr/bin/env bash
# rxe-vm.sh SCENARIO [options] [-- rocegen options]
#
# Runs one rocegen scenario between two QEMU (TCG) guests whose Debian kernel
# has rdma_rxe, records the wire inside the server guest, and brings back
# NAME.pcap, NAME.truth.json and NAME.log. For hosts without rdma_rxe; see
# samples/README.md. Needs root the first time (apt-get) and ~20 s a run.
#
# Options:
#   --name NAME      output base name (default rxe_SCENARIO, with _ for -)
#   --out DIR        where the three files go (default: samples/)
#   -6               IPv6 addresses (2001:db8::1 / ::2) instead of IPv4
#   --capture HOW    rocestat (default): `rocestat -i eth0 -w` in the server
#                    guest; qemu: QEMU's filter-dump on the server's netdev
#   --keep           keep the work directory (consoles, job scripts)
#   --netem-server "NETEM", --netem-client "NETEM"
#                    `tc qdisc add dev eth0 root netem NETEM` in that guest
#                    right before the scenario: it impairs what that guest
#                    SENDS (e.g. "delay 5ms reorder 25%", "loss 3%",
#                    "duplicate 5%", "corrupt 2%"); see samples/README.md for
#                    what the capture then shows
#   --note TEXT      a remark on the sample's ground truth, kept in
#                    NAME.truth.json's notes (side "sample"); repeatable
#   --replay rerun|loop
#                    two runs in one capture (mergecap -a): rerun = the
#                    scenario run twice (fresh guests each time), loop = one
#                    run's capture twice, the copy shifted in time (as a
#                    looping tcpreplay); NAME.truth.json is then a JSON list
#                    of the runs' truths, in capture order
#   --host           instead: boot ONE guest that runs samples/rxe-host.sh
#                    (veth + two rxe devices inside it); validates rxe-host.sh.
#                    With --capture qemu it runs rxe-host.sh --no-capture;
#                    ROCEGEN_TOPOLOGY=netns|rules picks its topology.
# Anything after -- goes to rocegen on both sides (e.g. --size 3000 --count 2).
# SCENARIOs nvme, iser and nfs are not rocegen's but the kernel's storage
# protocols (lib/job-SCENARIO-*.sh): nvme exports a null_blk namespace with
# nvmet-rdma (port 4420; the client runs nvme discover/connect, dd direct
# I/O, nvme disconnect; needs nvme-cli); iser a LIO ramdisk LUN through
# ib_isert (3260; open-iscsi logs in over iser, dd, sg_raw, logout; needs
# open-iscsi and sg3-utils); nfs an nfsd export on RPC-over-RDMA (20049;
# mount -o rdma NFSv3 then NFSv4.1, dd, touch, mkdir, rm, ls; needs
# nfs-kernel-server, nfs-common, rpcbind). NAME.truth.txt then holds each
# step, the tools' output and the kernel's own counts.
# Environment: ROCEGEN_KERNEL_PKG, ROCEGEN_CACHE, ROCEGEN_VM_TIMEOUT (s),
# ROCEGEN_ROCESTAT (use this rocestat binary instead of building ./rocestat).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=samples/lib/vm.sh
. "$HERE/lib/vm.sh"

usage() { sed -n '2,45p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-2}"; }

SCENARIO="" NAME="" OUT=$SAMPLES_DIR IPV6=0 CAPTURE=${ROCEGEN_CAPTURE:-rocestat} KEEP=0 HOSTMODE=0
NETEM_SERVER="" NETEM_CLIENT="" REPLAY="" NOTES=()
ALL_ARGS=("$@")
GEN_ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --netem-server) NETEM_SERVER=$2; shift 2 ;;
        --netem-client) NETEM_CLIENT=$2; shift 2 ;;
        --replay) REPLAY=$2; shift 2 ;;
        --note) NOTES+=(--note "$2"); shift 2 ;;
        --name) NAME=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        -6|--ipv6) IPV6=1; shift ;;
        --capture) CAPTURE=$2; shift 2 ;;
        --keep) KEEP=1; shift ;;
        --host) HOSTMODE=1; shift ;;
        -h|--help) usage 0 ;;
        --) shift; GEN_ARGS=("$@"); break ;;
        -*) echo "rxe-vm: unknown option $1" >&2; usage ;;
        *) [ -z "$SCENARIO" ] || usage; SCENARIO=$1; shift ;;
    esac
done
[ -n "$SCENARIO" ] || usage
[ -n "$NAME" ] || NAME=rxe_${SCENARIO//-/_}
case "$CAPTURE" in rocestat|qemu) ;; *) vm_die "--capture is rocestat or qemu" ;; esac
case "$REPLAY" in ''|rerun|loop) ;; *) vm_die "--replay is rerun or loop" ;; esac
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# --replay: this script again for each run (without --replay, into a
# scratch directory), then one capture, one truth list, one log.
if [ -n "$REPLAY" ]; then
    command -v mergecap >/dev/null && command -v editcap >/dev/null ||
        vm_die "--replay needs mergecap and editcap (wireshark-common)"
    RWORK=$(mktemp -d /tmp/rxe-replay.XXXXXX)
    sub=() skip=0
    for a in "${ALL_ARGS[@]}"; do
        if [ "$skip" = 1 ]; then skip=0; continue; fi
        case "$a" in --replay|--name|--out) skip=1; continue ;; esac
        sub+=("$a")
    done
    runs=(run1)
    [ "$REPLAY" = rerun ] && runs+=(run2)
    for r in "${runs[@]}"; do
        vm_log "$NAME: replay $REPLAY, $r"
        "$0" --name "$NAME.$r" --out "$RWORK" "${sub[@]}" ||
            vm_die "$NAME: $r failed (work files in $RWORK)"
    done
    if [ "$REPLAY" = loop ]; then
        # The copy starts one second after the original's last frame.
        span=$(python3 "$VM_LIB_DIR/truth-merge.py" --pcap-span "$RWORK/$NAME.run1.pcap")
        editcap -t "$span" "$RWORK/$NAME.run1.pcap" "$RWORK/$NAME.run2.pcap"
        cp "$RWORK/$NAME.run1.truth.json" "$RWORK/$NAME.run2.truth.json"
    fi
    mergecap -a -F pcap -w "$OUT/$NAME.pcap" "$RWORK/$NAME.run1.pcap" "$RWORK/$NAME.run2.pcap"
    python3 "$VM_LIB_DIR/truth-merge.py" --replay "$REPLAY" --name "$NAME" \
        "$RWORK/$NAME.run1.truth.json" "$RWORK/$NAME.run2.truth.json" > "$OUT/$NAME.truth.json"
    {
        echo "# sample: $NAME, two runs in one capture (rxe-vm.sh --replay $REPLAY):"
        if [ "$REPLAY" = loop ]; then
            echo "# run1 as recorded, then the same capture again shifted by ${span}s (editcap -t), joined by mergecap -a"
        else
            echo "# two separate runs (fresh guests each), joined by mergecap -a"
        fi
        for r in run1 run2; do
            [ -f "$RWORK/$NAME.$r.log" ] || continue
            echo; echo "######################## $r ########################"
            cat "$RWORK/$NAME.$r.log"
        done
    } > "$OUT/$NAME.log"
    rm -rf "$RWORK"
    vm_log "$NAME: replay done: $OUT/$NAME.{pcap,truth.json,log}"
    exit 0
fi

T_START=$(date +%s%N)
vm_need_packages
command -v qemu-system-x86_64 >/dev/null || vm_die "qemu-system-x86_64 is not installed"

# Build what goes into the guests from this tree.
make -s -C "$PROJECT_DIR" samples/rocegen/rocegen >&2 || vm_die "cannot build rocegen"
ROCEGEN_BIN=$PROJECT_DIR/samples/rocegen/rocegen
# ULP scenarios run the kernel's own storage protocol over rxe instead of
# rocegen: lib/job-SCENARIO-{server,client}.sh, with the modules and the
# host's tools (and their libraries) copied into the initramfs.
ULP=0
ulp_tool() {   # ulp_tool SCENARIO PACKAGE PROGRAM...: the host's programs into the guests
    local sc=$1 pkg=$2 prog path
    shift 2
    for prog in "$@"; do
        path=$(PATH=$PATH:/usr/sbin:/sbin command -v "$prog") ||
            vm_die "$sc needs the host's $prog (apt-get install $pkg)"
        ROCEGEN_VM_EXTRA="${ROCEGEN_VM_EXTRA:-} $path"
    done
}
case "$SCENARIO" in
    nvme|iser|nfs)
        ULP=1
        [ "$CAPTURE" = rocestat ] && [ "$HOSTMODE" = 0 ] && [ -z "$REPLAY" ] && [ "$IPV6" = 0 ] ||
            vm_die "$SCENARIO: IPv4, two guests, rocestat capture only"
        # A login or a mount under TCG, and rxe's retries under netem, take long.
        [ -n "${ROCEGEN_VM_TIMEOUT:-}" ] || VM_TIMEOUT=480 ;;
    *)
        "$ROCEGEN_BIN" --list | grep -qx -- "$SCENARIO" || vm_die "unknown scenario $SCENARIO" ;;
esac
case "$SCENARIO" in
    nvme)
        ulp_tool nvme nvme-cli nvme
        VM_MODULES="$VM_MODULES configfs nvmet nvmet-rdma nvme-rdma null_blk" ;;
    iser)
        # rd_mcp (the ramdisk backstore) is part of target_core_mod. The
        # target's login asks the crypto API for "crc32c" (digests) at run
        # time, which modules.dep cannot know: without it every login fails.
        ulp_tool iser open-iscsi iscsiadm iscsid
        ulp_tool iser sg3-utils sg_raw
        VM_MODULES="$VM_MODULES configfs target_core_mod iscsi_target_mod ib_isert ib_iser sd_mod crc32c_generic" ;;
    nfs)
        # rpcrdma holds both the client (xprtrdma) and server (svcrdma) transports.
        ulp_tool nfs nfs-kernel-server rpc.mountd exportfs
        ulp_tool nfs rpcbind rpcbind rpcinfo
        ulp_tool nfs nfs-common mount.nfs
        # libtirpc reads its transports from /etc/netconfig, and rpcbind
        # finds its own port by the name "sunrpc" (/etc/services): without
        # it rpcbind listens on its local socket only, and the v3 MOUNT call
        # is refused.
        for f in /etc/netconfig /etc/services /etc/rpc /etc/protocols; do
            [ -f "$f" ] || vm_die "nfs needs the host's $f (libtirpc-common, netbase)"
            ROCEGEN_VM_EXTRA="$ROCEGEN_VM_EXTRA $f"
        done
        VM_MODULES="$VM_MODULES nfsd nfsv3 nfsv4 rpcrdma" ;;
esac
ROCESTAT_BIN=""
if [ "$CAPTURE" = rocestat ]; then
    if [ -n "${ROCEGEN_ROCESTAT:-}" ]; then
        ROCESTAT_BIN=$ROCEGEN_ROCESTAT     # a rocestat built elsewhere
    else
        make -s -C "$PROJECT_DIR" rocestat >&2 || vm_die "cannot build rocestat"
        ROCESTAT_BIN=$PROJECT_DIR/rocestat
    fi
    # A rocestat that can capture keeps running until signalled.
    probe_rc=0
    timeout -s INT 2 "$ROCESTAT_BIN" -i lo -w /dev/null >/dev/null 2>"$PROJECT_DIR/.rocestat-probe.err" ||
        probe_rc=$?
    probe_err=$(head -c 300 "$PROJECT_DIR/.rocestat-probe.err"); rm -f "$PROJECT_DIR/.rocestat-probe.err"
    case $probe_rc in 0|124|130) ;;
        *) vm_die "rocestat cannot capture here ($probe_err); --capture qemu records with QEMU instead" ;;
    esac
fi
HOST_CAPTURE=""
[ "$CAPTURE" = rocestat ] || HOST_CAPTURE=--no-capture
vm_fetch_kernel
vm_build_initramfs "$ROCEGEN_BIN" "$ROCESTAT_BIN"

WORK=$(mktemp -d /tmp/rxe-vm.XXXXXX)
cleanup() {
    local rc=$?
    vm_kill_all
    if [ "$KEEP" = 1 ] || [ $rc -ne 0 ]; then
        echo "rxe-vm: work directory kept: $WORK" >&2
    else
        rm -rf "$WORK"
    fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$WORK/server" "$WORK/client"

if [ "$IPV6" = 1 ]; then
    S_ADDR=$SERVER_IP6 FAMILY=-6
else
    S_ADDR=$SERVER_IP4 FAMILY=-4
fi
GUEST_TIMEOUT=$((VM_TIMEOUT - 30))

# One job script per guest; guest-init.sh sources it from the 9p share.
write_job() {
    local role=$1 ip4=$2 ip6=$3 file=$WORK/$1/job.sh
    cp "$VM_LIB_DIR/guest-lib.sh" "$WORK/$role/"
    {
        echo "ROLE=$role"
        echo ". /host/guest-lib.sh"
        echo "CAPTURE=$CAPTURE"
        echo "FAMILY=$FAMILY"
        if [ "$role" = server ]; then printf 'NETEM=%q\n' "$NETEM_SERVER"; else printf 'NETEM=%q\n' "$NETEM_CLIENT"; fi
        printf 'GEN_ARGS=%q\n' "$FAMILY ${GEN_ARGS[*]:-} --timeout $GUEST_TIMEOUT $SCENARIO"
        echo "S_ADDR=$S_ADDR"
        echo "say \"scenario=$SCENARIO role=$role kernel=\$(uname -r)\""
        echo "ctl_init"
        echo "net_up $ip4 $ip6"
        echo "rxe_up || { say 'rdma link add failed'; finish 98; }"
        echo "say 'network and rxe0 ready'"
        echo "show_device"
        echo "say 'waiting for the other guest'"
        if [ "$ULP" = 1 ]; then cat "$VM_LIB_DIR/job-$SCENARIO-$role.sh"; else cat "$VM_LIB_DIR/job-$role.sh"; fi
    } > "$file"
}
if [ "$HOSTMODE" = 1 ]; then
    cp "$VM_LIB_DIR/guest-lib.sh" "$SAMPLES_DIR/rxe-host.sh" "$WORK/server/"
    mkdir -p "$WORK/server/out"
    cat > "$WORK/server/job.sh" <<EOF
ROLE=host
. /host/guest-lib.sh
say "scenario=$SCENARIO: samples/rxe-host.sh inside one guest, kernel=\$(uname -r)"
/usr/bin/ip link set lo up
sh /host/rxe-host.sh $SCENARIO $FAMILY $HOST_CAPTURE ${ROCEGEN_TOPOLOGY:+--topology $ROCEGEN_TOPOLOGY} --name $NAME --out /tmp/out -- ${GEN_ARGS[*]:-} --timeout $GUEST_TIMEOUT
STATUS=\$?
say "rxe-host.sh exit status \$STATUS"
cp /tmp/out/* /host/out/ 2>/dev/null
say "left behind: netns [\$(/usr/bin/ip netns list | tr '\n' ' ')] rdma [\$(rdma link show | tr '\n' ' ')] rules [\$(/usr/bin/ip rule | tr '\n\t' '; ')]"
finish \$STATUS
EOF
else
    write_job server "$SERVER_IP4" "$SERVER_IP6"
    write_job client "$CLIENT_IP4" "$CLIENT_IP6"
fi

NETPORT=$(vm_free_port)
CTLPORT=$(vm_free_port)
[ "$NETPORT" != "$CTLPORT" ] || CTLPORT=$(vm_free_port)
SERVER_EXTRA=()
if [ "$CAPTURE" = qemu ]; then
    SERVER_EXTRA=(-object "filter-dump,id=cap,netdev=n0,file=$WORK/server/capture.pcap")
fi

vm_log "$NAME: booting the server guest ($KVER, TCG)"
T_BOOT=$(date +%s%N)
vm_start server "$WORK/server" "$NETPORT" "$CTLPORT" "${SERVER_EXTRA[@]}"
SERVER_PID=$VM_LAST_PID
vm_wait_listen "$NETPORT" "$SERVER_PID" && vm_wait_listen "$CTLPORT" "$SERVER_PID" ||
    vm_die "the server QEMU did not start: $(cat "$WORK/server/qemu.out")"
if [ "$HOSTMODE" = 0 ]; then
    vm_log "$NAME: booting the client guest"
    vm_start client "$WORK/client" "$NETPORT" "$CTLPORT"
    CLIENT_PID=$VM_LAST_PID
fi

# Both guests power off when done; the host timeout is the last resort.
# Sets GUEST_RC (QEMU's exit status, 137 if it had to be killed).
wait_guest() {
    local pid=$1 deadline=$2
    GUEST_RC=0
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$(date +%s)" -ge "$deadline" ]; then
            kill -9 "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null || true
            GUEST_RC=137
            return
        fi
        sleep 0.2
    done
    wait "$pid" 2>/dev/null || GUEST_RC=$?
}
DEADLINE=$(( $(date +%s) + VM_TIMEOUT ))
CLIENT_QEMU=-
[ "$HOSTMODE" = 1 ] || { wait_guest "$CLIENT_PID" "$DEADLINE"; CLIENT_QEMU=$GUEST_RC; }
wait_guest "$SERVER_PID" "$DEADLINE"; SERVER_QEMU=$GUEST_RC
VM_PIDS=()
T_END=$(date +%s%N)

if [ "$HOSTMODE" = 1 ]; then
    cat "$WORK/server/console.log" >&2
    st=$(grep -a -o 'RESULT role=host status=[0-9]*' "$WORK/server/console.log" | sed 's/.*=//')
    [ "$st" = 0 ] || vm_die "rxe-host.sh in the guest failed (status ${st:-none})"
    python3 "$VM_LIB_DIR/truth-merge.py" --name "$NAME" --kernel "$KVER" --capture rocestat \
        "$WORK/server/out/$NAME.server.json" "$WORK/server/out/$NAME.client.json" \
        > "$OUT/$NAME.truth.json"
    [ -n "$HOST_CAPTURE" ] || cp "$WORK/server/out/$NAME.pcap" "$OUT/$NAME.pcap"
    vm_log "rxe-host.sh worked inside the guest: $OUT/$NAME.* written"
    exit 0
fi

result_of() { grep -a -o 'RESULT role=[a-z]* status=[0-9]*' "$WORK/$1/console.log" | tail -n1 | sed 's/.*status=//'; }
S_STATUS=$(result_of server || true)
C_STATUS=$(result_of client || true)
WALL=$(( (T_END - T_START + 500000000) / 1000000000 ))
BOOT=$(awk -v ns=$((T_END - T_BOOT)) 'BEGIN { printf "%.1f", ns / 1e9 }')

# The log: how it was made, then both consoles.
{
    echo "# sample: $NAME"
    echo "# scenario: $SCENARIO; rocegen options: $FAMILY ${GEN_ARGS[*]:-}"
    echo "# generated by samples/rxe-vm.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), wall time ${WALL}s (guests ${BOOT}s)"
    echo "# guest kernel: Debian $(basename "$KDIR") (rdma_rxe), $(qemu-system-x86_64 --version | head -n1 | sed 's/ (.*//'), accel=tcg"
    echo "# rocegen and rocestat built from commit $(git -C "$PROJECT_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$PROJECT_DIR" diff --quiet HEAD -- samples/rocegen cli capture dissect analyzer 2>/dev/null || echo ' (with local changes)')${ROCEGEN_ROCESTAT:+; rocestat: $ROCEGEN_ROCESTAT}"
    echo "# server $SERVER_IP4 / $SERVER_IP6 (MAC $SERVER_MAC), client $CLIENT_IP4 / $CLIENT_IP6 (MAC $CLIENT_MAC)"
    if [ "$CAPTURE" = rocestat ]; then
        echo "# capture: rocestat -i eth0 -w inside the server guest"
    else
        echo "# capture: QEMU filter-dump on the server's netdev (both directions)"
    fi
    echo "# netem (egress of eth0, applied right before the scenario): server=${NETEM_SERVER:-none} client=${NETEM_CLIENT:-none}"
    echo "# QEMU exit status: server=$SERVER_QEMU client=$CLIENT_QEMU (137 = killed by the host timeout)"
    echo "# guest results: server=${S_STATUS:-none} client=${C_STATUS:-none}"
    for role in server client; do
        echo
        echo "===================== $role guest console ====================="
        tr -d '\r' < "$WORK/$role/console.log"
    done
} > "$WORK/run.log"

if [ "$ULP" = 1 ]; then
    fail=""
    [ "$S_STATUS" = 0 ] && [ "$C_STATUS" = 0 ] || fail="guest status server=${S_STATUS:-missing} client=${C_STATUS:-missing}"
    [ -s "$WORK/server/capture.pcap" ] && [ -s "$WORK/client/truth.txt" ] || fail="${fail:+$fail; }no capture or no truth"
    [ -z "$fail" ] || { tail -n 80 "$WORK/run.log" >&2; vm_die "$NAME: $fail (log: $WORK/run.log)"; }
    cp "$WORK/server/capture.pcap" "$OUT/$NAME.pcap"
    # The client's steps, then what the server counted (if its job writes that).
    {
        echo "# $NAME: samples/rxe-vm.sh $SCENARIO; netem server=${NETEM_SERVER:-none} client=${NETEM_CLIENT:-none}"
        cat "$WORK/client/truth.txt"
        [ -s "$WORK/server/truth-server.txt" ] && cat "$WORK/server/truth-server.txt"
    } > "$OUT/$NAME.truth.txt"
    cp "$WORK/run.log" "$OUT/$NAME.log"
    vm_log "$NAME: done in ${WALL}s: $OUT/$NAME.{pcap,truth.txt,log}"
    exit 0
fi

fail=""
[ "$S_STATUS" = 0 ] || fail="server guest status ${S_STATUS:-missing}"
[ "$C_STATUS" = 0 ] || fail="${fail:+$fail; }client guest status ${C_STATUS:-missing}"
[ -s "$WORK/server/capture.pcap" ] || fail="${fail:+$fail; }no capture"
[ -s "$WORK/server/truth.json" ] && [ -s "$WORK/client/truth.json" ] ||
    fail="${fail:+$fail; }no ground truth from both sides"
if [ -n "$fail" ]; then
    tail -n 60 "$WORK/run.log" >&2
    vm_die "$NAME: $fail (log: $WORK/run.log)"
fi

python3 "$VM_LIB_DIR/truth-merge.py" --name "$NAME" --kernel "$KVER" --capture "$CAPTURE" \
    --netem-server "$NETEM_SERVER" --netem-client "$NETEM_CLIENT" \
    --counters-server "$WORK/server" --counters-client "$WORK/client" \
    ${NOTES[@]+"${NOTES[@]}"} \
    "$WORK/server/truth.json" "$WORK/client/truth.json" > "$WORK/merged.json" ||
    vm_die "$NAME: cannot merge the ground truth"
cp "$WORK/server/capture.pcap" "$OUT/$NAME.pcap"
cp "$WORK/merged.json" "$OUT/$NAME.truth.json"
cp "$WORK/run.log" "$OUT/$NAME.log"
vm_log "$NAME: done in ${WALL}s: $OUT/$NAME.{pcap,truth.json,log}"

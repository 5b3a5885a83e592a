# shellcheck shell=sh
# Guest-side helpers, sourced by the job.sh the host writes for each guest.
# ip is spelled /usr/bin/ip: busybox sh runs its own applet first whatever PATH says.
# Runs under busybox sh inside the initramfs built by vm.sh.

# net_up ADDR4 ADDR6: eth0 with both addresses; no DAD so IPv6 is usable at once.
# No router solicitations either: nothing on this wire routes, and the
# capture is cleaner without them.
# An IPv4 run (FAMILY=-4) turns IPv6 off on eth0 altogether: multicast
# listener reports and neighbour discovery would only add noise to the capture.
net_up() {
    sysctl -qw net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.eth0.router_solicitations=0
    [ "${FAMILY:-}" = -4 ] && sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
    /usr/bin/ip link set lo up
    /usr/bin/ip link set eth0 up
    /usr/bin/ip addr add "$1/24" dev eth0
    [ "${FAMILY:-}" = -4 ] || /usr/bin/ip -6 addr add "$2/64" dev eth0 nodad
    # Let the link-local address settle before rxe copies the GID table.
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        /usr/bin/ip -6 addr show dev eth0 | grep -q tentative || break
        sleep 0.2
    done
}

rxe_up() {
    rdma link add rxe0 type rxe netdev eth0 || return 1
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        rdma link show rxe0/1 2>/dev/null | grep -q ACTIVE && return 0
        sleep 0.2
    done
    return 1
}

show_device() {
    /usr/bin/ip -br addr show dev eth0
    /usr/bin/ip -br link show dev eth0
    rdma link show
    command -v ibv_devinfo >/dev/null && ibv_devinfo -d rxe0 | grep -E 'hca_id|transport|node_guid|state|mtu|link_layer'
    echo "GID table (non-zero entries):"
    # One grep over the whole table: a process per entry costs seconds on TCG.
    port=/sys/class/infiniband/rxe0/ports/1
    grep -v '^0000:0000:0000:0000:0000:0000:0000:0000$' "$port"/gids/* 2>/dev/null |
    while IFS=: read -r f v; do
        i=${f##*/}
        echo "  gid[$i] $v $(cat "$port/gid_attrs/types/$i" 2>/dev/null)"
    done
}

# counters [WHEN]: the console copy, and with WHEN (before/after) the raw
# `rdma statistic` and `tc -s qdisc` output on the share for truth-merge.py.
counters() {
    /usr/bin/ip -s link show dev eth0
    echo "rdma statistic show link rxe0/1:"
    rdma statistic show link rxe0/1 > /tmp/rdma-stat.txt
    tr ' ' '\n' < /tmp/rdma-stat.txt | awk 'NF' | paste - - | grep -v '^link' | sed 's/^/  /'
    echo "tc -s qdisc show dev eth0:"
    /usr/sbin/tc -s qdisc show dev eth0 > /tmp/qdisc.txt 2>&1
    sed 's/^/  /' /tmp/qdisc.txt
    if [ -n "${1:-}" ]; then
        cp /tmp/rdma-stat.txt "/host/counters.$1.txt"
        cp /tmp/qdisc.txt "/host/qdisc.$1.txt"
    fi
}

# netem_up: the impairment this guest applies to what it sends (NETEM,
# from rxe-vm.sh --netem-server/--netem-client), put in place right before
# the scenario so that the set-up traffic before it is unaffected.
netem_up() {
    [ -n "${NETEM:-}" ] || return 0
    # shellcheck disable=SC2086
    /usr/sbin/tc qdisc replace dev eth0 root netem $NETEM || return 1
    say "netem on eth0 egress: $(/usr/sbin/tc qdisc show dev eth0)"
}

# The control line is ttyS1, wired to the other guest's ttyS1 through the
# host. A background cat copies everything that arrives into /tmp/ctl.in:
# a `read -t` that times out in the middle of a line would lose it.
# Each word (HELLO, READY, DONE) is said once per run, so "has it arrived"
# is all a wait needs to ask.
ctl_init() {
    stty -F /dev/ttyS1 raw -echo 115200
    exec 3<>/dev/ttyS1
    : > /tmp/ctl.in
    cat <&3 >> /tmp/ctl.in &
}
ctl_send() { echo "$1" >&3; }
# ctl_wait WORD [SECONDS] [RESEND]: wait for WORD; while waiting, send
# RESEND once a second (the peer may not be listening yet).
ctl_wait() {
    n=0
    while [ $n -lt $(( ${2:-120} * 5 )) ]; do
        grep -q "$1" /tmp/ctl.in && return 0
        [ -n "$3" ] && [ $((n % 5)) = 0 ] && ctl_send "$3"
        sleep 0.2
        n=$((n + 1))
    done
    return 1
}

finish() {
    say "RESULT role=$ROLE status=$1"
    sync
    umount /host 2>/dev/null
    poweroff -f
}

# shellcheck shell=sh
# Guest-side helpers, sourced by the job.sh the host writes for each guest.
# ip is spelled /usr/bin/ip: busybox sh runs its own applet first whatever PATH says.
# Runs under busybox sh inside the initramfs built by vm.sh.

# net_up ADDR4 ADDR6: eth0 with both addresses; no DAD so IPv6 is usable at once.
net_up() {
    /usr/bin/ip link set lo up
    /usr/bin/ip link set eth0 up
    /usr/bin/ip addr add "$1/24" dev eth0
    /usr/bin/ip -6 addr add "$2/64" dev eth0 nodad
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
    for g in /sys/class/infiniband/rxe0/ports/1/gids/*; do
        v=$(cat "$g" 2>/dev/null) || continue
        [ "$v" = "0000:0000:0000:0000:0000:0000:0000:0000" ] && continue
        i=${g##*/}
        t=$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/"$i" 2>/dev/null)
        echo "  gid[$i] $v $t"
    done
}

counters() {
    /usr/bin/ip -s link show dev eth0
    echo "rdma statistic show link rxe0/1:"
    rdma statistic show link rxe0/1 | tr ' ' '\n' | awk 'NF' | paste - - | grep -v '^link' | sed 's/^/  /'
}

# The control line is ttyS1, wired to the other guest's ttyS1 through the host.
ctl_init() { stty -F /dev/ttyS1 raw -echo 115200; }
ctl_send() { echo "$1" > /dev/ttyS1; }
ctl_wait() {
    # read returns at the newline; anything else on the line is ignored.
    while read -r line < /dev/ttyS1; do
        case "$line" in *"$1"*) return 0 ;; esac
    done
    return 1
}

finish() {
    say "RESULT role=$ROLE status=$1"
    sync
    umount /host 2>/dev/null
    poweroff -f
}

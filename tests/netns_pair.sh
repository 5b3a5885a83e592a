# netns_pair.sh — sourced by tests/live_netns.sh and bench/capture_drops.sh:
# two network namespaces joined by a veth pair, torn down on exit.
#
# Needs root and iproute2. The caller defines die() and may define
# netns_extra_cleanup(); afterwards $NS_TX/$TX send and $NS_RX/$RX receive,
# $TMP is a scratch directory, and replay ARGS... runs tcpreplay on $TX.
# Only these namespaces' own interfaces carry traffic; no address is set.

TX=rstx$$ RX=rsrx$$ NS_TX=rs-tx-$$ NS_RX=rs-rx-$$
TMP=$(mktemp -d "/tmp/${0##*/}.XXXXXX")
chmod 755 "$TMP"
netns_cleanup() {
	[ -n "${RS_PID:-}" ] && kill "$RS_PID" 2>/dev/null
	command -v netns_extra_cleanup >/dev/null && netns_extra_cleanup
	ip netns del "$NS_TX" 2>/dev/null
	ip netns del "$NS_RX" 2>/dev/null
	rm -rf "$TMP"
}
trap netns_cleanup EXIT

ip netns add "$NS_TX" || die "cannot create network namespace $NS_TX"
ip netns add "$NS_RX" || die "cannot create network namespace $NS_RX"
ip link add "$TX" type veth peer name "$RX" || die "cannot create the veth pair $TX/$RX"
ip link set "$TX" netns "$NS_TX" && ip link set "$RX" netns "$NS_RX" || die "cannot move the veth ends"
for pair in "$NS_TX $TX" "$NS_RX $RX"; do
	set -- $pair
	# No IPv6 autoconfiguration chatter: the receiving end must send nothing.
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1" || die "sysctl in $1"
	ip netns exec "$1" ip link set "$2" mtu 9000 up || die "cannot bring $2 up"
	ip netns exec "$1" ip link set lo up
done
set --

replay() { ip netns exec "$NS_TX" tcpreplay -q -i "$TX" "$@" >/dev/null 2>&1; }

/*
 * walk_other.c — one short description of a frame that is not RoCE ("ARP
 * request: who has 192.0.2.1?", "IPv4 TCP 10.0.0.1:22 -> 10.0.0.2:51000"),
 * so the walk's frame numbers stay easy to follow. It reads only the
 * captured bytes and gives up quietly ("EtherType 0x88cc") when unsure.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>

#include "cli/walk_int.h"

static const char *ip4(const struct walk *w, uint32_t off)
{
	char b[INET_ADDRSTRLEN];
	return wcap(w, off, 4) && inet_ntop(AF_INET, w->pkt->data + off, b, sizeof b) ? wfmt("%s", b) : "?";
}

static const char *ip6(const struct walk *w, uint32_t off)
{
	char b[INET6_ADDRSTRLEN];
	return wcap(w, off, 16) && inet_ntop(AF_INET6, w->pkt->data + off, b, sizeof b) ? wfmt("%s", b) : "?";
}

static const char *l4(const struct walk *w, uint8_t proto, uint32_t off, const char *src, const char *dst, bool v6)
{
	const char *name = proto == 6 ? "TCP" : proto == 17 ? "UDP" : proto == 1 ? "ICMP" : proto == 58 ? "ICMPv6"
			 : proto == 2 ? "IGMP" : NULL;
	const char *fam = v6 ? "IPv6" : "IPv4";
	if ((proto == 6 || proto == 17) && wcap(w, off, 4))
		return wfmt("%s %s %s%s%s:%u -> %s%s%s:%u", fam, name, v6 ? "[" : "", src, v6 ? "]" : "",
			    wbe(w, off, 2), v6 ? "[" : "", dst, v6 ? "]" : "", wbe(w, off + 2, 2));
	if (name)
		return wfmt("%s %s %s -> %s", fam, name, src, dst);
	return wfmt("%s protocol %u %s -> %s", fam, proto, src, dst);
}

static const char *network(const struct walk *w, uint16_t type, uint32_t off)
{
	switch (type) {
	case 0x0806:
		if (wcap(w, off, 28) && wbe(w, off + 2, 2) == 0x0800) {
			uint32_t op = wbe(w, off + 6, 2);
			if (op == 1)
				return wfmt("ARP request: who has %s? tell %s", ip4(w, off + 24), ip4(w, off + 14));
			if (op == 2)
				return wfmt("ARP reply: %s is at %s", ip4(w, off + 14), wbytes(w->pkt->data + off + 8, 6, ':'));
		}
		return "ARP";
	case 0x0800:
		if (wcap(w, off, 20)) {
			uint32_t ihl = (w->pkt->data[off] & 0x0F) * 4u;
			bool later_fragment = wbe(w, off + 6, 2) & 0x1FFF;
			if (later_fragment)
				return wfmt("IPv4 fragment %s -> %s", ip4(w, off + 12), ip4(w, off + 16));
			return l4(w, w->pkt->data[off + 9], off + ihl, ip4(w, off + 12), ip4(w, off + 16), false);
		}
		return "IPv4";
	case 0x86DD:
		if (wcap(w, off, 40))
			return l4(w, w->pkt->data[off + 6], off + 40, ip6(w, off + 8), ip6(w, off + 24), true);
		return "IPv6";
	case 0x88CC: return "LLDP";
	case 0x8808: return "Ethernet flow control (PAUSE or PFC)";
	case 0x8809: return "slow protocols (LACP)";
	case 0x88F7: return "PTP";
	default: return wfmt("EtherType 0x%04x", type);
	}
}

void walk_describe_other(const struct walk *w, char *buf, size_t len)
{
	const struct rs_frame *f = w->f;
	uint32_t end = 0;
	bool link = false, raw = false;

	for (unsigned i = 0; i < f->nlayers; i++) {
		const struct rs_layer *l = &f->layers[i];
		if (l->id == RS_L_ETH || l->id == RS_L_VLAN || l->id == RS_L_SLL || l->id == RS_L_SLL2)
			link = true;
		if (l->off + l->len > end)
			end = l->off + l->len;
	}
	if (f->have & RS_HAVE_ERF && !link) {
		raw = f->erf_type == 22 || f->erf_type == 23;
		if (!raw) {
			snprintf(buf, len, "ERF record of type %u", f->erf_type);
			return;
		}
	}
	if (link) {
		uint16_t type = f->ethertype;
		if (!type && (f->have & RS_HAVE_ETH))
			snprintf(buf, len, "IEEE 802.3 frame with an LLC header (e.g. spanning tree)");
		else
			snprintf(buf, len, "%s", network(w, type, end));
		return;
	}
	if (!f->nlayers || raw) { /* raw IP link types */
		uint32_t v = wcap(w, end, 1) ? w->pkt->data[end] >> 4 : 0;
		snprintf(buf, len, "%s", v == 4 ? network(w, 0x0800, end) : v == 6 ? network(w, 0x86DD, end) : "not IP");
		return;
	}
	snprintf(buf, len, "not RoCE");
}

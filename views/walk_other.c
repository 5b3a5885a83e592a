/*
 * walk_other.c — one short description of a frame that is not RoCE ("ARP
 * request: who has 192.0.2.1?", "IPv4 TCP 10.0.0.1:22 -> 10.0.0.2:51000"),
 * so the walk's frame numbers stay easy to follow. The dissector reads the
 * network header (rs_dissect_other); this names it, and gives up quietly
 * ("EtherType 0x88cc") when unsure.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>

#include "views/walk_int.h"

static const char *ip4(const uint8_t *a)
{
	char b[INET_ADDRSTRLEN];
	return inet_ntop(AF_INET, a, b, sizeof b) ? rs_wfmt("%s", b) : "?";
}

static const char *ip6(const uint8_t *a)
{
	char b[INET6_ADDRSTRLEN];
	return inet_ntop(AF_INET6, a, b, sizeof b) ? rs_wfmt("%s", b) : "?";
}

static const char *l4(const struct rs_other *o, const char *src, const char *dst, bool v6)
{
	uint8_t proto = o->proto;
	const char *name = proto == 6 ? "TCP" : proto == 17 ? "UDP" : proto == 1 ? "ICMP" : proto == 58 ? "ICMPv6"
			 : proto == 2 ? "IGMP" : NULL;
	const char *fam = v6 ? "IPv6" : "IPv4";
	if (o->have_ports)
		return rs_wfmt("%s %s %s%s%s:%u -> %s%s%s:%u", fam, name, v6 ? "[" : "", src, v6 ? "]" : "",
			    o->sport, v6 ? "[" : "", dst, v6 ? "]" : "", o->dport);
	if (name)
		return rs_wfmt("%s %s %s -> %s", fam, name, src, dst);
	return rs_wfmt("%s protocol %u %s -> %s", fam, proto, src, dst);
}

/* The network header at `off` (the dissector's reading of it), named. */
static const char *network(const struct walk *w, uint16_t type, uint32_t off)
{
	struct rs_other o;
	rs_dissect_other(w->pkt->data, w->pkt->caplen, type, off, &o);
	switch (type) {
	case 0x0806:
		if (o.whole && o.arp_op == 1)
			return rs_wfmt("ARP request: who has %s? tell %s", ip4(o.dst), ip4(o.src));
		if (o.whole && o.arp_op == 2)
			return rs_wfmt("ARP reply: %s is at %s", ip4(o.src), rs_wbytes(o.arp_sha, 6, ':'));
		return "ARP";
	case 0x0800:
		if (!o.whole)
			return "IPv4";
		if (o.fragment)
			return rs_wfmt("IPv4 fragment %s -> %s", ip4(o.src), ip4(o.dst));
		return l4(&o, ip4(o.src), ip4(o.dst), false);
	case 0x86DD:
		return o.whole ? l4(&o, ip6(o.src), ip6(o.dst), true) : "IPv6";
	case 0x88CC: return "LLDP";
	case 0x8808:
		if (w->f->have & RS_HAVE_PFC)
			return w->f->pfc->opcode == RS_MACC_PFC ? rs_wfmt("PFC from %s, priorities 0x%02x", rs_wbytes(w->f->eth_src, 6, ':'),
								     w->f->pfc->enable)
							       : rs_wfmt("PAUSE from %s", rs_wbytes(w->f->eth_src, 6, ':'));
		return "Ethernet flow control (MAC Control)";
	case 0x8809: return "slow protocols (LACP)";
	case 0x88F7: return "PTP";
	default: return rs_wfmt("EtherType 0x%04x", type);
	}
}

void rs_walk_describe_other(const struct walk *w, char *buf, size_t len)
{
	const struct rs_frame *f = w->f;
	uint32_t end = 0;
	bool link = false, raw = false;

	for (unsigned i = 0; i < f->walk->nlayers; i++) {
		const struct rs_layer *l = &f->walk->layers[i];
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
	if (!f->walk->nlayers || raw) { /* raw IP link types */
		struct rs_other o;
		rs_dissect_other(w->pkt->data, w->pkt->caplen, 0, end, &o);
		snprintf(buf, len, "%s", o.ethertype ? network(w, o.ethertype, end) : "not IP");
		return;
	}
	snprintf(buf, len, "not RoCE");
}

/*
 * walk_link.c — the layers that carry the IBA transport: the capture
 * record (ERF, Linux cooked), Ethernet and VLAN tags, IPv4/IPv6 and UDP for
 * RoCE v2, the GRH for RoCE v1, LRH (+ GRH) for native InfiniBand, and any
 * trailer after the packet.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

#include "views/walk_int.h"

static const char *ethertype_name(uint16_t t)
{
	switch (t) {
	case 0x0800: return "IPv4";
	case 0x86DD: return "IPv6";
	case 0x0806: return "ARP";
	case 0x8100: return "802.1Q VLAN tag";
	case 0x88A8: return "802.1ad service VLAN tag";
	case 0x9100: return "QinQ VLAN tag (pre-standard)";
	case RS_ETHERTYPE_ROCE: return "RoCE v1";
	case RS_ETHERTYPE_MAC_CONTROL: return "MAC Control (PAUSE, PFC)";
	default: return "";
	}
}

static const char *dscp_name(uint8_t d)
{
	if (d == 0)
		return "default (CS0)";
	if (d == 46)
		return "EF";
	if (d % 8 == 0)
		return rs_wfmt("CS%u", d / 8);
	if (d / 8 >= 1 && d / 8 <= 4 && (d % 8 == 2 || d % 8 == 4 || d % 8 == 6))
		return rs_wfmt("AF%u%u", d / 8, (d % 8) / 2);
	return "";
}

static const char *ecn_sentence(uint8_t ecn)
{
	switch (ecn) {
	case 0: return "ECN 00 (Not-ECT): this sender does not take part in ECN congestion control.";
	case 3: return "ECN 11 (CE, Congestion Experienced): a switch on the way was congested. The receiver "
		       "(the notification point) answers with a CNP so the sender slows down (DCQCN, IBA Annex "
		       "A17.9).";
	default: return "ECN 10/01 (ECN-capable transport): a congested switch may mark this packet CE instead "
			"of dropping it; the receiver would then send a CNP back to the sender (Annex A17.9).";
	}
}

static void erf_record(struct walk *w, const struct rs_layer *l)
{
	const struct rs_frame *f = w->f;
	uint8_t type = f->erf_type;

	rs_wtitle(w, l->id, "Extensible Record Format record header (capture metadata)", l->off, l->len);
	rs_wfield(w, 0, "Timestamp", rs_whex(f->walk->erf_ts_raw, 16), "%" PRIu64 ".%09" PRIu64 " s, little-endian",
	       f->erf_ts_ns / 1000000000u, f->erf_ts_ns % 1000000000u);
	rs_wbits(w, 8, 1, 7, 1, f->walk->erf_ext, "Extension", f->walk->erf_ext ? "extension headers follow" : "no extension header");
	rs_wbits(w, 8, 1, 0, 7, type, "Type", "%s", type == 21 ? "InfiniBand" : type == 2 ? "Ethernet" : "");
	rs_wfield(w, 9, "Flags", rs_whex(f->walk->erf_flags, 2), NULL);
	rs_wfield(w, 10, "Record length", rs_whexdec(f->walk->erf_rlen, 4), "bytes in this record");
	rs_wfield(w, 12, "Loss counter", rs_whexdec(f->walk->erf_lctr, 4), NULL);
	rs_wfield(w, 14, "Wire length", rs_whexdec(f->erf_wlen, 4), "the packet's length on the link");
	if (l->len > 16)
		rs_wfield(w, 16, "Extension headers", rs_wfmt("%u bytes", l->len - 16), NULL);
	if (!rs_walk_first(w, l->id)) {
		rs_wsay(w, "Capture record: type %u, %u bytes on the wire.", type, f->erf_wlen);
		return;
	}
	rs_wsay(w, "ERF is the capture tool's own record around each packet (Endace format), not something sent "
		"on the link. Type %u says %s follows; the timestamp holds seconds in its upper 32 bits and a "
		"binary fraction of a second in the lower 32.",
	     type, type == 21 ? "an InfiniBand packet, starting with its LRH," : "the packet");
}

static void ethernet(struct walk *w, const struct rs_layer *l)
{
	const struct rs_frame *f = w->f;
	uint16_t type = f->walk->link_type;
	const uint8_t *p = f->eth_dst;
	const char *cast = (p[0] & 1) ? (memcmp(p, "\xff\xff\xff\xff\xff\xff", 6) == 0 ? "broadcast" : "multicast")
				      : "unicast";

	rs_wtitle(w, l->id, "Ethernet II", l->off, l->len);
	rs_wfield(w, l->off, "Destination", rs_wbytes(f->eth_dst, 6, ':'), "%s", cast);
	/* No station sends from a group address: a capture tool wrote it (the
	 * RDMA sniffer writes a MAC of its own into every frame). */
	bool group_src = f->eth_src[0] & 1;
	rs_wfield(w, l->off + 6, "Source", rs_wbytes(f->eth_src, 6, ':'), "%s",
	       group_src ? "group bit set: not a station's address" : "");
	rs_wfield(w, l->off + 12, "EtherType", rs_whex(type, 4), "%s", ethertype_name(type));
	if (group_src)
		rs_wsay(w, "The source MAC %s has its group (multicast) bit set, which no sender puts on a wire: the "
			"capture tool wrote it (the RDMA sniffer, tcpdump -i mlx5_0, writes its own MACs), so this "
			"field says nothing about the sending port.", rs_wbytes(f->eth_src, 6, ':'));
	const char *next = f->nvlan ? "a VLAN tag" : ethertype_name(type);
	if (!rs_walk_first(w, l->id)) {
		rs_wsay(w, "From MAC %s to MAC %s; EtherType 0x%04x: %s follows.", rs_wbytes(f->eth_src, 6, ':'),
		     rs_wbytes(f->eth_dst, 6, ':'), type, next);
		return;
	}
	if (f->have & RS_HAVE_PFC)
		rs_wsay(w, "A MAC Control frame from MAC %s to %s, the address reserved for it (IEEE 802.3 31B): "
			"it is for the other end of this one link and no switch forwards it.", rs_wbytes(f->eth_src, 6, ':'),
		     rs_wbytes(f->eth_dst, 6, ':'));
	else if (f->roce == RS_ROCE_V1 && !f->nvlan)
		rs_wsay(w, "Ethernet carries the frame across one link, from MAC %s to MAC %s. EtherType 0x8915 "
			"marks RoCE v1: the InfiniBand GRH follows directly, so the packet cannot cross an IP router "
			"(IBA Annex A16).", rs_wbytes(f->eth_src, 6, ':'), rs_wbytes(f->eth_dst, 6, ':'));
	else
		rs_wsay(w, "Ethernet carries the frame across one link, from MAC %s to MAC %s (the next hop, which "
			"may be a router). EtherType 0x%04x says %s follows%s. The 4-byte FCS at the end of the "
			"frame is normally not captured.",
		     rs_wbytes(f->eth_src, 6, ':'), rs_wbytes(f->eth_dst, 6, ':'), type, next,
		     type == 0x0800 || type == 0x86DD ? ", the carrier of RoCE v2 (RoCE v1 would be EtherType 0x8915)"
						      : "");
}

static void vlan(struct walk *w, const struct rs_layer *l, unsigned i)
{
	const struct rs_frame *f = w->f;
	if (i >= f->nvlan)
		return; /* a VLAN layer is recorded with its tag */
	uint16_t tci = f->vlan_tci[i], tpid = f->vlan_tpid[i];
	/* The type after the tag: the next tag's TPID, or the innermost EtherType. */
	uint16_t next = i + 1u < f->nvlan ? f->vlan_tpid[i + 1] : f->ethertype;
	unsigned pcp = tci >> 13, dei = (tci >> 12) & 1, vid = tci & 0xFFF;

	rs_wtitle(w, l->id, rs_wfmt("IEEE 802.1Q tag (TPID 0x%04x in the 2 bytes before)", tpid), l->off, l->len);
	rs_wbits(w, l->off, 2, 13, 3, pcp, "PCP", "priority code point (class of service)");
	rs_wbits(w, l->off, 2, 12, 1, dei, "DEI", "drop eligible");
	rs_wbits(w, l->off, 2, 0, 12, vid, "VID", "VLAN %u", vid);
	rs_wfield(w, l->off + 2, "EtherType", rs_whex(next, 4), "%s", ethertype_name(next));
	rs_wsay(w, "The tag puts the frame in VLAN %u with priority %u. RoCE is usually given its own priority, "
		"with Priority Flow Control (IEEE 802.1Qbb) so that switches pause that priority instead of "
		"dropping packets.", vid, pcp);
}

static const char *pkttype_name(unsigned t)
{
	static const char *const n[] = { "to this host", "broadcast", "multicast", "to another host", "sent by this host" };
	return t < 5 ? n[t] : "";
}

static void sll(struct walk *w, const struct rs_layer *l)
{
	const struct rs_frame *f = w->f;
	bool v2 = l->id == RS_L_SLL2;
	uint16_t proto = f->walk->link_type;

	rs_wtitle(w, l->id, v2 ? "Linux cooked capture header v2" : "Linux cooked capture header", l->off, l->len);
	if (v2) {
		rs_wfield(w, 0, "Protocol", rs_whex(proto, 4), "%s", ethertype_name(proto));
		rs_wfield(w, 4, "Interface index", rs_whexdec(f->sll_ifindex, 8), NULL);
		rs_wfield(w, 8, "ARPHRD type", rs_whexdec(f->sll_hatype, 4), "%s", f->sll_hatype == 1 ? "Ethernet" : "");
		rs_wfield(w, 10, "Packet type", rs_whexdec(f->sll_pkttype, 2), "%s", pkttype_name(f->sll_pkttype));
		rs_wfield(w, 11, "Address length", rs_whexdec(f->walk->sll_halen, 2), NULL);
		rs_wfield(w, 12, "Address", rs_wbytes(f->walk->sll_addr, 8, ':'), NULL);
	} else {
		rs_wfield(w, 0, "Packet type", rs_whexdec(f->sll_pkttype, 4), "%s", pkttype_name(f->sll_pkttype));
		rs_wfield(w, 2, "ARPHRD type", rs_whexdec(f->sll_hatype, 4), "%s", f->sll_hatype == 1 ? "Ethernet" : "");
		rs_wfield(w, 4, "Address length", rs_whexdec(f->walk->sll_halen, 4), NULL);
		rs_wfield(w, 6, "Address", rs_wbytes(f->walk->sll_addr, 8, ':'), NULL);
		rs_wfield(w, 14, "Protocol", rs_whex(proto, 4), "%s", ethertype_name(proto));
	}
	if (!rs_walk_first(w, l->id)) {
		rs_wsay(w, "Linux capture header: %s, protocol 0x%04x.", pkttype_name(f->sll_pkttype), proto);
		return;
	}
	rs_wsay(w, "The capturing Linux host wrote this header in place of the real link header (as when "
		"capturing on \"any\"): it records the direction (%s) and the protocol that follows (0x%04x%s%s).",
	     pkttype_name(f->sll_pkttype), proto, *ethertype_name(proto) ? " = " : "", ethertype_name(proto));
}

static void ipv4(struct walk *w, const struct rs_layer *l)
{
	const struct rs_frame *f = w->f;
	uint32_t o = l->off;
	uint16_t frag = f->walk->ip_frag;
	uint8_t proto = f->walk->ip_proto;

	rs_wtitle(w, l->id, "Internet Protocol version 4", l->off, l->len);
	rs_wbits(w, o, 1, 4, 4, 4, "Version", NULL);
	rs_wbits(w, o, 1, 0, 4, f->ip_hdr_len / 4, "IHL", "%u bytes (IHL x 4)", f->ip_hdr_len);
	rs_wbits(w, o + 1, 1, 2, 6, f->dscp, "DSCP", "%s", dscp_name(f->dscp));
	rs_wbits(w, o + 1, 1, 0, 2, f->ecn, "ECN", "%s", rs_walk_ecn_name(f->ecn));
	rs_wfield(w, o + 2, "Total length", rs_whexdec(f->ip_total_len, 4), "IP header + UDP + RoCE packet");
	rs_wfield(w, o + 4, "Identification", rs_whexdec(f->ip_id, 4), NULL);
	rs_wbits(w, o + 6, 2, 13, 3, frag >> 13, "Flags", "%s", frag & 0x4000 ? "Don't Fragment" : "");
	rs_wbits(w, o + 6, 2, 0, 13, frag & 0x1FFF, "Fragment offset", NULL);
	rs_wfield(w, o + 8, "TTL", rs_whexdec(f->ttl, 2), "routers decrement it");
	rs_wfield(w, o + 9, "Protocol", rs_whexdec(proto, 2), "%s", proto == 17 ? "UDP" : "");
	rs_wfield(w, o + 10, "Header checksum", rs_whex(f->walk->ip_csum, 4), "not verified here");
	rs_wfield(w, o + 12, "Source", rs_walk_addr(&f->src), NULL);
	rs_wfield(w, o + 16, "Destination", rs_walk_addr(&f->dst), NULL);
	if (f->ip_hdr_len > 20)
		rs_wfield(w, o + 20, "Options", rs_wfmt("%u bytes", f->ip_hdr_len - 20), NULL);
	if (!rs_walk_first(w, l->id)) {
		rs_wsay(w, "From %s to %s, DSCP %u, %s", rs_walk_addr(&f->src), rs_walk_addr(&f->dst), f->dscp,
		     f->ecn == 3 ? ecn_sentence(f->ecn) : rs_wfmt("ECN %s.", rs_walk_ecn_name(f->ecn)));
		return;
	}
	rs_wsay(w, "IPv4 carries the RoCE v2 packet across routed networks from %s to %s. %s DSCP, ECN, TTL and "
		"the checksum may change at every router, so the ICRC counts them as all ones.",
	     rs_walk_addr(&f->src), rs_walk_addr(&f->dst), ecn_sentence(f->ecn));
}

static void ipv6(struct walk *w, const struct rs_layer *l)
{
	const struct rs_frame *f = w->f;
	uint32_t o = l->off;
	uint8_t nxt = f->walk->ip_proto;

	rs_wtitle(w, l->id, "Internet Protocol version 6", l->off, l->len);
	rs_wbits(w, o, 1, 4, 4, 6, "Version", NULL);
	rs_wbits(w, o, 2, 6, 6, f->dscp, "DSCP", "%s", dscp_name(f->dscp));
	rs_wbits(w, o, 2, 4, 2, f->ecn, "ECN", "%s", rs_walk_ecn_name(f->ecn));
	rs_wbits(w, o + 1, 3, 0, 20, f->flow_label, "Flow label", NULL);
	rs_wfield(w, o + 4, "Payload length", rs_whexdec(f->ip_total_len - 40, 4), "bytes after this header");
	rs_wfield(w, o + 6, "Next header", rs_whexdec(nxt, 2), "%s", nxt == 17 ? "UDP" : "extension header");
	rs_wfield(w, o + 7, "Hop limit", rs_whexdec(f->ttl, 2), "routers decrement it");
	rs_wfield(w, o + 8, "Source", rs_walk_addr(&f->src), NULL);
	rs_wfield(w, o + 24, "Destination", rs_walk_addr(&f->dst), NULL);
	if (!rs_walk_first(w, l->id)) {
		rs_wsay(w, "From %s to %s, DSCP %u, %s", rs_walk_addr(&f->src), rs_walk_addr(&f->dst), f->dscp,
		     f->ecn == 3 ? ecn_sentence(f->ecn) : rs_wfmt("ECN %s.", rs_walk_ecn_name(f->ecn)));
		return;
	}
	rs_wsay(w, "IPv6 carries the RoCE v2 packet across routed networks from %s to %s. %s Traffic class, flow "
		"label and hop limit may change on the way, so the ICRC counts them as all ones.",
	     rs_walk_addr(&f->src), rs_walk_addr(&f->dst), ecn_sentence(f->ecn));
}

static void ipv6_ext(struct walk *w, const struct rs_layer *l)
{
	const struct rs_frame *f = w->f;
	unsigned k = 0; /* which extension header: the ones before it in the frame */
	for (unsigned i = 0; i < f->walk->nlayers; i++)
		k += f->walk->layers[i].id == RS_L_IPV6_EXT && f->walk->layers[i].off < l->off;
	if (k >= f->walk->nip6ext)
		return;
	rs_wtitle(w, l->id, "IPv6 extension header", l->off, l->len);
	rs_wfield(w, l->off, "Next header", rs_whexdec(f->walk->ip6ext_next[k], 2), NULL);
	rs_wfield(w, l->off + 1, "Length", rs_whexdec(f->walk->ip6ext_len[k], 2), "(N + 1) x 8 = %u bytes", l->len);
	rs_wsay(w, "An IPv6 extension header between the IPv6 header and UDP; the ICRC covers it unchanged.");
}

static void udp(struct walk *w, const struct rs_layer *l)
{
	const struct rs_frame *f = w->f;
	uint32_t o = l->off;

	rs_wtitle(w, l->id, "User Datagram Protocol", l->off, l->len);
	/* A sender picks the source port for ECMP entropy; 4791 there is what
	 * the RDMA sniffers write over it. */
	bool sniffer_port = f->udp_sport == RS_ROCE_UDP_PORT;
	rs_wfield(w, o, "Source port", rs_whexdec(f->udp_sport, 4), "%s",
	       sniffer_port ? "4791: likely written by the capture tool" : "chosen by the sender");
	rs_wfield(w, o + 2, "Destination port", rs_whexdec(f->udp_dport, 4), "%s",
	       f->udp_dport == RS_ROCE_UDP_PORT ? "RoCE v2" : "RoCE v2 (--roce-port)");
	rs_wfield(w, o + 4, "Length", rs_whexdec(f->udp_len, 4), "UDP header + BTH ... ICRC");
	rs_wfield(w, o + 6, "Checksum", rs_whex(f->udp_csum, 4), "%s", f->udp_csum ? "" : "not computed");
	if (!rs_walk_first(w, l->id)) {
		rs_wsay(w, "Source port %u (the same for every packet of this QP), destination port %u for RoCE v2, "
			"checksum %s.", f->udp_sport, f->udp_dport, f->udp_csum ? "set" : "0 (not computed)");
		return;
	}
	rs_wsay(w, "RoCE v2 rides in UDP to port 4791, the port IANA assigned to it. The source port is chosen by the "
		"sender, typically from the QP numbers, to spread different flows over equal-cost paths (ECMP); "
		"every packet of one QP keeps the same port, so they stay in order.%s %s",
	     sniffer_port ? " Here it is 4791 as well, which senders rarely use (it gives ECMP nothing to spread) "
			    "but the RDMA sniffers (ibdump, tcpdump -i mlx5_0) write over the port the NIC chose: the "
			    "port on the wire may not be in this capture (the ICRC below can tell, if the payload was "
			    "captured)."
			  : rs_wfmt(" Here it is %u.", f->udp_sport),
	     f->udp_csum ? "The UDP checksum is counted as all ones in the ICRC."
			 : "A zero checksum means none was computed: the ICRC protects the packet instead.");
}

static void lrh(struct walk *w, const struct rs_layer *l)
{
	const struct rs_lrh *h = &w->f->lrh;
	uint32_t o = l->off;
	static const char *const lnh[4] = { "raw", "IP (non-IBA)", "BTH follows (local)", "GRH follows (global)" };

	rs_wtitle(w, l->id, "Local Route Header", l->off, l->len);
	rs_wbits(w, o, 1, 4, 4, h->vl, "VL", "virtual lane%s", h->vl == 15 ? " 15: subnet management" : "");
	rs_wbits(w, o, 1, 0, 4, h->lver, "LVer", "link version");
	rs_wbits(w, o + 1, 1, 4, 4, h->sl, "SL", "service level");
	rs_wbits(w, o + 1, 1, 2, 2, h->resv, "Reserved", NULL);
	rs_wbits(w, o + 1, 1, 0, 2, h->lnh, "LNH", "%s", lnh[h->lnh & 3]);
	rs_wfield(w, o + 2, "DLID", rs_whexdec(h->dlid, 4), "%s", h->dlid == 0xFFFF ? "permissive LID"
		: h->dlid >= 0xC000 ? "multicast LID" : "destination port");
	rs_wbits(w, o + 4, 2, 0, 11, h->pktlen, "PktLen", "%u bytes, LRH to ICRC", h->pktlen * 4u);
	rs_wfield(w, o + 6, "SLID", rs_whexdec(h->slid, 4), "%s", h->slid == 0xFFFF ? "permissive LID" : "source port");
	if (!rs_walk_first(w, l->id)) {
		rs_wsay(w, "From LID %u to LID %u on VL %u, SL %u; %u words = %u bytes from LRH to ICRC; %s", h->slid,
		     h->dlid, h->vl, h->sl, h->pktlen, h->pktlen * 4u, h->lnh == 3 ? "a GRH follows." : "the BTH follows.");
		return;
	}
	rs_wsay(w, "The Local Route Header is what InfiniBand switches forward on inside one subnet: from port "
		"LID %u to LID %u, on virtual lane %u with service level %u. PktLen counts 4-byte words from the "
		"LRH through the ICRC (%u x 4 = %u bytes); the 2-byte VCRC follows. %s",
	     h->slid, h->dlid, h->vl, h->sl, h->pktlen, h->pktlen * 4u,
	     h->lnh == 3 ? "LNH 3: a GRH follows, as for a packet to another subnet or to a multicast group."
			 : "LNH 2: the BTH follows directly; the packet stays in this subnet.");
}

static void grh(struct walk *w, const struct rs_layer *l)
{
	const struct rs_grh *g = &w->f->grh;
	uint32_t o = l->off;
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	inet_ntop(AF_INET6, g->sgid, s, sizeof s);
	inet_ntop(AF_INET6, g->dgid, d, sizeof d);

	rs_wtitle(w, l->id, "Global Route Header", l->off, l->len);
	rs_wbits(w, o, 1, 4, 4, g->ipver, "IPVer", NULL);
	rs_wbits(w, o, 2, 4, 8, g->tclass, "TClass", "traffic class");
	rs_wbits(w, o + 1, 3, 0, 20, g->flowlabel, "FlowLabel", NULL);
	rs_wfield(w, o + 4, "PayLen", rs_whexdec(g->paylen, 4), "bytes after the GRH, through the ICRC");
	rs_wfield(w, o + 6, "NxtHdr", rs_whex(g->nxthdr, 2), "%s", g->nxthdr == RS_GRH_NXTHDR_IBA ? "IBA transport" : "");
	rs_wfield(w, o + 7, "HopLmt", rs_whexdec(g->hoplmt, 2), NULL);
	rs_wfield(w, o + 8, "SGID", s, NULL);
	rs_wfield(w, o + 24, "DGID", d, "%s", g->dgid[0] == 0xFF ? "multicast GID" : "");
	if (!rs_walk_first(w, l->id))
		rs_wsay(w, "From GID %s to GID %s.", s, d);
	else if (w->f->roce == RS_ROCE_V1)
		rs_wsay(w, "RoCE v1 uses the InfiniBand GRH as its network header: the GIDs are the ports' 128-bit "
			"addresses (often derived from their IP or MAC addresses). Traffic class, flow label and hop "
			"limit may change on the way, so the ICRC counts them as all ones.");
	else
		rs_wsay(w, "The GRH is the InfiniBand header for traffic between subnets or to a multicast group%s: "
			"it names the ports by 128-bit GID, from %s to %s. Traffic class, flow label and hop limit may "
			"change on the way, so the ICRC counts them as all ones.",
		     g->dgid[0] == 0xFF ? " (here a multicast group)" : "", s, d);
}

static void trailer(struct walk *w, const struct rs_layer *l)
{
	rs_wtitle(w, l->id, "bytes after the packet", l->off, l->len);
	rs_wsay(w, "%u byte%s after the end of the %s: %s They are not part of the RoCE packet and the ICRC does "
		"not cover them.", l->len, l->len == 1 ? "" : "s",
	     w->f->roce == RS_ROCE_IB ? "packet (after the VCRC)" : "packet",
	     w->f->roce == RS_ROCE_IB ? "capture padding." : "Ethernet padding up to the 60-byte minimum "
		"frame, or the frame check sequence if the capture kept it.");
}

/* IEEE 802.3 Annex 31B PAUSE, IEEE 802.1Qbb PFC (dissect/pfc.c). */
static void pfc(struct walk *w, const struct rs_layer *l)
{
	const struct rs_pfc *p = w->f->pfc;
	uint32_t o = l->off;
	bool is_pfc = p->opcode == RS_MACC_PFC;

	rs_wtitle(w, l->id, is_pfc ? "Priority-based Flow Control (IEEE 802.1Qbb)" : "PAUSE (IEEE 802.3 Annex 31B)",
	       l->off, l->len);
	rs_wfield(w, o, "Opcode", rs_whex(p->opcode, 4), "%s", is_pfc ? "PFC" : "PAUSE");
	if (!is_pfc) {
		rs_wfield(w, o + 2, "Pause time", rs_whexdec(p->quanta[0], 4), "quanta of 512 bit times");
		rs_wsay(w, "The sender asks the other end of the link to stop sending anything for %u x 512 bit times "
			"(%.2f µs at 100 Gb/s; rocestat's summary uses --link-speed), or to resume now if 0. A PAUSE "
			"stops every priority, RoCE and all: PFC is what RoCE networks use instead.",
		     p->quanta[0], p->quanta[0] * 512 / 100e3);
		return;
	}
	rs_wfield(w, o + 2, "Reserved", rs_whex(p->enable_rsv, 2), "%s", p->enable_rsv ? "should be 0" : "");
	rs_wfield(w, o + 3, "Priority enable", rs_whex(p->enable, 2), "bit n: time[n] applies to priority n");
	char said[400];
	int n = 0;
	for (int i = 0; i < 8; i++) {
		bool on = p->enable >> i & 1;
		rs_wfield(w, o + 4 + 2 * (uint32_t)i, rs_wfmt("Time[%d]", i), rs_whexdec(p->quanta[i], 4), "%s",
		       !on ? "not enabled: ignored" : p->quanta[i] ? "pause this priority" : "resume this priority");
		if (on && n >= 0 && (size_t)n < sizeof said)
			n += snprintf(said + n, sizeof said - (size_t)n, "%spriority %d %s", n ? ", " : "", i,
				      p->quanta[i] ? rs_wfmt("paused for %u quanta (%.2f µs at 100 Gb/s)", p->quanta[i],
							  p->quanta[i] * 512 / 100e3) : "resumed");
	}
	if (n > 0)
		said[0] = (char)(said[0] - 'a' + 'A'); /* "priority ..." begins the sentence */
	rs_wsay(w, "%s. PFC pauses one priority (traffic class) of the link at a time, so RoCE on a lossless "
		"priority waits instead of being dropped; a pause frame that arrives before the last one ran out "
		"extends it, and a pause held on and on is a pause storm.", n ? said : "No priority enabled");
}

void rs_walk_link_layer(struct walk *w, const struct rs_layer *l, unsigned vlan_index)
{
	switch (l->id) {
	case RS_L_ERF: erf_record(w, l); break;
	case RS_L_ETH: ethernet(w, l); break;
	case RS_L_VLAN: vlan(w, l, vlan_index); break;
	case RS_L_SLL: case RS_L_SLL2: sll(w, l); break;
	case RS_L_IPV4: ipv4(w, l); break;
	case RS_L_IPV6: ipv6(w, l); break;
	case RS_L_IPV6_EXT: ipv6_ext(w, l); break;
	case RS_L_UDP: udp(w, l); break;
	case RS_L_LRH: lrh(w, l); break;
	case RS_L_GRH: grh(w, l); break;
	case RS_L_TRAILER: trailer(w, l); break;
	case RS_L_PFC: pfc(w, l); break;
	default: break;
	}
}

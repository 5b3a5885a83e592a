/*
 * ip.c — IPv4, IPv6 and UDP as far as RoCE v2 needs them
 * (IBA Annex A17 "RoCEv2", A17.4: IP + UDP destination port 4791).
 *
 * IPv4 (RFC 791):
 *    0                   1                   2                   3
 *   |Version|  IHL  |  DSCP     |ECN|          Total Length         |
 *   |         Identification        |Flags|     Fragment Offset     |
 *   |  Time to Live |    Protocol   |         Header Checksum       |
 *   |                       Source Address                          |
 *   |                    Destination Address                        |
 *   |                    Options (IHL > 5)                          |
 *
 * IPv6 (RFC 8200):
 *   |Version| Traffic Class |           Flow Label                  |
 *   |         Payload Length        |  Next Header  |   Hop Limit   |
 *   |                 Source Address (16) / Destination Address (16)|
 *
 * UDP (RFC 768): | src port | dst port | length | checksum |
 *
 * The IP and UDP lengths, not the capture length, say where the RoCE packet
 * and its ICRC end. A frame longer than its IP datagram has a trailer
 * (Ethernet padding or FCS). An IP length that runs past the frame is
 * malformed, unless the UDP length, a second and independent length, says
 * the same: then the frame was sliced by a capture that also rewrote the
 * record's original length to the cut (ibdump, the RDMA sniffer), and the
 * frame is decoded as far as it was kept (RS_SLICE_REWRITTEN).
 */
#include "dissect/internal.h"

#define IPV4_MIN_HDR 20
#define IPV6_HDR 40
#define UDP_HDR 8
#define IPPROTO_UDP_ 17
#define IPV4_MF 0x2000
#define IPV4_OFFSET_MASK 0x1FFF
#define IPV6_MAX_EXT RS_MAX_IP6EXT

static bool is_roce_port(const struct rs_dctx *d, uint16_t port)
{
	if (port == RS_ROCE_UDP_PORT)
		return true;
	for (unsigned i = 0; i < d->opts->n_extra_ports && i < RS_MAX_EXTRA_PORTS; i++)
		if (d->opts->extra_ports[i] == port)
			return true;
	return false;
}

/* Peek the UDP destination port before judging any length: a broken or
 * fragmented datagram is only our business (reported) if it was RoCE;
 * everything else is skipped as non-RoCE, whatever shape it is in. */
static bool udp_dport_is_roce(const struct rs_dctx *d, uint32_t udp_off)
{
	struct rs_cursor c = rs_cur_at(d, udp_off + 2);
	uint16_t dport = rs_cur_be16(&c);
	return !c.overrun && is_roce_port(d, dport);
}

/* The UDP length, where it was captured, agrees with an IP payload length
 * that runs past the frame: the frame was sliced, the lengths do not lie. */
static bool udp_len_agrees(const struct rs_dctx *d, uint32_t udp_off, uint32_t ip_payload)
{
	struct rs_cursor c = rs_cur_at(d, udp_off + 4);
	uint16_t len = rs_cur_be16(&c);
	return !c.overrun && len == ip_payload;
}

/* Mark a frame sliced with its record's length rewritten: its length on
 * the link is where the IP datagram ends (less an ERF record's header,
 * which was never on the link, as its wire length says). */
static void sliced_rewritten(struct rs_frame *f, uint32_t ip_end)
{
	f->sliced = RS_SLICE_REWRITTEN;
	f->sliced_wirelen = ip_end - ((f->have & RS_HAVE_ERF) ? f->erf_hdr : 0u);
}

/* A UDP datagram to a port not decoded as RoCE: it stays non-RoCE, but one
 * that reads as RoCE v2 (rs_bth_shaped: an ICRC matches by chance once in
 * 2^32) leaves its port in the frame, for the report to name it and
 * --roce-port. */
static enum rs_outcome udp_elsewhere(struct rs_dctx *d, enum rs_carrier carrier, uint32_t net_off, uint32_t hlen,
				     uint32_t udp_off, uint32_t end)
{
	struct rs_cursor c = rs_cur_at(d, udp_off + 2);
	uint16_t dport = rs_cur_be16(&c), len = rs_cur_be16(&c);
	if (!c.overrun && end >= udp_off && len == end - udp_off) {
		struct rs_dctx t = *d;
		t.carrier = carrier;
		t.net_off = net_off;
		t.net_hdr_len = hlen;
		t.udp_off = udp_off;
		if (rs_bth_shaped(&t, udp_off + UDP_HDR, end))
			d->f->roce_elsewhere = dport;
	}
	return rs_not_roce(d->f);
}

struct udp_hdr {
	uint16_t sport, dport, len, csum;
	bool ports_cut; /* the capture stops before the end of the ports */
};

static inline __attribute__((always_inline)) void udp_fields(struct rs_cursor *c, struct udp_hdr *u)
{
	u->sport = rs_cur_be16(c);
	u->dport = rs_cur_be16(c);
	u->ports_cut = c->overrun;
	u->len = rs_cur_be16(c);
	u->csum = rs_cur_be16(c);
}

static enum rs_outcome udp(struct rs_dctx *d, uint32_t off, uint32_t ip_end)
{
	struct rs_frame *f = d->f;

	if (ip_end - off < UDP_HDR)
		return rs_fail(f, RS_MALFORMED, off, "IP payload of %llu bytes is shorter than a UDP header (%llu)",
			       ip_end - off, UDP_HDR);
	struct rs_cursor c = rs_cur_at(d, off);
	struct udp_hdr u;
	RS_CUR_FIXED(&c, UDP_HDR, udp_fields, &u);
	if (u.ports_cut)
		return rs_not_roce(f); /* without the destination port nothing says RoCE */
	if (!is_roce_port(d, u.dport))
		return rs_not_roce(f);
	if (c.overrun)
		return rs_fail(f, RS_TRUNCATED, off, "UDP header cut by the capture length (%llu bytes captured)",
			       d->caplen, 0);

	f->roce = RS_ROCE_V2;
	f->udp_sport = u.sport;
	f->udp_dport = u.dport;
	f->udp_len = u.len;
	f->udp_csum = u.csum;
	f->have |= RS_HAVE_UDP;
	rs_layer(d, RS_L_UDP, off, UDP_HDR);
	d->udp_off = off;

	if (u.len < UDP_HDR)
		return rs_fail(f, RS_MALFORMED, off + 4, "UDP length %llu is shorter than the UDP header (%llu)", u.len,
			       UDP_HDR);
	if (u.len != ip_end - off)
		return rs_fail(f, RS_MALFORMED, off + 4, "UDP length %llu disagrees with the IP payload length %llu",
			       u.len, ip_end - off);
	return rs_dissect_transport(d, off + UDP_HDR, off + u.len);
}

struct ipv4_hdr {
	uint8_t vihl, tos, ttl, proto;
	uint16_t total, id, frag, csum;
	const uint8_t *src, *dst; /* NULL where the capture stops before them */
};

static inline __attribute__((always_inline)) void ipv4_fields(struct rs_cursor *c, struct ipv4_hdr *h)
{
	h->vihl = rs_cur_u8(c);
	h->tos = rs_cur_u8(c);
	h->total = rs_cur_be16(c);
	h->id = rs_cur_be16(c);
	h->frag = rs_cur_be16(c);
	h->ttl = rs_cur_u8(c);
	h->proto = rs_cur_u8(c);
	h->csum = rs_cur_be16(c); /* not verified (offloads leave it 0 on captures) */
	h->src = rs_cur_take(c, 4);
	h->dst = rs_cur_take(c, 4);
}

enum rs_outcome rs_dissect_ipv4(struct rs_dctx *d, uint32_t off, uint32_t wire_end)
{
	struct rs_frame *f = d->f;

	if (wire_end - off < IPV4_MIN_HDR)
		return rs_fail(f, RS_MALFORMED, off, "%llu bytes left for an IPv4 header of at least %llu",
			       wire_end - off, IPV4_MIN_HDR);
	struct rs_cursor c = rs_cur_at(d, off);
	struct ipv4_hdr h;
	RS_CUR_FIXED(&c, IPV4_MIN_HDR, ipv4_fields, &h);
	if (c.overrun)
		return rs_fail(f, RS_TRUNCATED, off, "IPv4 header cut by the capture length (%llu bytes captured)",
			       d->caplen, 0);
	if (h.vihl >> 4 != 4)
		return rs_fail(f, RS_MALFORMED, off, "IPv4 version field is %llu", h.vihl >> 4, 0);
	uint32_t hlen = (h.vihl & 0x0F) * 4u;
	if (hlen < IPV4_MIN_HDR)
		return rs_fail(f, RS_MALFORMED, off, "IPv4 header length %llu is below the minimum %llu", hlen,
			       IPV4_MIN_HDR);
	if (h.proto != IPPROTO_UDP_ || (h.frag & IPV4_OFFSET_MASK))
		return rs_not_roce(f); /* a later fragment carries no UDP header */
	if (!udp_dport_is_roce(d, off + hlen))
		return (h.frag & IPV4_MF) || h.total < hlen ? rs_not_roce(f)
							   : udp_elsewhere(d, RS_CARRIER_IPV4, off, hlen, off + hlen, off + h.total);

	f->ip_version = 4;
	f->dscp = h.tos >> 2;
	f->ecn = h.tos & 3;
	f->ttl = h.ttl;
	f->ip_id = h.id;
	d->w->ip_proto = h.proto;
	d->w->ip_frag = h.frag;
	d->w->ip_csum = h.csum;
	f->ip_hdr_len = (uint16_t)hlen;
	f->ip_total_len = h.total;
	f->src.kind = f->dst.kind = RS_ADDR_IPV4;
	memcpy(f->src.b, h.src, 4);
	memcpy(f->dst.b, h.dst, 4);
	memset(f->src.b + 4, 0, 12);
	memset(f->dst.b + 4, 0, 12);
	d->carrier = RS_CARRIER_IPV4;
	d->net_off = off;
	d->net_hdr_len = hlen;

	if (h.total < hlen)
		return rs_fail(f, RS_MALFORMED, off + 2, "IPv4 total length %llu is shorter than its header (%llu)",
			       h.total, hlen);
	if (h.total > wire_end - off) {
		if (!udp_len_agrees(d, off + hlen, h.total - hlen))
			return rs_fail(f, RS_MALFORMED, off + 2,
				       "IPv4 total length %llu runs past the %llu bytes in the frame", h.total,
				       wire_end - off);
		sliced_rewritten(f, off + h.total);
		wire_end = off + h.total;
	}
	if (h.frag & IPV4_MF)
		return rs_fail(f, RS_UNSUPPORTED, off + 6, "fragmented RoCE v2 datagram (IPv4 id %llu)", h.id, 0);
	f->have |= RS_HAVE_IPV4;
	rs_layer(d, RS_L_IPV4, off, hlen);
	f->trailer_len = wire_end - off - h.total;
	enum rs_outcome o = udp(d, off + hlen, off + h.total);
	if (o != RS_NOT_ROCE && f->trailer_len)
		rs_layer(d, RS_L_TRAILER, off + h.total, f->trailer_len);
	return o;
}

enum rs_outcome rs_dissect_ipv6(struct rs_dctx *d, uint32_t off, uint32_t wire_end)
{
	struct rs_frame *f = d->f;

	if (wire_end - off < IPV6_HDR)
		return rs_fail(f, RS_MALFORMED, off, "%llu bytes left for a %llu-byte IPv6 header", wire_end - off,
			       IPV6_HDR);
	struct rs_cursor c = rs_cur_at(d, off);
	struct rs_ip6hdr h;
	RS_CUR_FIXED(&c, IPV6_HDR, rs_ip6hdr_fields, &h);
	if (c.overrun)
		return rs_fail(f, RS_TRUNCATED, off, "IPv6 header cut by the capture length (%llu bytes captured)",
			       d->caplen, 0);
	if (h.vtf >> 28 != 6)
		return rs_fail(f, RS_MALFORMED, off, "IPv6 version field is %llu", h.vtf >> 28, 0);
	uint8_t nxt = h.nxt; /* follows the extension headers */
	d->w->nip6ext = 0;

	/* Walk extension headers up to UDP; anything else is not RoCE. */
	uint32_t end = off + IPV6_HDR + h.paylen;
	uint32_t p = off + IPV6_HDR;
	for (unsigned n = 0;; n++) {
		if (nxt == IPPROTO_UDP_) {
			if (!udp_dport_is_roce(d, p))
				return udp_elsewhere(d, RS_CARRIER_IPV6, off, IPV6_HDR, p, end);
			break;
		}
		if (nxt != 0 && nxt != 43 && nxt != 60 && nxt != 44)
			return rs_not_roce(f); /* TCP, ICMPv6, no next header, ESP, ... */
		if (n == IPV6_MAX_EXT)
			return rs_fail(f, RS_UNSUPPORTED, p, "more than %llu IPv6 extension headers", IPV6_MAX_EXT, 0);
		struct rs_cursor e = rs_cur_at(d, p);
		uint8_t next = rs_cur_u8(&e);
		uint8_t elen = rs_cur_u8(&e);
		uint16_t fragoff = rs_cur_be16(&e);
		if (e.overrun)
			return rs_not_roce(f); /* cut before the UDP port: cannot be told apart */
		if (nxt == 44) { /* fragment header: 8 bytes */
			if (next == IPPROTO_UDP_ && (fragoff & 0xFFF8) == 0 && udp_dport_is_roce(d, p + 8))
				return rs_fail(f, RS_UNSUPPORTED, p, "fragmented RoCE v2 datagram (IPv6)", 0, 0);
			return rs_not_roce(f);
		}
		uint32_t hl = (elen + 1u) * 8u;
		if (hl > wire_end - p)
			return rs_not_roce(f); /* the chain never reaches a UDP header */
		rs_layer(d, RS_L_IPV6_EXT, p, hl);
		d->w->ip6ext_next[d->w->nip6ext] = next;
		d->w->ip6ext_len[d->w->nip6ext++] = elen;
		p += hl;
		nxt = next;
	}

	f->ip_version = 6;
	f->dscp = (uint8_t)((h.vtf >> 22) & 0x3F);
	f->ecn = (uint8_t)((h.vtf >> 20) & 3);
	f->flow_label = h.vtf & 0xFFFFF;
	f->ttl = h.hlim;
	d->w->ip_proto = h.nxt;
	f->ip_hdr_len = IPV6_HDR;
	f->ip_total_len = IPV6_HDR + h.paylen;
	f->src.kind = f->dst.kind = RS_ADDR_IPV6;
	memcpy(f->src.b, h.src, 16);
	memcpy(f->dst.b, h.dst, 16);
	d->carrier = RS_CARRIER_IPV6;
	d->net_off = off;
	d->net_hdr_len = IPV6_HDR;

	if (h.paylen == 0)
		return rs_fail(f, RS_UNSUPPORTED, off + 4, "IPv6 jumbogram (payload length 0)", 0, 0);
	if ((uint64_t)IPV6_HDR + h.paylen > wire_end - off) {
		if (p > end || !udp_len_agrees(d, p, end - p))
			return rs_fail(f, RS_MALFORMED, off + 4,
				       "IPv6 payload length %llu runs past the %llu bytes in the frame", h.paylen,
				       wire_end - off - IPV6_HDR);
		sliced_rewritten(f, end);
		wire_end = end;
	}
	if (p > end)
		return rs_fail(f, RS_MALFORMED, off + 4, "IPv6 extension headers run past the payload length %llu",
			       h.paylen, 0);
	f->have |= RS_HAVE_IPV6;
	/* Insert the fixed header before any extension layers recorded above. */
	rs_layer(d, RS_L_IPV6, off, IPV6_HDR);
	for (unsigned i = d->w->nlayers ? d->w->nlayers - 1u : 0; i > 0 && d->w->layers[i - 1].id == RS_L_IPV6_EXT; i--) {
		struct rs_layer t = d->w->layers[i - 1];
		d->w->layers[i - 1] = d->w->layers[i];
		d->w->layers[i] = t;
	}
	f->trailer_len = wire_end - end;
	enum rs_outcome o = udp(d, p, end);
	if (o != RS_NOT_ROCE && f->trailer_len)
		rs_layer(d, RS_L_TRAILER, end, f->trailer_len);
	return o;
}

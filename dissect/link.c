/*
 * link.c — link layers: Ethernet with 802.1Q/802.1ad tag stacks, Linux
 * cooked captures (SLL, SLL2), raw IPv4/IPv6, native InfiniBand and ERF.
 *
 * Ethernet II (IEEE 802.3 clause 3):
 *   +--------+--------+------+----------------------------------+
 *   | dst(6) | src(6) | type | payload ... [padding] [FCS]      |
 *   +--------+--------+------+----------------------------------+
 *   VLAN tag (802.1Q 0x8100, 802.1ad 0x88A8, legacy QinQ 0x9100):
 *   | TPID(2) | PCP(3) DEI(1) VID(12) | next type(2) |
 *
 * Linux cooked v1 (LINKTYPE_LINUX_SLL, 16 bytes):
 *   | pkttype(2) | ARPHRD(2) | addr len(2) | addr(8) | protocol(2) |
 * Linux cooked v2 (LINKTYPE_LINUX_SLL2, 20 bytes):
 *   | protocol(2) | rsv(2) | ifindex(4) | ARPHRD(2) | pkttype(1) | addr len(1) | addr(8) |
 *
 * ERF (Endace, LINKTYPE_ERF), 16-byte record header, little-endian timestamp:
 *   | ts(8) | type(1) | flags(1) | rlen(2) | lctr(2) | wlen(2) | [ext hdrs 8 each] |
 *   type 21 = InfiniBand: the LRH follows directly; type 2 = Ethernet after
 *   a 2-byte offset/pad; 22/23 = raw IPv4/IPv6. wlen is the length on the wire.
 */
#include <pcap/dlt.h>

#include "dissect/internal.h"

#define ETH_HDR 14
#define VLAN_TAG 4
#define SLL_HDR 16
#define SLL2_HDR 20
#define ERF_HDR 16
#define ERF_EXT_HDR 8

enum {
	ETHERTYPE_IPV4 = 0x0800,
	ETHERTYPE_IPV6 = 0x86DD,
	ETHERTYPE_8021Q = 0x8100,
	ETHERTYPE_8021AD = 0x88A8,
	ETHERTYPE_QINQ_OLD = 0x9100,
	ETHERTYPE_MIN = 0x0600, /* below: an 802.3 length, not a type */
};

enum {
	ERF_TYPE_ETH = 2,
	ERF_TYPE_COLOR_ETH = 11,
	ERF_TYPE_DSM_COLOR_ETH = 16,
	ERF_TYPE_COLOR_HASH_ETH = 20,
	ERF_TYPE_INFINIBAND = 21,
	ERF_TYPE_IPV4 = 22,
	ERF_TYPE_IPV6 = 23,
	ERF_TYPE_PAD = 48,
	ERF_EXT_MORE = 0x80,
};

static bool is_vlan_tpid(uint16_t t)
{
	return t == ETHERTYPE_8021Q || t == ETHERTYPE_8021AD || t == ETHERTYPE_QINQ_OLD;
}

/* Walk any VLAN tags, then hand the innermost EtherType to its decoder. */
static enum rs_outcome ethertype_chain(struct rs_dctx *d, uint16_t type, uint32_t off, uint32_t wire_end)
{
	struct rs_frame *f = d->f;

	while (is_vlan_tpid(type)) {
		if (f->nvlan == RS_MAX_VLAN)
			return rs_fail(f, RS_UNSUPPORTED, off, "more than %llu stacked VLAN tags", RS_MAX_VLAN, 0);
		if (wire_end - off < VLAN_TAG)
			return rs_fail(f, RS_MALFORMED, off, "VLAN tag needs %llu bytes, %llu left in the frame",
				       VLAN_TAG, wire_end - off);
		struct rs_cursor c = rs_cur_at(d, off);
		uint16_t tci = rs_cur_be16(&c);
		uint16_t next = rs_cur_be16(&c);
		if (c.overrun)
			return rs_fail(f, RS_TRUNCATED, off, "VLAN tag cut by the capture length (%llu bytes captured)",
				       d->caplen, 0);
		f->vlan_tpid[f->nvlan] = type;
		f->vlan_tci[f->nvlan] = tci;
		f->nvlan++;
		rs_layer(d, RS_L_VLAN, off, VLAN_TAG); /* TCI + next type; the TPID ended the header before */
		type = next;
		off += VLAN_TAG;
	}
	return rs_dissect_ethertype(d, type, off, wire_end);
}

enum rs_outcome rs_dissect_ethertype(struct rs_dctx *d, uint16_t type, uint32_t off, uint32_t wire_end)
{
	d->f->ethertype = type;
	switch (type) {
	case ETHERTYPE_IPV4:
		return rs_dissect_ipv4(d, off, wire_end);
	case ETHERTYPE_IPV6:
		return rs_dissect_ipv6(d, off, wire_end);
	case RS_ETHERTYPE_ROCE:
		return rs_dissect_roce_v1(d, off, wire_end);
	case RS_ETHERTYPE_MAC_CONTROL:
		return rs_dissect_mac_control(d, off, wire_end);
	default:
		return rs_not_roce(d->f);
	}
}

struct eth_hdr {
	const uint8_t *dst, *src; /* NULL where the capture stops before them */
	uint16_t type;
};

static inline __attribute__((always_inline)) void ethernet_fields(struct rs_cursor *c, struct eth_hdr *h)
{
	h->dst = rs_cur_take(c, 6);
	h->src = rs_cur_take(c, 6);
	h->type = rs_cur_be16(c);
}

static enum rs_outcome ethernet(struct rs_dctx *d, uint32_t off, uint32_t wire_end)
{
	struct rs_frame *f = d->f;

	if (wire_end - off < ETH_HDR)
		return rs_fail(f, RS_MALFORMED, off, "frame of %llu bytes is shorter than an Ethernet header (%llu)",
			       wire_end - off, ETH_HDR);
	struct rs_cursor c = rs_cur_at(d, off);
	struct eth_hdr h;
	RS_CUR_FIXED(&c, ETH_HDR, ethernet_fields, &h);
	rs_copy_or_zero(f->eth_dst, h.dst, 6);
	rs_copy_or_zero(f->eth_src, h.src, 6);
	uint16_t type = h.type;
	if (c.overrun)
		return rs_fail(f, RS_TRUNCATED, off, "Ethernet header cut by the capture length (%llu bytes captured)",
			       d->caplen, 0);
	d->w->link_type = type;
	f->have |= RS_HAVE_ETH;
	rs_layer(d, RS_L_ETH, off, ETH_HDR);
	if (type < ETHERTYPE_MIN)
		return rs_not_roce(f); /* 802.3 length field: LLC, never RoCE */
	return ethertype_chain(d, type, off + ETH_HDR, wire_end);
}

static enum rs_outcome sll(struct rs_dctx *d, uint32_t wire_end, bool v2)
{
	struct rs_frame *f = d->f;
	uint32_t hdr = v2 ? SLL2_HDR : SLL_HDR;
	uint16_t proto;

	if (wire_end < hdr)
		return rs_fail(f, RS_MALFORMED, 0, "frame of %llu bytes is shorter than a Linux cooked header (%llu)",
			       wire_end, hdr);
	struct rs_cursor c = rs_cur_at(d, 0);
	if (v2) {
		proto = rs_cur_be16(&c);
		rs_cur_skip(&c, 2);
		f->sll_ifindex = rs_cur_be32(&c);
		f->sll_hatype = rs_cur_be16(&c);
		f->sll_pkttype = rs_cur_u8(&c);
		d->w->sll_halen = rs_cur_u8(&c);
		rs_copy_or_zero(d->w->sll_addr, rs_cur_take(&c, 8), 8);
	} else {
		f->sll_pkttype = rs_cur_be16(&c);
		f->sll_hatype = rs_cur_be16(&c);
		d->w->sll_halen = rs_cur_be16(&c);
		rs_copy_or_zero(d->w->sll_addr, rs_cur_take(&c, 8), 8);
		proto = rs_cur_be16(&c);
	}
	if (c.overrun)
		return rs_fail(f, RS_TRUNCATED, 0, "Linux cooked header cut by the capture length (%llu bytes captured)",
			       d->caplen, 0);
	d->w->link_type = proto;
	f->have |= RS_HAVE_SLL;
	rs_layer(d, v2 ? RS_L_SLL2 : RS_L_SLL, 0, hdr);
	if (proto < ETHERTYPE_MIN)
		return rs_not_roce(f); /* ETH_P_802_3, ETH_P_802_2, ... */
	return ethertype_chain(d, proto, hdr, wire_end);
}

static enum rs_outcome raw_ip(struct rs_dctx *d, uint32_t off, uint32_t wire_end)
{
	if (wire_end <= off)
		return rs_fail(d->f, RS_MALFORMED, off, "empty raw IP frame", 0, 0);
	struct rs_cursor c = rs_cur_at(d, off);
	uint8_t v = rs_cur_u8(&c) >> 4;
	if (c.overrun)
		return rs_fail(d->f, RS_TRUNCATED, off, "raw IP frame with no captured bytes", 0, 0);
	if (v == 4)
		return rs_dissect_ipv4(d, off, wire_end);
	if (v == 6)
		return rs_dissect_ipv6(d, off, wire_end);
	return rs_not_roce(d->f);
}

static enum rs_outcome erf_record(struct rs_dctx *d, uint32_t wire_end)
{
	struct rs_frame *f = d->f;

	if (wire_end < ERF_HDR)
		return rs_fail(f, RS_MALFORMED, 0, "record of %llu bytes is shorter than an ERF header (%llu)",
			       wire_end, ERF_HDR);
	struct rs_cursor c = rs_cur_at(d, 0);
	uint64_t ts = (uint64_t)rs_cur_le32(&c);
	ts |= (uint64_t)rs_cur_le32(&c) << 32;
	uint8_t type = rs_cur_u8(&c);
	d->w->erf_flags = rs_cur_u8(&c);
	d->w->erf_rlen = rs_cur_be16(&c);
	d->w->erf_lctr = rs_cur_be16(&c);
	uint16_t wlen = rs_cur_be16(&c);
	if (c.overrun)
		return rs_fail(f, RS_TRUNCATED, 0, "ERF header cut by the capture length (%llu bytes captured)",
			       d->caplen, 0);
	uint32_t off = ERF_HDR;
	uint8_t ext = type;
	while (ext & ERF_EXT_MORE) { /* extension headers chain while bit 7 is set */
		if (wire_end - off < ERF_EXT_HDR)
			return rs_fail(f, RS_MALFORMED, off, "ERF extension header runs past the record (%llu bytes)",
				       wire_end, 0);
		struct rs_cursor e = rs_cur_at(d, off);
		ext = rs_cur_u8(&e);
		if (e.overrun)
			return rs_fail(f, RS_TRUNCATED, off, "ERF extension header cut by the capture length", 0, 0);
		off += ERF_EXT_HDR;
	}
	f->erf_type = type & 0x7F;
	f->erf_wlen = wlen;
	d->w->erf_ts_raw = ts;
	d->w->erf_ext = type & ERF_EXT_MORE;
	/* Seconds in the upper 32 bits, a binary fraction below: round to ns. */
	uint64_t ns = ((ts & 0xFFFFFFFFu) * 1000000000u + 0x80000000u) >> 32;
	f->erf_ts_ns = (ts >> 32) * 1000000000u + ns;
	f->have |= RS_HAVE_ERF;
	bool eth = f->erf_type == ERF_TYPE_ETH || f->erf_type == ERF_TYPE_COLOR_ETH ||
		   f->erf_type == ERF_TYPE_DSM_COLOR_ETH || f->erf_type == ERF_TYPE_COLOR_HASH_ETH;
	/* The Ethernet types' 2-byte offset/pad belongs to the ERF layer, so
	 * the layers keep tiling the record. */
	f->erf_hdr = (uint16_t)(eth && wire_end - off >= 2 ? off + 2 : off);
	rs_layer(d, RS_L_ERF, 0, f->erf_hdr);

	/* The record may carry padding after the packet: wlen bounds it. */
	uint32_t end = wire_end;
	if (wlen != 0 && (uint64_t)off + wlen < end)
		end = off + wlen;

	switch (f->erf_type) {
	case ERF_TYPE_INFINIBAND:
		return rs_dissect_lrh(d, off, end);
	case ERF_TYPE_ETH:
	case ERF_TYPE_COLOR_ETH:
	case ERF_TYPE_DSM_COLOR_ETH:
	case ERF_TYPE_COLOR_HASH_ETH:
		/* 2 bytes of offset/pad precede the frame; wlen counts the frame. */
		if (wlen != 0 && (uint64_t)off + 2 + wlen < wire_end)
			end = off + 2 + wlen;
		else
			end = wire_end;
		if (end - off < 2)
			return rs_fail(f, RS_MALFORMED, off, "ERF Ethernet record too short for its pad", 0, 0);
		return ethernet(d, off + 2, end);
	case ERF_TYPE_IPV4:
	case ERF_TYPE_IPV6:
		return raw_ip(d, off, end);
	case ERF_TYPE_PAD:
		return rs_not_roce(f);
	default:
		return rs_fail(f, RS_UNSUPPORTED, 8, "ERF record type %llu is not decoded", f->erf_type, 0);
	}
}

bool rs_linktype_supported(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_LINUX_SLL:
	case DLT_LINUX_SLL2:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
	case DLT_INFINIBAND:
	case DLT_ERF:
		return true;
	default:
		return false;
	}
}

static void frame_reset(struct rs_frame *f, uint32_t caplen, uint32_t wirelen)
{
	/* Only what every reader relies on; the rest is valid per `have`. */
	f->caplen = caplen;
	f->wirelen = wirelen;
	f->outcome = RS_OK;
	f->roce = RS_ROCE_NONE;
	f->sliced = RS_SLICE_NONE;
	f->sliced_wirelen = 0;
	f->have = 0;
	f->ext = 0;
	f->pdu = NULL;
	f->mad = NULL;
	f->pfc = NULL;
	f->adv = NULL;
	f->roce_elsewhere = 0;
	f->why = NULL; /* why_a, why_b and why_off are valid with it */
	f->nvlan = 0;
	f->ethertype = 0;
	/* whole addresses, not just the kind: a frame that stops before its
	 * network header still hands its (empty) addresses to the sinks */
	memset(&f->src, 0, sizeof f->src);
	memset(&f->dst, 0, sizeof f->dst);
	f->ip_version = 0;
	f->dscp = f->ecn = 0;
	f->bth_off = f->transport_len = 0;
	f->payload_off = f->payload_len = 0;
	f->trailer_len = 0;
	f->icrc = f->icrc_calc = 0;
	f->icrc_status = RS_CRC_UNCHECKED;
	f->icrc_sport = 0;
	f->vcrc = f->vcrc_calc = 0;
	f->vcrc_status = RS_CRC_UNCHECKED;
}

enum rs_outcome rs_dissect(const struct rs_dissect_opts *opts, int dlt, const uint8_t *pkt, uint32_t caplen,
			   uint32_t wirelen, struct rs_frame *f, struct rs_frame_ext *x)
{
	static const struct rs_dissect_opts defaults;
	struct rs_frame_walk scratch;
	struct rs_dctx d = { .opts = opts ? opts : &defaults, .pkt = pkt, .caplen = caplen, .f = f, .x = x };
	d.layers = !d.opts->skip_layers;
	d.w = d.layers ? &x->walk : &scratch;
	d.w->nlayers = 0;

	frame_reset(f, caplen, wirelen);
	f->walk = d.layers ? d.w : NULL;
	if (caplen > wirelen)
		return rs_fail(f, RS_MALFORMED, 0, "captured length %llu exceeds the frame's length on the wire %llu",
			       caplen, wirelen);

	switch (dlt) {
	case DLT_EN10MB:
		return ethernet(&d, 0, wirelen);
	case DLT_LINUX_SLL:
		return sll(&d, wirelen, false);
	case DLT_LINUX_SLL2:
		return sll(&d, wirelen, true);
	case DLT_RAW:
		return raw_ip(&d, 0, wirelen);
	case DLT_IPV4:
		return rs_dissect_ipv4(&d, 0, wirelen);
	case DLT_IPV6:
		return rs_dissect_ipv6(&d, 0, wirelen);
	case DLT_INFINIBAND:
		return rs_dissect_lrh(&d, 0, wirelen);
	case DLT_ERF:
		return erf_record(&d, wirelen);
	default:
		return rs_fail(f, RS_UNSUPPORTED, 0, "link type %llu is not decoded", (unsigned long long)dlt, 0);
	}
}

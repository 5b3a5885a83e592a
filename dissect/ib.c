/*
 * ib.c — the InfiniBand headers: LRH and GRH (native IB, RoCE v1), the Base
 * Transport Header and every extension header (IBA vol 1 release 1.4, ch. 7-9;
 * RoCE: Annex A16 (v1) and A17 (v2)), the ICRC and the VCRC.
 *
 * LRH, 8 bytes (IBA 7.7):
 *   | VL(4) LVer(4) | SL(4) rsv(2) LNH(2) | DLID(16) | rsv(5) PktLen(11) | SLID(16) |
 *   LNH 2 = BTH follows, 3 = GRH then BTH. PktLen counts 4-byte words from
 *   the LRH through the ICRC; the 2-byte VCRC follows.
 *
 * GRH, 40 bytes (IBA 8.3):
 *   | IPVer(4) TClass(8) FlowLabel(20) | PayLen(16) NxtHdr(8) HopLmt(8) | SGID(128) | DGID(128) |
 *   PayLen counts from after the GRH through the ICRC; NxtHdr 0x1B = IBA.
 *
 * BTH, 12 bytes (IBA 9.2):
 *    0               1               2               3
 *   |    OpCode     |S|M|Pad|  TVer |            P_Key              |
 *   |F|B|   Resv6   |               Destination QP                  |
 *   |A|    Resv7    |           Packet Sequence Number              |
 *   F/B are FECN/BECN (Annex A10.2.2, A17.9); S = solicited event,
 *   M = migration request, A = acknowledge request.
 *
 * Extension headers, present per opcode (IBA 9.2 Table 38), in this order:
 *   RDETH  4  | Resv(8) | EE-Context(24) |
 *   DETH   8  | Q_Key(32) | Resv(8) | Source QP(24) |
 *   XRCETH 4  | Resv(8) | XRC SRQ(24) |                         (Annex A14)
 *   FETH   4  | Resv(26) | SelLevel(2) | PlacementType(4) |     (1.5 MPE)
 *   RETH  16  | Virtual Address(64) | R_Key(32) | DMA Length(32) |
 *   AtomicETH 28 | VA(64) | R_Key(32) | Swap/Add(64) | Compare(64) |
 *   AETH   4  | Syndrome(8) | MSN(24) |
 *   AtomicAckETH 8 | Original Remote Data(64) |
 *   ImmDt  4, IETH 4 (R_Key to invalidate), CNP 16 reserved bytes (A17.9.3)
 * then the payload, PadCnt pad bytes, the 4-byte ICRC (and VCRC on IB).
 *
 * NVIDIA DC (Dynamically Connected, ConnectX-5 and later) reuses the RD
 * opcode range (0x40-0x5F) with its own header, DCETH, 20 bytes right after
 * the BTH, then the extension headers of the RC opcode with the same low
 * bits (no RDETH, no DETH). Unpublished; from the bytes of ibdump captures,
 * Wireshark's DC code (20 bytes, a 16-byte DCCETH on connect) and rdma-core's
 * mlx5 DC verbs (24-bit DCT number, 64-bit DC key):
 *   DCETH 20  | Flags(8) | Src QP(24) | 0(8) Ctx(24) | 0(8) Session(24) | 0(8) DCT(24) | 0(32) |
 *   DCCETH 16 (opcode 0x55, a connect) | 8 bytes | DC Key(64) |
 * A DC packet is told from RD by the DCETH's flags (0x10 or 0x11: RD's RDETH
 * starts with a reserved zero byte) and its zero bytes.
 */
#include "dissect/internal.h"

#define LRH_LEN 8
#define GRH_LEN 40
#define BTH_LEN 12
#define ICRC_LEN 4
#define DCETH_LEN 20
#define DCCETH_LEN 16
#define DC_CONNECT 0x55
#define VCRC_LEN 2
/* The largest packet an IBA length may claim on a frame a capture cut: a
 * 4096-byte MTU plus headers (LRH, GRH, BTH, the longest extension header
 * chain, DCETH/DCCETH, pad, ICRC) with room to spare. RoCE v1 and LRH-only
 * packets have no second length (v2 has the UDP length) to confirm a length
 * that runs past a record claiming to be whole; one within this bound, on a
 * frame the capture ends, is taken as sliced, anything longer stays a lie. */
#define IBA_MAX_PACKET (4096 + 256)

enum { LNH_RAW = 0, LNH_IP_NON_IBA = 1, LNH_IBA_LOCAL = 2, LNH_IBA_GLOBAL = 3 };

enum {
	RDETH_LEN = 4, DETH_LEN = 8, XRCETH_LEN = 4, FETH_LEN = 4, RETH_LEN = 16, ATOMICETH_LEN = 28,
	AETH_LEN = 4, ATOMICACKETH_LEN = 8, IMMDT_LEN = 4, IETH_LEN = 4, CNP_LEN = 16,
};

/* Sizes and layer ids of the extension headers, in wire order (opcodes.h). */
static const struct {
	uint16_t bit;
	uint8_t len;
	uint8_t layer;
	const char *cut; /* message when the capture ends inside it */
} ext_hdrs[] = {
	{ RS_EXT_RDETH, RDETH_LEN, RS_L_RDETH, "RDETH cut by the capture length (%llu bytes captured)" },
	{ RS_EXT_DETH, DETH_LEN, RS_L_DETH, "DETH cut by the capture length (%llu bytes captured)" },
	{ RS_EXT_XRCETH, XRCETH_LEN, RS_L_XRCETH, "XRCETH cut by the capture length (%llu bytes captured)" },
	{ RS_EXT_FETH, FETH_LEN, RS_L_FETH, "FETH cut by the capture length (%llu bytes captured)" },
	{ RS_EXT_RETH, RETH_LEN, RS_L_RETH, "RETH cut by the capture length (%llu bytes captured)" },
	{ RS_EXT_ATOMICETH, ATOMICETH_LEN, RS_L_ATOMICETH, "AtomicETH cut by the capture length (%llu bytes captured)" },
	{ RS_EXT_AETH, AETH_LEN, RS_L_AETH, "AETH cut by the capture length (%llu bytes captured)" },
	{ RS_EXT_ATOMICACKETH, ATOMICACKETH_LEN, RS_L_ATOMICACKETH,
	  "AtomicAckETH cut by the capture length (%llu bytes captured)" },
	{ RS_EXT_IMMDT, IMMDT_LEN, RS_L_IMMDT, "ImmDt cut by the capture length (%llu bytes captured)" },
	{ RS_EXT_IETH, IETH_LEN, RS_L_IETH, "IETH cut by the capture length (%llu bytes captured)" },
	{ RS_EXT_CNP, CNP_LEN, RS_L_CNP, "CNP reserved bytes cut by the capture length (%llu bytes captured)" },
};

/* ext_hdrs[i].bit is 1 << i: walk the set bits only (0 to 3 of them), so
 * the loop's branches follow the opcode instead of eleven guesses. */
#define EXT_HDR_BITS ((1u << (sizeof ext_hdrs / sizeof ext_hdrs[0])) - 1)
_Static_assert(RS_EXT_RDETH == 1u << 0 && RS_EXT_DETH == 1u << 1 && RS_EXT_XRCETH == 1u << 2 &&
		       RS_EXT_FETH == 1u << 3 && RS_EXT_RETH == 1u << 4 && RS_EXT_ATOMICETH == 1u << 5 &&
		       RS_EXT_AETH == 1u << 6 && RS_EXT_ATOMICACKETH == 1u << 7 && RS_EXT_IMMDT == 1u << 8 &&
		       RS_EXT_IETH == 1u << 9 && RS_EXT_CNP == 1u << 10,
	       "ext_hdrs[] is indexed by the bit number of its RS_EXT_ flag");

static uint32_t ext_len(uint16_t ext)
{
	uint32_t n = 0;
	for (unsigned m = ext & EXT_HDR_BITS; m; m &= m - 1)
		n += ext_hdrs[__builtin_ctz(m)].len;
	return n;
}

/* Mask the variant fields of a GRH or IPv6 header to ones: traffic class,
 * flow label and hop limit (IBA 7.8.1; A17.4.5.2 for IPv6). */
static void mask_grh(uint8_t *h)
{
	h[0] |= 0x0F;
	h[1] = h[2] = h[3] = 0xFF;
	h[7] = 0xFF;
}

/* The masks of the ICRC's variant fields (IBA 7.8.1, Annex A17.3.3) for
 * the usual header layouts, from 8 bytes before the network header (the
 * LRH's place, all ones) to the end of the BTH: ORed in as the CRC reads
 * the packet (rs_crc32_update2), so nothing is copied. */
#define MASK_GRH_AT(o) [(o)] = 0x0F, [(o) + 1] = 0xFF, [(o) + 2] = 0xFF, [(o) + 3] = 0xFF, [(o) + 7] = 0xFF
#define MASK_LRH [0] = 0xFF, [1] = 0xFF, [2] = 0xFF, [3] = 0xFF, [4] = 0xFF, [5] = 0xFF, [6] = 0xFF, [7] = 0xFF
static const uint8_t icrc_mask_ipv4[8 + 20 + 8 + BTH_LEN] = {
	MASK_LRH, [8 + 1] = 0xFF /* TOS */, [8 + 8] = 0xFF /* TTL */, [8 + 10] = 0xFF, [8 + 11] = 0xFF /* checksum */,
	[28 + 6] = 0xFF, [28 + 7] = 0xFF /* UDP checksum */, [36 + 4] = 0xFF /* FECN, BECN, Resv6 */
};
static const uint8_t icrc_mask_ipv6[8 + GRH_LEN + 8 + BTH_LEN] = {
	MASK_LRH, MASK_GRH_AT(8), [48 + 6] = 0xFF, [48 + 7] = 0xFF, [56 + 4] = 0xFF
};
static const uint8_t icrc_mask_grh[8 + GRH_LEN + BTH_LEN] = { MASK_LRH, MASK_GRH_AT(8), [48 + 4] = 0xFF };

/* The ICRC covers the packet from the network header on, with the variant
 * fields masked to ones. Usual layouts (IPv4 without options, IPv6 without
 * extension headers, a GRH right before the BTH, with 8 captured bytes
 * before the network header) are read in place with a mask; others gather
 * the masked headers into one small buffer. The rest (extension headers,
 * payload, pad) is taken in place, in the same rs_crc32_update2() call: the
 * carry-less-multiply CRC folds from one into the other (crc_fold.c). */
static uint32_t icrc_compute(const struct rs_dctx *d, uint32_t bth_off, uint32_t icrc_off)
{
	const uint8_t *p = d->pkt;
	const uint8_t *body = p + bth_off + BTH_LEN;
	uint32_t nbody = icrc_off - bth_off - BTH_LEN;
	const uint8_t *mask = NULL;
	size_t from = 0, nmask = 0;
	if (d->carrier == RS_CARRIER_IPV4 && d->net_off >= 8 && d->net_hdr_len == 20 && d->udp_off == d->net_off + 20 &&
	    bth_off == d->udp_off + 8) {
		mask = icrc_mask_ipv4;
		nmask = sizeof icrc_mask_ipv4;
		from = d->net_off;
	} else if (d->carrier == RS_CARRIER_IPV6 && d->net_off >= 8 && d->udp_off == d->net_off + GRH_LEN &&
		   bth_off == d->udp_off + 8) {
		mask = icrc_mask_ipv6;
		nmask = sizeof icrc_mask_ipv6;
		from = d->net_off;
	} else if ((d->carrier == RS_CARRIER_GRH || d->carrier == RS_CARRIER_LRH_GRH) && d->grh_off >= 8 &&
		   bth_off == d->grh_off + GRH_LEN) {
		mask = icrc_mask_grh;
		nmask = sizeof icrc_mask_grh;
		from = d->grh_off;
	}
	if (mask)
		return ~rs_crc32_update2(0xFFFFFFFFu, p + from - 8, mask, nmask, body, nbody);

	uint8_t tmp[8 + 60 + 8 + BTH_LEN]; /* ones, IPv4 with options (or GRH), UDP, BTH */
	uint32_t k = 0;
	uint32_t crc = 0xFFFFFFFFu;

	switch (d->carrier) {
	case RS_CARRIER_IPV4: /* LRH replaced by ones; TOS, TTL, checksum masked */
		memset(tmp, 0xFF, 8);
		memcpy(tmp + 8, p + d->net_off, d->net_hdr_len);
		tmp[8 + 1] = 0xFF;
		tmp[8 + 8] = 0xFF;
		tmp[8 + 10] = tmp[8 + 11] = 0xFF;
		k = 8 + d->net_hdr_len;
		break;
	case RS_CARRIER_IPV6:
		memset(tmp, 0xFF, 8);
		memcpy(tmp + 8, p + d->net_off, GRH_LEN);
		mask_grh(tmp + 8);
		k = 8 + GRH_LEN;
		if (d->udp_off != d->net_off + GRH_LEN) {
			/* extension headers, if any, are invariant */
			crc = rs_crc32_update(crc, tmp, k);
			crc = rs_crc32_update(crc, p + d->net_off + GRH_LEN, d->udp_off - d->net_off - GRH_LEN);
			k = 0;
		}
		break;
	case RS_CARRIER_GRH:
	case RS_CARRIER_LRH_GRH: /* a routed packet's LRH changes hop by hop */
		memset(tmp, 0xFF, 8);
		memcpy(tmp + 8, p + d->grh_off, GRH_LEN);
		mask_grh(tmp + 8);
		k = 8 + GRH_LEN;
		break;
	case RS_CARRIER_LRH: /* only the virtual lane may change */
		memcpy(tmp, p + d->net_off, LRH_LEN);
		tmp[0] |= 0xF0;
		k = LRH_LEN;
		break;
	case RS_CARRIER_NONE:
		break;
	}
	if (d->carrier == RS_CARRIER_IPV4 || d->carrier == RS_CARRIER_IPV6) {
		memcpy(tmp + k, p + d->udp_off, 8);
		tmp[k + 6] = tmp[k + 7] = 0xFF; /* UDP checksum */
		k += 8;
	}
	memcpy(tmp + k, p + bth_off, BTH_LEN);
	tmp[k + 4] = 0xFF; /* FECN, BECN and Resv6 */
	k += BTH_LEN;
	crc = rs_crc32_update2(crc, tmp, NULL, k, body, nbody);
	return ~crc;
}

static inline __attribute__((always_inline)) void bth_fields(struct rs_cursor *c, struct rs_bth *b)
{
	b->opcode = rs_cur_u8(c);
	uint8_t x = rs_cur_u8(c);
	b->se = x >> 7;
	b->migreq = (x >> 6) & 1;
	b->padcnt = (x >> 4) & 3;
	b->tver = x & 0x0F;
	b->pkey = rs_cur_be16(c);
	x = rs_cur_u8(c);
	b->fecn = x >> 7;
	b->becn = (x >> 6) & 1;
	b->resv6 = x & 0x3F;
	b->destqp = rs_cur_be24(c);
	x = rs_cur_u8(c);
	b->ackreq = x >> 7;
	b->resv7 = x & 0x7F;
	b->psn = rs_cur_be24(c);
}

bool rs_bth_shaped(const struct rs_dctx *d, uint32_t bth_off, uint32_t end)
{
	if (end > d->caplen || end < bth_off || end - bth_off < BTH_LEN + ICRC_LEN)
		return false;
	struct rs_cursor c = rs_cur_at(d, bth_off);
	uint8_t opcode = rs_cur_u8(&c), flags = rs_cur_u8(&c);
	if (c.overrun || (flags & 0x0F) != 0 || rs_opinfo(opcode)->kind == RS_KIND_NONE)
		return false;
	struct rs_cursor ic = rs_cur_at(d, end - ICRC_LEN);
	uint32_t icrc = rs_cur_le32(&ic);
	return !ic.overrun && icrc_compute(d, bth_off, end - ICRC_LEN) == icrc;
}

static inline __attribute__((always_inline)) void icrc_field(struct rs_cursor *c, struct rs_frame *f)
{
	f->icrc = rs_cur_le32(c);
}

/* Each extension header's fields, read through the fixed-size fast path
 * (RS_CUR_FIXED) with the slow one for a header the capture cuts. */
#define EXT_FIELDS(name) static inline __attribute__((always_inline)) void name(struct rs_cursor *c, struct rs_frame *f)
EXT_FIELDS(rdeth_fields)
{
	rs_cur_skip(c, 1);
	f->rdeth_eecnxt = rs_cur_be24(c);
}
/*
 * A RoCE v2 frame from UDP source port 4791 whose ICRC does not match: the
 * RDMA sniffer (tcpdump -i mlx5_0, ibdump) writes 4791 over the source port
 * the NIC used when it computed the ICRC. The CRC is linear: flipping the
 * bits d of the port changes the CRC by D(d) whatever the rest of the
 * packet, so the port p whose ICRC matches solves calc ^ D(4791 ^ p) == icrc.
 * Returns p, or 0 when no port (other than 4791) makes the ICRC match: the
 * packet changed elsewhere. 32 equations in 16 unknowns: a corrupted frame
 * passes by chance once in 65536. Every frame of an unsliced sniffer capture
 * comes here, so the effect of the port's bits is carried to the end of the
 * packet by multiplication (rs_crc32_zeros), not by reading the rest of the
 * packet 16 times, and the system is solved by elimination, not by trying
 * 65535 ports.
 */
static uint16_t icrc_solve_sport(const struct rs_dctx *d, uint32_t icrc_off, uint32_t want_xor)
{
	/* col[i]: what flipping bit i of the port does to the CRC. The CRC reads
	 * the port's bytes in order, each from its lowest bit: the last bit read
	 * (bit 7) is shifted least; each bit read one step earlier, once more
	 * (times x). */
	static const uint8_t last_bit[2] = { 0x00, 0x80 };
	uint32_t col[16];
	uint32_t e = rs_crc32_zeros(rs_crc32_update(0, last_bit, 2), icrc_off - (d->udp_off + 2));
	for (int q = 15; q >= 0; q--) {
		col[q < 8 ? 8 + q : q - 8] = e;
		e = e & 1 ? (e >> 1) ^ 0xEDB88320u : e >> 1;
	}
	/* Solve col * delta == want_xor over GF(2): reduce each column by the
	 * pivots so far, remembering which port bits make it up. */
	uint32_t piv[32] = { 0 };
	uint16_t comb[32] = { 0 };
	for (unsigned i = 0; i < 16; i++) {
		uint32_t v = col[i];
		uint16_t m = (uint16_t)(1u << i);
		while (v && piv[31 - __builtin_clz(v)]) {
			unsigned b = 31u - (unsigned)__builtin_clz(v);
			m ^= comb[b];
			v ^= piv[b];
		}
		if (!v)
			return 0; /* dependent columns: the port would not be unique */
		piv[31 - __builtin_clz(v)] = v;
		comb[31 - __builtin_clz(v)] = m;
	}
	uint16_t delta = 0;
	for (uint32_t v = want_xor; v;) {
		unsigned b = 31u - (unsigned)__builtin_clz(v);
		if (!piv[b])
			return 0; /* no port makes it match */
		delta ^= comb[b];
		v ^= piv[b];
	}
	return delta ? (uint16_t)(RS_ROCE_UDP_PORT ^ delta) : 0;
}

EXT_FIELDS(deth_fields)
{
	f->deth.qkey = rs_cur_be32(c);
	rs_cur_skip(c, 1);
	f->deth.srcqp = rs_cur_be24(c);
}
EXT_FIELDS(xrceth_fields)
{
	rs_cur_skip(c, 1);
	f->xrceth_srqn = rs_cur_be24(c);
}
EXT_FIELDS(feth_fields)
{
	f->feth = rs_cur_be32(c);
}
EXT_FIELDS(reth_fields)
{
	f->reth.va = rs_cur_be64(c);
	f->reth.rkey = rs_cur_be32(c);
	f->reth.dmalen = rs_cur_be32(c);
}
EXT_FIELDS(atomiceth_fields)
{
	f->atomic.va = rs_cur_be64(c);
	f->atomic.rkey = rs_cur_be32(c);
	f->atomic.swap = rs_cur_be64(c);
	f->atomic.cmp = rs_cur_be64(c);
}
EXT_FIELDS(aeth_fields)
{
	f->aeth.syndrome = rs_cur_u8(c);
	f->aeth.msn = rs_cur_be24(c);
}
EXT_FIELDS(atomicacketh_fields)
{
	f->atomicack_orig = rs_cur_be64(c);
}
EXT_FIELDS(immdt_fields)
{
	f->immdt = rs_cur_be32(c);
}
EXT_FIELDS(ieth_fields)
{
	f->ieth_rkey = rs_cur_be32(c);
}

static void decode_ext(struct rs_cursor *c, uint16_t bit, struct rs_frame *f)
{
	switch (bit) {
	case RS_EXT_RDETH:
		RS_CUR_FIXED(c, RDETH_LEN, rdeth_fields, f);
		break;
	case RS_EXT_DETH:
		RS_CUR_FIXED(c, DETH_LEN, deth_fields, f);
		break;
	case RS_EXT_XRCETH:
		RS_CUR_FIXED(c, XRCETH_LEN, xrceth_fields, f);
		break;
	case RS_EXT_FETH:
		RS_CUR_FIXED(c, FETH_LEN, feth_fields, f);
		break;
	case RS_EXT_RETH:
		RS_CUR_FIXED(c, RETH_LEN, reth_fields, f);
		break;
	case RS_EXT_ATOMICETH:
		RS_CUR_FIXED(c, ATOMICETH_LEN, atomiceth_fields, f);
		break;
	case RS_EXT_AETH:
		RS_CUR_FIXED(c, AETH_LEN, aeth_fields, f);
		break;
	case RS_EXT_ATOMICACKETH:
		RS_CUR_FIXED(c, ATOMICACKETH_LEN, atomicacketh_fields, f);
		break;
	case RS_EXT_IMMDT:
		RS_CUR_FIXED(c, IMMDT_LEN, immdt_fields, f);
		break;
	case RS_EXT_IETH:
		RS_CUR_FIXED(c, IETH_LEN, ieth_fields, f);
		break;
	case RS_EXT_CNP:
		rs_cur_skip(c, CNP_LEN);
		break;
	}
}

/* An RD-range opcode followed by a DCETH, read in place: 0x10/0x11 and the
 * zero bytes where RD has a reserved zero byte then its EE context. Not
 * captured: not DC (the RD reading then reports the cut). */
static bool dc_layout(const struct rs_dctx *d, uint32_t at, uint32_t tlen)
{
	if (tlen < BTH_LEN + DCETH_LEN + ICRC_LEN)
		return false;
	struct rs_cursor c = rs_cur_at(d, at);
	uint8_t flags = rs_cur_u8(&c);
	rs_cur_skip(&c, 3);
	uint8_t z1 = rs_cur_u8(&c);
	rs_cur_skip(&c, 3);
	uint8_t z2 = rs_cur_u8(&c);
	rs_cur_skip(&c, 3);
	uint8_t z3 = rs_cur_u8(&c);
	rs_cur_skip(&c, 3);
	uint32_t z4 = rs_cur_be32(&c);
	return !c.overrun && (flags == 0x10 || flags == 0x11) && !z1 && !z2 && !z3 && !z4;
}

EXT_FIELDS(dceth_fields)
{
	f->dceth.flags = rs_cur_u8(c);
	f->dceth.srcqp = rs_cur_be24(c);
	rs_cur_skip(c, 5);
	f->dceth.session = rs_cur_be24(c);
	rs_cur_skip(c, 1);
	f->dceth.dct = rs_cur_be24(c);
	rs_cur_skip(c, 4);
}
EXT_FIELDS(dcceth_fields)
{
	rs_cur_skip(c, 8);
	f->dceth.dc_key = rs_cur_be64(c);
}

/* The DC headers; returns the extension headers that follow them (those of
 * the RC opcode with the same low bits) and adds their length to *hlen. */
static uint16_t dc_headers(struct rs_dctx *d, struct rs_cursor *c, uint32_t *hlen)
{
	struct rs_frame *f = d->f;
	uint32_t at = c->off;
	f->dceth.dc_key = 0;
	RS_CUR_FIXED(c, DCETH_LEN, dceth_fields, f);
	rs_layer(d, RS_L_DCETH, at, DCETH_LEN);
	f->have |= RS_HAVE_DC;
	*hlen = DCETH_LEN;
	if (f->bth.opcode == DC_CONNECT) {
		at = c->off;
		RS_CUR_FIXED(c, DCCETH_LEN, dcceth_fields, f);
		rs_layer(d, RS_L_DCCETH, at, DCCETH_LEN);
		*hlen += DCCETH_LEN;
		return 0;
	}
	return rs_opinfo((uint8_t)(RS_TR_RC | (f->bth.opcode & 0x1F)))->ext;
}

/* The payload's layer, and what a native IB payload looks like: IPoIB
 * (RFC 4391) or not (the walkthrough says; RoCE payloads cost one test). */
static void payload_layer(struct rs_dctx *d, uint32_t off, uint32_t len)
{
	struct rs_frame *f = d->f;
	rs_layer(d, RS_L_PAYLOAD, off, len);
	d->w->ipoib_type = 0;
	if (f->roce != RS_ROCE_IB || len < 4)
		return;
	struct rs_cursor c = rs_cur_at(d, off);
	uint16_t type = rs_cur_be16(&c), resv = rs_cur_be16(&c);
	if (!c.overrun && resv == 0 && (type == 0x0800 || type == 0x0806 || type == 0x86DD))
		d->w->ipoib_type = type;
}

/* An RC SEND that starts a message, or an RDMA WRITE's first packet, may
 * carry an upper-layer PDU (proto/pdu.h: every decoder decides by the
 * shape; the analyzer by the connection's protocol). A decoder's header
 * with a layer of its own is that layer, the data after it the payload. */
static void pdu_or_payload(struct rs_dctx *d)
{
	struct rs_frame *f = d->f;
	uint8_t opc = f->bth.opcode;
	if (opc == IBV_OPCODE_RC_SEND_ONLY || opc == IBV_OPCODE_RC_SEND_FIRST || opc == IBV_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE)
		rs_dissect_advert(d);
	struct rs_cursor c = rs_cur_at(d, f->payload_off);
	struct rs_pdu_layer l;
	if (opc == IBV_OPCODE_RC_SEND_ONLY || opc == IBV_OPCODE_RC_SEND_FIRST || opc == IBV_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE
	    || opc == RS_OP_RC_SEND_ONLY_WITH_INVALIDATE) {
		if (rs_pdu_decode(&c, f->payload_len, opc != IBV_OPCODE_RC_SEND_FIRST, &d->x->pdu, &l)) {
			f->pdu = &d->x->pdu;
			if (l.len) {
				d->w->ipoib_type = 0; /* a view may show the header as plain payload (not its protocol's port) */
				rs_layer(d, (enum rs_layer_id)l.id, f->payload_off, l.len);
				if (f->payload_len > l.len)
					rs_layer(d, RS_L_PAYLOAD, f->payload_off + l.len, f->payload_len - l.len);
				return;
			}
		}
	} else if (rs_pdu_decode_write(&c, opc, f->payload_len, &d->x->pdu))
		f->pdu = &d->x->pdu; /* an RDMA WRITE's first packet: an RPC reply into a reply chunk (proto/pdu.h) */
	payload_layer(d, f->payload_off, f->payload_len);
}

/* The MAD header and the class data after it, in place of a payload layer. */
static void mad_layers(struct rs_dctx *d)
{
	const struct rs_frame *f = d->f;
	rs_layer(d, RS_L_MAD, f->payload_off, RS_MAD_HDR_SIZE);
	if (f->payload_len > RS_MAD_HDR_SIZE)
		rs_layer(d, RS_L_CM, f->payload_off + RS_MAD_HDR_SIZE, f->payload_len - RS_MAD_HDR_SIZE);
}

/* QP0/QP1 carry MADs in UD SEND Only packets (IBA 13.5.1). */
static enum rs_outcome mad(struct rs_dctx *d)
{
	struct rs_frame *f = d->f;
	uint32_t off = f->payload_off;
	uint32_t cap_end = off + f->payload_len < d->caplen ? off + f->payload_len : d->caplen;
	struct rs_cursor c;
	struct rs_mad_problem why = { NULL, 0, 0 };

	rs_cur_init(&c, d->pkt + (off < cap_end ? off : cap_end), off < cap_end ? cap_end - off : 0);
	struct rs_mad *md = &d->x->mad;
	f->mad = md;
	switch (rs_mad_decode(&c, f->payload_len, md, &why)) {
	case RS_MAD_OK:
		break;
	case RS_MAD_NOT_MAD:
		f->mad = NULL;
		if (f->payload_len)
			payload_layer(d, off, f->payload_len);
		return rs_fail(f, RS_MALFORMED, off, "QP%llu payload of %llu bytes is too short for a MAD header",
			       f->bth.destqp, f->payload_len);
	case RS_MAD_TRUNCATED:
		mad_layers(d);
		if (c.len < RS_MAD_HDR_SIZE)
			return rs_fail(f, RS_TRUNCATED, off, "MAD header cut by the capture length (%llu of %llu bytes)",
				       c.len, RS_MAD_HDR_SIZE);
		f->have |= RS_HAVE_MAD;
		return rs_fail(f, RS_TRUNCATED, off, "MAD cut by the capture length after %llu of its %llu bytes",
			       c.len, f->payload_len);
	case RS_MAD_MALFORMED:
		f->have |= RS_HAVE_MAD;
		mad_layers(d);
		return rs_fail(f, RS_MALFORMED, off, why.why, why.a, why.b);
	}
	f->have |= RS_HAVE_MAD;
	if (md->attr_ok)
		f->have |= RS_HAVE_CM;
	mad_layers(d);
	return (enum rs_outcome)f->outcome;
}

enum rs_outcome rs_dissect_transport(struct rs_dctx *d, uint32_t bth_off, uint32_t end)
{
	struct rs_frame *f = d->f;
	uint32_t tlen = end > bth_off ? end - bth_off : 0;

	f->bth_off = bth_off;
	f->transport_len = tlen;
	if (tlen < BTH_LEN + ICRC_LEN)
		return rs_fail(f, RS_MALFORMED, bth_off, "%llu bytes cannot hold a BTH and an ICRC (%llu)", tlen,
			       BTH_LEN + ICRC_LEN);

	struct rs_cursor c = rs_cur_at(d, bth_off);
	struct rs_bth *b = &f->bth;
	RS_CUR_FIXED(&c, BTH_LEN, bth_fields, b);
	if (c.overrun)
		return rs_fail(f, RS_TRUNCATED, bth_off, "BTH cut by the capture length (%llu bytes captured)", d->caplen,
			       0);
	f->have |= RS_HAVE_BTH;
	rs_layer(d, RS_L_BTH, bth_off, BTH_LEN);

	/* The ICRC covers the BTH through the pad whatever the opcode says
	 * follows, and the enclosing lengths already say where it sits: verify
	 * it before judging the opcode, so a frame whose opcode, PadCnt or TVer
	 * was corrupted reads as a bad ICRC, not merely as reserved/malformed. */
	uint32_t icrc_off = end - ICRC_LEN;
	if (end <= d->caplen) {
		struct rs_cursor ic = rs_cur_at(d, icrc_off);
		RS_CUR_FIXED(&ic, ICRC_LEN, icrc_field, f);
		f->have |= RS_HAVE_ICRC;
		if (!d->opts->skip_icrc) {
			f->icrc_calc = icrc_compute(d, bth_off, icrc_off);
			f->icrc_status = f->icrc_calc == f->icrc ? RS_CRC_OK : RS_CRC_BAD;
			if (f->icrc_status == RS_CRC_BAD && f->roce == RS_ROCE_V2 && f->udp_sport == RS_ROCE_UDP_PORT)
				f->icrc_sport = icrc_solve_sport(d, icrc_off, f->icrc ^ f->icrc_calc);
		}
	}

	const struct rs_opinfo *op = rs_opinfo(b->opcode);
	if (!op->defined)
		return rs_fail(f, RS_UNSUPPORTED, bth_off,
			       b->opcode >= RS_TR_MSP ? "opcode 0x%02llx is manufacturer specific: no header layout is defined"
						      : "opcode 0x%02llx is reserved: IBA Table 38 defines no headers for it",
			       b->opcode, 0);
	if (b->tver != 0)
		return rs_fail(f, RS_UNSUPPORTED, bth_off + 1, "BTH TVer %llu: only transport version 0 is defined",
			       b->tver, 0);
	uint16_t ext = op->ext;
	uint32_t dclen = 0;
	if ((b->opcode & 0xE0) == RS_TR_RD && dc_layout(d, bth_off + BTH_LEN, tlen))
		ext = (uint16_t)(dc_headers(d, &c, &dclen) | (op->ext & RS_EXT_PAYLOAD));
	f->ext = ext;

	uint32_t hlen = dclen + ext_len(ext);
	if ((uint64_t)BTH_LEN + hlen + ICRC_LEN > tlen)
		return rs_fail(f, RS_MALFORMED, bth_off, "the opcode's headers and ICRC need %llu bytes, the packet has %llu",
			       BTH_LEN + hlen + ICRC_LEN, tlen);
	for (unsigned m = ext & EXT_HDR_BITS; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);
		uint32_t at = c.off;
		decode_ext(&c, ext_hdrs[i].bit, f);
		if (c.overrun)
			return rs_fail(f, RS_TRUNCATED, at, ext_hdrs[i].cut, d->caplen, 0);
		rs_layer(d, (enum rs_layer_id)ext_hdrs[i].layer, at, ext_hdrs[i].len);
	}
	f->have |= RS_HAVE_EXT;

	uint32_t body = tlen - BTH_LEN - hlen - ICRC_LEN;
	f->payload_off = bth_off + BTH_LEN + hlen;
	if (!(ext & RS_EXT_PAYLOAD) && body != 0)
		return rs_fail(f, RS_MALFORMED, f->payload_off,
			       "%llu bytes between the headers and the ICRC of an opcode that carries no payload", body, 0);
	if (b->padcnt > body)
		return rs_fail(f, RS_MALFORMED, bth_off + 1, "PadCnt %llu is larger than the %llu-byte payload", b->padcnt,
			       body);
	f->payload_len = body - b->padcnt;
	enum rs_outcome o = (enum rs_outcome)f->outcome;
	if (b->opcode == IBV_OPCODE_UD_SEND_ONLY && b->destqp <= 1)
		o = mad(d); /* records the MAD layers where the payload would be */
	else if (f->payload_len)
		pdu_or_payload(d);
	if (b->padcnt)
		rs_layer(d, RS_L_PAD, f->payload_off + f->payload_len, b->padcnt);
	rs_layer(d, RS_L_ICRC, icrc_off, ICRC_LEN);
	if (end > d->caplen && o == RS_OK && f->sliced == RS_SLICE_NONE)
		f->sliced = RS_SLICE_SNAPLEN;
	return o;
}

/* A length of `bytes` that runs past wire_end is a capture's cut with the
 * record's length rewritten (see IBA_MAX_PACKET) when the capture ends
 * exactly there: bytes beyond wire_end that were captured would make it a
 * lie. */
static bool cut_here(const struct rs_dctx *d, uint32_t wire_end, uint32_t bytes)
{
	return wire_end == d->caplen && bytes <= IBA_MAX_PACKET;
}

/* The GRH of RoCE v1 or of a routed IB packet. *end receives where PayLen
 * says the packet (through the ICRC) ends; with may_slice (RoCE v1), a
 * PayLen past a frame the capture cut marks the frame sliced. */
static enum rs_outcome grh(struct rs_dctx *d, uint32_t off, uint32_t wire_end, bool may_slice, uint32_t *end)
{
	struct rs_frame *f = d->f;
	struct rs_grh *g = &f->grh;

	if (wire_end - off < GRH_LEN)
		return rs_fail(f, RS_MALFORMED, off, "%llu bytes left for a %llu-byte GRH", wire_end - off, GRH_LEN);
	struct rs_cursor c = rs_cur_at(d, off);
	struct rs_ip6hdr h;
	RS_CUR_FIXED(&c, GRH_LEN, rs_ip6hdr_fields, &h);
	g->paylen = h.paylen;
	g->nxthdr = h.nxt;
	g->hoplmt = h.hlim;
	rs_copy_or_zero(g->sgid, h.src, 16);
	rs_copy_or_zero(g->dgid, h.dst, 16);
	if (c.overrun)
		return rs_fail(f, RS_TRUNCATED, off, "GRH cut by the capture length (%llu bytes captured)", d->caplen, 0);
	uint32_t w = h.vtf;
	g->ipver = (uint8_t)(w >> 28);
	g->tclass = (uint8_t)(w >> 20);
	g->flowlabel = w & 0xFFFFF;
	f->have |= RS_HAVE_GRH;
	rs_layer(d, RS_L_GRH, off, GRH_LEN);
	f->src.kind = f->dst.kind = RS_ADDR_GID;
	memcpy(f->src.b, g->sgid, 16);
	memcpy(f->dst.b, g->dgid, 16);
	f->dscp = g->tclass >> 2;
	f->ecn = g->tclass & 3;
	f->ttl = g->hoplmt;
	f->flow_label = g->flowlabel;
	d->grh_off = off;

	if (g->ipver != 6)
		return rs_fail(f, RS_MALFORMED, off, "GRH IPVer is %llu, must be 6", g->ipver, 0);
	if (g->nxthdr != RS_GRH_NXTHDR_IBA)
		return rs_fail(f, RS_UNSUPPORTED, off + 6, "GRH next header 0x%02llx is not the IBA transport (0x1B)",
			       g->nxthdr, 0);
	if ((uint64_t)GRH_LEN + g->paylen > wire_end - off) {
		if (!may_slice || !cut_here(d, wire_end, GRH_LEN + (uint32_t)g->paylen))
			return rs_fail(f, RS_MALFORMED, off + 4,
				       "GRH PayLen %llu runs past the %llu bytes that follow the GRH", g->paylen,
				       wire_end - off - GRH_LEN);
		f->sliced = RS_SLICE_REWRITTEN;
		f->sliced_wirelen = off + GRH_LEN + g->paylen;
	}
	*end = off + GRH_LEN + g->paylen;
	return RS_OK;
}

enum rs_outcome rs_dissect_roce_v1(struct rs_dctx *d, uint32_t off, uint32_t wire_end)
{
	struct rs_frame *f = d->f;
	uint32_t end = 0;

	f->roce = RS_ROCE_V1;
	d->carrier = RS_CARRIER_GRH;
	d->net_off = off;
	if (grh(d, off, wire_end, true, &end) != RS_OK)
		return (enum rs_outcome)f->outcome;
	f->trailer_len = wire_end - end;
	enum rs_outcome o = rs_dissect_transport(d, off + GRH_LEN, end);
	if (f->trailer_len)
		rs_layer(d, RS_L_TRAILER, end, f->trailer_len);
	return o;
}

enum rs_outcome rs_dissect_lrh(struct rs_dctx *d, uint32_t off, uint32_t wire_end)
{
	struct rs_frame *f = d->f;
	struct rs_lrh *l = &f->lrh;

	if (wire_end - off < LRH_LEN)
		return rs_fail(f, RS_MALFORMED, off, "%llu bytes left for an %llu-byte LRH", wire_end - off, LRH_LEN);
	struct rs_cursor c = rs_cur_at(d, off);
	uint8_t x = rs_cur_u8(&c);
	l->vl = x >> 4;
	l->lver = x & 0x0F;
	x = rs_cur_u8(&c);
	l->sl = x >> 4;
	l->resv = (x >> 2) & 3;
	l->lnh = x & 3;
	l->dlid = rs_cur_be16(&c);
	l->pktlen = rs_cur_be16(&c) & 0x7FF;
	l->slid = rs_cur_be16(&c);
	if (c.overrun)
		return rs_fail(f, RS_TRUNCATED, off, "LRH cut by the capture length (%llu bytes captured)", d->caplen, 0);
	f->have |= RS_HAVE_LRH;
	rs_layer(d, RS_L_LRH, off, LRH_LEN);

	if (l->lnh == LNH_RAW || l->lnh == LNH_IP_NON_IBA)
		return rs_fail(f, RS_UNSUPPORTED, off + 1,
			       "LRH next header %llu is a raw (non-IBA transport) packet, which is not decoded", l->lnh, 0);
	f->roce = RS_ROCE_IB;
	f->src.kind = f->dst.kind = RS_ADDR_LID;
	memset(f->src.b, 0, 16);
	memset(f->dst.b, 0, 16);
	f->src.b[0] = (uint8_t)(l->slid >> 8);
	f->src.b[1] = (uint8_t)l->slid;
	f->dst.b[0] = (uint8_t)(l->dlid >> 8);
	f->dst.b[1] = (uint8_t)l->dlid;
	d->net_off = off;

	uint32_t bytes = l->pktlen * 4u;
	if (bytes < LRH_LEN + BTH_LEN + ICRC_LEN)
		return rs_fail(f, RS_MALFORMED, off + 4, "LRH PktLen of %llu words cannot hold an IBA packet (%llu bytes)",
			       l->pktlen, bytes);
	if ((uint64_t)bytes + VCRC_LEN > wire_end - off) {
		if (!cut_here(d, wire_end, bytes + VCRC_LEN))
			return rs_fail(f, RS_MALFORMED, off + 4,
				       "LRH PktLen %llu bytes plus VCRC runs past the %llu bytes captured on the wire",
				       bytes, wire_end - off);
		f->sliced = RS_SLICE_REWRITTEN;
		f->sliced_wirelen = off + bytes + VCRC_LEN - ((f->have & RS_HAVE_ERF) ? f->erf_hdr : 0);
	}
	uint32_t vcrc_off = off + bytes;
	f->trailer_len = wire_end - vcrc_off - VCRC_LEN;
	if (vcrc_off + VCRC_LEN <= d->caplen) {
		struct rs_cursor vc = rs_cur_at(d, vcrc_off);
		f->vcrc = rs_cur_le16(&vc);
		f->have |= RS_HAVE_VCRC;
		if (!d->opts->skip_icrc) {
			f->vcrc_calc = rs_vcrc16(d->pkt + off, bytes);
			f->vcrc_status = f->vcrc_calc == f->vcrc ? RS_CRC_OK : RS_CRC_BAD;
		}
	}

	enum rs_outcome o;
	if (l->lnh == LNH_IBA_GLOBAL) {
		uint32_t end = 0;
		d->carrier = RS_CARRIER_LRH_GRH;
		if (grh(d, off + LRH_LEN, vcrc_off, false, &end) != RS_OK)
			return (enum rs_outcome)f->outcome;
		if (end != vcrc_off)
			return rs_fail(f, RS_MALFORMED, off + LRH_LEN + 4,
				       "GRH PayLen %llu disagrees with the LRH PktLen (%llu bytes after the GRH)",
				       f->grh.paylen, vcrc_off - off - LRH_LEN - GRH_LEN);
		o = rs_dissect_transport(d, off + LRH_LEN + GRH_LEN, vcrc_off);
	} else {
		d->carrier = RS_CARRIER_LRH;
		o = rs_dissect_transport(d, off + LRH_LEN, vcrc_off);
	}
	rs_layer(d, RS_L_VCRC, vcrc_off, VCRC_LEN);
	if (f->trailer_len)
		rs_layer(d, RS_L_TRAILER, vcrc_off + VCRC_LEN, f->trailer_len);
	return o;
}

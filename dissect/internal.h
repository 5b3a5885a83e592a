/*
 * internal.h — what the dissector's files share with each other and with
 * nobody else.
 *
 * Offsets are from the first captured byte of the frame. Each decoder gets
 * the offset where its header starts and `wire_end`, where the enclosing
 * layer says the data ends *on the wire*. A header that does not fit before
 * wire_end is malformed; one that fits but was not captured is truncated.
 */
#ifndef RS_DISSECT_INTERNAL_H
#define RS_DISSECT_INTERNAL_H

#include "dissect/cursor.h"
#include "dissect/dissect.h"

/* How the IBA transport was carried: decides which bytes the ICRC masks. */
enum rs_carrier {
	RS_CARRIER_NONE = 0,
	RS_CARRIER_IPV4,   /* RoCE v2 over IPv4 */
	RS_CARRIER_IPV6,   /* RoCE v2 over IPv6 */
	RS_CARRIER_GRH,    /* RoCE v1: GRH only, no LRH */
	RS_CARRIER_LRH,    /* native IB, LNH=2: LRH only */
	RS_CARRIER_LRH_GRH /* native IB, LNH=3: LRH + GRH */
};

struct rs_dctx {
	const struct rs_dissect_opts *opts;
	const uint8_t *pkt;
	uint32_t caplen;
	struct rs_frame *f;
	struct rs_frame_ext *x; /* where f's extension blocks go */
	struct rs_frame_walk *w; /* x's walkthrough block, or scratch nobody reads (skip_layers) */
	enum rs_carrier carrier;
	uint32_t net_off;  /* first byte of the IP header, GRH or LRH */
	uint32_t grh_off;  /* GRH within a native IB packet (LRH_GRH) */
	uint32_t net_hdr_len; /* IPv4 header with options / IPv6 fixed header */
	uint32_t udp_off;
	bool layers;       /* record layers[] (not opts->skip_layers): w is x's */
};

/* Record the first problem; later ones are consequences. */
static inline enum rs_outcome rs_fail(struct rs_frame *f, enum rs_outcome o, uint32_t off, const char *why,
				      unsigned long long a, unsigned long long b)
{
	if (f->outcome == RS_OK || f->outcome == RS_NOT_ROCE) {
		f->outcome = (uint8_t)o;
		f->why = why;
		f->why_a = a;
		f->why_b = b;
		f->why_off = off;
	}
	return (enum rs_outcome)f->outcome;
}

static inline enum rs_outcome rs_not_roce(struct rs_frame *f)
{
	f->outcome = RS_NOT_ROCE;
	return RS_NOT_ROCE;
}

/* ib.c: does the datagram's UDP payload [bth_off, end), all of it captured,
 * read as RoCE v2 under d's carrier: a BTH of a known opcode and TVer 0,
 * and the ICRC at its end what RoCE v2's would be? */
bool rs_bth_shaped(const struct rs_dctx *d, uint32_t bth_off, uint32_t end);

static inline void rs_layer(const struct rs_dctx *d, enum rs_layer_id id, uint32_t off, uint32_t len)
{
	struct rs_frame_walk *w = d->w;
	if (d->layers && w->nlayers < RS_MAX_LAYERS)
		w->layers[w->nlayers++] = (struct rs_layer){ (uint8_t)id, off, len };
}

/* A cursor over the captured bytes positioned at `off`. */
static inline struct rs_cursor rs_cur_at(const struct rs_dctx *d, uint32_t off)
{
	/* Never an overrun: a header that starts past what was captured
	 * finds its cursor at the end, and its first read overruns. */
	struct rs_cursor c;
	rs_cur_init(&c, d->pkt, d->caplen);
	c.off = off < d->caplen ? off : d->caplen;
	return c;
}

/* The 40-byte IPv6 header, whose layout the GRH shares (IBA 8.3): RoCE v2
 * over IPv6 reads it, and so do RoCE v1 and routed IB for their GRH.
 * Through RS_CUR_FIXED(c, 40, rs_ip6hdr_fields, &h). */
struct rs_ip6hdr {
	uint32_t vtf;             /* version, traffic class, flow label */
	uint16_t paylen;
	uint8_t nxt, hlim;        /* next header, hop limit */
	const uint8_t *src, *dst; /* NULL where the capture stops before them */
};

static inline __attribute__((always_inline)) void rs_ip6hdr_fields(struct rs_cursor *c, struct rs_ip6hdr *h)
{
	h->vtf = rs_cur_be32(c);
	h->paylen = rs_cur_be16(c);
	h->nxt = rs_cur_u8(c);
	h->hlim = rs_cur_u8(c);
	h->src = rs_cur_take(c, 16);
	h->dst = rs_cur_take(c, 16);
}

/* Link layers hand over at an EtherType (after any VLAN tags). */
enum rs_outcome rs_dissect_ethertype(struct rs_dctx *d, uint16_t type, uint32_t off, uint32_t wire_end);
enum rs_outcome rs_dissect_ipv4(struct rs_dctx *d, uint32_t off, uint32_t wire_end);
enum rs_outcome rs_dissect_ipv6(struct rs_dctx *d, uint32_t off, uint32_t wire_end);
enum rs_outcome rs_dissect_roce_v1(struct rs_dctx *d, uint32_t off, uint32_t wire_end);
enum rs_outcome rs_dissect_lrh(struct rs_dctx *d, uint32_t off, uint32_t wire_end);
/* MAC Control: PAUSE and PFC (pfc.c); anything else is not RoCE. */
enum rs_outcome rs_dissect_mac_control(struct rs_dctx *d, uint32_t off, uint32_t wire_end);
/* BTH through ICRC; `end` is one past the ICRC on the wire. */
enum rs_outcome rs_dissect_transport(struct rs_dctx *d, uint32_t bth_off, uint32_t end);
/* advert.c: an RC SEND's first 16 payload bytes as a buffer advertisement candidate. */
void rs_dissect_advert(struct rs_dctx *d);

/* CRC-32 (IEEE 802.3, reflected 0xEDB88320) without the pre/post inversion:
 * start from 0xFFFFFFFF and invert the result. rs_crc32_update() uses the
 * fastest implementation this CPU has (crc_fold.c); the others are exposed
 * for the tests and benchmarks. The x86 ones exist on x86-64 only: check
 * rs_crc32_has_impl("pclmul" / "vpclmul") before calling them. */
uint32_t rs_crc32_update(uint32_t crc, const uint8_t *p, size_t n);
uint32_t rs_crc32_update_table(uint32_t crc, const uint8_t *p, size_t n);
/* The same as rs_crc32_update(crc, n zero bytes), in O(log n): the CRC is
 * linear, so the effect of a change can be carried to the end of a packet
 * without reading it (ib.c's rewritten source port). */
uint32_t rs_crc32_zeros(uint32_t crc, size_t n);
/* The same as rs_crc32_update(rs_crc32_update(crc, a', na), b, nb), where a'
 * is a with a_or's bytes ORed in (a_or NULL: a as it is; else na <=
 * RS_CRC_OR_MAX). The ICRC passes its headers in place with the mask of
 * their variant fields, rather than a masked copy. */
#define RS_CRC_OR_MAX 128
uint32_t rs_crc32_update2(uint32_t crc, const uint8_t *a, const uint8_t *a_or, size_t na, const uint8_t *b,
			  size_t nb);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
uint32_t rs_crc32_update_pclmul(uint32_t crc, const uint8_t *p, size_t n);
uint32_t rs_crc32_update_vpclmul(uint32_t crc, const uint8_t *p, size_t n);
uint32_t rs_crc32_update2_pclmul(uint32_t crc, const uint8_t *a, const uint8_t *a_or, size_t na, const uint8_t *b,
				 size_t nb);
uint32_t rs_crc32_update2_vpclmul(uint32_t crc, const uint8_t *a, const uint8_t *a_or, size_t na, const uint8_t *b,
				  size_t nb);
#endif
const char *rs_crc32_impl_name(void);  /* "table", "pclmul" or "vpclmul" */
bool rs_crc32_has_impl(const char *name);
/* VCRC: CRC-16, polynomial 0x100B reflected (0xD008), init and xorout 0xFFFF. */
uint16_t rs_vcrc16(const uint8_t *p, size_t n);

#endif

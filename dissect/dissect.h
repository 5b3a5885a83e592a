/*
 * dissect.h — decode one captured frame into a plain struct rs_frame.
 *
 * The dissector is pure: it allocates nothing, keeps no state between calls,
 * prints nothing and never reads outside the captured bytes. Every field the
 * rest of rocestat needs is copied into struct rs_frame, so the analyzer never
 * looks at packet bytes.
 *
 * Besides success (RS_OK) and "not RoCE", a frame can end in one of three
 * distinct outcomes, each with a reason naming the field:
 *   RS_TRUNCATED    the capture stopped (caplen) before a header we need
 *   RS_MALFORMED    a field or length lies (IP length past the frame, PadCnt
 *                   larger than the payload, ...)
 *   RS_UNSUPPORTED  valid but outside what we decode (reserved opcode, IP
 *                   fragment, TVer != 0 ...)
 * Headers decoded before the problem stay valid: `have` says which.
 *
 * A frame whose headers are all captured but whose payload was cut by the
 * capture is RS_OK and marked sliced (struct rs_frame.sliced): lengths come
 * from the wire (IP/UDP/LRH lengths), and only the ICRC verdict becomes
 * RS_CRC_UNCHECKED. Hardware sniffers (ibdump, the RDMA sniffer) often
 * slice every frame to a fixed length and write that length as the frame's
 * original length too, so nothing in the record admits the cut; such a
 * frame is told from a lying IP length by a second length that agrees with
 * the first (the UDP length), and marked RS_SLICE_REWRITTEN; RoCE v1 and
 * native IB, which lack a second length, by a GRH PayLen / LRH PktLen that
 * fits an IBA packet and runs past exactly where the capture ends.
 */
#ifndef RS_DISSECT_H
#define RS_DISSECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect/cm.h"
#include "dissect/opcodes.h"
#include "proto/pdu.h"

#define RS_ROCE_UDP_PORT 4791   /* IANA, RoCE v2 (IBA Annex A17.2.4) */
#define RS_ETHERTYPE_ROCE 0x8915 /* RoCE v1 (IBA Annex A16) */
#define RS_GRH_NXTHDR_IBA 0x1B  /* GRH next header: IBA transport */
#define RS_MAX_VLAN 8           /* deeper tag stacks are reported unsupported */
#define RS_MAX_IP6EXT 8         /* IPv6 extension headers before UDP; more: unsupported */
#define RS_MAX_LAYERS 24
#define RS_MAX_EXTRA_PORTS 8

enum rs_outcome {
	RS_OK = 0,
	RS_NOT_ROCE,
	RS_TRUNCATED,
	RS_MALFORMED,
	RS_UNSUPPORTED,
	RS_OUTCOME__COUNT
};

enum rs_roce {
	RS_ROCE_NONE = 0,
	RS_ROCE_V1, /* Ethernet 0x8915 + GRH */
	RS_ROCE_V2, /* IPv4/IPv6 + UDP 4791 */
	RS_ROCE_IB, /* native InfiniBand: LRH (+ GRH) */
};

/* Whether the capture kept the whole packet (BTH through ICRC). */
enum rs_slice {
	RS_SLICE_NONE = 0,
	RS_SLICE_SNAPLEN,   /* cut, and the record says so (original length > captured) */
	RS_SLICE_REWRITTEN, /* cut, and the record's original length was rewritten to the cut */
};

enum rs_crc_status {
	RS_CRC_UNCHECKED = 0, /* not all bytes were captured */
	RS_CRC_OK,
	RS_CRC_BAD,
};

enum rs_addr_kind {
	RS_ADDR_NONE = 0,
	RS_ADDR_IPV4,
	RS_ADDR_IPV6,
	RS_ADDR_GID, /* RoCE v1 / IB GRH */
	RS_ADDR_LID, /* IB without GRH */
};

struct rs_addr {
	uint8_t kind;   /* enum rs_addr_kind */
	uint8_t b[16];  /* IPv4 in b[0..3]; LID in b[0..1], big-endian */
};

/* Which headers were decoded (and are valid in struct rs_frame). */
enum rs_have {
	RS_HAVE_ERF = 1u << 0,
	RS_HAVE_ETH = 1u << 1,
	RS_HAVE_SLL = 1u << 2,
	RS_HAVE_LRH = 1u << 3,
	RS_HAVE_GRH = 1u << 4,
	RS_HAVE_IPV4 = 1u << 5,
	RS_HAVE_IPV6 = 1u << 6,
	RS_HAVE_UDP = 1u << 7,
	RS_HAVE_BTH = 1u << 8,
	RS_HAVE_EXT = 1u << 9,   /* every extension header the opcode defines */
	RS_HAVE_MAD = 1u << 10,  /* QP0/QP1 MAD header */
	RS_HAVE_CM = 1u << 11,   /* CM attribute body (mad.attr_ok) */
	RS_HAVE_ICRC = 1u << 12, /* the ICRC bytes were captured */
	RS_HAVE_VCRC = 1u << 13,
	RS_HAVE_DC = 1u << 14,   /* NVIDIA DC: the RD opcode range with the DC header (dceth) */
	RS_HAVE_PFC = 1u << 15,  /* an 802.3x PAUSE or 802.1Qbb PFC frame (pfc; outcome not-roce) */
	/* 1u << 16: free (an upper-layer PDU is said by `pdu`) */
	RS_HAVE_ADV = 1u << 17,  /* an RC SEND's first 16 payload bytes as a buffer advertisement (adv) */
};

/* Byte ranges of each layer, for the walkthrough's hex dump. */
enum rs_layer_id {
	RS_L_ERF, RS_L_ETH, RS_L_VLAN, RS_L_SLL, RS_L_SLL2,
	RS_L_LRH, RS_L_GRH, RS_L_IPV4, RS_L_IPV6, RS_L_IPV6_EXT, RS_L_UDP,
	RS_L_BTH, RS_L_RDETH, RS_L_DETH, RS_L_XRCETH, RS_L_FETH, RS_L_RETH,
	RS_L_ATOMICETH, RS_L_AETH, RS_L_ATOMICACKETH, RS_L_IMMDT, RS_L_IETH,
	RS_L_CNP, RS_L_DCETH, RS_L_DCCETH, RS_L_MAD, RS_L_CM, RS_L_NVME, RS_L_PAYLOAD, RS_L_PAD, RS_L_ICRC, RS_L_VCRC,
	RS_L_TRAILER,
	RS_L_PFC,   /* MAC Control PAUSE/PFC: opcode through the last time */
	RS_L__COUNT
};

struct rs_layer {
	uint8_t id;    /* enum rs_layer_id */
	uint32_t off;  /* from the first captured byte */
	uint32_t len;  /* length on the wire; may run past caplen */
};

/* IBA 7.7 Local Route Header. */
struct rs_lrh {
	uint8_t vl, lver, sl, lnh;
	uint8_t resv;    /* the 2 bits between SL and LNH */
	uint16_t dlid, slid;
	uint16_t pktlen; /* in 4-byte words, LRH through ICRC */
};

/* IBA 8.3 Global Route Header (also RoCE v1's network header). */
struct rs_grh {
	uint8_t ipver, tclass, nxthdr, hoplmt;
	uint32_t flowlabel;
	uint16_t paylen;
	uint8_t sgid[16], dgid[16];
};

/* IBA 9.2 Base Transport Header. */
struct rs_bth {
	uint8_t opcode;
	uint8_t se, migreq, padcnt, tver;
	uint16_t pkey;
	uint8_t fecn, becn; /* IBA Annex A10.2.2 / A17.9: bits 7 and 6 of byte 4 */
	uint8_t resv6;      /* the rest of byte 4 */
	uint32_t destqp;
	uint8_t ackreq;
	uint8_t resv7;
	uint32_t psn;
};

struct rs_reth { uint64_t va; uint32_t rkey; uint32_t dmalen; };
struct rs_deth { uint32_t qkey; uint32_t srcqp; };
struct rs_aeth { uint8_t syndrome; uint32_t msn; };
struct rs_atomiceth { uint64_t va; uint32_t rkey; uint64_t swap; uint64_t cmp; };

/* AETH syndrome (IBA 9.7.5.1.2 Table 42): bits 6:5 select the kind. */
enum rs_aeth_kind { RS_AETH_ACK = 0, RS_AETH_RNR_NAK = 1, RS_AETH_RESERVED = 2, RS_AETH_NAK = 3 };
enum rs_nak_code {
	RS_NAK_PSN_SEQ_ERR = 0,
	RS_NAK_INVALID_REQUEST = 1,
	RS_NAK_REMOTE_ACCESS_ERR = 2,
	RS_NAK_REMOTE_OP_ERR = 3,
	RS_NAK_INVALID_RD_REQUEST = 4,
};

static inline enum rs_aeth_kind rs_aeth_kind(uint8_t syndrome) { return (enum rs_aeth_kind)((syndrome >> 5) & 3); }
static inline uint8_t rs_aeth_value(uint8_t syndrome) { return syndrome & 0x1F; }

/* MAC Control (EtherType 0x8808) opcodes rocestat decodes (dissect/pfc.c). */
#define RS_ETHERTYPE_MAC_CONTROL 0x8808
#define RS_MACC_PAUSE 0x0001 /* IEEE 802.3 Annex 31B */
#define RS_MACC_PFC 0x0101   /* IEEE 802.1Qbb */

/* A PAUSE or PFC frame. A PAUSE is read as a PFC for all eight priorities
 * (enable 0xFF, each quanta[] its pause_time). */
struct rs_pfc {
	uint16_t opcode;     /* RS_MACC_PAUSE or RS_MACC_PFC */
	uint8_t enable;      /* priority-enable vector: bit n for priority n */
	uint8_t enable_rsv;  /* the reserved octet before it (PFC; should be 0) */
	uint16_t quanta[8];  /* pause time per priority, in 512 bit times */
};

/* What only the -V walkthrough reads: where each header sits (for its
 * hex dump) and the header fields no analysis needs, each valid with its
 * layer in layers[]. Recorded unless rs_dissect_opts.skip_layers. */
struct rs_frame_walk {
	uint8_t nlayers;                /* entries in layers[] */
	struct rs_layer layers[RS_MAX_LAYERS];
	uint16_t link_type;             /* the type field of the Ethernet or Linux cooked header itself
	                                 * (a VLAN TPID when tagged; `ethertype` is the innermost) */
	uint8_t ip_proto;               /* IPv4 Protocol, or the IPv6 header's Next Header */
	uint16_t ip_frag;               /* IPv4 flags and fragment offset */
	uint16_t ip_csum;               /* IPv4 header checksum as sent, not verified */
	uint64_t erf_ts_raw;            /* the ERF timestamp as recorded: seconds << 32 | binary fraction */
	bool erf_ext;                   /* the type byte's bit 7: extension headers follow */
	uint8_t erf_flags;
	uint16_t erf_rlen, erf_lctr;    /* ERF record length, loss counter */
	uint16_t sll_halen;             /* Linux cooked header: link-layer address length ... */
	uint8_t sll_addr[8];            /* ... and address */
	uint8_t nip6ext;                /* IPv6 extension headers (RS_L_IPV6_EXT layers, in order): */
	uint8_t ip6ext_next[RS_MAX_IP6EXT], ip6ext_len[RS_MAX_IP6EXT]; /* their Next Header, Hdr Ext Len */
	/* A native InfiniBand payload that begins as IPoIB does (RFC 4391: an
	 * EtherType of IPv4, ARP or IPv6, then two reserved zero bytes): that
	 * EtherType; else 0. With the RS_L_PAYLOAD layer. */
	uint16_t ipoib_type;
};

/* With RS_HAVE_ADV: a SEND's first 16 payload bytes read as a buffer
 * advertisement laid out as rping's struct rping_rdma_info (be64 VA, be32
 * rkey, be32 length). Only a candidate: bytes are bytes, and the analyzer
 * ties it to an RDMA READ or WRITE only if a later RETH names that rkey
 * and a range inside it. */
struct rs_adv { uint64_t va; uint32_t rkey, len; };

struct rs_frame {
	/* Three parts. First what the analysis reads of every frame (the
	 * hot bytes, RS_FRAME_HOT_BYTES); then what the dissector writes into
	 * every frame but only the views and the run loops read (up to
	 * RS_FRAME_FILLED_BYTES); then the reason's arguments, the headers of
	 * the rarer opcodes, the link layers most captures lack and the IB
	 * routing headers. What only some frames have and the walkthrough's
	 * fields are extension blocks in the caller's storage (struct
	 * rs_frame_ext), pointed to. */

	uint8_t outcome;  /* enum rs_outcome */
	uint8_t roce;     /* enum rs_roce */
	uint8_t sliced;   /* enum rs_slice (a frame counts as sliced with RS_OK only; a
			   * truncated one keeps RS_SLICE_REWRITTEN for its wire length) */
	uint8_t icrc_status;   /* enum rs_crc_status */
	uint32_t have;    /* enum rs_have */
	uint16_t ext;     /* RS_EXT_* the opcode defines (valid with RS_HAVE_BTH) */
	uint16_t icrc_sport;   /* bad ICRC from source port 4791: the port that makes it match (the capture
	                        * rewrote the port after the NIC computed the ICRC); 0 = none does */
	uint32_t payload_len;  /* on the wire, without pad */

	/* What the upper-layer-protocol decoders made of an RC SEND's first
	 * packet (proto/pdu.h): in the caller's storage (struct rs_frame_ext),
	 * NULL unless one of them recognised it. */
	const struct rs_pdus *pdu;
	/* The other extension blocks, each in the caller's storage too and
	 * NULL when absent: the QP0/QP1 MAD (with RS_HAVE_MAD, and for the MAD
	 * layers of one cut short), the PAUSE/PFC fields (with RS_HAVE_PFC),
	 * the buffer advertisement (with RS_HAVE_ADV). */
	const struct rs_mad *mad;
	const struct rs_pfc *pfc;
	const struct rs_adv *adv;

	/* Why the outcome is not RS_OK: a static printf format taking why_a and
	 * why_b (below) as unsigned long long. */
	const char *why;

	uint32_t icrc;         /* as read: the wire bytes little-endian */
	uint8_t ip_version;   /* 4 or 6 for RoCE v2 */
	uint8_t dscp, ecn;    /* ECN 3 = Congestion Experienced */
	uint8_t vcrc_status;

	/* The endpoints for every kind (RoCE v2's IP addresses). */
	struct rs_addr src, dst;
	uint8_t eth_src[6];
	uint16_t ip_id;
	/* A non-RoCE frame to a UDP port not decoded as RoCE whose datagram reads
	 * as RoCE v2 (a BTH, and an ICRC that matches it as RoCE v2's): that
	 * port, for the report to name; 0 otherwise. */
	uint16_t roce_elsewhere;

	/* Transport. */
	struct rs_bth bth;
	struct rs_deth deth;
	uint32_t immdt;
	uint32_t ieth_rkey;
	struct rs_reth reth;
	struct rs_aeth aeth;

	/* The walkthrough's: where each header sits and the header fields
	 * only it shows; NULL with rs_dissect_opts.skip_layers. */
	const struct rs_frame_walk *walk;

	/* What the capture said about the frame. */
	uint32_t caplen, wirelen;
	uint32_t sliced_wirelen; /* RS_SLICE_REWRITTEN: the frame's length by its own headers */

	/* Ethernet. */
	uint8_t eth_dst[6];
	uint16_t ethertype;             /* the innermost one */
	uint8_t nvlan;

	/* Network layer (RoCE v2). */
	uint8_t ttl;          /* IPv4 TTL or IPv6 hop limit */
	uint16_t ip_hdr_len;
	uint32_t flow_label;
	uint32_t ip_total_len;
	uint16_t udp_sport, udp_dport, udp_len, udp_csum;

	uint32_t bth_off;      /* first byte of the BTH */
	uint32_t transport_len;/* BTH through ICRC, from the wire lengths */
	uint32_t payload_off;
	uint32_t trailer_len;  /* bytes after the packet: Ethernet padding, FCS */
	uint32_t icrc_calc;
	uint16_t vcrc, vcrc_calc;

	/* With why: its two arguments, and the byte offset of the bad field. */
	unsigned long long why_a, why_b;
	uint32_t why_off;

	/* The headers of the rarer opcodes. */
	struct rs_atomiceth atomic;
	uint64_t atomicack_orig;
	uint32_t rdeth_eecnxt;
	uint32_t xrceth_srqn;
	uint32_t feth;
	/* NVIDIA DC (with RS_HAVE_DC): the 20 bytes after the BTH. Their layout is
	 * NVIDIA's and unpublished; only the DCT number and session are named
	 * from public sources (dissect/ib.c). */
	struct rs_dceth {
		uint8_t flags;    /* 0x11 from the initiator (DCI), 0x10 from the target */
		uint32_t srcqp;   /* the sender's QP */
		uint32_t session; /* given by the target in its connect reply; 0xFFFFFF in a connect */
		uint32_t dct;     /* the target DCT's number */
		uint64_t dc_key;  /* DC access key: in a connect (DCCETH) only */
	} dceth;

	/* Other link layers. */
	uint16_t vlan_tpid[RS_MAX_VLAN], vlan_tci[RS_MAX_VLAN];
	uint16_t sll_pkttype, sll_hatype;
	uint32_t sll_ifindex;
	uint8_t erf_type;
	uint64_t erf_ts_ns;             /* the ERF record's own timestamp (finer than pcap's) */
	uint16_t erf_wlen;              /* the ERF record's wire length: its packet's on the link */
	uint16_t erf_hdr;               /* bytes of ERF header (and pad) before the packet */

	/* InfiniBand link and global routing (native IB, RoCE v1). */
	struct rs_lrh lrh;
	struct rs_grh grh;
};

/* The storage of a frame's extension blocks: the caller's, beside the
 * frame in its batch slot, kept as long as the frame is read; rs_dissect()
 * points the frame's block pointers into it. A copy of a frame that
 * outlives the frame's slot takes its blocks along (rs_frame_copy). */
struct rs_frame_ext {
	struct rs_pdus pdu;
	struct rs_mad mad;
	struct rs_pfc pfc;
	struct rs_adv adv;
	struct rs_frame_walk walk;
};

/* Does the frame point into extension storage? */
static inline bool rs_frame_has_ext(const struct rs_frame *f)
{
	return f->pdu || f->mad || f->pfc || f->adv || f->walk;
}

/* Did a decoder of proto/pdu.h recognise the frame's SEND (RS_PDU_*)? */
static inline bool rs_frame_pdu(const struct rs_frame *f, uint32_t bit)
{
	return f->pdu && (f->pdu->have & bit);
}

/* *dst = *src, with src's extension blocks copied into x (the copy's
 * storage, which must live as long as the copy) and dst pointing there.
 * x may be NULL when !rs_frame_has_ext(src). */
void rs_frame_copy(struct rs_frame *dst, struct rs_frame_ext *x, const struct rs_frame *src);

/* The bytes of a frame the analysis reads of every frame, and those the
 * dissector writes into every frame. A frame is written by one thread and
 * read by another (cli/pipeline.c); a caller that knows which frame it
 * will touch next fetches its lines ahead: the hot ones for reading, the
 * filled ones for writing. A hint only. */
#define RS_FRAME_HOT_BYTES offsetof(struct rs_frame, walk)
#define RS_FRAME_FILLED_BYTES offsetof(struct rs_frame, why_a)

static inline void rs_frame_prefetch(const struct rs_frame *f)
{
	for (size_t off = 0; off < RS_FRAME_HOT_BYTES; off += 64)
		__builtin_prefetch((const char *)f + off, 0);
}

static inline void rs_frame_prefetch_write(struct rs_frame *f)
{
	for (size_t off = 0; off < RS_FRAME_FILLED_BYTES; off += 64)
		__builtin_prefetch((char *)f + off, 1);
}

struct rs_dissect_opts {
	uint16_t extra_ports[RS_MAX_EXTRA_PORTS]; /* UDP ports decoded as RoCE v2 besides 4791 */
	uint8_t n_extra_ports;
	bool skip_icrc;        /* leave every verdict RS_CRC_UNCHECKED */
	bool skip_layers;      /* no walkthrough block (walk NULL): the walkthrough alone reads it */
};

/* Does the dissector handle this libpcap DLT_ value? */
bool rs_linktype_supported(int dlt);
/* "EN10MB", "LINUX_SLL2", ... or NULL if libpcap does not know it either. */
const char *rs_linktype_name(int dlt);

/*
 * Decode one frame. `pkt` holds `caplen` captured bytes of a frame that was
 * `wirelen` bytes long; `dlt` is pcap_datalink() of its source.
 * Returns f->outcome. `opts` may be NULL. `x`: the storage of the frame's
 * extension blocks (see struct rs_frame_ext), which f points into.
 */
enum rs_outcome rs_dissect(const struct rs_dissect_opts *opts, int dlt, const uint8_t *pkt,
			   uint32_t caplen, uint32_t wirelen, struct rs_frame *f, struct rs_frame_ext *x);

/* The network header of a frame rs_dissect() found not to be RoCE, for
 * the views that name it in one line (dissect/other.c). */
struct rs_other {
	uint16_t ethertype;    /* what was decoded: 0x0806 ARP, 0x0800 IPv4, 0x86DD IPv6; 0 nothing */
	bool whole;            /* its header was captured (ARP: and it maps IPv4 addresses) */
	uint16_t arp_op;       /* ARP: 1 request, 2 reply */
	uint8_t arp_sha[6];    /* ARP: the sender's hardware address */
	uint8_t src[16], dst[16]; /* IPv4/IPv6 addresses (IPv4: 4 bytes); ARP: sender and target IPv4 */
	bool fragment;         /* IPv4: a fragment after the first */
	uint8_t proto;         /* IPv4 Protocol, IPv6 Next Header */
	bool have_ports;       /* TCP or UDP with its ports captured */
	uint16_t sport, dport;
};

/* Decode the network header at `off` of `pkt` (caplen bytes captured) as
 * `ethertype`, or by its version nibble if 0 (raw IP). */
void rs_dissect_other(const uint8_t *pkt, uint32_t caplen, uint16_t ethertype, uint32_t off, struct rs_other *o);

/* The frame's time: an ERF record carries a finer timestamp than the pcap
 * record around it (binary fraction of a second); everything else uses the
 * capture's. */
static inline uint64_t rs_frame_time_ns(const struct rs_frame *f, uint64_t capture_ts_ns)
{
	return (f->have & RS_HAVE_ERF) && f->erf_ts_ns ? f->erf_ts_ns : capture_ts_ns;
}

/* The frame's length on the link: by its headers when the capture rewrote
 * the record's length to the cut; an ERF record's wire length (libpcap's
 * counts the ERF header too, which was never on a wire); else the
 * capture's. */
static inline uint32_t rs_frame_wirelen(const struct rs_frame *f, uint32_t capture_wirelen)
{
	if (f->sliced == RS_SLICE_REWRITTEN)
		return f->sliced_wirelen;
	return (f->have & RS_HAVE_ERF) && f->erf_wlen ? f->erf_wlen : capture_wirelen;
}

/* ---- names and formatting (pure, into caller buffers) ------------------- */

const char *rs_outcome_name(enum rs_outcome o);   /* "ok", "not-roce", "truncated", ... */
const char *rs_roce_name(enum rs_roce r);         /* "v1", "v2", "ib", "" */
const char *rs_crc_status_name(enum rs_crc_status s); /* "ok", "bad", "unchecked" */
const char *rs_layer_name(enum rs_layer_id id);   /* "BTH", "RETH", ... */
const char *rs_nak_code_name(uint8_t code);       /* "PSN sequence error", ... */
const char *rs_nak_code_key(uint8_t code);        /* "psn_seq_err", ... for JSON */
/* RNR NAK timer (IBA 9.7.5.2.8 Table 45) in microseconds. */
uint32_t rs_rnr_timer_us(uint8_t timer);
/* A CM Local ACK Timeout (5 bits) in nanoseconds: 4.096 us * 2^t (IBA
 * 12.7.34); 0 means the timer is off. */
uint64_t rs_ack_timeout_ns(uint8_t t);

/* A hash of the bytes of the packet that stay the same from one point of
 * its path to the next (the BTH, FECN and BECN left out, through the end of
 * the payload, as captured), for --compare; 0 for a frame without a BTH.
 * `pkt` and `caplen`: what rs_dissect() decoded into f. (content.c) */
uint64_t rs_frame_content_hash(const struct rs_frame *f, const uint8_t *pkt, uint32_t caplen);

/* The outcome's reason as one line; returns snprintf's count. */
int rs_frame_why(const struct rs_frame *f, char *buf, size_t len);

#define RS_ADDR_STRLEN 48
/* IPv4 dotted, IPv6/GID in RFC 5952 form, LID in decimal. */
const char *rs_addr_format(const struct rs_addr *a, char buf[RS_ADDR_STRLEN]);
bool rs_addr_equal(const struct rs_addr *a, const struct rs_addr *b);

#endif

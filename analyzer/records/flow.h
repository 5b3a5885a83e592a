/*
 * flow.h — a half-flow and its parts: the key, the PSN streams and what
 * they lost, messages in reassembly, latency samples, rkeys, immediates,
 * the counters most flows never need; the hashable host keys. What
 * analyzer/records/flow.c and counters.c do with them.
 *
 * A half-flow is one direction of traffic to one QP: (source, destination,
 * destination QPN). Memory: a half-flow is about 1 KiB; anything most flows
 * never need (latency samples, rkey view, loss bitmaps, plot series,
 * ladder events) hangs off a pointer allocated on first use. Nothing is
 * allocated per frame.
 */
#ifndef RS_ANALYZER_FLOW_H
#define RS_ANALYZER_FLOW_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyzer/analyzer.h"
#include "analyzer/result.h"

#define RS_LOSSMAP_BITS 8192  /* PSNs remembered behind the expected PSN after a gap */
#define RS_OUTSTANDING 256    /* requests awaiting a response, per requester */
#define RS_MAX_RKEYS 32       /* rkeys listed per half-flow; more are counted */
#define RS_LAT_EXACT 4096     /* latency samples kept exactly; then a uniform reservoir */

enum rs_pair { RS_PAIR_NONE = 0, RS_PAIR_CM, RS_PAIR_INFERRED };

/* Fixed-size side parts of flows (latency state, rkeys, the few message
 * counters; a million flows have two or three million of them) come from
 * pools (pool.c): no allocator header (8 bytes) and no rounding of the
 * size to 16 bytes. Given back to the pool they came from; zeroed. */
struct rs_pool {
	size_t size;
	void *free;               /* freed ones, threaded through their first word */
	char *cur, *end;          /* what is left of the newest chunk */
	GPtrArray *chunks;
};
void rs_pool_init(struct rs_pool *p, size_t size);
void *rs_pool_alloc0(struct rs_pool *p);
void rs_pool_free(struct rs_pool *p, void *x);
void rs_pool_release(struct rs_pool *p);

struct rs_flowkey {
	uint8_t roce;   /* enum rs_roce */
	uint8_t akind;  /* enum rs_addr_kind */
	uint8_t pad[2];
	uint32_t qpn;
	uint8_t src[16], dst[16];
};

#include "analyzer/records/loss.h"


/* One PSN stream (requests, or responses) of a half-flow. */
struct rs_psn {
	/* PSNs are 24 bits: the flags share first's word (24 bytes, not 32:
	 * a half-flow has two, and a million half-flows must fit in 0.5 GB). */
	uint32_t first : 24;  /* PSN of the first packet */
	bool started : 1;
	bool resync : 1;      /* the next packet's PSN becomes the expectation */
	/* IPv4 identification of the newest packet the sender put on the wire
	 * (resend.c, rs_ipid_note): trusted once seen to climb, never once it did not. */
	bool ipid_seen : 1, ipid_up : 1, ipid_bad : 1;
	/* Without IP IDs (IPv6, RoCE v1, InfiniBand) ipid holds the low bits
	 * of the newest packet's ICRC instead, when it was checked good. */
	bool fp_seen : 1;
	uint32_t next;        /* expected PSN of the next new packet */
	uint64_t packets : 48;
	uint64_t ipid : 16;
	struct rs_psn_loss *loss; /* NULL: nothing lost or re-sent yet */
};

void rs_loss_add(struct rs_psn_loss *d, const struct rs_psn_loss *s);

/* The stream's loss counters for reading (zeros if it never lost any). */
extern const struct rs_psn_loss rs_psn_no_loss;
static inline const struct rs_psn_loss *rs_loss(const struct rs_psn *s)
{
	return s->loss ? s->loss : &rs_psn_no_loss;
}
/* ... for writing (allocated on first use). */
static inline struct rs_psn_loss *rs_loss_w(struct rs_psn *s)
{
	if (!s->loss)
		s->loss = g_new0(struct rs_psn_loss, 1);
	return s->loss;
}

/* A multi-packet SEND or WRITE being reassembled. With loss before the
 * capture point its packets may arrive out of order (go-back-N fills), so a
 * message completes when its Last packet has been seen and none of its PSNs
 * is still missing. */
#define RS_OPEN_MSGS 8
struct rs_openmsg {
	uint32_t first_psn;   /* PSN of its First (or of the first PSN after the gap that hid it) */
	uint32_t missing;     /* PSNs of this message not seen yet */
	uint64_t bytes;
	uint64_t size;        /* a WRITE's DMA length (its RETH), 0 if unknown */
	uint32_t last_psn;    /* its Last's PSN, when the size and path MTU tell it */
	uint32_t head_missing;/* PSNs skipped just before first_psn that are its own (its First among them) */
	uint8_t family;       /* 0 SEND, 1 WRITE */
	uint8_t kind;         /* enum rs_msg + 1 once the Last is seen */
	bool has_last_psn : 1;
	bool ended : 1;       /* a later message began: its Last was skipped */
	bool lossy : 1;       /* some of its PSNs were skipped */
	/* The stream began inside it: its packets are orphans, unless its
	 * First comes late (reordered) within head_missing PSNs before it. */
	bool headless : 1;
	/* A packet after its newest went to another message (of either
	 * family): it ended at or before end_hi (IBA 9.5: a QP's requests
	 * are sequential), whatever reassembly later joins to it. */
	bool bounded : 1;
	uint16_t npkts;       /* packets seen (counted as orphans if still headless) */
	uint32_t newest;      /* its newest PSN seen (its Last's, once seen), up to end_hi */
	uint32_t end_hi;      /* ended or bounded: its end lies in [newest, end_hi] */
};

/* A request waiting for its response (for latency and pairing). */
struct rs_pending {
	uint64_t ts_ns;
	uint32_t npkts;   /* READ: response packets expected; 0 if the PMTU was unknown */
	/* A PSN has 24 bits: 16 bytes an entry, not 24 (every requester keeps
	 * one in its struct rs_latency). */
	uint32_t psn : 24;
	uint32_t what : 6;       /* enum rs_pending_what */
	uint32_t resent : 1;     /* re-sent since: no latency sample (Karn's rule) */
	uint32_t first_seen : 1; /* READ: first response already timed */
};
enum rs_pending_what { RS_PEND_ACKREQ = 1, RS_PEND_READ, RS_PEND_ATOMIC };

/* Latency samples of one kind, in nanoseconds. While they are kept exactly,
 * new samples wait in `stage` and join `v` RS_LAT_STAGE at a time: a flow's
 * next sample comes thousands of frames later, when the end of `v` has left
 * the caches, and this struct is in them anyway (latency.c). The stage
 * holds 32-bit samples, eight in the room four 64-bit ones took: the end of
 * `v` is written half as often, and a flow with fewer than eight samples
 * needs no vector at all. */
#define RS_LAT_STAGE 8
struct rs_latvec {
	uint64_t n;       /* samples seen */
	uint64_t min, max;
	/* Exact up to RS_LAT_EXACT, then a uniform reservoir: uint32_t[cap]
	 * while every sample kept fits in 32 bits (under 4.29 s), then
	 * uint64_t[cap] (`wide`). Read it through latency.c only. */
	void *v;
	uint64_t rng;
	/* At most RS_LAT_EXACT: 16 bits keep the struct at 80 bytes. */
	uint16_t len, cap;
	uint16_t nstage;  /* samples in stage, after those in v */
	bool wide;
	uint32_t stage[RS_LAT_STAGE]; /* samples under 4.29 s; a wider one joins v at once */
};
_Static_assert(sizeof(struct rs_latvec) == 80, "a latency vector takes 80 bytes");
_Static_assert(RS_LAT_EXACT <= 32768, "struct rs_latvec counts kept samples in 16 bits");


/* The samples of one kind: none, the only one or two so far (each under
 * 4.29 s: the first in the low 32 bits, the second in the high ones; most
 * requesters of a capture with a million QPs are timed once or twice), or
 * a vector, allocated with the third. */
union rs_lat_slot {
	struct rs_latvec *v;
	uint64_t one;
};
#define RS_LAT_TWO 0x10u /* (RS_LAT_TWO << k) in single: by_kind[k] holds two samples */
struct rs_latency {
	/* The pending requests: a ring of cap entries (a power of two, at
	 * most RS_OUTSTANDING), in place while cap is 1 (most requesters
	 * have one request pending at a time), oldest at head. Through
	 * rs_lat_ring(). */
	union {
		struct rs_pending one;  /* cap 1 */
		struct rs_pending *ring;/* cap > 1 */
	} q;
	uint32_t last_rsp_file;   /* the responder's newest answer (ACK, NAK, READ response): its file, */
	uint16_t count;           /* requests pending: at most RS_OUTSTANDING */
	uint8_t single;           /* bit k: by_kind[k] holds `one`, not `v`; RS_LAT_TWO << k: two of them */
	uint64_t last_rsp_ts;     /* ... its time ... */
	uint64_t last_rsp_frame : 48; /* ... and its number (48 bits, as struct rs_flow's) */
	/* The ring holds 2^cap_log2 entries (rs_lat_cap(); RS_OUTSTANDING is
	 * 256), the oldest at head. */
	uint64_t head : 8, cap_log2 : 8;
	union rs_lat_slot by_kind[RS_LAT__COUNT]; /* through the functions below */
	/* What only a requester in trouble counts (requests forgotten, clock
	 * run backwards, Karn's rule) is in its struct rs_flow_rare. */
};
_Static_assert(sizeof(struct rs_latency) == 72, "a requester's latency state takes 72 bytes");
_Static_assert(RS_OUTSTANDING == 256 && RS_LAT__COUNT <= 4, "struct rs_latency's ring counts and kinds fit their bits");
static inline uint32_t rs_lat_cap(const struct rs_latency *l)
{
	return 1u << l->cap_log2;
}
static inline uint32_t rs_lat_mask(const struct rs_latency *l)
{
	return rs_lat_cap(l) - 1;
}
static inline struct rs_pending *rs_lat_ring(struct rs_latency *l)
{
	return l->cap_log2 ? l->q.ring : &l->q.one;
}
static inline const struct rs_pending *rs_lat_ring_c(const struct rs_latency *l)
{
	return l->cap_log2 ? l->q.ring : &l->q.one;
}
/* Allocated from (and given back to) the analyzer's pool of them. */
struct rs_pool;
struct rs_latency *rs_latency_new(struct rs_pool *p);
void rs_latency_free(struct rs_pool *p, struct rs_latency *l);
/* The samples of one kind as a vector for writing: allocated, or made of
 * the one sample kept in place. */
struct rs_latvec *rs_latvec_w(struct rs_latency *l, enum rs_lat_kind k);
/* For reading: NULL if none (or l is NULL), the vector, or the one sample
 * spelt out as a vector in `buf`; rs_latvec_of() gives `buf` a temporary
 * of the calling block. */
struct rs_latvec *rs_latvec_read(const struct rs_latency *l, enum rs_lat_kind k, struct rs_latvec *buf);
#define rs_latvec_of(l, k) rs_latvec_read((l), (k), &(struct rs_latvec){ .n = 0 })
/* The vector of a kind if it has one (for prefetching), else NULL. */
static inline const struct rs_latvec *rs_latvec_vec(const struct rs_latency *l, enum rs_lat_kind k)
{
	return l->single & 1u << k ? NULL : l->by_kind[k].v;
}

_Static_assert(sizeof(struct rs_rkey_use) == 48, "an rkey's use takes 48 bytes");
/* Most requesters use one rkey: it is kept in place (cap 1); a second
 * moves them to an array that grows by doubling up to RS_MAX_RKEYS. */
struct rs_rkeys {
	/* Uses of rkeys beyond RS_MAX_RKEYS: request packets, so 48 bits
	 * (2.8e14 of them) do not wrap; n and cap are at most RS_MAX_RKEYS. */
	uint64_t more : 48, n : 8, cap : 8;
	union {
		struct rs_rkey_use one;  /* cap <= 1 */
		struct rs_rkey_use *use; /* cap > 1 */
	} u;
};
_Static_assert(sizeof(struct rs_rkeys) == 56, "a requester's rkeys take 56 bytes");
_Static_assert(RS_MAX_RKEYS <= UINT8_MAX, "struct rs_rkeys counts its rkeys in 8 bits");
/* Its n uses. */
static inline struct rs_rkey_use *rs_rkey_uses(const struct rs_rkeys *r)
{
	return r->cap > 1 ? r->u.use : (struct rs_rkey_use *)&r->u.one;
}
/* The place for one more use (n < RS_MAX_RKEYS), counted in n. */
struct rs_rkey_use *rs_rkey_new(struct rs_rkeys *r);

/* Immediate data of the messages a half-flow carried, in wire order (the
 * first RS_MAX_IMMS; `total` counts them all). */
#define RS_MAX_IMMS 64
struct rs_imms {
	uint64_t total;
	uint32_t n, cap;
	uint32_t v[];         /* cap of them: grown up to RS_MAX_IMMS (most flows carry one or two) */
};

/* Counters per timeline interval. */
struct rs_tl {
	uint64_t packets, bytes, payload;
	uint64_t goodput;     /* of payload, first sightings of their PSN */
	/* Events of one flow in one interval: 32 bits suffice (four billion in
	 * one interval of one QP would need an interval of hours). */
	uint32_t messages, retrans, naks, ecn_ce, cnps;
	uint32_t rnrs;        /* of naks, RNR NAKs (--plot marks them apart) */
	uint32_t lat_n;       /* latency samples of requests this flow sent (rs_tl_lat) */
	uint64_t lat_min, lat_max, lat_sum;
};

struct rs_conn;
struct rs_msnq;

/*
 * The fields are ordered by how often they are touched: what frames read
 * or write fills the first RS_FLOW_HOT_BYTES, which the analyzer
 * prefetches frames ahead (rs_analyzer_prefetch); then what only a few
 * frames ever touch. A field every frame touches that lands past
 * RS_FLOW_HOT_BYTES costs a cache miss per frame: iv_tag and iv_payload
 * once did. Flows are 32-byte aligned (flowtable.c), so the hot bytes,
 * four and a quarter lines, touch five lines wherever a flow starts. The
 * opcode counts are 8 bits wide (the carries go to x->ophist_hi, see
 * rs_flow_ophist()); frame numbers take 46 or 48 bits (7e13 frames: a capture
 * file of petabytes), and the flags and small counts the other 16 bits of
 * their words, the last kinds the top of ack_psn's (not of packets': a
 * word counted per frame is cheaper whole): a flow takes 320 bytes, not
 * 352 (a million of them must fit in 0.5 GB with their side parts).
 */
struct rs_flow {
	/* ---- every frame ---- */
	struct rs_flowkey key;
	uint32_t slot;            /* index in the flow array */
	uint32_t ack_psn : 24;    /* a PSN */
	uint32_t last_kind0 : 4, last_kind1 : 4; /* rs_flow_last_kind() */
	uint64_t packets;
	uint64_t wire_bytes;
	uint64_t last_frame : 46; /* the newest frame's number */
	uint64_t roce_seen : 2;   /* RoCE versions of its frames: 1 v1, 2 v2 (rs_flow_roce_seen) */
	uint64_t transport : 8;   /* RS_TR_* of its packets */
	uint64_t nopen : 4;       /* open messages (at most RS_OPEN_MSGS) */
	bool seen_first : 1;      /* a message start was seen: later heads are lost, not before the capture */
	bool have_ack_psn : 1;
	bool msgs_full : 1;       /* m is a struct rs_flow_msgs, not a struct rs_msgs_few */
	bool msn_base : 1;        /* responses: ack_msn/ack_msgs below hold a reckoning base */
	uint64_t last_ts;
	uint64_t payload_all;     /* every payload byte on the wire */
	uint64_t payload;         /* first sightings only (goodput) */
	struct rs_flow *peer;
	struct rs_latency *lat;
	uint32_t pmtu;            /* learned from First/Middle payload sizes */
	uint32_t tl_slot;         /* its row in a->tl_rows + 1 while active in this interval; 0 if not */
	uint32_t iv_tag;          /* without timeline rows: the interval (+1) iv_payload counts */
	uint32_t last_file;       /* the newest frame's file */

	struct rs_psn req, rsp;
	/* Multi-packet messages not finished yet (requests), oldest first:
	 * RS_OPEN_MSGS slots, allocated with the first multi-packet message. */
	struct rs_openmsg *open;
	struct rs_rkeys *rkeys;
	/* Responses carried by this flow. ack_msn and ack_msgs (24 bits, as
	 * the MSN): the AETH MSN of the ACK the peer's MSN reckoning last
	 * stood on, and how many of the messages seen on the peer's request
	 * stream ended at or before its PSN (msn.c), sharing the counters'
	 * words (a million half-flows must fit in 0.5 GB). */
	uint64_t acks : 40, ack_msn : 24;
	uint64_t acked_pkts : 40, ack_msgs : 24;
	uint64_t read_resp_payload; /* unique READ response bytes sent on this flow */
	void *m;                  /* every message (flows with messages): rs_msgs(), rs_msgs_note() */
	uint64_t iv_payload;      /* without timeline rows: payload bytes in interval iv_tag */
	uint32_t hosts_pos;       /* its index in the a->by_hosts list of its host pair */
	uint32_t id;              /* creation order */
	/* Packets by opcode & 0x1F within its transport: the low 8 bits
	 * (rs_flow_ophist() adds the carries). */
	uint8_t ophist[32];

	/* ---- seldom ---- */
	struct rs_conn *conn;
	/* Its first frame's number; the file is the one it was created in
	 * (rs_flow_first(): files come one after another, flow ids grow). */
	uint64_t first_frame : 48;
	uint64_t pair_method : 2; /* enum rs_pair */
	bool is_cm_qp : 1;        /* QP0/QP1 */
	bool is_dc : 1;           /* NVIDIA DC in the RD opcode range (dissect's RS_HAVE_DC) */
	bool retired : 1;         /* out of the table: an older connection's traffic */
	bool ulp_refused : 1;     /* without a CM connection: no module takes its pair's shape (cm/ulp.c) */
	bool ulp_waited : 1;      /* ... a SEND only a module that waits lets pass came first (cm/ulp.c) */
	uint64_t infer_tries : 7; /* pairing by inference: at most 16 */
	uint64_t first_ts;
	struct rs_flow_rare *rare;/* counters of what most flows never see */
	struct rs_flow_extra *x;  /* what only some flows carry (rs_extra_w) */
	uint64_t peak_bytes;      /* most goodput bytes (each PSN once) in one interval (folded once per interval) */
};
#define RS_FLOW_HOT_BYTES offsetof(struct rs_flow, conn)
#define RS_FLOW_ALIGN 32
_Static_assert(RS_FLOW_HOT_BYTES == 4 * 64 + 16, "the fields frames touch take four and a quarter cache lines");
_Static_assert(sizeof(struct rs_flow) == 10 * RS_FLOW_ALIGN, "a flow takes 320 bytes");
_Static_assert(RS_OPEN_MSGS < 16 && RS_MSG__COUNT < 15, "struct rs_flow's nopen and last kinds fit their bits");
/* The last completed kind (enum rs_msg + 1; 0: none) of a family (0 SEND,
 * 1 WRITE), for fills that match no open message. */
static inline unsigned rs_flow_last_kind(const struct rs_flow *fl, int family)
{
	return family ? fl->last_kind1 : fl->last_kind0;
}
static inline void rs_flow_set_last_kind(struct rs_flow *fl, int family, unsigned kind)
{
	if (family)
		fl->last_kind1 = kind & 0xF;
	else
		fl->last_kind0 = kind & 0xF;
}
/* A hint to fetch, for writing, every cache line [p, p + len) touches,
 * wherever p starts in its line: one address every 64 bytes from p, and
 * the last byte. The count depends on len alone, a constant at every call,
 * so the loop unrolls into straight prefetches (aligning p first made it a
 * loop per call). */
static inline void rs_prefetch_lines(const void *p, size_t len)
{
	const char *c = p;
	for (size_t off = 0; off < len; off += 64)
		__builtin_prefetch(c + off, 1);
	__builtin_prefetch(c + len - 1, 1);
}
/* Packets of opcode `op` (& 0x1F) on the flow, and adding to that count. */
uint64_t rs_flow_ophist(const struct rs_flow *fl, unsigned op);
void rs_flow_ophist_add(struct rs_flow *fl, unsigned op, uint64_t n);
/* One packet: in the 8 bits while they hold it, else the carry (once per
 * 256 packets of an opcode) through rs_flow_ophist_add(). */
static inline void rs_flow_ophist_count(struct rs_flow *fl, unsigned op)
{
	if (fl->ophist[op] != UINT8_MAX)
		fl->ophist[op]++;
	else
		rs_flow_ophist_add(fl, op, 1);
}

/* The same counters while at most RS_MSGS_FEW of them are not zero (a flow
 * with a message or two of one or two kinds) and each, and every size, fits
 * in 32 bits: which ones (RS_MC_*) and their values, in an eighth of the
 * room. The first counter that does not fit, or the RS_MSGS_FEW_MAX'th
 * message of a kind (finding a counter among the few costs more than
 * indexing the whole struct), turns the flow's counters into a struct
 * rs_flow_msgs (counters.c). */
#define RS_MSGS_FEW 6
#define RS_MSGS_FEW_SMALL 4 /* room at first: 32 bytes (a message of one kind takes three counters) */
#define RS_MSGS_FEW_MAX 16 /* messages of a kind: a flow this busy gets the whole struct */
enum { RS_MC_COUNT = 0, RS_MC_BYTES = RS_MSG__COUNT, RS_MC_SIZE = 2 * RS_MSG__COUNT };
struct rs_msgs_few {
	uint32_t msg_min, msg_max; /* msg_min UINT32_MAX: no size yet */
	uint8_t n, cap;            /* counters, and room for them: RS_MSGS_FEW_SMALL, then RS_MSGS_FEW */
	uint8_t at[RS_MSGS_FEW];   /* RS_MC_COUNT + kind, RS_MC_BYTES + kind, RS_MC_SIZE + bucket */
	uint32_t v[];              /* cap of them */
};
_Static_assert(sizeof(struct rs_msgs_few) == 16, "a few message counters take 16 bytes and their values");
/* The size of a struct rs_msgs_few with room for cap counters. Two pools
 * (few[0] for RS_MSGS_FEW_SMALL, few[1] for RS_MSGS_FEW) hold them. */
#define RS_MSGS_FEW_SIZE(cap) (sizeof(struct rs_msgs_few) + (cap) * sizeof(uint32_t))
extern const struct rs_flow_msgs rs_flow_no_msgs;
/* The counters for reading: fl->m itself, zeros, or the few counters spelt
 * out in `buf`. rs_msgs(fl) gives `buf` a temporary of the calling block. */
const struct rs_flow_msgs *rs_msgs_read(const struct rs_flow *fl, struct rs_flow_msgs *buf);
#define rs_msgs(fl) rs_msgs_read((fl), &(struct rs_flow_msgs){ .msg_min = 0 })
/* The counters as a struct rs_flow_msgs for writing (allocated, or turned
 * into one: the few go back to their pool, of the two in few[]). */
struct rs_flow_msgs *rs_msgs_w(struct rs_pool *few, struct rs_flow *fl);
void rs_msgs_add(struct rs_flow_msgs *d, const struct rs_flow_msgs *s);
/* Writing: `msgs` messages and `bytes` bytes of kind k; a size sample
 * (size in `bucket`). The few take the calls; the whole struct is written
 * here. */
void rs_msgs_note_few(struct rs_pool *few, struct rs_flow *fl, enum rs_msg k, uint64_t msgs, uint64_t bytes);
void rs_msgs_size_few(struct rs_pool *few, struct rs_flow *fl, unsigned bucket, uint64_t size);
static inline void rs_msgs_note(struct rs_pool *few, struct rs_flow *fl, enum rs_msg k, uint64_t msgs, uint64_t bytes)
{
	if (!fl->msgs_full) {
		rs_msgs_note_few(few, fl, k, msgs, bytes);
		return;
	}
	struct rs_flow_msgs *x = fl->m;
	x->msgs[k] += msgs;
	x->msg_bytes[k] += bytes;
}
static inline void rs_msgs_size(struct rs_pool *few, struct rs_flow *fl, unsigned bucket, uint64_t size)
{
	if (!fl->msgs_full) {
		rs_msgs_size_few(few, fl, bucket, size);
		return;
	}
	struct rs_flow_msgs *x = fl->m;
	if (x->size_hist[bucket] != UINT32_MAX) /* saturates rather than wraps */
		x->size_hist[bucket]++;
	if (size < x->msg_min)
		x->msg_min = size;
	if (size > x->msg_max)
		x->msg_max = size;
}

/* Per-flow state that most flows never have, out of struct rs_flow so that
 * the flow fits in six cache lines (a million flows: 64 MB less):
 * allocated with the first of them. */
struct rs_flow_extra {
	struct rs_series *series; /* --plot */
	GPtrArray *anoms;         /* the anomalies whose subject it is (eviction words them) */
	struct rs_imms *imms;     /* Immediate Data values seen */
	uint64_t *ophist_hi;      /* [32]: carries out of fl->ophist, once one wraps */
	struct rs_uq *uq;         /* without a CM connection: its pair's protocol recognition or queue (ulp.c) */
};
struct rs_flow_extra *rs_extra_w(struct rs_flow *fl);
static inline struct rs_series *rs_series_of(const struct rs_flow *fl)
{
	return fl->x ? fl->x->series : NULL;
}
static inline const struct rs_imms *rs_imms_of(const struct rs_flow *fl)
{
	return fl->x ? fl->x->imms : NULL;
}

/* Per-flow counters that stay zero for most flows, allocated with the first
 * that does not (so a million quiet flows do not carry them). */
struct rs_flow_rare {
	/* ---- read by many frames of a flow that has them: the first
	 * RS_RARE_HOT_BYTES, which the analyzer prefetches for those frames
	 * (rs_analyzer_prefetch) ---- */
	uint64_t icrc_unchecked;  /* frames whose ICRC the capture's slicing left unchecked */
	struct rs_msnq *msnq;     /* requests: message ends the MSN reckoning keeps (msn.c), once it needs them */
	uint64_t msgs_uncaptured; /* requests: messages none of whose packets were captured, by the ACKs' MSN */
	bool msn_unusable;        /* requests: the MSN counted fewer messages than were seen: not an MSN */
	/* Peak payload rate on the wire (re-sends and copies too), where it is
	 * not the goodput's (peak_bytes): flows that sent something again. Without
	 * timeline rows, iv_again is what went again in the flow's current
	 * interval (read by its first frame of each interval). */
	uint64_t peak_wire, iv_again;

	/* ---- the rest ---- */
	uint64_t retrans_payload;
	uint64_t incomplete_msgs; /* started, never finished */
	uint64_t tail_missed;     /* messages counted though the capture missed their Last */
	uint64_t orphan_pkts;     /* Middle/Last without a First (capture began mid-message) */
	uint64_t dup_acks;
	/* Requesters: AckReq requests not timed because the capture cannot say
	 * which answer was their first (psn.c): one the responder had answered
	 * before the request is in the file (a sniffer writing the two
	 * directions out of order), or one whose first covering answer in the
	 * file also covers a request PSN not seen before it (dropped by the
	 * capture, with maybe an earlier answer). */
	uint64_t lat_acked_before_seen, lat_acked_across_gap;
	uint64_t naks[8];         /* by NAK code (0-4; 5-7 reserved) */
	uint64_t rnr_naks;
	uint8_t rnr_timer_min, rnr_timer_max;
	/* A requester's requests not timed (psn.c): forgotten because too
	 * many were outstanding, answered with the capture's clock run
	 * backwards, answered after a re-send (Karn's rule). Not added up by
	 * rs_rare_add(): evicted flows' latency is not kept. */
	uint64_t lat_overflow, lat_clock_backwards, lat_karn;
	/* Congestion. */
	uint64_t ecn_ce, fecn, becn, cnps;
	/* RoCE v2 DSCP and ECN beyond the usual (congestion.c): the others
	 * are the expected DSCP, and ECT(0). */
	uint64_t ecn_n[4];        /* packets but CNPs by ECN codepoint; [2] (ECT(0)) stays 0 */
	uint8_t dscp_v[RS_DSCP_SEEN];  /* other DSCPs of packets besides CNPs, in the order seen ... */
	uint64_t dscp_n[RS_DSCP_SEEN]; /* ... and their packets */
	uint64_t dscp_more;       /* packets with yet another DSCP */
	uint64_t dscp_data_bad;   /* of those, packets carrying RDMA data (what the data DSCP is for) */
	uint64_t cnp_dscp_bad;    /* CNPs not with the expected CNP DSCP ... */
	uint8_t cnp_dscp_v;       /* ... the first one's */
	uint64_t icrc_bad, undecodable;
	/* UD. */
	uint32_t deth_qkey, deth_srcqp;
	bool many_srcqp, many_qkey;
};
#define RS_RARE_HOT_BYTES offsetof(struct rs_flow_rare, retrans_payload)
/* For reading (zeros when the flow has none) and for writing (allocated). */
extern const struct rs_flow_rare rs_flow_no_rare;
static inline const struct rs_flow_rare *rs_rare(const struct rs_flow *fl)
{
	return fl->rare ? fl->rare : &rs_flow_no_rare;
}
struct rs_flow_rare *rs_rare_w(struct rs_flow *fl);
/* Adds every counter (which DETH Q_Key and source QP a UD flow had is no
 * count, and stays d's). */
void rs_rare_add(struct rs_flow_rare *d, const struct rs_flow_rare *s);
/* Count n packets of DSCP v as one of a flow's other DSCPs (congestion.c). */
void rs_dscp_count(struct rs_flow_rare *r, uint8_t v, uint64_t n);
/* A flow's counters (packets, bytes, messages, losses, rare counters) added
 * to another's: eviction's total. counters.c. */
void rs_flow_counts_add(struct rs_pool *few, struct rs_flow *d, const struct rs_flow *s);

/* A host (address) plus a 32-bit number: comm IDs, rkeys. Hashable. */
struct rs_hostkey {
	uint8_t kind;
	uint8_t b[16];
	uint8_t pad[3];
	uint32_t n;
};
guint rs_hostkey_hash(gconstpointer k);
gboolean rs_hostkey_equal(gconstpointer a, gconstpointer b);
struct rs_hostkey *rs_hostkey_new(const struct rs_addr *ad, uint32_t n);
void rs_hostkey_set(struct rs_hostkey *k, const struct rs_addr *ad, uint32_t n);

/* Two hosts of one RoCE kind, in the order given. Hashable. */
struct rs_hostpair {
	uint8_t roce, kind;
	uint8_t a[16], b[16];
	uint8_t pad[2];
};
guint rs_hostpair_hash(gconstpointer k);
gboolean rs_hostpair_equal(gconstpointer a, gconstpointer b);

/* flow.c: keys from frames, and back. RoCE v1 and v2 frames of one QP pair
 * have one key: key.roce is RS_ROCE_V2 for both, and a v1 GID is the address
 * v2 carries (rs_addr_roce: an IPv4-mapped GID, RFC 4291 2.5.5.2, is the
 * IPv4 address; any other GID an IPv6 one). */
void rs_addr_roce(const struct rs_addr *ad, struct rs_addr *out);
void rs_flowkey_from_frame(struct rs_flowkey *k, const struct rs_frame *f);
void rs_flowkey_reverse(struct rs_flowkey *r, const struct rs_flowkey *k, uint32_t qpn);
void rs_flowkey_addr(const struct rs_flowkey *k, bool dst, struct rs_addr *out);
const char *rs_flow_transport_name(const struct rs_flow *fl);

#endif

/*
 * result.h — the analysis as its readers see it: report/ and views/
 * include this and analyzer.h, never the analyzer's other headers, whose
 * layouts (struct rs_analyzer, struct rs_flow and their parts) are the
 * analyzer's own and change with it. What is here is plain data and
 * functions over handles the readers cannot look into.
 *
 * The reports read an analysis that rs_analyzer_finish() finished; they
 * change nothing in it. The live view reads one that is still running.
 */
#ifndef RS_ANALYZER_RESULT_H
#define RS_ANALYZER_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "analyzer/analyzer.h"

#define RS_PSN_MASK 0xFFFFFFu
#define RS_SAMPLE_FRAMES 8    /* frame numbers kept per anomaly */

/* Serial-number distance on the 24-bit PSN circle: a - b in [-2^23, 2^23). */
static inline int32_t rs_psn_diff(uint32_t a, uint32_t b)
{
	return (int32_t)((a - b) << 8) >> 8;
}

/* Message kinds reported per QP (JSON names in rs_msg_key()). */
enum rs_msg {
	RS_MSG_SEND, RS_MSG_SEND_IMM, RS_MSG_SEND_INV, RS_MSG_WRITE, RS_MSG_WRITE_IMM,
	RS_MSG_READ, RS_MSG_ATOMIC_CAS, RS_MSG_ATOMIC_FAA, RS_MSG_ATOMIC_WRITE, RS_MSG_FLUSH,
	RS_MSG__COUNT,
	RS_MSG_NONE = 0xFF
};
const char *rs_msg_key(enum rs_msg m);

/* Where a frame was: file and frame number (for anomaly lists, ladders). */
struct rs_fref {
	uint32_t file;
	uint64_t frame;
};

/* Handles: what the functions below take. Their layouts are the analyzer's. */
struct rs_flow;
struct rs_conn;

/* ---- half-flows ------------------------------------------------------------ */

/* A half-flow as its readers see it (rs_flow_get_info): plain data. */
struct rs_flow_info {
	uint32_t id;                /* creation order */
	struct rs_addr src, dst;
	uint32_t dest_qp;
	bool is_cm_qp;              /* QP0 or QP1 */
	const char *transport;      /* "RC", "UC", "UD", "DC", ... */
	uint8_t transport_code;     /* RS_TR_* of its packets */
	uint32_t ud_src_qp;         /* UD: the source QP its datagrams' DETH named (the first one's; 0: none) */
	uint64_t packets, wire_bytes;
	uint64_t payload;           /* payload bytes, each PSN's once (the goodput) */
	uint64_t payload_all;       /* every payload byte on the wire */
	uint64_t first_ts, last_ts;
	const struct rs_flow *peer; /* the other direction of its connection; NULL: not paired */
	const struct rs_conn *conn; /* its CM connection; NULL: none */
	uint64_t retransmitted;     /* request packets it sent again */
	uint64_t naks;              /* NAKs it carried, of every code; of them: */
	uint64_t rnr_naks;
	uint64_t cnps, ecn_ce;      /* CNPs it carried, packets marked Congestion Experienced */
	uint64_t icrc_bad;          /* frames with a bad ICRC */
	uint64_t dscp_more;         /* packets with yet another DSCP than rs_flow_dscps lists */
	uint8_t cnp_dscp;           /* the first CNP's DSCP that was not the expected one */
};
void rs_flow_get_info(const struct rs_flow *fl, struct rs_flow_info *out);
/* The rest of its counters, for a report that lists them all. */
struct rs_flow_counts {
	uint8_t roce;               /* its key's enum rs_roce (RoCE v1 and v2 share RS_ROCE_V2), ... */
	uint8_t roce_seen;          /* ... and the versions of its frames: 1 v1, 2 v2, 3 both */
	bool is_dc;                 /* NVIDIA DC in the RD opcode range */
	uint64_t last_frame;        /* its newest frame's number */
	uint32_t pmtu;              /* learned from First/Middle payload sizes; 0: not */
	uint64_t ophist[32];        /* packets by opcode & 0x1F, within its transport */
	uint64_t acks, acked_pkts;  /* ACKs it carried, the packets they acknowledged */
	uint64_t dup_acks;
	uint64_t retrans_payload;   /* payload bytes on the wire again */
	uint64_t incomplete_msgs;   /* messages started, never finished */
	uint64_t tail_missed;       /* messages counted though the capture missed their Last */
	uint64_t orphan_pkts;       /* Middle/Last without a First */
	uint64_t naks[8];           /* by NAK code */
	uint8_t rnr_timer_min, rnr_timer_max; /* of its RNR NAKs */
	uint64_t fecn, becn;
	uint64_t icrc_unchecked, undecodable;
	uint32_t ud_qkey;           /* UD: its first datagram's DETH Q_Key; ... */
	bool many_src_qps, many_qkeys; /* ... whether its datagrams named several source QPs, Q_Keys */
};
void rs_flow_get_counts(const struct rs_flow *fl, struct rs_flow_counts *out);
/* Of it only its ends: source, destination and destination QP. */
void rs_flow_ends(const struct rs_flow *fl, struct rs_addr *src, struct rs_addr *dst, uint32_t *dest_qp);
/* The half-flows in memory (evicted ones are not), in no order: the next
 * one from *pos on (0 to begin), NULL after the last. */
const struct rs_flow *rs_flows_next(const struct rs_analyzer *a, size_t *pos);

/* Seconds between a flow's first and last frame (0 for one frame). */
double rs_flow_active_s(const struct rs_flow *fl);
/* Rates in bytes per second; negative: unknown (result.c says when). */
double rs_flow_avg_Bps(const struct rs_flow *fl);
/* Peak rates over --interval: goodput (the payload of each PSN once), and
 * the payload on the wire. */
double rs_flow_peak_Bps(const struct rs_flow *fl, uint64_t interval_ns);
double rs_flow_peak_wire_Bps(const struct rs_flow *fl, uint64_t interval_ns);
/* READ bytes of a requester: what its peer's responses carried. */
uint64_t rs_flow_read_bytes(const struct rs_flow *fl);
uint64_t rs_flow_msgs_total(const struct rs_flow *fl);
uint64_t rs_flow_naks_total(const struct rs_flow *fl);
/* How it was paired: "cm", "inferred" or "none". */
const char *rs_flow_pairing(const struct rs_flow *fl);

/* Its messages by kind, and their sizes (the analyzer keeps them in a
 * smaller form for most flows): the counters, in `buf` or not. */
#define RS_SIZE_BUCKETS 33    /* message sizes: 0, then powers of two up to 2^31 */
struct rs_flow_msgs {
	uint64_t msgs[RS_MSG__COUNT];
	uint64_t msg_bytes[RS_MSG__COUNT];
	uint32_t size_hist[RS_SIZE_BUCKETS];
	uint64_t msg_min, msg_max;
};
const struct rs_flow_msgs *rs_flow_messages(const struct rs_flow *fl, struct rs_flow_msgs *buf);

/* One rkey a requester used on a half-flow (the capability view). */
struct rs_rkey_use {
	uint32_t rkey;
	uint32_t first_file;  /* its first use: file, */
	uint64_t va_lo, va_hi;/* [lo, hi) touched */
	uint64_t bytes;
	uint64_t count;
	uint64_t first_frame : 56; /* ... and frame number (struct rs_flow keeps 48 bits of them) */
	uint64_t ops : 8;     /* 1 READ, 2 WRITE, 4 ATOMIC, 8 FLUSH */
};
/* The rkeys its requests used: n of them (at most RS_MAX_RKEYS, 32, in the
 * order first used), and *more uses of further ones. */
const struct rs_rkey_use *rs_flow_rkeys(const struct rs_flow *fl, unsigned *n, uint64_t *more);
/* The Immediate Data of its messages, in wire order: the first *n (at most
 * 64) of *total. */
const uint32_t *rs_flow_imms(const struct rs_flow *fl, unsigned *n, uint64_t *total);

/* Its first frame (file and number). */
struct rs_fref rs_flow_first(const struct rs_analyzer *a, const struct rs_flow *fl);

/* Its packets other than CNPs by DSCP, most first: up to max of them in v,
 * their packets in n; how many there are (RoCE v2 flows only; 0 for
 * others). RS_DSCP_SEEN + 1 is room for all. */
#define RS_DSCP_SEEN 4
unsigned rs_flow_dscps(const struct rs_analyzer *a, const struct rs_flow *fl, uint8_t *v, uint64_t *n,
		       unsigned max);

/* Its goodput per interval, for --plot (rs_analyzer_opts.keep_plot), and
 * the events the plot marks on its line, per point. */
struct rs_series_ev {
	uint32_t retrans, naks, rnrs, cnps; /* naks: NAKs other than RNR NAKs */
};

struct rs_series {
	uint32_t len, cap;
	uint32_t shift;       /* each point covers 2^shift intervals */
	int64_t *interval;
	uint64_t *bytes;
	struct rs_series_ev *ev;
};

/* NULL: none kept. */
const struct rs_series *rs_flow_series(const struct rs_flow *fl);

/* ---- PSN streams ------------------------------------------------------------ */

/* Why the requester put a packet on the wire again (psn.c): each packet it
 * re-sent has one cause. Copies the network made (the same IPv4 datagram
 * twice) and packets that arrived late are not re-sent: they are counted
 * apart (netdup, ooo). */
enum rs_resend {
	RS_RESEND_NAK,      /* go-back-N after a PSN sequence error NAK */
	RS_RESEND_RNR,      /* after an RNR NAK, once its timer ran */
	RS_RESEND_TIMEOUT,  /* no NAK: the requester's ACK timer fired */
	RS_RESEND_READ,     /* a READ or atomic asked again (its responses did not all come) */
	/* No NAK in the capture, which holds none of the responder's packets
	 * from before the re-send: a NAK sent before the capture began (or in
	 * the direction it did not see) cannot be told from a timeout. */
	RS_RESEND_UNKNOWN,
	RS_RESEND__COUNT
};
const char *rs_resend_key(enum rs_resend c);

/* How a requester ended (rs_psn_finish). Retry exhaustion is said only
 * where the file proves it: as many unanswered re-sends as the Retry Count
 * its CM REQ set (below 7), or one more RNR NAK in a row than its RNR
 * Retry Count (below 7), then silence. A requester that stopped in any
 * other way stopped for a reason the capture does not show. */
enum rs_dead {
	RS_DEAD_NO = 0,
	RS_DEAD_RETRY,        /* Retry Count re-sends unanswered, then silent: retry count exhausted */
	RS_DEAD_RETRYING,     /* still re-sending unanswered when the capture ended */
	RS_DEAD_RNR,          /* RNR Retry Count + 1 RNR NAKs in a row, then silent: exhausted */
	RS_DEAD_SILENT,       /* re-sent unanswered, then silent: why, the file cannot tell */
	RS_DEAD_RNR_SILENT,   /* RNR NAKed, then silent: why, the file cannot tell */
};
/* Why a requester that stopped is not called exhausted. */
enum rs_dead_why {
	RS_WHY_NONE = 0,
	RS_WHY_NO_COUNT,      /* the CM message with its retry count is not in the file */
	RS_WHY_FOREVER,       /* a count of 7: RNR for ever (IBA), transport for ever on rdma_rxe */
	RS_WHY_MORE,          /* more re-sends (RNR NAKs) than the count allows */
	RS_WHY_FEWER,         /* fewer than the count allows */
};

/* One PSN stream of a half-flow (its requests, or its responses): what it
 * lost, re-sent or reordered, and why; how its requester ended. Plain data
 * (rs_flow_stream). */
struct rs_stream_info {
	bool started;               /* a packet seen: */
	uint32_t first;             /* the PSN of the first */
	uint32_t next;              /* the PSN expected next */
	uint64_t packets;
	uint64_t gaps;              /* forward jumps */
	uint64_t missing;           /* PSNs skipped by forward jumps */
	uint64_t backward;          /* packets below the expected PSN, ... */
	uint64_t duplicates;        /* ... of which seen before */
	uint64_t fills;             /* ... of which filled a gap */
	uint64_t ooo;               /* single late packets: out of order, not a go-back */
	uint64_t episodes;          /* go-back-N episodes */
	/* Skipped PSNs the responder settled: acknowledged, never NAKed or
	 * seen re-sent (the capture dropped them); NAKed and never seen
	 * re-sent; fills of a NAKed PSN. */
	uint64_t uncaptured, unseen_lost, naked_fills;
	uint64_t resend_holes;      /* PSNs a re-send run went over without showing them */
	uint64_t read_reserved;     /* PSNs first skipped, then found reserved by a READ request behind */
	uint64_t rsp_again[2], rsp_again_first[2]; /* responses: READ responses, atomic ACKs sent again; first copy not seen */
	uint64_t netdup;            /* requests: copies the network made */
	uint64_t late_sendings;     /* an earlier sending of a PSN arriving after a later one */
	uint64_t fills_overtaken;   /* ... of a skipped PSN whose re-send filled it */
	uint32_t late_psns_max;     /* how late the late ones came, in PSNs and time */
	uint64_t late_ns_max;
	uint64_t resent[RS_RESEND__COUNT]; /* packets re-sent, by cause */
	uint32_t episodes_by[RS_RESEND__COUNT];
	uint32_t rnr_early;         /* RNR retries sooner than the RNR NAK's timer asked */
	struct rs_fref nak_at;      /* the newest NAK */
	/* Timeout retries: how long the requester waited; of them sooner than
	 * half the Local ACK Timeout its CM REQ carried (timer_ns). */
	uint32_t timeouts;
	uint64_t timeout_min_ns, timeout_max_ns, timeout_sum_ns;
	uint32_t timeouts_early;
	uint64_t timer_ns;
	/* READ and atomic retries: how long after the responder's last answer
	 * (one to a later request). */
	uint32_t read_retries;
	uint64_t read_min_ns, read_max_ns;
	/* Timeout retries since the responder last answered (a QP dying). */
	uint64_t silent_first_ts, silent_last_ts;
	struct rs_fref silent_from, answered_at;
	uint8_t dead;               /* enum rs_dead */
	uint8_t dead_why;           /* enum rs_dead_why */
	bool dead_torn_down;        /* a DREQ followed */
	uint64_t silence_ns;        /* from the requester's last packet to the end of the capture */
};
void rs_flow_stream(const struct rs_flow *fl, bool response, struct rs_stream_info *out);
/* Of those only what a per-tick reading of every flow needs (the metrics):
 * its NAKs by code and its request packets re-sent by cause. */
void rs_flow_problem_counts(const struct rs_flow *fl, uint64_t naks[8], uint64_t resent[RS_RESEND__COUNT]);

/* What became of the PSNs a stream, or every request stream, skipped (the
 * analysis decides each PSN; the counts are derived here once for every
 * report). */
struct rs_gaps {
	uint64_t skipped, absent; /* absent: skipped and never seen later */
	uint64_t not_captured, lost, resent, reordered, undetermined;
	uint64_t overtaken; /* of the re-sent, those whose first sending came after them */
};
struct rs_gaps rs_gaps_of_stream(const struct rs_stream_info *s);
/* The request streams of all flows (capture completeness). */
struct rs_psn_totals {
	uint64_t range;       /* PSNs the streams advanced over */
	uint64_t missing;     /* ... skipped by forward jumps */
	uint64_t fills;       /* ... of which seen later (re-sent, or late) */
	uint64_t ooo;         /* ... of which single late packets */
	uint64_t uncaptured;  /* as struct rs_psn_loss */
	uint64_t unseen_lost;
	uint64_t naked_fills;
	uint64_t resend_holes;
	uint64_t fills_overtaken;
	uint64_t netdup;      /* copies the network made */
	uint64_t resent[RS_RESEND__COUNT];
	uint64_t karn;        /* latency samples left out: the request was re-sent */
	uint64_t acked_before_seen, acked_across_gap; /* ... and as struct rs_flow_rare */
	uint64_t msgs_uncaptured; /* messages none of whose packets were captured (message.c rs_msg_msn) */
};
const struct rs_psn_totals *rs_capture_psns(const struct rs_analyzer *a);
struct rs_gaps rs_gaps_of_capture(const struct rs_psn_totals *t);

/* RC requesters: the request PSNs the responder had not acknowledged by the
 * end of the capture (-1: not an RC requester), from this one on. */
int64_t rs_flow_unacked(const struct rs_flow *fl);
uint32_t rs_flow_unacked_from(const struct rs_flow *fl);

/* The half-flows a report shows: those --qp `qp` and --conn `conn` pick
 * (-1: any), by wire bytes, most first, then in creation order. Readers go
 * through them in order with rs_flows_at(), which also fetches into the
 * caches what they will read of the flows a few places further on. */
GPtrArray *rs_flows_selected(const struct rs_analyzer *a, int64_t qp, int64_t conn);
const struct rs_flow *rs_flows_at(const GPtrArray *flows, guint i);

/* Latency, request to answer, of a requester's requests, by kind. */
enum rs_lat_kind { RS_LAT_READ_FIRST, RS_LAT_READ_LAST, RS_LAT_ACK, RS_LAT_ATOMIC, RS_LAT__COUNT };

/* Latency samples counted by bucket (latbuckets.c): in[k][b] those of kind
 * k at most rs_lat_bucket_le_ns[b] and above the bound before;
 * in[k][RS_LAT_BUCKETS] those above every bound. */
#define RS_LAT_BUCKETS 22
extern const uint64_t rs_lat_bucket_le_ns[RS_LAT_BUCKETS];
struct rs_lat_buckets {
	uint64_t in[RS_LAT__COUNT][RS_LAT_BUCKETS + 1];
	uint64_t count[RS_LAT__COUNT], sum_ns[RS_LAT__COUNT];
};
/* A requester's (fl NULL: the capture's), with rs_analyzer_opts.lat_buckets;
 * NULL without it, or a requester not timed yet. */
const struct rs_lat_buckets *rs_analyzer_lat_buckets(const struct rs_analyzer *a, const struct rs_flow *fl);
struct rs_lat_figures {
	uint64_t n;                 /* samples; 0: none, and the rest 0 */
	uint64_t min, median, p99, max; /* nearest rank */
};
struct rs_latency_info {
	bool requester;             /* it sent requests that wait for an answer (the rest is 0 if not) */
	bool any;                   /* some kind has a sample */
	struct rs_lat_figures kind[RS_LAT__COUNT];
	/* Requests not timed: forgotten (too many outstanding), answered with
	 * the clock run backwards, re-sent before the answer (Karn's rule),
	 * answered before the request is in the file, or by an answer that
	 * also covers a request not seen before it. */
	uint64_t overflow, clock_backwards, karn, acked_before_seen, acked_across_gap;
};
/* Its figures (the quantiles are worked out here: the samples kept may be
 * put in another order, never changed). */
void rs_flow_latency(const struct rs_flow *fl, struct rs_latency_info *out);

/* ---- connections ----------------------------------------------------------- */

enum rs_conn_state {
	RS_CONN_ESTABLISHED, RS_CONN_CLOSED, RS_CONN_CLOSING, RS_CONN_REJECTED, RS_CONN_RESOLVED, RS_CONN_INCOMPLETE,
	RS_CONN_FAILED, /* a side gave up re-sending: its QP is in error (resend.c, rs_settle_dead) */
	RS_CONN_STATES
};
extern const char *const rs_conn_state_names[RS_CONN_STATES];
/* A CM connection as its readers see it (rs_conn_get_info): plain data. */
struct rs_conn_info {
	uint32_t id;                /* the summary's connection number - 1 */
	bool sidr;                  /* a SIDR lookup (then UD), not an RC connection */
	struct rs_addr client, server;
	uint32_t client_qpn, server_qpn;
	uint32_t client_comm_id, server_comm_id; /* SIDR: the request ID in client_comm_id */
	uint64_t service_id;
	uint32_t req_psn, rep_psn;  /* the Starting PSN fields of REQ and REP */
	bool have_req_psn, have_rep_psn;
	uint8_t transport_type;     /* the REQ's */
	bool have_cma;              /* the REQ's private data is an RDMA CM header: */
	struct rs_cma_hdr cma;
	uint32_t qkey;              /* SIDR_REP */
	uint8_t sidr_status;
	uint16_t rej_reason;
	const struct rs_flow *c2s, *s2c; /* its data half-flows, once seen; NULL: not */
	/* What the REQ (and REP) asked the QPs to retry with: the Local ACK
	 * Timeout (4.096 us * 2^t), Retry Count, RNR Retry Count (7: for
	 * ever); the REP's RNR Retry Count is the client's. */
	bool have_req_retry, have_rep_rnr;
	uint8_t ack_timeout, retry_count, rnr_retry_req, rnr_retry_rep;
	bool rej_from_client;       /* a REJ: the client sent it (else the server) */
	/* Each CM message's count and first sighting, by attribute ID -
	 * UMAD_CM_ATTR_REQ. */
	uint32_t n[16];
	uint64_t ts[16];
	struct rs_fref at[16];
};
/* Milliseconds between two CM messages of a connection, or -1. */
double rs_conn_step_ms(const struct rs_conn *c, uint16_t from_attr, uint16_t to_attr);
void rs_conn_get_info(const struct rs_conn *c, struct rs_conn_info *out);
/* Of it only its id, its service ID (the record copies a few hundred bytes). */
uint32_t rs_conn_id(const struct rs_conn *c);
uint64_t rs_conn_service_id(const struct rs_conn *c);
/* Its upper-layer protocol's name, from its service ID's port or --ulp
 * (its row's name, proto/modules.c); "": none. */
const char *rs_conn_ulp_name(const struct rs_conn *c);
/* Its row of the protocol modules' table (proto/proto.h); 0: none. */
unsigned rs_conn_ulp(const struct rs_conn *c);
enum rs_conn_state rs_conn_state_of(const struct rs_conn *c);
const char *rs_conn_state(const struct rs_conn *c); /* its name */
/* The CM connections in memory, in the order they were first seen: the
 * next from *pos on (0 to begin), NULL after the last. */
const struct rs_conn *rs_conns_next(const struct rs_analyzer *a, size_t *pos);
/* Those --qp and --conn pick (-1: any), in that order. */
GPtrArray *rs_conns_selected(const struct rs_analyzer *a, int64_t qp, int64_t conn);

/* How a connection's upper-layer protocol was told. */
enum rs_ulp_by {
	RS_ULP_BY_PORT = 0, /* its CM REQ's RDMA CM port (a built-in name or --ulp PORT=NAME) */
	RS_ULP_BY_QP,       /* --ulp qp:QPN=NAME */
	RS_ULP_BY_SHAPE,    /* no CM connection: its traffic had the protocol's shape (proto/proto.h, recognize) */
};
struct rs_ulp_how {
	enum rs_ulp_by by;
	bool cm;                 /* a CM connection; false: a queue without one (rs_ulp_queues_selected) */
	uint32_t pdus, matched;  /* without CM: the PDUs of the protocol's shape that told it, answers tied among them */
	struct rs_fref from, at; /* without CM: the pair's first frame the module saw, the frame that told it */
	uint32_t qpn;            /* RS_ULP_BY_QP: the QP number of the rule */
};
void rs_conn_ulp_how(const struct rs_conn *c, struct rs_ulp_how *out);
/* The queues without a CM connection whose protocol was told by shape or
 * --ulp qp: (struct rs_conn, client = host; their id counts them apart
 * from the CM connections'), in the order they were told; those --qp
 * picks (-1: any); none with --conn (they are no CM connection). */
GPtrArray *rs_ulp_queues_selected(const struct rs_analyzer *a, int64_t qp, int64_t conn);

/* ---- congestion and QoS ----------------------------------------------------- */

struct rs_pause_span {
	uint64_t start, end;
};

/* One sender's pauses of one priority (PFC) or of the whole link (PAUSE). */
struct rs_pause_prio {
	uint64_t frames, xoff, xon;
	uint64_t quanta;          /* the frames' pause times summed */
	uint64_t paused_ns;       /* the union of its pause spans */
	uint64_t longest_ns;      /* the longest span */
	uint64_t storms;          /* spans of RS_PAUSE_STORM_NS or more */
	bool open;                /* span_start..span_end is the current span */
	uint64_t span_start, span_end;
	struct rs_fref first;
	GArray *spans;            /* struct rs_pause_span, closed, the first RS_PAUSE_SPANS_MAX */
};

#define RS_PAUSE_LINK 8 /* prio[] index of 802.3x PAUSE */
struct rs_pause_src {
	uint8_t mac[6];
	struct rs_pause_prio prio[9]; /* PFC priorities 0-7, then PAUSE */
};

/* What reports show of a half-flow's CNPs (zeros: none). */
struct rs_cnp_stats {
	uint64_t cnps;
	double per_s;             /* over the capture's duration */
	uint64_t peak_1s;         /* the most in any one second */
	uint64_t gap_n, gap_min, gap_med, gap_p99, gap_max;
	uint64_t react_n, react_min, react_med, react_max;
	bool have_rate;           /* the peer's payload rate before the first CNP and after it, bit/s */
	double rate_before, rate_after;
};
void rs_cnp_stats(const struct rs_analyzer *a, const struct rs_flow *fl, struct rs_cnp_stats *st);
/* A half-flow's CNPs by DSCP: the expected and the other (whose value is
 * rs_flow_info.cnp_dscp). */
void rs_flow_cnp_dscps(const struct rs_flow *fl, uint64_t *expected, uint64_t *other);
/* A half-flow's packets other than CNPs by ECN codepoint (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE). */
void rs_flow_ecns(const struct rs_flow *fl, uint64_t ecn[4]);
bool rs_flow_is_v2(const struct rs_flow *fl);
/* A RoCE v2 half-flow with something for the congestion section: CNPs, CE
 * marks, ECN other than ECT(0), DSCPs other than the expected. */
bool rs_flow_cong_notable(const struct rs_flow *fl);
/* The other RoCE v2 half-flows of `flows` (rs_flows_selected's), and their packets. */
void rs_cong_quiet(const GPtrArray *flows, uint64_t *n, uint64_t *packets);
/* Whether the capture has anything for a congestion section. */
bool rs_cong_any(const struct rs_analyzer *a);
/* The congestion analysis's settings and capture-wide counts. */
struct rs_cong_info {
	uint8_t dscp_data, dscp_cnp; /* the DSCPs expected */
	bool dscp_given;          /* by the user (else the defaults, judged only where ECN is in use) */
	uint32_t link_gbps;
	uint64_t cnp_threshold;   /* more CNPs than this in a second on one half-flow make an anomaly ... */
	bool cnp_given;           /* ... if --cnp-threshold was given (0 then: every CNP) */
	const GPtrArray *pause_src; /* struct rs_pause_src, in the order first seen */
	uint64_t pfc_frames, pause_frames;
	bool ecn_used;            /* some RoCE v2 packet was ECN-capable or CE */
	uint64_t v2_packets;      /* in half-flows in memory */
};
void rs_cong_get_info(const struct rs_analyzer *a, struct rs_cong_info *out);

/* ---- anomalies ------------------------------------------------------------- */

enum rs_anom {
	RS_AN_FILE_ERROR,
	RS_AN_UNDECODABLE,
	RS_AN_FILE_WARNING,
	RS_AN_ICRC_BAD,
	RS_AN_VCRC_BAD,
	RS_AN_DEAD_QP,
	RS_AN_RETRANS,
	RS_AN_OOO,
	RS_AN_NETDUP,
	RS_AN_GAP,
	RS_AN_NAK,
	RS_AN_RNR,
	RS_AN_DUP_ACK,
	RS_AN_CM_REJ,
	RS_AN_CM_INCOMPLETE,
	RS_AN_CM_RETRY,
	RS_AN_PSN_START,
	RS_AN_MIXED_ROCE,
	RS_AN_RKEY_INVALIDATED,
	RS_AN_RETH_LENGTH,
	RS_AN_ECN_CE,
	RS_AN_CNP,
	RS_AN_DSCP,      /* code enum rs_dscp_flag */
	RS_AN_NOT_ECT,   /* data sent Not-ECT on a half-flow whose peer saw CE or got CNPs */
	RS_AN_CNP_RATE,  /* more CNPs in a second than --cnp-threshold */
	RS_AN_PAUSE_STORM, /* subject: the sender's struct rs_pause_src, code the priority (8: PAUSE) */
	RS_AN_EVICTED,
	RS_AN_ROCE_ELSEWHERE, /* code: a UDP port whose datagrams read as RoCE v2, not decoded as such */
	RS_AN_SHAPE_UNEXAMINED, /* half-flow pairs without CM not offered for recognition: code the most looked at at once */
	RS_AN__COUNT
};

/* A DSCP is a finding only against what the user stated (--dscp), or where
 * the capture contradicts itself; 26 and 48 are a convention, not a rule. */
enum rs_dscp_flag {
	RS_DSCP_ASYM = 0,   /* the two directions of a connection use different DSCPs */
	RS_DSCP_DATA = 1,   /* data packets not with the data DSCP --dscp gave */
	RS_DSCP_CNPS = 2,   /* CNPs not with the CNP DSCP --dscp gave */
	RS_DSCP_SPLIT = 3,  /* one half-flow's packets over several DSCPs */
};

const char *rs_anom_key(enum rs_anom t);
/* Whether the subject of an anomaly of this type is a half-flow, a connection. */
bool rs_anom_flow_subject(enum rs_anom t);
bool rs_anom_conn_subject(enum rs_anom t);
/* Anomalies of evicted subjects kept one by one; beyond, they are summed by type. */
#define RS_DETACHED_MAX 4096

struct rs_anomaly;
/* An anomaly as its readers see it (rs_anomaly_get_info): plain data. */
struct rs_anomaly_info {
	uint8_t type;               /* enum rs_anom */
	uint32_t code;
	uint64_t count;
	uint32_t nframes;           /* the first frames it was seen in */
	struct rs_fref frames[RS_SAMPLE_FRAMES];
	const char *detail;         /* its sentence, where the analysis has it as text; NULL: none */
	/* What it is about: a half-flow or a connection (once evicted, the
	 * copy kept of it: `evicted`); NULL: something else. */
	const struct rs_flow *flow;
	const struct rs_conn *conn;
	bool evicted;
	bool evicted_sum;           /* it sums the anomalies of evicted subjects past RS_DETACHED_MAX */
	/* RS_AN_MIXED_ROCE: the two hosts and the first frame of each version
	 * (have_mixed false: not known). */
	bool have_mixed;
	struct rs_addr mixed_x, mixed_y;
	uint64_t v1_frame, v2_frame;
};
void rs_anomaly_get_info(const struct rs_analyzer *a, const struct rs_anomaly *an, struct rs_anomaly_info *out);
/* Those a report lists, by type then in the order they happened: with
 * --qp or --conn (-1: not given), the ones about the half-flows and
 * connections picked (`flows`, `conns`: rs_flows_selected's and
 * rs_conns_selected's) and every capture-wide one. */
GPtrArray *rs_anomalies_selected(const struct rs_analyzer *a, int64_t qp, int64_t conn, const GPtrArray *flows,
				 const GPtrArray *conns);

/* ---- findings grouped (groups.c) ------------------------------------------ */

/* Anomalies of one kind and one cause over many half-flows, which a
 * summary names once. The cause of skipped PSNs: a bit for each way they
 * were settled (rs_gaps' not_captured, lost, re-sent, re-sent before their
 * first copy, late, undetermined, in that order), and RS_GAP_NO_ACKS when
 * the transport has no acknowledgements; of requests re-sent, a bit for
 * each enum rs_resend with packets, RS_RESENT_EARLY when some timeout
 * retries came sooner than half the CM REQ's Local ACK Timeout and
 * RS_RESENT_RNR_EARLY when some RNR retries came sooner than the NAK's
 * timer; of a DSCP asymmetry, the DSCP << 8 | the peer's. */
#define RS_GROUP_MIN 3        /* fewer alike stay one by one */
#define RS_GROUP_WORST 3      /* the largest members named */
#define RS_GAP_PARTS 6
#define RS_GAP_NO_ACKS (1u << 8)
#define RS_RESENT_EARLY (1u << 8)
#define RS_RESENT_RNR_EARLY (1u << 9)
struct rs_anom_group {
	uint8_t type;               /* enum rs_anom */
	uint32_t code, cause;
	guint n;                    /* anomalies it stands for, ... */
	guint *idx;                 /* ... their indices in the list grouped, in its order */
	/* n > 1 only: the members' measure (rs_anomaly_measure), the largest
	 * ones, and their subjects. */
	uint64_t min, max, sum;
	unsigned nworst;
	guint worst[RS_GROUP_WORST];
	uint64_t worst_measure[RS_GROUP_WORST];
	bool qps;                   /* each member to a QP of its own (destination address and QP) */
	bool one_way;               /* all from x to y */
	struct rs_addr x, y;        /* the first member's source and destination */
	uint32_t pairs;             /* host pairs, either direction */
};
/* The groups of `anomalies` (rs_anomalies_selected's), in the order of
 * their first members; an anomaly like no other is a group of one. */
GArray *rs_anomaly_groups(const struct rs_analyzer *a, const GPtrArray *anomalies);
void rs_anomaly_groups_free(GArray *groups);
/* What an anomaly's members are compared by: PSNs skipped (RS_AN_GAP, the
 * stream's), else its count. */
uint64_t rs_anomaly_measure(const struct rs_anomaly_info *an);
/* A RoCE v2 half-flow whose every packet had one DSCP and one ECN
 * codepoint other than CE, with no CNP: which (rows alike fold into one). */
bool rs_flow_cong_plain(const struct rs_analyzer *a, const struct rs_flow *fl, uint8_t *dscp, uint8_t *ecn);
/* Its trouble: packets re-sent, NAKs, CE marks, CNPs, bad ICRCs and PSNs
 * skipped, summed (which half-flows to look at first). */
uint64_t rs_flow_trouble(const struct rs_flow *fl);

enum rs_ud_role { RS_UD_NONE, RS_UD_REQUEST, RS_UD_REPLY };

/* A frame on a connection, for --ladder. */
struct rs_ladder_ev {
	struct rs_fref at;
	uint64_t ts_ns;
	uint32_t flow_id;     /* the half-flow it travelled on (data frames) */
	uint32_t conn_id;     /* CM frames: its connection's id + 1; 0 otherwise */
	struct rs_addr src;   /* sender */
	uint8_t opcode;
	bool is_cm;
	uint16_t cm_attr;
	uint16_t cm_reason;   /* REJ */
	uint32_t cm_qpn, cm_psn; /* REQ/REP: local QPN and Starting PSN; SIDR_REP: QPN */
	uint32_t psn, len, destqp;
	uint8_t syndrome;     /* AETH, if has_aeth */
	bool has_aeth, retrans, ackreq;
	uint32_t msn;
	uint32_t gap;         /* a request: PSNs its stream skipped just before it */
	/* UD: the datagram it is paired with by order (udpair.c), if ud_role. */
	uint8_t ud_role;      /* enum rs_ud_role */
	struct rs_fref ud_pair;
	uint64_t ud_pair_ns;  /* request to reply */
};

/* The frames --ladder draws (rs_analyzer_opts.keep_ladder), in the order
 * they came: *n of them, and *dropped more not kept. */
const struct rs_ladder_ev *rs_ladder_events(const struct rs_analyzer *a, size_t *n, uint64_t *dropped);

/* A UD half-flow's conversation: the datagrams its destination QP sends back
 * to its source QP. UD has no ACK: a reply is paired with a request by order
 * alone (udpair.c says when), so a request whose reply was lost stays
 * unpaired, never paired with the next request's reply. */
struct rs_ud_conv_info {
	const struct rs_flow *other; /* the other direction (NULL: no longer in memory) */
	bool requester;              /* its side sent the conversation's first datagram; then: */
	uint64_t requests, pairs;    /* its datagrams, those a reply was paired with, */
	uint64_t refused;            /* and replies next to a request but at another count into their streams */
	struct rs_lat_figures lat;   /* request to reply, of the pairs */
};
/* false: not a UD half-flow of a conversation seen both ways. */
bool rs_flow_ud_conv(const struct rs_analyzer *a, const struct rs_flow *fl, struct rs_ud_conv_info *out);

/* ---- the capture ------------------------------------------------------------ */

/* Capture-wide counts. */
struct rs_capture_info {
	uint32_t files;             /* inputs named (rs_analyzer_add_file, rs_analyzer_open_error) */
	uint64_t frames, bytes;
	bool have_ts;               /* a frame was added: */
	uint64_t first_ts, last_ts; /* epoch ns of the first and last frame */
	uint64_t t0;                /* where the timeline's intervals count from */
	uint64_t roce[4];           /* frames by enum rs_roce (0: not RoCE) */
	uint64_t ipv4, ipv6;        /* RoCE v2 frames by IP version */
	uint64_t outcome[RS_OUTCOME__COUNT]; /* frames by how their decode ended */
	uint64_t icrc[3];           /* RoCE frames with an ICRC, by enum rs_crc_status */
	/* Bad ICRCs that match with another UDP source port: the capture
	 * rewrote the port (not counted as bad), and one such port. */
	uint64_t icrc_port_rewritten;
	uint16_t icrc_port_example;
	uint64_t vcrc_bad;          /* InfiniBand frames with a bad VCRC */
	uint32_t pmtu;              /* the largest First/Middle payload seen */
	uint64_t ecn_ce, cnps;      /* RoCE v2 packets marked CE; CNPs */
	uint64_t half_flows;        /* in memory */
	uint64_t conns;             /* CM connections in memory, ... */
	uint64_t conns_evicted;     /* ... and evicted under --max-flows, by their state then: */
	uint64_t conns_evicted_by_state[RS_CONN_STATES];
	uint64_t evicted;           /* half-flows evicted under --max-flows, their packets and payload */
	uint64_t evicted_packets, evicted_payload;
};
void rs_capture_get_info(const struct rs_analyzer *a, struct rs_capture_info *out);
/* Packets by opcode: all but NVIDIA DC's (256), and DC's by operation (32,
 * in *dc). */
const uint64_t *rs_capture_opcodes(const struct rs_analyzer *a, const uint64_t **dc);
/* Traits of the capture path, of the half-flows in memory at the end. */
struct rs_sniffer_info {
	uint64_t mac_frames;        /* Ethernet RoCE frames from a source address seen before ... */
	uint64_t mac_changes;       /* ... whose source MAC is not the one of that address's previous frame */
	uint32_t host_pairs, host_pairs_one_way; /* ... with frames from one side only */
	uint32_t rc_one_way_flows;  /* RC request half-flows whose responder's host sent nothing back */
	uint64_t rc_one_way_packets;
	struct rs_addr one_way_from, one_way_to; /* the first such flow's hosts */
};
void rs_capture_sniffer(const struct rs_analyzer *a, struct rs_sniffer_info *out);
/* The options it was made with. */
const struct rs_analyzer_opts *rs_analyzer_options(const struct rs_analyzer *a);

/* An input file, by its index (0 to files - 1). */
struct rs_file_info {
	const char *name;
	int linktype;
	const char *error;          /* reading stopped early: why (NULL: it did not) */
	bool unopened;              /* ... or it could not be opened at all */
	/* Frames decoded whole but for the bytes the capture cut off, by enum
	 * rs_slice, and how many bytes of them it kept. */
	uint64_t sliced[3];
	uint32_t sliced_cap_min, sliced_cap_max;
};
void rs_capture_file(const struct rs_analyzer *a, uint32_t i, struct rs_file_info *out);

#endif

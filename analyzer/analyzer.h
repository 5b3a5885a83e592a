/*
 * analyzer.h — state across frames: half-flows and their pairing into
 * connections, CM handshakes, PSN health, message reassembly, latency,
 * congestion marks, timelines. The reports that read it are report/'s
 * (report/report.h).
 *
 * The analyzer never touches packet bytes: it consumes struct rs_frame
 * (what the dissector decoded) plus where and when the frame was seen.
 * Several analyzers may run at once (one per thread); several input files
 * go through one analyzer, in time order (cli/run.c).
 */
#ifndef RS_ANALYZER_H
#define RS_ANALYZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dissect/dissect.h"

struct rs_analyzer;

/* One half-flow's counts over one interval (rs_analyzer_opts.interval). */
struct rs_interval_row {
	uint64_t start_ns;          /* from the first frame (or opts.t0_ns) */
	uint64_t start_epoch_ns;
	struct rs_addr src, dst;
	uint32_t dest_qp;
	bool has_peer;              /* paired: peer_qp is the other direction's destination QP */
	uint32_t peer_qp;
	uint64_t packets, bytes, payload;
	uint64_t goodput;           /* of payload, first sightings of their PSN */
	uint32_t messages, retrans, naks, ecn_ce, cnps;
	/* The intervals just before this one in which this half-flow, active
	 * before, had no frame (in this file): rows of zeros for a plot. */
	uint64_t idle_before;
	/* Latencies measured in this interval of requests this half-flow sent:
	 * request to its first answer (the ACK that covers it, the first READ
	 * response, the atomic ACK), counted when the answer came. */
	uint64_t lat_samples, lat_min_ns, lat_mean_ns, lat_max_ns;
	const char *file;           /* the file its frames came from (a row holds one file's) */
};

/* A CM message as an event (rs_analyzer_opts.cm_event). */
struct rs_cm_event {
	uint64_t ts_ns;
	uint16_t attr;              /* UMAD_CM_ATTR_* */
	/* REQ, SIDR_REQ: client → server; REP: server → client; the others:
	 * sender → receiver. */
	struct rs_addr from, to;
	uint32_t from_qpn, to_qpn;  /* REQ: the client's; REP: the server's, the client's */
	uint64_t service_id;        /* REQ, SIDR_REQ */
	uint32_t code;              /* REJ: the reason; SIDR_REP: the status */
	uint32_t qpn, qkey;         /* SIDR_REP */
};

struct rs_analyzer_opts {
	uint64_t interval_ns;  /* timeline / peak-rate bucket (default 10 ms) */
	uint64_t max_flows;    /* 0 = unlimited; else evict the idlest half-flow */
	bool max_flows_default; /* the cap is the memory share's default, not the user's */
	bool keep_ladder;      /* record per-connection events for --ladder */
	bool keep_plot;        /* keep per-flow throughput series for --plot */
	/* Called for each CM event worth a line in the live view (the first
	 * REQ, REP, RTU, DREQ, DREP, SIDR_REQ, SIDR_REP of an exchange; every
	 * REJ), with cm_event_ctx; NULL: none. */
	void (*cm_event)(void *ctx, const struct rs_cm_event *ev);
	void *cm_event_ctx;
	/* Called for each half-flow active in an interval once the interval
	 * closes (and for one evicted before), in the order the flows were
	 * first active in it, with interval_ctx; NULL: none. */
	void (*interval)(void *ctx, const struct rs_interval_row *row);
	void *interval_ctx;
	bool t0_given;         /* timeline intervals count from t0_ns, not from the first frame */
	uint64_t t0_ns;
	/* Congestion and QoS (analyzer/congestion/congestion.h). */
	uint8_t dscp_data1, dscp_cnp1; /* the expected DSCPs + 1 (--dscp); 0: the defaults, 26 and 48 */
	uint32_t link_gbps;    /* for pause times; 0: 100 */
	uint64_t cnp_threshold1;/* more CNPs than this - 1 in a second on a half-flow is an anomaly; 0: never */
	/* --ulp PORT=NAME: RDMA CM ports the user names (before the built-in
	 * names); --ulp qp:QPN=NAME (by_qp): the connection, or the half-flow
	 * pair without one, whose QP (either side's) is QPN. A name starting
	 * as a module's prefix (proto/modules.c) makes it that module's. */
	struct rs_ulp_map { uint16_t port; char name[32]; bool by_qp; uint32_t qpn; } ulp[8];
	uint8_t n_ulp;
	/* Count each latency sample into fixed buckets too, per requester and
	 * for the capture (rs_analyzer_lat_buckets): the metrics' histograms. */
	bool lat_buckets;
};

/* Where and when a frame was seen. */
struct rs_frame_meta {
	uint64_t frame_no;   /* 1-based within its file */
	uint64_t ts_ns;      /* epoch nanoseconds */
	uint32_t file_index; /* which input file (0-based) */
	uint32_t wirelen, caplen;
};

struct rs_analyzer *rs_analyzer_new(const struct rs_analyzer_opts *opts);
void rs_analyzer_free(struct rs_analyzer *a);

/* Name the input files (for reports); call before adding their frames. */
void rs_analyzer_add_file(struct rs_analyzer *a, const char *name, int linktype);
/* Record that reading a file stopped early (truncated or corrupt). */
void rs_analyzer_file_error(struct rs_analyzer *a, const char *message);
/* Record an input that could not be opened at all, so that the reports
 * list it with why (its frames: none). */
void rs_analyzer_open_error(struct rs_analyzer *a, const char *name, const char *message);
/* Whether any input was opened (live: the interface), frames or not. */
bool rs_analyzer_opened_any(const struct rs_analyzer *a);
/* Record something wrong with the current file that did not stop reading it
 * (e.g. records longer than its snapshot length), `count` frames from
 * `frame_no` on; `message` is the report's sentence. */
void rs_analyzer_file_warning(struct rs_analyzer *a, uint64_t frame_no, uint64_t count, const char *message);

void rs_analyzer_add(struct rs_analyzer *a, const struct rs_frame_meta *m, const struct rs_frame *f);

/*
 * What the analyzer concluded about one frame, for the per-frame views (the
 * walkthrough): rs_analyzer_add_v() adds the frame as rs_analyzer_add() does
 * and fills this in, from what it knew before the frame and the frame
 * itself. Plain data. A frame number here is one of the file being added
 * (rs_frame_meta.frame_no since the last rs_analyzer_add_file()); 0: none,
 * not known, or no longer remembered. Frames are remembered as references
 * only if they were decoded whole (RS_OK); the analyzer keeps, per half-flow,
 * the last RS_VERDICT_SENT request packets, the message in progress of each
 * kind and the newest PSN sequence error NAK, and per sender and CM
 * Communication ID the newest REQ, REP, DREQ and SIDR_REQ: nothing per
 * frame (analyzer/transport/verdict.c). It keeps that state only once
 * rs_analyzer_add_v() was called (rs_analyzer_add() costs what it did),
 * until the next file or rs_analyzer_free().
 */
#define RS_VERDICT_SENT 256

enum rs_v_psn {
	RS_V_PSN_NONE = 0,  /* not in a PSN stream the analyzer checks (UD, CNP, ACKs, MADs, ...) */
	RS_V_PSN_NEXT,      /* the PSN expected next (or a READ response starting a new one) */
	RS_V_PSN_AHEAD,     /* ahead of it: `gap` PSNs were skipped just before it */
	RS_V_PSN_DUPLICATE, /* behind it and seen before: sent again (resent_of) */
	RS_V_PSN_FILL,      /* behind it, the first sighting of a PSN a gap skipped: re-sent, or late */
};

enum rs_v_resend {
	RS_V_RESEND_NONE = 0,
	RS_V_RESEND_NETDUP,   /* a copy the network made (the same IPv4 datagram): not re-sent */
	RS_V_RESEND_LATE,     /* sent before packets already seen: reordered, not re-sent */
	RS_V_RESEND_NAK,      /* go-back-N after a PSN sequence error NAK (resend_after) */
	RS_V_RESEND_RNR,      /* retry after an RNR NAK (resend_after) */
	RS_V_RESEND_TIMEOUT,  /* no NAK: the requester's ACK timer fired */
	RS_V_RESEND_READ,     /* a READ request asked again */
	RS_V_RESEND_UNKNOWN,  /* no NAK in a capture that could not have shown one */
};

enum rs_v_icrc {
	RS_V_ICRC_NONE = 0,     /* no ICRC (not RoCE, or not reached) */
	RS_V_ICRC_UNCHECKED,    /* not all of it captured */
	RS_V_ICRC_OK,
	RS_V_ICRC_BAD,          /* corrupt */
	RS_V_ICRC_PORT_REWRITTEN, /* bad as captured, good with another UDP source port: a capture artefact */
};

/* What a protocol module's PDU or packet is to its task (rs_verdict ulp_pdu). */
enum rs_ulp_pdu {
	RS_ULP_NONE = 0,
	RS_ULP_REQUEST,         /* a request (command, call) that opens a task */
	RS_ULP_RESPONSE,        /* the answer that closes it */
	RS_ULP_TRANSFER,        /* an RDMA READ or WRITE that moves a task's data */
	RS_ULP_OTHER,           /* a PDU of the protocol that belongs to no task */
};

#define RS_V_USES 4
struct rs_verdict {
	/* The frame as captured. */
	uint8_t icrc;               /* enum rs_v_icrc */
	uint8_t sliced;             /* enum rs_slice: the capture kept only the headers */

	/* Its place in its PSN stream (requests; READ responses, atomic ACKs). */
	uint8_t psn;                /* enum rs_v_psn */
	uint32_t gap;               /* RS_V_PSN_AHEAD: PSNs skipped just before it */
	uint64_t resent_of;         /* RS_V_PSN_DUPLICATE: the newest earlier frame with this PSN */
	/* A request after a PSN sequence error NAK of its responder: that NAK,
	 * if it asked for this PSN (nak_psn == the frame's) or came after this
	 * PSN's earlier sending (the go-back-N it started). */
	uint64_t nak_frame;
	uint32_t nak_psn;
	/* The run of packets behind the expected PSN that this packet ended was
	 * one packet arriving late (out of order), not a go-back-N: its frame. */
	uint64_t late_frame;
	/* A request behind the expected PSN: why it is on the wire again. */
	uint8_t resend;             /* enum rs_v_resend */
	uint64_t resend_after;      /* the NAK or RNR NAK it answers (0: none) */
	uint64_t resend_wait_ns;    /* how long after that NAK, or (timeout) after the last packet or answer */

	/* The message it belongs to (SEND, WRITE, READ response), as it went
	 * over the wire: from the First packet seen last and the consecutive
	 * PSNs since. */
	uint8_t msg;                /* enum rs_op_kind: RS_KIND_SEND, RS_KIND_WRITE, RS_KIND_READ_RESP; 0: none */
	bool msg_known;             /* its First was seen, and every packet since */
	uint32_t msg_index;         /* 1-based packet number within it */
	uint32_t msg_offset;        /* its payload bytes before this packet */
	uint32_t msg_total;         /* its length (RETH, READ request, or an Only's payload); 0: not known */
	uint64_t msg_first_frame;
	uint64_t msg_req_frame;     /* a READ response: its READ request */
	/* Its message's number among the half-flow's messages of its kind,
	 * 1-based, in the order their first packets (First or Only) were first
	 * seen: a re-sent first packet keeps its number; 0: not known. */
	uint32_t msg_no;

	/* An ACK, NAK, atomic ACK or first READ response packet: the newest
	 * request packet with its PSN (of a READ response: a READ request). */
	uint64_t req_frame;
	uint8_t req_opcode;
	bool dup_ack;               /* an ACK acknowledging nothing new */

	/* CM: the message this one answers (a REP the REQ, an RTU the REP, a
	 * DREP the DREQ, a REJ or MRA what it names, a SIDR_REP the SIDR_REQ). */
	uint64_t cm_answers;
	/* A request whose PSN is the Starting PSN a REQ or REP announced for
	 * its destination QP (not one sent before): that message. */
	uint64_t start_frame;
	uint16_t start_attr;        /* UMAD_CM_ATTR_REQ or UMAD_CM_ATTR_REP */
	uint32_t start_qpn;

	/* Upper-layer protocol (a row of rs_protos[], proto/proto.h) of the frame's CM connection
	 * (or its queue without one, from the frame that told it on), and
	 * on an NVMe-oF queue: the capsule (enum rs_nvme_kind: a command the
	 * host sent, a response the target sent), its command's opcode,
	 * Fabrics type and CID; a response's, or an RDMA READ/WRITE's, command
	 * capsule (0: not seen), and a response's latency. */
	uint8_t ulp;
	uint8_t ulp_by;             /* enum rs_ulp_by (analyzer/result.h): how ulp was told */
	uint8_t nvme;
	uint8_t nvme_queue;         /* 1 admin, 2 I/O (its Connect seen); 0 not known */
	bool nvme_op_known;         /* a command, or a response to a command seen: */
	uint8_t nvme_opcode;
	bool nvme_fabrics;          /* opcode 0x7F: */
	uint8_t nvme_fctype;
	uint16_t nvme_cid;
	bool nvme_timed;            /* nvme_lat_ns holds a latency */
	uint64_t nvme_cmd_frame;
	uint64_t nvme_lat_ns;
	/* A protocol module's reading of the frame (NVMe-oF fills the fields
	 * above too; proto/proto.h's per-frame hooks put it in words): the PDU's
	 * kind (enum rs_ulp_pdu), the operation (the module's own code: its
	 * op_name hook names it), the task's tag (iSCSI ITT, RPC XID, SMB2
	 * MessageId), the request the frame answers or moves data for (0: not
	 * seen), a response's latency, whether the fabric has re-sent a packet
	 * of the task so far, and the status a response carries. */
	uint8_t ulp_pdu;
	bool ulp_op_known, ulp_tag_known; /* ulp_op, ulp_tag hold the task's */
	bool ulp_timed;             /* ulp_lat_ns holds a latency */
	bool ulp_resent;
	bool ulp_failed;            /* a response whose status is not success */
	uint16_t ulp_op;
	uint32_t ulp_tag;
	uint64_t ulp_req_frame;
	uint64_t ulp_lat_ns;
	/* The connection it belongs to, as known once it is added, for --qp in
	 * the per-frame views: the destination QP of its half-flow and of the
	 * paired one (a CM message: the client's and the server's QP its
	 * exchange named so far). qp_known false: neither (not RoCE, no BTH). */
	bool qp_known;
	uint32_t qp[2];
	uint32_t conn;              /* its CM connection's id + 1 (the summary's #); 0: none */

	/* Buffer advertisements (advert.c): an RDMA READ or WRITE whose RETH
	 * names the rkey and a range inside the buffer a SEND from its target
	 * advertised: that SEND (0: none); a SEND: the requests that used its
	 * advertisement (the first RS_V_USES of adv_nused). */
	uint64_t adv_frame;
	uint64_t adv_used[RS_V_USES];
	uint32_t adv_nused;
};

/* The frame is on the connection --qp QPN picks (the summary's choice:
 * its half-flow's or its peer's destination QP is QPN). */
static inline bool rs_verdict_on_qp(const struct rs_verdict *v, uint32_t qpn)
{
	return v->qp_known && (v->qp[0] == qpn || v->qp[1] == qpn);
}

/* The frame is one --qp QPN and --conn N keep (-1: not given). */
static inline bool rs_verdict_picked(const struct rs_verdict *v, int64_t qp, int64_t conn)
{
	return (qp < 0 || rs_verdict_on_qp(v, (uint32_t)qp)) && (conn < 0 || v->conn == (uint64_t)conn + 1);
}

void rs_analyzer_add_v(struct rs_analyzer *a, const struct rs_frame_meta *m, const struct rs_frame *f,
		       struct rs_verdict *v);

/*
 * A re-send's cause is its run's, in the order the requester sent it (IPv4
 * IDs), and under reordering the run's first packet in that order can
 * arrive after others of the run: their verdicts were given with the
 * cause known then. Once the run is settled, those verdicts are corrected:
 * a per-frame view holds back its frames from rs_analyzer_unsettled() on
 * (the oldest frame whose verdict may still change; 0: none), applies each
 * correction rs_analyzer_fix() hands it (false: none left), and when it
 * cannot wait any longer (the end of a file, a pause, too many frames
 * held) settles every run with rs_analyzer_settle().
 */
struct rs_verdict_fix {
	uint64_t frame;             /* of the current file */
	uint64_t adv_use;           /* not 0: this frame used its advertisement (the rest is not a fix) */
	uint8_t resend;             /* its rs_verdict's resend, resend_after and resend_wait_ns are now these */
	uint64_t resend_after;
	uint64_t resend_wait_ns;
};
uint64_t rs_analyzer_unsettled(struct rs_analyzer *a);
bool rs_analyzer_fix(struct rs_analyzer *a, struct rs_verdict_fix *fx);
void rs_analyzer_settle(struct rs_analyzer *a);
static inline void rs_verdict_fix_apply(struct rs_verdict *v, const struct rs_verdict_fix *fx)
{
	if (fx->adv_use) {
		if (v->adv_nused < RS_V_USES)
			v->adv_used[v->adv_nused] = fx->adv_use;
		v->adv_nused++;
		return;
	}
	v->resend = fx->resend;
	v->resend_after = fx->resend_after;
	v->resend_wait_ns = fx->resend_wait_ns;
}

/* A hint, optional: call it for each frame some frames before adding it
 * (cli/summary.c: up to AHEAD frames), in the order they will be added; `f`
 * need not stay valid. The analyzer starts fetching the frame's state from
 * memory so that it is in the caches by then. Results do not depend on it. */
void rs_analyzer_prefetch(struct rs_analyzer *a, const struct rs_frame *f);

/* Close open messages and episodes; flush the timeline: once, at the end,
 * before any report is written (report/report.h): the reports read a
 * finished analysis and change nothing in it. Calls after the first do
 * nothing. */
void rs_analyzer_finish(struct rs_analyzer *a);
bool rs_analyzer_finished(const struct rs_analyzer *a);

/* True if any anomaly (or undecodable frame) was found; CE marks and CNPs,
 * the normal work of congestion control, do not count (past
 * cnp_threshold, the cnp_rate anomaly does). */
bool rs_analyzer_has_anomalies(const struct rs_analyzer *a);

/* FNV-1a over n bytes: the hash of the small fixed-size keys (addresses,
 * QPs) the analyzer's side tables look up. */
static inline uint32_t rs_fnv1a(const void *k, size_t n)
{
	const uint8_t *p = k;
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

#endif

/*
 * conn.h — a CM connection (IBA 12.6: the exchange that sets up, and tears
 * down, an RC connection, or a SIDR lookup) and its state (conn.c).
 */
#ifndef RS_ANALYZER_CONN_H
#define RS_ANALYZER_CONN_H

#include "analyzer/records/flow.h"

struct rs_sendq;

enum rs_conn_kind { RS_CONN_RC = 0, RS_CONN_SIDR };

/* Quiet for this long, a QP number or a connection's IDs seen again belong
 * to another QP or connection (rs_flow_stale, rs_conn_over). */
#define RS_STALE_NS 1000000000ull

/* One CM exchange (RC/UC/XRC connection, or a SIDR lookup for UD). */
struct rs_conn {
	uint32_t id;
	uint8_t kind;             /* enum rs_conn_kind */
	uint8_t roce;
	struct rs_addr client, server;
	uint32_t client_comm_id, server_comm_id; /* SIDR: request ID in client_comm_id */
	uint64_t tid;
	uint64_t service_id;
	uint32_t client_qpn, server_qpn;
	uint32_t req_psn, rep_psn; /* the Starting PSN fields of REQ and REP */
	bool have_req_psn, have_rep_psn;
	uint8_t transport_type, path_mtu;
	/* What the REQ (and REP) asked the QPs to retry with (IBA 12.7.26-12.7.34):
	 * the primary path's Local ACK Timeout (4.096 us * 2^t), Retry Count,
	 * RNR Retry Count (7: for ever); the REP's RNR Retry Count is the client's. */
	bool have_req_retry, have_rep_rnr;
	uint8_t ack_timeout, retry_count, rnr_retry_req, rnr_retry_rep;
	bool have_cma;
	struct rs_cma_hdr cma;
	uint32_t qkey;            /* SIDR_REP */
	uint8_t sidr_status;
	uint16_t rej_reason;
	uint8_t rej_msg;
	bool rej_from_client;
	/* First sighting and count of each message. */
	uint64_t ts[16];          /* by attribute id - UMAD_CM_ATTR_REQ */
	struct rs_fref at[16];
	uint32_t n[16];
	uint32_t n_dir[16][2];    /* per sender: 0 client, 1 server */
	uint64_t tid_dir[16][2];  /* first transaction ID of each sender (retries repeat it) */
	/* The first DREQ and DREP of each sender: a DREP answers the other
	 * side's DREQ, so when both sides disconnect at once (the DREQs cross)
	 * each DREQ pairs with the other side's DREP, not with the first one. */
	uint64_t dreq_ts[2], drep_ts[2];
	struct rs_flow *c2s, *s2c;/* data half-flows once seen */
	uint64_t last_ts;         /* its latest CM message (with its flows' last_ts: how idle it is) */
	GPtrArray *anoms;         /* the anomalies whose subject it is (eviction words them); NULL if none */
	uint8_t ulp;              /* its row of rs_protos[] (proto/proto.h), from the service ID's port (or --ulp) */
	const char *ulp_user;     /* a name given with --ulp (the analyzer's options own it) */
	void *pq;                 /* its protocol module's queue state (rs_proto_hooks(ulp)->queue_new); NULL if none */
	struct rs_sendq *sendq[2];/* SEND messages being put together, client's and server's (sendmsg.c); NULL: none yet */
	uint8_t ulp_by;           /* enum rs_ulp_by: how ulp was told */
	uint32_t ulp_qpn;         /* RS_ULP_BY_QP: the rule's QP number */
	/* A queue without a CM connection (a->ulp_queues, ulp.c): its protocol
	 * told by shape or --ulp qp:, its client the host, c2s and s2c its
	 * half-flows; ulp_pdus and ulp_matched the evidence, ulp_from the
	 * pair's first frame the module saw, ulp_at the one that told it. */
	bool no_cm;
	uint32_t ulp_pdus, ulp_matched;
	struct rs_fref ulp_from, ulp_at;
};

/* A half-flow pair without a CM connection, as recognition by shape sees
 * it (cm/ulp.c, which owns it: a->ulp_cands): both half-flows' extra parts
 * point to it. */
struct rs_uq {
	struct rs_flow *a, *b;     /* a: the half-flow of its first frame offered; b the other way, once paired */
	struct rs_conn *c;         /* the queue, once told; NULL while looking */
	bool done;                 /* told, or refused by every module: nothing more to look at */
	struct rs_fref from;       /* the first frame offered */
	struct rs_uq_look *look;   /* the modules looking (cm/ulp.c's) */
	unsigned idx;              /* its place in a->ulp_cands */
	uint64_t last;             /* a->ulp_seq when it was last offered a frame (the idlest are given up first) */
	bool wait;                 /* a module that waits for its opening SEND was left out of the look */
};
/* The connection whose protocol module takes fl's frames: its CM
 * connection, or the queue without CM its pair was recognised as (or named
 * by --ulp qp:); NULL: none. */
static inline struct rs_conn *rs_flow_ulp_conn(const struct rs_flow *fl)
{
	if (fl->conn)
		return fl->conn;
	return fl->x && fl->x->uq ? fl->x->uq->c : NULL;
}
/* A half-flow leaves the table (--max-flows): its pair and the pair's
 * queue forget it. */
static inline void rs_uq_forget(struct rs_flow *fl)
{
	struct rs_uq *u = fl->x ? fl->x->uq : NULL;
	if (!u)
		return;
	if (u->a == fl)
		u->a = NULL;
	if (u->b == fl)
		u->b = NULL;
	if (u->c && u->c->c2s == fl)
		u->c->c2s = NULL;
	if (u->c && u->c->s2c == fl)
		u->c->s2c = NULL;
	fl->x->uq = NULL;
}

/* A connection's state (rs_conn_state_of), named by rs_conn_state_names. */
/* conn.c */
/* A DREQ and the DREP that answers it (the other side's): the client's
 * DREQ if it sent one and was answered, else the server's. */
bool rs_conn_dreq_drep(const struct rs_conn *c, uint64_t *dreq, uint64_t *drep);
/* When a CM exchange began: the time of its first message seen. */
uint64_t rs_conn_begun(const struct rs_conn *c);
/* Whether an RC connection was being closed (a DREQ or DREP seen) before
 * time t. */
bool rs_conn_closed_before(const struct rs_conn *c, uint64_t t);
/* How recently the connection did anything: a CM message, or data. */
uint64_t rs_conn_active_ts(const struct rs_conn *c);
/* Whether a REQ at time t with this connection's IDs starts a new one: it
 * was closed or rejected before, or set up and then idle for a while (a
 * replayed capture, a test run again with the same IDs). */
bool rs_conn_over(const struct rs_conn *c, uint64_t t);

#endif

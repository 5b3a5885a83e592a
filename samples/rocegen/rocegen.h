/* rocegen: drive named RDMA scenarios over rdma_rxe and record ground truth.
 *
 * One process is one side (server or client). Each side writes its own
 * truth file; samples/lib/truth-merge.py joins the two into NAME.truth.json.
 */
#ifndef ROCEGEN_H
#define ROCEGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "json.h"

enum scenario {
	SC_SEND, SC_SEND_IMM, SC_WRITE, SC_WRITE_IMM, SC_READ,
	SC_ATOMIC_CAS, SC_ATOMIC_FAA, SC_MIXED, SC_UD, SC_REJECT,
	SC_RNR, SC_BAD_RKEY, SC_DISCONNECT, SC_RNR_EXHAUST, SC_DEAD_PEER,
	SC_DISCONNECT_BOTH, SC_COUNT
};

struct options {
	enum scenario scenario;
	bool server;		/* else client */
	const char *addr;	/* server: bind address; client: server address */
	const char *port;
	unsigned size;
	unsigned count;
	unsigned depth;
	bool inline_data;
	bool ipv6;		/* only checked against the address family */
	const char *truth_path;
	const char *ready_path;	/* server: touched once listening */
	unsigned timeout_s;
	unsigned rnr_delay_ms;	/* rnr: how long the server waits to post receives */
	/* What the QPs are given through rdma_conn_param / rdma_set_option;
	 * each side's REQ or REP carries them (see fill_conn_param). */
	unsigned retry_cnt;	/* transport retries after a timeout or NAK */
	unsigned rnr_retry;	/* RNR retries; 7 = for ever */
	int ack_timeout;	/* Local ACK Timeout exponent; -1: rdma_cm's choice */
	unsigned prepost;	/* rnr, rnr-exhaust: receives posted before accepting */
	unsigned stop_after;	/* dead-peer: the server's QP goes after this many */
	unsigned give_up_ms;	/* dead-peer client: stop waiting after this long; 0: never */
	unsigned cross_delay_ms; /* disconnect-both client: wait before rdma_disconnect */
	unsigned qps;		/* connections, one process each (main.c) */
};

/* What a side advertises in its CM private data: where the peer may
 * WRITE/READ/atomic. Sent in network byte order on the wire. */
struct mr_ad {
	uint64_t addr;
	uint32_t rkey;
	uint32_t length;
};

/* One send-queue WR as posted, kept so completions can be tied back to it. */
struct posted_wr {
	uint64_t wr_id;
	bool is_recv;
	enum ibv_wr_opcode opcode;	/* sends only */
	uint64_t local_addr;
	uint32_t length;
};

struct conn {
	const struct options *opt;
	const char *side;		/* "server" or "client" */
	struct rdma_event_channel *ech;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	uint32_t max_inline;

	struct mr_ad peer;		/* what the other side advertised */
	bool have_peer;
	struct ibv_ah *ah;		/* UD: address of the peer */
	uint32_t remote_qpn;
	uint32_t remote_qkey;

	uint64_t next_wr_id;
	struct posted_wr *posted;
	size_t n_posted, cap_posted;

	/* Completion counters the scenarios wait on. */
	unsigned send_done, send_err, recv_done, recv_err;
	unsigned send_outstanding, recv_outstanding;
	int first_send_err;		/* status of the first failed send WR, 0: none */
	struct ibv_wc *recv_wcs;	/* successful receives, in completion order */
	size_t n_recv_wcs, cap_recv_wcs;
	unsigned recv_posted_total;

	/* CM state as seen through events. */
	uint32_t seen;			/* 1u << enum rdma_cm_event_type */
	bool established, rejected, disconnected, connect_request;
	bool local_disconnect_first;	/* we sent DREQ before hearing one */
	struct rdma_cm_id *request_id;	/* server: the id of CONNECT_REQUEST */
	uint8_t req_pdata[64];
	uint8_t req_pdata_len;
	int reject_reason;
	uint8_t reject_pdata[256];
	uint8_t reject_pdata_len;
	struct rdma_ud_param ud;	/* client: from the SIDR REP */

	double t0;
	/* Ground-truth sections, each a JSON array under construction. */
	struct jbuf j_cm, j_wr, j_recv, j_wc, j_notes;
	struct jbuf j_side;		/* the side object, filled after connect */
	bool failed;
};

/* util.c */
extern struct conn *die_conn;	/* whose truth die() saves */
double now_s(void);
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void note(struct conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *scenario_name(enum scenario s);
bool scenario_from_name(const char *name, enum scenario *out);
/* The byte a sender puts at offset off of message msg; receivers check it. */
uint8_t pattern_byte(unsigned msg, size_t off);
void fill_pattern(uint8_t *p, size_t len, unsigned msg);
bool check_pattern(const uint8_t *p, size_t len, unsigned msg);

/* verbs.c: resources, posting, completions. All posts are recorded. */
void res_create(struct conn *c, struct rdma_cm_id *id, enum ibv_qp_type type);
void res_destroy(struct conn *c);
void post_recv(struct conn *c, size_t offset, uint32_t length);
size_t slot_size(const struct conn *c);
uint64_t posted_local_addr(const struct conn *c, uint64_t wr_id);
struct send_args {
	enum ibv_wr_opcode opcode;
	size_t local_offset;
	uint32_t length;
	uint64_t remote_addr;
	uint32_t rkey;
	uint32_t imm;		/* host order; posted as htonl(imm) */
	uint64_t compare_add;
	uint64_t swap;
};
uint64_t post_send(struct conn *c, const struct send_args *a);
/* Wait (through the completion channel and the CM channel) until pred is
 * true; every completion and CM event seen on the way is recorded. */
void pump_until(struct conn *c, bool (*pred)(const struct conn *, const void *),
		const void *arg, const char *what);
void wait_sends(struct conn *c, unsigned n);
void wait_recvs(struct conn *c, unsigned n);
void wait_send_slot(struct conn *c);

/* cm.c. Server: listen, wait_request, res_create on c->request_id, post
 * receives, accept (or reject). Client: resolve (creates the resources),
 * post receives, connect. Both: disconnect, teardown. */
void cm_server_listen(struct conn *c);
void cm_server_wait_request(struct conn *c);
void cm_server_accept(struct conn *c);
void cm_server_reject(struct conn *c, const void *pdata, uint8_t len);
void cm_client_resolve(struct conn *c, enum ibv_qp_type type);
bool cm_client_connect(struct conn *c);	/* false: rejected */
void cm_disconnect(struct conn *c);
void cm_wait_disconnected(struct conn *c);
void cm_teardown(struct conn *c);
void cm_handle_event(struct conn *c, struct rdma_cm_event *ev);
const char *addr_text(const struct sockaddr *sa, char *out, size_t len);

/* truth.c */
void truth_cm_event(struct conn *c, const struct rdma_cm_event *ev);
void truth_side(struct conn *c);
void truth_write(struct conn *c);
const char *wr_opcode_name(enum ibv_wr_opcode op);
const char *wc_opcode_name(enum ibv_wc_opcode op);

/* multi.c: --qps, one process per connection running `one` */
int multi_run(const struct options *o, int (*one)(struct options *));

/* scenarios.c */
void run_server(struct conn *c);
void run_client(struct conn *c);

#endif

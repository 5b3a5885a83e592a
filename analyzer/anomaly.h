/*
 * anomaly.h — what went wrong or deserves a look, keyed by (type, code,
 * subject), with sample frames (anomaly.c).
 */
#ifndef RS_ANALYZER_ANOMALY_H
#define RS_ANALYZER_ANOMALY_H

#include "analyzer/conn.h"
#include "analyzer/flow.h"

struct rs_analyzer;

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

struct rs_anomaly {
	uint32_t seq;             /* creation order, for stable reports */
	uint8_t type;             /* enum rs_anom */
	uint32_t code;
	const void *subject;      /* flow, conn, or a static reason string */
	uint64_t count;
	uint32_t nframes;
	struct rs_fref frames[RS_SAMPLE_FRAMES];
	struct rs_anom_ghost *ghost; /* owned: what its sentence needs that its subject does not hold */
	char *detail;             /* the sentence, where the analysis has it as text (a file's error, a frame's why) */
};

/* What an anomaly's sentence needs beyond its subject and counts. A
 * half-flow's or a connection's anomaly keeps a copy of its subject once the
 * subject is evicted (--max-flows; then subject == ghost): its pointers
 * cleared, with the counts its sentence quotes. Reports word it as they
 * word the live ones. RoCE version mixing keeps the two hosts and where
 * each version was first seen. */
struct rs_anom_ghost {
	union {
		struct rs_flow fl;
		struct rs_conn c;
		struct {
			struct rs_addr x, y;
			uint64_t v1_frame, v2_frame;
		} mixed;
	};
	struct rs_psn_loss loss[2]; /* fl.req.loss and fl.rsp.loss point here */
};

struct rs_anomaly *rs_anomaly(struct rs_analyzer *a, enum rs_anom type, uint32_t code, const void *subject,
			      const struct rs_fref *at, uint64_t count);
void rs_anomaly_set_detail(struct rs_anomaly *an, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
const char *rs_anom_key(enum rs_anom t);
/* Anomalies sorted for reports (caller frees the array, not the items). */
GPtrArray *rs_anomalies_sorted(const struct rs_analyzer *a);
void rs_anomaly_free(gpointer p);
/* Whether the subject of an anomaly of this type is a half-flow, a connection. */
bool rs_anom_flow_subject(enum rs_anom t);
bool rs_anom_conn_subject(enum rs_anom t);
/* Eviction under --max-flows: a half-flow or connection by when it was
 * last active; rs_idle_cmp sorts the idlest first, ties by creation order
 * (id), so the victims do not depend on addresses. */
struct rs_idle {
	uint64_t ts;
	uint32_t id;
	void *item;
};
int rs_idle_cmp(const void *x, const void *y);
/* Before a half-flow or a connection goes away: its anomalies keep a ghost
 * of it (at most RS_DETACHED_MAX one by one over the run, then summed per
 * type: subject &a->detached). Call for the victims in a reproducible order
 * (idlest first). */
#define RS_DETACHED_MAX 4096
void rs_anomalies_detach_flow(struct rs_analyzer *a, struct rs_flow *fl);
void rs_anomalies_detach_conn(struct rs_analyzer *a, struct rs_conn *c);
guint rs_anomaly_hash(gconstpointer k);
gboolean rs_anomaly_equal(gconstpointer a, gconstpointer b);

#endif

/*
 * congestion.h — what the analysis knows about congestion and QoS
 * (congestion.c): DSCP and ECN per half-flow (in struct rs_flow_rare),
 * the timing of the CNPs each half-flow received, and PAUSE/PFC frames per
 * sender and priority. The reports read them through result.h (which holds
 * the records and functions they use); they decide nothing.
 */
#ifndef RS_ANALYZER_CONGESTION_H
#define RS_ANALYZER_CONGESTION_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyzer/records/records.h"

struct rs_analyzer;

#define RS_DSCP_DATA_DEFAULT 26 /* the common RoCE convention (NVIDIA, Broadcom defaults) */
#define RS_DSCP_CNP_DEFAULT 48
#define RS_LINK_GBPS_DEFAULT 100
/* A priority held paused without a break this long is a pause storm: the
 * order of the PFC watchdogs' detection times (100-200 ms). */
#define RS_PAUSE_STORM_NS 100000000ull
#define RS_PAUSE_SPANS_MAX 4096 /* spans kept per sender and priority for the plot and timeline */
#define RS_CNP_TS_MAX (1u << 20) /* CNP times kept per half-flow for the interval distribution */

/* A half-flow that received CNPs, or whose packets were marked CE. */
struct rs_cnp_flow {
	GArray *ts;               /* uint64_t: the time of each CNP received */
	GArray *react;            /* uint64_t: ns from the first CE mark on the peer since its last CNP */
	bool have_peer;           /* at the first CNP, the peer (the data flow): */
	uint64_t peer_bytes, peer_first_ts;
	uint64_t ce_pending;      /* as the data flow: its first CE mark (+1) not answered yet */
};

struct rs_cong_state {
	uint8_t dscp_data, dscp_cnp; /* expected */
	bool dscp_given;          /* by the user (else the defaults, judged only where ECN is in use) */
	uint32_t link_gbps;
	uint64_t cnp_threshold;   /* more CNPs than this in a second on one half-flow make an anomaly ... */
	bool cnp_given;           /* ... if --cnp-threshold was given (0 then: every CNP) */
	GHashTable *by_flow;      /* flow id -> struct rs_cnp_flow */
	GPtrArray *pause_src;     /* struct rs_pause_src, in the order first seen */
	uint64_t pfc_frames, pause_frames;
	bool ecn_used;            /* after rs_cong_finish: some RoCE v2 packet was ECN-capable or CE */
	uint64_t v2_packets;      /* after rs_cong_finish: in half-flows in memory */
};

const struct rs_cong_state *rs_cong(const struct rs_analyzer *a);

/* congestion.c: DSCP and ECN per half-flow, CNP timing, PAUSE/PFC. */
void rs_cong_init(struct rs_analyzer *a);
void rs_cong_free(struct rs_analyzer *a);
/* A RoCE v2 frame of half-flow fl (after its CE and CNP counts). */
void rs_cong_frame(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_frame *f, uint64_t ts);
void rs_cong_v1(struct rs_flow *fl, const struct rs_frame *f);
void rs_cong_pfc(struct rs_analyzer *a, const struct rs_frame *f, const struct rs_frame_meta *m);
void rs_cong_finish(struct rs_analyzer *a);

#endif

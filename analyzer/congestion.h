/*
 * congestion.h — what the analysis knows about congestion and QoS
 * (congestion.c): DSCP and ECN per half-flow (in struct rs_flow_rare),
 * the timing of the CNPs each half-flow received, and PAUSE/PFC frames per
 * sender and priority. The reports read these; they decide nothing.
 */
#ifndef RS_ANALYZER_CONGESTION_H
#define RS_ANALYZER_CONGESTION_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "analyzer/flow.h"

struct rs_analyzer;

#define RS_DSCP_DATA_DEFAULT 26 /* the common RoCE convention (NVIDIA, Broadcom defaults) */
#define RS_DSCP_CNP_DEFAULT 48
#define RS_LINK_GBPS_DEFAULT 100
/* A priority held paused without a break this long is a pause storm: the
 * order of the PFC watchdogs' detection times (100-200 ms). */
#define RS_PAUSE_STORM_NS 100000000ull
#define RS_PAUSE_SPANS_MAX 4096 /* spans kept per sender and priority for the plot and timeline */
#define RS_CNP_TS_MAX (1u << 20) /* CNP times kept per half-flow for the interval distribution */

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
/* A half-flow's packets other than CNPs by DSCP, most first: at most max
 * entries (RoCE v2 flows only; returns 0 for others). */
/* A half-flow's CNPs by DSCP: the expected and the other (whose value is
 * rare->cnp_dscp_v). */
void rs_flow_cnp_dscps(const struct rs_flow *fl, uint64_t *expected, uint64_t *other);
/* A half-flow's packets other than CNPs by ECN codepoint (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE). */
void rs_flow_ecns(const struct rs_flow *fl, uint64_t ecn[4]);
bool rs_flow_is_v2(const struct rs_flow *fl);
/* Whether the capture has anything for a congestion section. */
bool rs_cong_any(const struct rs_analyzer *a);
const struct rs_cong_state *rs_cong(const struct rs_analyzer *a);

#endif

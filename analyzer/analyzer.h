/*
 * analyzer.h — state across frames: half-flows and their pairing into
 * connections, CM handshakes, PSN health, message reassembly, latency,
 * congestion marks, timelines; and the report writers.
 *
 * The analyzer never touches packet bytes: it consumes struct rs_frame
 * (what the dissector decoded) plus where and when the frame was seen.
 * Several analyzers may run at once (one per thread) and be merged.
 */
#ifndef RS_ANALYZER_H
#define RS_ANALYZER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dissect/dissect.h"

struct rs_analyzer;

struct rs_analyzer_opts {
	uint64_t interval_ns;  /* timeline / peak-rate bucket (default 10 ms) */
	uint64_t max_flows;    /* 0 = unlimited; else evict the idlest half-flow */
	bool keep_ladder;      /* record per-connection events for --ladder */
	bool keep_plot;        /* keep per-flow throughput series for --plot */
	/* Keep the latest CM events, worded, for the live view
	 * (rs_analyzer_live_events): a live capture's. A file's reports never
	 * show them, and wording one (two inet_ntop, a printf) costs some
	 * 5,600 instructions per CM frame. */
	bool keep_events;
	FILE *timeline;        /* stream timeline CSV rows here (NULL = none) */
	int64_t qp_filter;     /* timeline rows only for this QP's connection (-1 = all) */
	bool resolve_names;    /* addresses to names from /etc/hosts */
	bool t0_given;         /* timeline intervals count from t0_ns, not from the first frame */
	uint64_t t0_ns;
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

/* A hint, optional: call it for each frame some frames before adding it
 * (cli/run.c: RS_LOOKAHEAD frames), in the order they will be added; `f`
 * need not stay valid. The analyzer starts fetching the frame's state from
 * memory so that it is in the caches by then. Results do not depend on it. */
void rs_analyzer_prefetch(struct rs_analyzer *a, const struct rs_frame *f);

/* Close open messages and episodes; flush the timeline. Call once at the end
 * (reports call it if needed). */
void rs_analyzer_finish(struct rs_analyzer *a);

/* Merge `src` (frames that came after `dst`'s, e.g. the next file) into
 * `dst`; `src` is left empty (free it). Both must be finished, made with
 * the same options (and t0_ns, for their intervals to line up). What the
 * merge cannot know exactly is listed at the top of analyzer/merge.c. */
void rs_analyzer_merge(struct rs_analyzer *dst, struct rs_analyzer *src);

/* True if any anomaly (or undecodable frame) was found. */
bool rs_analyzer_has_anomalies(const struct rs_analyzer *a);

/* ---- reports ------------------------------------------------------------ */

struct rs_report_opts {
	bool color;
	int64_t qp;          /* --qp filter for reports (-1 = all) */
	int top;             /* plot: QPs drawn */
	uint64_t interval_ns;
	bool compact;        /* JSON: the document on one line, without indentation */
};

int rs_report_text(FILE *out, struct rs_analyzer *a, const struct rs_report_opts *o);
int rs_report_json(FILE *out, struct rs_analyzer *a, const struct rs_report_opts *o);
int rs_report_plot_svg(FILE *out, struct rs_analyzer *a, const struct rs_report_opts *o);
int rs_report_ladder(FILE *out, struct rs_analyzer *a, const struct rs_report_opts *o);

/* ---- live view ---------------------------------------------------------- */

/* One row of the live per-QP view. */
struct rs_live_qp {
	char src[RS_ADDR_STRLEN], dst[RS_ADDR_STRLEN];
	uint32_t dest_qp;
	const char *transport;   /* "RC", "UD", ... */
	const char *state;       /* connection state or "" */
	uint64_t packets, payload_bytes;
	double rate_now_Bps;     /* payload bytes/s over the last period */
	double rate_avg_Bps;     /* over the flow's active time */
	uint64_t retransmitted, naks, rnr_naks, cnps, ecn_ce;
};

struct rs_live_event {
	uint64_t ts_ns;
	char text[160];          /* "REQ 192.0.2.2 QP 0x11 → 192.0.2.1 TCP/7471" */
};

/* Fill up to `max` rows sorted by current throughput; `period_ns` is the
 * time since the previous call (rate_now covers it). Returns rows filled;
 * *total receives the number of half-flows. */
size_t rs_analyzer_live_qps(struct rs_analyzer *a, uint64_t period_ns, struct rs_live_qp *rows, size_t max,
			    size_t *total);
/* Capture-wide figures for the live view's header line. */
struct rs_live_totals {
	uint64_t frames, bytes, roce_frames, undecodable;
	uint64_t payload_bytes;  /* goodput over every half-flow */
	uint64_t retransmitted, naks, rnr_naks, cnps, ecn_ce, icrc_bad;
	uint64_t half_flows, connections, established, rejected, incomplete;
	uint64_t first_ts_ns, last_ts_ns;
};
void rs_analyzer_live_totals(const struct rs_analyzer *a, struct rs_live_totals *t);

/* The most recent CM events, newest last (none unless opts.keep_events). */
size_t rs_analyzer_live_events(const struct rs_analyzer *a, struct rs_live_event *ev, size_t max);

#endif

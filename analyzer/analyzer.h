/*
 * analyzer.h — state across frames: half-flows and their pairing into
 * connections, CM handshakes, PSN health, message reassembly, latency,
 * congestion marks, timelines. The reports that read it are report/'s
 * (report/report.h).
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

/* One half-flow's counts over one interval (rs_analyzer_opts.interval). */
struct rs_interval_row {
	uint64_t start_ns;          /* from the first frame (or opts.t0_ns) */
	uint64_t start_epoch_ns;
	struct rs_addr src, dst;
	uint32_t dest_qp;
	bool has_peer;              /* paired: peer_qp is the other direction's destination QP */
	uint32_t peer_qp;
	uint64_t packets, bytes, payload;
	uint32_t messages, retrans, naks, ecn_ce, cnps;
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

#endif

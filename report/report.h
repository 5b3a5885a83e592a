/*
 * report.h — what rocestat shows of an analysis: the summary as text or
 * JSON, the throughput plot, the ladder diagram, and the rows of the live
 * view. Writers only read the analysis: the caller finishes it
 * (rs_analyzer_finish) before the first of them; the live view reads it
 * while it runs.
 */
#ifndef RS_REPORT_H
#define RS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/analyzer.h"

/* ---- reports ------------------------------------------------------------ */

struct rs_report_opts {
	bool color;
	int64_t qp;          /* --qp filter for reports (-1 = all) */
	int64_t conn;        /* --conn: one CM connection (-1 = all) */
	int top;             /* plot: QPs drawn */
	int plot_w, plot_h;  /* plot: size in pixels (0: 1000x560) */
	uint64_t interval_ns;
	bool compact;        /* JSON: the document on one line, without indentation */
	bool resolve_names;  /* addresses to names from /etc/hosts */
	int width;           /* text: columns to fit (0: unlimited, every line whole) */
	const char *host;    /* NDJSON: the host each line says it came from (NULL: null) */
	bool bits;           /* text: rates in bits per second (--bits) */
	unsigned metrics_qps;/* metrics: QPs and host pairs with series of their own (0: the default) */
	const void *ctx;     /* the caller's, for a writer it wraps (NULL) */
	int text_mode;       /* text: RS_TEXT_SUMMARY (findings grouped, long sections folded), _FULL or _BRIEF */
};
#define RS_TEXT_SUMMARY 0
#define RS_TEXT_FULL 1       /* --full: every finding and row, one by one */
#define RS_TEXT_BRIEF 2      /* --brief: one screen of 80x24 */

int rs_report_text(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o);
int rs_report_json(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o);
/* --format ndjson: the JSON document's capture, connections, queue pairs and
 * anomalies, one object a line, each naming its kind, file and host. */
int rs_report_ndjson(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o);
/* The summary's formats (formats.c), in the order of enum rs_format
 * (cli/cli.h); the last row's name is NULL. */
#define RS_FMT_COMPACT 1 /* JSON on one line */
#define RS_FMT_HOST 2    /* names the host each line came from (--host) */
#define RS_FMT_METRICS 4 /* metrics: the latency buckets are counted */
struct rs_report_format {
	const char *name;
	int (*write)(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o);
	unsigned flags;
	const char *help;
};
extern const struct rs_report_format rs_report_formats[];
/* Its row, or -1. */
int rs_report_format_find(const char *name);
/* "text, json, ... or openmetrics" */
void rs_report_format_list(char *buf, size_t len);

/* --format prometheus / openmetrics: one scrape's worth (report/metrics.h). */
int rs_report_prometheus(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o);
int rs_report_openmetrics(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o);
int rs_report_plot_svg(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o);
int rs_report_ladder(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o);
/* Whether --qp `qp` selects anything: a half-flow to QP `qp` or a CM
 * connection that names it (what the reports select, view.c). If not,
 * `list` gets the destination QPs present, ascending, hex as in the text
 * summary ("0x11, 0x12", the first 32 and "and N more"), *n their number. */
bool rs_report_qp_present(const struct rs_analyzer *a, uint32_t qp, char *list, size_t len, unsigned *n);
/* Whether --conn `id` names a CM connection; if not, *n is how many there
 * are and *last the highest number. */
bool rs_report_conn_present(const struct rs_analyzer *a, uint64_t id, unsigned *n, unsigned *last);

/* --compare A B (analyzer/compare.h): the comparison as text, finishing it
 * first if needed, laid out for `width` columns (0: unlimited). */
struct rs_cmp;
int rs_report_compare(FILE *out, struct rs_cmp *c, bool resolve_names, int width);

/* ---- the --timeline CSV ---------------------------------------------------- */

/* A CSV writer on `out` (its header written now) whose rs_tlcsv_row is the
 * analyzer's interval hook (ctx: the writer); rows only for the connection
 * of QP `qp` (-1: all); a row of zeros for each interval a half-flow
 * was idle between two rows of it; `file_column`: a first column naming
 * each row's file (several files read). Flush before reading `out`; free
 * flushes. */
struct rs_tlcsv;
struct rs_tlcsv *rs_tlcsv_new(FILE *out, int64_t qp, uint64_t interval_ns, bool file_column, bool fill);
void rs_tlcsv_row(void *ctx, const struct rs_interval_row *row);
/* A PAUSE/PFC sender's row (sender: its MAC; prio -1: PAUSE, all
 * priorities), and all of them once the analysis is finished
 * (report/congestion.c). */
void rs_tlcsv_pause_row(struct rs_tlcsv *w, uint64_t start_ns, uint64_t start_epoch_ns, const char *sender, int prio,
			uint64_t paused_ns);
void rs_tlcsv_pauses(struct rs_tlcsv *w, const struct rs_analyzer *a);
/* The pause spans as shaded bands behind the plot's lines (the plot's x
 * scale: x0 + t / xtop * pw, t in seconds from the first frame). */
void rs_svg_pause_spans(FILE *out, const struct rs_analyzer *a, double x0, double y0, double pw, double ph,
			double xtop);
void rs_tlcsv_flush(struct rs_tlcsv *w);
void rs_tlcsv_free(struct rs_tlcsv *w);

/* ---- live view ---------------------------------------------------------- */

/* One row of the live per-QP view. */
struct rs_live_qp {
	char src[RS_ADDR_STRLEN], dst[RS_ADDR_STRLEN];
	uint32_t dest_qp;
	const char *transport;   /* "RC", "UD", ... */
	const char *state;       /* connection state or "" */
	uint64_t packets, payload_bytes;
	double rate_now_Bps;     /* payload bytes/s over the last period */
	double rate_avg_Bps;     /* over the flow's span, first frame to last; negative: unknown */
	uint64_t retransmitted, naks, rnr_naks, cnps, ecn_ce;
};

struct rs_live_event {
	uint64_t ts_ns;
	char text[160];          /* "REQ 192.0.2.2 QP 0x11 → 192.0.2.1 TCP/7471" */
};

/* The live view's reading of an analysis, from one call to the next. */
struct rs_live;
struct rs_live *rs_live_new(bool resolve_names);
void rs_live_free(struct rs_live *lv);
/* The analyzer's CM event hook (rs_analyzer_opts.cm_event, ctx: the
 * struct rs_live): keeps the latest events. */
void rs_live_cm_event(void *ctx, const struct rs_cm_event *ev);

/* Fill up to `max` rows sorted by current throughput; `period_ns` is the
 * time since the previous call (rate_now covers it). Returns rows filled;
 * *total receives the number of half-flows. */
size_t rs_live_qps(struct rs_live *lv, const struct rs_analyzer *a, uint64_t period_ns, struct rs_live_qp *rows,
		   size_t max, size_t *total);
/* Capture-wide figures for the live view's header line. */
struct rs_live_totals {
	uint64_t frames, bytes, roce_frames, undecodable;
	uint64_t payload_bytes;  /* goodput over every half-flow */
	uint64_t retransmitted, naks, rnr_naks, cnps, ecn_ce, icrc_bad;
	uint64_t half_flows, connections, established, rejected, incomplete;
	uint64_t first_ts_ns, last_ts_ns;
};
void rs_live_totals(const struct rs_analyzer *a, struct rs_live_totals *t);

/* The most recent CM events, worded, newest last. */
size_t rs_live_events(const struct rs_live *lv, struct rs_live_event *ev, size_t max);

#endif

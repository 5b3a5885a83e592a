/*
 * cli.h — the command line: options, the run loops that feed the
 * per-frame consumers (views/sink.h: the summary's here, the views'
 * in views/), and the entry point of each mode.
 */
#ifndef RS_CLI_H
#define RS_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analyzer/analyzer.h"
#include "capture/destfile.h"
#include "views/sink.h"
#include "capture/source.h"
#include "dissect/dissect.h"
#include "report/escape.h"
#include "views/views.h"

/* Exit codes (also in the man page). */
enum {
	RS_EXIT_OK = 0,        /* everything read, nothing to report */
	RS_EXIT_ANOMALIES = 1, /* everything read; anomalies or undecodable frames found */
	RS_EXIT_USAGE = 2,     /* bad option, argument or filter */
	RS_EXIT_INPUT = 3,     /* an input could not be (fully) read or an output not written;
	                          results up to there were kept */
};

/* A row of report/formats.c's table; 0 is text. */
enum rs_format { RS_FORMAT_TEXT = 0 };

#define RS_DEFAULT_SNAPLEN 262144
#define RS_DEFAULT_INTERVAL_NS 10000000ull /* 10 ms timeline buckets */

#define RS_MAX_FRAME_RANGES 64

struct rs_cli_opts {
	/* Where frames come from. */
	char **files;           /* capture files, NULL-terminated (may be empty with -i) */
	char *filter;           /* BPF expression from the trailing arguments, or NULL */
	char *iface;            /* -i: interface or RDMA device */
	bool list_ifaces;       /* -D */
	bool capture_all;       /* --all: no default RoCE-only capture filter */
	int snaplen;            /* -s */
	bool snaplen_given;     /* -s was given (else -w of files states the inputs' snapshot length) */
	int buffer_kib;         /* -B: kernel capture buffer (0 = libpcap's default) */
	char *sysfs_root;       /* --sysfs: where /sys/class/infiniband lives (tests) */
	char *drop_user;        /* -Z: drop privileges to this user after opening */

	/* Which frames. */
	int64_t count;          /* -c: stop after N frames that pass the filter (0 = all) */
	uint64_t first_frame, last_frame; /* --frames: the lowest N and highest M of its ranges (0 = open end) */
	struct rs_frame_range { uint64_t first, last; } frame_ranges[RS_MAX_FRAME_RANGES]; /* last 0: open end */
	size_t n_frame_ranges;  /* --frames N-M,P,Q-: its ranges, in the order given */
	bool context_frames;    /* -V, --fields --verdicts: frames outside the selection go to the view as context */
	bool have_since, have_until;
	double since, until;    /* --since/--until: seconds from the first frame, or epoch if >= 1e9 */
	int64_t qp;             /* --qp: only this destination QP (and its peer); -1 = all */
	int64_t conn;           /* --conn: only this CM connection (the summary's #); -1 = all */
	char **select;          /* -e: --fields columns (NULL-terminated; NULL: all) */

	/* What to write. */
	char *write_file;       /* -w */
	uint64_t rotate_bytes;  /* -C: rotate -w files after this many bytes */
	uint32_t rotate_seconds;/* -G */
	uint32_t rotate_files;  /* -W: keep at most this many rotated files */
	bool fields;            /* --fields */
	bool verdicts;          /* --verdicts: --fields adds the analyzer's verdict columns */
	bool walk;              /* --walk / -V */
	bool ladder;            /* --ladder */
	char *annotate;         /* --annotate OUT.pcapng: the frames with the verdicts as comments */
	bool compare;           /* --compare A B: the same traffic at two capture points */
	char *host;             /* --host: the host NDJSON lines name (default: this machine's name) */
	enum rs_format format;  /* --format */
	char *metrics;          /* --metrics [ADDR]:PORT: serve /metrics while capturing */
	unsigned metrics_qps;   /* --metrics-qps: QPs and host pairs with series of their own (0: default) */
	struct rs_expect *expects; /* --expect, parsed (report/expect.h); nexpect of them */
	size_t nexpect;
	char *expect_junit;     /* --expect-junit FILE */
	char *output;           /* -o: the report goes to this file instead of stdout */
	char *timeline;         /* --timeline FILE.csv */
	int timeline_fill;       /* --timeline-fill: zero rows for idle intervals (GOption sets an int) */
	uint64_t interval_ns;   /* --interval */
	char *plot;             /* --plot FILE.svg */
	int top;                /* --top: QPs drawn in the plot */
	int plot_w, plot_h;     /* --plot-size WxH (0: the default) */
	bool bits;              /* --bits: rates in bits per second */
	int brief, full;        /* --brief: one screen of 80x24; --full: every finding and row (gbooleans GOption sets) */
	int width;              /* --width: text report columns (0 unlimited, -1 the terminal's or 80) */
	bool quiet;             /* -q: live mode prints one line per interval */
	double refresh;         /* --refresh: live view period in seconds */
	bool no_resolve;        /* -n */
	int color;              /* resolved --color */
	int threads;            /* -j: threads the offline loop may use (1: read and analyse in one) */
	uint64_t max_flows;     /* --max-flows: cap on tracked half-flows (0 = no cap) */
	bool max_flows_default; /* ... not given: the memory share's default */
	uint8_t dscp_data1, dscp_cnp1; /* --dscp: the expected DSCPs + 1 (0: the defaults) */
	uint32_t link_gbps;     /* --link-speed (0: the default, 100) */
	uint64_t cnp_threshold1; /* --cnp-threshold + 1 (0: none) */
	struct rs_ulp_map ulp[8]; /* --ulp PORT=NAME */
	uint8_t n_ulp;

	struct rs_dissect_opts dissect;
};

/* An output file written under a temporary name and renamed into place by
 * rs_outfile_commit(), so an interrupted run never leaves half a file under
 * the final name. "-" means standard output. */
struct rs_outfile {
	FILE *fp;
	char *path;   /* final name */
	char *tmp;    /* temporary name, NULL for stdout */
	char *buf;    /* stdio's buffer for a temporary file (outfile.c) */
	struct rs_dest dest; /* the file it replaces */
};
bool rs_outfile_open(struct rs_outfile *of, const char *path, char err[RS_ERRBUF_SIZE]);
/* Flush, close and rename; false (err set) if any write failed. */
bool rs_outfile_commit(struct rs_outfile *of, char err[RS_ERRBUF_SIZE]);
/* Remove the temporary file (error paths). */
void rs_outfile_abort(struct rs_outfile *of);

/* The default mode: analyse and write the summary, timeline, plot, ladder.
 * rs_summary_new() + its sink + rs_summary_finish() serve live captures too
 * (with the live view on ticks); rs_run_summary() is the offline loop. */
struct rs_summary;
struct rs_summary *rs_summary_new(const struct rs_cli_opts *o);
struct rs_sink rs_summary_sink(struct rs_summary *s);
/* An output (--timeline) could not be opened: do not start reading. */
bool rs_summary_failed(const struct rs_summary *s);
/* Write the reports; returns `rc` or a worse RS_EXIT_ code. Frees s. */
int rs_summary_finish(struct rs_summary *s, int rc);
int rs_summary_check_absent(const struct rs_cli_opts *o);
/* --metrics: start serving (after -Z dropped privileges; rs_run_live's
 * `started` hook, ctx the summary). False: err says why. */
bool rs_summary_serve(void *ctx, char *err, size_t len);

/* outopts.c: --expect (parsed into o) and the checks of the outputs for
 * other programs; false: err says why. */
bool rs_cli_take_expects(struct rs_cli_opts *o, char **expect, const char *junit, char *err, size_t len);
bool rs_cli_check_outputs(const struct rs_cli_opts *o, char *err, size_t len);

/* The --metrics HTTP endpoint (mserver.c): "[ADDR]:PORT" listened on,
 * serving the buffers last published (Prometheus' text format, OpenMetrics). */
struct rs_mserver;
struct rs_mserver *rs_mserver_start(const char *spec, char *err, size_t len);
void rs_mserver_publish(struct rs_mserver *m, const char *prom, size_t nprom, const char *om, size_t nom);
void rs_mserver_stop(struct rs_mserver *m);
int rs_run_summary(const struct rs_cli_opts *o);

/* The live view: a refreshing per-QP screen on a terminal, or one
 * parseable line per interval (-q, or output not a terminal). */
struct rs_liveview;
struct rs_analyzer;
struct rs_liveview *rs_liveview_new(FILE *out, const struct rs_cli_opts *o);
struct rs_live;
void rs_liveview_tick(struct rs_liveview *v, struct rs_live *lv, const struct rs_analyzer *a, uint64_t now_ns);
/* Leave the screen as the user had it (cursor back, below the view). */
void rs_liveview_free(struct rs_liveview *v);

/* Returns 0 to run, a positive RS_EXIT_ code to exit with, or -1 to exit 0
 * (--version, --help). */
int rs_cli_parse(int argc, char **argv, struct rs_cli_opts *o);
/* argv.c: argv (argc words) with each short option's value given in its
 * word (-c5) cut into a word of its own (-c 5), for GLib's parser;
 * short_with_value: the short options that take a value, long_with_value:
 * the long ones (NULL-terminated). A new vector of new strings (g_strfreev). */
char **rs_cli_split_values(int argc, char **argv, const char *short_with_value, const char *const *long_with_value);
void rs_cli_free(struct rs_cli_opts *o);

/* help.c: --help wrapped to the terminal's width (80 through a pipe), and
 * the short usage a bare `rocestat` prints. */
typedef struct _GOptionContext GOptionContext;
void rs_cli_print_help(FILE *f, GOptionContext *ctx);
void rs_cli_print_usage(FILE *f);

/* Parse "10ms", "1.5s", "250us", "2m"; false if malformed. */
bool rs_parse_duration_ns(const char *s, uint64_t *ns);

/* --frames and --since/--until (select.c). AFTER: past the end of the range
 * (a live capture stops there; files are still read, their frames need not
 * be in time order). */
enum rs_pick { RS_PICK_TAKE, RS_PICK_SKIP, RS_PICK_AFTER };
struct rs_select {
	bool have_t0;
	uint64_t t0; /* time of the first frame (live: the capture's start), for relative --since/--until */
};
enum rs_pick rs_select_number(const struct rs_cli_opts *o, uint64_t frame_no);
enum rs_pick rs_select_time(const struct rs_cli_opts *o, struct rs_select *s, uint64_t ts_ns);
/* Live: is it past --until at NOW_EPOCH seconds? */
bool rs_select_until_passed(const struct rs_cli_opts *o, const struct rs_select *s, double now_epoch);

/* --compare A B (cli/compare.c). Returns an RS_EXIT_ code. */
int rs_run_compare(const struct rs_cli_opts *o);
/* The columns the text reports are laid out for: --width, else the
 * terminal's when standard output is one (80 at the least), else 80
 * (cli/summary.c). */
int rs_text_width(const struct rs_cli_opts *o);

/* Read every file in o->files through the sink. Returns an RS_EXIT_ code. */
int rs_run_files(const struct rs_cli_opts *o, const struct rs_sink *sink);

/* heap.c: the main heap on transparent huge pages from here on (the
 * analyzer's per-flow blocks miss the TLB less); _update marks what the
 * heap grew by since, and is cheap enough to call every 4096 frames. */
void rs_heap_hugepages_begin(void);
void rs_heap_hugepages_update(void);
/* Whether the input can be opened more than once: a regular file can;
 * standard input ("-") and pipes are read once, by the run itself, so
 * nothing may look into them beforehand. */
bool rs_input_rereadable(const char *path);
/* o->files in the order of their first frames' times (stable), for the
 * analysis: so that rotated captures (cap.pcap1 ... cap.pcap10) or files
 * given by a glob follow each other in time, as mergecap merges them. NULL
 * when that is the order given already, or some input can be read only
 * once. A file with no frame to read keeps its place after the file given
 * before it. The strings stay o->files'; g_free() the array. */
char **rs_files_by_time(const struct rs_cli_opts *o);

/* -i: capture live through the sink (and -w) until -c, a signal or an
 * error. Prints libpcap's received/dropped counts on stderr at the end.
 * Returns an RS_EXIT_ code. */
int rs_run_live(const struct rs_cli_opts *o, const struct rs_sink *sink);
/* The same, calling started(ctx, ...) once the device is open and the
 * privileges dropped, before the capture begins; false ends the run with
 * its message (exit RS_EXIT_USAGE). */
int rs_run_live_hooked(const struct rs_cli_opts *o, const struct rs_sink *sink,
		       bool (*started)(void *ctx, char *err, size_t len), void *ctx);
/* -D: capture interfaces and the RDMA devices bound to them. */
int rs_list_interfaces(const struct rs_cli_opts *o, FILE *out);
/* -r FILE... -w OUT [filter]: rs_run_files, writing every frame that passes
 * to OUT as well. */
int rs_run_extract(const struct rs_cli_opts *o, const struct rs_sink *sink);
/* A sink that takes every frame and shows nothing (capture with -w only). */
struct rs_sink rs_null_sink(void);

#endif

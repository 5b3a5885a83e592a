/*
 * summary.c — the default mode: feed every frame to the analyzer, then write
 * the report (text or JSON, to stdout or -o FILE), the --timeline CSV, the
 * --plot SVG and the --ladder diagram. Files are written under temporary
 * names and renamed when complete.
 *
 * The same sink serves live captures: its tick hook refreshes the live view
 * and the final report is the one `rocestat FILE` would print for the frames
 * that were captured.
 *
 * rs_run_summary() feeds the sink through rs_run_files(), which hands it
 * the frames in batches: with more than one thread (-j), read
 * and decoded in one thread while this one analyses them (cli/pipeline.c).
 * Several files are analysed one after the other in time order, by the
 * one analyzer, so the report is the one of a single run over all of them.
 */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "analyzer/analyzer.h"
#include "report/expect.h"
#include "report/metrics.h"
#include "report/report.h"
#include "cli/cli.h"

struct rs_summary {
	const struct rs_cli_opts *o;
	struct rs_analyzer *a;
	struct rs_outfile timeline;
	struct rs_tlcsv *tl;      /* its CSV writer (a sequential run's) */
	struct rs_liveview *live;
	struct rs_live *lv;       /* the live view's reading of the analysis (live captures) */
	bool failed;              /* could not even start (an output could not be opened) */
	bool have_stats;
	struct rs_capture_stats stats;
	uint64_t frames_read;     /* frames handed to the analyzer, all files */
	struct rs_mserver *ms;    /* --metrics: the endpoint, and what its series keep */
	struct rs_metrics *mx;
};

static void add_frame(struct rs_summary *s, const struct rs_packet *pkt, const struct rs_frame *f)
{
	struct rs_frame_meta m = {
		.frame_no = pkt->frame_no,
		.ts_ns = rs_frame_time_ns(f, pkt->ts_ns),
		.wirelen = rs_frame_wirelen(f, pkt->wirelen),
		.caplen = pkt->caplen,
	};
	rs_analyzer_add(s->a, &m, f);
	s->frames_read++;
}

/* The metrics of the analysis so far, to the endpoint: both formats, so
 * that a scrape only copies. */
static void publish(struct rs_summary *s)
{
	struct rs_metrics_drops d = { .have = s->have_stats, .received = s->stats.received,
				      .dropped = s->stats.dropped, .ifdropped = s->stats.ifdropped };
	GString *prom = g_string_new(NULL), *om = g_string_new(NULL);
	rs_metrics_render(s->mx, s->a, &d, false, prom);
	rs_metrics_render(s->mx, s->a, &d, true, om);
	rs_mserver_publish(s->ms, prom->str, prom->len, om->str, om->len);
	g_string_free(prom, TRUE);
	g_string_free(om, TRUE);
}

/* Flows read for the metrics after each batch of frames: the reading of
 * ten thousand QPs takes milliseconds, which in one piece would hold the
 * capture up long enough to make the kernel drop frames. */
#define METRICS_STEP 256

/*
 * A batch: each frame is announced to the analyzer up to AHEAD frames
 * before it is added (rs_analyzer_prefetch), so that its flow's state is in
 * the caches by then. The analyzer remembers the last 8 frames announced
 * (its prefetch stages, analyzer/table/flowtable.c): a frame is added before the
 * 8th after it is announced. The first frames of a batch are announced
 * together. Announcing reads the frame, which the reading thread wrote
 * (cli/pipeline.c): its lines are asked for FRAME_AHEAD frames earlier
 * still, so that the announcement does not wait for them.
 */
#define AHEAD 7
#define FRAME_AHEAD 4

static bool frames(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f, size_t n)
{
	struct rs_summary *s = ctx;
	for (size_t i = 0; i < n && i < AHEAD; i++)
		rs_analyzer_prefetch(s->a, &f[i]);
	for (size_t i = 0; i < n; i++) {
		if (i + AHEAD + FRAME_AHEAD < n) {
			rs_frame_prefetch(&f[i + AHEAD + FRAME_AHEAD]);
			__builtin_prefetch(&pkt[i + AHEAD + FRAME_AHEAD]);
		}
		if (i + AHEAD < n)
			rs_analyzer_prefetch(s->a, &f[i + AHEAD]);
		add_frame(s, &pkt[i], &f[i]);
	}
	if (s->ms && rs_metrics_read_some(s->mx, s->a, METRICS_STEP))
		publish(s);
	return true;
}


bool rs_summary_serve(void *ctx, char *err, size_t len)
{
	struct rs_summary *s = ctx;
	if (!s->o->metrics)
		return true;
	if (!(s->ms = rs_mserver_start(s->o->metrics, err, len)))
		return false;
	s->mx = rs_metrics_new(s->o->metrics_qps ? s->o->metrics_qps : RS_METRICS_QPS, !s->o->no_resolve);
	rs_metrics_read(s->mx, s->a);
	publish(s);
	rs_eprintf("rocestat: metrics at http://%s%s/metrics\n", s->o->metrics[0] == ':' ? "127.0.0.1" : "", s->o->metrics);
	return true;
}


static void tick(struct rs_summary *s, uint64_t now_ns)
{
	if (s->ms) {
		/* A reading still under way (few frames came) is finished now;
		 * then the next one starts, to be read between batches. */
		if (rs_metrics_reading(s->mx)) {
			rs_metrics_read(s->mx, s->a);
			publish(s);
		}
		rs_metrics_read_start(s->mx, s->a);
	}
	if (!s->live)
		s->live = rs_liveview_new(stderr, s->o);
	rs_liveview_tick(s->live, s->lv, s->a, now_ns);
}

static void event(void *ctx, const struct rs_sink_event *ev)
{
	struct rs_summary *s = ctx;
	switch (ev->kind) {
	case RS_SINK_BEGIN:
		rs_analyzer_add_file(s->a, ev->name, ev->dlt);
		break;
	case RS_SINK_OPEN_ERROR:
		rs_analyzer_open_error(s->a, ev->name, ev->message);
		break;
	case RS_SINK_FILE_ERROR:
		rs_analyzer_file_error(s->a, ev->message);
		break;
	case RS_SINK_WARNING:
		rs_analyzer_file_warning(s->a, ev->frame_no, ev->count, ev->message);
		break;
	case RS_SINK_STATS:
		s->stats = *ev->stats;
		s->have_stats = true;
		break;
	case RS_SINK_TICK:
		tick(s, ev->now_ns);
		break;
	case RS_SINK_END:
	case RS_SINK_IDLE:
		break;
	}
}

struct rs_summary *rs_summary_new(const struct rs_cli_opts *o)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_summary *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->o = o;
	if (o->timeline && !rs_outfile_open(&s->timeline, o->timeline, err)) {
		rs_eprintf("rocestat: %s\n", err);
		s->failed = true;
	}
	struct rs_analyzer_opts ao = {
		.interval_ns = o->interval_ns,
		.max_flows = o->max_flows,
		.max_flows_default = o->max_flows_default,
		.n_ulp = o->n_ulp,
		.keep_ladder = o->ladder,
		.keep_plot = o->plot != NULL,
		.dscp_data1 = o->dscp_data1,
		.dscp_cnp1 = o->dscp_cnp1,
		.link_gbps = o->link_gbps,
		.cnp_threshold1 = o->cnp_threshold1,
		.lat_buckets = o->metrics || (rs_report_formats[o->format].flags & RS_FMT_METRICS),
	};
	memcpy(ao.ulp, o->ulp, sizeof ao.ulp);
	if (o->iface) { /* the live view shows the CM events */
		s->lv = rs_live_new(!o->no_resolve);
		ao.cm_event = rs_live_cm_event;
		ao.cm_event_ctx = s->lv;
	}
	if (s->timeline.fp) {
		s->tl = rs_tlcsv_new(s->timeline.fp, o->qp, o->interval_ns, o->files && o->files[0] && o->files[1],
				     o->timeline_fill);
		ao.interval = rs_tlcsv_row;
		ao.interval_ctx = s->tl;
	}
	s->a = rs_analyzer_new(&ao);
	return s;
}

bool rs_summary_failed(const struct rs_summary *s)
{
	return s->failed;
}

struct rs_sink rs_summary_sink(struct rs_summary *s)
{
	return (struct rs_sink){ .ctx = s, .frames = frames, .event = event };
}

/* The columns the text summary is laid out for: --width, else the
 * terminal's when it goes to one (80 at the least), else 80. */
int rs_text_width(const struct rs_cli_opts *o)
{
	if (o->width >= 0)
		return o->width;
	struct winsize ws;
	if (!o->output && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col)
		return ws.ws_col > 80 ? ws.ws_col : 80;
	return 80;
}

static int write_report(const char *path, int (*writer)(FILE *, const struct rs_analyzer *, const struct rs_report_opts *),
			struct rs_analyzer *a, const struct rs_report_opts *ro)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_outfile of;
	if (!rs_outfile_open(&of, path, err)) {
		rs_eprintf("rocestat: %s\n", err);
		return RS_EXIT_INPUT;
	}
	errno = 0;
	if (writer(of.fp, a, ro) != 0) {
		/* The reason, as the other outputs give it: the writers stop at
		 * the stream's error flag, and the failed write's errno is still
		 * there unless a later call replaced it; a flush finds it again. */
		int e = errno;
		if (fflush(of.fp) != 0 && errno)
			e = errno;
		rs_eprintf("rocestat: %s: writing the report failed: %s\n", path, e ? strerror(e) : "I/O error");
		rs_outfile_abort(&of);
		return RS_EXIT_INPUT;
	}
	if (!rs_outfile_commit(&of, err)) {
		rs_eprintf("rocestat: %s\n", err);
		return RS_EXIT_INPUT;
	}
	return RS_EXIT_OK;
}

static int junit(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *ro)
{
	(void)a;
	const struct rs_cli_opts *o = ro->ctx;
	return rs_expect_junit(out, o->expects, o->nexpect, o->files && o->files[0] ? o->files[0] : o->iface);
}

/* --expect decides the exit status in place of the anomalies: 0 when every
 * assertion holds, 1 when one fails; an input error (3) stays. */
static int expectations(struct rs_summary *s, const struct rs_report_opts *ro, int rc)
{
	const struct rs_cli_opts *o = s->o;
	rs_expect_eval(s->a, ro, o->expects, o->nexpect);
	rs_expect_print(stderr, o->expects, o->nexpect);
	bool all = true;
	for (size_t i = 0; i < o->nexpect; i++)
		all = all && o->expects[i].ok;
	if (o->expect_junit) {
		struct rs_report_opts jo = *ro;
		jo.ctx = o;
		int jrc = write_report(o->expect_junit, junit, s->a, &jo);
		if (jrc != RS_EXIT_OK)
			return jrc;
	}
	if (rc == RS_EXIT_INPUT)
		return rc;
	return all ? RS_EXIT_OK : RS_EXIT_ANOMALIES;
}

/*
 * The report is the last thing a run does: main() returns right after it,
 * and the kernel takes the whole heap back at once. Freeing the analyzer
 * block by block first (every flow's latency, message and loss blocks:
 * tens of thousands on the bench capture, millions with a million QPs)
 * cost time for nothing (bench/NOTES.md). It stays reachable from here, so a
 * leak checker reports only what really was lost; sanitizer builds, and
 * runs with ROCESTAT_FREE_AT_EXIT set (tests/valgrind.py), free it all as
 * before, so that memcheck still sees every block of it freed.
 */
#if defined(__SANITIZE_ADDRESS__)
#define FREE_AT_EXIT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FREE_AT_EXIT 1
#endif
#endif
#ifndef FREE_AT_EXIT
#define FREE_AT_EXIT 0
#endif

static struct rs_analyzer *left_for_exit;

static void drop_at_exit(struct rs_analyzer *a)
{
	if (FREE_AT_EXIT || getenv("ROCESTAT_FREE_AT_EXIT")) {
		rs_analyzer_free(a);
		return;
	}
	rs_analyzer_free(left_for_exit); /* NULL unless a caller finished twice */
	left_for_exit = a;
}

/* --qp N of a QP the capture does not have: an error that lists the ones
 * it has, rather than a report of nothing. True if it was said. */
static bool qp_absent(const struct rs_analyzer *a, int64_t qp)
{
	char list[512];
	unsigned n;
	if (qp < 0 || rs_report_qp_present(a, (uint32_t)qp, list, sizeof list, &n))
		return false;
	if (n)
		rs_eprintf("rocestat: --qp 0x%x (%" PRId64 "): no such QP in the capture; the destination QPs "
			"present: %s\n", (uint32_t)qp, qp, list);
	else
		rs_eprintf("rocestat: --qp 0x%x (%" PRId64 "): no such QP in the capture, which has no RoCE or "
			"InfiniBand QP at all\n", (uint32_t)qp, qp);
	return true;
}

static bool conn_absent(const struct rs_analyzer *a, int64_t conn)
{
	unsigned n, last;
	if (conn < 0 || rs_report_conn_present(a, (uint64_t)conn, &n, &last))
		return false;
	if (n)
		rs_eprintf("rocestat: --conn %" PRId64 ": no such CM connection; the summary numbers them 0 to %u\n",
			conn, last);
	else
		rs_eprintf("rocestat: --conn %" PRId64 ": no such CM connection; the capture has none (pick a QP "
			"with --qp)\n", conn);
	return true;
}

/* -V or --fields with --qp/--conn showed nothing: analyse the files again
 * to tell an absent QP (an error that lists the ones present, exit 2) from
 * one whose frames lay outside --frames (nothing to say). */
int rs_summary_check_absent(const struct rs_cli_opts *o)
{
	struct rs_cli_opts q = *o;
	q.timeline = NULL;
	q.plot = NULL;
	q.ladder = false;
	q.count = 0; /* the whole capture: a QP outside --frames is not absent */
	q.first_frame = q.last_frame = 0;
	q.n_frame_ranges = 0;
	q.have_since = q.have_until = false;
	struct rs_summary *s = rs_summary_new(&q);
	if (!s)
		return RS_EXIT_INPUT;
	struct rs_sink sink = rs_summary_sink(s);
	int rc = rs_run_files(&q, &sink);
	rs_analyzer_finish(s->a);
	if (rs_analyzer_opened_any(s->a) && (qp_absent(s->a, o->qp) || conn_absent(s->a, o->conn)))
		rc = RS_EXIT_USAGE;
	rs_analyzer_free(s->a);
	free(s);
	return rc;
}

int rs_summary_finish(struct rs_summary *s, int rc)
{
	const struct rs_cli_opts *o = s->o;
	char err[RS_ERRBUF_SIZE];

	rs_liveview_free(s->live);
	rs_live_free(s->lv);
	rs_mserver_stop(s->ms); /* the capture ended: nothing more to serve */
	rs_metrics_free(s->mx);
	s->ms = NULL;
	s->mx = NULL;
	s->live = NULL;
	/* A live capture that never started (no such interface, no permission,
	 * -w or -Z refused): its error was said, and a report of nothing would
	 * read as a quiet link. */
	bool never_started = o->iface && rc != RS_EXIT_OK && !rs_analyzer_opened_any(s->a);
	if (s->failed || rc == RS_EXIT_USAGE || never_started) {
		/* Nothing was read (an output could not be opened, the filter was
		 * bad): no report, and no timeline file either. */
		rs_analyzer_free(s->a);
		rs_tlcsv_free(s->tl);
		if (s->timeline.fp)
			rs_outfile_abort(&s->timeline);
		free(s);
		return rc == RS_EXIT_USAGE ? RS_EXIT_USAGE : RS_EXIT_INPUT;
	}
	rs_analyzer_finish(s->a);
	rs_tlcsv_pauses(s->tl, s->a);
	rs_tlcsv_free(s->tl); /* the analyzer's last rows came with its finish */
	s->tl = NULL;
	if (rs_analyzer_opened_any(s->a) && (qp_absent(s->a, o->qp) || conn_absent(s->a, o->conn))) {
		/* A misspelt QP is a bad argument: no report, report files kept. */
		if (s->timeline.fp)
			rs_outfile_abort(&s->timeline);
		drop_at_exit(s->a);
		free(s);
		return RS_EXIT_USAGE;
	}
	struct rs_report_opts ro = { .color = o->color, .qp = o->qp, .conn = o->conn, .bits = o->bits, .top = o->top, .plot_w = o->plot_w, .plot_h = o->plot_h, .interval_ns = o->interval_ns,
				     .compact = rs_report_formats[o->format].flags & RS_FMT_COMPACT, .resolve_names = !o->no_resolve,
				     .width = rs_text_width(o), .host = o->host, .metrics_qps = o->metrics_qps,
				     .text_mode = o->brief ? RS_TEXT_BRIEF : o->full ? RS_TEXT_FULL : RS_TEXT_SUMMARY };
	/* Not one frame could be read (a misspelt name, an empty file, one
	 * that is no capture, a file cut in its first record): standard error
	 * said why, and a text report of no frames would say nothing more
	 * (JSON and the others still list the file with its error, for
	 * programs); report files (-o, --plot,
	 * --timeline) from an earlier run are kept rather than replaced by
	 * empty ones. */
	bool keep_files = rc == RS_EXIT_INPUT && (!rs_analyzer_opened_any(s->a) || s->frames_read == 0);
	int wrc = RS_EXIT_OK;
	if (keep_files && (o->output || o->format == RS_FORMAT_TEXT))
		; /* nothing to say that stderr has not said (a document for programs still names the file's error) */
	else if (o->ladder)
		wrc = write_report(o->output ? o->output : "-", rs_report_ladder, s->a, &ro);
	else
		wrc = write_report(o->output ? o->output : "-", rs_report_formats[o->format].write, s->a, &ro);
	if (wrc == RS_EXIT_OK && o->plot && !keep_files)
		wrc = write_report(o->plot, rs_report_plot_svg, s->a, &ro);
	if (keep_files && s->timeline.fp)
		rs_outfile_abort(&s->timeline);
	else if (s->timeline.fp && !rs_outfile_commit(&s->timeline, err)) {
		rs_eprintf("rocestat: %s\n", err);
		wrc = RS_EXIT_INPUT;
	}
	if (wrc != RS_EXIT_OK)
		rc = wrc;
	else if (o->nexpect)
		rc = expectations(s, &ro, rc);
	else if (rc == RS_EXIT_OK && rs_analyzer_has_anomalies(s->a))
		rc = RS_EXIT_ANOMALIES;
	drop_at_exit(s->a);
	free(s);
	return rc;
}

int rs_run_summary(const struct rs_cli_opts *given)
{
	/* Several files are analysed in time order (rs_files_by_time): the
	 * flows, connections and anomalies follow the traffic, whatever order
	 * the shell gave them in. */
	struct rs_cli_opts by_time = *given;
	char **sorted = rs_files_by_time(given);
	if (sorted)
		by_time.files = sorted;
	const struct rs_cli_opts *o = &by_time;
	rs_heap_hugepages_begin();
	struct rs_summary *s = rs_summary_new(o);
	if (!s) {
		g_free(sorted);
		return RS_EXIT_INPUT;
	}
	int rc;
	if (rs_summary_failed(s)) {
		rc = rs_summary_finish(s, RS_EXIT_INPUT);
	} else {
		struct rs_sink sink = rs_summary_sink(s);
		rc = rs_summary_finish(s, rs_run_files(o, &sink));
	}
	g_free(sorted);
	return rc;
}

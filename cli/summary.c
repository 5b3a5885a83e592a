/*
 * summary.c — the default mode: feed every frame to the analyzer, then write
 * the report (text or JSON, to stdout or -o FILE), the --timeline CSV, the
 * --plot SVG and the --ladder diagram. Files are written under temporary
 * names and renamed when complete.
 *
 * The same sink serves live captures: its tick hook refreshes the live view
 * and the final report is the one `rocestat FILE` would print for the frames
 * that were captured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analyzer.h"
#include "cli/cli.h"

struct rs_summary {
	const struct rs_cli_opts *o;
	struct rs_analyzer *a;
	struct rs_outfile timeline;
	struct rs_liveview *live;
	bool failed;              /* could not even start (an output could not be opened) */
	bool have_stats;
	struct rs_capture_stats stats;
};

static void begin_file(void *ctx, const char *name, int dlt)
{
	struct rs_summary *s = ctx;
	rs_analyzer_add_file(s->a, name, dlt);
}

static bool frame(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f)
{
	struct rs_summary *s = ctx;
	struct rs_frame_meta m = {
		.frame_no = pkt->frame_no,
		.ts_ns = rs_frame_time_ns(f, pkt->ts_ns),
		.wirelen = pkt->wirelen,
		.caplen = pkt->caplen,
	};
	rs_analyzer_add(s->a, &m, f);
	return true;
}

static void file_error(void *ctx, const char *message)
{
	struct rs_summary *s = ctx;
	rs_analyzer_file_error(s->a, message);
}

static void tick(void *ctx, uint64_t now_ns)
{
	struct rs_summary *s = ctx;
	if (!s->live)
		s->live = rs_liveview_new(stderr, s->o);
	rs_liveview_tick(s->live, s->a, now_ns);
}

static void capture_stats(void *ctx, const struct rs_capture_stats *st)
{
	struct rs_summary *s = ctx;
	s->stats = *st;
	s->have_stats = true;
}

struct rs_summary *rs_summary_new(const struct rs_cli_opts *o)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_summary *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->o = o;
	if (o->timeline && !rs_outfile_open(&s->timeline, o->timeline, err)) {
		fprintf(stderr, "rocestat: %s\n", err);
		s->failed = true;
	}
	struct rs_analyzer_opts ao = {
		.interval_ns = o->interval_ns,
		.max_flows = o->max_flows,
		.keep_ladder = o->ladder,
		.keep_plot = o->plot != NULL,
		.timeline = s->timeline.fp,
		.qp_filter = o->qp,
		.resolve_names = !o->no_resolve,
	};
	s->a = rs_analyzer_new(&ao);
	return s;
}

bool rs_summary_failed(const struct rs_summary *s)
{
	return s->failed;
}

struct rs_sink rs_summary_sink(struct rs_summary *s)
{
	return (struct rs_sink){ .ctx = s, .begin_file = begin_file, .frame = frame, .file_error = file_error,
				 .tick = tick, .capture_stats = capture_stats };
}

static int write_report(const char *path, int (*writer)(FILE *, struct rs_analyzer *, const struct rs_report_opts *),
			struct rs_analyzer *a, const struct rs_report_opts *ro)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_outfile of;
	if (!rs_outfile_open(&of, path, err)) {
		fprintf(stderr, "rocestat: %s\n", err);
		return RS_EXIT_INPUT;
	}
	if (writer(of.fp, a, ro) != 0) {
		fprintf(stderr, "rocestat: %s: writing the report failed\n", path);
		rs_outfile_abort(&of);
		return RS_EXIT_INPUT;
	}
	if (!rs_outfile_commit(&of, err)) {
		fprintf(stderr, "rocestat: %s\n", err);
		return RS_EXIT_INPUT;
	}
	return RS_EXIT_OK;
}

int rs_summary_finish(struct rs_summary *s, int rc)
{
	const struct rs_cli_opts *o = s->o;
	char err[RS_ERRBUF_SIZE];

	rs_liveview_free(s->live);
	s->live = NULL;
	if (s->failed || rc == RS_EXIT_USAGE) {
		/* Nothing was read (an output could not be opened, the filter was
		 * bad): no report, and no timeline file either. */
		if (s->timeline.fp)
			rs_outfile_abort(&s->timeline);
		rs_analyzer_free(s->a);
		free(s);
		return rc == RS_EXIT_USAGE ? RS_EXIT_USAGE : RS_EXIT_INPUT;
	}
	rs_analyzer_finish(s->a);
	struct rs_report_opts ro = { .color = o->color, .qp = o->qp, .top = o->top, .interval_ns = o->interval_ns };
	int wrc;
	if (o->ladder)
		wrc = write_report(o->output ? o->output : "-", rs_report_ladder, s->a, &ro);
	else
		wrc = write_report(o->output ? o->output : "-",
				   o->format == RS_FORMAT_JSON ? rs_report_json : rs_report_text, s->a, &ro);
	if (wrc == RS_EXIT_OK && o->plot)
		wrc = write_report(o->plot, rs_report_plot_svg, s->a, &ro);
	if (s->timeline.fp && !rs_outfile_commit(&s->timeline, err)) {
		fprintf(stderr, "rocestat: %s\n", err);
		wrc = RS_EXIT_INPUT;
	}
	if (wrc != RS_EXIT_OK)
		rc = wrc;
	else if (rc == RS_EXIT_OK && rs_analyzer_has_anomalies(s->a))
		rc = RS_EXIT_ANOMALIES;
	rs_analyzer_free(s->a);
	free(s);
	return rc;
}

int rs_run_summary(const struct rs_cli_opts *o)
{
	struct rs_summary *s = rs_summary_new(o);
	if (!s)
		return RS_EXIT_INPUT;
	struct rs_sink sink = rs_summary_sink(s);
	int rc = rs_summary_failed(s) ? RS_EXIT_INPUT : rs_run_files(o, &sink);
	return rs_summary_finish(s, rc);
}

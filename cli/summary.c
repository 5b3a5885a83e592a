/*
 * summary.c — the default mode: feed every frame to the analyzer, then write
 * the report (text or JSON, to stdout or -o FILE), the --timeline CSV, the
 * --plot SVG and the --ladder diagram. Files are written under temporary
 * names and renamed when complete.
 */
#include <stdio.h>
#include <string.h>

#include "analyzer/analyzer.h"
#include "cli/cli.h"

struct summary {
	struct rs_analyzer *a;
	uint32_t file_index;
};

static void begin_file(void *ctx, const char *name, int dlt)
{
	struct summary *s = ctx;
	rs_analyzer_add_file(s->a, name, dlt);
}

static bool frame(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f)
{
	struct summary *s = ctx;
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
	struct summary *s = ctx;
	rs_analyzer_file_error(s->a, message);
}

static void file_warning(void *ctx, uint64_t frame_no, uint64_t count, const char *message)
{
	struct summary *s = ctx;
	rs_analyzer_file_warning(s->a, frame_no, count, message);
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

int rs_run_summary(const struct rs_cli_opts *o)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_outfile timeline = { 0 };
	int rc;

	if (o->timeline && !rs_outfile_open(&timeline, o->timeline, err)) {
		fprintf(stderr, "rocestat: %s\n", err);
		return RS_EXIT_INPUT;
	}
	struct rs_analyzer_opts ao = {
		.interval_ns = o->interval_ns,
		.max_flows = o->max_flows,
		.keep_ladder = o->ladder,
		.keep_plot = o->plot != NULL,
		.timeline = timeline.fp,
		.qp_filter = o->qp,
		.resolve_names = !o->no_resolve,
	};
	struct summary s = { .a = rs_analyzer_new(&ao) };
	struct rs_sink sink = { .ctx = &s, .begin_file = begin_file, .frame = frame, .file_error = file_error,
				.file_warning = file_warning };

	rc = rs_run_files(o, &sink);
	rs_analyzer_finish(s.a);

	struct rs_report_opts ro = { .color = o->color, .qp = o->qp, .top = o->top, .interval_ns = o->interval_ns };
	int wrc = RS_EXIT_OK;
	if (o->ladder)
		wrc = write_report(o->output ? o->output : "-", rs_report_ladder, s.a, &ro);
	else
		wrc = write_report(o->output ? o->output : "-",
				   o->format == RS_FORMAT_JSON ? rs_report_json : rs_report_text, s.a, &ro);
	if (wrc == RS_EXIT_OK && o->plot)
		wrc = write_report(o->plot, rs_report_plot_svg, s.a, &ro);
	if (timeline.fp && !rs_outfile_commit(&timeline, err)) {
		fprintf(stderr, "rocestat: %s\n", err);
		wrc = RS_EXIT_INPUT;
	}
	if (wrc != RS_EXIT_OK)
		rc = wrc;
	else if (rc == RS_EXIT_OK && rs_analyzer_has_anomalies(s.a))
		rc = RS_EXIT_ANOMALIES;
	rs_analyzer_free(s.a);
	return rc;
}

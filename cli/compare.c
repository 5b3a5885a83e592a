/*
 * compare.c — `rocestat --compare A B`: both files read in turn into the
 * matching of analyzer/compare.h, each frame with the hash of its unchanging
 * bytes (dissect's rs_frame_content_hash), then report/compare.c's text, to
 * standard output or -o FILE. Exit status 1 when a packet was seen at one
 * point only while the other was capturing (never for one outside the
 * other's capture window); 3, with the report of the frames read, when a
 * file stopped early (truncated); 3 and no report when a file could not be
 * opened (every packet of the other would look lost).
 */
#include <stdio.h>
#include <string.h>

#include "analyzer/compare.h"
#include "cli/cli.h"
#include "report/report.h"

struct cmp_sink {
	struct rs_cmp *c;
	int side;   /* the file being read: 0 A, 1 B */
	int files;  /* files begun or failed to open */
	bool unopened; /* a file could not be opened */
};

static void begin_file(struct cmp_sink *s, const char *name)
{
	s->side = s->files++ ? 1 : 0;
	rs_cmp_file(s->c, s->side, name);
}

static void open_error(struct cmp_sink *s, const char *name)
{
	s->unopened = true;
	s->side = s->files++ ? 1 : 0;
	rs_cmp_file(s->c, s->side, name);
}

/* A file stopped early: its capture window ends at its last good frame,
 * which the report says, with why (the message names the file: not again). */
static void file_error(struct cmp_sink *s, const char *message)
{
	const char *name = s->c->name[s->side];
	size_t n = name ? strlen(name) : 0;
	if (n && strncmp(message, name, n) == 0 && strncmp(message + n, ": ", 2) == 0)
		message += n + 2;
	rs_cmp_file_error(s->c, s->side, message);
}

static void event(void *ctx, const struct rs_sink_event *ev)
{
	struct cmp_sink *s = ctx;
	if (ev->kind == RS_SINK_BEGIN)
		begin_file(s, ev->name);
	else if (ev->kind == RS_SINK_OPEN_ERROR)
		open_error(s, ev->name);
	else if (ev->kind == RS_SINK_FILE_ERROR)
		file_error(s, ev->message);
}

static bool frames(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f, size_t n)
{
	struct cmp_sink *s = ctx;
	for (size_t i = 0; i < n; i++)
		if (!pkt[i].context)
			rs_cmp_add(s->c, s->side, pkt[i].frame_no, rs_frame_time_ns(&f[i], pkt[i].ts_ns), &f[i],
				   rs_frame_content_hash(&f[i], pkt[i].data, pkt[i].caplen));
	return true;
}

int rs_run_compare(const struct rs_cli_opts *o)
{
	char err[RS_ERRBUF_SIZE];
	struct cmp_sink cs = { .c = rs_cmp_new() };
	struct rs_sink sink = { .ctx = &cs, .frames = frames, .event = event, .reads_bytes = true };
	int rc = rs_run_files(o, &sink);
	if (rc == RS_EXIT_USAGE || (rc == RS_EXIT_INPUT && (cs.unopened || cs.files < 2))) {
		rs_cmp_free(cs.c);
		return rc;
	}
	rs_cmp_finish(cs.c);
	struct rs_outfile of;
	if (!rs_outfile_open(&of, o->output ? o->output : "-", err)) {
		rs_eprintf("rocestat: %s\n", err);
		rs_cmp_free(cs.c);
		return RS_EXIT_INPUT;
	}
	if (rs_report_compare(of.fp, cs.c, !o->no_resolve, rs_text_width(o)) != 0)
		rc = RS_EXIT_INPUT;
	if (!rs_outfile_commit(&of, err)) {
		rs_eprintf("rocestat: %s\n", err);
		rc = RS_EXIT_INPUT;
	} else if (rc == RS_EXIT_OK && rs_cmp_differs(cs.c)) {
		rc = RS_EXIT_ANOMALIES;
	}
	rs_cmp_free(cs.c);
	return rc;
}

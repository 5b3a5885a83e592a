/*
 * extract.c — `rocestat -r IN... -w OUT [filter]`: every frame that passes
 * the filter (and --frames, -c) is written to OUT, in a tee in front of the
 * sink. The link type comes from the first input that opens; in a pcap OUT
 * an input of another link type stops the run with an error naming it (a
 * pcap file has one), in a pcapng OUT it gets an interface of its own (as
 * a pcapng input's frames of another interface do). OUT is opened when
 * that first input is: an input is read once,
 * so standard input (`-r -`) and pipes work as they do with tcpdump.
 */
#include <stdio.h>

#include "analyzer/analyzer.h"
#include "capture/writer.h"
#include "cli/cli.h"

struct tee {
	const struct rs_sink *next;
	struct rs_writer_config wc;
	struct rs_writer *writer; /* opened with the first input */
	int dlt;
	const char *out_name;
	bool failed;
	/* --qp: an analysis of every frame says which are the QP's connection
	 * (rs_verdict_on_qp); only those are written and passed on. */
	int64_t qp, conn; /* and --conn */
	struct rs_analyzer *an;
	uint64_t written;
};

static void tee_begin(struct tee *t, const char *name, int dlt)
{
	if (!t->writer && !t->failed) {
		char err[RS_ERRBUF_SIZE];
		t->dlt = t->wc.dlt = dlt;
		if (!(t->writer = rs_writer_open(&t->wc, err))) {
			rs_eprintf("rocestat: %s\n", err);
			t->failed = true;
		}
	} else if (dlt != t->dlt && !t->failed && !rs_writer_is_pcapng(t->out_name)) {
		const char *a = rs_linktype_name(dlt), *b = rs_linktype_name(t->dlt);
		rs_eprintf("rocestat: %s: link type %s differs from the first input's %s; %s can hold one\n",
			name, a ? a : "?", b ? b : "?", t->out_name);
		t->failed = true;
	}
	if (t->qp >= 0 || t->conn >= 0) { /* a verdict's frame numbers are its file's */
		rs_analyzer_free(t->an);
		t->an = rs_analyzer_new(&(struct rs_analyzer_opts){ 0 });
		rs_analyzer_add_file(t->an, name, dlt);
	}
}

static bool picked(struct tee *t, const struct rs_packet *pkt, const struct rs_frame *f)
{
	if (t->qp < 0 && t->conn < 0)
		return true;
	struct rs_frame_meta m = { .frame_no = pkt->frame_no, .ts_ns = rs_frame_time_ns(f, pkt->ts_ns),
				   .wirelen = rs_frame_wirelen(f, pkt->wirelen), .caplen = pkt->caplen };
	struct rs_verdict v;
	rs_analyzer_add_v(t->an, &m, f, &v);
	return rs_verdict_picked(&v, t->qp, t->conn);
}

/* Each frame written, then passed on: one at a time, since the sink
 * after may stop the run at any frame. */
static bool tee_frames(void *vctx, const struct rs_packet *pkt, const struct rs_frame *f, size_t n)
{
	struct tee *t = vctx;
	char err[RS_ERRBUF_SIZE];
	for (size_t i = 0; i < n; i++) {
		if (t->failed || !t->writer)
			return false;
		if (!picked(t, &pkt[i], &f[i]))
			continue;
		if (!rs_writer_write(t->writer, &pkt[i], err)) {
			rs_eprintf("rocestat: %s\n", err);
			t->failed = true;
			return false;
		}
		t->written++;
		if (!t->next->frames(t->next->ctx, &pkt[i], &f[i], 1))
			return false;
	}
	return true;
}

/* The sink after the tee hears of each input's start and end; the errors
 * are the extraction's, said on standard error. */
static void tee_event(void *vctx, const struct rs_sink_event *ev)
{
	struct tee *t = vctx;
	if (ev->kind == RS_SINK_BEGIN)
		tee_begin(t, ev->name, ev->dlt);
	if (ev->kind == RS_SINK_BEGIN || ev->kind == RS_SINK_END)
		rs_sink_event(t->next, ev);
}

/* The snapshot length OUT's header states, as tcpdump keeps its input's:
 * -s if given, else the largest of the inputs' (the reader cuts no frame
 * longer than its file's). An input that is not a regular file (standard
 * input, a pipe) cannot be looked at before it is read: libpcap's largest
 * then, as for a live capture. */
static uint32_t output_snaplen(const struct rs_cli_opts *o)
{
	if (o->snaplen_given)
		return (uint32_t)o->snaplen;
	int most = 0;
	for (char **path = o->files; *path; path++) {
		if (!rs_input_rereadable(*path))
			return RS_DEFAULT_SNAPLEN;
		char err[RS_ERRBUF_SIZE];
		struct rs_source *s = rs_source_open_file(*path, NULL, err, NULL);
		if (!s)
			continue; /* reading it will say why */
		if (rs_source_snaplen(s) > most)
			most = rs_source_snaplen(s);
		rs_source_close(s);
	}
	return most > 0 && most < RS_DEFAULT_SNAPLEN ? (uint32_t)most : RS_DEFAULT_SNAPLEN;
}

int rs_run_extract(const struct rs_cli_opts *o, const struct rs_sink *sink)
{
	char err[RS_ERRBUF_SIZE];
	struct tee t = {
		.next = sink,
		.out_name = o->write_file,
		.qp = o->qp,
		.conn = o->conn,
		.wc = { .path = o->write_file, .snaplen = output_snaplen(o), .rotate_bytes = o->rotate_bytes,
			.rotate_seconds = o->rotate_seconds, .max_files = o->rotate_files },
	};
	struct rs_sink tee = { .ctx = &t, .frames = tee_frames, .event = tee_event, .reads_bytes = true };
	int rc = rs_run_files(o, &tee);
	rs_analyzer_free(t.an);
	if (t.writer && !rs_writer_close(t.writer, err)) {
		if (!t.failed)
			rs_eprintf("rocestat: %s\n", err);
		t.failed = true;
	}
	if (t.failed)
		return RS_EXIT_INPUT;
	/* --qp/--conn wrote nothing: an absent QP is an error that lists the
	 * ones present (OUT stays, a valid empty capture); a summary after the
	 * extraction, which saw only the picked frames, then says nothing. */
	if ((rc == RS_EXIT_OK || rc == RS_EXIT_ANOMALIES) && !t.written && (o->qp >= 0 || o->conn >= 0))
		return rs_summary_check_absent(o);
	return rc;
}

static bool null_frames(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f, size_t n)
{
	(void)ctx, (void)pkt, (void)f, (void)n;
	return true;
}

struct rs_sink rs_null_sink(void)
{
	return (struct rs_sink){ .frames = null_frames };
}

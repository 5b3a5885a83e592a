/*
 * extract.c — `rocestat -r IN... -w OUT [filter]`: every frame that passes
 * the filter (and --frames, -c) is written to OUT, in a tee in front of the
 * sink. The link type comes from the first input; an input of another link
 * type stops the run with an error naming it (one -w file has one).
 */
#include <stdio.h>

#include "capture/writer.h"
#include "cli/cli.h"

struct tee {
	const struct rs_sink *next;
	struct rs_writer *writer;
	int dlt;
	const char *out_name;
	bool failed;
};

static void tee_begin(void *vctx, const char *name, int dlt)
{
	struct tee *t = vctx;
	if (dlt != t->dlt && !t->failed) {
		const char *a = rs_linktype_name(dlt), *b = rs_linktype_name(t->dlt);
		fprintf(stderr, "rocestat: %s: link type %s differs from the first input's %s; %s can hold one\n",
			name, a ? a : "?", b ? b : "?", t->out_name);
		t->failed = true;
	}
	if (t->next->begin_file)
		t->next->begin_file(t->next->ctx, name, dlt);
}

static bool tee_frame(void *vctx, const struct rs_packet *pkt, const struct rs_frame *f)
{
	struct tee *t = vctx;
	char err[RS_ERRBUF_SIZE];
	if (t->failed)
		return false;
	if (!rs_writer_write(t->writer, pkt, err)) {
		fprintf(stderr, "rocestat: %s\n", err);
		t->failed = true;
		return false;
	}
	return t->next->frame(t->next->ctx, pkt, f);
}

static void tee_end(void *vctx, const char *name)
{
	struct tee *t = vctx;
	if (t->next->end_file)
		t->next->end_file(t->next->ctx, name);
}

int rs_run_extract(const struct rs_cli_opts *o, const struct rs_sink *sink)
{
	char err[RS_ERRBUF_SIZE];
	bool bad_filter;
	/* The first input says which link type the output has. */
	struct rs_source *first = rs_source_open_file(o->files[0], o->filter, err, &bad_filter);
	if (!first) {
		fprintf(stderr, "rocestat: %s\n", err);
		return bad_filter ? RS_EXIT_USAGE : RS_EXIT_INPUT;
	}
	struct tee t = { .next = sink, .dlt = rs_source_datalink(first), .out_name = o->write_file };
	rs_source_close(first);

	struct rs_writer_config wc = {
		.path = o->write_file, .dlt = t.dlt, .snaplen = (uint32_t)o->snaplen,
		.rotate_bytes = o->rotate_bytes, .rotate_seconds = o->rotate_seconds, .max_files = o->rotate_files,
	};
	if (!(t.writer = rs_writer_open(&wc, err))) {
		fprintf(stderr, "rocestat: %s\n", err);
		return RS_EXIT_INPUT;
	}
	struct rs_sink tee = { .ctx = &t, .begin_file = tee_begin, .frame = tee_frame, .end_file = tee_end };
	int rc = rs_run_files(o, &tee);
	if (!rs_writer_close(t.writer, err)) {
		if (!t.failed)
			fprintf(stderr, "rocestat: %s\n", err);
		t.failed = true;
	}
	return t.failed ? RS_EXIT_INPUT : rc;
}

static bool null_frame(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f)
{
	(void)ctx, (void)pkt, (void)f;
	return true;
}

struct rs_sink rs_null_sink(void)
{
	return (struct rs_sink){ .frame = null_frame };
}

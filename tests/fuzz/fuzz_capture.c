/*
 * fuzz_capture.c — libFuzzer target: a whole capture file (pcap or pcapng)
 * through the same path `rocestat` takes: capture/source.c (libpcap's savefile
 * reader, or capture/pcapfile.c for a classic pcap file), cli/run.c's loop, rs_dissect, an analyzer with the ladder, plot
 * and timeline enabled and a small --max-flows cap (so eviction runs), the
 * --fields and --walk sinks, then every report (text, JSON indented and
 * compact, ladder, SVG).
 *
 * The input is put in a memfd and opened by its /proc/self/fd path, so that
 * rs_source_open_file() itself is exercised; a memfd never touches the disk.
 * First both readers of a classic pcap file read it in lockstep and must
 * agree (same_from_both_readers).
 * Everything is written to /dev/null. The stderr FILE is pointed at /dev/null
 * while a case runs (sanitizer and libFuzzer reports write to fd 2 directly,
 * so they still show).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analyzer/analyzer.h"
#include "report/report.h"
#include "capture/source.h"
#include "cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull;

struct both {
	struct rs_analyzer *a;
	struct rs_sink fields, walk;
	uint32_t file_index;
};

/* Every event to the analyzer and both views, as the summary and the views
 * take them (the walk reads the bytes, so frames come one at a time). */
static void event(void *ctx, const struct rs_sink_event *ev)
{
	struct both *b = ctx;
	if (ev->kind == RS_SINK_BEGIN)
		rs_analyzer_add_file(b->a, ev->name, ev->dlt);
	else if (ev->kind == RS_SINK_FILE_ERROR)
		rs_analyzer_file_error(b->a, ev->message);
	else if (ev->kind == RS_SINK_WARNING)
		rs_analyzer_file_warning(b->a, ev->frame_no, ev->count, ev->message);
	rs_sink_event(&b->fields, ev);
	rs_sink_event(&b->walk, ev);
	if (ev->kind == RS_SINK_END)
		b->file_index++;
}

static bool frames(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f, size_t n)
{
	struct both *b = ctx;
	for (size_t i = 0; i < n; i++) {
		struct rs_frame_meta m = {
			.frame_no = pkt[i].frame_no,
			.ts_ns = rs_frame_time_ns(&f[i], pkt[i].ts_ns),
			.file_index = b->file_index,
			.wirelen = pkt[i].wirelen,
			.caplen = pkt[i].caplen,
		};
		rs_analyzer_add(b->a, &m, &f[i]);
	}
	b->fields.frames(b->fields.ctx, pkt, f, n);
	b->walk.frames(b->walk.ctx, pkt, f, n);
	return true;
}

/* The message without its "(file offset N)": in pcapng libpcap names the
 * end of the last frame's block, rocestat's reader the block it could not
 * read (capture/pcapng.c). */
static void strip_offset(char *m)
{
	char *o = strstr(m, " (file offset ");
	char *e = o ? strchr(o, ')') : NULL;
	if (e)
		memmove(o, e + 1, strlen(e + 1) + 1);
}

/* A section after the first in the other byte order: libpcap misreads it
 * (its length in the first section's order) and refuses it in some words
 * or other; rocestat's reader reads it. */
static bool swapped_section(const uint8_t *d, size_t n)
{
	uint32_t bom;
	memcpy(&bom, d + 8, 4);
	for (size_t i = 12; i + 12 <= n; i++)
		if (memcmp(d + i, "\x0a\x0d\x0d\x0a", 4) == 0) {
			uint32_t b;
			memcpy(&b, d + i + 8, 4);
			if (b == __builtin_bswap32(bom))
				return true;
		}
	return false;
}

/* The two readers of a file (capture/pcapfile.c or capture/pcapng.c, and
 * libpcap, ROCESTAT_READER=libpcap) must hand out the same frames, lengths,
 * timestamps, record lengths and errors: any difference is a crash. In
 * pcapng the reader reads on where libpcap stops at its limits (another
 * byte order, link type or snapshot length), and names another offset. */
static void same_from_both_readers(const char *path, const uint8_t *data, size_t size)
{
	bool ng = size >= 12 && memcmp(data, "\x0a\x0d\x0d\x0a", 4) == 0;
	char e1[RS_ERRBUF_SIZE] = "", e2[RS_ERRBUF_SIZE] = "";
	setenv("ROCESTAT_READER", "libpcap", 1);
	struct rs_source *a = rs_source_open_file(path, NULL, e1, NULL);
	unsetenv("ROCESTAT_READER");
	struct rs_source *b = rs_source_open_file(path, NULL, e2, NULL);
	if (!a || !b) {
		if (a || b || strcmp(e1, e2) != 0)
			abort();
		return;
	}
	for (;;) {
		struct rs_packet p, q;
		enum rs_next x = rs_source_next(a, &p, e1), y = rs_source_next(b, &q, e2);
		if (ng && x == RS_NEXT_ERROR) {
			strip_offset(e1);
			strip_offset(e2);
			bool limit = strstr(e1, "different") || swapped_section(data, size);
			if (y == RS_NEXT_FRAME ? !limit : y != RS_NEXT_ERROR || (strcmp(e1, e2) != 0 && !limit))
				abort();
			break;
		}
		if (ng && x == RS_NEXT_END && y == RS_NEXT_FRAME && swapped_section(data, size))
			break; /* libpcap's misread length took it to the end */
		if (x != y)
			abort();
		if (x == RS_NEXT_ERROR && strcmp(e1, e2) != 0)
			abort();
		if (x != RS_NEXT_FRAME)
			break;
		if (p.frame_no != q.frame_no || p.caplen != q.caplen || p.wirelen != q.wirelen || p.ts_ns != q.ts_ns ||
		    p.file_caplen != q.file_caplen || p.dlt != q.dlt || memcmp(p.data, q.data, p.caplen) != 0)
			abort();
	}
	rs_source_close(a);
	rs_source_close(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 20)
		return 0;
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	int fd = memfd_create("fuzz_capture", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0)
			abort();
		done += (size_t)n;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	/* Odd-sized inputs are read twice, as two files, for the multi-file
	 * paths (file:frame references, state carried across files). */
	char *files[] = { path, size % 2 ? path : NULL, NULL };
	same_from_both_readers(path, data, size);

	struct rs_cli_opts o = { 0 };
	o.files = files;
	o.qp = -1;
	o.interval_ns = RS_DEFAULT_INTERVAL_NS;
	o.max_flows = 8;
	o.top = 4;
	o.no_resolve = true;
	/* The next-to-last byte (packet data in any real file, so mutated
	 * freely) varies the options the way the command line would. */
	uint8_t v = size > 1 ? data[size - 2] : 0;
	if (v & 0x01) { /* --frames 2-N */
		o.first_frame = 2;
		o.last_frame = 2 + v % 23;
	}
	if (v & 0x02) { /* --since/--until, relative seconds */
		o.have_since = o.have_until = true;
		o.since = 0.001;
		o.until = 0.5;
	}
	if ((v & 0x0C) == 0x0C)
		o.filter = "udp or ether proto 0x8915"; /* a BPF filter (compiling it is slow: 1 input in 4) */
	if (v & 0x10)
		o.interval_ns = 1000; /* 1 us intervals: many timeline rows and plot points */
	if (v & 0x20)
		o.max_flows = 0; /* no cap */
	if (v & 0x40)
		o.count = 5; /* -c 5 */
	if (v & 0x80)
		o.dissect.skip_icrc = true;

	FILE *saved_stderr = stderr;
	stderr = devnull;

	struct rs_analyzer_opts ao = {
		.interval_ns = o.interval_ns,
		.max_flows = o.max_flows,
		.keep_ladder = true,
		.keep_plot = true,
	};
	struct rs_tlcsv *tl = rs_tlcsv_new(devnull, -1, ao.interval_ns, false, false);
	ao.interval = rs_tlcsv_row;
	ao.interval_ctx = tl;
	struct rs_live *lv = rs_live_new(false); /* the live view's reading, events included */
	ao.cm_event = rs_live_cm_event;
	ao.cm_event_ctx = lv;
	struct both b = {
		.a = rs_analyzer_new(&ao),
		.fields = rs_fields_sink(devnull, &(struct rs_fields_opts){ .verdicts = true, .qp = -1, .conn = -1 }),
		.walk = rs_walk_sink(devnull, false, -1, -1),
	};
	struct rs_sink sink = { .ctx = &b, .frames = frames, .event = event, .reads_bytes = true };
	rs_run_files(&o, &sink);
	rs_analyzer_finish(b.a);

	struct rs_report_opts ro = { .color = false, .qp = -1, .top = 4, .interval_ns = o.interval_ns };
	struct rs_live_qp rows[4];
	struct rs_live_event ev[4];
	struct rs_live_totals tot;
	size_t total;
	rs_live_qps(lv, b.a, 1000000000u, rows, 4, &total);
	rs_live_events(lv, ev, 4);
	rs_live_totals(b.a, &tot);
	rs_live_free(lv);
	rs_tlcsv_free(tl);
	rs_report_text(devnull, b.a, &ro);
	rs_report_json(devnull, b.a, &ro);
	rs_report_ladder(devnull, b.a, &ro);
	rs_report_plot_svg(devnull, b.a, &ro);
	rs_analyzer_has_anomalies(b.a);
	/* The same reports narrowed to one QP, with colour; the JSON compact. */
	ro.color = true;
	ro.compact = true;
	ro.qp = size ? data[size - 1] : 0;
	rs_report_text(devnull, b.a, &ro);
	rs_report_json(devnull, b.a, &ro);
	rs_report_ladder(devnull, b.a, &ro);
	rs_analyzer_free(b.a);

	stderr = saved_stderr;
	close(fd);
	return 0;
}

/*
 * run.c — the offline loop: every file, every frame, through the dissector
 * into a sink. A read error stops that file (the message names file, frame
 * and offset) but what came before it has been handed to the sink already,
 * and the remaining files are still read. SIGINT/SIGTERM stop the loop
 * cleanly so the reports of what was read still get written.
 *
 * The loop puts what it reads into messages (cli/feed.h): frames in
 * batches for a sink that takes them, one by one with their bytes for one
 * that does not, and the events of each file between them. rs_deliver()
 * (feed.c) hands each message to the sink. With more than one thread (-j)
 * and a sink that takes batches, the reading runs in a thread of its own
 * (pipeline.c) and this one delivers; else this thread does both, a
 * message at a time (rs_feed_run).
 */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/feed.h"

bool rs_input_rereadable(const char *path)
{
	struct stat st;
	return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

struct timed_file {
	uint64_t ts;
	size_t pos;
};

static int timed_file_cmp(const void *pa, const void *pb)
{
	const struct timed_file *a = pa, *b = pb;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

char **rs_files_by_time(const struct rs_cli_opts *o)
{
	size_t n = 0;
	while (o->files && o->files[n])
		n++;
	if (n < 2)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!rs_input_rereadable(o->files[i]))
			return NULL;
	struct timed_file *t = g_new(struct timed_file, n);
	for (size_t i = 0; i < n; i++) {
		char err[RS_ERRBUF_SIZE];
		struct rs_packet pkt;
		struct rs_source *src = rs_source_open_file(o->files[i], NULL, err, NULL);
		/* A file without a first frame stays behind the one given before it. */
		t[i] = (struct timed_file){ i ? t[i - 1].ts : 0, i };
		if (src && rs_source_next(src, &pkt, err) == RS_NEXT_FRAME)
			t[i].ts = pkt.ts_ns;
		if (src)
			rs_source_close(src);
	}
	qsort(t, n, sizeof t[0], timed_file_cmp);
	char **files = NULL;
	for (size_t i = 0; i < n && !files; i++)
		if (t[i].pos != i)
			files = g_new0(char *, n + 1);
	for (size_t i = 0; files && i < n; i++)
		files[i] = o->files[t[i].pos];
	g_free(t);
	return files;
}

/* ---- reading ------------------------------------------------------------- */

struct file_state {
	struct rs_select sel;
	int64_t taken;  /* frames that passed, for -c */
};

/* libpcap cuts records longer than the header's snapshot length down to it
 * (up to its own limit; old Solaris files): say so. */
static bool post_over_snap(struct rs_feed *fd, const char *path, uint32_t snaplen, uint64_t first, uint64_t count,
			   uint32_t len)
{
	char warn[RS_ERRBUF_SIZE];
	snprintf(warn, sizeof warn,
		 "%s: frame %llu: captured length %u exceeds the snapshot length %u in the file header "
		 "(%llu frame%s); libpcap kept the first %u bytes",
		 path, (unsigned long long)first, len, snaplen, (unsigned long long)count, count == 1 ? "" : "s",
		 snaplen);
	if (!rs_feed_flush(fd))
		return false;
	fd->m->frame_no = first;
	fd->m->count = count;
	return rs_feed_event(fd, RS_FEED_WARNING, path, warn);
}

/* Put the frame in m at m->n, decoded or (fd->defer) its bytes copied for
 * the delivering side to decode; false: --since/--until leave it out. */
static bool take_frame(struct rs_feed *fd, struct rs_feed_msg *m, const struct rs_packet *pkt, struct file_state *fs)
{
	enum rs_pick by_time = rs_feed_take(fd, m, pkt, &fs->sel);
	if (by_time == RS_PICK_SKIP && fd->o->context_frames)
		m->pkt[m->n].context = true;
	else if (by_time != RS_PICK_TAKE)
		return false;
	return true;
}

/* --frames asking for a frame past the end of a file that was read to its
 * end: said, so an empty walkthrough or table is not taken for a file
 * without RoCE. */
static bool note_past_end(struct rs_feed *fd, const char *path, uint64_t last_no)
{
	const struct rs_cli_opts *o = fd->o;
	uint64_t beyond = 0;
	for (size_t i = 0; i < o->n_frame_ranges; i++)
		if (o->frame_ranges[i].first > last_no && o->frame_ranges[i].first > beyond)
			beyond = o->frame_ranges[i].first;
	if (!beyond)
		return true;
	char note[RS_ERRBUF_SIZE];
	snprintf(note, sizeof note, "%s has %llu frame%s: --frames asks for frame %llu, past its end", path,
		 (unsigned long long)last_no, last_no == 1 ? "" : "s", (unsigned long long)beyond);
	return rs_feed_event(fd, RS_FEED_NOTE, path, note);
}

/* Read one file; false: stop the run. */
static bool feed_file(struct rs_feed *fd, const char *path, struct file_state *fs)
{
	const struct rs_cli_opts *o = fd->o;
	char err[RS_ERRBUF_SIZE];
	bool bad_filter;
	struct rs_source *src = rs_source_open_file(path, o->filter, err, &bad_filter);
	if (!src) {
		/* A bad filter is the same for every file: say it once. */
		if (bad_filter) {
			rs_feed_event(fd, RS_FEED_USAGE, path, err);
			return false;
		}
		return rs_feed_event(fd, RS_FEED_OPEN_ERROR, path, err);
	}
	int dlt = rs_source_datalink(src);
	uint32_t snaplen = (uint32_t)rs_source_snaplen(src);
	uint64_t over_snap = 0, over_first = 0;
	uint32_t over_len = 0;
	if (rs_feed_flush(fd))
		fd->m->dlt = dlt;
	bool stop = !rs_feed_event(fd, RS_FEED_BEGIN, path, NULL) || rs_feed_stopped(fd);
	struct rs_packet pkt;
	enum rs_next n = RS_NEXT_END;
	uint64_t last_no = 0;
	bool fresh = false; /* frames taken since the input last paused */
	for (;;) {
		/* A pipe with nothing to read now (tcpdump -U -w - | rocestat -r -):
		 * the frames of the batch go to the sink before the read waits, as
		 * a live capture's do, rather than when the batch is full, and the
		 * sink shows what it holds (idle). */
		if (!stop && fresh && rs_source_waiting(src)) {
			fd->m->idle = true;
			stop = !rs_feed_post(fd) || rs_feed_stopped(fd);
			fresh = false;
		}
		/* A signal held back while the sink wrote (feed.c) came just now:
		 * the read below would not see it. */
		if (!stop && rs_stop_requested())
			stop = true;
		if (stop || (n = rs_source_next(src, &pkt, err)) != RS_NEXT_FRAME)
			break;
		last_no = pkt.frame_no;
		if (rs_stop_requested()) {
			stop = true;
			break;
		}
		enum rs_pick by_number = rs_select_number(o, pkt.frame_no);
		if (by_number == RS_PICK_AFTER)
			break;
		/* Before or between the ranges asked for: skipped, or shown to a
		 * per-frame view as context (cli.h, context_frames). */
		if (by_number == RS_PICK_SKIP && !o->context_frames)
			continue;
		pkt.context = by_number == RS_PICK_SKIP;
		if (pkt.file_caplen > pkt.caplen && !over_snap++) {
			over_first = pkt.frame_no;
			over_len = pkt.file_caplen;
		}
		if (!rs_feed_room(fd, pkt.caplen)) {
			stop = true;
			break;
		}
		struct rs_feed_msg *m = fd->m;
		if (!take_frame(fd, m, &pkt, fs))
			continue;
		fresh = true;
		bool shown = !m->pkt[m->n].context;
		if (++m->n == fd->batch)
			stop = !rs_feed_post(fd) || rs_feed_stopped(fd);
		if (o->count && shown && ++fs->taken >= o->count)
			stop = true;
	}
	if (!rs_feed_flush(fd) || (over_snap && !post_over_snap(fd, path, snaplen, over_first, over_snap, over_len))) {
		rs_source_close(src);
		return false;
	}
	/* SIGINT/SIGTERM while libpcap waited for input (a pipe): the read
	 * fails with EINTR; that is the interruption, not a broken file. */
	if (n == RS_NEXT_ERROR && rs_stop_requested())
		stop = true;
	else if (n == RS_NEXT_ERROR && !rs_feed_event(fd, RS_FEED_FILE_ERROR, path, err))
		stop = true;
	if (n == RS_NEXT_END && !stop && !note_past_end(fd, path, last_no))
		stop = true;
	if (!rs_feed_event(fd, RS_FEED_END, path, NULL))
		stop = true;
	rs_source_close(src);
	return !stop;
}

void rs_feed_files(struct rs_feed *fd)
{
	struct file_state fs = { .taken = 0 };
	fd->m->kind = RS_FEED_FRAMES;
	fd->m->n = 0;
	for (char **path = fd->o->files; *path; path++)
		if (!feed_file(fd, *path, &fs))
			break;
	if (rs_feed_flush(fd)) {
		fd->m->kind = RS_FEED_DONE;
		fd->post(fd, fd->m);
	}
}

/* ---- the run ------------------------------------------------------------- */

int rs_run_files(const struct rs_cli_opts *o, const struct rs_sink *sink)
{
	struct rs_stop_saved saved;
	rs_stop_catch(false, &saved);
	int rc = rs_feed_run(o, sink, rs_feed_files, NULL);
	if (rc != RS_EXIT_USAGE && rs_stop_requested())
		rs_eprintf("rocestat: interrupted; reporting what was read\n");
	return rc;
}

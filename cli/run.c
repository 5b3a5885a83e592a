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
 * hands each message to the sink. With more than one thread (-j) and a
 * sink that takes batches, the reading runs in a thread of its own
 * (pipeline.c) and this one delivers; else this thread does both, a
 * message at a time.
 */
#include <glib.h>
#include <signal.h>
#include <stdatomic.h>
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

static atomic_int stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store_explicit(&stop_flag, 1, memory_order_relaxed);
}

bool rs_stop_requested(void)
{
	return atomic_load_explicit(&stop_flag, memory_order_relaxed) != 0;
}

void rs_msg_init(struct rs_msg *m, bool with_bytes)
{
	memset(m, 0, sizeof *m);
	m->pkt = g_new(struct rs_packet, RS_BATCH);
	m->f = g_new(struct rs_frame, RS_BATCH);
	if (with_bytes) {
		m->undecoded = g_new(uint8_t, RS_BATCH);
		m->bytes = g_malloc(RS_DEFER_BYTES);
	}
}

void rs_msg_clear(struct rs_msg *m)
{
	g_free(m->pkt);
	g_free(m->f);
	g_free(m->undecoded);
	g_free(m->bytes);
}

/* ---- reading ------------------------------------------------------------- */

/* Post fd->m and start an empty batch in what post() returns; false: stop. */
static bool post(struct rs_feed *fd)
{
	fd->m = fd->post(fd, fd->m);
	if (!fd->m)
		return false;
	fd->m->kind = RS_MSG_FRAMES;
	fd->m->n = 0;
	fd->m->nundecoded = 0;
	fd->m->used = 0;
	return true;
}

/* The frames read so far, if any; false: stop. */
static bool post_frames(struct rs_feed *fd)
{
	return !fd->m || fd->m->n == 0 ? fd->m != NULL : post(fd);
}

/* An event, after the frames before it; false: stop. */
static bool post_event(struct rs_feed *fd, enum rs_msg_kind kind, const char *name, const char *text)
{
	if (!post_frames(fd))
		return false;
	struct rs_msg *m = fd->m;
	m->kind = kind;
	m->name = name;
	snprintf(m->text, sizeof m->text, "%s", text ? text : "");
	return post(fd);
}

static bool sink_stopped(const struct rs_feed *fd)
{
	return fd->stopped && *fd->stopped;
}

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
	if (!post_frames(fd))
		return false;
	fd->m->frame_no = first;
	fd->m->count = count;
	return post_event(fd, RS_MSG_WARNING, path, warn);
}

/* Put the frame in m at m->n, decoded or (fd->defer) its bytes copied for
 * the delivering side to decode; false: --since/--until leave it out. */
#define WRITE_AHEAD 4

static bool take_frame(struct rs_feed *fd, struct rs_msg *m, const struct rs_packet *pkt, int dlt,
		       struct file_state *fs)
{
	const struct rs_cli_opts *o = fd->o;
	uint32_t i = m->n;
	m->pkt[i] = *pkt;
	if (fd->defer && m->used + pkt->caplen <= RS_DEFER_BYTES) {
		memcpy(m->bytes + m->used, pkt->data, pkt->caplen);
		m->pkt[i].data = m->bytes + m->used;
		m->used += pkt->caplen;
		m->undecoded[i] = 1;
		m->nundecoded++;
		return true;
	}
	if (m->undecoded)
		m->undecoded[i] = 0;
	/* The slot's frame a few ahead was last read by the other thread:
	 * ask for its lines now rather than wait for them at each store. */
	if (i + WRITE_AHEAD < fd->batch)
		rs_frame_prefetch_write(&m->f[i + WRITE_AHEAD]);
	rs_dissect(&o->dissect, dlt, pkt->data, pkt->caplen, pkt->wirelen, &m->f[i]);
	if (o->have_since || o->have_until) {
		enum rs_pick by_time = rs_select_time(o, &fs->sel, rs_frame_time_ns(&m->f[i], pkt->ts_ns));
		if (by_time == RS_PICK_SKIP && o->context_frames)
			m->pkt[i].context = true;
		else if (by_time != RS_PICK_TAKE)
			return false;
	}
	if (fd->batch > 1)
		m->pkt[i].data = NULL; /* gone once the next frame is read */
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
	return post_event(fd, RS_MSG_NOTE, path, note);
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
			post_event(fd, RS_MSG_USAGE, path, err);
			return false;
		}
		return post_event(fd, RS_MSG_OPEN_ERROR, path, err);
	}
	int dlt = rs_source_datalink(src);
	uint32_t snaplen = (uint32_t)rs_source_snaplen(src);
	uint64_t over_snap = 0, over_first = 0;
	uint32_t over_len = 0;
	if (post_frames(fd))
		fd->m->dlt = dlt;
	bool stop = !post_event(fd, RS_MSG_BEGIN, path, NULL) || sink_stopped(fd);
	struct rs_packet pkt;
	enum rs_next n = RS_NEXT_END;
	uint64_t last_no = 0;
	while (!stop && (n = rs_source_next(src, &pkt, err)) == RS_NEXT_FRAME) {
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
		struct rs_msg *m = fd->m;
		m->dlt = dlt;
		if (!take_frame(fd, m, &pkt, dlt, fs))
			continue;
		bool shown = !m->pkt[m->n].context;
		if (++m->n == fd->batch)
			stop = !post(fd) || sink_stopped(fd);
		if (o->count && shown && ++fs->taken >= o->count)
			stop = true;
	}
	if (!post_frames(fd) || (over_snap && !post_over_snap(fd, path, snaplen, over_first, over_snap, over_len))) {
		rs_source_close(src);
		return false;
	}
	/* SIGINT/SIGTERM while libpcap waited for input (a pipe): the read
	 * fails with EINTR; that is the interruption, not a broken file. */
	if (n == RS_NEXT_ERROR && rs_stop_requested())
		stop = true;
	else if (n == RS_NEXT_ERROR && !post_event(fd, RS_MSG_FILE_ERROR, path, err))
		stop = true;
	if (n == RS_NEXT_END && !stop && !note_past_end(fd, path, last_no))
		stop = true;
	if (!post_event(fd, RS_MSG_END, path, NULL))
		stop = true;
	rs_source_close(src);
	return !stop;
}

void rs_feed_files(struct rs_feed *fd)
{
	struct file_state fs = { .taken = 0 };
	fd->m->kind = RS_MSG_FRAMES;
	fd->m->n = 0;
	for (char **path = fd->o->files; *path; path++)
		if (!feed_file(fd, *path, &fs))
			break;
	if (post_frames(fd)) {
		fd->m->kind = RS_MSG_DONE;
		fd->post(fd, fd->m);
	}
}

/* ---- delivering ------------------------------------------------------------ */

static void worse(int *rc, int code)
{
	if (code > *rc)
		*rc = code; /* RS_EXIT_INPUT > RS_EXIT_ANOMALIES > RS_EXIT_OK */
}

static void deliver_frames(struct rs_delivery *d, struct rs_msg *m)
{
	const struct rs_sink *s = d->sink;
	for (uint32_t i = 0; m->nundecoded && i < m->n; i++)
		if (m->undecoded[i]) {
			const struct rs_packet *pkt = &m->pkt[i];
			rs_dissect(d->dissect, m->dlt, pkt->data, pkt->caplen, pkt->wirelen, &m->f[i]);
			m->pkt[i].data = NULL;
		}
	for (uint32_t i = 0; i < m->n && !d->stopped; i++) {
		if (m->f[i].outcome != RS_OK && m->f[i].outcome != RS_NOT_ROCE)
			worse(&d->rc, RS_EXIT_ANOMALIES);
		if (!s->frames && !s->frame(s->ctx, &m->pkt[i], &m->f[i]))
			d->stopped = true;
	}
	if (s->frames)
		s->frames(s->ctx, m->pkt, m->f, m->n);
	/* The analysis heap grows as frames come: mark it every 4096 frames. */
	if ((d->frames >> 12) != ((d->frames + m->n) >> 12))
		rs_heap_hugepages_update();
	d->frames += m->n;
}

bool rs_deliver(struct rs_delivery *d, struct rs_msg *m)
{
	const struct rs_sink *s = d->sink;
	switch (m->kind) {
	case RS_MSG_FRAMES:
		deliver_frames(d, m);
		break;
	case RS_MSG_BEGIN:
		if (s->begin_file)
			s->begin_file(s->ctx, m->name, m->dlt);
		break;
	case RS_MSG_WARNING:
		fprintf(stderr, "rocestat: %s\n", m->text);
		if (s->file_warning)
			s->file_warning(s->ctx, m->frame_no, m->count, m->text);
		worse(&d->rc, RS_EXIT_ANOMALIES);
		break;
	case RS_MSG_NOTE:
		fprintf(stderr, "rocestat: %s\n", m->text);
		break;
	case RS_MSG_FILE_ERROR:
		fprintf(stderr, "rocestat: %s; the frames before it were analysed\n", m->text);
		if (s->file_error)
			s->file_error(s->ctx, m->text);
		worse(&d->rc, RS_EXIT_INPUT);
		break;
	case RS_MSG_OPEN_ERROR:
		fprintf(stderr, "rocestat: %s\n", m->text);
		if (s->open_error)
			s->open_error(s->ctx, m->name, m->text);
		worse(&d->rc, RS_EXIT_INPUT);
		break;
	case RS_MSG_END:
		if (s->end_file)
			s->end_file(s->ctx, m->name);
		break;
	case RS_MSG_USAGE:
		fprintf(stderr, "rocestat: %s\n", m->text);
		d->rc = RS_EXIT_USAGE;
		d->stopped = true;
		break;
	case RS_MSG_DONE:
		break;
	}
	return !d->stopped;
}

/* ---- the run ------------------------------------------------------------- */

static struct rs_msg *deliver_here(struct rs_feed *fd, struct rs_msg *m)
{
	rs_deliver(fd->ctx, m);
	return m;
}

int rs_run_files(const struct rs_cli_opts *o, const struct rs_sink *sink)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	int rc = RS_EXIT_OK;
	bool ran = false;
	if (sink->frames && o->threads > 1)
		rc = rs_pipeline_run(o, sink, &ran);
	if (!ran) {
		struct rs_delivery d = { .sink = sink, .dissect = &o->dissect };
		struct rs_msg m;
		rs_msg_init(&m, false);
		struct rs_feed fd = { .o = o, .batch = sink->frames ? RS_BATCH : 1, .post = deliver_here, .ctx = &d,
				      .m = &m, .stopped = &d.stopped };
		rs_feed_files(&fd);
		rs_msg_clear(&m);
		rc = d.rc;
	}
	if (rc == RS_EXIT_USAGE)
		return rc;
	if (rs_stop_requested())
		fprintf(stderr, "rocestat: interrupted; reporting what was read\n");
	return rc;
}

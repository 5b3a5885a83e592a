/*
 * run.c — the offline loop: every file, every frame, through the dissector
 * into a sink. A read error stops that file (the message names file, frame
 * and offset) but what came before it has been handed to the sink already,
 * and the remaining files are still read. SIGINT/SIGTERM stop the loop
 * cleanly so the reports of what was read still get written.
 */
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

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

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/*
 * Sinks with a `prefetch` hook get their frames RS_LOOKAHEAD frames late:
 * each frame is dissected into a small ring, announced to prefetch(), and
 * handed to frame() once RS_LOOKAHEAD newer ones are behind it (or the file
 * ends). The analyzer uses the time in between to bring the frame's flow
 * state into the caches (8 frames: enough for its three prefetch stages,
 * see analyzer.c). Such sinks get pkt->data == NULL: the packet bytes are
 * gone by then (everything is in the struct rs_frame).
 */
#define RS_LOOKAHEAD 8
_Static_assert((RS_LOOKAHEAD & (RS_LOOKAHEAD - 1)) == 0, "the ring is indexed with a mask");

struct ahead {
	struct rs_packet pkt;
	struct rs_frame f;
};

struct ring {
	struct ahead *q;
	unsigned depth, head, n; /* depth: a power of two (masks, not divisions, per frame) */
};

/* Hand the oldest frame in the ring to the sink. False: stop reading (the
 * sink said so, or -c was reached); the frames left in the ring are dropped. */
static bool deliver(const struct rs_cli_opts *o, const struct rs_sink *sink, struct ring *r, int *rc, int64_t *seen)
{
	struct ahead *x = &r->q[r->head];
	r->head = (r->head + 1) & (r->depth - 1);
	r->n--;
	if (x->f.outcome != RS_OK && x->f.outcome != RS_NOT_ROCE && *rc == RS_EXIT_OK)
		*rc = RS_EXIT_ANOMALIES;
	if (!sink->frame(sink->ctx, &x->pkt, &x->f) || (o->count && ++*seen >= o->count)) {
		r->n = 0;
		return false;
	}
	return true;
}

int rs_run_files(const struct rs_cli_opts *o, const struct rs_sink *sink)
{
	char err[RS_ERRBUF_SIZE];
	int rc = RS_EXIT_OK;
	int64_t seen = 0;
	bool stop = false;
	struct rs_select sel = { 0 };
	struct ring r = { .depth = sink->prefetch ? RS_LOOKAHEAD : 1 };
	r.q = g_new(struct ahead, r.depth);

	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	for (char **path = o->files; *path && !stop; path++) {
		bool bad_filter;
		struct rs_source *src = rs_source_open_file(*path, o->filter, err, &bad_filter);
		if (!src) {
			fprintf(stderr, "rocestat: %s\n", err);
			if (bad_filter) {
				g_free(r.q);
				return RS_EXIT_USAGE; /* the same for every file: say it once */
			}
			if (sink->open_error)
				sink->open_error(sink->ctx, *path, err);
			rc = RS_EXIT_INPUT;
			continue;
		}
		int dlt = rs_source_datalink(src);
		/* libpcap cuts records longer than the header's snapshot length
		 * down to it (up to its own limit; old Solaris files): say so. */
		uint32_t snaplen = (uint32_t)rs_source_snaplen(src);
		uint64_t over_snap = 0, over_first = 0;
		uint32_t over_len = 0;
		if (sink->begin_file)
			sink->begin_file(sink->ctx, *path, dlt);
		struct rs_packet pkt;
		enum rs_next n;
		while ((n = rs_source_next(src, &pkt, err)) == RS_NEXT_FRAME) {
			if (stop_requested) {
				stop = true;
				break;
			}
			enum rs_pick by_number = rs_select_number(o, pkt.frame_no);
			if (by_number == RS_PICK_AFTER)
				break;
			if (by_number == RS_PICK_SKIP)
				continue;
			if ((pkt.frame_no & 0xFFF) == 1)
				rs_heap_hugepages_update(); /* the heap may have grown */
			if (r.n == r.depth && !deliver(o, sink, &r, &rc, &seen)) {
				stop = true;
				break;
			}
			if (pkt.file_caplen > pkt.caplen && !over_snap++) {
				over_first = pkt.frame_no;
				over_len = pkt.file_caplen;
			}
			struct ahead *x = &r.q[(r.head + r.n) & (r.depth - 1)];
			rs_dissect(&o->dissect, dlt, pkt.data, pkt.caplen, pkt.wirelen, &x->f);
			if ((o->have_since || o->have_until) &&
			    rs_select_time(o, &sel, rs_frame_time_ns(&x->f, pkt.ts_ns)) != RS_PICK_TAKE)
				continue;
			x->pkt = pkt;
			r.n++;
			if (sink->prefetch) {
				x->pkt.data = NULL;
				sink->prefetch(sink->ctx, &x->f);
			} else if (!deliver(o, sink, &r, &rc, &seen)) { /* at once, while pkt.data is valid */
				stop = true;
				break;
			}
		}
		while (r.n) /* the frames still in the ring were read: they count */
			if (!deliver(o, sink, &r, &rc, &seen))
				stop = true;
		if (over_snap) {
			char warn[RS_ERRBUF_SIZE]; /* err may hold the read error, below */
			snprintf(warn, sizeof warn,
				 "%s: frame %llu: captured length %u exceeds the snapshot length %u in the file header "
				 "(%llu frame%s); libpcap kept the first %u bytes",
				 *path, (unsigned long long)over_first, over_len, snaplen, (unsigned long long)over_snap,
				 over_snap == 1 ? "" : "s", snaplen);
			fprintf(stderr, "rocestat: %s\n", warn);
			if (sink->file_warning)
				sink->file_warning(sink->ctx, over_first, over_snap, warn);
			if (rc == RS_EXIT_OK)
				rc = RS_EXIT_ANOMALIES;
		}
		if (n == RS_NEXT_ERROR && stop_requested) {
			/* SIGINT/SIGTERM while libpcap waited for input (a pipe):
			 * the read fails with EINTR; that is the interruption, not a
			 * broken file. */
			stop = true;
		} else if (n == RS_NEXT_ERROR) {
			fprintf(stderr, "rocestat: %s; the frames before it were analysed\n", err);
			if (sink->file_error)
				sink->file_error(sink->ctx, err);
			rc = RS_EXIT_INPUT;
		}
		if (sink->end_file)
			sink->end_file(sink->ctx, *path);
		rs_source_close(src);
	}
	g_free(r.q);
	if (stop_requested)
		fprintf(stderr, "rocestat: interrupted; reporting what was read\n");
	return rc;
}

/*
 * livefeed.c — the live capture loop as a producer of messages (feed.h):
 * wait for frames, select them (--frames, --since/--until, -c), write them
 * to -w, dissect them into a batch, and post the batch, the -G/--refresh
 * ticks and any error. rs_feed_run() runs it in a thread of its own when
 * -j allows two (the analysis then runs in the calling thread,
 * pipeline.c), else in the calling thread, delivering as it goes.
 *
 * The loop ends on SIGINT/SIGTERM (the flag set by live.c's handler: the
 * wait in poll(2) ends with EINTR), -c, the end of --frames or --until, an
 * error, or the sink's stop (a per-frame view, one thread). Then it takes
 * libpcap's counts and closes the -w output, so that the file is whole and
 * under its name before anything else is said, and posts RS_FEED_DONE.
 */
#include <stdio.h>
#include <time.h>

#include "capture/live.h"
#include "capture/writer.h"
#include "cli/cli.h"
#include "cli/feed.h"

struct live_feed {
	struct rs_feed *fd;
	struct rs_capture *c;
	struct rs_select sel;
	int64_t seen; /* frames taken, for -c */
	bool stop;
};

static uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* An error that ends the capture: said on delivery, after the frames
 * before it. */
static void fail(struct live_feed *lf, const char *err)
{
	lf->c->rc = RS_EXIT_INPUT;
	lf->stop = true;
	if (lf->fd->m)
		rs_feed_event(lf->fd, RS_FEED_ERROR, NULL, err);
	else /* the delivering side stopped: nothing is delivered any more */
		rs_eprintf("rocestat: %s\n", err);
}

/* Put the frame into the batch, decoded (or left for the delivering side
 * to decode, pipeline.c); false: --since/--until leave it out. *context:
 * outside the selection, shown to the view for its analysis only (cli.h,
 * context_frames). */
static bool take(struct live_feed *lf, const struct rs_packet *pkt, bool *context)
{
	struct rs_feed *fd = lf->fd;
	struct rs_feed_msg *m = fd->m;
	m->dlt = lf->c->dlt;
	/* A frame already outside --frames is not picked by time too. */
	enum rs_pick by_time = rs_feed_take(fd, m, pkt, *context ? NULL : &lf->sel);
	if (by_time == RS_PICK_AFTER)
		lf->stop = true;
	if (by_time == RS_PICK_AFTER || (by_time == RS_PICK_SKIP && !fd->o->context_frames))
		return false;
	if (by_time == RS_PICK_SKIP)
		*context = true;
	m->pkt[m->n].context = *context;
	return true;
}

/* --frames and --since/--until as for files: frames before the range are
 * neither written nor analysed; the first one past it ends the capture. */
static bool on_frame(void *vctx, const struct rs_packet *pkt)
{
	struct live_feed *lf = vctx;
	struct rs_feed *fd = lf->fd;
	const struct rs_cli_opts *o = fd->o;
	char err[RS_ERRBUF_SIZE];

	enum rs_pick pick = rs_select_number(o, pkt->frame_no);
	if (pick == RS_PICK_AFTER)
		lf->stop = true;
	if (pick == RS_PICK_AFTER || (pick == RS_PICK_SKIP && !o->context_frames))
		return !lf->stop;
	bool context = pick == RS_PICK_SKIP;
	if (!rs_feed_room(fd, pkt->caplen)) {
		lf->stop = true;
		return false;
	}
	if (!take(lf, pkt, &context))
		return !lf->stop;
	/* A frame -w could not take is not analysed either (it stays out of
	 * the batch: m->n is not advanced). */
	if (!context && lf->c->writer && !rs_writer_write(lf->c->writer, pkt, err)) {
		fail(lf, err);
		return false;
	}
	if (++fd->m->n == fd->batch && (!rs_feed_post(fd) || rs_feed_stopped(fd)))
		lf->stop = true;
	else if (!context && o->count && ++lf->seen >= o->count)
		lf->stop = true;
	return !lf->stop;
}

/* The period ended: -w's rotation by time (-G), then the sink's tick, on
 * delivery. False: stop. */
static bool tick(struct live_feed *lf, uint64_t wall)
{
	struct rs_feed *fd = lf->fd;
	char err[RS_ERRBUF_SIZE];
	if (lf->c->writer && !rs_writer_tick(lf->c->writer, wall, err)) {
		fail(lf, err);
		return false;
	}
	if (!rs_feed_flush(fd))
		return false;
	fd->m->now_ns = wall;
	struct rs_live_stats ls;
	char serr[RS_ERRBUF_SIZE];
	fd->m->have_stats = rs_live_stats(lf->c->l, &ls, serr);
	fd->m->stats = (struct rs_capture_stats){
		.captured = ls.captured, .received = ls.received, .dropped = ls.dropped, .ifdropped = ls.ifdropped,
	};
	bool ok = rs_feed_event(fd, RS_FEED_TICK, NULL, NULL);
	fd->m->have_stats = false;
	return ok;
}

/* libpcap's counts, then the -w output closed, then the end posted. */
static void finish(struct live_feed *lf)
{
	struct rs_capture *c = lf->c;
	char err[RS_ERRBUF_SIZE];
	struct rs_live_stats ls;
	c->have_stats = rs_live_stats(c->l, &ls, c->stats_err);
	c->stats = (struct rs_capture_stats){
		.captured = ls.captured, .received = ls.received, .dropped = ls.dropped, .ifdropped = ls.ifdropped,
	};
	if (c->writer && !rs_writer_close(c->writer, err)) {
		if (c->rc != RS_EXIT_INPUT) /* else a write error was reported already */
			fail(lf, err);
		c->rc = RS_EXIT_INPUT;
	}
	c->writer = NULL;
	if (rs_feed_flush(lf->fd)) {
		lf->fd->m->kind = RS_FEED_DONE;
		lf->fd->post(lf->fd, lf->fd->m);
	}
}

void rs_feed_live(struct rs_feed *fd)
{
	struct rs_capture *c = fd->source;
	const struct rs_cli_opts *o = fd->o;
	struct live_feed lf = { .fd = fd, .c = c };
	char err[RS_ERRBUF_SIZE];
	fd->m->kind = RS_FEED_FRAMES;
	fd->m->n = 0;
	/* Live, a relative --since/--until counts from now, the start of the
	 * capture: a window that waited for a first frame would never end on
	 * a quiet link. */
	lf.sel.t0 = clock_ns(CLOCK_REALTIME);
	lf.sel.have_t0 = true;
	uint64_t period = (uint64_t)(o->refresh * 1e9);
	uint64_t next_tick = clock_ns(CLOCK_MONOTONIC) + period;
	while (!rs_stop_requested() && !lf.stop) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC);
		/* Short waits keep a signal that lands between the flag test and
		 * poll(2) from being noticed late. */
		uint64_t wait_ms = now >= next_tick ? 0 : (next_tick - now) / 1000000u;
		if (wait_ms > 200)
			wait_ms = 200;
		int max = o->count ? (int)(o->count - lf.seen < 1000000 ? o->count - lf.seen : 1000000) : 0;
		if (rs_live_dispatch(c->l, (int)wait_ms, max, on_frame, &lf, err) < 0) {
			fail(&lf, err);
			break;
		}
		/* What this round gave goes now, full batch or not: on a quiet
		 * link the live view and --fields would wait for frames that do
		 * not come. */
		if (!rs_feed_flush(fd))
			break;
		/* --until ends the capture on time even when no frame comes to
		 * say so. */
		if (rs_select_until_passed(o, &lf.sel, clock_ns(CLOCK_REALTIME) / 1e9))
			break;
		now = clock_ns(CLOCK_MONOTONIC);
		if (now >= next_tick && !lf.stop) {
			if (!tick(&lf, clock_ns(CLOCK_REALTIME)))
				break;
			while (next_tick <= now)
				next_tick += period;
		}
	}
	finish(&lf);
}

/*
 * pipeline.c — a run, in one thread or two (rs_feed_run). In one, the
 * producer delivers each message itself. In two, a thread of its own
 * produces the frames and dissects them (rs_feed_files, run.c: reads the
 * files and checks every ICRC; rs_feed_live, livefeed.c: captures, writes -w and
 * posts the live ticks); the calling thread hands what was produced to the
 * sink (rs_deliver, feed.c), a batch of frames at a time, and the sink (the
 * analyzer, the --fields writer, the walkthrough, --annotate or the -r ...
 * -w extraction) works there. Which work goes where was measured: see
 * bench/NOTES.md.
 *
 * A sink that reads the frames' bytes (sink.h: the walkthrough's hex, the
 * frames --annotate and -w write) cannot have the producer's, which are
 * gone once it reads on: each frame's bytes are copied into its slot
 * (RS_KEEP_BYTES, rs_feed_room), and a batch whose bytes fill the slot is
 * handed over before it has its RS_BATCH frames. The other sinks get no
 * bytes.
 *
 * The messages pass through a ring of RING slots, each with room for a
 * batch: the producing thread fills a slot in place and publishes it, the
 * calling thread delivers it and gives it back, so a frame is written once,
 * where the sink reads it, and nothing is copied. A slot changes hands
 * under a mutex, once a batch. A side that finds the ring empty (or full)
 * sleeps until WAKE slots are ready (or free), or a message that is not to
 * wait is: woken for every batch, the faster side spent more time waking
 * than working. An event does not wait, and neither does a batch posted
 * before it was full: the live loop posts what each round of capture gave,
 * and on a quiet link that is to be shown now, not when four have come.
 *
 * Decoding a frame and checking its ICRC costs more than analysing it, so
 * the producing thread would be the slower one. When fewer than DEFER_BELOW
 * batches wait in the ring (the delivering side is ahead of it), the next
 * batch goes undecoded: its frames' bytes are copied into the slot
 * (RS_DEFER_BYTES) and the delivering thread decodes them before handing
 * them to the sink, which costs it more than the copy saves the producer.
 * The two sides even out around DEFER_BELOW waiting batches. Never with a
 * time window (--since/--until pick frames by their decoded time). Which
 * thread decoded a frame changes nothing in it: rs_dissect() is pure.
 *
 * The sink sees the same calls in the same order as in one thread: the
 * messages are delivered in the order they were produced, by one thread,
 * and whatever goes to standard error is printed on delivery too. So no
 * result depends on timing; the one thing that does is where an
 * interruption falls, as in one thread.
 *
 * POSIX threads, mutex and condition variables rather than GLib's: GLib's
 * mutex is a futex of its own on Linux, which ThreadSanitizer (make tsan)
 * cannot see, so it would report every hand-over as a race.
 *
 * SIGINT and SIGTERM go to the producing thread: the calling thread blocks
 * them while the pipeline runs, so that a read waiting on a pipe (run.c:
 * EINTR there is the interruption) or the live capture's wait in poll(2)
 * is the one the signal interrupts.
 */
#include <glib.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/feed.h"

#ifndef RING
#define RING 8
#endif
#ifndef WAKE
#define WAKE 4
#endif
#ifndef DEFER_BELOW
#define DEFER_BELOW 3
#endif

struct pipe {
	pthread_mutex_t lock;
	pthread_cond_t filled, emptied;
	struct rs_feed_msg slot[RING];
	unsigned head;   /* the oldest published slot: the one being delivered */
	unsigned count;  /* published and not given back */
	bool abort;      /* the delivering side stopped: the producing one is to stop too */
	unsigned events; /* published messages that are not to wait (they wake the delivering side) */
	bool producer_waits, deliverer_waits;
	bool may_defer;  /* no time window: frames may be left undecoded */
	struct rs_feed feed;
	rs_produce_fn *produce;
	sigset_t signals;
};

/* Events, and batches posted before they were full, are delivered without
 * waiting for WAKE slots. */
static bool urgent(const struct pipe *p, const struct rs_feed_msg *m)
{
	return m->kind != RS_FEED_FRAMES || (m->n < p->feed.batch && !m->full);
}

/* The producing side: publish m, and wait for a free slot to fill next. */
static struct rs_feed_msg *publish(struct rs_feed *fd, struct rs_feed_msg *m)
{
	struct pipe *p = fd->ctx; /* m is the slot at head + count, given out before */
	pthread_mutex_lock(&p->lock);
	p->count++;
	if (urgent(p, m))
		p->events++;
	if (p->deliverer_waits && (p->count >= WAKE || p->events))
		pthread_cond_signal(&p->filled);
	struct rs_feed_msg *next = NULL;
	if (m->kind != RS_FEED_DONE) {
		if (p->count == RING) {
			p->producer_waits = true;
			while (p->count > RING - WAKE && !p->abort)
				pthread_cond_wait(&p->emptied, &p->lock);
			p->producer_waits = false;
		}
		if (!p->abort)
			next = &p->slot[(p->head + p->count) % RING];
		/* Few batches waiting: the delivering side is ahead, give it the
		 * decoding of the next one. */
		fd->defer = p->may_defer && p->count < DEFER_BELOW;
	}
	pthread_mutex_unlock(&p->lock);
	return next;
}

static void *producer_main(void *data)
{
	struct pipe *p = data;
	pthread_sigmask(SIG_UNBLOCK, &p->signals, NULL);
	p->produce(&p->feed);
	return NULL;
}

/* The delivering side: the next published message (waits for it). */
static struct rs_feed_msg *next_message(struct pipe *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->count == 0) {
		p->deliverer_waits = true;
		while (p->count < WAKE && !p->events)
			pthread_cond_wait(&p->filled, &p->lock);
		p->deliverer_waits = false;
	}
	struct rs_feed_msg *m = &p->slot[p->head];
	if (urgent(p, m))
		p->events--;
	pthread_mutex_unlock(&p->lock);
	return m;
}

static void give_back(struct pipe *p, bool stop)
{
	pthread_mutex_lock(&p->lock);
	p->head = (p->head + 1) % RING;
	p->count--;
	if (stop)
		p->abort = true;
	if ((p->producer_waits && p->count <= RING - WAKE) || stop)
		pthread_cond_signal(&p->emptied);
	pthread_mutex_unlock(&p->lock);
}

/* The run with the producing in a thread of its own, SIGINT and SIGTERM
 * going to that thread. false in *ran when no thread could be started
 * (then nothing was produced). */
static int run_two(const struct rs_cli_opts *o, const struct rs_sink *sink, rs_produce_fn *produce, void *source,
		   bool *ran)
{
	struct pipe *p = g_new0(struct pipe, 1);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->filled, NULL);
	pthread_cond_init(&p->emptied, NULL);
	bool keep = sink->reads_bytes;
	for (unsigned i = 0; i < RING; i++)
		rs_feed_msg_init(&p->slot[i], keep ? RS_KEEP_BYTES : RS_DEFER_BYTES);
	p->may_defer = !o->have_since && !o->have_until;
	p->feed = (struct rs_feed){ .o = o, .source = source, .batch = RS_BATCH, .post = publish, .ctx = p,
				    .m = &p->slot[0], .keep_bytes = keep };
	p->produce = produce;

	sigset_t old;
	sigemptyset(&p->signals);
	sigaddset(&p->signals, SIGINT);
	sigaddset(&p->signals, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &p->signals, &old);
	pthread_t producer;
	*ran = pthread_create(&producer, NULL, producer_main, p) == 0;
	struct rs_delivery d = { .sink = sink, .dissect = &o->dissect };
	if (*ran) {
		bool more = true;
		while (more) {
			struct rs_feed_msg *m = next_message(p);
			more = m->kind != RS_FEED_DONE && rs_deliver(&d, m);
			give_back(p, !more);
		}
		pthread_join(producer, NULL);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);

	for (unsigned i = 0; i < RING; i++)
		rs_feed_msg_clear(&p->slot[i]);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->filled);
	pthread_cond_destroy(&p->emptied);
	g_free(p);
	return d.rc;
}

/* ---- the run ------------------------------------------------------------- */

static struct rs_feed_msg *deliver_here(struct rs_feed *fd, struct rs_feed_msg *m)
{
	/* SIGINT and SIGTERM are to interrupt a read that waits on a pipe or a
	 * device (run.c, livefeed.c), not the sink's writes: a write to a full
	 * pipe cut short by the signal (EINTR) loses what the stream held. They
	 * wait while a batch, or a pause's flush (idle), is delivered, as in two
	 * threads, where the delivering thread blocks them throughout
	 * (pipeline.c). Not around each frame of a sink fed one frame at a
	 * time: two system calls a frame tripled the time of -j 1 -r -w. */
	if (fd->batch == 1 && !m->idle) {
		rs_deliver(fd->ctx, m);
		return m;
	}
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	rs_deliver(fd->ctx, m);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return m;
}

int rs_feed_run(const struct rs_cli_opts *o, const struct rs_sink *sink, rs_produce_fn *produce, void *source)
{
	int rc = RS_EXIT_OK;
	bool ran = false;
	if (o->threads > 1)
		rc = run_two(o, sink, produce, source, &ran);
	if (!ran) {
		struct rs_delivery d = { .sink = sink, .dissect = &o->dissect };
		struct rs_feed_msg m;
		rs_feed_msg_init(&m, 0);
		struct rs_feed fd = { .o = o, .source = source, .batch = sink->reads_bytes ? 1 : RS_BATCH,
				      .post = deliver_here, .ctx = &d, .m = &m, .stopped = &d.stopped };
		produce(&fd);
		rs_feed_msg_clear(&m);
		rc = d.rc;
	}
	return rc;
}

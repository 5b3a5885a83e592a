/*
 * feed.h — between a loop that produces frames and the sink: the offline
 * reading loop (run.c) or the live capture loop (livefeed.c) puts what it
 * gets, in order, into messages (a batch of frames, or an event such as the
 * start of a file, a read error or a live tick), and each message is
 * delivered to the sink by rs_deliver() (feed.c). In one thread the loop
 * delivers each message itself; in two (pipeline.c) the producing thread
 * hands the messages over and the calling thread delivers them. Either way
 * the sink sees the same calls in the same order, and everything for
 * standard error is printed on delivery, so that it comes in the same order
 * too. Private to cli/.
 */
#ifndef RS_CLI_FEED_H
#define RS_CLI_FEED_H

#include <signal.h>

#include "cli/cli.h"

/* Frames a batch holds (sinks that take batches). */
#ifndef RS_BATCH
#define RS_BATCH 256
#endif

enum rs_feed_msg_kind {
	RS_FEED_FRAMES,     /* n frames */
	RS_FEED_BEGIN,      /* a file was opened: name, dlt */
	RS_FEED_WARNING,    /* text, frame_no, count: the file's records exceed its snapshot length */
	RS_FEED_FILE_ERROR, /* text: reading the file stopped early */
	RS_FEED_OPEN_ERROR, /* name, text: a file could not be opened */
	RS_FEED_NOTE,       /* text: said on standard error, nothing more (--frames past the end) */
	RS_FEED_END,        /* name: the file is done */
	RS_FEED_USAGE,      /* text: a bad filter; the run stops */
	RS_FEED_TICK,       /* now_ns: the live period ended (sink->tick) */
	RS_FEED_ERROR,      /* text: said on standard error, exit status RS_EXIT_INPUT (live: -w, the device) */
	RS_FEED_DONE,       /* nothing more comes */
};

struct rs_feed_msg {
	enum rs_feed_msg_kind kind;
	const char *name;
	int dlt;
	uint64_t frame_no, count;
	uint64_t now_ns;       /* RS_FEED_TICK: the wall clock, ns since the epoch */
	bool have_stats;       /* RS_FEED_TICK: the capture's counts so far (an RS_SINK_STATS first) */
	struct rs_capture_stats stats;
	char text[RS_ERRBUF_SIZE];
	uint32_t n;
	/* [RS_BATCH]; data NULL unless the sink reads_bytes, else the frame's bytes: the reader's own in one thread, a
	 * copy in `bytes` in two (rs_feed.keep_bytes). */
	struct rs_packet *pkt;
	struct rs_frame *f;    /* [RS_BATCH] */
	struct rs_frame_ext *x; /* [RS_BATCH]: f[i]'s extension blocks */
	/* Frames left for the delivering side to decode (pipeline.c): their
	 * bytes are copied into `bytes`, pkt[i].data points there, and f[i] is
	 * filled on delivery. */
	uint8_t *undecoded;    /* [RS_BATCH], 1: frame i is one; NULL: never */
	uint32_t nundecoded;
	uint8_t *bytes;        /* [room] */
	size_t used, room;
	bool full;             /* posted before RS_BATCH frames because `bytes` was full */
	bool idle;             /* posted because the input would wait: the sink's idle() follows */
};

/* Room for the bytes of the frames of a batch: left undecoded, or kept for
 * a sink that reads them (a bigger record grows it). */
#define RS_DEFER_BYTES (256u << 10)
#define RS_KEEP_BYTES (1u << 20)

/* bytes: room for the frames' bytes (the pipeline's), 0: none. */
void rs_feed_msg_init(struct rs_feed_msg *m, size_t bytes);
void rs_feed_msg_clear(struct rs_feed_msg *m);

/* The producing side. post() hands `m` on and returns the message to fill
 * next (RS_FEED_FRAMES, empty), or NULL when the run is to stop (the sink
 * said so, or the delivering side gave up). */
struct rs_feed {
	const struct rs_cli_opts *o;
	void *source;    /* the producer's own state (livefeed.c's struct rs_capture), or NULL */
	unsigned batch;  /* frames a message: 1 when the sink reads_bytes in this thread */
	struct rs_feed_msg *(*post)(struct rs_feed *fd, struct rs_feed_msg *m);
	void *ctx;       /* post()'s */
	struct rs_feed_msg *m;/* being filled */
	const bool *stopped; /* set when the sink said stop (one thread only), or NULL */
	/* Leave the frames of the batch being filled for the delivering side
	 * to decode (set by post(); never with a time window, which needs each
	 * frame's own time to pick it). */
	bool defer;
	/* The sink reads every frame's bytes (the walkthrough, --annotate,
	 * -r ... -w) and gets them in another thread:
	 * each frame's are copied into its message (rs_feed_room first). */
	bool keep_bytes;
};

/* A producer: posts what it gets and finally RS_FEED_DONE (unless post()
 * said stop); returns at the end of the run. */
typedef void rs_produce_fn(struct rs_feed *fd);

/* Read every file of fd->o (run.c). */
void rs_feed_files(struct rs_feed *fd);

/* Helpers of the producers (feed.c). rs_feed_post: post fd->m and start an
 * empty batch in the message post() returns. rs_feed_flush: the same if
 * fd->m holds frames. rs_feed_event: an event after the frames before it.
 * Each returns false when the run is to stop. */
bool rs_feed_post(struct rs_feed *fd);
bool rs_feed_flush(struct rs_feed *fd);
bool rs_feed_event(struct rs_feed *fd, enum rs_feed_msg_kind kind, const char *name, const char *text);
/* Before taking a frame of caplen bytes: when its bytes are to be kept
 * and the batch has no room left for them, post it. False: stop. */
bool rs_feed_room(struct rs_feed *fd, uint32_t caplen);
/* Whether the sink said stop (one thread only). */
bool rs_feed_stopped(const struct rs_feed *fd);
/* Put pkt at m->n (the caller advances m->n if it keeps it): with its
 * bytes copied for the delivering side to decode, when fd->defer asks for
 * it and they fit, else decoded into m->f[m->n] and its bytes forgotten
 * (they are gone once the next frame is read). Returns the pick of
 * --since/--until by the decoded time when `sel` is given; RS_PICK_TAKE
 * otherwise, and for a frame left undecoded (pipeline.c leaves none under
 * a time window). */
enum rs_pick rs_feed_take(struct rs_feed *fd, struct rs_feed_msg *m, const struct rs_packet *pkt,
			  struct rs_select *sel);

/* The delivering side: state carried from message to message. */
struct rs_delivery {
	const struct rs_sink *sink;
	const struct rs_dissect_opts *dissect; /* for frames left undecoded */
	int rc;          /* the worst RS_EXIT_ code so far */
	bool stopped;    /* the sink said stop, or a bad filter ended the run */
	uint64_t frames; /* delivered, for the heap's huge pages (heap.c) */
};

/* Deliver one message; false: stop the run. */
bool rs_deliver(struct rs_delivery *d, struct rs_feed_msg *m);

/* SIGINT and SIGTERM (stop.c). rs_stop_catch: from now on they set the
 * flag rs_stop_requested() reads (safe from any thread); with second_kills
 * the second one kills at once. rs_stop_release: the handlers before. */
struct rs_stop_saved {
	struct sigaction sigint, sigterm;
};
void rs_stop_catch(bool second_kills, struct rs_stop_saved *saved);
void rs_stop_release(const struct rs_stop_saved *saved);
bool rs_stop_requested(void);

/* Run `produce` (with `source` in fd->source) through the sink
 * (pipeline.c): in a thread of its own when -j allows two threads and one
 * can be started, else in this one. Returns the delivery's RS_EXIT_ code. */
int rs_feed_run(const struct rs_cli_opts *o, const struct rs_sink *sink, rs_produce_fn *produce, void *source);

/* livefeed.c: the live capture loop, a producer. Everything but the loop
 * (opening the device and the -w output, the sink's begin_file,
 * capture_stats and end_file) is live.c's. */
struct rs_live_handle;
struct rs_writer;
struct rs_capture {
	struct rs_live_handle *l;
	struct rs_writer *writer;         /* -w, or NULL; closed by the loop at its end */
	int dlt;
	/* Set by the loop for the caller, read once it returned. */
	struct rs_capture_stats stats;
	bool have_stats;
	char stats_err[RS_ERRBUF_SIZE];
	int rc;                           /* RS_EXIT_INPUT when an error ended the capture, else RS_EXIT_OK */
};
void rs_feed_live(struct rs_feed *fd);

#endif

/*
 * feed.h — between the offline reading loop (run.c) and the sink: what the
 * loop reads is put, in order, into messages (a batch of frames, or an
 * event such as the start of a file or a read error), and each message is
 * delivered to the sink by rs_deliver(). In one thread the loop delivers
 * each message itself; in two (pipeline.c) the reading thread hands the
 * messages over and the calling thread delivers them. Either way the sink
 * sees the same calls in the same order, and everything for standard error
 * is printed on delivery, so that it comes in the same order too.
 * Private to cli/.
 */
#ifndef RS_CLI_FEED_H
#define RS_CLI_FEED_H

#include "cli/cli.h"

/* Frames a batch holds (sinks that take batches). */
#ifndef RS_BATCH
#define RS_BATCH 256
#endif

enum rs_msg_kind {
	RS_MSG_FRAMES,     /* n frames */
	RS_MSG_BEGIN,      /* a file was opened: name, dlt */
	RS_MSG_WARNING,    /* text, frame_no, count: the file's records exceed its snapshot length */
	RS_MSG_FILE_ERROR, /* text: reading the file stopped early */
	RS_MSG_OPEN_ERROR, /* name, text: a file could not be opened */
	RS_MSG_NOTE,       /* text: said on standard error, nothing more (--frames past the end) */
	RS_MSG_END,        /* name: the file is done */
	RS_MSG_USAGE,      /* text: a bad filter; the run stops */
	RS_MSG_DONE,       /* nothing more comes */
};

struct rs_msg {
	enum rs_msg_kind kind;
	const char *name;
	int dlt;
	uint64_t frame_no, count;
	char text[RS_ERRBUF_SIZE];
	uint32_t n;
	struct rs_packet *pkt; /* [RS_BATCH]; data NULL unless the sink takes frames one by one */
	struct rs_frame *f;    /* [RS_BATCH] */
	/* Frames left for the delivering side to decode (pipeline.c): their
	 * bytes are copied into `bytes`, pkt[i].data points there, and f[i] is
	 * filled on delivery. */
	uint8_t *undecoded;    /* [RS_BATCH], 1: frame i is one; NULL: never */
	uint32_t nundecoded;
	uint8_t *bytes;        /* [RS_DEFER_BYTES] */
	size_t used;
};

/* Room for the bytes of the frames of a batch left undecoded. */
#define RS_DEFER_BYTES (256u << 10)

/* with_bytes: room for frames left undecoded (the pipeline's). */
void rs_msg_init(struct rs_msg *m, bool with_bytes);
void rs_msg_clear(struct rs_msg *m);

/* The reading side. post() hands `m` on and returns the message to fill
 * next (RS_MSG_FRAMES, empty), or NULL when the run is to stop (the sink
 * said so, or the delivering side gave up). */
struct rs_feed {
	const struct rs_cli_opts *o;
	unsigned batch;  /* frames a message: 1 when frames keep their bytes (the sink takes them one by one) */
	struct rs_msg *(*post)(struct rs_feed *fd, struct rs_msg *m);
	void *ctx;       /* post()'s */
	struct rs_msg *m;/* being filled */
	const bool *stopped; /* set when the sink said stop (one thread only), or NULL */
	/* Leave the frames of the batch being filled for the delivering side
	 * to decode (set by post(); never with a time window, which needs each
	 * frame's own time to pick it). */
	bool defer;
};

/* Read every file of fd->o (run.c), posting what it reads and finally
 * RS_MSG_DONE (unless post() said stop). Returns at the end of the run. */
void rs_feed_files(struct rs_feed *fd);

/* The delivering side: state carried from message to message. */
struct rs_delivery {
	const struct rs_sink *sink;
	const struct rs_dissect_opts *dissect; /* for frames left undecoded */
	int rc;          /* the worst RS_EXIT_ code so far */
	bool stopped;    /* the sink said stop, or a bad filter ended the run */
	uint64_t frames; /* delivered, for the heap's huge pages (heap.c) */
};

/* Deliver one message; false: stop the run. */
bool rs_deliver(struct rs_delivery *d, struct rs_msg *m);

/* Whether SIGINT or SIGTERM came (run.c); safe from any thread. */
bool rs_stop_requested(void);

/* pipeline.c: the same run with the reading in a thread of its own.
 * Returns an RS_EXIT_ code; false in *ran when no thread could be started
 * (then nothing was read, and the caller reads in this thread). */
int rs_pipeline_run(const struct rs_cli_opts *o, const struct rs_sink *sink, bool *ran);

#endif

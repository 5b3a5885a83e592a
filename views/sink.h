/*
 * sink.h — what consumes decoded frames, in the manner of libpcap's
 * callback: the summary (cli/summary.c), the per-frame views (views/) and
 * the -w tee (cli/extract.c) are sinks; the run loops (cli/run.c's files,
 * cli/livefeed.c's capture, through cli/feed.c and, in two threads,
 * cli/pipeline.c) feed them. The loops decide nothing about a frame; a
 * sink sees everything in capture order, in one thread (with -j 2 not the
 * one that read or captured), and the same calls whichever thread that is.
 *
 * Two calls: the frames, and everything else as an event. In a live
 * capture the "file" is the interface: RS_SINK_BEGIN gets its name and
 * RS_SINK_END comes once the -w output is complete.
 */
#ifndef RS_VIEWS_SINK_H
#define RS_VIEWS_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/source.h"
#include "dissect/dissect.h"

/* libpcap's counts at the end of a live capture (pcap_stats). */
struct rs_capture_stats {
	uint64_t captured;  /* frames handed to the sink */
	uint64_t received;  /* ps_recv: frames that passed the kernel filter */
	uint64_t dropped;   /* ps_drop: dropped for lack of buffer space */
	uint64_t ifdropped; /* ps_ifdrop: dropped by the interface or driver */
};

enum rs_sink_event_kind {
	RS_SINK_BEGIN,      /* name, dlt: an input was opened */
	RS_SINK_END,        /* name: the input is done */
	RS_SINK_OPEN_ERROR, /* name, message: an input could not be opened (no BEGIN for it); the run goes on */
	RS_SINK_FILE_ERROR, /* message (naming file and frame): reading the input stopped early */
	/* message (naming the file), frame_no, count: something is wrong with
	 * `count` frames from frame_no on, and reading went on */
	RS_SINK_WARNING,
	RS_SINK_STATS,      /* stats: live, the capture's counts so far before each tick; the final ones before END */
	RS_SINK_TICK,       /* now_ns (ns since the epoch): live, every --refresh seconds, frames or not */
	/* The input paused (a pipe with nothing to read now, as from tcpdump
	 * -U -w -): what the sink holds back for its output goes out now. */
	RS_SINK_IDLE,
};

struct rs_sink_event {
	enum rs_sink_event_kind kind;
	const char *name;
	int dlt;
	const char *message;
	uint64_t frame_no, count;
	uint64_t now_ns;
	const struct rs_capture_stats *stats;
};

struct rs_sink {
	void *ctx;
	/* n frames, in order; false: stop the run (the frames after the one
	 * that said so are the sink's to leave). A sink that reads_bytes gets
	 * each frame's bytes in pkt[i].data and gets frames as they come (one
	 * at a time in one thread: the bytes are the reader's own, valid
	 * during the call; a batch of copies in two threads). Otherwise
	 * pkt[i].data is NULL and frames come a batch at a time. */
	bool (*frames)(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f, size_t n);
	/* Anything else, in order with the frames; may be NULL. */
	void (*event)(void *ctx, const struct rs_sink_event *ev);
	bool reads_bytes;
};

static inline void rs_sink_event(const struct rs_sink *s, const struct rs_sink_event *ev)
{
	if (s->event)
		s->event(s->ctx, ev);
}

#endif

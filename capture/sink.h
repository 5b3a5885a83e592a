/*
 * sink.h — what consumes captured, decoded frames: the interface the run
 * loops (cli/run.c, cli/livefeed.c, through cli/feed.c and, in two threads,
 * cli/pipeline.c) feed, and the summary
 * (cli/summary.c) and the per-frame views (views/) implement, in the
 * manner of libpcap's callback. The loops decide nothing about a frame;
 * a sink sees them in capture order.
 */
#ifndef RS_CAPTURE_SINK_H
#define RS_CAPTURE_SINK_H

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

/* A consumer of decoded frames. Return false from `frame` to stop early.
 * With -j 2 (cli/pipeline.c) every call is made in another thread than the
 * one that read or captured the frames, in the same order; the frame's
 * bytes (pkt->data) are then a copy, valid during the call.
 * In a live capture (cli/live.c) the "file" is the interface: begin_file
 * gets its name, end_file comes after the -w output is complete. */
struct rs_sink {
	void *ctx;
	void (*begin_file)(void *ctx, const char *name, int dlt);
	bool (*frame)(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f);
	void (*end_file)(void *ctx, const char *name);
	/* Live only, may be NULL: called every --refresh seconds whether frames
	 * came or not; now_ns is the wall clock (ns since the epoch). */
	void (*tick)(void *ctx, uint64_t now_ns);
	/* Live only, may be NULL: the capture's counts so far before each
	 * tick, and the final ones once, just before end_file. */
	void (*capture_stats)(void *ctx, const struct rs_capture_stats *st);
	/* Optional: the frames `n` at a time, in place of frame(), when the
	 * offline or the live loop feeds the sink: decoded, without their bytes
	 * (pkt[i].data is NULL), possibly in another thread than the one that
	 * read or captured them (cli/pipeline.c; all of the sink's calls are
	 * then made in that other thread, in the same order). Such a sink
	 * cannot stop the run. */
	void (*frames)(void *ctx, const struct rs_packet *pkt, const struct rs_frame *f, size_t n);
	/* Optional: the input paused (a pipe with nothing to read now, as from
	 * tcpdump -U -w -): what the sink holds back for its output should go
	 * out now. */
	void (*idle)(void *ctx);
	/* Reading the current file stopped early; `message` names file and frame. */
	void (*file_error)(void *ctx, const char *message);
	/* An input could not be opened at all (no begin_file for it); `message`
	 * names the file and says why. The run goes on with the next input. */
	void (*open_error)(void *ctx, const char *name, const char *message);
	/* Something is wrong with the current file but reading went on: `count`
	 * frames from `frame_no` on; `message` names the file. */
	void (*file_warning)(void *ctx, uint64_t frame_no, uint64_t count, const char *message);
};

#endif

/*
 * source.h — where frames come from: capture files (pcap and pcapng, read
 * by capture/pcapfile.c and capture/pcapng.c, by libpcap where those do not
 * apply; live interfaces are capture/live.h's). An opaque handle in libpcap's style:
 * the caller passes an error buffer and every message names the file (or
 * interface) and the frame.
 */
#ifndef RS_SOURCE_H
#define RS_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RS_ERRBUF_SIZE 512

struct rs_source;

/* snprintf for messages that may be cut to fit (see capture/errf.c). */
__attribute__((format(printf, 3, 4))) void rs_errf(char *buf, size_t len, const char *fmt, ...);

/* One frame as the source hands it over. `data` stays valid until the next
 * rs_source_next() or rs_source_close(). */
struct rs_packet {
	const uint8_t *data;
	uint32_t caplen;
	uint32_t wirelen;
	uint64_t ts_ns;    /* nanoseconds since the epoch */
	uint64_t frame_no; /* 1-based position in the file, counting every frame */
	/* Its link type (libpcap DLT_ value): the file's, or in pcapng its
	 * interface's, which may differ from frame to frame. */
	int dlt;
	/* The captured length the pcap record claimed. libpcap cuts a record
	 * longer than the file header's snapshot length down to it, so this is
	 * larger than caplen exactly when bytes were dropped (pcap files; equal
	 * to caplen elsewhere, 0 where unknown). */
	uint32_t file_caplen;
	/* Outside what the user selected (--frames, --since, --until), and
	 * handed to a per-frame view only so that its analysis sees every
	 * frame from the first: analysed, not shown. Set by the run loops
	 * (cli/), never by a source. */
	bool context;
};

enum rs_next {
	RS_NEXT_FRAME = 1, /* *pkt holds a frame */
	RS_NEXT_END = 0,   /* end of file */
	RS_NEXT_ERROR = -1 /* errbuf says why; frames before it were good */
};

/*
 * Open a capture file. `filter` is a BPF expression or NULL; it is applied
 * frame by frame so frame numbers keep counting every frame in the file.
 * Returns NULL with errbuf set on failure; *bad_filter (if not NULL) says
 * whether the filter, not the file, was the problem.
 */
struct rs_source *rs_source_open_file(const char *path, const char *filter, char errbuf[RS_ERRBUF_SIZE],
				      bool *bad_filter);

enum rs_next rs_source_next(struct rs_source *s, struct rs_packet *pkt, char errbuf[RS_ERRBUF_SIZE]);
/* Would the next rs_source_next() wait for its input? True only for a
 * pipe, terminal or socket with nothing to read at this moment (a frame
 * may still sit in libpcap's buffer: then the read does not wait after
 * all); a file is never waited for. */
bool rs_source_waiting(const struct rs_source *s);

/* The link type of the file's first interface (each frame's own is in
 * rs_packet.dlt). */
int rs_source_datalink(const struct rs_source *s);
const char *rs_source_name(const struct rs_source *s);
int rs_source_snaplen(const struct rs_source *s);
/* Who reads the frames: "libpcap", "pread" (capture/pcapfile.c) or "pcapng" (capture/pcapng.c). */
const char *rs_source_reader(const struct rs_source *s);
/* The underlying libpcap handle, for writers that copy its link type. */
struct pcap *rs_source_pcap(struct rs_source *s);
void rs_source_close(struct rs_source *s);

#endif

/*
 * writer.h — write captured frames to pcap or pcapng files (-w), with
 * tcpdump-style rotation (-C bytes, -G seconds, -W file count).
 *
 * Every file is written under a temporary name in the directory of its final
 * name (".NAME.XXXXXX") and renamed into place only once it is complete: at
 * rotation and at rs_writer_close(). A run killed outright leaves a temporary
 * file, never a half-written file under the final name. Standard output
 * ("-") and existing non-regular files (FIFOs, character devices such as
 * /dev/full) are written in place: they cannot be renamed into.
 *
 * Formats: pcap with nanosecond timestamps (magic 0xa1b23c4d), or pcapng
 * (SHB, one IDB with if_tsresol = 9, EPBs) when the name ends in ".pcapng".
 * Both are written in host byte order, as the formats allow.
 *
 * Errors go to the caller's errbuf in libpcap's style and always name the
 * file. After a write error (disk full, ...) the writer refuses further
 * frames; rs_writer_close() then cuts the file back to its last whole frame
 * and still renames it, so what was written before stays readable.
 */
#ifndef RS_WRITER_H
#define RS_WRITER_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/source.h"

struct rs_writer;

struct rs_writer_config {
	const char *path;        /* -w FILE; "-" is standard output */
	int dlt;                 /* libpcap DLT_ value of the frames */
	uint32_t snaplen;        /* frames are cut to this; also the header's snaplen */
	uint64_t rotate_bytes;   /* -C: a file never grows past this (0 = no limit) */
	uint32_t rotate_seconds; /* -G: a new file when a frame is this much later than the file's first */
	uint32_t max_files;      /* -W: keep at most this many files (0 = no cap) */
	const char *if_name;     /* pcapng if_name option (the capture interface), or NULL */
};

/* Is this -w name written as pcapng? (It ends in ".pcapng".) */
bool rs_writer_is_pcapng(const char *path);

/* Create the first file (under its temporary name) and write its header.
 * Returns NULL with errbuf set if the file cannot be created or written. */
struct rs_writer *rs_writer_open(const struct rs_writer_config *cfg, char errbuf[RS_ERRBUF_SIZE]);

/* Append one frame, rotating first if -C or -G says so. False with errbuf
 * set on a write error; the writer then takes no more frames. */
bool rs_writer_write(struct rs_writer *w, const struct rs_packet *pkt, char errbuf[RS_ERRBUF_SIZE]);

/* rs_writer_write, and in pcapng a packet comment (opt_comment; NULL or
 * "": none) on the frame. A pcap file has no place for it. */
bool rs_writer_write_comment(struct rs_writer *w, const struct rs_packet *pkt, const char *comment,
			     char errbuf[RS_ERRBUF_SIZE]);

/* pcapng, not rotated: a new Interface Description Block of link type
 * `dlt` (its if_name: `if_name`, or none); the frames written after it are
 * its. The interfaces count from 0, the one rs_writer_open() wrote. */
bool rs_writer_interface(struct rs_writer *w, int dlt, const char *if_name, char errbuf[RS_ERRBUF_SIZE]);

/* Called periodically with the wall clock: with -G, a file whose period has
 * ended is completed (renamed) now rather than when the next frame comes. */
bool rs_writer_tick(struct rs_writer *w, uint64_t now_ns, char errbuf[RS_ERRBUF_SIZE]);

/* Flush, close and rename the current file, then free the writer (always).
 * False with errbuf set if anything failed, now or before. */
bool rs_writer_close(struct rs_writer *w, char errbuf[RS_ERRBUF_SIZE]);

/* Frames handed to rs_writer_write() and accepted. */
uint64_t rs_writer_frames(const struct rs_writer *w);
/* Files completed so far (renamed into place, or written in place). */
uint32_t rs_writer_files_done(const struct rs_writer *w);
/* The final name of the file being written now (after tick/close: the last one). */
const char *rs_writer_current_name(const struct rs_writer *w);

#endif

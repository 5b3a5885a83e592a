/*
 * reader.h — format-specific readers behind struct rs_source (source.c),
 * in libpcap's style: an ops struct per format.
 *
 * libpcap opens and checks every capture file and reads whatever a reader
 * here does not take. A reader takes over a file libpcap has opened only
 * when it can hand out exactly what pcap_next_ex() would (frames, lengths,
 * timestamps, errors), more cheaply, and, in pcapng, past where libpcap
 * stops (a second link type or byte order); it returns NULL, and libpcap
 * keeps the file, for anything it does not handle. Only source.c includes
 * this.
 */
#ifndef RS_READER_H
#define RS_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <pcap/pcap.h>

struct rs_reader;

struct rs_reader_ops {
	const char *name;
	/* pcap_next_ex()'s contract: 1 and *h, *data set (valid until the
	 * next call), PCAP_ERROR_BREAK at the end of the file, PCAP_ERROR on
	 * an error (then error() and offset() describe it). */
	int (*next)(struct rs_reader *r, struct pcap_pkthdr **h, const uint8_t **data);
	/* The error of the last PCAP_ERROR, worded as libpcap words it. */
	const char *(*error)(const struct rs_reader *r);
	/* The file offset where the record that could not be read starts. */
	long (*offset)(const struct rs_reader *r);
	/* Bytes read from a stream and not handed out yet (the next frame may
	 * be there: no need to wait for the stream); NULL: none are kept. */
	bool (*buffered)(const struct rs_reader *r);
	void (*close)(struct rs_reader *r);
};

struct rs_reader {
	const struct rs_reader_ops *ops;
	/* The captured length the last record claimed: larger than the
	 * caplen handed out when the record was cut to the snapshot length. */
	uint32_t file_caplen;
	/* The last record's link type (DLT_ value): in pcapng, its
	 * interface's, which may change from one frame to the next. */
	int dlt;
};

/* Classic pcap files (pcapfile.c) are read this many bytes at a time: a
 * file cut short while it is read still hands out the records read before
 * the cut, up to this far past the one being handed out. */
#define RS_PCAPFILE_CHUNK (256u << 10)

/* Classic pcap files (pcapfile.c): `p` is libpcap's handle on `path`,
 * just opened. NULL: leave the file to libpcap. */
struct rs_reader *rs_pcapfile_open(pcap_t *p, const char *path);

/* pcapng files on a regular file (pcapng.c): every section and interface,
 * where libpcap stops at the second link type or byte order. NULL: leave
 * the file to libpcap (standard input, pipes). */
struct rs_reader *rs_pcapng_open(pcap_t *p, const char *path);

/* A pcapng stream (a pipe, standard input) whose first `n` bytes, `head`,
 * were read from fd already: the checks libpcap makes when it opens a file
 * (its words in err on failure), then the first interface's link type and
 * snapshot length in *dlt, *snaplen. own_fd: the reader closes fd. */
struct rs_reader *rs_pcapng_open_stream(int fd, bool own_fd, const uint8_t *head, size_t n, int *dlt,
					uint32_t *snaplen, char err[PCAP_ERRBUF_SIZE]);

#endif

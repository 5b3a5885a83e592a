/*
 * pcapfile.c — classic pcap files read in large chunks: pread() of 256 KiB
 * at a time into one buffer, and every frame handed out as a pointer into
 * it.
 *
 * libpcap reads a savefile with fread() through stdio's 4 KiB buffer and
 * copies each record once more into its own buffer: a system call per
 * 4 KiB and two copies of every byte. Where a system call costs
 * microseconds (virtual machines, as the bench's), that loop spends more
 * time in them than rocestat spends analysing the frames. This reader
 * takes over a file libpcap has just opened and checked, when it is a
 * plain pcap file on a regular file,
 * and gives exactly what pcap_next_ex() would (libpcap 1.10, sf-pcap.c):
 * the same records, the timestamps scaled to nanoseconds the same way,
 * caplen cut to the header's snapshot length (as libpcap adjusts it) when a
 * record claims more, and the same error messages about the same record
 * (source.c quotes the offset where it starts). Anything else stays with
 * libpcap: pcapng, standard input and pipes, versions other than 2.4, the
 * modified formats, and byte-swapped files of link types whose
 * pseudo-header libpcap swaps. tests/check_reader.c compares the two on
 * every capture we have and on truncated, corrupt, growing and shrinking
 * ones.
 *
 * Why a copy and not the file mapped in place (as this reader once was):
 * a mapping hands the bytes over without copying them, but every 4 KiB page
 * (or 64 KiB of them, the kernel's fault-around) must be mapped into the
 * process, and the frames are read cold from memory. In a virtual machine
 * a page fault costs as much as a system call, and on a page cache split
 * into small folios (as memory reclaim leaves a file read a while ago) the
 * mapped reader was the slower, by far on a file long in the page cache
 * (the runs that chose: bench/NOTES.md). One pread() per 256 KiB
 * is a system call per 350 frames, the kernel copies at memory speed, and
 * the copy leaves the frames in the L2 cache for the dissector and the
 * ICRC, which read every byte. The buffer is reused, so the resident set
 * stays at its 512 KiB whatever the size of the file.
 *
 * A file that grows while it is read (a capture still being written) is
 * read on, as libpcap's read would. One that shrinks (truncated by another
 * process: tcpdump -W reusing a ring of files) hands out what was read
 * before the cut (up to a chunk past the record being handed out), then
 * stops with an error that says how long the file is now.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/chunkbuf.h"
#include "capture/reader.h"

#define PCAP_FILE_HDR 24
#define PCAP_REC_HDR 16
/* libpcap's MAXIMUM_SNAPLEN: its largest record for every link type this
 * reader takes (max_snaplen_for_dlt() is larger only for D-Bus, EBHSCR and
 * USBPcap). */
#define LIBPCAP_MAX_SNAPLEN 262144u
/* The buffer: a chunk, and room for the longest record that may have begun
 * in the chunk before. */
#define BUF_BYTES (RS_PCAPFILE_CHUNK + PCAP_REC_HDR + LIBPCAP_MAX_SNAPLEN)

struct pcapfile {
	struct rs_reader r;
	struct rs_chunkbuf cb; /* on libpcap's fd: it closes it; BUF_BYTES, never grown */
	bool swapped;     /* the file's byte order is not ours */
	bool usec;        /* microsecond timestamps (scaled up to ns) */
	bool ended;       /* the end was reported: it stays the end, as stdio's EOF does */
	uint32_t snaplen; /* libpcap's snapshot length (pcap_snapshot) */
	struct pcap_pkthdr hdr;
};

/* Link types libpcap hands over untouched in byte-swapped files (its
 * swap_pseudo_headers() rewrites Linux cooked headers, among others). */
static bool no_pseudo_header_swap(int dlt)
{
	switch (dlt) {
	case DLT_EN10MB:
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
	case DLT_INFINIBAND:
	case DLT_ERF:
		return true;
	default:
		return false;
	}
}

static int next(struct rs_reader *rr, struct pcap_pkthdr **h, const uint8_t **data)
{
	struct pcapfile *r = (struct pcapfile *)rr;
	if (r->cb.failed)
		return PCAP_ERROR;
	if (r->ended)
		return PCAP_ERROR_BREAK;
	size_t got;
	if (!rs_chunkbuf_have(&r->cb, PCAP_REC_HDR, &got)) {
		if (r->cb.failed)
			return PCAP_ERROR;
		if (got == 0) {
			r->ended = true;
			return PCAP_ERROR_BREAK;
		}
		/* libpcap's fread stops at the end of the file */
		return rs_chunkbuf_fail(&r->cb, "truncated dump file; tried to read %zu header bytes, only got %zu",
			    (size_t)PCAP_REC_HDR, got);
	}
	uint32_t caplen = rs_chunkbuf_get32(r->swapped, rs_chunkbuf_at(&r->cb) + 8);
	if (caplen > LIBPCAP_MAX_SNAPLEN) {
		if (caplen > r->snaplen)
			return rs_chunkbuf_fail(&r->cb, "invalid packet capture length %u, bigger than snaplen of %d", caplen, (int)r->snaplen);
		return rs_chunkbuf_fail(&r->cb, "invalid packet capture length %u, bigger than maximum of %u",
			    caplen, LIBPCAP_MAX_SNAPLEN);
	}
	if (!rs_chunkbuf_have(&r->cb, PCAP_REC_HDR + (size_t)caplen, &got)) {
		if (r->cb.failed)
			return PCAP_ERROR;
		got -= PCAP_REC_HDR;
		/* libpcap first reads what it keeps of a record longer than
		 * the snapshot length, then skips the rest. */
		if (caplen > r->snaplen && got < r->snaplen)
			return rs_chunkbuf_fail(&r->cb, "truncated dump file; tried to read %d captured bytes, only got %zu",
				    (int)r->snaplen, got);
		return rs_chunkbuf_fail(&r->cb, "truncated dump file; tried to read %u captured bytes, only got %zu", caplen, got);
	}
	const uint8_t *p = rs_chunkbuf_at(&r->cb);
	/* The seconds are unsigned 32-bit (the pcap format: until 2106).
	 * libpcap reads them as signed in a file of the host's byte order, so
	 * that 2038-01-19 03:14:08 and later came out before 1970; source.c
	 * undoes that for the frames libpcap reads. A fraction is below 10^9
	 * in any file that means it; a larger one is widened as libpcap
	 * widens it (signed, unless byte-swapped), so both readers agree. */
	uint32_t sec = rs_chunkbuf_get32(r->swapped, p), frac = rs_chunkbuf_get32(r->swapped, p + 4);
	int64_t s64 = (int64_t)sec;
	int64_t f64 = r->swapped ? (int64_t)frac : (int64_t)(int32_t)frac;
	r->hdr.ts.tv_sec = (time_t)s64;
	r->hdr.ts.tv_usec = (suseconds_t)(r->usec ? f64 * 1000 : f64);
	r->hdr.len = rs_chunkbuf_get32(r->swapped, p + 12);
	r->hdr.caplen = caplen > r->snaplen ? r->snaplen : caplen;
	r->r.file_caplen = caplen;
	r->cb.off += PCAP_REC_HDR + (size_t)caplen;
	*h = &r->hdr;
	*data = p + PCAP_REC_HDR;
	return 1;
}

static const char *error(const struct rs_reader *rr)
{
	return ((const struct pcapfile *)rr)->cb.err;
}

static long offset(const struct rs_reader *rr)
{
	return ((const struct pcapfile *)rr)->cb.err_off;
}

static void close_reader(struct rs_reader *rr)
{
	struct pcapfile *r = (struct pcapfile *)rr;
	rs_chunkbuf_free(&r->cb);
	free(r);
}

static const struct rs_reader_ops ops = {
	.name = "pread",
	.next = next,
	.error = error,
	.offset = offset,
	.close = close_reader,
};

struct rs_reader *rs_pcapfile_open(pcap_t *p, const char *path)
{
	static const uint32_t magic_usec = 0xa1b2c3d4u, magic_nsec = 0xa1b23c4du;
	if (strcmp(path, "-") == 0 || !pcap_file(p))
		return NULL; /* standard input: libpcap has read into it already */
	int fd = fileno(pcap_file(p));
	struct stat st;
	uint8_t head[PCAP_FILE_HDR];
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head)
		return NULL;
	uint32_t magic;
	memcpy(&magic, head, 4);
	bool swapped;
	if (magic == magic_usec || magic == magic_nsec) {
		swapped = false;
	} else if (__builtin_bswap32(magic) == magic_usec || __builtin_bswap32(magic) == magic_nsec) {
		swapped = true;
		magic = __builtin_bswap32(magic);
	} else {
		return NULL; /* pcapng, or a modified pcap format */
	}
	if (rs_chunkbuf_get16(swapped, head + 4) != 2 || rs_chunkbuf_get16(swapped, head + 6) != 4 || swapped != (pcap_is_swapped(p) == 1) ||
	    pcap_snapshot(p) <= 0 || (swapped && !no_pseudo_header_swap(pcap_datalink(p))))
		return NULL;
	struct pcapfile *r = calloc(1, sizeof *r);
	if (!r || !rs_chunkbuf_init(&r->cb, fd, false, BUF_BYTES)) {
		free(r);
		return NULL;
	}
	r->r.ops = &ops;
	r->r.dlt = pcap_datalink(p);
	r->swapped = swapped;
	r->usec = magic == magic_usec;
	r->snaplen = (uint32_t)pcap_snapshot(p);
	r->cb.size = (size_t)st.st_size;
	r->cb.buf_off = r->cb.off = PCAP_FILE_HDR;
	/* A file not in the page cache is read ahead further. */
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return &r->r;
}

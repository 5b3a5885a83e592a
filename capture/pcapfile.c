/*
 * pcapfile.c — classic pcap files read in place: the file is mapped and
 * every frame is handed out as a pointer into the mapping.
 *
 * libpcap reads a savefile with fread() through stdio's 4 KiB buffer and
 * copies each record once more into its own buffer: a system call per
 * 4 KiB and two copies of every byte, which with a warm page cache is most
 * of what reading a capture costs (bench/run.sh shows both readers). This
 * reader takes over a file libpcap has just opened and checked, when it is
 * a plain pcap file on a regular file, and gives exactly what
 * pcap_next_ex() would (libpcap 1.10, sf-pcap.c): the same records, the
 * timestamps scaled to nanoseconds the same way, caplen cut to the
 * header's snapshot length (as libpcap adjusts it) when a record claims
 * more, and the same error messages about the same record (source.c
 * quotes the offset where it starts). Anything else stays with libpcap:
 * pcapng, standard input and pipes, versions other than 2.4, the modified
 * formats, and byte-swapped files of link types whose pseudo-header
 * libpcap swaps.
 * tests/check_reader.c compares the two on every capture we have and on
 * truncated and corrupt ones.
 *
 * Memory: the mapping is read once, front to back, prefetched a few frames
 * ahead of the record handed out (AHEAD). Every WINDOW bytes, the
 * pages behind the reader are dropped from the process (MADV_DONTNEED: the
 * page cache keeps them), and the next two windows are announced
 * (MADV_WILLNEED) so that a file not in the page cache is read ahead, or
 * mapped in at once (MADV_POPULATE_READ) when it is cached: the resident
 * set holds at most three windows of the file whatever its size.
 *
 * A file that grows while it is read (a capture still being written) is
 * mapped again at the end, where libpcap's read would see the new bytes
 * too. One truncated by another process while it is read would fault
 * (SIGBUS) instead of reading as a truncated record; set
 * ROCESTAT_READER=libpcap to read such files through libpcap.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/reader.h"

/* 2 MiB: 8 MiB windows (24 MiB resident) read no faster (2M-frame bench
 * file, 9 interleaved runs: 0.80 s median CPU at 8 MiB, 0.73 s at 2 MiB). */
#define WINDOW (2u << 20)
/* Bytes ahead of the record handed out that are prefetched into the caches:
 * the dissector's first touch of a frame would otherwise wait for memory
 * (mapped pages are not copied, so nothing has brought them in). A dozen
 * frames of the bench's; 2-16 KiB measured alike, none was ~10% slower. */
#define AHEAD 8192
#define PCAP_FILE_HDR 24
#define PCAP_REC_HDR 16
/* libpcap's MAXIMUM_SNAPLEN: its largest record for every link type this
 * reader takes (max_snaplen_for_dlt() is larger only for D-Bus, EBHSCR and
 * USBPcap). */
#define LIBPCAP_MAX_SNAPLEN 262144u

struct pcapfile {
	struct rs_reader r;
	const uint8_t *map;
	size_t size;      /* bytes mapped: the file's size when it was mapped */
	size_t off;       /* where the next record starts */
	size_t released;  /* [0, released) has been dropped from the process */
	size_t advised;   /* [.., advised) has been announced */
	size_t fetched;   /* [.., fetched) has been prefetched into the caches */
	size_t page;
	int fd;           /* libpcap's: it closes it */
	bool swapped;     /* the file's byte order is not ours */
	bool usec;        /* microsecond timestamps (scaled up to ns) */
	bool failed;
	bool ended;       /* the end was reported: it stays the end, as stdio's EOF does */
	uint32_t snaplen; /* libpcap's snapshot length (pcap_snapshot) */
	long err_off;     /* where the record that could not be read starts */
	struct pcap_pkthdr hdr;
	char err[PCAP_ERRBUF_SIZE];
};

static uint32_t get32(const struct pcapfile *r, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return r->swapped ? __builtin_bswap32(v) : v;
}

static uint16_t get16(bool swapped, const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swapped ? __builtin_bswap16(v) : v;
}

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

static bool map_file(struct pcapfile *r)
{
	struct stat st;
	if (fstat(r->fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < PCAP_FILE_HDR ||
	    (uint64_t)st.st_size > SIZE_MAX / 2)
		return false;
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (m == MAP_FAILED)
		return false;
	madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
	r->map = m;
	r->size = (size_t)st.st_size;
	return true;
}

/* At the end of the mapping: has the file grown since (a capture still
 * being written)? Then map it again and go on, as libpcap's read would. */
static bool grown(struct pcapfile *r)
{
	struct stat st;
	if (fstat(r->fd, &st) != 0 || (uint64_t)st.st_size <= r->size)
		return false;
	const uint8_t *old = r->map;
	size_t old_size = r->size;
	if (!map_file(r))
		return false;
	munmap((void *)old, old_size);
	r->released = r->advised = r->off & ~(r->page - 1); /* nothing of the new mapping is resident yet */
	return true;
}

/* Every WINDOW bytes: drop what is behind the record about to be handed
 * out, announce what is ahead. */
static void slide(struct pcapfile *r, size_t rec)
{
	size_t upto = rec & ~(r->page - 1);
	if (upto > r->released) {
		madvise((void *)(r->map + r->released), upto - r->released, MADV_DONTNEED);
		r->released = upto;
	}
	size_t want = rec + 2 * (size_t)WINDOW;
	if (want > r->size)
		want = r->size;
	if (want > r->advised) {
		/* A file not in the page cache is read ahead (announcing cached
		 * pages costs as much as faulting them in). Cached, its pages are
		 * mapped in one go: a page fault per 64 KiB costs more. The last
		 * page of the range says which this is. */
		size_t from = r->advised & ~(r->page - 1);
		unsigned char in_core = 0;
		size_t last = (want - 1) & ~(r->page - 1);
		if (mincore((void *)(r->map + last), 1, &in_core) != 0 || !(in_core & 1))
			madvise((void *)(r->map + from), want - from, MADV_WILLNEED);
#ifdef MADV_POPULATE_READ
		else /* Linux 5.14 and later; before, the faults do it */
			madvise((void *)(r->map + from), want - from, MADV_POPULATE_READ);
#endif
		r->advised = want;
	}
}

/* Prefetch up to AHEAD bytes past the next record, a cache line at a time. */
static inline void ahead(struct pcapfile *r)
{
	size_t want = r->off + AHEAD;
	if (want > r->size)
		want = r->size;
	if (r->fetched < r->off)
		r->fetched = r->off;
	for (; r->fetched < want; r->fetched += 64)
		__builtin_prefetch(r->map + r->fetched);
}

__attribute__((format(printf, 2, 3))) static int fail(struct pcapfile *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof r->err, fmt, ap);
	va_end(ap);
	r->err_off = (long)r->off;
	r->failed = true;
	return PCAP_ERROR;
}

static int next(struct rs_reader *rr, struct pcap_pkthdr **h, const uint8_t **data)
{
	struct pcapfile *r = (struct pcapfile *)rr;
	if (r->failed)
		return PCAP_ERROR;
	size_t left = r->size - r->off;
	if (left < PCAP_REC_HDR) {
		if (!r->ended && grown(r))
			left = r->size - r->off;
		if (left == 0) {
			r->ended = true;
			return PCAP_ERROR_BREAK;
		}
		if (left < PCAP_REC_HDR) /* libpcap's fread stops at the end of the file */
			return fail(r, "truncated dump file; tried to read %zu header bytes, only got %zu",
				    (size_t)PCAP_REC_HDR, left);
	}
	const uint8_t *p = r->map + r->off;
	uint32_t caplen = get32(r, p + 8);
	if (caplen > LIBPCAP_MAX_SNAPLEN) {
		if (caplen > r->snaplen)
			return fail(r, "invalid packet capture length %u, bigger than snaplen of %d", caplen, (int)r->snaplen);
		return fail(r, "invalid packet capture length %u, bigger than maximum of %u",
			    caplen, LIBPCAP_MAX_SNAPLEN);
	}
	if (left - PCAP_REC_HDR < caplen) {
		if (grown(r)) {
			left = r->size - r->off;
			p = r->map + r->off;
		}
		size_t got = left - PCAP_REC_HDR;
		if (got < caplen) {
			/* libpcap first reads what it keeps of a record longer
			 * than the snapshot length, then skips the rest. */
			if (caplen > r->snaplen && got < r->snaplen)
				return fail(r, "truncated dump file; tried to read %d captured bytes, only got %zu",
					    (int)r->snaplen, got);
			return fail(r, "truncated dump file; tried to read %u captured bytes, only got %zu",
				    caplen, got);
		}
	}
	/* Widened as libpcap widens them: the file's fields are signed 32-bit,
	 * but its byte swap yields them unsigned. */
	uint32_t sec = get32(r, p), frac = get32(r, p + 4);
	int64_t s64 = r->swapped ? (int64_t)sec : (int64_t)(int32_t)sec;
	int64_t f64 = r->swapped ? (int64_t)frac : (int64_t)(int32_t)frac;
	r->hdr.ts.tv_sec = (time_t)s64;
	r->hdr.ts.tv_usec = (suseconds_t)(r->usec ? f64 * 1000 : f64);
	r->hdr.len = get32(r, p + 12);
	r->hdr.caplen = caplen > r->snaplen ? r->snaplen : caplen;
	r->r.file_caplen = caplen;
	if (r->off - r->released >= WINDOW)
		slide(r, r->off);
	r->off += PCAP_REC_HDR + (size_t)caplen;
	ahead(r);
	*h = &r->hdr;
	*data = p + PCAP_REC_HDR;
	return 1;
}

static const char *error(const struct rs_reader *rr)
{
	return ((const struct pcapfile *)rr)->err;
}

static long offset(const struct rs_reader *rr)
{
	return ((const struct pcapfile *)rr)->err_off;
}

static void close_reader(struct rs_reader *rr)
{
	struct pcapfile *r = (struct pcapfile *)rr;
	munmap((void *)r->map, r->size);
	free(r);
}

static const struct rs_reader_ops ops = {
	.name = "mmap",
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
	struct pcapfile *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->r.ops = &ops;
	r->fd = fileno(pcap_file(p));
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	if (r->fd < 0 || !map_file(r)) {
		free(r);
		return NULL;
	}
	uint32_t magic;
	memcpy(&magic, r->map, 4);
	bool ok = true;
	if (magic == magic_usec || magic == magic_nsec) {
		r->swapped = false;
	} else if (__builtin_bswap32(magic) == magic_usec || __builtin_bswap32(magic) == magic_nsec) {
		r->swapped = true;
		magic = __builtin_bswap32(magic);
	} else {
		ok = false; /* pcapng, or a modified pcap format */
	}
	r->usec = magic == magic_usec;
	int dlt = pcap_datalink(p);
	ok = ok && get16(r->swapped, r->map + 4) == 2 && get16(r->swapped, r->map + 6) == 4 &&
	     r->swapped == (pcap_is_swapped(p) == 1) && pcap_snapshot(p) > 0 &&
	     (!r->swapped || no_pseudo_header_swap(dlt));
	if (!ok) {
		munmap((void *)r->map, r->size);
		free(r);
		return NULL;
	}
	r->snaplen = (uint32_t)pcap_snapshot(p);
	r->off = PCAP_FILE_HDR;
	r->released = r->advised = 0;
	slide(r, r->off);
	return &r->r;
}

/*
 * pcapng.c — pcapng files read block by block: every section, every
 * interface's link type, snapshot length and timestamp resolution.
 *
 * The format (draft-ietf-opsawg-pcapng): a file is one or more sections,
 * each a Section Header Block with its own byte order, then Interface
 * Description Blocks (numbered from 0 in each section) and the blocks that
 * refer to them. Every block is framed the same way:
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +---------------------------------------------------------------+
 *   |                          Block Type                           |
 *   +---------------------------------------------------------------+
 *   |                      Block Total Length                       |
 *   +---------------------------------------------------------------+
 *   /                          Block Body                           /
 *   +---------------------------------------------------------------+
 *   |                      Block Total Length                       |
 *   +---------------------------------------------------------------+
 *
 * SHB body: byte-order magic 0x1A2B3C4D, major, minor, section length.
 * IDB body: link type (16), reserved (16), snaplen (32), options
 * (if_tsresol: 10^-n or 2^-n seconds, default 10^-6; if_tsoffset: seconds
 * added). Enhanced Packet Block: interface, timestamp high and low, captured
 * and original length, data. Simple Packet Block: original length, data
 * (interface 0, no timestamp). The obsolete Packet Block: 16-bit interface,
 * 16-bit drop count, then as the EPB. Other blocks are skipped.
 *
 * libpcap 1.10 reads only what its API can hand out: one link type, one
 * snapshot length and one byte order per file. It stops with an error at
 * a second section in the other byte order ("the file has sections with
 * different byte orders") and at an interface of another link type or
 * snapshot length ("an interface has a type ... different from the type of
 * the first interface"), as mergecap and Wireshark write them. Wireshark
 * reads on; so does this reader: each frame carries its own interface's
 * link type (reader.h, rs_reader.dlt). Everywhere libpcap does read a file,
 * this reader hands out exactly what it would (sf-pcapng.c): the same
 * frames, lengths, nanosecond timestamps scaled the same way, the same
 * refusals worded the same way; tests/check_reader.c compares the two.
 * Where they part, beyond the three refusals above: binary resolutions finer
 * than 2^-34 s, whose scaling overflows 64 bits in libpcap and is exact here
 * (128-bit), and the offset an error names, which here is the start of the
 * block that could not be read.
 *
 * Reading is pcapfile.c's: pread() of RS_PCAPFILE_CHUNK at a time into one
 * buffer, frames handed out as pointers into it, a file that grows read on,
 * one that shrinks under the reader reported.
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

#define BT_SHB 0x0A0D0D0Au
#define BT_IDB 1u
#define BT_PB 2u
#define BT_SPB 3u
#define BT_EPB 6u
#define BOM 0x1A2B3C4Du
#define IF_TSRESOL 9
#define IF_TSOFFSET 14
#define LINKTYPE_RAW 101
/* libpcap's limits: its largest block (INITIAL_MAX_BLOCKSIZE, for every link
 * type rocestat decodes), the largest snapshot length (MAXIMUM_SNAPLEN). */
#define MAX_BLOCK (16u << 20)
#define MAX_SNAPLEN 262144u
/* A section may describe this many interfaces: a file of nothing but IDBs
 * must not take the memory of a million of them. */
#define MAX_IFACES 65536u

struct iface {
	int dlt;
	uint32_t snaplen; /* libpcap's adjusted one: 0 and too large read as MAX_SNAPLEN */
	/* What a packet's captured length is held to: the IDB's own, 0 read
	 * as MAX_SNAPLEN, as libpcap holds them (it reads a packet longer than
	 * MAX_SNAPLEN from an interface that says it may have one). */
	uint32_t limit;
	uint64_t tsresol; /* units per second */
	uint64_t tsoffset;
};

struct pcapng {
	struct rs_reader r;
	/* A file: libpcap's fd, it closes it; a pipe or standard input: read
	 * in order, never again (cb.stream). cb.off: where the next block starts. */
	struct rs_chunkbuf cb;
	bool own_fd;      /* a stream this reader opened: it closes it */
	bool swapped;     /* this section's byte order is not ours */
	bool ended;
	struct iface *ifs;
	uint32_t nifs, ifs_cap;
	struct pcap_pkthdr hdr;
};

/* ---- blocks ---------------------------------------------------------------- */

/* One block's body, as libpcap's block cursor walks it. */
struct body {
	const uint8_t *p;
	size_t left;
	uint32_t type;
};

static const uint8_t *take(struct pcapng *r, struct body *b, size_t n)
{
	if (b->left < n) {
		rs_chunkbuf_fail(&r->cb, "block of type %u in pcapng dump file is too short", b->type);
		return NULL;
	}
	const uint8_t *p = b->p;
	b->p += n;
	b->left -= n;
	return p;
}

/* The next block framed and checked as libpcap's read_block() checks it.
 * 1: *b is its body; 0: the end of the file; PCAP_ERROR. A Section Header
 * Block sets the byte order for itself and the blocks after it. */
static int read_block(struct pcapng *r, struct body *b, uint32_t *total)
{
	size_t got;
	if (!rs_chunkbuf_have(&r->cb, 8, &got)) {
		if (r->cb.failed)
			return PCAP_ERROR;
		if (got == 0)
			return 0;
		return rs_chunkbuf_fail(&r->cb, "truncated pcapng dump file; tried to read %zu bytes, only got %zu", (size_t)8, got);
	}
	const uint8_t *p = r->cb.buf + (r->cb.off - r->cb.buf_off);
	uint32_t raw_type;
	memcpy(&raw_type, p, 4);
	if (raw_type == BT_SHB) { /* a palindrome: its byte-order magic says how to read its length */
		if (rs_chunkbuf_have(&r->cb, 12, &got)) {
			p = r->cb.buf + (r->cb.off - r->cb.buf_off);
			uint32_t bom;
			memcpy(&bom, p + 8, 4);
			if (bom == BOM || bom == __builtin_bswap32(BOM))
				r->swapped = bom != BOM;
		} else if (r->cb.failed) {
			return PCAP_ERROR;
		}
	}
	uint32_t type = rs_chunkbuf_get32(r->swapped, p), len = rs_chunkbuf_get32(r->swapped, p + 4);
	if (len < 12)
		return rs_chunkbuf_fail(&r->cb, "block in pcapng dump file has a length of %u < %zu", len, (size_t)12);
	if (len % 4)
		return rs_chunkbuf_fail(&r->cb, "block in pcapng dump file has a length of %u that is not a multiple of 4", len);
	if (len > MAX_BLOCK)
		return rs_chunkbuf_fail(&r->cb, "pcapng block size %u > maximum %u", len, MAX_BLOCK);
	if (!rs_chunkbuf_have(&r->cb, len, &got)) {
		if (r->cb.failed)
			return PCAP_ERROR;
		return rs_chunkbuf_fail(&r->cb, "truncated pcapng dump file; tried to read %zu bytes, only got %zu", (size_t)len - 8,
			    got - 8);
	}
	p = r->cb.buf + (r->cb.off - r->cb.buf_off);
	if (rs_chunkbuf_get32(r->swapped, p + len - 4) != len)
		return rs_chunkbuf_fail(&r->cb, "block total length in header and trailer don't match");
	*b = (struct body){ .p = p + 8, .left = len - 12, .type = type };
	*total = len;
	return 1;
}

/* libpcap's pcap_adjust_snapshot() for the link types it reads here. */
static uint32_t adjust_snaplen(uint32_t snaplen)
{
	return snaplen == 0 || snaplen > MAX_SNAPLEN ? MAX_SNAPLEN : snaplen;
}

static int dlt_of(uint16_t linktype)
{
	return linktype == LINKTYPE_RAW ? DLT_RAW : (int)linktype;
}

/* The IDB's options that say what its timestamps mean (libpcap's
 * process_idb_options(), with its refusals). */
static bool idb_options(struct pcapng *r, struct body *b, struct iface *f)
{
	bool saw_res = false, saw_off = false;
	while (b->left) {
		const uint8_t *h = take(r, b, 4);
		if (!h)
			return false;
		uint16_t code = rs_chunkbuf_get16(r->swapped, h), olen = rs_chunkbuf_get16(r->swapped, h + 2);
		const uint8_t *v = take(r, b, ((size_t)olen + 3) / 4 * 4);
		if (!v)
			return false;
		if (code == 0) {
			if (olen != 0) {
				rs_chunkbuf_fail(&r->cb, "Interface Description Block has opt_endofopt option with length %u != 0", olen);
				return false;
			}
			return true;
		}
		if (code == IF_TSRESOL) {
			if (olen != 1) {
				rs_chunkbuf_fail(&r->cb, "Interface Description Block has if_tsresol option with length %u != 1", olen);
				return false;
			}
			if (saw_res) {
				rs_chunkbuf_fail(&r->cb, "Interface Description Block has more than one if_tsresol option");
				return false;
			}
			saw_res = true;
			if (v[0] & 0x80) {
				if ((v[0] & 0x7f) > 63) {
					rs_chunkbuf_fail(&r->cb, "Interface Description Block if_tsresol option resolution 2^-%u is too high",
					     v[0] & 0x7f);
					return false;
				}
				f->tsresol = 1ull << (v[0] & 0x7f);
			} else {
				if (v[0] > 19) {
					rs_chunkbuf_fail(&r->cb, "Interface Description Block if_tsresol option resolution 10^-%u is too high",
					     v[0]);
					return false;
				}
				f->tsresol = 1;
				for (int i = 0; i < v[0]; i++)
					f->tsresol *= 10;
			}
		} else if (code == IF_TSOFFSET) {
			if (olen != 8) {
				rs_chunkbuf_fail(&r->cb, "Interface Description Block has if_tsoffset option with length %u != 8", olen);
				return false;
			}
			if (saw_off) {
				rs_chunkbuf_fail(&r->cb, "Interface Description Block has more than one if_tsoffset option");
				return false;
			}
			saw_off = true;
			memcpy(&f->tsoffset, v, 8);
			if (r->swapped)
				f->tsoffset = __builtin_bswap64(f->tsoffset);
		}
	}
	return true;
}

static bool add_iface(struct pcapng *r, struct body *b)
{
	const uint8_t *h = take(r, b, 8);
	if (!h)
		return false;
	if (r->nifs == MAX_IFACES) {
		rs_chunkbuf_fail(&r->cb, "more than %u interfaces in one section", MAX_IFACES);
		return false;
	}
	if (r->nifs == r->ifs_cap) {
		uint32_t n = r->ifs_cap ? r->ifs_cap * 2 : 4;
		struct iface *f = realloc(r->ifs, n * sizeof *f);
		if (!f) {
			rs_chunkbuf_fail(&r->cb, "out of memory for per-interface information (%u interfaces)", r->nifs + 1);
			return false;
		}
		r->ifs = f;
		r->ifs_cap = n;
	}
	uint32_t snaplen = rs_chunkbuf_get32(r->swapped, h + 4);
	struct iface f = { .dlt = dlt_of(rs_chunkbuf_get16(r->swapped, h)), .snaplen = adjust_snaplen(snaplen),
			   .limit = snaplen ? snaplen : MAX_SNAPLEN, .tsresol = 1000000 };
	if (!idb_options(r, b, &f))
		return false;
	r->ifs[r->nifs++] = f;
	return true;
}

static bool new_section(struct pcapng *r, struct body *b)
{
	const uint8_t *h = take(r, b, 16);
	if (!h)
		return false;
	uint32_t bom;
	memcpy(&bom, h, 4);
	if (bom != BOM && bom != __builtin_bswap32(BOM)) {
		rs_chunkbuf_fail(&r->cb, "the file has a section with a bad byte order magic field");
		return false;
	}
	if (rs_chunkbuf_get16(r->swapped, h + 4) != 1) {
		rs_chunkbuf_fail(&r->cb, "unknown pcapng savefile major version number %u", rs_chunkbuf_get16(r->swapped, h + 4));
		return false;
	}
	r->nifs = 0; /* interfaces are numbered per section */
	return true;
}

/* libpcap's scaling of a timestamp of `f`'s resolution to nanoseconds:
 * whole seconds plus the offset, the fraction rescaled and cut (not
 * rounded). */
static void set_time(struct pcapng *r, const struct iface *f, uint64_t t)
{
	uint64_t sec = t / f->tsresol + f->tsoffset, frac = t % f->tsresol;
	if (f->tsresol != 1000000000u)
		frac = (uint64_t)((unsigned __int128)frac * 1000000000u / f->tsresol);
	r->hdr.ts.tv_sec = (time_t)sec;
	r->hdr.ts.tv_usec = (suseconds_t)frac;
}

static int next(struct rs_reader *rr, struct pcap_pkthdr **h, const uint8_t **data)
{
	struct pcapng *r = (struct pcapng *)rr;
	if (r->cb.failed)
		return PCAP_ERROR;
	if (r->ended)
		return PCAP_ERROR_BREAK;
	for (;;) {
		struct body b = { 0 };
		uint32_t total = 0;
		int rc = read_block(r, &b, &total);
		if (rc == 0) {
			r->ended = true;
			return PCAP_ERROR_BREAK;
		}
		if (rc < 0)
			return PCAP_ERROR;
		uint32_t ifn = 0, caplen = 0, wirelen = 0;
		uint64_t t = 0;
		const uint8_t *p;
		switch (b.type) {
		case BT_EPB:
			if (!(p = take(r, &b, 20)))
				return PCAP_ERROR;
			ifn = rs_chunkbuf_get32(r->swapped, p);
			t = (uint64_t)rs_chunkbuf_get32(r->swapped, p + 4) << 32 | rs_chunkbuf_get32(r->swapped, p + 8);
			caplen = rs_chunkbuf_get32(r->swapped, p + 12);
			wirelen = rs_chunkbuf_get32(r->swapped, p + 16);
			break;
		case BT_PB:
			if (!(p = take(r, &b, 20)))
				return PCAP_ERROR;
			ifn = rs_chunkbuf_get16(r->swapped, p);
			t = (uint64_t)rs_chunkbuf_get32(r->swapped, p + 4) << 32 | rs_chunkbuf_get32(r->swapped, p + 8);
			caplen = rs_chunkbuf_get32(r->swapped, p + 12);
			wirelen = rs_chunkbuf_get32(r->swapped, p + 16);
			break;
		case BT_SPB:
			if (!(p = take(r, &b, 4)))
				return PCAP_ERROR;
			wirelen = caplen = rs_chunkbuf_get32(r->swapped, p);
			/* Cut to interface 0's snapshot length; libpcap takes the
			 * first interface's, the same in every file it reads. */
			if (r->nifs && caplen > r->ifs[0].snaplen)
				caplen = r->ifs[0].snaplen;
			break;
		case BT_IDB:
			if (!add_iface(r, &b))
				return PCAP_ERROR;
			r->cb.off += total;
			continue;
		case BT_SHB:
			if (!new_section(r, &b))
				return PCAP_ERROR;
			r->cb.off += total;
			continue;
		default:
			r->cb.off += total;
			continue;
		}
		if (ifn >= r->nifs)
			return rs_chunkbuf_fail(&r->cb, "a packet arrived on interface %u, but there's no Interface Description Block for "
				    "that interface", ifn);
		const struct iface *f = &r->ifs[ifn];
		if (caplen > f->limit)
			return rs_chunkbuf_fail(&r->cb, "invalid packet capture length %u, bigger than snaplen of %d", caplen, (int)f->limit);
		if (!(*data = take(r, &b, caplen)))
			return PCAP_ERROR;
		set_time(r, f, t);
		r->hdr.caplen = caplen;
		r->hdr.len = wirelen;
		r->r.file_caplen = caplen;
		r->r.dlt = f->dlt;
		r->cb.off += total;
		*h = &r->hdr;
		return 1;
	}
}

static const char *error(const struct rs_reader *rr)
{
	return ((const struct pcapng *)rr)->cb.err;
}

/* A stream has no offset to give, as with libpcap reading it. */
static long offset(const struct rs_reader *rr)
{
	const struct pcapng *r = (const struct pcapng *)rr;
	return r->cb.stream ? -1 : r->cb.err_off;
}

static bool buffered(const struct rs_reader *rr)
{
	const struct pcapng *r = (const struct pcapng *)rr;
	return r->cb.buf_off + r->cb.len > r->cb.off;
}

static void close_reader(struct rs_reader *rr)
{
	struct pcapng *r = (struct pcapng *)rr;
	if (r->own_fd)
		close(r->cb.fd);
	free(r->ifs);
	rs_chunkbuf_free(&r->cb);
	free(r);
}

static const struct rs_reader_ops ops = {
	.name = "pcapng",
	.next = next,
	.error = error,
	.offset = offset,
	.buffered = buffered,
	.close = close_reader,
};

struct rs_reader *rs_pcapng_open(pcap_t *p, const char *path)
{
	if (strcmp(path, "-") == 0 || !pcap_file(p))
		return NULL; /* standard input: libpcap has read into it already */
	int fd = fileno(pcap_file(p));
	struct stat st;
	uint8_t head[12];
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || pread(fd, head, sizeof head, 0) != (ssize_t)sizeof head)
		return NULL;
	uint32_t type, bom;
	memcpy(&type, head, 4);
	memcpy(&bom, head + 8, 4);
	if (type != BT_SHB || (bom != BOM && bom != __builtin_bswap32(BOM)))
		return NULL;
	struct pcapng *r = calloc(1, sizeof *r);
	if (!r || !rs_chunkbuf_init(&r->cb, fd, false, 2 * RS_PCAPFILE_CHUNK)) {
		free(r);
		return NULL;
	}
	r->r.ops = &ops;
	r->r.dlt = pcap_datalink(p);
	r->cb.size = (size_t)st.st_size;
	/* libpcap has checked the first Section Header Block (not its trailing
	 * length: neither is it checked here) and found the first interface;
	 * this reader goes on from the block after the header. */
	r->swapped = bom != BOM;
	uint32_t len;
	memcpy(&len, head + 4, 4);
	r->cb.buf_off = r->cb.off = r->swapped ? __builtin_bswap32(len) : len;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	return &r->r;
}

/* ---- streams --------------------------------------------------------------- */

/* What libpcap's pcap_ng_check_header() checks when it opens a file, in its
 * words: the Section Header Block, and the blocks up to the first
 * interface, whose link type and snapshot length the file gets. */
static bool open_checks(struct pcapng *r, char err[PCAP_ERRBUF_SIZE])
{
	size_t got;
	if (!rs_chunkbuf_have(&r->cb, 12, &got)) {
		snprintf(err, PCAP_ERRBUF_SIZE, "%s", r->cb.failed ? r->cb.err : "unknown file format");
		return false;
	}
	uint32_t bom, len;
	memcpy(&bom, r->cb.buf + 8, 4);
	if (bom != BOM && bom != __builtin_bswap32(BOM)) {
		snprintf(err, PCAP_ERRBUF_SIZE, "unknown file format");
		return false;
	}
	r->swapped = bom != BOM;
	len = rs_chunkbuf_get32(r->swapped, r->cb.buf + 4);
	if (len < 28 || len > (1u << 20)) {
		snprintf(err, PCAP_ERRBUF_SIZE,
			 "Section Header Block in pcapng dump file has invalid length %zu < _%u_ < %u (BT_SHB_INSANE_MAX)",
			 (size_t)28, len, 1u << 20);
		return false;
	}
	if (!rs_chunkbuf_have(&r->cb, len, &got)) {
		snprintf(err, PCAP_ERRBUF_SIZE, "%s", r->cb.failed ? r->cb.err : "");
		if (!r->cb.failed)
			snprintf(err, PCAP_ERRBUF_SIZE, "truncated pcapng dump file; tried to read %zu bytes, only got %zu",
				 (size_t)len - 12, got - 12);
		return false;
	}
	uint16_t major = rs_chunkbuf_get16(r->swapped, r->cb.buf + 12), minor = rs_chunkbuf_get16(r->swapped, r->cb.buf + 14);
	if (major != 1 || (minor != 0 && minor != 2)) {
		snprintf(err, PCAP_ERRBUF_SIZE, "unsupported pcapng savefile version %u.%u", major, minor);
		return false;
	}
	r->cb.off = len;
	for (;;) {
		struct body b = { 0 };
		uint32_t total = 0;
		int rc = read_block(r, &b, &total);
		if (rc == 0) {
			snprintf(err, PCAP_ERRBUF_SIZE, "the capture file has no Interface Description Blocks");
			return false;
		}
		if (rc < 0 || (b.type == BT_IDB && !add_iface(r, &b))) {
			snprintf(err, PCAP_ERRBUF_SIZE, "%s", r->cb.err);
			return false;
		}
		r->cb.off += total;
		if (b.type == BT_IDB)
			return true;
		if (b.type == BT_EPB || b.type == BT_SPB || b.type == BT_PB) {
			snprintf(err, PCAP_ERRBUF_SIZE,
				 "the capture file has a packet block before any Interface Description Blocks");
			return false;
		}
	}
}

struct rs_reader *rs_pcapng_open_stream(int fd, bool own_fd, const uint8_t *head, size_t n, int *dlt,
					uint32_t *snaplen, char err[PCAP_ERRBUF_SIZE])
{
	struct pcapng *r = calloc(1, sizeof *r);
	if (!r || !rs_chunkbuf_init(&r->cb, fd, true, 2 * RS_PCAPFILE_CHUNK)) {
		free(r);
		snprintf(err, PCAP_ERRBUF_SIZE, "out of memory");
		return NULL;
	}
	r->r.ops = &ops;
	memcpy(r->cb.buf, head, n);
	r->cb.len = n;
	if (!open_checks(r, err)) {
		free(r->ifs);
		rs_chunkbuf_free(&r->cb);
		free(r);
		return NULL;
	}
	r->own_fd = own_fd;
	r->cb.failed = false;
	*dlt = r->r.dlt = r->ifs[0].dlt;
	*snaplen = r->ifs[0].snaplen;
	return &r->r;
}

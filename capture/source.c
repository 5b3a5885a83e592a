/*
 * source.c — capture files through libpcap.
 *
 * libpcap reads pcap and pcapng (it skips pcapng block types it does not
 * know). Timestamps are requested in nanoseconds. A BPF filter is compiled
 * once and run with pcap_offline_filter() on each frame, instead of
 * pcap_setfilter(), so that frames the filter drops still count: frame N in
 * our output is frame N in Wireshark.
 *
 * libpcap opens and checks every file; a reader of capture/reader.h may then
 * take over reading its frames (pcapfile.c: classic pcap files, 256 KiB at
 * a time; pcapng.c: pcapng files, every section and link type).
 * ROCESTAT_READER=libpcap keeps libpcap reading every file.
 */
#define _GNU_SOURCE /* fopencookie */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pcap/pcap.h>

#include "capture/reader.h"
#include "capture/source.h"
#include "dissect/dissect.h"

/* A pcapng file may hold frames of several link types: the filter is
 * compiled again for each other one it meets (a few: a file with more
 * is rare, and each compile costs a millisecond). */
#define OTHER_DLTS 8

struct rs_source {
	pcap_t *pcap;
	char *name;
	bool have_filter;
	struct bpf_program prog;
	char *filter;
	struct {
		int dlt;
		struct bpf_program prog;
	} other[OTHER_DLTS];
	int nother;
	uint64_t frame_no;
	struct rs_reader *rd; /* NULL: libpcap reads the frames */
	/* Files libpcap reads (not pipes): where the next record starts, so
	 * that a read error can name the record that could not be read. In a
	 * pcap file it is counted (TRACK_COUNT: header and caplen, and ftell()
	 * after records cut to the snapshot length, to notice the bytes
	 * libpcap drops from them); in a pcapng file it is ftell() after each
	 * frame (TRACK_FTELL: the end of its block). A reader gives both
	 * itself. */
	enum { TRACK_NONE, TRACK_COUNT, TRACK_FTELL } track;
	long pos;
	long rec_hdr; /* TRACK_COUNT: the size of a record header */
	int stream_fd; /* a pipe, terminal or socket libpcap reads; else -1 */
};

/* The record header size of the pcap file libpcap has just opened (24 in
 * Kuznetzov's modified format, 16 in the others: libpcap's sf-pcap.c), from
 * its magic; 0 if it is not a pcap file. pread() leaves the stream's
 * position alone. */
static long pcap_record_header(FILE *f)
{
	uint8_t m[4];
	if (pread(fileno(f), m, sizeof m, 0) != (ssize_t)sizeof m)
		return 0;
	uint32_t le = (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24;
	uint32_t be = __builtin_bswap32(le);
	if (le == 0xa1b2cd34u || be == 0xa1b2cd34u)
		return 24;
	if (le == 0xa1b2c3d4u || be == 0xa1b2c3d4u || le == 0xa1b23c4du || be == 0xa1b23c4du)
		return 16;
	return 0;
}

/* A file libpcap does not know may be a compressed capture: name the
 * compression and the command that feeds it to rocestat, instead of
 * libpcap's "unknown file format". NULL if it is none of them (or cannot
 * be read again: a pipe's first bytes are gone, a FIFO's writer too). */
static const char *compressor_of(const char *path)
{
	static const struct {
		uint8_t magic[6];
		size_t len;
		const char *tool;
	} kinds[] = {
		{ { 0x1f, 0x8b }, 2, "gzip" },
		{ { 0x28, 0xb5, 0x2f, 0xfd }, 4, "zstd" },
		{ { 0xfd, '7', 'z', 'X', 'Z', 0x00 }, 6, "xz" },
		{ { 'B', 'Z', 'h' }, 3, "bzip2" },
		{ { 0x04, 0x22, 0x4d, 0x18 }, 4, "lz4" },
	};
	uint8_t head[6];
	struct stat st;
	/* Only a regular file: a FIFO opened again would wait for a writer
	 * that has gone. */
	FILE *f = stat(path, &st) != 0 || !S_ISREG(st.st_mode) ? NULL : fopen(path, "rb");
	if (!f)
		return NULL;
	size_t got = fread(head, 1, sizeof head, f);
	fclose(f);
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (got >= kinds[i].len && memcmp(head, kinds[i].magic, kinds[i].len) == 0)
			return kinds[i].tool;
	return NULL;
}

/* What a file libpcap refused is, when it is not a capture at all: an
 * empty file, or one whose first bytes are no pcap or pcapng magic number
 * (nor the start of one, for a file shorter than four bytes). libpcap says
 * "truncated dump file; tried to read 4 file header bytes" or "unknown file
 * format" for both, which names neither. False for anything else (a
 * capture cut short in its header, a pipe): libpcap's message stands. */
static bool not_a_capture(const char *path, char errbuf[RS_ERRBUF_SIZE])
{
	static const uint8_t magics[][4] = {
		{ 0xa1, 0xb2, 0xc3, 0xd4 }, { 0xd4, 0xc3, 0xb2, 0xa1 }, /* pcap, microseconds */
		{ 0xa1, 0xb2, 0x3c, 0x4d }, { 0x4d, 0x3c, 0xb2, 0xa1 }, /* pcap, nanoseconds */
		{ 0xa1, 0xb2, 0xcd, 0x34 }, { 0x34, 0xcd, 0xb2, 0xa1 }, /* Kuznetzov's modified pcap */
		{ 0x0a, 0x0d, 0x0d, 0x0a },                             /* pcapng Section Header Block */
	};
	struct stat st;
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	if (st.st_size == 0) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: empty file (0 bytes): not a capture", path);
		return true;
	}
	uint8_t head[4];
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	size_t got = fread(head, 1, sizeof head, f);
	fclose(f);
	for (size_t i = 0; i < sizeof magics / sizeof magics[0]; i++)
		if (got > 0 && memcmp(head, magics[i], got) == 0)
			return false;
	char hex[2 * sizeof head + 1];
	for (size_t i = 0; i < got; i++)
		snprintf(hex + 2 * i, 3, "%02x", head[i]);
	snprintf(errbuf, RS_ERRBUF_SIZE,
		 "%s: not a pcap or pcapng file (first bytes 0x%s; a pcap file starts a1b2c3d4 or d4c3b2a1, "
		 "a pcapng file 0a0d0d0a)",
		 path, got ? hex : "");
	return true;
}

/* `path` in single quotes for a shell (an embedded ' as '\''), cut to fit. */
static void shell_quote(char *out, size_t len, const char *path)
{
	size_t n = 0;
	out[n++] = '\'';
	for (const char *c = path; *c && n + 6 < len; c++) {
		if (*c == '\'') {
			memcpy(out + n, "'\\''", 4);
			n += 4;
		} else {
			out[n++] = *c;
		}
	}
	out[n++] = '\'';
	out[n] = '\0';
}

/* ---- streams ----------------------------------------------------------------
 * A pipe or standard input can be read only once, so its first bytes are
 * read here to tell pcapng (read by capture/pcapng.c, every section and
 * interface) from the rest (libpcap, through a stream that gives it the
 * bytes read here first). */

struct replay {
	int fd;
	bool own;
	uint8_t head[4];
	size_t n, at;
};

static ssize_t replay_read(void *c, char *buf, size_t len)
{
	struct replay *r = c;
	if (r->at < r->n) {
		size_t k = r->n - r->at < len ? r->n - r->at : len;
		memcpy(buf, r->head + r->at, k);
		r->at += k;
		return (ssize_t)k;
	}
	/* EINTR is not retried: SIGINT while the pipe has nothing to read
	 * must end the read, as it does when libpcap reads the pipe itself. */
	return read(r->fd, buf, len);
}

static int replay_close(void *c)
{
	struct replay *r = c;
	int rc = r->own ? close(r->fd) : 0;
	free(r);
	return rc;
}

/* Is `path` a stream ("-", a FIFO, a character device), and then its
 * handle: libpcap's on a replaying stream, or a dead one (link type and
 * snapshot length, for filters) beside a pcapng reader in *rd. NULL with
 * pcap_err empty: not a stream (or it could not be opened here: libpcap
 * says why); NULL with pcap_err set: the open failed. */
static pcap_t *open_stream(const char *path, struct rs_reader **rd, int *stream_fd, char pcap_err[PCAP_ERRBUF_SIZE])
{
	struct stat st;
	bool dash = strcmp(path, "-") == 0;
	if (!dash && (stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
		return NULL;
	int fd = dash ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct replay *r = calloc(1, sizeof *r);
	if (!r) {
		snprintf(pcap_err, PCAP_ERRBUF_SIZE, "out of memory");
		goto fail;
	}
	r->fd = fd;
	r->own = !dash;
	while (r->n < sizeof r->head) {
		ssize_t got = read(fd, r->head + r->n, sizeof r->head - r->n);
		if (got < 0) { /* EINTR too: a signal ends the wait, as in libpcap's read */
			snprintf(pcap_err, PCAP_ERRBUF_SIZE, "error reading dump file: %s", strerror(errno));
			goto fail;
		}
		if (got == 0)
			break;
		r->n += (size_t)got;
	}
	if (r->n == 4 && memcmp(r->head, "\x0a\x0d\x0d\x0a", 4) == 0) {
		int dlt;
		uint32_t snaplen;
		*rd = rs_pcapng_open_stream(fd, !dash, r->head, r->n, &dlt, &snaplen, pcap_err);
		if (!*rd)
			goto fail;
		free(r);
		pcap_t *p = pcap_open_dead_with_tstamp_precision(dlt, (int)snaplen, PCAP_TSTAMP_PRECISION_NANO);
		if (!p) {
			(*rd)->ops->close(*rd);
			*rd = NULL;
			snprintf(pcap_err, PCAP_ERRBUF_SIZE, "out of memory");
			return NULL;
		}
		*stream_fd = fd;
		return p;
	}
	FILE *f = fopencookie(r, "rb", (cookie_io_functions_t){ .read = replay_read, .close = replay_close });
	if (!f) {
		snprintf(pcap_err, PCAP_ERRBUF_SIZE, "out of memory");
		goto fail;
	}
	pcap_t *p = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, pcap_err);
	if (!p) {
		fclose(f);
		if (!pcap_err[0])
			snprintf(pcap_err, PCAP_ERRBUF_SIZE, "unknown file format");
		return NULL;
	}
	*stream_fd = fd;
	return p;
fail:
	if (!dash)
		close(fd);
	free(r);
	if (!pcap_err[0])
		snprintf(pcap_err, PCAP_ERRBUF_SIZE, "unknown file format");
	return NULL;
}

struct rs_source *rs_source_open_file(const char *path, const char *filter, char errbuf[RS_ERRBUF_SIZE],
				      bool *bad_filter)
{
	if (bad_filter)
		*bad_filter = false;
	char pcap_err[PCAP_ERRBUF_SIZE] = "";
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* libpcap opens it and fails on the read with a stale errno. */
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: is a directory, not a capture file", path);
		return NULL;
	}
	struct rs_reader *stream_rd = NULL;
	int stream_fd = -1;
	const char *reader = getenv("ROCESTAT_READER");
	bool own = !reader || strcmp(reader, "libpcap") != 0;
	pcap_t *p = own ? open_stream(path, &stream_rd, &stream_fd, pcap_err) : NULL;
	if (!p && !pcap_err[0])
		p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, pcap_err);
	if (!p) {
		const char *tool = strcmp(pcap_err, "unknown file format") == 0 ? compressor_of(path) : NULL;
		/* libpcap already names the file for open() errors; keep it one line. */
		if (tool) {
			char quoted[RS_ERRBUF_SIZE / 2];
			shell_quote(quoted, sizeof quoted, path);
			snprintf(errbuf, RS_ERRBUF_SIZE,
				 "%s: %s-compressed; rocestat reads pcap and pcapng: %s -dc %s | rocestat -r -", path, tool,
				 tool, quoted);
		} else if (not_a_capture(path, errbuf)) {
			; /* said */
		} else if (strstr(pcap_err, path))
			snprintf(errbuf, RS_ERRBUF_SIZE, "%s", pcap_err);
		else
			snprintf(errbuf, RS_ERRBUF_SIZE, "%s: %s", path, pcap_err);
		return NULL;
	}
	int dlt = pcap_datalink(p);
	if (!rs_linktype_supported(dlt)) {
		const char *n = pcap_datalink_val_to_name(dlt);
		snprintf(errbuf, RS_ERRBUF_SIZE,
			 "%s: link type %d (%s) is not one rocestat decodes (Ethernet, Linux cooked SLL/SLL2, raw IP, "
			 "InfiniBand, ERF)",
			 path, dlt, n ? n : "unknown to libpcap");
		pcap_close(p);
		return NULL;
	}
	struct rs_source *s = calloc(1, sizeof *s);
	if (!s || !(s->name = strdup(path))) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: out of memory", path);
		free(s);
		pcap_close(p);
		return NULL;
	}
	s->pcap = p;
	struct stat in;
	s->stream_fd = stream_fd >= 0 ? stream_fd
		       : !pcap_file(p) || fstat(fileno(pcap_file(p)), &in) != 0 || S_ISREG(in.st_mode)
			       ? -1 : fileno(pcap_file(p));
	s->rd = stream_rd;
	if (own && !s->rd && stream_fd < 0)
		if (!(s->rd = rs_pcapfile_open(p, path)))
			s->rd = rs_pcapng_open(p, path);
	/* After the open, a pcap file is positioned just past its 24-byte
	 * header; a pcapng file past its first blocks (at least 28 + 20); a
	 * pipe has no position. */
	long at = !s->rd && pcap_file(p) ? ftell(pcap_file(p)) : -1;
	if (at == 24 && (s->rec_hdr = pcap_record_header(pcap_file(p))) != 0)
		s->track = TRACK_COUNT;
	else if (at > 0)
		s->track = TRACK_FTELL;
	s->pos = at;
	if (filter && *filter) {
		if (pcap_compile(p, &s->prog, filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
			snprintf(errbuf, RS_ERRBUF_SIZE, "%s: bad filter \"%s\": %s", path, filter, pcap_geterr(p));
			if (bad_filter)
				*bad_filter = true;
			rs_source_close(s);
			return NULL;
		}
		s->have_filter = true;
		if (!(s->filter = strdup(filter))) {
			snprintf(errbuf, RS_ERRBUF_SIZE, "%s: out of memory", path);
			rs_source_close(s);
			return NULL;
		}
	}
	return s;
}

/* Does libpcap's stream hold bytes read from the input and not yet used?
 * Then the next frame, or its start, is there already, and asking the
 * kernel (a system call a frame, which cost as much as the rest of the
 * reading from a fast pipe) is not needed. glibc's FILE shows its read
 * buffer in public fields; elsewhere the kernel is always asked. */
static bool stream_buffered(FILE *f)
{
#ifdef __GLIBC__
	return f->_IO_read_ptr < f->_IO_read_end;
#else
	(void)f;
	return false;
#endif
}

bool rs_source_waiting(const struct rs_source *s)
{
	if (s->stream_fd < 0)
		return false;
	if (s->rd ? s->rd->ops->buffered && s->rd->ops->buffered(s->rd) : stream_buffered(pcap_file(s->pcap)))
		return false;
	struct pollfd pfd = { .fd = s->stream_fd, .events = POLLIN };
	return poll(&pfd, 1, 0) == 0;
}

/* The filter compiled for a link type other than the file's first (a
 * pcapng interface of another type); NULL with errbuf set if it cannot be:
 * the filter asks for what that link type does not have (ether host on
 * raw IP), or too many link types. */
static const struct bpf_program *other_prog(struct rs_source *s, int dlt, char errbuf[RS_ERRBUF_SIZE])
{
	for (int i = 0; i < s->nother; i++)
		if (s->other[i].dlt == dlt)
			return &s->other[i].prog;
	const char *n = pcap_datalink_val_to_name(dlt);
	if (s->nother == OTHER_DLTS) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: frame %llu: link type %d (%s): the filter is applied to at most %d "
			 "link types in one file", s->name, (unsigned long long)s->frame_no, dlt, n ? n : "?",
			 OTHER_DLTS + 1);
		return NULL;
	}
	pcap_t *dead = pcap_open_dead(dlt, pcap_snapshot(s->pcap));
	if (!dead || pcap_compile(dead, &s->other[s->nother].prog, s->filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		snprintf(errbuf, RS_ERRBUF_SIZE, "%s: frame %llu: the filter \"%s\" cannot be applied to its link type "
			 "%d (%s): %s", s->name, (unsigned long long)s->frame_no, s->filter, dlt, n ? n : "?",
			 dead ? pcap_geterr(dead) : "out of memory");
		if (dead)
			pcap_close(dead);
		return NULL;
	}
	pcap_close(dead);
	s->other[s->nother].dlt = dlt;
	return &s->other[s->nother++].prog;
}

enum rs_next rs_source_next(struct rs_source *s, struct rs_packet *pkt, char errbuf[RS_ERRBUF_SIZE])
{
	for (;;) {
		struct pcap_pkthdr *h;
		const u_char *data;
		int rc = s->rd ? s->rd->ops->next(s->rd, &h, &data) : pcap_next_ex(s->pcap, &h, &data);
		if (rc == PCAP_ERROR_BREAK)
			return RS_NEXT_END;
		if (rc != 1) {
			long at = s->rd ? s->rd->ops->offset(s->rd) : s->track != TRACK_NONE ? s->pos : -1;
			const char *why = s->rd ? s->rd->ops->error(s->rd) : pcap_geterr(s->pcap);
			if (at < 0) /* a pipe: no offset to give */
				snprintf(errbuf, RS_ERRBUF_SIZE, "%s: frame %llu: %s", s->name,
					 (unsigned long long)s->frame_no + 1, why);
			else
				snprintf(errbuf, RS_ERRBUF_SIZE, "%s: frame %llu (file offset %ld): %s", s->name,
					 (unsigned long long)s->frame_no + 1, at, why);
			return RS_NEXT_ERROR;
		}
		s->frame_no++;
		pkt->file_caplen = s->rd ? s->rd->file_caplen : h->caplen;
		if (s->track == TRACK_COUNT) {
			s->pos += s->rec_hdr + (long)h->caplen;
			/* Only a record cut to the snapshot length can have lost bytes. */
			if (h->caplen == (bpf_u_int32)pcap_snapshot(s->pcap)) {
				long at = ftell(pcap_file(s->pcap));
				if (at > s->pos && at - s->pos <= (long)UINT32_MAX - (long)h->caplen)
					pkt->file_caplen = h->caplen + (uint32_t)(at - s->pos);
				if (at >= 0)
					s->pos = at;
			}
		} else if (s->track == TRACK_FTELL) {
			long at = ftell(pcap_file(s->pcap));
			if (at >= 0)
				s->pos = at;
		}
		int dlt = s->rd ? s->rd->dlt : pcap_datalink(s->pcap);
		if (s->have_filter) {
			const struct bpf_program *prog = dlt == pcap_datalink(s->pcap) ? &s->prog : other_prog(s, dlt, errbuf);
			if (!prog)
				return RS_NEXT_ERROR;
			if (!pcap_offline_filter(prog, h, data))
				continue;
		}
		pkt->dlt = dlt;
		pkt->data = data;
		pkt->caplen = h->caplen;
		pkt->wirelen = h->len;
		/* With nanosecond precision libpcap puts nanoseconds in tv_usec.
		 * A negative second is libpcap 1.10 reading a classic pcap
		 * file's unsigned 32-bit seconds as signed (a pcapng file's are
		 * 64-bit and unsigned): 2^31 s and later, 2038-01-19 03:14:08 on. */
		int64_t sec = (int64_t)h->ts.tv_sec;
		if (sec < 0)
			sec += (int64_t)1 << 32;
		pkt->ts_ns = (uint64_t)sec * 1000000000u + (uint64_t)h->ts.tv_usec;
		pkt->frame_no = s->frame_no;
		return RS_NEXT_FRAME;
	}
}

int rs_source_datalink(const struct rs_source *s)
{
	return pcap_datalink(s->pcap);
}

const char *rs_source_name(const struct rs_source *s)
{
	return s->name;
}

int rs_source_snaplen(const struct rs_source *s)
{
	return pcap_snapshot(s->pcap);
}

const char *rs_source_reader(const struct rs_source *s)
{
	return s->rd ? s->rd->ops->name : "libpcap";
}

struct pcap *rs_source_pcap(struct rs_source *s)
{
	return s->pcap;
}

void rs_source_close(struct rs_source *s)
{
	if (!s)
		return;
	if (s->have_filter)
		pcap_freecode(&s->prog);
	for (int i = 0; i < s->nother; i++)
		pcap_freecode(&s->other[i].prog);
	free(s->filter);
	if (s->rd)
		s->rd->ops->close(s->rd);
	pcap_close(s->pcap);
	free(s->name);
	free(s);
}

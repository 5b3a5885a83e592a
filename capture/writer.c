/*
 * writer.c — pcap / pcapng output with rotation and temp-then-rename.
 *
 * The records are built by hand rather than with pcap_dump(): libpcap 1.10
 * cannot write pcapng at all, and pcap_dump() goes through stdio and reports
 * no error, so a full disk would go unnoticed and leave a torn last record.
 * Here every write(2) is checked, the buffer only ever holds whole records,
 * and after a failure the file is cut back to the last record that reached
 * it (durable_bytes) before it is renamed into place.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <pcap/pcap.h>

#include "capture/destfile.h"
#include "capture/writer.h"

#define BUF_SIZE (1u << 20) /* larger than any record (snaplen <= 262144) */
#define PCAP_MAGIC_NS 0xa1b23c4du
#define PCAPNG_SHB 0x0A0D0D0Au
#define PCAPNG_IDB 1u
#define PCAPNG_EPB 6u
#define PCAPNG_BOM 0x1A2B3C4Du
#define LINKTYPE_RAW 101

struct rs_writer {
	struct rs_writer_config cfg; /* strings point into the copies below */
	char *path, *if_name;
	bool pcapng, in_place;
	uint32_t linktype;          /* pcap: the file's; pcapng: the first interface's */
	/* pcapng: the interfaces of the open file, and the one the next frames
	 * go to (rs_writer_interface, or a frame of another link type). */
	struct wif {
		int dlt;
		char *name;
	} *ifs;
	uint32_t nifs, ifs_cap, iface;
	mode_t mode;

	int fd;                     /* the open file (always one unless failed or closed) */
	char tmp[PATH_MAX];         /* its temporary name */
	char name[PATH_MAX];        /* its final name, once known; else the last one */
	uint8_t *buf;
	size_t buflen;
	uint64_t file_bytes;        /* size of the open file, buffer included */
	uint64_t durable_bytes;     /* bytes that write(2) took */
	uint64_t file_frames, buffered_frames, durable_frames;
	bool have_period;
	uint64_t period_start_ns;   /* -G: time of the open file's first frame */

	uint64_t frames;
	uint32_t files_done;
	uint32_t seq;               /* files completed under the current base name */
	char last_base[PATH_MAX];
	char **kept;                /* -W: final names of the newest files, a ring */
	uint32_t nkept, kept_head;

	bool failed;
	char err[RS_ERRBUF_SIZE];
};

bool rs_writer_is_pcapng(const char *path)
{
	size_t n = strlen(path);
	return n >= 7 && strcmp(path + n - 7, ".pcapng") == 0;
}

/* pcap files carry LINKTYPE_ values, which equal DLT_ values except for the
 * few DLTs whose numbers differ between platforms; of those rocestat can
 * meet only DLT_RAW. */
static uint32_t linktype_of(int dlt)
{
	return dlt == DLT_RAW ? LINKTYPE_RAW : (uint32_t)dlt;
}

static uint32_t pad4(uint32_t n)
{
	return (n + 3u) & ~3u;
}

static void put32(uint8_t **p, uint32_t v)
{
	memcpy(*p, &v, 4);
	*p += 4;
}

static void put16(uint8_t **p, uint16_t v)
{
	memcpy(*p, &v, 2);
	*p += 2;
}

static void put_bytes(uint8_t **p, const void *v, uint32_t len)
{
	if (len)
		memcpy(*p, v, len);
	memset(*p + len, 0, pad4(len) - len);
	*p += pad4(len);
}

static void put_opt(uint8_t **p, uint16_t code, const void *v, uint16_t len)
{
	put16(p, code);
	put16(p, len);
	put_bytes(p, v, len);
}

/* ---- names -------------------------------------------------------------- */

/* -w FILE, through strftime with -G (local time at the start of the open
 * file's period, or now before its first frame). */
static void base_name(const struct rs_writer *w, char base[PATH_MAX])
{
	const struct rs_writer_config *c = &w->cfg;
	snprintf(base, PATH_MAX, "%s", c->path);
	if (c->rotate_seconds) {
		time_t t = w->have_period ? (time_t)(w->period_start_ns / 1000000000u) : time(NULL);
		struct tm tm;
		if (localtime_r(&t, &tm) && strftime(base, PATH_MAX, c->path, &tm) == 0)
			snprintf(base, PATH_MAX, "%s", c->path);
	}
}

/* The final name the open file gets: its base name, then tcpdump's counter:
 * FILE, FILE1, FILE2 ... or, with -C and -W, FILE0 ... FILE(N-1)
 * zero-padded and reused as a ring. The counter restarts when -G changes
 * the base name. */
static void final_name(const struct rs_writer *w, char out[PATH_MAX], char base[PATH_MAX], uint32_t *seq_out)
{
	const struct rs_writer_config *c = &w->cfg;
	base_name(w, base);
	uint32_t seq = strcmp(base, w->last_base) == 0 ? w->seq : 0;
	*seq_out = seq;
	if (!c->rotate_bytes && !c->rotate_seconds) {
		snprintf(out, PATH_MAX, "%s", base);
	} else if (c->max_files > 1 && !c->rotate_seconds) {
		/* tcpdump's width: the digits of N-1 (-W 10: FILE0 ... FILE9). */
		int width = snprintf(NULL, 0, "%u", c->max_files - 1);
		snprintf(out, PATH_MAX, "%s%0*u", base, width, seq % c->max_files);
	} else if (c->max_files == 1 && !c->rotate_seconds) {
		snprintf(out, PATH_MAX, "%s", base); /* -W 1: one file, rewritten */
	} else if (seq == 0) {
		snprintf(out, PATH_MAX, "%s", base);
	} else {
		snprintf(out, PATH_MAX, "%s%u", base, seq);
	}
}

/* The name to quote in a message about the open file. */
static const char *shown_name(struct rs_writer *w)
{
	char base[PATH_MAX];
	uint32_t seq;
	if (!w->in_place)
		final_name(w, w->name, base, &seq);
	return w->name;
}

static bool fail(struct rs_writer *w, char errbuf[RS_ERRBUF_SIZE], const char *what, int e)
{
	if (!w->failed) {
		/* Frames of earlier files plus those of this one that reached it. */
		unsigned long long kept = (unsigned long long)(w->frames - w->file_frames + w->durable_frames);
		if (kept)
			rs_errf(w->err, sizeof w->err, "%s: %s: %s (the %llu frames written before it are kept)", shown_name(w), what,
			    strerror(e), kept);
		else
			rs_errf(w->err, sizeof w->err, "%s: %s: %s", shown_name(w), what, strerror(e));
		w->failed = true;
	}
	rs_errf(errbuf, RS_ERRBUF_SIZE, "%s", w->err);
	return false;
}

/* ---- buffered output of whole records ----------------------------------- */

/* The records that lie wholly within the first `upto` bytes of the buffer
 * (which holds nothing but whole records): how many bytes, how many frames. */
static size_t whole_records(const struct rs_writer *w, size_t upto, uint64_t *nframes)
{
	size_t pos = 0;
	*nframes = 0;
	for (;;) {
		uint32_t len;
		if (pos + 16 > w->buflen)
			break;
		bool is_frame = true;
		if (w->pcapng) {
			uint32_t type;
			memcpy(&type, w->buf + pos, 4);
			memcpy(&len, w->buf + pos + 4, 4); /* block total length */
			is_frame = type == PCAPNG_EPB; /* not an IDB of rs_writer_interface */
		} else {
			memcpy(&len, w->buf + pos + 8, 4); /* incl_len */
			len += 16;
		}
		if (pos + len > upto)
			break;
		pos += len;
		*nframes += is_frame;
	}
	return pos;
}

static bool flush_buf(struct rs_writer *w, char errbuf[RS_ERRBUF_SIZE])
{
	size_t off = 0;
	while (off < w->buflen) {
		ssize_t n = write(w->fd, w->buf + off, w->buflen - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : ENOSPC;
			/* Part of the buffer reached the file: keep its whole records
			 * (once the file header is in; before, there are none). */
			if (w->durable_bytes > 0) {
				uint64_t nf;
				w->durable_bytes += whole_records(w, off, &nf);
				w->durable_frames += nf;
			}
			return fail(w, errbuf, "write failed", e);
		}
		off += (size_t)n;
	}
	w->durable_bytes += w->buflen;
	w->durable_frames += w->buffered_frames;
	w->buflen = 0;
	w->buffered_frames = 0;
	return true;
}

/* Room for a record of `len` bytes at the end of the buffer. */
static uint8_t *reserve(struct rs_writer *w, size_t len, char errbuf[RS_ERRBUF_SIZE])
{
	if (w->buflen + len > BUF_SIZE && !flush_buf(w, errbuf))
		return NULL;
	return w->buf + w->buflen;
}

/* An Interface Description Block: nanosecond timestamps (if_tsresol 9). */
static void put_idb(uint8_t **pp, uint32_t linktype, uint32_t snaplen, const char *if_name)
{
	uint8_t *p = *pp, *idb = p, *len_at;
	put32(&p, PCAPNG_IDB);
	len_at = p;
	put32(&p, 0);
	put16(&p, (uint16_t)linktype);
	put16(&p, 0);
	put32(&p, snaplen);
	if (if_name && strlen(if_name) < 256)
		put_opt(&p, 2, if_name, (uint16_t)strlen(if_name)); /* if_name */
	uint8_t tsresol = 9; /* timestamps in nanoseconds */
	put_opt(&p, 9, &tsresol, 1);
	put_opt(&p, 0, NULL, 0);
	uint32_t idb_len = (uint32_t)(p - idb) + 4;
	memcpy(len_at, &idb_len, 4);
	put32(&p, idb_len);
	*pp = p;
}

/* pcapng: one more interface in the open file, the current one from now. */
static bool add_iface(struct rs_writer *w, int dlt, const char *name, char errbuf[RS_ERRBUF_SIZE])
{
	if (w->nifs == w->ifs_cap) {
		uint32_t n = w->ifs_cap * 2;
		struct wif *f = realloc(w->ifs, n * sizeof *f);
		if (!f) {
			rs_errf(errbuf, RS_ERRBUF_SIZE, "%s: out of memory", shown_name(w));
			return false;
		}
		w->ifs = f;
		w->ifs_cap = n;
	}
	char *copy = name ? strdup(name) : NULL;
	uint8_t *start = reserve(w, 512, errbuf), *p = start;
	if ((name && !copy) || !p) {
		free(copy);
		if (p)
			rs_errf(errbuf, RS_ERRBUF_SIZE, "%s: out of memory", shown_name(w));
		return false;
	}
	put_idb(&p, linktype_of(dlt), w->cfg.snaplen, copy && strlen(copy) < 256 ? copy : NULL);
	w->buflen += (size_t)(p - start);
	w->file_bytes += (size_t)(p - start);
	w->ifs[w->nifs] = (struct wif){ dlt, copy };
	w->iface = w->nifs++;
	return true;
}

/* The frame's link type is not the current interface's (a pcapng input
 * whose interfaces differ): in pcapng the interface of that type under the
 * same name, described now if it is new; a pcap file has one link type. */
static bool switch_iface(struct rs_writer *w, const struct rs_packet *pkt, char errbuf[RS_ERRBUF_SIZE])
{
	if (!w->pcapng) {
		if (!flush_buf(w, errbuf))
			return false;
		const char *a = pcap_datalink_val_to_name(pkt->dlt), *b = pcap_datalink_val_to_name(w->ifs[0].dlt);
		rs_errf(w->err, sizeof w->err, "%s: frame %llu: its link type %d (%s) differs from the file's %d (%s): a "
			"pcap file holds one; write a .pcapng file", shown_name(w), (unsigned long long)pkt->frame_no,
			pkt->dlt, a ? a : "?", w->ifs[0].dlt, b ? b : "?");
		w->failed = true;
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s", w->err);
		return false;
	}
	const char *name = w->ifs[w->iface].name;
	for (uint32_t i = 0; i < w->nifs; i++)
		if (w->ifs[i].dlt == pkt->dlt && (name ? w->ifs[i].name && strcmp(name, w->ifs[i].name) == 0 : !w->ifs[i].name)) {
			w->iface = i;
			return true;
		}
	return add_iface(w, pkt->dlt, name, errbuf);
}

static bool write_header(struct rs_writer *w, char errbuf[RS_ERRBUF_SIZE])
{
	uint8_t *start = reserve(w, 512, errbuf), *p = start;
	if (!p)
		return false;
	if (!w->pcapng) {
		put32(&p, PCAP_MAGIC_NS);
		put16(&p, 2);
		put16(&p, 4);
		put32(&p, 0); /* thiszone */
		put32(&p, 0); /* sigfigs */
		put32(&p, w->cfg.snaplen);
		put32(&p, w->linktype);
	} else {
		static const char app[] = "rocestat " ROCESTAT_VERSION;
		uint8_t *len_at;
		/* Section Header Block */
		put32(&p, PCAPNG_SHB);
		len_at = p;
		put32(&p, 0);
		put32(&p, PCAPNG_BOM);
		put16(&p, 1);
		put16(&p, 0);
		put32(&p, 0xFFFFFFFFu); /* section length: unknown (-1) */
		put32(&p, 0xFFFFFFFFu);
		put_opt(&p, 4, app, sizeof app - 1); /* shb_userappl */
		put_opt(&p, 0, NULL, 0);
		uint32_t shb_len = (uint32_t)(p - len_at) + 8;
		memcpy(len_at, &shb_len, 4);
		put32(&p, shb_len);
		/* A new file (rotation) describes the interface in use as 0. */
		struct wif cur = w->ifs[w->iface];
		for (uint32_t i = 0; i < w->nifs; i++)
			if (i != w->iface)
				free(w->ifs[i].name);
		w->ifs[0] = cur;
		w->nifs = 1;
		w->iface = 0;
		put_idb(&p, linktype_of(cur.dlt), w->cfg.snaplen, cur.name);
	}
	size_t n = (size_t)(p - start);
	w->buflen += n;
	w->file_bytes += n;
	/* Write the header at once: an unwritable output shows at open time. */
	return flush_buf(w, errbuf);
}

/* ---- files -------------------------------------------------------------- */

static bool open_file(struct rs_writer *w, char errbuf[RS_ERRBUF_SIZE])
{
	char final[PATH_MAX], dir[PATH_MAX], base_buf[PATH_MAX];
	uint32_t seq;
	final_name(w, final, base_buf, &seq);
	snprintf(w->name, sizeof w->name, "%s", final);
	const char *slash = strrchr(final, '/');
	if (slash)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - final == 0 ? 1 : slash - final), final);
	else
		snprintf(dir, sizeof dir, ".");
	const char *base = slash ? slash + 1 : final;
	/* A file this user may not write is refused now, as tcpdump refuses it
	 * (with -G the name is known only at the first frame: then at the end). */
	struct rs_dest d;
	if (!w->cfg.rotate_seconds) {
		if (!rs_dest_prepare(&d, final, errbuf))
			return false;
		rs_dest_free(&d);
	}
	if (snprintf(w->tmp, sizeof w->tmp, "%s/.%s.XXXXXX", dir, base) >= (int)sizeof w->tmp) {
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s: the file name is too long", final);
		return false;
	}
	w->fd = mkstemp(w->tmp);
	w->in_place = false;
	struct stat st;
	if (w->fd < 0 && (errno == EACCES || errno == EPERM || errno == EROFS) && stat(final, &st) == 0 &&
	    S_ISREG(st.st_mode)) {
		/* The directory takes no new file, but the file may be written
		 * (rs_dest_prepare said so): written in place, as tcpdump writes
		 * it. A copy through a private temporary file would need the
		 * capture's size twice. */
		w->fd = open(final, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (w->fd >= 0) {
			w->in_place = true;
			w->file_bytes = w->durable_bytes = 0;
			w->file_frames = w->buffered_frames = w->durable_frames = 0;
			w->have_period = false;
			return write_header(w, errbuf);
		}
	}
	if (w->fd < 0) {
		int e = errno;
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s: cannot create a file in %s: %s", final, dir, strerror(e));
		return false;
	}
	/* mkstemp makes 0600; give the file the mode open(2) would have. */
	(void)fchmod(w->fd, w->mode);
	w->file_bytes = w->durable_bytes = 0;
	w->file_frames = w->buffered_frames = w->durable_frames = 0;
	w->have_period = false;
	return write_header(w, errbuf);
}

/* -W: remember the file just completed; forget (delete) the oldest beyond N. */
static void keep(struct rs_writer *w, const char *name)
{
	uint32_t cap = w->cfg.max_files;
	if (!cap || !w->kept)
		return;
	char *copy = strdup(name);
	if (w->nkept < cap) {
		w->kept[(w->kept_head + w->nkept++) % cap] = copy;
		return;
	}
	char *oldest = w->kept[w->kept_head];
	if (strcmp(oldest, name) != 0) /* a ring name is replaced by the rename itself */
		(void)unlink(oldest);
	free(oldest);
	w->kept[w->kept_head] = copy;
	w->kept_head = (w->kept_head + 1) % cap;
}

/* Complete the open file: flush, cut back after a failure, close, rename.
 * A file that got no frame is dropped unless it is the only one. */
static bool finish_file(struct rs_writer *w, char errbuf[RS_ERRBUF_SIZE])
{
	bool ok = !w->failed && flush_buf(w, errbuf);
	if (w->in_place) {
		if (!ok && ftruncate(w->fd, (off_t)w->durable_bytes) != 0) {
			/* a regular file keeps its whole frames; elsewhere this fails, harmlessly */
		}
		if (w->fd != STDOUT_FILENO && close(w->fd) != 0 && ok)
			ok = fail(w, errbuf, "close failed", errno);
		w->fd = -1;
		w->files_done++;
		return ok;
	}
	if (!ok && ftruncate(w->fd, (off_t)w->durable_bytes) != 0) {
		/* the error said is the write's */
	}
	bool empty = w->file_frames == 0 && w->files_done > 0;
	if (w->durable_bytes == 0 || empty) {
		if (close(w->fd) != 0 && ok)
			ok = fail(w, errbuf, "close failed", errno);
		w->fd = -1;
		(void)unlink(w->tmp); /* nothing readable, or a trailing empty period */
		return ok;
	}
	uint32_t seq;
	char base[PATH_MAX];
	final_name(w, w->name, base, &seq);
	/* The file it replaces: refused if this user could not write it, its
	 * mode and owner kept (else written in place), a link followed
	 * (capture/destfile.c). */
	struct rs_dest d;
	char derr[RS_ERRBUF_SIZE];
	bool dest_ok = rs_dest_prepare(&d, w->name, derr) && rs_dest_adopt(&d, w->fd, w->mode);
	if (dest_ok && d.in_place)
		dest_ok = rs_dest_copy_in(&d, w->fd, derr);
	if (close(w->fd) != 0 && ok)
		ok = fail(w, errbuf, "close failed", errno);
	w->fd = -1;
	if (!dest_ok || d.in_place) {
		(void)unlink(w->tmp);
		if (!dest_ok) {
			rs_errf(w->err, sizeof w->err, "%s", derr);
			w->failed = true;
			rs_errf(errbuf, RS_ERRBUF_SIZE, "%s", w->err);
		}
		rs_dest_free(&d);
		if (!dest_ok)
			return false;
	} else if (rename(w->tmp, d.path) != 0) {
		int e = errno;
		rs_dest_free(&d);
		rs_errf(w->err, sizeof w->err, "%s: cannot rename the finished file %s to it: %s", w->name,
			 w->tmp, strerror(e));
		w->failed = true;
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s", w->err);
		return false;
	} else {
		rs_dest_free(&d);
	}
	w->files_done++;
	keep(w, w->name);
	/* The next file under the same base name takes the next number. */
	snprintf(w->last_base, sizeof w->last_base, "%s", base);
	w->seq = seq + 1;
	return ok;
}

static bool rotate(struct rs_writer *w, char errbuf[RS_ERRBUF_SIZE])
{
	if (!finish_file(w, errbuf))
		return false;
	if (!open_file(w, errbuf)) {
		w->failed = true;
		rs_errf(w->err, sizeof w->err, "%s", errbuf);
		return false;
	}
	return true;
}

static void free_ifs(struct rs_writer *w)
{
	for (uint32_t i = 0; w->ifs && i < w->nifs; i++)
		free(w->ifs[i].name);
	free(w->ifs);
}

/* ---- public ------------------------------------------------------------- */

struct rs_writer *rs_writer_open(const struct rs_writer_config *cfg, char errbuf[RS_ERRBUF_SIZE])
{
	const char *path = cfg->path;
	bool rotating = cfg->rotate_bytes || cfg->rotate_seconds || cfg->max_files;
	struct stat st;

	if (!path || !*path) {
		rs_errf(errbuf, RS_ERRBUF_SIZE, "-w: empty file name");
		return NULL;
	}
	bool is_stdout = strcmp(path, "-") == 0;
	bool exists = !is_stdout && stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s: is a directory; -w takes a file name", path);
		return NULL;
	}
	bool in_place = is_stdout || (exists && !S_ISREG(st.st_mode));
	if (in_place && rotating) {
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s: -C, -G and -W rotate regular files; this is %s", path,
			 is_stdout ? "standard output" : "not a regular file");
		return NULL;
	}

	struct rs_writer *w = calloc(1, sizeof *w);
	if (!w || !(w->buf = malloc(BUF_SIZE)) || !(w->path = strdup(path)) ||
	    (cfg->if_name && !(w->if_name = strdup(cfg->if_name))) ||
	    (cfg->max_files && !(w->kept = calloc(cfg->max_files, sizeof *w->kept)))) {
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s: out of memory", path);
		goto fail;
	}
	w->cfg = *cfg;
	w->cfg.path = w->path;
	w->cfg.if_name = w->if_name;
	if (!w->cfg.snaplen || w->cfg.snaplen > 262144)
		w->cfg.snaplen = 262144;
	w->pcapng = rs_writer_is_pcapng(path);
	w->linktype = linktype_of(cfg->dlt);
	if (!(w->ifs = calloc(4, sizeof *w->ifs)) || (w->if_name && !(w->ifs[0].name = strdup(w->if_name)))) {
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s: out of memory", path);
		goto fail;
	}
	w->ifs[0].dlt = cfg->dlt;
	w->ifs_cap = 4;
	w->nifs = 1;
	w->in_place = in_place;
	mode_t um = umask(0);
	umask(um);
	w->mode = 0666 & ~um;
	w->fd = -1;

	if (in_place) {
		snprintf(w->name, sizeof w->name, "%s", is_stdout ? "standard output" : path);
		w->fd = is_stdout ? STDOUT_FILENO : open(path, O_WRONLY | O_CLOEXEC);
		if (w->fd < 0) {
			rs_errf(errbuf, RS_ERRBUF_SIZE, "%s: cannot open for writing: %s", path, strerror(errno));
			goto fail;
		}
		if (!write_header(w, errbuf))
			goto fail;
		return w;
	}
	if (!open_file(w, errbuf))
		goto fail;
	return w;
fail:
	if (w && w->fd >= 0) {
		if (!w->in_place) {
			close(w->fd);
			unlink(w->tmp);
		} else if (w->fd != STDOUT_FILENO) {
			close(w->fd);
		}
	}
	if (w) {
		free(w->kept);
		free(w->buf);
		free(w->path);
		free(w->if_name);
		free_ifs(w);
		free(w);
	}
	return NULL;
}

bool rs_writer_write(struct rs_writer *w, const struct rs_packet *pkt, char errbuf[RS_ERRBUF_SIZE])
{
	return rs_writer_write_comment(w, pkt, NULL, errbuf);
}

bool rs_writer_write_comment(struct rs_writer *w, const struct rs_packet *pkt, const char *comment,
			     char errbuf[RS_ERRBUF_SIZE])
{
	if (w->failed) {
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s", w->err);
		return false;
	}
	uint32_t len = pkt->caplen < w->cfg.snaplen ? pkt->caplen : w->cfg.snaplen;
	uint32_t wirelen = pkt->wirelen < len ? len : pkt->wirelen;
	/* An option's length is 16 bits: a longer comment is cut. */
	size_t clen = comment && w->pcapng ? strlen(comment) : 0;
	if (clen > 65532)
		clen = 65532;
	size_t rec = w->pcapng ? 32u + pad4(len) + (clen ? 8u + pad4((uint32_t)clen) : 0) : 16u + len;
	/* A pcap file's seconds are unsigned 32-bit: a later time (from a
	 * pcapng file) would be written wrong, not cut. */
	if (!w->pcapng && pkt->ts_ns / 1000000000u > UINT32_MAX) {
		if (!flush_buf(w, errbuf)) /* the frames before it are kept */
			return false;
		rs_errf(w->err, sizeof w->err, "%s: frame %llu: its time (%llu s since 1970) is past what a pcap file "
			"holds (2106-02-07 06:28:15 UTC); write a .pcapng file", shown_name(w),
			(unsigned long long)pkt->frame_no, (unsigned long long)(pkt->ts_ns / 1000000000u));
		w->failed = true;
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s", w->err);
		return false;
	}

	if (w->cfg.rotate_seconds && w->have_period &&
	    pkt->ts_ns >= w->period_start_ns + (uint64_t)w->cfg.rotate_seconds * 1000000000u) {
		if (!rotate(w, errbuf))
			return false;
	} else if (w->cfg.rotate_bytes && w->file_frames > 0 && w->file_bytes + rec > w->cfg.rotate_bytes) {
		if (!rotate(w, errbuf))
			return false;
	}
	if (!w->have_period) {
		w->have_period = true;
		w->period_start_ns = pkt->ts_ns;
	}
	if (pkt->dlt != w->ifs[w->iface].dlt && !switch_iface(w, pkt, errbuf))
		return false;

	uint8_t *p = reserve(w, rec, errbuf);
	if (!p)
		return false;
	if (w->pcapng) {
		put32(&p, PCAPNG_EPB);
		put32(&p, (uint32_t)rec);
		put32(&p, w->iface);
		put32(&p, (uint32_t)(pkt->ts_ns >> 32));
		put32(&p, (uint32_t)pkt->ts_ns);
		put32(&p, len);
		put32(&p, wirelen);
		put_bytes(&p, pkt->data, len);
		if (clen) {
			put_opt(&p, 1, comment, (uint16_t)clen); /* opt_comment */
			put_opt(&p, 0, NULL, 0);
		}
		put32(&p, (uint32_t)rec);
	} else {
		put32(&p, (uint32_t)(pkt->ts_ns / 1000000000u));
		put32(&p, (uint32_t)(pkt->ts_ns % 1000000000u));
		put32(&p, len);
		put32(&p, wirelen);
		memcpy(p, pkt->data, len);
	}
	w->buflen += rec;
	w->file_bytes += rec;
	w->file_frames++;
	w->buffered_frames++;
	w->frames++;
	return true;
}

bool rs_writer_interface(struct rs_writer *w, int dlt, const char *if_name, char errbuf[RS_ERRBUF_SIZE])
{
	if (w->failed) {
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s", w->err);
		return false;
	}
	if (!w->pcapng) {
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s: a second interface needs a pcapng file", shown_name(w));
		return false;
	}
	return add_iface(w, dlt, if_name, errbuf);
}

bool rs_writer_tick(struct rs_writer *w, uint64_t now_ns, char errbuf[RS_ERRBUF_SIZE])
{
	if (w->failed) {
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s", w->err);
		return false;
	}
	if (w->cfg.rotate_seconds && w->have_period && w->file_frames > 0 &&
	    now_ns >= w->period_start_ns + (uint64_t)w->cfg.rotate_seconds * 1000000000u)
		return rotate(w, errbuf);
	return true;
}

bool rs_writer_close(struct rs_writer *w, char errbuf[RS_ERRBUF_SIZE])
{
	if (!w)
		return true;
	bool ok = true;
	if (w->fd >= 0)
		ok = finish_file(w, errbuf);
	if (w->failed) {
		rs_errf(errbuf, RS_ERRBUF_SIZE, "%s", w->err);
		ok = false;
	}
	for (uint32_t i = 0; w->kept && i < w->nkept; i++)
		free(w->kept[(w->kept_head + i) % w->cfg.max_files]);
	free(w->kept);
	free(w->buf);
	free(w->path);
	free(w->if_name);
	free_ifs(w);
	free(w);
	return ok;
}

uint64_t rs_writer_frames(const struct rs_writer *w)
{
	return w->frames;
}

uint32_t rs_writer_files_done(const struct rs_writer *w)
{
	return w->files_done;
}

const char *rs_writer_current_name(const struct rs_writer *w)
{
	return w->name;
}

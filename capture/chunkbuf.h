/*
 * chunkbuf.h — the read buffer both file readers (pcapfile.c, pcapng.c)
 * take records and blocks from: a file read RS_PCAPFILE_CHUNK at a time
 * with pread() (a pipe or standard input with read(), in order), every
 * record handed out as a pointer into the buffer, the bytes from the next
 * record on moved to its front when more are needed. The fast path (the
 * bytes are there) is inline; refilling is chunkbuf.c's.
 */
#ifndef RS_CHUNKBUF_H
#define RS_CHUNKBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <pcap/pcap.h>

struct rs_chunkbuf {
	int fd;
	bool stream;      /* read in order with read(), never again (a pipe) */
	uint8_t *buf;
	size_t cap;       /* bytes allocated: grown to a record and a chunk when one needs it */
	size_t buf_off;   /* the file offset of buf[0] */
	size_t len;       /* bytes of the file in buf */
	size_t off;       /* where the next record starts, in [buf_off, buf_off + len] */
	size_t size;      /* the largest size the file was seen to have */
	bool failed;
	long err_off;     /* where the record that could not be read starts */
	char err[PCAP_ERRBUF_SIZE];
};

/* A buffer of `cap` bytes on fd; false: no memory. */
bool rs_chunkbuf_init(struct rs_chunkbuf *c, int fd, bool stream, size_t cap);
void rs_chunkbuf_free(struct rs_chunkbuf *c);

/* Record the error (at the next record's offset) and return PCAP_ERROR. */
__attribute__((format(printf, 2, 3))) int rs_chunkbuf_fail(struct rs_chunkbuf *c, const char *fmt, ...);

/* Read until `need` bytes from the next record on are in the buffer. False
 * if the file ends first (c->failed set too when that is an error of its
 * own: a read that failed, a file cut under us, no memory). */
bool rs_chunkbuf_refill(struct rs_chunkbuf *c, size_t need);

/* Are the `need` bytes from the next record on there (read now if not)?
 * Bytes there: in *got. */
static inline bool rs_chunkbuf_have(struct rs_chunkbuf *c, size_t need, size_t *got)
{
	if (c->buf_off + c->len - c->off >= need) {
		*got = need;
		return true;
	}
	bool ok = rs_chunkbuf_refill(c, need);
	*got = ok ? need : c->len;
	return ok;
}

/* The next record's first byte. */
static inline const uint8_t *rs_chunkbuf_at(const struct rs_chunkbuf *c)
{
	return c->buf + (c->off - c->buf_off);
}

/* Numbers in the file's byte order. */
static inline uint32_t rs_chunkbuf_get32(bool swapped, const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swapped ? __builtin_bswap32(v) : v;
}

static inline uint16_t rs_chunkbuf_get16(bool swapped, const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swapped ? __builtin_bswap16(v) : v;
}

#endif

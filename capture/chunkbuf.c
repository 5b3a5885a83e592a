/*
 * chunkbuf.c — refilling the readers' buffer (chunkbuf.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/chunkbuf.h"
#include "capture/reader.h"

bool rs_chunkbuf_init(struct rs_chunkbuf *c, int fd, bool stream, size_t cap)
{
	memset(c, 0, sizeof *c);
	c->fd = fd;
	c->stream = stream;
	c->cap = cap;
	return (c->buf = malloc(cap)) != NULL;
}

void rs_chunkbuf_free(struct rs_chunkbuf *c)
{
	free(c->buf);
	c->buf = NULL;
}

int rs_chunkbuf_fail(struct rs_chunkbuf *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, sizeof c->err, fmt, ap);
	va_end(ap);
	c->err_off = (long)c->off;
	c->failed = true;
	return PCAP_ERROR;
}

/* Short of bytes at the end of a file: if it was cut under us (smaller now
 * than it was seen to be), fail with its size now; else it just ends. */
static void fail_if_shrunk(struct rs_chunkbuf *c)
{
	struct stat st;
	if (fstat(c->fd, &st) == 0 && (uint64_t)st.st_size < c->size)
		rs_chunkbuf_fail(c, "the file shrank from %zu to %lld bytes while it was being read (truncated by another "
				 "process?)", c->size, (long long)st.st_size);
}

bool rs_chunkbuf_refill(struct rs_chunkbuf *c, size_t need)
{
	size_t keep = c->buf_off + c->len - c->off;
	memmove(c->buf, c->buf + (c->off - c->buf_off), keep);
	c->buf_off = c->off;
	c->len = keep;
	if (need + RS_PCAPFILE_CHUNK > c->cap) {
		uint8_t *b = realloc(c->buf, need + RS_PCAPFILE_CHUNK);
		if (!b) {
			rs_chunkbuf_fail(c, "out of memory");
			return false;
		}
		c->buf = b;
		c->cap = need + RS_PCAPFILE_CHUNK;
	}
	while (c->len < need) {
		size_t room = c->cap - c->len;
		size_t n = room < RS_PCAPFILE_CHUNK ? room : RS_PCAPFILE_CHUNK;
		ssize_t got = c->stream ? read(c->fd, c->buf + c->len, n)
					: pread(c->fd, c->buf + c->len, n, (off_t)(c->buf_off + c->len));
		/* A stream's read is interrupted by the signal that ends the run
		 * (SIGINT while a pipe has nothing to read): it fails, as
		 * libpcap's read of a pipe does, and the run stops. */
		if (got < 0 && errno == EINTR && !c->stream)
			continue;
		if (got < 0) { /* libpcap's words when fread() fails */
			rs_chunkbuf_fail(c, "error reading dump file: %s", strerror(errno));
			return false;
		}
		if (got == 0) {
			if (!c->stream)
				fail_if_shrunk(c);
			return false;
		}
		c->len += (size_t)got;
		if (c->buf_off + c->len > c->size)
			c->size = c->buf_off + c->len;
	}
	return true;
}

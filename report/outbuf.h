/*
 * outbuf.h — text gathered in the caller's buffer and handed to stdio a
 * buffer at a time, with the few conversions the reports' hot paths need.
 * The JSON writer and the text report's per-QP rows use it: a stdio call,
 * or a printf format parse, per token was most of a million-QP report.
 * Widths count bytes, as printf's do.
 */
#ifndef RS_OUTBUF_H
#define RS_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct rs_outbuf {
	FILE *out;
	char *b;    /* the caller's storage */
	size_t n;   /* bytes in b not yet written to out */
	size_t cap;
};

static inline void rs_outbuf_init(struct rs_outbuf *o, FILE *out, char *storage, size_t cap)
{
	o->out = out;
	o->b = storage;
	o->n = 0;
	o->cap = cap;
}

/* Everything gathered goes to out (before anything else writes to out). */
static inline void rs_outbuf_flush(struct rs_outbuf *o)
{
	if (o->n)
		fwrite(o->b, 1, o->n, o->out);
	o->n = 0;
}

static inline void rs_outbuf_put(struct rs_outbuf *o, const char *s, size_t n)
{
	if (o->n + n > o->cap) {
		rs_outbuf_flush(o);
		if (n > o->cap) { /* longer than the buffer: straight through, in order */
			fwrite(s, 1, n, o->out);
			return;
		}
	}
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

static inline void rs_outbuf_putc(struct rs_outbuf *o, char c)
{
	if (o->n == o->cap)
		rs_outbuf_flush(o);
	o->b[o->n++] = c;
}

#define RS_OUTBUF_LIT(o, lit) rs_outbuf_put((o), (lit), sizeof(lit) - 1)

static inline void rs_outbuf_spaces(struct rs_outbuf *o, size_t n)
{
	static const char spaces[] = "                                ";
	while (n) {
		size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
		rs_outbuf_put(o, spaces, k);
		n -= k;
	}
}

/* "%*.*s" with n bytes of s (width > 0), "%-*.*s" (width < 0), or as is (0). */
static inline void rs_outbuf_str_n(struct rs_outbuf *o, const char *s, size_t n, int width)
{
	size_t w = (size_t)(width < 0 ? -width : width);
	if (width > 0 && n < w)
		rs_outbuf_spaces(o, w - n);
	rs_outbuf_put(o, s, n);
	if (width < 0 && n < w)
		rs_outbuf_spaces(o, w - n);
}

/* "%*s" (width > 0), "%-*s" (width < 0), or "%s" (0). */
static inline void rs_outbuf_str(struct rs_outbuf *o, const char *s, int width)
{
	rs_outbuf_str_n(o, s, strlen(s), width);
}

/* v's decimal ("%" PRIu64) or lower-case hex ("%" PRIx64) digits written
 * backwards, ending just before `end`: returns the first. Room needed: 20
 * and 16 bytes. */
static inline char *rs_digits_u64(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

static inline char *rs_digits_hex(char *end, uint64_t v)
{
	do {
		*--end = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	return end;
}

/* "%*" PRIu64 (width 0: "%" PRIu64). */
static inline void rs_outbuf_u64(struct rs_outbuf *o, uint64_t v, int width)
{
	char d[20], *p = rs_digits_u64(d + sizeof d, v);
	rs_outbuf_str_n(o, p, (size_t)(d + sizeof d - p), width);
}

/* "%" PRIx64: lower-case hex digits, no prefix. */
static inline void rs_outbuf_hex(struct rs_outbuf *o, uint64_t v)
{
	char d[16], *p = rs_digits_hex(d + sizeof d, v);
	rs_outbuf_put(o, p, (size_t)(d + sizeof d - p));
}

#endif

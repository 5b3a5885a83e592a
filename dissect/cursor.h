/*
 * cursor.h — the only way the dissector reads packet bytes.
 *
 * A cursor is a window [0, len) over captured bytes plus a read position.
 * Every read is bounds-checked. A read that would run past the window does
 * not touch memory: it returns zero, parks the position at the end and sets
 * the sticky `overrun` flag. Decoders read a whole header, then test the flag
 * once, the way tcpdump's GET_ macros bail out, but without longjmp.
 *
 * The window is always the *captured* bytes (caplen); the lengths that the
 * protocol fields claim are checked separately against the wire length, so
 * "the capture was cut short" (truncated) and "a length field lies"
 * (malformed) stay distinct outcomes.
 */
#ifndef RS_CURSOR_H
#define RS_CURSOR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct rs_cursor {
	const uint8_t *base; /* first byte of the window */
	uint32_t len;        /* bytes in the window */
	uint32_t off;        /* read position, always <= len */
	bool overrun;        /* a read went past the window */
};

static inline void rs_cur_init(struct rs_cursor *c, const uint8_t *base, uint32_t len)
{
	c->base = base;
	c->len = len;
	c->off = 0;
	c->overrun = false;
}

static inline uint32_t rs_cur_left(const struct rs_cursor *c)
{
	return c->len - c->off;
}

static inline bool rs_cur_has(const struct rs_cursor *c, uint32_t n)
{
	return n <= c->len - c->off;
}

/* Claim n bytes: returns a pointer to them, or NULL (and overrun) if short. */
static inline const uint8_t *rs_cur_take(struct rs_cursor *c, uint32_t n)
{
	if (!rs_cur_has(c, n)) {
		c->off = c->len;
		c->overrun = true;
		return NULL;
	}
	const uint8_t *p = c->base + c->off;
	c->off += n;
	return p;
}

static inline void rs_cur_skip(struct rs_cursor *c, uint32_t n)
{
	(void)rs_cur_take(c, n);
}

static inline uint8_t rs_cur_u8(struct rs_cursor *c)
{
	const uint8_t *p = rs_cur_take(c, 1);
	return p ? p[0] : 0;
}

static inline uint16_t rs_cur_be16(struct rs_cursor *c)
{
	const uint8_t *p = rs_cur_take(c, 2);
	return p ? (uint16_t)(p[0] << 8 | p[1]) : 0;
}

static inline uint32_t rs_cur_be24(struct rs_cursor *c)
{
	const uint8_t *p = rs_cur_take(c, 3);
	return p ? (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2] : 0;
}

static inline uint32_t rs_cur_be32(struct rs_cursor *c)
{
	const uint8_t *p = rs_cur_take(c, 4);
	return p ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3] : 0;
}

static inline uint64_t rs_cur_be64(struct rs_cursor *c)
{
	uint64_t hi = rs_cur_be32(c);
	return hi << 32 | rs_cur_be32(c);
}

static inline uint16_t rs_cur_le16(struct rs_cursor *c)
{
	const uint8_t *p = rs_cur_take(c, 2);
	return p ? (uint16_t)(p[1] << 8 | p[0]) : 0;
}

static inline uint32_t rs_cur_le32(struct rs_cursor *c)
{
	const uint8_t *p = rs_cur_take(c, 4);
	return p ? (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0] : 0;
}

static inline uint64_t rs_cur_le64(struct rs_cursor *c)
{
	uint64_t lo = rs_cur_le32(c);
	return (uint64_t)rs_cur_le32(c) << 32 | lo;
}

/* n bytes from `from`, a pointer rs_cur_take() gave, or zeros where it
 * gave NULL (the capture stopped before them). */
static inline void rs_copy_or_zero(void *dst, const uint8_t *from, uint32_t n)
{
	if (from)
		memcpy(dst, from, n);
	else
		memset(dst, 0, n);
}

/* Copy n bytes out; on overrun the destination is zeroed. */
static inline void rs_cur_copy(struct rs_cursor *c, void *dst, uint32_t n)
{
	rs_copy_or_zero(dst, rs_cur_take(c, n), n);
}

/*
 * A header of fixed size n, read field by field: when all n bytes were
 * captured, *h becomes a cursor over exactly them (and c moves past them),
 * else false and c is untouched. Read the fields through h then, and
 * through c otherwise, with the same inline function for both:
 *
 *	struct rs_cursor h;
 *	if (rs_cur_fixed(&c, BTH_LEN, &h))
 *		bth_fields(&h, b);   // every check folds away
 *	else
 *		bth_fields(&c, b);   // the checks find where the capture stops
 *
 * With n a constant, every read through h has a constant offset and a
 * constant length to test it against, so the compiler drops the checks (a
 * dozen compare-and-branch pairs a header). Reads are still checked by
 * construction; the slow path keeps the truncated semantics exactly.
 */
static inline bool rs_cur_fixed(struct rs_cursor *c, uint32_t n, struct rs_cursor *h)
{
	if (!rs_cur_has(c, n))
		return false;
	rs_cur_init(h, c->base + c->off, n);
	c->off += n;
	return true;
}

/* The pattern above in one line: `fields` is an always-inline function of
 * (struct rs_cursor *, ...) that reads the header's n bytes. */
#define RS_CUR_FIXED(c, n, fields, ...)                                  \
	do {                                                             \
		struct rs_cursor rs_fixed_;                              \
		if (rs_cur_fixed((c), (n), &rs_fixed_))                  \
			fields(&rs_fixed_, __VA_ARGS__);                 \
		else                                                     \
			fields((c), __VA_ARGS__);                        \
	} while (0)

/* A sub-cursor over the next n bytes (clipped to what is captured). The
 * parent advances past them (or overruns if fewer than n are there). */
static inline struct rs_cursor rs_cur_sub(struct rs_cursor *c, uint32_t n)
{
	struct rs_cursor s;
	uint32_t avail = rs_cur_left(c);
	rs_cur_init(&s, c->base + c->off, n < avail ? n : avail);
	rs_cur_skip(c, n);
	return s;
}

#endif

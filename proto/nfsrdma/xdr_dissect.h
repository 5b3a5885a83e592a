/*
 * xdr_dissect.h — reading XDR (RFC 4506) through a cursor, bounded twice: by the
 * captured bytes (the cursor: a read past them sets `overrun`, the capture
 * was cut) and by the SEND's length on the wire (`end`: a count or length
 * that reaches past it sets `past`, the bytes lie, or in the first packet
 * of a longer SEND the rest is in the next packets). A read that would go
 * past `end` reads 0 and does not move. The first failure is kept with its
 * sentence; those that follow (read from zeros) are not.
 *
 * Private to proto/nfsrdma/.
 */
#ifndef RS_PROTO_NFSRDMA_XDR_DISSECT_H
#define RS_PROTO_NFSRDMA_XDR_DISSECT_H

#include "proto/nfsrdma/rpcrdma_dissect.h"

struct rs_xdr {
	struct rs_cursor *c;
	uint32_t end;        /* cursor offset of the SEND's last byte + 1 (wire) */
	bool whole;          /* `end` is the message's end (SEND Only), not a first packet's */
	bool past;           /* something claimed bytes past `end` */
	uint8_t fail;        /* the first MALFORMED/UNSUPPORTED seen (0: none) */
	const char *why;
};

static inline bool rs_xdr_room(struct rs_xdr *x, uint32_t n)
{
	if (x->c->off > x->end || n > x->end - x->c->off) {
		x->past = true;
		return false;
	}
	return true;
}

static inline bool rs_xdr_ok(const struct rs_xdr *x)
{
	return !x->past && !x->fail && !x->c->overrun;
}

/* Record a failure the bytes themselves show (not read from zeros). */
static inline void rs_xdr_fail(struct rs_xdr *x, enum rs_rpcrdma_outcome o, const char *why)
{
	if (x->fail || x->past || x->c->overrun)
		return;
	x->fail = (uint8_t)o;
	x->why = why;
}

/* A count that says more than the bytes left: a lie in a whole message,
 * in a first packet possibly the rest of the message. */
static inline void rs_xdr_too_long(struct rs_xdr *x, const char *why)
{
	if (x->whole)
		rs_xdr_fail(x, RS_RPCRDMA_MALFORMED, why);
	else
		x->past = true;
}

static inline uint32_t rs_xdr_u32(struct rs_xdr *x)
{
	return rs_xdr_room(x, 4) ? rs_cur_be32(x->c) : 0;
}

static inline uint64_t rs_xdr_u64(struct rs_xdr *x)
{
	return rs_xdr_room(x, 8) ? rs_cur_be64(x->c) : 0;
}

static inline void rs_xdr_skip(struct rs_xdr *x, uint32_t n)
{
	if (rs_xdr_room(x, n))
		rs_cur_skip(x->c, n);
}

static inline uint32_t rs_xdr_pad(uint32_t n)
{
	return (n + 3) & ~3u;
}

/* opaque<max> or string<max>: its length (the bytes skipped). */
static inline uint32_t rs_xdr_opaque(struct rs_xdr *x, uint32_t max)
{
	uint32_t n = rs_xdr_u32(x);
	if (n > max) {
		rs_xdr_fail(x, RS_RPCRDMA_MALFORMED, "an opaque or string longer than its XDR limit");
		return n;
	}
	rs_xdr_skip(x, rs_xdr_pad(n));
	return n;
}

/* A counted array of n-byte items whose count must fit in what is left. */
static inline uint32_t rs_xdr_array(struct rs_xdr *x, uint32_t item, const char *why)
{
	uint32_t n = rs_xdr_u32(x);
	if (!rs_xdr_ok(x))
		return 0;
	uint32_t left = x->end - x->c->off;
	if ((uint64_t)n * item > left) {
		rs_xdr_too_long(x, why);
		return 0;
	}
	rs_xdr_skip(x, n * item);
	return n;
}

/* nfs4_dissect.c: the COMPOUND arguments (hint NULL) or results (hint:
 * the call's) at x, the RPC body after the call or reply header;
 * `rpc_start` is the cursor offset where the RPC message began (the read
 * chunks' positions count from there). Fills r->rpc's NFSv4 fields. */
void rs_nfs4_compound(struct rs_xdr *x, uint32_t rpc_start, const struct rs_rpc_hint *hint, struct rs_rpcrdma *r);

#endif

/*
 * rpcrdma_dissect.c — the RPC-over-RDMA version 1 header and the ONC RPC
 * call or reply header inside.
 *
 * Transport header (RFC 8166 4.2, XDR, big-endian words):
 *   rdma_xid | rdma_vers (1) | rdma_credit | rdma_proc
 *   RDMA_MSG (0), RDMA_NOMSG (1): the three chunk lists, then (RDMA_MSG
 *     only) the RPC message inline; RDMA_NOMSG's RPC message is all in a
 *     read chunk (call) or the reply chunk (reply)
 *   RDMA_MSGP (2, RFC 5666 only): the chunk lists, rdma_align, rdma_thresh
 *   RDMA_DONE (3, RFC 5666 only): nothing
 *   RDMA_ERROR (4): rdma_err; ERR_VERS (1) adds the lowest and highest
 *     version the sender supports; ERR_CHUNK (2) nothing
 * Chunk lists:
 *   read list: entries each after a 1 (a 0 ends it): position, then a
 *     segment (handle, length, offset(64))
 *   write list: write chunks each after a 1 (0 ends it), each a counted
 *     array of segments
 *   reply chunk: optional (1 then one write chunk, or 0)
 * Every count and length is checked against the SEND's length on the wire
 * before anything is read for it, so a count that lies is a malformed
 * outcome and costs no more than the bytes that are there.
 *
 * ONC RPC (RFC 5531 9): xid | msg_type (0 CALL, 1 REPLY)
 *   CALL: rpcvers (2) | prog | vers | proc | cred (flavor, opaque<400>) |
 *         verf (flavor, opaque<400>) | arguments
 *   REPLY: reply_stat: MSG_ACCEPTED (0): verf | accept_stat (0 SUCCESS:
 *         results; 2 PROG_MISMATCH: low, high) | MSG_DENIED (1):
 *         reject_stat (0 RPC_MISMATCH: low, high; 1 AUTH_ERROR: auth_stat)
 * NFSv3 results all begin with nfsstat3 (RFC 1813), NFSv4's COMPOUND with
 * nfsstat4 (nfs4_dissect.c reads the operations).
 */
#include "proto/nfsrdma/xdr_dissect.h"

static void add_seg(struct rs_rpcrdma *r, uint8_t list, uint8_t chunk, uint32_t pos, uint32_t handle,
		    uint32_t len, uint64_t off)
{
	if (list == RS_RDMA_READ_LIST)
		r->read_bytes += len;
	else if (list == RS_RDMA_WRITE_LIST)
		r->write_bytes += len;
	else
		r->reply_bytes += len;
	if (r->nsegs >= RS_RPCRDMA_MAX_SEGS) {
		r->segs_dropped++;
		return;
	}
	r->segs[r->nsegs++] = (struct rs_rdma_seg){
		.list = list, .chunk = chunk, .position = pos, .handle = handle, .length = len, .offset = off,
	};
}

/* A write chunk (or the reply chunk): a counted array of 16-byte segments. */
static uint16_t write_chunk(struct rs_xdr *x, struct rs_rpcrdma *r, uint8_t list, uint8_t chunk)
{
	uint32_t n = rs_xdr_u32(x);
	if (!rs_xdr_ok(x))
		return 0;
	if ((uint64_t)n * 16 > x->end - x->c->off) {
		rs_xdr_too_long(x, "a chunk's segment count says more than the SEND holds");
		return 0;
	}
	for (uint32_t i = 0; i < n && rs_xdr_ok(x); i++) {
		uint32_t handle = rs_xdr_u32(x), len = rs_xdr_u32(x);
		uint64_t off = rs_xdr_u64(x);
		add_seg(r, list, chunk, 0, handle, len, off);
	}
	return (uint16_t)(n > 0xFFFF ? 0xFFFF : n);
}

/* 1 (an entry follows) or 0 (the list ends); anything else is a lie. */
static bool more(struct rs_xdr *x)
{
	uint32_t d = rs_xdr_u32(x);
	if (!rs_xdr_ok(x))
		return false;
	if (d > 1) {
		rs_xdr_fail(x, RS_RPCRDMA_MALFORMED, "a chunk list's discriminator is neither 0 nor 1");
		return false;
	}
	return d == 1;
}

static void chunk_lists(struct rs_xdr *x, struct rs_rpcrdma *r)
{
	/* Each loop reads at least 4 bytes or stops: bounded by the SEND. */
	while (more(x)) {
		uint32_t pos = rs_xdr_u32(x), handle = rs_xdr_u32(x), len = rs_xdr_u32(x);
		uint64_t off = rs_xdr_u64(x);
		if (!rs_xdr_ok(x))
			break;
		add_seg(r, RS_RDMA_READ_LIST, 0, pos, handle, len, off);
		if (r->n_read < 0xFFFF)
			r->n_read++;
	}
	while (rs_xdr_ok(x) && more(x)) {
		uint16_t n = write_chunk(x, r, RS_RDMA_WRITE_LIST, (uint8_t)r->n_write_chunks);
		r->n_write_segs = (uint16_t)(r->n_write_segs + n < 0xFFFF ? r->n_write_segs + n : 0xFFFF);
		if (r->n_write_chunks < 0xFFFF)
			r->n_write_chunks++;
	}
	if (rs_xdr_ok(x) && more(x)) {
		r->has_reply_chunk = true;
		r->n_reply_segs = write_chunk(x, r, RS_RDMA_REPLY_CHUNK, 0);
	}
}

static void auth(struct rs_xdr *x, uint32_t *flavor)
{
	*flavor = rs_xdr_u32(x);
	rs_xdr_opaque(x, 400);
}

static void rpc_call(struct rs_xdr *x, uint32_t rpc_start, struct rs_rpcrdma *r)
{
	struct rs_onc_rpc *m = &r->rpc;
	m->rpcvers = rs_xdr_u32(x);
	m->prog = rs_xdr_u32(x);
	m->vers = rs_xdr_u32(x);
	m->proc = rs_xdr_u32(x);
	if (!rs_xdr_ok(x))
		return;
	if (m->rpcvers != 2) {
		rs_xdr_fail(x, RS_RPCRDMA_UNSUPPORTED, "an RPC call of a version other than 2");
		return;
	}
	auth(x, &m->cred_flavor);
	auth(x, &m->verf_flavor);
	if (rs_xdr_ok(x) && m->prog == RS_RPC_PROG_NFS && m->vers == 4 && m->proc == RS_NFS4_COMPOUND)
		rs_nfs4_compound(x, rpc_start, NULL, r);
}

/* A reply decoded without its call: its results' first word, and the
 * results read as an NFSv4 COMPOUND's, each on a copy of the reader, so
 * that what does not read as one leaves the outcome alone. */
static void unhinted_results(const struct rs_xdr *x, uint32_t rpc_start, struct rs_rpcrdma *r)
{
	static const struct rs_rpc_hint compound = { .prog = RS_RPC_PROG_NFS, .vers = 4, .proc = RS_NFS4_COMPOUND };
	struct rs_onc_rpc *m = &r->rpc;
	struct rs_cursor c = *x->c;
	struct rs_xdr y = *x;
	y.c = &c;
	m->res_word = rs_xdr_u32(&y);
	m->have_res_word = rs_xdr_ok(&y);
	if (!m->have_res_word)
		return;
	c = *x->c;
	y = *x;
	y.c = &c;
	rs_nfs4_compound(&y, rpc_start, &compound, r);
	m->have_status = false;
	m->status = 0;
	m->as_compound = y.fail != RS_RPCRDMA_MALFORMED && !(y.past && y.whole);
	if (!m->as_compound) {
		m->tag_len = m->nops = 0;
		m->ops_read = 0;
		m->ops_partial = false;
	}
}

static void rpc_reply(struct rs_xdr *x, uint32_t rpc_start, const struct rs_rpc_hint *hint, struct rs_rpcrdma *r)
{
	struct rs_onc_rpc *m = &r->rpc;
	m->reply_stat = rs_xdr_u32(x);
	if (!rs_xdr_ok(x))
		return;
	if (m->reply_stat == 1) {
		m->reject_stat = rs_xdr_u32(x);
		if (m->reject_stat == 0) {
			m->mismatch_low = rs_xdr_u32(x);
			m->mismatch_high = rs_xdr_u32(x);
		} else if (m->reject_stat == 1) {
			m->auth_stat = rs_xdr_u32(x);
		} else {
			rs_xdr_fail(x, RS_RPCRDMA_MALFORMED, "an RPC reply's reject_stat is neither RPC_MISMATCH nor AUTH_ERROR");
		}
		return;
	}
	if (m->reply_stat != 0) {
		rs_xdr_fail(x, RS_RPCRDMA_MALFORMED, "an RPC reply's reply_stat is neither MSG_ACCEPTED nor MSG_DENIED");
		return;
	}
	auth(x, &m->verf_flavor);
	m->accept_stat = rs_xdr_u32(x);
	if (!rs_xdr_ok(x))
		return;
	if (m->accept_stat == 2) {
		m->mismatch_low = rs_xdr_u32(x);
		m->mismatch_high = rs_xdr_u32(x);
	}
	if (m->accept_stat != 0)
		return;
	if (!hint) {
		unhinted_results(x, rpc_start, r);
		return;
	}
	if (hint->prog != RS_RPC_PROG_NFS)
		return;
	/* The results: NULL's are void; every other NFS procedure's begin
	 * with the status. */
	if (hint->proc == 0)
		return;
	if (hint->vers == 4 && hint->proc == RS_NFS4_COMPOUND)
		rs_nfs4_compound(x, rpc_start, hint, r);
	else if (hint->vers == 2 || hint->vers == 3) {
		m->status = rs_xdr_u32(x);
		m->have_status = rs_xdr_ok(x);
	}
}

static void rpc_message(struct rs_xdr *x, const struct rs_rpc_hint *hint, struct rs_rpcrdma *r)
{
	uint32_t rpc_start = x->c->off;
	struct rs_onc_rpc *m = &r->rpc;
	r->has_rpc = true;
	m->xid = rs_xdr_u32(x);
	m->msg_type = rs_xdr_u32(x);
	if (!rs_xdr_ok(x))
		return;
	if (m->xid != r->xid)
		rs_xdr_fail(x, RS_RPCRDMA_MALFORMED, "the RPC message's XID differs from the transport header's");
	else if (m->msg_type == RS_RPC_CALL)
		rpc_call(x, rpc_start, r);
	else if (m->msg_type == RS_RPC_REPLY)
		rpc_reply(x, rpc_start, hint, r);
	else
		rs_xdr_fail(x, RS_RPCRDMA_MALFORMED, "an RPC message type other than CALL or REPLY");
	m->xdr_len = x->c->off - rpc_start;
}

static enum rs_rpcrdma_outcome finish(struct rs_xdr *x, struct rs_rpcrdma *r)
{
	if (x->fail) {
		r->outcome = x->fail;
		r->why = x->why;
	} else if (x->past && x->whole) {
		r->outcome = RS_RPCRDMA_MALFORMED;
		r->why = "a list or a length runs past the end of the SEND";
	} else if (x->past) {
		r->outcome = RS_RPCRDMA_CONTINUED;
	} else if (x->c->overrun) {
		r->outcome = RS_RPCRDMA_TRUNCATED;
	}
	return r->outcome;
}

enum rs_rpcrdma_outcome rs_rpcrdma_decode(struct rs_cursor *c, uint32_t wire_len, bool whole,
					  const struct rs_rpc_hint *hint, struct rs_rpcrdma *r)
{
	*r = (struct rs_rpcrdma){ 0 };
	r->outcome = RS_RPCRDMA_OK;
	uint32_t start = c->off;
	if (wire_len < 16 || wire_len > UINT32_MAX - start) {
		r->outcome = RS_RPCRDMA_NOT;
		r->why = "shorter than an RPC-over-RDMA header";
		return RS_RPCRDMA_NOT;
	}
	struct rs_xdr x = { .c = c, .end = start + wire_len, .whole = whole };
	r->xid = rs_xdr_u32(&x);
	r->vers = rs_xdr_u32(&x);
	r->credits = rs_xdr_u32(&x);
	r->proc = rs_xdr_u32(&x);
	if (c->overrun && c->off - start < 8)
		return finish(&x, r); /* no version to tell it by */
	if (r->vers != 1) {
		if (r->vers == 2) {
			rs_xdr_fail(&x, RS_RPCRDMA_UNSUPPORTED, "RPC-over-RDMA version 2");
			return finish(&x, r);
		}
		r->outcome = RS_RPCRDMA_NOT;
		r->why = "its version field is not 1";
		return RS_RPCRDMA_NOT;
	}
	switch (r->proc) {
	case RS_RDMA_MSG:
	case RS_RDMA_NOMSG:
	case RS_RDMA_MSGP:
		chunk_lists(&x, r);
		if (r->proc == RS_RDMA_MSGP) {
			r->align = rs_xdr_u32(&x);
			r->thresh = rs_xdr_u32(&x);
		}
		r->hdr_len = c->off - start;
		if (r->proc == RS_RDMA_MSG && rs_xdr_ok(&x))
			rpc_message(&x, hint, r);
		break;
	case RS_RDMA_DONE:
		r->hdr_len = c->off - start;
		break;
	case RS_RDMA_ERROR:
		r->err = rs_xdr_u32(&x);
		if (r->err == 1) {
			r->vers_low = rs_xdr_u32(&x);
			r->vers_high = rs_xdr_u32(&x);
		} else if (r->err != 2 && rs_xdr_ok(&x)) {
			rs_xdr_fail(&x, RS_RPCRDMA_UNSUPPORTED, "an RDMA_ERROR code other than ERR_VERS or ERR_CHUNK");
		}
		r->hdr_len = c->off - start;
		break;
	default:
		rs_xdr_fail(&x, RS_RPCRDMA_UNSUPPORTED, "a procedure RFC 8166 does not define");
		break;
	}
	return finish(&x, r);
}

enum rs_rpcrdma_outcome rs_rpc_chunk_reply_decode(struct rs_cursor *c, uint32_t wire_len, struct rs_rpcrdma *r)
{
	r->outcome = RS_RPCRDMA_NOT;
	uint32_t start = c->off;
	if (wire_len < 24 || wire_len > UINT32_MAX - start)
		return RS_RPCRDMA_NOT; /* shorter than an accepted reply's header with an empty verifier */
	/* Not whole: the reply goes on in the WRITEs (and segments) after this one. */
	struct rs_xdr x = { .c = c, .end = start + wire_len, .whole = false };
	struct rs_cursor peek = *c;
	struct rs_xdr px = x;
	px.c = &peek;
	uint32_t xid = rs_xdr_u32(&px);
	if (rs_xdr_u32(&px) != RS_RPC_REPLY || peek.overrun)
		return RS_RPCRDMA_NOT; /* no RPC reply: most WRITEs are data (tested before the block is cleared) */
	*r = (struct rs_rpcrdma){ 0 };
	r->outcome = RS_RPCRDMA_OK;
	r->proc = RS_RDMA_NOMSG;
	r->xid = xid;
	rpc_message(&x, NULL, r);
	finish(&x, r);
	/* The header read whole and as RFC 5531 defines it: an accepted
	 * SUCCESS with its results' first word (read on a copy of the reader,
	 * as what follows may not fit the packet), any other answer to its
	 * end within the packet. */
	const struct rs_onc_rpc *m = &r->rpc;
	bool whole_hdr = m->reply_stat == 0 && m->accept_stat == 0
				 ? m->have_res_word && (r->outcome == RS_RPCRDMA_OK || r->outcome == RS_RPCRDMA_CONTINUED)
				 : r->outcome == RS_RPCRDMA_OK && (m->reply_stat == 1 || m->accept_stat <= 5);
	if (!whole_hdr) {
		r->outcome = RS_RPCRDMA_NOT;
		return RS_RPCRDMA_NOT;
	}
	return r->outcome;
}

void rs_rpc_hint_of(const struct rs_onc_rpc *call, struct rs_rpc_hint *h)
{
	*h = (struct rs_rpc_hint){ .prog = call->prog, .vers = call->vers, .proc = call->proc,
				   .minorversion = call->minorversion, .nops = call->ops_read };
	for (unsigned i = 0; i < call->ops_read && i < RS_NFS4_MAX_OPS; i++)
		h->ops[i] = call->ops[i];
}

/* ---- names -------------------------------------------------------------- */

const char *rs_rpcrdma_proc_name(uint32_t proc)
{
	switch (proc) {
	case RS_RDMA_MSG: return "RDMA_MSG";
	case RS_RDMA_NOMSG: return "RDMA_NOMSG";
	case RS_RDMA_MSGP: return "RDMA_MSGP";
	case RS_RDMA_DONE: return "RDMA_DONE";
	case RS_RDMA_ERROR: return "RDMA_ERROR";
	default: return "";
	}
}

const char *rs_rpcrdma_outcome_name(enum rs_rpcrdma_outcome o)
{
	switch (o) {
	case RS_RPCRDMA_NOT: return "not RPC-over-RDMA";
	case RS_RPCRDMA_OK: return "ok";
	case RS_RPCRDMA_TRUNCATED: return "truncated";
	case RS_RPCRDMA_MALFORMED: return "malformed";
	case RS_RPCRDMA_UNSUPPORTED: return "unsupported";
	case RS_RPCRDMA_CONTINUED: return "continued";
	default: return "";
	}
}

const char *rs_rpc_accept_stat_name(uint32_t s)
{
	static const char *const names[] = { "SUCCESS", "PROG_UNAVAIL", "PROG_MISMATCH", "PROC_UNAVAIL",
					     "GARBAGE_ARGS", "SYSTEM_ERR" };
	return s < sizeof names / sizeof names[0] ? names[s] : "";
}

const char *rs_nfs3_proc_name(uint32_t proc)
{
	static const char *const names[] = {
		"NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE",
		"CREATE", "MKDIR", "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK",
		"READDIR", "READDIRPLUS", "FSSTAT", "FSINFO", "PATHCONF", "COMMIT",
	};
	return proc < sizeof names / sizeof names[0] ? names[proc] : "";
}

const char *rs_nfs3_status_name(uint32_t s)
{
	switch (s) {
	case 0: return "NFS3_OK";
	case 1: return "NFS3ERR_PERM";
	case 2: return "NFS3ERR_NOENT";
	case 5: return "NFS3ERR_IO";
	case 6: return "NFS3ERR_NXIO";
	case 13: return "NFS3ERR_ACCES";
	case 17: return "NFS3ERR_EXIST";
	case 18: return "NFS3ERR_XDEV";
	case 19: return "NFS3ERR_NODEV";
	case 20: return "NFS3ERR_NOTDIR";
	case 21: return "NFS3ERR_ISDIR";
	case 22: return "NFS3ERR_INVAL";
	case 27: return "NFS3ERR_FBIG";
	case 28: return "NFS3ERR_NOSPC";
	case 30: return "NFS3ERR_ROFS";
	case 31: return "NFS3ERR_MLINK";
	case 63: return "NFS3ERR_NAMETOOLONG";
	case 66: return "NFS3ERR_NOTEMPTY";
	case 69: return "NFS3ERR_DQUOT";
	case 70: return "NFS3ERR_STALE";
	case 71: return "NFS3ERR_REMOTE";
	case 10001: return "NFS3ERR_BADHANDLE";
	case 10002: return "NFS3ERR_NOT_SYNC";
	case 10003: return "NFS3ERR_BAD_COOKIE";
	case 10004: return "NFS3ERR_NOTSUPP";
	case 10005: return "NFS3ERR_TOOSMALL";
	case 10006: return "NFS3ERR_SERVERFAULT";
	case 10007: return "NFS3ERR_BADTYPE";
	case 10008: return "NFS3ERR_JUKEBOX";
	default: return "";
	}
}

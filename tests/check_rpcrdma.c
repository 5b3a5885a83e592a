/*
 * check_rpcrdma.c — proto/nfsrdma: RPC-over-RDMA version 1 headers
 * (RFC 8166 4.2, RFC 5666 for RDMA_MSGP and RDMA_DONE), ONC RPC calls and
 * replies (RFC 5531 9), NFSv3 statuses (RFC 1813) and NFSv4 COMPOUNDs
 * (RFC 8881 16, 18), written here word by word in XDR (RFC 4506:
 * big-endian 32-bit words, opaques padded to 4). The values are those of
 * the sample's first WRITE (samples/rxe_nfs.pcap frame 50, as tshark shows
 * it). Hostile inputs: chunk lists whose counts or discriminators lie, a
 * read list that never ends, a COMPOUND that claims more operations than
 * it holds, XIDs that disagree; every cut of a message (truncated, never
 * malformed); the first packet of a longer SEND (continued). Every decode
 * reads a heap buffer of exactly the captured length.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "proto/nfsrdma/rpcrdma_dissect.h"
#include "tests/support/rstest.h"

struct msg {
	uint8_t b[12288];
	uint32_t n;
};

static void w32(struct msg *m, uint32_t v)
{
	ck_assert_uint_le(m->n + 4, sizeof m->b);
	rt_be32(m->b + m->n, v);
	m->n += 4;
}

static void w64(struct msg *m, uint64_t v)
{
	w32(m, (uint32_t)(v >> 32));
	w32(m, (uint32_t)v);
}

static void wopaque(struct msg *m, const void *p, uint32_t len)
{
	w32(m, len);
	memset(m->b + m->n, 0, (len + 3) & ~3u);
	memcpy(m->b + m->n, p, len);
	m->n += (len + 3) & ~3u;
}

static enum rs_rpcrdma_outcome decode_cut(const struct msg *m, uint32_t cap, uint32_t wire, bool whole,
					  const struct rs_rpc_hint *hint, struct rs_rpcrdma *r)
{
	uint8_t *copy = malloc(cap ? cap : 1);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, m->b, cap);
	struct rs_cursor c;
	rs_cur_init(&c, copy, cap);
	enum rs_rpcrdma_outcome o = rs_rpcrdma_decode(&c, wire, whole, hint, r);
	ck_assert_uint_le(c.off, cap);
	free(copy);
	ck_assert_int_eq(o, r->outcome);
	return o;
}

static enum rs_rpcrdma_outcome decode(const struct msg *m, const struct rs_rpc_hint *hint, struct rs_rpcrdma *r)
{
	return decode_cut(m, m->n, m->n, true, hint, r);
}

#define XID 0x4c67bef1u

static void hdr(struct msg *m, uint32_t xid, uint32_t credits, uint32_t proc)
{
	m->n = 0;
	w32(m, xid);
	w32(m, 1);
	w32(m, credits);
	w32(m, proc);
}

/* An RPC call header with AUTH_UNIX credentials (flavor 1, 24 bytes of
 * body) and an AUTH_NONE verifier. */
static void call(struct msg *m, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc)
{
	static const uint8_t body[24] = { 0, 0, 0, 1, 0, 0, 0, 0 };
	w32(m, xid);
	w32(m, 0);
	w32(m, 2);
	w32(m, prog);
	w32(m, vers);
	w32(m, proc);
	w32(m, 1);
	wopaque(m, body, sizeof body);
	w32(m, 0);
	w32(m, 0);
}

static void accepted(struct msg *m, uint32_t xid, uint32_t accept_stat)
{
	w32(m, xid);
	w32(m, 1);
	w32(m, 0);      /* MSG_ACCEPTED */
	w32(m, 0);      /* verifier AUTH_NONE, empty */
	w32(m, 0);
	w32(m, accept_stat);
}

/* The sample's first NFSv3 WRITE: RDMA_MSG, one read segment at XDR
 * position 112 (its data), empty write list and reply chunk. */
static void v3_write(struct msg *m)
{
	hdr(m, XID, 128, RS_RDMA_MSG);
	w32(m, 1);
	w32(m, 112);
	w32(m, 0x926);
	w32(m, 4096);
	w64(m, 0x4c67bef1885ca000ull);
	w32(m, 0);
	w32(m, 0);
	w32(m, 0);
	call(m, XID, RS_RPC_PROG_NFS, 3, 7);
	static const uint8_t fh[32] = { 1 };
	wopaque(m, fh, sizeof fh);      /* WRITE3args: file, offset, count, stable, data */
	w64(m, 0);
	w32(m, 4096);
	w32(m, 2);
	w32(m, 4096);
}

START_TEST(test_v3_write_call)
{
	struct msg m;
	struct rs_rpcrdma r;
	v3_write(&m);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert_uint_eq(r.xid, XID);
	ck_assert_uint_eq(r.vers, 1);
	ck_assert_uint_eq(r.credits, 128);
	ck_assert_uint_eq(r.proc, RS_RDMA_MSG);
	ck_assert_uint_eq(r.n_read, 1);
	ck_assert_uint_eq(r.n_write_chunks, 0);
	ck_assert(!r.has_reply_chunk);
	ck_assert_uint_eq(r.nsegs, 1);
	ck_assert_uint_eq(r.segs[0].list, RS_RDMA_READ_LIST);
	ck_assert_uint_eq(r.segs[0].position, 112);
	ck_assert_uint_eq(r.segs[0].handle, 0x926);
	ck_assert_uint_eq(r.segs[0].length, 4096);
	ck_assert(r.segs[0].offset == 0x4c67bef1885ca000ull);
	ck_assert(r.read_bytes == 4096);
	ck_assert_uint_eq(r.hdr_len, 52);
	ck_assert(r.has_rpc);
	ck_assert_uint_eq(r.rpc.xid, XID);
	ck_assert_uint_eq(r.rpc.msg_type, RS_RPC_CALL);
	ck_assert_uint_eq(r.rpc.rpcvers, 2);
	ck_assert_uint_eq(r.rpc.prog, 100003);
	ck_assert_uint_eq(r.rpc.vers, 3);
	ck_assert_uint_eq(r.rpc.proc, 7);
	ck_assert_uint_eq(r.rpc.cred_flavor, 1);
	ck_assert_str_eq(rs_nfs3_proc_name(r.rpc.proc), "WRITE");
	ck_assert_str_eq(rs_rpcrdma_proc_name(r.proc), "RDMA_MSG");
	/* The header's XID and the RPC message's must be the same. */
	rt_be32(m.b + 52, XID + 1);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_MALFORMED);
	ck_assert(strstr(r.why, "XID") != NULL);
}
END_TEST

/* A READ reply: the data went by RDMA WRITE into the write chunk; the
 * status is read only with the call's hint (a reply does not say). */
START_TEST(test_v3_reply_status)
{
	struct msg m;
	struct rs_rpcrdma r;
	hdr(&m, 0x5867bef1, 64, RS_RDMA_MSG);
	w32(&m, 0);                     /* read list */
	w32(&m, 1);                     /* a write chunk of one segment */
	w32(&m, 1);
	w32(&m, 0x8d9);
	w32(&m, 8192);
	w64(&m, 0x5867bef1885c8000ull);
	w32(&m, 0);
	w32(&m, 0);                     /* reply chunk */
	accepted(&m, 0x5867bef1, 0);
	w32(&m, 2);                     /* NFS3ERR_NOENT */
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert_uint_eq(r.n_write_chunks, 1);
	ck_assert_uint_eq(r.n_write_segs, 1);
	ck_assert_uint_eq(r.segs[0].list, RS_RDMA_WRITE_LIST);
	ck_assert(r.write_bytes == 8192);
	ck_assert_uint_eq(r.rpc.msg_type, RS_RPC_REPLY);
	ck_assert_uint_eq(r.rpc.reply_stat, 0);
	ck_assert_uint_eq(r.rpc.accept_stat, 0);
	ck_assert(!r.rpc.have_status);
	/* Without the call: the results' first word, for the caller to take
	 * as the status once it knows the call was NFSv3's. */
	ck_assert(r.rpc.have_res_word);
	ck_assert_uint_eq(r.rpc.res_word, 2);
	struct rs_rpc_hint h = { .prog = RS_RPC_PROG_NFS, .vers = 3, .proc = 6 };
	ck_assert_int_eq(decode(&m, &h, &r), RS_RPCRDMA_OK);
	ck_assert(r.rpc.have_status);
	ck_assert_uint_eq(r.rpc.status, 2);
	ck_assert_str_eq(rs_nfs3_status_name(r.rpc.status), "NFS3ERR_NOENT");
	ck_assert_str_eq(rs_rpc_accept_stat_name(0), "SUCCESS");
}
END_TEST

/* Denied and not-successful replies (RFC 5531 9). */
START_TEST(test_rpc_rejections)
{
	struct msg m;
	struct rs_rpcrdma r;
	hdr(&m, 7, 1, RS_RDMA_MSG);
	w32(&m, 0); w32(&m, 0); w32(&m, 0);
	w32(&m, 7); w32(&m, 1);
	w32(&m, 1);                     /* MSG_DENIED */
	w32(&m, 1);                     /* AUTH_ERROR */
	w32(&m, 1);                     /* AUTH_BADCRED */
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert_uint_eq(r.rpc.reply_stat, 1);
	ck_assert_uint_eq(r.rpc.reject_stat, 1);
	ck_assert_uint_eq(r.rpc.auth_stat, 1);
	rt_be32(m.b + 40, 0);           /* RPC_MISMATCH 2..2 */
	rt_be32(m.b + 44, 2);
	w32(&m, 2);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert_uint_eq(r.rpc.mismatch_low, 2);
	ck_assert_uint_eq(r.rpc.mismatch_high, 2);
	rt_be32(m.b + 40, 5);           /* a reject_stat RFC 5531 does not have */
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_MALFORMED);
	rt_be32(m.b + 36, 7);           /* reply_stat 7 */
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_MALFORMED);
	rt_be32(m.b + 32, 2);           /* msg_type 2 */
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_MALFORMED);
	ck_assert(strstr(r.why, "message type") != NULL);
	/* PROG_MISMATCH 3..4 */
	hdr(&m, 8, 1, RS_RDMA_MSG);
	w32(&m, 0); w32(&m, 0); w32(&m, 0);
	accepted(&m, 8, 2);
	w32(&m, 3);
	w32(&m, 4);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert_uint_eq(r.rpc.accept_stat, 2);
	ck_assert_uint_eq(r.rpc.mismatch_high, 4);
	/* An RPC call of version 3. */
	hdr(&m, 9, 1, RS_RDMA_MSG);
	w32(&m, 0); w32(&m, 0); w32(&m, 0);
	call(&m, 9, 100003, 3, 0);
	rt_be32(m.b + 36, 3);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_UNSUPPORTED);
	/* A credential longer than 400 bytes. */
	rt_be32(m.b + 36, 2);
	rt_be32(m.b + 56, 401);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_MALFORMED);
}
END_TEST

/* RDMA_NOMSG with a reply chunk of three segments: the reply is all in
 * it, nothing inline; RDMA_ERROR, RDMA_DONE, RDMA_MSGP. */
START_TEST(test_procedures)
{
	struct msg m;
	struct rs_rpcrdma r;
	hdr(&m, 0x4a67bef1, 128, RS_RDMA_NOMSG);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, 1);
	w32(&m, 3);
	static const uint32_t h[3] = { 0xcba, 0xb63, 0xa87 }, l[3] = { 256, 28672, 4 };
	for (int i = 0; i < 3; i++) {
		w32(&m, h[i]);
		w32(&m, l[i]);
		w64(&m, 0x4a67bef185127000ull + 0x100u * (uint64_t)i);
	}
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert(r.has_reply_chunk && !r.has_rpc);
	ck_assert_uint_eq(r.n_reply_segs, 3);
	ck_assert_uint_eq(r.segs[2].handle, 0xa87);
	ck_assert(r.reply_bytes == 256 + 28672 + 4);
	hdr(&m, 1, 0, RS_RDMA_ERROR);
	w32(&m, 1);                     /* ERR_VERS 1..1 */
	w32(&m, 1);
	w32(&m, 1);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert_uint_eq(r.err, 1);
	ck_assert_uint_eq(r.vers_high, 1);
	ck_assert_uint_eq(r.hdr_len, 28);
	rt_be32(m.b + 16, 7);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_UNSUPPORTED);
	hdr(&m, 1, 0, RS_RDMA_DONE);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert_uint_eq(r.hdr_len, 16);
	hdr(&m, 1, 4, RS_RDMA_MSGP);
	w32(&m, 0); w32(&m, 0); w32(&m, 0);
	w32(&m, 4096);
	w32(&m, 1024);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert_uint_eq(r.align, 4096);
	ck_assert_uint_eq(r.thresh, 1024);
	ck_assert(!r.has_rpc);
	hdr(&m, 1, 4, 9);               /* procedure 9 */
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_UNSUPPORTED);
	hdr(&m, 1, 4, 0);
	rt_be32(m.b + 4, 2);            /* version 2 */
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_UNSUPPORTED);
	rt_be32(m.b + 4, 0x12345678);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_NOT);
	ck_assert_int_eq(decode_cut(&m, 12, 12, true, NULL, &r), RS_RPCRDMA_NOT);
	ck_assert_str_eq(rs_rpcrdma_outcome_name(RS_RPCRDMA_CONTINUED), "continued");
}
END_TEST

/* Chunk lists that lie: a segment count of 2^28 in a 40-byte message, a
 * discriminator of 2, a read list that never ends; in the first packet of
 * a longer SEND the same count may just be the rest of the message. */
START_TEST(test_lying_lists)
{
	struct msg m;
	struct rs_rpcrdma r;
	hdr(&m, 1, 1, RS_RDMA_MSG);
	w32(&m, 0);
	w32(&m, 1);
	w32(&m, 1u << 28);
	w32(&m, 0);
	w32(&m, 0);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_MALFORMED);
	ck_assert(strstr(r.why, "segment count") != NULL);
	ck_assert_uint_eq(r.nsegs, 0);
	ck_assert_int_eq(decode_cut(&m, m.n, m.n, false, NULL, &r), RS_RPCRDMA_CONTINUED);
	hdr(&m, 1, 1, RS_RDMA_MSG);
	w32(&m, 2);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_MALFORMED);
	ck_assert(strstr(r.why, "discriminator") != NULL);
	hdr(&m, 1, 1, RS_RDMA_MSG);
	for (int i = 0; i < 3; i++) {   /* three entries, then the message ends */
		w32(&m, 1);
		w32(&m, 0);
		w32(&m, 1);
		w32(&m, 2);
		w64(&m, 3);
	}
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_MALFORMED);
	ck_assert_uint_eq(r.n_read, 3);
	/* Twenty read segments: sixteen kept, four counted. */
	hdr(&m, 1, 1, RS_RDMA_NOMSG);
	for (int i = 0; i < 20; i++) {
		w32(&m, 1);
		w32(&m, 0);
		w32(&m, (uint32_t)i);
		w32(&m, 100);
		w64(&m, 0);
	}
	w32(&m, 0); w32(&m, 0); w32(&m, 0);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert_uint_eq(r.n_read, 20);
	ck_assert_uint_eq(r.nsegs, RS_RPCRDMA_MAX_SEGS);
	ck_assert_uint_eq(r.segs_dropped, 4);
	ck_assert(r.read_bytes == 2000);
}
END_TEST

/* Every cut of the WRITE call is truncated, and what was captured is read. */
START_TEST(test_truncated_everywhere)
{
	struct msg m;
	struct rs_rpcrdma r;
	v3_write(&m);
	/* The decoder reads up to the end of the RPC call header (byte 116);
	 * NFSv3 arguments after it are not decoded, so a cut there costs nothing. */
	for (uint32_t cap = 8; cap < m.n; cap++) {
		if (cap >= 116) {
			ck_assert_int_eq(decode_cut(&m, cap, m.n, true, NULL, &r), RS_RPCRDMA_OK);
			continue;
		}
		ck_assert_int_eq(decode_cut(&m, cap, m.n, true, NULL, &r), RS_RPCRDMA_TRUNCATED);
		ck_assert_uint_eq(r.xid, XID);
		/* a segment is kept once all 16 bytes of it are captured */
		ck_assert_uint_eq(r.nsegs, cap >= 40);
		if (cap >= 40)
			ck_assert_uint_eq(r.segs[0].handle, 0x926);
		if (cap >= 68)
			ck_assert_uint_eq(r.rpc.prog, 100003);
	}
	ck_assert_int_eq(decode_cut(&m, m.n, m.n, true, NULL, &r), RS_RPCRDMA_OK);
}
END_TEST

static void v4_call(struct msg *m, uint32_t xid, bool data_in_chunk)
{
	hdr(m, xid, 128, RS_RDMA_MSG);
	if (data_in_chunk) {
		w32(m, 1);
		w32(m, 0);              /* position: filled in below */
		w32(m, 0x1234);
		w32(m, 8192);
		w64(m, 0xabc000);
	}
	w32(m, 0); w32(m, 0); w32(m, 0);
	uint32_t rpc = m->n;
	call(m, xid, RS_RPC_PROG_NFS, 4, RS_NFS4_COMPOUND);
	wopaque(m, "tag", 3);
	w32(m, 1);                      /* minorversion */
	w32(m, 4);
	w32(m, 53);                     /* SEQUENCE: sessionid, seq, slot, highest, cachethis */
	for (int i = 0; i < 8; i++)
		w32(m, (uint32_t)i);
	w32(m, 22);                     /* PUTFH */
	static const uint8_t fh[28] = { 9 };
	wopaque(m, fh, sizeof fh);
	w32(m, 38);                     /* WRITE: stateid, offset, stable, data */
	for (int i = 0; i < 4; i++)
		w32(m, 0);
	w64(m, 0);
	w32(m, 2);
	w32(m, 8192);
	if (data_in_chunk) {
		rt_be32(m->b + 20, m->n - rpc);
	} else {
		memset(m->b + m->n, 0x5A, 8192);
		m->n += 8192;
	}
	w32(m, 9);                      /* GETATTR: bitmap4 of 2 words */
	w32(m, 2);
	w32(m, 0x10);
	w32(m, 0x20);
}

START_TEST(test_v4_compound_call)
{
	static struct msg m;
	struct rs_rpcrdma r;
	v4_call(&m, 0x7ee36aff, true);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert_uint_eq(r.rpc.tag_len, 3);
	ck_assert_uint_eq(r.rpc.minorversion, 1);
	ck_assert_uint_eq(r.rpc.nops, 4);
	ck_assert_uint_eq(r.rpc.ops_read, 4);
	ck_assert(!r.rpc.ops_partial);
	static const uint32_t want[4] = { 53, 22, 38, 9 };
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(r.rpc.ops[i], want[i]);
	ck_assert_str_eq(rs_nfs4_op_name(38), "WRITE");
	ck_assert_uint_eq(r.rpc.xdr_len, m.n - 52);
	for (uint32_t cap = 8; cap < m.n; cap++)
		ck_assert_int_eq(decode_cut(&m, cap, m.n, true, NULL, &r), RS_RPCRDMA_TRUNCATED);
	/* The same data inline (no read chunk) is skipped by its length. */
	v4_call(&m, 0x7ee36aff, false);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert_uint_eq(r.rpc.ops_read, 4);
	ck_assert_uint_eq(r.rpc.ops[3], 9);
	/* An operation count of a million in a message of 4 operations. */
	v4_call(&m, 0x7ee36aff, true);
	rt_be32(m.b + 128, 1000000);    /* header 16, read list 28, call header 64, tag 8, minorversion */
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_MALFORMED);
	ck_assert(strstr(r.why, "operation count") != NULL);
	/* LAYOUTGET (50), whose arguments are not decoded, in second place. */
	v4_call(&m, 0x7ee36aff, true);
	rt_be32(m.b + 132 + 36, 50);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_UNSUPPORTED);
	ck_assert_uint_eq(r.rpc.ops_read, 2);
	ck_assert_uint_eq(r.rpc.ops[1], 50);
	ck_assert(r.rpc.ops_partial);
}
END_TEST

START_TEST(test_v4_compound_reply)
{
	struct msg m;
	struct rs_rpcrdma r;
	hdr(&m, 0x7ee36aff, 64, RS_RDMA_MSG);
	w32(&m, 0); w32(&m, 0); w32(&m, 0);
	accepted(&m, 0x7ee36aff, 0);
	w32(&m, 2);                     /* COMPOUND status NFS4ERR_NOENT */
	wopaque(&m, "", 0);
	w32(&m, 3);
	w32(&m, 53);                    /* SEQUENCE ok: sessionid, seq, slot, highest, target, flags */
	w32(&m, 0);
	for (int i = 0; i < 9; i++)
		w32(&m, (uint32_t)i);
	w32(&m, 22);                    /* PUTFH ok */
	w32(&m, 0);
	w32(&m, 15);                    /* LOOKUP NFS4ERR_NOENT */
	w32(&m, 2);
	struct rs_rpc_hint h = { .prog = RS_RPC_PROG_NFS, .vers = 4, .proc = 1 };
	ck_assert_int_eq(decode(&m, &h, &r), RS_RPCRDMA_OK);
	ck_assert(r.rpc.have_status);
	ck_assert_uint_eq(r.rpc.status, 2);
	ck_assert_uint_eq(r.rpc.ops_read, 3);
	ck_assert_uint_eq(r.rpc.ops[2], 15);
	ck_assert_uint_eq(r.rpc.op_status[0], 0);
	ck_assert_uint_eq(r.rpc.op_status[2], 2);
	ck_assert_str_eq(rs_nfs4_status_name(r.rpc.status), "NFS4ERR_NOENT");
	/* Without the hint: the same operations and statuses, read as a
	 * COMPOUND's results (as_compound), the status as the first word. */
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert(!r.rpc.have_status);
	ck_assert(r.rpc.as_compound);
	ck_assert(r.rpc.have_res_word);
	ck_assert_uint_eq(r.rpc.res_word, 2);
	ck_assert_uint_eq(r.rpc.ops_read, 3);
	ck_assert_uint_eq(r.rpc.ops[2], 15);
	ck_assert_uint_eq(r.rpc.op_status[2], 2);
	/* An NFSv3 reply (status, then post_op_attr absent) does not read as
	 * a COMPOUND's whole results: its first word is still there. */
	hdr(&m, 0x7fe36aff, 64, RS_RDMA_MSG);
	w32(&m, 0); w32(&m, 0); w32(&m, 0);
	accepted(&m, 0x7fe36aff, 0);
	w32(&m, 70);                    /* NFS3ERR_STALE */
	w32(&m, 0);
	ck_assert_int_eq(decode(&m, NULL, &r), RS_RPCRDMA_OK);
	ck_assert(r.rpc.have_res_word);
	ck_assert_uint_eq(r.rpc.res_word, 70);
	ck_assert(!r.rpc.as_compound);
	ck_assert_uint_eq(r.rpc.ops_read, 0);
	hdr(&m, 0x7ee36aff, 64, RS_RDMA_MSG);
	w32(&m, 0); w32(&m, 0); w32(&m, 0);
	accepted(&m, 0x7ee36aff, 0);
	w32(&m, 2);
	wopaque(&m, "", 0);
	w32(&m, 3);
	w32(&m, 53);
	w32(&m, 0);
	for (int i = 0; i < 9; i++)
		w32(&m, (uint32_t)i);
	w32(&m, 22);
	w32(&m, 0);
	w32(&m, 15);
	w32(&m, 2);
	/* Cut after SEQUENCE's results and one more word: the count of 3
	 * operations lies (the second has no status). */
	m.n -= 12;
	rt_be32(m.b + m.n - 4, 0);
	ck_assert_int_ne(decode(&m, &h, &r), RS_RPCRDMA_OK);
}
END_TEST

/* Every byte of a call and a reply set to each of a few values: whatever
 * the outcome, the decoder stays inside the buffer (ASan under SAN=1) and
 * names a sentence for every malformed or unsupported one. */
START_TEST(test_mutations)
{
	static struct msg m, c;
	struct rs_rpcrdma r;
	static const uint8_t vals[] = { 0x00, 0x01, 0x02, 0x7F, 0x80, 0xFF };
	struct rs_rpc_hint h = { .prog = RS_RPC_PROG_NFS, .vers = 4, .proc = 1 };
	for (int which = 0; which < 2; which++) {
		v4_call(&m, 0x7ee36aff, which == 0);
		for (uint32_t i = 0; i < m.n && i < 400; i++)
			for (unsigned v = 0; v < sizeof vals; v++) {
				c = m;
				c.b[i] = vals[v];
				enum rs_rpcrdma_outcome o = decode(&c, which ? &h : NULL, &r);
				if (o == RS_RPCRDMA_MALFORMED || o == RS_RPCRDMA_UNSUPPORTED || o == RS_RPCRDMA_NOT)
					ck_assert_ptr_nonnull(r.why);
				ck_assert_uint_le(r.rpc.ops_read, RS_NFS4_MAX_OPS);
			}
	}
}
END_TEST

static enum rs_rpcrdma_outcome chunk_cut(const struct msg *m, uint32_t cap, uint32_t wire, struct rs_rpcrdma *r)
{
	uint8_t *copy = malloc(cap ? cap : 1);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, m->b, cap);
	struct rs_cursor c;
	rs_cur_init(&c, copy, cap);
	enum rs_rpcrdma_outcome o = rs_rpc_chunk_reply_decode(&c, wire, r);
	ck_assert_uint_le(c.off, cap);
	free(copy);
	ck_assert_int_eq(o, r->outcome);
	return o;
}

/* The RPC reply at a reply chunk's start (an RDMA WRITE's payload): its
 * status read when the header is whole; data, a header the packet cuts,
 * and fields RFC 5531 does not define are no reply. */
START_TEST(test_chunk_reply)
{
	static struct msg m;
	struct rs_rpcrdma r;
	m.n = 0;
	accepted(&m, XID, 0);
	w32(&m, 10013); /* NFS4ERR_GRACE, the COMPOUND's status */
	w32(&m, 0);     /* empty tag */
	w32(&m, 3);     /* 3 results, on in the next WRITE */
	ck_assert_int_ne(chunk_cut(&m, m.n, m.n + 200, &r), RS_RPCRDMA_NOT);
	ck_assert_uint_eq(r.xid, XID);
	ck_assert_uint_eq(r.proc, RS_RDMA_NOMSG);
	ck_assert(r.has_rpc && r.rpc.msg_type == RS_RPC_REPLY && r.rpc.reply_stat == 0 && r.rpc.accept_stat == 0);
	ck_assert(r.rpc.have_res_word);
	ck_assert_uint_eq(r.rpc.res_word, 10013);
	/* The header cut before the results' first word: not read. */
	ck_assert_int_eq(chunk_cut(&m, 24, 24, &r), RS_RPCRDMA_NOT);
	ck_assert_int_eq(chunk_cut(&m, 20, m.n, &r), RS_RPCRDMA_NOT);
	/* A call, or data, is no reply. */
	m.n = 0;
	call(&m, XID, RS_RPC_PROG_NFS, 3, 6);
	ck_assert_int_eq(chunk_cut(&m, m.n, m.n, &r), RS_RPCRDMA_NOT);
	memset(m.b, 0xA5, 256);
	ck_assert_int_eq(chunk_cut(&m, 256, 4096, &r), RS_RPCRDMA_NOT);
	/* Accepted with an accept_stat RFC 5531 does not define, a verifier
	 * longer than 400, a reply_stat of neither kind: no reply. */
	m.n = 0;
	accepted(&m, XID, 9);
	ck_assert_int_eq(chunk_cut(&m, m.n, m.n, &r), RS_RPCRDMA_NOT);
	m.n = 0;
	w32(&m, XID);
	w32(&m, 1);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, 401);
	ck_assert_int_eq(chunk_cut(&m, m.n, 1000, &r), RS_RPCRDMA_NOT);
	m.n = 0;
	w32(&m, XID);
	w32(&m, 1);
	w32(&m, 2);
	w32(&m, 0);
	w32(&m, 0);
	w32(&m, 0);
	ck_assert_int_eq(chunk_cut(&m, m.n, m.n, &r), RS_RPCRDMA_NOT);
	/* Denied (AUTH_ERROR, AUTH_BADCRED): read, a failure. */
	m.n = 0;
	w32(&m, XID);
	w32(&m, 1);
	w32(&m, 1);
	w32(&m, 1);
	w32(&m, 1);
	w32(&m, 0);
	ck_assert_int_eq(chunk_cut(&m, m.n, m.n, &r), RS_RPCRDMA_OK);
	ck_assert(r.rpc.reply_stat == 1 && r.rpc.reject_stat == 1 && r.rpc.auth_stat == 1);
	/* Accepted PROC_UNAVAIL: read, no results. */
	m.n = 0;
	accepted(&m, XID, 3);
	w32(&m, 0);
	ck_assert_int_eq(chunk_cut(&m, m.n, m.n, &r), RS_RPCRDMA_OK);
	ck_assert_uint_eq(r.rpc.accept_stat, 3);
}
END_TEST

static Suite *rpcrdma_suite(void)
{
	Suite *s = suite_create("rpcrdma");
	TCase *tc = tcase_create("messages");
	tcase_add_test(tc, test_v3_write_call);
	tcase_add_test(tc, test_v3_reply_status);
	tcase_add_test(tc, test_rpc_rejections);
	tcase_add_test(tc, test_procedures);
	tcase_add_test(tc, test_lying_lists);
	tcase_add_test(tc, test_truncated_everywhere);
	tcase_add_test(tc, test_v4_compound_call);
	tcase_add_test(tc, test_v4_compound_reply);
	tcase_add_test(tc, test_mutations);
	tcase_add_test(tc, test_chunk_reply);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(rpcrdma_suite());
}

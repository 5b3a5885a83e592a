/*
 * check_nfsrdma_state.c — the NFS/RDMA module's analysis
 * (proto/nfsrdma/nfsrdma_state.c) on hand-built frames of a connection the
 * CM says is NFS/RDMA's (port 20049), each SEND carrying a decoded
 * RPC-over-RDMA header as the dissector would have left it.
 *
 * What must follow from RFC 8166 and RFC 5531: a reply answers the call
 * with its XID (9.3.1 of RFC 5531: the XID is what pairs them); a call's
 * chunks name the handle (R_Key) and the address range the responder may
 * RDMA READ or WRITE (RFC 8166 3.4); a reply that is RDMA_NOMSG holds its
 * RPC message in the reply chunk (4.4.4); RDMA_ERROR answers a call it
 * could not take (4.3). Hostile inputs each have one counted outcome: an
 * XID reused while its call waits, replies without calls, a header whose
 * counts lie (malformed), a header the capture cut, segment and operation
 * counts beyond the arrays, more calls waiting than are kept.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/result.h"
#include "proto/nfsrdma/nfsrdma_state.h"
#include "proto/pdu.h"
#include "tests/support/afeed.h"
#include "tests/support/rstest.h"

#define A_HOST 1 /* 192.0.2.1, the server */
#define B_HOST 2 /* 192.0.2.2, the client */
#define C_PSN 900
#define S_PSN 500
#define MS 1000000ull

static struct rt_feed run;
static uint64_t now;
static struct rs_pdus pdus[8]; /* each frame's block: the analysis reads it while the frame is added */
static unsigned pdu_next;

static void setup(void)
{
	rt_feed_start(&run, (struct rs_analyzer_opts){ .interval_ns = 10000000 });
	now = 1000000000ull;
	pdu_next = 0;
}

static void teardown(void)
{
	rt_feed_stop(&run);
}

static uint64_t feed(struct rs_frame f, uint64_t after_ns)
{
	now += after_ns;
	rt_feed_add(&run, f, now, NULL);
	return run.frame_no;
}

static void handshake(void)
{
	struct rs_frame hs[3];
	rt_cm_handshake(hs, B_HOST, A_HOST, S_PSN, C_PSN, 0x0000000001060000ull | 20049);
	feed(hs[0], 0);
	feed(hs[1], 0);
	feed(hs[2], 0);
}

/* A header as the decoder leaves it: an RDMA_MSG with an RPC message. */
static struct rs_rpcrdma msg(uint32_t xid, uint32_t type)
{
	struct rs_rpcrdma r = { .outcome = RS_RPCRDMA_OK, .xid = xid, .vers = 1, .credits = 32, .proc = RS_RDMA_MSG,
				.has_rpc = true };
	r.rpc.xid = xid;
	r.rpc.msg_type = type;
	return r;
}

static struct rs_rpcrdma v3_call(uint32_t xid, uint32_t proc)
{
	struct rs_rpcrdma r = msg(xid, RS_RPC_CALL);
	r.rpc.rpcvers = 2;
	r.rpc.prog = RS_RPC_PROG_NFS;
	r.rpc.vers = 3;
	r.rpc.proc = proc;
	return r;
}

/* An accepted reply whose results begin with `status`. */
static struct rs_rpcrdma v3_reply(uint32_t xid, uint32_t status)
{
	struct rs_rpcrdma r = msg(xid, RS_RPC_REPLY);
	r.rpc.have_res_word = true;
	r.rpc.res_word = status;
	return r;
}

static void add_seg(struct rs_rpcrdma *r, uint8_t list, uint32_t handle, uint32_t len, uint64_t off)
{
	r->segs[r->nsegs++] = (struct rs_rdma_seg){ .list = list, .handle = handle, .length = len, .offset = off };
	if (list == RS_RDMA_READ_LIST) {
		r->n_read++;
		r->read_bytes += len;
	} else if (list == RS_RDMA_WRITE_LIST) {
		r->n_write_chunks = 1;
		r->n_write_segs++;
		r->write_bytes += len;
	} else {
		r->has_reply_chunk = true;
		r->n_reply_segs++;
		r->reply_bytes += len;
	}
}

/* A SEND Only from the client (to QP 0x11) or the server (to QP 0x12). */
static uint64_t sendm(bool from_client, uint32_t psn, const struct rs_rpcrdma *r, uint64_t after_ns)
{
	struct rs_frame f = from_client ? rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x11, psn, 200)
					: rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, psn, 200);
	struct rs_pdus *p = &pdus[pdu_next++ % 8];
	memset(p, 0, sizeof *p);
	p->have = RS_PDU_RPCRDMA;
	p->rpc = *r;
	f.pdu = p;
	return feed(f, after_ns);
}

static uint64_t server_write(uint8_t op, uint32_t psn, uint32_t rkey, uint64_t va, uint32_t len, uint32_t payload)
{
	struct rs_frame f = rt_roce_frame(A_HOST, B_HOST, op, 0x12, psn, payload);
	f.reth.rkey = rkey;
	f.reth.va = va;
	f.reth.dmalen = len;
	return feed(f, 10000);
}

/* A WRITE Only from the server whose payload the decoder read as an RPC
 * reply (RS_PDU_RPCREPLY): XID, accepted SUCCESS, results' first word. */
static uint64_t chunk_write(uint32_t psn, uint32_t rkey, uint64_t va, uint32_t xid, uint32_t res_word)
{
	struct rs_frame f = rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_RDMA_WRITE_ONLY, 0x12, psn, 100);
	f.reth.rkey = rkey;
	f.reth.va = va;
	f.reth.dmalen = 100;
	struct rs_pdus *p = &pdus[pdu_next++ % 8];
	memset(p, 0, sizeof *p);
	p->have = RS_PDU_RPCREPLY;
	p->rpc.xid = xid;
	p->rpc.proc = RS_RDMA_NOMSG;
	p->rpc.has_rpc = true;
	p->rpc.rpc.xid = xid;
	p->rpc.rpc.msg_type = RS_RPC_REPLY;
	p->rpc.rpc.have_res_word = true;
	p->rpc.rpc.res_word = res_word;
	f.pdu = p;
	return feed(f, 10000);
}

static uint64_t ack(bool from_client, uint32_t psn, uint8_t syndrome)
{
	struct rs_frame f = from_client ? rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_ACKNOWLEDGE, 0x11, psn, 0)
					: rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_ACKNOWLEDGE, 0x12, psn, 0);
	f.aeth.syndrome = syndrome;
	return feed(f, 1000);
}

static struct rs_nfs_info info;

static const struct rs_nfs_info *result(void)
{
	rs_analyzer_finish(run.an);
	size_t pos = 0;
	const struct rs_conn *c = rs_conns_next(run.an, &pos);
	ck_assert_ptr_nonnull(c);
	ck_assert(rs_conn_nfs(c, &info));
	return &info;
}

START_TEST(call_reply_and_chunk)
{
	handshake();
	struct rs_rpcrdma c = v3_call(0x100, 6); /* READ: its data into a write chunk */
	add_seg(&c, RS_RDMA_WRITE_LIST, 0x77, 8192, 0x10000);
	uint64_t cf = sendm(true, C_PSN, &c, 0);
	ack(false, C_PSN, 0);
	server_write(IBV_OPCODE_RC_RDMA_WRITE_FIRST, S_PSN, 0x77, 0x10000, 8192, 4096);
	server_write(IBV_OPCODE_RC_RDMA_WRITE_LAST, S_PSN + 1, 0, 0, 0, 4096);
	struct rs_rpcrdma r = v3_reply(0x100, 0);
	uint64_t rf = sendm(false, S_PSN + 2, &r, 3 * MS);
	ack(true, S_PSN + 2, 0);
	const struct rs_nfs_info *q = result();
	ck_assert_uint_eq(q->calls, 1);
	ck_assert_uint_eq(q->replies, 1);
	ck_assert_uint_eq(q->unanswered, 0);
	ck_assert_uint_eq(q->segs[RS_RDMA_WRITE_LIST], 1);
	ck_assert_uint_eq(q->seg_bytes[RS_RDMA_WRITE_LIST], 8192);
	ck_assert_uint_eq(q->writes, 1);
	ck_assert_uint_eq(q->write_bytes, 8192);
	ck_assert_uint_eq(q->untied, 0);
	ck_assert_uint_eq(q->nkinds, 1);
	ck_assert_uint_eq(q->kinds[0].id.proc, 6);
	ck_assert_uint_eq(q->kinds[0].rdma_write_bytes, 8192);
	ck_assert_uint_eq(q->kinds[0].lat.n, 1);
	ck_assert_uint_eq(q->nslow, 1);
	ck_assert_uint_eq(q->slow[0].call_at.frame, cf);
	ck_assert_uint_eq(q->slow[0].reply_at.frame, rf);
	ck_assert_uint_eq(q->slow[0].ns, q->kinds[0].lat.max);
	ck_assert(!q->slow[0].resent);
	ck_assert_uint_eq(q->resent_for, 0);
}
END_TEST

/* A WRITE to a handle no call lent, and one to a lent handle outside the
 * lent range: neither is the call's. */
START_TEST(untied_transfers)
{
	handshake();
	struct rs_rpcrdma c = v3_call(0x101, 6);
	add_seg(&c, RS_RDMA_WRITE_LIST, 0x77, 4096, 0x10000);
	sendm(true, C_PSN, &c, 0);
	server_write(IBV_OPCODE_RC_RDMA_WRITE_ONLY, S_PSN, 0x99, 0x10000, 100, 100);
	server_write(IBV_OPCODE_RC_RDMA_WRITE_ONLY, S_PSN + 1, 0x77, 0x20000, 100, 100);
	const struct rs_nfs_info *q = result();
	ck_assert_uint_eq(q->writes, 2);
	ck_assert_uint_eq(q->untied, 2);
	ck_assert_uint_eq(q->kinds[0].rdma_write_bytes, 0);
	ck_assert_uint_eq(q->unanswered, 1);
	ck_assert_uint_eq(q->nunans, 1);
	ck_assert_uint_eq(q->unans[0].xid, 0x101);
}
END_TEST

/* The XID of a waiting call again, in a new SEND (another PSN): a new call;
 * the first is never answered. The reply answers the second. */
START_TEST(xid_reuse)
{
	handshake();
	struct rs_rpcrdma c = v3_call(0x200, 1);
	uint64_t first = sendm(true, C_PSN, &c, 0);
	sendm(true, C_PSN + 1, &c, MS);
	struct rs_rpcrdma r = v3_reply(0x200, 0);
	sendm(false, S_PSN, &r, MS);
	const struct rs_nfs_info *q = result();
	ck_assert_uint_eq(q->calls, 2);
	ck_assert_uint_eq(q->xid_reused, 1);
	ck_assert_uint_eq(q->replies, 1);
	ck_assert_uint_eq(q->unanswered, 1);
	ck_assert_uint_eq(q->nunans, 1);
	ck_assert_uint_eq(q->unans[0].call_at.frame, first);
	ck_assert_uint_eq(q->kinds[0].lat.max, MS); /* from the second call */
}
END_TEST

/* Replies to no call seen, and a reply seen twice (same PSN): one
 * unmatched each, the second counted once. */
START_TEST(replies_without_calls)
{
	handshake();
	struct rs_rpcrdma r = v3_reply(0x300, 0);
	sendm(false, S_PSN, &r, 0);
	struct rs_rpcrdma c = v3_call(0x301, 1);
	sendm(true, C_PSN, &c, MS);
	struct rs_rpcrdma r2 = v3_reply(0x301, 0);
	sendm(false, S_PSN + 1, &r2, MS);
	sendm(false, S_PSN + 1, &r2, MS); /* the same SEND again */
	const struct rs_nfs_info *q = result();
	ck_assert_uint_eq(q->unmatched, 1);
	ck_assert_uint_eq(q->replies, 1);
	ck_assert_uint_eq(q->again, 1);
	ck_assert_uint_eq(q->calls, 1);
}
END_TEST

/* Headers whose counts lie (the decoder said malformed), a header cut by
 * the capture, and a decoded header whose segment and operation counts
 * exceed what the arrays hold: counted, nothing read past the arrays. */
START_TEST(lying_headers)
{
	handshake();
	struct rs_rpcrdma bad = v3_call(0x400, 7);
	bad.outcome = RS_RPCRDMA_MALFORMED;
	bad.why = "a chunk's segment count says more than the SEND holds";
	sendm(true, C_PSN, &bad, 0);
	struct rs_rpcrdma cut = v3_call(0x401, 7);
	cut.outcome = RS_RPCRDMA_TRUNCATED;
	sendm(true, C_PSN + 1, &cut, MS);
	struct rs_rpcrdma big = v3_call(0x402, 7);
	for (int i = 0; i < RS_RPCRDMA_MAX_SEGS; i++)
		add_seg(&big, RS_RDMA_READ_LIST, 0x500 + (uint32_t)i, 4096, 0x1000u * (uint32_t)i);
	big.nsegs = 0xFFFF;          /* lies beyond segs[] */
	big.n_read = 0xFFFF;
	sendm(true, C_PSN + 2, &big, MS);
	struct rs_rpcrdma v4 = msg(0x403, RS_RPC_CALL);
	v4.rpc.prog = RS_RPC_PROG_NFS;
	v4.rpc.vers = 4;
	v4.rpc.proc = RS_NFS4_COMPOUND;
	v4.rpc.nops = 1000000;
	v4.rpc.ops_read = 255;       /* lies beyond ops[] */
	sendm(true, C_PSN + 3, &v4, MS);
	const struct rs_nfs_info *q = result();
	ck_assert_uint_eq(q->bad, 1);
	ck_assert_uint_eq(q->cut, 1);
	ck_assert_uint_eq(q->calls, 2);
	ck_assert_uint_eq(q->segs[RS_RDMA_READ_LIST], 0xFFFF);
	ck_assert_uint_eq(q->nkinds, 2);
	ck_assert_uint_eq(q->kinds[1].id.nops, RS_NFS4_MAX_OPS);
	ck_assert(q->kinds[1].id.ops_more);
}
END_TEST

/* Failed calls: an NFSv3 status, an accept_stat, a denial, RDMA_ERROR, and
 * a reply in its reply chunk (RDMA_NOMSG: its status not read). */
START_TEST(failures)
{
	handshake();
	uint32_t psn = C_PSN, spsn = S_PSN;
	for (uint32_t x = 0x500; x < 0x505; x++) {
		struct rs_rpcrdma c = v3_call(x, 3);
		sendm(true, psn++, &c, MS);
	}
	struct rs_rpcrdma r = v3_reply(0x500, 2);
	sendm(false, spsn++, &r, MS);
	r = msg(0x501, RS_RPC_REPLY);
	r.rpc.accept_stat = 3;
	sendm(false, spsn++, &r, MS);
	r = msg(0x502, RS_RPC_REPLY);
	r.rpc.reply_stat = 1;
	r.rpc.reject_stat = 1;
	sendm(false, spsn++, &r, MS);
	r = (struct rs_rpcrdma){ .outcome = RS_RPCRDMA_OK, .xid = 0x503, .vers = 1, .proc = RS_RDMA_ERROR, .err = 2 };
	sendm(false, spsn++, &r, MS);
	r = (struct rs_rpcrdma){ .outcome = RS_RPCRDMA_OK, .xid = 0x504, .vers = 1, .proc = RS_RDMA_NOMSG };
	sendm(false, spsn++, &r, MS);
	const struct rs_nfs_info *q = result();
	ck_assert_uint_eq(q->replies, 5);
	ck_assert_uint_eq(q->nfs_errors, 1);
	ck_assert_uint_eq(q->rpc_errors, 3);
	ck_assert_uint_eq(q->not_read, 1);
	ck_assert_uint_eq(q->nerr, 4);
	ck_assert_uint_eq(q->err[0].what, RS_NFS_ERR_NFS);
	ck_assert_uint_eq(q->err[0].stat, 2);
	ck_assert_uint_eq(q->err[1].what, RS_NFS_ERR_ACCEPT);
	ck_assert_uint_eq(q->err[2].what, RS_NFS_ERR_DENIED);
	ck_assert_uint_eq(q->err[3].what, RS_NFS_ERR_RDMA);
	ck_assert_uint_eq(q->kinds[0].errors, 4);
}
END_TEST

/* More calls waiting than are kept: the oldest are forgotten, counted, and
 * their late replies are replies to no call seen. */
START_TEST(too_many_waiting)
{
	handshake();
	for (uint32_t i = 0; i <= RS_NFS_PENDING_MAX; i++) {
		struct rs_rpcrdma c = v3_call(0x10000 + i, 1);
		sendm(true, C_PSN + i, &c, 1000);
	}
	struct rs_rpcrdma r = v3_reply(0x10000, 0); /* the first, forgotten */
	sendm(false, S_PSN, &r, MS);
	r = v3_reply(0x10000 + RS_NFS_PENDING_MAX, 0);
	sendm(false, S_PSN + 1, &r, MS);
	const struct rs_nfs_info *q = result();
	ck_assert_uint_eq(q->calls, RS_NFS_PENDING_MAX + 1);
	ck_assert_uint_eq(q->forgotten, 1);
	ck_assert_uint_eq(q->unmatched, 1);
	ck_assert_uint_eq(q->replies, 1);
	ck_assert_uint_eq(q->unanswered, RS_NFS_PENDING_MAX);
	ck_assert_uint_eq(q->nunans, RS_NFS_UNANSWERED);
}
END_TEST

/* The server's reply and the WRITE before it lost: the client NAKs, the
 * server goes back (go-back-N) and sends both again. The transport judges
 * them re-sent; the call is one the fabric re-sent packets for, its reply
 * counted once, its latency to the reply's last sending. */
START_TEST(resent_for)
{
	handshake();
	struct rs_rpcrdma c = v3_call(0x600, 6);
	add_seg(&c, RS_RDMA_WRITE_LIST, 0x77, 100, 0x10000);
	sendm(true, C_PSN, &c, 0);
	struct rs_rpcrdma c2 = v3_call(0x601, 1);
	sendm(true, C_PSN + 1, &c2, 1000);
	ack(false, C_PSN + 1, 0);
	server_write(IBV_OPCODE_RC_RDMA_WRITE_ONLY, S_PSN, 0x77, 0x10000, 100, 100);
	struct rs_rpcrdma r = v3_reply(0x600, 0);
	sendm(false, S_PSN + 1, &r, MS);
	struct rs_rpcrdma r2 = v3_reply(0x601, 0);
	sendm(false, S_PSN + 2, &r2, 1000);
	ack(true, S_PSN, 0x60);               /* NAK: PSN sequence error, expecting S_PSN */
	server_write(IBV_OPCODE_RC_RDMA_WRITE_ONLY, S_PSN, 0x77, 0x10000, 100, 100);
	uint64_t again = sendm(false, S_PSN + 1, &r, 1000);
	sendm(false, S_PSN + 2, &r2, 1000);
	ack(true, S_PSN + 2, 0);
	const struct rs_nfs_info *q = result();
	ck_assert_uint_eq(q->calls, 2);
	ck_assert_uint_eq(q->replies, 2);
	ck_assert_uint_eq(q->writes, 1);      /* the WRITE once */
	ck_assert_uint_eq(q->again, 2);       /* the replies' SENDs again */
	ck_assert_uint_eq(q->resent_for, 2);
	ck_assert_uint_eq(q->kinds[0].resent + q->kinds[1].resent, 2);
	ck_assert_uint_eq(q->nslow_resent, 2);
	ck_assert(q->slow[0].resent && q->slow[1].resent);
	/* The latency runs to the reply's last sending: the client took that one. */
	unsigned k = q->slow[0].xid == 0x600 ? 0 : 1;
	ck_assert_uint_eq(q->slow[k].xid, 0x600);
	ck_assert_uint_eq(q->slow[k].reply_at.frame, again);
}
END_TEST

/* RDMA_NOMSG replies: the status read from the first WRITE to the start
 * of the call's reply chunk (with the call's XID); a WRITE elsewhere in the
 * chunk or with another XID is no reply, and the status stays unread. */
START_TEST(reply_chunk_status)
{
	handshake();
	struct rs_rpcrdma c = v3_call(0x500, 16); /* READDIR: a long reply */
	add_seg(&c, RS_RDMA_REPLY_CHUNK, 0x55, 4096, 0x8000);
	sendm(true, C_PSN, &c, 0);
	chunk_write(S_PSN, 0x55, 0x8000, 0x500, 70); /* NFS3ERR_STALE */
	struct rs_rpcrdma r = msg(0x500, RS_RPC_REPLY);
	r.proc = RS_RDMA_NOMSG;
	r.has_rpc = false;
	sendm(false, S_PSN + 1, &r, MS);
	struct rs_rpcrdma c2 = v3_call(0x501, 16);
	add_seg(&c2, RS_RDMA_REPLY_CHUNK, 0x56, 4096, 0x9000);
	sendm(true, C_PSN + 1, &c2, MS);
	chunk_write(S_PSN + 2, 0x56, 0x9010, 0x501, 70); /* not the chunk's start */
	struct rs_rpcrdma r2 = msg(0x501, RS_RPC_REPLY);
	r2.proc = RS_RDMA_NOMSG;
	r2.has_rpc = false;
	sendm(false, S_PSN + 3, &r2, MS);
	struct rs_rpcrdma c3 = v3_call(0x502, 16);
	add_seg(&c3, RS_RDMA_REPLY_CHUNK, 0x57, 4096, 0xA000);
	sendm(true, C_PSN + 2, &c3, MS);
	chunk_write(S_PSN + 4, 0x57, 0xA000, 0x999, 0); /* another XID */
	struct rs_rpcrdma r3 = msg(0x502, RS_RPC_REPLY);
	r3.proc = RS_RDMA_NOMSG;
	r3.has_rpc = false;
	sendm(false, S_PSN + 5, &r3, MS);
	const struct rs_nfs_info *q = result();
	ck_assert_uint_eq(q->replies, 3);
	ck_assert_uint_eq(q->nfs_errors, 1);
	ck_assert_uint_eq(q->not_read, 2);
	ck_assert_uint_eq(q->nerr, 1);
	ck_assert_uint_eq(q->err[0].call.xid, 0x500);
	ck_assert_uint_eq(q->err[0].stat, 70);
	ck_assert_uint_eq(q->kinds[0].errors, 1);
	ck_assert_uint_eq(q->untied, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("nfsrdma_state");
	TCase *t = tcase_create("state");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	tcase_add_test(t, call_reply_and_chunk);
	tcase_add_test(t, untied_transfers);
	tcase_add_test(t, xid_reuse);
	tcase_add_test(t, replies_without_calls);
	tcase_add_test(t, lying_headers);
	tcase_add_test(t, failures);
	tcase_add_test(t, too_many_waiting);
	tcase_add_test(t, resent_for);
	tcase_add_test(t, reply_chunk_status);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}

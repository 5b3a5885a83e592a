/*
 * check_sendmsg.c — RC SEND messages as the protocol modules get them
 * (analyzer/sendmsg.c), on hand-built frames of a connection the CM says
 * is SMB Direct's (port 5445).
 *
 * What must follow from IBA vol 1: a SEND is a First, Middles and a Last
 * at consecutive PSNs, or an Only (9.4.3, 9.7.4); a packet behind the
 * expected PSN was sent again (9.7.1), so a PSN counts once; a responder
 * ACKs only PSNs it received (9.7.5.1), so an ACK past a gap says the
 * capture, not the fabric, missed those PSNs.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/transport/transport.h"
#include "proto/pdu.h"
#include "proto/proto.h"
#include "tests/support/afeed.h"
#include "tests/support/rstest.h"

#define A_HOST 1 /* 192.0.2.1, the server */
#define B_HOST 2 /* 192.0.2.2, the client */
#define C_PSN 900 /* the client's first PSN (the REP's Starting PSN) */
#define S_PSN 500 /* the server's (the REQ's) */

static struct rt_feed run;
static struct rs_analyzer *an;

#define MAXMSG 16
struct tapped {
	struct rs_sendmsg m;
	bool from_client;
	uint64_t at_frame; /* the frame being added when it was handed on */
	bool pdu;
	uint64_t mid;      /* its PDU's SMB2 message ID */
};
static struct tapped got[MAXMSG];
static unsigned ngot;

static void tap(void *ctx, const struct rs_flow *fl, const struct rs_sendmsg *m)
{
	(void)ctx;
	ck_assert_uint_lt(ngot, MAXMSG);
	got[ngot] = (struct tapped){ *m, fl == fl->conn->c2s, run.frame_no, m->pdu != NULL,
				     m->pdu ? m->pdu->smbd.smb2.message_id : 0 };
	got[ngot].m.pdu = NULL;
	ngot++;
}

static void setup(void)
{
	rt_feed_start(&run, (struct rs_analyzer_opts){ .interval_ns = 10000000 });
	an = run.an;
	rs_analyzer_tap_sendmsgs(an, tap, NULL);
	ngot = 0;
}

static void teardown(void)
{
	rt_feed_stop(&run);
}

/* Its frame number. */
static uint64_t feed(struct rs_frame f)
{
	rt_feed_add(&run, f, 1000000000ull + run.frame_no * 1000, NULL);
	return run.frame_no;
}

/* REQ from the client B (QP 0x12) to port 5445, REP from the server A
 * (QP 0x11), RTU. */
static void handshake(void)
{
	struct rs_frame hs[3];
	rt_cm_handshake(hs, B_HOST, A_HOST, S_PSN, C_PSN, 0x0000000001060000ull | 5445);
	feed(hs[0]);
	feed(hs[1]);
	feed(hs[2]);
}

/* A client packet to the server's QP. */
static uint64_t client(uint8_t op, uint32_t psn, uint32_t len)
{
	return feed(rt_roce_frame(B_HOST, A_HOST, op, 0x11, psn, len));
}

/* The server's ACK of the client's PSNs up to psn (or a NAK). */
static uint64_t server_ack(uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	struct rs_frame f = rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_ACKNOWLEDGE, 0x12, psn, 0);
	f.aeth.syndrome = syndrome;
	f.aeth.msn = msn;
	return feed(f);
}

enum { F = IBV_OPCODE_RC_SEND_FIRST, M = IBV_OPCODE_RC_SEND_MIDDLE, L = IBV_OPCODE_RC_SEND_LAST,
       O = IBV_OPCODE_RC_SEND_ONLY };

START_TEST(in_order_messages)
{
	handshake();
	uint64_t f1 = client(F, C_PSN, 1024);
	client(M, C_PSN + 1, 1024);
	uint64_t f3 = client(L, C_PSN + 2, 100);
	ck_assert_uint_eq(ngot, 1); /* handed on at its Last */
	uint64_t f4 = client(O, C_PSN + 3, 64);
	server_ack(C_PSN + 3, 0x1F, 2);
	rs_analyzer_finish(an);
	ck_assert_uint_eq(ngot, 2);
	struct rs_sendmsg *m = &got[0].m;
	ck_assert(got[0].from_client);
	ck_assert(m->complete && !m->headless && !m->tailless);
	ck_assert_uint_eq(m->packets, 3);
	ck_assert_uint_eq(m->missing, 0);
	ck_assert_uint_eq(m->bytes, 2148);
	ck_assert_uint_eq(m->first_psn, C_PSN);
	ck_assert_uint_eq(m->last_psn, C_PSN + 2);
	ck_assert_uint_eq(m->first_frame, f1);
	ck_assert_uint_eq(m->last_frame, f3);
	ck_assert_uint_eq(got[0].at_frame, f3);
	ck_assert_uint_eq(m->opcode, L);
	m = &got[1].m;
	ck_assert(m->complete);
	ck_assert_uint_eq(m->packets, 1);
	ck_assert_uint_eq(m->bytes, 64);
	ck_assert_uint_eq(m->first_frame, f4);
	ck_assert_uint_eq(m->last_frame, f4);
}
END_TEST

/* The Last overtakes the Middle: the message is whole when the Middle
 * comes, its frames those of its First and its Last. */
START_TEST(reordered_middle)
{
	handshake();
	uint64_t f1 = client(F, C_PSN, 1024);
	uint64_t f3 = client(L, C_PSN + 2, 10);
	ck_assert_uint_eq(ngot, 0);
	uint64_t f2 = client(M, C_PSN + 1, 1024);
	ck_assert_uint_eq(ngot, 1);
	rs_analyzer_finish(an);
	ck_assert_uint_eq(ngot, 1);
	struct rs_sendmsg *m = &got[0].m;
	ck_assert(m->complete);
	ck_assert_uint_eq(m->packets, 3);
	ck_assert_uint_eq(m->bytes, 2058);
	ck_assert_uint_eq(m->first_frame, f1);
	ck_assert_uint_eq(m->last_frame, f3);
	ck_assert_uint_eq(got[0].at_frame, f2);
}
END_TEST

/* The Middle lost before the capture point, a NAK, and go-back-N: the
 * re-sent Middle fills the gap, the re-sent Last is the same PSN again. */
START_TEST(go_back_n_counts_each_psn_once)
{
	handshake();
	client(F, C_PSN, 1024);
	client(L, C_PSN + 2, 10);
	server_ack(C_PSN + 1, 0x60, 0); /* NAK: PSN sequence error at the Middle */
	uint64_t f2 = client(M, C_PSN + 1, 1024);
	client(L, C_PSN + 2, 10);
	client(O, C_PSN + 3, 8);
	rs_analyzer_finish(an);
	ck_assert_uint_eq(ngot, 2);
	ck_assert(got[0].m.complete);
	ck_assert_uint_eq(got[0].m.packets, 3);
	ck_assert_uint_eq(got[0].m.bytes, 2058);
	ck_assert_uint_eq(got[0].at_frame, f2);
	ck_assert(got[1].m.complete);
	ck_assert_uint_eq(got[1].m.first_psn, C_PSN + 3);
}
END_TEST

/* Every packet of a message sent twice (its ACK lost): one message. */
START_TEST(whole_message_sent_again)
{
	handshake();
	client(F, C_PSN, 1024);
	client(L, C_PSN + 1, 10);
	client(F, C_PSN, 1024);
	client(L, C_PSN + 1, 10);
	server_ack(C_PSN + 1, 0x1F, 1);
	rs_analyzer_finish(an);
	ck_assert_uint_eq(ngot, 1);
	ck_assert(got[0].m.complete);
	ck_assert_uint_eq(got[0].m.packets, 2);
	ck_assert_uint_eq(got[0].m.bytes, 1034);
}
END_TEST

/* The server ACKs past the Middle the capture never showed: it was
 * received, the capture missed it; the message is incomplete, one PSN
 * missing, its length not guessed. */
START_TEST(missing_middle_is_incomplete)
{
	handshake();
	client(F, C_PSN, 1024);
	client(M, C_PSN + 1, 1024);
	uint64_t f4 = client(L, C_PSN + 3, 10);
	uint64_t fa = server_ack(C_PSN + 3, 0x1F, 1);
	ck_assert_uint_eq(ngot, 1);
	client(O, C_PSN + 4, 8);
	rs_analyzer_finish(an);
	ck_assert_uint_eq(ngot, 2);
	struct rs_sendmsg *m = &got[0].m;
	ck_assert(!m->complete);
	ck_assert(!m->headless && !m->tailless);
	ck_assert_uint_eq(m->missing, 1);
	ck_assert_uint_eq(m->packets, 3);
	ck_assert_uint_eq(m->bytes, 2058);
	ck_assert_uint_eq(m->last_frame, f4);
	ck_assert_uint_eq(got[0].at_frame, fa);
	ck_assert(got[1].m.complete);
}
END_TEST

/* A message whose First the capture began after, one whose Last never
 * came before the next began, and one still open at the end. */
START_TEST(headless_and_tailless)
{
	handshake();
	client(M, C_PSN, 1024);
	client(L, C_PSN + 1, 10);
	client(F, C_PSN + 2, 1024);
	client(M, C_PSN + 3, 1024);
	client(O, C_PSN + 4, 16);
	client(F, C_PSN + 5, 1024);
	rs_analyzer_finish(an);
	ck_assert_uint_eq(ngot, 4);
	ck_assert(got[0].m.headless && !got[0].m.complete);
	ck_assert_uint_eq(got[0].m.packets, 2);
	ck_assert(got[1].m.tailless && !got[1].m.complete);
	ck_assert_uint_eq(got[1].m.first_psn, C_PSN + 2);
	ck_assert_uint_eq(got[1].m.packets, 2);
	ck_assert(got[2].m.complete);
	ck_assert(got[3].m.tailless && !got[3].m.complete);
	ck_assert_uint_eq(got[3].m.first_psn, C_PSN + 5);
}
END_TEST

/* A WRITE between two SENDs of the server's: the SENDs are whole, the
 * WRITE is no message of theirs. */
START_TEST(writes_are_not_sends)
{
	handshake();
	feed(rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, S_PSN, 40));
	struct rs_frame w = rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_RDMA_WRITE_ONLY, 0x12, S_PSN + 1, 100);
	w.reth.dmalen = 100;
	w.reth.rkey = 0x77;
	feed(w);
	feed(rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, S_PSN + 2, 40));
	rs_analyzer_finish(an);
	ck_assert_uint_eq(ngot, 2);
	ck_assert(!got[0].from_client && got[0].m.complete && got[1].m.complete);
	ck_assert_uint_eq(got[1].m.first_psn, S_PSN + 2);
}
END_TEST

/* The frame's PDU block is the dissector's storage, used again for the
 * next frame: the message handed on at its Last, or after waiting for a
 * gap to fill, still has its First's. */
static struct rs_pdus block;

static uint64_t client_pdu(uint8_t op, uint32_t psn, uint32_t len, uint64_t mid)
{
	struct rs_frame f = rt_roce_frame(B_HOST, A_HOST, op, 0x11, psn, len);
	memset(&block, 0, sizeof block);
	block.have = RS_PDU_SMBD;
	block.smbd.has_smb2 = true;
	block.smbd.smb2.message_id = mid;
	f.pdu = &block;
	uint64_t n = feed(f);
	memset(&block, 0xA5, sizeof block);
	return n;
}

START_TEST(first_packets_pdu)
{
	handshake();
	client_pdu(F, C_PSN, 1024, 42);
	client(M, C_PSN + 1, 1024);
	client(L, C_PSN + 2, 10);
	client_pdu(O, C_PSN + 4, 64, 44); /* waits: C_PSN + 3 comes after it */
	client_pdu(O, C_PSN + 3, 64, 43);
	rs_analyzer_finish(an);
	ck_assert_uint_eq(ngot, 3);
	ck_assert(got[0].pdu && got[1].pdu && got[2].pdu);
	ck_assert_uint_eq(got[0].mid, 42);
	ck_assert_uint_eq(got[1].mid, 43);
	ck_assert_uint_eq(got[2].mid, 44);
	ck_assert(got[2].m.complete);
}
END_TEST

/* No module row: no messages (the analysis keeps none for them). */
START_TEST(only_module_connections)
{
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x11, 7, 40));
	rs_analyzer_finish(an);
	ck_assert_uint_eq(ngot, 0);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sendmsg");
	TCase *t = tcase_create("reassembly");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, in_order_messages);
	tcase_add_test(t, reordered_middle);
	tcase_add_test(t, go_back_n_counts_each_psn_once);
	tcase_add_test(t, whole_message_sent_again);
	tcase_add_test(t, missing_middle_is_incomplete);
	tcase_add_test(t, headless_and_tailless);
	tcase_add_test(t, writes_are_not_sends);
	tcase_add_test(t, only_module_connections);
	tcase_add_test(t, first_packets_pdu);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}

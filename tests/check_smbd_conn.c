/*
 * check_smbd_conn.c — the SMB Direct module's analysis (smbd_state.c) on
 * hand-built frames of a CM connection to port 5445, each SEND carrying
 * the PDU block the dissector would have made of it: hostile and odd
 * inputs, each a clear, counted outcome.
 *
 * From MS-SMBD 2.2.3 and 3.1.5: RemainingDataLength is what follows a
 * fragment, so the next one must carry exactly the difference; a message
 * longer than the receiver's MaxFragmentedSize is not accepted. From
 * MS-SMB2 3.3.4.2: an interim STATUS_PENDING response (async) leaves the
 * request open until its final response. From IBA vol 1 9.7.5.1: an ACK
 * past PSNs the capture never showed means they were received.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/transport/transport.h"
#include "proto/pdu.h"
#include "proto/smbdirect/smbd_state.h"
#include "tests/support/afeed.h"
#include "tests/support/rstest.h"

#define A_HOST 1 /* the server */
#define B_HOST 2 /* the client */
#define C_PSN 900
#define S_PSN 500

static struct rt_feed run;
static struct rs_analyzer *an;
static uint32_t cpsn, spsn;
static struct rs_pdus block;

static void setup(void)
{
	rt_feed_start(&run, (struct rs_analyzer_opts){ .interval_ns = 10000000 });
	an = run.an;
	cpsn = C_PSN;
	spsn = S_PSN;
}

static void teardown(void)
{
	rt_feed_stop(&run);
}

static uint64_t feed_at(struct rs_frame f, uint64_t us)
{
	rt_feed_add(&run, f, 1000000000ull + us * 1000, NULL);
	return run.frame_no;
}

static void handshake(void)
{
	struct rs_frame hs[3];
	rt_cm_handshake(hs, B_HOST, A_HOST, S_PSN, C_PSN, 0x0000000001060000ull | 5445);
	feed_at(hs[0], 0);
	feed_at(hs[1], 1);
	feed_at(hs[2], 2);
}

/* A SEND Only of the client (from_client) or the server carrying `d`. */
static uint64_t send_pdu(bool from_client, const struct rs_smbd *d, uint64_t us)
{
	struct rs_frame f = from_client ? rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x11, cpsn++, 200)
					: rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, spsn++, 200);
	memset(&block, 0, sizeof block);
	block.have = RS_PDU_SMBD;
	block.smbd = *d;
	f.pdu = &block;
	uint64_t n = feed_at(f, us);
	memset(&block, 0x5A, sizeof block);
	return n;
}

static struct rs_smbd data_msg(uint32_t remaining, uint32_t len, bool hdr, uint16_t cmd, uint64_t mid, bool rsp,
			       uint32_t status)
{
	struct rs_smbd d = { .outcome = RS_SMBD_OK, .kind = RS_SMBD_DATA, .credits_requested = 16,
			     .credits_granted = 1, .remaining = remaining, .data_offset = 24, .data_length = len };
	if (hdr) {
		d.has_smb2 = true;
		d.smb2.command = cmd;
		d.smb2.message_id = mid;
		d.smb2.response = rsp;
		d.smb2.status = status;
		d.smb2.async = status == RS_NT_STATUS_PENDING;
	}
	if (remaining)
		d.outcome = RS_SMBD_CONTINUED;
	return d;
}

static void negotiate(void)
{
	struct rs_smbd rq = { .outcome = RS_SMBD_OK, .kind = RS_SMBD_NEG_REQ, .min_version = 0x100, .max_version = 0x100,
			      .credits_requested = 255, .preferred_send = 1024, .max_receive = 1024,
			      .max_fragmented = 4096 };
	send_pdu(true, &rq, 10);
	struct rs_smbd rp = { .outcome = RS_SMBD_OK, .kind = RS_SMBD_NEG_RSP, .min_version = 0x100, .max_version = 0x100,
			      .negotiated_version = 0x100, .credits_requested = 255, .credits_granted = 16,
			      .max_read_write = 1 << 20, .preferred_send = 1024, .max_receive = 1024,
			      .max_fragmented = 4096 };
	send_pdu(false, &rp, 20);
}

static struct rs_smbd_info info(void)
{
	rs_analyzer_finish(an);
	ck_assert_uint_eq(an->conns->len, 1);
	struct rs_smbd_info q;
	ck_assert(rs_conn_smbd(an->conns->pdata[0], &q));
	return q;
}

START_TEST(request_response_and_interim)
{
	handshake();
	negotiate();
	struct rs_smbd d = data_msg(0, 100, true, RS_SMB2_CREATE, 4, false, 0);
	uint64_t rq = send_pdu(true, &d, 100);
	d = data_msg(0, 100, true, RS_SMB2_CREATE, 4, true, RS_NT_STATUS_PENDING);
	uint64_t im = send_pdu(false, &d, 130);
	d = data_msg(0, 100, true, RS_SMB2_CREATE, 4, true, 0xC0000034);
	uint64_t rp = send_pdu(false, &d, 190);
	struct rs_smbd_info q = info();
	ck_assert(q.neg.req && q.neg.rsp);
	ck_assert_uint_eq(q.neg.rsp_max_fragmented, 4096);
	ck_assert_uint_eq(q.requests, 1);
	ck_assert_uint_eq(q.responses, 1);
	ck_assert_uint_eq(q.interims, 1);
	ck_assert_uint_eq(q.pending, 0);
	const struct rs_smbd_cmd_info *c = &q.cmd[RS_SMB2_CREATE];
	ck_assert_uint_eq(c->lat.n, 1);
	ck_assert_uint_eq(c->lat.max, 90000); /* request to final response, not to the interim one */
	ck_assert_uint_eq(c->failed, 1);
	ck_assert_uint_eq(q.nfailed, 1);
	ck_assert_uint_eq(q.failed[0].status, 0xC0000034);
	ck_assert_uint_eq(q.failed[0].req_frame, rq);
	ck_assert_uint_eq(q.failed[0].rsp_frame, rp);
	ck_assert_uint_eq(q.failed[0].interim_frame, im);
	ck_assert_str_eq(rs_nt_status_name(0xC0000034), "STATUS_OBJECT_NAME_NOT_FOUND");
}
END_TEST

/* Three fragments: the header is the first's; the later ones' data is no
 * header, even where the dissector (without history) read one. */
START_TEST(fragments_reassembled)
{
	handshake();
	negotiate();
	struct rs_smbd d = data_msg(1200, 1000, true, RS_SMB2_WRITE, 5, false, 0);
	uint64_t first = send_pdu(true, &d, 100);
	d = data_msg(200, 1000, true, RS_SMB2_CLOSE, 77, false, 0); /* bytes that happened to look like a header */
	send_pdu(true, &d, 110);
	d = data_msg(0, 200, false, 0, 0, false, 0);
	send_pdu(true, &d, 120);
	d = data_msg(0, 100, true, RS_SMB2_WRITE, 5, true, 0);
	send_pdu(false, &d, 150);
	struct rs_smbd_info q = info();
	ck_assert_uint_eq(q.side[0].fragmented, 1);
	ck_assert_uint_eq(q.side[0].fragments, 3);
	ck_assert_uint_eq(q.requests, 1);
	ck_assert_uint_eq(q.cmd[RS_SMB2_CLOSE].n, 0);
	ck_assert_uint_eq(q.cmd[RS_SMB2_WRITE].lat.max, 30000); /* from the last fragment */
	ck_assert_uint_eq(q.slow[0].req_frame, first);
}
END_TEST

/* Fragments whose RemainingDataLength does not go down by their data; a
 * message longer than the server's MaxFragmentedSize; one still open at
 * the end. */
START_TEST(fragments_that_lie)
{
	handshake();
	negotiate();
	struct rs_smbd d = data_msg(1200, 1000, true, RS_SMB2_WRITE, 5, false, 0);
	send_pdu(true, &d, 100);
	d = data_msg(500, 1000, false, 0, 0, false, 0); /* 1200 - 1000 is 200, not 500 */
	send_pdu(true, &d, 110);
	d = data_msg(9000, 1000, true, RS_SMB2_WRITE, 6, false, 0); /* 10000 > 4096 */
	send_pdu(true, &d, 120);
	d = data_msg(3000, 1000, true, RS_SMB2_WRITE, 7, false, 0);
	send_pdu(true, &d, 130);
	struct rs_smbd_info q = info();
	ck_assert_uint_eq(q.side[0].frag_lied, 1);
	ck_assert_uint_eq(q.side[0].frag_too_long, 1);
	ck_assert_uint_eq(q.side[0].frag_open, 1);
	ck_assert_uint_eq(q.requests, 0);
	ck_assert_uint_eq(q.side[0].fragmented, 0);
}
END_TEST

/* A fragment the capture missed a packet of: not read, and the message it
 * belonged to is dropped rather than glued to the next. */
START_TEST(fragment_split_over_a_lost_packet)
{
	handshake();
	negotiate();
	struct rs_smbd d = data_msg(1200, 1000, true, RS_SMB2_WRITE, 5, false, 0);
	send_pdu(true, &d, 100);
	/* A 3-packet SEND whose Middle the capture missed; the server ACKs it. */
	feed_at(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_FIRST, 0x11, cpsn, 1024), 110);
	feed_at(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_LAST, 0x11, cpsn + 2, 100), 111);
	struct rs_frame ack = rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_ACKNOWLEDGE, 0x12, cpsn + 2, 0);
	ack.aeth.syndrome = 0x1F;
	ack.aeth.msn = 3;
	feed_at(ack, 112);
	cpsn += 3;
	d = data_msg(0, 200, false, 0, 0, false, 0); /* the WRITE's last fragment */
	send_pdu(true, &d, 120);
	d = data_msg(0, 100, true, RS_SMB2_ECHO, 8, false, 0);
	send_pdu(true, &d, 130);
	struct rs_smbd_info q = info();
	ck_assert_uint_eq(q.side[0].incomplete, 1);
	ck_assert_uint_eq(q.side[0].frag_lied, 0); /* dropped as lost, not blamed on the sender */
	ck_assert_uint_eq(q.requests, 1); /* the ECHO; the WRITE lost its middle */
	ck_assert_uint_eq(q.cmd[RS_SMB2_ECHO].n, 1);
	ck_assert_uint_eq(q.cmd[RS_SMB2_WRITE].n, 0);
}
END_TEST

/* Responses to no request, a notification, a request the wrong way, a
 * CANCEL, and a MessageId used again while pending. */
START_TEST(odd_messages_counted)
{
	handshake();
	negotiate();
	struct rs_smbd d = data_msg(0, 100, true, RS_SMB2_READ, 40, true, 0);
	send_pdu(false, &d, 100);
	d = data_msg(0, 100, true, RS_SMB2_OPLOCK_BREAK, UINT64_MAX, true, 0);
	send_pdu(false, &d, 110);
	d = data_msg(0, 100, true, RS_SMB2_ECHO, 41, false, 0);
	send_pdu(false, &d, 120);
	d = data_msg(0, 100, true, RS_SMB2_CANCEL, 42, false, 0);
	send_pdu(true, &d, 130);
	d = data_msg(0, 100, true, RS_SMB2_ECHO, 43, false, 0);
	send_pdu(true, &d, 140);
	send_pdu(true, &d, 150);
	struct rs_smbd_info q = info();
	ck_assert_uint_eq(q.unmatched, 1);
	ck_assert_uint_eq(q.notifications, 1);
	ck_assert_uint_eq(q.wrong_way, 1);
	ck_assert_uint_eq(q.cancels, 1);
	ck_assert_uint_eq(q.mid_again, 1);
	ck_assert_uint_eq(q.pending, 1);
}
END_TEST

/* A READ over the RDMA channel: the server's RDMA WRITE with the
 * descriptor's token is the request's; one with another token is counted
 * untied; the WRITE's Middle re-sent marks the request. */
START_TEST(rdma_tied_by_token_and_resent)
{
	handshake();
	negotiate();
	struct rs_smbd d = data_msg(0, 128, true, RS_SMB2_READ, 7, false, 0);
	d.smb2.channel = RS_SMB2_CHANNEL_RDMA_V1;
	d.smb2.ndesc = 1;
	d.smb2.desc[0] = (struct rs_smbd_desc){ 0x10000, 0xA2C5, 2048 };
	d.smb2.desc_bytes = 2048;
	send_pdu(true, &d, 100);
	struct rs_frame w = rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_RDMA_WRITE_FIRST, 0x12, spsn, 1024);
	w.reth = (struct rs_reth){ .va = 0x10000, .rkey = 0xA2C5, .dmalen = 2048 };
	feed_at(w, 110);
	struct rs_frame l = rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_RDMA_WRITE_LAST, 0x12, spsn + 1, 1024);
	feed_at(l, 111);
	feed_at(l, 112); /* sent again */
	struct rs_frame x = rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_RDMA_WRITE_ONLY, 0x12, spsn + 2, 64);
	x.reth = (struct rs_reth){ .va = 0x90000, .rkey = 0x7777, .dmalen = 64 };
	feed_at(x, 113);
	spsn += 3;
	d = data_msg(0, 100, true, RS_SMB2_READ, 7, true, 0);
	send_pdu(false, &d, 150);
	struct rs_smbd_info q = info();
	ck_assert_uint_eq(q.rdma_writes, 2);
	ck_assert_uint_eq(q.rdma_write_bytes, 2048 + 64);
	ck_assert_uint_eq(q.rdma_untied, 1);
	ck_assert_uint_eq(q.rdma_outside, 0);
	ck_assert_uint_eq(q.rdma_short, 0);
	ck_assert_uint_eq(q.cmd[RS_SMB2_READ].rdma_bytes, 2048);
	ck_assert_uint_eq(q.resent_frames, 1);
	ck_assert_uint_eq(q.resent_requests, 1);
	ck_assert_uint_eq(q.cmd[RS_SMB2_READ].resent, 1);
	ck_assert_uint_eq(q.resent[0].message_id, 7);
	ck_assert_uint_eq(q.resent[0].resent, RS_SMBD_RESENT_TRANSFER);
	ck_assert_uint_eq(q.resent[0].xfers, 1);
	ck_assert_uint_eq(q.resent[0].lat_ns, 50000);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("smbd_conn");
	TCase *t = tcase_create("state");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, request_response_and_interim);
	tcase_add_test(t, fragments_reassembled);
	tcase_add_test(t, fragments_that_lie);
	tcase_add_test(t, fragment_split_over_a_lost_packet);
	tcase_add_test(t, odd_messages_counted);
	tcase_add_test(t, rdma_tied_by_token_and_resent);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}

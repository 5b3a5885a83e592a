/*
 * check_iser_state.c — the iSER module's per-connection analysis
 * (proto/iser/iser_state.c) fed PDUs that try to fool it: an ITT used
 * again while its task waits, responses to no command, a second response,
 * SENDs the fabric re-sent, STags no command gave, lengths that lie, and
 * more tasks than it keeps. Each must end in a counted outcome, with the
 * figures RFC 7143's pairing rules give (a response answers the waiting
 * task with its ITT; a task is answered once).
 *
 * The frames are built by hand: the iSER and iSCSI fields are the decoder's
 * record (struct rs_iser, checked byte by byte in check_iser.c), and whether
 * the fabric re-sent a frame is the transport analysis' word, set here as
 * that analysis would.
 */
#include <check.h>
#include <string.h>

#include "analyzer/internal.h"
#include "proto/iser/iser.h"
#include "proto/iser/iser_dissect.h"
#include "proto/iser/iser_state.h"
#include "proto/pdu.h"
#include "tests/support/rstest.h"

static struct rs_analyzer *an;
static struct rs_conn cn;
static struct rs_flow ini, tgt; /* the initiator's half-flow (c2s) and the target's */
static uint64_t frame_no;
static struct rs_pdus pdus;

static void setup(void)
{
	an = rs_analyzer_new(&(struct rs_analyzer_opts){ .interval_ns = 10000000 });
	memset(&cn, 0, sizeof cn);
	memset(&ini, 0, sizeof ini);
	memset(&tgt, 0, sizeof tgt);
	cn.ulp = (uint8_t)rs_proto_of_port(3260);
	cn.pq = rs_proto_hooks(cn.ulp)->queue_new();
	cn.c2s = &ini;
	cn.s2c = &tgt;
	ini.conn = tgt.conn = &cn;
	ini.peer = &tgt;
	tgt.peer = &ini;
	frame_no = 0;
}

static void teardown(void)
{
	rs_proto_hooks(cn.ulp)->queue_free(cn.pq);
	rs_analyzer_free(an);
}

/* The frame fed as the next one, at `us` microseconds; `resent`: the
 * transport analysis judged it re-sent. */
static void feed(struct rs_flow *fl, struct rs_frame *f, uint64_t us, bool resent)
{
	struct rs_frame_meta m = { .frame_no = ++frame_no, .ts_ns = 1000000000ull + us * 1000 };
	const struct rs_proto_hooks *h = rs_proto_hooks(cn.ulp);
	h->queue_frame(an, &cn, fl, f, &m);
	if (resent) /* as analyzer.c, after the frame's transport analysis */
		h->queue_resent(an, &cn, fl, f, &m);
}

static void pdu(struct rs_flow *fl, uint8_t opcode, uint32_t psn, const struct rs_iser *r, uint64_t us, bool resent)
{
	struct rs_frame f = { 0 };
	f.bth.opcode = opcode;
	f.bth.psn = psn;
	f.payload_len = 1024;
	pdus.have = RS_PDU_ISER;
	pdus.iser = *r;
	f.pdu = &pdus;
	feed(fl, &f, us, resent);
}

/* A SCSI Command with ITT `itt` (CDB READ(10) or WRITE(10)). */
static struct rs_iser cmd(uint32_t itt, uint8_t cdb, uint32_t edtl, uint32_t stag)
{
	struct rs_iser r = { .outcome = RS_ISER_OK, .iser_op = RS_ISER_OP_CONTROL, .has_bhs = true,
			     .opcode = RS_ISCSI_SCSI_CMD, .itt = itt, .edtl = edtl, .cdb_op = cdb };
	if (rs_scsi_is_read(cdb)) {
		r.rsv = true;
		r.read_stag = stag;
	} else if (edtl) {
		r.wsv = true;
		r.write_stag = stag;
	}
	return r;
}

static struct rs_iser rsp(uint32_t itt, uint8_t status)
{
	return (struct rs_iser){ .outcome = RS_ISER_OK, .iser_op = RS_ISER_OP_CONTROL, .has_bhs = true,
				 .opcode = RS_ISCSI_SCSI_RSP, .itt = itt, .status = status };
}

/* An RDMA WRITE Only (into a read STag) or READ request (from a write STag) by the target. */
static void xfer(bool write, uint32_t psn, uint32_t rkey, uint32_t len, uint64_t us, bool resent)
{
	struct rs_frame f = { 0 };
	f.bth.opcode = write ? IBV_OPCODE_RC_RDMA_WRITE_ONLY : IBV_OPCODE_RC_RDMA_READ_REQUEST;
	f.bth.psn = psn;
	f.ext = RS_EXT_RETH;
	f.reth.rkey = rkey;
	f.reth.dmalen = len;
	f.payload_len = write ? len : 0;
	feed(&tgt, &f, us, resent);
}

static struct rs_iser_info info(void)
{
	struct rs_iser_info q;
	ck_assert(rs_conn_iser(&cn, &q));
	return q;
}

static void finish(void)
{
	rs_proto_hooks(cn.ulp)->queue_finish(an, cn.pq);
}

#define SEND_ONLY IBV_OPCODE_RC_SEND_ONLY
#define SEND_INV RS_OP_RC_SEND_ONLY_WITH_INVALIDATE

START_TEST(itt_reused_while_waiting)
{
	struct rs_iser c = cmd(5, 0x28, 4096, 0x100);
	pdu(&ini, SEND_ONLY, 10, &c, 0, false);
	pdu(&ini, SEND_ONLY, 11, &c, 100, false); /* another command, same ITT: the first given up */
	struct rs_iser r = rsp(5, 0);
	pdu(&tgt, SEND_INV, 500, &r, 300, false);
	finish();
	struct rs_iser_info q = info();
	ck_assert_uint_eq(q.requests, 2);
	ck_assert_uint_eq(q.itt_reused, 1);
	ck_assert_uint_eq(q.responses, 1);
	ck_assert_uint_eq(q.unanswered, 1);
	ck_assert_uint_eq(q.waiting[0].cmd_at.frame, 1);
	/* the response answers the second command: 200 us */
	ck_assert_uint_eq(q.nslow, 1);
	ck_assert_uint_eq(q.slow[0].lat_ns, 200000);
	ck_assert_uint_eq(q.slow[0].cmd_at.frame, 2);
}
END_TEST

START_TEST(responses_with_no_command)
{
	struct rs_iser r = rsp(7, 0);
	pdu(&tgt, SEND_INV, 500, &r, 0, false);
	struct rs_iser c = cmd(8, 0x00, 0, 0);
	pdu(&ini, SEND_ONLY, 10, &c, 10, false);
	r = rsp(8, 0);
	pdu(&tgt, SEND_ONLY, 501, &r, 20, false);
	pdu(&tgt, SEND_ONLY, 502, &r, 30, false); /* a second response to one task */
	finish();
	struct rs_iser_info q = info();
	ck_assert_uint_eq(q.unmatched, 2);
	ck_assert_uint_eq(q.responses, 1);
	ck_assert_uint_eq(q.unanswered, 0);
	ck_assert_uint_eq(q.slow[0].lat_ns, 10000);
}
END_TEST

/* A command re-sent counts once; a response re-sent moves the task's end. */
START_TEST(resent_sends)
{
	struct rs_iser c = cmd(1, 0x2a, 0, 0);
	pdu(&ini, SEND_ONLY, 10, &c, 0, false);
	pdu(&ini, SEND_ONLY, 10, &c, 50, true);
	pdu(&ini, SEND_ONLY, 10, &c, 60, false); /* a copy the network made: nothing */
	struct rs_iser r = rsp(1, 0);
	pdu(&tgt, SEND_ONLY, 500, &r, 100, false);
	pdu(&tgt, SEND_ONLY, 500, &r, 900, true);
	finish();
	struct rs_iser_info q = info();
	ck_assert_uint_eq(q.requests, 1);
	ck_assert_uint_eq(q.cmd_resent, 1);
	ck_assert_uint_eq(q.rsp_resent, 1);
	ck_assert_uint_eq(q.tasks_resent, 1);
	ck_assert_uint_eq(q.resent_pkts, 2);
	ck_assert_uint_eq(q.ops[0].n, 1);
	ck_assert_uint_eq(q.ops[0].resent, 1);
	ck_assert_uint_eq(q.ops[0].lat.max, 900000);
	ck_assert(q.slow[0].resent);
	ck_assert_uint_eq(q.slow[0].rsp_at.frame, 5);
}
END_TEST

/* A failed task whose response the fabric re-sent: listed as it ended. */
START_TEST(failed_and_resent)
{
	struct rs_iser c = cmd(9, 0x28, 512, 0x500);
	pdu(&ini, SEND_ONLY, 10, &c, 0, false);
	struct rs_iser r = rsp(9, RS_SCSI_STATUS_CHECK_CONDITION);
	pdu(&tgt, SEND_INV, 500, &r, 100, false);
	pdu(&tgt, SEND_INV, 500, &r, 700, true);
	finish();
	struct rs_iser_info q = info();
	ck_assert_uint_eq(q.nfailed, 1);
	ck_assert_uint_eq(q.failed[0].rsp_at.frame, 3);
	ck_assert_uint_eq(q.failed[0].lat_ns, 700000);
	ck_assert(q.failed[0].resent);
}
END_TEST

/* Transfers: tied by STag, re-sent ones counted once, lies counted. */
START_TEST(transfers_and_stags)
{
	struct rs_iser c = cmd(1, 0x28, 8192, 0x200);
	pdu(&ini, SEND_ONLY, 10, &c, 0, false);
	xfer(true, 500, 0x200, 4096, 10, false);
	xfer(true, 501, 0x999, 4096, 20, false); /* an STag no command gave */
	xfer(true, 500, 0x200, 4096, 30, true);  /* the first again: the fabric re-sent it */
	struct rs_iser r = rsp(1, 0);
	pdu(&tgt, SEND_INV, 502, &r, 40, false);
	struct rs_iser w = cmd(2, 0x2a, 4096, 0x300);
	pdu(&ini, SEND_ONLY, 11, &w, 50, false);
	xfer(false, 503, 0x300, 0xFFFFFFFFu, 60, false); /* a READ far longer than the command's */
	r = rsp(2, 0);
	pdu(&tgt, SEND_INV, 504, &r, 70, false);
	finish();
	struct rs_iser_info q = info();
	ck_assert_uint_eq(q.writes, 2);
	ck_assert_uint_eq(q.write_bytes, 8192);
	ck_assert_uint_eq(q.untied, 1);
	ck_assert_uint_eq(q.reads, 1);
	ck_assert_uint_eq(q.read_bytes, 0xFFFFFFFFu);
	ck_assert_uint_eq(q.not_expected, 2); /* the READ(10) moved 4096 of 8192, the WRITE(10) 4 GiB */
	ck_assert_uint_eq(q.tasks_resent, 1);
	ck_assert_uint_eq(q.ops[0].bytes_moved, 4096);
}
END_TEST

/* A response that failed, with its sense data; PDUs that are cut or lie. */
START_TEST(failed_cut_malformed)
{
	struct rs_iser c = cmd(3, 0x28, 512, 0x400);
	pdu(&ini, SEND_ONLY, 10, &c, 0, false);
	struct rs_iser r = rsp(3, RS_SCSI_STATUS_CHECK_CONDITION);
	r.has_sense = true;
	r.sense_key = 5;
	r.asc = 0x21;
	pdu(&tgt, SEND_INV, 500, &r, 10, false);
	struct rs_iser cut = { .outcome = RS_ISER_TRUNCATED };
	pdu(&ini, SEND_ONLY, 11, &cut, 20, false);
	struct rs_iser bad = cmd(4, 0x00, 0, 0);
	bad.outcome = RS_ISER_MALFORMED;
	bad.dsl = 0xFFFFFF; /* a SEND First whose data segment reaches 16 MiB */
	pdu(&ini, IBV_OPCODE_RC_SEND_FIRST, 12, &bad, 30, false);
	finish();
	struct rs_iser_info q = info();
	ck_assert_uint_eq(q.nfailed, 1);
	ck_assert_uint_eq(q.failed[0].sense_key, 5);
	ck_assert_uint_eq(q.failed[0].asc, 0x21);
	ck_assert_uint_eq(q.failed[0].rsp_at.frame, 2);
	ck_assert_uint_eq(q.ops[0].errors, 1);
	ck_assert_uint_eq(q.cut, 1);
	ck_assert_uint_eq(q.bad, 1);
	ck_assert_uint_eq(q.unanswered, 1);
	ck_assert_uint_eq(q.not_expected, 0); /* a failed task's data is not held to its length */
}
END_TEST

/* A response re-sent long after its task was answered (hundreds of tasks
 * later): its task has left; the packet is counted, not tied, and the
 * settled figures stay. */
START_TEST(resent_after_the_task_left)
{
	struct rs_iser c = cmd(1, 0x2a, 0, 0);
	pdu(&ini, SEND_ONLY, 10, &c, 0, false);
	struct rs_iser r = rsp(1, 0);
	pdu(&tgt, SEND_ONLY, 500, &r, 100, false);
	for (uint32_t i = 0; i < 1000; i++) {
		struct rs_iser k = cmd(2 + i, 0x2a, 0, 0);
		pdu(&ini, SEND_ONLY, 11 + i, &k, 200 + 2 * i, false);
		struct rs_iser a = rsp(2 + i, 0);
		pdu(&tgt, SEND_ONLY, 501 + i, &a, 201 + 2 * i, false);
	}
	pdu(&tgt, SEND_ONLY, 500, &r, 5000, true);
	finish();
	struct rs_iser_info q = info();
	ck_assert_uint_eq(q.responses, 1001);
	ck_assert_uint_eq(q.rsp_resent, 0);
	ck_assert_uint_eq(q.tasks_resent, 0);
	ck_assert_uint_eq(q.resent_pkts, 1);
	ck_assert_uint_eq(q.resent_untied, 1);
	ck_assert_uint_eq(q.ops[0].lat.max, 100000);
}
END_TEST

/* More waiting tasks than are kept: the rest counted, memory bounded. */
START_TEST(huge_counts)
{
	for (uint32_t i = 0; i < 20000; i++) {
		struct rs_iser c = cmd(i, 0x28, 512, 0x1000 + i);
		pdu(&ini, SEND_ONLY, i & 0xFFFFFF, &c, i, false);
	}
	struct rs_iser_info q = info();
	ck_assert_uint_eq(q.requests, 20000);
	ck_assert_uint_eq(q.unanswered, 20000 - q.not_kept);
	ck_assert_uint_gt(q.not_kept, 0);
	ck_assert_uint_lt(20000 - q.not_kept, 10000);
	/* answered ones leave room: a million more, one ITT reused */
	for (uint32_t i = 0; i < 1000000; i++) {
		struct rs_iser c = cmd(0x80000000u, 0x2a, 0, 0);
		pdu(&ini, SEND_ONLY, (20000 + i) & 0xFFFFFF, &c, 100000 + 2 * i, false);
		struct rs_iser r = rsp(0x80000000u, 0);
		pdu(&tgt, SEND_ONLY, i & 0xFFFFFF, &r, 100001 + 2 * i, false);
	}
	finish();
	q = info();
	/* every task answered, listed unanswered or given up to make room */
	ck_assert_uint_eq(q.requests, q.responses + q.unanswered + q.not_kept);
	ck_assert_uint_eq(q.responses, 1000000);
	ck_assert_uint_eq(q.unmatched, 0);
	ck_assert_uint_eq(q.ops[1].lat.n, 1000000);
	ck_assert_uint_eq(q.ops[1].lat.max, 1000);
	ck_assert_uint_eq(q.nslow, RS_ISER_SLOWEST);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("iser_state");
	TCase *tc = tcase_create("hostile");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, itt_reused_while_waiting);
	tcase_add_test(tc, responses_with_no_command);
	tcase_add_test(tc, resent_sends);
	tcase_add_test(tc, failed_and_resent);
	tcase_add_test(tc, transfers_and_stags);
	tcase_add_test(tc, failed_cut_malformed);
	tcase_add_test(tc, resent_after_the_task_left);
	tcase_add_test(tc, huge_counts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}

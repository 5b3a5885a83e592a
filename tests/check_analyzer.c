/*
 * check_analyzer.c — the analyzer on hand-built frames.
 *
 * The analyzer consumes struct rs_frame, so these tests build frames field
 * by field (no packet bytes) and check what IBA vol 1 says must follow:
 * PSN arithmetic modulo 2^24 (9.7.1), go-back-N after a NAK (9.7.5.1.3),
 * a READ consuming one PSN per response packet (9.7.4.1.4), AETH syndromes
 * (Table 42-45), implicit acknowledgement by later responses (9.7.5.1.1).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/transport/transport.h"
#include "report/report.h"
#include "tests/support/afeed.h"
#include "tests/support/rstest.h"

#define A_HOST 1 /* 192.0.2.1 */
#define B_HOST 2 /* 192.0.2.2 */

static struct rt_feed run;
static struct rs_analyzer *an;

/* A new analyzer with these options, on one synthetic file, from frame 1. */
static void start(struct rs_analyzer_opts o)
{
	rt_feed_start(&run, o);
	an = run.an;
}

static void setup(void)
{
	start((struct rs_analyzer_opts){ .interval_ns = 10000000 });
}

/* The fixture's analyzer replaced by one with other options. */
static void restart(struct rs_analyzer_opts o)
{
	rt_feed_stop(&run);
	start(o);
}

static void teardown(void)
{
	rt_feed_stop(&run);
}

static void feed_at(struct rs_frame f, uint64_t ts_ns)
{
	rt_feed_add(&run, f, ts_ns, NULL);
}

static void feed(struct rs_frame f)
{
	feed_at(f, 1000000000ull + run.frame_no * 1000);
}

static struct rs_flow *flow(int from, int to, uint32_t qpn)
{
	struct rs_flowkey k;
	struct rs_frame f = rt_roce_frame(from, to, 0, qpn, 0, 0);
	rs_flowkey_from_frame(&k, &f);
	return rs_flow_find(an, &k);
}

static struct rs_frame ack(int from, int to, uint32_t qpn, uint32_t psn, uint8_t syndrome, uint32_t msn)
{
	struct rs_frame f = rt_roce_frame(from, to, IBV_OPCODE_RC_ACKNOWLEDGE, qpn, psn, 0);
	f.aeth.syndrome = syndrome;
	f.aeth.msn = msn;
	return f;
}

static struct rs_frame write_pkt(uint8_t op, uint32_t psn, uint32_t len)
{
	struct rs_frame f = rt_roce_frame(B_HOST, A_HOST, op, 0x12, psn, len);
	f.reth.va = 0x1000;
	f.reth.rkey = 0x3af;
	f.reth.dmalen = 4096;
	return f;
}

START_TEST(psn_wraps_inside_a_message)
{
	/* 0xFFFFFE, 0xFFFFFF, 0x000000: consecutive modulo 2^24 (IBA 9.7.1). */
	feed(write_pkt(IBV_OPCODE_RC_RDMA_WRITE_FIRST, 0xFFFFFE, 1024));
	feed(write_pkt(IBV_OPCODE_RC_RDMA_WRITE_MIDDLE, 0xFFFFFF, 1024));
	feed(write_pkt(IBV_OPCODE_RC_RDMA_WRITE_LAST, 0x000000, 512));
	rs_analyzer_finish(an);
	struct rs_flow *fl = flow(B_HOST, A_HOST, 0x12);
	ck_assert_ptr_nonnull(fl);
	ck_assert_uint_eq(rs_msgs(fl)->msgs[RS_MSG_WRITE], 1);
	ck_assert_uint_eq(rs_msgs(fl)->msg_bytes[RS_MSG_WRITE], 2560);
	ck_assert_uint_eq(rs_loss(&fl->req)->gaps, 0);
	ck_assert_uint_eq(rs_flow_retransmitted(fl), 0);
	ck_assert_uint_eq(rs_rare(fl)->incomplete_msgs, 0);
}
END_TEST

START_TEST(go_back_n_after_loss)
{
	/* Two 4-packet WRITEs, PSN 100..107; 105 is lost before the capture
	 * point; the responder NAKs (PSN sequence error at 105) and the
	 * requester goes back to 105 and resends 105, 106, 107. */
	static const uint8_t ops[4] = { IBV_OPCODE_RC_RDMA_WRITE_FIRST, IBV_OPCODE_RC_RDMA_WRITE_MIDDLE,
					IBV_OPCODE_RC_RDMA_WRITE_MIDDLE, IBV_OPCODE_RC_RDMA_WRITE_LAST };
	for (uint32_t p = 100; p < 108; p++)
		if (p != 105)
			feed(write_pkt(ops[(p - 100) % 4], p, 1024));
	feed(ack(A_HOST, B_HOST, 0x11, 105, 0x60 | RS_NAK_PSN_SEQ_ERR, 1));
	for (uint32_t p = 105; p < 108; p++)
		feed(write_pkt(ops[(p - 100) % 4], p, 1024));
	feed(write_pkt(IBV_OPCODE_RC_RDMA_WRITE_ONLY, 108, 100));
	rs_analyzer_finish(an);

	struct rs_flow *fl = flow(B_HOST, A_HOST, 0x12);
	ck_assert_uint_eq(rs_loss(&fl->req)->gaps, 1);
	ck_assert_uint_eq(rs_loss(&fl->req)->missing, 1);
	ck_assert_uint_eq(rs_loss(&fl->req)->backward, 3);      /* 105, 106, 107 sent again */
	ck_assert_uint_eq(rs_loss(&fl->req)->fills, 1);         /* 105 first seen then */
	ck_assert_uint_eq(rs_loss(&fl->req)->duplicates, 2);    /* 106, 107 seen twice */
	ck_assert_uint_eq(rs_loss(&fl->req)->episodes, 1);
	ck_assert_uint_eq(rs_loss(&fl->req)->ooo, 0);
	ck_assert_uint_eq(rs_flow_retransmitted(fl), 3);
	/* Each PSN's payload counted once: 8 x 1024 + 100. */
	ck_assert_uint_eq(fl->payload, 8 * 1024 + 100);
	ck_assert_uint_eq(rs_msgs(fl)->msgs[RS_MSG_WRITE], 3);
	ck_assert_uint_eq(rs_msgs(fl)->msg_bytes[RS_MSG_WRITE], 8 * 1024 + 100);
	ck_assert_uint_eq(rs_rare(fl)->incomplete_msgs, 0);
	struct rs_flow *resp = flow(A_HOST, B_HOST, 0x11);
	ck_assert_uint_eq(rs_rare(resp)->naks[RS_NAK_PSN_SEQ_ERR], 1);
}
END_TEST

/* A flow's message counters are kept as the few that are not zero until a
 * seventh is needed: the counts, bytes and sizes read the same on either
 * side of that (sizes bucketed by bit length: 8 in [8, 16), 100 in
 * [64, 128), 1000 in [512, 1024)). */
START_TEST(message_counters_few_then_all)
{
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, 1, 8));
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, 2, 8));
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, 3, 100));
	struct rs_flow *fl = flow(B_HOST, A_HOST, 0x12);
	ck_assert(!fl->msgs_full); /* SEND count and bytes, two sizes: four counters */
	const struct rs_flow_msgs *m = rs_msgs(fl);
	ck_assert_uint_eq(m->msgs[RS_MSG_SEND], 3);
	ck_assert_uint_eq(m->msg_bytes[RS_MSG_SEND], 116);
	ck_assert_uint_eq(m->size_hist[4], 2);
	ck_assert_uint_eq(m->size_hist[7], 1);
	ck_assert_uint_eq(m->msg_min, 8);
	ck_assert_uint_eq(m->msg_max, 100);
	/* SEND with Immediate: its count, its bytes and a third size make seven. */
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY_WITH_IMMEDIATE, 0x12, 4, 1000));
	rs_analyzer_finish(an);
	ck_assert(fl->msgs_full);
	m = rs_msgs(fl);
	ck_assert_uint_eq(m->msgs[RS_MSG_SEND], 3);
	ck_assert_uint_eq(m->msg_bytes[RS_MSG_SEND], 116);
	ck_assert_uint_eq(m->msgs[RS_MSG_SEND_IMM], 1);
	ck_assert_uint_eq(m->msg_bytes[RS_MSG_SEND_IMM], 1000);
	ck_assert_uint_eq(m->size_hist[4], 2);
	ck_assert_uint_eq(m->size_hist[7], 1);
	ck_assert_uint_eq(m->size_hist[10], 1);
	ck_assert_uint_eq(m->msg_min, 8);
	ck_assert_uint_eq(m->msg_max, 1000);
}
END_TEST

/* A busy kind leaves the few at its 16th message; the counts go on. */
START_TEST(message_counters_of_a_busy_flow)
{
	for (uint32_t i = 0; i < 20; i++) {
		feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, i, 64));
		ck_assert(flow(B_HOST, A_HOST, 0x12)->msgs_full == (i + 1 >= 16));
	}
	rs_analyzer_finish(an);
	const struct rs_flow_msgs *m = rs_msgs(flow(B_HOST, A_HOST, 0x12));
	ck_assert_uint_eq(m->msgs[RS_MSG_SEND], 20);
	ck_assert_uint_eq(m->msg_bytes[RS_MSG_SEND], 20 * 64);
	ck_assert_uint_eq(m->size_hist[7], 20);
	ck_assert_uint_eq(m->msg_min, 64);
	ck_assert_uint_eq(m->msg_max, 64);
}
END_TEST

/* The rkeys a requester used: the first kept in place, the next ones in
 * an array, at most RS_MAX_RKEYS (32) of them, the uses of more counted. */
START_TEST(rkeys_one_then_many)
{
	for (uint32_t i = 0; i < 40; i++) {
		struct rs_frame f = rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_RDMA_WRITE_ONLY, 0x12, i, 64);
		f.reth = (struct rs_reth){ .va = 0x1000 * (uint64_t)i, .rkey = i < 2 ? 0x100 : 0x100 + i, .dmalen = 64 };
		feed(f);
	}
	rs_analyzer_finish(an);
	const struct rs_rkeys *r = flow(B_HOST, A_HOST, 0x12)->rkeys;
	ck_assert_ptr_nonnull(r);
	ck_assert_uint_eq(r->n, 32); /* 0x100, then 0x102 ... 0x120 */
	ck_assert_uint_eq(r->more, 7); /* 0x121 ... 0x127 */
	const struct rs_rkey_use *u = rs_rkey_uses(r);
	ck_assert_uint_eq(u[0].rkey, 0x100);
	ck_assert_uint_eq(u[0].count, 2);
	ck_assert_uint_eq(u[0].bytes, 128);
	ck_assert_uint_eq(u[0].va_lo, 0);
	ck_assert_uint_eq(u[0].va_hi, 0x1000 + 64);
	ck_assert_uint_eq(u[0].first_frame, 1);
	ck_assert_uint_eq(u[1].rkey, 0x102);
	ck_assert_uint_eq(u[1].va_lo, 0x2000);
	ck_assert_uint_eq(u[31].rkey, 0x120);
	ck_assert_uint_eq(u[31].count, 1);
	ck_assert_uint_eq(u[31].first_frame, 33);
}
END_TEST

START_TEST(single_late_packet_is_out_of_order)
{
	uint32_t order[] = { 1, 2, 4, 3, 5 };
	for (unsigned i = 0; i < 5; i++)
		feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, order[i], 64));
	rs_analyzer_finish(an);
	struct rs_flow *fl = flow(B_HOST, A_HOST, 0x12);
	ck_assert_uint_eq(rs_loss(&fl->req)->gaps, 1);
	ck_assert_uint_eq(rs_loss(&fl->req)->ooo, 1);
	ck_assert_uint_eq(rs_loss(&fl->req)->episodes, 0);
	ck_assert_uint_eq(rs_flow_retransmitted(fl), 0);
	ck_assert_uint_eq(rs_msgs(fl)->msgs[RS_MSG_SEND], 5);
}
END_TEST

START_TEST(single_resent_packet_is_a_retransmission)
{
	/* 3 sent again after a timeout (no NAK): seen before, so not out of order. */
	uint32_t order[] = { 1, 2, 3, 3, 4 };
	for (unsigned i = 0; i < 5; i++)
		feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, order[i], 64));
	rs_analyzer_finish(an);
	struct rs_flow *fl = flow(B_HOST, A_HOST, 0x12);
	ck_assert_uint_eq(rs_loss(&fl->req)->duplicates, 1);
	ck_assert_uint_eq(rs_loss(&fl->req)->episodes, 1);
	ck_assert_uint_eq(rs_loss(&fl->req)->ooo, 0);
	ck_assert_uint_eq(rs_flow_retransmitted(fl), 1);
	ck_assert_uint_eq(rs_msgs(fl)->msgs[RS_MSG_SEND], 4);
}
END_TEST

START_TEST(go_back_across_the_psn_wrap)
{
	/* 0xFFFFFD .. 0x000002 with 0xFFFFFF lost, then resent from 0xFFFFFF:
	 * serial arithmetic must see a gap of one and three packets sent again
	 * (going back from 0x000002 to 0xFFFFFF), not a jump of 2^24 - 3. */
	uint32_t order[] = { 0xFFFFFD, 0xFFFFFE, 0x000000, 0x000001, 0x000002, 0xFFFFFF, 0x000000, 0x000001, 0x000002 };
	for (unsigned i = 0; i < 9; i++)
		feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, order[i], 64));
	rs_analyzer_finish(an);
	struct rs_flow *fl = flow(B_HOST, A_HOST, 0x12);
	ck_assert_uint_eq(rs_loss(&fl->req)->gaps, 1);
	ck_assert_uint_eq(rs_loss(&fl->req)->missing, 1);
	ck_assert_uint_eq(rs_loss(&fl->req)->backward, 4);
	ck_assert_uint_eq(rs_loss(&fl->req)->fills, 1);
	ck_assert_uint_eq(rs_loss(&fl->req)->duplicates, 3);
	ck_assert_uint_eq(rs_loss(&fl->req)->episodes, 1);
	ck_assert_uint_eq(rs_msgs(fl)->msgs[RS_MSG_SEND], 6);
}
END_TEST

START_TEST(read_consumes_one_psn_per_response_packet)
{
	/* PMTU 1024 learned from a WRITE First; a 4096-byte READ at PSN 10
	 * takes PSNs 10-13, so the next request at 14 is in order. */
	feed(write_pkt(IBV_OPCODE_RC_RDMA_WRITE_FIRST, 8, 1024));
	feed(write_pkt(IBV_OPCODE_RC_RDMA_WRITE_LAST, 9, 1024));
	struct rs_frame r = rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_RDMA_READ_REQUEST, 0x12, 10, 0);
	r.reth.dmalen = 4096;
	r.reth.rkey = 0x10;
	feed(r);
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, 14, 8));
	rs_analyzer_finish(an);
	struct rs_flow *fl = flow(B_HOST, A_HOST, 0x12);
	ck_assert_uint_eq(rs_loss(&fl->req)->gaps, 0);
	ck_assert_uint_eq(rs_flow_retransmitted(fl), 0);
	ck_assert_uint_eq(rs_msgs(fl)->msgs[RS_MSG_READ], 1);
}
END_TEST

START_TEST(read_of_unknown_length_resyncs)
{
	/* No PMTU known yet: the READ's PSN advance is unknown, so the jump to
	 * the next request is not called a gap. */
	struct rs_frame r = rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_RDMA_READ_REQUEST, 0x12, 10, 0);
	r.reth.dmalen = 65536;
	feed(r);
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, 74, 8));
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, 75, 8));
	rs_analyzer_finish(an);
	struct rs_flow *fl = flow(B_HOST, A_HOST, 0x12);
	ck_assert_uint_eq(rs_loss(&fl->req)->gaps, 0);
	ck_assert_uint_eq(rs_loss(&fl->req)->backward, 0);
}
END_TEST

START_TEST(huge_late_read_reserves_only_what_was_skipped)
{
	/* PSNs 11-19 skipped; READs of 2 GiB at PSN 12 (late) each reserve
	 * 2 M PSNs after their own. Only 13-19 were skipped, and walking the
	 * whole reservation per request would take minutes: the check's timeout
	 * fails the test if it does. */
	feed(write_pkt(IBV_OPCODE_RC_RDMA_WRITE_FIRST, 8, 1024));
	feed(write_pkt(IBV_OPCODE_RC_RDMA_WRITE_LAST, 9, 1024));
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, 10, 8));
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, 20, 8));
	struct rs_frame r = rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_RDMA_READ_REQUEST, 0x12, 12, 0);
	r.reth.dmalen = 1u << 31;
	r.reth.rkey = 0x10;
	for (int i = 0; i < 3000; i++)
		feed(r);
	rs_analyzer_finish(an);
	struct rs_flow *fl = flow(B_HOST, A_HOST, 0x12);
	ck_assert_uint_eq(rs_loss(&fl->req)->read_reserved, 7);
}
END_TEST

START_TEST(read_latency_and_bytes_from_responses)
{
	/* Requests B->A QP 0x12; responses A->B QP 0x11 (paired from the PSNs). */
	struct rs_frame r = rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_RDMA_READ_REQUEST, 0x12, 50, 0);
	r.reth.dmalen = 2048;
	r.bth.ackreq = 1;
	feed_at(r, 1000000);
	struct rs_frame first = rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_RDMA_READ_RESPONSE_FIRST, 0x11, 50, 1024);
	feed_at(first, 1010000); /* +10 µs */
	struct rs_frame last = rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_RDMA_READ_RESPONSE_LAST, 0x11, 51, 1024);
	feed_at(last, 1030000);  /* +30 µs */
	rs_analyzer_finish(an);
	struct rs_flow *req = flow(B_HOST, A_HOST, 0x12), *rsp = flow(A_HOST, B_HOST, 0x11);
	ck_assert_ptr_eq(req->peer, rsp);
	ck_assert_uint_eq(req->pair_method, RS_PAIR_INFERRED);
	ck_assert_uint_eq(rsp->read_resp_payload, 2048);
	ck_assert_ptr_nonnull(req->lat);
	const struct rs_latvec *lat_first = rs_latvec_of(req->lat, RS_LAT_READ_FIRST);
	const struct rs_latvec *lat_last = rs_latvec_of(req->lat, RS_LAT_READ_LAST);
	ck_assert_ptr_nonnull(lat_first);
	ck_assert_uint_eq(lat_first->n, 1);
	ck_assert_uint_eq(lat_first->min, 10000);
	ck_assert_ptr_nonnull(lat_last);
	ck_assert_uint_eq(lat_last->min, 30000);
}
END_TEST

START_TEST(inference_looks_past_flows_already_paired)
{
	/* A request stream B->A that waits for its first answer while 1,100
	 * other connections between the same two hosts come and are paired.
	 * The scan for its answer's requester looks at a bounded number of
	 * candidates; flows paired meanwhile must not use them up (when they
	 * did, the scan saw only the newest 1,024 and this answer was left
	 * unpaired, and a million connections took a quarter of the run). */
	struct rs_frame r = rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x5000, 1000, 64);
	r.bth.ackreq = 1;
	feed(r);
	for (uint32_t i = 0; i < 1100; i++) {
		uint32_t psn = 100000 + i * 10;
		struct rs_frame q = rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x10000 + i, psn, 64);
		q.bth.ackreq = 1;
		feed(q);
		feed(ack(A_HOST, B_HOST, 0x20000 + i, psn, 0x1F, 1));
	}
	feed(ack(A_HOST, B_HOST, 0x6000, 1000, 0x1F, 1));
	rs_analyzer_finish(an);
	for (uint32_t i = 0; i < 1100; i += 99) {
		struct rs_flow *q = flow(B_HOST, A_HOST, 0x10000 + i);
		ck_assert_ptr_eq(q->peer, flow(A_HOST, B_HOST, 0x20000 + i));
		ck_assert_uint_eq(q->pair_method, RS_PAIR_INFERRED);
	}
	struct rs_flow *old = flow(B_HOST, A_HOST, 0x5000), *rsp = flow(A_HOST, B_HOST, 0x6000);
	ck_assert_ptr_eq(rsp->peer, old);
	ck_assert_ptr_eq(old->peer, rsp);
	const struct rs_latvec *acked = rs_latvec_of(old->lat, RS_LAT_ACK);
	ck_assert_ptr_nonnull(acked);
	ck_assert_uint_eq(acked->n, 1); /* and its request was timed */
}
END_TEST

START_TEST(a_retired_flow_is_not_paired_again)
{
	/* QP 0x100's traffic is paired with its answers (0x200), then retired
	 * (the QPN reused for UD: another connection); then its partner is
	 * evicted. The retired flow is an old connection's: a new answer must
	 * not be paired with it. */
	restart((struct rs_analyzer_opts){ .interval_ns = 10000000, .max_flows = 8 });
	struct rs_frame r = rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x100, 1000, 64);
	r.bth.ackreq = 1;
	feed_at(r, 1000);
	feed_at(ack(A_HOST, B_HOST, 0x200, 1000, 0x1F, 1), 2000);
	struct rs_flow *x = flow(B_HOST, A_HOST, 0x100), *y = flow(A_HOST, B_HOST, 0x200);
	ck_assert_ptr_eq(x->peer, y);
	r.bth.psn = 1001;
	feed_at(r, 3000);
	feed_at(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_UD_SEND_ONLY, 0x100, 0, 64), 3500);
	ck_assert(x->retired);
	for (int i = 0; i < 6; i++) /* idler than y: y goes */
		feed_at(rt_roce_frame(3, 4, IBV_OPCODE_RC_SEND_ONLY, 0x700 + i, 0, 8), 2100 + i);
	ck_assert_ptr_null(flow(A_HOST, B_HOST, 0x200));
	ck_assert_ptr_null(x->peer);
	feed_at(ack(A_HOST, B_HOST, 0x300, 1001, 0x1F, 2), 4000);
	struct rs_flow *z = flow(A_HOST, B_HOST, 0x300);
	ck_assert_ptr_nonnull(z);
	ck_assert_ptr_null(z->peer);
}
END_TEST

START_TEST(host_pairs_gone_leave_no_lists)
{
	/* Under --max-flows the pairing index must shrink with the flows: a
	 * list emptied by a scan (its only flow paired) is removed once
	 * eviction has taken every flow of the two hosts. */
	restart((struct rs_analyzer_opts){ .interval_ns = 10000000, .max_flows = 16 });
	struct rs_frame r = rt_roce_frame(5, 6, IBV_OPCODE_RC_SEND_ONLY, 0x400, 1000, 64);
	r.bth.ackreq = 1;
	feed(r);
	feed(ack(6, 5, 0x500, 1000, 0x1F, 1));
	feed(ack(6, 5, 0x501, 1000, 0x1F, 1)); /* scans 5->6 again: drops 0x400, paired */
	for (int i = 0; i < 100; i++)
		feed(rt_roce_frame(3, 4, IBV_OPCODE_RC_SEND_ONLY, 0x700 + i, 0, 8));
	ck_assert_ptr_null(flow(5, 6, 0x400));
	ck_assert_uint_eq(g_hash_table_size(an->by_hosts), 1); /* 3 -> 4 only */
}
END_TEST

START_TEST(ack_coalescing_rnr_and_naks)
{
	for (uint32_t p = 0; p < 8; p++)
		feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, p, 32));
	feed(ack(A_HOST, B_HOST, 0x11, 3, 0x1F, 4));  /* ACK, credits 31: PSNs 0-3 */
	feed(ack(A_HOST, B_HOST, 0x11, 7, 0x1F, 8));  /* ACK: PSNs 4-7 */
	feed(ack(A_HOST, B_HOST, 0x11, 7, 0x1F, 8));  /* the same again */
	feed(ack(A_HOST, B_HOST, 0x11, 8, 0x20 | 14, 8)); /* RNR NAK, timer 14 = 1.28 ms (Table 45) */
	feed(ack(A_HOST, B_HOST, 0x11, 8, 0x60 | RS_NAK_REMOTE_ACCESS_ERR, 8));
	rs_analyzer_finish(an);
	struct rs_flow *rsp = flow(A_HOST, B_HOST, 0x11);
	ck_assert_uint_eq(rsp->acks, 3);
	ck_assert_uint_eq(rsp->acked_pkts, 8);
	ck_assert_uint_eq(rs_rare(rsp)->dup_acks, 1);
	ck_assert_uint_eq(rs_rare(rsp)->rnr_naks, 1);
	ck_assert_uint_eq(rs_rare(rsp)->rnr_timer_min, 14);
	ck_assert_uint_eq(rs_rnr_timer_us(rs_rare(rsp)->rnr_timer_min), 1280);
	ck_assert_uint_eq(rs_rare(rsp)->naks[RS_NAK_REMOTE_ACCESS_ERR], 1);
}
END_TEST

START_TEST(cnp_ecn_and_invalidated_rkey)
{
	struct rs_frame w = write_pkt(IBV_OPCODE_RC_RDMA_WRITE_ONLY, 1, 64);
	w.ecn = 3; /* Congestion Experienced */
	feed(w);
	feed(rt_roce_frame(A_HOST, B_HOST, RS_OP_CNP_ROCE, 0x11, 0, 0));
	/* SEND with Invalidate asks A to revoke its rkey 0x3af (IETH); a
	 * later WRITE to A with that rkey is flagged. */
	struct rs_frame inv = rt_roce_frame(B_HOST, A_HOST, RS_OP_RC_SEND_ONLY_WITH_INVALIDATE, 0x12, 2, 16);
	inv.ieth_rkey = 0x3af;
	feed(inv);
	feed(write_pkt(IBV_OPCODE_RC_RDMA_WRITE_ONLY, 3, 64));
	rs_analyzer_finish(an);
	struct rs_flow *fl = flow(B_HOST, A_HOST, 0x12);
	ck_assert_uint_eq(rs_rare(fl)->ecn_ce, 1);
	ck_assert_uint_eq(rs_rare(flow(A_HOST, B_HOST, 0x11))->cnps, 1);
	ck_assert_uint_eq(rs_msgs(fl)->msgs[RS_MSG_SEND_INV], 1);
	struct rs_anomaly probe = { .type = RS_AN_RKEY_INVALIDATED, .code = 0x3af, .subject = fl };
	struct rs_anomaly *x = g_hash_table_lookup(an->anomalies, &probe);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->count, 1);
	ck_assert_uint_eq(x->frames[0].frame, 4);
}
END_TEST

/* REQ from B (client, QP 0x12, Starting PSN 500), REP from A (server,
 * QP 0x11, Starting PSN 900), RTU. */
static void handshake(void)
{
	struct rs_frame hs[3];
	rt_cm_handshake(hs, B_HOST, A_HOST, 500, 900, 0x0000000001060001ull);
	feed(hs[0]);
	feed(hs[1]);
	feed(hs[2]);
}

START_TEST(cm_pairs_flows_and_checks_start_psn)
{
	/* The client then sends from 1000: the REP said 900 (Linux CM: REP's
	 * PSN is the client's first). 100 PSNs on, it is not a late packet. */
	handshake();
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x11, 1000, 8));
	feed(ack(A_HOST, B_HOST, 0x12, 1000, 0x1F, 1));
	rs_analyzer_finish(an);

	ck_assert_uint_eq(an->conns->len, 1);
	struct rs_conn *c = an->conns->pdata[0];
	ck_assert_str_eq(rs_conn_state(c), "established");
	struct rs_flow *c2s = flow(B_HOST, A_HOST, 0x11), *s2c = flow(A_HOST, B_HOST, 0x12);
	ck_assert_ptr_eq(c->c2s, c2s);
	ck_assert_ptr_eq(c->s2c, s2c);
	ck_assert_ptr_eq(c2s->peer, s2c);
	ck_assert_uint_eq(c2s->pair_method, RS_PAIR_CM);
	struct rs_anomaly probe = { .type = RS_AN_PSN_START, .code = 900, .subject = c2s };
	ck_assert_ptr_nonnull(g_hash_table_lookup(an->anomalies, &probe));
}
END_TEST

/* A re-send run whose packets the network reorders is still one run: the
 * requester numbered them (IPv4 identification) in the order it sent them. */
static struct rs_frame send_id(uint32_t psn, uint16_t id)
{
	struct rs_frame f = rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, psn, 64);
	f.ip_id = id;
	return f;
}

START_TEST(reordered_resend_run_is_one_episode)
{
	/* Sent: PSN 10..15 as IDs 100..105 (12 lost on the way), a NAK at 12,
	 * then 12..15 again and 16, 17 for the first time, as IDs 106..111.
	 * They arrive 13, 12, 17, 14, 15, 16: in arrival order the new PSN 17
	 * ends a run and 14 begins another; in the sender's order it is one. */
	for (uint32_t p = 10; p < 16; p++)
		if (p != 12)
			feed(send_id(p, (uint16_t)(90 + p)));
	feed(ack(A_HOST, B_HOST, 0x11, 12, 0x60 | RS_NAK_PSN_SEQ_ERR, 2));
	static const uint32_t arrive[] = { 13, 12, 17, 14, 15, 16 };
	for (unsigned k = 0; k < sizeof arrive / sizeof arrive[0]; k++)
		feed(send_id(arrive[k], (uint16_t)(94 + arrive[k])));
	rs_analyzer_finish(an);

	struct rs_flow *fl = flow(B_HOST, A_HOST, 0x12);
	const struct rs_psn_loss *l = rs_loss(&fl->req);
	ck_assert_uint_eq(l->episodes, 1);
	ck_assert_uint_eq(l->episodes_by[RS_RESEND_NAK], 1);
	ck_assert_uint_eq(l->resent[RS_RESEND_NAK], 4);
	ck_assert_uint_eq(l->resent[RS_RESEND_TIMEOUT], 0);
	ck_assert_uint_eq(rs_flow_retransmitted(fl), 4);
	ck_assert_uint_eq(rs_msgs(fl)->msgs[RS_MSG_SEND], 8);
}
END_TEST

START_TEST(first_packet_late_is_no_start_mismatch)
{
	/* 901 comes first, then 900 (reordered): the stream starts at the
	 * Starting PSN, 900 fills a gap, and nothing differs from the CM. */
	handshake();
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x11, 901, 8));
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x11, 900, 8));
	feed(ack(A_HOST, B_HOST, 0x12, 901, 0x1F, 1));
	rs_analyzer_finish(an);
	struct rs_flow *c2s = flow(B_HOST, A_HOST, 0x11);
	struct rs_anomaly probe = { .type = RS_AN_PSN_START, .code = 900, .subject = c2s };
	ck_assert_ptr_null(g_hash_table_lookup(an->anomalies, &probe));
	ck_assert_uint_eq(c2s->req.first, 900);
	ck_assert_uint_eq(rs_loss(&c2s->req)->ooo, 1);
	ck_assert_uint_eq(c2s->payload, 16);
	ck_assert_uint_eq(rs_flow_retransmitted(c2s), 0);
	ck_assert_uint_eq(rs_msgs(c2s)->msgs[RS_MSG_SEND], 2);
}
END_TEST

/* IBA 9.4.1: a WRITE Only's RETH DMA length is its payload. */
START_TEST(write_only_reth_length_must_be_its_payload)
{
	struct rs_frame w = rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_RDMA_WRITE_ONLY, 0x11, 100, 16);
	w.ext |= RS_EXT_RETH;
	w.reth.dmalen = 16;
	feed(w);
	w.bth.psn = 101;
	w.reth.dmalen = 1u << 30; /* a DC packet read as RD once looked like this */
	feed(w);
	rs_analyzer_finish(an);
	struct rs_anomaly probe = { .type = RS_AN_RETH_LENGTH, .code = 0, .subject = flow(B_HOST, A_HOST, 0x11) };
	const struct rs_anomaly *x = g_hash_table_lookup(an->anomalies, &probe);
	ck_assert_ptr_nonnull(x);
	ck_assert_uint_eq(x->count, 1);
	ck_assert_uint_eq(x->frames[0].frame, 2);
}
END_TEST

START_TEST(cm_events_are_worded_for_the_live_view_only)
{
	/* Without a listener (a file's run: the fixture's options) the
	 * analyzer has nowhere to send them; the live view's reader keeps
	 * each step, naming hosts and QPs as the frames gave them. */
	struct rs_live_event ev[8];
	handshake();
	struct rs_live *lv = rs_live_new(false);
	ck_assert_uint_eq(rs_live_events(lv, ev, 8), 0);
	restart((struct rs_analyzer_opts){
		.interval_ns = 10000000, .cm_event = rs_live_cm_event, .cm_event_ctx = lv });
	handshake();
	ck_assert_uint_eq(rs_live_events(lv, ev, 8), 3);
	ck_assert_str_eq(ev[0].text, "REQ  192.0.2.2 QP 0x12 -> 192.0.2.1 RDMA CM port 1 (TCP port space)");
	ck_assert_str_eq(ev[1].text, "REP  192.0.2.1 QP 0x11 accepts 192.0.2.2 QP 0x12");
	ck_assert_str_eq(ev[2].text, "RTU  192.0.2.2 -> 192.0.2.1");
	rs_live_free(lv);
}
END_TEST

START_TEST(roce_v1_and_v2_between_the_same_hosts)
{
	/* A v2 frame 192.0.2.2 -> 192.0.2.1, then a v1 frame between the same
	 * hosts with IPv4-mapped GIDs (::ffff:192.0.2.x, RFC 4291 2.5.5.2). */
	feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, 1, 8));
	struct rs_frame v1 = rt_roce_frame(A_HOST, B_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x11, 1, 8);
	v1.roce = RS_ROCE_V1;
	v1.ip_version = 0;
	v1.have = RS_HAVE_ETH | RS_HAVE_GRH | RS_HAVE_BTH | RS_HAVE_EXT | RS_HAVE_ICRC;
	for (int i = 0; i < 2; i++) {
		struct rs_addr *ad = i ? &v1.dst : &v1.src;
		uint8_t host = ad->b[3];
		memset(ad, 0, sizeof *ad);
		ad->kind = RS_ADDR_GID;
		ad->b[10] = ad->b[11] = 0xFF;
		ad->b[12] = 192;
		ad->b[14] = 2;
		ad->b[15] = host;
	}
	feed(v1);
	rs_analyzer_finish(an);
	GPtrArray *all = rs_anomalies_sorted(an);
	bool mixed = false;
	for (guint i = 0; i < all->len; i++) {
		struct rs_anomaly *x = all->pdata[i];
		if (x->type == RS_AN_MIXED_ROCE) {
			mixed = true;
			ck_assert_uint_eq(x->frames[0].frame, 1);
			ck_assert_uint_eq(x->frames[1].frame, 2);
		}
	}
	g_ptr_array_free(all, TRUE);
	ck_assert(mixed);
	/* The report names both hosts and where each version was first seen. */
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct rs_report_opts ro = { .qp = -1 };
	rs_report_text(out, an, &ro);
	fclose(out);
	ck_assert_ptr_nonnull(strstr(text, "RoCE v1 (frame 2) and RoCE v2 (frame 1) between 192.0.2.1 and 192.0.2.2"));
	free(text);
}
END_TEST

START_TEST(eviction_keeps_the_cap)
{
	restart((struct rs_analyzer_opts){ .interval_ns = 10000000, .max_flows = 32 });
	for (uint32_t q = 2; q < 1002; q++)
		feed(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, q, 0, 10));
	rs_analyzer_finish(an);
	ck_assert_uint_le(an->nflows, 32);
	ck_assert_uint_eq(an->nflows + an->evicted, 1000);
	uint64_t packets = an->evicted_sum.packets;
	for (guint i = 0; i < an->flows->len; i++)
		if (an->flows->pdata[i])
			packets += ((struct rs_flow *)an->flows->pdata[i])->packets;
	ck_assert_uint_eq(packets, 1000);
	ck_assert(rs_analyzer_has_anomalies(an));
}
END_TEST

/* Frames of one QP, ten per interval of 10 ms, with the payload of each
 * interval given (and two idle intervals): its peak is the busiest one. */
static uint64_t feed_intervals(void)
{
	static const uint32_t per_interval[] = { 100, 300, 0, 0, 200, 50 };
	uint32_t psn = 0;
	for (size_t i = 0; i < G_N_ELEMENTS(per_interval); i++)
		for (int k = 0; per_interval[i] && k < 10; k++)
			feed_at(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, psn++, per_interval[i] / 10),
				1000000000ull + i * 10000000ull + (uint64_t)k * 1000);
	rs_analyzer_finish(an);
	return flow(B_HOST, A_HOST, 0x12)->peak_bytes;
}

START_TEST(peak_is_the_busiest_interval_with_or_without_rows)
{
	/* Without --timeline/--plot the flow keeps only its latest interval's
	 * bytes; with them, rows per active flow. The same peak either way. */
	ck_assert(!an->tl_rows_on);
	ck_assert_uint_eq(feed_intervals(), 300);
	FILE *csv = tmpfile();
	ck_assert_ptr_nonnull(csv);
	struct rs_tlcsv *w = rs_tlcsv_new(csv, -1, 10000000, false, true);
	restart((struct rs_analyzer_opts){ .interval_ns = 10000000, .interval = rs_tlcsv_row, .interval_ctx = w });
	ck_assert(an->tl_rows_on);
	ck_assert_uint_eq(feed_intervals(), 300);
	rs_tlcsv_free(w);
	ck_assert_int_eq(fseek(csv, 0, SEEK_SET), 0);
	char line[256];
	int rows = 0, zeros = 0;
	while (fgets(line, sizeof line, csv)) {
		rows++;
		zeros += strstr(line, ",0x12,0,0,0,0,0,0,0,0,0,,,,,,\n") != NULL;
	}
	/* the header, the four busy intervals and the two idle ones between them */
	ck_assert_int_eq(rows, 1 + 4 + 2);
	ck_assert_int_eq(zeros, 2);
	fclose(csv);
}
END_TEST

/* A flow idle for 5000 intervals of 10 ms between two frames: the CSV
 * has the first and the last zero row of that stretch (report/timeline.c,
 * more than 1000 in a row), not 5000. */
START_TEST(timeline_long_idle_stretch_is_two_zero_rows)
{
	FILE *csv = tmpfile();
	ck_assert_ptr_nonnull(csv);
	struct rs_tlcsv *w = rs_tlcsv_new(csv, -1, 10000000, false, true);
	restart((struct rs_analyzer_opts){ .interval_ns = 10000000, .interval = rs_tlcsv_row, .interval_ctx = w });
	feed_at(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, 0, 10), 1000000000ull);
	feed_at(rt_roce_frame(B_HOST, A_HOST, IBV_OPCODE_RC_SEND_ONLY, 0x12, 1, 10), 1000000000ull + 5001ull * 10000000ull);
	rs_analyzer_finish(an);
	rs_tlcsv_free(w);
	ck_assert_int_eq(fseek(csv, 0, SEEK_SET), 0);
	char line[256], first_zero[64] = "", last_zero[64] = "";
	int rows = 0;
	while (fgets(line, sizeof line, csv)) {
		rows++;
		if (strstr(line, ",0x12,0,0,0,0,0,0,0,0,0,,,,,,\n")) {
			if (!first_zero[0])
				snprintf(first_zero, sizeof first_zero, "%.12s", line);
			snprintf(last_zero, sizeof last_zero, "%.12s", line);
		}
	}
	ck_assert_int_eq(rows, 1 + 2 + 2);
	ck_assert_str_eq(first_zero, "0.010000000,"); /* the interval after the first frame's */
	ck_assert_str_eq(last_zero, "50.000000000"); /* the one before the second frame's (5001) */
	fclose(csv);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("analyzer");
	TCase *t = tcase_create("transport");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, psn_wraps_inside_a_message);
	tcase_add_test(t, go_back_n_after_loss);
	tcase_add_test(t, huge_late_read_reserves_only_what_was_skipped);
	tcase_add_test(t, message_counters_few_then_all);
	tcase_add_test(t, message_counters_of_a_busy_flow);
	tcase_add_test(t, rkeys_one_then_many);
	tcase_add_test(t, single_late_packet_is_out_of_order);
	tcase_add_test(t, single_resent_packet_is_a_retransmission);
	tcase_add_test(t, go_back_across_the_psn_wrap);
	tcase_add_test(t, read_consumes_one_psn_per_response_packet);
	tcase_add_test(t, read_of_unknown_length_resyncs);
	tcase_add_test(t, read_latency_and_bytes_from_responses);
	tcase_add_test(t, inference_looks_past_flows_already_paired);
	tcase_add_test(t, a_retired_flow_is_not_paired_again);
	tcase_add_test(t, host_pairs_gone_leave_no_lists);
	tcase_add_test(t, ack_coalescing_rnr_and_naks);
	tcase_add_test(t, cnp_ecn_and_invalidated_rkey);
	tcase_add_test(t, cm_pairs_flows_and_checks_start_psn);
	tcase_add_test(t, first_packet_late_is_no_start_mismatch);
	tcase_add_test(t, reordered_resend_run_is_one_episode);
	tcase_add_test(t, write_only_reth_length_must_be_its_payload);
	tcase_add_test(t, cm_events_are_worded_for_the_live_view_only);
	tcase_add_test(t, roce_v1_and_v2_between_the_same_hosts);
	tcase_add_test(t, eviction_keeps_the_cap);
	tcase_add_test(t, peak_is_the_busiest_interval_with_or_without_rows);
	tcase_add_test(t, timeline_long_idle_stretch_is_two_zero_rows);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}

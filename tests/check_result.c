/*
 * check_result.c — the analysis as its readers see it (analyzer/result.h),
 * on hand-built frames: the records hold what the frames fed say, the
 * selection and order a report shows follow --qp and the wire bytes, and a
 * stream's record counts the PSNs the frames skipped. Only the public
 * headers are included, as report/ and views/ include them.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/analyzer.h"
#include "analyzer/result.h"
#include "tests/support/afeed.h"
#include "tests/support/rstest.h"

#define A_HOST 1 /* 192.0.2.1 */
#define B_HOST 2 /* 192.0.2.2 */
#define C_HOST 3 /* 192.0.2.3 */
#define T0 1000000000ull

static struct rt_feed run;
static struct rs_analyzer *an;

static void setup(void)
{
	rt_feed_start(&run, (struct rs_analyzer_opts){ .interval_ns = 10000000 });
	an = run.an;
}

static void teardown(void)
{
	rt_feed_stop(&run);
}

/* A SEND Only of `payload` bytes, on the wire as 100 + payload bytes, at
 * T0 + 1 us per frame. */
static void send_only(int from, int to, uint32_t qpn, uint32_t psn, uint32_t payload)
{
	struct rs_frame f = rt_roce_frame(from, to, IBV_OPCODE_RC_SEND_ONLY, qpn, psn, payload);
	rt_feed_add(&run, f, T0 + (run.frame_no + 1) * 1000, NULL);
}

static bool is_host(const struct rs_addr *ad, int host)
{
	struct rs_addr want;
	memset(&want, 0, sizeof want);
	rt_set_ip(&want, host);
	return ad->kind == want.kind && memcmp(ad->b, want.b, 4) == 0;
}

START_TEST(finished_once_by_the_caller)
{
	send_only(A_HOST, B_HOST, 0x11, 0, 8);
	ck_assert(!rs_analyzer_finished(an));
	rs_analyzer_finish(an);
	ck_assert(rs_analyzer_finished(an));
	rs_analyzer_finish(an); /* a second call does nothing */
	ck_assert(rs_analyzer_finished(an));
}
END_TEST

START_TEST(flow_record_holds_what_was_fed)
{
	send_only(A_HOST, B_HOST, 0x11, 5, 100);
	send_only(A_HOST, B_HOST, 0x11, 6, 200);
	send_only(A_HOST, B_HOST, 0x11, 7, 300);
	rs_analyzer_finish(an);
	size_t pos = 0;
	const struct rs_flow *fl = rs_flows_next(an, &pos);
	ck_assert_ptr_nonnull(fl);
	ck_assert_ptr_null(rs_flows_next(an, &pos)); /* one half-flow */
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	ck_assert(is_host(&fi.src, A_HOST) && is_host(&fi.dst, B_HOST));
	ck_assert_uint_eq(fi.dest_qp, 0x11);
	ck_assert_str_eq(fi.transport, "RC");
	ck_assert(!fi.is_cm_qp);
	ck_assert_uint_eq(fi.packets, 3);
	ck_assert_uint_eq(fi.wire_bytes, 300 + 600);
	ck_assert_uint_eq(fi.payload, 600);
	ck_assert_uint_eq(fi.payload_all, 600);
	ck_assert_uint_eq(fi.first_ts, T0 + 1000);
	ck_assert_uint_eq(fi.last_ts, T0 + 3000);
	ck_assert_uint_eq(fi.retransmitted, 0);
	ck_assert_ptr_null(fi.peer);
	ck_assert_ptr_null(fi.conn);
	struct rs_addr s, d;
	uint32_t q;
	rs_flow_ends(fl, &s, &d, &q);
	ck_assert(is_host(&s, A_HOST) && is_host(&d, B_HOST) && q == 0x11);
	/* 600 bytes over the 2 us from the first frame to the last. */
	ck_assert(rs_flow_avg_Bps(fl) > 600 / 2e-6 - 1 && rs_flow_avg_Bps(fl) < 600 / 2e-6 + 1);
	struct rs_flow_msgs mb;
	ck_assert_uint_eq(rs_flow_messages(fl, &mb)->msgs[RS_MSG_SEND], 3);
	ck_assert_uint_eq(rs_flow_msgs_total(fl), 3);
	struct rs_capture_info cap;
	rs_capture_get_info(an, &cap);
	ck_assert_uint_eq(cap.frames, 3);
	ck_assert_uint_eq(cap.files, 1);
	ck_assert_uint_eq(cap.half_flows, 1);
	ck_assert_uint_eq(cap.roce[RS_ROCE_V2], 3);
	ck_assert(cap.have_ts && cap.first_ts == T0 + 1000 && cap.last_ts == T0 + 3000);
}
END_TEST

START_TEST(stream_record_counts_the_skipped_psns)
{
	/* PSNs 10, 11, then 14: 12 and 13 skipped in one gap (IBA 9.7.1: the
	 * next PSN is the previous one plus one). */
	send_only(A_HOST, B_HOST, 0x11, 10, 8);
	send_only(A_HOST, B_HOST, 0x11, 11, 8);
	send_only(A_HOST, B_HOST, 0x11, 14, 8);
	rs_analyzer_finish(an);
	size_t pos = 0;
	const struct rs_flow *fl = rs_flows_next(an, &pos);
	struct rs_stream_info st;
	rs_flow_stream(fl, false, &st);
	ck_assert(st.started);
	ck_assert_uint_eq(st.first, 10);
	ck_assert_uint_eq(st.next, 15);
	ck_assert_uint_eq(st.packets, 3);
	ck_assert_uint_eq(st.gaps, 1);
	ck_assert_uint_eq(st.missing, 2);
	struct rs_gaps g = rs_gaps_of_stream(&st);
	ck_assert_uint_eq(g.skipped, 2);
	ck_assert_uint_eq(g.absent, 2); /* never seen later */
	rs_flow_stream(fl, true, &st);
	ck_assert(!st.started); /* no responses on a requester's half-flow */
}
END_TEST

START_TEST(selection_by_qp_and_order_by_wire_bytes)
{
	send_only(A_HOST, B_HOST, 0x11, 0, 10);   /* 110 bytes on the wire */
	send_only(A_HOST, C_HOST, 0x12, 0, 1000); /* 1100 */
	send_only(B_HOST, C_HOST, 0x13, 0, 500);  /* 600 */
	send_only(B_HOST, C_HOST, 0x13, 1, 500);  /* 1200 in all */
	rs_analyzer_finish(an);
	GPtrArray *all = rs_flows_selected(an, -1, -1);
	ck_assert_uint_eq(all->len, 3);
	static const uint32_t order[] = { 0x13, 0x12, 0x11 };
	for (guint i = 0; i < all->len; i++) {
		struct rs_flow_info fi;
		rs_flow_get_info(rs_flows_at(all, i), &fi);
		ck_assert_uint_eq(fi.dest_qp, order[i]);
	}
	g_ptr_array_free(all, TRUE);
	GPtrArray *one = rs_flows_selected(an, 0x12, -1);
	ck_assert_uint_eq(one->len, 1);
	struct rs_flow_info fi;
	rs_flow_get_info(rs_flows_at(one, 0), &fi);
	ck_assert_uint_eq(fi.dest_qp, 0x12);
	g_ptr_array_free(one, TRUE);
	GPtrArray *none = rs_flows_selected(an, 0x99, -1);
	ck_assert_uint_eq(none->len, 0);
	g_ptr_array_free(none, TRUE);
	GPtrArray *conns = rs_conns_selected(an, -1, -1);
	ck_assert_uint_eq(conns->len, 0); /* no CM messages fed */
	g_ptr_array_free(conns, TRUE);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("result");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, finished_once_by_the_caller);
	tcase_add_test(tc, flow_record_holds_what_was_fed);
	tcase_add_test(tc, stream_record_counts_the_skipped_psns);
	tcase_add_test(tc, selection_by_qp_and_order_by_wire_bytes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}

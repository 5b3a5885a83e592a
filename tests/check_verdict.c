/*
 * check_verdict.c — the analyzer's per-frame verdicts (rs_analyzer_add_v)
 * on hand-built frames, and on real captures that asking for them does not
 * change the analysis.
 *
 * What each verdict must say follows from IBA vol 1: a resent request
 * reuses its PSN and the responder's PSN sequence error NAK names the PSN
 * it expects (9.7.5.1.3, go-back-N); an ACK or READ response carries the
 * PSN of the request it answers (9.7.5.1.1, 9.7.4.1.4); packets of one
 * message have consecutive PSNs (9.7.4); a CM reply names the message it
 * answers by the other side's Communication ID (12.6.1); with Linux's CM
 * the REQ's Starting PSN is the server's first, the REP's the client's.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/transport/transport.h"
#include "capture/source.h"
#include "report/report.h"
#include "tests/support/afeed.h"
#include "tests/support/rstest.h"

#define A_HOST 1 /* 192.0.2.1: responder */
#define B_HOST 2 /* 192.0.2.2: requester */
#define RESP_QP 0x12 /* A's QP: B's requests go to it */
#define REQ_QP 0x21  /* B's QP: A's responses go to it */

static struct rt_feed run;
static struct rs_analyzer *an;
static struct rs_verdict v;

static void setup(void)
{
	rt_feed_start(&run, (struct rs_analyzer_opts){ .interval_ns = 10000000 });
	an = run.an;
}

static void teardown(void)
{
	rt_feed_stop(&run);
}

/* A request from B, a response from A. */
static struct rs_frame rq(uint8_t opcode, uint32_t psn, uint32_t payload)
{
	struct rs_frame f = rt_roce_frame(B_HOST, A_HOST, opcode, RESP_QP, psn, payload);
	f.reth.va = 0x1000;
	f.reth.rkey = 0x3af;
	f.reth.dmalen = 4096;
	return f;
}

static struct rs_frame rsp(uint8_t opcode, uint32_t psn, uint32_t payload, uint8_t syndrome)
{
	struct rs_frame f = rt_roce_frame(A_HOST, B_HOST, opcode, REQ_QP, psn, payload);
	f.aeth.syndrome = syndrome;
	return f;
}

/* Add it and return its verdict (also in `v`). */
static const struct rs_verdict *feed(struct rs_frame f)
{
	rt_feed_add(&run, f, 1000000000ull + (run.frame_no + 1) * 1000, &v);
	return &v;
}

#define ACK_SYN 0x1F
#define NAK_SEQ 0x60 /* NAK, code 0: PSN sequence error */

START_TEST(go_back_n_names_the_nak_and_the_first_sending)
{
	const struct rs_verdict *x = feed(rq(IBV_OPCODE_RC_RDMA_WRITE_FIRST, 100, 1024));
	ck_assert_uint_eq(x->psn, RS_V_PSN_NEXT);
	ck_assert_uint_eq(x->msg, RS_KIND_WRITE);
	ck_assert(x->msg_known);
	ck_assert_uint_eq(x->msg_index, 1);
	ck_assert_uint_eq(x->msg_total, 4096);
	ck_assert_uint_eq(x->msg_first_frame, 1);
	x = feed(rq(IBV_OPCODE_RC_RDMA_WRITE_MIDDLE, 101, 1024));
	ck_assert(x->msg_known);
	ck_assert_uint_eq(x->msg_index, 2);
	ck_assert_uint_eq(x->msg_offset, 1024);
	ck_assert_uint_eq(x->msg_first_frame, 1);
	/* 102 is lost before the capture point. */
	x = feed(rq(IBV_OPCODE_RC_RDMA_WRITE_MIDDLE, 103, 1024));
	ck_assert_uint_eq(x->psn, RS_V_PSN_AHEAD);
	ck_assert_uint_eq(x->gap, 1);
	ck_assert(!x->msg_known); /* the PSNs of its message are not consecutive here */
	x = feed(rsp(IBV_OPCODE_RC_ACKNOWLEDGE, 102, 0, NAK_SEQ));   /* frame 4 */
	ck_assert_uint_eq(x->req_frame, 0);  /* 102 never went past here */
	x = feed(rq(IBV_OPCODE_RC_RDMA_WRITE_MIDDLE, 102, 1024));     /* frame 5 */
	ck_assert_uint_eq(x->psn, RS_V_PSN_FILL);
	ck_assert_uint_eq(x->resent_of, 0);
	ck_assert_uint_eq(x->nak_frame, 4);
	ck_assert_uint_eq(x->nak_psn, 102);
	ck_assert(x->msg_known); /* right after 101: the message continues */
	ck_assert_uint_eq(x->msg_index, 3);
	ck_assert_uint_eq(x->msg_offset, 2048);
	x = feed(rq(IBV_OPCODE_RC_RDMA_WRITE_LAST, 103, 1024));       /* frame 6 */
	ck_assert_uint_eq(x->psn, RS_V_PSN_DUPLICATE);
	ck_assert_uint_eq(x->resent_of, 3);
	ck_assert_uint_eq(x->nak_frame, 4);  /* after its first sending: this go-back-N */
	ck_assert_uint_eq(x->msg_index, 4);
	ck_assert_uint_eq(x->msg_offset, 3072);
	x = feed(rsp(IBV_OPCODE_RC_ACKNOWLEDGE, 103, 0, ACK_SYN));    /* frame 7 */
	ck_assert_uint_eq(x->req_frame, 6); /* the newest packet with PSN 103 */
	ck_assert_uint_eq(x->req_opcode, IBV_OPCODE_RC_RDMA_WRITE_LAST);
	ck_assert(!x->dup_ack);
	x = feed(rsp(IBV_OPCODE_RC_ACKNOWLEDGE, 103, 0, ACK_SYN));
	ck_assert(x->dup_ack);
	ck_assert_uint_eq(x->psn, RS_V_PSN_NONE);
	/* A new message: its First is not a retransmission, and no NAK covers it. */
	x = feed(rq(IBV_OPCODE_RC_SEND_ONLY, 104, 8));
	ck_assert_uint_eq(x->psn, RS_V_PSN_NEXT);
	ck_assert_uint_eq(x->nak_frame, 0);
	ck_assert_uint_eq(x->msg, RS_KIND_SEND);
	ck_assert_uint_eq(x->msg_total, 8);
}
END_TEST

START_TEST(a_late_packet_is_named_by_the_next)
{
	feed(rq(IBV_OPCODE_RC_SEND_ONLY, 10, 8));
	const struct rs_verdict *x = feed(rq(IBV_OPCODE_RC_SEND_ONLY, 12, 8));
	ck_assert_uint_eq(x->gap, 1);
	x = feed(rq(IBV_OPCODE_RC_SEND_ONLY, 11, 8));
	ck_assert_uint_eq(x->psn, RS_V_PSN_FILL);
	ck_assert_uint_eq(x->late_frame, 0); /* not known yet: a go-back-N may follow */
	x = feed(rq(IBV_OPCODE_RC_SEND_ONLY, 13, 8));
	ck_assert_uint_eq(x->psn, RS_V_PSN_NEXT);
	ck_assert_uint_eq(x->late_frame, 3);
}
END_TEST

START_TEST(read_responses_and_atomics_name_their_request)
{
	struct rs_frame r = rq(IBV_OPCODE_RC_RDMA_READ_REQUEST, 200, 0);
	r.reth.dmalen = 3000;
	feed(r);
	const struct rs_verdict *x = feed(rsp(IBV_OPCODE_RC_RDMA_READ_RESPONSE_FIRST, 200, 1024, ACK_SYN));
	ck_assert_uint_eq(x->req_frame, 1);
	ck_assert_uint_eq(x->msg, RS_KIND_READ_RESP);
	ck_assert_uint_eq(x->msg_req_frame, 1);
	ck_assert_uint_eq(x->msg_total, 3000);
	ck_assert_uint_eq(x->msg_index, 1);
	x = feed(rsp(IBV_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE, 201, 1024, 0));
	ck_assert(x->msg_known);
	ck_assert_uint_eq(x->msg_index, 2);
	ck_assert_uint_eq(x->msg_offset, 1024);
	ck_assert_uint_eq(x->msg_req_frame, 1);
	ck_assert_uint_eq(x->msg_first_frame, 2);
	x = feed(rsp(IBV_OPCODE_RC_RDMA_READ_RESPONSE_LAST, 202, 952, ACK_SYN));
	ck_assert_uint_eq(x->msg_index, 3);
	ck_assert_uint_eq(x->msg_offset, 2048);
	ck_assert_uint_eq(x->msg_total, 3000);
	/* The requester's stream went on past the READ's three PSNs. */
	feed(rq(IBV_OPCODE_RC_COMPARE_SWAP, 203, 0));
	x = feed(rsp(IBV_OPCODE_RC_ATOMIC_ACKNOWLEDGE, 203, 0, ACK_SYN));
	ck_assert_uint_eq(x->req_frame, 5);
	ck_assert_uint_eq(x->req_opcode, IBV_OPCODE_RC_COMPARE_SWAP);
	ck_assert_uint_eq(x->psn, RS_V_PSN_NEXT);
	/* The READ response sent again: a duplicate of frame 3's PSN. */
	x = feed(rsp(IBV_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE, 201, 1024, 0));
	ck_assert_uint_eq(x->psn, RS_V_PSN_DUPLICATE);
}
END_TEST

static struct rs_frame cm(int from, int to, uint16_t attr)
{
	struct rs_frame f = rt_roce_frame(from, to, IBV_OPCODE_UD_SEND_ONLY, 1, 0, 256);
	f.have |= RS_HAVE_MAD | RS_HAVE_CM;
	rt_mad(&f)->is_cm = true;
	rt_mad(&f)->attr_ok = true;
	rt_mad(&f)->captured = RS_MAD_SIZE;
	rt_mad(&f)->fields = RT_CMF_ALL;
	rt_mad(&f)->hdr.mgmt_class = UMAD_CLASS_CM;
	rt_mad(&f)->hdr.attr_id = attr;
	return f;
}

START_TEST(cm_replies_name_what_they_answer)
{
	/* B (client, QP REQ_QP) asks A (server, QP RESP_QP). */
	struct rs_frame req = cm(B_HOST, A_HOST, UMAD_CM_ATTR_REQ);
	rt_mad(&req)->u.req.local_comm_id = 0xabc;
	rt_mad(&req)->u.req.local_qpn = REQ_QP;
	rt_mad(&req)->u.req.starting_psn = 500;
	feed(req);
	feed(req); /* a retry: the REP answers the newest */
	struct rs_frame rep = cm(A_HOST, B_HOST, UMAD_CM_ATTR_REP);
	rt_mad(&rep)->u.rep.local_comm_id = 0xdef;
	rt_mad(&rep)->u.rep.remote_comm_id = 0xabc;
	rt_mad(&rep)->u.rep.local_qpn = RESP_QP;
	rt_mad(&rep)->u.rep.starting_psn = 900;
	ck_assert_uint_eq(feed(rep)->cm_answers, 2);
	struct rs_frame rtu = cm(B_HOST, A_HOST, UMAD_CM_ATTR_RTU);
	rt_mad(&rtu)->u.ids.local_comm_id = 0xabc;
	rt_mad(&rtu)->u.ids.remote_comm_id = 0xdef;
	ck_assert_uint_eq(feed(rtu)->cm_answers, 3);
	/* The same IDs to another host answer nothing here: a reply names the
	 * message by its receiver's ID. */
	rt_set_ip(&rtu.dst, 3);
	ck_assert_uint_eq(feed(rtu)->cm_answers, 0);

	const struct rs_verdict *x = feed(rq(IBV_OPCODE_RC_SEND_ONLY, 900, 8));
	ck_assert_uint_eq(x->start_frame, 3);
	ck_assert_uint_eq(x->start_attr, UMAD_CM_ATTR_REP);
	ck_assert_uint_eq(x->start_qpn, RESP_QP);
	x = feed(rsp(IBV_OPCODE_RC_SEND_ONLY, 500, 8, 0));
	ck_assert_uint_eq(x->start_frame, 2);
	ck_assert_uint_eq(x->start_attr, UMAD_CM_ATTR_REQ);
	x = feed(rq(IBV_OPCODE_RC_SEND_ONLY, 901, 8));
	ck_assert_uint_eq(x->start_frame, 0);

	/* A DREQ and its DREP, with no REQ or REP captured for their IDs. */
	struct rs_frame dreq = cm(A_HOST, B_HOST, UMAD_CM_ATTR_DREQ);
	rt_mad(&dreq)->u.ids.local_comm_id = 0x77;
	rt_mad(&dreq)->u.ids.remote_comm_id = 0x66;
	uint64_t at = run.frame_no + 1;
	ck_assert_uint_eq(feed(dreq)->cm_answers, 0);
	struct rs_frame drep = cm(B_HOST, A_HOST, UMAD_CM_ATTR_DREP);
	rt_mad(&drep)->u.ids.local_comm_id = 0x66;
	rt_mad(&drep)->u.ids.remote_comm_id = 0x77;
	ck_assert_uint_eq(feed(drep)->cm_answers, at);
}
END_TEST

START_TEST(icrc_and_capture_artefacts)
{
	struct rs_frame f = rq(IBV_OPCODE_RC_SEND_ONLY, 1, 8);
	ck_assert_uint_eq(feed(f)->icrc, RS_V_ICRC_OK);
	f.icrc_status = RS_CRC_BAD;
	ck_assert_uint_eq(feed(f)->icrc, RS_V_ICRC_BAD);
	f.icrc_sport = 49152;
	ck_assert_uint_eq(feed(f)->icrc, RS_V_ICRC_PORT_REWRITTEN);
	f.icrc_status = RS_CRC_UNCHECKED;
	f.icrc_sport = 0;
	f.sliced = RS_SLICE_SNAPLEN;
	const struct rs_verdict *x = feed(f);
	ck_assert_uint_eq(x->icrc, RS_V_ICRC_UNCHECKED);
	ck_assert_uint_eq(x->sliced, RS_SLICE_SNAPLEN);
	f.outcome = RS_TRUNCATED; /* only a frame decoded whole counts as sliced */
	ck_assert_uint_eq(feed(f)->sliced, RS_SLICE_NONE);
	struct rs_frame other = f;
	other.roce = RS_ROCE_NONE;
	other.outcome = RS_NOT_ROCE;
	other.have = 0;
	ck_assert_uint_eq(feed(other)->icrc, RS_V_ICRC_NONE);
}
END_TEST

START_TEST(unpaired_responses_are_matched_between_the_same_hosts)
{
	/* The capture begins inside a go-back-N: the resends (95, 96) are
	 * far below the first PSN seen (200: too far for the first packets to
	 * have come late), so inference cannot pair the responses with this
	 * stream (their PSNs are outside its window). */
	feed(rq(IBV_OPCODE_RC_SEND_ONLY, 200, 8));
	feed(rq(IBV_OPCODE_RC_SEND_ONLY, 95, 8));
	const struct rs_verdict *x = feed(rsp(IBV_OPCODE_RC_ACKNOWLEDGE, 95, 0, ACK_SYN));
	ck_assert_uint_eq(x->req_frame, 2);
	x = feed(rsp(IBV_OPCODE_RC_ACKNOWLEDGE, 96, 0, NAK_SEQ)); /* frame 4 */
	x = feed(rq(IBV_OPCODE_RC_SEND_ONLY, 96, 8));
	ck_assert_uint_eq(x->nak_frame, 4);
	ck_assert_uint_eq(x->nak_psn, 96);
	struct rs_flowkey k;
	struct rs_frame probe = rsp(IBV_OPCODE_RC_ACKNOWLEDGE, 0, 0, 0);
	rs_flowkey_from_frame(&k, &probe);
	ck_assert_ptr_null(rs_flow_find(an, &k)->peer); /* still unpaired */
	/* Requests between other hosts are not looked at. */
	struct rs_frame ack = rsp(IBV_OPCODE_RC_ACKNOWLEDGE, 95, 0, ACK_SYN);
	rt_set_ip(&ack.src, 3);
	ck_assert_uint_eq(feed(ack)->req_frame, 0);
}
END_TEST

START_TEST(references_start_again_with_each_file)
{
	feed(rq(IBV_OPCODE_RC_SEND_ONLY, 5, 8));
	feed(rq(IBV_OPCODE_RC_SEND_ONLY, 6, 8));
	ck_assert_uint_eq(feed(rq(IBV_OPCODE_RC_SEND_ONLY, 5, 8))->resent_of, 1);
	rs_analyzer_add_file(an, "second", 1);
	run.frame_no = 0;
	const struct rs_verdict *x = feed(rq(IBV_OPCODE_RC_SEND_ONLY, 5, 8));
	ck_assert_uint_eq(x->psn, RS_V_PSN_DUPLICATE); /* the analysis spans the files ... */
	ck_assert_uint_eq(x->resent_of, 0);            /* ... its frame references do not */
}
END_TEST

START_TEST(the_request_ring_keeps_the_newest)
{
	/* 300 requests: more than RS_VERDICT_SENT. The oldest are forgotten. */
	for (uint32_t p = 0; p < 300; p++)
		feed(rq(IBV_OPCODE_RC_SEND_ONLY, 1000 + p, 8));
	ck_assert_uint_eq(feed(rq(IBV_OPCODE_RC_SEND_ONLY, 1000 + 299, 8))->resent_of, 300);
	ck_assert_uint_eq(feed(rq(IBV_OPCODE_RC_SEND_ONLY, 1000 + 300 - RS_VERDICT_SENT + 1, 8))->resent_of,
			  300 - RS_VERDICT_SENT + 2);
	const struct rs_verdict *x = feed(rq(IBV_OPCODE_RC_SEND_ONLY, 1000 + 10, 8));
	ck_assert_uint_eq(x->psn, RS_V_PSN_DUPLICATE);
	ck_assert_uint_eq(x->resent_of, 0);
}
END_TEST

/* A capture through two analyzers, one asked for verdicts: the same JSON report. */
static char *report_of(const char *path, bool verdicts)
{
	char err[RS_ERRBUF_SIZE];
	struct rs_source *src = rs_source_open_file(path, NULL, err, NULL);
	ck_assert_msg(src, "%s", err);
	struct rs_analyzer *a = rs_analyzer_new(&(struct rs_analyzer_opts){ .interval_ns = 10000000 });
	rs_analyzer_add_file(a, path, rs_source_datalink(src));
	struct rs_packet pkt;
	struct rs_frame f;
	struct rs_verdict vd;
	while (rs_source_next(src, &pkt, err) == RS_NEXT_FRAME) {
		rs_dissect(NULL, rs_source_datalink(src), pkt.data, pkt.caplen, pkt.wirelen, &f, rt_ext_of(&f));
		struct rs_frame_meta m = { .frame_no = pkt.frame_no, .ts_ns = rs_frame_time_ns(&f, pkt.ts_ns),
					   .wirelen = rs_frame_wirelen(&f, pkt.wirelen), .caplen = pkt.caplen };
		if (verdicts)
			rs_analyzer_add_v(a, &m, &f, &vd);
		else
			rs_analyzer_add(a, &m, &f);
	}
	rs_source_close(src);
	ck_assert(verdicts == (a->vs != NULL)); /* nothing kept unless asked for */
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	rs_analyzer_finish(a);
	rs_report_json(out, a, &(struct rs_report_opts){ .qp = -1 });
	fclose(out);
	rs_analyzer_free(a);
	return buf;
}

static void same_reports(const char *const *caps)
{
	for (size_t i = 0; caps[i]; i++) {
		char *plain = report_of(caps[i], false), *with = report_of(caps[i], true);
		ck_assert_msg(strlen(plain) > 1000, "%s: a report", caps[i]);
		ck_assert_msg(strcmp(plain, with) == 0, "%s: the same report with verdicts", caps[i]);
		free(plain);
		free(with);
	}
}

START_TEST(verdicts_do_not_change_the_analysis)
{
	static const char *const caps[] = { RT_SAMPLES "rxe_rnr.pcap", RT_SAMPLES "rxe_reject.pcap",
					    RT_SAMPLES "rxe_read_multi.pcap", RT_SAMPLES "rxe_mixed.pcap",
					    RT_SAMPLES "rxe_nvme.pcap", NULL };
	same_reports(caps);
}
END_TEST

START_TEST(verdicts_do_not_change_the_analysis_shared)
{
	static const char *const caps[] = { RT_CAPTURES "loss_write_bw.pcap", RT_CAPTURES "cm_reject.pcap",
					    RT_CAPTURES "ib_read_bw_cm.pcap", RT_CAPTURES "rc_pingpong.pcap", NULL };
	same_reports(caps);
}
END_TEST

/* A SEND Only from B numbered `id` (IPv4 identification): each sending
 * its own bytes, so its own ICRC. */
static const struct rs_verdict *sent(uint16_t id, uint32_t psn)
{
	struct rs_frame f = rq(IBV_OPCODE_RC_SEND_ONLY, psn, 8);
	f.ip_id = id;
	f.icrc = 0x51000000u + (uint32_t)id * 131u + psn;
	return feed(f);
}

/* The corrections handed on since the last call: frame -> resend_after
 * (resend is checked to be after a NAK); how many. */
static int fixes(uint64_t after[16])
{
	struct rs_verdict_fix fx;
	int n = 0;
	memset(after, 0, 16 * sizeof after[0]);
	while (rs_analyzer_fix(an, &fx)) {
		ck_assert_uint_eq(fx.resend, RS_V_RESEND_NAK);
		ck_assert_uint_lt(fx.frame, 16);
		after[fx.frame] = fx.resend_after;
		n++;
	}
	return n;
}

/*
 * A requester goes back to the very PSN a NAK names (IBA 9.7.5.2.2): a run
 * of re-sends answers the NAK naming its first PSN in the order it was
 * sent, which IPv4 numbers give. Here the NAKs name 100 and 101, and the
 * run from 100 (numbers 14-17) arrives from its second packet on: until
 * its first comes, the cause is provisional; then the verdicts already
 * given are corrected to the NAK naming 100.
 */
START_TEST(a_run_takes_its_cause_in_the_senders_order)
{
	sent(10, 100);
	sent(11, 101);
	sent(12, 102);
	sent(13, 103);
	feed(rsp(IBV_OPCODE_RC_ACKNOWLEDGE, 100, 0, NAK_SEQ)); /* frame 5 */
	feed(rsp(IBV_OPCODE_RC_ACKNOWLEDGE, 101, 0, NAK_SEQ)); /* frame 6 */
	uint64_t after[16];
	ck_assert_uint_eq(rs_analyzer_unsettled(an), 0);
	const struct rs_verdict *x = sent(15, 101);             /* frame 7: number 14 not here yet */
	ck_assert_uint_eq(x->resend, RS_V_RESEND_NAK);
	ck_assert_uint_eq(rs_analyzer_unsettled(an), 7);
	sent(16, 102);
	ck_assert_uint_eq(rs_analyzer_unsettled(an), 7);
	x = sent(14, 100);                                      /* frame 9: the run's first */
	ck_assert_uint_eq(x->resend, RS_V_RESEND_NAK);
	ck_assert_uint_eq(x->resend_after, 5);
	ck_assert_uint_eq(rs_analyzer_unsettled(an), 0);
	ck_assert_int_eq(fixes(after), 2);
	ck_assert_uint_eq(after[7], 5);
	ck_assert_uint_eq(after[8], 5);
	x = sent(17, 103);
	ck_assert_uint_eq(x->resend_after, 5);
	x = sent(18, 101);                                      /* the next run: from 101 */
	ck_assert_uint_eq(x->resend, RS_V_RESEND_NAK);
	ck_assert_uint_eq(x->resend_after, 6);
	ck_assert_int_eq(fixes(after), 0);
	ck_assert_uint_eq(an->psns.resent[RS_RESEND_NAK], 5);
	ck_assert_uint_eq(an->psns.resent[RS_RESEND_TIMEOUT], 0);
}
END_TEST

/*
 * An original arriving after its re-send: number 12 carries PSN 102 and
 * nothing numbered before it carried 102 or more, so it was sent first;
 * number 14, which came first as the next PSN, was the re-send (of the
 * run from 101 the NAK asked for). The original is not re-sent, and the
 * re-send's verdict is corrected to say it is.
 */
START_TEST(an_original_after_its_resend_is_not_resent)
{
	sent(10, 100);
	sent(11, 101);
	feed(rsp(IBV_OPCODE_RC_ACKNOWLEDGE, 101, 0, NAK_SEQ)); /* frame 3 */
	uint64_t after[16];
	const struct rs_verdict *x = sent(13, 101);             /* frame 4: number 12 not here yet */
	ck_assert_uint_eq(x->resend, RS_V_RESEND_NAK);
	ck_assert_uint_eq(x->resend_after, 3);
	x = sent(14, 102);                                      /* frame 5: a new PSN, as it looks */
	ck_assert_uint_eq(x->psn, RS_V_PSN_NEXT);
	ck_assert_uint_eq(x->resend, RS_V_RESEND_NONE);
	ck_assert_uint_eq(rs_analyzer_unsettled(an), 4);
	x = sent(12, 102);                                      /* frame 6: the original */
	ck_assert_uint_eq(x->psn, RS_V_PSN_DUPLICATE);
	ck_assert_uint_eq(x->resend, RS_V_RESEND_NONE);
	ck_assert_uint_eq(rs_analyzer_unsettled(an), 0);
	ck_assert_int_ge(fixes(after), 1);
	ck_assert_uint_eq(after[5], 3);
	ck_assert_uint_eq(an->psns.resent[RS_RESEND_NAK], 2);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("verdict");
	TCase *t = tcase_create("verdict");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, go_back_n_names_the_nak_and_the_first_sending);
	tcase_add_test(t, a_late_packet_is_named_by_the_next);
	tcase_add_test(t, read_responses_and_atomics_name_their_request);
	tcase_add_test(t, cm_replies_name_what_they_answer);
	tcase_add_test(t, icrc_and_capture_artefacts);
	tcase_add_test(t, unpaired_responses_are_matched_between_the_same_hosts);
	tcase_add_test(t, references_start_again_with_each_file);
	tcase_add_test(t, the_request_ring_keeps_the_newest);
	tcase_add_test(t, verdicts_do_not_change_the_analysis);
	tcase_add_test(t, a_run_takes_its_cause_in_the_senders_order);
	tcase_add_test(t, an_original_after_its_resend_is_not_resent);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	t = rt_shared_tcase("shared");
	tcase_add_test(t, verdicts_do_not_change_the_analysis_shared);
	tcase_set_timeout(t, 60);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}

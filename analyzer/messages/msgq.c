/*
 * msgq.c — request packets handed to message reassembly (message.c) in PSN
 * order. A packet ahead of the expected PSN waits here while the PSNs
 * before it may still come (reordered, or re-sent after a NAK); they are
 * handed on once the gap fills, once the responder's ACK shows the missing
 * PSNs will not come (it had them: the capture missed them), when too many
 * wait, or at the end. Then the gap is handed on as a gap, as message.c
 * has always taken it. Only streams that had a gap get a queue.
 */
#include <string.h>

#include "analyzer/messages/messages.h"
#include "proto/pdu.h"

/* Packets that wait for a gap before them to fill. */
#define RS_MSGQ_LEN 32

struct rs_msgq {
	uint32_t expect;      /* the PSN reassembly takes next */
	uint32_t n;           /* packets waiting, by PSN */
	struct rs_msgpkt q[RS_MSGQ_LEN];
};

/* Hand the oldest waiting packet on, with the PSNs skipped before it. */
static void hand_on(struct rs_analyzer *a, struct rs_flow *fl, struct rs_msgq *mq)
{
	struct rs_msgpkt p = mq->q[0];
	mq->n--;
	memmove(&mq->q[0], &mq->q[1], mq->n * sizeof mq->q[0]);
	int32_t gap = rs_psn_diff(p.psn, mq->expect);
	rs_msg_reassemble(a, fl, &p, true, gap > 0 ? (uint32_t)gap : 0);
	mq->expect = (p.psn + p.adv) & RS_PSN_MASK;
	g_free((struct rs_pdus *)p.pdu);
}

/* A packet that waits keeps a copy of its frame's PDU block: the frame is
 * gone when the packet is handed on. */
static void keep(struct rs_msgpkt *slot, const struct rs_msgpkt *p)
{
	*slot = *p;
	slot->pdu = p->pdu ? g_memdup2(p->pdu, sizeof *p->pdu) : NULL;
}

/* The packets that follow on without a gap. */
static void drain(struct rs_analyzer *a, struct rs_flow *fl, struct rs_msgq *mq)
{
	while (mq->n && rs_psn_diff(mq->q[0].psn, mq->expect) <= 0)
		hand_on(a, fl, mq);
}

/* Waiting packets up to `upto` go on, gaps and all. */
static void flush(struct rs_analyzer *a, struct rs_flow *fl, struct rs_msgq *mq, uint32_t upto)
{
	while (mq->n && rs_psn_diff(mq->q[0].psn, upto) <= 0)
		hand_on(a, fl, mq);
	drain(a, fl, mq);
}

static void insert(struct rs_msgq *mq, const struct rs_msgpkt *p)
{
	uint32_t i = mq->n;
	while (i > 0 && rs_psn_diff(mq->q[i - 1].psn, p->psn) > 0)
		i--;
	memmove(&mq->q[i + 1], &mq->q[i], (mq->n - i) * sizeof mq->q[0]);
	keep(&mq->q[i], p);
	mq->n++;
}

/*
 * A fresh request packet (its PSN seen for the first time): `expected` is
 * the PSN the stream expected before it (psn.c), `d` its distance from it.
 */
void rs_msg_feed(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_msgpkt *p, int32_t d, uint32_t expected)
{
	struct rs_psn_loss *l = fl->req.loss;
	struct rs_msgq *mq = l ? l->mq : NULL;
	if (!mq || !mq->n) {
		if (d <= 0 || !l) {
			/* In order, or late behind everything handed on. */
			rs_msg_reassemble(a, fl, p, d >= 0, 0);
			return;
		}
		if (!mq)
			mq = l->mq = g_new0(struct rs_msgq, 1);
		mq->expect = expected;
		keep(&mq->q[mq->n++], p);
		return;
	}
	if (rs_psn_diff(p->psn, mq->expect) < 0) {
		rs_msg_reassemble(a, fl, p, false, 0); /* came after its gap was handed on */
		return;
	}
	if (mq->n == RS_MSGQ_LEN)
		hand_on(a, fl, mq);
	insert(mq, p);
	drain(a, fl, mq);
}

/* The responder acknowledged every PSN up to `psn`: none of them is still
 * to come, so what waits up to it goes on. */
void rs_msg_acked(struct rs_analyzer *a, struct rs_flow *fl, uint32_t psn)
{
	struct rs_msgq *mq = fl->req.loss ? fl->req.loss->mq : NULL;
	if (mq && mq->n)
		flush(a, fl, mq, psn);
}

void rs_msgq_finish(struct rs_analyzer *a, struct rs_flow *fl)
{
	struct rs_msgq *mq = fl->req.loss ? fl->req.loss->mq : NULL;
	if (mq)
		while (mq->n)
			hand_on(a, fl, mq);
}

void rs_msgq_free(struct rs_msgq *mq)
{
	for (uint32_t i = 0; mq && i < mq->n; i++)
		g_free((struct rs_pdus *)mq->q[i].pdu);
	g_free(mq);
}

uint32_t rs_msgq_expect(const struct rs_flow *fl)
{
	const struct rs_msgq *mq = fl->req.loss ? fl->req.loss->mq : NULL;
	return mq && mq->n ? mq->expect : fl->req.next;
}

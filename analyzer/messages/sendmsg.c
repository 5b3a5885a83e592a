/*
 * sendmsg.c — RC SEND messages for the protocol modules. A module's
 * protocol data units travel in SENDs (IBA vol 1 9.4.3): one packet (Only)
 * or a First, Middles and a Last at consecutive PSNs, never interleaved
 * with another message of the same QP (a QP's requests are sequential,
 * IBA 9.5). message.c hands this file every request packet in PSN order as
 * it takes it: msgq.c made reordered packets and the re-sends that fill a
 * gap wait for their turn, and a packet seen again never comes (psn.c took
 * its PSN once), so a re-sent packet does not count twice.
 *
 * A message ends at its Last (or Only), or when the next message of the QP
 * begins, or at the end of the stream; then it goes to its connection's
 * module (queue_message), once: a CM connection's, or a queue without CM
 * from the frame that told its protocol on (rs_flow_ulp_conn). One a PSN of which never reached the
 * capture (a gap inside it, its First or its Last not seen) is handed on
 * incomplete: the module is told what came, never a guess of the rest.
 *
 * Boundaries, lengths, frame numbers and the first packet's PDU block (the
 * dissector's decode, copied while the message waits for its Last); never
 * payload bytes.
 */
#include <string.h>

#include "analyzer/messages/messages.h"
#include "proto/pdu.h"
#include "proto/proto.h"

/* One direction of a connection: the SEND message being put together. */
struct rs_sendq {
	bool open;
	struct rs_sendmsg m;
	struct rs_pdus *pdu;      /* its First's PDU block, copied (the frame is gone by its Last); NULL: none */
};

void rs_sendq_free(struct rs_sendq *q)
{
	if (q)
		g_free(q->pdu);
	g_free(q);
}

void rs_analyzer_tap_sendmsgs(struct rs_analyzer *a,
			      void (*fn)(void *ctx, const struct rs_flow *fl, const struct rs_sendmsg *m), void *ctx)
{
	a->sendmsg_tap = fn;
	a->sendmsg_tap_ctx = ctx;
}

bool rs_sendmsg_wanted(const struct rs_analyzer *a, const struct rs_flow *fl)
{
	const struct rs_conn *c = rs_flow_ulp_conn(fl);
	if (!c || !c->ulp || (fl != c->c2s && fl != c->s2c))
		return false;
	return (c->pq && rs_proto_hooks(c->ulp)->queue_message) || a->sendmsg_tap;
}

static struct rs_sendq *sendq_of(struct rs_flow *fl)
{
	struct rs_conn *c = rs_flow_ulp_conn(fl);
	unsigned dir = fl == c->c2s ? 0 : 1;
	if (!c->sendq[dir])
		c->sendq[dir] = g_new0(struct rs_sendq, 1);
	return c->sendq[dir];
}

static void hand_on(struct rs_analyzer *a, struct rs_flow *fl, struct rs_sendmsg *m)
{
	struct rs_conn *c = rs_flow_ulp_conn(fl);
	m->complete = !m->headless && !m->tailless && !m->missing;
	const struct rs_proto_hooks *h = rs_proto_hooks(c->ulp);
	if (c->pq && h->queue_message)
		h->queue_message(a, c, fl, m);
	if (a->sendmsg_tap)
		a->sendmsg_tap(a->sendmsg_tap_ctx, fl, m);
}

/* The open message ends here; `tailless`: without its Last. */
static void end_open(struct rs_analyzer *a, struct rs_flow *fl, struct rs_sendq *q, bool tailless)
{
	if (!q->open)
		return;
	q->open = false;
	q->m.tailless = tailless;
	q->m.pdu = q->pdu;
	hand_on(a, fl, &q->m);
	g_free(q->pdu);
	q->pdu = NULL;
	q->m.pdu = NULL;
}

static void begin(struct rs_sendmsg *m, const struct rs_msgpkt *p, bool headless)
{
	*m = (struct rs_sendmsg){ .headless = headless, .opcode = p->opcode, .first_psn = p->psn, .last_psn = p->psn,
				  .packets = 1, .bytes = p->len, .file = p->at.file, .first_frame = p->at.frame,
				  .last_frame = p->at.frame, .first_ts = p->ts, .last_ts = p->ts };
}

void rs_sendmsg_packet(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_msgpkt *p, bool in_order,
		       uint32_t gap)
{
	if (!rs_sendmsg_wanted(a, fl))
		return;
	struct rs_sendq *q = sendq_of(fl);
	/* A packet behind what reassembly took (its gap was handed on as
	 * missing when an ACK covered it or too many waited): its message was
	 * told without it. */
	if (!in_order)
		return;
	const struct rs_opinfo *op = rs_opinfo(p->opcode);
	bool send = op->kind == RS_KIND_SEND || op->kind == RS_KIND_SEND_IMM || op->kind == RS_KIND_SEND_INV;
	if (q->open && gap)
		q->m.missing += gap; /* its middle, or its tail and what followed */
	if (!send || op->pos == RS_POS_FIRST || op->pos == RS_POS_ONLY) {
		end_open(a, fl, q, true); /* a later message began: the open one's Last was not seen */
		if (!send)
			return;
	}
	switch (op->pos) {
	case RS_POS_FIRST:
		begin(&q->m, p, false);
		q->pdu = p->pdu ? g_memdup2(p->pdu, sizeof *p->pdu) : NULL;
		q->open = true;
		return;
	case RS_POS_ONLY: {
		struct rs_sendmsg m;
		begin(&m, p, false);
		m.pdu = p->pdu;
		hand_on(a, fl, &m);
		return;
	}
	case RS_POS_MIDDLE:
	case RS_POS_LAST:
		if (!q->open) {
			begin(&q->m, p, true); /* its First before the capture, or in a gap */
			q->open = true;
		} else {
			q->m.packets++;
			q->m.bytes += p->len;
			q->m.last_psn = p->psn;
			q->m.last_frame = p->at.frame;
			q->m.last_ts = p->ts;
			q->m.opcode = p->opcode;
		}
		if (op->pos == RS_POS_LAST)
			end_open(a, fl, q, false);
		return;
	default:
		return;
	}
}

void rs_sendmsg_finish(struct rs_analyzer *a, struct rs_flow *fl)
{
	const struct rs_conn *c = rs_flow_ulp_conn(fl);
	if (rs_sendmsg_wanted(a, fl) && c->sendq[fl == c->c2s ? 0 : 1])
		end_open(a, fl, sendq_of(fl), true);
}

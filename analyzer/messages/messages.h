/*
 * messages/messages.h — the messages room:
 * messages: reassembly (message.c), request packets to it in PSN order
 * (msgq.c), messages the capture missed whole by the responder's MSN (msn.c).
 *
 * What the room's files offer each other and the rooms above it
 * (lowest first: records, congestion, whole, messages, table, cm, transport;
 * make layers keeps calls and includes going down).
 */
#ifndef RS_ANALYZER_MESSAGES_H
#define RS_ANALYZER_MESSAGES_H

#include "analyzer/whole/whole.h"

/* message.c: message reassembly. `gap`: PSNs skipped just before this packet;
 * `in_order` false for a late first sighting (a gap fill). */
void rs_flow_note_imm(struct rs_flow *fl, uint32_t imm);
void rs_flow_size_sample(struct rs_analyzer *a, struct rs_flow *fl, uint64_t size);
/* What message reassembly needs of a request packet. */
struct rs_msgpkt {
	uint32_t psn, len;    /* len: payload bytes */
	uint32_t adv;         /* PSNs it takes (a READ: its response packets) */
	uint8_t opcode;
	bool reth;
	uint64_t dmalen;      /* its RETH's DMA length */
	/* For the modules' SEND messages (sendmsg.c): where it came, and the
	 * PDU block of a SEND First or Only of a connection that wants them
	 * (NULL otherwise; msgq.c copies it while the packet waits). */
	struct rs_fref at;
	uint64_t ts;
	const struct rs_pdus *pdu;
};
void rs_msg_reassemble(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_msgpkt *p, bool in_order,
		       uint32_t gap);
void rs_msg_finish(struct rs_analyzer *a, struct rs_flow *fl);

/* msgq.c: request packets to message reassembly in PSN order (a packet
 * after a gap waits for the gap to fill). `d`: its PSN's distance from
 * `expected`, the PSN the stream expected before it. */
void rs_msg_feed(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_msgpkt *p, int32_t d, uint32_t expected);
void rs_msg_acked(struct rs_analyzer *a, struct rs_flow *fl, uint32_t psn);
void rs_msgq_finish(struct rs_analyzer *a, struct rs_flow *fl);
/* The PSN reassembly takes next (the newest it took, plus one). */
uint32_t rs_msgq_expect(const struct rs_flow *fl);
struct rs_msgq;
void rs_msgq_free(struct rs_msgq *mq);

/* sendmsg.c: the SEND messages of connections with a protocol module that
 * takes them (queue_message), or of any module's with a tap. wanted: fl's
 * connection takes them. rs_sendmsg_packet: every packet message.c takes,
 * as it takes it; rs_sendmsg_finish: the end of fl's stream (what is open
 * ends incomplete); rs_sendq_free with its connection. */
bool rs_sendmsg_wanted(const struct rs_analyzer *a, const struct rs_flow *fl);
void rs_sendmsg_packet(struct rs_analyzer *a, struct rs_flow *fl, const struct rs_msgpkt *p, bool in_order,
		       uint32_t gap);
void rs_sendmsg_finish(struct rs_analyzer *a, struct rs_flow *fl);
struct rs_sendq;
void rs_sendq_free(struct rs_sendq *q);
/* Every SEND message of a connection with a protocol module (any row but
 * none) to fn as well, whether the module takes them or not (tests). */
void rs_analyzer_tap_sendmsgs(struct rs_analyzer *a,
			      void (*fn)(void *ctx, const struct rs_flow *fl, const struct rs_sendmsg *m), void *ctx);

/* msn.c: the messages the capture missed whole, by the responder's MSN.
 * rs_msg_msn: an ACK on rsp with this PSN and MSN, its requester stream
 * req handed to reassembly up to it, and on from `expect` (rs_msgq_expect;
 * a->ack_prev: rsp's ACK PSN before).
 * message.c tells it what reassembly does: rs_msn_take before an in-order
 * packet (`gap` PSNs skipped just before it), rs_msn_headless when the
 * stream begins inside a message, rs_msn_settled when a message becomes
 * one the counts will hold (it ended in [lo, hi]; `late`: out of PSN
 * order). rs_msg_settled: the messages counted or to be counted, mod 2^24.
 * rs_msn_finish before reassembly gives up what is open; rs_msnq_free. */
void rs_msg_msn(struct rs_analyzer *a, struct rs_flow *rsp, struct rs_flow *req, uint32_t psn, uint32_t msn,
		uint32_t expect);
void rs_msn_take(struct rs_analyzer *a, struct rs_flow *req, uint32_t psn, uint32_t gap);
void rs_msn_headless(struct rs_analyzer *a, struct rs_flow *req, uint32_t psn);
void rs_msn_settled(struct rs_analyzer *a, struct rs_flow *req, uint32_t lo, uint32_t hi, bool late);
uint32_t rs_msg_settled(const struct rs_flow *fl);
void rs_msn_finish(struct rs_analyzer *a, struct rs_flow *req);
void rs_msnq_free(struct rs_msnq *q);

#endif

/*
 * walk_op.c — what the packet does, in one summary line and one paragraph,
 * with this packet's own numbers (bytes, VA, R_Key, PSN, QPN, MSN,
 * immediate data) and, where the analyzer's verdict on it names them, the
 * frames it belongs with.
 */
#include <inttypes.h>
#include <string.h>

#include "report/format.h"
#include "views/walk_int.h"

#define PSN_MASK 0xFFFFFFu

/* The general sentences of an operation, said the first time it comes up. */
static const char *general(struct walk *w, const char *text)
{
	const struct rs_opinfo *op = rs_opinfo(w->f->bth.opcode);
	bool ud = (w->f->bth.opcode & 0xE0) == RS_TR_UD;
	return rs_walk_once(w, WALK_TOPIC_OP + (op->kind & 15u) * 8 + op->pos + (ud ? 5 : 0), text);
}

static const char *ack_short(const struct rs_frame *f)
{
	uint8_t s = f->aeth.syndrome, v = rs_aeth_value(s);
	switch (rs_aeth_kind(s)) {
	case RS_AETH_ACK: return rs_wfmt("ACK, MSN %u", f->aeth.msn);
	case RS_AETH_RNR_NAK: return rs_wfmt("RNR NAK, retry after %s", rs_walk_duration(rs_rnr_timer_us(v)));
	case RS_AETH_NAK: return rs_wfmt("NAK (%s), MSN %u", rs_nak_code_name(v), f->aeth.msn);
	default: return rs_wfmt("reserved AETH syndrome 0x%02x", s);
	}
}

static const char *mad_short(const struct rs_frame *f)
{
	const struct rs_mad *m = f->mad;
	if (m->is_cm)
		return rs_wfmt("CM %s (%s)", rs_cm_attr_name(m->hdr.attr_id), rs_cm_attr_long_name(m->hdr.attr_id));
	return rs_wfmt("%s %s(%s)", rs_mad_class_name(m->hdr.mgmt_class), rs_mad_method_name(m->hdr.method),
		    rs_walk_mad_attr_name(m->hdr.mgmt_class, m->hdr.attr_id));
}

void rs_walk_summary(struct walk *w, char *buf, size_t len)
{
	const struct rs_frame *f = w->f;
	const struct rs_bth *b = &f->bth;
	size_t k = 0;

#define ADD(...) do { if (k < len) k += (size_t)snprintf(buf + k, len - k, __VA_ARGS__); } while (0)
	if (!(f->have & RS_HAVE_BTH)) {
		const char *last = f->walk->nlayers ? rs_layer_name((enum rs_layer_id)f->walk->layers[f->walk->nlayers - 1].id) : "nothing";
		ADD("Decoded up to the %s only", last);
	} else {
		const struct rs_opinfo *op = rs_opinfo(b->opcode);
		ADD("%s QP 0x%x PSN 0x%06x", (f->have & RS_HAVE_DC) ? rs_walk_dc_pretty(b->opcode)
				    : op->defined ? op->pretty : rs_wfmt("opcode 0x%02x", b->opcode), b->destqp, b->psn);
		bool ext = f->have & RS_HAVE_EXT;
		if (ext) {
			switch (op->kind) {
			case RS_KIND_WRITE: case RS_KIND_WRITE_IMM:
				if ((f->ext & RS_EXT_RETH) && op->pos == RS_POS_FIRST)
					ADD(": %u of %u bytes to VA 0x%" PRIx64 ", rkey 0x%x", f->payload_len,
					    f->reth.dmalen, f->reth.va, f->reth.rkey);
				else if (f->ext & RS_EXT_RETH)
					ADD(": %u bytes to VA 0x%" PRIx64 ", rkey 0x%x", f->reth.dmalen, f->reth.va,
					    f->reth.rkey);
				else
					ADD(": %u bytes", f->payload_len);
				break;
			case RS_KIND_READ_REQ:
				ADD(": %u bytes from VA 0x%" PRIx64 ", rkey 0x%x", f->reth.dmalen, f->reth.va, f->reth.rkey);
				break;
			case RS_KIND_READ_RESP:
				ADD(": %u bytes", f->payload_len);
				if (f->ext & RS_EXT_AETH)
					ADD(", %s", ack_short(f));
				break;
			case RS_KIND_ACK:
				ADD(": %s", ack_short(f));
				break;
			case RS_KIND_ATOMIC_ACK:
				ADD(": original value 0x%" PRIx64 ", %s", f->atomicack_orig, ack_short(f));
				break;
			case RS_KIND_CMP_SWAP:
				ADD(": at VA 0x%" PRIx64 ", if 0x%" PRIx64 " swap in 0x%" PRIx64, f->atomic.va, f->atomic.cmp,
				    f->atomic.swap);
				break;
			case RS_KIND_FETCH_ADD:
				ADD(": add 0x%" PRIx64 " at VA 0x%" PRIx64, f->atomic.swap, f->atomic.va);
				break;
			case RS_KIND_CNP:
				ADD(": slow down");
				break;
			default:
				if (op->ext & RS_EXT_PAYLOAD && !(f->have & RS_HAVE_MAD))
					ADD(": %u bytes", f->payload_len);
				break;
			}
			if (f->ext & RS_EXT_DETH)
				ADD(", from QP 0x%x, Q_Key 0x%x", f->deth.srcqp, f->deth.qkey);
			if (f->ext & RS_EXT_IMMDT)
				ADD(", immediate 0x%08x", f->immdt);
			if (f->ext & RS_EXT_IETH)
				ADD(", invalidate rkey 0x%x", f->ieth_rkey);
		}
		if (f->have & RS_HAVE_MAD)
			ADD(": %s", mad_short(f));
	}
	if (f->ecn == 3)
		ADD(" [ECN CE: congestion experienced]");
	if (f->outcome != RS_OK)
		ADD(" [%s]", f->outcome == RS_TRUNCATED ? "TRUNCATED" : f->outcome == RS_MALFORMED ? "MALFORMED"
			     : "UNSUPPORTED");
	if (w->v.resend == RS_V_RESEND_NETDUP && f->outcome == RS_OK)
		ADD(" [network duplicate of frame %" PRIu64 "]", w->v.resent_of);
	else if (w->v.resend == RS_V_RESEND_LATE && f->outcome == RS_OK)
		ADD(" [late: reordered]");
	else if (w->v.resent_of && f->outcome == RS_OK)
		ADD(" [retransmission of frame %" PRIu64 "]", w->v.resent_of);
#undef ADD
}

/* The operation's name without its transport: "RDMA WRITE Only with Immediate". */
static const char *opname(const struct rs_frame *f)
{
	const char *p = rs_opinfo(f->bth.opcode)->pretty;
	const char *sp = p ? strchr(p, ' ') : NULL;
	return sp ? sp + 1 : "?";
}

/* "bytes 1024-2047" of the message, from the analyzer's verdict. */
static const char *range(const struct walk *w)
{
	uint32_t n = w->f->payload_len;
	if (!n)
		return "no data";
	return rs_wfmt("bytes %u-%u", w->v.msg_offset, w->v.msg_offset + n - 1);
}

static const char *following(uint32_t psn)
{
	return rs_wfmt("with consecutive PSNs (0x%06x, 0x%06x, ...)", (psn + 1) & PSN_MASK, (psn + 2) & PSN_MASK);
}

/* What is still to come of a message whose length is known: the packets of
 * a message are all path-MTU sized but the last, so this packet's payload
 * is the MTU. */
static const char *to_come(const struct walk *w, const char *article, const char *last_name)
{
	const struct rs_frame *f = w->f;
	uint32_t mtu = f->payload_len, done = w->v.msg_offset + f->payload_len;
	if (!w->v.msg_known || !w->v.msg_total || !mtu || done >= w->v.msg_total)
		return rs_wfmt("more follow %s", following(f->bth.psn));
	uint32_t left = w->v.msg_total - done, n = (left + mtu - 1) / mtu;
	uint32_t psn = (f->bth.psn + 1) & PSN_MASK;
	if (n == 1)
		return rs_wfmt("the %s packet, PSN 0x%06x, brings the remaining %u bytes", last_name, psn, left);
	return rs_wfmt("%u more packets, PSN 0x%06x to 0x%06x, bring the remaining %u bytes, the last of them %s %s packet",
		    n, psn, (psn + n - 1) & PSN_MASK, left, article, last_name);
}

static void write_op(struct walk *w, const struct rs_opinfo *op)
{
	const struct rs_frame *f = w->f;
	const struct rs_verdict *p = &w->v;
	const char *imm = op->kind == RS_KIND_WRITE_IMM
		? rs_wfmt(" The immediate value 0x%08x also reaches the responder's completion queue, which uses up "
		       "one posted receive request.", f->immdt) : "";
	switch (op->pos) {
	case RS_POS_ONLY:
		rs_wsay(w, "%s: the whole write fits in this packet. The requester puts these %u bytes "
			"straight into the responder's memory at VA 0x%" PRIx64 " (the region with rkey 0x%x).%s%s",
		     opname(f), f->payload_len, f->reth.va, f->reth.rkey,
		     general(w, " The responder's CPU is not involved and no receive buffer is used."), imm);
		break;
	case RS_POS_FIRST:
		rs_wsay(w, "%s: the first packet of a multi-packet write of %u bytes to VA 0x%" PRIx64
			" protected by rkey 0x%x. It carries bytes 0-%u; %s.%s", opname(f), f->reth.dmalen, f->reth.va,
		     f->reth.rkey, f->payload_len ? f->payload_len - 1 : 0, to_come(w, "an", "RDMA WRITE Last"),
		     general(w, " They carry no RETH: the responder places each one's data right after the "
				"previous one's."));
		break;
	case RS_POS_MIDDLE:
		if (p->msg_known)
			rs_wsay(w, "%s: packet %u of the write that began in frame %" PRIu64 "; it "
				"carries %s of the %u-byte message; %s.", opname(f), p->msg_index, p->msg_first_frame, range(w), p->msg_total,
			     to_come(w, "an", "RDMA WRITE Last"));
		else
			rs_wsay(w, "%s: continues a multi-packet write whose First packet (with the "
				"address, in its RETH) came earlier. This packet carries %u more bytes, placed right after "
				"the previous packet's; more follow %s.", opname(f), f->payload_len, following(f->bth.psn));
		break;
	default:
		if (p->msg_known)
			rs_wsay(w, "%s: packet %u, the last, of the write that began in frame %" PRIu64
				": %s complete the %u-byte message.%s", opname(f), p->msg_index, p->msg_first_frame, range(w), p->msg_total, imm);
		else
			rs_wsay(w, "%s: the final %u bytes of a multi-packet write whose First packet came "
				"earlier; the message is complete.%s", opname(f), f->payload_len, imm);
		break;
	}
}

static void send_op(struct walk *w, const struct rs_opinfo *op)
{
	const struct rs_frame *f = w->f;
	const struct rs_verdict *p = &w->v;
	bool ud = (f->bth.opcode & 0xE0) == RS_TR_UD;
	const char *extra = op->kind == RS_KIND_SEND_IMM
		? rs_wfmt(" The immediate value 0x%08x is delivered in the receiver's completion.", f->immdt)
		: op->kind == RS_KIND_SEND_INV
		? rs_wfmt(" When it completes, the responder also invalidates rkey 0x%x.", f->ieth_rkey) : "";

	switch (op->pos) {
	case RS_POS_ONLY:
		if (ud && (f->have & RS_HAVE_MAD))
			rs_wsay(w, "UD SEND Only to QP%u: a management datagram (MAD) from QP 0x%x.%s", f->bth.destqp,
			     f->deth.srcqp, rs_walk_once(w, WALK_TOPIC_OP + 127, " UD is connectionless and unacknowledged; "
						      "the management protocol retries on its own timeouts."));
		else if (ud)
			rs_wsay(w, "UD %s: a %u-byte datagram from QP 0x%x to QP 0x%x.%s%s", opname(f), f->payload_len,
			     f->deth.srcqp, f->bth.destqp, general(w, " UD needs no connection: every packet names its "
				"destination QP and carries a Q_Key; there are no ACKs and no retransmissions."), extra);
		else
			rs_wsay(w, "%s: a whole %u-byte message in one packet%s%s", opname(f), f->payload_len,
			     *general(w, "x") ? rs_wfmt(". The responder places it in the buffer of the next receive "
						   "request posted on QP 0x%x and reports a completion.", f->bth.destqp) : ".",
			     extra);
		break;
	case RS_POS_FIRST:
		rs_wsay(w, "%s: the first %u bytes of a multi-packet message; Middle packets and a Last "
			"packet follow %s.%s", opname(f), f->payload_len, following(f->bth.psn),
		     general(w, " A SEND states no total length: the receiver learns it when the Last packet arrives."));
		break;
	case RS_POS_MIDDLE:
		if (p->msg_known)
			rs_wsay(w, "%s: packet %u of the message that began in frame %" PRIu64 ", carrying %s; "
				"more follow %s.", opname(f), p->msg_index, p->msg_first_frame, range(w), following(f->bth.psn));
		else
			rs_wsay(w, "%s: %u more bytes of a message whose First packet came earlier; more "
				"follow %s.", opname(f), f->payload_len, following(f->bth.psn));
		break;
	default:
		if (p->msg_known)
			rs_wsay(w, "%s: packet %u ends the message that began in frame %" PRIu64 " (%s): %u "
				"bytes in all.%s", opname(f), p->msg_index, p->msg_first_frame, range(w), p->msg_offset + f->payload_len, extra);
		else
			rs_wsay(w, "%s: the final %u bytes of a message whose First packet came earlier.%s", opname(f),
			     f->payload_len, extra);
		break;
	}
}

static void read_resp_op(struct walk *w, const struct rs_opinfo *op)
{
	const struct rs_frame *f = w->f;
	const struct rs_verdict *p = &w->v;
	const char *req = p->msg_req_frame ? rs_wfmt("the READ in frame %" PRIu64, p->msg_req_frame) : "the READ request";
	const char *of = p->msg_total ? rs_wfmt(" of %u", p->msg_total) : "";

	switch (op->pos) {
	case RS_POS_ONLY:
		rs_wsay(w, "%s: the whole answer to %s, %u bytes, in one packet. Its AETH "
			"acknowledges the request (%s).", opname(f), req, f->payload_len, ack_short(f));
		break;
	case RS_POS_FIRST:
		rs_wsay(w, "%s: bytes 0-%u%s requested by %s (PSN 0x%06x). Its AETH acknowledges "
			"the request (%s); %s.%s", opname(f),
		     f->payload_len ? f->payload_len - 1 : 0, of, req, f->bth.psn, ack_short(f),
		     to_come(w, "a", "READ Response Last"),
		     general(w, " Middle packets carry no AETH; the Last packet carries one again."));
		break;
	case RS_POS_MIDDLE:
		if (p->msg_known)
			rs_wsay(w, "%s: packet %u of the answer to %s, carrying %s%s; %s.",
			     opname(f), p->msg_index, req, range(w), of, to_come(w, "a", "READ Response Last"));
		else
			rs_wsay(w, "%s: %u more bytes of a READ response whose first packet came "
				"earlier; more follow %s.", opname(f), f->payload_len, following(f->bth.psn));
		break;
	default:
		if (p->msg_known)
			rs_wsay(w, "%s: packet %u, the last, of the answer to %s: %s complete the "
				"%u bytes. Its AETH acknowledges the request again (%s); the requester can now complete "
				"its READ work request.", opname(f), p->msg_index, req, range(w), p->msg_offset + f->payload_len, ack_short(f));
		else
			rs_wsay(w, "%s: the final %u bytes of a READ response; its AETH acknowledges "
				"the request (%s).", opname(f), f->payload_len, ack_short(f));
		break;
	}
}

static void ack_op(struct walk *w)
{
	const struct rs_frame *f = w->f;
	uint32_t psn = f->bth.psn;
	uint8_t v = rs_aeth_value(f->aeth.syndrome);
	const struct rs_verdict *vd = &w->v;
	const char *seen = vd->req_frame ? rs_wfmt(" (the newest of them: the %s in frame %" PRIu64 ")",
						rs_opinfo(vd->req_opcode)->pretty, vd->req_frame) : "";

	switch (rs_aeth_kind(f->aeth.syndrome)) {
	case RS_AETH_ACK:
		rs_wsay(w, "Acknowledge: the responder confirms that every request packet up to PSN 0x%06x arrived and "
			"was carried out%s. %s", psn, seen, rs_walk_first(w, WALK_TOPIC_MSN)
		     ? rs_wfmt("MSN %u counts the messages it has completed on this connection (modulo 2^24).", f->aeth.msn)
		     : rs_wfmt("MSN %u.", f->aeth.msn));
		break;
	case RS_AETH_RNR_NAK:
		rs_wsay(w, "RNR NAK (receiver not ready): the request with PSN 0x%06x needed a receive buffer, but none "
			"was posted on the responder's QP. The requester waits at least %s (RNR timer %u) and then "
			"retries from PSN 0x%06x, up to its RNR retry count.", psn, rs_walk_duration(rs_rnr_timer_us(v)), v, psn);
		break;
	case RS_AETH_NAK:
		if (v == RS_NAK_PSN_SEQ_ERR)
			rs_wsay(w, "NAK, PSN sequence error: the responder received a packet with a later PSN than it "
				"expected, so at least one packet was lost on the way. It expects PSN 0x%06x next%s; the "
				"requester must resend everything from PSN 0x%06x on (go-back-N).", psn,
			     vd->req_frame ? rs_wfmt(" (last seen here in frame %" PRIu64 ")", vd->req_frame) : "", psn);
		else
			rs_wsay(w, "NAK, %s: a fatal error for the request with PSN 0x%06x (invalid request: a bad opcode or "
				"length; remote access error: the rkey, address or access rights do not allow it; "
				"remote operational error: the responder could not carry it out). The requester "
				"completes the work request with an error and the QP enters the error state.",
			     rs_nak_code_name(v), psn);
		break;
	default:
		rs_wsay(w, "An AETH with a reserved syndrome (0x%02x): the requester cannot interpret it.", f->aeth.syndrome);
		break;
	}
}

static void walk_resend(struct walk *w, const struct rs_frame *f);
static void walk_advert(struct walk *w, const struct rs_frame *f);

void rs_walk_operation(struct walk *w)
{
	const struct rs_frame *f = w->f;
	if (!(f->have & RS_HAVE_BTH) || !(f->have & RS_HAVE_EXT))
		return;
	const struct rs_bth *b = &f->bth;
	const struct rs_opinfo *op = rs_opinfo(b->opcode);

	switch (op->kind) {
	case RS_KIND_WRITE: case RS_KIND_WRITE_IMM:
		write_op(w, op);
		break;
	case RS_KIND_SEND: case RS_KIND_SEND_IMM: case RS_KIND_SEND_INV:
		send_op(w, op);
		break;
	case RS_KIND_READ_REQ:
		rs_wsay(w, "RDMA READ Request: asks the responder for %u bytes at VA 0x%" PRIx64 " (rkey 0x%x). The "
			"request itself carries no data. The responder answers with READ Response packets numbered "
			"from PSN 0x%06x upwards, one per path MTU of data (for example %u packet%s with a 1024-byte MTU), "
			"so the requester's next request continues after those PSNs.",
		     f->reth.dmalen, f->reth.va, f->reth.rkey, b->psn, f->reth.dmalen ? (f->reth.dmalen + 1023) / 1024 : 1,
		     f->reth.dmalen > 1024 ? "s" : "");
		break;
	case RS_KIND_READ_RESP:
		read_resp_op(w, op);
		break;
	case RS_KIND_ACK:
		ack_op(w);
		break;
	case RS_KIND_ATOMIC_ACK:
		rs_wsay(w, "Atomic Acknowledge: before the atomic operation%s, the 8 bytes held 0x%" PRIx64 ". The "
			"requester stores this value in its local buffer and completes the work request (%s).",
		     w->v.req_frame ? rs_wfmt(" in frame %" PRIu64, w->v.req_frame) : "", f->atomicack_orig, ack_short(f));
		break;
	case RS_KIND_CMP_SWAP:
		rs_wsay(w, "ATOMIC Compare & Swap: if the 8 bytes at VA 0x%" PRIx64 " (rkey 0x%x) equal 0x%" PRIx64
			", the responder replaces them with 0x%" PRIx64 "; either way it returns the original value in "
			"an Atomic Acknowledge with PSN 0x%06x.", f->atomic.va, f->atomic.rkey, f->atomic.cmp,
		     f->atomic.swap, b->psn);
		break;
	case RS_KIND_FETCH_ADD:
		rs_wsay(w, "ATOMIC Fetch & Add: the responder adds 0x%" PRIx64 " to the 8 bytes at VA 0x%" PRIx64
			" (rkey 0x%x) and returns their original value in an Atomic Acknowledge with PSN 0x%06x.",
		     f->atomic.swap, f->atomic.va, f->atomic.rkey, b->psn);
		break;
	case RS_KIND_ATOMIC_WRITE:
		rs_wsay(w, "ATOMIC WRITE: the responder writes these 8 bytes at VA 0x%" PRIx64 " (rkey 0x%x) in one "
			"indivisible step.", f->reth.va, f->reth.rkey);
		break;
	case RS_KIND_FLUSH:
		rs_wsay(w, "FLUSH: the responder makes earlier RDMA writes to VA 0x%" PRIx64 " (%u bytes, rkey 0x%x) "
			"visible or persistent before acknowledging.", f->reth.va, f->reth.dmalen, f->reth.rkey);
		break;
	case RS_KIND_RESYNC:
		rs_wsay(w, "RESYNC (Reliable Datagram): resynchronises the PSNs of an end-to-end context.");
		break;
	case RS_KIND_CNP:
		rs_wsay(w, "Congestion Notification Packet: the receiver of packets marked CE (congestion experienced) "
			"tells QP 0x%x, the sender of that flow, to slow down; with DCQCN the sender cuts its rate and "
			"then raises it again step by step (IBA Annex A17.9).", b->destqp);
		break;
	default:
		return;
	}
	walk_advert(w, f);
	if (w->v.start_frame)
		rs_wsay(w, "PSN 0x%06x is the Starting PSN that QP 0x%x announced in the %s in frame %" PRIu64 ": this is "
			"the first request it receives on the new connection.", b->psn, w->v.start_qpn,
		     rs_cm_attr_name(w->v.start_attr), w->v.start_frame);
	if (w->v.psn == RS_V_PSN_AHEAD && w->v.gap && f->outcome == RS_OK)
		rs_wsay(w, "\u2715 %" PRIu32 " PSN%s skipped just before this one: PSN 0x%06x was expected, 0x%06x came. "
			"The packets between are not in the capture (yet): they may come late, be re-sent, have been "
			"dropped by the capture, or be lost; the summary's PSNs line and gap anomaly say which.",
		     w->v.gap, w->v.gap == 1 ? " was" : "s were", (unsigned)((b->psn - w->v.gap) & RS_PSN_MASK), b->psn);
	if ((b->opcode & 0xE0) == RS_TR_UC && rs_walk_first(w, WALK_TOPIC_UC))
		rs_wsay(w, "UC (Unreliable Connection): no acknowledgements; if a packet is lost the receiver drops "
			"the whole message and nothing is resent.");
	if (w->v.nak_frame && w->v.nak_psn == b->psn)
		rs_wsay(w, "This is the PSN that the NAK in frame %" PRIu64 " asked for: the requester has gone back "
			"to it and resends everything from here on (go-back-N).", w->v.nak_frame);
	if (w->v.resend && f->outcome == RS_OK)
		walk_resend(w, f);
}

/* A buffer advertisement and the requests that used it, as the analyzer tied
 * them (its verdict): nothing where it tied nothing. */
static void walk_advert(struct walk *w, const struct rs_frame *f)
{
	const struct rs_verdict *v = &w->v;
	if (v->adv_frame && (f->ext & RS_EXT_RETH))
		rs_wsay(w, "The buffer it %s is the one the SEND in frame %" PRIu64 " advertised: that SEND's first 16 "
			"payload bytes named R_Key 0x%x and a buffer that holds this RETH's %u bytes at VA 0x%" PRIx64
			" (the address, key and length an application such as rping sends its peer).",
		     rs_opinfo(f->bth.opcode)->kind == RS_KIND_READ_REQ ? "reads" : "writes", v->adv_frame, f->reth.rkey,
		     f->reth.dmalen, f->reth.va);
	if (v->adv_nused && (f->have & RS_HAVE_ADV)) {
		char list[128];
		size_t o = 0;
		unsigned n = v->adv_nused < RS_V_USES ? v->adv_nused : RS_V_USES;
		list[0] = '\0';
		for (unsigned i = 0; i < n && o < sizeof list; i++)
			o += (size_t)snprintf(list + o, sizeof list - o, "%s%" PRIu64, i ? (i + 1 == n ? " and " : ", ") : "",
					      v->adv_used[i]);
		rs_wsay(w, "Its first 16 payload bytes advertise a buffer: VA 0x%" PRIx64 ", R_Key 0x%x, %u bytes (laid "
			"out as rping's struct rping_rdma_info: be64 address, be32 rkey, be32 size). The RDMA request%s "
			"in frame%s %s used it: %s R_Key and a range inside the buffer%s.", f->adv->va, f->adv->rkey,
		     f->adv->len, n > 1 ? "s" : "", n > 1 ? "s" : "", list, n > 1 ? "their RETHs name that" :
		     "its RETH names that", v->adv_nused > n ? rs_wfmt(" (and %u more)", v->adv_nused - n) : "");
	}
}

/* Why a request behind the expected PSN is here: the analyzer's verdict. */
static void walk_resend(struct walk *w, const struct rs_frame *f)
{
	const struct rs_verdict *v = &w->v;
	const struct rs_bth *b = &f->bth;
	char t[32];
	const char *seen = v->resent_of ? rs_wfmt("PSN 0x%06x was already sent in frame %" PRIu64, b->psn, v->resent_of)
				       : rs_wfmt("PSN 0x%06x was skipped earlier", b->psn);
	switch (v->resend) {
	case RS_V_RESEND_NETDUP:
		rs_wsay(w, "%s, as this very datagram (the same IP identification): the network delivered it twice "
			"(a duplicate); the requester sent it once.", seen);
		break;
	case RS_V_RESEND_LATE:
		rs_wsay(w, "%s: this packet left the requester before packets already seen (its IP identification is "
			"older), so it arrives late: reordered on the way, not resent.", seen);
		break;
	case RS_V_RESEND_NAK:
		rs_wsay(w, "%s: this packet is a retransmission, part of the go-back-N that the NAK in frame %" PRIu64
			" started %s earlier.", seen, v->resend_after, rs_fmt_ns(v->resend_wait_ns, t, sizeof t));
		break;
	case RS_V_RESEND_RNR:
		rs_wsay(w, "%s: the responder was not ready (RNR NAK in frame %" PRIu64 "); the requester waited %s "
			"and sends it again.", seen, v->resend_after, rs_fmt_ns(v->resend_wait_ns, t, sizeof t));
		break;
	case RS_V_RESEND_TIMEOUT:
	case RS_V_RESEND_READ:
		rs_wsay(w, "%s: no NAK asked for it; after %s without an answer the requester's ACK timer fired and it "
			"resends from the first unacknowledged PSN%s.", seen, rs_fmt_ns(v->resend_wait_ns, t, sizeof t),
		     v->resend == RS_V_RESEND_READ ? " (a READ asked again)" : "");
		break;
	case RS_V_RESEND_UNKNOWN:
		rs_wsay(w, "%s: this packet is a retransmission. No NAK in the capture asked for it, but the capture "
			"holds none of the responder's packets from before it, so a NAK sent before the capture began "
			"(or unseen here) cannot be told from the requester's ACK timer: the cause is unknown.", seen);
		break;
	default:
		break;
	}
}

/*
 * walk_ib.c — the IBA transport headers as the walk shows them: the BTH
 * (IBA vol 1 9.2) and every extension header of Table 38. The payload, pad
 * and CRCs are in walk_data.c.
 */
#include <inttypes.h>
#include <string.h>

#include "views/walk_int.h"

/* AETH credit codes 0-30 as counts of receive WQEs; 31 means no credit limit. */
static const uint16_t credit_count[31] = {
	0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768,
	1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768,
};

static const char *transport_long(uint8_t opcode)
{
	switch (opcode & 0xE0) {
	case RS_TR_RC: return "RC (Reliable Connection)";
	case RS_TR_UC: return "UC (Unreliable Connection)";
	case RS_TR_RD: return "RD (Reliable Datagram)";
	case RS_TR_UD: return "UD (Unreliable Datagram)";
	case RS_TR_CNP: return "CNP (congestion notification)";
	case RS_TR_XRC: return "XRC (eXtended Reliable Connection)";
	default: return "manufacturer specific";
	}
}

/* "DC RDMA WRITE Only": a DC packet named as the RC operation of the same
 * low opcode bits (dissect/opcodes.c rs_dc_opname), "DC CONNECT" for 0x55. */
const char *rs_walk_dc_pretty(uint8_t opcode)
{
	if ((opcode & 0x1F) == 0x15)
		return "DC CONNECT";
	const struct rs_opinfo *rc = rs_opinfo((uint8_t)(RS_TR_RC | (opcode & 0x1F)));
	return rc->defined && rc->pretty ? rs_wfmt("DC %s", rc->pretty + 3) : rs_wfmt("DC opcode 0x%02x", opcode);
}

/* "RDMA WRITE Only" from "RC RDMA WRITE Only". */
static const char *op_only(uint8_t opcode)
{
	const char *p = rs_opinfo(opcode)->pretty;
	const char *sp = p ? strchr(p, ' ') : NULL;
	return sp ? sp + 1 : "reserved";
}

static const char *bits_str(unsigned v, unsigned n)
{
	char b[16];
	for (unsigned i = 0; i < n && i < 15; i++)
		b[i] = (char)('0' + ((v >> (n - 1 - i)) & 1));
	b[n < 15 ? n : 15] = '\0';
	return rs_wfmt("%s", b);
}

static const char *destqp_sentence(const struct walk *w)
{
	const struct rs_bth *b = &w->f->bth;
	if (b->destqp == 0)
		return "DestQP 0 is QP0, the Subnet Management Interface: subnet management packets arrive there.";
	if (b->destqp == 1)
		return "DestQP 1 is QP1, the General Services Interface, where connection (CM) and subnet "
		       "administration messages arrive.";
	if (b->destqp == 0xFFFFFF)
		return "DestQP 0xffffff is the multicast QP number: every QP attached to the group gets a copy.";
	if (rs_opinfo(b->opcode)->response)
		return rs_wfmt("DestQP 0x%x (%u) is the requester's queue pair, at %s.", b->destqp, b->destqp,
			    rs_walk_addr(&w->f->dst));
	return rs_wfmt("DestQP 0x%x (%u) is the queue pair at %s that receives this packet.", b->destqp, b->destqp,
		    rs_walk_addr(&w->f->dst));
}

static const char *psn_sentence(const struct walk *w, bool full)
{
	const struct rs_frame *f = w->f;
	const struct rs_bth *b = &f->bth;
	const struct rs_opinfo *op = rs_opinfo(b->opcode);
	uint8_t tr = b->opcode & 0xE0;

	if (!full && (tr == RS_TR_UD || tr == RS_TR_UC || (op->kind != RS_KIND_ACK && op->kind != RS_KIND_ATOMIC_ACK &&
						      op->kind != RS_KIND_READ_RESP)))
		return tr == RS_TR_CNP ? "" : rs_wfmt("PSN 0x%06x.", b->psn);
	if (tr == RS_TR_UD)
		return rs_wfmt("UD packets carry a PSN (0x%06x) but the receiver does not check it: UD has no ordering "
			    "and no retransmission.", b->psn);
	if (tr == RS_TR_CNP)
		return "A CNP's PSN has no meaning.";
	if (tr == RS_TR_UC)
		return rs_wfmt("PSN 0x%06x numbers this packet: the receiver detects a gap and drops the rest of that "
			    "message, but UC never retransmits.", b->psn);
	if (op->kind == RS_KIND_ACK || op->kind == RS_KIND_ATOMIC_ACK) {
		if ((f->ext & RS_EXT_AETH) && rs_aeth_kind(f->aeth.syndrome) == RS_AETH_NAK &&
		    rs_aeth_value(f->aeth.syndrome) == RS_NAK_PSN_SEQ_ERR)
			return rs_wfmt("In this NAK, PSN 0x%06x is the PSN the responder expected next.", b->psn);
		return rs_wfmt("A response carries the requester's PSN: 0x%06x is the PSN of the newest request packet "
			    "it answers.", b->psn);
	}
	if (op->kind == RS_KIND_READ_RESP && w->v.msg_known && w->v.msg_req_frame)
		return rs_wfmt("PSN 0x%06x = the request's PSN 0x%06x + %u: READ response packets reuse the requester's "
			    "PSNs, one per packet.", b->psn, (b->psn - (w->v.msg_index - 1)) & 0xFFFFFF, w->v.msg_index - 1);
	if (op->kind == RS_KIND_READ_RESP)
		return rs_wfmt("PSN 0x%06x: READ response packets reuse the requester's PSNs, from the request's PSN "
			    "on, one per packet.", b->psn);
	return rs_wfmt("PSN 0x%06x (%u) numbers this packet on the connection: the responder accepts packets "
		    "only in PSN order, detects a loss from a gap, and the requester resends from there.",
		    b->psn, b->psn);
}

static void bth(struct walk *w, const struct rs_layer *l)
{
	const struct rs_frame *f = w->f;
	const struct rs_bth *b = &f->bth;
	const struct rs_opinfo *op = rs_opinfo(b->opcode);
	uint32_t o = l->off;
	bool request = op->defined && !op->response && (b->opcode & 0xE0) != RS_TR_UD &&
		       (b->opcode & 0xE0) != RS_TR_CNP;

	rs_wtitle(w, l->id, "Base Transport Header", l->off, l->len);
	bool dc = f->have & RS_HAVE_DC;
	rs_wfield(w, o, "OpCode", rs_whexdec(b->opcode, 2), "%s",
	       dc ? rs_walk_dc_pretty(b->opcode) : op->defined ? op->pretty : "reserved");
	rs_wbits(w, o, 1, 5, 3, b->opcode >> 5, "  transport", "%s", dc ? "RD range, NVIDIA DC" : rs_transport_name(b->opcode));
	rs_wbits(w, o, 1, 0, 5, b->opcode & 0x1F, "  operation", "%s", op_only(b->opcode));
	rs_wbits(w, o + 1, 1, 7, 1, b->se, "SE", "solicited event%s", b->se ? " requested" : "");
	rs_wbits(w, o + 1, 1, 6, 1, b->migreq, "MigReq", "path migration state");
	rs_wbits(w, o + 1, 1, 4, 2, b->padcnt, "PadCnt", "pad bytes after the payload");
	rs_wbits(w, o + 1, 1, 0, 4, b->tver, "TVer", "transport header version");
	rs_wfield(w, o + 2, "P_Key", rs_whexdec(b->pkey, 4), "%s", rs_walk_pkey_note(b->pkey));
	rs_wbits(w, o + 4, 1, 7, 1, b->fecn, "FECN", "forward congestion notification");
	rs_wbits(w, o + 4, 1, 6, 1, b->becn, "BECN", "backward congestion notification");
	rs_wbits(w, o + 4, 1, 0, 6, b->resv6, "Resv6", NULL);
	rs_wfield(w, o + 5, "DestQP", rs_whexdec(b->destqp, 6), "destination queue pair");
	rs_wbits(w, o + 8, 1, 7, 1, b->ackreq, "AckReq", "%s", b->ackreq ? "acknowledge this packet" : "");
	rs_wbits(w, o + 8, 1, 0, 7, b->resv7, "Resv7", NULL);
	rs_wfield(w, o + 9, "PSN", rs_whexdec(b->psn, 6), "packet sequence number");

	char s[1600];
	bool full = rs_walk_first(w, l->id);
	size_t k = 0;
	if (full)
		k = (size_t)snprintf(s, sizeof s,
			"Every InfiniBand packet has a BTH: it names the operation, the receiving queue pair and the "
			"packet's sequence number. OpCode 0x%02x: bits 7-5 (%s) select the transport, %s; bits 4-0 "
			"(%s) the operation, %s. ", b->opcode, bits_str(b->opcode >> 5, 3),
			dc ? "the RD range, which NVIDIA's DC (Dynamically Connected) transport reuses with its own "
			     "header (the DCETH below, not RD's RDETH and DETH)" : transport_long(b->opcode),
			bits_str(b->opcode & 0x1F, 5), op_only(b->opcode));
	if (k < sizeof s)
		k += (size_t)snprintf(s + k, sizeof s - k, "%s %s", destqp_sentence(w), psn_sentence(w, full));
	if (request && k < sizeof s) {
		bool first = rs_walk_first(w, b->ackreq ? WALK_TOPIC_ACKREQ1 : WALK_TOPIC_ACKREQ0);
		k += (size_t)snprintf(s + k, sizeof s - k, "%s", b->ackreq
			? (first ? " AckReq=1: the requester asks the responder to acknowledge this packet."
				 : " AckReq=1: acknowledge this packet.")
			: (first ? " AckReq=0: no acknowledgement is asked for this packet by itself; ACKs are "
				   "cumulative, so a later one covers it."
				 : " AckReq=0."));
	}
	if ((full || (b->pkey & 0x7FFF) != 0x7FFF) && k < sizeof s)
		k += (size_t)snprintf(s + k, sizeof s - k, " P_Key 0x%04x: %s; both ends must belong to the "
				      "partition or the packet is dropped.", b->pkey, rs_walk_pkey_note(b->pkey));
	if (b->padcnt && k < sizeof s)
		k += (size_t)snprintf(s + k, sizeof s - k, " PadCnt %u: %u pad byte%s after the payload make it "
				      "a multiple of 4 bytes.", b->padcnt, b->padcnt, b->padcnt == 1 ? "" : "s");
	if (b->se && k < sizeof s)
		k += (size_t)snprintf(s + k, sizeof s - k, " SE=1: the receiver should raise a solicited event "
				      "(wakes a consumer waiting only for solicited completions).");
	if ((b->fecn || b->becn) && k < sizeof s)
		k += (size_t)snprintf(s + k, sizeof s - k, " %s set: InfiniBand congestion control (Annex A10) "
				      "marks congestion here; RoCE v2 signals it with ECN in the IP header instead.",
				      b->fecn && b->becn ? "FECN and BECN" : b->fecn ? "FECN" : "BECN");
	rs_wsay(w, "%s", s);
}

static void aeth(struct walk *w, const struct rs_layer *l)
{
	const struct rs_aeth *a = &w->f->aeth;
	uint8_t v = rs_aeth_value(a->syndrome);
	static const char *const kinds[4] = { "ACK", "RNR NAK", "reserved", "NAK" };
	enum rs_aeth_kind kind = rs_aeth_kind(a->syndrome);
	const char *val;

	switch (kind) {
	case RS_AETH_ACK:
		val = v == 31 ? "credit code 31: no credit limit" : rs_wfmt("credit code %u: %u credits", v, credit_count[v]);
		break;
	case RS_AETH_RNR_NAK:
		val = rs_wfmt("RNR timer %u: %s", v, rs_walk_duration(rs_rnr_timer_us(v)));
		break;
	case RS_AETH_NAK:
		val = rs_wfmt("NAK code %u: %s", v, rs_nak_code_name(v));
		break;
	default:
		val = "reserved";
		break;
	}
	rs_wtitle(w, l->id, "ACK Extended Transport Header", l->off, l->len);
	rs_wfield(w, l->off, "Syndrome", rs_whexdec(a->syndrome, 2), "%s", kinds[kind]);
	rs_wbits(w, l->off, 1, 7, 1, a->syndrome >> 7, "  reserved", NULL);
	rs_wbits(w, l->off, 1, 5, 2, kind, "  kind", "%s", kinds[kind]);
	rs_wbits(w, l->off, 1, 0, 5, v, "  value", "%s", val);
	rs_wfield(w, l->off + 1, "MSN", rs_whexdec(a->msn, 6), "message sequence number");

	if (!rs_walk_first(w, l->id)) {
		rs_wsay(w, "%s; %s; MSN %u.", kinds[kind], val, a->msn);
		return;
	}
	const char *msn = (w->f->have & RS_HAVE_DC)
		? rs_wfmt("MSN %u: a DC ACK's MSN is not known to count messages (it is 0 in every DC ACK seen), so "
		       "rocestat does not use it.", a->msn)
		: rs_wfmt("MSN %u is the responder's running count of completed messages (modulo 2^24); "
		       "the requester uses it to complete its work requests.", a->msn);
	switch (kind) {
	case RS_AETH_ACK:
		rs_wsay(w, "Syndrome 0x%02x: bits 6-5 = 00 make it an ACK (IBA Table 42); the low 5 bits are the "
			"credit count, %s. %s", a->syndrome,
		     v == 31 ? "31 = no credit limit (the responder does not use end-to-end flow control, e.g. "
			       "with a shared receive queue)"
			     : rs_wfmt("%u = room for %u more messages in the responder's receive queue", v,
				    credit_count[v]), msn);
		break;
	case RS_AETH_RNR_NAK:
		rs_wsay(w, "Syndrome 0x%02x: bits 6-5 = 01 make it an RNR NAK (receiver not ready): the low 5 bits, "
			"%u, encode how long the requester must wait before retrying: %s (IBA Table 45). %s",
		     a->syndrome, v, rs_walk_duration(rs_rnr_timer_us(v)), msn);
		break;
	case RS_AETH_NAK:
		rs_wsay(w, "Syndrome 0x%02x: bits 6-5 = 11 make it a NAK; the low 5 bits are the NAK code %u, %s (IBA "
			"Table 43). %s", a->syndrome, v, rs_nak_code_name(v), msn);
		break;
	default:
		rs_wsay(w, "Syndrome 0x%02x: bits 6-5 = 10 is a reserved syndrome (IBA Table 42).", a->syndrome);
		break;
	}
}

/* NVIDIA DC's headers (dissect/ib.c): their layout is not published, so
 * only what the dissector reads is named and the rest shown as bytes. */
static void dc(struct walk *w, const struct rs_layer *l)
{
	const struct rs_dceth *x = &w->f->dceth;
	uint32_t o = l->off;
	if (l->id == RS_L_DCCETH) {
		rs_wtitle(w, l->id, "DC connect header (NVIDIA)", o, l->len);
		rs_wfield(w, o, "Unknown", "8 bytes", "not decoded");
		rs_wfield(w, o + 8, "DC key", rs_whex(x->dc_key, 16), "the target DCT's access key");
		rs_wsay(w, "A DC connect carries the DC access key the target's DCT checks (rdma-core's "
			"mlx5dv_wr_set_dc_addr remote_dc_key) before it accepts the initiator.");
		return;
	}
	rs_wtitle(w, l->id, "DC Extended Transport Header (NVIDIA)", o, l->len);
	rs_wfield(w, o, "Flags", rs_whex(x->flags, 2), "%s", x->flags == 0x11 ? "from the initiator (DCI)" : "from the target (DCT)");
	rs_wfield(w, o + 1, "Source QP", rs_whexdec(x->srcqp, 6), "as the sender numbers it");
	rs_wfield(w, o + 4, "Unknown", "5 bytes", "not decoded");
	rs_wfield(w, o + 9, "Session", rs_whexdec(x->session, 6), NULL);
	rs_wfield(w, o + 13, "DCT", rs_whexdec(x->dct, 6), NULL);
	rs_wfield(w, o + 16, "Reserved", "4 bytes", "zero");
	if (!rs_walk_first(w, l->id)) {
		rs_wsay(w, "DC from QP 0x%x, session 0x%x, DCT 0x%x.", x->srcqp, x->session, x->dct);
		return;
	}
	rs_wsay(w, "NVIDIA DC (Dynamically Connected, ConnectX-5 and later): one initiator QP (DCI) reaches many "
		"targets (DCTs), connecting to each on the fly. The 20 bytes after the BTH are NVIDIA's own and "
		"unpublished: they are told from RD's RDETH by their flags byte (0x10/0x11) and zero bytes, and only "
		"what public sources support is named here. Then come the headers of the RC operation with the "
		"same low opcode bits. Its ACKs' MSN is not counted on (all zero in the captures seen), so DC "
		"messages are counted from the requests.");
}

static void ext(struct walk *w, const struct rs_layer *l)
{
	const struct rs_frame *f = w->f;
	uint32_t o = l->off;
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);

	switch (l->id) {
	case RS_L_RDETH:
		rs_wtitle(w, l->id, "Reliable Datagram Extended Transport Header", o, l->len);
		rs_wfield(w, o + 1, "EE context", rs_whexdec(f->rdeth_eecnxt, 6), NULL);
		rs_wsay(w, "RD only: the end-to-end context 0x%x that carries this datagram reliably.", f->rdeth_eecnxt);
		break;
	case RS_L_DETH:
		rs_wtitle(w, l->id, "Datagram Extended Transport Header", o, l->len);
		rs_wfield(w, o, "Q_Key", rs_whexdec(f->deth.qkey, 8), "%s", f->deth.qkey == 0x80010000u
			? "the well-known QP1 key" : f->deth.qkey & 0x80000000u ? "controlled key" : "");
		rs_wfield(w, o + 5, "Source QP", rs_whexdec(f->deth.srcqp, 6), "the sender's QP");
		if (f->bth.destqp == 0)
			rs_wsay(w, "From QP 0x%x. Subnet management packets to QP0 are not checked against a Q_Key.",
			     f->deth.srcqp);
		else if (!rs_walk_first(w, l->id))
			rs_wsay(w, "From QP 0x%x with Q_Key 0x%08x%s.", f->deth.srcqp, f->deth.qkey,
			     f->deth.qkey == 0x80010000u ? " (the QP1 key)" : "");
		else if (f->deth.qkey == 0x80010000u)
			rs_wsay(w, "A datagram names its sender's QP (0x%x, where replies go) and a Q_Key. 0x80010000 is "
				"the well-known Q_Key of QP1, used by every management datagram; keys with the top bit "
				"set are \"controlled\": only privileged software may send with them.", f->deth.srcqp);
		else
			rs_wsay(w, "A datagram names its sender's QP (0x%x, where replies go) and a Q_Key: the receiving "
				"UD QP accepts it only if the Q_Key matches its own (0x%08x).", f->deth.srcqp, f->deth.qkey);
		break;
	case RS_L_XRCETH:
		rs_wtitle(w, l->id, "XRC Extended Transport Header", o, l->len);
		rs_wfield(w, o + 1, "XRC SRQ", rs_whexdec(f->xrceth_srqn, 6), NULL);
		rs_wsay(w, "XRC: the message goes to shared receive queue 0x%x at the target, whichever QP receives it.",
		     f->xrceth_srqn);
		break;
	case RS_L_FETH:
		rs_wtitle(w, l->id, "Flush Extended Transport Header", o, l->len);
		rs_wbits(w, o + 3, 1, 4, 2, (f->feth >> 4) & 3, "Selectivity", NULL);
		rs_wbits(w, o + 3, 1, 0, 4, f->feth & 0xF, "Placement type", NULL);
		rs_wsay(w, "FLUSH asks the responder to make earlier writes to the RETH's region visible or persistent, "
			"as the placement type says.");
		break;
	case RS_L_RETH:
		rs_wtitle(w, l->id, "RDMA Extended Transport Header", o, l->len);
		rs_wfield(w, o, "Virtual address", rs_whex(f->reth.va, 16), NULL);
		rs_wfield(w, o + 8, "R_Key", rs_whexdec(f->reth.rkey, 8), "remote key of the memory region");
		rs_wfield(w, o + 12, "DMA length", rs_whexdec(f->reth.dmalen, 8), "bytes in the whole message");
		if (!rs_walk_first(w, l->id))
			rs_wsay(w, "%s VA 0x%" PRIx64 ", R_Key 0x%x, DMA length %u (the whole message).",
			     op->kind == RS_KIND_READ_REQ ? "Read from" : "To", f->reth.va, f->reth.rkey, f->reth.dmalen);
		else if (op->kind == RS_KIND_READ_REQ)
			rs_wsay(w, "The RETH says which remote memory to read: %u bytes at virtual address 0x%" PRIx64
				" in the region registered with R_Key 0x%x. The responder checks that the key allows "
				"remote reads of that range.", f->reth.dmalen, f->reth.va, f->reth.rkey);
		else
			rs_wsay(w, "The RETH says where the data goes: virtual address 0x%" PRIx64 " in the responder's "
				"memory region registered with R_Key 0x%x. The DMA length, %u bytes, is the size of the "
				"whole message, not of this packet; only the first packet of a message carries a RETH.",
			     f->reth.va, f->reth.rkey, f->reth.dmalen);
		if (w->v.nvme_cmd_frame)
			rs_walk_nvme_transfer(w);
		break;
	case RS_L_ATOMICETH:
		rs_wtitle(w, l->id, "Atomic Extended Transport Header", o, l->len);
		rs_wfield(w, o, "Virtual address", rs_whex(f->atomic.va, 16), NULL);
		rs_wfield(w, o + 8, "R_Key", rs_whexdec(f->atomic.rkey, 8), NULL);
		rs_wfield(w, o + 12, op->kind == RS_KIND_FETCH_ADD ? "Add data" : "Swap data", rs_whex(f->atomic.swap, 16), NULL);
		rs_wfield(w, o + 20, "Compare data", rs_whex(f->atomic.cmp, 16), "%s",
		       op->kind == RS_KIND_FETCH_ADD ? "unused by Fetch & Add" : "");
		rs_wsay(w, "An atomic operation on the 8 bytes at 0x%" PRIx64 " (R_Key 0x%x); no other access to them "
			"can come in between.", f->atomic.va, f->atomic.rkey);
		break;
	case RS_L_AETH:
		aeth(w, l);
		break;
	case RS_L_ATOMICACKETH:
		rs_wtitle(w, l->id, "Atomic ACK Extended Transport Header", o, l->len);
		rs_wfield(w, o, "Original data", rs_whexdec(f->atomicack_orig, 16), NULL);
		rs_wsay(w, "The value the 8 bytes held before the atomic operation, returned to the requester.");
		break;
	case RS_L_IMMDT:
		rs_wtitle(w, l->id, "Immediate Data", o, l->len);
		rs_wfield(w, o, "Immediate", rs_whexdec(f->immdt, 8), NULL);
		rs_wsay(w, "32 bits delivered with the message to the receiver's completion queue entry; the receiver "
			"consumes a receive work request to get it.");
		break;
	case RS_L_IETH:
		rs_wtitle(w, l->id, "Invalidate Extended Transport Header", o, l->len);
		rs_wfield(w, o, "R_Key", rs_whexdec(f->ieth_rkey, 8), "to invalidate");
		rs_wsay(w, "When this SEND completes, the responder invalidates R_Key 0x%x: remote access through it "
			"ends.", f->ieth_rkey);
		break;
	case RS_L_DCETH:
	case RS_L_DCCETH:
		dc(w, l);
		break;
	case RS_L_CNP:
		rs_wtitle(w, l->id, "CNP reserved bytes", o, l->len);
		rs_wfield(w, o, "Reserved", rs_wfmt("%u bytes", l->len), NULL);
		rs_wsay(w, "A RoCE v2 CNP carries 16 reserved bytes after its BTH (IBA Annex A17.9.3).");
		break;
	default:
		break;
	}
}

void rs_walk_ib_layer(struct walk *w, const struct rs_layer *l)
{
	switch (l->id) {
	case RS_L_BTH:
		bth(w, l);
		break;
	case RS_L_PAYLOAD:
	case RS_L_PAD:
	case RS_L_ICRC:
	case RS_L_VCRC:
		rs_walk_data_layer(w, l);
		break;
	default:
		ext(w, l);
		break;
	}
}

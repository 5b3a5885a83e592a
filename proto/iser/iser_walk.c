/*
 * iser_walk.c — an iSER frame in the per-frame views: the iSER header and
 * the iSCSI PDU of a SEND field by field in the walkthrough (-V), and for
 * every frame of a task (its SENDs, its RDMA transfers and their READ
 * responses) what it is to the task: the sentence --annotate puts in the
 * frame's comment and the walkthrough says. From the decoder's record and
 * the analyzer's verdict (the ulp_* fields iser_state.c set); nothing here
 * judges a frame. Only on a connection whose service is iSER.
 */
#include <inttypes.h>
#include <string.h>

#include "proto/iser/iser.h"
#include "proto/iser/iser_dissect.h"
#include "proto/iser/iser_state.h"
#include "proto/pdu.h"
#include "views/walk_int.h"

const char *rs_iser_op_name(uint16_t op, char *buf, size_t len)
{
	return rs_iser_op_label((uint8_t)(op >> 8), (uint8_t)op, buf, len);
}

/* The frame's iSER PDU, if it carries one the decoder read. */
static const struct rs_iser *pdu_of(const struct rs_frame *f)
{
	return rs_frame_pdu(f, RS_PDU_ISER) ? &f->pdu->iser : NULL;
}

bool rs_iser_note(const struct rs_verdict *v, const struct rs_frame *f, char *buf, size_t len)
{
	const struct rs_iser *r = pdu_of(f);
	char op[48] = "", tag[32] = "", from[48] = "", lat[48] = "";
	if (v->ulp_op_known)
		rs_iser_op_name(v->ulp_op, op, sizeof op);
	if (v->ulp_tag_known)
		snprintf(tag, sizeof tag, " ITT 0x%08" PRIx32, v->ulp_tag);
	if (v->ulp_req_frame)
		snprintf(from, sizeof from, " (command frame %" PRIu64 ")", v->ulp_req_frame);
	if (v->ulp_timed)
		snprintf(lat, sizeof lat, ", %.3f ms after it", (double)v->ulp_lat_ns / 1e6);
	const char *resent = v->ulp_resent ? "; the fabric re-sent a packet of this task" : "";
	const struct rs_opinfo *o = rs_opinfo(f->bth.opcode);
	switch (v->ulp_pdu) {
	case RS_ULP_REQUEST:
		snprintf(buf, len, "iSER: %s%s%s%s", r ? rs_iscsi_opcode_name(r->opcode) : "request",
			 *op && r && r->opcode == RS_ISCSI_SCSI_CMD ? " " : "", r && r->opcode == RS_ISCSI_SCSI_CMD ? op : "",
			 tag);
		break;
	case RS_ULP_RESPONSE:
		snprintf(buf, len, "iSER: %s%s%s%s%s%s%s", r ? rs_iscsi_opcode_name(r->opcode) : "response",
			 *op ? " to " : " to no command seen", op, tag, from, lat, v->ulp_failed ? ", FAILED" : "");
		break;
	case RS_ULP_TRANSFER:
		snprintf(buf, len, "iSER: %s for %s%s%s", o->kind == RS_KIND_READ_REQ ? "RDMA READ of the command's data"
							  : o->kind == RS_KIND_READ_RESP ? "RDMA READ response"
											 : "RDMA WRITE of the command's data",
			 *op ? op : "a task not seen", tag, from);
		break;
	default:
		snprintf(buf, len, "iSER: %s (no task)", r && r->has_bhs ? rs_iscsi_opcode_name(r->opcode)
							 : r && r->iser_op == RS_ISER_OP_HELLO ? "iSER Hello"
							 : r && r->iser_op == RS_ISER_OP_HELLO_REPLY ? "iSER HelloReply"
												    : "PDU");
		break;
	}
	size_t n = strlen(buf);
	if (n < len)
		snprintf(buf + n, len - n, "%s", resent);
	return true;
}

static void header_fields(struct walk *w, const struct rs_iser *r, uint32_t o)
{
	rs_wbits(w, o, 1, 4, 4, r->iser_op, "iSER opcode", "%s",
		 r->iser_op == RS_ISER_OP_CONTROL ? "iSCSI control-type PDU" : r->iser_op == RS_ISER_OP_HELLO ? "Hello" : "HelloReply");
	if (r->iser_op != RS_ISER_OP_CONTROL)
		return;
	rs_wbits(w, o, 1, 3, 1, r->wsv, "WSV", "%s", r->wsv ? "the write STag is valid: the target RDMA READs from it" : "");
	rs_wbits(w, o, 1, 2, 1, r->rsv, "RSV", "%s", r->rsv ? "the read STag is valid: the target RDMA WRITEs into it" : "");
	rs_wfield(w, o + 4, "Write STag", rs_whex(r->write_stag, 8), NULL);
	rs_wfield(w, o + 8, "Write VA", rs_wfmt("%#" PRIx64, r->write_va), NULL);
	rs_wfield(w, o + 16, "Read STag", rs_whex(r->read_stag, 8), NULL);
	rs_wfield(w, o + 20, "Read VA", rs_wfmt("%#" PRIx64, r->read_va), NULL);
}

static void bhs_fields(struct walk *w, const struct rs_iser *r, uint32_t o)
{
	rs_wbits(w, o, 1, 0, 6, r->opcode, "Opcode", "%s%s", rs_iscsi_opcode_name(r->opcode),
		 r->immediate ? ", immediate" : "");
	rs_wfield(w, o + 1, "Flags", rs_whex(r->flags, 2), NULL);
	if (r->opcode == RS_ISCSI_SCSI_RSP) {
		const char *sn = rs_scsi_status_name(r->status);
		rs_wfield(w, o + 2, "Response", rs_whex(r->response, 2), "%s",
			  r->response ? "target failure" : "command completed at the target");
		rs_wfield(w, o + 3, "Status", rs_whex(r->status, 2), "%s", *sn ? sn : "");
	}
	rs_wfield(w, o + 4, "TotalAHSLength", rs_wfmt("%u", r->ahs_words), "4-byte words");
	rs_wfield(w, o + 5, "DataSegmentLength", rs_wfmt("%" PRIu32, r->dsl), "%s",
		  r->opcode == RS_ISCSI_SCSI_CMD && r->dsl ? "immediate data in this SEND" : "");
	rs_wfield(w, o + 16, "Initiator Task Tag", rs_whex(r->itt, 8), "%s",
		  r->itt == 0xFFFFFFFFu ? "no task" : "the response carries it back");
	if (r->opcode == RS_ISCSI_SCSI_CMD) {
		char name[48];
		rs_wfield(w, o + 20, "Expected length", rs_wfmt("%" PRIu32, r->edtl), "Expected Data Transfer Length");
		rs_wfield(w, o + 24, "CmdSN", rs_wfmt("%" PRIu32, r->cmdsn), NULL);
		rs_wfield(w, o + 32, "CDB opcode", rs_whex(r->cdb_op, 2), "%s", rs_iser_op_label(r->opcode, r->cdb_op, name,
											      sizeof name));
		if (rs_scsi_is_read(r->cdb_op) || rs_scsi_is_write(r->cdb_op))
			rs_wfield(w, o + 34, "LBA, blocks", rs_wfmt("%" PRIu64 ", %" PRIu32, r->lba, r->blocks), NULL);
	} else if (r->opcode == RS_ISCSI_SCSI_RSP) {
		rs_wfield(w, o + 24, "StatSN", rs_wfmt("%" PRIu32, r->statsn), NULL);
		rs_wfield(w, o + 44, "Residual Count", rs_wfmt("%" PRIu32, r->residual), "%s",
			  r->flags & RS_ISCSI_RSP_U ? "underflow: less data than expected" :
			  r->flags & RS_ISCSI_RSP_O ? "overflow: more data than expected" : "");
		if (r->has_sense)
			rs_wfield(w, o + RS_ISCSI_BHS_LEN + 4u * r->ahs_words, "Sense", rs_wfmt("key %u, ASC/ASCQ %02Xh/%02Xh",
				  r->sense_key, r->asc, r->ascq), "%s", rs_scsi_sense_key_name(r->sense_key));
	}
}

void rs_iser_walk(struct walk *w)
{
	const struct rs_frame *f = w->f;
	const struct rs_iser *r = pdu_of(f);
	if (r && r->outcome != RS_ISER_NOT) {
		uint32_t o = f->payload_off;
		uint32_t n = RS_ISER_HDR_LEN + (r->has_bhs ? RS_ISCSI_BHS_LEN : 0);
		rs_wtitle_named(w, RS_L_PAYLOAD, "iSER", "iSER header and iSCSI PDU, in the SEND's payload", o,
				n < f->payload_len ? n : f->payload_len);
		header_fields(w, r, o);
		if (r->has_bhs)
			bhs_fields(w, r, o + RS_ISER_HDR_LEN);
		if (r->outcome != RS_ISER_OK)
			rs_wsay_marked(w, "!! ", "1;31", "The PDU is %s%s%s.", rs_iser_outcome_name(r->outcome),
				       r->why ? ": " : "", r->why ? r->why : "");
		if (rs_walk_first(w, WALK_TOPIC_ULP))
			rs_wsay(w, "iSER (RFC 7145) carries each iSCSI PDU (RFC 7143) in one SEND: a 28-byte iSER header, "
				"then the PDU's 48-byte header. The initiator's SCSI command lends the target STags: it "
				"RDMA READs the data of a write from the write STag and RDMA WRITEs the data of a read into "
				"the read STag, then SENDs the SCSI Response with the command's Initiator Task Tag.");
	}
	char s[512];
	if (rs_iser_note(&w->v, f, s, sizeof s))
		rs_wsay(w, "%s.", s);
}

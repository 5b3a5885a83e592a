/*
 * iser_dissect.c — the iSER header and the iSCSI PDU in one SEND.
 *
 * iSER header (RFC 7145 9.2), 28 bytes, big-endian:
 *   0 Flags: Opcode(4) W(1) R(1) rsv(2) | 1-3 reserved
 *   4 Write STag(32) | 8 Write Base Offset (64)
 *   16 Read STag(32) | 20 Read Base Offset (64)
 * W / R say the write / read STag is valid: the target RDMA READs the
 * command's data from (write STag, VA) and RDMA WRITEs its data to
 * (read STag, VA). Opcode 1 is an iSCSI control-type PDU; Hello (2) and
 * HelloReply (3, with a Rej bit) carry the version and iSER-IRD / -ORD
 * where no CM private data does (RFC 7145 9.3, 9.4).
 *
 * iSCSI Basic Header Segment (RFC 7143 11.2), 48 bytes:
 *   0 rsv(1) I(1) Opcode(6) | 1 flags | 2-3 opcode-specific
 *   4 TotalAHSLength (4-byte words) | 5 DataSegmentLength(24)
 *   8 LUN or opcode-specific (64) | 16 Initiator Task Tag
 *   20-47 opcode-specific; requests hold CmdSN at 24 and ExpStatSN at 28,
 *   responses StatSN at 24 and ExpCmdSN at 28.
 * SCSI Command: 20 Expected Data Transfer Length, 32-47 CDB.
 * SCSI Response: 2 Response, 3 Status, 44 Residual Count; its data segment
 * starts with SenseLength(16) and the sense data (SPC-4 4.5: fixed format
 * 70h/71h: key at byte 2, ASC/ASCQ at 12/13; descriptor format 72h/73h:
 * key at 1, ASC/ASCQ at 2/3).
 * Login Response: 36 Status-Class, 37 Status-Detail. Logout and Task
 * Management responses: 2 Response.
 *
 * Then the AHSs, and the data segment padded to a multiple of 4 bytes
 * (Linux's initiator and target both pad); iSER uses no digests.
 */
#include "proto/iser/iser_dissect.h"

static enum rs_iser_outcome fail(struct rs_iser *r, enum rs_iser_outcome o, const char *why)
{
	r->outcome = (uint8_t)o;
	r->why = why;
	return o;
}

/* The logical block address and block count of the READ/WRITE CDBs. */
static void cdb_rw(struct rs_cursor *cdb, struct rs_iser *r)
{
	struct rs_cursor k = *cdb;
	uint8_t op = rs_cur_u8(&k);
	r->cdb_op = op;
	switch (op) {
	case 0x08: case 0x0a: { /* READ(6), WRITE(6) */
		r->lba = rs_cur_be24(&k) & 0x1FFFFF;
		uint8_t n = rs_cur_u8(&k);
		r->blocks = n ? n : 256;
		break;
	}
	case 0x28: case 0x2a: case 0x2e: case 0x2f: /* READ/WRITE(10), WRITE AND VERIFY(10), VERIFY(10) */
		rs_cur_skip(&k, 1);
		r->lba = rs_cur_be32(&k);
		rs_cur_skip(&k, 1);
		r->blocks = rs_cur_be16(&k);
		break;
	case 0xa8: case 0xaa: /* READ(12), WRITE(12) */
		rs_cur_skip(&k, 1);
		r->lba = rs_cur_be32(&k);
		r->blocks = rs_cur_be32(&k);
		break;
	case 0x88: case 0x8a: case 0x8e: case 0x8f: /* READ/WRITE(16), WRITE AND VERIFY(16), VERIFY(16) */
		rs_cur_skip(&k, 1);
		r->lba = rs_cur_be64(&k);
		r->blocks = rs_cur_be32(&k);
		break;
	default:
		break;
	}
}

/* The 28 opcode-specific bytes 20-47 of the BHS, at `h`. */
static void bhs_specific(struct rs_cursor *h, struct rs_iser *r)
{
	uint32_t w20 = rs_cur_be32(h);
	uint32_t w24 = rs_cur_be32(h);
	r->exp_sn = rs_cur_be32(h);
	if (r->opcode & 0x20)
		r->statsn = w24;
	else
		r->cmdsn = w24;
	switch (r->opcode) {
	case RS_ISCSI_SCSI_CMD: {
		r->edtl = w20;
		struct rs_cursor cdb = rs_cur_sub(h, 16);
		r->cdb_len = 16;
		cdb_rw(&cdb, r);
		return;
	}
	case RS_ISCSI_NOP_OUT: case RS_ISCSI_NOP_IN: case RS_ISCSI_TEXT_REQ: case RS_ISCSI_TEXT_RSP:
	case RS_ISCSI_DATA_OUT: case RS_ISCSI_R2T: case RS_ISCSI_SNACK:
		r->ttt = w20;
		if (r->opcode == RS_ISCSI_DATA_OUT)
			r->cmdsn = 0; /* reserved there */
		break;
	case RS_ISCSI_DATA_IN:
		r->ttt = w20;
		break;
	case RS_ISCSI_TMF_REQ:
		r->ttt = w20; /* the Referenced Task Tag */
		break;
	case RS_ISCSI_LOGIN_RSP:
		rs_cur_skip(h, 4);
		r->login_class = rs_cur_u8(h);
		r->login_detail = rs_cur_u8(h);
		break;
	default:
		break;
	}
	if (r->opcode == RS_ISCSI_SCSI_RSP || r->opcode == RS_ISCSI_DATA_IN) {
		if (h->off <= 44) {
			rs_cur_skip(h, 44 - h->off);
			r->residual = rs_cur_be32(h);
		}
	}
}

/* The sense data at the start of a SCSI Response's data segment. */
static enum rs_iser_outcome sense(struct rs_cursor *c, struct rs_iser *r)
{
	if (r->dsl < 2)
		return RS_ISER_OK;
	r->sense_len = rs_cur_be16(c);
	if (c->overrun)
		return fail(r, RS_ISER_TRUNCATED, NULL);
	if (r->sense_len == 0)
		return RS_ISER_OK;
	if ((uint32_t)r->sense_len + 2 > r->dsl)
		return fail(r, RS_ISER_MALFORMED, "its SenseLength reaches past the data segment");
	struct rs_cursor s = rs_cur_sub(c, r->sense_len);
	uint8_t code = rs_cur_u8(&s) & 0x7F;
	if (code == 0x70 || code == 0x71) {
		rs_cur_skip(&s, 1);
		r->sense_key = rs_cur_u8(&s) & 0x0F;
		rs_cur_skip(&s, 9);
		r->asc = rs_cur_u8(&s);
		r->ascq = rs_cur_u8(&s);
	} else if (code == 0x72 || code == 0x73) {
		r->sense_key = rs_cur_u8(&s) & 0x0F;
		r->asc = rs_cur_u8(&s);
		r->ascq = rs_cur_u8(&s);
	}
	/* A short sense buffer reads zeros past its end: that is the
	 * target's choice, not a cut capture, unless the capture ended. */
	r->has_sense = true;
	return c->overrun ? fail(r, RS_ISER_TRUNCATED, NULL) : RS_ISER_OK;
}

static enum rs_iser_outcome decode_bhs(struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_iser *r)
{
	if (wire_len < RS_ISER_HDR_LEN + RS_ISCSI_BHS_LEN)
		return fail(r, RS_ISER_MALFORMED, "a control-type PDU shorter than the iSER header and the BHS");
	struct rs_cursor h = rs_cur_sub(c, RS_ISCSI_BHS_LEN);
	uint8_t b0 = rs_cur_u8(&h);
	if (b0 & 0x80)
		return fail(r, RS_ISER_NOT, "the BHS's reserved first bit is set");
	r->has_bhs = true;
	r->immediate = (b0 & 0x40) != 0;
	r->opcode = b0 & 0x3F;
	r->flags = rs_cur_u8(&h);
	uint8_t b2 = rs_cur_u8(&h), b3 = rs_cur_u8(&h);
	r->ahs_words = rs_cur_u8(&h);
	r->dsl = rs_cur_be24(&h);
	r->lun = rs_cur_be64(&h);
	r->itt = rs_cur_be32(&h);
	bhs_specific(&h, r);
	if (r->opcode == RS_ISCSI_SCSI_RSP || r->opcode == RS_ISCSI_DATA_IN) {
		r->response = b2;
		r->status = b3;
	} else if (r->opcode == RS_ISCSI_LOGOUT_RSP || r->opcode == RS_ISCSI_TMF_RSP || r->opcode == RS_ISCSI_REJECT) {
		r->response = b2;
	}
	if (c->overrun)
		return fail(r, RS_ISER_TRUNCATED, NULL);
	switch (r->opcode) {
	case RS_ISCSI_NOP_OUT: case RS_ISCSI_SCSI_CMD: case RS_ISCSI_TMF_REQ: case RS_ISCSI_LOGIN_REQ:
	case RS_ISCSI_TEXT_REQ: case RS_ISCSI_DATA_OUT: case RS_ISCSI_LOGOUT_REQ: case RS_ISCSI_SNACK:
	case RS_ISCSI_NOP_IN: case RS_ISCSI_SCSI_RSP: case RS_ISCSI_TMF_RSP: case RS_ISCSI_LOGIN_RSP:
	case RS_ISCSI_TEXT_RSP: case RS_ISCSI_DATA_IN: case RS_ISCSI_LOGOUT_RSP: case RS_ISCSI_R2T:
	case RS_ISCSI_ASYNC: case RS_ISCSI_REJECT:
		break;
	default:
		return fail(r, RS_ISER_UNSUPPORTED, "an iSCSI opcode RFC 7143 does not define");
	}
	uint32_t ahs = 4u * r->ahs_words;
	uint32_t hdr = RS_ISER_HDR_LEN + RS_ISCSI_BHS_LEN + ahs;
	if (hdr > wire_len)
		return fail(r, RS_ISER_MALFORMED, "its TotalAHSLength reaches past the SEND");
	r->data_here = wire_len - hdr;
	uint32_t padded = (r->dsl + 3) & ~3u;
	if (whole && r->dsl > r->data_here)
		return fail(r, RS_ISER_MALFORMED, "its DataSegmentLength says more than the SEND carries");
	if (whole && padded < r->data_here)
		return fail(r, RS_ISER_MALFORMED, "the SEND carries bytes past the PDU's padded data segment");
	if (!whole && padded <= r->data_here)
		return fail(r, RS_ISER_MALFORMED, "its data segment ends inside the first packet of a longer SEND");
	if (ahs) {
		struct rs_cursor a = rs_cur_sub(c, ahs);
		uint16_t alen = rs_cur_be16(&a);
		uint8_t type = rs_cur_u8(&a);
		if (type == 0x01 && r->opcode == RS_ISCSI_SCSI_CMD && alen >= 1)
			r->cdb_len = (uint8_t)(alen - 1 + 16 > 255 ? 255 : alen - 1 + 16);
		if (c->overrun)
			return fail(r, RS_ISER_TRUNCATED, NULL);
	}
	if (r->opcode == RS_ISCSI_SCSI_RSP)
		return sense(c, r);
	return RS_ISER_OK;
}

enum rs_iser_outcome rs_iser_decode(struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_iser *r)
{
	*r = (struct rs_iser){ 0 };
	r->outcome = RS_ISER_OK;
	if (wire_len < RS_ISER_HDR_LEN)
		return fail(r, RS_ISER_NOT, "shorter than an iSER header");
	struct rs_cursor h = rs_cur_sub(c, RS_ISER_HDR_LEN);
	r->iser_flags = rs_cur_u8(&h);
	r->iser_op = r->iser_flags >> 4;
	uint8_t b1 = rs_cur_u8(&h);
	uint16_t b23 = rs_cur_be16(&h);
	r->write_stag = rs_cur_be32(&h);
	r->write_va = rs_cur_be64(&h);
	r->read_stag = rs_cur_be32(&h);
	r->read_va = rs_cur_be64(&h);
	if (h.len == 0)
		return fail(r, RS_ISER_TRUNCATED, NULL); /* nothing captured to tell by */
	switch (r->iser_op) {
	case RS_ISER_OP_CONTROL:
		if ((r->iser_flags & 0x03) || b1 || b23)
			return fail(r, RS_ISER_NOT, "reserved bits of the iSER header are set");
		r->wsv = (r->iser_flags & 0x08) != 0;
		r->rsv = (r->iser_flags & 0x04) != 0;
		if (c->overrun)
			return fail(r, RS_ISER_TRUNCATED, NULL);
		return decode_bhs(c, wire_len, whole, r);
	case RS_ISER_OP_HELLO:
	case RS_ISER_OP_HELLO_REPLY:
		/* Only HelloReply's Rej bit may be set; the one version RFC
		 * 7145 defines is 10 (Ah), and MinVer cannot exceed MaxVer. */
		if (r->iser_flags & (r->iser_op == RS_ISER_OP_HELLO ? 0x0F : 0x0E))
			return fail(r, RS_ISER_NOT, "reserved bits of the iSER header are set");
		r->max_ver = b1 >> 4;
		r->min_ver = b1 & 0x0F;
		if (!c->overrun && (r->min_ver == 0 || r->min_ver > r->max_ver))
			return fail(r, RS_ISER_NOT, "an iSER Hello whose version range is empty");
		r->ird_ord = b23;
		r->rej = r->iser_op == RS_ISER_OP_HELLO_REPLY && (r->iser_flags & 0x01);
		return c->overrun ? fail(r, RS_ISER_TRUNCATED, NULL) : RS_ISER_OK;
	default:
		return fail(r, RS_ISER_UNSUPPORTED, "an iSER opcode RFC 7145 does not define");
	}
}

/* ---- names -------------------------------------------------------------- */

bool rs_scsi_is_read(uint8_t op)
{
	return op == 0x08 || op == 0x28 || op == 0xa8 || op == 0x88;
}

bool rs_scsi_is_write(uint8_t op)
{
	return op == 0x0a || op == 0x2a || op == 0xaa || op == 0x8a || op == 0x2e || op == 0x8e;
}

const char *rs_iscsi_opcode_name(uint8_t op)
{
	switch (op) {
	case RS_ISCSI_NOP_OUT: return "NOP-Out";
	case RS_ISCSI_SCSI_CMD: return "SCSI Command";
	case RS_ISCSI_TMF_REQ: return "Task Management Request";
	case RS_ISCSI_LOGIN_REQ: return "Login Request";
	case RS_ISCSI_TEXT_REQ: return "Text Request";
	case RS_ISCSI_DATA_OUT: return "SCSI Data-Out";
	case RS_ISCSI_LOGOUT_REQ: return "Logout Request";
	case RS_ISCSI_SNACK: return "SNACK Request";
	case RS_ISCSI_NOP_IN: return "NOP-In";
	case RS_ISCSI_SCSI_RSP: return "SCSI Response";
	case RS_ISCSI_TMF_RSP: return "Task Management Response";
	case RS_ISCSI_LOGIN_RSP: return "Login Response";
	case RS_ISCSI_TEXT_RSP: return "Text Response";
	case RS_ISCSI_DATA_IN: return "SCSI Data-In";
	case RS_ISCSI_LOGOUT_RSP: return "Logout Response";
	case RS_ISCSI_R2T: return "Ready To Transfer";
	case RS_ISCSI_ASYNC: return "Asynchronous Message";
	case RS_ISCSI_REJECT: return "Reject";
	default: return "";
	}
}

/* SPC-4 / SBC-3 operation codes a disk sees. */
const char *rs_scsi_cdb_name(uint8_t op)
{
	switch (op) {
	case 0x00: return "TEST UNIT READY";
	case 0x03: return "REQUEST SENSE";
	case 0x08: return "READ(6)";
	case 0x0a: return "WRITE(6)";
	case 0x12: return "INQUIRY";
	case 0x15: return "MODE SELECT(6)";
	case 0x1a: return "MODE SENSE(6)";
	case 0x1b: return "START STOP UNIT";
	case 0x1e: return "PREVENT ALLOW MEDIUM REMOVAL";
	case 0x25: return "READ CAPACITY(10)";
	case 0x28: return "READ(10)";
	case 0x2a: return "WRITE(10)";
	case 0x2e: return "WRITE AND VERIFY(10)";
	case 0x2f: return "VERIFY(10)";
	case 0x35: return "SYNCHRONIZE CACHE(10)";
	case 0x41: return "WRITE SAME(10)";
	case 0x42: return "UNMAP";
	case 0x4d: return "LOG SENSE";
	case 0x55: return "MODE SELECT(10)";
	case 0x5a: return "MODE SENSE(10)";
	case 0x5e: return "PERSISTENT RESERVE IN";
	case 0x5f: return "PERSISTENT RESERVE OUT";
	case 0x83: return "EXTENDED COPY";
	case 0x88: return "READ(16)";
	case 0x89: return "COMPARE AND WRITE";
	case 0x8a: return "WRITE(16)";
	case 0x8e: return "WRITE AND VERIFY(16)";
	case 0x8f: return "VERIFY(16)";
	case 0x91: return "SYNCHRONIZE CACHE(16)";
	case 0x93: return "WRITE SAME(16)";
	case 0x9e: return "SERVICE ACTION IN(16)";
	case 0xa0: return "REPORT LUNS";
	case 0xa3: return "MAINTENANCE IN";
	case 0xa8: return "READ(12)";
	case 0xaa: return "WRITE(12)";
	default: return "";
	}
}

const char *rs_scsi_status_name(uint8_t s)
{
	switch (s) {
	case 0x00: return "GOOD";
	case 0x02: return "CHECK CONDITION";
	case 0x04: return "CONDITION MET";
	case 0x08: return "BUSY";
	case 0x18: return "RESERVATION CONFLICT";
	case 0x28: return "TASK SET FULL";
	case 0x30: return "ACA ACTIVE";
	case 0x40: return "TASK ABORTED";
	default: return "";
	}
}

const char *rs_scsi_sense_key_name(uint8_t key)
{
	static const char *const names[16] = {
		"NO SENSE", "RECOVERED ERROR", "NOT READY", "MEDIUM ERROR", "HARDWARE ERROR",
		"ILLEGAL REQUEST", "UNIT ATTENTION", "DATA PROTECT", "BLANK CHECK", "VENDOR SPECIFIC",
		"COPY ABORTED", "ABORTED COMMAND", "", "VOLUME OVERFLOW", "MISCOMPARE", "COMPLETED",
	};
	return names[key & 0x0F];
}

const char *rs_iser_outcome_name(enum rs_iser_outcome o)
{
	switch (o) {
	case RS_ISER_NOT: return "not iSER";
	case RS_ISER_OK: return "ok";
	case RS_ISER_TRUNCATED: return "truncated";
	case RS_ISER_MALFORMED: return "malformed";
	case RS_ISER_UNSUPPORTED: return "unsupported";
	default: return "";
	}
}

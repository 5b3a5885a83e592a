/*
 * nvmeof_dissect.c — NVMe over Fabrics capsules in RDMA SENDs, and the
 * names of their opcodes and statuses.
 *
 * NVMe-oF over RDMA (NVMe over Fabrics 1.1, 7.3 and the RDMA transport
 * binding, 7.3.2): the host SENDs a command capsule to the target's queue
 * and the target SENDs a response capsule back; data moves either inside
 * the command capsule (SGL data block, sub type Offset) or by the target's
 * RDMA READ (host to controller) and RDMA WRITE (controller to host) with
 * the key of a keyed SGL data block. Every field is little-endian.
 *
 * Command capsule: the 64-byte submission queue entry (NVMe 1.4 4.2),
 * then in-capsule data:
 *   0 Opcode | 1 FUSE(2) rsv(4) PSDT(2) | 2 Command Identifier(16)
 *   4 NSID(32)            (Fabrics commands: 4 FCTYPE(8), rest reserved)
 *   8 CDW2 | 12 CDW3 | 16 MPTR(64)
 *   24 SGL1 (16 bytes, NVMe 1.4 4.4):
 *        keyed data block:  24 Address(64) | 32 Length(24) | 35 Key(32) | 39 Type(4) SubType(4)
 *        data block:        24 Address(64) | 32 Length(32) | 36 rsv(24)  | 39 Type(4) SubType(4)
 *   40 CDW10 | 44 CDW11 | 48 CDW12 | 52 CDW13 | 56 CDW14 | 60 CDW15
 *   (Connect: 40 RECFMT(16) | 42 QID(16) | 44 SQSIZE(16) | 46 CATTR | 48 KATO(32))
 * Response capsule: the 16-byte completion queue entry (NVMe 1.4 4.6):
 *   0 DW0 | 4 DW1 | 8 SQ Head Pointer(16) | 10 SQ Identifier(16)
 *   12 Command Identifier(16) | 14 Phase(1) Status Field(15): SC(8) SCT(3) CRD(2) M(1) DNR(1)
 *
 * A command capsule is told by its size (64 bytes or more) and its flags:
 * NVMe-oF requires SGLs (PSDT 01b or 10b), and the reserved bits are zero.
 * A response capsule is any 16-byte SEND: only the connection's protocol,
 * which the analyzer knows, says it is one.
 */
#include "proto/nvmeof/nvmeof_dissect.h"

static void decode_sqe(struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_nvme *n)
{
	n->opcode = rs_cur_u8(c);
	n->flags = rs_cur_u8(c);
	n->cid = rs_cur_le16(c);
	n->nsid = rs_cur_le32(c);
	n->fctype = (uint8_t)n->nsid;
	rs_cur_skip(c, 16); /* CDW2, CDW3, MPTR */
	n->sgl_addr = rs_cur_le32(c);
	n->sgl_addr |= (uint64_t)rs_cur_le32(c) << 32;
	uint32_t len = rs_cur_le32(c);
	uint32_t key = rs_cur_le16(c);
	key |= (uint32_t)rs_cur_u8(c) << 16;
	n->sgl_id = rs_cur_u8(c);
	if (rs_nvme_keyed(n)) {
		n->sgl_len = len & 0xFFFFFF;
		n->sgl_key = len >> 24 | key << 8;
	} else {
		n->sgl_len = len;
	}
	n->cdw10 = rs_cur_le32(c);
	n->cdw11 = rs_cur_le32(c);
	n->cdw12 = rs_cur_le32(c);
	if (n->opcode == RS_NVME_FABRICS_OPC && n->fctype == 0x01)
		n->connect_qid = (uint16_t)(n->cdw10 >> 16);
	n->incapsule = wire_len - RS_NVME_SQE_LEN;
	/* A SEND First carries only the start of the in-capsule data. */
	if (whole && rs_nvme_incapsule(n) && (uint64_t)n->sgl_addr + n->sgl_len > n->incapsule) {
		n->state = RS_NVME_BAD;
		n->why = "its in-capsule SGL reaches past the data the capsule carries";
	}
}

static void decode_cqe(struct rs_cursor *c, struct rs_nvme *n)
{
	n->dw0 = rs_cur_le32(c);
	n->dw1 = rs_cur_le32(c);
	n->sqhd = rs_cur_le16(c);
	n->sqid = rs_cur_le16(c);
	n->cid = rs_cur_le16(c);
	uint16_t sf = rs_cur_le16(c);
	n->phase = sf & 1;
	n->status = sf >> 1;
}

void rs_nvmeof_decode(struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_nvme *n)
{
	*n = (struct rs_nvme){ 0 };
	if (wire_len == RS_NVME_CQE_LEN && whole) {
		n->kind = RS_NVME_RSP;
		decode_cqe(c, n);
	} else if (wire_len >= RS_NVME_SQE_LEN) {
		if (!rs_cur_has(c, 2))
			return; /* nothing says it is a capsule */
		uint8_t flags = c->base[c->off + 1];
		uint8_t psdt = flags >> 6;
		if ((flags & 0x3C) || (psdt != 1 && psdt != 2))
			return;
		n->kind = RS_NVME_CMD;
		decode_sqe(c, wire_len, whole, n);
	} else {
		return;
	}
	if (c->overrun)
		n->state = RS_NVME_CUT;
}

/* ---- names -------------------------------------------------------------- */

const char *rs_nvme_admin_opc_name(uint8_t opc)
{
	switch (opc) {
	case 0x00: return "Delete I/O SQ";
	case 0x01: return "Create I/O SQ";
	case 0x02: return "Get Log Page";
	case 0x04: return "Delete I/O CQ";
	case 0x05: return "Create I/O CQ";
	case 0x06: return "Identify";
	case 0x08: return "Abort";
	case 0x09: return "Set Features";
	case 0x0A: return "Get Features";
	case 0x0C: return "Asynchronous Event Request";
	case 0x0D: return "Namespace Management";
	case 0x10: return "Firmware Commit";
	case 0x11: return "Firmware Image Download";
	case 0x14: return "Device Self-test";
	case 0x15: return "Namespace Attachment";
	case 0x18: return "Keep Alive";
	case 0x19: return "Directive Send";
	case 0x1A: return "Directive Receive";
	case 0x7F: return "Fabrics";
	case 0x80: return "Format NVM";
	case 0x81: return "Security Send";
	case 0x82: return "Security Receive";
	case 0x84: return "Sanitize";
	default: return "";
	}
}

const char *rs_nvme_io_opc_name(uint8_t opc)
{
	switch (opc) {
	case 0x00: return "Flush";
	case 0x01: return "Write";
	case 0x02: return "Read";
	case 0x04: return "Write Uncorrectable";
	case 0x05: return "Compare";
	case 0x08: return "Write Zeroes";
	case 0x09: return "Dataset Management";
	case 0x0C: return "Verify";
	case 0x0D: return "Reservation Register";
	case 0x0E: return "Reservation Report";
	case 0x11: return "Reservation Acquire";
	case 0x15: return "Reservation Release";
	case 0x7F: return "Fabrics";
	default: return "";
	}
}

const char *rs_nvme_fctype_name(uint8_t fctype)
{
	switch (fctype) {
	case 0x00: return "Property Set";
	case 0x01: return "Connect";
	case 0x04: return "Property Get";
	case 0x05: return "Authentication Send";
	case 0x06: return "Authentication Receive";
	case 0x08: return "Disconnect";
	default: return "";
	}
}

const char *rs_nvme_status_name(uint16_t status)
{
	if (rs_nvme_sct(status) != 0)
		return "";
	switch (rs_nvme_sc(status)) {
	case 0x00: return "Successful Completion";
	case 0x01: return "Invalid Command Opcode";
	case 0x02: return "Invalid Field in Command";
	case 0x03: return "Command ID Conflict";
	case 0x04: return "Data Transfer Error";
	case 0x05: return "Commands Aborted due to Power Loss Notification";
	case 0x06: return "Internal Error";
	case 0x07: return "Command Abort Requested";
	case 0x08: return "Command Aborted due to SQ Deletion";
	case 0x0B: return "Invalid Namespace or Format";
	case 0x0D: return "Invalid SGL Segment Descriptor";
	case 0x0F: return "Data SGL Length Invalid";
	case 0x11: return "SGL Descriptor Type Invalid";
	case 0x80: return "LBA Out of Range";
	case 0x81: return "Capacity Exceeded";
	case 0x82: return "Namespace Not Ready";
	default: return "";
	}
}

/*
 * iser_dissect.h — the iSER header (RFC 7145 9.2) and the iSCSI PDU inside
 * it (RFC 7143 11), as one RDMA SEND carries them.
 *
 * iSER puts every iSCSI control-type PDU (commands, responses, login, text,
 * NOP, logout, task management) in one SEND message: a 28-byte iSER header,
 * the 48-byte Basic Header Segment, any Additional Header Segments and the
 * data segment, padded to 4 bytes, no digests. Data moves by the target's
 * RDMA READ (to it) and RDMA WRITE (from it) against the STag and address
 * the initiator put in the iSER header of the command.
 *
 * The decoder reads the first packet of a SEND message (Only or First): a
 * First holds the headers but not the whole data segment. Pure: no
 * allocation, no globals, no printing; every read through dissect/cursor.h.
 */
#ifndef RS_PROTO_ISER_DISSECT_H
#define RS_PROTO_ISER_DISSECT_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/cursor.h"

#define RS_ISER_HDR_LEN 28
#define RS_ISCSI_BHS_LEN 48

/* What the decoder made of the bytes. */
enum rs_iser_outcome {
	RS_ISER_NOT = 0,     /* does not look like iSER (reserved bits set, too short on the wire) */
	RS_ISER_OK,
	RS_ISER_TRUNCATED,   /* the capture stopped inside the headers: fields past it read 0 */
	RS_ISER_MALFORMED,   /* a length field contradicts the packet */
	RS_ISER_UNSUPPORTED, /* an iSER or iSCSI opcode this decoder does not know */
	RS_ISER__OUTCOMES
};

/* iSER opcodes (the high nibble of the first byte). */
enum rs_iser_op { RS_ISER_OP_CONTROL = 0x1, RS_ISER_OP_HELLO = 0x2, RS_ISER_OP_HELLO_REPLY = 0x3 };

/* iSCSI opcodes (RFC 7143 11.2.1.2). */
enum rs_iscsi_op {
	RS_ISCSI_NOP_OUT = 0x00, RS_ISCSI_SCSI_CMD = 0x01, RS_ISCSI_TMF_REQ = 0x02, RS_ISCSI_LOGIN_REQ = 0x03,
	RS_ISCSI_TEXT_REQ = 0x04, RS_ISCSI_DATA_OUT = 0x05, RS_ISCSI_LOGOUT_REQ = 0x06, RS_ISCSI_SNACK = 0x10,
	RS_ISCSI_NOP_IN = 0x20, RS_ISCSI_SCSI_RSP = 0x21, RS_ISCSI_TMF_RSP = 0x22, RS_ISCSI_LOGIN_RSP = 0x23,
	RS_ISCSI_TEXT_RSP = 0x24, RS_ISCSI_DATA_IN = 0x25, RS_ISCSI_LOGOUT_RSP = 0x26, RS_ISCSI_R2T = 0x31,
	RS_ISCSI_ASYNC = 0x32, RS_ISCSI_REJECT = 0x3f,
};

/* SCSI Command flags (byte 1). */
#define RS_ISCSI_F 0x80
#define RS_ISCSI_CMD_R 0x40
#define RS_ISCSI_CMD_W 0x20
/* SCSI Response flags (byte 1): residual overflow / underflow. */
#define RS_ISCSI_RSP_O 0x04
#define RS_ISCSI_RSP_U 0x02

#define RS_SCSI_STATUS_GOOD 0x00
#define RS_SCSI_STATUS_CHECK_CONDITION 0x02

struct rs_iser {
	uint8_t outcome;        /* enum rs_iser_outcome */
	const char *why;        /* MALFORMED / UNSUPPORTED: a static sentence */
	/* iSER header */
	uint8_t iser_op;        /* enum rs_iser_op */
	uint8_t iser_flags;     /* the whole first byte */
	bool wsv, rsv;          /* write / read STag valid */
	uint32_t write_stag, read_stag;
	uint64_t write_va, read_va;
	/* Hello / HelloReply */
	uint8_t max_ver, min_ver; /* HelloReply: min_ver holds the current version */
	bool rej;
	uint16_t ird_ord;       /* Hello: iSER-IRD; HelloReply: iSER-ORD */
	/* iSCSI Basic Header Segment (control-type PDUs only) */
	bool has_bhs;
	uint8_t opcode;         /* enum rs_iscsi_op */
	bool immediate;
	uint8_t flags;          /* byte 1 */
	uint8_t ahs_words;      /* TotalAHSLength, in 4-byte words */
	uint32_t dsl;           /* DataSegmentLength */
	uint64_t lun;           /* bytes 8-15 (opcode-specific where there is no LUN) */
	uint32_t itt;           /* Initiator Task Tag */
	uint32_t ttt;           /* Target Transfer Tag (NOP, R2T, Data-Out/In, Text) */
	uint32_t cmdsn, statsn; /* CmdSN of requests; StatSN of responses */
	uint32_t exp_sn;        /* ExpStatSN of requests; ExpCmdSN of responses */
	/* SCSI Command */
	uint32_t edtl;          /* Expected Data Transfer Length */
	uint8_t cdb_op;         /* CDB byte 0 */
	uint8_t cdb_len;        /* 16, or more with an Extended CDB AHS */
	uint64_t lba;           /* READ/WRITE(6/10/12/16): logical block address */
	uint32_t blocks;        /* READ/WRITE(6/10/12/16): transfer length in blocks */
	/* SCSI Response, Login/Logout/TMF responses */
	uint8_t response;       /* SCSI Response: iSCSI service response; Logout/TMF: Response */
	uint8_t status;         /* SCSI status */
	uint32_t residual;
	uint8_t login_class, login_detail; /* Login Response: Status-Class, Status-Detail */
	bool has_sense;
	uint16_t sense_len;
	uint8_t sense_key, asc, ascq;
	/* bytes after the headers in this packet (wire length) */
	uint32_t data_here;
};

/*
 * Decode the payload of a SEND at `c` (captured bytes), `wire_len` bytes on
 * the wire. `whole`: the packet is the whole message (SEND Only), so the
 * lengths the PDU claims must fit in it; otherwise (SEND First) only the
 * headers need to. Returns r->outcome.
 */
enum rs_iser_outcome rs_iser_decode(struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_iser *r);

/* The CDB opcode reads (RDMA WRITE from the target) or writes data. */
bool rs_scsi_is_read(uint8_t cdb_op);
bool rs_scsi_is_write(uint8_t cdb_op);

/* Names; never NULL ("" if unknown). */
const char *rs_iscsi_opcode_name(uint8_t op);
const char *rs_scsi_cdb_name(uint8_t cdb_op);
const char *rs_scsi_status_name(uint8_t status);
const char *rs_scsi_sense_key_name(uint8_t key);
const char *rs_iser_outcome_name(enum rs_iser_outcome o);

#endif

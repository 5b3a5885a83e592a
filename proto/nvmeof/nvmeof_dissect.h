/*
 * nvmeof_dissect.h — NVMe over Fabrics capsules carried in RDMA SENDs (NVMe over
 * Fabrics 1.1 section 7.3, NVMe-oF RDMA transport binding): the decoder
 * of the NVMe-oF module and the names of its opcodes and statuses.
 *
 * The dissector cannot know whether a SEND belongs to an NVMe-oF queue (only
 * the CM REQ of its connection, frames before, says so): it decodes every RC
 * SEND that looks like a capsule (a command: 64 bytes or more whose flags
 * say SGL; a response: exactly 16 bytes) into struct rs_nvme, and the
 * analyzer, which knows the connection's protocol, decides whether to use it.
 */
#ifndef RS_PROTO_NVMEOF_DISSECT_H
#define RS_PROTO_NVMEOF_DISSECT_H

#include <stdbool.h>
#include <stdint.h>

#include "dissect/cursor.h"

#define RS_NVME_SQE_LEN 64  /* a command capsule's submission queue entry */
#define RS_NVME_CQE_LEN 16  /* a response capsule's completion queue entry */
#define RS_NVME_FABRICS_OPC 0x7F

enum rs_nvme_kind { RS_NVME_NONE = 0, RS_NVME_CMD, RS_NVME_RSP };

/* How much of the capsule could be read. */
enum rs_nvme_state {
	RS_NVME_OK = 0,
	RS_NVME_CUT,       /* the capture stopped inside the SQE/CQE: the fields past caplen read 0 */
	RS_NVME_BAD,       /* a field contradicts the packet (an in-capsule SGL longer than the data after the SQE) */
};

/* SGL descriptor types (NVMe 1.4 4.4, Figure 116) rocestat names. */
enum rs_nvme_sgl {
	RS_SGL_DATA = 0x0,     /* data block: with sub type 1 (offset) the data is in the capsule */
	RS_SGL_SEGMENT = 0x2,
	RS_SGL_LAST_SEGMENT = 0x3,
	RS_SGL_KEYED = 0x4,    /* keyed data block: host memory the target reaches by RDMA with the key */
};

struct rs_nvme {
	uint8_t kind;          /* enum rs_nvme_kind (candidate: see above) */
	uint8_t state;         /* enum rs_nvme_state */
	const char *why;       /* RS_NVME_BAD: a static sentence */
	/* Command (SQE): */
	uint8_t opcode, flags; /* flags: FUSE bits 1:0, PSDT bits 7:6 */
	uint8_t fctype;        /* opcode 0x7F (Fabrics): the command type (byte 4) */
	uint16_t cid;
	uint32_t nsid;         /* bytes 4-7 (not a namespace for Fabrics commands) */
	uint8_t sgl_id;        /* SGL1 identifier: type << 4 | sub type */
	uint64_t sgl_addr;
	uint32_t sgl_len;      /* keyed: 24 bits */
	uint32_t sgl_key;      /* keyed only */
	uint32_t cdw10, cdw11, cdw12;
	uint16_t connect_qid;  /* Fabrics Connect: the queue it creates (cdw10 bits 31:16) */
	uint32_t incapsule;    /* bytes after the SQE in this packet (wire length; a SEND First's: part of them) */
	/* Response (CQE): */
	uint32_t dw0, dw1;
	uint16_t sqhd, sqid;
	uint16_t status;       /* the Status Field without the phase bit: SC bits 7:0, SCT 10:8, DNR 14 */
	uint8_t phase;
};

static inline uint8_t rs_nvme_sgl_type(const struct rs_nvme *n) { return n->sgl_id >> 4; }
static inline bool rs_nvme_keyed(const struct rs_nvme *n) { return rs_nvme_sgl_type(n) == RS_SGL_KEYED; }
static inline bool rs_nvme_incapsule(const struct rs_nvme *n)
{
	return rs_nvme_sgl_type(n) == RS_SGL_DATA && (n->sgl_id & 0xF) == 1;
}
static inline uint8_t rs_nvme_sc(uint16_t status) { return status & 0xFF; }
static inline uint8_t rs_nvme_sct(uint16_t status) { return (status >> 8) & 7; }
/* A command kind in 16 bits (the verdicts' ulp_op; rs_nvme_op_name names
 * it): the opcode in the low byte, above it a Fabrics command's type or
 * else the queue (1 admin, 2 I/O, 0 not known), whose command sets differ. */
static inline uint16_t rs_nvme_op_code(uint8_t opcode, uint8_t fctype, bool queue_known, bool admin)
{
	unsigned hi = opcode == RS_NVME_FABRICS_OPC ? fctype : queue_known ? (admin ? 1u : 2u) : 0u;
	return (uint16_t)(hi << 8 | opcode);
}

/*
 * Decode the payload of an RC SEND at `c` (over the captured bytes),
 * `wire_len` bytes long on the wire, as a capsule if it looks like one;
 * n->kind stays RS_NVME_NONE if not. `whole`: the SEND is a whole message
 * (Only), not the First packet of one. Pure.
 */
void rs_nvmeof_decode(struct rs_cursor *c, uint32_t wire_len, bool whole, struct rs_nvme *n);

/* Names for humans; never NULL ("" if unknown). */
const char *rs_nvme_admin_opc_name(uint8_t opc);
const char *rs_nvme_io_opc_name(uint8_t opc);
const char *rs_nvme_fctype_name(uint8_t fctype);
const char *rs_nvme_status_name(uint16_t status); /* generic SCT 0 codes; "" otherwise */

#endif

/*
 * opcodes.h — BTH opcodes and what each one carries.
 *
 * The base opcodes (RC, UC, RD, UD) come from rdma-core's
 * <infiniband/opcode.h>. That header stops at IBA 1.2's base set, so the
 * ones it lacks are named here, each with the clause that defines it:
 *
 *   0x16/0x17  SEND Last/Only with Invalidate (IETH)   IBA 1.2.1 vol 1, 9.2 Table 38
 *   0x15       RD RESYNC (RDETH, DETH)                   IBA vol 1, 9.2 Table 38
 *   0x1C       FLUSH (FETH, RETH)                        IBA 1.5 Memory Placement
 *   0x1D       ATOMIC WRITE (RETH, 8-byte payload)         Extensions (2021), Table 38
 *   0x80       CNP, native IB congestion control          IBA 1.3 vol 1 Annex A10.3.2
 *   0x81       CNP, RoCE v2 (16 reserved bytes)           IBA Annex A17 (RoCEv2) 17.9.3
 *   0xA0-0xBD  XRC: RC operations with an XRCETH          IBA 1.2.1 vol 1 Annex A14.5
 *   0xC0-0xDF  reserved (transport bits 110)               IBA vol 1, 9.2 Table 37
 *   0xE0-0xFF  manufacturer specific (transport bits 111)  IBA vol 1, 9.2 Table 37
 */
#ifndef RS_OPCODES_H
#define RS_OPCODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/opcode.h>

/* Transport bits [7:5] of the opcode (IBA 9.2 Table 38). */
enum rs_transport {
	RS_TR_RC = IBV_OPCODE_RC,   /* 0x00 */
	RS_TR_UC = IBV_OPCODE_UC,   /* 0x20 */
	RS_TR_RD = IBV_OPCODE_RD,   /* 0x40 */
	RS_TR_UD = IBV_OPCODE_UD,   /* 0x60 */
	RS_TR_CNP = 0x80,           /* Annex A10 / A17 */
	RS_TR_XRC = 0xA0,           /* Annex A14 */
	RS_TR_RESERVED = 0xC0,      /* 0xC0-0xDF: reserved */
	RS_TR_MSP = 0xE0,           /* manufacturer specific, 0xE0-0xFF (Linux: IB_OPCODE_MSP) */
};

/* Operation codes [4:0] that <infiniband/opcode.h> does not name. */
enum {
	RS_OPCODE_RESYNC = 0x15,                        /* RD only */
	RS_OPCODE_SEND_LAST_WITH_INVALIDATE = 0x16,
	RS_OPCODE_SEND_ONLY_WITH_INVALIDATE = 0x17,
	RS_OPCODE_FLUSH = 0x1C,
	RS_OPCODE_ATOMIC_WRITE = 0x1D,
};

/* Whole opcodes that <infiniband/opcode.h> does not name. */
enum {
	RS_OP_RC_SEND_LAST_WITH_INVALIDATE = IBV_OPCODE_RC + RS_OPCODE_SEND_LAST_WITH_INVALIDATE,
	RS_OP_RC_SEND_ONLY_WITH_INVALIDATE = IBV_OPCODE_RC + RS_OPCODE_SEND_ONLY_WITH_INVALIDATE,
	RS_OP_RC_FLUSH = IBV_OPCODE_RC + RS_OPCODE_FLUSH,
	RS_OP_RC_ATOMIC_WRITE = IBV_OPCODE_RC + RS_OPCODE_ATOMIC_WRITE,
	RS_OP_RD_RESYNC = IBV_OPCODE_RD + RS_OPCODE_RESYNC,
	RS_OP_RD_FLUSH = IBV_OPCODE_RD + RS_OPCODE_FLUSH,
	RS_OP_RD_ATOMIC_WRITE = IBV_OPCODE_RD + RS_OPCODE_ATOMIC_WRITE,
	RS_OP_CNP_IB = 0x80,   /* IBA Annex A10.3.2: BTH only, BECN set */
	RS_OP_CNP_ROCE = 0x81, /* IBA Annex A17.9.3: BTH + 16 reserved bytes */
	RS_OP_XRC_FIRST = RS_TR_XRC,
	RS_OP_XRC_SEND_ONLY = RS_TR_XRC + IBV_OPCODE_SEND_ONLY,
	RS_OP_XRC_SEND_ONLY_WITH_INVALIDATE = RS_TR_XRC + RS_OPCODE_SEND_ONLY_WITH_INVALIDATE,
	RS_OP_XRC_FLUSH = RS_TR_XRC + RS_OPCODE_FLUSH,
	RS_OP_XRC_ATOMIC_WRITE = RS_TR_XRC + RS_OPCODE_ATOMIC_WRITE, /* 0xBD, last XRC opcode */
};

/* Extension headers, in the order they follow the BTH (IBA 9.2 Table 38). */
enum rs_ext {
	RS_EXT_RDETH = 1u << 0,
	RS_EXT_DETH = 1u << 1,
	RS_EXT_XRCETH = 1u << 2,
	RS_EXT_FETH = 1u << 3,
	RS_EXT_RETH = 1u << 4,
	RS_EXT_ATOMICETH = 1u << 5,
	RS_EXT_AETH = 1u << 6,
	RS_EXT_ATOMICACKETH = 1u << 7,
	RS_EXT_IMMDT = 1u << 8,
	RS_EXT_IETH = 1u << 9,
	RS_EXT_CNP = 1u << 10,     /* the 16 reserved bytes of a RoCE v2 CNP */
	RS_EXT_PAYLOAD = 1u << 11, /* the opcode carries a data payload */
};

/* What an opcode means to someone reassembling messages. */
enum rs_op_kind {
	RS_KIND_NONE = 0,
	RS_KIND_SEND,
	RS_KIND_SEND_IMM,
	RS_KIND_SEND_INV,
	RS_KIND_WRITE,
	RS_KIND_WRITE_IMM,
	RS_KIND_READ_REQ,
	RS_KIND_READ_RESP,
	RS_KIND_ACK,
	RS_KIND_ATOMIC_ACK,
	RS_KIND_CMP_SWAP,
	RS_KIND_FETCH_ADD,
	RS_KIND_ATOMIC_WRITE,
	RS_KIND_FLUSH,
	RS_KIND_RESYNC,
	RS_KIND_CNP,
	RS_KIND__COUNT
};

/* Position of a packet within a multi-packet message. */
enum rs_op_pos {
	RS_POS_NONE = 0, /* single-packet operation that is not a message (ACK, CNP) */
	RS_POS_FIRST,
	RS_POS_MIDDLE,
	RS_POS_LAST,
	RS_POS_ONLY,
};

struct rs_opinfo {
	const char *name;   /* "RC_RDMA_WRITE_FIRST": rdma-core's constant without IBV_OPCODE_ */
	const char *pretty; /* "RC RDMA WRITE First" */
	uint16_t ext;       /* RS_EXT_* carried after the BTH */
	uint8_t kind;       /* enum rs_op_kind */
	uint8_t pos;        /* enum rs_op_pos */
	bool defined;       /* false: reserved or manufacturer specific */
	bool response;      /* sent by the responder (READ response, ACK, atomic ACK) */
};

/* The table (opcodes.c), indexed by opcode; an entry without a name is a
 * reserved or manufacturer-specific opcode: rs_opinfo() answers those. */
extern const struct rs_opinfo rs_opinfo_table[256];
const struct rs_opinfo *rs_opinfo_undefined(uint8_t opcode);

/* The table entry for any of the 256 opcodes; never NULL. Inline: the
 * dissector and the analyzer look a frame's opcode up half a dozen times,
 * and as a call each lookup cost more than the load it is. */
static inline const struct rs_opinfo *rs_opinfo(uint8_t opcode)
{
	const struct rs_opinfo *op = &rs_opinfo_table[opcode];
	return op->name ? op : rs_opinfo_undefined(opcode);
}

/* A SEND (plain, with immediate or with invalidate) that starts a
 * message: its First or Only packet (IBA 9.4.3). */
static inline bool rs_op_send_starts(const struct rs_opinfo *op)
{
	return (op->kind == RS_KIND_SEND || op->kind == RS_KIND_SEND_IMM || op->kind == RS_KIND_SEND_INV) &&
	       (op->pos == RS_POS_FIRST || op->pos == RS_POS_ONLY);
}
/* "RC", "UC", "RD", "UD", "CNP", "XRC", "MSP" (0xE0-0xFF) or "reserved" (0xC0-0xDF). */
const char *rs_transport_name(uint8_t opcode);
/* The name of an NVIDIA DC packet's opcode (the RD range with the DC
 * header, RS_HAVE_DC): the RC operation of the same low bits, as
 * "DC_RDMA_WRITE_ONLY"; "DC_CONNECT" for 0x55. Written into buf. */
const char *rs_dc_opname(uint8_t opcode, char *buf, size_t len);
/* "send", "write", ... as used in reports; "" for RS_KIND_NONE. */
const char *rs_kind_name(enum rs_op_kind kind);

#endif

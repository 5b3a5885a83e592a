/*
 * opcodes.c — the BTH opcode table (IBA vol 1, 9.2 Table 38 "Packet header
 * fields by opcode"), extended with the opcodes named in opcodes.h.
 *
 * Each transport reuses the same operation codes in bits [4:0]; what differs
 * is the headers every packet of that transport carries before the
 * operation's own ones:
 *
 *   RC   requests: -               responses: -
 *   UC   requests: -               (no responses)
 *   RD   requests: RDETH, DETH     responses: RDETH
 *   UD   requests: DETH            (no responses)
 *   XRC  requests: XRCETH          responses: -
 *
 * The extension bits are ordered as the headers appear on the wire, so a
 * decoder walks the set bits from low to high.
 */
#include <stdio.h>

#include "dissect/opcodes.h"

#define PL RS_EXT_PAYLOAD

#define ENTRY(nm, pr, x, k, p, resp) { nm, pr, (uint16_t)(x), RS_KIND_##k, RS_POS_##p, true, resp }

/* SEND and RDMA WRITE: every connected and reliable-datagram transport. */
#define SEND_WRITE_OPS(T, N, REQ)                                                              \
	[T + IBV_OPCODE_SEND_FIRST] = ENTRY(N "_SEND_FIRST", N " SEND First", REQ | PL, SEND, FIRST, false), \
	[T + IBV_OPCODE_SEND_MIDDLE] = ENTRY(N "_SEND_MIDDLE", N " SEND Middle", REQ | PL, SEND, MIDDLE, false), \
	[T + IBV_OPCODE_SEND_LAST] = ENTRY(N "_SEND_LAST", N " SEND Last", REQ | PL, SEND, LAST, false), \
	[T + IBV_OPCODE_SEND_LAST_WITH_IMMEDIATE] = ENTRY(N "_SEND_LAST_WITH_IMMEDIATE",                   \
		N " SEND Last with Immediate", REQ | RS_EXT_IMMDT | PL, SEND_IMM, LAST, false),                \
	[T + IBV_OPCODE_SEND_ONLY] = ENTRY(N "_SEND_ONLY", N " SEND Only", REQ | PL, SEND, ONLY, false),    \
	[T + IBV_OPCODE_SEND_ONLY_WITH_IMMEDIATE] = ENTRY(N "_SEND_ONLY_WITH_IMMEDIATE",                   \
		N " SEND Only with Immediate", REQ | RS_EXT_IMMDT | PL, SEND_IMM, ONLY, false),                \
	[T + IBV_OPCODE_RDMA_WRITE_FIRST] = ENTRY(N "_RDMA_WRITE_FIRST", N " RDMA WRITE First",            \
		REQ | RS_EXT_RETH | PL, WRITE, FIRST, false),                                                   \
	[T + IBV_OPCODE_RDMA_WRITE_MIDDLE] = ENTRY(N "_RDMA_WRITE_MIDDLE", N " RDMA WRITE Middle",         \
		REQ | PL, WRITE, MIDDLE, false),                                                                \
	[T + IBV_OPCODE_RDMA_WRITE_LAST] = ENTRY(N "_RDMA_WRITE_LAST", N " RDMA WRITE Last",               \
		REQ | PL, WRITE, LAST, false),                                                                  \
	[T + IBV_OPCODE_RDMA_WRITE_LAST_WITH_IMMEDIATE] = ENTRY(N "_RDMA_WRITE_LAST_WITH_IMMEDIATE",       \
		N " RDMA WRITE Last with Immediate", REQ | RS_EXT_IMMDT | PL, WRITE_IMM, LAST, false),          \
	[T + IBV_OPCODE_RDMA_WRITE_ONLY] = ENTRY(N "_RDMA_WRITE_ONLY", N " RDMA WRITE Only",               \
		REQ | RS_EXT_RETH | PL, WRITE, ONLY, false),                                                    \
	[T + IBV_OPCODE_RDMA_WRITE_ONLY_WITH_IMMEDIATE] = ENTRY(N "_RDMA_WRITE_ONLY_WITH_IMMEDIATE",       \
		N " RDMA WRITE Only with Immediate", REQ | RS_EXT_RETH | RS_EXT_IMMDT | PL, WRITE_IMM, ONLY, false)

/* READ, ACK and atomics: the reliable transports (RC, RD, XRC). */
#define RELIABLE_OPS(T, N, REQ, RSP)                                                            \
	[T + IBV_OPCODE_RDMA_READ_REQUEST] = ENTRY(N "_RDMA_READ_REQUEST", N " RDMA READ Request",       \
		REQ | RS_EXT_RETH, READ_REQ, ONLY, false),                                                     \
	[T + IBV_OPCODE_RDMA_READ_RESPONSE_FIRST] = ENTRY(N "_RDMA_READ_RESPONSE_FIRST",                  \
		N " RDMA READ Response First", RSP | RS_EXT_AETH | PL, READ_RESP, FIRST, true),                \
	[T + IBV_OPCODE_RDMA_READ_RESPONSE_MIDDLE] = ENTRY(N "_RDMA_READ_RESPONSE_MIDDLE",                \
		N " RDMA READ Response Middle", RSP | PL, READ_RESP, MIDDLE, true),                            \
	[T + IBV_OPCODE_RDMA_READ_RESPONSE_LAST] = ENTRY(N "_RDMA_READ_RESPONSE_LAST",                    \
		N " RDMA READ Response Last", RSP | RS_EXT_AETH | PL, READ_RESP, LAST, true),                  \
	[T + IBV_OPCODE_RDMA_READ_RESPONSE_ONLY] = ENTRY(N "_RDMA_READ_RESPONSE_ONLY",                    \
		N " RDMA READ Response Only", RSP | RS_EXT_AETH | PL, READ_RESP, ONLY, true),                  \
	[T + IBV_OPCODE_ACKNOWLEDGE] = ENTRY(N "_ACKNOWLEDGE", N " Acknowledge", RSP | RS_EXT_AETH,      \
		ACK, NONE, true),                                                                              \
	[T + IBV_OPCODE_ATOMIC_ACKNOWLEDGE] = ENTRY(N "_ATOMIC_ACKNOWLEDGE", N " Atomic Acknowledge",    \
		RSP | RS_EXT_AETH | RS_EXT_ATOMICACKETH, ATOMIC_ACK, NONE, true),                              \
	[T + IBV_OPCODE_COMPARE_SWAP] = ENTRY(N "_COMPARE_SWAP", N " ATOMIC Compare & Swap",             \
		REQ | RS_EXT_ATOMICETH, CMP_SWAP, ONLY, false),                                                \
	[T + IBV_OPCODE_FETCH_ADD] = ENTRY(N "_FETCH_ADD", N " ATOMIC Fetch & Add",                      \
		REQ | RS_EXT_ATOMICETH, FETCH_ADD, ONLY, false),                                               \
	[T + RS_OPCODE_FLUSH] = ENTRY(N "_FLUSH", N " FLUSH", REQ | RS_EXT_FETH | RS_EXT_RETH,           \
		FLUSH, ONLY, false),                                                                           \
	[T + RS_OPCODE_ATOMIC_WRITE] = ENTRY(N "_ATOMIC_WRITE", N " ATOMIC WRITE",                      \
		REQ | RS_EXT_RETH | PL, ATOMIC_WRITE, ONLY, false)

/* SEND with Invalidate: RC and XRC (IBA 9.2 Table 38; 10.7.3.1). */
#define INVALIDATE_OPS(T, N, REQ)                                                               \
	[T + RS_OPCODE_SEND_LAST_WITH_INVALIDATE] = ENTRY(N "_SEND_LAST_WITH_INVALIDATE",                \
		N " SEND Last with Invalidate", REQ | RS_EXT_IETH | PL, SEND_INV, LAST, false),              \
	[T + RS_OPCODE_SEND_ONLY_WITH_INVALIDATE] = ENTRY(N "_SEND_ONLY_WITH_INVALIDATE",                \
		N " SEND Only with Invalidate", REQ | RS_EXT_IETH | PL, SEND_INV, ONLY, false)

#define RD_REQ (RS_EXT_RDETH | RS_EXT_DETH)

const struct rs_opinfo rs_opinfo_table[256] = {
	SEND_WRITE_OPS(IBV_OPCODE_RC, "RC", 0),
	RELIABLE_OPS(IBV_OPCODE_RC, "RC", 0, 0),
	INVALIDATE_OPS(IBV_OPCODE_RC, "RC", 0),

	SEND_WRITE_OPS(IBV_OPCODE_UC, "UC", 0),

	SEND_WRITE_OPS(IBV_OPCODE_RD, "RD", RD_REQ),
	RELIABLE_OPS(IBV_OPCODE_RD, "RD", RD_REQ, RS_EXT_RDETH),
	[RS_OP_RD_RESYNC] = ENTRY("RD_RESYNC", "RD RESYNC", RD_REQ, RESYNC, ONLY, false),

	[IBV_OPCODE_UD_SEND_ONLY] = ENTRY("UD_SEND_ONLY", "UD SEND Only", RS_EXT_DETH | PL, SEND, ONLY, false),
	[IBV_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE] = ENTRY("UD_SEND_ONLY_WITH_IMMEDIATE",
		"UD SEND Only with Immediate", RS_EXT_DETH | RS_EXT_IMMDT | PL, SEND_IMM, ONLY, false),

	[RS_OP_CNP_IB] = ENTRY("CNP_IB", "CNP (InfiniBand congestion notification)", 0, CNP, NONE, false),
	[RS_OP_CNP_ROCE] = ENTRY("CNP", "CNP (RoCE v2 congestion notification)", RS_EXT_CNP, CNP, NONE, false),

	SEND_WRITE_OPS(RS_TR_XRC, "XRC", RS_EXT_XRCETH),
	RELIABLE_OPS(RS_TR_XRC, "XRC", RS_EXT_XRCETH, 0),
	INVALIDATE_OPS(RS_TR_XRC, "XRC", RS_EXT_XRCETH),
};

static const struct rs_opinfo reserved = { "RESERVED", "reserved opcode", 0, RS_KIND_NONE, RS_POS_NONE, false, false };
static const struct rs_opinfo vendor = { "MANUFACTURER_SPECIFIC", "manufacturer-specific opcode", 0, RS_KIND_NONE,
					 RS_POS_NONE, false, false };

const struct rs_opinfo *rs_opinfo_undefined(uint8_t opcode)
{
	return opcode >= RS_TR_MSP ? &vendor : &reserved;
}

const char *rs_dc_opname(uint8_t opcode, char *buf, size_t len)
{
	/* DC carries the RC operations (the DCETH replaces RD's headers); its
	 * connect (0x55) is in no IBTA table: Wireshark's DC dissector names it. */
	if ((opcode & 0x1F) == 0x15) {
		snprintf(buf, len, "DC_CONNECT");
		return buf;
	}
	const struct rs_opinfo *rc = rs_opinfo((uint8_t)(RS_TR_RC | (opcode & 0x1F)));
	if (rc->defined)
		snprintf(buf, len, "DC_%s", rc->name + 3);
	else
		snprintf(buf, len, "DC_0x%02x", opcode);
	return buf;
}

const char *rs_transport_name(uint8_t opcode)
{
	switch (opcode & 0xE0) {
	case RS_TR_RC: return "RC";
	case RS_TR_UC: return "UC";
	case RS_TR_RD: return "RD";
	case RS_TR_UD: return "UD";
	case RS_TR_CNP: return "CNP";
	case RS_TR_XRC: return "XRC";
	case RS_TR_RESERVED: return "reserved";
	default: return "MSP";
	}
}

const char *rs_kind_name(enum rs_op_kind kind)
{
	static const char *const names[RS_KIND__COUNT] = {
		[RS_KIND_NONE] = "",
		[RS_KIND_SEND] = "send",
		[RS_KIND_SEND_IMM] = "send_imm",
		[RS_KIND_SEND_INV] = "send_inv",
		[RS_KIND_WRITE] = "write",
		[RS_KIND_WRITE_IMM] = "write_imm",
		[RS_KIND_READ_REQ] = "read",
		[RS_KIND_READ_RESP] = "read_response",
		[RS_KIND_ACK] = "ack",
		[RS_KIND_ATOMIC_ACK] = "atomic_ack",
		[RS_KIND_CMP_SWAP] = "atomic_cas",
		[RS_KIND_FETCH_ADD] = "atomic_faa",
		[RS_KIND_ATOMIC_WRITE] = "atomic_write",
		[RS_KIND_FLUSH] = "flush",
		[RS_KIND_RESYNC] = "resync",
		[RS_KIND_CNP] = "cnp",
	};
	return (unsigned)kind < RS_KIND__COUNT ? names[kind] : "";
}

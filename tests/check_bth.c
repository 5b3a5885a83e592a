/*
 * check_bth.c — the Base Transport Header (IBA vol 1 9.2) and the opcode
 * table (IBA 9.2 Table 38 "Packet header fields by opcode", with the later
 * additions named in opcodes.h): every one of the 256 opcodes against a
 * table transcribed here from the spec, BTH field decoding, FECN/BECN
 * (Annex A10.2.2 / A17.9), CNPs, and the BTH-level error outcomes
 * (reserved and manufacturer-specific opcodes, TVer, PadCnt, extra bytes,
 * packets too short for their headers).
 *
 * Frames are built from the transport bytes written out below, wrapped in
 * Ethernet/IPv4/UDP 4791 with a correct ICRC by tests/support (rt_wrap_v2).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/rstest.h"

#define X_PL RS_EXT_PAYLOAD
#define X_RDETH RS_EXT_RDETH
#define X_DETH RS_EXT_DETH
#define X_XRCETH RS_EXT_XRCETH
#define X_FETH RS_EXT_FETH
#define X_RETH RS_EXT_RETH
#define X_ATOMICETH RS_EXT_ATOMICETH
#define X_AETH RS_EXT_AETH
#define X_ATOMICACKETH RS_EXT_ATOMICACKETH
#define X_IMMDT RS_EXT_IMMDT
#define X_IETH RS_EXT_IETH
#define X_CNP RS_EXT_CNP

/* IBA Table 38, one row per defined opcode: the headers after the BTH in
 * wire order, what the packet is to a message, and whether the responder
 * sends it. Every opcode not listed is reserved (0x00-0xBF) or
 * reserved (0xC0-0xDF) and manufacturer specific (0xE0-0xFF), Table 37. */
static const struct expect {
	uint8_t op;
	const char *name;
	uint16_t ext;
	uint8_t kind, pos;
	bool response;
} table38[] = {
	/* RC (000): no transport header of its own */
	{ 0x00, "RC_SEND_FIRST", X_PL, RS_KIND_SEND, RS_POS_FIRST, false },
	{ 0x01, "RC_SEND_MIDDLE", X_PL, RS_KIND_SEND, RS_POS_MIDDLE, false },
	{ 0x02, "RC_SEND_LAST", X_PL, RS_KIND_SEND, RS_POS_LAST, false },
	{ 0x03, "RC_SEND_LAST_WITH_IMMEDIATE", X_IMMDT|X_PL, RS_KIND_SEND_IMM, RS_POS_LAST, false },
	{ 0x04, "RC_SEND_ONLY", X_PL, RS_KIND_SEND, RS_POS_ONLY, false },
	{ 0x05, "RC_SEND_ONLY_WITH_IMMEDIATE", X_IMMDT|X_PL, RS_KIND_SEND_IMM, RS_POS_ONLY, false },
	{ 0x06, "RC_RDMA_WRITE_FIRST", X_RETH|X_PL, RS_KIND_WRITE, RS_POS_FIRST, false },
	{ 0x07, "RC_RDMA_WRITE_MIDDLE", X_PL, RS_KIND_WRITE, RS_POS_MIDDLE, false },
	{ 0x08, "RC_RDMA_WRITE_LAST", X_PL, RS_KIND_WRITE, RS_POS_LAST, false },
	{ 0x09, "RC_RDMA_WRITE_LAST_WITH_IMMEDIATE", X_IMMDT|X_PL, RS_KIND_WRITE_IMM, RS_POS_LAST, false },
	{ 0x0A, "RC_RDMA_WRITE_ONLY", X_RETH|X_PL, RS_KIND_WRITE, RS_POS_ONLY, false },
	{ 0x0B, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", X_RETH|X_IMMDT|X_PL, RS_KIND_WRITE_IMM, RS_POS_ONLY, false },
	{ 0x0C, "RC_RDMA_READ_REQUEST", X_RETH, RS_KIND_READ_REQ, RS_POS_ONLY, false },
	{ 0x0D, "RC_RDMA_READ_RESPONSE_FIRST", X_AETH|X_PL, RS_KIND_READ_RESP, RS_POS_FIRST, true },
	{ 0x0E, "RC_RDMA_READ_RESPONSE_MIDDLE", X_PL, RS_KIND_READ_RESP, RS_POS_MIDDLE, true },
	{ 0x0F, "RC_RDMA_READ_RESPONSE_LAST", X_AETH|X_PL, RS_KIND_READ_RESP, RS_POS_LAST, true },
	{ 0x10, "RC_RDMA_READ_RESPONSE_ONLY", X_AETH|X_PL, RS_KIND_READ_RESP, RS_POS_ONLY, true },
	{ 0x11, "RC_ACKNOWLEDGE", X_AETH, RS_KIND_ACK, RS_POS_NONE, true },
	{ 0x12, "RC_ATOMIC_ACKNOWLEDGE", X_AETH|X_ATOMICACKETH, RS_KIND_ATOMIC_ACK, RS_POS_NONE, true },
	{ 0x13, "RC_COMPARE_SWAP", X_ATOMICETH, RS_KIND_CMP_SWAP, RS_POS_ONLY, false },
	{ 0x14, "RC_FETCH_ADD", X_ATOMICETH, RS_KIND_FETCH_ADD, RS_POS_ONLY, false },
	{ 0x16, "RC_SEND_LAST_WITH_INVALIDATE", X_IETH|X_PL, RS_KIND_SEND_INV, RS_POS_LAST, false },
	{ 0x17, "RC_SEND_ONLY_WITH_INVALIDATE", X_IETH|X_PL, RS_KIND_SEND_INV, RS_POS_ONLY, false },
	{ 0x1C, "RC_FLUSH", X_FETH|X_RETH, RS_KIND_FLUSH, RS_POS_ONLY, false },
	{ 0x1D, "RC_ATOMIC_WRITE", X_RETH|X_PL, RS_KIND_ATOMIC_WRITE, RS_POS_ONLY, false },
	/* UC (001): SEND and RDMA WRITE only */
	{ 0x20, "UC_SEND_FIRST", X_PL, RS_KIND_SEND, RS_POS_FIRST, false },
	{ 0x21, "UC_SEND_MIDDLE", X_PL, RS_KIND_SEND, RS_POS_MIDDLE, false },
	{ 0x22, "UC_SEND_LAST", X_PL, RS_KIND_SEND, RS_POS_LAST, false },
	{ 0x23, "UC_SEND_LAST_WITH_IMMEDIATE", X_IMMDT|X_PL, RS_KIND_SEND_IMM, RS_POS_LAST, false },
	{ 0x24, "UC_SEND_ONLY", X_PL, RS_KIND_SEND, RS_POS_ONLY, false },
	{ 0x25, "UC_SEND_ONLY_WITH_IMMEDIATE", X_IMMDT|X_PL, RS_KIND_SEND_IMM, RS_POS_ONLY, false },
	{ 0x26, "UC_RDMA_WRITE_FIRST", X_RETH|X_PL, RS_KIND_WRITE, RS_POS_FIRST, false },
	{ 0x27, "UC_RDMA_WRITE_MIDDLE", X_PL, RS_KIND_WRITE, RS_POS_MIDDLE, false },
	{ 0x28, "UC_RDMA_WRITE_LAST", X_PL, RS_KIND_WRITE, RS_POS_LAST, false },
	{ 0x29, "UC_RDMA_WRITE_LAST_WITH_IMMEDIATE", X_IMMDT|X_PL, RS_KIND_WRITE_IMM, RS_POS_LAST, false },
	{ 0x2A, "UC_RDMA_WRITE_ONLY", X_RETH|X_PL, RS_KIND_WRITE, RS_POS_ONLY, false },
	{ 0x2B, "UC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", X_RETH|X_IMMDT|X_PL, RS_KIND_WRITE_IMM, RS_POS_ONLY, false },
	/* RD (010): requests carry RDETH+DETH, responses RDETH only */
	{ 0x40, "RD_SEND_FIRST", X_RDETH|X_DETH|X_PL, RS_KIND_SEND, RS_POS_FIRST, false },
	{ 0x41, "RD_SEND_MIDDLE", X_RDETH|X_DETH|X_PL, RS_KIND_SEND, RS_POS_MIDDLE, false },
	{ 0x42, "RD_SEND_LAST", X_RDETH|X_DETH|X_PL, RS_KIND_SEND, RS_POS_LAST, false },
	{ 0x43, "RD_SEND_LAST_WITH_IMMEDIATE", X_RDETH|X_DETH|X_IMMDT|X_PL, RS_KIND_SEND_IMM, RS_POS_LAST, false },
	{ 0x44, "RD_SEND_ONLY", X_RDETH|X_DETH|X_PL, RS_KIND_SEND, RS_POS_ONLY, false },
	{ 0x45, "RD_SEND_ONLY_WITH_IMMEDIATE", X_RDETH|X_DETH|X_IMMDT|X_PL, RS_KIND_SEND_IMM, RS_POS_ONLY, false },
	{ 0x46, "RD_RDMA_WRITE_FIRST", X_RDETH|X_DETH|X_RETH|X_PL, RS_KIND_WRITE, RS_POS_FIRST, false },
	{ 0x47, "RD_RDMA_WRITE_MIDDLE", X_RDETH|X_DETH|X_PL, RS_KIND_WRITE, RS_POS_MIDDLE, false },
	{ 0x48, "RD_RDMA_WRITE_LAST", X_RDETH|X_DETH|X_PL, RS_KIND_WRITE, RS_POS_LAST, false },
	{ 0x49, "RD_RDMA_WRITE_LAST_WITH_IMMEDIATE", X_RDETH|X_DETH|X_IMMDT|X_PL, RS_KIND_WRITE_IMM, RS_POS_LAST, false },
	{ 0x4A, "RD_RDMA_WRITE_ONLY", X_RDETH|X_DETH|X_RETH|X_PL, RS_KIND_WRITE, RS_POS_ONLY, false },
	{ 0x4B, "RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE", X_RDETH|X_DETH|X_RETH|X_IMMDT|X_PL, RS_KIND_WRITE_IMM, RS_POS_ONLY, false },
	{ 0x4C, "RD_RDMA_READ_REQUEST", X_RDETH|X_DETH|X_RETH, RS_KIND_READ_REQ, RS_POS_ONLY, false },
	{ 0x4D, "RD_RDMA_READ_RESPONSE_FIRST", X_RDETH|X_AETH|X_PL, RS_KIND_READ_RESP, RS_POS_FIRST, true },
	{ 0x4E, "RD_RDMA_READ_RESPONSE_MIDDLE", X_RDETH|X_PL, RS_KIND_READ_RESP, RS_POS_MIDDLE, true },
	{ 0x4F, "RD_RDMA_READ_RESPONSE_LAST", X_RDETH|X_AETH|X_PL, RS_KIND_READ_RESP, RS_POS_LAST, true },
	{ 0x50, "RD_RDMA_READ_RESPONSE_ONLY", X_RDETH|X_AETH|X_PL, RS_KIND_READ_RESP, RS_POS_ONLY, true },
	{ 0x51, "RD_ACKNOWLEDGE", X_RDETH|X_AETH, RS_KIND_ACK, RS_POS_NONE, true },
	{ 0x52, "RD_ATOMIC_ACKNOWLEDGE", X_RDETH|X_AETH|X_ATOMICACKETH, RS_KIND_ATOMIC_ACK, RS_POS_NONE, true },
	{ 0x53, "RD_COMPARE_SWAP", X_RDETH|X_DETH|X_ATOMICETH, RS_KIND_CMP_SWAP, RS_POS_ONLY, false },
	{ 0x54, "RD_FETCH_ADD", X_RDETH|X_DETH|X_ATOMICETH, RS_KIND_FETCH_ADD, RS_POS_ONLY, false },
	{ 0x55, "RD_RESYNC", X_RDETH|X_DETH, RS_KIND_RESYNC, RS_POS_ONLY, false },
	{ 0x5C, "RD_FLUSH", X_RDETH|X_DETH|X_FETH|X_RETH, RS_KIND_FLUSH, RS_POS_ONLY, false },
	{ 0x5D, "RD_ATOMIC_WRITE", X_RDETH|X_DETH|X_RETH|X_PL, RS_KIND_ATOMIC_WRITE, RS_POS_ONLY, false },
	/* UD (011): SEND Only (+Imm) with DETH */
	{ 0x64, "UD_SEND_ONLY", X_DETH|X_PL, RS_KIND_SEND, RS_POS_ONLY, false },
	{ 0x65, "UD_SEND_ONLY_WITH_IMMEDIATE", X_DETH|X_IMMDT|X_PL, RS_KIND_SEND_IMM, RS_POS_ONLY, false },
	/* CNP (100): IB (Annex A10) and RoCE v2 (Annex A17.9.3) */
	{ 0x80, "CNP_IB", 0, RS_KIND_CNP, RS_POS_NONE, false },
	{ 0x81, "CNP", X_CNP, RS_KIND_CNP, RS_POS_NONE, false },
	/* XRC (101, Annex A14): requests carry XRCETH, responses none */
	{ 0xA0, "XRC_SEND_FIRST", X_XRCETH|X_PL, RS_KIND_SEND, RS_POS_FIRST, false },
	{ 0xA1, "XRC_SEND_MIDDLE", X_XRCETH|X_PL, RS_KIND_SEND, RS_POS_MIDDLE, false },
	{ 0xA2, "XRC_SEND_LAST", X_XRCETH|X_PL, RS_KIND_SEND, RS_POS_LAST, false },
	{ 0xA3, "XRC_SEND_LAST_WITH_IMMEDIATE", X_XRCETH|X_IMMDT|X_PL, RS_KIND_SEND_IMM, RS_POS_LAST, false },
	{ 0xA4, "XRC_SEND_ONLY", X_XRCETH|X_PL, RS_KIND_SEND, RS_POS_ONLY, false },
	{ 0xA5, "XRC_SEND_ONLY_WITH_IMMEDIATE", X_XRCETH|X_IMMDT|X_PL, RS_KIND_SEND_IMM, RS_POS_ONLY, false },
	{ 0xA6, "XRC_RDMA_WRITE_FIRST", X_XRCETH|X_RETH|X_PL, RS_KIND_WRITE, RS_POS_FIRST, false },
	{ 0xA7, "XRC_RDMA_WRITE_MIDDLE", X_XRCETH|X_PL, RS_KIND_WRITE, RS_POS_MIDDLE, false },
	{ 0xA8, "XRC_RDMA_WRITE_LAST", X_XRCETH|X_PL, RS_KIND_WRITE, RS_POS_LAST, false },
	{ 0xA9, "XRC_RDMA_WRITE_LAST_WITH_IMMEDIATE", X_XRCETH|X_IMMDT|X_PL, RS_KIND_WRITE_IMM, RS_POS_LAST, false },
	{ 0xAA, "XRC_RDMA_WRITE_ONLY", X_XRCETH|X_RETH|X_PL, RS_KIND_WRITE, RS_POS_ONLY, false },
	{ 0xAB, "XRC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", X_XRCETH|X_RETH|X_IMMDT|X_PL, RS_KIND_WRITE_IMM, RS_POS_ONLY, false },
	{ 0xAC, "XRC_RDMA_READ_REQUEST", X_XRCETH|X_RETH, RS_KIND_READ_REQ, RS_POS_ONLY, false },
	{ 0xAD, "XRC_RDMA_READ_RESPONSE_FIRST", X_AETH|X_PL, RS_KIND_READ_RESP, RS_POS_FIRST, true },
	{ 0xAE, "XRC_RDMA_READ_RESPONSE_MIDDLE", X_PL, RS_KIND_READ_RESP, RS_POS_MIDDLE, true },
	{ 0xAF, "XRC_RDMA_READ_RESPONSE_LAST", X_AETH|X_PL, RS_KIND_READ_RESP, RS_POS_LAST, true },
	{ 0xB0, "XRC_RDMA_READ_RESPONSE_ONLY", X_AETH|X_PL, RS_KIND_READ_RESP, RS_POS_ONLY, true },
	{ 0xB1, "XRC_ACKNOWLEDGE", X_AETH, RS_KIND_ACK, RS_POS_NONE, true },
	{ 0xB2, "XRC_ATOMIC_ACKNOWLEDGE", X_AETH|X_ATOMICACKETH, RS_KIND_ATOMIC_ACK, RS_POS_NONE, true },
	{ 0xB3, "XRC_COMPARE_SWAP", X_XRCETH|X_ATOMICETH, RS_KIND_CMP_SWAP, RS_POS_ONLY, false },
	{ 0xB4, "XRC_FETCH_ADD", X_XRCETH|X_ATOMICETH, RS_KIND_FETCH_ADD, RS_POS_ONLY, false },
	{ 0xB6, "XRC_SEND_LAST_WITH_INVALIDATE", X_XRCETH|X_IETH|X_PL, RS_KIND_SEND_INV, RS_POS_LAST, false },
	{ 0xB7, "XRC_SEND_ONLY_WITH_INVALIDATE", X_XRCETH|X_IETH|X_PL, RS_KIND_SEND_INV, RS_POS_ONLY, false },
	{ 0xBC, "XRC_FLUSH", X_XRCETH|X_FETH|X_RETH, RS_KIND_FLUSH, RS_POS_ONLY, false },
	{ 0xBD, "XRC_ATOMIC_WRITE", X_XRCETH|X_RETH|X_PL, RS_KIND_ATOMIC_WRITE, RS_POS_ONLY, false },
};

START_TEST(test_opinfo_all_256)
{
	unsigned defined = 0;
	for (unsigned op = 0; op < 256; op++) {
		const struct rs_opinfo *oi = rs_opinfo((uint8_t)op);
		const struct expect *e = NULL;
		for (size_t i = 0; i < sizeof table38 / sizeof table38[0]; i++)
			if (table38[i].op == op)
				e = &table38[i];
		ck_assert_ptr_nonnull(oi);
		ck_assert_ptr_nonnull(oi->name);
		ck_assert_ptr_nonnull(oi->pretty);
		if (!e) {
			ck_assert_msg(!oi->defined, "opcode 0x%02x is reserved in Table 38 but defined (%s)", op, oi->name);
			ck_assert_str_eq(oi->name, op >= 0xE0 ? "MANUFACTURER_SPECIFIC" : "RESERVED");
			ck_assert_uint_eq(oi->ext, 0);
			ck_assert_uint_eq(oi->kind, RS_KIND_NONE);
			continue;
		}
		defined++;
		ck_assert_msg(oi->defined, "opcode 0x%02x (%s) not defined", op, e->name);
		ck_assert_str_eq(oi->name, e->name);
		ck_assert_msg(oi->ext == e->ext, "opcode 0x%02x %s: ext 0x%03x, Table 38 says 0x%03x", op, e->name,
			      oi->ext, e->ext);
		ck_assert_msg(oi->kind == e->kind, "opcode 0x%02x %s: kind %u, expected %u", op, e->name, oi->kind,
			      e->kind);
		ck_assert_msg(oi->pos == e->pos, "opcode 0x%02x %s: pos %u, expected %u", op, e->name, oi->pos,
			      e->pos);
		ck_assert_msg(oi->response == e->response, "opcode 0x%02x %s: response flag", op, e->name);
	}
	ck_assert_uint_eq(defined, sizeof table38 / sizeof table38[0]);
	ck_assert_uint_eq(defined, 90); /* RC 25, UC 12, RD 24, UD 2, CNP 2, XRC 25 */
}
END_TEST

/* The names that rdma-core defines must be rdma-core's own (without IBV_OPCODE_). */
START_TEST(test_opinfo_rdma_core_names)
{
#define RDMA_CORE(c) { IBV_OPCODE_##c, #c }
	static const struct { int op; const char *name; } names[] = {
		RDMA_CORE(RC_SEND_FIRST), RDMA_CORE(RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE),
		RDMA_CORE(RC_RDMA_READ_RESPONSE_MIDDLE), RDMA_CORE(RC_ACKNOWLEDGE),
		RDMA_CORE(RC_ATOMIC_ACKNOWLEDGE), RDMA_CORE(RC_COMPARE_SWAP), RDMA_CORE(RC_FETCH_ADD),
		RDMA_CORE(UC_SEND_ONLY), RDMA_CORE(UC_RDMA_WRITE_FIRST), RDMA_CORE(RD_SEND_ONLY),
		RDMA_CORE(RD_RDMA_READ_RESPONSE_ONLY), RDMA_CORE(UD_SEND_ONLY),
		RDMA_CORE(UD_SEND_ONLY_WITH_IMMEDIATE),
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		ck_assert_str_eq(rs_opinfo((uint8_t)names[i].op)->name, names[i].name);
	/* Transport names come from bits 7:5. */
	ck_assert_str_eq(rs_transport_name(0x0A), "RC");
	ck_assert_str_eq(rs_transport_name(0x2A), "UC");
	ck_assert_str_eq(rs_transport_name(0x4A), "RD");
	ck_assert_str_eq(rs_transport_name(0x64), "UD");
	ck_assert_str_eq(rs_transport_name(0x81), "CNP");
	ck_assert_str_eq(rs_transport_name(0xA4), "XRC");
	ck_assert_str_eq(rs_transport_name(0xC5), "reserved");
	ck_assert_str_eq(rs_transport_name(0xE0), "MSP");
	ck_assert_str_eq(rs_transport_name(0xFF), "MSP");
	ck_assert_str_eq(rs_kind_name(RS_KIND_WRITE), "write");
	ck_assert_str_eq(rs_kind_name(RS_KIND_NONE), "");
	ck_assert_str_eq(rs_kind_name(RS_KIND__COUNT), "");
}
END_TEST

/* ---- BTH fields ---------------------------------------------------------- */

static const uint8_t rc_send_only_bits[] = {
	/* BTH: opcode 0x04 RC_SEND_ONLY */ 0x04,
	/*      SE 1, M 1, PadCnt 2, TVer 0 */ 0xE0,
	/*      P_Key 0x8001 */ 0x80, 0x01,
	/*      FECN 1, BECN 0, Resv6 0x15 */ 0x95,
	/*      DestQP 0x123456 */ 0x12, 0x34, 0x56,
	/*      AckReq 1, Resv7 0x05 */ 0x85,
	/*      PSN 0xABCDEF */ 0xAB, 0xCD, 0xEF,
	/* payload: 6 bytes */ 'r', 'o', 'c', 'e', 'v', '2',
	/* pad: 2 bytes (PadCnt) */ 0x00, 0x00,
};

/* NVIDIA DC: the RC operation of the same low bits (IBA Table 38: 0x0A
 * RDMA WRITE Only, 0x11 Acknowledge, 0x06 RDMA WRITE First), and the
 * connect 0x55 Wireshark's DC dissector names. */
START_TEST(test_dc_names)
{
	char b[40];
	ck_assert_str_eq(rs_dc_opname(0x4A, b, sizeof b), "DC_RDMA_WRITE_ONLY");
	ck_assert_str_eq(rs_dc_opname(0x51, b, sizeof b), "DC_ACKNOWLEDGE");
	ck_assert_str_eq(rs_dc_opname(0x46, b, sizeof b), "DC_RDMA_WRITE_FIRST");
	ck_assert_str_eq(rs_dc_opname(0x55, b, sizeof b), "DC_CONNECT");
	ck_assert_str_eq(rs_dc_opname(0x5F, b, sizeof b), "DC_0x5f");
}
END_TEST

START_TEST(test_bth_fields)
{
	struct rs_frame f;
	uint32_t len;
	ck_assert_int_eq(rt_decode_transport(rc_send_only_bits, sizeof rc_send_only_bits, &f, &len), RS_OK);
	ck_assert_uint_eq(f.roce, RS_ROCE_V2);
	ck_assert(f.have & RS_HAVE_BTH);
	ck_assert(f.have & RS_HAVE_EXT);
	ck_assert_uint_eq(f.bth.opcode, 0x04);
	ck_assert_uint_eq(f.bth.se, 1);
	ck_assert_uint_eq(f.bth.migreq, 1);
	ck_assert_uint_eq(f.bth.padcnt, 2);
	ck_assert_uint_eq(f.bth.tver, 0);
	ck_assert_uint_eq(f.bth.pkey, 0x8001);
	ck_assert_uint_eq(f.bth.fecn, 1);
	ck_assert_uint_eq(f.bth.becn, 0);
	ck_assert_uint_eq(f.bth.resv6, 0x15);
	ck_assert_uint_eq(f.bth.destqp, 0x123456);
	ck_assert_uint_eq(f.bth.ackreq, 1);
	ck_assert_uint_eq(f.bth.resv7, 0x05);
	ck_assert_uint_eq(f.bth.psn, 0xABCDEF);
	ck_assert_uint_eq(f.bth_off, RT_BTH_OFF);
	ck_assert_uint_eq(f.transport_len, sizeof rc_send_only_bits + 4);
	/* payload_len excludes the PadCnt pad bytes (IBA 9.2.6). */
	ck_assert_uint_eq(f.payload_off, RT_BTH_OFF + 12);
	ck_assert_uint_eq(f.payload_len, 6);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
	ck_assert(f.have & RS_HAVE_ICRC);
	rt_assert_layers_tile(&f);
	const struct rs_layer *l = rt_layer(&f, RS_L_PAD);
	ck_assert_ptr_nonnull(l);
	ck_assert_uint_eq(l->off, RT_BTH_OFF + 12 + 6);
	ck_assert_uint_eq(l->len, 2);
	l = rt_layer(&f, RS_L_PAYLOAD);
	ck_assert_uint_eq(l->len, 6);
	l = rt_layer(&f, RS_L_ICRC);
	ck_assert_uint_eq(l->off, len - 4);
	ck_assert_uint_eq(l->len, 4);
	/* The ICRC is read little-endian from the wire bytes. */
	uint8_t buf[256];
	uint32_t n = rt_wrap_v2(buf, rc_send_only_bits, sizeof rc_send_only_bits);
	ck_assert_uint_eq(f.icrc, rt_get_le32(buf + n - 4));
}
END_TEST

/* FECN and BECN are bits 7 and 6 of BTH byte 4 (Annex A10.2.2, A17.9.1). */
START_TEST(test_fecn_becn)
{
	static const struct { uint8_t b4, fecn, becn, resv6; } cases[] = {
		{ 0x00, 0, 0, 0x00 }, { 0x80, 1, 0, 0x00 }, { 0x40, 0, 1, 0x00 },
		{ 0xC0, 1, 1, 0x00 }, { 0x3F, 0, 0, 0x3F }, { 0x41, 0, 1, 0x01 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t t[sizeof rc_send_only_bits];
		struct rs_frame f;
		memcpy(t, rc_send_only_bits, sizeof t);
		t[4] = cases[i].b4;
		ck_assert_int_eq(rt_decode_transport(t, sizeof t, &f, NULL), RS_OK);
		ck_assert_uint_eq(f.bth.fecn, cases[i].fecn);
		ck_assert_uint_eq(f.bth.becn, cases[i].becn);
		ck_assert_uint_eq(f.bth.resv6, cases[i].resv6);
		ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
	}
}
END_TEST

/* RoCE v2 CNP (Annex A17.9.3): BTH (opcode 0x81, BECN set) + 16 reserved bytes. */
static const uint8_t roce_cnp[] = {
	/* BTH: opcode 0x81 CNP, SE/M/Pad/TVer 0, P_Key 0xFFFF */ 0x81, 0x00, 0xFF, 0xFF,
	/*      FECN 0, BECN 1, Resv6 0; DestQP 0x000011 */ 0x40, 0x00, 0x00, 0x11,
	/*      AckReq 0; PSN 0 */ 0x00, 0x00, 0x00, 0x00,
	/* 16 reserved bytes */ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* IB CNP (Annex A10.3.2): BTH only. */
static const uint8_t ib_cnp[] = {
	/* BTH: opcode 0x80 CNP_IB, SE/M/Pad/TVer 0, P_Key 0xFFFF */ 0x80, 0x00, 0xFF, 0xFF,
	/*      FECN 0, BECN 1; DestQP 0x000022 */ 0x40, 0x00, 0x00, 0x22,
	/*      AckReq 0; PSN 0 */ 0x00, 0x00, 0x00, 0x00,
};

START_TEST(test_cnp)
{
	struct rs_frame f;
	ck_assert_int_eq(rt_decode_transport(roce_cnp, sizeof roce_cnp, &f, NULL), RS_OK);
	ck_assert_uint_eq(f.bth.opcode, 0x81);
	ck_assert_uint_eq(f.ext, RS_EXT_CNP);
	ck_assert_uint_eq(f.bth.becn, 1);
	ck_assert_uint_eq(f.bth.fecn, 0);
	ck_assert_uint_eq(f.bth.destqp, 0x11);
	ck_assert_uint_eq(f.payload_len, 0);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
	const struct rs_layer *l = rt_layer(&f, RS_L_CNP);
	ck_assert_ptr_nonnull(l);
	ck_assert_uint_eq(l->off, RT_BTH_OFF + 12);
	ck_assert_uint_eq(l->len, 16);
	ck_assert_ptr_null(rt_layer(&f, RS_L_PAYLOAD));
	rt_assert_layers_tile(&f);
	ck_assert_uint_eq(rs_opinfo(0x81)->kind, RS_KIND_CNP);

	/* A RoCE CNP without its 16 bytes is too short for its headers. */
	ck_assert_int_eq(rt_decode_transport(roce_cnp, 12, &f, NULL), RS_MALFORMED);

	ck_assert_int_eq(rt_decode_transport(ib_cnp, sizeof ib_cnp, &f, NULL), RS_OK);
	ck_assert_uint_eq(f.bth.opcode, 0x80);
	ck_assert_uint_eq(f.ext, 0);
	ck_assert_uint_eq(f.bth.becn, 1);
	ck_assert_uint_eq(f.payload_len, 0);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
	rt_assert_layers_tile(&f);
}
END_TEST

/* ---- BTH-level error outcomes --------------------------------------------- */

START_TEST(test_reserved_and_vendor_opcodes)
{
	/* RC 0x15 (reserved: RESYNC is RD only), 0x18-0x1B, 0x1E; UC 0x2C and
	 * UC SEND with Invalidate 0x37 (RC/XRC only); UD 0x66; 0x82; XRC 0xB5;
	 * reserved 0xC0, 0xC5; manufacturer specific 0xE5 and 0xFF (Table 37). */
	static const uint8_t ops[] = { 0x15, 0x18, 0x1B, 0x1E, 0x1F, 0x2C, 0x37, 0x56, 0x60, 0x66, 0x82, 0x9F,
				       0xB5, 0xC0, 0xC5, 0xE5, 0xFF };
	for (size_t i = 0; i < sizeof ops; i++) {
		uint8_t t[sizeof rc_send_only_bits];
		struct rs_frame f;
		memcpy(t, rc_send_only_bits, sizeof t);
		t[0] = ops[i];
		ck_assert_int_eq(rt_decode_transport(t, sizeof t, &f, NULL), RS_UNSUPPORTED);
		ck_assert(f.have & RS_HAVE_BTH);
		ck_assert(!(f.have & RS_HAVE_EXT));
		ck_assert_uint_eq(f.bth.opcode, ops[i]);
		ck_assert_uint_eq(f.why_off, RT_BTH_OFF);
		char want[64];
		snprintf(want, sizeof want, "opcode 0x%02x", ops[i]);
		ck_assert_msg(rt_why_has(&f, want), "0x%02x: %s", ops[i], rt_why(&f));
		ck_assert_msg(rt_why_has(&f, ops[i] >= 0xE0 ? "manufacturer specific" : "reserved"), "%s",
			      rt_why(&f));
		/* Fully captured: the ICRC still gets its verdict. */
		ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
	}
}
END_TEST

START_TEST(test_tver)
{
	uint8_t t[sizeof rc_send_only_bits];
	struct rs_frame f;
	memcpy(t, rc_send_only_bits, sizeof t);
	t[1] = (uint8_t)((t[1] & 0xF0) | 0x01); /* TVer 1 */
	ck_assert_int_eq(rt_decode_transport(t, sizeof t, &f, NULL), RS_UNSUPPORTED);
	ck_assert_uint_eq(f.bth.tver, 1);
	ck_assert_uint_eq(f.why_off, RT_BTH_OFF + 1);
	ck_assert_msg(rt_why_has(&f, "TVer 1"), "%s", rt_why(&f));
	ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
}
END_TEST

START_TEST(test_padcnt_larger_than_payload)
{
	static const uint8_t t[] = {
		/* BTH: opcode 0x04 RC_SEND_ONLY, PadCnt 3 */ 0x04, 0x30, 0xFF, 0xFF,
		/*      byte 4 0, DestQP 0x000011 */ 0x00, 0x00, 0x00, 0x11,
		/*      AckReq 0, PSN 1 */ 0x00, 0x00, 0x00, 0x01,
		/* 3 bytes after the BTH: all pad when the packet is whole */ 0x00, 0x00, 0x00,
	};
	struct rs_frame f;
	/* Only 2 bytes after the BTH, fewer than PadCnt. */
	ck_assert_int_eq(rt_decode_transport(t, sizeof t - 1, &f, NULL), RS_MALFORMED);
	ck_assert_msg(rt_why_has(&f, "PadCnt 3"), "%s", rt_why(&f));
	ck_assert_uint_eq(f.why_off, RT_BTH_OFF + 1);
	/* Same with no payload at all. */
	ck_assert_int_eq(rt_decode_transport(t, 12, &f, NULL), RS_MALFORMED);
	ck_assert_msg(rt_why_has(&f, "PadCnt"), "%s", rt_why(&f));
	/* PadCnt equal to the body is a 0-byte payload: fine. */
	ck_assert_int_eq(rt_decode_transport(t, sizeof t, &f, NULL), RS_OK);
	ck_assert_uint_eq(f.payload_len, 0);
	rt_assert_layers_tile(&f);
}
END_TEST

START_TEST(test_bytes_after_no_payload_opcode)
{
	static const uint8_t t[] = {
		/* BTH: opcode 0x11 RC_ACKNOWLEDGE, P_Key 0xFFFF */ 0x11, 0x00, 0xFF, 0xFF,
		/*      DestQP 0x000011 */ 0x00, 0x00, 0x00, 0x11,
		/*      PSN 7 */ 0x00, 0x00, 0x00, 0x07,
		/* AETH: syndrome 0x1F (ACK, credits 31), MSN 7 */ 0x1F, 0x00, 0x00, 0x07,
		/* 4 stray bytes the opcode does not define */ 0xDE, 0xAD, 0xBE, 0xEF,
	};
	struct rs_frame f;
	ck_assert_int_eq(rt_decode_transport(t, sizeof t, &f, NULL), RS_MALFORMED);
	ck_assert_msg(rt_why_has(&f, "4 bytes") && rt_why_has(&f, "no payload"), "%s", rt_why(&f));
	ck_assert_uint_eq(f.why_off, RT_BTH_OFF + 16);
	ck_assert(f.have & RS_HAVE_EXT); /* the AETH itself was fine */
	ck_assert_uint_eq(f.aeth.msn, 7);
	ck_assert_int_eq(rt_decode_transport(t, 16, &f, NULL), RS_OK);
}
END_TEST

START_TEST(test_too_short_for_headers)
{
	static const uint8_t t[] = {
		/* BTH: opcode 0x06 RC_RDMA_WRITE_FIRST */ 0x06, 0x00, 0xFF, 0xFF,
		/*      DestQP 0x000011 */ 0x00, 0x00, 0x00, 0x11,
		/*      PSN 1 */ 0x00, 0x00, 0x00, 0x01,
		/* RETH cut short on the wire: VA only (8 of 16 bytes) */ 0, 0, 0x7F, 0, 0x12, 0x34, 0x50, 0x00,
	};
	struct rs_frame f;
	/* UDP and IP lengths agree with these bytes: the packet itself is too
	 * short, which is malformed, not truncated. */
	ck_assert_int_eq(rt_decode_transport(t, sizeof t, &f, NULL), RS_MALFORMED);
	ck_assert_msg(rt_why_has(&f, "need 32 bytes") && rt_why_has(&f, "has 24"), "%s", rt_why(&f));
	ck_assert(!(f.have & RS_HAVE_EXT));
	/* Less than a BTH and an ICRC: malformed too. */
	ck_assert_int_eq(rt_decode_transport(t, 8, &f, NULL), RS_MALFORMED);
	ck_assert(!(f.have & RS_HAVE_BTH));
	ck_assert_msg(rt_why_has(&f, "12 bytes cannot hold a BTH"), "%s", rt_why(&f));
}
END_TEST

static Suite *bth_suite(void)
{
	Suite *s = suite_create("bth");
	TCase *tc = tcase_create("opcodes");
	tcase_add_test(tc, test_opinfo_all_256);
	tcase_add_test(tc, test_opinfo_rdma_core_names);
	tcase_add_test(tc, test_dc_names);
	suite_add_tcase(s, tc);
	tc = tcase_create("bth");
	tcase_add_test(tc, test_bth_fields);
	tcase_add_test(tc, test_fecn_becn);
	tcase_add_test(tc, test_cnp);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, test_reserved_and_vendor_opcodes);
	tcase_add_test(tc, test_tver);
	tcase_add_test(tc, test_padcnt_larger_than_payload);
	tcase_add_test(tc, test_bytes_after_no_payload_opcode);
	tcase_add_test(tc, test_too_short_for_headers);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(bth_suite());
}

/*
 * check_ext.c — the extension headers after the BTH for every opcode family
 * of IBA vol 1 9.2 Table 38 (and Annex A14 XRC, the 1.5 Memory Placement
 * Extensions FLUSH / ATOMIC WRITE): which headers appear, in which order,
 * their field values, and the payload length that is left.
 *
 * Each test writes the transport bytes out field by field; tests/support
 * wraps them in Ethernet/IPv4/UDP 4791 and appends the ICRC it computes
 * itself. Expected values are the ones written in the bytes.
 */
#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/rstest.h"

#define END RS_L__COUNT

/* The layers after UDP must be exactly `...` (terminated by END), then ICRC. */
static void layers_are(const struct rs_frame *f, ...)
{
	va_list ap;
	unsigned i = 0;
	while (i < f->walk->nlayers && f->walk->layers[i].id != RS_L_BTH)
		i++;
	va_start(ap, f);
	for (int id = va_arg(ap, int); id != END; id = va_arg(ap, int), i++) {
		ck_assert_msg(i < f->walk->nlayers, "missing layer %s", rs_layer_name((enum rs_layer_id)id));
		ck_assert_msg(f->walk->layers[i].id == id, "layer %u is %s, expected %s", i,
			      rs_layer_name((enum rs_layer_id)f->walk->layers[i].id), rs_layer_name((enum rs_layer_id)id));
	}
	va_end(ap);
	ck_assert_msg(i + 1 == f->walk->nlayers && f->walk->layers[i].id == RS_L_ICRC, "extra layers before the ICRC");
	rt_assert_layers_tile(f);
}

static void decode_ok(const uint8_t *t, uint32_t n, struct rs_frame *f)
{
	ck_assert_msg(rt_decode_transport(t, n, f, NULL) == RS_OK, "%s", rt_why(f));
	ck_assert(f->have & RS_HAVE_EXT);
	ck_assert_uint_eq(f->ext, rs_opinfo(f->bth.opcode)->ext);
	ck_assert_uint_eq(f->icrc_status, RS_CRC_OK);
}

/* BTH with the given opcode, DestQP 0x000102, PSN 0x000A0B. */
#define BTH(op) (op), 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x0A, 0x0B

/* ---- RC SEND ------------------------------------------------------------- */

START_TEST(test_rc_send_family)
{
	static const uint8_t first[] = { /* BTH: 0x00 RC_SEND_FIRST */ BTH(0x00), /* payload 8 */ 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t middle[] = { /* BTH: 0x01 RC_SEND_MIDDLE */ BTH(0x01), /* payload 4 */ 9, 10, 11, 12 };
	static const uint8_t last[] = { /* BTH: 0x02 RC_SEND_LAST */ BTH(0x02), /* payload 4 */ 13, 14, 15, 16 };
	static const uint8_t only[] = { /* BTH: 0x04 RC_SEND_ONLY */ BTH(0x04), /* payload 4 */ 'p', 'i', 'n', 'g' };
	static const uint8_t last_imm[] = {
		/* BTH: 0x03 RC_SEND_LAST_WITH_IMMEDIATE */ BTH(0x03),
		/* ImmDt: 0x11223344 */ 0x11, 0x22, 0x33, 0x44,
		/* payload 4 */ 'd', 'a', 't', 'a',
	};
	static const uint8_t only_imm[] = {
		/* BTH: 0x05 RC_SEND_ONLY_WITH_IMMEDIATE */ BTH(0x05),
		/* ImmDt: 0xCAFEF00D */ 0xCA, 0xFE, 0xF0, 0x0D,
		/* no payload */
	};
	static const uint8_t last_inv[] = {
		/* BTH: 0x16 RC_SEND_LAST_WITH_INVALIDATE */ BTH(0x16),
		/* IETH: R_Key to invalidate 0x0000ABCD */ 0x00, 0x00, 0xAB, 0xCD,
		/* payload 4 */ 1, 2, 3, 4,
	};
	static const uint8_t only_inv[] = {
		/* BTH: 0x17 RC_SEND_ONLY_WITH_INVALIDATE */ BTH(0x17),
		/* IETH: R_Key 0x87654321 */ 0x87, 0x65, 0x43, 0x21,
		/* payload 8 */ 1, 2, 3, 4, 5, 6, 7, 8,
	};
	struct rs_frame f;

	decode_ok(first, sizeof first, &f);
	ck_assert_uint_eq(f.payload_len, 8);
	ck_assert_uint_eq(f.bth.destqp, 0x102);
	ck_assert_uint_eq(f.bth.psn, 0xA0B);
	layers_are(&f, RS_L_BTH, RS_L_PAYLOAD, END);
	decode_ok(middle, sizeof middle, &f);
	ck_assert_uint_eq(f.payload_len, 4);
	decode_ok(last, sizeof last, &f);
	ck_assert_uint_eq(f.payload_len, 4);
	decode_ok(only, sizeof only, &f);
	ck_assert_uint_eq(f.payload_len, 4);
	ck_assert_uint_eq(f.ext, RS_EXT_PAYLOAD);

	decode_ok(last_imm, sizeof last_imm, &f);
	ck_assert_uint_eq(f.immdt, 0x11223344);
	ck_assert_uint_eq(f.payload_len, 4);
	layers_are(&f, RS_L_BTH, RS_L_IMMDT, RS_L_PAYLOAD, END);

	decode_ok(only_imm, sizeof only_imm, &f);
	ck_assert_uint_eq(f.immdt, 0xCAFEF00D);
	ck_assert_uint_eq(f.payload_len, 0);
	layers_are(&f, RS_L_BTH, RS_L_IMMDT, END);

	decode_ok(last_inv, sizeof last_inv, &f);
	ck_assert_uint_eq(f.ieth_rkey, 0xABCD);
	ck_assert_uint_eq(f.payload_len, 4);
	layers_are(&f, RS_L_BTH, RS_L_IETH, RS_L_PAYLOAD, END);

	decode_ok(only_inv, sizeof only_inv, &f);
	ck_assert_uint_eq(f.ieth_rkey, 0x87654321);
	ck_assert_uint_eq(f.payload_len, 8);
	ck_assert_uint_eq(f.payload_off, RT_BTH_OFF + 16);
}
END_TEST

/* ---- RDMA WRITE ------------------------------------------------------------ */

static const uint8_t rc_write_first[] = {
	/* BTH: opcode 0x06 RC_RDMA_WRITE_FIRST, SE/M/Pad/TVer 0, P_Key 0xFFFF */ 0x06, 0x00, 0xFF, 0xFF,
	/*      F/B/resv 0, DestQP 0x000011 */ 0x00, 0x00, 0x00, 0x11,
	/*      A 0, PSN 0x8C84DD */ 0x00, 0x8C, 0x84, 0xDD,
	/* RETH: VA 0x00007FEE260FB000 */ 0x00, 0x00, 0x7F, 0xEE, 0x26, 0x0F, 0xB0, 0x00,
	/*       R_Key 0x000002B8 */ 0x00, 0x00, 0x02, 0xB8,
	/*       DMA length 4096 */ 0x00, 0x00, 0x10, 0x00,
	/* payload: 8 bytes */ 0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,
};

START_TEST(test_rdma_write)
{
	static const uint8_t only_imm[] = {
		/* BTH: 0x0B RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, PadCnt 1 */ 0x0B, 0x10, 0xFF, 0xFF,
		/*      DestQP 0x000011, PSN 5 */ 0x00, 0x00, 0x00, 0x11, 0x80, 0x00, 0x00, 0x05,
		/* RETH: VA 0x1000, R_Key 0x1234, DMA length 3 */ 0, 0, 0, 0, 0, 0, 0x10, 0x00, 0, 0, 0x12, 0x34, 0, 0, 0, 3,
		/* ImmDt (after the RETH): 0xDEADBEEF */ 0xDE, 0xAD, 0xBE, 0xEF,
		/* payload 3 + 1 pad */ 'a', 'b', 'c', 0x00,
	};
	static const uint8_t middle[] = { /* BTH: 0x07 RC_RDMA_WRITE_MIDDLE */ BTH(0x07), /* payload */ 1, 2, 3, 4 };
	static const uint8_t last[] = { /* BTH: 0x08 RC_RDMA_WRITE_LAST */ BTH(0x08), /* payload */ 1, 2, 3, 4 };
	static const uint8_t last_imm[] = {
		/* BTH: 0x09 RC_RDMA_WRITE_LAST_WITH_IMMEDIATE */ BTH(0x09),
		/* ImmDt 0x01020304 */ 1, 2, 3, 4, /* payload */ 5, 6, 7, 8,
	};
	static const uint8_t only[] = {
		/* BTH: 0x0A RC_RDMA_WRITE_ONLY */ BTH(0x0A),
		/* RETH: VA 0xFFFFFFFFFFFFFFF0, R_Key 0xFFFFFFFF, DMA length 0 */
		0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0,
	};
	struct rs_frame f;

	decode_ok(rc_write_first, sizeof rc_write_first, &f);
	ck_assert_uint_eq(f.reth.va, 0x00007FEE260FB000ull);
	ck_assert_uint_eq(f.reth.rkey, 0x2B8);
	ck_assert_uint_eq(f.reth.dmalen, 4096);
	ck_assert_uint_eq(f.bth.psn, 0x8C84DD);
	ck_assert_uint_eq(f.payload_len, 8);
	layers_are(&f, RS_L_BTH, RS_L_RETH, RS_L_PAYLOAD, END);

	decode_ok(only_imm, sizeof only_imm, &f);
	ck_assert_uint_eq(f.reth.va, 0x1000);
	ck_assert_uint_eq(f.reth.rkey, 0x1234);
	ck_assert_uint_eq(f.reth.dmalen, 3);
	ck_assert_uint_eq(f.immdt, 0xDEADBEEF);
	ck_assert_uint_eq(f.bth.ackreq, 1);
	ck_assert_uint_eq(f.payload_len, 3); /* DMA length 3, PadCnt 1 */
	layers_are(&f, RS_L_BTH, RS_L_RETH, RS_L_IMMDT, RS_L_PAYLOAD, RS_L_PAD, END);

	decode_ok(middle, sizeof middle, &f);
	layers_are(&f, RS_L_BTH, RS_L_PAYLOAD, END);
	decode_ok(last, sizeof last, &f);
	ck_assert_uint_eq(f.payload_len, 4);
	decode_ok(last_imm, sizeof last_imm, &f);
	ck_assert_uint_eq(f.immdt, 0x01020304);
	ck_assert_uint_eq(f.payload_len, 4);
	decode_ok(only, sizeof only, &f);
	ck_assert_uint_eq(f.reth.va, 0xFFFFFFFFFFFFFFF0ull);
	ck_assert_uint_eq(f.reth.rkey, 0xFFFFFFFFu);
	ck_assert_uint_eq(f.payload_len, 0);
	layers_are(&f, RS_L_BTH, RS_L_RETH, END);
}
END_TEST

/* ---- RDMA READ ---------------------------------------------------------------- */

START_TEST(test_rdma_read)
{
	static const uint8_t req[] = {
		/* BTH: 0x0C RC_RDMA_READ_REQUEST */ BTH(0x0C),
		/* RETH: VA 0x0000557700001000, R_Key 0x000002D5, DMA length 4096 */
		0x00, 0x00, 0x55, 0x77, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x02, 0xD5, 0x00, 0x00, 0x10, 0x00,
	};
	static const uint8_t first[] = {
		/* BTH: 0x0D RC_RDMA_READ_RESPONSE_FIRST */ BTH(0x0D),
		/* AETH: syndrome 0x1F (ACK, credit count 31), MSN 0x000001 */ 0x1F, 0x00, 0x00, 0x01,
		/* payload 8 */ 1, 2, 3, 4, 5, 6, 7, 8,
	};
	static const uint8_t middle[] = {
		/* BTH: 0x0E RC_RDMA_READ_RESPONSE_MIDDLE (no AETH) */ BTH(0x0E),
		/* payload 8 */ 1, 2, 3, 4, 5, 6, 7, 8,
	};
	static const uint8_t last[] = {
		/* BTH: 0x0F RC_RDMA_READ_RESPONSE_LAST */ BTH(0x0F),
		/* AETH: syndrome 0x00 (ACK, credits 0), MSN 0x000002 */ 0x00, 0x00, 0x00, 0x02,
		/* payload 4 */ 1, 2, 3, 4,
	};
	static const uint8_t only[] = {
		/* BTH: 0x10 RC_RDMA_READ_RESPONSE_ONLY, PadCnt 2 */ 0x10, 0x20, 0xFF, 0xFF, 0, 0, 1, 2, 0, 0, 0x0A, 0x0B,
		/* AETH: syndrome 0x0A, MSN 0xFFFFFF */ 0x0A, 0xFF, 0xFF, 0xFF,
		/* payload 2 + pad 2 */ 0x55, 0x66, 0, 0,
	};
	struct rs_frame f;

	decode_ok(req, sizeof req, &f);
	ck_assert_uint_eq(f.reth.va, 0x0000557700001000ull);
	ck_assert_uint_eq(f.reth.rkey, 0x2D5);
	ck_assert_uint_eq(f.reth.dmalen, 4096);
	ck_assert_uint_eq(f.payload_len, 0);
	layers_are(&f, RS_L_BTH, RS_L_RETH, END);

	decode_ok(first, sizeof first, &f);
	ck_assert_uint_eq(f.aeth.syndrome, 0x1F);
	ck_assert_uint_eq(f.aeth.msn, 1);
	ck_assert_uint_eq(f.payload_len, 8);
	layers_are(&f, RS_L_BTH, RS_L_AETH, RS_L_PAYLOAD, END);

	decode_ok(middle, sizeof middle, &f);
	ck_assert_uint_eq(f.ext, RS_EXT_PAYLOAD);
	layers_are(&f, RS_L_BTH, RS_L_PAYLOAD, END);

	decode_ok(last, sizeof last, &f);
	ck_assert_uint_eq(f.aeth.msn, 2);
	ck_assert_uint_eq(f.payload_len, 4);

	decode_ok(only, sizeof only, &f);
	ck_assert_uint_eq(f.aeth.syndrome, 0x0A);
	ck_assert_uint_eq(f.aeth.msn, 0xFFFFFF);
	ck_assert_uint_eq(f.payload_len, 2);
	layers_are(&f, RS_L_BTH, RS_L_AETH, RS_L_PAYLOAD, RS_L_PAD, END);
}
END_TEST

/* ---- ACK / NAK (AETH syndrome, IBA 9.7.5.1.2 Table 42) ---------------------- */

START_TEST(test_ack_aeth)
{
	static const struct { uint8_t syn; enum rs_aeth_kind kind; uint8_t value; } cases[] = {
		{ 0x1F, RS_AETH_ACK, 31 },     /* ACK, credit count 31 (invalid credit: 11111) */
		{ 0x05, RS_AETH_ACK, 5 },      /* ACK, credit count 5 */
		{ 0x20, RS_AETH_RNR_NAK, 0 },  /* RNR NAK, timer 0 (655.36 ms) */
		{ 0x2E, RS_AETH_RNR_NAK, 14 }, /* RNR NAK, timer 14 (1.28 ms) */
		{ 0x40, RS_AETH_RESERVED, 0 }, /* 10: reserved */
		{ 0x60, RS_AETH_NAK, RS_NAK_PSN_SEQ_ERR },
		{ 0x61, RS_AETH_NAK, RS_NAK_INVALID_REQUEST },
		{ 0x62, RS_AETH_NAK, RS_NAK_REMOTE_ACCESS_ERR },
		{ 0x63, RS_AETH_NAK, RS_NAK_REMOTE_OP_ERR },
		{ 0x64, RS_AETH_NAK, RS_NAK_INVALID_RD_REQUEST },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint8_t t[] = {
			/* BTH: 0x11 RC_ACKNOWLEDGE */ BTH(0x11),
			/* AETH: syndrome, MSN 0x123456 */ cases[i].syn, 0x12, 0x34, 0x56,
		};
		struct rs_frame f;
		decode_ok(t, sizeof t, &f);
		ck_assert_uint_eq(f.aeth.syndrome, cases[i].syn);
		ck_assert_uint_eq(f.aeth.msn, 0x123456);
		ck_assert_uint_eq(rs_aeth_kind(f.aeth.syndrome), cases[i].kind);
		ck_assert_uint_eq(rs_aeth_value(f.aeth.syndrome), cases[i].value);
		ck_assert_uint_eq(f.payload_len, 0);
		layers_are(&f, RS_L_BTH, RS_L_AETH, END);
	}
	/* RNR NAK timer 14 is 1.28 ms (IBA Table 45). */
	ck_assert_uint_eq(rs_rnr_timer_us(rs_aeth_value(0x2E)), 1280);
}
END_TEST

/* ---- Atomics ------------------------------------------------------------------- */

START_TEST(test_atomics)
{
	static const uint8_t cmp_swap[] = {
		/* BTH: 0x13 RC_COMPARE_SWAP */ BTH(0x13),
		/* AtomicETH: VA 0x00007F0000000008 */ 0x00, 0x00, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x08,
		/*            R_Key 0x00001234 */ 0x00, 0x00, 0x12, 0x34,
		/*            Swap data 0x1111111122222222 */ 0x11, 0x11, 0x11, 0x11, 0x22, 0x22, 0x22, 0x22,
		/*            Compare data 0x3333333344444444 */ 0x33, 0x33, 0x33, 0x33, 0x44, 0x44, 0x44, 0x44,
	};
	static const uint8_t fetch_add[] = {
		/* BTH: 0x14 RC_FETCH_ADD */ BTH(0x14),
		/* AtomicETH: VA 0x10, R_Key 0x99, Add data 1, Compare (ignored) 0 */
		0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0x99, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	static const uint8_t atomic_ack[] = {
		/* BTH: 0x12 RC_ATOMIC_ACKNOWLEDGE */ BTH(0x12),
		/* AETH: syndrome 0x1F, MSN 3 */ 0x1F, 0x00, 0x00, 0x03,
		/* AtomicAckETH: original remote data 0x0102030405060708 */ 1, 2, 3, 4, 5, 6, 7, 8,
	};
	struct rs_frame f;

	decode_ok(cmp_swap, sizeof cmp_swap, &f);
	ck_assert_uint_eq(f.atomic.va, 0x00007F0000000008ull);
	ck_assert_uint_eq(f.atomic.rkey, 0x1234);
	ck_assert_uint_eq(f.atomic.swap, 0x1111111122222222ull);
	ck_assert_uint_eq(f.atomic.cmp, 0x3333333344444444ull);
	ck_assert_uint_eq(f.payload_len, 0);
	layers_are(&f, RS_L_BTH, RS_L_ATOMICETH, END);
	ck_assert_uint_eq(rt_layer(&f, RS_L_ATOMICETH)->len, 28);

	decode_ok(fetch_add, sizeof fetch_add, &f);
	ck_assert_uint_eq(f.atomic.va, 0x10);
	ck_assert_uint_eq(f.atomic.rkey, 0x99);
	ck_assert_uint_eq(f.atomic.swap, 1);
	ck_assert_uint_eq(f.atomic.cmp, 0);

	decode_ok(atomic_ack, sizeof atomic_ack, &f);
	ck_assert_uint_eq(f.aeth.syndrome, 0x1F);
	ck_assert_uint_eq(f.aeth.msn, 3);
	ck_assert_uint_eq(f.atomicack_orig, 0x0102030405060708ull);
	layers_are(&f, RS_L_BTH, RS_L_AETH, RS_L_ATOMICACKETH, END);
}
END_TEST

/* ---- UC, RD, UD ------------------------------------------------------------------ */

START_TEST(test_uc)
{
	static const uint8_t send_only[] = { /* BTH: 0x24 UC_SEND_ONLY */ BTH(0x24), /* payload */ 1, 2, 3, 4 };
	static const uint8_t write_first[] = {
		/* BTH: 0x26 UC_RDMA_WRITE_FIRST */ BTH(0x26),
		/* RETH: VA 0x2000, R_Key 0x77, DMA length 8192 */ 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0x77, 0, 0, 0x20, 0,
		/* payload 4 */ 1, 2, 3, 4,
	};
	struct rs_frame f;
	decode_ok(send_only, sizeof send_only, &f);
	ck_assert_uint_eq(f.payload_len, 4);
	ck_assert_str_eq(rs_transport_name(f.bth.opcode), "UC");
	decode_ok(write_first, sizeof write_first, &f);
	ck_assert_uint_eq(f.reth.va, 0x2000);
	ck_assert_uint_eq(f.reth.rkey, 0x77);
	ck_assert_uint_eq(f.reth.dmalen, 8192);
	layers_are(&f, RS_L_BTH, RS_L_RETH, RS_L_PAYLOAD, END);
}
END_TEST

/* RD requests carry RDETH then DETH; RD responses carry RDETH only, then
 * their own headers (Table 38: "RDETH, AETH", "RDETH, AETH, AtomicAckETH").
 * tshark 4.0 forgets the RDETH of RDETH+AETH responses; we follow the spec. */
START_TEST(test_rd)
{
	static const uint8_t send_only[] = {
		/* BTH: 0x44 RD_SEND_ONLY */ BTH(0x44),
		/* RDETH: reserved 0, EE context 0xABCDEF */ 0x00, 0xAB, 0xCD, 0xEF,
		/* DETH: Q_Key 0x80010000, reserved 0, source QP 0x000123 */ 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x23,
		/* payload 4 */ 1, 2, 3, 4,
	};
	static const uint8_t write_only_imm[] = {
		/* BTH: 0x4B RD_RDMA_WRITE_ONLY_WITH_IMMEDIATE */ BTH(0x4B),
		/* RDETH: EE context 0x000007 */ 0x00, 0x00, 0x00, 0x07,
		/* DETH: Q_Key 0x11111111, source QP 0x000002 */ 0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x00, 0x02,
		/* RETH: VA 0x3000, R_Key 0x5, DMA length 4 */ 0, 0, 0, 0, 0, 0, 0x30, 0, 0, 0, 0, 5, 0, 0, 0, 4,
		/* ImmDt 0x0000BEEF */ 0x00, 0x00, 0xBE, 0xEF,
		/* payload 4 */ 1, 2, 3, 4,
	};
	static const uint8_t read_resp_only[] = {
		/* BTH: 0x50 RD_RDMA_READ_RESPONSE_ONLY */ BTH(0x50),
		/* RDETH: EE context 0x000042 */ 0x00, 0x00, 0x00, 0x42,
		/* AETH: syndrome 0x1F, MSN 9 (no DETH on a response) */ 0x1F, 0x00, 0x00, 0x09,
		/* payload 4 */ 1, 2, 3, 4,
	};
	static const uint8_t ack[] = {
		/* BTH: 0x51 RD_ACKNOWLEDGE */ BTH(0x51),
		/* RDETH: EE context 0x000042 */ 0x00, 0x00, 0x00, 0x42,
		/* AETH: syndrome 0x61 (NAK invalid request), MSN 10 */ 0x61, 0x00, 0x00, 0x0A,
	};
	static const uint8_t atomic_ack[] = {
		/* BTH: 0x52 RD_ATOMIC_ACKNOWLEDGE */ BTH(0x52),
		/* RDETH: EE context 0x000001 */ 0x00, 0x00, 0x00, 0x01,
		/* AETH: syndrome 0x1F, MSN 11 */ 0x1F, 0x00, 0x00, 0x0B,
		/* AtomicAckETH: 0x00000000FFFFFFFF */ 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF,
	};
	static const uint8_t resync[] = {
		/* BTH: 0x55 RD_RESYNC */ BTH(0x55),
		/* RDETH: EE context 0x000003 */ 0x00, 0x00, 0x00, 0x03,
		/* DETH: Q_Key 0x22222222, source QP 0x000004 */ 0x22, 0x22, 0x22, 0x22, 0x00, 0x00, 0x00, 0x04,
	};
	struct rs_frame f;

	decode_ok(send_only, sizeof send_only, &f);
	ck_assert_uint_eq(f.rdeth_eecnxt, 0xABCDEF);
	ck_assert_uint_eq(f.deth.qkey, 0x80010000u);
	ck_assert_uint_eq(f.deth.srcqp, 0x123);
	ck_assert_uint_eq(f.payload_len, 4);
	layers_are(&f, RS_L_BTH, RS_L_RDETH, RS_L_DETH, RS_L_PAYLOAD, END);

	decode_ok(write_only_imm, sizeof write_only_imm, &f);
	ck_assert_uint_eq(f.rdeth_eecnxt, 7);
	ck_assert_uint_eq(f.deth.qkey, 0x11111111u);
	ck_assert_uint_eq(f.reth.va, 0x3000);
	ck_assert_uint_eq(f.immdt, 0xBEEF);
	layers_are(&f, RS_L_BTH, RS_L_RDETH, RS_L_DETH, RS_L_RETH, RS_L_IMMDT, RS_L_PAYLOAD, END);

	decode_ok(read_resp_only, sizeof read_resp_only, &f);
	ck_assert_uint_eq(f.rdeth_eecnxt, 0x42);
	ck_assert_uint_eq(f.aeth.syndrome, 0x1F);
	ck_assert_uint_eq(f.aeth.msn, 9);
	ck_assert_uint_eq(f.payload_len, 4);
	layers_are(&f, RS_L_BTH, RS_L_RDETH, RS_L_AETH, RS_L_PAYLOAD, END);

	decode_ok(ack, sizeof ack, &f);
	ck_assert_uint_eq(f.rdeth_eecnxt, 0x42);
	ck_assert_uint_eq(f.aeth.syndrome, 0x61);
	ck_assert_uint_eq(f.aeth.msn, 10);
	layers_are(&f, RS_L_BTH, RS_L_RDETH, RS_L_AETH, END);

	decode_ok(atomic_ack, sizeof atomic_ack, &f);
	ck_assert_uint_eq(f.rdeth_eecnxt, 1);
	ck_assert_uint_eq(f.atomicack_orig, 0xFFFFFFFFull);
	layers_are(&f, RS_L_BTH, RS_L_RDETH, RS_L_AETH, RS_L_ATOMICACKETH, END);

	decode_ok(resync, sizeof resync, &f);
	ck_assert_uint_eq(f.deth.srcqp, 4);
	ck_assert_uint_eq(f.payload_len, 0);
	layers_are(&f, RS_L_BTH, RS_L_RDETH, RS_L_DETH, END);
}
END_TEST

START_TEST(test_ud)
{
	static const uint8_t send_only[] = {
		/* BTH: 0x64 UD_SEND_ONLY, DestQP 0x000102 */ BTH(0x64),
		/* DETH: Q_Key 0x11111111, reserved 0, source QP 0x000ABC */ 0x11, 0x11, 0x11, 0x11, 0x00, 0x00, 0x0A, 0xBC,
		/* payload 8 */ 1, 2, 3, 4, 5, 6, 7, 8,
	};
	static const uint8_t send_only_imm[] = {
		/* BTH: 0x65 UD_SEND_ONLY_WITH_IMMEDIATE */ BTH(0x65),
		/* DETH: Q_Key 0x0000FFFF, source QP 0xFFFFFF */ 0x00, 0x00, 0xFF, 0xFF, 0x00, 0xFF, 0xFF, 0xFF,
		/* ImmDt 0x76543210 (after the DETH) */ 0x76, 0x54, 0x32, 0x10,
		/* payload 4 */ 1, 2, 3, 4,
	};
	struct rs_frame f;
	decode_ok(send_only, sizeof send_only, &f);
	ck_assert_uint_eq(f.deth.qkey, 0x11111111u);
	ck_assert_uint_eq(f.deth.srcqp, 0xABC);
	ck_assert_uint_eq(f.payload_len, 8);
	ck_assert(!(f.have & RS_HAVE_MAD)); /* DestQP 0x102: not a MAD */
	layers_are(&f, RS_L_BTH, RS_L_DETH, RS_L_PAYLOAD, END);

	decode_ok(send_only_imm, sizeof send_only_imm, &f);
	ck_assert_uint_eq(f.deth.qkey, 0xFFFF);
	ck_assert_uint_eq(f.deth.srcqp, 0xFFFFFF);
	ck_assert_uint_eq(f.immdt, 0x76543210);
	layers_are(&f, RS_L_BTH, RS_L_DETH, RS_L_IMMDT, RS_L_PAYLOAD, END);
}
END_TEST

/* ---- XRC (Annex A14): XRCETH first on requests, nothing extra on responses -- */

START_TEST(test_xrc)
{
	static const uint8_t send_only[] = {
		/* BTH: 0xA4 XRC_SEND_ONLY */ BTH(0xA4),
		/* XRCETH: reserved 0, XRC SRQ 0x000777 */ 0x00, 0x00, 0x07, 0x77,
		/* payload 4 */ 1, 2, 3, 4,
	};
	static const uint8_t write_only[] = {
		/* BTH: 0xAA XRC_RDMA_WRITE_ONLY */ BTH(0xAA),
		/* XRCETH: XRC SRQ 0x000001 (before the RETH) */ 0x00, 0x00, 0x00, 0x01,
		/* RETH: VA 0x4000, R_Key 0x10, DMA length 4 */ 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0x10, 0, 0, 0, 4,
		/* payload 4 */ 1, 2, 3, 4,
	};
	static const uint8_t cmp_swap[] = {
		/* BTH: 0xB3 XRC_COMPARE_SWAP */ BTH(0xB3),
		/* XRCETH: XRC SRQ 0x000002 (before the AtomicETH) */ 0x00, 0x00, 0x00, 0x02,
		/* AtomicETH: VA 0x8, R_Key 0x20, swap 5, compare 6 */
		0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 6,
	};
	static const uint8_t only_inv[] = {
		/* BTH: 0xB7 XRC_SEND_ONLY_WITH_INVALIDATE */ BTH(0xB7),
		/* XRCETH: XRC SRQ 0x000003 */ 0x00, 0x00, 0x00, 0x03,
		/* IETH: R_Key 0x00000044 */ 0x00, 0x00, 0x00, 0x44,
	};
	static const uint8_t ack[] = {
		/* BTH: 0xB1 XRC_ACKNOWLEDGE: no XRCETH on a response */ BTH(0xB1),
		/* AETH: syndrome 0x1F, MSN 1 */ 0x1F, 0x00, 0x00, 0x01,
	};
	static const uint8_t read_first[] = {
		/* BTH: 0xAD XRC_RDMA_READ_RESPONSE_FIRST */ BTH(0xAD),
		/* AETH: syndrome 0x1F, MSN 2 */ 0x1F, 0x00, 0x00, 0x02,
		/* payload 4 */ 1, 2, 3, 4,
	};
	struct rs_frame f;

	decode_ok(send_only, sizeof send_only, &f);
	ck_assert_uint_eq(f.xrceth_srqn, 0x777);
	layers_are(&f, RS_L_BTH, RS_L_XRCETH, RS_L_PAYLOAD, END);
	decode_ok(write_only, sizeof write_only, &f);
	ck_assert_uint_eq(f.xrceth_srqn, 1);
	ck_assert_uint_eq(f.reth.va, 0x4000);
	ck_assert_uint_eq(f.reth.dmalen, 4);
	layers_are(&f, RS_L_BTH, RS_L_XRCETH, RS_L_RETH, RS_L_PAYLOAD, END);
	decode_ok(cmp_swap, sizeof cmp_swap, &f);
	ck_assert_uint_eq(f.xrceth_srqn, 2);
	ck_assert_uint_eq(f.atomic.swap, 5);
	ck_assert_uint_eq(f.atomic.cmp, 6);
	layers_are(&f, RS_L_BTH, RS_L_XRCETH, RS_L_ATOMICETH, END);
	decode_ok(only_inv, sizeof only_inv, &f);
	ck_assert_uint_eq(f.xrceth_srqn, 3);
	ck_assert_uint_eq(f.ieth_rkey, 0x44);
	ck_assert_uint_eq(f.payload_len, 0);
	decode_ok(ack, sizeof ack, &f);
	ck_assert_uint_eq(f.aeth.msn, 1);
	layers_are(&f, RS_L_BTH, RS_L_AETH, END);
	decode_ok(read_first, sizeof read_first, &f);
	layers_are(&f, RS_L_BTH, RS_L_AETH, RS_L_PAYLOAD, END);
}
END_TEST

/* ---- FLUSH and ATOMIC WRITE (IBA 1.5 Memory Placement Extensions) ---------- */

START_TEST(test_flush_atomic_write)
{
	static const uint8_t flush[] = {
		/* BTH: 0x1C RC_FLUSH */ BTH(0x1C),
		/* FETH: reserved, selectivity level 1, placement type 0x2 */ 0x00, 0x00, 0x00, 0x12,
		/* RETH (after the FETH): VA 0x5000, R_Key 0x30, DMA length 64 */
		0, 0, 0, 0, 0, 0, 0x50, 0, 0, 0, 0, 0x30, 0, 0, 0, 64,
	};
	static const uint8_t atomic_write[] = {
		/* BTH: 0x1D RC_ATOMIC_WRITE */ BTH(0x1D),
		/* RETH: VA 0x6000, R_Key 0x40, DMA length 8 */ 0, 0, 0, 0, 0, 0, 0x60, 0, 0, 0, 0, 0x40, 0, 0, 0, 8,
		/* payload: the 8 bytes to write */ 1, 2, 3, 4, 5, 6, 7, 8,
	};
	struct rs_frame f;
	decode_ok(flush, sizeof flush, &f);
	ck_assert_uint_eq(f.feth, 0x12);
	ck_assert_uint_eq(f.reth.va, 0x5000);
	ck_assert_uint_eq(f.reth.rkey, 0x30);
	ck_assert_uint_eq(f.reth.dmalen, 64);
	ck_assert_uint_eq(f.payload_len, 0);
	layers_are(&f, RS_L_BTH, RS_L_FETH, RS_L_RETH, END);

	decode_ok(atomic_write, sizeof atomic_write, &f);
	ck_assert_uint_eq(f.reth.va, 0x6000);
	ck_assert_uint_eq(f.reth.dmalen, 8);
	ck_assert_uint_eq(f.payload_len, 8);
	layers_are(&f, RS_L_BTH, RS_L_RETH, RS_L_PAYLOAD, END);
}
END_TEST

static Suite *ext_suite(void)
{
	Suite *s = suite_create("ext");
	TCase *tc = tcase_create("families");
	tcase_add_test(tc, test_rc_send_family);
	tcase_add_test(tc, test_rdma_write);
	tcase_add_test(tc, test_rdma_read);
	tcase_add_test(tc, test_ack_aeth);
	tcase_add_test(tc, test_atomics);
	tcase_add_test(tc, test_uc);
	tcase_add_test(tc, test_rd);
	tcase_add_test(tc, test_ud);
	tcase_add_test(tc, test_xrc);
	tcase_add_test(tc, test_flush_atomic_write);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(ext_suite());
}

/*
 * check_pfc.c — MAC Control PAUSE (IEEE 802.3 Annex 31B) and PFC (IEEE
 * 802.1Qbb, 802.1Q 36.1.3.1) frames (dissect/pfc.c), built byte by byte
 * from the standards' layouts: the fields, the layer, a frame the capture
 * cut (truncated) apart from one too short on the wire (malformed), and
 * MAC Control opcodes that are neither (not RoCE, nothing decoded).
 */
#include <check.h>
#include <pcap/dlt.h>
#include <string.h>

#include "tests/support/rstest.h"

/* dst 01-80-C2-00-00-01 (the MAC Control address), src 02:00:5e:ff:ff:07, type 0x8808 */
static const uint8_t eth[] = { 0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x02, 0x00, 0x5E, 0xFF, 0xFF, 0x07, 0x88, 0x08 };

static uint32_t frame(uint8_t *f, const uint8_t *body, size_t n)
{
	memset(f, 0, 60); /* padded to the 60-byte minimum, as sent */
	memcpy(f, eth, sizeof eth);
	memcpy(f + sizeof eth, body, n);
	return 60;
}

START_TEST(test_pfc)
{
	/* opcode 0x0101, reserved 0, enable e4 and e3, time[0..7] */
	static const uint8_t pfc[] = { 0x01, 0x01, 0x00, 0x18, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0 };
	uint8_t f[64];
	struct rs_frame fr;
	uint32_t n = frame(f, pfc, sizeof pfc);
	rt_dissect_all(NULL, DLT_EN10MB, f, n, n, &fr);
	ck_assert_int_eq(fr.outcome, RS_NOT_ROCE);
	ck_assert(fr.have & RS_HAVE_PFC);
	ck_assert_uint_eq(fr.pfc->opcode, RS_MACC_PFC);
	ck_assert_uint_eq(fr.pfc->enable, 0x18);
	ck_assert_uint_eq(fr.pfc->quanta[3], 0x1234);
	ck_assert_uint_eq(fr.pfc->quanta[4], 0xFFFF);
	ck_assert_uint_eq(fr.pfc->quanta[0], 0);
	ck_assert_uint_eq(fr.eth_src[5], 0x07);
	const struct rs_layer *l = rt_layer(&fr, RS_L_PFC);
	ck_assert_ptr_nonnull(l);
	ck_assert_uint_eq(l->off, 14);
	ck_assert_uint_eq(l->len, 20);
}
END_TEST

START_TEST(test_pause)
{
	static const uint8_t pause[] = { 0x00, 0x01, 0x02, 0x00 }; /* opcode 1, pause_time 512 */
	uint8_t f[64];
	struct rs_frame fr;
	uint32_t n = frame(f, pause, sizeof pause);
	rt_dissect_all(NULL, DLT_EN10MB, f, n, n, &fr);
	ck_assert_int_eq(fr.outcome, RS_NOT_ROCE);
	ck_assert(fr.have & RS_HAVE_PFC);
	ck_assert_uint_eq(fr.pfc->opcode, RS_MACC_PAUSE);
	ck_assert_uint_eq(fr.pfc->enable, 0xFF);
	for (int i = 0; i < 8; i++)
		ck_assert_uint_eq(fr.pfc->quanta[i], 512);
	ck_assert_uint_eq(rt_layer(&fr, RS_L_PFC)->len, 4);
}
END_TEST

START_TEST(test_cut_and_short)
{
	static const uint8_t pfc[] = { 0x01, 0x01, 0x00, 0x01, 0x00, 0x10 };
	uint8_t f[64];
	struct rs_frame fr;
	uint32_t n = frame(f, pfc, sizeof pfc);
	/* captured to the middle of time[0]: the capture's doing */
	rt_dissect_all(NULL, DLT_EN10MB, f, 19, n, &fr);
	ck_assert_int_eq(fr.outcome, RS_TRUNCATED);
	ck_assert(!(fr.have & RS_HAVE_PFC));
	/* a frame that ends on the wire before its times: the frame's */
	rt_dissect_all(NULL, DLT_EN10MB, f, 24, 24, &fr);
	ck_assert_int_eq(fr.outcome, RS_MALFORMED);
	ck_assert(!(fr.have & RS_HAVE_PFC));
	/* PAUSE cut after its opcode */
	static const uint8_t pause[] = { 0x00, 0x01, 0x00, 0x10 };
	n = frame(f, pause, sizeof pause);
	rt_dissect_all(NULL, DLT_EN10MB, f, 16, n, &fr);
	ck_assert_int_eq(fr.outcome, RS_TRUNCATED);
}
END_TEST

START_TEST(test_other_opcodes)
{
	static const uint8_t gate[] = { 0x00, 0x02, 0x12, 0x34 }; /* 802.3 Annex 31A GATE (EPON) */
	uint8_t f[64];
	struct rs_frame fr;
	uint32_t n = frame(f, gate, sizeof gate);
	rt_dissect_all(NULL, DLT_EN10MB, f, n, n, &fr);
	ck_assert_int_eq(fr.outcome, RS_NOT_ROCE);
	ck_assert(!(fr.have & RS_HAVE_PFC));
	ck_assert_ptr_null(rt_layer(&fr, RS_L_PFC));
}
END_TEST

static Suite *pfc_suite(void)
{
	Suite *s = suite_create("pfc");
	TCase *tc = tcase_create("pfc");
	tcase_add_test(tc, test_pfc);
	tcase_add_test(tc, test_pause);
	tcase_add_test(tc, test_cut_and_short);
	tcase_add_test(tc, test_other_opcodes);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(pfc_suite());
}

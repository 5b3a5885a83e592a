/*
 * check_names.c — names and formatting (dissect/names.c): addresses (IPv4,
 * IPv6 and GIDs in RFC 5952 form, LIDs), the RNR NAK timer (IBA vol 1
 * 9.7.5.2.8 Table 45), NAK codes (Table 43), outcome/CRC/layer names and
 * rs_frame_why().
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/rstest.h"

static const char *fmt6(enum rs_addr_kind kind, const uint8_t b[16], char *buf)
{
	struct rs_addr a = { .kind = (uint8_t)kind };
	memcpy(a.b, b, 16);
	return rs_addr_format(&a, buf);
}

START_TEST(test_addr_ipv4_lid_none)
{
	char buf[RS_ADDR_STRLEN];
	struct rs_addr a = { .kind = RS_ADDR_IPV4, .b = { 192, 0, 2, 255 } };
	ck_assert_str_eq(rs_addr_format(&a, buf), "192.0.2.255");
	a = (struct rs_addr){ .kind = RS_ADDR_IPV4, .b = { 0, 0, 0, 0 } };
	ck_assert_str_eq(rs_addr_format(&a, buf), "0.0.0.0");
	/* LID: 16 bits, big-endian in b[0..1], decimal. */
	a = (struct rs_addr){ .kind = RS_ADDR_LID, .b = { 0xC0, 0x01 } };
	ck_assert_str_eq(rs_addr_format(&a, buf), "49153");
	a = (struct rs_addr){ .kind = RS_ADDR_LID, .b = { 0xFF, 0xFF } };
	ck_assert_str_eq(rs_addr_format(&a, buf), "65535"); /* permissive LID */
	a = (struct rs_addr){ .kind = RS_ADDR_LID, .b = { 0x00, 0x01 } };
	ck_assert_str_eq(rs_addr_format(&a, buf), "1");
	a = (struct rs_addr){ .kind = RS_ADDR_NONE };
	ck_assert_str_eq(rs_addr_format(&a, buf), "");
}
END_TEST

/* RFC 5952 section 4: lowercase, no leading zeros, "::" for the longest
 * run of two or more zero groups (the first on a tie), never for one. */
START_TEST(test_addr_rfc5952)
{
	static const struct { uint8_t b[16]; const char *want; } t[] = {
		{ { 0x20, 0x01, 0x0D, 0xB8, [15] = 0x01 }, "2001:db8::1" },                       /* 4.1, 4.2.1 */
		{ { 0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1 }, "2001:db8:0:1:1:1:1:1" }, /* 4.2.2 */
		{ { 0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1 }, "2001:db8::1:0:0:1" },   /* 4.2.3 tie */
		{ { 0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0 }, "2001:db8:0:0:1::" },    /* longest */
		{ { 0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xAB, 0xCD }, "2001:db8::abcd" }, /* 4.3 case */
		{ { 0 }, "::" },
		{ { [15] = 1 }, "::1" },
		{ { 0xFE, 0x80, [8] = 0x50, 0x54, 0x00, 0xFF, 0xFE, 0x12, 0x34, 0x56 }, "fe80::5054:ff:fe12:3456" },
		{ { 0xFF, 0x12, 0x40, 0x1B, 0xFF, 0xFF, [15] = 1 }, "ff12:401b:ffff::1" },
		/* RFC 5952 section 5: IPv4-mapped addresses in mixed notation (IPv6 only: a GID
		 * of this form is shown as IPv4, below). Kept last. */
		{ { [10] = 0xFF, 0xFF, 192, 0, 2, 1 }, "::ffff:192.0.2.1" },
	};
	char buf[RS_ADDR_STRLEN];
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		ck_assert_str_eq(fmt6(RS_ADDR_IPV6, t[i].b, buf), t[i].want);
		if (i + 1 < sizeof t / sizeof t[0])
			ck_assert_str_eq(fmt6(RS_ADDR_GID, t[i].b, buf), t[i].want);
	}
	/* A GID of the IPv4-mapped form (RFC 4291 2.5.5.2; RoCE v1 on an IPv4
	 * interface) is shown as the IPv4 address it carries; an IPv6 header's
	 * address keeps the mixed notation above. Near misses stay IPv6. */
	static const uint8_t mapped[16] = { [10] = 0xFF, 0xFF, 192, 0, 2, 1 };
	ck_assert_str_eq(fmt6(RS_ADDR_GID, mapped, buf), "192.0.2.1");
	static const uint8_t compat[16] = { [10] = 0xFF, 0xFE, 192, 0, 2, 1 };
	ck_assert_str_eq(fmt6(RS_ADDR_GID, compat, buf), "::fffe:c000:201");
	static const uint8_t prefixed[16] = { [0] = 1, [10] = 0xFF, 0xFF, 192, 0, 2, 1 };
	ck_assert_str_eq(fmt6(RS_ADDR_GID, prefixed, buf), "100::ffff:c000:201");
	/* The longest possible text fits RS_ADDR_STRLEN. */
	static const uint8_t full[16] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
					  0xFF, 0xFF, 0xFF, 0xFF };
	ck_assert_str_eq(fmt6(RS_ADDR_IPV6, full, buf), "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff");
}
END_TEST

START_TEST(test_addr_equal)
{
	struct rs_addr a = { .kind = RS_ADDR_IPV4, .b = { 10, 0, 0, 1 } }, b = a;
	ck_assert(rs_addr_equal(&a, &b));
	b.b[3] = 2;
	ck_assert(!rs_addr_equal(&a, &b));
	b = a;
	b.kind = RS_ADDR_IPV6;
	ck_assert(!rs_addr_equal(&a, &b));
}
END_TEST

/* IBA vol 1 9.7.5.2.8 Table 45 "Encoding for RNR NAK Timer Field", in
 * milliseconds as the spec writes them (also Linux's enum ib_rnr_timeout:
 * IB_RNR_TIMER_655_36 = 0, IB_RNR_TIMER_000_01 = 1, ... IB_RNR_TIMER_491_52 = 31). */
START_TEST(test_rnr_timer)
{
	static const double ms[32] = {
		655.36, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.12, 0.16, 0.24, 0.32,
		0.48, 0.64, 0.96, 1.28, 1.92, 2.56, 3.84, 5.12, 7.68, 10.24, 15.36,
		20.48, 30.72, 40.96, 61.44, 81.92, 122.88, 163.84, 245.76, 327.68, 491.52,
	};
	for (unsigned i = 0; i < 32; i++)
		ck_assert_msg(rs_rnr_timer_us((uint8_t)i) == (uint32_t)(ms[i] * 1000.0 + 0.5), "timer %u: %u us", i,
			      rs_rnr_timer_us((uint8_t)i));
	/* Only the low 5 bits are the timer. */
	ck_assert_uint_eq(rs_rnr_timer_us(0x20 | 14), 1280);
	/* Local ACK Timeout (IBA 12.7.34): 4.096 us * 2^t, 0 = off; rdma_cm's
	 * 19 for RoCE is 2.147 s, perftest's 14 is 67.1 ms. */
	ck_assert_uint_eq(rs_ack_timeout_ns(0), 0);
	ck_assert_uint_eq(rs_ack_timeout_ns(1), 8192);
	ck_assert_uint_eq(rs_ack_timeout_ns(14), 67108864);
	ck_assert_uint_eq(rs_ack_timeout_ns(19), 2147483648ull);
}
END_TEST

/* IBA vol 1 9.7.5.2.4 Table 43 "NAK codes": 0-4 defined, 5-31 reserved. */
START_TEST(test_nak_codes)
{
	ck_assert_str_eq(rs_nak_code_name(0), "PSN sequence error");
	ck_assert_str_eq(rs_nak_code_name(1), "invalid request");
	ck_assert_str_eq(rs_nak_code_name(2), "remote access error");
	ck_assert_str_eq(rs_nak_code_name(3), "remote operational error");
	ck_assert_str_eq(rs_nak_code_name(4), "invalid RD request");
	ck_assert_str_eq(rs_nak_code_key(0), "psn_sequence_error");
	ck_assert_str_eq(rs_nak_code_key(4), "invalid_rd_request");
	for (unsigned c = 5; c < 32; c++) {
		ck_assert_str_eq(rs_nak_code_name((uint8_t)c), "reserved NAK code");
		ck_assert_str_eq(rs_nak_code_key((uint8_t)c), "reserved");
	}
}
END_TEST

START_TEST(test_enum_names)
{
	ck_assert_str_eq(rs_outcome_name(RS_OK), "ok");
	ck_assert_str_eq(rs_outcome_name(RS_NOT_ROCE), "not-roce");
	ck_assert_str_eq(rs_outcome_name(RS_TRUNCATED), "truncated");
	ck_assert_str_eq(rs_outcome_name(RS_MALFORMED), "malformed");
	ck_assert_str_eq(rs_outcome_name(RS_UNSUPPORTED), "unsupported");
	ck_assert_str_eq(rs_outcome_name(RS_OUTCOME__COUNT), "?");
	ck_assert_str_eq(rs_roce_name(RS_ROCE_V1), "v1");
	ck_assert_str_eq(rs_roce_name(RS_ROCE_V2), "v2");
	ck_assert_str_eq(rs_roce_name(RS_ROCE_IB), "ib");
	ck_assert_str_eq(rs_roce_name(RS_ROCE_NONE), "");
	ck_assert_str_eq(rs_crc_status_name(RS_CRC_OK), "ok");
	ck_assert_str_eq(rs_crc_status_name(RS_CRC_BAD), "bad");
	ck_assert_str_eq(rs_crc_status_name(RS_CRC_UNCHECKED), "unchecked");
	/* Every layer id has its own name. */
	for (int i = 0; i < RS_L__COUNT; i++) {
		const char *n = rs_layer_name((enum rs_layer_id)i);
		ck_assert_str_ne(n, "?");
		for (int j = 0; j < i; j++)
			ck_assert_str_ne(n, rs_layer_name((enum rs_layer_id)j));
	}
	ck_assert_str_eq(rs_layer_name(RS_L_ATOMICACKETH), "AtomicAckETH");
	ck_assert_str_eq(rs_layer_name(RS_L__COUNT), "?");
}
END_TEST

START_TEST(test_frame_why)
{
	char buf[256];
	struct rs_frame f;
	uint8_t fr[256];
	static const uint8_t t[] = {
		/* BTH: opcode 0xE5 (manufacturer specific, Table 37), P_Key 0xFFFF, DestQP 1, PSN 1 */
		0xE5, 0x00, 0xFF, 0xFF, 0, 0, 0, 1, 0, 0, 0, 1,
	};
	uint32_t n = rt_wrap_v2(fr, t, sizeof t);

	/* An OK frame has no reason: the outcome name stands in. */
	static const uint8_t ok[] = { /* BTH: 0x11 RC_ACKNOWLEDGE */ 0x11, 0, 0xFF, 0xFF, 0, 0, 0, 1, 0, 0, 0, 1,
				      /* AETH: ACK, MSN 1 */ 0x1F, 0, 0, 1 };
	uint32_t m = rt_wrap_v2(fr, ok, sizeof ok);
	rt_dissect_all(NULL, 1, fr, m, m, &f);
	ck_assert_int_eq(rs_frame_why(&f, buf, sizeof buf), 2);
	ck_assert_str_eq(buf, "ok");

	n = rt_wrap_v2(fr, t, sizeof t);
	rt_dissect_all(NULL, 1, fr, n, n, &f);
	int len = rs_frame_why(&f, buf, sizeof buf);
	ck_assert_str_eq(buf, "opcode 0xe5 is manufacturer specific: no header layout is defined");
	ck_assert_int_eq(len, (int)strlen(buf));
	/* Cut to a small buffer: snprintf semantics, NUL-terminated, full length returned. */
	char small[8];
	ck_assert_int_eq(rs_frame_why(&f, small, sizeof small), len);
	ck_assert_str_eq(small, "opcode ");

	/* Two arguments: the frame's captured length in a truncation reason. */
	rt_dissect_all(NULL, 1, fr, 30, n, &f);
	rs_frame_why(&f, buf, sizeof buf);
	ck_assert_str_eq(buf, "IPv4 header cut by the capture length (30 bytes captured)");
	rt_dissect_all(NULL, 1, fr, n, n - 1, &f);
	rs_frame_why(&f, buf, sizeof buf);
	ck_assert_uint_eq(f.outcome, RS_MALFORMED);
	char want[128];
	snprintf(want, sizeof want, "captured length %u exceeds the frame's length on the wire %u", n, n - 1);
	ck_assert_str_eq(buf, want);
}
END_TEST

static Suite *names_suite(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("names");
	tcase_add_test(tc, test_addr_ipv4_lid_none);
	tcase_add_test(tc, test_addr_rfc5952);
	tcase_add_test(tc, test_addr_equal);
	tcase_add_test(tc, test_rnr_timer);
	tcase_add_test(tc, test_nak_codes);
	tcase_add_test(tc, test_enum_names);
	tcase_add_test(tc, test_frame_why);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(names_suite());
}

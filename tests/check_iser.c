/*
 * check_iser.c — proto/iser/iser_dissect.c: iSER headers (RFC 7145 9.2-9.4)
 * and the iSCSI PDUs inside (RFC 7143 11), built here byte by byte from the
 * RFCs' figures (big-endian); the sense data of a SCSI Response in both
 * SPC-4 formats; lengths that lie (malformed) apart from a capture that
 * stops early (truncated), opcodes no RFC defines (unsupported) and bytes
 * that are not iSER at all. Every decode reads a heap buffer of exactly the
 * captured length, so a read past it is an ASan error under make SAN=1.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "proto/iser/iser_dissect.h"
#include "tests/support/rstest.h"

#define HDRS (RS_ISER_HDR_LEN + RS_ISCSI_BHS_LEN)

static void put_be(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* Decode the first `caplen` bytes of `pdu` from a heap copy of exactly
 * that size; the SEND is `wire` bytes long on the wire. */
static enum rs_iser_outcome decode(const uint8_t *pdu, uint32_t caplen, uint32_t wire, bool whole, struct rs_iser *r)
{
	uint8_t *copy = malloc(caplen ? caplen : 1);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, pdu, caplen);
	struct rs_cursor c;
	rs_cur_init(&c, copy, caplen);
	enum rs_iser_outcome o = rs_iser_decode(&c, wire, whole, r);
	ck_assert_uint_le(c.off, caplen);
	free(copy);
	ck_assert_int_eq(o, r->outcome);
	return o;
}

/* The iSER header: control-type PDU (opcode 1), W/R as asked, with the
 * STags and addresses of Linux's initiator in the sample. */
static void iser_hdr(uint8_t *p, bool w, bool r)
{
	memset(p, 0, RS_ISER_HDR_LEN);
	p[0] = 0x10 | (w ? 0x08 : 0) | (r ? 0x04 : 0);
	if (w) {
		put_be(p + 4, 0x000004d4, 4);
		put_be(p + 8, 0xffff8ef2c4d7a000ull, 8);
	}
	if (r) {
		put_be(p + 16, 0x00000392, 4);
		put_be(p + 20, 0xffff8ef2d5473800ull, 8);
	}
}

/* A SCSI Command BHS (RFC 7143 11.3): READ(10) of 16 blocks at LBA 256,
 * F and R set, ITT 0x01000000, EDTL 8192, CmdSN 5, ExpStatSN 7. */
static void read10(uint8_t *b)
{
	memset(b, 0, RS_ISCSI_BHS_LEN);
	b[0] = 0x01;
	b[1] = 0xC1;                 /* F, R, ATTR simple */
	put_be(b + 16, 0x01000000, 4);
	put_be(b + 20, 8192, 4);
	put_be(b + 24, 5, 4);
	put_be(b + 28, 7, 4);
	static const uint8_t cdb[10] = { 0x28, 0, 0x00, 0x00, 0x01, 0x00, 0, 0x00, 0x10, 0 };
	memcpy(b + 32, cdb, sizeof cdb);
}

START_TEST(test_read10_command)
{
	uint8_t p[HDRS];
	struct rs_iser r;
	iser_hdr(p, false, true);
	read10(p + RS_ISER_HDR_LEN);
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_OK);
	ck_assert_uint_eq(r.iser_op, RS_ISER_OP_CONTROL);
	ck_assert(!r.wsv && r.rsv);
	ck_assert_uint_eq(r.read_stag, 0x392);
	ck_assert(r.read_va == 0xffff8ef2d5473800ull);
	ck_assert(r.has_bhs);
	ck_assert_uint_eq(r.opcode, RS_ISCSI_SCSI_CMD);
	ck_assert(!r.immediate);
	ck_assert_uint_eq(r.flags, 0xC1);
	ck_assert_uint_eq(r.itt, 0x01000000);
	ck_assert_uint_eq(r.edtl, 8192);
	ck_assert_uint_eq(r.cmdsn, 5);
	ck_assert_uint_eq(r.exp_sn, 7);
	ck_assert_uint_eq(r.cdb_op, 0x28);
	ck_assert_uint_eq(r.cdb_len, 16);
	ck_assert(r.lba == 256);
	ck_assert_uint_eq(r.blocks, 16);
	ck_assert_uint_eq(r.dsl, 0);
	ck_assert_uint_eq(r.data_here, 0);
	ck_assert_str_eq(rs_scsi_cdb_name(r.cdb_op), "READ(10)");
	ck_assert(rs_scsi_is_read(0x28) && !rs_scsi_is_write(0x28));
}
END_TEST

/* WRITE(16) with 8 KiB of immediate data: the SEND First carries the
 * headers and the start of the data; the rest of the message follows. */
START_TEST(test_write16_immediate)
{
	uint8_t p[1024];
	struct rs_iser r;
	memset(p, 0xA5, sizeof p);
	iser_hdr(p, true, false);
	uint8_t *b = p + RS_ISER_HDR_LEN;
	memset(b, 0, RS_ISCSI_BHS_LEN);
	b[0] = 0x41;                          /* I bit, SCSI Command */
	b[1] = 0xA1;                          /* F, W */
	put_be(b + 5, 8192, 3);
	put_be(b + 16, 0x18000000, 4);
	put_be(b + 20, 16384, 4);
	b[32] = 0x8a;
	put_be(b + 34, 0x0000000123456789ull, 8);
	put_be(b + 42, 32, 4);
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, false, &r), RS_ISER_OK);
	ck_assert(r.wsv && !r.rsv);
	ck_assert_uint_eq(r.write_stag, 0x4d4);
	ck_assert(r.write_va == 0xffff8ef2c4d7a000ull);
	ck_assert(r.immediate);
	ck_assert_uint_eq(r.cdb_op, 0x8a);
	ck_assert(r.lba == 0x123456789ull);
	ck_assert_uint_eq(r.blocks, 32);
	ck_assert_uint_eq(r.edtl, 16384);
	ck_assert_uint_eq(r.dsl, 8192);
	ck_assert_uint_eq(r.data_here, sizeof p - HDRS);
	ck_assert(rs_scsi_is_write(0x8a));
	/* As a whole message (SEND Only) the same bytes lie about their data. */
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_MALFORMED);
	ck_assert_ptr_nonnull(r.why);
}
END_TEST

/* A SCSI Response (RFC 7143 11.4) with CHECK CONDITION: SenseLength 18 and
 * fixed-format sense (SPC-4 4.5.3): ILLEGAL REQUEST, LOGICAL BLOCK ADDRESS
 * OUT OF RANGE (21h/00h), as LIO answered the sample's READ past the end;
 * the 20-byte data segment needs no padding. */
static uint32_t check_condition(uint8_t *p)
{
	iser_hdr(p, false, false);
	uint8_t *b = p + RS_ISER_HDR_LEN;
	memset(b, 0, RS_ISCSI_BHS_LEN);
	b[0] = 0x21;
	b[1] = 0x80 | RS_ISCSI_RSP_U;
	b[2] = 0x00;
	b[3] = RS_SCSI_STATUS_CHECK_CONDITION;
	put_be(b + 5, 20, 3);
	put_be(b + 16, 0x1f000000, 4);
	put_be(b + 24, 44, 4);
	put_be(b + 28, 32, 4);
	put_be(b + 44, 512, 4);
	uint8_t *d = b + RS_ISCSI_BHS_LEN;
	memset(d, 0, 20);
	put_be(d, 18, 2);
	d[2] = 0x70;
	d[4] = 0x05;
	d[9] = 0x0a;
	d[14] = 0x21;
	return HDRS + 20;
}

START_TEST(test_check_condition)
{
	uint8_t p[HDRS + 20];
	struct rs_iser r;
	uint32_t n = check_condition(p);
	ck_assert_int_eq(decode(p, n, n, true, &r), RS_ISER_OK);
	ck_assert_uint_eq(r.opcode, RS_ISCSI_SCSI_RSP);
	ck_assert_uint_eq(r.itt, 0x1f000000);
	ck_assert_uint_eq(r.response, 0);
	ck_assert_uint_eq(r.status, 0x02);
	ck_assert_uint_eq(r.statsn, 44);
	ck_assert_uint_eq(r.exp_sn, 32);
	ck_assert_uint_eq(r.residual, 512);
	ck_assert(r.has_sense);
	ck_assert_uint_eq(r.sense_len, 18);
	ck_assert_uint_eq(r.sense_key, 5);
	ck_assert_uint_eq(r.asc, 0x21);
	ck_assert_uint_eq(r.ascq, 0);
	ck_assert_str_eq(rs_scsi_status_name(r.status), "CHECK CONDITION");
	ck_assert_str_eq(rs_scsi_sense_key_name(r.sense_key), "ILLEGAL REQUEST");
	/* Descriptor format (72h, SPC-4 4.5.2): UNIT ATTENTION, 29h/00h. */
	uint8_t *d = p + HDRS;
	memset(d + 2, 0, 18);
	d[2] = 0x72;
	d[3] = 0x06;
	d[4] = 0x29;
	ck_assert_int_eq(decode(p, n, n, true, &r), RS_ISER_OK);
	ck_assert_uint_eq(r.sense_key, 6);
	ck_assert_uint_eq(r.asc, 0x29);
	/* SenseLength that reaches past the data segment. */
	put_be(d, 100, 2);
	ck_assert_int_eq(decode(p, n, n, true, &r), RS_ISER_MALFORMED);
	ck_assert(strstr(r.why, "SenseLength") != NULL);
}
END_TEST

/* DataSegmentLength against the SEND's length: padding to 4 bytes is
 * what Linux sends (a 98-byte segment in 100 bytes); one byte more than
 * the SEND holds, or more than the padding, is a lie. */
START_TEST(test_lengths_lie)
{
	uint8_t p[HDRS + 104];
	struct rs_iser r;
	memset(p, 0, sizeof p);
	(void)check_condition(p);
	uint8_t *b = p + RS_ISER_HDR_LEN;
	put_be(b + 5, 98, 3);
	put_be(p + HDRS, 0, 2);
	ck_assert_int_eq(decode(p, HDRS + 100, HDRS + 100, true, &r), RS_ISER_OK);
	ck_assert_uint_eq(r.data_here, 100);
	ck_assert_int_eq(decode(p, HDRS + 97, HDRS + 97, true, &r), RS_ISER_MALFORMED);
	ck_assert(strstr(r.why, "DataSegmentLength") != NULL);
	ck_assert_int_eq(decode(p, HDRS + 104, HDRS + 104, true, &r), RS_ISER_MALFORMED);
	ck_assert(strstr(r.why, "padded") != NULL);
	/* A SEND First whose PDU would end inside it. */
	ck_assert_int_eq(decode(p, HDRS + 100, HDRS + 100, false, &r), RS_ISER_MALFORMED);
	/* TotalAHSLength of 255 words in a 176-byte SEND. */
	b[4] = 0xFF;
	ck_assert_int_eq(decode(p, HDRS + 100, HDRS + 100, true, &r), RS_ISER_MALFORMED);
	ck_assert(strstr(r.why, "TotalAHSLength") != NULL);
	/* Shorter than iSER header + BHS on the wire. */
	ck_assert_int_eq(decode(p, HDRS - 1, HDRS - 1, true, &r), RS_ISER_MALFORMED);
}
END_TEST

/* A 20-byte CDB: an Extended CDB AHS (RFC 7143 11.2.2.4) with AHSLength
 * 5 (reserved byte + 4 CDB bytes), 8 bytes with its header. */
START_TEST(test_extended_cdb)
{
	uint8_t p[HDRS + 8];
	struct rs_iser r;
	iser_hdr(p, false, true);
	read10(p + RS_ISER_HDR_LEN);
	p[RS_ISER_HDR_LEN + 4] = 2;
	uint8_t *a = p + HDRS;
	memset(a, 0, 8);
	put_be(a, 5, 2);
	a[2] = 0x01;
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_OK);
	ck_assert_uint_eq(r.cdb_len, 20);
	ck_assert_uint_eq(r.ahs_words, 2);
	ck_assert_uint_eq(r.data_here, 0);
}
END_TEST

/* Cut at every length: the fields before the cut are read, those after
 * are zero, and the outcome is truncated, never malformed. */
START_TEST(test_truncated_everywhere)
{
	uint8_t p[HDRS + 20];
	struct rs_iser r;
	uint32_t n = check_condition(p);
	for (uint32_t cap = 0; cap < n; cap++) {
		ck_assert_int_eq(decode(p, cap, n, true, &r), RS_ISER_TRUNCATED);
		if (cap >= RS_ISER_HDR_LEN + 1)
			ck_assert_uint_eq(r.opcode, RS_ISCSI_SCSI_RSP);
		if (cap >= RS_ISER_HDR_LEN + 20)
			ck_assert_uint_eq(r.itt, 0x1f000000);
		else
			ck_assert_uint_eq(r.itt, 0);
	}
	ck_assert_int_eq(decode(p, n, n, true, &r), RS_ISER_OK);
}
END_TEST

/* Hello (RFC 7145 9.3) and HelloReply (9.4). */
START_TEST(test_hello)
{
	uint8_t p[RS_ISER_HDR_LEN];
	struct rs_iser r;
	memset(p, 0, sizeof p);
	p[0] = 0x20;
	p[1] = 0x11;                 /* MaxVer 1, MinVer 1 */
	put_be(p + 2, 16, 2);        /* iSER-IRD */
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_OK);
	ck_assert_uint_eq(r.iser_op, RS_ISER_OP_HELLO);
	ck_assert_uint_eq(r.max_ver, 1);
	ck_assert_uint_eq(r.ird_ord, 16);
	ck_assert(!r.rej && !r.has_bhs);
	p[0] = 0x28;                 /* Hello with a reserved bit */
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_NOT);
	p[0] = 0x20;
	p[1] = 0x12;                 /* MinVer 2 above MaxVer 1 */
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_NOT);
	p[1] = 0xAA;                 /* version 10, the one RFC 7145 defines */
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_OK);
	ck_assert_uint_eq(r.max_ver, 10);
	p[0] = 0x31;                 /* HelloReply, Rej */
	put_be(p + 2, 8, 2);         /* iSER-ORD */
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_OK);
	ck_assert_uint_eq(r.iser_op, RS_ISER_OP_HELLO_REPLY);
	ck_assert(r.rej);
	ck_assert_uint_eq(r.ird_ord, 8);
}
END_TEST

START_TEST(test_not_and_unsupported)
{
	uint8_t p[HDRS];
	struct rs_iser r;
	iser_hdr(p, false, true);
	read10(p + RS_ISER_HDR_LEN);
	p[0] |= 0x01;                /* a reserved flag bit */
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_NOT);
	iser_hdr(p, false, true);
	p[2] = 0x40;                 /* reserved byte */
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_NOT);
	ck_assert_int_eq(decode(p, 20, 20, true, &r), RS_ISER_NOT);
	iser_hdr(p, false, true);
	read10(p + RS_ISER_HDR_LEN);
	p[RS_ISER_HDR_LEN] |= 0x80;  /* the BHS's reserved bit */
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_NOT);
	iser_hdr(p, false, true);
	read10(p + RS_ISER_HDR_LEN);
	p[0] = 0x50;                 /* iSER opcode 5 */
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_UNSUPPORTED);
	iser_hdr(p, false, true);
	p[RS_ISER_HDR_LEN] = 0x15;   /* iSCSI opcode 15h */
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_UNSUPPORTED);
	ck_assert_uint_eq(r.opcode, 0x15);
	ck_assert_str_eq(rs_iscsi_opcode_name(0x15), "");
	ck_assert_str_eq(rs_iser_outcome_name(RS_ISER_UNSUPPORTED), "unsupported");
}
END_TEST

/* Login Response (11.13): Status-Class 2 (initiator error), Detail 1
 * (authentication failure); Logout Response (11.15) Response 1; NOP-Out
 * (11.18) with TTT ffffffffh and the I bit. */
START_TEST(test_login_logout_nop)
{
	uint8_t p[HDRS];
	struct rs_iser r;
	iser_hdr(p, false, false);
	uint8_t *b = p + RS_ISER_HDR_LEN;
	memset(b, 0, RS_ISCSI_BHS_LEN);
	b[0] = 0x23;
	b[1] = 0x87;
	put_be(b + 24, 9, 4);
	b[36] = 2;
	b[37] = 1;
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_OK);
	ck_assert_uint_eq(r.login_class, 2);
	ck_assert_uint_eq(r.login_detail, 1);
	ck_assert_uint_eq(r.statsn, 9);
	ck_assert_str_eq(rs_iscsi_opcode_name(r.opcode), "Login Response");
	memset(b, 0, RS_ISCSI_BHS_LEN);
	b[0] = 0x26;
	b[1] = 0x80;
	b[2] = 1;
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_OK);
	ck_assert_uint_eq(r.response, 1);
	memset(b, 0, RS_ISCSI_BHS_LEN);
	b[0] = 0x40;
	b[1] = 0x80;
	put_be(b + 16, 0x2a000000, 4);
	put_be(b + 20, 0xffffffff, 4);
	put_be(b + 24, 12, 4);
	ck_assert_int_eq(decode(p, sizeof p, sizeof p, true, &r), RS_ISER_OK);
	ck_assert(r.immediate);
	ck_assert_uint_eq(r.opcode, RS_ISCSI_NOP_OUT);
	ck_assert_uint_eq(r.ttt, 0xffffffff);
	ck_assert_uint_eq(r.cmdsn, 12);
}
END_TEST

/* Every byte of a command and a response set to each of a few values:
 * the decoder stays inside the buffer (ASan under SAN=1) and gives a
 * sentence with every malformed or unsupported outcome. */
START_TEST(test_mutations)
{
	uint8_t p[HDRS + 20], q[HDRS + 20];
	struct rs_iser r;
	static const uint8_t vals[] = { 0x00, 0x01, 0x3F, 0x80, 0xFF };
	for (int which = 0; which < 2; which++) {
		uint32_t n = HDRS;
		if (which)
			n = check_condition(p);
		else {
			iser_hdr(p, true, true);
			read10(p + RS_ISER_HDR_LEN);
		}
		for (uint32_t i = 0; i < n; i++)
			for (unsigned v = 0; v < sizeof vals; v++) {
				memcpy(q, p, n);
				q[i] = vals[v];
				enum rs_iser_outcome o = decode(q, n, n, true, &r);
				if (o == RS_ISER_MALFORMED || o == RS_ISER_UNSUPPORTED || o == RS_ISER_NOT)
					ck_assert_ptr_nonnull(r.why);
			}
	}
}
END_TEST

static Suite *iser_suite(void)
{
	Suite *s = suite_create("iser");
	TCase *tc = tcase_create("pdus");
	tcase_add_test(tc, test_read10_command);
	tcase_add_test(tc, test_write16_immediate);
	tcase_add_test(tc, test_check_condition);
	tcase_add_test(tc, test_lengths_lie);
	tcase_add_test(tc, test_extended_cdb);
	tcase_add_test(tc, test_truncated_everywhere);
	tcase_add_test(tc, test_hello);
	tcase_add_test(tc, test_not_and_unsupported);
	tcase_add_test(tc, test_login_logout_nop);
	tcase_add_test(tc, test_mutations);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(iser_suite());
}

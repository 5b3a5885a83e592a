/*
 * check_cursor.c — dissect/cursor.h: every accessor exactly at the end of
 * the window and one byte past it, the sticky overrun flag, and sub-cursors.
 *
 * The contract (cursor.h): a read that fits returns the bytes in network
 * (or, for _le, little-endian) order and advances; a read that does not fit
 * touches no memory, returns 0, parks the position at the end and sets the
 * sticky `overrun`.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/cursor.h"
#include "tests/support/rstest.h"

/* Eight distinct bytes so a wrong byte order shows. */
static const uint8_t bytes[] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF };

/* A heap copy of exactly n bytes: ASan catches a read past the window. */
static uint8_t *exact(size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	ck_assert_ptr_nonnull(p);
	memcpy(p, bytes, n);
	return p;
}

START_TEST(test_init_empty)
{
	struct rs_cursor c;
	rs_cur_init(&c, bytes, 0);
	ck_assert_uint_eq(rs_cur_left(&c), 0);
	ck_assert(rs_cur_has(&c, 0));
	ck_assert(!rs_cur_has(&c, 1));
	ck_assert(!c.overrun);
	ck_assert_uint_eq(rs_cur_u8(&c), 0);
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.off, 0);
}
END_TEST

/* Each accessor of width w on a window of exactly w bytes: reads the value;
 * on a window of w-1 bytes: 0 and overrun, position parked at the end. */
START_TEST(test_u8)
{
	uint8_t *p = exact(1);
	struct rs_cursor c;
	rs_cur_init(&c, p, 1);
	ck_assert_uint_eq(rs_cur_u8(&c), 0x01);
	ck_assert(!c.overrun);
	ck_assert_uint_eq(rs_cur_left(&c), 0);
	ck_assert_uint_eq(rs_cur_u8(&c), 0);
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.off, 1);
	free(p);
}
END_TEST

START_TEST(test_be16)
{
	uint8_t *p = exact(2);
	struct rs_cursor c;
	rs_cur_init(&c, p, 2);
	ck_assert_uint_eq(rs_cur_be16(&c), 0x0123);
	ck_assert(!c.overrun);
	rs_cur_init(&c, p, 1);
	ck_assert_uint_eq(rs_cur_be16(&c), 0);
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.off, 1);
	free(p);
}
END_TEST

START_TEST(test_le16)
{
	uint8_t *p = exact(2);
	struct rs_cursor c;
	rs_cur_init(&c, p, 2);
	ck_assert_uint_eq(rs_cur_le16(&c), 0x2301);
	ck_assert(!c.overrun);
	rs_cur_init(&c, p, 1);
	ck_assert_uint_eq(rs_cur_le16(&c), 0);
	ck_assert(c.overrun);
	free(p);
}
END_TEST

START_TEST(test_be24)
{
	uint8_t *p = exact(3);
	struct rs_cursor c;
	rs_cur_init(&c, p, 3);
	ck_assert_uint_eq(rs_cur_be24(&c), 0x012345);
	ck_assert(!c.overrun);
	ck_assert_uint_eq(c.off, 3);
	rs_cur_init(&c, p, 2);
	ck_assert_uint_eq(rs_cur_be24(&c), 0);
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.off, 2);
	free(p);
}
END_TEST

START_TEST(test_be32_le32)
{
	uint8_t *p = exact(4);
	struct rs_cursor c;
	rs_cur_init(&c, p, 4);
	ck_assert_uint_eq(rs_cur_be32(&c), 0x01234567u);
	ck_assert(!c.overrun);
	rs_cur_init(&c, p, 4);
	ck_assert_uint_eq(rs_cur_le32(&c), 0x67452301u);
	ck_assert(!c.overrun);
	rs_cur_init(&c, p, 3);
	ck_assert_uint_eq(rs_cur_be32(&c), 0);
	ck_assert(c.overrun);
	rs_cur_init(&c, p, 3);
	ck_assert_uint_eq(rs_cur_le32(&c), 0);
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.off, 3);
	free(p);
}
END_TEST

START_TEST(test_be64)
{
	uint8_t *p = exact(8);
	struct rs_cursor c;
	rs_cur_init(&c, p, 8);
	ck_assert_uint_eq(rs_cur_be64(&c), 0x0123456789ABCDEFull);
	ck_assert(!c.overrun);
	ck_assert_uint_eq(rs_cur_left(&c), 0);
	/* 7 bytes: the overrun is reported whatever part of the value fitted. */
	rs_cur_init(&c, p, 7);
	(void)rs_cur_be64(&c);
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.off, 7);
	free(p);
}
END_TEST

START_TEST(test_take_copy_skip)
{
	uint8_t *p = exact(8);
	struct rs_cursor c;
	uint8_t out[8];

	rs_cur_init(&c, p, 8);
	const uint8_t *t = rs_cur_take(&c, 3);
	ck_assert_ptr_eq(t, p);
	ck_assert_uint_eq(c.off, 3);
	ck_assert_ptr_null(rs_cur_take(&c, 6)); /* 5 left */
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.off, 8);

	rs_cur_init(&c, p, 8);
	rs_cur_copy(&c, out, 8);
	ck_assert_mem_eq(out, bytes, 8);
	ck_assert(!c.overrun);

	rs_cur_init(&c, p, 5);
	memset(out, 0xAA, sizeof out);
	rs_cur_copy(&c, out, 6);
	ck_assert(c.overrun);
	for (int i = 0; i < 6; i++)
		ck_assert_uint_eq(out[i], 0); /* zeroed on overrun */
	ck_assert_uint_eq(out[6], 0xAA);  /* and nothing beyond n touched */

	rs_cur_init(&c, p, 8);
	rs_cur_skip(&c, 8);
	ck_assert(!c.overrun);
	ck_assert_uint_eq(rs_cur_left(&c), 0);
	rs_cur_skip(&c, 1);
	ck_assert(c.overrun);

	/* A zero-length take at the end is fine and not an overrun. */
	rs_cur_init(&c, p, 8);
	rs_cur_skip(&c, 8);
	ck_assert_ptr_nonnull(rs_cur_take(&c, 0));
	ck_assert(!c.overrun);
	free(p);
}
END_TEST

/* Huge lengths must not wrap the bounds check (off + n overflow). */
START_TEST(test_no_wraparound)
{
	uint8_t *p = exact(8);
	struct rs_cursor c;
	rs_cur_init(&c, p, 8);
	rs_cur_skip(&c, 4);
	ck_assert(!rs_cur_has(&c, UINT32_MAX));
	ck_assert(!rs_cur_has(&c, UINT32_MAX - 2));
	ck_assert_ptr_null(rs_cur_take(&c, UINT32_MAX - 2));
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.off, 8);
	free(p);
}
END_TEST

/* Once overrun, later reads that would have fitted still fail: a decoder
 * tests the flag once after reading a whole header. */
START_TEST(test_sticky_overrun)
{
	uint8_t *p = exact(8);
	struct rs_cursor c;
	rs_cur_init(&c, p, 8);
	ck_assert_uint_eq(rs_cur_be32(&c), 0x01234567u);
	(void)rs_cur_be64(&c); /* 4 left: overrun, parked at 8 */
	ck_assert(c.overrun);
	ck_assert_uint_eq(rs_cur_u8(&c), 0);
	ck_assert_uint_eq(rs_cur_be16(&c), 0);
	ck_assert(c.overrun);
	ck_assert_uint_eq(rs_cur_left(&c), 0);
	free(p);
}
END_TEST

START_TEST(test_sub_cursor)
{
	uint8_t *p = exact(8);
	struct rs_cursor c, s;

	/* A sub-cursor over the middle 4 bytes: its own window, parent advances. */
	rs_cur_init(&c, p, 8);
	rs_cur_skip(&c, 2);
	s = rs_cur_sub(&c, 4);
	ck_assert_uint_eq(c.off, 6);
	ck_assert(!c.overrun);
	ck_assert_uint_eq(s.len, 4);
	ck_assert_uint_eq(s.off, 0);
	ck_assert(!s.overrun);
	ck_assert_uint_eq(rs_cur_be32(&s), 0x456789ABu);
	ck_assert_uint_eq(rs_cur_u8(&s), 0); /* the sub-window ends there ... */
	ck_assert(s.overrun);
	ck_assert(!c.overrun);                  /* ... without touching the parent */
	ck_assert_uint_eq(rs_cur_be16(&c), 0xCDEF);

	/* Asking for more than is left: the sub-cursor is clipped to what is
	 * captured and the parent overruns. */
	rs_cur_init(&c, p, 8);
	rs_cur_skip(&c, 5);
	s = rs_cur_sub(&c, 10);
	ck_assert_uint_eq(s.len, 3);
	ck_assert(!s.overrun);
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.off, 8);
	ck_assert_uint_eq(rs_cur_be24(&s), 0xABCDEF);
	ck_assert(!s.overrun);

	/* A sub-cursor of a sub-cursor. */
	rs_cur_init(&c, p, 8);
	s = rs_cur_sub(&c, 6);
	rs_cur_skip(&s, 1);
	struct rs_cursor ss = rs_cur_sub(&s, 2);
	ck_assert_uint_eq(rs_cur_be16(&ss), 0x2345);
	ck_assert_uint_eq(rs_cur_u8(&s), 0x67);

	/* At the very end: an empty sub-cursor. */
	rs_cur_init(&c, p, 8);
	rs_cur_skip(&c, 8);
	s = rs_cur_sub(&c, 0);
	ck_assert_uint_eq(s.len, 0);
	ck_assert(!c.overrun);
	ck_assert_uint_eq(rs_cur_u8(&s), 0);
	ck_assert(s.overrun);
	free(p);
}
END_TEST

/* The fields of a 6-byte header: 16-bit, 8-bit, 24-bit. */
struct hdr6 {
	uint16_t a;
	uint8_t b;
	uint32_t c;
};

static inline __attribute__((always_inline)) void hdr6_fields(struct rs_cursor *c, struct hdr6 *h)
{
	h->a = rs_cur_be16(c);
	h->b = rs_cur_u8(c);
	h->c = rs_cur_be24(c);
}

/* rs_cur_fixed / RS_CUR_FIXED: with the whole header captured, the fields
 * are read through a window of exactly its size and the parent moves past
 * it; with fewer bytes, nothing changes and the parent's own checks read
 * what is there (zero past the end) and set overrun. */
START_TEST(test_fixed_header)
{
	uint8_t *p = exact(8);
	struct rs_cursor c, h;
	struct hdr6 v;

	/* All there: a 6-byte window at offset 1, the parent at 7. */
	rs_cur_init(&c, p, 8);
	rs_cur_skip(&c, 1);
	ck_assert(rs_cur_fixed(&c, 6, &h));
	ck_assert_ptr_eq(h.base, p + 1);
	ck_assert_uint_eq(h.len, 6);
	ck_assert_uint_eq(h.off, 0);
	ck_assert(!h.overrun);
	ck_assert_uint_eq(c.off, 7);
	ck_assert(!c.overrun);
	hdr6_fields(&h, &v);
	ck_assert_uint_eq(v.a, 0x2345);
	ck_assert_uint_eq(v.b, 0x67);
	ck_assert_uint_eq(v.c, 0x89ABCD);
	ck_assert(!h.overrun);
	ck_assert_uint_eq(rs_cur_u8(&h), 0); /* the window ends with the header */
	ck_assert(h.overrun);
	ck_assert(!c.overrun);

	/* Exactly to the end of the window. */
	rs_cur_init(&c, p, 8);
	rs_cur_skip(&c, 2);
	ck_assert(rs_cur_fixed(&c, 6, &h));
	ck_assert_uint_eq(c.off, 8);
	ck_assert(!c.overrun);

	/* One byte short: refused, the parent untouched. */
	rs_cur_init(&c, p, 8);
	rs_cur_skip(&c, 3);
	ck_assert(!rs_cur_fixed(&c, 6, &h));
	ck_assert_uint_eq(c.off, 3);
	ck_assert(!c.overrun);

	/* The macro on the short one: the slow path reads the 16-bit and the
	 * 8-bit field that are there, zero for the cut 24-bit one. */
	memset(&v, 0xEE, sizeof v);
	RS_CUR_FIXED(&c, 6, hdr6_fields, &v);
	ck_assert_uint_eq(v.a, 0x6789);
	ck_assert_uint_eq(v.b, 0xAB);
	ck_assert_uint_eq(v.c, 0);
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.off, 8);

	/* And on one that fits: the same values as reading through c. */
	rs_cur_init(&c, p, 8);
	memset(&v, 0xEE, sizeof v);
	RS_CUR_FIXED(&c, 6, hdr6_fields, &v);
	ck_assert_uint_eq(v.a, 0x0123);
	ck_assert_uint_eq(v.b, 0x45);
	ck_assert_uint_eq(v.c, 0x6789AB);
	ck_assert(!c.overrun);
	ck_assert_uint_eq(c.off, 6);

	/* An already overrun parent stays overrun and unmoved. */
	rs_cur_init(&c, p, 8);
	rs_cur_skip(&c, 9);
	ck_assert(!rs_cur_fixed(&c, 1, &h));
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.off, 8);
	free(p);
}
END_TEST

/* Every width at every start position of an 8-byte window: a read fits
 * exactly when start + width <= 8. */
START_TEST(test_every_position)
{
	uint8_t *p = exact(8);
	static const unsigned widths[] = { 1, 2, 3, 4, 8 };
	for (unsigned w = 0; w < sizeof widths / sizeof widths[0]; w++) {
		for (unsigned start = 0; start <= 8; start++) {
			struct rs_cursor c;
			rs_cur_init(&c, p, 8);
			rs_cur_skip(&c, start);
			uint64_t v = 0;
			switch (widths[w]) {
			case 1: v = rs_cur_u8(&c); break;
			case 2: v = rs_cur_be16(&c); break;
			case 3: v = rs_cur_be24(&c); break;
			case 4: v = rs_cur_be32(&c); break;
			case 8: v = rs_cur_be64(&c); break;
			}
			bool fits = start + widths[w] <= 8;
			ck_assert_msg(c.overrun == !fits, "width %u at %u", widths[w], start);
			if (fits) {
				uint64_t want = 0;
				for (unsigned i = 0; i < widths[w]; i++)
					want = want << 8 | bytes[start + i];
				ck_assert_uint_eq(v, want);
				ck_assert_uint_eq(c.off, start + widths[w]);
			} else {
				ck_assert_uint_eq(c.off, 8);
				if (widths[w] < 8)
					ck_assert_uint_eq(v, 0);
			}
		}
	}
	free(p);
}
END_TEST

static Suite *cursor_suite(void)
{
	Suite *s = suite_create("cursor");
	TCase *tc = tcase_create("accessors");
	tcase_add_test(tc, test_init_empty);
	tcase_add_test(tc, test_u8);
	tcase_add_test(tc, test_be16);
	tcase_add_test(tc, test_le16);
	tcase_add_test(tc, test_be24);
	tcase_add_test(tc, test_be32_le32);
	tcase_add_test(tc, test_be64);
	tcase_add_test(tc, test_take_copy_skip);
	tcase_add_test(tc, test_no_wraparound);
	tcase_add_test(tc, test_every_position);
	suite_add_tcase(s, tc);
	tc = tcase_create("overrun");
	tcase_add_test(tc, test_sticky_overrun);
	tcase_add_test(tc, test_sub_cursor);
	tcase_add_test(tc, test_fixed_header);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(cursor_suite());
}

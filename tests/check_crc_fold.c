/*
 * check_crc_fold.c — the ICRC's CRC-32 implementations agree: the slicing-by-8
 * table (the reference, itself checked against known CRC-32 values), and
 * where this CPU has them the PCLMULQDQ and VPCLMULQDQ folding versions
 * (dissect/crc_fold.c), for random data of every length from 0 to 600 and
 * longer runs, at every alignment, with random initial registers.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/internal.h"

typedef uint32_t (*crc_fn)(uint32_t, const uint8_t *, size_t);

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t rnd32(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* CRC-32/ISO-HDLC of "123456789" is 0xCBF43926 (the classic check value). */
START_TEST(table_check_value)
{
	const uint8_t msg[] = "123456789";
	ck_assert_uint_eq(~rs_crc32_update_table(0xFFFFFFFFu, msg, 9), 0xCBF43926u);
	ck_assert_uint_eq(~rs_crc32_update(0xFFFFFFFFu, msg, 9), 0xCBF43926u);
	/* 32 zero bytes and 32 0xFF bytes, longer than one fold */
	uint8_t z[32], o[32];
	memset(z, 0, sizeof z);
	memset(o, 0xFF, sizeof o);
	ck_assert_uint_eq(~rs_crc32_update(0xFFFFFFFFu, z, 32), 0x190A55ADu);
	ck_assert_uint_eq(~rs_crc32_update(0xFFFFFFFFu, o, 32), 0xFF6CAB0Bu);
}
END_TEST

static void agree(crc_fn fn, const char *name)
{
	enum { MAX = 5000 };
	static uint8_t buf[MAX + 64];
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)rnd32();
	for (size_t n = 0; n <= MAX; n = n < 600 ? n + 1 : n + 1 + rnd32() % 97) {
		size_t align = rnd32() % 64;
		uint32_t init = rnd32();
		uint32_t want = rs_crc32_update_table(init, buf + align, n);
		uint32_t got = fn(init, buf + align, n);
		ck_assert_msg(got == want, "%s: %zu bytes at offset %zu: 0x%08x, table says 0x%08x", name, n, align,
			      got, want);
	}
	/* Split anywhere, the running register carries over. */
	for (int t = 0; t < 2000; t++) {
		size_t n = rnd32() % 3000, cut = n ? rnd32() % n : 0;
		uint32_t want = rs_crc32_update_table(0xFFFFFFFFu, buf, n);
		uint32_t got = fn(fn(0xFFFFFFFFu, buf, cut), buf + cut, n - cut);
		ck_assert_msg(got == want, "%s: %zu bytes cut at %zu", name, n, cut);
	}
}

START_TEST(dispatch_agrees)
{
	agree(rs_crc32_update, rs_crc32_impl_name());
}
END_TEST

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
START_TEST(pclmul_agrees)
{
	if (!rs_crc32_has_impl("pclmul"))
		return; /* the CPU lacks it: nothing to compare */
	agree(rs_crc32_update_pclmul, "pclmul");
}
END_TEST

START_TEST(vpclmul_agrees)
{
	if (!rs_crc32_has_impl("vpclmul"))
		return;
	agree(rs_crc32_update_vpclmul, "vpclmul");
}
END_TEST
#endif

int main(void)
{
	Suite *s = suite_create("crc");
	TCase *tc = tcase_create("crc32");
	tcase_add_test(tc, table_check_value);
	tcase_add_test(tc, dispatch_agrees);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	tcase_add_test(tc, pclmul_agrees);
	tcase_add_test(tc, vpclmul_agrees);
#endif
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

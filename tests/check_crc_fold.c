/*
 * check_crc_fold.c — the ICRC's CRC-32 implementations agree: the slicing-by-8
 * table (the reference, itself checked against known CRC-32 values), and
 * where this CPU has them the PCLMULQDQ and VPCLMULQDQ folding versions
 * (dissect/crc_fold.c), for random data of every length from 0 to 600 and
 * longer runs, at every alignment, with random initial registers; and the
 * two-run form the ICRC uses (rs_crc32_update2), with the runs apart and
 * in one piece.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/internal.h"
#include "tests/support/rstest.h"

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

typedef uint32_t (*crc2_fn)(uint32_t, const uint8_t *, const uint8_t *, size_t, const uint8_t *, size_t);

/* Two runs in one call (the ICRC's headers, then the packet): the same as
 * one run over both, for head lengths on and off the 16-byte grid, with and
 * without a mask ORed into the head (the ICRC's variant fields). */
static void agree2(crc2_fn fn, const char *name)
{
	static uint8_t a[256], b[6000], mask[RS_CRC_OR_MAX], masked[RS_CRC_OR_MAX];
	for (size_t i = 0; i < sizeof a; i++)
		a[i] = (uint8_t)rnd32();
	for (size_t i = 0; i < sizeof b; i++)
		b[i] = (uint8_t)rnd32();
	for (int t = 0; t < 20000; t++) {
		size_t na = t % 3 ? 16 * (rnd32() % 9) : rnd32() % 130;
		size_t nb = t % 5 ? rnd32() % 1500 : rnd32() % 5900;
		size_t off = rnd32() % 64;
		uint32_t init = rnd32();
		uint32_t want = rs_crc32_update_table(rs_crc32_update_table(init, a, na), b + off, nb);
		uint32_t got = fn(init, a, NULL, na, b + off, nb);
		ck_assert_msg(got == want, "%s: %zu + %zu bytes: 0x%08x, table says 0x%08x", name, na, nb, got, want);
		/* A mask of a few bits, over a head at any alignment. */
		na = na > RS_CRC_OR_MAX ? RS_CRC_OR_MAX : na;
		size_t aoff = rnd32() % 64;
		for (size_t i = 0; i < na; i++) {
			mask[i] = rnd32() % 4 ? 0 : (uint8_t)rnd32();
			masked[i] = a[aoff + i] | mask[i];
		}
		want = rs_crc32_update_table(rs_crc32_update_table(init, masked, na), b + off, nb);
		got = fn(init, a + aoff, mask, na, b + off, nb);
		ck_assert_msg(got == want, "%s: %zu (masked, at %zu) + %zu bytes: 0x%08x, table says 0x%08x", name, na,
			      aoff, nb, got, want);
		/* The head in place right before the rest, as the ICRC passes
		 * them (one run over both, the mask ORed in as it is loaded),
		 * with and without the mask. */
		const uint8_t *h = b + off;
		for (size_t i = 0; i < na; i++)
			masked[i] = h[i] | mask[i];
		size_t nrest = nb > na ? nb - na : 0;
		want = rs_crc32_update_table(rs_crc32_update_table(init, masked, na), h + na, nrest);
		got = fn(init, h, mask, na, h + na, nrest);
		ck_assert_msg(got == want, "%s: %zu (masked) + %zu bytes in one piece at %zu: 0x%08x, table says 0x%08x",
			      name, na, nrest, off, got, want);
		want = rs_crc32_update_table(init, h, na + nrest);
		got = fn(init, h, NULL, na, h + na, nrest);
		ck_assert_msg(got == want, "%s: %zu + %zu bytes in one piece at %zu: 0x%08x, table says 0x%08x", name, na,
			      nrest, off, got, want);
	}
}

/* Appending zeros by multiplication equals reading them, for every length
 * up to past one jumbo frame and from any state. */
START_TEST(zeros_agree)
{
	static const uint8_t zeros[10000];
	uint32_t state = 0x9e3779b9u;
	for (size_t n = 0; n <= sizeof zeros; n += n < 70 ? 1 : 97) {
		state = state * 1664525u + 1013904223u;
		ck_assert_uint_eq(rs_crc32_zeros(state, n), rs_crc32_update_table(state, zeros, n));
	}
}
END_TEST

START_TEST(dispatch2_agrees)
{
	agree2(rs_crc32_update2, rs_crc32_impl_name());
}
END_TEST

START_TEST(dispatch_agrees)
{
	agree(rs_crc32_update, rs_crc32_impl_name());
}
END_TEST

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* Registered only where the CPU has the instructions (main() says which
 * were left out, so a run without them does not read as a pass). */
START_TEST(pclmul_agrees)
{
	agree(rs_crc32_update_pclmul, "pclmul");
	agree2(rs_crc32_update2_pclmul, "pclmul");
}
END_TEST

START_TEST(vpclmul_agrees)
{
	agree(rs_crc32_update_vpclmul, "vpclmul");
	agree2(rs_crc32_update2_vpclmul, "vpclmul");
}
END_TEST
#endif

int main(void)
{
	Suite *s = suite_create("crc");
	TCase *tc = tcase_create("crc32");
	tcase_add_test(tc, table_check_value);
	tcase_add_test(tc, dispatch_agrees);
	tcase_add_test(tc, dispatch2_agrees);
	tcase_add_test(tc, zeros_agree);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	if (rs_crc32_has_impl("pclmul"))
		tcase_add_test(tc, pclmul_agrees);
	else
		printf("check_crc_fold: this CPU has no PCLMULQDQ: the pclmul CRC is not tested here\n");
	if (rs_crc32_has_impl("vpclmul"))
		tcase_add_test(tc, vpclmul_agrees);
	else
		printf("check_crc_fold: this CPU lacks VPCLMULQDQ or AVX-512 (F, VL, BW, VBMI): the vpclmul CRC is not "
		       "tested here\n");
#endif
	suite_add_tcase(s, tc);
	return rt_run_suite(s);
}

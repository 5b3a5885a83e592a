/*
 * crc_fold.c — the ICRC's CRC-32 by carry-less multiplication, and the
 * choice of implementation.
 *
 * rocestat computes the ICRC over every byte of every RoCE frame; at tens of
 * gigabytes per minute the slicing-by-8 table (crc.c) would cost more
 * than reading the capture. x86-64 CPUs with PCLMULQDQ multiply
 * 64-bit polynomials over GF(2) in one instruction, so the CRC can be
 * computed by "folding": keep a 128-bit accumulator A that has the same
 * remainder mod P as the message so far, and fold it D bits ahead onto the
 * data there, A' = A_lo * (x^(D+64) mod P) ^ A_hi * (x^D mod P) ^ next, until
 * 16 bytes remain; then reduce them to 32 bits (two folds and a Barrett
 * reduction). scripts/gen-crc-fold-constants.py derives the constants,
 * explains the bit order, and checks a model of exactly this code against
 * zlib before it writes crc_fold_constants.h.
 *
 * Three implementations compute the same function (tests/check_crc_fold.c makes
 * sure, for random lengths and alignments):
 *   table    slicing-by-8 (crc.c): everywhere, and for fewer than 16 bytes
 *   pclmul   SSE + PCLMULQDQ: four 16-byte accumulators, 64 bytes per step
 *   vpclmul  AVX-512 + VPCLMULQDQ: four 64-byte accumulators, 256 bytes per
 *            step, then 64 and 16; accumulators are joined in one step each
 *            (independent folds), and the last 1..15 bytes are one more
 *            fold (a masked load and two byte permutes, AVX-512 VBMI)
 *            instead of table lookups. For ICRCs most of the time is what
 *            comes after the bulk: the joins, the tail and the reduction.
 * They are compiled with target attributes, so the default build still runs
 * on any x86-64 and only calls what the CPU has (__builtin_cpu_supports);
 * other architectures get the table alone.
 *
 * Dispatch: rs_crc32_update() switches on one integer naming the
 * implementation, resolved on first use from the CPU's features and stored
 * atomically (every thread resolves the same value, so a race is harmless).
 * It is the dissector's only state, written once.
 *
 * rs_crc32_update2() takes two runs (the ICRC's headers with the mask of
 * their variant fields, then the rest of the packet, both in place) and
 * folds straight from one into the other: one reduction per frame instead
 * of two (pclmul: when the first is a multiple of 16 bytes; vpclmul: any
 * length but 1 to 3 past one). vpclmul, when the headers lie right before
 * the rest (as the ICRC's do in a packet) and there are 64 bytes or more,
 * goes further: one run over both, the mask ORed in as the first 128
 * bytes are loaded, so the rest does not wait for the headers' folds.
 * ROCESTAT_CRC=table|pclmul|vpclmul in the environment forces a path (for
 * benchmarks; an unsupported choice falls back to the best one available).
 */
#include <stdlib.h>
#include <string.h>

#include "dissect/internal.h"

/* a with a_or ORed in, in buf (RS_CRC_OR_MAX bytes); a itself without a mask. */
static inline const uint8_t *or_into(uint8_t *buf, const uint8_t *a, const uint8_t *a_or, size_t na)
{
	if (!a_or)
		return a;
	for (size_t i = 0; i < na; i++)
		buf[i] = a[i] | a_or[i];
	return buf;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define RS_CRC_X86 1
#include <immintrin.h>

#include "dissect/crc_fold_constants.h"
#include "dissect/crc_tables.h"

/* Up to 15 bytes left after the folds: one 8-byte and one 4-byte slicing
 * step, then single bytes (the reference table version goes byte by byte
 * below 8; these are independent lookups, shorter dependency chains). */
static inline uint32_t tail(uint32_t crc, const uint8_t *p, size_t n)
{
	if (n >= 8) {
		crc = rs_crc32_update_table(crc, p, 8);
		p += 8;
		n -= 8;
	}
	if (n >= 4) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		crc = rs_crc32_tab[3][lo & 0xFF] ^ rs_crc32_tab[2][(lo >> 8) & 0xFF] ^ rs_crc32_tab[1][(lo >> 16) & 0xFF] ^
		      rs_crc32_tab[0][lo >> 24];
		p += 4;
		n -= 4;
	}
	while (n--)
		crc = rs_crc32_tab[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return crc;
}

#define PCLMUL_TARGET __attribute__((target("pclmul,sse2")))
#define VPCLMUL_TARGET __attribute__((target("pclmul,sse2,avx2,avx512f,avx512vl,avx512bw,avx512vbmi,vpclmulqdq")))

static PCLMUL_TARGET inline __m128i k_load(const uint64_t k[2])
{
	return _mm_loadu_si128((const __m128i *)(const void *)k);
}

static PCLMUL_TARGET inline __m128i load16(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

/* a folded D bits ahead onto b (k holds the two constants of D). */
static PCLMUL_TARGET inline __m128i fold16(__m128i a, __m128i b, __m128i k)
{
	__m128i lo = _mm_clmulepi64_si128(a, k, 0x00);
	__m128i hi = _mm_clmulepi64_si128(a, k, 0x11);
	return _mm_xor_si128(_mm_xor_si128(lo, hi), b);
}

/* The 32-bit CRC register of a message whose last 16 bytes folded into a:
 * a * x^32 mod P (see the script for the derivation). */
static PCLMUL_TARGET inline uint32_t reduce128(__m128i a)
{
	const __m128i kr = k_load(rs_crc_k_reduce96_64);
	const __m128i kb = k_load(rs_crc_k_barrett);
	/* T = lo(a) * x^96 + hi(a) * x^32 */
	__m128i t = _mm_xor_si128(_mm_clmulepi64_si128(a, kr, 0x00), _mm_slli_si128(_mm_srli_si128(a, 8), 4));
	/* U = lo(T) * x^64 + hi(T): degree < 64, in the high half */
	__m128i x = _mm_xor_si128(_mm_clmulepi64_si128(t, kr, 0x10), t);
	uint64_t u = (uint64_t)_mm_cvtsi128_si64(_mm_srli_si128(x, 8));
	/* Barrett: q = floor(U / P), R = U + q * P (low 32 coefficients) */
	__m128i prod = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)(u & 0xFFFFFFFFu)), kb, 0x00);
	uint64_t q = ((uint64_t)_mm_cvtsi128_si64(prod) >> 31) & 0xFFFFFFFFu;
	__m128i r = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)(q << 32)), kb, 0x10);
	uint64_t rh = (uint64_t)_mm_cvtsi128_si64(_mm_srli_si128(r, 8));
	return (uint32_t)(u >> 32) ^ (uint32_t)((rh >> 31) & 0xFFFFFFFFu);
}

/* Four independent 16-byte accumulators (they hide the multiplier's
 * latency) over the 64-byte steps of a run of *n >= 64 bytes whose first 16
 * are XORed with `init`; *p and *n move past the steps taken. */
static PCLMUL_TARGET inline void four_lanes(__m128i lane[4], __m128i init, const uint8_t **p, size_t *n)
{
	const __m128i k512 = k_load(rs_crc_k_fold512);
	const uint8_t *q = *p;
	size_t left = *n - 64;
	lane[0] = _mm_xor_si128(load16(q), init);
	lane[1] = load16(q + 16);
	lane[2] = load16(q + 32);
	lane[3] = load16(q + 48);
	for (q += 64; left >= 64; q += 64, left -= 64) {
		lane[0] = fold16(lane[0], load16(q), k512);
		lane[1] = fold16(lane[1], load16(q + 16), k512);
		lane[2] = fold16(lane[2], load16(q + 32), k512);
		lane[3] = fold16(lane[3], load16(q + 48), k512);
	}
	*p = q;
	*n = left;
}

/* The folds of a run of n >= 16 bytes whose first 16 are XORed with
 * `init` (the CRC register so far in the low 32 bits, or the product of an
 * accumulator folded onto this run: see rs_crc32_update2). */
static PCLMUL_TARGET inline uint32_t pclmul_run(__m128i init, const uint8_t *p, size_t n)
{
	const __m128i k128 = k_load(rs_crc_k_fold128);
	__m128i a;
	if (n >= 64) {
		__m128i lane[4];
		four_lanes(lane, init, &p, &n);
		a = fold16(fold16(fold16(lane[0], lane[1], k128), lane[2], k128), lane[3], k128);
	} else {
		a = _mm_xor_si128(load16(p), init);
		p += 16;
		n -= 16;
	}
	while (n >= 16) {
		a = fold16(a, load16(p), k128);
		p += 16;
		n -= 16;
	}
	return tail(reduce128(a), p, n);
}

PCLMUL_TARGET uint32_t rs_crc32_update_pclmul(uint32_t crc, const uint8_t *p, size_t n)
{
	if (n < 16)
		return rs_crc32_update_table(crc, p, n);
	/* The register so far joins the first 32 bits of the data. */
	return pclmul_run(_mm_cvtsi32_si128((int)crc), p, n);
}

static VPCLMUL_TARGET inline __m512i fold64(__m512i a, __m512i b, __m512i k)
{
	__m512i lo = _mm512_clmulepi64_epi128(a, k, 0x00);
	__m512i hi = _mm512_clmulepi64_epi128(a, k, 0x11);
	return _mm512_ternarylogic_epi64(lo, hi, b, 0x96); /* lo ^ hi ^ b */
}

static VPCLMUL_TARGET inline __m512i load64(const uint8_t *p)
{
	return _mm512_loadu_si512((const void *)p);
}

/* The four lanes of z, in message order, joined into one accumulator:
 * each folded onto the last lane by its own distance (48, 32, 16 bytes) in
 * the same two multiplications, then XORed together. */
static VPCLMUL_TARGET inline __m128i join_lanes(__m512i z)
{
	const __m512i k = _mm512_set_epi64(0, 0, (long long)rs_crc_k_fold128[1], (long long)rs_crc_k_fold128[0],
					   (long long)rs_crc_k_fold256[1], (long long)rs_crc_k_fold256[0],
					   (long long)rs_crc_k_fold384[1], (long long)rs_crc_k_fold384[0]);
	__m512i t = _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(z, k, 0x00), _mm512_clmulepi64_epi128(z, k, 0x11),
					      _mm512_maskz_mov_epi64(0xC0, z), 0x96);
	__m256i y = _mm256_xor_si256(_mm512_castsi512_si256(t), _mm512_extracti64x4_epi64(t, 1));
	return _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256(y, 1));
}

/* Four 16-byte accumulators in message order, joined the same way. */
static VPCLMUL_TARGET inline __m128i join4(__m128i a0, __m128i a1, __m128i a2, __m128i a3)
{
	const __m128i k384 = k_load(rs_crc_k_fold384), k256 = k_load(rs_crc_k_fold256);
	const __m128i k128 = k_load(rs_crc_k_fold128);
	__m128i x = _mm_ternarylogic_epi64(_mm_clmulepi64_si128(a0, k384, 0x00), _mm_clmulepi64_si128(a0, k384, 0x11),
					   a3, 0x96);
	__m128i y = _mm_ternarylogic_epi64(_mm_clmulepi64_si128(a1, k256, 0x00), _mm_clmulepi64_si128(a1, k256, 0x11),
					   _mm_clmulepi64_si128(a2, k128, 0x00), 0x96);
	return _mm_ternarylogic_epi64(x, y, _mm_clmulepi64_si128(a2, k128, 0x11), 0x96);
}

/* Four zmm accumulators (64 bytes apart), joined onto the last. */
static VPCLMUL_TARGET inline __m512i join_zmm(__m512i z0, __m512i z1, __m512i z2, __m512i z3)
{
	const __m512i k1536 = _mm512_broadcast_i32x4(k_load(rs_crc_k_fold1536));
	const __m512i k1024 = _mm512_broadcast_i32x4(k_load(rs_crc_k_fold1024));
	const __m512i k512 = _mm512_broadcast_i32x4(k_load(rs_crc_k_fold512));
	__m512i j0 = _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(z0, k1536, 0x00),
					       _mm512_clmulepi64_epi128(z0, k1536, 0x11), z3, 0x96);
	__m512i j1 = _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(z1, k1024, 0x00),
					       _mm512_clmulepi64_epi128(z1, k1024, 0x11),
					       _mm512_clmulepi64_epi128(z2, k512, 0x00), 0x96);
	return _mm512_ternarylogic_epi64(j0, j1, _mm512_clmulepi64_epi128(z2, k512, 0x11), 0x96);
}

/* The accumulator a of the 16 bytes before the last r (1..15) bytes, which
 * end at `end`: the accumulator of the message through them. With a's
 * bytes A[0..16) and the tail T, the message ends A[0..r) A[r..16) T: the
 * blocks C = (zeros, A[0..r)) and B = (A[r..16), T) carry the same bytes,
 * and zero bytes met by a zero register change nothing, so C folds onto B
 * (scripts/gen-crc-fold-constants.py models it). The load is masked to the
 * r bytes: nothing before them is read, whatever the address says. */
static VPCLMUL_TARGET inline __m128i tail_block(__m128i a, const uint8_t *end, unsigned r)
{
	const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	const __mmask16 top = (__mmask16)(0xFFFFu << (16 - r));
	__m128i t = _mm_maskz_loadu_epi8(top, (const void *)((uintptr_t)end - 16));
	__m128i b = _mm_mask_permutexvar_epi8(t, (__mmask16)~top, _mm_add_epi8(iota, _mm_set1_epi8((char)r)), a);
	__m128i c = _mm_maskz_permutexvar_epi8(top, _mm_sub_epi8(iota, _mm_set1_epi8((char)(16 - r))), a);
	return fold16(c, b, k_load(rs_crc_k_fold128));
}

/* The accumulator a of what came before, followed by n more bytes at p:
 * 16 at a time, then the last 1..15 (tail_block). */
static VPCLMUL_TARGET inline __m128i finish16(__m128i a, const uint8_t *p, size_t n)
{
	const __m128i k128 = k_load(rs_crc_k_fold128);
	while (n >= 16) {
		a = fold16(a, load16(p), k128);
		p += 16;
		n -= 16;
	}
	if (n)
		a = tail_block(a, p + n, (unsigned)n);
	return a;
}

/* The accumulator of a run whose first 256 bytes are z0..z3 (loaded, with
 * the register and any mask in them) and whose other n bytes are at p. */
static VPCLMUL_TARGET inline __m128i zmm_run(__m512i z0, __m512i z1, __m512i z2, __m512i z3, const uint8_t *p,
					     size_t n)
{
	const __m512i k2048 = _mm512_broadcast_i32x4(k_load(rs_crc_k_fold2048));
	const __m512i k512 = _mm512_broadcast_i32x4(k_load(rs_crc_k_fold512));
	while (n >= 256) {
		z0 = fold64(z0, load64(p), k2048);
		z1 = fold64(z1, load64(p + 64), k2048);
		z2 = fold64(z2, load64(p + 128), k2048);
		z3 = fold64(z3, load64(p + 192), k2048);
		p += 256;
		n -= 256;
	}
	z3 = join_zmm(z0, z1, z2, z3);
	while (n >= 64) {
		z3 = fold64(z3, load64(p), k512);
		p += 64;
		n -= 64;
	}
	return finish16(join_lanes(z3), p, n);
}

/* The accumulator of a run of n >= 16 bytes whose first 16 are XORed with
 * `init` (as pclmul_run's): zmm accumulators from 256 bytes on, four xmm
 * ones from 64 (a zmm join costs more than it saves there). */
static VPCLMUL_TARGET inline __m128i vpclmul_run(__m128i init, const uint8_t *p, size_t n)
{
	if (n >= 256)
		return zmm_run(_mm512_xor_si512(load64(p), _mm512_zextsi128_si512(init)), load64(p + 64),
			       load64(p + 128), load64(p + 192), p + 256, n - 256);
	__m128i a;
	if (n >= 64) {
		__m128i lane[4];
		four_lanes(lane, init, &p, &n);
		a = join4(lane[0], lane[1], lane[2], lane[3]);
	} else {
		a = _mm_xor_si128(load16(p), init);
		p += 16;
		n -= 16;
	}
	return finish16(a, p, n);
}

/* The first min(len, 64) bytes of m as a zmm (the rest zeros); none past
 * them is read. */
static VPCLMUL_TARGET inline __m512i load_upto64(const uint8_t *m, size_t len)
{
	return _mm512_maskz_loadu_epi8(len >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << len) - 1, (const void *)m);
}

/* The accumulator of n >= 64 bytes at p whose first nm (at most 128) are
 * ORed with `mask` (NULL: none) as they are loaded, the register crc XORed
 * into the first four: four zmm accumulators from 256 bytes on, else one
 * (a step of 64 bytes is one dependent multiplication either way). */
static VPCLMUL_TARGET inline __m128i vpclmul_run_or(uint32_t crc, const uint8_t *p, const uint8_t *mask, size_t nm,
						    size_t n)
{
	__m512i m0 = _mm512_setzero_si512(), m1 = m0;
	if (mask) {
		m0 = load_upto64(mask, nm);
		if (nm > 64)
			m1 = load_upto64(mask + 64, nm - 64);
	}
	__m512i z0 = _mm512_xor_si512(_mm512_or_si512(load64(p), m0), _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)crc)));
	if (n >= 256)
		return zmm_run(z0, _mm512_or_si512(load64(p + 64), m1), load64(p + 128), load64(p + 192), p + 256, n - 256);
	const __m512i k512 = _mm512_broadcast_i32x4(k_load(rs_crc_k_fold512));
	p += 64;
	n -= 64;
	if (n >= 64) {
		z0 = fold64(z0, _mm512_or_si512(load64(p), m1), k512);
		p += 64;
		n -= 64;
	} else if (nm > 64) {
		/* The mask reaches into the last bytes: ORed into a copy. */
		uint8_t last[64];
		_mm512_storeu_si512((void *)last, _mm512_or_si512(_mm512_maskz_loadu_epi8(((__mmask64)1 << n) - 1, p), m1));
		return finish16(join_lanes(z0), last, n);
	}
	while (n >= 64) {
		z0 = fold64(z0, load64(p), k512);
		p += 64;
		n -= 64;
	}
	return finish16(join_lanes(z0), p, n);
}

VPCLMUL_TARGET uint32_t rs_crc32_update_vpclmul(uint32_t crc, const uint8_t *p, size_t n)
{
	if (n < 16)
		return rs_crc32_update_table(crc, p, n);
	return reduce128(vpclmul_run(_mm_cvtsi32_si128((int)crc), p, n));
}

/* 16 bytes of a, with a_or's ORed in if there is a mask. */
static PCLMUL_TARGET inline __m128i load16_or(const uint8_t *a, const uint8_t *a_or)
{
	return a_or ? _mm_or_si128(load16(a), load16(a_or)) : load16(a);
}

/* acc, the accumulator of what came before, followed by the na bytes (a
 * multiple of 16) of a, masked with a_or. */
static PCLMUL_TARGET inline __m128i fold_blocks(__m128i acc, const uint8_t *a, const uint8_t *a_or, size_t na)
{
	const __m128i k128 = k_load(rs_crc_k_fold128);
	for (size_t i = 0; i < na; i += 16)
		acc = fold16(acc, load16_or(a + i, a_or ? a_or + i : NULL), k128);
	return acc;
}

/* The accumulator of a (na >= 16, a multiple of 16), the register crc
 * XORed into its first bytes. */
static PCLMUL_TARGET inline __m128i head_acc(uint32_t crc, const uint8_t *a, size_t na)
{
	return fold_blocks(_mm_xor_si128(load16(a), _mm_cvtsi32_si128((int)crc)), a + 16, NULL, na - 16);
}

/* Two runs, a then b, without reducing in between: a (a multiple of 16
 * bytes) is folded into one accumulator, whose product with the 128-bit
 * constants is what b's first 16 bytes are XORed with. */
static PCLMUL_TARGET inline __m128i fold_head(uint32_t crc, const uint8_t *a, size_t na)
{
	return fold16(head_acc(crc, a, na), _mm_setzero_si128(), k_load(rs_crc_k_fold128));
}

PCLMUL_TARGET uint32_t rs_crc32_update2_pclmul(uint32_t crc, const uint8_t *a, const uint8_t *a_or, size_t na,
					       const uint8_t *b, size_t nb)
{
	uint8_t masked[RS_CRC_OR_MAX];
	a = or_into(masked, a, a_or, na);
	if (na < 16 || na % 16 || nb < 16)
		return rs_crc32_update_pclmul(rs_crc32_update_pclmul(crc, a, na), b, nb);
	return pclmul_run(fold_head(crc, a, na), b, nb);
}

/* The accumulator of a header of na bytes whose length past a multiple of
 * 16, r, is 0 or at least 4: its first r bytes are a block of their own,
 * behind zeros (zeros met by a zero register change nothing, see
 * tail_block), with the register XORed into their first four. The masked
 * load reads none of the bytes before a. */
static VPCLMUL_TARGET inline __m128i head_acc_any(uint32_t crc, const uint8_t *a, const uint8_t *a_or, size_t na)
{
	unsigned r = (unsigned)(na % 16);
	if (!r) {
		__m128i first = _mm_xor_si128(load16_or(a, a_or), _mm_cvtsi32_si128((int)crc));
		return fold_blocks(first, a + 16, a_or ? a_or + 16 : NULL, na - 16);
	}
	const __m128i iota = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	const __mmask16 top = (__mmask16)(0xFFFFu << (16 - r));
	__m128i first = _mm_maskz_loadu_epi8(top, (const void *)((uintptr_t)a + r - 16));
	if (a_or)
		first = _mm_or_si128(first, _mm_maskz_loadu_epi8(top, (const void *)((uintptr_t)a_or + r - 16)));
	__m128i reg = _mm_maskz_permutexvar_epi8(top, _mm_sub_epi8(iota, _mm_set1_epi8((char)(16 - r))),
						 _mm_cvtsi32_si128((int)crc));
	return fold_blocks(_mm_xor_si128(first, reg), a + r, a_or ? a_or + r : NULL, na - r);
}

/* Any a of 4 bytes or more whose length is not 1 to 3 past a multiple of
 * 16 (the ICRC's headers: 48 bytes over IPv4, 68 over IPv6, 60 with a GRH
 * alone, 20 with an LRH), then any b: one reduction for both. The mask is
 * ORed in as a is loaded, so the caller need not copy a to mask it. */
VPCLMUL_TARGET uint32_t rs_crc32_update2_vpclmul(uint32_t crc, const uint8_t *a, const uint8_t *a_or, size_t na,
						 const uint8_t *b, size_t nb)
{
	/* The headers in place right before the rest (the ICRC's usual case,
	 * 64 bytes or more in all): one run over both, the mask ORed in
	 * as the first blocks are loaded. Folding the headers first, then
	 * onto the rest, made three or four dependent multiplications wait
	 * before the rest could begin: a chain of some 30 cycles per frame. */
	if (b == a + na && na <= 128 && na + nb >= 64)
		return reduce128(vpclmul_run_or(crc, a, a_or, na, na + nb));
	if (na < 4 || (na % 16 && na % 16 < 4)) {
		uint8_t masked[RS_CRC_OR_MAX];
		a = or_into(masked, a, a_or, na);
		return rs_crc32_update_vpclmul(rs_crc32_update_vpclmul(crc, a, na), b, nb);
	}
	__m128i acc = head_acc_any(crc, a, a_or, na);
	if (nb >= 16)
		acc = vpclmul_run(fold16(acc, _mm_setzero_si128(), k_load(rs_crc_k_fold128)), b, nb);
	else if (nb)
		acc = tail_block(acc, b + nb, (unsigned)nb);
	return reduce128(acc);
}
#endif /* x86-64 */

enum impl { IMPL_UNRESOLVED = 0, IMPL_TABLE, IMPL_PCLMUL, IMPL_VPCLMUL };

static bool cpu_has(enum impl i)
{
	if (i == IMPL_TABLE)
		return true;
#ifdef RS_CRC_X86
	__builtin_cpu_init();
	bool pcl = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse2");
	if (i == IMPL_PCLMUL)
		return pcl;
	if (i == IMPL_VPCLMUL)
		return pcl && __builtin_cpu_supports("vpclmulqdq") && __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx2");
#endif
	return false;
}

static enum impl resolve(void)
{
	const char *want = getenv("ROCESTAT_CRC");
	if (want && strcmp(want, "table") == 0)
		return IMPL_TABLE;
	if (want && strcmp(want, "pclmul") == 0 && cpu_has(IMPL_PCLMUL))
		return IMPL_PCLMUL;
	if (cpu_has(IMPL_VPCLMUL))
		return IMPL_VPCLMUL;
	if (cpu_has(IMPL_PCLMUL))
		return IMPL_PCLMUL;
	return IMPL_TABLE;
}

static int crc_impl; /* enum impl, resolved once; see the top of the file */

static inline enum impl impl(void)
{
	int i = __atomic_load_n(&crc_impl, __ATOMIC_RELAXED);
	if (__builtin_expect(i == IMPL_UNRESOLVED, 0)) {
		i = resolve();
		__atomic_store_n(&crc_impl, i, __ATOMIC_RELAXED);
	}
	return (enum impl)i;
}

uint32_t rs_crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	switch (impl()) {
#ifdef RS_CRC_X86
	case IMPL_VPCLMUL:
		return rs_crc32_update_vpclmul(crc, p, n);
	case IMPL_PCLMUL:
		return rs_crc32_update_pclmul(crc, p, n);
#endif
	default:
		return rs_crc32_update_table(crc, p, n);
	}
}

uint32_t rs_crc32_update2(uint32_t crc, const uint8_t *a, const uint8_t *a_or, size_t na, const uint8_t *b, size_t nb)
{
	switch (impl()) {
#ifdef RS_CRC_X86
	case IMPL_VPCLMUL:
		return rs_crc32_update2_vpclmul(crc, a, a_or, na, b, nb);
	case IMPL_PCLMUL:
		return rs_crc32_update2_pclmul(crc, a, a_or, na, b, nb);
#endif
	default: {
		uint8_t masked[RS_CRC_OR_MAX];
		a = or_into(masked, a, a_or, na);
		return rs_crc32_update_table(rs_crc32_update_table(crc, a, na), b, nb);
	}
	}
}

const char *rs_crc32_impl_name(void)
{
	static const char *const names[] = { "?", "table", "pclmul", "vpclmul" };
	return names[impl()];
}

bool rs_crc32_has_impl(const char *name)
{
	if (strcmp(name, "table") == 0)
		return true;
	if (strcmp(name, "pclmul") == 0)
		return cpu_has(IMPL_PCLMUL);
	if (strcmp(name, "vpclmul") == 0)
		return cpu_has(IMPL_VPCLMUL);
	return false;
}

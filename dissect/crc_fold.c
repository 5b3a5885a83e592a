/*
 * crc_fold.c — the ICRC's CRC-32 by carry-less multiplication, and the
 * choice of implementation.
 *
 * rocestat computes the ICRC over every byte of every RoCE frame; at tens of
 * gigabytes per minute the slicing-by-8 table (crc.c, about 1.5 GB/s) would
 * cost more than reading the capture. x86-64 CPUs with PCLMULQDQ multiply
 * 64-bit polynomials over GF(2) in one instruction, so the CRC can be
 * computed by "folding": keep a 128-bit accumulator A that has the same
 * remainder mod P as the message so far, and fold it D bits ahead onto the
 * data there, A' = A_lo * (x^(D+64) mod P) ^ A_hi * (x^D mod P) ^ next, until
 * 16 bytes remain; then reduce them to 32 bits (two folds and a Barrett
 * reduction). scripts/gen-crc-fold-constants.py derives the constants,
 * explains the bit order, and checks a model of exactly this code against
 * zlib before it writes crc_fold_constants.h.
 *
 * Three implementations compute the same function (tests/check_crc.c makes
 * sure, for random lengths and alignments):
 *   table    slicing-by-8 (crc.c): everywhere, and for fewer than 16 bytes
 *   pclmul   SSE + PCLMULQDQ: four 16-byte accumulators, 64 bytes per step
 *   vpclmul  AVX-512 + VPCLMULQDQ: four 64-byte accumulators, 256 bytes per
 *            step (for 256 bytes and more; shorter runs use pclmul)
 * They are compiled with target attributes, so the default build still runs
 * on any x86-64 and only calls what the CPU has (__builtin_cpu_supports);
 * other architectures get the table alone.
 *
 * Dispatch: rs_crc32_update() switches on one integer naming the
 * implementation, resolved on first use from the CPU's features and stored
 * atomically (every thread resolves the same value, so a race is harmless).
 * It is the dissector's only state, written once.
 *
 * rs_crc32_update2() takes two runs (the ICRC's masked headers, then the
 * packet in place) and, when the first is a multiple of 16 bytes, folds
 * straight from one into the other: one reduction per frame instead of two. ROCESTAT_CRC=table|pclmul|vpclmul in the environment
 * forces a path (for benchmarks; an unsupported choice falls back to the
 * best one available).
 */
#include <stdlib.h>
#include <string.h>

#include "dissect/internal.h"

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
#define VPCLMUL_TARGET __attribute__((target("pclmul,sse2,avx2,avx512f,avx512vl,vpclmulqdq")))

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

/* The folds of a run of n >= 16 bytes whose first 16 are XORed with
 * `init` (the CRC register so far in the low 32 bits, or the product of an
 * accumulator folded onto this run: see rs_crc32_update2). */
static PCLMUL_TARGET inline uint32_t pclmul_run(__m128i init, const uint8_t *p, size_t n)
{
	const __m128i k128 = k_load(rs_crc_k_fold128);
	__m128i a = _mm_xor_si128(load16(p), init);
	p += 16;
	n -= 16;
	if (n >= 48) {
		/* Four independent accumulators hide the multiplier's latency. */
		const __m128i k512 = k_load(rs_crc_k_fold512);
		__m128i a1 = load16(p), a2 = load16(p + 16), a3 = load16(p + 32);
		p += 48;
		n -= 48;
		while (n >= 64) {
			a = fold16(a, load16(p), k512);
			a1 = fold16(a1, load16(p + 16), k512);
			a2 = fold16(a2, load16(p + 32), k512);
			a3 = fold16(a3, load16(p + 48), k512);
			p += 64;
			n -= 64;
		}
		a = fold16(a, a1, k128);
		a = fold16(a, a2, k128);
		a = fold16(a, a3, k128);
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

static VPCLMUL_TARGET inline uint32_t vpclmul_run(__m128i init, const uint8_t *p, size_t n)
{
	const __m512i k2048 = _mm512_broadcast_i32x4(k_load(rs_crc_k_fold2048));
	const __m512i k512 = _mm512_broadcast_i32x4(k_load(rs_crc_k_fold512));
	const __m128i k128 = k_load(rs_crc_k_fold128);
	__m512i z0 = _mm512_xor_si512(load64(p), _mm512_zextsi128_si512(init));
	__m512i z1 = load64(p + 64), z2 = load64(p + 128), z3 = load64(p + 192);
	p += 256;
	n -= 256;
	while (n >= 256) {
		z0 = fold64(z0, load64(p), k2048);
		z1 = fold64(z1, load64(p + 64), k2048);
		z2 = fold64(z2, load64(p + 128), k2048);
		z3 = fold64(z3, load64(p + 192), k2048);
		p += 256;
		n -= 256;
	}
	z1 = fold64(z0, z1, k512);
	z2 = fold64(z1, z2, k512);
	z3 = fold64(z2, z3, k512);
	while (n >= 64) {
		z3 = fold64(z3, load64(p), k512);
		p += 64;
		n -= 64;
	}
	__m128i a = _mm512_extracti32x4_epi32(z3, 0);
	a = fold16(a, _mm512_extracti32x4_epi32(z3, 1), k128);
	a = fold16(a, _mm512_extracti32x4_epi32(z3, 2), k128);
	a = fold16(a, _mm512_extracti32x4_epi32(z3, 3), k128);
	while (n >= 16) {
		a = fold16(a, load16(p), k128);
		p += 16;
		n -= 16;
	}
	return tail(reduce128(a), p, n);
}

VPCLMUL_TARGET uint32_t rs_crc32_update_vpclmul(uint32_t crc, const uint8_t *p, size_t n)
{
	if (n < 256)
		return rs_crc32_update_pclmul(crc, p, n);
	return vpclmul_run(_mm_cvtsi32_si128((int)crc), p, n);
}

/* Two runs, a then b, without reducing in between: a (a multiple of 16
 * bytes) is folded into one accumulator, whose product with the 128-bit
 * constants is what b's first 16 bytes are XORed with. */
static PCLMUL_TARGET inline __m128i fold_head(uint32_t crc, const uint8_t *a, size_t na)
{
	const __m128i k128 = k_load(rs_crc_k_fold128);
	__m128i acc = _mm_xor_si128(load16(a), _mm_cvtsi32_si128((int)crc));
	for (size_t i = 16; i < na; i += 16)
		acc = fold16(acc, load16(a + i), k128);
	return fold16(acc, _mm_setzero_si128(), k128);
}

PCLMUL_TARGET uint32_t rs_crc32_update2_pclmul(uint32_t crc, const uint8_t *a, size_t na, const uint8_t *b,
					       size_t nb)
{
	if (na < 16 || na % 16 || nb < 16)
		return rs_crc32_update_pclmul(rs_crc32_update_pclmul(crc, a, na), b, nb);
	return pclmul_run(fold_head(crc, a, na), b, nb);
}

VPCLMUL_TARGET uint32_t rs_crc32_update2_vpclmul(uint32_t crc, const uint8_t *a, size_t na, const uint8_t *b,
						 size_t nb)
{
	if (na < 16 || na % 16 || nb < 16)
		return rs_crc32_update_vpclmul(rs_crc32_update_vpclmul(crc, a, na), b, nb);
	if (nb < 256)
		return pclmul_run(fold_head(crc, a, na), b, nb);
	return vpclmul_run(fold_head(crc, a, na), b, nb);
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
		       __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2");
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

uint32_t rs_crc32_update2(uint32_t crc, const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
	switch (impl()) {
#ifdef RS_CRC_X86
	case IMPL_VPCLMUL:
		return rs_crc32_update2_vpclmul(crc, a, na, b, nb);
	case IMPL_PCLMUL:
		return rs_crc32_update2_pclmul(crc, a, na, b, nb);
#endif
	default:
		return rs_crc32_update_table(rs_crc32_update_table(crc, a, na), b, nb);
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

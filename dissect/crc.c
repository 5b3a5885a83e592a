/*
 * crc.c — the two InfiniBand CRCs.
 *
 * ICRC (IBA vol 1 7.8.1; RoCE v2: Annex A17.4.5.2) is the CRC-32 of Ethernet
 * (reflected polynomial 0xEDB88320, initial value and final XOR 0xFFFFFFFF),
 * computed over the packet with its variant fields masked to ones, and
 * transmitted least significant byte first.
 *
 * VCRC (IBA vol 1 7.8.2) protects one link hop of native IB: CRC-16,
 * polynomial 0x100B, reflected, initial value and final XOR 0xFFFF, over the
 * LRH through the ICRC, also least significant byte first.
 *
 * The table-driven CRC-32 processes eight bytes per step (slicing-by-8). It
 * is the portable fallback and the reference of the carry-less-multiply
 * versions in crc_fold.c, where rs_crc32_update() picks one at run time.
 */
#include "dissect/crc_tables.h"
#include "dissect/internal.h"

uint32_t rs_crc32_update_table(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
		crc = rs_crc32_tab[7][lo & 0xFF] ^ rs_crc32_tab[6][(lo >> 8) & 0xFF] ^
		      rs_crc32_tab[5][(lo >> 16) & 0xFF] ^ rs_crc32_tab[4][lo >> 24] ^
		      rs_crc32_tab[3][hi & 0xFF] ^ rs_crc32_tab[2][(hi >> 8) & 0xFF] ^
		      rs_crc32_tab[1][(hi >> 16) & 0xFF] ^ rs_crc32_tab[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = rs_crc32_tab[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
	return crc;
}

/* a * b modulo the polynomial, both reflected (bit 31 is x^0). */
static uint32_t mulmod(uint32_t a, uint32_t b)
{
	uint32_t p = 0;
	for (uint32_t m = 1u << 31; m; m >>= 1) {
		if (a & m)
			p ^= b;
		b = b & 1 ? (b >> 1) ^ 0xEDB88320u : b >> 1;
	}
	return p;
}

/* n zero bytes multiply a CRC state by x^(8n): one multiplication per set
 * bit of n, by the powers x^(8 * 2^k) in rs_crc32_x8pow2. */
uint32_t rs_crc32_zeros(uint32_t crc, size_t n)
{
	for (unsigned k = 0; n && k < 32; k++, n >>= 1)
		if (n & 1)
			crc = mulmod(crc, rs_crc32_x8pow2[k]);
	return crc;
}

uint16_t rs_vcrc16(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xFFFF;
	while (n--)
		crc = (uint16_t)(rs_crc16_tab[(crc ^ *p++) & 0xFF] ^ (crc >> 8));
	return (uint16_t)(crc ^ 0xFFFF);
}

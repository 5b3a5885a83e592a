/*
 * content.c — a hash of the bytes of a RoCE / InfiniBand packet that do not
 * change on its way, for matching the same packet in two captures made at
 * two points (rocestat --compare): the BTH, the extension headers and the
 * payload as captured, i.e. from the BTH to the end of the payload. The
 * headers before the BTH change hop by hop (MACs, TTL, IP checksum, VLAN,
 * an LRH's LIDs), and so may the BTH's FECN and BECN bits (a switch marks
 * congestion in them): those two bits are left out. The ICRC is left out
 * too: it covers nothing the hash does not.
 */
#include "dissect/cursor.h"
#include "dissect/dissect.h"

#define FNV_OFFSET 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

uint64_t rs_frame_content_hash(const struct rs_frame *f, const uint8_t *pkt, uint32_t caplen)
{
	if (!(f->have & RS_HAVE_BTH) || !pkt || f->bth_off >= caplen)
		return 0;
	uint32_t end = (f->have & RS_HAVE_EXT) ? f->payload_off + f->payload_len : f->bth_off + 12;
	if (end > caplen || end < f->bth_off)
		end = caplen;
	struct rs_cursor c;
	rs_cur_init(&c, pkt, end);
	rs_cur_skip(&c, f->bth_off);
	uint64_t h = FNV_OFFSET;
	for (uint32_t i = 0; rs_cur_left(&c) > 0; i++) {
		uint8_t b = rs_cur_u8(&c);
		if (i == 8) /* BTH byte 8: FECN, BECN, then reserved bits */
			b &= 0x3F;
		h = (h ^ b) * FNV_PRIME;
	}
	/* 64-bit FNV-1a, then a final mix so that the low bits depend on all. */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h ? h : 1;
}

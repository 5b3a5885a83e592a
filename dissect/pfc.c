/*
 * pfc.c — MAC Control frames that pause a link: IEEE 802.3 Annex 31B PAUSE
 * and IEEE 802.1Qbb (802.1Q clause 36) Priority-based Flow Control. Neither
 * is RoCE; both stop RoCE traffic, so rocestat decodes them (RS_HAVE_PFC)
 * and the analyzer accounts their pause time per sender and priority.
 *
 * After the Ethernet header (type 0x8808; the destination is normally the
 * reserved 01-80-C2-00-00-01):
 *   PAUSE (802.3 31B.3.1), opcode 0x0001:
 *   +-------------+---------------+---------------------------+
 *   | opcode(16)  | pause_time(16) | reserved, zero (42)       |
 *   +-------------+---------------+---------------------------+
 *   PFC (802.1Q 36.1.3.1), opcode 0x0101:
 *   +-------------+----------------------------+---------------+-----+---------------+
 *   | opcode(16)  | rsv(8) | enable e7..e0 (8) | time[0](16)   | ... | time[7](16)   |
 *   +-------------+----------------------------+---------------+-----+---------------+
 * A time is in quanta of 512 bit times at the link's speed; e[n] set means
 * time[n] applies to priority n (0: stop pausing it now, "XON"); a cleared
 * e[n] leaves priority n as it was. Other MAC Control opcodes (GATE,
 * REPORT, ... of 802.3 Annex 31A) stay "not RoCE" and undecoded.
 *
 * A frame whose wire length cannot hold the opcode's fields is malformed;
 * one whose capture stops inside them is truncated.
 */
#include "dissect/internal.h"

#define PAUSE_LEN 4  /* opcode, pause_time */
#define PFC_LEN 20   /* opcode, enable vector, 8 times */

enum rs_outcome rs_dissect_mac_control(struct rs_dctx *d, uint32_t off, uint32_t wire_end)
{
	struct rs_frame *f = d->f;
	struct rs_cursor c = rs_cur_at(d, off);
	uint16_t opcode = rs_cur_be16(&c);
	if (c.overrun)
		return wire_end - off < 2 ? rs_not_roce(f) : rs_fail(f, RS_TRUNCATED, off,
			"MAC Control opcode cut by the capture length (%llu bytes captured)", d->caplen, 0);
	if (opcode != RS_MACC_PAUSE && opcode != RS_MACC_PFC)
		return rs_not_roce(f);
	uint32_t need = opcode == RS_MACC_PFC ? PFC_LEN : PAUSE_LEN;
	if (wire_end - off < need)
		return rs_fail(f, RS_MALFORMED, off, "MAC Control frame of %llu bytes is shorter than its fields (%llu)",
			       wire_end - off, need);
	struct rs_pfc *p = &d->x->pfc;
	p->opcode = opcode;
	if (opcode == RS_MACC_PFC) {
		p->enable_rsv = rs_cur_u8(&c);
		p->enable = rs_cur_u8(&c);
		for (int i = 0; i < 8; i++)
			p->quanta[i] = rs_cur_be16(&c);
	} else {
		p->enable_rsv = 0;
		p->enable = 0xFF; /* PAUSE stops every priority */
		uint16_t t = rs_cur_be16(&c);
		for (int i = 0; i < 8; i++)
			p->quanta[i] = t;
	}
	if (c.overrun)
		return rs_fail(f, RS_TRUNCATED, off, "PAUSE/PFC frame cut by the capture length (%llu bytes captured)",
			       d->caplen, 0);
	f->have |= RS_HAVE_PFC;
	f->pfc = p;
	rs_layer(d, RS_L_PFC, off, need);
	return rs_not_roce(f);
}

/*
 * other.c — the network header of a frame that is not RoCE, for the views
 * that name such frames in one line ("ARP request: who has 192.0.2.1?",
 * "IPv4 TCP 10.0.0.1:22 -> 10.0.0.2:51000"). rs_dissect() stops at the
 * first sign that a frame is not RoCE; this reads, through the cursor, the
 * little a view says about it: ARP (RFC 826) for IPv4, the IPv4 (RFC 791)
 * or IPv6 (RFC 8200) addresses and protocol, and the TCP or UDP ports.
 */
#include <string.h>

#include "dissect/internal.h"

static void ports(const uint8_t *pkt, uint32_t caplen, uint32_t off, struct rs_other *o)
{
	if (o->proto != 6 && o->proto != 17)
		return;
	struct rs_cursor c;
	rs_cur_init(&c, pkt + (off < caplen ? off : caplen), off < caplen ? caplen - off : 0);
	uint16_t sport = rs_cur_be16(&c), dport = rs_cur_be16(&c);
	if (c.overrun)
		return;
	o->have_ports = true;
	o->sport = sport;
	o->dport = dport;
}

void rs_dissect_other(const uint8_t *pkt, uint32_t caplen, uint16_t ethertype, uint32_t off, struct rs_other *o)
{
	struct rs_cursor c;
	memset(o, 0, sizeof *o);
	rs_cur_init(&c, pkt + (off < caplen ? off : caplen), off < caplen ? caplen - off : 0);
	if (!ethertype) { /* raw IP: the version says which */
		uint8_t v = rs_cur_u8(&c) >> 4;
		if (c.overrun || (v != 4 && v != 6))
			return;
		ethertype = v == 4 ? 0x0800 : 0x86DD;
		rs_cur_init(&c, pkt + off, caplen - off);
	}
	o->ethertype = ethertype;
	if (ethertype == 0x0806) {
		if (!rs_cur_has(&c, 28))
			return;
		rs_cur_skip(&c, 2); /* hardware type */
		uint16_t ptype = rs_cur_be16(&c);
		rs_cur_skip(&c, 2); /* address lengths */
		o->arp_op = rs_cur_be16(&c);
		rs_copy_or_zero(o->arp_sha, rs_cur_take(&c, 6), 6);
		rs_copy_or_zero(o->src, rs_cur_take(&c, 4), 4); /* sender protocol address */
		rs_cur_skip(&c, 6);
		rs_copy_or_zero(o->dst, rs_cur_take(&c, 4), 4); /* target protocol address */
		o->whole = ptype == 0x0800;
	} else if (ethertype == 0x0800) {
		if (!rs_cur_has(&c, 20))
			return;
		uint32_t ihl = (rs_cur_u8(&c) & 0x0F) * 4u;
		rs_cur_skip(&c, 5);
		o->fragment = rs_cur_be16(&c) & 0x1FFF;
		rs_cur_skip(&c, 1);
		o->proto = rs_cur_u8(&c);
		rs_cur_skip(&c, 2);
		rs_copy_or_zero(o->src, rs_cur_take(&c, 4), 4);
		rs_copy_or_zero(o->dst, rs_cur_take(&c, 4), 4);
		o->whole = true;
		if (!o->fragment)
			ports(pkt, caplen, off + ihl, o);
	} else if (ethertype == 0x86DD) {
		if (!rs_cur_has(&c, 40))
			return;
		rs_cur_skip(&c, 6);
		o->proto = rs_cur_u8(&c);
		rs_cur_skip(&c, 1);
		rs_copy_or_zero(o->src, rs_cur_take(&c, 16), 16);
		rs_copy_or_zero(o->dst, rs_cur_take(&c, 16), 16);
		o->whole = true;
		ports(pkt, caplen, off + 40, o);
	}
}

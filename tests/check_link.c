/*
 * check_link.c — link layers (dissect/link.c): the same RoCE packet wrapped
 * in Ethernet, 802.1Q, 802.1ad+802.1Q (QinQ), a tag stack deeper than
 * RS_MAX_VLAN, 802.3 length frames, Linux SLL and SLL2, raw IPv4/IPv6
 * (DLT_RAW, DLT_IPV4, DLT_IPV6), RoCE v1 (EtherType 0x8915), native
 * InfiniBand (LRH LNH=2, LNH=3 with GRH, VCRC), ERF (type 21 InfiniBand,
 * type 2 Ethernet with its 2-byte pad, an extension header chain) and an
 * unknown link type.
 */
#include <check.h>
#include <pcap/dlt.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/rstest.h"

/* The transport every frame carries. */
static const uint8_t transport[] = {
	/* BTH: opcode 0x06 RC_RDMA_WRITE_FIRST, SE/M/Pad/TVer 0, P_Key 0xFFFF */ 0x06, 0x00, 0xFF, 0xFF,
	/*      F/B/resv 0, DestQP 0x000011 */ 0x00, 0x00, 0x00, 0x11,
	/*      A 1, PSN 0x123456 */ 0x80, 0x12, 0x34, 0x56,
	/* RETH: VA 0x00007F0000001000, R_Key 0x00000ABC, DMA length 8 */
	0x00, 0x00, 0x7F, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x0A, 0xBC, 0x00, 0x00, 0x00, 0x08,
	/* payload: 8 bytes */ 'R', 'o', 'C', 'E', ' ', 'v', '2', '!',
};

static const uint8_t eth_ipv4[] = {
	/* Ethernet: dst 52:54:00:12:34:56, src 52:54:00:ab:cd:ef, type 0x0800 IPv4 */
	0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x52, 0x54, 0x00, 0xAB, 0xCD, 0xEF, 0x08, 0x00,
};

/* The IPv4 datagram (IPv4 + UDP 4791 + transport + ICRC), built once. */
static uint8_t ip4[256];
static uint32_t ip4_len;

static void setup(void)
{
	ip4_len = rt_wrap_ipv4(ip4, transport, sizeof transport);
}

static uint32_t cat(uint8_t *out, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
	memcpy(out, a, alen);
	memcpy(out + alen, b, blen);
	return (uint32_t)(alen + blen);
}

/* What every frame must decode to, whatever the link layer. */
static void same_transport(const struct rs_frame *f)
{
	ck_assert_msg(f->outcome == RS_OK, "%s", rt_why(f));
	ck_assert(f->have & RS_HAVE_BTH);
	ck_assert(f->have & RS_HAVE_EXT);
	ck_assert_uint_eq(f->bth.opcode, 0x06);
	ck_assert_uint_eq(f->bth.destqp, 0x11);
	ck_assert_uint_eq(f->bth.psn, 0x123456);
	ck_assert_uint_eq(f->bth.ackreq, 1);
	ck_assert_uint_eq(f->reth.va, 0x00007F0000001000ull);
	ck_assert_uint_eq(f->reth.rkey, 0xABC);
	ck_assert_uint_eq(f->reth.dmalen, 8);
	ck_assert_uint_eq(f->payload_len, 8);
	ck_assert_uint_eq(f->icrc_status, RS_CRC_OK);
	rt_assert_layers_tile(f);
}

static void v2_ipv4(const struct rs_frame *f, uint32_t ip_off)
{
	same_transport(f);
	ck_assert_uint_eq(f->roce, RS_ROCE_V2);
	ck_assert(f->have & RS_HAVE_IPV4);
	ck_assert_uint_eq(f->bth_off, ip_off + 28);
	ck_assert_uint_eq(rt_layer(f, RS_L_IPV4)->off, ip_off);
	char a[RS_ADDR_STRLEN];
	ck_assert_str_eq(rs_addr_format(&f->src, a), "192.0.2.1");
	ck_assert_str_eq(rs_addr_format(&f->dst, a), "192.0.2.2");
}

START_TEST(test_ethernet)
{
	uint8_t fr[512];
	struct rs_frame f;
	uint32_t n = cat(fr, eth_ipv4, sizeof eth_ipv4, ip4, ip4_len);
	rt_dissect_all(NULL, DLT_EN10MB, fr, n, n, &f);
	v2_ipv4(&f, 14);
	ck_assert_uint_eq(rt_cuts_checked, n); /* every shorter caplen was dissected too */
	ck_assert(f.have & RS_HAVE_ETH);
	ck_assert_uint_eq(f.ethertype, 0x0800);
	ck_assert_uint_eq(f.nvlan, 0);
	static const uint8_t dst[] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 }, src[] = { 0x52, 0x54, 0x00, 0xAB, 0xCD, 0xEF };
	ck_assert_mem_eq(f.eth_dst, dst, 6);
	ck_assert_mem_eq(f.eth_src, src, 6);
	ck_assert_uint_eq(f.walk->layers[0].id, RS_L_ETH);
	ck_assert_uint_eq(f.walk->layers[0].len, 14);

	/* Minimum-size padding plus an FCS after the datagram: a trailer. */
	memset(fr + n, 0xEE, 10);
	rt_dissect_all(NULL, DLT_EN10MB, fr, n + 10, n + 10, &f);
	v2_ipv4(&f, 14);
	ck_assert_uint_eq(f.trailer_len, 10);
	ck_assert_uint_eq(rt_layer(&f, RS_L_TRAILER)->len, 10);
}
END_TEST

START_TEST(test_vlan)
{
	static const uint8_t dot1q[] = {
		/* Ethernet: dst, src */ 0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x52, 0x54, 0x00, 0xAB, 0xCD, 0xEF,
		/* 802.1Q: TPID 0x8100, PCP 3 DEI 0 VID 100 (0x6064), type 0x0800 */ 0x81, 0x00, 0x60, 0x64, 0x08, 0x00,
	};
	static const uint8_t qinq[] = {
		/* Ethernet: dst, src */ 0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x52, 0x54, 0x00, 0xAB, 0xCD, 0xEF,
		/* 802.1ad S-tag: TPID 0x88A8, PCP 5 DEI 1 VID 10 (0xB00A) */ 0x88, 0xA8, 0xB0, 0x0A,
		/* 802.1Q C-tag: TPID 0x8100, PCP 0 VID 20 (0x0014), type 0x0800 */ 0x81, 0x00, 0x00, 0x14, 0x08, 0x00,
	};
	uint8_t fr[512];
	struct rs_frame f;
	uint32_t n = cat(fr, dot1q, sizeof dot1q, ip4, ip4_len);
	rt_dissect_all(NULL, DLT_EN10MB, fr, n, n, &f);
	v2_ipv4(&f, 18);
	ck_assert_uint_eq(f.nvlan, 1);
	ck_assert_uint_eq(f.vlan_tpid[0], 0x8100);
	ck_assert_uint_eq(f.vlan_tci[0], 0x6064);
	ck_assert_uint_eq(f.vlan_tci[0] >> 13, 3);      /* PCP */
	ck_assert_uint_eq(f.vlan_tci[0] & 0xFFF, 100);  /* VID */
	ck_assert_uint_eq(f.ethertype, 0x0800);

	n = cat(fr, qinq, sizeof qinq, ip4, ip4_len);
	rt_dissect_all(NULL, DLT_EN10MB, fr, n, n, &f);
	v2_ipv4(&f, 22);
	ck_assert_uint_eq(f.nvlan, 2);
	ck_assert_uint_eq(f.vlan_tpid[0], 0x88A8);
	ck_assert_uint_eq(f.vlan_tci[0] & 0xFFF, 10);
	ck_assert_uint_eq(f.vlan_tci[0] >> 13, 5);
	ck_assert_uint_eq((f.vlan_tci[0] >> 12) & 1, 1); /* DEI */
	ck_assert_uint_eq(f.vlan_tpid[1], 0x8100);
	ck_assert_uint_eq(f.vlan_tci[1] & 0xFFF, 20);
	ck_assert_uint_eq(rt_layer(&f, RS_L_VLAN)->off, 14);
}
END_TEST

/* RS_MAX_VLAN (8) tags decode; a ninth is reported unsupported. */
START_TEST(test_vlan_too_deep)
{
	uint8_t fr[512];
	struct rs_frame f;
	for (unsigned tags = 8; tags <= 9; tags++) {
		uint32_t n = 12;
		memcpy(fr, eth_ipv4, 12);
		for (unsigned i = 0; i < tags; i++) {
			/* TPID 0x8100, VID i+1 */
			rt_be16(fr + n, 0x8100);
			rt_be16(fr + n + 2, (uint16_t)(i + 1));
			n += 4;
		}
		/* type 0x0800 */ rt_be16(fr + n, 0x0800);
		n += 2;
		memcpy(fr + n, ip4, ip4_len);
		n += ip4_len;
		rt_dissect_all(NULL, DLT_EN10MB, fr, n, n, &f);
		if (tags == RS_MAX_VLAN) {
			v2_ipv4(&f, 14 + 4 * tags);
			ck_assert_uint_eq(f.nvlan, 8);
			ck_assert_uint_eq(f.vlan_tci[7], 8);
		} else {
			ck_assert_int_eq(f.outcome, RS_UNSUPPORTED);
			ck_assert_msg(rt_why_has(&f, "more than 8 stacked VLAN tags"), "%s", rt_why(&f));
			/* at the ninth tag, after its TPID (the TPID ends the previous header) */
			ck_assert_uint_eq(f.why_off, 14 + 4 * 8);
		}
	}
}
END_TEST

/* An IEEE 802.3 frame: the type field is a length (<= 1500): LLC, never RoCE. */
START_TEST(test_8023_length)
{
	static const uint8_t llc[] = {
		/* 802.3: dst 01:80:c2:00:00:00 (STP), src, length 38 */
		0x01, 0x80, 0xC2, 0x00, 0x00, 0x00, 0x52, 0x54, 0x00, 0xAB, 0xCD, 0xEF, 0x00, 0x26,
		/* LLC: DSAP 0x42, SSAP 0x42, control 0x03 */ 0x42, 0x42, 0x03,
		/* BPDU ... */ 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0x00, 0x52, 0x54, 0x00, 0xAB, 0xCD, 0xEF, 0x00, 0x00, 0x00,
		0x00, 0x80, 0x00, 0x52, 0x54, 0x00, 0xAB, 0xCD, 0xEF, 0x80, 0x01, 0x00, 0x00, 0x14, 0x00, 0x02, 0x00, 0x0F,
		0x00,
	};
	struct rs_frame f;
	rt_dissect_all(NULL, DLT_EN10MB, llc, sizeof llc, sizeof llc, &f);
	ck_assert_int_eq(f.outcome, RS_NOT_ROCE);
	ck_assert_uint_eq(f.roce, RS_ROCE_NONE);
	/* Even when what follows the length would look like IPv4 + RoCE. */
	uint8_t fr[512];
	uint32_t n = cat(fr, eth_ipv4, sizeof eth_ipv4, ip4, ip4_len);
	rt_be16(fr + 12, (uint16_t)ip4_len);
	rt_dissect_all(NULL, DLT_EN10MB, fr, n, n, &f);
	ck_assert_int_eq(f.outcome, RS_NOT_ROCE);
	/* And an EtherType that is not IP nor RoCE v1: ARP. */
	rt_be16(fr + 12, 0x0806);
	rt_dissect_all(NULL, DLT_EN10MB, fr, n, n, &f);
	ck_assert_int_eq(f.outcome, RS_NOT_ROCE);
}
END_TEST

START_TEST(test_sll)
{
	static const uint8_t sll[] = {
		/* SLL: packet type 0 (to us), ARPHRD_ETHER 1, address length 6 */ 0x00, 0x00, 0x00, 0x01, 0x00, 0x06,
		/*      address 52:54:00:ab:cd:ef + 2 pad bytes */ 0x52, 0x54, 0x00, 0xAB, 0xCD, 0xEF, 0x00, 0x00,
		/*      protocol 0x0800 */ 0x08, 0x00,
	};
	static const uint8_t sll2[] = {
		/* SLL2: protocol 0x0800, reserved 0 */ 0x08, 0x00, 0x00, 0x00,
		/*       interface index 3 */ 0x00, 0x00, 0x00, 0x03,
		/*       ARPHRD_ETHER 1, packet type 4 (outgoing), address length 6 */ 0x00, 0x01, 0x04, 0x06,
		/*       address 52:54:00:12:34:56 + 2 pad bytes */ 0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x00, 0x00,
	};
	uint8_t fr[512];
	struct rs_frame f;
	uint32_t n = cat(fr, sll, sizeof sll, ip4, ip4_len);
	rt_dissect_all(NULL, DLT_LINUX_SLL, fr, n, n, &f);
	v2_ipv4(&f, 16);
	ck_assert(f.have & RS_HAVE_SLL);
	ck_assert_uint_eq(f.sll_pkttype, 0);
	ck_assert_uint_eq(f.sll_hatype, 1);
	ck_assert_uint_eq(f.walk->layers[0].id, RS_L_SLL);

	n = cat(fr, sll2, sizeof sll2, ip4, ip4_len);
	rt_dissect_all(NULL, DLT_LINUX_SLL2, fr, n, n, &f);
	v2_ipv4(&f, 20);
	ck_assert_uint_eq(f.sll_pkttype, 4);
	ck_assert_uint_eq(f.sll_hatype, 1);
	ck_assert_uint_eq(f.sll_ifindex, 3);
	ck_assert_uint_eq(f.walk->layers[0].id, RS_L_SLL2);

	/* SLL protocol below 0x0600 (e.g. ETH_P_802_2 = 4): not RoCE. */
	n = cat(fr, sll, sizeof sll, ip4, ip4_len);
	rt_be16(fr + 14, 0x0004);
	rt_dissect_all(NULL, DLT_LINUX_SLL, fr, n, n, &f);
	ck_assert_int_eq(f.outcome, RS_NOT_ROCE);
}
END_TEST

/* An IPv6 RoCE v2 datagram around the same transport. */
static uint32_t build_ipv6(uint8_t *out)
{
	static const uint8_t hdr[] = {
		/* IPv6: version 6, traffic class 0x02 (ECT0), flow label 0x12345 */ 0x60, 0x21, 0x23, 0x45,
		/*       payload length (filled in), next header 17 UDP, hop limit 64 */ 0x00, 0x00, 0x11, 0x40,
		/*       source 2001:db8::1 */ 0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01,
		/*       destination 2001:db8::2 */ 0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02,
		/* UDP: source port 49152, destination 4791, length (filled in), checksum 0 */
		0xC0, 0x00, 0x12, 0xB7, 0x00, 0x00, 0x00, 0x00,
	};
	uint32_t udplen = 8 + sizeof transport + 4;
	memcpy(out, hdr, sizeof hdr);
	rt_be16(out + 4, (uint16_t)udplen);
	rt_be16(out + 44, (uint16_t)udplen);
	memcpy(out + 48, transport, sizeof transport);
	uint32_t n = 40 + udplen;
	rt_le32(out + n - 4, rt_icrc_v2(out, 40, n));
	return n;
}

START_TEST(test_raw_ip)
{
	uint8_t v6[256];
	uint32_t n6 = build_ipv6(v6);
	struct rs_frame f;
	char a[RS_ADDR_STRLEN];

	rt_dissect_all(NULL, DLT_RAW, ip4, ip4_len, ip4_len, &f);
	v2_ipv4(&f, 0);
	rt_dissect_all(NULL, DLT_IPV4, ip4, ip4_len, ip4_len, &f);
	v2_ipv4(&f, 0);

	rt_dissect_all(NULL, DLT_RAW, v6, n6, n6, &f);
	same_transport(&f);
	ck_assert(f.have & RS_HAVE_IPV6);
	ck_assert_uint_eq(f.ip_version, 6);
	rt_dissect_all(NULL, DLT_IPV6, v6, n6, n6, &f);
	same_transport(&f);
	ck_assert_uint_eq(f.src.kind, RS_ADDR_IPV6);
	ck_assert_str_eq(rs_addr_format(&f.src, a), "2001:db8::1");
	ck_assert_str_eq(rs_addr_format(&f.dst, a), "2001:db8::2");
	ck_assert_uint_eq(f.dscp, 0);
	ck_assert_uint_eq(f.ecn, 2);
	ck_assert_uint_eq(f.flow_label, 0x12345);
	ck_assert_uint_eq(f.ttl, 64);

	/* DLT_RAW with a version nibble that is neither 4 nor 6: not RoCE. */
	uint8_t junk[sizeof ip4];
	memcpy(junk, ip4, ip4_len);
	junk[0] = 0x55;
	rt_dissect_all(NULL, DLT_RAW, junk, ip4_len, ip4_len, &f);
	ck_assert_int_eq(f.outcome, RS_NOT_ROCE);
}
END_TEST

/* RoCE v1 (Annex A16): EtherType 0x8915, GRH, BTH ... ICRC. */
START_TEST(test_roce_v1)
{
	static const uint8_t hdr[] = {
		/* Ethernet: dst, src, type 0x8915 RoCE */
		0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x52, 0x54, 0x00, 0xAB, 0xCD, 0xEF, 0x89, 0x15,
		/* GRH: IPVer 6, TClass 0x00, FlowLabel 0 */ 0x60, 0x00, 0x00, 0x00,
		/*      PayLen (filled in), NxtHdr 0x1B (IBA), HopLmt 1 */ 0x00, 0x00, 0x1B, 0x01,
		/*      SGID fe80::5054:ff:feab:cdef */ 0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xFF, 0xFE, 0xAB, 0xCD, 0xEF,
		/*      DGID fe80::5054:ff:fe12:3456 */ 0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0x00, 0xFF, 0xFE, 0x12, 0x34, 0x56,
	};
	uint8_t fr[512];
	struct rs_frame f;
	char a[RS_ADDR_STRLEN];
	uint32_t n = cat(fr, hdr, sizeof hdr, transport, sizeof transport);
	uint32_t paylen = sizeof transport + 4;
	rt_be16(fr + 14 + 4, (uint16_t)paylen);
	rt_le32(fr + n, rt_icrc_v1(fr + 14, 40 + paylen));
	n += 4;
	rt_dissect_all(NULL, DLT_EN10MB, fr, n, n, &f);
	same_transport(&f);
	ck_assert_uint_eq(f.roce, RS_ROCE_V1);
	ck_assert(f.have & RS_HAVE_GRH);
	ck_assert_uint_eq(f.grh.nxthdr, 0x1B);
	ck_assert_uint_eq(f.grh.paylen, paylen);
	ck_assert_uint_eq(f.src.kind, RS_ADDR_GID);
	ck_assert_str_eq(rs_addr_format(&f.src, a), "fe80::5054:ff:feab:cdef");
	ck_assert_uint_eq(f.bth_off, 54);
}
END_TEST

/* A native IB packet: LRH (+ GRH) + transport + ICRC + VCRC. */
static uint32_t build_ib(uint8_t *out, bool global)
{
	static const uint8_t lrh_local[] = {
		/* LRH: VL 0, LVer 0; SL 0, rsv, LNH 2 (IBA local) */ 0x00, 0x02,
		/*      DLID 0x0003 */ 0x00, 0x03,
		/*      rsv 0, PktLen (filled in, 4-byte words) */ 0x00, 0x00,
		/*      SLID 0x0001 */ 0x00, 0x01,
	};
	static const uint8_t lrh_grh[] = {
		/* LRH: VL 1, LVer 0; SL 2, LNH 3 (IBA global) */ 0x10, 0x23,
		/*      DLID 0xC001, PktLen (filled in), SLID 0x0005 */ 0xC0, 0x01, 0x00, 0x00, 0x00, 0x05,
		/* GRH: IPVer 6, TClass 0, FlowLabel 0 */ 0x60, 0x00, 0x00, 0x00,
		/*      PayLen (filled in), NxtHdr 0x1B, HopLmt 0xFF */ 0x00, 0x00, 0x1B, 0xFF,
		/*      SGID fe80::2:c903:0:1 */ 0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xC9, 0x03, 0x00, 0x00, 0x00, 0x01,
		/*      DGID ff12:401b:ffff::1 (multicast) */ 0xFF, 0x12, 0x40, 0x1B, 0xFF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
	};
	const uint8_t *h = global ? lrh_grh : lrh_local;
	uint32_t hlen = global ? sizeof lrh_grh : sizeof lrh_local;
	uint32_t n = cat(out, h, hlen, transport, sizeof transport);
	uint32_t bytes = n + 4; /* + ICRC */
	rt_be16(out + 4, (uint16_t)(bytes / 4));
	if (global)
		rt_be16(out + 8 + 4, (uint16_t)(bytes - 8 - 40));
	rt_le32(out + n, rt_icrc_ib(out, bytes));
	rt_le16(out + bytes, rt_vcrc(out, bytes));
	return bytes + 2;
}

static void ib_checks(const struct rs_frame *f, bool global)
{
	same_transport(f);
	ck_assert_uint_eq(f->roce, RS_ROCE_IB);
	ck_assert(f->have & RS_HAVE_LRH);
	ck_assert(f->have & RS_HAVE_VCRC);
	ck_assert_uint_eq(f->vcrc_status, RS_CRC_OK);
	ck_assert_uint_eq(f->lrh.lnh, global ? 3 : 2);
	char a[RS_ADDR_STRLEN];
	if (global) {
		ck_assert(f->have & RS_HAVE_GRH);
		ck_assert_uint_eq(f->lrh.vl, 1);
		ck_assert_uint_eq(f->lrh.sl, 2);
		ck_assert_uint_eq(f->lrh.dlid, 0xC001);
		ck_assert_str_eq(rs_addr_format(&f->dst, a), "ff12:401b:ffff::1");
		ck_assert_uint_eq(f->grh.hoplmt, 0xFF);
	} else {
		ck_assert(!(f->have & RS_HAVE_GRH));
		ck_assert_uint_eq(f->lrh.dlid, 3);
		ck_assert_uint_eq(f->lrh.slid, 1);
		ck_assert_uint_eq(f->src.kind, RS_ADDR_LID);
		ck_assert_str_eq(rs_addr_format(&f->src, a), "1");
		ck_assert_str_eq(rs_addr_format(&f->dst, a), "3");
	}
	const struct rs_layer *v = rt_layer(f, RS_L_VCRC);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(v->len, 2);
}

START_TEST(test_infiniband)
{
	uint8_t fr[512];
	struct rs_frame f;
	for (int global = 0; global <= 1; global++) {
		uint32_t n = build_ib(fr, global);
		rt_dissect_all(NULL, DLT_INFINIBAND, fr, n, n, &f);
		ib_checks(&f, global);
		ck_assert_uint_eq(f.lrh.pktlen * 4u, n - 2);
		/* A corrupted VCRC is reported, the ICRC is still fine. */
		fr[n - 1] ^= 0x01;
		rt_dissect_all(NULL, DLT_INFINIBAND, fr, n, n, &f);
		ck_assert_uint_eq(f.vcrc_status, RS_CRC_BAD);
		ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
	}
	/* LNH 0/1 (raw, IP non-IBA): not decoded. */
	uint32_t n = build_ib(fr, false);
	fr[1] = 0x01;
	rt_dissect_all(NULL, DLT_INFINIBAND, fr, n, n, &f);
	ck_assert_int_eq(f.outcome, RS_UNSUPPORTED);
	ck_assert_msg(rt_why_has(&f, "LRH next header 1"), "%s", rt_why(&f));
}
END_TEST

/* ERF record header: ts (LE: fraction, seconds), type, flags, rlen, lctr, wlen. */
static uint32_t erf_header(uint8_t *out, uint8_t type, uint32_t rlen, uint16_t wlen)
{
	static const uint8_t hdr[] = {
		/* ERF: timestamp, little-endian 64-bit: fraction 0x80000000 (0.5 s), seconds 1700000000 */
		0x00, 0x00, 0x00, 0x80, 0x00, 0xF1, 0x53, 0x65,
		/*      type (filled in), flags 0x04 (varying length), rlen (filled in) */ 0x00, 0x04, 0x00, 0x00,
		/*      loss counter 0, wlen (filled in) */ 0x00, 0x00, 0x00, 0x00,
	};
	memcpy(out, hdr, sizeof hdr);
	out[8] = type;
	rt_be16(out + 10, (uint16_t)rlen);
	rt_be16(out + 14, wlen);
	return sizeof hdr;
}

START_TEST(test_erf)
{
	uint8_t fr[1024], ib[512];
	struct rs_frame f;
	const uint64_t ts = 1700000000ull * 1000000000ull + 500000000ull;

	/* Type 21: InfiniBand, LRH right after the 16-byte header. */
	for (int global = 0; global <= 1; global++) {
		uint32_t ibn = build_ib(ib, global);
		uint32_t n = erf_header(fr, 21, 16 + ibn, (uint16_t)ibn);
		memcpy(fr + n, ib, ibn);
		n += ibn;
		rt_dissect_all(NULL, DLT_ERF, fr, n, n, &f);
		ib_checks(&f, global);
		ck_assert(f.have & RS_HAVE_ERF);
		ck_assert_uint_eq(f.erf_type, 21);
		ck_assert_uint_eq(f.erf_ts_ns, ts);
		ck_assert_uint_eq(rs_frame_time_ns(&f, 42), ts);
		ck_assert_uint_eq(f.walk->layers[0].id, RS_L_ERF);
		ck_assert_uint_eq(f.walk->layers[0].len, 16);
	}

	/* Type 2: Ethernet after a 2-byte offset/pad; wlen counts the frame. */
	uint32_t eth = cat(ib, eth_ipv4, sizeof eth_ipv4, ip4, ip4_len);
	uint32_t n = erf_header(fr, 2, 16 + 2 + eth, (uint16_t)eth);
	/* pad: offset 0, reserved */ fr[n] = 0x00;
	fr[n + 1] = 0x00;
	memcpy(fr + n + 2, ib, eth);
	n += 2 + eth;
	rt_dissect_all(NULL, DLT_ERF, fr, n, n, &f);
	v2_ipv4(&f, 16 + 2 + 14);
	ck_assert_uint_eq(f.erf_type, 2);
	ck_assert(f.have & RS_HAVE_ETH);
	ck_assert_uint_eq(f.walk->layers[0].len, 18); /* the pad is part of the ERF layer */
	ck_assert_uint_eq(f.walk->layers[1].id, RS_L_ETH);
	ck_assert_uint_eq(f.walk->layers[1].off, 18);

	/* Type 2 with an extension header chain: type bit 7 says one follows,
	 * each 8-byte extension header's bit 7 says another one does. */
	n = erf_header(fr, 0x80 | 2, 16 + 16 + 2 + eth, (uint16_t)eth);
	static const uint8_t ext[] = {
		/* ext 1: type 0x80|0x03 (more follow), 7 bytes of data */ 0x83, 1, 2, 3, 4, 5, 6, 7,
		/* ext 2: type 0x05 (last), 7 bytes */ 0x05, 1, 2, 3, 4, 5, 6, 7,
	};
	memcpy(fr + n, ext, sizeof ext);
	n += sizeof ext;
	fr[n] = fr[n + 1] = 0; /* pad */
	memcpy(fr + n + 2, ib, eth);
	n += 2 + eth;
	rt_dissect_all(NULL, DLT_ERF, fr, n, n, &f);
	v2_ipv4(&f, 16 + 16 + 2 + 14);
	ck_assert_uint_eq(f.erf_type, 2);
	ck_assert_uint_eq(f.walk->layers[0].len, 34); /* header, both extension headers, pad */

	/* A record padded beyond wlen: the padding is a trailer, not data. */
	n = erf_header(fr, 2, 16 + 2 + eth + 6, (uint16_t)eth);
	fr[n] = fr[n + 1] = 0;
	memcpy(fr + n + 2, ib, eth);
	memset(fr + n + 2 + eth, 0, 6);
	n += 2 + eth + 6;
	rt_dissect_all(NULL, DLT_ERF, fr, n, n, &f);
	ck_assert_msg(f.outcome == RS_OK, "%s", rt_why(&f));
	ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);

	/* A record type we do not decode (e.g. 1, HDLC POS): unsupported. */
	n = erf_header(fr, 1, 64, 48);
	memset(fr + n, 0, 48);
	n += 48;
	rt_dissect_all(NULL, DLT_ERF, fr, n, n, &f);
	ck_assert_int_eq(f.outcome, RS_UNSUPPORTED);
	ck_assert_msg(rt_why_has(&f, "ERF record type 1"), "%s", rt_why(&f));
}
END_TEST

START_TEST(test_unknown_linktype)
{
	uint8_t fr[512];
	struct rs_frame f;
	uint32_t n = cat(fr, eth_ipv4, sizeof eth_ipv4, ip4, ip4_len);
	ck_assert(!rs_linktype_supported(DLT_USER0));
	ck_assert(!rs_linktype_supported(DLT_IEEE802_11));
	rt_dissect_all(NULL, DLT_USER0, fr, n, n, &f);
	ck_assert_int_eq(f.outcome, RS_UNSUPPORTED);
	ck_assert_uint_eq(f.roce, RS_ROCE_NONE);
	ck_assert_msg(rt_why_has(&f, "link type 147"), "%s", rt_why(&f));
	ck_assert_str_eq(rs_outcome_name(RS_UNSUPPORTED), "unsupported");

	static const int supported[] = { DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW, DLT_IPV4,
					 DLT_IPV6, DLT_INFINIBAND, DLT_ERF };
	for (size_t i = 0; i < sizeof supported / sizeof supported[0]; i++)
		ck_assert(rs_linktype_supported(supported[i]));
	ck_assert_str_eq(rs_linktype_name(DLT_LINUX_SLL2), "LINUX_SLL2");
	ck_assert_str_eq(rs_linktype_name(DLT_INFINIBAND), "INFINIBAND");

	/* caplen above wirelen is a broken capture record. */
	rt_dissect_all(NULL, DLT_EN10MB, fr, n, n - 1, &f);
	ck_assert_int_eq(f.outcome, RS_MALFORMED);
}
END_TEST

static Suite *link_suite(void)
{
	Suite *s = suite_create("link");
	TCase *tc = tcase_create("link");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_ethernet);
	tcase_add_test(tc, test_vlan);
	tcase_add_test(tc, test_vlan_too_deep);
	tcase_add_test(tc, test_8023_length);
	tcase_add_test(tc, test_sll);
	tcase_add_test(tc, test_raw_ip);
	tcase_add_test(tc, test_roce_v1);
	tcase_add_test(tc, test_infiniband);
	tcase_add_test(tc, test_erf);
	tcase_add_test(tc, test_unknown_linktype);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(link_suite());
}

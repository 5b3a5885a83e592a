/*
 * check_ip.c — IPv4, IPv6 and UDP as RoCE v2 carriers (dissect/ip.c,
 * IBA Annex A17.4): options and extension headers (the ICRC still verifies),
 * what is not RoCE, extra RoCE ports, lengths that lie (malformed, naming
 * the field) or leave a trailer, and fragments.
 */
#include <check.h>
#include <pcap/dlt.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/rstest.h"

static const uint8_t transport[] = {
	/* BTH: opcode 0x04 RC_SEND_ONLY, SE/M/Pad/TVer 0, P_Key 0xFFFF */ 0x04, 0x00, 0xFF, 0xFF,
	/*      F/B/resv 0, DestQP 0x0000D2 */ 0x00, 0x00, 0x00, 0xD2,
	/*      A 1, PSN 0x000100 */ 0x80, 0x00, 0x01, 0x00,
	/* payload: 8 bytes */ 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
};

static const uint8_t eth[] = {
	/* Ethernet: dst 02:00:00:00:00:02, src 02:00:00:00:00:01, type 0x0800 IPv4 */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00,
};

static uint8_t fr[512];
static uint32_t n;   /* frame length */
static struct rs_frame f;

/* The plain frame: Ethernet + IPv4 (IHL 5) + UDP 4791 + transport + ICRC. */
static void plain(void)
{
	n = rt_wrap_v2(fr, transport, sizeof transport);
}

static enum rs_outcome dissect(const struct rs_dissect_opts *o, uint32_t len)
{
	return rt_dissect_all(o, DLT_EN10MB, fr, len, len, &f);
}

/* Recompute the IPv4 checksum and the ICRC after editing an IPv4 frame. */
static void refresh_v4(void)
{
	uint8_t *ip = fr + 14;
	unsigned hl = (ip[0] & 0x0F) * 4u;
	uint16_t total = (uint16_t)(ip[2] << 8 | ip[3]);
	rt_ipv4_csum(ip);
	rt_le32(ip + total - 4, rt_icrc_v2(ip, hl, total));
}

START_TEST(test_ipv4_fields)
{
	plain();
	fr[14 + 1] = 0x6B; /* TOS: DSCP 26 (AF31), ECN 3 (CE) */
	fr[14 + 8] = 7;    /* TTL 7 */
	refresh_v4();
	ck_assert_int_eq(dissect(NULL, n), RS_OK);
	ck_assert_uint_eq(f.ip_version, 4);
	ck_assert_uint_eq(f.dscp, 26);
	ck_assert_uint_eq(f.ecn, 3);
	ck_assert_uint_eq(f.ttl, 7);
	ck_assert_uint_eq(f.ip_id, 0x1234);
	ck_assert_uint_eq(f.ip_hdr_len, 20);
	ck_assert_uint_eq(f.ip_total_len, n - 14);
	ck_assert_uint_eq(f.udp_sport, 49152);
	ck_assert_uint_eq(f.udp_dport, 4791);
	ck_assert_uint_eq(f.udp_len, n - 14 - 20);
	ck_assert_uint_eq(f.trailer_len, 0);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
	rt_assert_layers_tile(&f);
}
END_TEST

/* IHL 7: 8 bytes of options (Router Alert + NOPs + End). The options are
 * covered by the ICRC; TOS, TTL and the checksum stay masked. */
START_TEST(test_ipv4_options)
{
	static const uint8_t ipopt[] = {
		/* IPv4: ver 4 / IHL 7 (28 bytes), TOS 0x02, total length (filled in) */ 0x47, 0x02, 0x00, 0x00,
		/*       id 0x0001, flags DF, offset 0 */ 0x00, 0x01, 0x40, 0x00,
		/*       TTL 64, protocol 17 UDP, checksum (filled in) */ 0x40, 0x11, 0x00, 0x00,
		/*       source 10.0.0.1, destination 10.0.0.2 */ 10, 0, 0, 1, 10, 0, 0, 2,
		/*       options: Router Alert (0x94, len 4, value 0) */ 0x94, 0x04, 0x00, 0x00,
		/*                NOP, NOP, NOP, End of options */ 0x01, 0x01, 0x01, 0x00,
		/* UDP: source port 1234, destination 4791, length (filled in), checksum 0 */
		0x04, 0xD2, 0x12, 0xB7, 0x00, 0x00, 0x00, 0x00,
	};
	memcpy(fr, eth, 14);
	memcpy(fr + 14, ipopt, sizeof ipopt);
	memcpy(fr + 14 + sizeof ipopt, transport, sizeof transport);
	uint16_t total = (uint16_t)(sizeof ipopt + sizeof transport + 4);
	rt_be16(fr + 14 + 2, total);
	rt_be16(fr + 14 + 28 + 4, (uint16_t)(total - 28));
	n = 14 + total;
	refresh_v4();
	ck_assert_int_eq(dissect(NULL, n), RS_OK);
	ck_assert_uint_eq(f.ip_hdr_len, 28);
	ck_assert_uint_eq(rt_layer(&f, RS_L_IPV4)->len, 28);
	ck_assert_uint_eq(f.udp_sport, 1234);
	ck_assert_uint_eq(f.bth_off, 14 + 28 + 8);
	ck_assert_uint_eq(f.bth.destqp, 0xD2);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
	rt_assert_layers_tile(&f);

	/* Masked fields may change in flight ... */
	fr[14 + 1] = 0xFF;
	fr[14 + 8] = 1;
	fr[14 + 10] ^= 0x5A;
	ck_assert_int_eq(dissect(NULL, n), RS_OK);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
	/* ... the options may not. */
	fr[14 + 22] ^= 0x01;
	ck_assert_int_eq(dissect(NULL, n), RS_OK);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_BAD);
}
END_TEST

static uint32_t build_v6_hbh(uint8_t *out)
{
	static const uint8_t hdr[] = {
		/* Ethernet: dst, src, type 0x86DD IPv6 */
		0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x86, 0xDD,
		/* IPv6: version 6, traffic class 0xB8 (DSCP 46 EF, ECN 0), flow label 0xABCDE */ 0x6B, 0x8A, 0xBC, 0xDE,
		/*       payload length (filled in), next header 0 (hop-by-hop), hop limit 255 */ 0x00, 0x00, 0x00, 0xFF,
		/*       source fd00::1 */ 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		/*       destination fd00::2 */ 0xFD, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
		/* Hop-by-hop: next header 17 UDP, length 0 (8 bytes), PadN option (type 1, len 4) */
		0x11, 0x00, 0x01, 0x04, 0x00, 0x00, 0x00, 0x00,
		/* UDP: source port 49152, destination 4791, length (filled in), checksum 0 */
		0xC0, 0x00, 0x12, 0xB7, 0x00, 0x00, 0x00, 0x00,
	};
	memcpy(out, hdr, sizeof hdr);
	memcpy(out + sizeof hdr, transport, sizeof transport);
	uint16_t udplen = (uint16_t)(8 + sizeof transport + 4);
	rt_be16(out + 14 + 4, (uint16_t)(8 + udplen));
	rt_be16(out + 14 + 48 + 4, udplen);
	uint32_t len = (uint32_t)(sizeof hdr + sizeof transport + 4);
	/* The extension header is covered by the ICRC as sent. */
	rt_le32(out + len - 4, rt_icrc_v2(out + 14, 48, len - 14));
	return len;
}

START_TEST(test_ipv6_hop_by_hop)
{
	char a[RS_ADDR_STRLEN];
	n = build_v6_hbh(fr);
	ck_assert_int_eq(dissect(NULL, n), RS_OK);
	ck_assert_uint_eq(f.ip_version, 6);
	ck_assert(f.have & RS_HAVE_IPV6);
	ck_assert_uint_eq(f.dscp, 46);
	ck_assert_uint_eq(f.ecn, 0);
	ck_assert_uint_eq(f.flow_label, 0xABCDE);
	ck_assert_uint_eq(f.ttl, 255);
	ck_assert_str_eq(rs_addr_format(&f.src, a), "fd00::1");
	ck_assert_uint_eq(f.bth_off, 14 + 40 + 8 + 8);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
	/* Ethernet, IPv6, IPv6 ext, UDP in that order, tiling the frame. */
	ck_assert_uint_eq(f.walk->layers[1].id, RS_L_IPV6);
	ck_assert_uint_eq(f.walk->layers[2].id, RS_L_IPV6_EXT);
	ck_assert_uint_eq(f.walk->layers[2].len, 8);
	ck_assert_uint_eq(f.walk->layers[3].id, RS_L_UDP);
	rt_assert_layers_tile(&f);

	/* A fragment header (44) with offset 0 in front of UDP 4791: unsupported. */
	fr[14 + 6] = 44;
	fr[14 + 40 + 1] = 0x00; /* fragment header: next 17, reserved, offset 0 + M, id */
	fr[14 + 40 + 2] = 0x00;
	fr[14 + 40 + 3] = 0x01;
	ck_assert_int_eq(dissect(NULL, n), RS_UNSUPPORTED);
	ck_assert_msg(rt_why_has(&f, "fragmented"), "%s", rt_why(&f));
	/* Offset 8 (a later fragment): no UDP header in it, not RoCE. */
	fr[14 + 40 + 2] = 0x00;
	fr[14 + 40 + 3] = 0x08;
	ck_assert_int_eq(dissect(NULL, n), RS_NOT_ROCE);
}
END_TEST

START_TEST(test_not_roce)
{
	plain();
	fr[14 + 9] = 6; /* protocol TCP */
	ck_assert_int_eq(dissect(NULL, n), RS_NOT_ROCE);
	ck_assert_uint_eq(f.roce, RS_ROCE_NONE);
	plain();
	rt_be16(fr + 34 + 2, 53); /* UDP to port 53 */
	ck_assert_int_eq(dissect(NULL, n), RS_NOT_ROCE);
	plain();
	rt_be16(fr + 34, 4791); /* 4791 as the *source* port only */
	rt_be16(fr + 34 + 2, 4792);
	ck_assert_int_eq(dissect(NULL, n), RS_NOT_ROCE);
	/* A broken non-RoCE datagram is skipped, not reported. */
	plain();
	rt_be16(fr + 34 + 2, 53);
	rt_be16(fr + 14 + 2, 1400); /* total length past the frame */
	ck_assert_int_eq(dissect(NULL, n), RS_NOT_ROCE);
}
END_TEST

START_TEST(test_extra_ports)
{
	struct rs_dissect_opts o = { .extra_ports = { 1000, 4792 }, .n_extra_ports = 2 };
	plain();
	rt_be16(fr + 34 + 2, 4792);
	refresh_v4(); /* the UDP ports are covered by the ICRC */
	ck_assert_int_eq(dissect(NULL, n), RS_NOT_ROCE);
	ck_assert_int_eq(dissect(&o, n), RS_OK);
	ck_assert_uint_eq(f.roce, RS_ROCE_V2);
	ck_assert_uint_eq(f.udp_dport, 4792);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
	/* 4791 stays RoCE with extra ports configured. */
	plain();
	ck_assert_int_eq(dissect(&o, n), RS_OK);
	/* A port listed beyond n_extra_ports is ignored. */
	o.n_extra_ports = 1;
	rt_be16(fr + 34 + 2, 4792);
	ck_assert_int_eq(dissect(&o, n), RS_NOT_ROCE);
}
END_TEST

START_TEST(test_lengths)
{
	/* IPv4 total length longer than the frame: malformed, naming the field. */
	plain();
	rt_be16(fr + 14 + 2, (uint16_t)(n - 14 + 4));
	ck_assert_int_eq(dissect(NULL, n), RS_MALFORMED);
	ck_assert_msg(rt_why_has(&f, "IPv4 total length"), "%s", rt_why(&f));
	ck_assert_uint_eq(f.why_off, 14 + 2);

	/* Shorter than the frame: the rest is a trailer (Ethernet padding). */
	plain();
	memset(fr + n, 0, 6);
	ck_assert_int_eq(dissect(NULL, n + 6), RS_OK);
	ck_assert_uint_eq(f.trailer_len, 6);
	ck_assert_uint_eq(f.payload_len, 8);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_OK);
	rt_assert_layers_tile(&f);

	/* Total length below the header length. */
	plain();
	rt_be16(fr + 14 + 2, 16);
	ck_assert_int_eq(dissect(NULL, n), RS_MALFORMED);
	ck_assert_msg(rt_why_has(&f, "shorter than its header"), "%s", rt_why(&f));

	/* UDP length disagreeing with the IP payload, both ways. */
	plain();
	rt_be16(fr + 34 + 4, (uint16_t)(n - 34 + 4));
	ck_assert_int_eq(dissect(NULL, n), RS_MALFORMED);
	ck_assert_msg(rt_why_has(&f, "UDP length"), "%s", rt_why(&f));
	ck_assert_uint_eq(f.why_off, 34 + 4);
	plain();
	rt_be16(fr + 34 + 4, (uint16_t)(n - 34 - 4));
	ck_assert_int_eq(dissect(NULL, n), RS_MALFORMED);
	ck_assert_msg(rt_why_has(&f, "disagrees"), "%s", rt_why(&f));
	plain();
	rt_be16(fr + 34 + 4, 4);
	ck_assert_int_eq(dissect(NULL, n), RS_MALFORMED);

	/* IPv6 payload length past the frame. */
	n = build_v6_hbh(fr);
	rt_be16(fr + 14 + 4, 1000);
	ck_assert_int_eq(dissect(NULL, n), RS_MALFORMED);
	ck_assert_msg(rt_why_has(&f, "IPv6 payload length 1000"), "%s", rt_why(&f));
	ck_assert_uint_eq(f.why_off, 14 + 4);
}
END_TEST

/* Frames a capture sliced (snaplen, or a sniffer's cut). A sniffer that also rewrites the
 * record's original length to the cut leaves an IP length past the frame;
 * the UDP length agreeing with it says the frame was cut, not that the
 * length lies. */
START_TEST(test_sliced)
{
	uint32_t cut = 14 + 20 + 8 + 12 + 2; /* the headers and 2 payload bytes */

	/* Cut with the original length kept (tcpdump -s): sliced, snap length. */
	plain();
	ck_assert_int_eq(rs_dissect(NULL, DLT_EN10MB, fr, cut, n, &f, rt_ext_of(&f)), RS_OK);
	ck_assert_uint_eq(f.sliced, RS_SLICE_SNAPLEN);
	ck_assert_uint_eq(f.payload_len, 8);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_UNCHECKED);
	ck_assert_uint_eq(rs_frame_wirelen(&f, n), n);

	/* Cut with the original length rewritten to the cut: sliced, rewritten;
	 * the frame's length on the link is where its IP datagram ends. */
	ck_assert_int_eq(rs_dissect(NULL, DLT_EN10MB, fr, cut, cut, &f, rt_ext_of(&f)), RS_OK);
	ck_assert_uint_eq(f.sliced, RS_SLICE_REWRITTEN);
	ck_assert_uint_eq(f.sliced_wirelen, n);
	ck_assert_uint_eq(rs_frame_wirelen(&f, cut), n);
	ck_assert_uint_eq(f.payload_len, 8);
	ck_assert_uint_eq(f.bth.destqp, 0xD2);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_UNCHECKED);

	/* Whole: not sliced. */
	ck_assert_int_eq(dissect(NULL, n), RS_OK);
	ck_assert_uint_eq(f.sliced, RS_SLICE_NONE);

	/* Rewritten, but the UDP length disagrees with the IP length: that
	 * length lies, the frame is malformed. */
	rt_be16(fr + 34 + 4, (uint16_t)(n - 34 + 4));
	ck_assert_int_eq(rs_dissect(NULL, DLT_EN10MB, fr, cut, cut, &f, rt_ext_of(&f)), RS_MALFORMED);
	ck_assert_msg(rt_why_has(&f, "IPv4 total length"), "%s", rt_why(&f));
	ck_assert_uint_eq(f.sliced, RS_SLICE_NONE);

	/* Rewritten before the UDP length was captured: nothing agrees. */
	plain();
	ck_assert_int_eq(rs_dissect(NULL, DLT_EN10MB, fr, 14 + 20 + 4, 14 + 20 + 4, &f, rt_ext_of(&f)), RS_MALFORMED);

	/* Rewritten inside the BTH: sliced is for frames whose headers were
	 * kept; this one is truncated. */
	ck_assert_int_eq(rs_dissect(NULL, DLT_EN10MB, fr, 14 + 20 + 8 + 6, 14 + 20 + 8 + 6, &f, rt_ext_of(&f)), RS_TRUNCATED);

	/* IPv6, rewritten: the UDP length after the extension header agrees. */
	n = build_v6_hbh(fr);
	cut = 14 + 40 + 8 + 8 + 12;
	ck_assert_int_eq(rs_dissect(NULL, DLT_EN10MB, fr, cut, cut, &f, rt_ext_of(&f)), RS_OK);
	ck_assert_uint_eq(f.sliced, RS_SLICE_REWRITTEN);
	ck_assert_uint_eq(f.sliced_wirelen, n);
	ck_assert_uint_eq(f.icrc_status, RS_CRC_UNCHECKED);
}
END_TEST

START_TEST(test_ipv4_fragments)
{
	/* First fragment (MF set, offset 0) to 4791: unsupported. */
	plain();
	fr[14 + 6] = 0x20; /* flags MF, offset 0 */
	fr[14 + 7] = 0x00;
	ck_assert_int_eq(dissect(NULL, n), RS_UNSUPPORTED);
	ck_assert_msg(rt_why_has(&f, "fragmented"), "%s", rt_why(&f));
	ck_assert_uint_eq(f.why_off, 14 + 6);
	/* A later fragment (offset 185 * 8): no UDP header, not RoCE. */
	fr[14 + 6] = 0x00;
	fr[14 + 7] = 185;
	ck_assert_int_eq(dissect(NULL, n), RS_NOT_ROCE);
	ck_assert_uint_eq(f.roce, RS_ROCE_NONE);
	/* The last fragment of a series (MF clear, offset != 0): not RoCE either. */
	fr[14 + 6] = 0x20;
	ck_assert_int_eq(dissect(NULL, n), RS_NOT_ROCE);
}
END_TEST

START_TEST(test_bad_version)
{
	plain();
	fr[14] = 0x65; /* version 6 under EtherType IPv4 */
	ck_assert_int_eq(dissect(NULL, n), RS_MALFORMED);
	ck_assert_msg(rt_why_has(&f, "IPv4 version field is 6"), "%s", rt_why(&f));
	plain();
	fr[14] = 0x44; /* IHL 4 */
	ck_assert_int_eq(dissect(NULL, n), RS_MALFORMED);
	ck_assert_msg(rt_why_has(&f, "IPv4 header length 16"), "%s", rt_why(&f));
}
END_TEST

static Suite *ip_suite(void)
{
	Suite *s = suite_create("ip");
	TCase *tc = tcase_create("ip");
	tcase_add_test(tc, test_ipv4_fields);
	tcase_add_test(tc, test_ipv4_options);
	tcase_add_test(tc, test_ipv6_hop_by_hop);
	tcase_add_test(tc, test_not_roce);
	tcase_add_test(tc, test_extra_ports);
	tcase_add_test(tc, test_lengths);
	tcase_add_test(tc, test_sliced);
	tcase_add_test(tc, test_ipv4_fragments);
	tcase_add_test(tc, test_bad_version);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(ip_suite());
}

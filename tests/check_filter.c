/*
 * check_filter.c — the default capture filter, compiled by libpcap and run
 * on hand-made frames: RoCE v1, RoCE v2 over IPv4 and IPv6 (and on an extra
 * --roce-port), each untagged, behind one VLAN tag and behind two (802.1ad
 * outer + 802.1Q inner); and what must not pass: UDP with 4791 as the
 * source port only, TCP, ARP. Then the same with a user filter ANDed on,
 * which must still look at the right offsets in every case (libpcap's `vlan`
 * shifts the offsets of what follows it).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>

#include "capture/live.h"
#include "tests/support/rstest.h"

enum kind { V1, V2_4, V2_6, V2_4_EXTRA, UDP_SPORT_ONLY, TCP4, ARP, NKINDS };
static const char *kind_name[] = { "v1", "v2/ipv4", "v2/ipv6", "v2/ipv4 port 9999", "udp sport 4791", "tcp", "arp" };

/* A frame of `kind` behind `tags` VLAN tags, from 192.0.2.2 / 2001:db8::2
 * to 192.0.2.1 / 2001:db8::1. Returns its length. */
static size_t make_frame(uint8_t *f, enum kind kind, int tags)
{
	size_t n = 0;
	static const uint8_t macs[12] = { 0x52, 0x54, 0, 0, 0, 1, 0x52, 0x54, 0, 0, 0, 2 };
	memcpy(f, macs, 12);
	n = 12;
	static const uint16_t tpid[2][2] = { { 0x8100, 0 }, { 0x88a8, 0x8100 } };
	for (int t = 0; t < tags; t++) {
		uint16_t tp = tpid[tags - 1][t];
		f[n++] = (uint8_t)(tp >> 8);
		f[n++] = (uint8_t)tp;
		f[n++] = 0;
		f[n++] = (uint8_t)(10 + t); /* VID */
	}
	uint16_t etype = kind == V1 ? 0x8915 : kind == V2_6 ? 0x86dd : kind == ARP ? 0x0806 : 0x0800;
	f[n++] = (uint8_t)(etype >> 8);
	f[n++] = (uint8_t)etype;
	size_t l3 = n;
	memset(f + n, 0, 120);
	if (kind == V1) {
		f[n] = 0x60; /* GRH */
		f[n + 6] = 0x1b;
		n += 40 + 12 + 16;
	} else if (kind == ARP) {
		static const uint8_t arp[8] = { 0, 1, 8, 0, 6, 4, 0, 1 };
		memcpy(f + n, arp, 8);
		n += 28;
	} else if (kind == V2_6) {
		f[n] = 0x60;
		f[n + 4] = 0;
		f[n + 5] = 8 + 12 + 16;
		f[n + 6] = 17;
		f[n + 7] = 64;
		static const uint8_t s[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 }, d[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
		memcpy(f + n + 8, s, 16);
		memcpy(f + n + 24, d, 16);
		n += 40;
	} else {
		f[n] = 0x45;
		f[n + 3] = 20 + 8 + 12 + 16;
		f[n + 8] = 64;
		f[n + 9] = kind == TCP4 ? 6 : 17;
		f[n + 12] = 192, f[n + 13] = 0, f[n + 14] = 2, f[n + 15] = 2;
		f[n + 16] = 192, f[n + 17] = 0, f[n + 18] = 2, f[n + 19] = 1;
		n += 20;
	}
	if (kind != V1 && kind != ARP) {
		uint16_t sport = kind == UDP_SPORT_ONLY ? 4791 : 50000;
		uint16_t dport = kind == V2_4_EXTRA ? 9999 : kind == UDP_SPORT_ONLY ? 50001 : kind == TCP4 ? 4791 : 4791;
		f[n] = (uint8_t)(sport >> 8), f[n + 1] = (uint8_t)sport;
		f[n + 2] = (uint8_t)(dport >> 8), f[n + 3] = (uint8_t)dport;
		if (kind != TCP4)
			f[n + 5] = 8 + 12 + 16;
		else
			f[n + 12] = 0x50;
		n += kind == TCP4 ? 20 : 8;
		n += 12 + 16; /* BTH + payload */
	}
	(void)l3;
	return n < 60 ? 60 : n;
}

static bool passes(const char *expr, enum kind kind, int tags)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, 262144);
	struct bpf_program prog;
	ck_assert_msg(pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN) == 0, "%s: %s", expr, pcap_geterr(p));
	uint8_t f[256];
	struct pcap_pkthdr h = { 0 };
	h.caplen = h.len = (bpf_u_int32)make_frame(f, kind, tags);
	bool ok = pcap_offline_filter(&prog, &h, f) != 0;
	pcap_freecode(&prog);
	pcap_close(p);
	return ok;
}

static const uint16_t extra[] = { 9999 };

START_TEST(roce_only)
{
	char *f = rs_capture_filter(false, extra, 1, NULL);
	for (int tags = 0; tags <= 2; tags++)
		for (int k = 0; k < NKINDS; k++) {
			bool want = k <= V2_4_EXTRA;
			ck_assert_msg(passes(f, (enum kind)k, tags) == want, "%s with %d tags: %s by \"%s\"",
				      kind_name[k], tags, want ? "dropped" : "passed", f);
		}
	free(f);
}
END_TEST

START_TEST(extra_port_only_when_asked)
{
	char *f = rs_capture_filter(false, NULL, 0, NULL);
	for (int tags = 0; tags <= 2; tags++)
		ck_assert(!passes(f, V2_4_EXTRA, tags));
	free(f);
}
END_TEST

START_TEST(user_filter_narrows_at_the_right_offsets)
{
	/* "src host 192.0.2.2" holds for every IPv4 frame made here; "ip6" for
	 * the IPv6 one; "dst host 192.0.2.9" for none. */
	char *f = rs_capture_filter(false, extra, 1, "src host 192.0.2.2");
	char *g = rs_capture_filter(false, extra, 1, "ip6");
	char *h = rs_capture_filter(false, extra, 1, "dst host 192.0.2.9");
	for (int tags = 0; tags <= 2; tags++)
		for (int k = 0; k < NKINDS; k++) {
			bool v2_4 = k == V2_4 || k == V2_4_EXTRA;
			ck_assert_msg(passes(f, (enum kind)k, tags) == v2_4, "%s, %d tags, \"%s\"", kind_name[k], tags, f);
			ck_assert_msg(passes(g, (enum kind)k, tags) == (k == V2_6), "%s, %d tags, \"%s\"", kind_name[k],
				      tags, g);
			ck_assert_msg(!passes(h, (enum kind)k, tags), "%s, %d tags, \"%s\"", kind_name[k], tags, h);
		}
	free(f);
	free(g);
	free(h);
}
END_TEST

START_TEST(user_vlan_filter_peels_tags_first)
{
	/* One tag has VID 10; two tags have VIDs 10 (outer) and 11 (inner). */
	char *one = rs_capture_filter(false, NULL, 0, "vlan 10");
	char *two = rs_capture_filter(false, NULL, 0, "vlan 10 and vlan 11");
	for (int tags = 0; tags <= 2; tags++)
		for (int k = 0; k < NKINDS; k++) {
			bool roce = k <= V2_6;
			ck_assert_msg(passes(one, (enum kind)k, tags) == (roce && tags == 1), "%s, %d tags, \"%s\"",
				      kind_name[k], tags, one);
			ck_assert_msg(passes(two, (enum kind)k, tags) == (roce && tags == 2), "%s, %d tags, \"%s\"",
				      kind_name[k], tags, two);
		}
	free(one);
	free(two);
}
END_TEST

START_TEST(all_means_the_user_filter_alone)
{
	ck_assert_ptr_null(rs_capture_filter(true, extra, 1, NULL));
	ck_assert_ptr_null(rs_capture_filter(true, extra, 1, ""));
	char *f = rs_capture_filter(true, extra, 1, "arp");
	ck_assert_str_eq(f, "arp");
	free(f);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("filter");
	TCase *t = tcase_create("filter");
	tcase_add_test(t, roce_only);
	tcase_add_test(t, extra_port_only_when_asked);
	tcase_add_test(t, user_filter_narrows_at_the_right_offsets);
	tcase_add_test(t, user_vlan_filter_peels_tags_first);
	tcase_add_test(t, all_means_the_user_filter_alone);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	return rt_run_suite(suite());
}

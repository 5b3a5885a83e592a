/*
 * check_icrc.c — the ICRC (IBA vol 1 7.8.1; RoCE v2 Annex A17.4.5.2) and the
 * VCRC (IBA 7.8.2) on every real capture in samples/ and under ../shared.
 *
 *  (a) every RoCE / IB frame of every capture verifies RS_CRC_OK, and the
 *      ICRC on the wire also equals the test's own bit-by-bit reference
 *      (tests/support/rstest.c), so the masks themselves are checked against
 *      real hardware/rxe output, not only against the dissector;
 *  (b) for the first 20 RoCE frames of each capture, flipping any single bit
 *      of the BTH (except byte 4, which is masked), of everything after it up
 *      to the ICRC, and of the ICRC itself gives RS_CRC_BAD; so do the
 *      invariant IP addresses and UDP source port, and the LRH of LNH=2;
 *  (c) changing a masked field keeps RS_CRC_OK: IPv4 TOS (DSCP/ECN), TTL and
 *      header checksum, UDP checksum, BTH byte 4 (FECN/BECN/Resv6); IPv6
 *      traffic class, flow label and hop limit; native IB LNH=2 the LRH VL
 *      nibble; LNH=3 the whole LRH and the GRH TClass/FlowLabel/HopLmt;
 *  (d) opts.skip_icrc leaves RS_CRC_UNCHECKED; a frame cut anywhere before
 *      the end of its ICRC is RS_CRC_UNCHECKED, never BAD.
 */
#include <check.h>
#include <pcap/dlt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/rstest.h"

#define SAMPLE 20 /* frames per capture for (b)-(d) */

struct stats {
	unsigned frames, roce, ib, flips, masked, cuts;
	unsigned sampled; /* RoCE frames of the current capture seen so far */
	bool v6, grh, lrh_local;
	unsigned kinds[4];
};

static bool is_transport(const struct rs_frame *f)
{
	return f->roce != RS_ROCE_NONE && (f->have & RS_HAVE_BTH);
}

/* Offsets from the dissector's layer list (where each header starts); the
 * CRC values compared are computed independently. */
static int layer_off(const struct rs_frame *f, enum rs_layer_id id)
{
	for (unsigned i = 0; i < f->walk->nlayers; i++)
		if (f->walk->layers[i].id == id)
			return (int)f->walk->layers[i].off;
	return -1;
}

/* The ICRC of the frame as the test's reference computes it. */
static uint32_t reference_icrc(const struct rs_frame *f, const uint8_t *pkt)
{
	uint32_t icrc_end = f->bth_off + f->transport_len;
	if (f->roce == RS_ROCE_V2) {
		int ip = layer_off(f, f->ip_version == 4 ? RS_L_IPV4 : RS_L_IPV6);
		int udp = layer_off(f, RS_L_UDP);
		ck_assert(ip >= 0 && udp > ip);
		return rt_icrc_v2(pkt + ip, (size_t)(udp - ip), icrc_end - (uint32_t)ip);
	}
	if (f->roce == RS_ROCE_V1) {
		int g = layer_off(f, RS_L_GRH);
		return rt_icrc_v1(pkt + g, icrc_end - (uint32_t)g);
	}
	int l = layer_off(f, RS_L_LRH);
	ck_assert(l >= 0);
	return rt_icrc_ib(pkt + l, icrc_end - (uint32_t)l);
}

static void dissect_ok(const char *file, unsigned n, int dlt, const uint8_t *pkt, uint32_t len, struct rs_frame *f)
{
	rs_dissect(NULL, dlt, pkt, len, len, f, rt_ext_of(f));
	ck_assert_msg(f->icrc_status == RS_CRC_OK, "%s frame %u: ICRC %s (wire %08x, computed %08x; %s)",
		      rt_basename(file), n, rs_crc_status_name((enum rs_crc_status)f->icrc_status), f->icrc,
		      f->icrc_calc, rt_why(f));
}

/* Dissect a modified copy; return the verdicts. */
static void redo(int dlt, const uint8_t *pkt, uint32_t len, struct rs_frame *g)
{
	rs_dissect(NULL, dlt, pkt, len, len, g, rt_ext_of(g));
}

/* (b): one bit flipped at byte `at` must give a bad ICRC (and a bad VCRC on
 * native IB, which covers every byte). */
static void flip_bad(struct stats *s, const char *file, unsigned n, int dlt, uint8_t *buf, uint32_t len,
		     uint32_t at, const char *what)
{
	struct rs_frame *g = malloc(sizeof *g);
	for (int bit = 0; bit < 8; bit++) {
		buf[at] ^= (uint8_t)(1u << bit);
		redo(dlt, buf, len, g);
		ck_assert_msg(g->icrc_status == RS_CRC_BAD, "%s frame %u: %s byte %u bit %d flipped: ICRC %s (%s)",
			      rt_basename(file), n, what, at, bit,
			      rs_crc_status_name((enum rs_crc_status)g->icrc_status), rt_why(g));
		if (g->roce == RS_ROCE_IB)
			ck_assert_msg(g->vcrc_status == RS_CRC_BAD, "%s frame %u: %s byte %u bit %d: VCRC not bad",
				      rt_basename(file), n, what, at, bit);
		buf[at] ^= (uint8_t)(1u << bit);
		s->flips++;
	}
	rt_frame_free(g);
}

/* (c): setting a masked byte to every value keeps the ICRC ok. `and`/`or`
 * select the masked bits of that byte. Returns nothing; asserts. */
static void masked_ok(struct stats *s, const char *file, unsigned n, int dlt, uint8_t *buf, uint32_t len,
		      uint32_t at, uint8_t mask, const char *what)
{
	struct rs_frame *g = malloc(sizeof *g);
	uint8_t orig = buf[at];
	for (unsigned v = 0; v < 256; v++) {
		buf[at] = (uint8_t)((orig & ~mask) | (v & mask));
		redo(dlt, buf, len, g);
		ck_assert_msg(g->icrc_status == RS_CRC_OK, "%s frame %u: %s byte %u set to 0x%02x: ICRC %s (%s)",
			      rt_basename(file), n, what, at, buf[at],
			      rs_crc_status_name((enum rs_crc_status)g->icrc_status), rt_why(g));
		s->masked++;
	}
	buf[at] = orig;
	rt_frame_free(g);
}

static void each_frame(void *ctx, const char *file, unsigned n, int dlt, const uint8_t *pkt, uint32_t caplen,
		       uint32_t wirelen)
{
	struct stats *s = ctx;
	struct rs_frame *f = malloc(sizeof *f);

	s->frames++;
	ck_assert_uint_eq(caplen, wirelen); /* the shared captures are not snapped */
	rs_dissect(NULL, dlt, pkt, caplen, wirelen, f, rt_ext_of(f));
	if (!is_transport(f)) {
		rt_frame_free(f);
		return;
	}

	/* (a) */
	dissect_ok(file, n, dlt, pkt, caplen, f);
	uint32_t ref = reference_icrc(f, pkt);
	ck_assert_msg(f->icrc == ref, "%s frame %u: wire ICRC %08x, reference %08x", rt_basename(file), n, f->icrc,
		      ref);
	s->roce++;
	rt_assert_layers_tile(f); /* and the layers cover the frame exactly */
	if (f->roce == RS_ROCE_IB) {
		int l = layer_off(f, RS_L_LRH);
		uint32_t bytes = f->lrh.pktlen * 4u;
		ck_assert_msg(f->vcrc_status == RS_CRC_OK, "%s frame %u: VCRC %s", rt_basename(file), n,
			      rs_crc_status_name((enum rs_crc_status)f->vcrc_status));
		ck_assert_uint_eq(f->vcrc, rt_vcrc(pkt + l, bytes));
		s->ib++;
	}
	/* Under RT_SPARSE (memcheck) two frames of each kind in a capture (IPv4
	 * or v1, IPv6, IB local, IB global) take the flips and cuts below:
	 * each is a whole decode again, along the same paths. */
	unsigned kind = f->roce == RS_ROCE_IB ? 2u + (f->lrh.lnh != 2) : f->roce == RS_ROCE_V2 && f->ip_version == 6;
	if (rt_sparse() > 1 ? s->kinds[kind]++ >= 2 : s->sampled++ >= SAMPLE) {
		rt_frame_free(f);
		return;
	}

	uint8_t *buf = malloc(caplen);
	memcpy(buf, pkt, caplen);
	uint32_t bth = f->bth_off, icrc_off = bth + f->transport_len - 4;

	/* (b) BTH except byte 4, everything after it, the ICRC. */
	for (uint32_t i = bth; i < icrc_off + 4; i++) {
		if (i == bth + 4)
			continue;
		flip_bad(s, file, n, dlt, buf, caplen, i,
			 i < bth + 12 ? "BTH" : i < icrc_off ? "headers/payload" : "ICRC");
	}
	/* ... and invariant network-layer fields. */
	if (f->roce == RS_ROCE_V2) {
		int ip = layer_off(f, f->ip_version == 4 ? RS_L_IPV4 : RS_L_IPV6);
		int udp = layer_off(f, RS_L_UDP);
		uint32_t a = f->ip_version == 4 ? 12 : 8, alen = f->ip_version == 4 ? 8 : 32;
		for (uint32_t i = 0; i < alen; i++)
			flip_bad(s, file, n, dlt, buf, caplen, (uint32_t)ip + a + i, "IP address");
		flip_bad(s, file, n, dlt, buf, caplen, (uint32_t)udp, "UDP source port");
		flip_bad(s, file, n, dlt, buf, caplen, (uint32_t)udp + 1, "UDP source port");
	} else if (f->roce == RS_ROCE_IB && f->lrh.lnh == 2) {
		int l = layer_off(f, RS_L_LRH);
		/* DLID and SLID (bytes 2-3, 6-7) are covered on a local packet. */
		for (uint32_t i = 2; i < 4; i++)
			flip_bad(s, file, n, dlt, buf, caplen, (uint32_t)l + i, "LRH DLID");
		for (uint32_t i = 6; i < 8; i++)
			flip_bad(s, file, n, dlt, buf, caplen, (uint32_t)l + i, "LRH SLID");
	}

	/* (c) masked fields. */
	masked_ok(s, file, n, dlt, buf, caplen, bth + 4, 0xFF, "BTH FECN/BECN/Resv6");
	if (f->roce == RS_ROCE_V2 && f->ip_version == 4) {
		int ip = layer_off(f, RS_L_IPV4);
		int udp = layer_off(f, RS_L_UDP);
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)ip + 1, 0xFF, "IPv4 TOS (DSCP/ECN)");
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)ip + 8, 0xFF, "IPv4 TTL");
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)ip + 10, 0xFF, "IPv4 checksum");
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)ip + 11, 0xFF, "IPv4 checksum");
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)udp + 6, 0xFF, "UDP checksum");
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)udp + 7, 0xFF, "UDP checksum");
	} else if (f->roce == RS_ROCE_V2) {
		int ip = layer_off(f, RS_L_IPV6);
		int udp = layer_off(f, RS_L_UDP);
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)ip + 0, 0x0F, "IPv6 traffic class");
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)ip + 1, 0xFF, "IPv6 traffic class/flow label");
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)ip + 2, 0xFF, "IPv6 flow label");
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)ip + 3, 0xFF, "IPv6 flow label");
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)ip + 7, 0xFF, "IPv6 hop limit");
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)udp + 6, 0xFF, "UDP checksum");
		masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)udp + 7, 0xFF, "UDP checksum");
		/* The version nibble is not masked: 6 -> anything else is no IPv6. */
		s->v6 = true;
	} else if (f->roce == RS_ROCE_IB) {
		int l = layer_off(f, RS_L_LRH);
		if (f->lrh.lnh == 2) {
			masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)l, 0xF0, "LRH VL");
			s->lrh_local = true;
		} else {
			int g = layer_off(f, RS_L_GRH);
			/* LNH=3: the whole LRH is replaced by ones, except what
			 * says where the packet is (LNH, PktLen): VL/LVer, SL,
			 * DLID, SLID. */
			masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)l, 0xFF, "LRH VL/LVer");
			masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)l + 1, 0xFC, "LRH SL/rsv");
			for (uint32_t i = 2; i < 4; i++)
				masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)l + i, 0xFF, "LRH DLID");
			for (uint32_t i = 6; i < 8; i++)
				masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)l + i, 0xFF, "LRH SLID");
			masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)g + 0, 0x0F, "GRH TClass");
			masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)g + 1, 0xFF, "GRH TClass/FlowLabel");
			masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)g + 2, 0xFF, "GRH FlowLabel");
			masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)g + 3, 0xFF, "GRH FlowLabel");
			masked_ok(s, file, n, dlt, buf, caplen, (uint32_t)g + 7, 0xFF, "GRH HopLmt");
			s->grh = true;
		}
	}
	ck_assert_mem_eq(buf, pkt, caplen); /* every change was undone */

	/* (d) skip_icrc, and every cut before the end of the ICRC. */
	struct rs_dissect_opts skip = { .skip_icrc = true };
	rs_dissect(&skip, dlt, pkt, caplen, wirelen, f, rt_ext_of(f));
	ck_assert_uint_eq(f->icrc_status, RS_CRC_UNCHECKED);
	ck_assert_uint_eq(f->vcrc_status, RS_CRC_UNCHECKED);
	for (uint32_t cut = 0; cut < icrc_off + 4; cut++) {
		rt_dissect(NULL, dlt, pkt, cut, wirelen, f);
		ck_assert_msg(f->icrc_status == RS_CRC_UNCHECKED, "%s frame %u cut to %u bytes: ICRC %s",
			      rt_basename(file), n, cut, rs_crc_status_name((enum rs_crc_status)f->icrc_status));
		s->cuts++;
	}
	free(buf);
	rt_frame_free(f);
}

static unsigned over(const char *const *caps, struct stats *total)
{
	unsigned files = 0;
	for (; caps[files]; files++) {
		struct stats s = { 0 };
		rt_each_frame(caps[files], each_frame, &s);
		ck_assert_msg(s.roce > 0, "%s: no RoCE or IB frame", rt_basename(caps[files]));
		total->frames += s.frames;
		total->roce += s.roce;
		total->ib += s.ib;
		total->flips += s.flips;
		total->masked += s.masked;
		total->cuts += s.cuts;
		total->v6 |= s.v6;
		total->grh |= s.grh;
		total->lrh_local |= s.lrh_local;
	}
	fprintf(stderr, "check_icrc: %u captures, %u frames, %u RoCE/IB verified (%u with VCRC), %u bit flips, "
			"%u masked-field changes, %u cuts\n",
		files, total->frames, total->roce, total->ib, total->flips, total->masked, total->cuts);
	return files;
}

START_TEST(test_every_capture)
{
	struct stats total = { 0 };
	unsigned files = over(rt_all_captures(), &total);
	/* The shared set has 18 captures with IPv6, LNH=2 and LNH=3 frames. */
	ck_assert_uint_ge(files, 18);
	ck_assert(total.v6 && total.grh && total.lrh_local);
	ck_assert_uint_ge(total.roce, 8000);
}
END_TEST

/* samples/ is RoCE v2 from rdma_rxe, over IPv4 and IPv6. */
START_TEST(test_every_sample)
{
	struct stats total = { 0 };
	unsigned files = over(rt_sample_captures(), &total);
	ck_assert_uint_ge(files, 20);
	ck_assert(total.v6);
	ck_assert_uint_ge(total.roce, 800);
}
END_TEST

static Suite *icrc_suite(void)
{
	Suite *s = suite_create("icrc");
	TCase *tc = tcase_create("samples");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, test_every_sample);
	suite_add_tcase(s, tc);
	tc = rt_shared_tcase("captures");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, test_every_capture);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(icrc_suite());
}

/*
 * check_truncation.c — every frame of a representative set of real captures
 * dissected at every caplen from 0 to its length (wirelen unchanged), each
 * time from a heap buffer of exactly caplen bytes so that the sanitizer
 * build (make SAN=1 unit) catches any read past the captured bytes.
 *
 * For each cut, against the decode of the whole frame (dissect.h contract):
 *  - the outcome is RS_OK, RS_TRUNCATED, or RS_NOT_ROCE only when the cut
 *    falls before the UDP destination port (RoCE v2) / the EtherType (v1);
 *    never MALFORMED or UNSUPPORTED because of the cut;
 *  - no header is reported that the full decode lacks, and every header
 *    reported (`have`, and `ext` for the extension headers) holds the same
 *    field values as in the full decode;
 *  - once the extension headers are decoded, payload_len (and the other
 *    lengths) equal the full-length values: they come from the wire;
 *  - with all headers captured but the payload (or ICRC) cut, the outcome is
 *    RS_OK and the ICRC/VCRC verdicts are RS_CRC_UNCHECKED. A MAD on QP0/QP1
 *    is a header too: cut, it is RS_TRUNCATED, and rs_mad_captured() says
 *    which of its fields are real, which must then equal the full decode.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/rstest.h"

static const char *const shared_files[] = {
	RT_CAPTURES "rping_s64.pcap",
	RT_CAPTURES "ib_atomic_cas.pcap",
	RT_CAPTURES "ud_send_bw.pcap",
	RT_CAPTURES "udaddy.pcap",
	RT_CAPTURES "cm_reject.pcap",
	RT_CAPTURES "ipv6_rping.pcap",
	RT_CAPTURES "uc_write_bw.pcap",
	RT_PUBLIC "rdma-roce-lab__roce_capture_read-write-ecn.pcap",
	RT_PUBLIC "rdma-roce-lab__test.pcap",
	RT_PUBLIC "rdma-softroce-demo__infiniband.pcap",
	RT_PUBLIC "PcapPlusPlus__InfiniBandPacket.pcap",
	NULL,
};

/* Samples with the CM, atomics, UD, IPv6, immediate data and NVMe-oF. */
static const char *const sample_files[] = {
	RT_SAMPLES "rping_s64.pcap",      RT_SAMPLES "rxe_atomic_cas.pcap", RT_SAMPLES "rxe_ud.pcap",
	RT_SAMPLES "rxe_reject.pcap",     RT_SAMPLES "rxe_send_ipv6.pcap",  RT_SAMPLES "rxe_write_imm.pcap",
	RT_SAMPLES "rxe_nvme.pcap",       RT_SAMPLES "rxe_read.pcap",       NULL,
};

struct stats {
	unsigned frames, roce, cuts, ok_payload_cut, mad_cut, not_roce_early;
};

static int layer_off(const struct rs_frame *f, enum rs_layer_id id)
{
	for (unsigned i = 0; i < f->walk->nlayers; i++)
		if (f->walk->layers[i].id == id)
			return (int)f->walk->layers[i].off;
	return -1;
}

#define CTX_FMT "%s frame %u cut to %u of %u bytes: "
#define CTX rt_basename(file), n, cut, len
#define EQ(fld)                                                                                          \
	RT_ASSERT(g->fld == f->fld, CTX_FMT #fld " is %llu, the full decode says %llu (%s)", CTX,     \
		      (unsigned long long)g->fld, (unsigned long long)f->fld, rt_why(g))
#define EQMEM(fld)                                                                                       \
	RT_ASSERT(memcmp(&g->fld, &f->fld, sizeof f->fld) == 0, CTX_FMT #fld " differs from the full decode", CTX)

/* CM fields: (offset from the MAD header, length) as in IBA 12.6 / 12.11. */
static bool cm_field(const struct rs_mad *m, unsigned off, unsigned len)
{
	return rs_mad_captured(m, 24 + off, len);
}

static void same_mad(const char *file, unsigned n, uint32_t cut, uint32_t len, const struct rs_frame *g,
		     const struct rs_frame *f)
{
	EQ(mad->hdr.base_version);
	EQ(mad->hdr.mgmt_class);
	EQ(mad->hdr.class_version);
	EQ(mad->hdr.method);
	EQ(mad->hdr.status);
	EQ(mad->hdr.tid);
	EQ(mad->hdr.attr_id);
	EQ(mad->hdr.attr_mod);
	EQ(mad->is_cm);
	const struct rs_mad *m = g->mad;
	RT_ASSERT(m->captured <= 256, CTX_FMT "captured %u", CTX, m->captured);
	if (!m->is_cm)
		return;
	switch (m->hdr.attr_id) {
	case UMAD_CM_ATTR_REQ:
		if (cm_field(m, 0, 4)) EQ(mad->u.req.local_comm_id);
		if (cm_field(m, 8, 8)) EQ(mad->u.req.service_id);
		if (cm_field(m, 16, 8)) EQ(mad->u.req.local_ca_guid);
		if (cm_field(m, 28, 4)) EQ(mad->u.req.local_qkey);
		if (cm_field(m, 32, 3)) EQ(mad->u.req.local_qpn);
		if (cm_field(m, 44, 3)) EQ(mad->u.req.starting_psn);
		if (cm_field(m, 48, 2)) EQ(mad->u.req.pkey);
		if (cm_field(m, 50, 1)) EQ(mad->u.req.path_mtu);
		if (cm_field(m, 52, 2)) EQ(mad->u.req.primary.local_lid);
		if (cm_field(m, 56, 16)) EQMEM(mad->u.req.primary.local_gid);
		if (cm_field(m, 72, 16)) EQMEM(mad->u.req.primary.remote_gid);
		if (cm_field(m, 95, 1)) EQ(mad->u.req.primary.local_ack_timeout);
		break;
	case UMAD_CM_ATTR_REP:
		if (cm_field(m, 0, 4)) EQ(mad->u.rep.local_comm_id);
		if (cm_field(m, 4, 4)) EQ(mad->u.rep.remote_comm_id);
		if (cm_field(m, 12, 3)) EQ(mad->u.rep.local_qpn);
		if (cm_field(m, 20, 3)) EQ(mad->u.rep.starting_psn);
		if (cm_field(m, 28, 8)) EQ(mad->u.rep.local_ca_guid);
		break;
	case UMAD_CM_ATTR_REJ:
		if (cm_field(m, 0, 4)) EQ(mad->u.rej.local_comm_id);
		if (cm_field(m, 10, 2)) EQ(mad->u.rej.reason);
		break;
	case UMAD_CM_ATTR_RTU:
	case UMAD_CM_ATTR_DREQ:
	case UMAD_CM_ATTR_DREP:
		if (cm_field(m, 0, 4)) EQ(mad->u.ids.local_comm_id);
		if (cm_field(m, 4, 4)) EQ(mad->u.ids.remote_comm_id);
		if (m->hdr.attr_id == UMAD_CM_ATTR_DREQ && cm_field(m, 8, 3)) EQ(mad->u.ids.remote_qpn);
		break;
	case UMAD_CM_ATTR_SIDR_REQ:
		if (cm_field(m, 0, 4)) EQ(mad->u.sidr_req.request_id);
		if (cm_field(m, 8, 8)) EQ(mad->u.sidr_req.service_id);
		break;
	case UMAD_CM_ATTR_SIDR_REP:
		if (cm_field(m, 0, 4)) EQ(mad->u.sidr_rep.request_id);
		if (cm_field(m, 8, 3)) EQ(mad->u.sidr_rep.qpn);
		if (cm_field(m, 20, 4)) EQ(mad->u.sidr_rep.qkey);
		break;
	}
	if (m->has_cma_hdr) {
		RT_ASSERT(f->mad->has_cma_hdr, CTX_FMT "RDMA CM header only when cut", CTX);
		EQ(mad->cma.ip_version);
		EQ(mad->cma.src_port);
		EQMEM(mad->cma.src_addr);
		EQMEM(mad->cma.dst_addr);
	}
	if (m->attr_ok)
		RT_ASSERT(m->captured == 256, CTX_FMT "attr_ok with %u bytes", CTX, m->captured);
}

static void same_fields(const char *file, unsigned n, uint32_t cut, uint32_t len, const struct rs_frame *g,
			const struct rs_frame *f)
{
	uint32_t h = g->have;
	RT_ASSERT((h & ~f->have) == 0, CTX_FMT "reports headers 0x%x the full decode lacks (0x%x)", CTX, h,
		      f->have);
	if (h & RS_HAVE_ETH) {
		EQMEM(eth_dst);
		EQMEM(eth_src);
	}
	if (h & RS_HAVE_ERF)
		EQ(erf_type);
	if (h & RS_HAVE_LRH) {
		EQ(lrh.vl); EQ(lrh.lver); EQ(lrh.sl); EQ(lrh.lnh); EQ(lrh.dlid); EQ(lrh.slid); EQ(lrh.pktlen);
	}
	if (h & RS_HAVE_GRH) {
		EQ(grh.ipver); EQ(grh.tclass); EQ(grh.flowlabel); EQ(grh.paylen); EQ(grh.nxthdr); EQ(grh.hoplmt);
		EQMEM(grh.sgid);
		EQMEM(grh.dgid);
	}
	/* The endpoints: IP or GRH addresses; LIDs while only the LRH is known
	 * (a routed packet's GIDs replace them once its GRH is decoded). */
	if ((h & (RS_HAVE_IPV4 | RS_HAVE_IPV6 | RS_HAVE_GRH)) || ((h & RS_HAVE_LRH) && !(f->have & RS_HAVE_GRH))) {
		RT_ASSERT(rs_addr_equal(&g->src, &f->src) && rs_addr_equal(&g->dst, &f->dst), CTX_FMT "addresses differ",
			  CTX);
	}
	else if (h & RS_HAVE_LRH)
		RT_ASSERT(g->src.kind == RS_ADDR_LID && (g->src.b[0] << 8 | g->src.b[1]) == f->lrh.slid &&
				  (g->dst.b[0] << 8 | g->dst.b[1]) == f->lrh.dlid,
			  CTX_FMT "LID endpoints", CTX);
	if (h & (RS_HAVE_IPV4 | RS_HAVE_IPV6)) {
		EQ(ip_version); EQ(dscp); EQ(ecn); EQ(ttl); EQ(ip_hdr_len); EQ(ip_total_len); EQ(trailer_len);
	}
	if (h & RS_HAVE_UDP) {
		EQ(udp_sport); EQ(udp_dport); EQ(udp_len); EQ(udp_csum);
	}
	if (h & RS_HAVE_BTH) {
		EQ(bth.opcode); EQ(bth.se); EQ(bth.migreq); EQ(bth.padcnt); EQ(bth.tver); EQ(bth.pkey);
		EQ(bth.fecn); EQ(bth.becn); EQ(bth.resv6); EQ(bth.destqp); EQ(bth.ackreq); EQ(bth.resv7);
		EQ(bth.psn);
		EQ(bth_off);
		EQ(transport_len);
	}
	if (h & RS_HAVE_EXT) {
		uint16_t x = g->ext;
		EQ(ext);
		if (x & RS_EXT_RDETH) EQ(rdeth_eecnxt);
		if (x & RS_EXT_DETH) { EQ(deth.qkey); EQ(deth.srcqp); }
		if (x & RS_EXT_XRCETH) EQ(xrceth_srqn);
		if (x & RS_EXT_FETH) EQ(feth);
		if (x & RS_EXT_RETH) { EQ(reth.va); EQ(reth.rkey); EQ(reth.dmalen); }
		if (x & RS_EXT_ATOMICETH) {
			EQ(atomic.va); EQ(atomic.rkey); EQ(atomic.swap); EQ(atomic.cmp);
		}
		if (x & RS_EXT_AETH) { EQ(aeth.syndrome); EQ(aeth.msn); }
		if (x & RS_EXT_ATOMICACKETH) EQ(atomicack_orig);
		if (x & RS_EXT_IMMDT) EQ(immdt);
		if (x & RS_EXT_IETH) EQ(ieth_rkey);
		/* Lengths come from the wire, not from caplen. */
		EQ(payload_off);
		EQ(payload_len);
	}
	if (h & RS_HAVE_MAD)
		same_mad(file, n, cut, len, g, f);
	if (h & RS_HAVE_ICRC) {
		EQ(icrc);
		EQ(icrc_status);
	}
	if (h & RS_HAVE_VCRC) {
		EQ(vcrc);
		EQ(vcrc_status);
	}
}

/* opts.skip_layers: no walkthrough block, and every other byte of the frame as the
 * decode that records them (both start from zeroed structs, so fields a
 * decode leaves alone compare equal too). */
static void same_without_layers(const char *file, unsigned n, uint32_t cut, uint32_t len, int dlt,
				const uint8_t *pkt, uint32_t wirelen)
{
	static const struct rs_dissect_opts skip = { .skip_layers = true };
	struct rs_frame *with = calloc(1, sizeof *with), *without = calloc(1, sizeof *without);
	rt_dissect(NULL, dlt, pkt, cut, wirelen, with);
	rt_dissect(&skip, dlt, pkt, cut, wirelen, without);
	RT_ASSERT(!without->walk, CTX_FMT "a walkthrough block with skip_layers", CTX);
	RT_ASSERT(with->walk && (with->walk->nlayers > 0 || with->outcome != RS_OK), CTX_FMT "no layers without skip_layers",
		  CTX);
	without->walk = with->walk;
	/* Each points into its own storage: the same blocks, then the same pointers. */
	RT_ASSERT(!with->pdu == !without->pdu && (!with->pdu || with->pdu->have == without->pdu->have),
		  CTX_FMT "skip_layers changed the PDU block", CTX);
	RT_ASSERT(!with->mad == !without->mad && !with->pfc == !without->pfc && !with->adv == !without->adv,
		  CTX_FMT "skip_layers changed which extension blocks the frame has", CTX);
	without->pdu = with->pdu;
	without->mad = with->mad;
	without->pfc = with->pfc;
	without->adv = with->adv;
	RT_ASSERT(memcmp(with, without, sizeof *with) == 0, CTX_FMT "skip_layers changed more than the layers",
		  CTX);
	rt_frame_free(with);
	rt_frame_free(without);
}

static void each_frame(void *ctx, const char *file, unsigned n, int dlt, const uint8_t *pkt, uint32_t len,
		       uint32_t wirelen)
{
	struct stats *s = ctx;
	struct rs_frame *f = malloc(sizeof *f), *g = malloc(sizeof *g);

	s->frames++;
	ck_assert_uint_eq(len, wirelen);
	rt_dissect(NULL, dlt, pkt, len, wirelen, f);
	if (f->roce != RS_ROCE_NONE)
		s->roce++;

	/* Where the frame stops being recognisable as RoCE: before the UDP
	 * destination port (v2) or the EtherType 0x8915 (v1). Native IB is
	 * recognised from the link type alone. */
	uint32_t id_end = 0;
	if (f->roce == RS_ROCE_V2)
		id_end = (uint32_t)layer_off(f, RS_L_UDP) + 4;
	else if (f->roce == RS_ROCE_V1)
		id_end = (uint32_t)layer_off(f, RS_L_GRH);
	uint32_t icrc_end = f->bth_off + f->transport_len;
	/* A CM MAD's attribute is decoded as a header; other MAD classes only
	 * to their 24-byte header, their data is payload. */
	bool is_mad = (f->have & RS_HAVE_CM) != 0;
	bool is_qp01 = (f->have & RS_HAVE_MAD) != 0;
	/* Under RT_SPARSE (memcheck, where every cut of every frame takes
	 * minutes): the MADs and one frame in four, each at every length. */
	if (rt_sparse() > 1 && !is_qp01 && s->frames % 4 != 1) {
		rt_frame_free(f);
		rt_frame_free(g);
		return;
	}

	for (uint32_t cut = 0; cut < len; cut++) {
		rt_dissect(NULL, dlt, pkt, cut, wirelen, g);
		same_without_layers(file, n, cut, len, dlt, pkt, wirelen);
		s->cuts++;
		RT_ASSERT(g->caplen == cut, "%u", cut);
		RT_ASSERT(g->wirelen == wirelen, "%u", cut);
		uint8_t o = g->outcome;
		if (f->roce == RS_ROCE_NONE) {
			/* Not RoCE in full: cut, it must not turn into RoCE. */
			RT_ASSERT(g->roce == RS_ROCE_NONE, CTX_FMT "became RoCE (%s)", CTX, rt_why(g));
			RT_ASSERT(o == RS_NOT_ROCE || o == RS_TRUNCATED || o == f->outcome, CTX_FMT "%s", CTX,
				      rt_why(g));
			continue;
		}
		if (o == RS_NOT_ROCE) {
			RT_ASSERT(cut < id_end, CTX_FMT "not RoCE although the frame identifies itself by byte %u",
				      CTX, id_end);
			s->not_roce_early++;
			continue;
		}
		RT_ASSERT(o == RS_OK || o == RS_TRUNCATED || o == f->outcome,
			      CTX_FMT "outcome %s because of the cut (full decode: %s)", CTX, rt_why(g),
			      rs_outcome_name((enum rs_outcome)f->outcome));
		RT_ASSERT(g->roce == f->roce || g->roce == RS_ROCE_NONE, CTX_FMT "RoCE kind changed", CTX);
		same_fields(file, n, cut, len, g, f);

		if (f->outcome != RS_OK || !(f->have & RS_HAVE_EXT))
			continue;
		if (g->have & RS_HAVE_EXT) {
			if (is_qp01 && cut < f->payload_off + 24) {
				/* Every MAD's 24-byte header is a header. */
				RT_ASSERT(o == RS_TRUNCATED, CTX_FMT "MAD header cut but %s", CTX, rt_why(g));
				s->mad_cut++;
			} else if (is_mad) {
				/* The CM MAD is a header: cut inside, it is truncated. */
				if (cut < f->payload_off + f->payload_len) {
					RT_ASSERT(o == RS_TRUNCATED, CTX_FMT "MAD cut but %s", CTX, rt_why(g));
					s->mad_cut++;
				}
			} else {
				RT_ASSERT(o == RS_OK, CTX_FMT "headers captured, payload cut, but %s", CTX,
					      rt_why(g));
				s->ok_payload_cut++;
			}
		} else {
			RT_ASSERT(o == RS_TRUNCATED, CTX_FMT "headers not all captured but %s", CTX, rt_why(g));
		}
		if (cut < icrc_end) {
			RT_ASSERT(g->icrc_status == RS_CRC_UNCHECKED && !(g->have & RS_HAVE_ICRC), CTX_FMT "ICRC %s",
				  CTX, rs_crc_status_name((enum rs_crc_status)g->icrc_status));
		} else {
			RT_ASSERT(g->icrc_status == f->icrc_status, CTX_FMT "ICRC verdict changed", CTX);
		}
		if (f->roce == RS_ROCE_IB && cut < icrc_end + 2)
			RT_ASSERT(g->vcrc_status == RS_CRC_UNCHECKED, CTX_FMT "VCRC checked", CTX);
	}
	rt_frame_free(f);
	rt_frame_free(g);
}

static void every_caplen(const char *const *files)
{
	struct stats s = { 0 };
	size_t i;
	for (i = 0; files[i]; i++) {
		struct stats one = { 0 };
		rt_each_frame(files[i], each_frame, &one);
		RT_ASSERT(one.roce > 0, "%s: no RoCE frames", files[i]);
		s.frames += one.frames;
		s.roce += one.roce;
		s.cuts += one.cuts;
		s.ok_payload_cut += one.ok_payload_cut;
		s.mad_cut += one.mad_cut;
		s.not_roce_early += one.not_roce_early;
	}
	/* Every kind of cut was exercised. */
	ck_assert_uint_gt(s.ok_payload_cut, 0);
	ck_assert_uint_gt(s.mad_cut, 0);
	ck_assert_uint_gt(s.not_roce_early, 0);
	fprintf(stderr, "check_truncation: %zu captures, %u frames (%u RoCE/IB), %u cuts: %u payload cuts ok, "
			"%u MAD cuts truncated, %u early cuts not RoCE\n",
		i, s.frames, s.roce, s.cuts, s.ok_payload_cut, s.mad_cut,
		s.not_roce_early);
}

START_TEST(test_every_caplen)
{
	every_caplen(shared_files);
}
END_TEST

START_TEST(test_every_caplen_samples)
{
	every_caplen(sample_files);
}
END_TEST

static Suite *truncation_suite(void)
{
	Suite *s = suite_create("truncation");
	TCase *tc = tcase_create("samples");
	tcase_set_timeout(tc, 1800);
	tcase_add_test(tc, test_every_caplen_samples);
	suite_add_tcase(s, tc);
	tc = rt_shared_tcase("captures");
	tcase_set_timeout(tc, 1800);
	tcase_add_test(tc, test_every_caplen);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_run_suite(truncation_suite());
}

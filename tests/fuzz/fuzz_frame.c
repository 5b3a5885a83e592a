/*
 * fuzz_frame.c — libFuzzer target: one frame through the whole dissector.
 *
 * Input layout (3 header bytes, then the frame):
 *   byte 0  bits 0-2  link type: EN10MB, LINUX_SLL, LINUX_SLL2, RAW, IPV4,
 *                     IPV6, INFINIBAND, ERF
 *           bits 3-4  how wirelen relates to caplen (the rest of the input):
 *                     0 equal, 1 caplen + d, 2 caplen - d (floor 0; caplen >
 *                     wirelen must be reported malformed), 3 wirelen = d
 *           bit 5     skip the ICRC/VCRC check
 *           bit 6     decode UDP port d (bytes 1-2) as RoCE v2 too
 *   bytes 1-2 d, big-endian
 * The frame is copied into a buffer of exactly caplen bytes so that ASan
 * catches any read past the captured bytes. Every name and formatting helper
 * the reports use on a frame runs too, on whatever the dissector filled in,
 * and rs_dissect_other() (what the walkthrough names a non-RoCE frame by).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>

#include "dissect/dissect.h"

static const int dlts[8] = { DLT_EN10MB, DLT_LINUX_SLL, DLT_LINUX_SLL2, DLT_RAW,
			     DLT_IPV4,   DLT_IPV6,      DLT_INFINIBAND, DLT_ERF };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3 || size > 262144 + 3)
		return 0;
	uint8_t sel = data[0];
	uint32_t d = (uint32_t)data[1] << 8 | data[2];
	uint32_t caplen = (uint32_t)(size - 3);
	uint32_t wirelen;
	switch ((sel >> 3) & 3) {
	case 0: wirelen = caplen; break;
	case 1: wirelen = caplen + d; break;
	case 2: wirelen = caplen > d ? caplen - d : 0; break;
	default: wirelen = d; break;
	}
	struct rs_dissect_opts opts = { .skip_icrc = (sel >> 5) & 1 };
	if (sel & 0x40) {
		opts.extra_ports[0] = (uint16_t)d;
		opts.n_extra_ports = 1;
	}
	uint8_t *pkt = malloc(caplen ? caplen : 1);
	if (!pkt)
		return 0;
	memcpy(pkt, data + 3, caplen);

	struct rs_frame f;
	struct rs_frame_ext x;
	rs_dissect(&opts, dlts[sel & 7], pkt, caplen, wirelen, &f, &x);

	/* What the reports and --fields do with a frame. */
	char buf[512], a1[RS_ADDR_STRLEN], a2[RS_ADDR_STRLEN];
	rs_frame_why(&f, buf, sizeof buf);
	rs_frame_why(&f, buf, 8); /* truncating output */
	rs_outcome_name((enum rs_outcome)f.outcome);
	rs_roce_name((enum rs_roce)f.roce);
	rs_crc_status_name((enum rs_crc_status)f.icrc_status);
	rs_addr_format(&f.src, a1);
	rs_addr_format(&f.dst, a2);
	rs_addr_equal(&f.src, &f.dst);
	for (unsigned i = 0; f.walk && i < f.walk->nlayers && i < RS_MAX_LAYERS; i++)
		rs_layer_name((enum rs_layer_id)f.walk->layers[i].id);
	if (f.have & RS_HAVE_BTH)
		(void)rs_opinfo(f.bth.opcode)->name;
	if ((f.have & RS_HAVE_EXT) && (f.ext & RS_EXT_AETH)) {
		rs_nak_code_name(rs_aeth_value(f.aeth.syndrome));
		rs_nak_code_key(rs_aeth_value(f.aeth.syndrome));
		rs_rnr_timer_us(rs_aeth_value(f.aeth.syndrome));
	}
	if (f.have & RS_HAVE_MAD) {
		rs_mad_class_name(f.mad->hdr.mgmt_class);
		rs_mad_method_name(f.mad->hdr.method);
		rs_cm_attr_name(f.mad->hdr.attr_id);
		rs_cm_attr_long_name(f.mad->hdr.attr_id);
	}
	/* What the walkthrough reads of a frame that is not RoCE: at any
	 * offset, past the captured bytes too, as each network type. */
	static const uint16_t other_types[] = { 0, 0x0806, 0x0800, 0x86DD };
	struct rs_other o;
	for (unsigned i = 0; i < sizeof other_types / sizeof other_types[0]; i++) {
		rs_dissect_other(pkt, caplen, other_types[i], d % (caplen + 1), &o);
		rs_dissect_other(pkt, caplen, other_types[i], d, &o);
	}
	free(pkt);
	return 0;
}

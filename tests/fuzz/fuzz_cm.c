/*
 * fuzz_cm.c — libFuzzer target: rs_mad_decode() on arbitrary bytes.
 *
 * Input layout: bytes 0-1 the MAD's length on the wire (big-endian; any value,
 * shorter or longer than what follows), then the captured bytes of the MAD.
 * The captured bytes sit in a buffer of exactly their size, so ASan catches
 * any read past them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect/cm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > 4096)
		return 0;
	uint32_t wire_len = (uint32_t)data[0] << 8 | data[1];
	uint32_t len = (uint32_t)(size - 2);
	uint8_t *buf = malloc(len ? len : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 2, len);

	struct rs_cursor c;
	rs_cur_init(&c, buf, len);
	struct rs_mad mad;
	struct rs_mad_problem why = { 0 };
	enum rs_mad_result r = rs_mad_decode(&c, wire_len, &mad, &why);
	if (c.off > c.len)
		abort(); /* the cursor's invariant */
	if (r != RS_MAD_NOT_MAD) { /* NOT_MAD: too short, the header is not decoded */
		rs_mad_class_name(mad.hdr.mgmt_class);
		rs_mad_method_name(mad.hdr.method);
		rs_cm_attr_name(mad.hdr.attr_id);
		rs_cm_attr_long_name(mad.hdr.attr_id);
	}
	if (r == RS_MAD_OK || r == RS_MAD_TRUNCATED) {
		if (mad.captured > len)
			abort(); /* claims more captured bytes than there were */
		if (mad.private_len && (unsigned)mad.private_off + mad.private_len > RS_MAD_SIZE)
			abort(); /* private data outside the MAD */
		if (mad.is_cm && mad.hdr.attr_id == UMAD_CM_ATTR_REJ)
			rs_cm_rej_reason_name(mad.u.rej.reason);
		if (mad.has_cma_hdr)
			rs_cm_port_space_name(rs_cm_service_port_space(mad.u.req.service_id));
	}
	if (r == RS_MAD_MALFORMED && why.why) {
		char msg[256];
		snprintf(msg, sizeof msg, why.why, why.a, why.b);
	}
	free(buf);
	return 0;
}

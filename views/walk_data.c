/*
 * walk_data.c — what follows the transport headers: the payload (with a
 * word on IPoIB when that is what it carries), the pad bytes, the ICRC
 * (IBA Annex A17.4.5.2 for RoCE v2) and the VCRC of native InfiniBand.
 */
#include <inttypes.h>
#include <string.h>

#include "views/walk_int.h"

/* Printable text at the start of the payload, for the student's benefit. */
static const char *text_preview(const struct walk *w, uint32_t off, uint32_t len)
{
	char t[41];
	unsigned n = 0;
	while (n < len && n < 40 && rs_wcap(w, off + n, 1)) {
		uint8_t c = w->pkt->data[off + n];
		if (c < 0x20 || c > 0x7E)
			break;
		t[n++] = (char)c;
	}
	t[n] = '\0';
	return n >= 4 ? rs_wfmt("\"%s\"%s", t, n == 40 ? "..." : "") : NULL;
}

static void payload(struct walk *w, const struct rs_layer *l)
{
	const struct rs_frame *f = w->f;
	const struct rs_opinfo *op = rs_opinfo(f->bth.opcode);
	uint32_t cap = l->off < f->caplen ? f->caplen - l->off : 0;
	if (cap > l->len)
		cap = l->len;

	rs_wtitle(w, l->id, "the data", l->off, l->len);
	rs_wfield(w, l->off, "Data", rs_wfmt("%u bytes", l->len), "%s", cap < l->len ? rs_wfmt("%u captured", cap) : "");
	const char *txt = text_preview(w, l->off, cap);
	if (txt)
		rs_wfield(w, l->off, "Starts with", txt, NULL);

	uint16_t et = f->walk->ipoib_type; /* the dissector's: IPoIB or not */
	if (et) {
		if (!rs_walk_first(w, WALK_TOPIC_IPOIB)) {
			rs_wsay(w, "IPoIB: EtherType 0x%04x, then the IP packet.", et);
			return;
		}
		rs_wsay(w, "This looks like IPoIB (RFC 4391): a 4-byte header with EtherType 0x%04x (%s), then the "
			"IP packet itself. IP over InfiniBand uses %s sends as its link layer.", et,
		     et == 0x0800 ? "IPv4" : et == 0x0806 ? "ARP" : "IPv6",
		     (f->bth.opcode & 0xE0) == RS_TR_UD ? "UD (datagram mode)" : "RC (connected mode)");
		return;
	}
	if (!rs_walk_first(w, WALK_TOPIC_PAYLOAD + (op->kind & 15u)))
		return;
	switch (op->kind) {
	case RS_KIND_WRITE:
	case RS_KIND_WRITE_IMM:
		rs_wsay(w, "Data written straight into the responder's memory, %s; the responder's CPU does not touch "
			"it.", op->pos == RS_POS_FIRST || op->pos == RS_POS_ONLY ? "starting at the RETH's address"
			: "right after the data of the previous packet of this message");
		break;
	case RS_KIND_READ_RESP:
		rs_wsay(w, "Data read from the responder's memory; the requester places it in the local buffer of "
			"its READ work request.");
		break;
	case RS_KIND_ATOMIC_WRITE:
		rs_wsay(w, "The 8 bytes written atomically at the RETH's address.");
		break;
	default:
		if ((f->bth.opcode & 0xE0) == RS_TR_UD)
			rs_wsay(w, "A datagram: delivered whole into one receive buffer posted on the destination QP.");
		else
			rs_wsay(w, "The message data: the receiver places it in the buffer of the receive work request "
				"it posted, in order.");
		break;
	}
}

static void icrc(struct walk *w, const struct rs_layer *l)
{
	const struct rs_frame *f = w->f;
	rs_wtitle(w, l->id, "Invariant CRC", l->off, l->len);
	if (!(f->have & RS_HAVE_ICRC)) {
		rs_wfield(w, l->off, "ICRC", "not captured", NULL);
		rs_wsay(w, "The capture stopped before the end of the packet, so the ICRC could not be checked.");
		return;
	}
	const uint8_t *p = w->pkt->data + l->off;
	rs_wfield(w, l->off, "ICRC", rs_whex(f->icrc, 8), "sent as %s (LSB first)", rs_wbytes(p, 4, ' '));
	bool rewritten = w->v.icrc == RS_V_ICRC_PORT_REWRITTEN; /* the analyzer's verdict */
	const char *verdict = f->icrc_status == RS_CRC_OK ? "matches the value on the wire"
			     : rewritten ? "differs: the capture rewrote the UDP source port"
			     : f->icrc_status == RS_CRC_BAD ? "DOES NOT MATCH: these bytes are not the ones the sender "
							      "covered"
			     : "not checked";
	if (f->icrc_status != RS_CRC_UNCHECKED)
		rs_wfield(w, UINT32_MAX, "Computed", rs_whex(f->icrc_calc, 8), "%s", verdict);
	if (rewritten) {
		rs_wsay(w, "The captured UDP source port is 4791; with source port %u the ICRC matches. The sniffer "
			"(ibdump, tcpdump -i mlx5_0) wrote 4791 over the port the NIC used when it computed the "
			"ICRC: the packet arrived as it was sent, only the capture changed it.", f->icrc_sport);
		return;
	}

	if (!rs_walk_first(w, l->id)) {
		if (f->icrc_status == RS_CRC_OK)
			rs_wsay(w, "CRC-32 over the invariant fields: 0x%08x on the wire, matches the computed value.", f->icrc);
		else if (f->icrc_status == RS_CRC_BAD)
			rs_wsay_marked(w, "!! ", "1;31", "ICRC mismatch: on the wire 0x%08x, computed 0x%08x: corrupted in "
				    "flight, by the sender, or in the file. A receiver drops such a packet silently.",
				    f->icrc, f->icrc_calc);
		else
			rs_wsay(w, "CRC-32 over the invariant fields: 0x%08x on the wire, not checked.", f->icrc);
		return;
	}
	const char *covers;
	switch (f->roce) {
	case RS_ROCE_V2:
		covers = f->ip_version == 6
			? "8 bytes of ones in place of an LRH, the IPv6 header with traffic class, flow label and hop "
			  "limit set to ones, the UDP header with its checksum set to ones"
			: "8 bytes of ones in place of an LRH, the IPv4 header with DSCP/ECN, TTL and checksum set "
			  "to ones, the UDP header with its checksum set to ones";
		break;
	case RS_ROCE_V1:
		covers = "8 bytes of ones in place of an LRH, the GRH with traffic class, flow label and hop limit "
			 "set to ones";
		break;
	default:
		covers = f->have & RS_HAVE_GRH
			? "8 bytes of ones in place of the LRH, the GRH with traffic class, flow label and hop limit "
			  "set to ones"
			: "the LRH with its VL field set to ones";
		break;
	}
	rs_wsay(w, "A CRC-32 computed by the sender over the fields no switch or router may change: %s, the BTH "
		"with byte 4 (FECN, BECN, reserved) set to ones, then every byte up to the ICRC%s. The value "
		"0x%08x %s. Only the two ends check it; each link has its own CRC as well.",
	     covers, f->roce == RS_ROCE_V2 ? " (IBA Annex A17.4.5.2)" : "", f->icrc,
	     f->icrc_status == RS_CRC_OK ? "matches the one computed here, so the packet arrived as it was sent"
	     : f->icrc_status == RS_CRC_BAD ? "does not match the one computed here: some byte it covers changed "
					      "after the sender computed it"
					    : "was not checked");
	if (f->icrc_status == RS_CRC_BAD)
		rs_wsay_marked(w, "!! ", "1;31", "ICRC mismatch: on the wire 0x%08x, computed 0x%08x: corrupted in "
			    "flight, by the sender, or in the file. A receiver drops such a packet silently.", f->icrc,
			    f->icrc_calc);
}

static void vcrc(struct walk *w, const struct rs_layer *l)
{
	const struct rs_frame *f = w->f;
	rs_wtitle(w, l->id, "Variant CRC", l->off, l->len);
	if (!(f->have & RS_HAVE_VCRC)) {
		rs_wfield(w, l->off, "VCRC", "not captured", NULL);
		return;
	}
	rs_wfield(w, l->off, "VCRC", rs_whex(f->vcrc, 4), "sent as %s (LSB first)", rs_wbytes(w->pkt->data + l->off, 2, ' '));
	if (f->vcrc_status != RS_CRC_UNCHECKED)
		rs_wfield(w, UINT32_MAX, "Computed", rs_whex(f->vcrc_calc, 4), "%s",
		       f->vcrc_status == RS_CRC_OK ? "matches" : "DOES NOT MATCH");
	if (!rs_walk_first(w, l->id)) {
		rs_wsay(w, "CRC-16 over LRH to ICRC: %s.", f->vcrc_status == RS_CRC_OK ? "matches"
			: f->vcrc_status == RS_CRC_BAD ? "DOES NOT MATCH" : "not checked");
		return;
	}
	rs_wsay(w, "A 16-bit CRC over the whole packet, LRH through ICRC, recomputed on every link because fields "
		"such as the VL may change from hop to hop. %s",
	     f->vcrc_status == RS_CRC_OK ? "It matches: this link delivered the packet intact."
	     : f->vcrc_status == RS_CRC_BAD ? "It does not match: the packet was damaged on this link." : "");
}

void rs_walk_data_layer(struct walk *w, const struct rs_layer *l)
{
	switch (l->id) {
	case RS_L_PAYLOAD:
		payload(w, l);
		break;
	case RS_L_PAD:
		rs_wtitle(w, l->id, "pad bytes", l->off, l->len);
		if (rs_wcap(w, l->off, l->len))
			rs_wfield(w, l->off, "Pad", rs_wbytes(w->pkt->data + l->off, l->len, ' '), NULL);
		rs_wsay(w, "PadCnt = %u pad byte%s round the payload up to a multiple of 4 bytes; they are not part of "
			"the message.", l->len, l->len == 1 ? "" : "s");
		break;
	case RS_L_ICRC:
		icrc(w, l);
		break;
	case RS_L_VCRC:
		vcrc(w, l);
		break;
	default:
		break;
	}
}

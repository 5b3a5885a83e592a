/*
 * names.c — names for humans and formatting into caller buffers.
 * Nothing here allocates or prints.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <pcap/pcap.h>

#include "dissect/dissect.h"

const char *rs_outcome_name(enum rs_outcome o)
{
	static const char *const names[RS_OUTCOME__COUNT] = {
		[RS_OK] = "ok",
		[RS_NOT_ROCE] = "not-roce",
		[RS_TRUNCATED] = "truncated",
		[RS_MALFORMED] = "malformed",
		[RS_UNSUPPORTED] = "unsupported",
	};
	return (unsigned)o < RS_OUTCOME__COUNT ? names[o] : "?";
}

const char *rs_roce_name(enum rs_roce r)
{
	switch (r) {
	case RS_ROCE_V1: return "v1";
	case RS_ROCE_V2: return "v2";
	case RS_ROCE_IB: return "ib";
	default: return "";
	}
}

const char *rs_crc_status_name(enum rs_crc_status s)
{
	switch (s) {
	case RS_CRC_OK: return "ok";
	case RS_CRC_BAD: return "bad";
	default: return "unchecked";
	}
}

const char *rs_layer_name(enum rs_layer_id id)
{
	static const char *const names[RS_L__COUNT] = {
		[RS_L_ERF] = "ERF", [RS_L_ETH] = "Ethernet", [RS_L_VLAN] = "VLAN", [RS_L_SLL] = "SLL",
		[RS_L_SLL2] = "SLL2", [RS_L_LRH] = "LRH", [RS_L_GRH] = "GRH", [RS_L_IPV4] = "IPv4",
		[RS_L_IPV6] = "IPv6", [RS_L_IPV6_EXT] = "IPv6 ext", [RS_L_UDP] = "UDP", [RS_L_BTH] = "BTH",
		[RS_L_RDETH] = "RDETH", [RS_L_DETH] = "DETH", [RS_L_XRCETH] = "XRCETH", [RS_L_FETH] = "FETH",
		[RS_L_RETH] = "RETH", [RS_L_ATOMICETH] = "AtomicETH", [RS_L_AETH] = "AETH",
		[RS_L_ATOMICACKETH] = "AtomicAckETH", [RS_L_IMMDT] = "ImmDt", [RS_L_IETH] = "IETH",
		[RS_L_CNP] = "CNP", [RS_L_DCETH] = "DCETH", [RS_L_DCCETH] = "DCCETH", [RS_L_MAD] = "MAD", [RS_L_CM] = "CM", [RS_L_NVME] = "NVMe-oF", [RS_L_PAYLOAD] = "payload",
		[RS_L_PAD] = "pad", [RS_L_ICRC] = "ICRC", [RS_L_VCRC] = "VCRC", [RS_L_TRAILER] = "trailer", [RS_L_PFC] = "PFC",
	};
	return (unsigned)id < RS_L__COUNT && names[id] ? names[id] : "?";
}

/* IBA vol 1 9.7.5.2.4 Table 43 "NAK codes". */
const char *rs_nak_code_name(uint8_t code)
{
	switch (code) {
	case RS_NAK_PSN_SEQ_ERR: return "PSN sequence error";
	case RS_NAK_INVALID_REQUEST: return "invalid request";
	case RS_NAK_REMOTE_ACCESS_ERR: return "remote access error";
	case RS_NAK_REMOTE_OP_ERR: return "remote operational error";
	case RS_NAK_INVALID_RD_REQUEST: return "invalid RD request";
	default: return "reserved NAK code";
	}
}

const char *rs_nak_code_key(uint8_t code)
{
	switch (code) {
	case RS_NAK_PSN_SEQ_ERR: return "psn_sequence_error";
	case RS_NAK_INVALID_REQUEST: return "invalid_request";
	case RS_NAK_REMOTE_ACCESS_ERR: return "remote_access_error";
	case RS_NAK_REMOTE_OP_ERR: return "remote_operational_error";
	case RS_NAK_INVALID_RD_REQUEST: return "invalid_rd_request";
	default: return "reserved";
	}
}

/* IBA vol 1 9.7.5.2.8 Table 45 "Encoding for RNR NAK timer field", in µs. */
uint64_t rs_ack_timeout_ns(uint8_t t)
{
	return t ? 4096ull << (t & 31) : 0;
}

uint32_t rs_rnr_timer_us(uint8_t timer)
{
	static const uint32_t us[32] = {
		655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920,
		2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960, 61440, 81920, 122880,
		163840, 245760, 327680, 491520,
	};
	return us[timer & 31];
}

int rs_frame_why(const struct rs_frame *f, char *buf, size_t len)
{
	if (!f->why)
		return snprintf(buf, len, "%s", rs_outcome_name((enum rs_outcome)f->outcome));
	return snprintf(buf, len, f->why, f->why_a, f->why_b);
}

const char *rs_addr_format(const struct rs_addr *a, char buf[RS_ADDR_STRLEN])
{
	switch (a->kind) {
	case RS_ADDR_IPV4:
		return inet_ntop(AF_INET, a->b, buf, RS_ADDR_STRLEN) ? buf : "?";
	case RS_ADDR_GID:
		/* An IPv4-mapped GID (::ffff:a.b.c.d, RFC 4291 2.5.5.2; RoCE v1
		 * GIDs from an IPv4 interface) is that IPv4 address: shown as one
		 * (the kind stays a GID: JSON address_kind "gid"). */
		if (memcmp(a->b, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0)
			return inet_ntop(AF_INET, a->b + 12, buf, RS_ADDR_STRLEN) ? buf : "?";
		return inet_ntop(AF_INET6, a->b, buf, RS_ADDR_STRLEN) ? buf : "?";
	case RS_ADDR_IPV6:
		return inet_ntop(AF_INET6, a->b, buf, RS_ADDR_STRLEN) ? buf : "?";
	case RS_ADDR_LID:
		snprintf(buf, RS_ADDR_STRLEN, "%u", (unsigned)(a->b[0] << 8 | a->b[1]));
		return buf;
	default:
		buf[0] = '\0';
		return buf;
	}
}

bool rs_addr_equal(const struct rs_addr *a, const struct rs_addr *b)
{
	return a->kind == b->kind && memcmp(a->b, b->b, 16) == 0;
}

const char *rs_linktype_name(int dlt)
{
	return pcap_datalink_val_to_name(dlt);
}

/*
 * cm.h — Management Datagrams on QP0/QP1 and the Communication Manager
 * messages they carry (IBA vol 1, 13.4 MAD format; 12.6 CM messages;
 * 12.11 SIDR), plus the RDMA CM conventions layered on top (IBTA Annex A11
 * "RDMA IP CM Service": Service ID layout and the IP private-data header).
 *
 * Class, method and attribute numbers come from rdma-core's
 * <infiniband/umad_types.h> and <infiniband/umad_cm.h>.
 */
#ifndef RS_CM_H
#define RS_CM_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/umad_types.h>
#include <infiniband/umad_cm.h>

#include "dissect/cursor.h"

#define RS_MAD_SIZE 256      /* IBA 13.4.2: every MAD is 256 bytes */
#define RS_MAD_HDR_SIZE 24   /* common MAD header; the data after it is UMAD_LEN_DATA */

/* IBA 13.4.3 common MAD header. */
struct rs_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;        /* bit 7 is the response bit (R) */
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;          /* transaction ID */
	uint16_t attr_id;
	uint16_t reserved;
	uint32_t attr_mod;
};

/* One path of a REQ (IBA 12.6.5, primary and alternate). */
struct rs_cm_path {
	uint16_t local_lid, remote_lid;
	uint8_t local_gid[16], remote_gid[16];
	uint32_t flow_label;    /* 20 bits */
	uint8_t packet_rate;    /* 6 bits */
	uint8_t traffic_class;
	uint8_t hop_limit;
	uint8_t sl;             /* 4 bits */
	uint8_t subnet_local;   /* 1 bit */
	uint8_t local_ack_timeout; /* 5 bits */
};

/* RDMA CM private-data header carried in REQ and SIDR_REQ (Annex A11.6). */
struct rs_cma_hdr {
	uint8_t version;      /* cma_version, 0x00 */
	uint8_t ip_version;   /* 4 or 6, from the upper nibble */
	uint16_t src_port;
	uint8_t src_addr[16]; /* IPv4 addresses sit in the last 4 bytes */
	uint8_t dst_addr[16];
};

struct rs_cm_req {
	uint32_t local_comm_id;
	uint64_t service_id;
	uint64_t local_ca_guid;
	uint32_t local_qkey;
	uint32_t local_qpn;
	uint8_t responder_resources;
	uint32_t local_eecn;
	uint8_t initiator_depth;
	uint32_t remote_eecn;
	uint8_t remote_cm_response_timeout;
	uint8_t transport_service_type; /* 0 RC, 1 UC, 2 RD, 3 XRC-or-extended */
	uint8_t end_to_end_flow_control;
	uint32_t starting_psn;
	uint8_t local_cm_response_timeout;
	uint8_t retry_count;
	uint16_t pkey;
	uint8_t path_mtu;        /* IBA enum: 1=256 ... 5=4096 */
	uint8_t rdc_exists;
	uint8_t rnr_retry_count;
	uint8_t max_cm_retries;
	uint8_t srq;
	uint8_t extended_transport_type;
	struct rs_cm_path primary, alternate;
};

struct rs_cm_rep {
	uint32_t local_comm_id, remote_comm_id;
	uint32_t local_qkey;
	uint32_t local_qpn;
	uint32_t local_eecn;
	uint32_t starting_psn;
	uint8_t responder_resources, initiator_depth;
	uint8_t target_ack_delay, failover_accepted, end_to_end_flow_control;
	uint8_t rnr_retry_count, srq;
	uint64_t local_ca_guid;
};

struct rs_cm_rej {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t msg_rejected;   /* 0 REQ, 1 REP, 2 other */
	uint8_t reject_info_len;
	uint16_t reason;
};

struct rs_cm_mra {
	uint32_t local_comm_id, remote_comm_id;
	uint8_t msg_mraed;      /* 0 REQ, 1 REP, 2 LAP */
	uint8_t service_timeout;
};

struct rs_cm_ids {  /* RTU, DREQ, DREP, LAP, APR */
	uint32_t local_comm_id, remote_comm_id;
	uint32_t remote_qpn;    /* DREQ: remote QPN/EECN */
};

struct rs_cm_sidr_req {
	uint32_t request_id;
	uint16_t pkey;
	uint64_t service_id;
};

struct rs_cm_sidr_rep {
	uint32_t request_id;
	uint8_t status;
	uint8_t add_info_len;
	uint32_t qpn;
	uint64_t service_id;
	uint32_t qkey;
};

/* Which fields of a CM attribute the capture holds (struct rs_mad.fields);
 * a field not held reads as zero. */
enum rs_cm_field {
	/* What identifies the message: the comm IDs (REQ: the Local one), and
	 * REJ its reason, SIDR_REQ its Service ID, SIDR_REP everything up to
	 * its Q_Key. */
	RS_CMF_HEAD = 1 << 0,
	RS_CMF_SERVICE_ID = 1 << 1, /* REQ */
	RS_CMF_LOCAL_QPN = 1 << 2,  /* REQ, REP */
	RS_CMF_START_PSN = 1 << 3,  /* REQ, REP: Starting PSN */
	RS_CMF_TRANSPORT = 1 << 4,  /* REQ: Transport Service Type and Path MTU */
};

/* A decoded MAD. `attr_ok` says the attribute body below was fully decoded. */
struct rs_mad {
	struct rs_mad_hdr hdr;
	bool is_cm;        /* mgmt_class == UMAD_CLASS_CM */
	bool attr_ok;
	bool has_cma_hdr;  /* REQ / SIDR_REQ to an RDMA CM service ID (IP private data) */
	uint8_t fields;    /* enum rs_cm_field: the attribute's fields the capture holds */
	uint16_t captured; /* bytes of the MAD that were captured */
	uint16_t private_off, private_len; /* private data within the MAD */
	union {
		struct rs_cm_req req;
		struct rs_cm_rep rep;
		struct rs_cm_rej rej;
		struct rs_cm_mra mra;
		struct rs_cm_ids ids;
		struct rs_cm_sidr_req sidr_req;
		struct rs_cm_sidr_rep sidr_rep;
	} u;
	struct rs_cma_hdr cma;
};

/* How decoding a MAD ended. */
enum rs_mad_result {
	RS_MAD_OK = 0,
	RS_MAD_TRUNCATED,  /* fewer captured bytes than the attribute needs */
	RS_MAD_MALFORMED,  /* a field lies, e.g. REJ info length beyond ARI */
	RS_MAD_NOT_MAD,    /* too short on the wire to be a MAD at all */
};

/* Why a MAD is malformed: a printf format taking a and b. */
struct rs_mad_problem {
	const char *why;
	unsigned long long a, b;
};

/*
 * Decode a MAD from `c` (positioned at the MAD header; the window ends where
 * the captured payload ends). `wire_len` is the payload length on the wire.
 * On RS_MAD_TRUNCATED the header and the captured part of the attribute are
 * filled in (uncaptured fields read as zero) and out->captured says how many
 * bytes of the MAD were there; out->fields says which of the fields the
 * analysis uses are real (rs_mad_captured() tells for any byte range).
 */
enum rs_mad_result rs_mad_decode(struct rs_cursor *c, uint32_t wire_len, struct rs_mad *out,
				 struct rs_mad_problem *why);

/* Were bytes [off, off+len) of the MAD (offsets from the MAD header) captured? */
static inline bool rs_mad_captured(const struct rs_mad *m, unsigned off, unsigned len)
{
	return off + len <= m->captured;
}

/* Names for humans. Never NULL. */
const char *rs_mad_class_name(uint8_t mgmt_class);
const char *rs_mad_method_name(uint8_t method);
const char *rs_cm_attr_name(uint16_t attr_id);    /* "REQ", "REP", ... */
const char *rs_cm_attr_long_name(uint16_t attr_id); /* "ConnectRequest", ... */
const char *rs_cm_rej_reason_name(uint16_t reason);
const char *rs_cm_port_space_name(uint16_t ps);   /* "TCP", "UDP", "IB", "IPoIB" */
const char *rs_cm_transport_type_name(uint8_t tst);

/* RDMA CM service IDs are 0x0000000001 | port space (16 bits) | port (16). */
bool rs_cm_service_is_rdma_cm(uint64_t service_id);
uint16_t rs_cm_service_port_space(uint64_t service_id);
uint16_t rs_cm_service_port(uint64_t service_id);

#endif

/*
 * cm.c — MADs (IBA vol 1 13.4) and the Communication Manager's messages
 * (IBA vol 1 12.6 and 12.11), with RDMA CM's IP conventions (Annex A11).
 *
 * MAD header, 24 bytes (13.4.3):
 *   | BaseVersion | MgmtClass | ClassVersion | R|Method |
 *   | Status(16)                | ClassSpecific(16)      |
 *   | TransactionID(64)                                   |
 *   | AttributeID(16)           | Reserved(16)           |
 *   | AttributeModifier(32)                               |
 * followed by 232 bytes of class data. Offsets below are within that data.
 *
 * REQ (12.6.5): 0 LocalCommID | 4 rsv | 8 ServiceID(64) | 16 LocalCAGUID(64) |
 *   24 rsv | 28 LocalQKey | 32 LocalQPN(24) RespRes(8) | 36 LocalEECN(24) InitDepth(8) |
 *   40 RemoteEECN(24) RemoteCMRespTO(5) TransportType(2) E2EFlow(1) |
 *   44 StartingPSN(24) LocalCMRespTO(5) RetryCount(3) | 48 P_Key(16) |
 *   50 PathMTU(4) RDC(1) RNRRetry(3) | 51 MaxCMRetries(4) SRQ(1) ExtTransport(3) |
 *   52 primary path (44) | 96 alternate path (44) | 140 PrivateData(92)
 * REP (12.6.8): 0 LocalCommID | 4 RemoteCommID | 8 LocalQKey | 12 LocalQPN(24) |
 *   16 LocalEECN(24) | 20 StartingPSN(24) | 24 RespRes | 25 InitDepth |
 *   26 TargetAckDelay(5) Failover(2) E2E(1) | 27 RNRRetry(3) SRQ(1) |
 *   28 LocalCAGUID(64) | 36 PrivateData(196)
 * REJ (12.6.7): 0 LocalCommID | 4 RemoteCommID | 8 MsgRejected(2) |
 *   9 RejectInfoLength(7) | 10 Reason(16) | 12 ARI(72) | 84 PrivateData(148)
 * MRA (12.6.6): 0 LocalCommID | 4 RemoteCommID | 8 MsgMRAed(2) |
 *   9 ServiceTimeout(5) | 10 PrivateData(222)
 * RTU: 0/4 comm IDs | 8 PrivateData(224).  DREP: same.
 * DREQ: 0/4 comm IDs | 8 RemoteQPN/EECN(24) | 12 PrivateData(220)
 * SIDR_REQ (12.11.1): 0 RequestID | 4 P_Key | 6 rsv | 8 ServiceID | 16 PrivateData(216)
 * SIDR_REP (12.11.2): 0 RequestID | 4 Status | 5 AddInfoLen | 6 rsv |
 *   8 QPN(24) | 12 ServiceID | 20 QKey | 24 AddInfo(72) | 96 PrivateData(136)
 * LAP/APR: only the comm IDs are decoded.
 *
 * RDMA CM (Annex A11.3): ServiceID = 0x0000000001 | port space(16) | port(16);
 * its REQ/SIDR_REQ private data starts with (A11.6)
 *   | version(8) | IPVer(4) rsv(4) | source port(16) | src addr(128) | dst addr(128) |
 */
#include "dissect/cm.h"

#define ARI_LEN 72
#define CMA_HDR_LEN 36

enum { REQ_PRIVATE = 140, REP_PRIVATE = 36, REJ_PRIVATE = 84, MRA_PRIVATE = 10, RTU_PRIVATE = 8,
       DREQ_PRIVATE = 12, SIDR_REQ_PRIVATE = 16, SIDR_REP_PRIVATE = 96 };

static void decode_path(struct rs_cursor *c, struct rs_cm_path *p)
{
	p->local_lid = rs_cur_be16(c);
	p->remote_lid = rs_cur_be16(c);
	rs_cur_copy(c, p->local_gid, 16);
	rs_cur_copy(c, p->remote_gid, 16);
	p->flow_label = rs_cur_be24(c) >> 4; /* FlowLabel(20) rsv(6) PacketRate(6) */
	p->packet_rate = rs_cur_u8(c) & 0x3F;
	p->traffic_class = rs_cur_u8(c);
	p->hop_limit = rs_cur_u8(c);
	uint8_t x = rs_cur_u8(c);
	p->sl = x >> 4;
	p->subnet_local = (x >> 3) & 1;
	p->local_ack_timeout = rs_cur_u8(c) >> 3;
}

static void decode_req(struct rs_cursor *c, struct rs_cm_req *r)
{
	uint8_t x;

	r->local_comm_id = rs_cur_be32(c);
	rs_cur_skip(c, 4);
	r->service_id = rs_cur_be64(c);
	r->local_ca_guid = rs_cur_be64(c);
	rs_cur_skip(c, 4);
	r->local_qkey = rs_cur_be32(c);
	/* 24-bit fields are read on their own, so a MAD cut right after one
	 * still yields it (rs_mad_captured() promises per-field validity). */
	r->local_qpn = rs_cur_be24(c);
	r->responder_resources = rs_cur_u8(c);
	r->local_eecn = rs_cur_be24(c);
	r->initiator_depth = rs_cur_u8(c);
	r->remote_eecn = rs_cur_be24(c);
	x = rs_cur_u8(c);
	r->remote_cm_response_timeout = x >> 3;
	r->transport_service_type = (x >> 1) & 3;
	r->end_to_end_flow_control = x & 1;
	r->starting_psn = rs_cur_be24(c);
	x = rs_cur_u8(c);
	r->local_cm_response_timeout = x >> 3;
	r->retry_count = x & 7;
	r->pkey = rs_cur_be16(c);
	x = rs_cur_u8(c);
	r->path_mtu = x >> 4;
	r->rdc_exists = (x >> 3) & 1;
	r->rnr_retry_count = x & 7;
	x = rs_cur_u8(c);
	r->max_cm_retries = x >> 4;
	r->srq = (x >> 3) & 1;
	r->extended_transport_type = x & 7;
	decode_path(c, &r->primary);
	decode_path(c, &r->alternate);
}

static void decode_rep(struct rs_cursor *c, struct rs_cm_rep *r)
{
	uint8_t x;

	r->local_comm_id = rs_cur_be32(c);
	r->remote_comm_id = rs_cur_be32(c);
	r->local_qkey = rs_cur_be32(c);
	r->local_qpn = rs_cur_be24(c);
	rs_cur_skip(c, 1);
	r->local_eecn = rs_cur_be24(c);
	rs_cur_skip(c, 1);
	r->starting_psn = rs_cur_be24(c);
	rs_cur_skip(c, 1);
	r->responder_resources = rs_cur_u8(c);
	r->initiator_depth = rs_cur_u8(c);
	x = rs_cur_u8(c);
	r->target_ack_delay = x >> 3;
	r->failover_accepted = (x >> 1) & 3;
	r->end_to_end_flow_control = x & 1;
	x = rs_cur_u8(c);
	r->rnr_retry_count = x >> 5;
	r->srq = (x >> 4) & 1;
	r->local_ca_guid = rs_cur_be64(c);
}

static void decode_cma_hdr(struct rs_cursor *c, struct rs_mad *m)
{
	struct rs_cma_hdr *h = &m->cma;
	h->version = rs_cur_u8(c);
	h->ip_version = rs_cur_u8(c) >> 4;
	h->src_port = rs_cur_be16(c);
	rs_cur_copy(c, h->src_addr, 16);
	rs_cur_copy(c, h->dst_addr, 16);
	m->has_cma_hdr = !c->overrun && (h->ip_version == 4 || h->ip_version == 6);
}

bool rs_cm_service_is_rdma_cm(uint64_t service_id)
{
	return service_id >> 32 == 0 && (service_id >> 24 & 0xFF) == 0x01;
}

uint16_t rs_cm_service_port_space(uint64_t service_id)
{
	return (uint16_t)(service_id >> 16);
}

uint16_t rs_cm_service_port(uint64_t service_id)
{
	return (uint16_t)service_id;
}

/* IBA 12.6.7 REJ: comm IDs, the message rejected, Reject Info Length, reason. */
static const struct rs_cm_rej *decode_rej(struct rs_cursor *c, struct rs_cm_rej *r)
{
	r->local_comm_id = rs_cur_be32(c);
	r->remote_comm_id = rs_cur_be32(c);
	r->msg_rejected = rs_cur_u8(c) >> 6;
	r->reject_info_len = rs_cur_u8(c) >> 1;
	r->reason = rs_cur_be16(c);
	return r;
}

/* IBA 12.6.6 MRA: comm IDs, the message MRAed, Service Timeout. */
static void decode_mra(struct rs_cursor *c, struct rs_cm_mra *r)
{
	r->local_comm_id = rs_cur_be32(c);
	r->remote_comm_id = rs_cur_be32(c);
	r->msg_mraed = rs_cur_u8(c) >> 6;
	r->service_timeout = rs_cur_u8(c) >> 3;
}

/* RTU, DREQ, DREP, LAP, APR (IBA 12.6.9-12.6.13): the two comm IDs, and
 * DREQ's Remote QPN. Returns the offset of the private data (0: none
 * decoded; LAP and APR carry path data). */
static uint16_t decode_ids(struct rs_cursor *c, uint16_t attr, struct rs_cm_ids *r)
{
	r->local_comm_id = rs_cur_be32(c);
	r->remote_comm_id = rs_cur_be32(c);
	r->remote_qpn = 0;
	if (attr == UMAD_CM_ATTR_DREQ) {
		r->remote_qpn = rs_cur_be24(c);
		return DREQ_PRIVATE;
	}
	return attr == UMAD_CM_ATTR_LAP || attr == UMAD_CM_ATTR_APR ? 0 : RTU_PRIVATE;
}

/* IBA 12.11.1 SIDR_REQ: Request ID, P_Key, Service ID. */
static void decode_sidr_req(struct rs_cursor *c, struct rs_cm_sidr_req *r)
{
	r->request_id = rs_cur_be32(c);
	r->pkey = rs_cur_be16(c);
	rs_cur_skip(c, 2);
	r->service_id = rs_cur_be64(c);
}

/* IBA 12.11.2 SIDR_REP: Request ID, status, QPN, Service ID, Q_Key. */
static const struct rs_cm_sidr_rep *decode_sidr_rep(struct rs_cursor *c, struct rs_cm_sidr_rep *r)
{
	r->request_id = rs_cur_be32(c);
	r->status = rs_cur_u8(c);
	r->add_info_len = rs_cur_u8(c);
	rs_cur_skip(c, 2);
	r->qpn = rs_cur_be24(c);
	rs_cur_skip(c, 1);
	r->service_id = rs_cur_be64(c);
	r->qkey = rs_cur_be32(c);
	return r;
}

/* Which of the fields the analysis uses the capture holds: each is
 * (attribute, field, offset and length within the attribute body). */
static uint8_t captured_fields(const struct rs_mad *m)
{
	static const struct {
		uint16_t attr;
		uint8_t field, off, len;
	} where[] = {
		{ UMAD_CM_ATTR_REQ, RS_CMF_HEAD, 0, 4 },
		{ UMAD_CM_ATTR_REQ, RS_CMF_SERVICE_ID, 8, 8 },
		{ UMAD_CM_ATTR_REQ, RS_CMF_LOCAL_QPN, 32, 3 },
		{ UMAD_CM_ATTR_REQ, RS_CMF_START_PSN, 44, 3 },
		{ UMAD_CM_ATTR_REQ, RS_CMF_TRANSPORT, 51, 1 },
		{ UMAD_CM_ATTR_REP, RS_CMF_HEAD, 0, 8 },
		{ UMAD_CM_ATTR_REP, RS_CMF_LOCAL_QPN, 12, 3 },
		{ UMAD_CM_ATTR_REP, RS_CMF_START_PSN, 20, 3 },
		{ UMAD_CM_ATTR_REJ, RS_CMF_HEAD, 0, 12 },
		{ UMAD_CM_ATTR_MRA, RS_CMF_HEAD, 0, 8 },
		{ UMAD_CM_ATTR_RTU, RS_CMF_HEAD, 0, 8 },
		{ UMAD_CM_ATTR_DREQ, RS_CMF_HEAD, 0, 8 },
		{ UMAD_CM_ATTR_DREP, RS_CMF_HEAD, 0, 8 },
		{ UMAD_CM_ATTR_LAP, RS_CMF_HEAD, 0, 8 },
		{ UMAD_CM_ATTR_APR, RS_CMF_HEAD, 0, 8 },
		{ UMAD_CM_ATTR_SIDR_REQ, RS_CMF_HEAD, 0, 16 },
		{ UMAD_CM_ATTR_SIDR_REP, RS_CMF_HEAD, 0, 24 },
	};
	uint8_t have = 0;
	for (size_t i = 0; i < sizeof where / sizeof where[0]; i++)
		if (where[i].attr == m->hdr.attr_id && rs_mad_captured(m, RS_MAD_HDR_SIZE + where[i].off, where[i].len))
			have |= where[i].field;
	return have;
}

/* The CM attributes (REQ .. APR) whose bodies are decoded. */
static bool is_known_cm_attr(uint16_t attr)
{
	return attr >= UMAD_CM_ATTR_REQ && attr <= UMAD_CM_ATTR_APR;
}

enum rs_mad_result rs_mad_decode(struct rs_cursor *c, uint32_t wire_len, struct rs_mad *m, struct rs_mad_problem *why)
{
	struct rs_mad_hdr *h = &m->hdr;

	m->is_cm = m->attr_ok = m->has_cma_hdr = false;
	m->fields = 0;
	m->private_off = m->private_len = 0;
	/* Fields a short or lying MAD leaves undecoded read as zero, never as
	 * the previous frame's (struct rs_frame is reused) or stack garbage. */
	memset(&m->u, 0, sizeof m->u);
	m->captured = (uint16_t)(c->len < RS_MAD_SIZE ? c->len : RS_MAD_SIZE);
	if (wire_len < RS_MAD_HDR_SIZE)
		return RS_MAD_NOT_MAD;

	h->base_version = rs_cur_u8(c);
	h->mgmt_class = rs_cur_u8(c);
	h->class_version = rs_cur_u8(c);
	h->method = rs_cur_u8(c);
	h->status = rs_cur_be16(c);
	h->class_specific = rs_cur_be16(c);
	h->tid = rs_cur_be64(c);
	h->attr_id = rs_cur_be16(c);
	h->reserved = rs_cur_be16(c);
	h->attr_mod = rs_cur_be32(c);
	if (c->overrun)
		return RS_MAD_TRUNCATED;

	m->is_cm = h->mgmt_class == UMAD_CLASS_CM;
	if (!m->is_cm || !is_known_cm_attr(h->attr_id))
		return RS_MAD_OK; /* other classes: the header is all we decode */
	if (wire_len < RS_MAD_SIZE) {
		/* Only the header was decoded: say so, or the analyzer would read
		 * the attribute fields (never written) as captured. */
		m->captured = RS_MAD_HDR_SIZE;
		*why = (struct rs_mad_problem){ "CM attribute 0x%04llx needs a 256-byte MAD, the payload has %llu bytes",
						h->attr_id, wire_len };
		return RS_MAD_MALFORMED;
	}

	/* Attribute bodies: fields not captured read as zero; the result then
	 * says truncated and m->fields tells which fields are real. */
	m->fields = captured_fields(m);
	uint16_t priv = 0;
	switch (h->attr_id) {
	case UMAD_CM_ATTR_REQ:
		decode_req(c, &m->u.req);
		priv = REQ_PRIVATE;
		break;
	case UMAD_CM_ATTR_REP:
		decode_rep(c, &m->u.rep);
		priv = REP_PRIVATE;
		break;
	case UMAD_CM_ATTR_REJ: {
		const struct rs_cm_rej *r = decode_rej(c, &m->u.rej);
		priv = REJ_PRIVATE;
		if (!c->overrun && r->reject_info_len > ARI_LEN) {
			*why = (struct rs_mad_problem){ "REJ Reject Info Length %llu exceeds the %llu-byte ARI field",
							r->reject_info_len, ARI_LEN };
			return RS_MAD_MALFORMED;
		}
		break;
	}
	case UMAD_CM_ATTR_MRA:
		decode_mra(c, &m->u.mra);
		priv = MRA_PRIVATE;
		break;
	case UMAD_CM_ATTR_RTU:
	case UMAD_CM_ATTR_DREP:
	case UMAD_CM_ATTR_DREQ:
	case UMAD_CM_ATTR_LAP:
	case UMAD_CM_ATTR_APR:
		priv = decode_ids(c, h->attr_id, &m->u.ids);
		break;
	case UMAD_CM_ATTR_SIDR_REQ:
		decode_sidr_req(c, &m->u.sidr_req);
		priv = SIDR_REQ_PRIVATE;
		break;
	case UMAD_CM_ATTR_SIDR_REP: {
		const struct rs_cm_sidr_rep *r = decode_sidr_rep(c, &m->u.sidr_rep);
		priv = SIDR_REP_PRIVATE;
		if (!c->overrun && r->add_info_len > ARI_LEN) {
			*why = (struct rs_mad_problem){ "SIDR_REP Additional Information Length %llu exceeds the %llu-byte field",
							r->add_info_len, ARI_LEN };
			return RS_MAD_MALFORMED;
		}
		break;
	}
	default:
		break;
	}
	if (priv) {
		m->private_off = RS_MAD_HDR_SIZE + priv;
		m->private_len = (uint16_t)(RS_MAD_SIZE - m->private_off);
	}
	/* RDMA CM's IP header opens the private data of REQ and SIDR_REQ. */
	uint64_t sid = h->attr_id == UMAD_CM_ATTR_REQ ? m->u.req.service_id
		     : h->attr_id == UMAD_CM_ATTR_SIDR_REQ ? m->u.sidr_req.service_id : 0;
	if (sid && rs_cm_service_is_rdma_cm(sid) && !c->overrun) {
		struct rs_cursor p;
		rs_cur_init(&p, c->base, c->len);
		rs_cur_skip(&p, m->private_off);
		decode_cma_hdr(&p, m);
	}
	/* Everything up to the end of the MAD must be captured to call it whole. */
	if (c->len < RS_MAD_SIZE || c->overrun)
		return RS_MAD_TRUNCATED;
	m->attr_ok = true;
	return RS_MAD_OK;
}

const char *rs_mad_class_name(uint8_t mgmt_class)
{
	switch (mgmt_class) {
	case UMAD_CLASS_SUBN_LID_ROUTED: return "SubnMgt (LID routed)";
	case UMAD_CLASS_SUBN_DIRECTED_ROUTE: return "SubnMgt (directed route)";
	case UMAD_CLASS_SUBN_ADM: return "SubnAdm";
	case UMAD_CLASS_PERF_MGMT: return "PerfMgt";
	case UMAD_CLASS_BM: return "BaseboardMgt";
	case UMAD_CLASS_DEVICE_MGMT: return "DevMgt";
	case UMAD_CLASS_CM: return "ComMgt";
	case UMAD_CLASS_SNMP: return "SNMP";
	case UMAD_CLASS_DEVICE_ADM: return "DevAdm";
	case UMAD_CLASS_BOOT_MGMT: return "BootMgt";
	case UMAD_CLASS_BIS: return "BIS";
	case UMAD_CLASS_CONG_MGMT: return "CongMgt";
	default:
		if ((mgmt_class >= UMAD_CLASS_VENDOR_RANGE1_START && mgmt_class <= UMAD_CLASS_VENDOR_RANGE1_END) ||
		    (mgmt_class >= UMAD_CLASS_VENDOR_RANGE2_START && mgmt_class <= UMAD_CLASS_VENDOR_RANGE2_END))
			return "vendor";
		return "unknown class";
	}
}

const char *rs_mad_method_name(uint8_t method)
{
	switch (method) {
	case UMAD_METHOD_GET: return "Get";
	case UMAD_METHOD_SET: return "Set";
	case UMAD_METHOD_GET_RESP: return "GetResp";
	case UMAD_METHOD_SEND: return "Send";
	case UMAD_METHOD_TRAP: return "Trap";
	case UMAD_METHOD_REPORT: return "Report";
	case UMAD_METHOD_REPORT_RESP: return "ReportResp";
	case UMAD_METHOD_TRAP_REPRESS: return "TrapRepress";
	case 0x12: return "GetTable";      /* SA methods, IBA 15.2.2 */
	case 0x92: return "GetTableResp";
	case 0x13: return "GetTraceTable";
	case 0x14: return "GetMulti";
	case 0x94: return "GetMultiResp";
	case 0x15: return "Delete";
	case 0x95: return "DeleteResp";
	default: return "unknown method";
	}
}

const char *rs_cm_attr_name(uint16_t attr_id)
{
	switch (attr_id) {
	case UMAD_CM_ATTR_REQ: return "REQ";
	case UMAD_CM_ATTR_MRA: return "MRA";
	case UMAD_CM_ATTR_REJ: return "REJ";
	case UMAD_CM_ATTR_REP: return "REP";
	case UMAD_CM_ATTR_RTU: return "RTU";
	case UMAD_CM_ATTR_DREQ: return "DREQ";
	case UMAD_CM_ATTR_DREP: return "DREP";
	case UMAD_CM_ATTR_SIDR_REQ: return "SIDR_REQ";
	case UMAD_CM_ATTR_SIDR_REP: return "SIDR_REP";
	case UMAD_CM_ATTR_LAP: return "LAP";
	case UMAD_CM_ATTR_APR: return "APR";
	case UMAD_CM_ATTR_SAP: return "SAP";
	case UMAD_CM_ATTR_SPR: return "SPR";
	case UMAD_ATTR_CLASS_PORT_INFO: return "ClassPortInfo";
	default: return "unknown attribute";
	}
}

const char *rs_cm_attr_long_name(uint16_t attr_id)
{
	switch (attr_id) {
	case UMAD_CM_ATTR_REQ: return "ConnectRequest";
	case UMAD_CM_ATTR_MRA: return "MessageReceiptAcknowledgement";
	case UMAD_CM_ATTR_REJ: return "ConnectReject";
	case UMAD_CM_ATTR_REP: return "ConnectReply";
	case UMAD_CM_ATTR_RTU: return "ReadyToUse";
	case UMAD_CM_ATTR_DREQ: return "DisconnectRequest";
	case UMAD_CM_ATTR_DREP: return "DisconnectReply";
	case UMAD_CM_ATTR_SIDR_REQ: return "ServiceIDResolutionRequest";
	case UMAD_CM_ATTR_SIDR_REP: return "ServiceIDResolutionResponse";
	case UMAD_CM_ATTR_LAP: return "LoadAlternatePath";
	case UMAD_CM_ATTR_APR: return "AlternatePathResponse";
	case UMAD_CM_ATTR_SAP: return "SuggestAlternatePath";
	case UMAD_CM_ATTR_SPR: return "SuggestPathResponse";
	case UMAD_ATTR_CLASS_PORT_INFO: return "ClassPortInfo";
	default: return "unknown attribute";
	}
}

/* IBA vol 1 12.6.7.2 Table 107 "REJ reason codes". */
const char *rs_cm_rej_reason_name(uint16_t reason)
{
	static const char *const names[] = {
		[1] = "No QP available",
		[2] = "No EEC available",
		[3] = "No resources available",
		[4] = "Timeout",
		[5] = "Unsupported request",
		[6] = "Invalid Communication ID",
		[7] = "Invalid Communication Instance",
		[8] = "Invalid Service ID",
		[9] = "Invalid Transport Service Type",
		[10] = "Stale connection",
		[11] = "RDC does not exist",
		[12] = "Primary Remote Port GID rejected",
		[13] = "Primary Remote Port LID rejected",
		[14] = "Invalid Primary SL",
		[15] = "Invalid Primary Traffic Class",
		[16] = "Invalid Primary Hop Limit",
		[17] = "Invalid Primary Packet Rate",
		[18] = "Alternate Remote Port GID rejected",
		[19] = "Alternate Remote Port LID rejected",
		[20] = "Invalid Alternate SL",
		[21] = "Invalid Alternate Traffic Class",
		[22] = "Invalid Alternate Hop Limit",
		[23] = "Invalid Alternate Packet Rate",
		[24] = "Port Redirection",
		[25] = "Port and CM Redirection",
		[26] = "Invalid Path MTU",
		[27] = "Insufficient Responder Resources",
		[28] = "Consumer Reject",
		[29] = "RNR Retry Count Reject",
		[30] = "Duplicate Local Comm ID",
		[31] = "Unsupported Class Version",
		[32] = "Invalid Primary Flow Label",
		[33] = "Invalid Alternate Flow Label",
		[35] = "Vendor Option Not Supported",
	};
	if (reason < sizeof names / sizeof names[0] && names[reason])
		return names[reason];
	return "unknown reason";
}

/* librdmacm's enum rdma_port_space (<rdma/rdma_cma.h>), Annex A11.3.1. */
const char *rs_cm_port_space_name(uint16_t ps)
{
	switch (ps) {
	case 0x0002: return "IPoIB";
	case 0x0106: return "TCP";
	case 0x0111: return "UDP";
	case 0x013F: return "IB";
	default: return "unknown";
	}
}

/* IBA 12.6.5 Table 100: REQ Transport Service Type. */
const char *rs_cm_transport_type_name(uint8_t tst)
{
	static const char *const names[] = { "RC", "UC", "RD", "extended (XRC)" };
	return names[tst & 3];
}

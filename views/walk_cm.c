/*
 * walk_cm.c — management datagrams: the common MAD header (IBA vol 1 13.4)
 * and the Communication Manager's messages (12.6, SIDR 12.11) with RDMA
 * CM's IP conventions (Annex A11). Offsets in the CM bodies are from the
 * start of the MAD data, as in dissect/cm.c; every field is checked against
 * what was captured before it is shown.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

#include "views/walk_int.h"

#define MADHDR 24

const char *rs_walk_mad_attr_name(uint8_t cls, uint16_t attr)
{
	static const struct { uint16_t id; const char *name; } sm[] = {
		{ 0x0001, "ClassPortInfo" }, { 0x0002, "Notice" }, { 0x0003, "InformInfo" },
		{ 0x0010, "NodeDescription" }, { 0x0011, "NodeInfo" }, { 0x0012, "SwitchInfo" },
		{ 0x0014, "GUIDInfo" }, { 0x0015, "PortInfo" }, { 0x0016, "P_KeyTable" },
		{ 0x0017, "SLtoVLMappingTable" }, { 0x0018, "VLArbitrationTable" },
		{ 0x0019, "LinearForwardingTable" }, { 0x001A, "RandomForwardingTable" },
		{ 0x001B, "MulticastForwardingTable" }, { 0x0020, "SMInfo" },
	}, sa[] = {
		{ 0x0001, "ClassPortInfo" }, { 0x0002, "Notice" }, { 0x0003, "InformInfo" },
		{ 0x0011, "NodeRecord" }, { 0x0012, "PortInfoRecord" }, { 0x0018, "SMInfoRecord" },
		{ 0x0020, "LinkRecord" }, { 0x0030, "GuidInfoRecord" }, { 0x0031, "ServiceRecord" },
		{ 0x0033, "P_KeyTableRecord" }, { 0x0035, "PathRecord" }, { 0x0038, "MCMemberRecord" },
		{ 0x003A, "MultiPathRecord" },
	};
	if (cls == UMAD_CLASS_CM)
		return rs_cm_attr_name(attr);
	if (cls == UMAD_CLASS_SUBN_LID_ROUTED || cls == UMAD_CLASS_SUBN_DIRECTED_ROUTE) {
		for (size_t i = 0; i < sizeof sm / sizeof sm[0]; i++)
			if (sm[i].id == attr)
				return sm[i].name;
	} else if (cls == UMAD_CLASS_SUBN_ADM) {
		for (size_t i = 0; i < sizeof sa / sizeof sa[0]; i++)
			if (sa[i].id == attr)
				return sa[i].name;
	}
	return rs_wfmt("attribute 0x%04x", attr);
}

static const char *class_sentence(const struct rs_mad_hdr *h)
{
	switch (h->mgmt_class) {
	case UMAD_CLASS_CM:
		return "Class 0x07 is Communication Management: the handshake that connects two QPs (REQ, REP, "
		       "RTU), rejects (REJ) or disconnects them (DREQ, DREP), as in IBA 12.6. CM messages are "
		       "one-way Sends; each side resends until it gets the answer.";
	case UMAD_CLASS_SUBN_ADM:
		return "Class 0x03 is Subnet Administration: queries to the subnet manager's database. A "
		       "PathRecord, for example, tells a node how to reach another (LIDs, SL, MTU, rate).";
	case UMAD_CLASS_SUBN_LID_ROUTED:
		return "Class 0x01 is Subnet Management, LID-routed: the subnet manager reads and configures ports "
		       "through QP0.";
	case UMAD_CLASS_SUBN_DIRECTED_ROUTE:
		return "Class 0x81 is Subnet Management, directed route: forwarded along an explicit list of switch "
		       "ports instead of by LID, so it works before LIDs are assigned (LID 0xffff is the permissive "
		       "LID). SMInfo is what subnet managers exchange to elect the master.";
	case UMAD_CLASS_PERF_MGMT:
		return "Class 0x04 is Performance Management: reading and resetting port counters.";
	default:
		return rs_wfmt("Class 0x%02x: %s.", h->mgmt_class, rs_mad_class_name(h->mgmt_class));
	}
}

void rs_walk_mad_layer(struct walk *w, const struct rs_layer *l)
{
	const struct rs_mad *m = w->f->mad;
	const struct rs_mad_hdr *h = &m->hdr;
	uint32_t o = l->off;
	bool dr = h->mgmt_class == UMAD_CLASS_SUBN_DIRECTED_ROUTE;

	rs_wtitle(w, l->id, "Management Datagram header", o, l->len);
	rs_wfield(w, o, "Base version", rs_whexdec(h->base_version, 2), NULL);
	rs_wfield(w, o + 1, "Class", rs_whex(h->mgmt_class, 2), "%s", rs_mad_class_name(h->mgmt_class));
	rs_wfield(w, o + 2, "Class version", rs_whexdec(h->class_version, 2), NULL);
	rs_wbits(w, o + 3, 1, 7, 1, h->method >> 7, "R", "%s", h->method & 0x80 ? "a response" : "a request");
	rs_wbits(w, o + 3, 1, 0, 7, h->method & 0x7F, "Method", "%s", rs_mad_method_name(h->method));
	if (dr) {
		rs_wbits(w, o + 4, 2, 15, 1, h->status >> 15, "D", "%s", h->status >> 15 ? "returning" : "outbound");
		rs_wbits(w, o + 4, 2, 0, 15, h->status & 0x7FFF, "Status", NULL);
		rs_wfield(w, o + 6, "Hop pointer", rs_whexdec(h->class_specific >> 8, 2), NULL);
		rs_wfield(w, o + 7, "Hop count", rs_whexdec(h->class_specific & 0xFF, 2), NULL);
	} else {
		rs_wfield(w, o + 4, "Status", rs_whex(h->status, 4), "%s", h->status ? "" : "success");
		rs_wfield(w, o + 6, "Class specific", rs_whex(h->class_specific, 4), NULL);
	}
	rs_wfield(w, o + 8, "Transaction ID", rs_whex(h->tid, 16), NULL);
	rs_wfield(w, o + 16, "Attribute ID", rs_whex(h->attr_id, 4), "%s", rs_walk_mad_attr_name(h->mgmt_class, h->attr_id));
	rs_wfield(w, o + 18, "Reserved", rs_whex(h->reserved, 4), NULL);
	rs_wfield(w, o + 20, "Attribute modifier", rs_whex(h->attr_mod, 8), NULL);
	if (!rs_walk_first(w, l->id)) {
		rs_wsay(w, "Class 0x%02x (%s), method %s, attribute %s; transaction ID 0x%" PRIx64 ".", h->mgmt_class,
		     rs_mad_class_name(h->mgmt_class), rs_mad_method_name(h->method),
		     rs_walk_mad_attr_name(h->mgmt_class, h->attr_id), h->tid);
		return;
	}
	rs_wsay(w, "Every management message is a 256-byte MAD (IBA 13.4): this common header, then the "
		"attribute's data. %s Method %s%s; the transaction ID ties a request to its response.",
	     class_sentence(h), rs_mad_method_name(h->method), h->method & 0x80 ? " (R = 1: a response)" : "");
}

/* ---- CM bodies ------------------------------------------------------------ */

static bool cap(const struct walk *w, uint32_t rel, uint32_t len)
{
	return rs_mad_captured(w->f->mad, MADHDR + rel, len);
}

/* A field of the CM body at `rel` bytes into the MAD data. */
static void cmf(struct walk *w, const struct rs_layer *l, uint32_t rel, uint32_t len, const char *label,
		const char *value, const char *note)
{
	rs_wfield(w, l->off + rel, label, cap(w, rel, len) ? value : "not captured", "%s",
	       cap(w, rel, len) && note ? note : "");
}

static void cmb(struct walk *w, const struct rs_layer *l, uint32_t rel, unsigned shift, unsigned width,
		uint64_t v, const char *label, const char *note)
{
	if (cap(w, rel, 1))
		rs_wbits(w, l->off + rel, 1, shift, width, v, label, "%s", note ? note : "");
	else
		rs_wfield(w, l->off + rel, label, "not captured", NULL);
}

static const char *timeout(unsigned n)
{
	return rs_wfmt("4.096 µs × 2^%u = %s", n, rs_walk_duration(4.096 * (double)(1ull << (n & 31))));
}

static const char *mtu(unsigned code)
{
	return code >= 1 && code <= 5 ? rs_wfmt("%u bytes", 128u << code) : "reserved";
}

static const char *gid(const uint8_t g[16])
{
	char b[INET6_ADDRSTRLEN];
	return rs_wfmt("%s", inet_ntop(AF_INET6, g, b, sizeof b) ? b : "?");
}

static const char *service(uint64_t sid)
{
	if (sid >> 24 == 0x1000000000ull) /* RFC 4755: 0x1000000000000000 | QPN */
		return rs_wfmt("IPoIB connected mode, UD QPN 0x%06x", (unsigned)(sid & 0xFFFFFF));
	if (!rs_cm_service_is_rdma_cm(sid))
		return "";
	return rs_wfmt("RDMA CM: %s port %u", rs_cm_port_space_name(rs_cm_service_port_space(sid)),
		    rs_cm_service_port(sid));
}

static void path(struct walk *w, const struct rs_layer *l, uint32_t rel, const struct rs_cm_path *p, const char *which)
{
	static const uint8_t zero[16];
	if (!p->local_lid && !p->remote_lid && !memcmp(p->local_gid, zero, 16) && !memcmp(p->remote_gid, zero, 16)) {
		cmf(w, l, rel, 44, rs_wfmt("%s path", which), "none", "all zero");
		return;
	}
	cmf(w, l, rel, 2, rs_wfmt("%s local LID", which), rs_whexdec(p->local_lid, 4), p->local_lid == 0xFFFF ? "permissive (RoCE has no LIDs)" : NULL);
	cmf(w, l, rel + 2, 2, rs_wfmt("%s remote LID", which), rs_whexdec(p->remote_lid, 4), NULL);
	cmf(w, l, rel + 4, 16, rs_wfmt("%s local GID", which), gid(p->local_gid), NULL);
	cmf(w, l, rel + 20, 16, rs_wfmt("%s remote GID", which), gid(p->remote_gid), NULL);
	cmf(w, l, rel + 36, 3, "  flow label", rs_whex(p->flow_label, 5), NULL);
	cmb(w, l, rel + 39, 0, 6, p->packet_rate, "  packet rate", NULL);
	cmf(w, l, rel + 40, 1, "  traffic class", rs_whexdec(p->traffic_class, 2), NULL);
	cmf(w, l, rel + 41, 1, "  hop limit", rs_whexdec(p->hop_limit, 2), NULL);
	cmb(w, l, rel + 42, 4, 4, p->sl, "  SL", NULL);
	cmb(w, l, rel + 42, 3, 1, p->subnet_local, "  subnet local", NULL);
	cmb(w, l, rel + 43, 3, 5, p->local_ack_timeout, "  local ACK timeout", timeout(p->local_ack_timeout));
}

/* The RDMA CM IP header at the start of the private data (Annex A11.6). */
static const char *cma(struct walk *w, const struct rs_layer *l)
{
	const struct rs_mad *m = w->f->mad;
	if (!m->has_cma_hdr)
		return NULL;
	const struct rs_cma_hdr *c = &m->cma;
	uint32_t rel = m->private_off - MADHDR;
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	bool v4 = c->ip_version == 4;
	inet_ntop(v4 ? AF_INET : AF_INET6, v4 ? c->src_addr + 12 : c->src_addr, s, sizeof s);
	inet_ntop(v4 ? AF_INET : AF_INET6, v4 ? c->dst_addr + 12 : c->dst_addr, d, sizeof d);
	cmf(w, l, rel, 1, "RDMA CM version", rs_whexdec(c->version, 2), "private data: RDMA CM IP header");
	cmb(w, l, rel + 1, 4, 4, c->ip_version, "IP version", NULL);
	cmf(w, l, rel + 2, 2, "Source port", rs_whexdec(c->src_port, 4), NULL);
	cmf(w, l, rel + 4, 16, "Source address", s, NULL);
	cmf(w, l, rel + 20, 16, "Destination address", d, NULL);
	cmf(w, l, rel + 36, 0, "Private data", rs_wfmt("%u bytes", m->private_len - 36), "the application's");
	return rs_wfmt("from %s port %u to %s", s, c->src_port, d);
}

static void private_data(struct walk *w, const struct rs_layer *l)
{
	const struct rs_mad *m = w->f->mad;
	if (m->private_len)
		cmf(w, l, m->private_off - MADHDR, 0, "Private data", rs_wfmt("%u bytes", m->private_len),
		    "for the application");
}

static const char *frame_ref(const struct walk *w, const char *what)
{
	return w->v.cm_answers ? rs_wfmt("%s in frame %" PRIu64, what, w->v.cm_answers) : what;
}

static void req(struct walk *w, const struct rs_layer *l)
{
	const struct rs_cm_req *r = &w->f->mad->u.req;
	cmf(w, l, 0, 4, "Local Comm ID", rs_whex(r->local_comm_id, 8), NULL);
	cmf(w, l, 8, 8, "Service ID", rs_whex(r->service_id, 16), service(r->service_id));
	cmf(w, l, 16, 8, "Local CA GUID", rs_whex(r->local_ca_guid, 16), NULL);
	cmf(w, l, 28, 4, "Local Q_Key", rs_whex(r->local_qkey, 8), NULL);
	cmf(w, l, 32, 3, "Local QPN", rs_whexdec(r->local_qpn, 6), "the client's QP");
	cmf(w, l, 35, 1, "Responder resources", rs_whexdec(r->responder_resources, 2), NULL);
	cmf(w, l, 36, 3, "Local EECN", rs_whex(r->local_eecn, 6), NULL);
	cmf(w, l, 39, 1, "Initiator depth", rs_whexdec(r->initiator_depth, 2), NULL);
	cmf(w, l, 40, 3, "Remote EECN", rs_whex(r->remote_eecn, 6), NULL);
	cmb(w, l, 43, 3, 5, r->remote_cm_response_timeout, "Remote CM resp. TO", timeout(r->remote_cm_response_timeout));
	cmb(w, l, 43, 1, 2, r->transport_service_type, "Transport type", rs_cm_transport_type_name(r->transport_service_type));
	cmb(w, l, 43, 0, 1, r->end_to_end_flow_control, "End-to-end flow ctl", NULL);
	cmf(w, l, 44, 3, "Starting PSN", rs_whexdec(r->starting_psn, 6), "first PSN the client expects");
	cmb(w, l, 47, 3, 5, r->local_cm_response_timeout, "Local CM resp. TO", timeout(r->local_cm_response_timeout));
	cmb(w, l, 47, 0, 3, r->retry_count, "Retry count", NULL);
	cmf(w, l, 48, 2, "P_Key", rs_whex(r->pkey, 4), NULL);
	cmb(w, l, 50, 4, 4, r->path_mtu, "Path MTU", mtu(r->path_mtu));
	cmb(w, l, 50, 3, 1, r->rdc_exists, "RDC exists", NULL);
	cmb(w, l, 50, 0, 3, r->rnr_retry_count, "RNR retry count", r->rnr_retry_count == 7 ? "7 = no limit" : NULL);
	cmb(w, l, 51, 4, 4, r->max_cm_retries, "Max CM retries", NULL);
	cmb(w, l, 51, 3, 1, r->srq, "SRQ", NULL);
	cmb(w, l, 51, 0, 3, r->extended_transport_type, "Extended transport", NULL);
	path(w, l, 52, &r->primary, "Primary");
	path(w, l, 96, &r->alternate, "Alternate");
	const char *ip = cma(w, l);
	if (!ip)
		private_data(w, l);

	const struct rs_frame *f = w->f;
	const char *svc = rs_cm_service_is_rdma_cm(r->service_id)
		? rs_wfmt("service %s port %u (RDMA CM)", rs_cm_port_space_name(rs_cm_service_port_space(r->service_id)),
		       rs_cm_service_port(r->service_id))
		: *service(r->service_id) ? rs_wfmt("service ID 0x%016" PRIx64 " (%s)", r->service_id, service(r->service_id))
		: rs_wfmt("service ID 0x%016" PRIx64, r->service_id);
	rs_wsay(w, "ConnectRequest: the active side (the client) asks to connect its %s QP 0x%x to %s, %s. Starting "
		"PSN 0x%06x (%u) is the PSN the client's QP expects first, so the server must number its first "
		"packet with it. Path MTU %s. The client accepts up to %u RDMA READ or atomic request%s in flight "
		"from the server (responder resources) and will issue at most %u itself (initiator depth); it "
		"retries %u times after a timeout and %s after an RNR NAK. Local Communication ID 0x%08x names "
		"this attempt; the replies quote it.",
	     rs_cm_transport_type_name(r->transport_service_type), r->local_qpn, svc,
	     ip ? ip : rs_wfmt("from %s to %s", rs_walk_addr(&f->src), rs_walk_addr(&f->dst)), r->starting_psn,
	     r->starting_psn, mtu(r->path_mtu), r->responder_resources, r->responder_resources == 1 ? "" : "s",
	     r->initiator_depth, r->retry_count,
	     r->rnr_retry_count == 7 ? "without limit" : rs_wfmt("%u times", r->rnr_retry_count), r->local_comm_id);
	if (ip)
		rs_wsay(w, "The private data starts with RDMA CM's IP header (IBA Annex A11): the client's IP address "
			"and port and the server's address, so that both ends see an IP connection.");
}

static void rep(struct walk *w, const struct rs_layer *l)
{
	const struct rs_cm_rep *r = &w->f->mad->u.rep;
	cmf(w, l, 0, 4, "Local Comm ID", rs_whex(r->local_comm_id, 8), NULL);
	cmf(w, l, 4, 4, "Remote Comm ID", rs_whex(r->remote_comm_id, 8), "the REQ's Local Comm ID");
	cmf(w, l, 8, 4, "Local Q_Key", rs_whex(r->local_qkey, 8), NULL);
	cmf(w, l, 12, 3, "Local QPN", rs_whexdec(r->local_qpn, 6), "the server's QP");
	cmf(w, l, 16, 3, "Local EECN", rs_whex(r->local_eecn, 6), NULL);
	cmf(w, l, 20, 3, "Starting PSN", rs_whexdec(r->starting_psn, 6), "first PSN the server expects");
	cmf(w, l, 24, 1, "Responder resources", rs_whexdec(r->responder_resources, 2), NULL);
	cmf(w, l, 25, 1, "Initiator depth", rs_whexdec(r->initiator_depth, 2), NULL);
	cmb(w, l, 26, 3, 5, r->target_ack_delay, "Target ACK delay", NULL);
	cmb(w, l, 26, 1, 2, r->failover_accepted, "Failover accepted", NULL);
	cmb(w, l, 26, 0, 1, r->end_to_end_flow_control, "End-to-end flow ctl", NULL);
	cmb(w, l, 27, 5, 3, r->rnr_retry_count, "RNR retry count", r->rnr_retry_count == 7 ? "7 = no limit" : NULL);
	cmb(w, l, 27, 4, 1, r->srq, "SRQ", NULL);
	cmf(w, l, 28, 8, "Local CA GUID", rs_whex(r->local_ca_guid, 16), NULL);
	private_data(w, l);
	rs_wsay(w, "ConnectReply: the server accepts the %s (Communication ID 0x%08x). Its QP 0x%x is the other end "
		"of the connection. Starting PSN 0x%06x (%u) is the PSN the server's QP expects first, so the "
		"client's first request will carry it. The client now moves its QP to Ready To Send and "
		"confirms with an RTU.", frame_ref(w, "REQ"), r->remote_comm_id, r->local_qpn, r->starting_psn,
	     r->starting_psn);
}

static void ids(struct walk *w, const struct rs_layer *l, const struct rs_cm_ids *c)
{
	cmf(w, l, 0, 4, "Local Comm ID", rs_whex(c->local_comm_id, 8), "the sender's");
	cmf(w, l, 4, 4, "Remote Comm ID", rs_whex(c->remote_comm_id, 8), "the receiver's");
}

static void sidr(struct walk *w, const struct rs_layer *l, uint16_t attr)
{
	const struct rs_mad *m = w->f->mad;
	static const char *const st[] = { "QP valid", "service ID not supported", "rejected by the service",
					  "no QP available", "redirect", "class version not supported" };
	if (attr == UMAD_CM_ATTR_SIDR_REQ) {
		const struct rs_cm_sidr_req *r = &m->u.sidr_req;
		cmf(w, l, 0, 4, "Request ID", rs_whex(r->request_id, 8), NULL);
		cmf(w, l, 4, 2, "P_Key", rs_whex(r->pkey, 4), NULL);
		cmf(w, l, 8, 8, "Service ID", rs_whex(r->service_id, 16), service(r->service_id));
		const char *ip = cma(w, l);
		if (!ip)
			private_data(w, l);
		rs_wsay(w, "Service ID Resolution Request: a UD client asks which QP and Q_Key serve service ID "
			"0x%016" PRIx64 "%s%s; no connection is made.", r->service_id,
		     *service(r->service_id) ? rs_wfmt(" (%s)", service(r->service_id)) : "", ip ? rs_wfmt(", %s", ip) : "");
		return;
	}
	const struct rs_cm_sidr_rep *r = &m->u.sidr_rep;
	cmf(w, l, 0, 4, "Request ID", rs_whex(r->request_id, 8), NULL);
	cmf(w, l, 4, 1, "Status", rs_whexdec(r->status, 2), r->status < 6 ? st[r->status] : "reserved");
	cmf(w, l, 5, 1, "Add. info length", rs_whexdec(r->add_info_len, 2), NULL);
	cmf(w, l, 8, 3, "QPN", rs_whexdec(r->qpn, 6), NULL);
	cmf(w, l, 12, 8, "Service ID", rs_whex(r->service_id, 16), service(r->service_id));
	cmf(w, l, 20, 4, "Q_Key", rs_whex(r->qkey, 8), NULL);
	private_data(w, l);
	rs_wsay(w, "Service ID Resolution Response to the %s: status %u (%s); datagrams for the service go to QP "
		"0x%x with Q_Key 0x%08x.", frame_ref(w, "SIDR_REQ"), r->status,
	     r->status < 6 ? st[r->status] : "reserved", r->qpn, r->qkey);
}

void rs_walk_cm_layer(struct walk *w, const struct rs_layer *l)
{
	const struct rs_mad *m = w->f->mad;
	uint16_t attr = m->hdr.attr_id;
	static const char *const which[] = { "REQ", "REP", "LAP", "message" };

	if (!m->is_cm || attr < UMAD_CM_ATTR_REQ || attr > UMAD_CM_ATTR_APR) {
		rs_wtitle_named(w, l->id, "MAD data", rs_wfmt("%s %s", rs_mad_class_name(m->hdr.mgmt_class),
			     rs_walk_mad_attr_name(m->hdr.mgmt_class, attr)), l->off, l->len);
		rs_wfield(w, l->off, "Data", rs_wfmt("%u bytes", l->len), "not decoded further");
		rs_wsay(w, "The attribute's data; rocestat decodes only the MAD header for this class.");
		return;
	}
	rs_wtitle_named(w, l->id, rs_wfmt("CM %s", rs_cm_attr_name(attr)), rs_cm_attr_long_name(attr), l->off, l->len);
	switch (attr) {
	case UMAD_CM_ATTR_REQ:
		req(w, l);
		break;
	case UMAD_CM_ATTR_REP:
		rep(w, l);
		break;
	case UMAD_CM_ATTR_REJ: {
		const struct rs_cm_rej *r = &m->u.rej;
		ids(w, l, &m->u.ids);
		cmb(w, l, 8, 6, 2, r->msg_rejected, "Message rejected", which[r->msg_rejected & 3]);
		cmb(w, l, 9, 1, 7, r->reject_info_len, "Reject info length", NULL);
		cmf(w, l, 10, 2, "Reason", rs_whexdec(r->reason, 4), rs_cm_rej_reason_name(r->reason));
		private_data(w, l);
		rs_wsay(w, "ConnectReject: the %s is refused, reason %u: %s.%s", frame_ref(w, which[r->msg_rejected & 3]),
		     r->reason, rs_cm_rej_reason_name(r->reason),
		     r->reason == 8 ? " Nobody listens on that service ID (for RDMA CM: no rdma_listen() on that "
				      "port)." : "");
		break;
	}
	case UMAD_CM_ATTR_MRA: {
		const struct rs_cm_mra *r = &m->u.mra;
		ids(w, l, &m->u.ids);
		cmb(w, l, 8, 6, 2, r->msg_mraed, "Message MRAed", which[r->msg_mraed & 3]);
		cmb(w, l, 9, 3, 5, r->service_timeout, "Service timeout", timeout(r->service_timeout));
		private_data(w, l);
		rs_wsay(w, "MessageReceiptAcknowledgement: the %s arrived, but the answer will take longer; its sender "
			"should wait up to %s more before resending.", frame_ref(w, which[r->msg_mraed & 3]),
		     rs_walk_duration(4.096 * (double)(1ull << r->service_timeout)));
		break;
	}
	case UMAD_CM_ATTR_RTU:
		ids(w, l, &m->u.ids);
		private_data(w, l);
		rs_wsay(w, "ReadyToUse: the client confirms the %s. The connection (Communication IDs 0x%08x and "
			"0x%08x) is established and data can flow.", frame_ref(w, "REP"), m->u.ids.local_comm_id,
		     m->u.ids.remote_comm_id);
		break;
	case UMAD_CM_ATTR_DREQ:
		ids(w, l, &m->u.ids);
		cmf(w, l, 8, 3, "Remote QPN/EECN", rs_whexdec(m->u.ids.remote_qpn, 6), "the receiver's QP");
		private_data(w, l);
		rs_wsay(w, "DisconnectRequest: this side closes the connection with QP 0x%x; the other side answers "
			"with a DREP and both QPs stop.", m->u.ids.remote_qpn);
		break;
	case UMAD_CM_ATTR_DREP:
		ids(w, l, &m->u.ids);
		private_data(w, l);
		rs_wsay(w, "DisconnectReply: confirms the %s; the connection is closed. Both Communication IDs wait "
			"out a TimeWait period before they are reused.", frame_ref(w, "DREQ"));
		break;
	case UMAD_CM_ATTR_SIDR_REQ:
	case UMAD_CM_ATTR_SIDR_REP:
		sidr(w, l, attr);
		break;
	default: /* LAP, APR */
		ids(w, l, &m->u.ids);
		rs_wsay(w, "%s: part of loading and answering an alternate path for automatic path migration; only the "
			"Communication IDs are decoded.", rs_cm_attr_long_name(attr));
		break;
	}
}

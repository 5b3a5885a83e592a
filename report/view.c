/*
 * view.c — shared by the text and JSON reports: what a report shows (the
 * analyzer selects and orders it, analyzer/result.h), flow labels,
 * connection services, and the wording of each anomaly.
 */
#include <inttypes.h>
#include <string.h>

#include "report/view.h"

/* What became of the PSNs a stream skipped, most certain first. */
void rs_gap_describe(const struct rs_flow *fl, bool response, char *buf, size_t len)
{
	struct rs_stream_info st;
	rs_flow_stream(fl, response, &st);
	struct rs_gaps g = rs_gaps_of_stream(&st);
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	const char *why = response ? "READ responses are never acknowledged"
			  : fi.transport_code == RS_TR_UC || fi.transport_code == RS_TR_UD ? "this transport has no acknowledgements"
			  : "no acknowledgement in the capture covers them";
	struct {
		uint64_t n;
		const char *fmt;
	} part[] = {
		{ g.not_captured, "%" PRIu64 " not captured (acknowledged by the responder, never NAKed or re-sent: "
				  "the capture dropped them, not the network)" },
		{ g.lost, "%" PRIu64 " lost (NAKed by the responder as missing)" },
		{ g.resent - g.overtaken, response ? "%" PRIu64 " re-sent by the responder (answering the requester's READ "
						   "or atomic retry), their first copy not in the capture"
						 : "%" PRIu64 " re-sent by the requester, their first copy not in the capture" },
		{ g.overtaken, "%" PRIu64 " re-sent by the requester before their first copy, which came after "
			     "(reordered)" },
		{ g.reordered, "%" PRIu64 " arrived late (reordered)" },
		{ g.undetermined, "%" PRIu64 " undetermined (not in the capture; %s)" },
	};
	size_t at = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < G_N_ELEMENTS(part) && at < len; i++) {
		if (!part[i].n)
			continue;
		if (at) {
			int k = snprintf(buf + at, len - at, ", ");
			at += k > 0 ? (size_t)k : 0;
			if (at >= len)
				break;
		}
		int k = snprintf(buf + at, len - at, part[i].fmt, part[i].n, why);
		at += k > 0 ? (size_t)k : 0;
	}
}

static gint by_qpn(gconstpointer x, gconstpointer y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

bool rs_report_qp_present(const struct rs_analyzer *a, uint32_t qp, char *list, size_t len, unsigned *n)
{
	size_t pos = 0;
	for (const struct rs_conn *c; (c = rs_conns_next(a, &pos));) {
		struct rs_conn_info ci;
		rs_conn_get_info(c, &ci);
		if (ci.client_qpn == qp || ci.server_qpn == qp)
			return true;
	}
	GArray *qpns = g_array_new(FALSE, FALSE, sizeof(uint32_t));
	pos = 0;
	for (const struct rs_flow *fl; (fl = rs_flows_next(a, &pos));) {
		struct rs_addr src, dst;
		uint32_t dest_qp;
		rs_flow_ends(fl, &src, &dst, &dest_qp);
		if (dest_qp == qp) {
			g_array_free(qpns, TRUE);
			return true;
		}
		g_array_append_val(qpns, dest_qp);
	}
	g_array_sort(qpns, by_qpn);
	size_t at = 0;
	*n = 0;
	list[0] = '\0';
	for (guint i = 0; i < qpns->len; i++) {
		uint32_t q = g_array_index(qpns, uint32_t, i);
		if (i > 0 && q == g_array_index(qpns, uint32_t, i - 1))
			continue;
		if ((*n)++ < 32 && at < len) {
			int k = snprintf(list + at, len - at, "%s0x%x", *n > 1 ? ", " : "", q);
			at += k > 0 ? (size_t)k : 0;
		}
	}
	if (*n > 32 && at < len)
		snprintf(list + at, len - at, " and %u more", *n - 32);
	g_array_free(qpns, TRUE);
	return false;
}

bool rs_report_conn_present(const struct rs_analyzer *a, uint64_t id, unsigned *n, unsigned *last)
{
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	*n = (unsigned)cap.conns;
	*last = 0;
	size_t pos = 0;
	for (const struct rs_conn *c; (c = rs_conns_next(a, &pos));) {
		uint32_t cid = rs_conn_id(c);
		if (cid == id)
			return true;
		*last = cid > *last ? cid : *last;
	}
	return false;
}

void rs_view_init(struct rs_view *v, const struct rs_analyzer *a, const struct rs_report_opts *o)
{
	g_assert(rs_analyzer_finished(a)); /* by the caller, before any writer (report.h) */
	v->a = a;
	v->o = o;
	v->names = rs_names_new(o->resolve_names);
	v->flows = rs_flows_selected(a, o->qp, o->conn);
	v->conns = rs_conns_selected(a, o->qp, o->conn);
	v->anomalies = rs_anomalies_selected(a, o->qp, o->conn, v->flows, v->conns);
	v->ulp_queues = rs_ulp_queues_selected(a, o->qp, o->conn);
	v->ulp_conns = g_ptr_array_new();
	for (guint i = 0; i < v->conns->len; i++)
		if (rs_conn_ulp(v->conns->pdata[i]))
			g_ptr_array_add(v->ulp_conns, v->conns->pdata[i]);
	for (guint i = 0; i < v->ulp_queues->len; i++)
		g_ptr_array_add(v->ulp_conns, v->ulp_queues->pdata[i]);
}

void rs_view_free(struct rs_view *v)
{
	g_ptr_array_free(v->flows, TRUE);
	g_ptr_array_free(v->conns, TRUE);
	g_ptr_array_free(v->anomalies, TRUE);
	g_ptr_array_free(v->ulp_queues, TRUE);
	g_ptr_array_free(v->ulp_conns, TRUE);
	rs_names_free(v->names);
}

const char *rs_flow_label_sep(struct rs_names *n, const struct rs_flow *fl, const char *sep, char *buf, size_t len)
{
	struct rs_addr src, dst;
	uint32_t qp;
	rs_flow_ends(fl, &src, &dst, &qp);
	return rs_fmt_flow_pair(n, &src, &dst, qp, sep, buf, len);
}

const char *rs_flow_label(struct rs_names *n, const struct rs_flow *fl, char *buf, size_t len)
{
	return rs_flow_label_sep(n, fl, " QP ", buf, len);
}

const char *rs_lat_key(enum rs_lat_kind k)
{
	static const char *const keys[RS_LAT__COUNT] = { "read_first_response", "read_last_response", "ack",
							 "atomic" };
	return keys[k];
}

const char *rs_lat_label(enum rs_lat_kind k)
{
	static const char *const labels[RS_LAT__COUNT] = { "READ → 1st response", "READ → last response",
							   "AckReq → ACK", "atomic → atomic ACK" };
	return labels[k];
}

/* "iSER on RDMA CM port 3260 (TCP port space)", or without a ULP name
 * the port alone (rs_fmt_service). */
const char *rs_conn_service(const struct rs_conn *c, char *buf, size_t len)
{
	const char *u = rs_conn_ulp_name(c);
	struct rs_ulp_how how;
	rs_conn_ulp_how(c, &how);
	if (!how.cm && how.by == RS_ULP_BY_SHAPE) {
		snprintf(buf, len, "%s recognised by shape (no CM handshake captured): %u PDUs of its shape, %u answers "
			 "tied to their requests, frames %" PRIu64 "-%" PRIu64, u, how.pdus, how.matched, how.from.frame,
			 how.at.frame);
		return buf;
	}
	if (!how.cm) {
		snprintf(buf, len, "%s named by --ulp qp:0x%x (no CM handshake captured)", u, how.qpn);
		return buf;
	}
	uint64_t sid = rs_conn_service_id(c);
	char svc[64];
	rs_fmt_service(sid, svc, sizeof svc);
	if (*u && rs_cm_service_is_rdma_cm(sid))
		snprintf(buf, len, "%s on %s", u, svc);
	else
		snprintf(buf, len, "%s", svc);
	if (how.by == RS_ULP_BY_QP) {
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, "%s%s named by --ulp qp:0x%x", *u && rs_cm_service_is_rdma_cm(sid) ? "," : ";",
			 rs_cm_service_is_rdma_cm(sid) ? "" : *u ? " " : "", how.qpn);
	}
	return buf;
}

/* For a 13-column cell: "iSER 3260", or "CM port 3260". */
const char *rs_conn_title(const struct rs_conn *c, char *buf, size_t len)
{
	struct rs_ulp_how how;
	rs_conn_ulp_how(c, &how);
	snprintf(buf, len, "%s %u", how.cm ? "connection" : "queue without CM", rs_conn_id(c));
	return buf;
}

const char *rs_conn_service_short(const struct rs_conn *c, char *buf, size_t len)
{
	const char *u = rs_conn_ulp_name(c);
	uint64_t sid = rs_conn_service_id(c);
	if (*u && rs_cm_service_is_rdma_cm(sid))
		snprintf(buf, len, "%s %u", u, rs_cm_service_port(sid));
	else
		rs_fmt_service_short(sid, buf, len);
	return buf;
}

static const char *conn_label(struct rs_names *n, const struct rs_conn *conn, char *buf, size_t len)
{
	char cl[96], sv[96], svc[64];
	struct rs_conn_info ci, *c = &ci;
	rs_conn_get_info(conn, c);
	snprintf(buf, len, "%s QP 0x%x → %s %s", rs_fmt_addr(n, &c->client, cl, sizeof cl), c->client_qpn,
		 rs_fmt_addr(n, &c->server, sv, sizeof sv), rs_conn_service(conn, svc, sizeof svc));
	return buf;
}

const struct rs_flow *rs_anomaly_flow(const struct rs_view *v, const struct rs_anomaly *an)
{
	struct rs_anomaly_info ai;
	rs_anomaly_get_info(v->a, an, &ai);
	return ai.flow;
}

void rs_anomaly_subject(const struct rs_view *v, const struct rs_anomaly *anomaly, struct rs_anom_subject *out)
{
	struct rs_anomaly_info ai, *an = &ai;
	rs_anomaly_get_info(v->a, anomaly, an);
	enum rs_anom type = (enum rs_anom)an->type;
	memset(out, 0, sizeof *out);
	out->evicted = an->evicted;
	if (an->evicted_sum) {
		out->kind = rs_anom_flow_subject(type) ? "evicted_half_flows" : "evicted_connections";
	} else if (an->flow) {
		struct rs_flow_info fi;
		rs_flow_get_info(an->flow, &fi);
		out->kind = "half_flow";
		out->src = fi.src;
		out->dst = fi.dst;
		out->have_qp = true;
		out->dest_qp = fi.dest_qp;
		if (!out->evicted && fi.conn)
			out->conn_id = rs_conn_id(fi.conn) + 1;
	} else if (an->conn) {
		struct rs_conn_info ci;
		rs_conn_get_info(an->conn, &ci);
		out->kind = "connection";
		out->src = ci.client;
		out->dst = ci.server;
		out->conn_id = ci.id + 1;
	} else if (type == RS_AN_MIXED_ROCE) {
		out->kind = "hosts";
		if (an->have_mixed) {
			out->src = an->mixed_x;
			out->dst = an->mixed_y;
		}
	} else if (type == RS_AN_FILE_ERROR || type == RS_AN_FILE_WARNING) {
		out->kind = "file";
	} else if (type == RS_AN_EVICTED || type == RS_AN_ROCE_ELSEWHERE || type == RS_AN_SHAPE_UNEXAMINED) {
		out->kind = "capture";
	} else if (type == RS_AN_PAUSE_STORM) {
		out->kind = "link_sender";
	} else {
		out->kind = "frames";
	}
}

/* What an anomaly of this type is about: the CM's are about connections. */
static const char *subject_noun(enum rs_anom t)
{
	return rs_anom_flow_subject(t) ? "half-flow" : "connection";
}

static void describe_evicted(const struct rs_analyzer *a, uint64_t count, char *buf, size_t len)
{
	const struct rs_analyzer_opts *opts = rs_analyzer_options(a);
	if (opts->max_flows_default)
		snprintf(buf, len, "%" PRIu64 " half-flows evicted to stay under the default cap of %" PRIu64
			 " (1/32 of physical memory's worth; --max-flows N sets another, 0 none); their counters "
			 "are summed in the evicted total", count, opts->max_flows);
	else
		snprintf(buf, len, "%" PRIu64 " half-flows evicted to stay under --max-flows %" PRIu64
			 "; their counters are summed in the evicted total", count, opts->max_flows);
}

static const char *describe(const struct rs_view *v, const struct rs_anomaly_info *an, char *buf, size_t len);

/* The sentence of a connection's anomaly. */
static void describe_conn(struct rs_names *names, const struct rs_anomaly_info *an, char *buf, size_t len)
{
	const struct rs_conn *conn = an->conn;
	struct rs_conn_info ci, *c = &ci;
	rs_conn_get_info(conn, c);
	char who[256];
	switch ((enum rs_anom)an->type) {
	case RS_AN_CM_REJ:
		snprintf(buf, len, "connection %s rejected by the %s: %s (reason %u)", conn_label(names, conn, who, sizeof who),
			 c->rej_from_client ? "client" : "server", rs_cm_rej_reason_name((uint16_t)an->code), an->code);
		break;
	case RS_AN_CM_INCOMPLETE: {
		const char *what = c->sidr ? "SIDR_REQ without SIDR_REP"
				   : rs_conn_state_of(conn) == RS_CONN_CLOSING ? "DREQ without DREP"
				   : c->n[UMAD_CM_ATTR_REP - UMAD_CM_ATTR_REQ] ? "REP without RTU"
				   : c->n[0] ? "REQ without REP or REJ" : "handshake seen only in part";
		snprintf(buf, len, "connection %s: handshake incomplete (%s)", conn_label(names, conn, who, sizeof who), what);
		break;
	}
	case RS_AN_CM_RETRY:
		snprintf(buf, len, "connection %s: %s sent again %" PRIu64 " time%s (CM retry after a timeout)",
			 conn_label(names, conn, who, sizeof who), rs_cm_attr_name((uint16_t)an->code), an->count,
			 an->count == 1 ? "" : "s");
		break;
	default:
		snprintf(buf, len, "?");
	}
}

/* The congestion sentences (analyzer/congestion/congestion.c). */
static void describe_cong(const struct rs_view *v, const struct rs_anomaly_info *an, const char *who, char *buf,
			  size_t len)
{
	const struct rs_analyzer *a = v->a;
	const struct rs_flow *fl = an->flow;
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	struct rs_cong_info ci, *c = &ci;
	rs_cong_get_info(a, c);
	if (an->type == RS_AN_ECN_CE) {
		snprintf(buf, len, "%s: %" PRIu64 " packet%s marked ECN Congestion Experienced", who, an->count,
			 an->count == 1 ? "" : "s");
	} else if (an->type == RS_AN_CNP) {
		snprintf(buf, len, "%s: %" PRIu64 " congestion notification%s (CNP) received: the sender should slow down",
			 who, an->count, an->count == 1 ? "" : "s");
	} else if (an->type == RS_AN_NOT_ECT) {
		snprintf(buf, len, "%s: %" PRIu64 " packet%s sent Not-ECT while the connection sees congestion (CE marks or "
			 "CNPs): switches cannot mark them, only drop or pause them", who, an->count, an->count == 1 ? "" : "s");
	} else if (an->type == RS_AN_CNP_RATE) {
		snprintf(buf, len, "%s: %" PRIu64 " CNP%s received within one second, more than --cnp-threshold %" PRIu64, who,
			 an->count, an->count == 1 ? "" : "s", c->cnp_threshold);
	} else if (an->code == RS_DSCP_ASYM && fi.peer) {
		uint8_t v1[RS_DSCP_SEEN + 1], v2[RS_DSCP_SEEN + 1];
		uint64_t n[RS_DSCP_SEEN + 1];
		bool x = rs_flow_dscps(a, fl, v1, n, RS_DSCP_SEEN + 1) && rs_flow_dscps(a, fi.peer, v2, n, RS_DSCP_SEEN + 1);
		snprintf(buf, len, "%s: sent with DSCP %u, its peer's direction with DSCP %u: the two directions of the "
			 "connection are in different traffic classes", who, x ? v1[0] : 0, x ? v2[0] : 0);
	} else if (an->code == RS_DSCP_CNPS) {
		snprintf(buf, len, "%s: %" PRIu64 " CNP%s received with DSCP %u, not the %u --dscp gave", who, an->count,
			 an->count == 1 ? "" : "s", fi.cnp_dscp, c->dscp_cnp);
	} else if (an->code == RS_DSCP_SPLIT) {
		uint8_t dv[RS_DSCP_SEEN + 1];
		uint64_t dn[RS_DSCP_SEEN + 1];
		unsigned k = rs_flow_dscps(a, fl, dv, dn, RS_DSCP_SEEN + 1);
		snprintf(buf, len, "%s: its packets in %u traffic classes (DSCP %u ×%" PRIu64 ", DSCP %u ×%" PRIu64 "%s): "
			 "one QP's packets should share one", who, k, dv[0], dn[0], dv[1], dn[1], k > 2 ? ", …" : "");
	} else {
		snprintf(buf, len, "%s: %" PRIu64 " data packet%s not with the data DSCP %u --dscp gave", who, an->count,
			 an->count == 1 ? "" : "s", c->dscp_data);
	}
}

/* The responder's packets sent again: what the requester asked again (a
 * READ's responses), or what it replays (an atomic's ACK). */
static void describe_rsp_again(const char *who, const struct rs_flow *fl, char *buf, size_t len)
{
	struct rs_stream_info st, *s = &st;
	rs_flow_stream(fl, true, s);
	uint64_t n = s->rsp_again[0] + s->rsp_again[1], first = s->rsp_again_first[0] + s->rsp_again_first[1];
	size_t at = 0;
	int k = snprintf(buf, len, "%s: %" PRIu64 " response packet%s sent again, answering requests the requester "
			 "sent again:", who, n, n == 1 ? "" : "s");
	at = k > 0 && (size_t)k < len ? (size_t)k : len;
	if (s->rsp_again[0] && at < len) {
		k = snprintf(buf + at, len - at, " %" PRIu64 " READ response packet%s (the READ asked again)%s",
			     s->rsp_again[0], s->rsp_again[0] == 1 ? "" : "s", s->rsp_again[1] ? "," : "");
		at += k > 0 && (size_t)k < len - at ? (size_t)k : len - at;
	}
	if (s->rsp_again[1] && at < len) {
		k = snprintf(buf + at, len - at, " %" PRIu64 " atomic ACK%s (the responder's replay of an atomic "
			     "it had executed)", s->rsp_again[1], s->rsp_again[1] == 1 ? "" : "s");
		at += k > 0 && (size_t)k < len - at ? (size_t)k : len - at;
	}
	if (first && at < len)
		snprintf(buf + at, len - at, "; for %" PRIu64 " of them the first answer is not in the capture "
			 "(lost before the capture point, or missed by it)", first);
}

const char *rs_anomaly_describe(const struct rs_view *v, const struct rs_anomaly *anomaly, char *buf, size_t len)
{
	struct rs_anomaly_info ai, *an = &ai;
	rs_anomaly_get_info(v->a, anomaly, an);
	enum rs_anom type = (enum rs_anom)an->type;
	if (an->evicted_sum) {
		const char *noun = subject_noun(type);
		snprintf(buf, len, "%s: %" PRIu64 " more in evicted %ss (after %u anomalies of evicted %ss listed one by one)",
			 rs_anom_key(type), an->count, noun, RS_DETACHED_MAX, noun);
		return buf;
	}
	if (an->evicted) {
		/* Worded as when it was evicted, the sentence cut where it was. */
		char d[1024];
		describe(v, an, d, sizeof d);
		snprintf(buf, len, "%s (%s since evicted)", d, subject_noun(type));
		return buf;
	}
	return describe(v, an, buf, len);
}

/* Late packets, and (requests) how late the latest came. */
static void describe_ooo(const char *who, const struct rs_anomaly_info *an, char *buf, size_t len)
{
	const struct rs_flow *fl = an->flow;
	struct rs_stream_info st, *l = &st;
	rs_flow_stream(fl, false, l);
	char t[32];
	int n = snprintf(buf, len, "%s: %" PRIu64 " %s arrived out of order (one late packet filling a gap)", who,
			 an->count, an->code ? "responses" : "requests");
	if (!an->code && l->late_psns_max && n > 0 && (size_t)n + 2 < len)
		snprintf(buf + n - 1, len - (size_t)n + 1, "; late by up to %u PSN%s%s%s)", l->late_psns_max,
			 l->late_psns_max == 1 ? "" : "s", l->late_ns_max ? " and " : "",
			 l->late_ns_max ? rs_fmt_ns(l->late_ns_max, t, sizeof t) : "");
}

/* Input file i (an anomaly's code) could not be read, or stopped early. */
static void describe_file_error(const struct rs_analyzer *a, uint32_t i, char *buf, size_t len)
{
	struct rs_capture_info cap;
	struct rs_file_info fi = { .name = NULL };
	rs_capture_get_info(a, &cap);
	bool known = i < cap.files;
	if (known)
		rs_capture_file(a, i, &fi);
	snprintf(buf, len, "%s: %s: %s", known ? fi.name : "?", known && fi.unopened ? "could not be read" : "reading stopped early",
		 known && fi.error ? fi.error : "?");
}

static const char *describe(const struct rs_view *v, const struct rs_anomaly_info *an, char *buf, size_t len)
{
	const struct rs_analyzer *a = v->a;
	struct rs_names *names = v->names;
	char who[256];
	const struct rs_flow *fl = an->flow;
	char t[32];

	if (an->type == RS_AN_UNDECODABLE) {
		snprintf(buf, len, "%" PRIu64 " %s frame%s (first: %s)", an->count,
			 rs_outcome_name((enum rs_outcome)an->code), an->count == 1 ? "" : "s",
			 an->detail ? an->detail : "?");
		return buf;
	}
	if (an->detail) {
		snprintf(buf, len, "%s", an->detail);
		return buf;
	}
	if (rs_anom_flow_subject((enum rs_anom)an->type) &&
	    rs_resend_describe(rs_flow_label(names, fl, who, sizeof who), an, buf, len))
		return buf;
	switch ((enum rs_anom)an->type) {
	case RS_AN_FILE_ERROR:
		describe_file_error(a, an->code, buf, len);
		break;
	case RS_AN_ICRC_BAD:
		snprintf(buf, len,
			 "%s: %" PRIu64 " frame%s with a bad ICRC (corrupted in flight, a broken sender, or bytes "
			 "changed in the file after the capture)",
			 rs_flow_label(names, fl, who, sizeof who), an->count, an->count == 1 ? "" : "s");
		break;
	case RS_AN_VCRC_BAD:
		snprintf(buf, len, "%" PRIu64 " InfiniBand frame%s with a bad VCRC (link-level corruption)", an->count,
			 an->count == 1 ? "" : "s");
		break;
	case RS_AN_RETRANS:
		describe_rsp_again(rs_flow_label(names, fl, who, sizeof who), fl, buf, len);
		break;
	case RS_AN_OOO:
		describe_ooo(rs_flow_label(names, fl, who, sizeof who), an, buf, len);
		break;
	case RS_AN_GAP: {
		/* The stream's own count: it also holds the PSNs before its first
		 * that a late or re-sent packet showed were skipped. */
		struct rs_stream_info st, *l = &st;
		rs_flow_stream(fl, an->code != 0, l);
		int n = snprintf(buf, len, "%s: %" PRIu64 " PSN%s skipped in %" PRIu64 " gap%s: ",
				 rs_flow_label(names, fl, who, sizeof who), l->missing, l->missing == 1 ? "" : "s", l->gaps,
				 l->gaps == 1 ? "" : "s");
		if (n > 0 && (size_t)n < len)
			rs_gap_describe(fl, an->code != 0, buf + n, len - (size_t)n);
		break;
	}
	case RS_AN_NAK:
		snprintf(buf, len, "%s: %" PRIu64 " NAK%s \"%s\" (code %u)", rs_flow_label(names, fl, who, sizeof who),
			 an->count, an->count == 1 ? "" : "s", rs_nak_code_name((uint8_t)an->code), an->code);
		break;
	case RS_AN_RNR:
		snprintf(buf, len, "%s: %" PRIu64 " RNR NAK%s: receiver not ready, retry after %s (timer %u)",
			 rs_flow_label(names, fl, who, sizeof who), an->count, an->count == 1 ? "" : "s",
			 rs_fmt_ns(rs_rnr_timer_us((uint8_t)an->code) * 1000ull, t, sizeof t), an->code);
		break;
	case RS_AN_DUP_ACK:
		snprintf(buf, len, "%s: %" PRIu64 " duplicate ACK%s (PSN not beyond the previous ACK)",
			 rs_flow_label(names, fl, who, sizeof who), an->count, an->count == 1 ? "" : "s");
		break;
	case RS_AN_CM_REJ:
	case RS_AN_CM_INCOMPLETE:
	case RS_AN_CM_RETRY:
		describe_conn(names, an, buf, len);
		break;
	case RS_AN_PSN_START:
		snprintf(buf, len, "%s: first PSN differs from the Starting PSN 0x%06x agreed in the CM exchange",
			 rs_flow_label(names, fl, who, sizeof who), an->code);
		break;
	case RS_AN_MIXED_ROCE: {
		if (!an->have_mixed) {
			snprintf(buf, len, "RoCE v1 and v2 between the same hosts");
			break;
		}
		char sa[RS_ADDR_STRLEN], sb[RS_ADDR_STRLEN];
		snprintf(buf, len,
			 "RoCE v1 (frame %" PRIu64 ") and RoCE v2 (frame %" PRIu64
			 ") between %s and %s: the same pair of ports must not mix versions (IBA Annex A17.1)",
			 an->v1_frame, an->v2_frame, rs_fmt_addr(names, &an->mixed_x, sa, sizeof sa),
			 rs_fmt_addr(names, &an->mixed_y, sb, sizeof sb));
		break;
	}
	case RS_AN_RETH_LENGTH:
		snprintf(buf, len, "%s: %" PRIu64 " RDMA WRITE Only packet%s whose RETH DMA length is not the payload "
			 "they carry (IBA 9.4.1: they must be equal)", rs_flow_label(names, fl, who, sizeof who), an->count,
			 an->count == 1 ? "" : "s");
		break;
	case RS_AN_RKEY_INVALIDATED:
		snprintf(buf, len, "%s: rkey 0x%x used %" PRIu64 " time%s after a SEND with Invalidate revoked it",
			 rs_flow_label(names, fl, who, sizeof who), an->code, an->count, an->count == 1 ? "" : "s");
		break;
	case RS_AN_ECN_CE:
	case RS_AN_CNP:
	case RS_AN_DSCP:
	case RS_AN_NOT_ECT:
	case RS_AN_CNP_RATE:
		describe_cong(v, an, rs_flow_label(names, fl, who, sizeof who), buf, len);
		break;
	case RS_AN_ROCE_ELSEWHERE:
		snprintf(buf, len, "%" PRIu64 " UDP datagram%s to port %u read%s as RoCE v2 (a BTH, and an ICRC that "
			 "matches it) but %s not decoded: --roce-port %u decodes that port as RoCE v2", an->count,
			 an->count == 1 ? "" : "s", an->code, an->count == 1 ? "s" : "", an->count == 1 ? "was" : "were", an->code);
		break;
	case RS_AN_EVICTED:
		describe_evicted(a, an->count, buf, len);
		break;
	case RS_AN_SHAPE_UNEXAMINED:
		snprintf(buf, len, "%" PRIu64 " RC half-flow pair%s without a CM connection not examined to the end for a "
			 "protocol's shape: more than %u were being examined at once, and the idlest were given up "
			 "(--ulp qp:QPN=NAME names a pair's protocol)", an->count, an->count == 1 ? "" : "s", an->code);
		break;
	default:
		snprintf(buf, len, "?");
	}
	return buf;
}

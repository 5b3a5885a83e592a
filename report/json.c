/*
 * json.c — `rocestat --format json`: the summary as one JSON document.
 * Top-level keys: "rocestat", "schema_version", "capture", "connections",
 * "ulp_queues" (only when there are some: json_ulp.c), "qps", "anomalies". Times are nanoseconds (integers) unless the key says
 * otherwise; rates are bytes per second; PSNs, QPNs and rkeys are integers.
 * Every object of a kind has the same keys, null where a value does not
 * apply or is not known; man/rocestat.schema.json is the schema (its
 * version is RS_JSON_SCHEMA_VERSION), man/rocestat.1 (JSON OUTPUT) says
 * what every key means.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "proto/proto.h"
#include "report/congestion.h"
#include "report/json_anom.h"
#include "report/json_items.h"
#include "report/jsonw.h"
#include "report/view.h"

/* The version of the document's shape (man/rocestat.schema.json): raised
 * when a key changes meaning or goes away, not when one is added. */
#define RS_JSON_SCHEMA_VERSION 1

/* Requests re-sent, by why (analyzer/transport/psn.c). */
static void by_cause(struct rs_json *j, const uint64_t *n)
{
	rs_json_obj(j, "resent_by_cause");
	for (int c = 0; c < RS_RESEND__COUNT; c++)
		rs_json_u64(j, rs_resend_key((enum rs_resend)c), n[c]);
	rs_json_end_obj(j);
}

static const char *addr_kind_name(uint8_t kind)
{
	switch (kind) {
	case RS_ADDR_IPV4: return "ipv4";
	case RS_ADDR_IPV6: return "ipv6";
	case RS_ADDR_GID: return "gid";
	case RS_ADDR_LID: return "lid";
	default: return NULL;
	}
}

/* Defined opcodes by name; reserved and vendor ones by number, since they
 * share a name and JSON keys must be unique. */
static const char *opcode_key(uint8_t op, char buf[8])
{
	const struct rs_opinfo *oi = rs_opinfo(op);
	if (oi->defined)
		return oi->name;
	snprintf(buf, 8, "0x%02x", op);
	return buf;
}

static void addr_str(const struct rs_analyzer *a, const struct rs_addr *ad, char *buf, size_t len)
{
	(void)a;
	char t[RS_ADDR_STRLEN];
	snprintf(buf, len, "%s", rs_addr_format(ad, t));
}

/* Frames the capture cut short but decoded whole (see text.c, sliced_line). */
static void sliced_obj(struct rs_json *j, const struct rs_file_info *fi)
{
	uint64_t n = fi->sliced[RS_SLICE_SNAPLEN] + fi->sliced[RS_SLICE_REWRITTEN];
	rs_json_obj(j, "sliced");
	rs_json_u64(j, "frames", n);
	rs_json_u64(j, "record_length_rewritten", fi->sliced[RS_SLICE_REWRITTEN]);
	if (n) {
		rs_json_u64(j, "captured_min", fi->sliced_cap_min);
		rs_json_u64(j, "captured_max", fi->sliced_cap_max);
	} else {
		rs_json_null(j, "captured_min");
		rs_json_null(j, "captured_max");
	}
	rs_json_end_obj(j);
}

static void capture(struct rs_json *j, const struct rs_view *v, const struct rs_ndjson *nd)
{
	const struct rs_analyzer *a = v->a;
	struct rs_capture_info cap;
	rs_capture_get_info(a, &cap);
	/* A capture of several files names them in "files": "file" is null. */
	rs_json_item_begin(j, nd, "capture", "capture", a, cap.files == 1 ? 0 : UINT32_MAX);
	rs_json_arr(j, "files");
	for (uint32_t i = 0; i < cap.files; i++) {
		struct rs_file_info fil, *fi = &fil;
		rs_capture_file(a, i, fi);
		rs_json_obj(j, NULL);
		rs_json_str(j, "name", fi->name);
		rs_json_str(j, "link_type", fi->linktype >= 0 ? rs_linktype_name(fi->linktype) : NULL);
		rs_json_str(j, "error", fi->error);
		sliced_obj(j, fi);
		rs_json_end_obj(j);
	}
	rs_json_end_arr(j);
	rs_json_u64(j, "frames", cap.frames);
	rs_json_u64(j, "bytes", cap.bytes);
	if (cap.have_ts) {
		rs_json_u64(j, "first_time_ns", cap.first_ts);
		rs_json_u64(j, "last_time_ns", cap.last_ts);
		rs_json_dbl(j, "duration_s", (cap.last_ts - cap.first_ts) / 1e9);
	} else {
		rs_json_null(j, "first_time_ns");
		rs_json_null(j, "last_time_ns");
		rs_json_dbl(j, "duration_s", 0);
	}
	rs_json_u64(j, "roce_v1", cap.roce[RS_ROCE_V1]);
	rs_json_u64(j, "roce_v2", cap.roce[RS_ROCE_V2]);
	rs_json_u64(j, "infiniband", cap.roce[RS_ROCE_IB]);
	rs_json_u64(j, "ipv4", cap.ipv4);
	rs_json_u64(j, "ipv6", cap.ipv6);
	rs_json_u64(j, "non_roce", cap.roce[0]);
	const struct rs_psn_totals *psns = rs_capture_psns(a);
	struct rs_gaps g = rs_gaps_of_capture(psns);
	rs_json_obj(j, "request_psns");
	rs_json_u64(j, "range", psns->range);
	rs_json_u64(j, "in_capture", psns->range - g.absent);
	rs_json_u64(j, "skipped", g.skipped);
	rs_json_u64(j, "not_captured", g.not_captured);
	rs_json_u64(j, "lost", g.lost);
	rs_json_u64(j, "resent", g.resent);
	rs_json_u64(j, "reordered", g.reordered);
	rs_json_u64(j, "undetermined", g.undetermined);
	rs_json_u64(j, "network_duplicates", psns->netdup);
	by_cause(j, psns->resent);
	rs_json_u64(j, "latency_resent_not_timed", psns->karn);
	rs_json_u64(j, "latency_acked_before_seen", psns->acked_before_seen);
	rs_json_u64(j, "latency_acked_across_gap", psns->acked_across_gap);
	rs_json_u64(j, "messages_not_captured", psns->msgs_uncaptured);
	rs_json_end_obj(j);
	rs_json_u64(j, "truncated", cap.outcome[RS_TRUNCATED]);
	rs_json_u64(j, "malformed", cap.outcome[RS_MALFORMED]);
	rs_json_u64(j, "unsupported", cap.outcome[RS_UNSUPPORTED]);
	rs_json_obj(j, "icrc");
	rs_json_u64(j, "ok", cap.icrc[RS_CRC_OK]);
	rs_json_u64(j, "bad", cap.icrc[RS_CRC_BAD]);
	rs_json_u64(j, "unchecked", cap.icrc[RS_CRC_UNCHECKED]);
	rs_json_u64(j, "source_port_rewritten", cap.icrc_port_rewritten);
	rs_json_end_obj(j);
	struct rs_sniffer_info sn;
	rs_capture_sniffer(a, &sn);
	rs_json_obj(j, "sniffer");
	rs_json_u64(j, "source_mac_frames", sn.mac_frames);
	rs_json_u64(j, "source_mac_changes", sn.mac_changes);
	rs_json_u64(j, "host_pairs", sn.host_pairs);
	rs_json_u64(j, "host_pairs_one_way", sn.host_pairs_one_way);
	rs_json_u64(j, "rc_qps_one_way", sn.rc_one_way_flows);
	rs_json_u64(j, "rc_request_packets_one_way", sn.rc_one_way_packets);
	rs_json_end_obj(j);
	rs_json_u64(j, "vcrc_bad", cap.vcrc_bad);
	rs_json_u64(j, "ecn_ce", cap.ecn_ce);
	rs_json_u64(j, "cnps", cap.cnps);
	if (cap.pmtu)
		rs_json_u64(j, "path_mtu", cap.pmtu);
	else
		rs_json_null(j, "path_mtu");
	const uint64_t *dc_ops, *opcodes = rs_capture_opcodes(a, &dc_ops);
	rs_json_obj(j, "opcodes");
	for (int i = 0; i < 256; i++) {
		char k[8];
		if (opcodes[i])
			rs_json_u64(j, opcode_key((uint8_t)i, k), opcodes[i]);
	}
	for (int i = 0; i < 32; i++) {
		char k[40];
		if (dc_ops[i])
			rs_json_u64(j, rs_dc_opname((uint8_t)(RS_TR_RD | i), k, sizeof k), dc_ops[i]);
	}
	rs_json_end_obj(j);
	rs_json_u64(j, "half_flows", cap.half_flows);
	rs_json_u64(j, "half_flows_evicted", cap.evicted);
	rs_json_u64(j, "connections_evicted", cap.conns_evicted);
	rs_json_obj(j, "connections_evicted_by_state");
	for (unsigned k = 0; k < RS_CONN_STATES; k++)
		if (cap.conns_evicted_by_state[k])
			rs_json_u64(j, rs_conn_state_names[k], cap.conns_evicted_by_state[k]);
	rs_json_end_obj(j);
	rs_json_u64(j, "interval_ns", rs_analyzer_options(a)->interval_ns);
	rs_json_item_end(j, nd);
}

/* The file of a connection's first CM message seen. */
static uint32_t conn_file(const struct rs_conn_info *c)
{
	const struct rs_fref *first = NULL;
	for (unsigned k = 0; k < G_N_ELEMENTS(c->n); k++)
		if (c->n[k] && (!first || c->at[k].file < first->file ||
				(c->at[k].file == first->file && c->at[k].frame < first->frame)))
			first = &c->at[k];
	return first ? first->file : UINT32_MAX;
}

static void side(struct rs_json *j, const char *key, const struct rs_analyzer *a, const struct rs_conn_info *c,
		 bool client)
{
	char ad[RS_ADDR_STRLEN];
	rs_json_obj(j, key);
	addr_str(a, client ? &c->client : &c->server, ad, sizeof ad);
	rs_json_str(j, "address", ad);
	uint32_t qpn = client ? c->client_qpn : c->server_qpn;
	if (qpn == 0) /* that side's CM message (or, for SIDR, its reply traffic) was not seen */
		rs_json_null(j, "qpn");
	else
		rs_json_u64(j, "qpn", qpn);
	/* The PSN this side's requests start from: the client's was set by the
	 * REP's Starting PSN, the server's by the REQ's (see analyzer/cm/cmtrack.c). */
	bool have = client ? c->have_rep_psn : c->have_req_psn;
	if (have && !c->sidr)
		rs_json_u64(j, "start_psn", client ? c->rep_psn : c->req_psn);
	else
		rs_json_null(j, "start_psn");
	rs_json_u64(j, "comm_id", client ? c->client_comm_id : c->server_comm_id);
	const struct rs_flow *fl = client ? c->c2s : c->s2c;
	struct rs_stream_info req;
	if (fl)
		rs_flow_stream(fl, false, &req);
	if (fl && req.started)
		rs_json_u64(j, "first_request_psn", req.first);
	else
		rs_json_null(j, "first_request_psn");
	rs_json_end_obj(j);
}

static void connections(struct rs_json *j, const struct rs_view *v, const struct rs_ndjson *nd)
{
	const struct rs_analyzer *a = v->a;
	rs_json_list_begin(j, nd, "connections");
	for (guint i = 0; i < v->conns->len; i++) {
		const struct rs_conn *conn = v->conns->pdata[i];
		struct rs_conn_info ci, *c = &ci;
		rs_conn_get_info(conn, c);
		char svc[32];
		rs_json_item_begin(j, nd, NULL, "connection", a, conn_file(c));
		rs_json_u64(j, "id", c->id);
		rs_json_str(j, "kind", c->sidr ? "sidr" : "connected");
		rs_json_str(j, "state", rs_conn_state(conn));
		snprintf(svc, sizeof svc, "0x%016" PRIx64, c->service_id);
		rs_json_str(j, "service_id", svc);
		if (rs_cm_service_is_rdma_cm(c->service_id)) {
			rs_json_str(j, "port_space", rs_cm_port_space_name(rs_cm_service_port_space(c->service_id)));
			rs_json_u64(j, "port", rs_cm_service_port(c->service_id));
		} else {
			rs_json_null(j, "port_space");
			rs_json_null(j, "port");
		}
		rs_json_str(j, "transport", c->sidr ? "UD" : rs_cm_transport_type_name(c->transport_type));
		side(j, "client", a, c, true);
		side(j, "server", a, c, false);
		if (c->have_cma) {
			char s[RS_ADDR_STRLEN], d[RS_ADDR_STRLEN];
			struct rs_addr sa = { .kind = c->cma.ip_version == 4 ? RS_ADDR_IPV4 : RS_ADDR_IPV6 }, da = sa;
			bool v4 = c->cma.ip_version == 4;
			memcpy(sa.b, v4 ? c->cma.src_addr + 12 : c->cma.src_addr, v4 ? 4 : 16);
			memcpy(da.b, v4 ? c->cma.dst_addr + 12 : c->cma.dst_addr, v4 ? 4 : 16);
			rs_json_obj(j, "rdma_cm");
			rs_json_u64(j, "ip_version", c->cma.ip_version);
			rs_json_str(j, "src_ip", rs_addr_format(&sa, s));
			rs_json_u64(j, "src_port", c->cma.src_port);
			rs_json_str(j, "dst_ip", rs_addr_format(&da, d));
			rs_json_end_obj(j);
		} else {
			rs_json_null(j, "rdma_cm");
		}
		rs_json_obj(j, "messages");
		for (unsigned k = 0; k < G_N_ELEMENTS(c->n); k++)
			if (c->n[k])
				rs_json_u64(j, rs_cm_attr_name((uint16_t)(UMAD_CM_ATTR_REQ + k)), c->n[k]);
		rs_json_end_obj(j);
		rs_json_obj(j, "first_frames");
		for (unsigned k = 0; k < G_N_ELEMENTS(c->n); k++)
			if (c->n[k])
				rs_json_u64(j, rs_cm_attr_name((uint16_t)(UMAD_CM_ATTR_REQ + k)), c->at[k].frame);
		rs_json_end_obj(j);
		rs_json_obj(j, "durations_ms");
		static const struct { const char *key; uint16_t from, to; } steps[] = {
			{ "req_to_rep", UMAD_CM_ATTR_REQ, UMAD_CM_ATTR_REP },
			{ "rep_to_rtu", UMAD_CM_ATTR_REP, UMAD_CM_ATTR_RTU },
			{ "req_to_rtu", UMAD_CM_ATTR_REQ, UMAD_CM_ATTR_RTU },
			{ "req_to_rej", UMAD_CM_ATTR_REQ, UMAD_CM_ATTR_REJ },
			{ "dreq_to_drep", UMAD_CM_ATTR_DREQ, UMAD_CM_ATTR_DREP },
			{ "sidr_req_to_rep", UMAD_CM_ATTR_SIDR_REQ, UMAD_CM_ATTR_SIDR_REP },
		};
		for (unsigned k = 0; k < G_N_ELEMENTS(steps); k++) {
			double ms = rs_conn_step_ms(conn, steps[k].from, steps[k].to);
			if (ms >= 0)
				rs_json_dbl(j, steps[k].key, ms);
			else
				rs_json_null(j, steps[k].key);
		}
		rs_json_end_obj(j);
		if (c->n[UMAD_CM_ATTR_REJ - UMAD_CM_ATTR_REQ]) {
			rs_json_obj(j, "reject");
			rs_json_u64(j, "reason", c->rej_reason);
			rs_json_str(j, "reason_name", rs_cm_rej_reason_name(c->rej_reason));
			rs_json_str(j, "by", c->rej_from_client ? "client" : "server");
			rs_json_end_obj(j);
		} else {
			rs_json_null(j, "reject");
		}
		if (c->sidr) {
			rs_json_obj(j, "sidr");
			rs_json_u64(j, "status", c->sidr_status);
			rs_json_u64(j, "qpn", c->server_qpn);
			rs_json_u64(j, "q_key", c->qkey);
			rs_json_end_obj(j);
		} else {
			rs_json_null(j, "sidr");
		}
		rs_json_bool(j, "data_seen", c->c2s || c->s2c);
		const char *u = rs_conn_ulp_name(conn);
		if (*u)
			rs_json_str(j, "ulp", u);
		const struct rs_proto_hooks *h = rs_proto_hooks(rs_conn_ulp(conn));
		if (h->json_conn)
			h->json_conn(j, conn);
		rs_json_item_end(j, nd);
	}
	rs_json_list_end(j, nd);
}

/* Why packets were on the wire again, how long timeouts waited, and
 * whether the requester gave up. */
static void resends(struct rs_json *j, const struct rs_stream_info *l)
{
	static const char *const dead[] = {
		[RS_DEAD_RETRY] = "retry_exhausted", [RS_DEAD_RETRYING] = "still_retrying",
		[RS_DEAD_RNR] = "rnr_retry_exhausted", [RS_DEAD_SILENT] = "stopped_unanswered",
		[RS_DEAD_RNR_SILENT] = "stopped_after_rnr",
	};
	rs_json_u64(j, "network_duplicates", l->netdup);
	rs_json_u64(j, "late_after_resend", l->late_sendings);
	rs_json_u64(j, "resends_not_captured", l->resend_holes);
	rs_json_u64(j, "late_by_psns_max", l->late_psns_max);
	rs_json_u64(j, "late_by_ns_max", l->late_ns_max);
	by_cause(j, l->resent);
	rs_json_obj(j, "resent_episodes_by_cause");
	for (int c = 0; c < RS_RESEND__COUNT; c++)
		rs_json_u64(j, rs_resend_key((enum rs_resend)c), l->episodes_by[c]);
	rs_json_end_obj(j);
	rs_json_u64(j, "rnr_retries_early", l->rnr_early);
	rs_json_timeout_waits(j, l, true);
	rs_json_read_retry_waits(j, l);
	if (l->dead)
		rs_json_str(j, "gave_up", dead[l->dead]);
	else
		rs_json_null(j, "gave_up");
}

static void psn_stream(struct rs_json *j, const char *key, const struct rs_flow *fl, bool response)
{
	struct rs_stream_info st, *l = &st;
	rs_flow_stream(fl, response, l);
	rs_json_obj(j, key);
	rs_json_u64(j, "packets", l->packets);
	if (l->started)
		rs_json_u64(j, "first_psn", l->first);
	else
		rs_json_null(j, "first_psn");
	rs_json_u64(j, "gaps", l->gaps);
	rs_json_u64(j, "missing_psns", l->missing);
	rs_json_u64(j, "retransmitted", l->backward - l->ooo);
	rs_json_u64(j, "duplicates", l->duplicates);
	rs_json_u64(j, "gap_fills", l->fills - l->ooo);
	struct rs_gaps g = rs_gaps_of_stream(l);
	rs_json_u64(j, "not_captured", g.not_captured);
	rs_json_u64(j, "lost", g.lost);
	rs_json_u64(j, "resent", g.resent);
	rs_json_u64(j, "undetermined", g.undetermined);
	rs_json_u64(j, "out_of_order", l->ooo);
	rs_json_u64(j, "go_back_n_episodes", l->episodes);
	resends(j, l);
	rs_json_end_obj(j);
}

/* RC requesters: PSNs the responder had not acknowledged at the end. */
static void unacked(struct rs_json *j, const struct rs_flow *fl)
{
	int64_t n = rs_flow_unacked(fl);
	if (n >= 0)
		rs_json_u64(j, "unacknowledged_psns", (uint64_t)n);
	else
		rs_json_null(j, "unacknowledged_psns");
	if (n > 0)
		rs_json_u64(j, "unacknowledged_from_psn", rs_flow_unacked_from(fl));
	else
		rs_json_null(j, "unacknowledged_from_psn");
}

void rs_json_lat(struct rs_json *j, const char *key, const struct rs_lat_figures *l)
{
	if (!l->n) {
		rs_json_null(j, key);
		return;
	}
	rs_json_obj(j, key);
	rs_json_u64(j, "count", l->n);
	rs_json_u64(j, "min", l->min);
	rs_json_u64(j, "median", l->median);
	rs_json_u64(j, "p99", l->p99);
	rs_json_u64(j, "max", l->max);
	rs_json_end_obj(j);
}

static void latency(struct rs_json *j, const struct rs_analyzer *a, const struct rs_flow *fl)
{
	struct rs_latency_info li;
	rs_flow_latency(fl, &li);
	rs_json_obj(j, "latency_ns");
	for (int k = 0; k < RS_LAT__COUNT; k++)
		rs_json_lat(j, rs_lat_key((enum rs_lat_kind)k), &li.kind[k]);
	rs_json_u64(j, "untimed_requests", li.overflow);
	rs_json_u64(j, "clock_went_backwards", li.clock_backwards);
	rs_json_u64(j, "resent_not_timed", li.karn);
	rs_json_u64(j, "acked_before_seen", li.acked_before_seen);
	rs_json_u64(j, "acked_across_gap", li.acked_across_gap);
	/* UD: only the requests of a conversation seen both ways, paired by order. */
	struct rs_ud_conv_info u;
	if (rs_flow_ud_conv(a, fl, &u) && u.requester) {
		rs_json_lat(j, "ud_reply", &u.lat);
		rs_json_u64(j, "ud_requests", u.requests);
		rs_json_u64(j, "ud_unpaired", u.requests - u.pairs);
		rs_json_u64(j, "ud_refused", u.refused);
	}
	rs_json_end_obj(j);
}

/* A QP's messages: counts and bytes by kind, sizes. */
static void qp_messages(struct rs_json *j, const struct rs_flow *fl)
{
	struct rs_flow_msgs mb;
	const struct rs_flow_msgs *ms = rs_flow_messages(fl, &mb);
	rs_json_obj(j, "messages");
	for (int k = 0; k < RS_MSG__COUNT; k++)
		rs_json_u64(j, rs_msg_key((enum rs_msg)k), ms->msgs[k]);
	rs_json_end_obj(j);
	rs_json_obj(j, "message_bytes");
	for (int k = 0; k < RS_MSG__COUNT; k++)
		rs_json_u64(j, rs_msg_key((enum rs_msg)k),
			    k == RS_MSG_READ ? rs_flow_read_bytes(fl) : ms->msg_bytes[k]);
	rs_json_end_obj(j);
	rs_json_obj(j, "message_sizes");
	uint64_t nmsg = 0;
	for (int b = 0; b < RS_SIZE_BUCKETS; b++)
		nmsg += ms->size_hist[b];
	if (nmsg) {
		rs_json_u64(j, "min", ms->msg_min);
		rs_json_u64(j, "max", ms->msg_max);
	} else {
		rs_json_null(j, "min");
		rs_json_null(j, "max");
	}
	rs_json_obj(j, "histogram");
	for (int b = 0; b < RS_SIZE_BUCKETS; b++) {
		if (!ms->size_hist[b])
			continue;
		char k[32];
		if (b == 0)
			snprintf(k, sizeof k, "0");
		else
			snprintf(k, sizeof k, "%" PRIu64 "-%" PRIu64, (uint64_t)1 << (b - 1), ((uint64_t)1 << b) - 1);
		rs_json_u64(j, k, ms->size_hist[b]);
	}
	rs_json_end_obj(j);
	rs_json_end_obj(j);
}

/* A UD QP's DETH, a QP's immediates and the rkeys its requests used. */
static void qp_ud_imms_rkeys(struct rs_json *j, const struct rs_flow *fl, const struct rs_flow_info *fi,
			     const struct rs_flow_counts *fc)
{
	if (fi->transport_code == RS_TR_UD) {
		rs_json_obj(j, "ud");
		rs_json_u64(j, "src_qp", fi->ud_src_qp);
		rs_json_u64(j, "q_key", fc->ud_qkey);
		rs_json_bool(j, "several_src_qps", fc->many_src_qps);
		rs_json_bool(j, "several_q_keys", fc->many_qkeys);
		rs_json_end_obj(j);
	} else {
		rs_json_null(j, "ud");
	}
	rs_json_obj(j, "immediates");
	unsigned nimm;
	uint64_t total;
	const uint32_t *imms = rs_flow_imms(fl, &nimm, &total);
	rs_json_u64(j, "count", total);
	rs_json_arr(j, "values");
	for (uint32_t k = 0; k < nimm; k++)
		rs_json_u64(j, NULL, imms[k]);
	rs_json_end_arr(j);
	rs_json_end_obj(j);
	rs_json_arr(j, "rkeys");
	unsigned nrk;
	uint64_t more;
	const struct rs_rkey_use *uses = rs_flow_rkeys(fl, &nrk, &more);
	for (uint32_t k = 0; k < nrk; k++) {
		const struct rs_rkey_use *u = &uses[k];
		rs_json_obj(j, NULL);
		rs_json_u64(j, "rkey", u->rkey);
		rs_json_arr(j, "ops");
		if (u->ops & 1)
			rs_json_str(j, NULL, "read");
		if (u->ops & 2)
			rs_json_str(j, NULL, "write");
		if (u->ops & 4)
			rs_json_str(j, NULL, "atomic");
		if (u->ops & 8)
			rs_json_str(j, NULL, "flush");
		rs_json_end_arr(j);
		rs_json_u64(j, "va_start", u->va_lo);
		rs_json_u64(j, "va_end", u->va_hi);
		rs_json_u64(j, "bytes", u->bytes);
		rs_json_u64(j, "uses", u->count);
		rs_json_u64(j, "first_frame", (uint64_t)u->first_frame);
		rs_json_end_obj(j);
	}
	rs_json_end_arr(j);
}

static void qps(struct rs_json *j, const struct rs_view *v, const struct rs_ndjson *nd)
{
	const struct rs_analyzer *a = v->a;
	rs_json_list_begin(j, nd, "qps");
	for (guint i = 0; i < v->flows->len; i++) {
		const struct rs_flow *fl = rs_view_flow(v, i);
		struct rs_flow_info fi;
		struct rs_flow_counts fc;
		rs_flow_get_info(fl, &fi);
		rs_flow_get_counts(fl, &fc);
		char s[RS_ADDR_STRLEN], d[RS_ADDR_STRLEN];
		rs_json_item_begin(j, nd, NULL, "queue_pair", a, rs_flow_first(a, fl).file);
		rs_json_str(j, "src", rs_addr_format(&fi.src, s));
		rs_json_str(j, "dst", rs_addr_format(&fi.dst, d));
		rs_json_str(j, "address_kind", addr_kind_name(fi.src.kind));
		rs_json_u64(j, "dest_qp", fi.dest_qp);
		/* QP0 and QP1 are the subnet's and the CM's (IBA 3.9.1, 13.5.1). */
		rs_json_str(j, "qp_role", !fi.is_cm_qp ? "data" : fi.dest_qp ? "gsi" : "smi");
		rs_json_str(j, "roce", fc.roce != RS_ROCE_V2 ? rs_roce_name((enum rs_roce)fc.roce)
				       : fc.roce_seen == 3 ? "v1+v2" : fc.roce_seen == 1 ? "v1" : "v2");
		rs_json_str(j, "transport", fi.transport);
		rs_json_str(j, "pairing", fi.is_cm_qp ? "none" : rs_flow_pairing(fl));
		if (fi.peer) {
			struct rs_addr ps, pd;
			uint32_t peer_qp;
			rs_flow_ends(fi.peer, &ps, &pd, &peer_qp);
			rs_json_u64(j, "peer_dest_qp", peer_qp);
		} else {
			rs_json_null(j, "peer_dest_qp");
		}
		if (fi.conn)
			rs_json_u64(j, "connection", rs_conn_id(fi.conn));
		else
			rs_json_null(j, "connection");
		rs_json_u64(j, "first_frame", rs_flow_first(a, fl).frame);
		rs_json_u64(j, "last_frame", fc.last_frame);
		rs_json_u64(j, "first_time_ns", fi.first_ts);
		rs_json_u64(j, "last_time_ns", fi.last_ts);
		rs_json_u64(j, "packets", fi.packets);
		rs_json_u64(j, "wire_bytes", fi.wire_bytes);
		rs_json_u64(j, "payload_bytes", fi.payload);
		rs_json_u64(j, "payload_bytes_on_wire", fi.payload_all);
		rs_json_u64(j, "retransmitted_bytes", fc.retrans_payload);
		rs_json_obj(j, "throughput_Bps");
		uint64_t interval_ns = rs_analyzer_options(a)->interval_ns;
		double avg = rs_flow_avg_Bps(fl), peak = rs_flow_peak_Bps(fl, interval_ns);
		rs_json_dbl(j, "average", avg < 0 ? NAN : avg);
		rs_json_dbl(j, "peak", peak < 0 ? NAN : peak);
		double pw = rs_flow_peak_wire_Bps(fl, interval_ns);
		rs_json_dbl(j, "peak_on_wire", pw < 0 ? NAN : pw);
		rs_json_end_obj(j);
		rs_json_obj(j, "opcodes");
		for (int op = 0; op < 32; op++) {
			char k[40];
			uint64_t n = fc.ophist[op];
			if (n)
				rs_json_u64(j, fc.is_dc ? rs_dc_opname((uint8_t)(fi.transport_code | op), k, sizeof k)
							: opcode_key((uint8_t)(fi.transport_code | op), k), n);
		}
		rs_json_end_obj(j);
		qp_messages(j, fl);
		rs_json_u64(j, "incomplete_messages", fc.incomplete_msgs);
		rs_json_u64(j, "messages_last_not_captured", fc.tail_missed);
		rs_json_u64(j, "orphan_packets", fc.orphan_pkts);
		psn_stream(j, "request_psn", fl, false);
		psn_stream(j, "response_psn", fl, true);
		rs_json_u64(j, "retransmitted_packets", fi.retransmitted);
		unacked(j, fl);
		rs_json_obj(j, "naks");
		for (uint8_t c = 0; c <= RS_NAK_INVALID_RD_REQUEST; c++)
			rs_json_u64(j, rs_nak_code_key(c), fc.naks[c]);
		rs_json_end_obj(j);
		rs_json_u64(j, "rnr_naks", fi.rnr_naks);
		if (fi.rnr_naks) {
			rs_json_obj(j, "rnr_timer_us");
			rs_json_u64(j, "min", rs_rnr_timer_us(fc.rnr_timer_min));
			rs_json_u64(j, "max", rs_rnr_timer_us(fc.rnr_timer_max));
			rs_json_end_obj(j);
		} else {
			rs_json_null(j, "rnr_timer_us");
		}
		rs_json_u64(j, "acks", fc.acks);
		if (fc.acks)
			rs_json_dbl(j, "packets_per_ack", (double)fc.acked_pkts / fc.acks);
		else
			rs_json_null(j, "packets_per_ack");
		rs_json_u64(j, "duplicate_acks", fc.dup_acks);
		latency(j, a, fl);
		rs_json_u64(j, "ecn_ce", fi.ecn_ce);
		rs_json_u64(j, "fecn", fc.fecn);
		rs_json_u64(j, "becn", fc.becn);
		rs_json_u64(j, "cnps", fi.cnps);
		rs_json_u64(j, "icrc_bad", fi.icrc_bad);
		rs_json_u64(j, "icrc_unchecked", fc.icrc_unchecked);
		rs_json_u64(j, "undecodable", fc.undecodable);
		if (fc.pmtu)
			rs_json_u64(j, "path_mtu", fc.pmtu);
		else
			rs_json_null(j, "path_mtu");
		qp_ud_imms_rkeys(j, fl, &fi, &fc);
		rs_json_item_end(j, nd);
	}
	rs_json_list_end(j, nd);
}

/* What an anomaly is about, as keys a script can select on: the kind of
 * subject, its addresses and destination QP (a half-flow), or its
 * connection's id and the client and server (a connection). */
static void anomaly_subject(struct rs_json *j, const struct rs_view *v, const struct rs_anomaly *an)
{
	struct rs_anom_subject s;
	rs_anomaly_subject(v, an, &s);
	char sa[RS_ADDR_STRLEN], da[RS_ADDR_STRLEN];
	rs_json_str(j, "subject", s.kind);
	rs_json_str(j, "src", s.src.kind ? rs_addr_format(&s.src, sa) : NULL);
	rs_json_str(j, "dst", s.dst.kind ? rs_addr_format(&s.dst, da) : NULL);
	if (s.have_qp)
		rs_json_u64(j, "dest_qp", s.dest_qp);
	else
		rs_json_null(j, "dest_qp");
	if (s.conn_id)
		rs_json_u64(j, "connection", s.conn_id - 1);
	else
		rs_json_null(j, "connection");
	rs_json_bool(j, "evicted", s.evicted);
}

static void anomalies(struct rs_json *j, const struct rs_view *v, const struct rs_ndjson *nd)
{
	rs_json_list_begin(j, nd, "anomalies");
	for (guint i = 0; i < v->anomalies->len; i++) {
		const struct rs_anomaly *anomaly = v->anomalies->pdata[i];
		struct rs_anomaly_info ai, *an = &ai;
		rs_anomaly_get_info(v->a, anomaly, an);
		char d[1024];
		rs_json_item_begin(j, nd, NULL, "anomaly", v->a, an->nframes ? an->frames[0].file : UINT32_MAX);
		rs_json_str(j, "type", rs_anom_key((enum rs_anom)an->type));
		rs_json_u64(j, "code", an->code);
		anomaly_subject(j, v, anomaly);
		rs_json_u64(j, "count", an->count);
		rs_json_str(j, "description", rs_anomaly_describe(v, anomaly, d, sizeof d));
		rs_json_anomaly_details(j, v, anomaly);
		rs_json_arr(j, "frames");
		for (uint32_t k = 0; k < an->nframes; k++)
			rs_json_u64(j, NULL, an->frames[k].frame);
		rs_json_end_arr(j);
		rs_json_arr(j, "files");
		for (uint32_t k = 0; k < an->nframes; k++)
			rs_json_u64(j, NULL, an->frames[k].file);
		rs_json_end_arr(j);
		rs_json_item_end(j, nd);
	}
	rs_json_list_end(j, nd);
}

int rs_report_json(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o)
{
	struct rs_view v;
	struct rs_json j;
	rs_view_init(&v, a, o);
	rs_json_init(&j, out, o->compact);
	rs_json_obj(&j, NULL);
	rs_json_str(&j, "rocestat", ROCESTAT_VERSION);
	rs_json_u64(&j, "schema_version", RS_JSON_SCHEMA_VERSION);
	capture(&j, &v, NULL);
	connections(&j, &v, NULL);
	rs_json_ulp_queues(&j, &v, NULL);
	qps(&j, &v, NULL);
	rs_json_congestion(&j, &v);
	anomalies(&j, &v, NULL);
	rs_json_end_obj(&j);
	rs_json_done(&j);
	rs_view_free(&v);
	return ferror(out) ? -1 : 0;
}

int rs_report_ndjson(FILE *out, const struct rs_analyzer *a, const struct rs_report_opts *o)
{
	struct rs_view v;
	struct rs_json j;
	const struct rs_ndjson nd = { .host = o->host };
	rs_view_init(&v, a, o);
	rs_json_init(&j, out, true);
	capture(&j, &v, &nd);
	connections(&j, &v, &nd);
	rs_json_ulp_queues(&j, &v, &nd);
	qps(&j, &v, &nd);
	if (rs_cong_any(a)) { /* the congestion section, whole, on a line of its own */
		rs_json_obj(&j, NULL);
		rs_json_str(&j, "kind", "congestion");
		struct rs_capture_info cap;
		struct rs_file_info fi = { .name = NULL };
		rs_capture_get_info(a, &cap);
		if (cap.files == 1)
			rs_capture_file(a, 0, &fi);
		rs_json_str(&j, "file", fi.name);
		rs_json_str(&j, "host", nd.host);
		rs_json_congestion(&j, &v);
		rs_json_end_obj(&j);
		rs_outbuf_putc(&j.ob, '\n');
	}
	anomalies(&j, &v, &nd);
	rs_outbuf_flush(&j.ob);
	rs_view_free(&v);
	return ferror(out) ? -1 : 0;
}

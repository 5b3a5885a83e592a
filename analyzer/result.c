/*
 * result.c — the analysis as its readers see it (result.h): records of
 * half-flows and of the capture, filled from the analyzer's state, and the
 * figures derived from its counters.
 */
#include <string.h>

#include "analyzer/transport/transport.h"
#include "analyzer/result.h"

void rs_flow_get_info(const struct rs_flow *fl, struct rs_flow_info *out)
{
	const struct rs_flow_rare *r = rs_rare(fl);
	out->id = fl->id;
	rs_flowkey_addr(&fl->key, false, &out->src);
	rs_flowkey_addr(&fl->key, true, &out->dst);
	out->dest_qp = fl->key.qpn;
	out->is_cm_qp = fl->is_cm_qp;
	out->transport = rs_flow_transport_name(fl);
	out->transport_code = (uint8_t)fl->transport;
	out->ud_src_qp = r->deth_srcqp;
	out->packets = fl->packets;
	out->wire_bytes = fl->wire_bytes;
	out->payload = fl->payload;
	out->payload_all = fl->payload_all;
	out->first_ts = fl->first_ts;
	out->last_ts = fl->last_ts;
	out->peer = fl->peer;
	out->conn = fl->conn;
	out->retransmitted = rs_flow_retransmitted(fl);
	out->naks = rs_flow_naks_total(fl);
	out->rnr_naks = r->rnr_naks;
	out->cnps = r->cnps;
	out->ecn_ce = r->ecn_ce;
	out->icrc_bad = r->icrc_bad;
	out->dscp_more = r->dscp_more;
	out->cnp_dscp = r->cnp_dscp_v;
}

void rs_flow_get_counts(const struct rs_flow *fl, struct rs_flow_counts *out)
{
	const struct rs_flow_rare *r = rs_rare(fl);
	*out = (struct rs_flow_counts){
		.roce = fl->key.roce, .roce_seen = (uint8_t)fl->roce_seen, .is_dc = fl->is_dc,
		.last_frame = fl->last_frame, .pmtu = fl->pmtu, .acks = fl->acks, .acked_pkts = fl->acked_pkts,
		.dup_acks = r->dup_acks, .retrans_payload = r->retrans_payload, .incomplete_msgs = r->incomplete_msgs,
		.tail_missed = r->tail_missed, .orphan_pkts = r->orphan_pkts, .rnr_timer_min = r->rnr_timer_min,
		.rnr_timer_max = r->rnr_timer_max, .fecn = r->fecn, .becn = r->becn, .icrc_unchecked = r->icrc_unchecked,
		.undecodable = r->undecodable, .ud_qkey = r->deth_qkey, .many_src_qps = r->many_srcqp,
		.many_qkeys = r->many_qkey,
	};
	for (unsigned op = 0; op < 32; op++)
		out->ophist[op] = rs_flow_ophist(fl, op);
	memcpy(out->naks, r->naks, sizeof out->naks);
}

void rs_flow_ends(const struct rs_flow *fl, struct rs_addr *src, struct rs_addr *dst, uint32_t *dest_qp)
{
	rs_flowkey_addr(&fl->key, false, src);
	rs_flowkey_addr(&fl->key, true, dst);
	*dest_qp = fl->key.qpn;
}

const struct rs_flow *rs_flows_next(const struct rs_analyzer *a, size_t *pos)
{
	while (*pos < a->flows->len) {
		const struct rs_flow *fl = a->flows->pdata[(*pos)++];
		if (fl)
			return fl;
	}
	return NULL;
}

const struct rs_conn *rs_conns_next(const struct rs_analyzer *a, size_t *pos)
{
	return *pos < a->conns->len ? a->conns->pdata[(*pos)++] : NULL;
}

void rs_conn_get_info(const struct rs_conn *c, struct rs_conn_info *out)
{
	out->id = c->id;
	out->sidr = c->kind == RS_CONN_SIDR;
	out->client = c->client;
	out->server = c->server;
	out->client_qpn = c->client_qpn;
	out->server_qpn = c->server_qpn;
	out->client_comm_id = c->client_comm_id;
	out->server_comm_id = c->server_comm_id;
	out->service_id = c->service_id;
	out->req_psn = c->req_psn;
	out->rep_psn = c->rep_psn;
	out->have_req_psn = c->have_req_psn;
	out->have_rep_psn = c->have_rep_psn;
	out->transport_type = c->transport_type;
	out->have_cma = c->have_cma;
	out->cma = c->cma;
	out->qkey = c->qkey;
	out->sidr_status = c->sidr_status;
	out->rej_reason = c->rej_reason;
	out->c2s = c->c2s;
	out->s2c = c->s2c;
	out->have_req_retry = c->have_req_retry;
	out->have_rep_rnr = c->have_rep_rnr;
	out->ack_timeout = c->ack_timeout;
	out->retry_count = c->retry_count;
	out->rnr_retry_req = c->rnr_retry_req;
	out->rnr_retry_rep = c->rnr_retry_rep;
	out->rej_from_client = c->rej_from_client;
	memcpy(out->n, c->n, sizeof out->n);
	memcpy(out->ts, c->ts, sizeof out->ts);
	memcpy(out->at, c->at, sizeof out->at);
}

struct rs_lat_figures rs_lat_figures_of(const struct rs_latvec *v)
{
	struct rs_lat_figures f = { 0 };
	if (!v->n)
		return f;
	uint64_t q[2];
	/* The quantiles reorder the samples kept, never the set. */
	rs_lat_quantiles((struct rs_latvec *)v, (const double[]){ 0.5, 0.99 }, q, 2);
	f = (struct rs_lat_figures){ .n = v->n, .min = v->min, .median = q[0], .p99 = q[1], .max = v->max };
	return f;
}

bool rs_flow_cong_notable(const struct rs_flow *fl)
{
	if (!rs_flow_is_v2(fl) || !fl->rare)
		return false;
	const struct rs_flow_rare *r = fl->rare;
	return r->cnps || r->ecn_ce || r->ecn_n[0] || r->ecn_n[1] || r->ecn_n[3] || r->dscp_n[0] || r->dscp_more;
}

void rs_cong_quiet(const GPtrArray *flows, uint64_t *n, uint64_t *packets)
{
	*n = *packets = 0;
	for (guint i = 0; i < flows->len; i++) {
		const struct rs_flow *fl = flows->pdata[i];
		if (rs_flow_is_v2(fl) && !rs_flow_cong_notable(fl)) {
			(*n)++;
			*packets += fl->packets;
		}
	}
}

void rs_cong_get_info(const struct rs_analyzer *a, struct rs_cong_info *out)
{
	const struct rs_cong_state *c = rs_cong(a);
	*out = (struct rs_cong_info){
		.dscp_data = c->dscp_data, .dscp_cnp = c->dscp_cnp, .dscp_given = c->dscp_given,
		.link_gbps = c->link_gbps, .cnp_threshold = c->cnp_threshold, .cnp_given = c->cnp_given,
		.pause_src = c->pause_src, .pfc_frames = c->pfc_frames, .pause_frames = c->pause_frames,
		.ecn_used = c->ecn_used, .v2_packets = c->v2_packets,
	};
}

double rs_conn_step_ms(const struct rs_conn *c, uint16_t from_attr, uint16_t to_attr)
{
	unsigned i = from_attr - UMAD_CM_ATTR_REQ, j = to_attr - UMAD_CM_ATTR_REQ;
	uint64_t q, p;
	if (from_attr == UMAD_CM_ATTR_DREQ && to_attr == UMAD_CM_ATTR_DREP)
		return rs_conn_dreq_drep(c, &q, &p) ? (p - q) / 1e6 : -1;
	if (!c->n[i] || !c->n[j] || c->ts[j] < c->ts[i])
		return -1;
	return (c->ts[j] - c->ts[i]) / 1e6;
}

uint32_t rs_conn_id(const struct rs_conn *c)
{
	return c->id;
}

uint64_t rs_conn_service_id(const struct rs_conn *c)
{
	return c->service_id;
}

const struct rs_ladder_ev *rs_ladder_events(const struct rs_analyzer *a, size_t *n, uint64_t *dropped)
{
	*n = a->ladder ? a->ladder->len : 0;
	*dropped = a->ladder_dropped;
	return a->ladder ? (const struct rs_ladder_ev *)(const void *)a->ladder->data : NULL;
}

void rs_capture_get_info(const struct rs_analyzer *a, struct rs_capture_info *out)
{
	memset(out, 0, sizeof *out);
	out->files = a->files->len;
	out->frames = a->frames;
	out->bytes = a->bytes;
	out->have_ts = a->have_ts;
	out->first_ts = a->first_ts;
	out->last_ts = a->last_ts;
	out->t0 = a->t0;
	out->ecn_ce = a->ecn_ce;
	out->cnps = a->cnps;
	memcpy(out->roce, a->roce, sizeof out->roce);
	memcpy(out->outcome, a->outcome, sizeof out->outcome);
	memcpy(out->icrc, a->icrc, sizeof out->icrc);
	out->ipv4 = a->ipv4;
	out->ipv6 = a->ipv6;
	out->icrc_port_rewritten = a->icrc_port_rewritten;
	out->icrc_port_example = a->icrc_port_example;
	out->vcrc_bad = a->vcrc_bad;
	out->pmtu = a->pmtu;
	out->half_flows = a->nflows;
	out->conns = a->conns->len;
	out->conns_evicted = a->conns_evicted;
	out->evicted = a->evicted;
	out->evicted_packets = a->evicted_sum.packets;
	out->evicted_payload = a->evicted_sum.payload;
	memcpy(out->conns_evicted_by_state, a->conns_evicted_by_state, sizeof out->conns_evicted_by_state);
}

const uint64_t *rs_capture_opcodes(const struct rs_analyzer *a, const uint64_t **dc)
{
	*dc = a->opcodes_dc;
	return a->opcodes;
}

void rs_capture_sniffer(const struct rs_analyzer *a, struct rs_sniffer_info *out)
{
	const struct rs_sniffer *sn = &a->sn;
	*out = (struct rs_sniffer_info){
		.mac_frames = sn->mac_frames, .mac_changes = sn->mac_changes, .host_pairs = sn->host_pairs,
		.host_pairs_one_way = sn->host_pairs_one_way, .rc_one_way_flows = sn->rc_one_way_flows,
		.rc_one_way_packets = sn->rc_one_way_packets, .one_way_from = sn->one_way_from,
		.one_way_to = sn->one_way_to,
	};
}

const struct rs_analyzer_opts *rs_analyzer_options(const struct rs_analyzer *a)
{
	return &a->opts;
}

void rs_capture_file(const struct rs_analyzer *a, uint32_t i, struct rs_file_info *out)
{
	const struct rs_file *fi = a->files->pdata[i];
	out->name = fi->name;
	out->linktype = fi->linktype;
	out->error = fi->error;
	out->unopened = fi->unopened;
	memcpy(out->sliced, fi->sliced, sizeof out->sliced);
	out->sliced_cap_min = fi->sliced_cap_min;
	out->sliced_cap_max = fi->sliced_cap_max;
}

const struct rs_series *rs_flow_series(const struct rs_flow *fl)
{
	return rs_series_of(fl);
}

void rs_flow_problem_counts(const struct rs_flow *fl, uint64_t naks[8], uint64_t resent[RS_RESEND__COUNT])
{
	memcpy(naks, rs_rare(fl)->naks, 8 * sizeof naks[0]);
	memcpy(resent, rs_loss(&fl->req)->resent, RS_RESEND__COUNT * sizeof resent[0]);
}

void rs_flow_stream(const struct rs_flow *fl, bool response, struct rs_stream_info *out)
{
	const struct rs_psn *s = response ? &fl->rsp : &fl->req;
	const struct rs_psn_loss *l = rs_loss(s);
	*out = (struct rs_stream_info){
		.started = s->started, .first = s->first, .next = s->next, .packets = s->packets,
		.gaps = l->gaps, .missing = l->missing, .backward = l->backward, .duplicates = l->duplicates,
		.fills = l->fills, .ooo = l->ooo, .episodes = l->episodes, .uncaptured = l->uncaptured,
		.unseen_lost = l->unseen_lost, .naked_fills = l->naked_fills, .resend_holes = l->resend_holes,
		.read_reserved = l->read_reserved,
		.rsp_again = { l->rsp_again[0], l->rsp_again[1] },
		.rsp_again_first = { l->rsp_again_first[0], l->rsp_again_first[1] },
		.netdup = l->netdup, .late_sendings = l->late_sendings, .fills_overtaken = l->fills_overtaken,
		.late_psns_max = l->late_psns_max, .late_ns_max = l->late_ns_max,
		.rnr_early = l->rnr_early, .nak_at = l->nak_at,
		.timeouts = l->timeouts, .timeout_min_ns = l->timeout_min_ns, .timeout_max_ns = l->timeout_max_ns,
		.timeout_sum_ns = l->timeout_sum_ns, .timeouts_early = l->timeouts_early, .timer_ns = l->timer_ns,
		.read_retries = l->read_retries, .read_min_ns = l->read_min_ns, .read_max_ns = l->read_max_ns,
		.silent_first_ts = l->silent_first_ts, .silent_last_ts = l->silent_last_ts,
		.silent_from = l->silent_from, .answered_at = l->answered_at,
		.dead = l->dead, .dead_why = l->dead_why, .dead_torn_down = l->dead_torn_down,
		.silence_ns = l->silence_ns,
	};
	memcpy(out->resent, l->resent, sizeof out->resent);
	memcpy(out->episodes_by, l->episodes_by, sizeof out->episodes_by);
}

/* Skipped PSNs were filled later (a NAK had named some of them, single late
 * packets among them), settled by the responder (uncaptured, or named by a
 * NAK and never re-sent), or neither. Of the re-sent, those whose first
 * sending came after them (overtaken) had it in the capture after all. */
static struct rs_gaps gaps(uint64_t missing, uint64_t fills, uint64_t ooo, uint64_t naked_fills, uint64_t uncaptured,
			   uint64_t unseen_lost, uint64_t fills_overtaken)
{
	uint64_t resent = fills - ooo - naked_fills;
	return (struct rs_gaps){
		.skipped = missing,
		.absent = missing - fills,
		.not_captured = uncaptured,
		.lost = naked_fills + unseen_lost,
		.resent = resent,
		.overtaken = fills_overtaken < resent ? fills_overtaken : resent,
		.reordered = ooo,
		.undetermined = missing - fills - uncaptured - unseen_lost,
	};
}

struct rs_gaps rs_gaps_of_stream(const struct rs_stream_info *s)
{
	return gaps(s->missing, s->fills, s->ooo, s->naked_fills, s->uncaptured, s->unseen_lost, s->fills_overtaken);
}

struct rs_gaps rs_gaps_of_capture(const struct rs_psn_totals *t)
{
	return gaps(t->missing, t->fills, t->ooo, t->naked_fills, t->uncaptured, t->unseen_lost, t->fills_overtaken);
}

const struct rs_psn_totals *rs_capture_psns(const struct rs_analyzer *a)
{
	return &a->psns;
}

/* The first request PSN the responder had not acknowledged at the end. */
uint32_t rs_flow_unacked_from(const struct rs_flow *fl)
{
	const struct rs_flow *p = fl->peer;
	return p && p->have_ack_psn ? (p->ack_psn + 1) & RS_PSN_MASK : fl->req.first;
}

int64_t rs_flow_unacked(const struct rs_flow *fl)
{
	if (fl->transport != RS_TR_RC || !fl->req.started)
		return -1;
	int32_t n = rs_psn_diff(fl->req.next, rs_flow_unacked_from(fl));
	return n > 0 ? n : 0;
}

const struct rs_rkey_use *rs_flow_rkeys(const struct rs_flow *fl, unsigned *n, uint64_t *more)
{
	*n = fl->rkeys ? (unsigned)fl->rkeys->n : 0;
	*more = fl->rkeys ? fl->rkeys->more : 0;
	return fl->rkeys ? rs_rkey_uses(fl->rkeys) : NULL;
}

const uint32_t *rs_flow_imms(const struct rs_flow *fl, unsigned *n, uint64_t *total)
{
	const struct rs_imms *imms = rs_imms_of(fl);
	*n = imms ? imms->n : 0;
	*total = imms ? imms->total : 0;
	return imms ? imms->v : NULL;
}

const struct rs_flow_msgs *rs_flow_messages(const struct rs_flow *fl, struct rs_flow_msgs *buf)
{
	return rs_msgs_read(fl, buf);
}

double rs_flow_active_s(const struct rs_flow *fl)
{
	return fl->last_ts > fl->first_ts ? (fl->last_ts - fl->first_ts) / 1e9 : 0;
}

/* Payload over the half-flow's span, first frame to last (Wireshark's
 * conversation rate), whatever --interval is; negative (unknown) when the
 * span is 0: one frame, or all at one time. */
double rs_flow_avg_Bps(const struct rs_flow *fl)
{
	if (fl->last_ts <= fl->first_ts)
		return -1;
	return fl->payload / ((fl->last_ts - fl->first_ts) / 1e9);
}

/* The busiest --interval's payload over the interval; negative (unknown)
 * for a half-flow shorter than one interval: no interval lies within it,
 * so its busiest one would read below its rate. */
double rs_flow_peak_Bps(const struct rs_flow *fl, uint64_t interval_ns)
{
	if (!interval_ns || fl->last_ts < fl->first_ts || fl->last_ts - fl->first_ts < interval_ns)
		return -1;
	return fl->peak_bytes / (interval_ns / 1e9);
}

/* The same for the payload on the wire, re-sends and copies too. */
double rs_flow_peak_wire_Bps(const struct rs_flow *fl, uint64_t interval_ns)
{
	double g = rs_flow_peak_Bps(fl, interval_ns);
	uint64_t w = fl->rare ? fl->rare->peak_wire : 0;
	return g < 0 || w <= fl->peak_bytes ? g : w / (interval_ns / 1e9);
}

uint64_t rs_flow_read_bytes(const struct rs_flow *fl)
{
	return fl->peer ? fl->peer->read_resp_payload : 0;
}

uint64_t rs_flow_msgs_total(const struct rs_flow *fl)
{
	const struct rs_flow_msgs *ms = rs_msgs(fl);
	uint64_t n = 0;
	for (int k = 0; k < RS_MSG__COUNT; k++)
		n += ms->msgs[k];
	return n;
}

uint64_t rs_flow_naks_total(const struct rs_flow *fl)
{
	uint64_t n = 0;
	for (int k = 0; k < 8; k++)
		n += rs_rare(fl)->naks[k];
	return n;
}

const char *rs_flow_pairing(const struct rs_flow *fl)
{
	switch (fl->pair_method) {
	case RS_PAIR_CM: return "cm";
	case RS_PAIR_INFERRED: return "inferred";
	default: return fl->conn ? "cm" : "none";
	}
}

void rs_anomaly_get_info(const struct rs_analyzer *a, const struct rs_anomaly *an, struct rs_anomaly_info *out)
{
	enum rs_anom type = (enum rs_anom)an->type;
	memset(out, 0, sizeof *out);
	out->type = an->type;
	out->code = an->code;
	out->count = an->count;
	out->nframes = an->nframes;
	memcpy(out->frames, an->frames, sizeof out->frames);
	out->detail = an->detail;
	out->evicted_sum = an->subject == &a->detached;
	out->evicted = out->evicted_sum || (an->ghost && an->subject == an->ghost);
	if (!out->evicted_sum && an->subject && rs_anom_flow_subject(type))
		out->flow = an->subject;
	else if (!out->evicted_sum && an->subject && rs_anom_conn_subject(type))
		out->conn = an->subject;
	if (type == RS_AN_MIXED_ROCE && an->ghost) {
		out->have_mixed = true;
		out->mixed_x = an->ghost->mixed.x;
		out->mixed_y = an->ghost->mixed.y;
		out->v1_frame = an->ghost->mixed.v1_frame;
		out->v2_frame = an->ghost->mixed.v2_frame;
	}
}

/* ---- what a report shows ----------------------------------------------------- */

static bool flow_selected(const struct rs_flow *fl, int64_t qp, int64_t conn)
{
	if (conn >= 0) {
		const struct rs_conn *c = fl->conn ? fl->conn : fl->peer ? fl->peer->conn : NULL;
		if (!c || c->id != (uint64_t)conn)
			return false;
	}
	if (qp < 0)
		return true;
	return fl->key.qpn == (uint32_t)qp || (fl->peer && fl->peer->key.qpn == (uint32_t)qp);
}

static bool conn_selected(const struct rs_conn *c, int64_t qp, int64_t conn)
{
	return (conn < 0 || c->id == (uint64_t)conn) &&
	       (qp < 0 || c->client_qpn == (uint32_t)qp || c->server_qpn == (uint32_t)qp);
}

static gint by_bytes(gconstpointer x, gconstpointer y)
{
	const struct rs_flow *a = *(const struct rs_flow *const *)x;
	const struct rs_flow *b = *(const struct rs_flow *const *)y;
	if (a->wire_bytes != b->wire_bytes)
		return a->wire_bytes > b->wire_bytes ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

GPtrArray *rs_flows_selected(const struct rs_analyzer *a, int64_t qp, int64_t conn)
{
	GPtrArray *flows = g_ptr_array_new();
	for (guint i = 0; i < a->flows->len; i++) {
		struct rs_flow *fl = a->flows->pdata[i];
		if (fl && flow_selected(fl, qp, conn))
			g_ptr_array_add(flows, fl);
	}
	g_ptr_array_sort(flows, by_bytes);
	return flows;
}

GPtrArray *rs_conns_selected(const struct rs_analyzer *a, int64_t qp, int64_t conn)
{
	GPtrArray *conns = g_ptr_array_new();
	for (guint i = 0; i < a->conns->len; i++)
		if (conn_selected(a->conns->pdata[i], qp, conn))
			g_ptr_array_add(conns, a->conns->pdata[i]);
	return conns;
}

static bool anomaly_selected(const struct rs_anomaly *an, int64_t qp, int64_t conn, const GPtrArray *flows,
			     const GPtrArray *conns)
{
	if (qp < 0 && conn < 0)
		return true;
	/* Capture-wide problems (file errors, undecodable frames, bad VCRCs,
	 * evictions, version mixing) concern every QP. */
	switch (an->type) {
	case RS_AN_FILE_ERROR:
	case RS_AN_UNDECODABLE:
	case RS_AN_VCRC_BAD:
	case RS_AN_EVICTED:
	case RS_AN_MIXED_ROCE:
	case RS_AN_ROCE_ELSEWHERE:
	case RS_AN_SHAPE_UNEXAMINED:
		return true;
	default:
		break;
	}
	for (guint i = 0; i < flows->len; i++)
		if (an->subject == flows->pdata[i])
			return true;
	for (guint i = 0; i < conns->len; i++)
		if (an->subject == conns->pdata[i])
			return true;
	return false;
}

GPtrArray *rs_anomalies_selected(const struct rs_analyzer *a, int64_t qp, int64_t conn, const GPtrArray *flows,
				 const GPtrArray *conns)
{
	GPtrArray *all = rs_anomalies_sorted(a);
	GPtrArray *anomalies = g_ptr_array_new();
	for (guint i = 0; i < all->len; i++)
		if (anomaly_selected(all->pdata[i], qp, conn, flows, conns))
			g_ptr_array_add(anomalies, all->pdata[i]);
	g_ptr_array_free(all, TRUE);
	return anomalies;
}

/*
 * A report lists the flows by bytes, which is no order in memory: a
 * writer's loop waits for each flow, then for what it points to, then for
 * what that points to, a miss each (with 8,000 flows, half the report's
 * time). Four distances ahead, one level each: rs_flows_at() fetches
 * them as writers go through the flows in order.
 */
static void prefetch_ahead(const GPtrArray *flows, guint i)
{
	enum { FLOW = 16, POINTERS = 12, VECTORS = 8, SAMPLES = 4 };
	guint n = flows->len;
	if (i + FLOW < n)
		rs_prefetch_lines(flows->pdata[i + FLOW], sizeof(struct rs_flow));
	if (i + POINTERS < n) {
		const struct rs_flow *fl = flows->pdata[i + POINTERS];
		const void *p[] = { fl->lat, fl->rkeys, fl->m, fl->rare, fl->req.loss, fl->rsp.loss };
		for (size_t k = 0; k < G_N_ELEMENTS(p); k++)
			if (p[k])
				__builtin_prefetch(p[k]);
	}
	if (i + VECTORS < n) {
		const struct rs_flow *fl = flows->pdata[i + VECTORS];
		if (fl->lat)
			for (int k = 0; k < RS_LAT__COUNT; k++)
				if (rs_latvec_vec(fl->lat, (enum rs_lat_kind)k))
					__builtin_prefetch(rs_latvec_vec(fl->lat, (enum rs_lat_kind)k));
		if (fl->rkeys && fl->rkeys->cap > 1)
			__builtin_prefetch(fl->rkeys->u.use);
	}
	if (i + SAMPLES < n) {
		const struct rs_flow *fl = flows->pdata[i + SAMPLES];
		if (fl->lat)
			for (int k = 0; k < RS_LAT__COUNT; k++) {
				const struct rs_latvec *lv = rs_latvec_vec(fl->lat, (enum rs_lat_kind)k);
				if (lv && lv->v)
					__builtin_prefetch(lv->v);
			}
	}
}

const struct rs_flow *rs_flows_at(const GPtrArray *flows, guint i)
{
	prefetch_ahead(flows, i);
	return flows->pdata[i];
}

void rs_flow_latency(const struct rs_flow *fl, struct rs_latency_info *out)
{
	const struct rs_flow_rare *r = rs_rare(fl);
	memset(out, 0, sizeof *out);
	out->requester = fl->lat != NULL;
	out->overflow = r->lat_overflow;
	out->clock_backwards = r->lat_clock_backwards;
	out->karn = r->lat_karn;
	out->acked_before_seen = r->lat_acked_before_seen;
	out->acked_across_gap = r->lat_acked_across_gap;
	if (!fl->lat)
		return;
	for (int k = 0; k < RS_LAT__COUNT; k++) {
		struct rs_latvec *l = rs_latvec_of(fl->lat, (enum rs_lat_kind)k);
		if (!l || !l->n)
			continue;
		uint64_t q[2];
		rs_lat_quantiles(l, (const double[]){ 0.5, 0.99 }, q, 2);
		out->kind[k] = (struct rs_lat_figures){ .n = l->n, .min = l->min, .median = q[0], .p99 = q[1], .max = l->max };
		out->any = true;
	}
}

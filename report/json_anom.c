/*
 * json_anom.c — an anomaly's breakdown as JSON fields ("details"): the
 * causes, sub-counts, waits and frames its sentence quotes, so that a script
 * reads them without parsing the description. Each type's keys are listed in
 * the man page (JSON OUTPUT) and the schema; a type without a breakdown has
 * an empty object.
 */
#include "report/json_anom.h"

static void by_cause(struct rs_json *j, const char *key, const uint64_t *n)
{
	rs_json_obj(j, key);
	for (int c = 0; c < RS_RESEND__COUNT; c++)
		rs_json_u64(j, rs_resend_key((enum rs_resend)c), n[c]);
	rs_json_end_obj(j);
}

static void resent_requests(struct rs_json *j, const struct rs_stream_info *l)
{
	uint64_t episodes[RS_RESEND__COUNT];
	for (int c = 0; c < RS_RESEND__COUNT; c++)
		episodes[c] = l->episodes_by[c];
	by_cause(j, "resent_by_cause", l->resent);
	by_cause(j, "episodes_by_cause", episodes);
	rs_json_u64(j, "episodes", l->episodes);
	rs_json_u64(j, "resent_after_seen", l->duplicates);
	rs_json_u64(j, "filling_missing", l->fills - l->ooo);
	rs_json_u64(j, "resends_not_captured", l->resend_holes);
	rs_json_u64(j, "rnr_retries_early", l->rnr_early);
	rs_json_timeout_waits(j, l, false);
	rs_json_read_retry_waits(j, l);
}

/* How long each re-send run the timer sent waited, from the last packet
 * before it (the QP's request_psn with the mean, the anomaly without). */
void rs_json_timeout_waits(struct rs_json *j, const struct rs_stream_info *l, bool mean)
{
	if (!l->timeouts) {
		rs_json_null(j, "timeout_wait_ns");
		return;
	}
	rs_json_obj(j, "timeout_wait_ns");
	rs_json_u64(j, "count", l->timeouts);
	rs_json_u64(j, "min", l->timeout_min_ns);
	if (mean)
		rs_json_u64(j, "mean", l->timeout_sum_ns / l->timeouts);
	rs_json_u64(j, "max", l->timeout_max_ns);
	rs_json_u64(j, "sooner_than_cm_timeout", l->timeouts_early);
	rs_json_end_obj(j);
}

/* How long after a later answer each READ or atomic retry run began (the
 * anomaly's details and the QP's request_psn alike). */
void rs_json_read_retry_waits(struct rs_json *j, const struct rs_stream_info *l)
{
	if (l->read_retries) {
		rs_json_obj(j, "read_retry_wait_ns");
		rs_json_u64(j, "count", l->read_retries);
		rs_json_u64(j, "min", l->read_min_ns);
		rs_json_u64(j, "max", l->read_max_ns);
		rs_json_end_obj(j);
	} else {
		rs_json_null(j, "read_retry_wait_ns");
	}
}

static void resent_responses(struct rs_json *j, const struct rs_stream_info *l)
{
	rs_json_u64(j, "read_responses", l->rsp_again[0]);
	rs_json_u64(j, "atomic_acks", l->rsp_again[1]);
	rs_json_u64(j, "first_answer_not_captured", l->rsp_again_first[0] + l->rsp_again_first[1]);
}

static void psn_gap(struct rs_json *j, const struct rs_stream_info *l)
{
	struct rs_gaps g = rs_gaps_of_stream(l);
	rs_json_u64(j, "skipped", g.skipped);
	rs_json_u64(j, "gaps", l->gaps);
	rs_json_u64(j, "not_captured", g.not_captured);
	rs_json_u64(j, "lost", g.lost);
	rs_json_u64(j, "resent", g.resent - g.overtaken);
	rs_json_u64(j, "resent_before_first_copy", g.overtaken);
	rs_json_u64(j, "reordered", g.reordered);
	rs_json_u64(j, "undetermined", g.undetermined);
	rs_json_u64(j, "read_reserved", l->read_reserved);
}

static const char *dead_key(uint32_t code)
{
	static const char *const keys[] = {
		[RS_DEAD_RETRY] = "retry_exhausted", [RS_DEAD_RETRYING] = "still_retrying",
		[RS_DEAD_RNR] = "rnr_retry_exhausted", [RS_DEAD_SILENT] = "stopped_unanswered",
		[RS_DEAD_RNR_SILENT] = "stopped_after_rnr",
	};
	return code < G_N_ELEMENTS(keys) && keys[code] ? keys[code] : "";
}

static void gave_up(struct rs_json *j, const struct rs_flow *fl, uint32_t code, uint64_t count)
{
	static const char *const why[] = {
		[RS_WHY_NO_COUNT] = "count_not_captured", [RS_WHY_FOREVER] = "count_retries_for_ever",
		[RS_WHY_MORE] = "more_than_count", [RS_WHY_FEWER] = "fewer_than_count",
	};
	struct rs_stream_info req, *l = &req;
	rs_flow_stream(fl, false, l);
	struct rs_flow_info fi;
	struct rs_conn_info ci;
	rs_flow_get_info(fl, &fi);
	if (fi.conn)
		rs_conn_get_info(fi.conn, &ci);
	const struct rs_conn_info *c = fi.conn ? &ci : NULL;
	bool rnr = code == RS_DEAD_RNR || code == RS_DEAD_RNR_SILENT;
	bool client = c && c->c2s == fl;
	bool have = c && (rnr && client ? c->have_rep_rnr : c->have_req_retry);
	rs_json_str(j, "outcome", dead_key(code));
	rs_json_u64(j, rnr ? "rnr_naks_in_a_row" : "retries_unanswered", count);
	if (have)
		rs_json_u64(j, rnr ? "rnr_retry_count" : "retry_count",
			    rnr ? (client ? c->rnr_retry_rep : c->rnr_retry_req) : c->retry_count);
	else
		rs_json_null(j, rnr ? "rnr_retry_count" : "retry_count");
	rs_json_str(j, "not_exhausted_because", l->dead_why && l->dead_why < G_N_ELEMENTS(why) ? why[l->dead_why] : NULL);
	rs_json_bool(j, "torn_down", l->dead_torn_down);
	rs_json_u64(j, "silence_ns", l->silence_ns);
	if (rnr) {
		rs_json_u64(j, "last_rnr_nak_frame", l->nak_at.frame);
		return;
	}
	rs_json_u64(j, "last_answer_frame", l->answered_at.frame);
	rs_json_u64(j, "first_retry_frame", l->silent_from.frame);
	if (count > 1)
		rs_json_u64(j, "retry_period_ns", (l->silent_last_ts - l->silent_first_ts) / (count - 1));
	else
		rs_json_null(j, "retry_period_ns");
	int64_t unacked = rs_flow_unacked(fl);
	if (unacked >= 0)
		rs_json_u64(j, "unacknowledged_psns", (uint64_t)unacked);
	else
		rs_json_null(j, "unacknowledged_psns");
}

/* A half-flow's DSCPs, most packets first (CNPs apart). */
static void dscp_list(struct rs_json *j, const char *key, const struct rs_view *v, const struct rs_flow *fl)
{
	uint8_t dv[RS_DSCP_SEEN + 1];
	uint64_t dn[RS_DSCP_SEEN + 1];
	unsigned k = rs_flow_dscps(v->a, fl, dv, dn, RS_DSCP_SEEN + 1);
	rs_json_arr(j, key);
	for (unsigned i = 0; i < k; i++) {
		rs_json_obj(j, NULL);
		rs_json_u64(j, "dscp", dv[i]);
		rs_json_u64(j, "packets", dn[i]);
		rs_json_end_obj(j);
	}
	rs_json_end_arr(j);
}

static void dscp(struct rs_json *j, const struct rs_view *v, const struct rs_flow *fl, uint32_t code)
{
	static const char *const kinds[] = { [RS_DSCP_ASYM] = "directions_differ", [RS_DSCP_DATA] = "data_not_as_given",
					     [RS_DSCP_CNPS] = "cnps_not_as_given", [RS_DSCP_SPLIT] = "split" };
	rs_json_str(j, "kind", code < G_N_ELEMENTS(kinds) ? kinds[code] : "");
	dscp_list(j, "dscps", v, fl);
	struct rs_flow_info fi;
	rs_flow_get_info(fl, &fi);
	if (code == RS_DSCP_ASYM && fi.peer)
		dscp_list(j, "peer_dscps", v, fi.peer);
}

void rs_json_anomaly_details(struct rs_json *j, const struct rs_view *v, const struct rs_anomaly *anomaly)
{
	rs_json_obj(j, "details");
	struct rs_anomaly_info ai, *an = &ai;
	rs_anomaly_get_info(v->a, anomaly, an);
	const struct rs_flow *fl = an->flow;
	struct rs_stream_info st;
	if (fl) {
		switch ((enum rs_anom)an->type) {
		case RS_AN_RETRANS:
			rs_flow_stream(fl, an->code != 0, &st);
			if (an->code)
				resent_responses(j, &st);
			else
				resent_requests(j, &st);
			break;
		case RS_AN_OOO:
			rs_flow_stream(fl, false, &st);
			rs_json_u64(j, "late_by_psns_max", st.late_psns_max);
			rs_json_u64(j, "late_by_ns_max", st.late_ns_max);
			break;
		case RS_AN_NETDUP:
			rs_json_str(j, "evidence", an->code ? "same_bytes_sooner_than_any_timer" : "same_ipv4_id_and_icrc");
			break;
		case RS_AN_GAP:
			rs_flow_stream(fl, an->code != 0, &st);
			psn_gap(j, &st);
			break;
		case RS_AN_NAK:
			rs_json_str(j, "nak", rs_nak_code_key((uint8_t)an->code));
			break;
		case RS_AN_RNR:
			rs_json_u64(j, "rnr_timer", an->code);
			rs_json_u64(j, "rnr_timer_ns", rs_rnr_timer_us((uint8_t)an->code) * 1000ull);
			break;
		case RS_AN_DEAD_QP:
			gave_up(j, fl, an->code, an->count);
			break;
		case RS_AN_DSCP:
			dscp(j, v, fl, an->code);
			break;
		default:
			break;
		}
	}
	rs_json_end_obj(j);
}
